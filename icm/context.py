"""Context: the root, its configuration, the file set and the clock, built once
per run and handed to every check."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Tuple

from icm import config as config_mod
from icm import git
from icm.config import Config
from icm.errors import UsageError

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


class Unreadable(Exception):
    """A file in the set that cannot be read as UTF-8 text; becomes a finding."""

    def __init__(self, path: str, reason: str, skipped: bool = False) -> None:
        super().__init__(f"{path}: cannot read: {reason}")
        self.path = path
        self.reason = reason
        self.skipped = skipped  # deliberately not read (too large): a warning

    def __reduce__(self) -> Tuple[Any, Tuple[str, str, bool]]:
        # Parser workers send these back to the parent: pickle by fields,
        # since the default would call __init__ with the message alone.
        return (Unreadable, (self.path, self.reason, self.skipped))


@dataclass(frozen=True)
class Context:
    root: Path
    config: Config
    files: Tuple[str, ...]  # root-relative posix paths, sorted, exclude applied
    tracked: FrozenSet[str]  # the subset git tracks (empty outside git)
    in_git: bool
    file_set: FrozenSet[str] = frozenset()  # ``files`` as a set, built once
    cache_dir: Optional[Path] = None  # under the git directory; None: no cache
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    options: Dict[str, Any] = field(default_factory=dict)
    _memo: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def history(self) -> "History":
        """Git history facts, read once per run (one ``git log`` pass)."""
        if "history" not in self._memo:
            self._memo["history"] = read_history(self.root, self.config.stale_history)
        history: History = self._memo["history"]
        return history

    def read_bytes(self, rel: str, limit: int = 0) -> bytes:
        return read_file(self.root, rel, limit)

    def read_text(self, rel: str) -> str:
        """UTF-8 text with a BOM accepted; raise Unreadable otherwise."""
        return decode(rel, self.read_bytes(rel))

    def read_markdown(self, rel: str) -> str:
        """Text for the parser: like read_text, refusing files over
        ``max_file_bytes`` (markdown-it holds every token of a file at once)."""
        return decode(rel, self.read_bytes(rel, self.config.max_file_bytes))

    def notes(self) -> Tuple[str, ...]:
        name = self.config.note_name
        return tuple(f for f in self.files if f.rsplit("/", 1)[-1] == name)

    def markdown_files(self) -> Tuple[str, ...]:
        return tuple(f for f in self.files if f.lower().endswith(MARKDOWN_SUFFIXES))


@dataclass(frozen=True)
class History:
    has_commits: bool
    times: Dict[bytes, Tuple[int, bytes]]  # path -> (committer time, commit)
    boundary: FrozenSet[str]  # shallow-boundary commits (hex)
    changed: FrozenSet[str]  # paths differing from HEAD

    def last(self, rel: str) -> Optional[Tuple[int, str]]:
        hit = self.times.get(rel.encode("utf-8", "surrogateescape"))
        return (hit[0], hit[1].decode("ascii")) if hit else None


def read_history(root: Path, mode: str) -> History:
    # Start the long pass first; the other facts are gathered while it runs.
    pending = git.HistoryPass(root, mode)
    try:
        repo = git.Repository(root)  # raises UsageError outside git
        if not repo.has_commits():
            pending.discard()
            return History(False, {}, frozenset(), frozenset())
        boundary, changed = repo.shallow_boundary(), git.changed_paths(root)
    except BaseException:
        pending.discard()
        raise
    return History(True, pending.result(), boundary, changed)


def _check_link(root: Path, rel: str, path: str) -> None:
    """Refuse a symlink whose target leaves the root: icm never follows one."""
    if os.path.islink(path):
        real = os.path.realpath(path)
        top = os.path.realpath(root)
        if real != top and not real.startswith(top + os.sep):
            raise Unreadable(rel, "symlink points outside the repository; "
                                  "not followed")


@contextlib.contextmanager
def _reading(rel: str) -> Iterator[None]:
    """Turn the ways a read fails into one Unreadable with a plain reason."""
    try:
        yield
    except IsADirectoryError:
        raise Unreadable(rel, "is a directory") from None
    except PermissionError:
        raise Unreadable(rel, "permission denied") from None
    except FileNotFoundError:
        raise Unreadable(rel, "no such file (dangling symlink?)") from None
    except OSError as exc:
        raise Unreadable(rel, exc.strerror or str(exc)) from None


def read_file(root: Path, rel: str, limit: int = 0) -> bytes:
    """Read a file of the set: never through a symlink that leaves the root,
    never more than ``limit`` bytes (0: no limit); Unreadable otherwise."""
    path = os.path.join(root, rel)
    _check_link(root, rel, path)
    with _reading(rel), open(path, "rb") as fh:
        if limit:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise Unreadable(rel, f"{size} bytes is over max_file_bytes "
                                      f"({limit}); not parsed", skipped=True)
        return fh.read()


def read_file_blocks(root: Path, rel: str, chunk: int) -> Iterator[bytes]:
    """Like read_file, in blocks of ``chunk`` bytes."""
    path = os.path.join(root, rel)
    _check_link(root, rel, path)
    with _reading(rel), open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                return
            yield block


def decode(rel: str, data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise Unreadable(rel, "UTF-16 text; icm reads UTF-8 only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise Unreadable(
            rel, f"not valid UTF-8 (line {line}, byte offset {exc.start})") from None
    if "\0" in text:
        raise Unreadable(rel, "contains NUL bytes; not a text file")
    return text


def find_root(start: Path) -> Path:
    """The nearest ancestor holding a handbook or icm config, else the git top
    level, else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "AGENTS.md").is_file() or config_mod.find_config(folder):
            return folder
    top = git.toplevel(start)
    return top if top is not None else start


