"""Link and index lint.

Every relative link in every markdown file must resolve: inline and
reference-style links, reference definitions (even unused ones), images,
autolinks, and ``href``/``src`` in raw HTML. The target must exist inside the
root with the same letter case, and a ``#fragment`` must match a heading
anchor as GitHub renders it (or an explicit ``id``/``name``). External links
(a URL scheme or ``//``) are skipped: this check never touches the network.
Every note (``context.md`` below the root) must be named in the handbook: a
link, or its path as a code span or plain text (`` `backend/AGENTS.md` ``),
unless ``index = "off"`` for it (notes an agent loads by location). In a
docs site's pages (``site_content``) a link naming no file may name a route
of the site: a page or a file of its ``public/`` (``model/sites.py``). A
missing target git's ignore rules match is an ``ignored-target`` info line (a
build output or a local file: absent in a clone), and so is one whose
destination is a placeholder (``URL``, ``[Target]``, ``{name}``) or that is
written in a template (a ``templates`` folder, a name with ``template``): a
``placeholder-link`` line, but a template for the root (a link resolves
from there) keeps a link the root lacks too as broken; so is one in a
skill's sample (``Context.skill_sample``), written for another tree.
Vendored files (``Context.vendored``) are no source.

Bad::

    broken link: AGENTS.md -> src/context.md
    note missing from handbook index: docs/context.md

Good: ``[src](src/context.md)`` in ``AGENTS.md`` with ``src/context.md``
present, and every note listed that way.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from typing import (
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Tuple,
)

from icm.context import (
    MARKDOWN_SUFFIXES,
    Context,
    Unreadable,
    compile_globs,
)
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.lines import CUSTOM_ID
from icm.model.changes import about
from icm.model.links import (
    Corpus,
    Target,
    Tree,
    extract_all,
    extract_linking,
    indexed_notes,
    is_template,
    is_test_data,
    named_notes,
    near_handbooks,
    notes_to_index,
    parse_text,
    placeholder,
    resolve,
)
from icm.model.sites import Sites, config_reader, docusaurus_sites, github_page
from icm.paths import unnameable
from icm.registry import LinksOptions

NAME = "links"
# icm explain: why the rule matters, and how to silence it here
WHY = ("A broken link or an unindexed note is context no agent reaches: the text "
       "exists, and nothing leads there.")
SILENCE = "links_ignore (globs of link destinations); exclude (files not read)"
RULES = Rules(NAME, {
    "missing-file": Rule("a relative link points at a file that does not exist",
                         fix="fix the path or restore the file"),
    "missing-anchor": Rule("a #fragment matches no heading or anchor of its "
                           "target", fix="link to an existing heading (GitHub "
                           "slug) or add one"),
    "outside-root": Rule("a relative link leaves the repository root",
                         fix="link inside the repository, or use a full URL"),
    "bad-path": Rule("a destination no file can have (a NUL, an over-long name)",
                     fix="fix the destination's percent-encoding or length"),
    "case-mismatch": Rule("a link's target exists only in another letter case",
                          fix="match the file name's letter case exactly"),
    "ignored-target": Rule("a link's missing target is a path git ignores (a "
                           "build output, a local file)", Severity.INFO,
                           "ignored_targets = \"error\" makes it a broken link"),
    "placeholder-link": Rule("a link's missing target is a placeholder (URL, "
                             "[Target]) or is written in a template, for its "
                             "copy, or in a skill's sample", Severity.INFO,
                             "links_ignore (its destination) or exclude (the "
                             "template)"),
    "misplaced-file": Rule("nearly every relative link of a file names no file: "
                           "a page written for another place, or moved",
                           fix="fix its links, or leave the file out (exclude) "
                           "or its destinations (links_ignore)"),
    "unindexed-note": Rule("a note the handbook does not link to",
                           fix="run 'icm check-links --fix' or link the note "
                           "from the handbook"),
    "missing-handbook": Rule("there are notes but no handbook to index them",
                             fix="create the handbook ('icm init') or set "
                             "'handbook'"),
    "unreadable": Rule("a markdown file cannot be read as UTF-8 text",
                       fix="save the file as UTF-8"),
    "skipped": Rule("a markdown file over max_file_bytes was not parsed",
                    Severity.WARNING, "raise max_file_bytes, or exclude the file"),
    "too-deep": Rule("block quotes or lists nested past the parser's limit",
                     Severity.WARNING, "nest block quotes and lists less deeply"),
    "nothing-to-check": Rule("no handbook and no notes: nothing was checked",
                             Severity.INFO),
})


KIND_LABELS = {
    "missing-file": "missing file",
    "missing-anchor": "missing anchor",
    "outside-root": "outside the root",
    "bad-path": "impossible path",
    "case-mismatch": "case mismatch",
    "ignored-target": "git-ignored target",
    "placeholder-link": "placeholder link",
    "misplaced-file": "file of broken links",
    "unindexed-note": "unindexed note",
    "missing-handbook": "missing handbook",
    "unreadable": "unreadable file",
    "skipped": "skipped file",
    "too-deep": "too deeply nested",
}


def run(ctx: Context, options: LinksOptions) -> Report:
    cfg = ctx.config
    md_files = ctx.markdown_files()
    chosen: Optional[FrozenSet[str]] = None  # --changed-since: the sources checked
    total: Optional[int] = None  # the links of every file, when not all are parsed
    if options.changed_since is None:
        corpus = extract_all(ctx, md_files, jobs=options.jobs)
    else:
        changed = ctx.changed(options.changed_since)
        corpus, chosen, total = extract_linking(ctx, md_files, changed,
                                                options.jobs)
    tree = Tree(ctx)
    ignored = compile_globs(cfg.links_ignore)
    sites = _sites(ctx) if cfg.site_content else None
    anchors: Dict[str, FrozenSet[str]] = {}

    def anchors_of(rel: str) -> Optional[FrozenSet[str]]:
        """Anchors of a link target, folded once, only for files linked to."""
        if rel not in anchors:
            if rel in corpus.parsed:
                found = corpus.parsed[rel][1]
            else:  # ignored or excluded: read it now
                try:
                    found = parse_text(ctx.read_markdown(rel))[1]
                except Unreadable:
                    return None
            # a heading's own {#id} is an anchor where a site serves the page
            site = sites is not None and sites.site_of(rel) is not None
            anchors[rel] = frozenset(
                a[len(CUSTOM_ID):].casefold() if a.startswith(CUSTOM_ID)
                else a.casefold() for a in found
                if site or not a.startswith(CUSTOM_ID))
        return anchors[rel]

    broken: List[Finding] = []
    missing: List[Tuple[int, str]] = []  # (at in broken, target) of missing files
    kinds: Dict[str, str] = {}  # "template", "sample" (a skill's) or ""
    # a template's missing targets, judged once its links are all seen:
    # (line, rank, raw, target, found from the root)
    held: Dict[str, List[Tuple[int, int, str, str, bool]]] = {}
    counts: Counter[str] = Counter()
    local: Counter[str] = Counter()  # each file's links to another file
    # Links written in one folder to one destination resolve and are judged
    # alike (a fragment alone, ``#x``/``?x``, names its own file): each is
    # worked out once (PowerShell-Docs: 32,794 links, 12,373 distinct).
    judged: Dict[Tuple[str, str], Tuple[Optional[Target], str, str, str]] = {}
    for rel in md_files:
        if chosen is not None and rel not in chosen:
            continue
        if rel in corpus.errors:
            problem = corpus.errors[rel]
            broken.append(RULES("skipped" if problem.skipped else "unreadable",
                                rel, cannot_read(problem.reason)))
            continue
        deep = corpus.parsed[rel][2]
        if deep:
            from icm.markdown import MAX_NESTING

            broken.append(RULES(
                "too-deep", rel, f"nested deeper than {MAX_NESTING} levels at "
                f"line {deep}; links inside are not checked", line=deep, rank=-1))
        folder = posixpath.dirname(rel)
        for rank, (line, raw, href, _kind) in enumerate(corpus.parsed[rel][0]):
            at = (rel if href[:1] in "#?" else folder, href)
            seen = judged.get(at)
            if seen is None:
                target = resolve(rel, href)
                seen = judged[at] = (target, "", "", "") if target is None \
                    else (target, *_verdict(target, tree, anchors_of,
                                            href.startswith("/")))
            target, code, reason, doc = seen
            if target is None:
                continue
            if href[:1] not in "#?":
                local[rel] += 1
            if ignored is not None and (ignored.match(target.path)
                                        or ignored.match(raw)):
                continue
            if code == "missing-file" and sites is not None \
                    and sites.resolves(rel, href):
                continue  # a docs site's route: a page or a public file
            if code == "missing-file":
                if placeholder(raw):
                    broken.append(_placeholder(rel, raw, "a placeholder "
                                               "destination", line, rank))
                    continue
                if rel not in kinds:
                    kinds[rel] = "template" if is_template(rel) else \
                        "sample" if ctx.skill_sample(rel) else \
                        "test-data" if is_test_data(rel) else ""
                if kinds[rel] == "sample":
                    broken.append(_placeholder(rel, raw, "a skill's sample, "
                                               "written for the repository it "
                                               "describes", line, rank))
                    continue
                if kinds[rel] == "test-data":
                    broken.append(_placeholder(rel, raw, "test data: a page a "
                                               "test reads, not one readers "
                                               "follow", line, rank))
                    continue
                if kinds[rel]:
                    held.setdefault(rel, []).append(
                        (line, rank, raw, target.path, _from_root(rel, href, tree)))
                    continue
            if code:
                if doc and doc != rel:
                    reason += f" in {doc}"
                text = f"broken link: {rel} -> {raw}" + (f" ({reason})" if reason
                                                          else "")
                broken.append(RULES(code, rel, text, line=line, rank=rank,
                                    located=True))
                if code == "missing-file":
                    missing.append((len(broken) - 1, target.path))
    for rel, links in held.items():
        rooted = any(at_root for *_, at_root in links)
        for line, rank, raw, path, at_root in links:
            if at_root or not rooted:
                broken.append(_placeholder(rel, raw, "in a template, " + (
                    "resolves from the root" if at_root else
                    "written for its copy"), line, rank))
            else:  # written for the root, and no such file there either
                broken.append(RULES("missing-file", rel, f"broken link: {rel} -> "
                                    f"{raw} (a template for the root: no such "
                                    "file there either)", line=line, rank=rank,
                                    located=True))
                missing.append((len(broken) - 1, path))
    if missing and cfg.ignored_targets == "info":
        ignored_paths = ctx.ignored(sorted({path for _, path in missing}))
        for place, path in missing:
            if path in ignored_paths:
                f = broken[place]
                broken[place] = RULES("ignored-target", f.path, "link into a "
                                   "git-ignored path: " + f.message[len(
                                       "broken link: "):], line=f.line,
                                   rank=f.rank, located=True)
    broken = _misplaced(broken, local, tree, {
        (broken[place].path, broken[place].rank): path for place, path in missing})
    index = index_findings(ctx, corpus, tree)
    if chosen is not None and ctx.config.handbook not in chosen:
        index = about(index, changed)  # a new note, or the handbook changed
    findings = tuple(sorted(broken)) + tuple(sorted(index))
    counts.update(f.code for f in findings)
    links_total = sum(len(p[0]) for p in corpus.parsed.values()) if total is None \
        else total
    nothing: Tuple[Finding, ...] = ()
    if not (findings or links_total or ctx.notes()) \
            and cfg.handbook not in ctx.file_set:
        # Nothing at all was checked: say so rather than a bare "links ok".
        nothing = (RULES("nothing-to-check", ".", f"links: no handbook "
                         f"{cfg.handbook} and no notes named {cfg.note_label} "
                         "(set handbook, note_name)"),)
    return Report(NAME, nothing + findings, tail=tail_of(findings),
                  data={"files": len(md_files), "links": links_total,
                        "by_kind": dict(counts)}, retail=RETAIL)


def _sites(ctx: Context) -> Sites:
    """The configured sites, with each Docusaurus docs folder's route base
    read from its config's text (a config is an input of the memo)."""
    return Sites(ctx.config.site_content, ctx.file_set,
                 docusaurus_sites(ctx.files, config_reader(ctx)))


