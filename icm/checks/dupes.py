"""One fact, one home: rules copied between notes, and copies that disagree.

Reads the handbook, every note and the ``Invariant`` section of every
journal entry, splits them into statements (paragraphs and list items;
headings and code left out; fewer than ``dupes_min_words`` words ignored)
and compares them across files with ``icm.similarity``. A statement at or
above ``dupes_similarity`` to one in another file is a copy: a warning
(``dupes_copies = "error"`` makes it fail). A copy that differs in a number,
a path, a code span or a negation (``must``/``must not``,
``always``/``never``) has diverged, a warning naming the difference
(``dupes_diverged = "error"`` makes it fail: no kind of it was right 9
times in 10 on held-out notes); a copy that differs *only* in those is
diverged whatever its similarity. Statements each note makes of itself
(``similarity.self_said``: "This file was generated ...", a ``**Version**:``
header, an empty field) are no copies, nor is a description of named code
on either side (``similarity.describes``: "`X.tsx` - renders the list",
in a folder's note and its parent's file list) unless the two disagree:
a repeated line that instructs is two homes for one rule, one that
describes is not (in a folder's note and its ``src/`` note, any line that
does not instruct: both describe one code; elsewhere, a bold label's
value no side of which instructs, holds of a whole kind or sits under a
heading naming rules: ``similarity.holds_rule``, a fact said twice).
Notes made from one form (``_Form``: a heading and field label at one
place in ``FORM_NOTES`` notes) fill its places per note, no copies, and
share its fixed line, one finding per home. The home is the handbook, then
the shallower note, then the path sorting first; journal entries come last
and are never compared with each other (a newer entry may correct an older
one). Only files read together are compared (``model.notes.read_together``:
the handbook, an ancestor folder's note, a note of the same folder, one
naming the other); sibling folders' notes are never loaded at once, and
``dupes_siblings`` shows their pairs as info or warnings. Three or more
consecutive statements copied in order are one finding naming both ranges.
``<!-- icm: allow-duplicate -->`` on either statement, or ``dupes_ignore``
globs of paths, acknowledge a deliberate copy.

Bad (one line each)::

    duplicate rule: src/context.md:12 repeats AGENTS.md:30 (keep one home,
        link to it)
    diverged rule: src/tests/context.md:8 and src/context.md:12 disagree:
        '64 KiB' vs '1 MiB'
    duplicate rule: b/AGENTS.md:8-50 and AGENTS.md:10-52 hold the same 12
        rules (keep one home, link to it)

Good: the rule stated once, in ``AGENTS.md``, and ``src/context.md``
linking to it.
"""

from __future__ import annotations

import functools
import posixpath
import re
import sys
from dataclasses import replace
from itertools import chain
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from icm import cache as cache_mod
from icm import similarity
from icm.context import Context, Unreadable, compile_globs, decode
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model import journal
from icm.model import notes as notes_mod
from icm.model.changes import about
from icm.model.links import named_notes
from icm.registry import DupesOptions

NAME = "dupes"
# icm explain: why the rule matters, and how to silence it here
WHY = ("One fact, one home: a copy costs a reader twice, and a copy that disagrees "
       "leads to a wrong change.")
SILENCE = ("<!-- icm: allow-duplicate --> on either statement; dupes_ignore (globs of "
           "files)")
SLOT = "Invariant"
FIX = "keep one home, link to it"
CACHE_FILE = "dupes-cache.json"
TEMPLATE_STATEMENTS = 3  # statements a note shares with a home to be its copy
TEMPLATE_NOTES = 3  # notes (the home counted) that make a template group
TEMPLATE_NAMED = 5  # differing copies a group finding names
SECTION_STATEMENTS = 3  # consecutive copies, in order, that are one section
FORM_NOTES = 5  # notes holding a field at one place that make it a form's
FORM_SHARE = 0.5  # a field filled per note: no value held by this share
SOURCE_ROOTS = frozenset({"src", "lib"})  # a folder's code, its note beside
NAMES_SCREENED = 16  # note file names a text is screened for before its paths
# restated rules (dupes_restated = "info"): each statement's best reworded
# match at these scores (similarity.Ranker.neighbours), from the tuning
# parts of bench/labels/split.json (tune, then test and test2 once spent:
# docs/benchmarks.md, test3)
RESTATED_LEXICAL = 0.3
RESTATED_SEMANTIC = 0.4  # with similarity = "semantic": mean with the cosine
RESTATED_FLOOR = 0.15  # the lexical score a pair needs to be embedded-scored
# a pair where one statement names the other's folder (an index entry and
# the folder's own note): (lexical, semantic), chosen on the four spent parts
RESTATED_ROLE = (0.2, 0.4)  # semantic: the cross-validation kept 0.4 (none)
# a rule restated in two sections of one note: (lexical, semantic), None
# for off; only test4's labels look inside a note (docs/benchmarks.md)
RESTATED_WITHIN: Optional[Tuple[float, float]] = (0.5, 0.5)
RESTATED_WITHIN_FLOOR = 0.15  # in one note, the least a shared term's pair
RULES = Rules(NAME, {
    "duplicate-rule": Rule("a rule stated in a second home (a warning; "
                           "dupes_copies = \"error\" makes it an error)",
                           Severity.WARNING),
    "diverged-rule": Rule("two homes of one rule disagree on a value (a "
                          "warning naming the difference; dupes_diverged = "
                          "\"error\" makes it an error)", Severity.WARNING,
                          fix="decide which is true, keep it in one home and "
                          "link to it"),
    "restated-rule": Rule("a rule reworded in a second home (info, with "
                          "dupes_restated = \"info\"; its precision is a "
                          "hint's, docs/checks.md)", Severity.INFO),
    "template-copies": Rule("notes instantiated from one template share their "
                            "statements (one finding per group; a warning, "
                            "as copies are)", Severity.WARNING),
    "mirror-drift": Rule("one folder's notes for two tools (AGENTS.md, "
                         "CLAUDE.md, GEMINI.md), copies by intent, disagree "
                         "on a value (a warning naming the difference)",
                         Severity.WARNING, fix="make the copies agree"),
    "unreadable": Rule("a note cannot be read as UTF-8 text"),
    "skipped": Rule("a note over max_file_bytes was not read", Severity.WARNING),
})


