"""Link and index lint.

Every relative link in every markdown file must resolve: inline and
reference-style links, reference definitions (even unused ones), images,
autolinks, and ``href``/``src`` in raw HTML. The target must exist inside the
root with the same letter case, and a ``#fragment`` must match a heading
anchor as GitHub renders it (or an explicit ``id``/``name``). External links
(a URL scheme or ``//``) are skipped: this check never touches the network.
Every note (``context.md`` below the root) must be linked from the handbook.

Bad::

    broken link: AGENTS.md -> src/context.md
    note missing from handbook index: docs/context.md

Good: ``[src](src/context.md)`` in ``AGENTS.md`` with ``src/context.md``
present, and every note listed that way.
"""

from __future__ import annotations

import os
import pickle
import posixpath
import re
import select
import signal
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Tuple,
)
from urllib.parse import unquote

from icm import cache as cache_mod
from icm.config import Config
from icm.context import (
    MARKDOWN_SUFFIXES,
    Context,
    Unreadable,
    compile_globs,
    decode,
    read_file,
    read_real,
    usable_cores,
)
from icm.finding import Finding, Report, Rule, Rules, Severity
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

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Below this many files to parse, a process pool costs more than it saves.
PARALLEL_MIN = 48

KIND_LABELS = {
    "missing-file": "missing file",
    "missing-anchor": "missing anchor",
    "outside-root": "outside the root",
    "bad-path": "impossible path",
    "case-mismatch": "case mismatch",
    "unindexed-note": "unindexed note",
    "missing-handbook": "missing handbook",
    "unreadable": "unreadable file",
    "skipped": "skipped file",
    "too-deep": "too deeply nested",
}

# (line, raw, href, kind) per link; anchors as written; the line where
# nesting deeper than markdown.MAX_NESTING cut content off (0: none)
Parsed = Tuple[List[Tuple[int, str, str, str]], List[str], int]
# Bumped when Parsed changes shape or meaning, so older cache entries are not
# read (3: lines counted from source positions; 4: raw destinations of
# labels longer than one character, escapes in heading anchors; issue 16).
CACHE_FORMAT = 4


def _parse_text(text: str) -> Parsed:
    from icm import markdown  # not needed at all when every file is cached

    ext = markdown.extract(text)
    return ([(lk.line, lk.raw, lk.href, lk.kind) for lk in ext.links],
            list(ext.anchors), ext.too_deep)


ParseResult = Tuple[str, Optional[Parsed], Optional[Unreadable], str]


# (root, path, max_file_bytes, the real path the parent resolved or "")
Job = Tuple[str, str, int, str]


def _parse_path(job: Job) -> ParseResult:
    """Read, hash and extract one file (in a worker or in-process).
    Returns (rel, parsed, problem, digest of the bytes actually parsed)."""
    root, rel, limit, real = job
    try:
        # unresolved: the whole walk again, which words why it fails
        data = (read_real(real, rel, limit) if real
                else read_file(Path(root), rel, limit))
        return rel, _parse_text(decode(rel, data)), None, cache_mod.digest(data)
    except Unreadable as exc:
        return rel, None, exc, ""


@dataclass
class Corpus:
    """Extraction results for a set of markdown files, cached and parallel."""

    parsed: Dict[str, Parsed]
    errors: Dict[str, Unreadable]