def _from_root(rel: str, href: str, tree: Tree) -> bool:
    """Whether a copy of ``rel`` at the root would find ``href``."""
    at_root = resolve(posixpath.basename(rel), href)
    return at_root is not None and not at_root.problem \
        and bool(tree.kind(at_root.path))


def _placeholder(rel: str, raw: str, why: str, line: int, rank: int) -> Finding:
    """The info line of a missing target that is a placeholder or a
    template's (a template's link is written for its copy)."""
    return RULES("placeholder-link", rel, f"placeholder link: {rel} -> {raw} "
                 f"({why})", line=line, rank=rank, located=True)


MISPLACED_AT = 8  # broken links a file needs, and four in five of its own


def _misplaced(broken: List[Finding], local: Counter[str], tree: Tree,
               paths: Dict[Tuple[str, int], str]) -> List[Finding]:
    """Each file whose relative links nearly all name no file as one finding
    (a docs page saved from a site: 25 lines of one cause, round 5), its
    links in the JSON; a file with fewer keeps the seed's line a link. The
    hint says whether the targets' names are elsewhere in the tree (one
    lookup each, ``Tree.namesake``): renamed or moved, or never here."""
    missed: Dict[str, List[Finding]] = {}
    for f in broken:
        if f.code == "missing-file":
            missed.setdefault(f.path, []).append(f)
    whole = {rel for rel, found in missed.items()
             if len(found) >= MISPLACED_AT and 5 * len(found) >= 4 * local[rel]}
    if not whole:
        return broken
    kept = [f for f in broken if not (f.code == "missing-file" and f.path in whole)]
    for rel in sorted(whole):
        found = sorted(missed[rel])
        first = found[0].message.split(" -> ", 1)[1]
        moved = [(f, hit) for f in found
                 for hit in [tree.namesake(paths.get((rel, f.rank), ""))] if hit]
        if moved:
            hint = (f"{len(moved)} name a file found elsewhere, e.g. "
                    f"{moved[0][1]}: this file or its targets moved or renamed?")
        else:
            hint = "no file in the tree has their names: written for another place?"
        kept.append(RULES("misplaced-file", rel, (
            f"broken links: {rel} -> {len(found)} of its {local[rel]} relative "
            f"links name no file ({hint} first: {first})"),
            line=found[0].line, rank=found[0].rank, located=True,
            extra={"links": [{"line": f.line,
                              "target": f.message.split(" -> ", 1)[1]}
                             for f in found]}))
    return kept