def sources(ctx: Context) -> List[Tuple[int, str]]:
    """(kind, path) of every file read, homes first: 0 handbook, 1 notes
    (shallower first), 2 journal entries."""
    cfg = ctx.config
    ignored = compile_globs(cfg.dupes_ignore)
    found = []
    if cfg.handbook in ctx.file_set:
        found.append((0, cfg.handbook))
    found += [(1, n) for n in ctx.notes() if n != cfg.handbook]
    found += [(2, e) for e in journal.entries(ctx)]
    found.sort(key=lambda kp: (kp[0], kp[1].count("/"), kp[1]))
    return [(k, p) for k, p in _one_name(ctx, found)
            if ignored is None or not ignored.match(p)]


def _one_name(ctx: Context, found: Sequence[Tuple[int, str]]
              ) -> List[Tuple[int, str]]:
    """Each file once: a note that is a symlink to another note (or to the
    handbook) is that file under a second name, never a copy of it."""
    seen: Set[str] = set()
    kept = []
    for kind, path in found:
        try:
            real = ctx.real(path)
        except Unreadable:
            real = path  # _read reports it
        if real in seen:
            continue
        seen.add(real)
        kept.append((kind, path))
    return kept


def _invariant(headings: Sequence[Tuple[int, str]],
               held: Sequence[str] = (SLOT,)) -> bool:
    """Whether a paragraph is under a heading holding the invariant role
    (``held``: ``model.journal``'s, by format; Invariant by default)."""
    return any(level == 2 and text in held for level, text in headings)


def run(ctx: Context, options: DupesOptions) -> Report:
    with cache_mod.paused_gc():
        return _run(ctx, options.changed_since)


def _run(ctx: Context, changed_since: Optional[str] = None) -> Report:
    cfg = ctx.config
    found: List[Finding] = []
    stmts: List[similarity.Statement] = []
    skeletons: List[Tuple[Tuple[str, ...], int]] = []
    kinds: Dict[str, int] = {}
    found_files = sources(ctx)
    stamps = {path: _stamp(ctx, path) for _, path in found_files}
    size = sum(s[0] for s in stamps.values() if s)
    held = journal.layout(cfg).headings("invariant")
    store = cache_mod.Cache(ctx.cache_dir, cache_key(held), cached_statements,
                            cache_mod.limit(len(stamps), size), CACHE_FILE)
    for kind, path in found_files:
        try:
            cached = _read(ctx, store, kind, path, stamps[path])
        except Unreadable as exc:
            found.append(RULES("skipped" if exc.skipped else "unreadable", path,
                               cannot_read(exc.reason)))
            continue
        kinds[path] = kind
        for line, text, allowed, skel, words, headings in cached:
            stmts.append(similarity.Statement(path, line, text, allowed, headings))
            skeletons.append((skel, words))
    store.save()

    selves = _Selves()

    def accept(a: similarity.Statement, b: similarity.Statement) -> bool:
        return (a.path != b.path and not (kinds[a.path] == 2 == kinds[b.path])
                and not (a.allowed or b.allowed)
                and not selves.both(a, b))

    index = similarity.Index(stmts, cfg.dupes_min_words, skeletons=skeletons)
    copies = Severity.ERROR if cfg.dupes_copies == "error" else Severity.WARNING
    diverged = Severity.ERROR if cfg.dupes_diverged == "error" else Severity.WARNING
    together = _together(ctx, stmts, kinds)
    near, far = _matches(index, cfg.dupes_similarity, accept, together,
                         cfg.dupes_siblings)
    matches = near + far
    notes = frozenset(p for p, k in kinds.items() if k != 2)
    form = _Form(stmts, skeletons, kinds)
    kept = [m for m in _kept(near, far, kinds)
            if not _described(m) and not _pointers(m, notes)
            and form.of(m) != _Form.FILLED]
    groups = _templates(kept, kinds, _stamped(ctx, stmts, kinds))
    sections = _sections([m for m in kept if form.of(m) != _Form.FIXED], groups,
                         stmts, skeletons, cfg.dupes_min_words)
    in_section = {id(m) for run in sections for m in run if not m.diverged}
    grouped: Dict[str, List[similarity.Match]] = {}
    fixed: Dict[str, List[similarity.Match]] = {}
    for m in kept:
        home = groups.get(m.b.path)
        if home is not None and groups.get(m.a.path) == home and not m.diverged:
            grouped.setdefault(home, []).append(m)
            continue
        if not m.diverged and form.of(m) == _Form.FIXED:
            fixed.setdefault(m.a.path, []).append(m)
            continue
        if id(m) in in_section:
            continue
        found.append(_finding(m, copies, diverged if _confident(
            m, cfg.dupes_min_words) else Severity.WARNING))
    for home, members in grouped.items():
        found.append(_group_finding(home, members, groups, kept, copies))
    for home, members in fixed.items():  # a form's fixed line: one finding
        group = {home: home, **{m.b.path: home for m in members}}
        found += [_group_finding(home, members, group, kept, copies)] if len(
            group) >= TEMPLATE_NOTES else [_finding(m, copies) for m in members]
    found += [_section_finding(run, copies) for run in sections]
    if cfg.dupes_restated == "info":
        found += _restated(stmts, skeletons, kinds, matches, cfg.dupes_min_words,
                           cfg.similarity == "semantic", selves)
    found = _shown(found, together, cfg.dupes_siblings)
    found += _drift(index, cfg.dupes_similarity, accept, together)
    if changed_since is not None:  # every note is still compared: a pair's
        found = about(found, ctx.changed(changed_since))  # either side counts
    return Report.of(NAME, found, ok=not found,
                     data={"files": len(kinds), "statements": len(index)})


