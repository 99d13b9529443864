"""Links and anchors: every link, definition and heading of the markdown
files (parsed once per content hash, in a fork pool when many, kept in an
untrusted cache), how a destination resolves, and the tree of targets it
is looked up in. The link check, ``--fix``, ``renumber`` and the agents
check all read links here, so a link counts exactly where it would be
followed."""

from __future__ import annotations

import os
import posixpath
import re
import select
import signal
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import (
    AbstractSet,
    Any,
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
    Context,
    Unreadable,
    decode,
    read_file,
    read_real,
    usable_cores,
)

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


# Below this many files to parse, a process pool costs more than it saves.
PARALLEL_MIN = 48


# (line, raw, href, kind) per link; anchors as written; the line where
# nesting deeper than markdown.MAX_NESTING cut content off (0: none)
Parsed = Tuple[List[Tuple[int, str, str, str]], List[str], int]


# Bumped when Parsed changes shape or meaning, so older cache entries are not
# read (3: lines counted from source positions; 4: raw destinations of
# labels longer than one character, escapes in heading anchors; issue 16;
# 5: columns, hrefs only where they differ, in JSON; issue 22; 6: a
# heading's own ``{#id}``).
CACHE_FORMAT = 6


def parse_text(text: str) -> Parsed:
    from icm import extract  # not needed at all when every file is cached

    ext = extract.extract(text, headings=False)
    return ([(lk.line, lk.raw, lk.href, lk.kind) for lk in ext.links],
            list(ext.anchors), ext.too_deep)


def cache_key() -> str:
    """What must be equal for a cached extraction to be this code's."""
    return (f"mdit {cache_mod.markdown_it_version()} "
            f"pyromark {cache_mod.fast_parser_version()} format {CACHE_FORMAT}")


def _columns(parsed: Parsed) -> List[Any]:
    """A file's ``Parsed`` as its cache entry stores it: lines, raw
    destinations, the hrefs that differ from them (by index: nearly none
    do, and they were a third of the file and of its reading), kinds,
    anchors, depth. Columns, not a list a link: the collector walks every
    list a warm run loaded, again and again (tuples it stops tracking), and
    that was a tenth of the run."""
    found, anchors, deep = parsed
    lines, raws, hrefs, kinds = (map(list, zip(*found)) if found
                                 else ([], [], [], []))
    other = {str(i): h for i, (r, h) in enumerate(zip(raws, hrefs)) if h != r}
    return [lines, raws, other, kinds, list(anchors), deep]


def cached_parse(values: List[Any]) -> bool:
    """Whether every cache entry's value is ``_columns``'s form of a
    ``Parsed``: what ``run`` and the workflow read of it, lines from 1, a
    depth from 0, columns of one length, hrefs at indexes of links."""
    for value in values:
        if not (type(value) is list and len(value) == 6 and type(value[5]) is int
                and value[5] >= 0):
            return False
        lines, raws, other, kinds, anchors, _deep = value
        if not (type(lines) is list and type(raws) is list and type(other) is dict
                and type(kinds) is list and type(anchors) is list
                and len(lines) == len(raws) == len(kinds)
                and all(i.isascii() and i.isdecimal() and len(i) < 10
                        and int(i) < len(raws) for i in other)):
            return False
    return (cache_mod.counts(values, 0, 1)
            and cache_mod.strings(cache_mod.column(values, 1, 3, 4))
            and cache_mod.strings(chain.from_iterable(v[2].values() for v in values)))


def _rows(value: List[Any]) -> Parsed:
    lines, raws, other, kinds, anchors, deep = value
    hrefs = list(raws)
    for i, href in other.items():
        hrefs[int(i)] = href
    return list(zip(lines, raws, hrefs, kinds)), anchors, deep


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
        return rel, parse_text(decode(rel, data)), None, cache_mod.digest(data)
    except Unreadable as exc:
        return rel, None, exc, ""


@dataclass
class Corpus:
    """Extraction results for a set of markdown files, cached and parallel."""

    parsed: Dict[str, Parsed]
    errors: Dict[str, Unreadable]
    # each parsed file's stamp and content digest, for the link index
    stamps: Dict[str, cache_mod.Stamp] = field(default_factory=dict)
    digests: Dict[str, str] = field(default_factory=dict)