def tail_of(findings: Tuple[Finding, ...]) -> Tuple[str, ...]:
    """``links ok``, or the problems counted by kind."""
    found = [f for f in findings if f.severity is not Severity.INFO]
    if not found:
        return ("links ok",)
    counts = Counter(f.code for f in found)
    order = list(KIND_LABELS)
    parts = ", ".join(f"{KIND_LABELS[k]} {n}" for k, n in
                      sorted(counts.items(), key=lambda kv: order.index(kv[0])))
    noun = "problem" if len(found) == 1 else "problems"
    return (f"links: {len(found)} {noun} ({parts})",)


RETAIL = tail_of  # the memo names it (``engine.to_plain``)


# Where a home folder or a scratch folder sits on a developer's machine:
# "/Users/me/src/repo/docs/x.md" resolved from the root (round 11's
# relayfile: 14 such links, every one broken for every other reader).
LOCAL_ROOTS = ("Users/", "home/", "root/", "mnt/", "private/", "tmp/")


# The parts a machine's own prefix may take ("/mnt/c/Users/me/GitHub/repo/"
# is six): the tails tried start within them.
MACHINE_PARTS = 12


def _on_one_machine(path: str, tree: Tree) -> str:
    """The reason of a missing link into a local machine's folders, naming
    the tree's file it most likely meant (the longest tail of the path the
    file list holds, of two parts at least, starting within the first
    ``MACHINE_PARTS``). Looked up, never kept: each tail is the link's own
    (every tail of a 2,000-part path, kept, held 900 MB for 1,000 links)."""
    parts = path.split("/", MACHINE_PARTS)
    for i in range(1, min(len(parts) - 1, MACHINE_PARTS)):
        tail = "/".join(parts[i:])
        if tail in tree.files or tail in tree.dirs:
            return f"a path on one machine; the tree has {tail}"
    return "a path on one machine"