def _stamped(ctx: Context, stmts: Sequence[similarity.Statement],
             kinds: Dict[str, int]) -> Dict[str, bytes]:
    """note -> its stamp's key, for the notes a tool wrote into every folder
    (``notes.stamped``: one text in ``STAMPED`` notes or more, own folder
    masked): their copies read together are one template group, however few
    (calendsync's Pommel note per crate: 11 findings between a crate and its
    example). Candidates by their statements (cached: a warm run reads no
    note unless a group of them is one text), confirmed on bytes."""
    texts: Dict[str, List[str]] = {}
    for s in stmts:
        if kinds[s.path] == 1:
            texts.setdefault(s.path, []).append(s.text)
    by: Dict[str, List[str]] = {}
    for path, said in texts.items():
        by.setdefault(notes_mod.own_masked("\n".join(said), path), []).append(path)
    candidates = [p for group in by.values() if len(group) >= notes_mod.STAMPED
                  for p in group]
    # read no more than the digest takes (256 KiB): max_file_bytes read 10 MB
    # of a note whose digest is then refused
    keys = notes_mod.stamp_keys(ctx, candidates)
    sizes: Dict[bytes, int] = {}
    for key in keys.values():
        sizes[key] = sizes.get(key, 0) + 1
    return {p: k for p, k in keys.items() if sizes[k] >= notes_mod.STAMPED}


def _stamp(ctx: Context, path: str) -> cache_mod.Stamp:
    try:
        return cache_mod.stamp(ctx.stat(path))
    except Unreadable:
        return ()


def cache_key(held: Sequence[str] = (SLOT,)) -> str:
    """What must be equal for cached statements to be this code's (the
    splitting is markdown-it's; 3: columns in JSON, headings kept; an
    entry's statements depend on the headings holding the invariant role,
    ``held``)."""
    return f"mdit {cache_mod.markdown_it_version()} format 3|{'|'.join(held)}"


Cached = Tuple[int, str, bool, Tuple[str, ...], int, Tuple[str, ...]]


def cached_statements(values: List[Any]) -> bool:
    """Whether every cache entry's value is ``[kind, lines, texts, allowed,
    skeletons, words, headings]`` as ``_read`` stores it: the types
    ``similarity`` takes, lines from 1, columns of one length, each
    statement's headings a list of strings. A skeleton is its words joined
    by spaces (none holds one): a string a statement, not a list for the
    collector to walk."""
    for value in values:
        if not (type(value) is list and len(value) == 7 and type(value[0]) is int
                and value[0] in (0, 1, 2)):
            return False
        columns = value[1:]
        if not (all(type(c) is list for c in columns)
                and len({len(c) for c in columns}) == 1):
            return False
    return (cache_mod.counts(values, 1, 1) and cache_mod.counts(values, 5, 0)
            and cache_mod.each(bool, cache_mod.column(values, 3))
            and cache_mod.strings(cache_mod.column(values, 2, 4))
            and cache_mod.each(list, cache_mod.column(values, 6))
            and cache_mod.strings(chain.from_iterable(cache_mod.column(values, 6))))


def _read(ctx: Context, store: cache_mod.Cache, kind: int, path: str,
          stamp: cache_mod.Stamp) -> List[Cached]:
    """(line, text, allowed, skeleton, words, headings) per statement of one
    file, from the cache when its stamp, or its content hash, matches."""
    hit = store.get_by_stamp(path, stamp)
    if hit is None or hit[0] != kind:
        data = ctx.read_bytes(path, ctx.config.max_file_bytes)
        hashed = cache_mod.digest(data)
        hit = store.get(path, hashed, stamp)
        if hit is None or hit[0] != kind:
            held = journal.layout(ctx.config).headings("invariant")
            keep = functools.partial(_invariant, held=held) if kind == 2 else None
            found = []
            for s in similarity.statements(decode(path, data), path, keep):
                skel, words = similarity.skeleton(s.text)
                found.append((s.line, s.text, s.allowed, " ".join(skel), words,
                              list(s.headings)))
            hit = [kind, *(map(list, zip(*found)) if found else ([],) * 6)]
            store.put(path, hashed, hit, stamp)
    _, lines, texts, allowed, skeletons, words, headings = hit
    return list(zip(lines, texts, allowed, map(_split, skeletons), words,
                    map(tuple, headings)))


def _split(skeleton: str) -> Tuple[str, ...]:
    # interned: every statement holds the one copy of each word
    return tuple(map(sys.intern, skeleton.split(" "))) if skeleton else ()


def _current(matches: Sequence[similarity.Match], kinds: Dict[str, int]
             ) -> List[similarity.Match]:
    """One finding per copy, against its home (the earliest statement it
    matches). Drop what the journal may repeat: a note's rule restated as an
    entry's Invariant is its record, not a second home; a disagreement is kept
    unless a newer entry restates the rule as the note has it (corrected)."""
    agreed: Dict[int, str] = {}  # id of a note's statement -> newest entry
    for m in matches:
        if kinds[m.b.path] == 2 and not m.diverged:
            agreed[id(m.a)] = max(agreed.get(id(m.a), ""), m.b.path)
    kept, seen = [], set()
    for m in matches:  # in index order: a copy's first match is its home
        if id(m.b) in seen or (kinds[m.b.path] == 2 and not (
                m.diverged and m.b.path > agreed.get(id(m.a), ""))):
            continue
        seen.add(id(m.b))
        kept.append(m)
    return kept