def _stamps(ctx: Context, paths: Sequence[str], real: bool = True
            ) -> Tuple[Dict[str, cache_mod.Stamp], Dict[str, str]]:
    """Each path's stamp (``()`` when unreadable) and, with ``real``, its
    real path (a parse opens it)."""
    stamps: Dict[str, cache_mod.Stamp] = {}
    reals: Dict[str, str] = {}
    for rel in paths:
        try:
            stamps[rel] = cache_mod.stamp(ctx.stat(rel))
            if real:
                reals[rel] = ctx.real(rel)  # remembered: a second lstat at most
        except Unreadable:
            stamps[rel] = ()
    return stamps, reals


def extract_all(ctx: Context, paths: Sequence[str], jobs: int = 0,
                save: bool = True, cached: bool = True) -> Corpus:
    """Links and anchors of every file, holding one file's text at a time.

    ``save=False`` for a call on a few of the files: the cache keeps only
    what a run used, so saving would cut it to those few, and the next
    run parsed every file again (check-agents did, on every ``icm check``).
    ``cached=False``: parse them all, the cache not even loaded (a few
    files parse in less time than a large cache takes to load).

    A file is looked up in the cache by its stamp (and must still be
    readable: a user dropped from a group changes no stamp), then by content
    hash; only the misses are parsed (in a fork pool from PARALLEL_MIN
    misses on).
    """
    limit = ctx.config.max_file_bytes
    parsed: Dict[str, Parsed] = {}
    errors: Dict[str, Unreadable] = {}
    misses: List[str] = []
    stamps, reals = _stamps(ctx, paths)
    size = sum(s[0] for s in stamps.values() if s)
    # Loading and looking up make tens of thousands of lists and tuples and
    # no cycle: collections walked them all, a third of a warm run's lookups.
    with cache_mod.paused_gc():
        store = cache_mod.Cache(ctx.cache_dir if cached else None, cache_key(),
                                cached_parse, cache_mod.limit(len(paths), size))
        for rel in paths:
            stamp = stamps[rel]
            hit = store.get_by_stamp(rel, stamp)
            if hit is not None and not os.access(reals[rel], os.R_OK):
                hit = None  # read it, so the reason is reported
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
                parsed[rel] = _rows(hit)
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
            store.put(rel, hashed, _columns(result), stamps[rel])
    digests = {rel: hit[0] for rel, hit in store.used.items()}  # before the
    if save:  # save, which lets a spent store's entries go
        store.save()
    return Corpus(parsed, errors, stamps, digests)


# -- the reverse link index (--changed-since) ---------------------------------

# Beside the link cache, in the same untrusted form: per file, its link
# count and every path its links resolve to, folded (``targets``). A
# --changed-since run finds the files linking into a change from it,
# without loading the link cache or resolving every link (the whole
# corpus's links were 3 s of a 200,000-file run's 8). Only such a run
# writes it: a whole run would pay its writing (0.5 s at 200,000 files)
# for an answer it never reads.
INTO_FILE = "links-into.json"
INTO_FORMAT = 1
# Past this many files the index does not describe (none, or a stale one),
# the narrowed run parses as a whole run does and writes a new index.
UNKNOWN_MAX = 256
# Past this many (or when it described none), a narrowed run writes the
# index again, with them in it.
REFRESH_AT = 32
# Past this many files to check, they come from the link cache, not a
# parse each: a few parse faster than a large cache loads.
FRESH_MAX = 128


def into_key() -> str:
    return f"{cache_key()} into {INTO_FORMAT}"


def cached_into(values: List[Any]) -> bool:
    """Whether every index entry's value is ``[link count, [folded paths]]``
    (paths: strings without a NUL, whose only surrogates stand for bytes
    that are not UTF-8, as ``%FF`` decodes: no other text names a file)."""
    for value in values:
        if not (type(value) is list and len(value) == 2 and type(value[0]) is int
                and value[0] >= 0 and type(value[1]) is list):
            return False
    paths = list(cache_mod.column(values, 1))
    if not cache_mod.each(str, paths):
        return False
    joined = "".join(paths)
    try:
        joined.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return "\0" not in joined


def targets(source: str, links: Iterable[Tuple[int, str, str, str]]) -> List[str]:
    """The folded paths ``source``'s links resolve to, each once, sorted:
    what a link into a change is judged by (``near``)."""
    found = set()
    for _line, _raw, href, _kind in links:
        target = resolve(source, href)
        if target is not None:
            found.add(target.path.casefold())
    return sorted(found)


def near(changed: Iterable[str]) -> FrozenSet[str]:
    """Each changed path and every folder above it, folded: a file links
    into a change when one of its ``targets`` is among them (a link to
    ``docs`` when ``docs/a.md`` went; another letter case is judged by what
    the change did to the file it nearly names), so it errs towards more
    files."""
    found = set()
    for path in changed:
        folded = path.casefold()
        while folded and folded not in found:
            found.add(folded)
            folded = posixpath.dirname(folded)
    return frozenset(found)