def extract_all(ctx: Context, paths: Sequence[str], jobs: int = 0) -> Corpus:
    """Links and anchors of every file, holding one file's text at a time.

    A file is looked up in the cache by its stamp (and must still be
    readable: a user dropped from a group changes no stamp), then by content
    hash; only the misses are parsed (in a fork pool from PARALLEL_MIN
    misses on).
    """
    store = cache_mod.Cache(ctx.cache_dir, f"mdit {cache_mod.markdown_it_version()} "
                            f"format {CACHE_FORMAT}")
    limit = ctx.config.max_file_bytes
    parsed: Dict[str, Parsed] = {}
    errors: Dict[str, Unreadable] = {}
    misses: List[str] = []
    stamps: Dict[str, cache_mod.Stamp] = {}
    reals: Dict[str, str] = {}
    for rel in paths:
        try:
            stamp = cache_mod.stamp(ctx.stat(rel))
            reals[rel] = ctx.real(rel)  # remembered: a second lstat at most
            hit = store.get_by_stamp(rel, stamp)
            if hit is not None and not os.access(reals[rel], os.R_OK):
                hit = None  # read it, so the reason is reported
        except Unreadable:
            stamp, hit = (), None
        stamps[rel] = stamp
        if hit is None and rel not in store.entries:
            misses.append(rel)  # nothing cached under this path (a cold run):
            continue  # the parse reads and hashes it, once
        if hit is None:
            try:
                hit = store.get(rel, cache_mod.digest(ctx.read_bytes(rel, limit)),
                                stamp)
            except Unreadable as exc:
                errors[rel] = exc
                continue
        if hit is None:
            misses.append(rel)
        else:
            parsed[rel] = (hit[0], hit[1], hit[2])
    jobs = jobs or usable_cores()
    work = [(str(ctx.root), rel, limit, reals.get(rel, "")) for rel in misses]
    # The CLI passes a progress callback when stderr is a terminal; the
    # check only reports counts, the CLI owns what is drawn.
    progress = ctx.progress
    parallel = len(work) >= PARALLEL_MIN and jobs > 1
    if parallel:
        results: Iterable[ParseResult] = _parse_parallel(work, jobs, progress)
    else:
        results = map(_parse_path, work)
    for done, (rel, result, problem, hashed) in enumerate(results, 1):
        if progress is not None and not parallel:
            progress(done, len(work))
        if result is None:
            assert problem is not None
            errors[rel] = problem
        else:
            parsed[rel] = result
            store.put(rel, hashed, list(result), stamps[rel])
    store.save()
    return Corpus(parsed, errors)


def _parse_parallel(work: List[Job],
                    jobs: int, progress: Optional[Callable[[int, int], None]] = None
                    ) -> List[ParseResult]:
    """Parse in ``jobs`` forked workers, one interleaved slice each, results
    in the order of ``work``.

    A terminal's Ctrl-C reaches every process of the group, so workers
    ignore SIGINT (blocked from before the fork until they ignore it) and the
    parent alone answers: it kills and reaps every worker, then lets the
    KeyboardInterrupt go on to the CLI (``icm: interrupted``, exit 130).
    ProcessPoolExecutor printed worker tracebacks and once hung in its
    management thread. A worker that dies (killed, out of memory) has its
    slice parsed here instead: the answer must not depend on it.
    """
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return list(map(_parse_path, work))
    from icm import markdown

    markdown.backend()  # loaded once, before forking

    slices = [work[i::jobs] for i in range(jobs)]
    live: Dict[int, int] = {}  # pid -> read end of its pipe
    order: List[Tuple[int, int]] = []  # (pid, slice index)
    done: List[Optional[List[ParseResult]]] = [None] * jobs
    # One handler for the pool's whole life. It raises KeyboardInterrupt at
    # most once: a second Ctrl-C landing before ``_reap`` ran (a user who
    # presses twice, or every worker's SIGINT in the tests) used to raise
    # again inside it and leave workers alive. While forking it only sets a
    # flag: raised between fork() returning and the pid being recorded, it
    # left a worker behind.
    state = {"forking": True, "pending": False, "raised": False}

    def on_sigint(signum: int, frame: object) -> None:
        if state["raised"]:
            return
        if state["forking"]:
            state["pending"] = True
            return
        state["raised"] = True
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: no signals to manage here
        return list(map(_parse_path, work))
    try:
        try:
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                for i, part in enumerate(slices):
                    if part:
                        pid, fd = _fork_worker(part, list(live.values()))
                        live[pid] = fd
                        order.append((pid, i))
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            state["forking"] = False
            if state["pending"]:
                state["raised"] = True
                raise KeyboardInterrupt
            finished = 0
            for pid, i in order:
                done[i] = _collect(pid, live)
                finished += len(slices[i])
                if progress is not None:  # per worker, as its answers arrive
                    progress(finished, len(work))
        except BaseException:
            state["raised"] = True  # nothing may cut the reaping short
            _reap(live)
            raise
    finally:
        signal.signal(signal.SIGINT, previous)
    results: List[Optional[ParseResult]] = [None] * len(work)
    for i, part in enumerate(slices):
        answers = done[i]
        if answers is None or len(answers) != len(part):
            answers = [_parse_path(job) for job in part]
        results[i::jobs] = answers
    return [r for r in results if r is not None]