def _templates(kept: Sequence[similarity.Match], kinds: Dict[str, int],
               stamps: Optional[Dict[str, bytes]] = None) -> Dict[str, str]:
    """Notes instantiated from one template: note -> the group's home note.
    A note belongs to the home it shares ``TEMPLATE_STATEMENTS`` statements
    with (each copy is matched to its earliest home, so generated notes all
    point at the first one); a group needs ``TEMPLATE_NOTES`` notes, or
    (``stamps``) to be copies of one stamp, however few are read together."""
    shared: Dict[Tuple[str, str], int] = {}
    for m in kept:
        if kinds[m.a.path] == 1 == kinds[m.b.path]:
            key = (m.a.path, m.b.path)
            shared[key] = shared.get(key, 0) + 1
    members: Dict[str, List[str]] = {}
    for (home, note), n in sorted(shared.items()):
        if n >= TEMPLATE_STATEMENTS:
            members.setdefault(home, []).append(note)
    stamps = stamps or {}
    groups: Dict[str, str] = {}
    for home, notes in members.items():
        one_stamp = home in stamps and all(stamps.get(n) == stamps[home]
                                           for n in notes)
        if (one_stamp or len(notes) + 1 >= TEMPLATE_NOTES) and home not in groups:
            groups[home] = home
            for note in notes:
                groups.setdefault(note, home)
    return groups


def _group_finding(home: str, members: Sequence[similarity.Match],
                   groups: Dict[str, str], kept: Sequence[similarity.Match],
                   copies: Severity) -> Finding:
    """One finding for a template's copies: how many notes, how many
    statements, and which copies differ (each of those is its own finding)."""
    notes = sorted({p for p, h in groups.items() if h == home})
    by_home: Dict[Tuple[str, int], List[similarity.Match]] = {}
    for m in members:
        by_home.setdefault((m.a.path, m.a.line), []).append(m)
    drifts = sorted({f"{m.b.path}:{m.line_b}" for m in kept if m.diverged
                     and groups.get(m.a.path) == home == groups.get(m.b.path)})
    said = (f"{len(drifts)} differ: {', '.join(drifts[:TEMPLATE_NAMED])}"
            + (", ..." if len(drifts) > TEMPLATE_NAMED else "")
            if drifts else "none differ")
    first = min(by_home)
    statements = [{"locations": [{"path": a_path, "line": a_line}] + [
        {"path": m.b.path, "line": m.line_b} for m in ms]}
        for (a_path, a_line), ms in sorted(by_home.items())]
    return RULES("template-copies", home, f"template copies: {len(notes)} notes "
                 f"share {len(by_home)} statements with {home}; {said}",
                 line=first[1], severity=copies,
                 extra={"notes": notes, "statements": statements,
                        "differ": drifts},
                 fix="generate the notes from one template, or keep the shared "
                     "statements in one home and link to it")


def _restated(stmts: Sequence[similarity.Statement],
              skeletons: Sequence[Tuple[Tuple[str, ...], int]],
              kinds: Dict[str, int], matches: Sequence[similarity.Match],
              min_words: int, semantic: bool,
              selves: Optional["_Selves"] = None
              ) -> List[Finding]:
    """Rules reworded in a second home: each statement's best match in
    another note (handbook and notes; a journal entry records a rule, it is
    no home), and in another section of its own (``RESTATED_WITHIN``),
    unless the pair is already a copy or each statement is about its own
    subject (``similarity.own_subjects``, ``similarity.parallel``).
    Info: on the tuning part's hand-written notes two in five (lexical) or
    one in two (semantic) are one rule."""
    selves = selves or _Selves()
    kept = [(s, skel) for s, (skel, words) in zip(stmts, skeletons)
            if words >= min_words and not s.allowed and kinds[s.path] != 2]
    texts = [s for s, _skel in kept]
    paired = {(id(m.a), id(m.b)) for m in matches}
    paired |= {(b, a) for a, b in paired}

    def accept(i: int, j: int) -> bool:
        a, b = texts[i], texts[j]
        return a.path != b.path and (id(a), id(b)) not in paired and not (
            selves.both(a, b))

    embed = similarity.semantic_model() if semantic else None
    ranker = similarity.Ranker([s.text for s in texts], embed,
                               [skel for _s, skel in kept])
    threshold, floor = ((RESTATED_SEMANTIC, RESTATED_FLOOR) if semantic
                        else (RESTATED_LEXICAL, 0.0))
    found = []
    folders = [posixpath.dirname(t.path) for t in texts]
    named: Dict[int, FrozenSet[str]] = {}

    def names_folder(i: int, j: int) -> bool:
        for k in (i, j):
            if k not in named:
                named[k] = _named_folders(texts[k], folders[k])
        return folders[j] in named[i] or folders[i] in named[j]

    def inside(i: int, j: int) -> bool:
        a, b = texts[i], texts[j]
        return a.path == b.path and _apart(a, b) and not selves.both(a, b)

    pairs = [(texts[i], texts[j], score) for i, j, score in ranker.neighbours(
        threshold, accept, floor,
        relaxed=(RESTATED_ROLE[semantic], names_folder),
        apart=None if RESTATED_WITHIN is None else (
            RESTATED_WITHIN[semantic], inside))]
    pairs += _same_targets(stmts, kinds, paired | {
        (id(a), id(b)) for a, b, _s in pairs}, selves,
        within=RESTATED_WITHIN is not None)
    for home, copy, score in pairs:
        if similarity.own_subjects(home, copy) or similarity.parallel(home, copy):
            continue
        found.append(RULES(
            "restated-rule", copy.path, f"restated rule: {copy.path}:{copy.line} "
            f"restates {home.path}:{home.line} ({FIX})", line=copy.line,
            located=True, extra={
                "locations": [
                    {"path": copy.path, "line": copy.line, "text": copy.text},
                    {"path": home.path, "line": home.line, "text": home.text}],
                "similarity": round(score, 3)},
            fix=f"if both say one rule, keep it in {home.path} and link to it"
            if home.path != copy.path else "if both say one rule, keep one"))
    return found