def extract_linking(ctx: Context, paths: Sequence[str], changed: FrozenSet[str],
                    jobs: int = 0) -> Tuple[Corpus, FrozenSet[str], int]:
    """For --changed-since: the files of ``paths`` to check (changed, or
    linking into a change), a corpus holding them and the handbook, and
    the link count of all ``paths``.

    An index entry is believed by its stamp alone, as the link cache's
    (racy rule included); a file it does not describe (changed since it
    was written, or new) is parsed to see where it links. Past
    ``UNKNOWN_MAX`` of those, every file is (the link cache's way) and
    the index is written new."""
    stamps, _ = _stamps(ctx, paths, real=False)
    size = sum(s[0] for s in stamps.values() if s)
    wanted = near(changed)
    chosen = set(changed.intersection(paths))
    unknown: List[str] = []
    total = 0
    with cache_mod.paused_gc():
        store = cache_mod.Cache(ctx.cache_dir, into_key(), cached_into,
                                cache_mod.limit(len(paths), size), INTO_FILE)
        for rel in paths:
            hit = store.get_by_stamp(rel, stamps[rel])
            if hit is None:
                unknown.append(rel)
                if len(unknown) > UNKNOWN_MAX:
                    break
            else:
                total += hit[0]
                if rel not in chosen and not wanted.isdisjoint(hit[1]):
                    chosen.add(rel)
    if len(unknown) > UNKNOWN_MAX:  # the whole corpus, and a new index
        store = cache_mod.Cache(ctx.cache_dir, into_key(), cached_into,
                                cache_mod.limit(len(paths), size), INTO_FILE,
                                load=False)
        unknown = list(paths)
        total = 0
    seen = extract_all(ctx, unknown, jobs, save=len(unknown) == len(paths),
                       cached=len(unknown) > FRESH_MAX)
    for rel, parts in seen.parsed.items():
        found = targets(rel, parts[0])
        total += len(parts[0])
        if rel not in chosen and not wanted.isdisjoint(found):
            chosen.add(rel)
        stamp, hashed = seen.stamps.get(rel, ()), seen.digests.get(rel)
        if len(stamp) == 5 and hashed:
            store.put(rel, hashed, [len(parts[0]), found], stamp)
    if len(unknown) > REFRESH_AT or (unknown and len(unknown) == len(paths)):
        store.save()  # every file is in it: believed, or just parsed
    handbook = ctx.config.handbook
    rest = sorted(rel for rel in chosen | ({handbook} & set(paths))
                  if rel not in seen.parsed and rel not in seen.errors)
    more = extract_all(ctx, rest, jobs, save=False, cached=len(rest) > FRESH_MAX)
    return (Corpus({**seen.parsed, **more.parsed}, {**seen.errors, **more.errors}),
            frozenset(chosen), total)


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
    from icm import extract

    extract.backend()  # loaded once, before forking

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
    import pickle  # the pool's alone: a warm run loads none of it

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
    import pickle

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


# A destination that is itself a placeholder names no file to fix: a word a
# template leaves to fill in (markdown-it unwraps ``<path>`` to ``path``), or
# a bracketed token (``[Target]`` from a ``- [Metric 1]: [Target]`` list read
# as a definition, ``{name}``, ``<id>``). Lychee and markdownlint have no such
# notion: their users exclude each one by hand.
PLACEHOLDER_WORDS = frozenset({
    "url", "uri", "link", "path", "todo", "tbd", "fixme", "xxx", "placeholder",
    "...", "\u2026"})
_BRACKETED = re.compile(r"\[[^\]]*\]|\{[^}]*\}|<[^>]*>")
TEMPLATE_FOLDERS = frozenset({"template", "templates", "_templates", ".templates"})


def placeholder(raw: str) -> bool:
    """Whether a link's destination, as written, is a placeholder."""
    text = unquote(raw).strip()
    return text.casefold().rstrip("/") in PLACEHOLDER_WORDS \
        or bool(_BRACKETED.search(text))


# Folders of a test's input and expected output: a markdown file there is
# data a parser or renderer is tested on, its links written to be read, not
# followed (round 13's mdk: a golden kitchen-sink page's /img.png).
TEST_DATA_FOLDERS = frozenset({"testdata", "test-data", "test_data", "fixtures",
                               "__fixtures__", "golden", "goldens", "__snapshots__"})


def is_test_data(rel: str) -> bool:
    """A file under a folder of test input or expected output."""
    return not TEST_DATA_FOLDERS.isdisjoint(rel.casefold().split("/")[:-1])