def _verdict(target: Target, tree: Tree,
             anchors_of: Callable[[str], Optional[FrozenSet[str]]],
             absolute: bool = False) -> Tuple[str, str, str]:
    """(code, reason, the file whose anchors a fragment missed: the
    reason names it unless it is the link's own) of one target;
    ``absolute``: its link starts at ``/`` (only such can name a machine's
    own folders: ``tmp/x.md`` is the tree's)."""
    if target.problem == "outside-root":
        if github_page(target.path):
            return "", "", ""  # ../../issues: the repository's page on GitHub
        return "outside-root", "outside the repository root", ""
    kind = tree.listed(target.path)
    if not kind:
        # Decoded, a destination can be a name no file has (``%00``): the
        # disk is never asked, and the finding says why.
        impossible = unnameable(target.path)
        if impossible:
            return "bad-path", impossible, ""
        kind = tree.kind(target.path)
    if not kind:
        other = tree.other_case(target.path)
        if other is not None:
            return "case-mismatch", f"exists as {other}", ""
        if absolute and target.path.startswith(LOCAL_ROOTS):
            return "missing-file", _on_one_machine(target.path, tree), ""
        return "missing-file", "", ""
    frag = target.fragment
    if frag is None or frag == "" or frag.casefold() == "top":
        return "", "", ""
    doc = target.path
    if kind == "dir":
        doc = posixpath.join(target.path, "README.md") if target.path else "README.md"
        if tree.kind(doc) != "file":
            return ("missing-anchor",
                    f"no README.md in {target.path or '.'} for #{frag}", "")
    if not doc.lower().endswith(MARKDOWN_SUFFIXES):
        return "", "", ""  # #L10 and friends on code files are GitHub's business
    found = anchors_of(doc)
    if found is None or frag.casefold() not in found:
        return "missing-anchor", f"no heading or anchor #{frag}", doc
    return "", "", ""


def missing_handbook(ctx: Context) -> str:
    handbook = ctx.config.handbook
    near = near_handbooks(ctx)
    hint = f' (found {near[0]}; set handbook = "{near[0]}")' if near else ""
    return f"handbook not found: {handbook}{hint}"


def index_findings(ctx: Context, corpus: Corpus, tree: Tree) -> List[Finding]:
    handbook = ctx.config.handbook
    notes = notes_to_index(ctx)
    if handbook in corpus.parsed:
        linked = indexed_notes(ctx, corpus.parsed[handbook])
    else:
        linked = frozenset()
        if notes and handbook not in corpus.errors:
            return [RULES("missing-handbook", handbook, missing_handbook(ctx),
                          located=True)] + [_unindexed(n) for n in notes]
    unlinked = [n for n in notes if n not in linked]
    if unlinked:  # the handbook is read again only when a note is unlinked
        try:
            named = named_notes(handbook, ctx.read_markdown(handbook), unlinked)
        except Unreadable:
            named = frozenset()
        unlinked = [n for n in unlinked if n not in named]
    return [_unindexed(n) for n in unlinked]


def _unindexed(note: str) -> Finding:
    return RULES("unindexed-note", note, f"note missing from handbook index: "
                 f"{note}", located=True)