def _apart(a: similarity.Statement, b: similarity.Statement) -> bool:
    """Whether two statements of one note may restate one rule: under
    different headings (a section's lines elaborate one subject: test4's
    same-section pairs were mostly each its own step)."""
    return a.headings != b.headings


def _named_folders(s: similarity.Statement, folder: str) -> FrozenSet[str]:
    """The folders other than its own (``folder``) a statement's paths and
    one-word code spans may name, resolved from it: "`utilities/`:
    cross-cutting helpers" in a parent note and the helpers' own note say
    one thing in two words (prefect's, lancedb's and codemod's folder roles
    scored 0.2-0.3), held to ``RESTATED_ROLE``."""
    if "`" not in s.text and "/" not in s.text:
        return frozenset()
    toks = similarity.tokens(s.text)
    found = frozenset(
        similarity.resolve(v.strip("/"), folder) for v, k in zip(toks.values,
                                                                toks.kinds)
        if k in (similarity.PATH, similarity.CODE) and v.strip("/")
        and not any(c.isspace() for c in v))
    return found - {folder, ""}


class _Selves:
    """Which statements are their note's word about itself
    (``similarity.self_said``), asked only of the candidate pairs: on
    every statement it was a sixth of a warm run."""

    def __init__(self) -> None:
        self._said: Dict[int, bool] = {}

    def both(self, a: similarity.Statement, b: similarity.Statement) -> bool:
        """Whether a pair is no pair: each statement its note's word about
        itself, or either an empty field, which holds no rule to share
        (kept from its twin, test3's "No ... functions exported" became the
        handbook's restatement: 19 false pairs)."""
        return (self._of(a) and self._of(b)) or similarity.empty_field(
            a.text) or similarity.empty_field(b.text)

    def _of(self, s: similarity.Statement) -> bool:
        said = self._said.get(id(s))
        if said is None:
            said = self._said[id(s)] = similarity.self_said(s.text)
        return said


def _same_targets(stmts: Sequence[similarity.Statement], kinds: Dict[str, int],
                  paired: Set[Tuple[int, int]], selves: "_Selves",
                  within: bool = False
                  ) -> List[Tuple[similarity.Statement, similarity.Statement,
                                  float]]:
    """Statements of two notes naming one target (``similarity.targets``)
    under a label sharing a stemmed word, however short: "Postgres schema:
    `prisma/schema.prisma`" in ``packages/shared/`` and "Postgres schema:
    `packages/shared/prisma/schema.prisma`" in the handbook, or one term
    as written (``similarity.written``) by at most ``WRITTEN_CAP``
    statements, none of sibling notes (``_siblings``). Candidates come
    from target postings of at most ``RANK_CAP`` statements: linear."""
    postings: Dict[str, List[similarity.Statement]] = {}
    terms: Dict[str, List[similarity.Statement]] = {}
    for s in stmts:
        if kinds[s.path] != 2 and not s.allowed and similarity.maybe_material(
                s.text):
            toks = similarity.tokens(s.text)  # once for both
            for target in similarity.targets(s, toks):
                postings.setdefault(target, []).append(s)
            for term in similarity.written(s, toks):
                terms.setdefault(term, []).append(s)
    found: List[Tuple[similarity.Statement, similarity.Statement, float]] = []
    seen: Set[Tuple[int, int]] = set()
    for held in chain(
            (p for p in postings.values() if len(p) <= similarity.RANK_CAP),
            (p for p in terms.values() if len(p) <= similarity.WRITTEN_CAP
             and not _siblings(p))):
        if len(held) < 2:
            continue
        # inside one note only a term few statements hold: a folder every
        # line of the note names pairs them all
        inside = within and len(held) <= similarity.WRITTEN_CAP
        for x, a in enumerate(held):
            for b in held[x + 1:]:
                key = (id(a), id(b))
                if (a.path == b.path and not (inside and _apart(a, b))
                        or key in seen or key in paired
                        or selves.both(a, b)):
                    continue
                words_a = similarity.rank_words(a.text)
                words_b = similarity.rank_words(b.text)
                score = round(2 * len(words_a & words_b) / (
                    len(words_a) + len(words_b)), 3)
                # a label in common, not a bare path; in one note, more
                if score > 0 and not (a.path == b.path
                                      and score < RESTATED_WITHIN_FLOOR):
                    seen.add(key)
                    found.append((a, b, score))
    return found


def _described(m: similarity.Match) -> bool:
    """Whether a copy is a description of code (``similarity.describes``)
    on either side, the note detailing what the other summarises, or, in
    a folder's note and its code folder's (``crates/x/`` and
    ``crates/x/src/``, ``SOURCE_ROOTS``; the root's is the handbook's,
    for the whole tree), a line that instructs on neither
    (``similarity.instructs``): both describe one code; anywhere else, a
    label and its value (``similarity.labelled``, on either side) no side
    of which reads as a rule (``similarity.holds_rule``: the adoption
    trials' labels call such copies noise, 7 of 7, and no actionable copy
    failed it). No rule has two homes. A diverged one
    stays: a file's two descriptions that disagree on a value are one of
    them wrong."""
    if m.diverged:
        return False
    if similarity.describes(m.a.text) or similarity.describes(m.b.text):
        return True
    if similarity.instructs(m.a.text) or similarity.instructs(m.b.text):
        return False
    up, down = sorted((posixpath.dirname(m.a.path), posixpath.dirname(m.b.path)),
                      key=len)
    head, _, leaf = down.rpartition("/")
    if bool(up) and head == up and leaf in SOURCE_ROOTS:
        return True
    # neither side instructs (asked above): ``holds_rule`` is ``ruled`` here
    return (similarity.labelled(m.a.text) or similarity.labelled(m.b.text)) \
        and not (similarity.ruled(m.a) or similarity.ruled(m.b))