def is_template(rel: str) -> bool:
    """A file kept to be copied: under a templates folder, or named so."""
    *folders, name = rel.casefold().split("/")
    return "template" in name or not TEMPLATE_FOLDERS.isdisjoint(folders)


def fold_name(path: str) -> str:
    """A file name as a rename keeps it: ``NODE_SPEC.md`` is ``node-spec.md``."""
    return posixpath.basename(path).casefold().replace("_", "-").replace(" ", "-")


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
        self.files: AbstractSet[str] = ctx.file_set
        dirs = {""}
        for f in self.files:
            parts = f.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        self.dirs: FrozenSet[str] = frozenset(dirs)
        self._folded: Optional[Dict[str, str]] = None
        self._names: Optional[Dict[str, str]] = None
        # what the disk said, asked once a run: a tree's broken links name
        # the same targets in the same folders (PowerShell-Docs: 5,084
        # lookups, each two resolutions, a stat and maybe a listing)
        self._disk: Dict[str, str] = {}
        self._listed: Dict[str, FrozenSet[str]] = {}
        self._listed_kinds: Dict[str, str] = {}

    def listed(self, path: str) -> str:
        """'file' or 'dir' when the file set has it, else '' (the disk is
        not asked); each path looked up once a run: a lookup in the file
        set costs a search of its blob."""
        found = self._listed_kinds.get(path)
        if found is None:
            found = self._listed_kinds[path] = (
                "file" if path in self.files else "dir" if path in self.dirs
                else "")
        return found

    def kind(self, path: str) -> str:
        """'file', 'dir', or '' when absent (with exact letter case)."""
        return self.listed(path) or self._on_disk(path)

    def _on_disk(self, path: str) -> str:
        """Ignored or excluded files still exist; confirm case and that the
        path does not leave the root through a symlink (resolved first, so
        no folder outside the root is ever listed)."""
        found = self._disk.get(path)
        if found is None:
            found = self._disk[path] = self._look(path)
        return found

    def _look(self, path: str) -> str:
        folder, name = posixpath.split(path)
        try:
            parent, real = self.ctx.real(folder), self.ctx.real(path)
            if not os.path.lexists(real):
                return ""
            names = self._listed.get(parent)
            if names is None:
                names = self._listed[parent] = frozenset(os.listdir(parent))
            if name not in names:
                return ""
        except (Unreadable, OSError):
            return ""
        return "dir" if os.path.isdir(real) else "file"

    def namesake(self, path: str) -> Optional[str]:
        """A file elsewhere with ``path``'s name (``fold_name``), the first
        in order; the index is built once, on the first question. A
        folder's landing page (``index.html``, ``README.md``) tells nothing:
        a saved docs.rs page's 8 namesakes were all ``index.html``."""
        if fold_name(path).partition(".")[0] in ("index", "readme"):
            return None
        if self._names is None:
            self._names = {}
            for p in sorted(self.files):
                self._names.setdefault(fold_name(p), p)
        hit = self._names.get(fold_name(path))
        return hit if hit != path else None

    def other_case(self, path: str) -> Optional[str]:
        if self._folded is None:
            self._folded = {}
            for p in (*self.files, *self.dirs):
                self._folded.setdefault(p.casefold(), p)
        hit = self._folded.get(path.casefold())
        return hit if hit is not None and hit != path else None


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


def notes_to_index(ctx: Context) -> List[str]:
    """The notes below the root the handbook must name (``index``)."""
    needs = ctx.note_names().needs_index
    return [n for n in notes_below_root(ctx) if needs(n)]


# A word that may be a path: what a code span or prose holds between
# spaces, quotes, brackets and list punctuation.
_PATHISH = re.compile(r"[^\s`'\"()\[\]<>{}|*,;]+")


def named_notes(handbook: str, text: str, notes: Iterable[str]) -> FrozenSet[str]:
    """The ``notes`` that ``text`` names by path, in a code span or as plain
    text (`` `backend/AGENTS.md` ``), from the root or from the handbook's
    folder: agents follow a path as they follow a link. One pass over the
    words."""
    wanted = set(notes)
    folder = posixpath.dirname(handbook)
    found = set()
    for m in _PATHISH.finditer(text) if wanted else ():
        word = m.group().rstrip(".:!?")
        if "/" not in word or word.endswith("/"):  # a folder is no note
            continue
        for path in (word.lstrip("/"), posixpath.join(folder, word)):
            norm = posixpath.normpath(path) if path else ""
            if norm in wanted:
                found.add(norm)
    return frozenset(found)