def compile_globs(patterns: Iterable[str]) -> Optional["GlobSet"]:
    """One matcher for a list of globs. ``**`` spans folders, ``*`` and ``?``
    stay inside one; a pattern without ``/`` matches a name at any depth; a
    pattern naming a folder also covers everything under it."""
    globs = tuple(Glob(p) for p in patterns if p.strip())
    return GlobSet(globs) if globs else None


class GlobSet:
    def __init__(self, globs: Tuple["Glob", ...]) -> None:
        self.globs = globs

    def match(self, name: str) -> bool:
        return any(g.match(name) for g in self.globs)


class Glob:
    """One glob run as a small automaton over the name, every state at once:
    O(pattern x name), never more. A translation to a backtracking regex
    made ``**a**a**a...**b`` against a long name exponential, and patterns
    come from a committed config while names (link destinations) can be a
    megabyte long."""

    def __init__(self, pattern: str) -> None:
        pattern = pattern.strip().lstrip("/")
        anywhere = "/" not in pattern.rstrip("/")
        if pattern.endswith("/"):
            pattern += "**"
        items: List[Tuple[str, str]] = [("dirs", "")] if anywhere else []
        i = 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                item, i = ("dirs", ""), i + 3
            elif pattern.startswith("**", i):
                item, i = ("any", ""), i + 2
            elif pattern[i] == "*":
                item, i = ("star", ""), i + 1
            elif pattern[i] == "?":
                item, i = ("one", ""), i + 1
            else:
                item, i = ("lit", pattern[i]), i + 1
            prev = items[-1][0] if items else ""
            # Runs of stars are one star; this keeps the automaton small.
            if item[0] in ("star", "any") and prev in ("star", "any"):
                items[-1] = ("any", "") if "any" in (item[0], prev) else item
                continue
            if item[0] == "dirs" and prev == "dirs":
                continue
            items.append(item)
        runs, run = [], ""
        for kind, value in items:
            if kind == "lit":
                run += value
            else:
                runs.append(run)
                run = ""
        self.literals = tuple(r for r in (*runs, run) if r)
        fwd_slash = fwd_other = loop_any = loop_other = eps1 = eps2 = 0
        fwd_lit: Dict[str, int] = {}
        state = 0
        for kind, value in items:
            bit = 1 << state
            if kind == "lit":
                fwd_lit[value] = fwd_lit.get(value, 0) | bit
            elif kind == "one":
                fwd_other |= bit
            elif kind == "star":
                loop_other |= bit
                eps1 |= bit
            elif kind == "any":
                loop_any |= bit
                eps1 |= bit
            else:  # dirs: (?:.*/)? as A -eps-> B, A -eps-> exit, B loops, B -/-> exit
                eps1 |= bit
                eps2 |= bit
                loop_any |= bit << 1
                fwd_slash |= bit << 1
                state += 1
            state += 1
        # The end, or "/" and anything after it (a folder covers its files).
        fwd_slash |= 1 << state
        loop_any |= 1 << (state + 1)
        self.accept = (1 << state) | (1 << (state + 1))
        self.on_slash = fwd_slash | fwd_lit.get("/", 0)
        self.fwd_other, self.fwd_lit = fwd_other, fwd_lit
        self.loop_any, self.loop_other = loop_any, loop_other
        self.eps1, self.eps2 = eps1, eps2
        self.start = self._close(1)

    def _close(self, states: int) -> int:
        while True:
            grown = states | ((states & self.eps1) << 1) | ((states & self.eps2) << 2)
            if grown == states:
                return states
            states = grown

    def match(self, name: str) -> bool:
        if not all(lit in name for lit in self.literals):
            return False  # a necessary condition, checked at C speed
        states = self.start
        fwd_lit, fwd_other = self.fwd_lit, self.fwd_other
        loop_other = self.loop_any | self.loop_other
        for ch in name:
            if ch == "/":
                states = ((states & self.on_slash) << 1) | (states & self.loop_any)
            else:
                states = ((states & (fwd_other | fwd_lit.get(ch, 0))) << 1) \
                    | (states & loop_other)
            if not states:
                return False
            states = self._close(states)
        return bool(states & self.accept)


def walk(root: Path) -> Tuple[str, ...]:
    """Files under ``root`` outside git: skip ``.git``, never follow symlinked
    folders (a symlink to a file is listed; reading it is checked later)."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git"
                         and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, root)
        for name in files:
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return tuple(found)


def build(root: Path, cfg: Config, now: Optional[datetime] = None,
          options: Optional[Dict[str, Any]] = None) -> Context:
    """Collect the file set once: git's tracked plus untracked-not-ignored
    files (outside git, a walk), minus ``exclude``."""
    if not root.is_dir():
        raise UsageError(f"root {root} is not a folder")
    gitdir = git.locate(root)  # None outside git
    in_git = gitdir is not None
    if in_git:
        tracked_list, untracked = git.list_files(root)
        all_files = set(tracked_list) | set(untracked)
    else:
        tracked_list = []
        all_files = set(walk(root))
    excluded = compile_globs(cfg.exclude)
    if excluded is not None:
        all_files = {f for f in all_files if not excluded.match(f)}
    tracked = frozenset(f for f in tracked_list if f in all_files)
    return Context(
        root=root, config=cfg, files=tuple(sorted(all_files)), tracked=tracked,
        in_git=in_git, file_set=frozenset(all_files),
        cache_dir=gitdir / "icm" if gitdir else None,
        now=now or datetime.now(timezone.utc),
        options=dict(options or {}),
    )