class _Form:
    """The fields of notes made from one form: a statement's place is its
    innermost heading that ``FORM_NOTES`` notes hold (else the note's top),
    and its field's label (``**Owner:**``, ``Scope:``), else its first two
    words. A place ``FORM_NOTES`` notes fill is the form's (read on the
    first pair asked of, so a run with no copy pays nothing). A text
    holding ``FORM_SHARE`` of a place is its
    fixed text (the form's scope line in every note; its paths read from
    each note's folder): copies of it are one finding per home. Every
    other text there is a value filled in (each note's review date, its
    exports, "update when X change"): pairs of them are no copies and no
    disagreements; a drift from the fixed text is one. A rule two notes
    write elsewhere is theirs."""

    FILLED, FIXED = "filled", "fixed"
    _LABEL = re.compile(r"\s*(?:[-+*]\s+)?(?:\*\*([^*\n]{1,40}?)(?::\*\*|\*\*\s*:)"
                        r"|([A-Z][\w /&-]{0,30}):\s)")

    def __init__(self, stmts: Sequence[similarity.Statement],
                 skeletons: Sequence[Tuple[Tuple[str, ...], int]],
                 kinds: Dict[str, int]) -> None:
        self._of = (stmts, skeletons, kinds)
        self._key: Dict[int, Tuple[Any, ...]] = {}
        self._fixed: Dict[Tuple[Any, ...], Optional[int]] = {}
        self._read = False

    def _build(self) -> None:
        stmts, skeletons, kinds = self._of
        self._read = True
        notes_of: Dict[str, Set[str]] = {}
        trails = set()  # a section's statements share its headings: once
        for s in stmts:
            if kinds[s.path] != 2 and (s.path, s.headings) not in trails:
                trails.add((s.path, s.headings))
                for h in s.headings:
                    notes_of.setdefault(h.casefold(), set()).add(s.path)
        shared = {h for h, held in notes_of.items() if len(held) >= FORM_NOTES}
        places: Dict[Tuple[str, ...], str] = {}
        first: Dict[Tuple[Any, ...], str] = {}  # most places: one note's
        held_by: Dict[Tuple[Any, ...], Set[str]] = {}
        for s, (skel, _words) in zip(stmts, skeletons):
            if kinds[s.path] == 2:
                continue
            place = places.get(s.headings)
            if place is None:
                place = places[s.headings] = next((h for h in map(
                    str.casefold, reversed(s.headings)) if h in shared), "")
            label = self._LABEL.match(s.text) if ":" in s.text[:48] else None
            key: Tuple[Any, ...] = (place, (label.group(1) or label.group(
                2)).casefold()) if label else (place, skel[:2])
            self._key[id(s)] = key
            if first.setdefault(key, s.path) != s.path:
                held_by.setdefault(key, {first[key]}).add(s.path)
        # only a form's places are read further: a text as a hash (equality
        # in this run only; no corpus text held), the first of each kept
        self._text: Dict[int, int] = {}
        self._sample: Dict[Tuple[Any, ...], similarity.Statement] = {}
        self._skel: Dict[int, Tuple[str, ...]] = {}
        self._held: Dict[int, bool] = {}
        values: Dict[Tuple[Any, ...], Dict[int, int]] = {}
        for s, (skel, _words) in zip(stmts, skeletons):
            held = self._key.get(id(s))
            if held is None or len(held_by.get(held, ())) < FORM_NOTES:
                continue
            key = held
            said = values.setdefault(key, {})
            text = self._text[id(s)] = hash(" ".join(s.text.split()).casefold())
            said[text] = said.get(text, 0) + 1
            self._skel[id(s)] = skel
            self._sample.setdefault(key + (text,), s)
        # a form's place -> its fixed text (the most held; a tie: the first
        # written), None when filled per note
        for key, said in values.items():
            text = max(said, key=said.__getitem__)
            self._fixed[key] = text if said[text] >= (
                FORM_SHARE * sum(said.values())) else None

    def of(self, m: similarity.Match) -> Optional[str]:
        """FIXED when both statements are one place's fixed text, or one
        is and the other words it alike (no value differs); FILLED when
        neither is (a value filled in, however many notes agree on it);
        None for a drift from the form, or when no form holds both."""
        if not self._read:
            self._build()
        key = self._key.get(id(m.a))
        if key is None or key != self._key.get(id(m.b)) or key not in self._fixed:
            return None
        held = (self._holds(key, m.a), self._holds(key, m.b))
        if all(held) or (any(held) and not m.diverged):
            return self.FIXED
        return None if any(held) else self.FILLED

    def _holds(self, key: Tuple[Any, ...], s: similarity.Statement) -> bool:
        """Whether a statement is its place's fixed text, as written or
        from its own folder (``../../README.md`` one level deeper)."""
        fixed = self._fixed[key]
        if fixed is None:
            return False
        if self._text[id(s)] == fixed:
            return True
        held = self._held.get(id(s))
        if held is None:
            sample = self._sample[key + (fixed,)]
            held = self._held[id(s)] = self._skel[id(s)] == self._skel[
                id(sample)] and not similarity.differences(
                    sample.text, s.text, sample, s)
        return held


def _pointers(m: similarity.Match, notes: FrozenSet[str]) -> bool:
    """Whether a copy's two statements each send the reader to one home,
    the same note that is neither's ("see `cmd/AGENTS.md` -> Testing"), or
    one names the other's: a summary with its pointer, no second home. A
    diverged one stays: two pointers that disagree have one wrong."""
    if m.diverged:
        return False
    a = named_notes(m.a.path, m.a.text, notes)
    b = named_notes(m.b.path, m.b.text, notes)
    return m.b.path in a or m.a.path in b or bool((a & b) - {m.a.path, m.b.path})