def _fork_worker(part: List[Job],
                 siblings: List[int]) -> Tuple[int, int]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns, never prints
        status = 1
        try:
            # Holding a sibling's read end would keep that sibling blocked
            # on a full pipe after the parent closed its own copy.
            for fd in (read_fd, *siblings):
                os.close(fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            data = pickle.dumps([_parse_path(job) for job in part],
                                protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    return pid, read_fd


def _collect(pid: int, live: Dict[int, int]) -> Optional[List[ParseResult]]:
    """A worker's answers, or None when it did not finish them. On an
    interrupt the worker stays in ``live`` for ``_reap``."""
    fd = live[pid]
    chunks = []
    while True:
        # A Ctrl-C that lands after Python's last look at its signal flags
        # but before a blocking read() starts never interrupts that read,
        # and the run hung (one in 50 under load). So wait in slices: the
        # loop's next turn runs the handler, at most 0.2 s late.
        if not select.select([fd], [], [], 0.2)[0]:
            continue
        block = os.read(fd, 1 << 20)
        if not block:
            break
        chunks.append(block)
    _, status = os.waitpid(pid, 0)
    del live[pid]  # only once reaped: an interrupt before leaves it to _reap
    os.close(fd)
    if status != 0:
        return None
    try:
        answers: List[ParseResult] = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a torn result is a dead worker
        return None
    return answers


def _reap(live: Dict[int, int]) -> None:
    """Kill and wait for every worker still running. The caller's SIGINT
    handler no longer raises, so a second Ctrl-C cannot cut this short."""
    for pid in live:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid, fd in live.items():
        os.close(fd)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by _collect just before
            pass
    live.clear()


@dataclass(frozen=True)
class Target:
    path: str  # root-relative, normalised ("" for the root itself)
    fragment: Optional[str]  # decoded, None when absent
    problem: str = ""  # outside-root when it escapes the root


def is_external(href: str) -> bool:
    if href.startswith(("https:", "http:", "mailto:", "//")):
        return True  # the common cases, without the regex
    return bool(_SCHEME.match(href))


def resolve(source: str, href: str) -> Optional[Target]:
    """Where ``href`` written in ``source`` points, or None for external and
    empty destinations."""
    if not href or is_external(href):
        return None
    path, _, fragment = href.partition("#")
    has_fragment = "#" in href
    path = path.split("?", 1)[0]
    # A byte that is not UTF-8 (%FF) names a file git lists the same way.
    path = unquote(path, errors="surrogateescape")
    if not path:
        return Target(source, unquote(fragment) if has_fragment else None)
    norm, problem = _normalise(posixpath.dirname(source), path)
    return Target(norm, unquote(fragment) if has_fragment else None, problem)


@lru_cache(maxsize=65536)
def _normalise(folder: str, path: str) -> Tuple[str, str]:
    """Root-relative form of ``path`` written in ``folder`` (memoised: the
    same destinations recur across a tree's files)."""
    if path.startswith("/"):
        joined = path.lstrip("/")
    else:
        joined = posixpath.join(folder, path) if folder else path
    norm = posixpath.normpath(joined) if joined else "."
    if norm == ".." or norm.startswith("../"):
        return norm, "outside-root"
    return ("" if norm == "." else norm), ""


class Tree:
    """Existence, case and folder facts about the file set, computed once."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.files: FrozenSet[str] = ctx.file_set
        dirs = {""}
        for f in self.files:
            parts = f.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        self.dirs: FrozenSet[str] = frozenset(dirs)
        self._folded: Optional[Dict[str, str]] = None

    def kind(self, path: str) -> str:
        """'file', 'dir', or '' when absent (with exact letter case)."""
        if path in self.files:
            return "file"
        if path in self.dirs:
            return "dir"
        return self._on_disk(path)

    def _on_disk(self, path: str) -> str:
        """Ignored or excluded files still exist; confirm case and that the
        path does not leave the root through a symlink (resolved first, so
        no folder outside the root is ever listed)."""
        folder, name = posixpath.split(path)
        try:
            parent, real = self.ctx.real(folder), self.ctx.real(path)
            if not os.path.lexists(real) or name not in os.listdir(parent):
                return ""
        except (Unreadable, OSError):
            return ""
        return "dir" if os.path.isdir(real) else "file"

    def other_case(self, path: str) -> Optional[str]:
        if self._folded is None:
            self._folded = {}
            for p in (*self.files, *self.dirs):
                self._folded.setdefault(p.casefold(), p)
        hit = self._folded.get(path.casefold())
        return hit if hit is not None and hit != path else None


def run(ctx: Context, options: LinksOptions) -> Report:
    cfg = ctx.config
    md_files = ctx.markdown_files()
    corpus = extract_all(ctx, md_files, jobs=options.jobs)
    tree = Tree(ctx)
    ignored = compile_globs(cfg.links_ignore)
    anchors: Dict[str, FrozenSet[str]] = {}

    def anchors_of(rel: str) -> Optional[FrozenSet[str]]:
        """Anchors of a link target, folded once, only for files linked to."""
        if rel not in anchors:
            if rel in corpus.parsed:
                found = corpus.parsed[rel][1]
            else:  # ignored or excluded: read it now
                try:
                    found = _parse_text(ctx.read_markdown(rel))[1]
                except Unreadable:
                    return None
            anchors[rel] = frozenset(a.casefold() for a in found)
        return anchors[rel]

    broken: List[Finding] = []
    counts: Counter[str] = Counter()
    for rel in md_files:
        if rel in corpus.errors:
            problem = corpus.errors[rel]
            broken.append(RULES("skipped" if problem.skipped else "unreadable",
                                rel, f"cannot read: {problem.reason}"))
            continue
        deep = corpus.parsed[rel][2]
        if deep:
            from icm.markdown import MAX_NESTING

            broken.append(RULES(
                "too-deep", rel, f"nested deeper than {MAX_NESTING} levels at "
                f"line {deep}; links inside are not checked", line=deep, rank=-1))
        for rank, (line, raw, href, _kind) in enumerate(corpus.parsed[rel][0]):
            target = resolve(rel, href)
            if target is None:
                continue
            if ignored is not None and (ignored.match(target.path)
                                        or ignored.match(raw)):
                continue
            code, reason = _verdict(rel, target, tree, anchors_of)
            if code:
                text = f"broken link: {rel} -> {raw}" + (f" ({reason})" if reason
                                                          else "")
                broken.append(RULES(code, rel, text, line=line, rank=rank,
                                    located=True))
    index = index_findings(ctx, corpus, tree)
    findings = tuple(sorted(broken)) + tuple(sorted(index))
    counts.update(f.code for f in findings)
    links_total = sum(len(p[0]) for p in corpus.parsed.values())
    nothing: Tuple[Finding, ...] = ()
    if not (findings or links_total or ctx.notes()) \
            and cfg.handbook not in ctx.file_set:
        # Nothing at all was checked: say so rather than a bare "links ok".
        nothing = (RULES("nothing-to-check", ".", f"links: no handbook "
                         f"{cfg.handbook} and no notes named {cfg.note_name} "
                         "(set handbook, note_name)"),)
    return Report(NAME, nothing + findings, tail=tail_of(findings),
                  data={"files": len(md_files), "links": links_total,
                        "by_kind": dict(counts)}, retail=tail_of)


def tail_of(findings: Tuple[Finding, ...]) -> Tuple[str, ...]:
    """``links ok``, or the problems counted by kind."""
    found = [f for f in findings if f.code != "nothing-to-check"]
    if not found:
        return ("links ok",)
    counts = Counter(f.code for f in found)
    order = list(KIND_LABELS)
    parts = ", ".join(f"{KIND_LABELS[k]} {n}" for k, n in
                      sorted(counts.items(), key=lambda kv: order.index(kv[0])))
    noun = "problem" if len(found) == 1 else "problems"
    return (f"links: {len(found)} {noun} ({parts})",)


def _verdict(source: str, target: Target, tree: Tree,
             anchors_of: Callable[[str], Optional[FrozenSet[str]]]) -> Tuple[str, str]:
    if target.problem == "outside-root":
        return "outside-root", "outside the repository root"
    if target.path not in tree.files and target.path not in tree.dirs:
        # Decoded, a destination can be a name no file has (``%00``): the
        # disk is never asked, and the finding says why.
        impossible = unnameable(target.path)
        if impossible:
            return "bad-path", impossible
    kind = tree.kind(target.path)
    if not kind:
        other = tree.other_case(target.path)
        if other is not None:
            return "case-mismatch", f"exists as {other}"
        return "missing-file", ""
    frag = target.fragment
    if frag is None or frag == "" or frag.casefold() == "top":
        return "", ""
    doc = target.path
    if kind == "dir":
        doc = posixpath.join(target.path, "README.md") if target.path else "README.md"
        if tree.kind(doc) != "file":
            return "missing-anchor", f"no README.md in {target.path or '.'} for #{frag}"
    if not doc.lower().endswith(MARKDOWN_SUFFIXES):
        return "", ""  # #L10 and friends on code files are GitHub's business
    found = anchors_of(doc)
    if found is None or frag.casefold() not in found:
        where = "" if doc == source else f" in {doc}"
        return "missing-anchor", f"no heading or anchor #{frag}{where}"
    return "", ""


def indexed_notes(ctx: Context, parsed: Parsed) -> FrozenSet[str]:
    """Notes the handbook links to (any link kind that names the file)."""
    handbook = ctx.config.handbook
    hits = set()
    for _line, _raw, href, _kind in parsed[0]:
        target = resolve(handbook, href)
        if target is not None and not target.problem:
            hits.add(target.path)
    return frozenset(hits)


def notes_below_root(ctx: Context) -> List[str]:
    return [n for n in ctx.notes() if "/" in n]


# Handbook names agents read at start; when the handbook is left at its
# default, one of these beside it is the handbook under another name.
HANDBOOK_NAMES = ("agents.md", "claude.md")


def near_handbooks(ctx: Context) -> List[str]:
    """Files that are probably the missing handbook: its name in another
    letter case first, then (for the default handbook) the other names."""
    handbook = ctx.config.handbook
    folder, _, name = handbook.rpartition("/")
    names = {name.lower()}
    if handbook == Config.handbook:
        names.update(HANDBOOK_NAMES)
    found = [f for f in ctx.files if f != handbook and f.rpartition("/")[0] == folder
             and f.rpartition("/")[2].lower() in names]
    return sorted(found, key=lambda f: (f.rpartition("/")[2].lower() != name.lower(),
                                        f))


def missing_handbook(ctx: Context) -> str:
    handbook = ctx.config.handbook
    near = near_handbooks(ctx)
    hint = f' (found {near[0]}; set handbook = "{near[0]}")' if near else ""
    return f"handbook not found: {handbook}{hint}"


def index_findings(ctx: Context, corpus: Corpus, tree: Tree) -> List[Finding]:
    handbook = ctx.config.handbook
    notes = notes_below_root(ctx)
    if handbook in corpus.parsed:
        linked = indexed_notes(ctx, corpus.parsed[handbook])
    else:
        linked = frozenset()
        if notes and handbook not in corpus.errors:
            return [RULES("missing-handbook", handbook, missing_handbook(ctx),
                          located=True)] + [_unindexed(n) for n in notes]
    return [_unindexed(n) for n in notes if n not in linked]


def _unindexed(note: str) -> Finding:
    return RULES("unindexed-note", note, f"note missing from handbook index: "
                 f"{note}", located=True)