def _siblings(held: Sequence[similarity.Statement]) -> bool:
    """Whether notes of two sibling folders (neither holding the other)
    hold one written term: each package's own `make lint_fix` (pulumi)."""
    folders = {posixpath.dirname(s.path) for s in held}
    return any(not (a + "/").startswith(b + "/") and not (b + "/").startswith(
        a + "/") and a and b for a in folders for b in folders)


def _confident(m: similarity.Match, min_words: int) -> bool:
    """Whether a diverged pair may be an error (``dupes_diverged =
    "error"``): two statements of ``min_words`` or more. A short pair (a
    version in three words) is a warning whatever the setting."""
    return min(similarity.word_count(m.a.text),
               similarity.word_count(m.b.text)) >= min_words


def _pair(m: similarity.Match) -> Tuple[str, Dict[str, Any]]:
    """A pair's differences as the message names them, and its JSON."""
    extra: Dict[str, Any] = {
        "locations": [
            {"path": m.b.path, "line": m.line_b, "text": m.b.text},
            {"path": m.a.path, "line": m.line_a, "text": m.a.text},
        ],
        "similarity": round(m.score, 3),
    }
    if m.diverged:
        extra["differences"] = [{"kind": d.kind, "copy": d.right, "home": d.left}
                                for d in m.differences]
    return "; ".join(f"'{d.right}' vs '{d.left}'" for d in m.differences), extra


def _finding(m: similarity.Match, copies: Severity,
             diverged: Severity = Severity.WARNING) -> Finding:
    copy, home = f"{m.b.path}:{m.line_b}", f"{m.a.path}:{m.line_a}"
    what, extra = _pair(m)
    if m.diverged:
        return RULES("diverged-rule", m.b.path, f"diverged rule: {copy} and "
                     f"{home} disagree: {what}", line=m.line_b, located=True,
                     extra=extra, severity=diverged)
    return RULES("duplicate-rule", m.b.path, f"duplicate rule: {copy} repeats "
                 f"{home} ({FIX})", line=m.line_b, located=True, severity=copies,
                 extra=extra, fix=f"delete the copy and link to {m.a.path}")


# -- notes read together, copied sections ---------------------------------------


def _together(ctx: Context, stmts: Sequence[similarity.Statement],
              kinds: Dict[str, int]) -> Callable[[str, str], bool]:
    """``notes.read_together`` over this run's files. A note names another
    in any statement (a path, a link, an ``@`` import), and what the files
    every session reads import is read too: both from the cached statements,
    no second read. A journal entry is read with every note (the rule for
    its Invariant is ``_current``'s)."""
    said_in: Dict[str, List[str]] = {}
    for s in stmts:
        if kinds[s.path] != 2:
            said_in.setdefault(s.path, []).append(s.text)
    texts = {path: "\n".join(said) for path, said in said_in.items()}
    always = set(notes_mod.always_read(ctx))
    # a root GEMINI.md that is no note (init's "!GEMINI.md") is still what
    # Gemini reads for the handbook: read its imports here, as a note's
    texts.update(notes_mod.tool_files_beside(ctx, always, texts))
    names = set(texts)
    # a text naming no note's file name names no note: the path pass was
    # a fifth of a warm run at 3,000 notes (one name, context.md, for all)
    bases = {posixpath.basename(n) for n in names}
    screened = len(bases) <= NAMES_SCREENED
    named = frozenset((path, other) for path, said in texts.items()
                      if not screened or any(b in said for b in bases)
                      for other in named_notes(path, said.replace("@", " "), names)
                      if other != path)
    # an import from the note's own folder names no folder: CLAUDE.md's
    # @AGENTS.md brings its sibling in (the tool pair is then no mirror)
    named |= {(path, other) for path, said in texts.items()
              for w in said.split() if w[:1] == "@"
              for other in [posixpath.normpath(posixpath.join(
                  posixpath.dirname(path), w[1:].rstrip(".:!?")))]
              if other in names and other != path}
    for path in sorted(always & names):  # one hop, as a stub's imports
        imported = " ".join(w[1:] for w in texts[path].split() if w[:1] == "@")
        always |= named_notes(path, imported, names)

    apart = notes_mod.tools_apart(always, names, named)

    def together(a: str, b: str) -> bool:
        return 2 in (kinds.get(a), kinds.get(b)) or notes_mod.read_together(
            a, b, always, named, apart)

    return together


def _drift(index: similarity.Index, threshold: float,
           accept: Callable[[similarity.Statement, similarity.Statement], bool],
           together: Callable[[str, str], bool]) -> List[Finding]:
    """Where one folder's notes for two tools (``notes.tool_mirrors``, no
    session reads both) disagree: their copies are the intent, as a
    symlink's are, so only a diverged pair whose statements have no exact
    copy over there is a finding."""
    pairs = index.pairs(threshold, lambda a, b: accept(a, b) and not together(
        a.path, b.path) and notes_mod.tool_mirrors(a.path, b.path))
    copied = {id(s) for m in pairs if not m.diverged for s in (m.a, m.b)}
    found, seen = [], set()
    for m in pairs:
        if not m.diverged or id(m.a) in copied or id(m.b) in copied \
                or id(m.b) in seen or _own_names(m):
            continue
        seen.add(id(m.b))
        what, extra = _pair(m)
        found.append(RULES("mirror-drift", m.b.path, f"mirror drift: "
                           f"{m.b.path}:{m.line_b} and {m.a.path}:{m.line_a}, "
                           f"one folder's notes for two tools, disagree: {what}",
                           line=m.line_b, located=True, extra={
                               **extra, "read_together": False}))
    return found


def _own_names(m: similarity.Match) -> bool:
    """Whether two mirrors differ only where each names its own file
    (``CLAUDE.md`` links `/CLAUDE.md`, ``AGENTS.md`` `/AGENTS.md`; round
    11's modulith: 4 of 4 such drifts noise): each tool's copy, agreeing."""
    mine, theirs = posixpath.basename(m.a.path), posixpath.basename(m.b.path)
    return all(mine in d.left and d.left.replace(mine, theirs) == d.right
               for d in m.differences)


def _matches(index: similarity.Index, threshold: float,
             accept: Callable[[similarity.Statement, similarity.Statement], bool],
             together: Callable[[str, str], bool], siblings: str
             ) -> Tuple[List[similarity.Match], List[similarity.Match]]:
    """The pairs of files read together, and (``dupes_siblings`` on) the
    others, asked apart: equal statements pair with the first of their kind
    the filter accepts, so in ``x/``, ``y/`` and ``y/z/`` one pass gave
    ``y/z``'s copy to ``x`` and never to ``y``, the home read with it."""
    near = index.pairs(threshold, lambda a, b: accept(a, b)
                       and together(a.path, b.path))
    if siblings == "off":
        return near, []
    return near, index.pairs(threshold, lambda a, b: accept(a, b)
                             and not together(a.path, b.path))


def _kept(near: Sequence[similarity.Match], far: Sequence[similarity.Match],
          kinds: Dict[str, int]) -> List[similarity.Match]:
    """``_current`` over the pairs read together, then over the others for
    the copies left without a home: a copy's home is one read with it where
    there is one."""
    kept = _current(near, kinds)
    homed = {id(m.b) for m in kept}
    return kept + [m for m in _current(far, kinds) if id(m.b) not in homed]


def _shown(found: Sequence[Finding], together: Callable[[str, str], bool],
           siblings: str) -> List[Finding]:
    """Each pair finding with ``read_together`` in its JSON; one whose files
    are never read together (a group: none of its notes with its home) at
    ``dupes_siblings``' severity, or left out when it is off."""
    severity = {"info": Severity.INFO, "warning": Severity.WARNING}.get(siblings)
    shown = []
    for f in found:
        held = [f.extra.get("locations", ())] + [
            s["locations"] for s in f.extra.get("statements", ())]
        pairs = [(locs[0]["path"], x["path"]) for locs in held if locs
                 for x in locs[1:]]
        if not pairs:
            shown.append(f)
            continue
        near = any(together(a, b) for a, b in pairs)
        extra = {**f.extra, "read_together": near}
        if near:
            shown.append(replace(f, extra=extra))
        elif severity is not None:
            shown.append(replace(f, extra=extra, severity=severity))
    return shown


def _sections(kept: Sequence[similarity.Match], groups: Dict[str, str],
              stmts: Sequence[similarity.Statement],
              skeletons: Sequence[Tuple[Tuple[str, ...], int]], min_words: int
              ) -> List[List[similarity.Match]]:
    """Copied sections: ``SECTION_STATEMENTS`` or more copies from one note
    to another whose statements follow each other, in order, in both (a
    statement too short to compare sits between them unread; a diverged
    copy continues a section, and is still its own finding). Notes of one
    template group are the group's."""
    place: Dict[int, int] = {}  # id of a statement -> its place in its file
    last, n = "", 0
    for s, (_skel, words) in zip(stmts, skeletons):
        if words >= min_words:
            n = n + 1 if s.path == last else 0
            last = s.path
            place[id(s)] = n
    pairs: Dict[Tuple[str, str], List[Tuple[int, int, similarity.Match]]] = {}
    for m in kept:
        group = groups.get(m.a.path)
        if (group is not None and groups.get(m.b.path) == group) \
                or id(m.a) not in place or id(m.b) not in place:
            continue
        pairs.setdefault((m.a.path, m.b.path), []).append(
            (place[id(m.b)], place[id(m.a)], m))
    found = []
    for _key, held in sorted(pairs.items()):
        held.sort(key=lambda h: (h[0], h[1]))
        run = held[:1]
        for cur in held[1:] + [(-2, -2, held[0][2])]:  # a sentinel ends the last
            prev = run[-1]
            if cur[0] == prev[0] + 1 and cur[1] == prev[1] + 1:
                run.append(cur)
                continue
            if sum(not h[2].diverged for h in run) >= SECTION_STATEMENTS:
                found.append([h[2] for h in run])
            run = [cur]
    return found


def _end(s: similarity.Statement) -> int:
    return s.line + s.text.count("\n")


def _section_finding(run: Sequence[similarity.Match], copies: Severity
                     ) -> Finding:
    """One finding for a copied section: both line ranges and how many rules
    they share; every pair in JSON (as a template group's), with the
    diverged ones named (each is its own finding too)."""
    first, final = run[0], run[-1]
    home, copy = first.a.path, first.b.path
    same = [m for m in run if not m.diverged]
    where = (f"{copy}:{first.b.line}-{_end(final.b)} and "
             f"{home}:{first.a.line}-{_end(final.a)}")
    statements = [{"locations": [
        {"path": copy, "line": m.line_b, "text": m.b.text},
        {"path": home, "line": m.line_a, "text": m.a.text}]} for m in same]
    return RULES("duplicate-rule", copy, f"duplicate rule: {where} hold the same "
                 f"{len(same)} rules ({FIX})", line=first.b.line, located=True,
                 severity=copies, extra={
                     "section": {
                         "copy": {"path": copy, "start": first.b.line,
                                  "end": _end(final.b)},
                         "home": {"path": home, "start": first.a.line,
                                  "end": _end(final.a)}},
                     "statements": statements,
                     "differ": [f"{copy}:{m.line_b}" for m in run if m.diverged],
                     "similarity": round(min(m.score for m in same), 3)},
                 fix=f"delete the copied section and link to {home}")
