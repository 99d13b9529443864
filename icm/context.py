"""Context: the root, its configuration, the file set and the clock, built once
per run and handed to every check."""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import stat
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import accumulate, chain
from pathlib import Path
from typing import (
    AbstractSet,
    Any,
    BinaryIO,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
    overload,
)

from icm import config as config_mod
from icm import git, paths
from icm.config import Config
from icm.errors import UsageError

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
UNDATED = git.UNDATED  # the time of a commit with no valid committer date


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


ON_DISK, TRACKED = 1, 2  # a path's flags in ``FileList``
_LINGUIST = ("linguist-vendored", "linguist-generated")
FLAG_VALUES = (ON_DISK, TRACKED, ON_DISK | TRACKED)  # each path has one
STEP = 32  # ``FileList``: every STEP-th path is a bytes object, for bisection
CHUNK = 1 << 20  # bytes decoded at a time when a view is iterated


def key_of(rel: str) -> bytes:
    """A path as ``FileList`` holds it: git's bytes (``surrogateescape``)."""
    return rel.encode("utf-8", "surrogateescape")


class FileList:
    """Every path of the file set once, as git's bytes: one blob of the
    paths sorted as bytes (git's order), a NUL before each and after the
    last, an ``array`` of where each starts and a flag byte each
    (``ON_DISK``, ``TRACKED``). A path is decoded only when asked for:
    a ``str`` per path was 90 bytes of 500,000 (the blob, its starts and
    flags are 32). Membership is a bisection of every ``STEP``-th path
    then a ``find`` within the block (about 1 us)."""

    def __init__(self, blob: bytes, flags: Union[bytes, bytearray]) -> None:
        self.blob = blob  # b"\0" + each path and a NUL, sorted, each once
        self.flags = bytes(flags)
        self.starts = _starts(blob)  # len(self) + 1: the last is len(blob)
        self._sample = [self.key(i) for i in range(0, len(self.flags), STEP)]
        self.paths = Paths(self)
        # ``Context.files``: the paths on disk (all of them, unless a sparse
        # checkout keeps some off it)
        self.on_disk = self.paths if TRACKED not in self.flags else \
            Paths(self, ON_DISK)
        self.everything = PathSet(self, ON_DISK | TRACKED)
        self.tracked = PathSet(self, TRACKED)

    def __len__(self) -> int:
        return len(self.flags)

    def key(self, i: int) -> bytes:
        """The ``i``-th path's bytes."""
        return self.blob[self.starts[i]:self.starts[i + 1] - 1]

    def path(self, i: int) -> str:
        return self.key(i).decode("utf-8", "surrogateescape")

    def count(self, flag: int) -> int:
        """How many paths have a bit of ``flag`` (``bytes.count`` per value:
        C speed, where a loop over 500,000 flags was 20 ms)."""
        return sum(self.flags.count(v) for v in FLAG_VALUES if v & flag)

    @classmethod
    def of(cls, tracked: Union[bytes, Iterable[str]], untracked: Iterable[str] = (),
           sparse: Iterable[str] = ()) -> "FileList":
        """The list of tracked files on disk (``git.list_files``'s blob, or
        paths), untracked ones and tracked ones a sparse checkout keeps off
        the disk (a path in two lists has both lists' flags)."""
        blob = tracked if isinstance(tracked, bytes) else _blob(tracked)
        base = cls(blob, bytes([ON_DISK | TRACKED]) * (blob.count(0) - 1))
        flags = dict.fromkeys(map(key_of, untracked), ON_DISK)
        for rel in map(key_of, sparse):
            flags[rel] = flags.get(rel, 0) | TRACKED
        if not flags:
            return base
        marks = bytearray(base.flags)
        extra = []
        for rel, flag in flags.items():
            i = base.index_key(rel)
            if i >= 0:
                marks[i] = ON_DISK | TRACKED  # tracked on disk: both
            else:
                extra.append((rel, flag))
        extra.sort()  # untracked and sparse files: few, as a rule; merged in
        pieces, merged_marks, done = [b"\0"], bytearray(), 0  # by slices
        starts = base.starts
        for rel, flag in extra:
            at = base.lower_bound(rel)
            pieces += (blob[starts[done]:starts[at]], rel, b"\0")
            merged_marks += marks[done:at]
            merged_marks.append(flag)
            done = at
        pieces.append(blob[starts[done]:])
        merged_marks += marks[done:]
        del base
        return cls(b"".join(pieces), merged_marks)

    def keep(self, wanted: Callable[[str], bool]) -> "FileList":
        """The paths ``wanted`` keeps, with their flags."""
        blob, marks = bytearray(b"\0"), bytearray()
        for i, rel in enumerate(self.paths):
            if wanted(rel):
                blob += self.blob[self.starts[i]:self.starts[i + 1]]
                marks.append(self.flags[i])
        return FileList(bytes(blob), marks)

    def index(self, rel: str) -> int:
        """``rel``'s place in ``paths``, or -1."""
        try:
            key = key_of(rel)
        except UnicodeEncodeError:  # a lone surrogate no listing holds
            return -1
        return self.index_key(key)

    def index_key(self, key: bytes) -> int:
        """The place of the path whose bytes are ``key``, or -1."""
        block = bisect_right(self._sample, key) - 1
        if block < 0 or 0 in key:
            return -1
        lo = block * STEP
        hi = min(lo + STEP, len(self.flags))
        found = self.blob.find(b"\0" + key + b"\0", self.starts[lo] - 1,
                               self.starts[hi])
        return -1 if found < 0 else bisect_left(self.starts, found + 1, lo, hi)

    def lower_bound(self, key: bytes) -> int:
        """Where ``key`` would go among the paths (``bisect_left``)."""
        block = bisect_left(self._sample, key)
        lo, hi = max(0, (block - 1) * STEP), min(block * STEP, len(self.flags))
        while lo < hi:
            mid = (lo + hi) // 2
            if self.key(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def under(self, prefix: str) -> range:
        """The places of the paths whose bytes start with ``prefix``'s
        (``Context.under``): two bisections, not a scan of every path."""
        key = key_of(prefix)
        top = key.rstrip(b"\xff")
        end = self.lower_bound(top[:-1] + bytes([top[-1] + 1])) if top \
            else len(self.flags)
        return range(self.lower_bound(key), end)

    def ending(self, suffix: str) -> Iterator[str]:
        """The paths that end with ``suffix``, found in the blob at C speed
        (no path decoded but those). UTF-8 is found only at a character's
        start; a byte that is not UTF-8 (a surrogate here) may end one."""
        try:
            tail = suffix.encode("utf-8") + b"\0"
        except UnicodeEncodeError:
            yield from (rel for rel in self.paths if rel.endswith(suffix))
            return
        blob = self.blob
        at = blob.find(tail, 1)
        while at >= 0:
            start = blob.rfind(b"\0", 0, at) + 1
            yield blob[start:at + len(tail) - 1].decode("utf-8", "surrogateescape")
            at = blob.find(tail, at + 1)

    def flagged(self, flag: int, want: int) -> Tuple[str, ...]:
        """The paths whose ``flag`` bits are ``want``."""
        return tuple(p for p, f in zip(self.paths, self.flags) if f & flag == want)


def _blob(paths: Iterable[str]) -> bytes:
    keys = sorted(set(map(key_of, paths)))
    return b"\0" + b"".join(k + b"\0" for k in keys)


def _starts(blob: bytes) -> "array[int]":
    """Where each NUL-separated path of ``blob`` starts, and ``len(blob)``:
    a block at a time, in C (``accumulate`` over lengths)."""
    starts = array("I" if len(blob) < 1 << 32 else "Q")
    pos = 0  # blob[pos] is a NUL
    while pos < len(blob) - 1:
        end = blob.find(b"\0", min(pos + CHUNK, len(blob) - 1))
        lengths = map(len, blob[pos + 1:end].split(b"\0"))
        starts.extend(accumulate(map((1).__add__, lengths), initial=pos + 1))
        starts.pop()
        pos = end
    starts.append(len(blob))
    return starts


class Paths(Sequence[str]):
    """The paths of a ``FileList`` (those with a bit of ``flag``, if given),
    decoded as they are asked for: iterating decodes a block of the blob
    at a time."""

    def __init__(self, files: FileList, flag: int = 0) -> None:
        self._files, self._flag = files, flag
        self._len = files.count(flag) if flag else len(files)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[str]:
        files, flag = self._files, self._flag
        if flag:
            return (p for p, f in zip(files.paths, files.flags) if f & flag)
        return _decoded(files.blob)

    def __contains__(self, rel: object) -> bool:
        if type(rel) is not str:
            return False
        i = self._files.index(rel)
        return i >= 0 and (not self._flag or bool(self._files.flags[i] & self._flag))

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Tuple[str, ...]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[str, Tuple[str, ...]]:
        if self._flag:
            return tuple(self)[i]  # a sparse checkout's subset: rarely asked
        if isinstance(i, slice):
            return tuple(self._files.path(j) for j in range(*i.indices(self._len)))
        if not -self._len <= i < self._len:
            raise IndexError(i)
        return self._files.path(i % self._len)

    def __repr__(self) -> str:
        return f"Paths({len(self)} paths)"


def _decoded(blob: bytes) -> Iterator[str]:
    pos = 0
    while pos < len(blob) - 1:
        end = blob.find(b"\0", min(pos + CHUNK, len(blob) - 1))
        yield from blob[pos + 1:end].decode("utf-8", "surrogateescape").split("\0")
        pos = end


class PathSet(AbstractSet[str]):
    """The paths of a ``FileList`` with ``flag`` set, as a read-only set:
    what ``Context.file_set`` and ``tracked`` were as frozensets."""

    def __init__(self, files: FileList, flag: int) -> None:
        self._files, self._flag = files, flag
        self._len = files.count(flag)
        self._all = self._len == len(files)

    def __contains__(self, rel: object) -> bool:
        if type(rel) is not str:
            return False
        i = self._files.index(rel)
        return i >= 0 and bool(self._files.flags[i] & self._flag)

    def __iter__(self) -> Iterator[str]:
        if self._all:
            return iter(self._files.paths)
        flag = self._flag
        return (p for p, f in zip(self._files.paths, self._files.flags) if f & flag)

    def __len__(self) -> int:
        return self._len

    def __repr__(self) -> str:
        return f"PathSet({len(self)} paths)"

    __hash__ = AbstractSet._hash

    @classmethod
    def _from_iterable(cls, items: Iterable[str]  # type: ignore[override]
                       ) -> FrozenSet[str]:
        return frozenset(items)  # what ``|``, ``&``, ``-`` of a view give

    def union(self, *others: Iterable[str]) -> FrozenSet[str]:
        return frozenset(self).union(*others)

    def difference(self, *others: Iterable[str]) -> FrozenSet[str]:
        gone = frozenset().union(*others)  # a tuple's ``in`` is a scan
        return frozenset(p for p in self if p not in gone)


@dataclass(frozen=True)
class Context:
    root: Path
    config: Config
    # every path once (``FileList``): ``files``, ``tracked`` and ``file_set``
    # are views of it
    file_list: FileList
    in_git: bool
    cache_dir: Optional[Path] = None  # under the git directory; None: no cache
    git_dir: Optional[Path] = None  # ``paths`` refuses anything inside it
    # the root below the work tree's top ("sub/"; "" at the top, outside git):
    # github and sarif paths start with it, as GitHub resolves them from there
    prefix: str = ""
    unopened: Tuple[str, ...] = ()  # "dir/: reason" for folders not listable
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    # ``icm: parsing N/M markdown files`` on a terminal (the CLI's)
    progress: Optional[Callable[[int, int], None]] = None
    git_installed: bool = True  # with in_git False: git is there, the root is not
    nested: FrozenSet[str] = frozenset()  # folders that are roots of their own
    _memo: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def files(self) -> "Paths":
        """Root-relative posix paths on disk, sorted, exclude applied."""
        return self.file_list.on_disk

    def under(self, prefix: str) -> Iterator[str]:
        """The paths of ``files`` that start with ``prefix`` (a folder's),
        in order: two bisections, not a decode of every path."""
        files = self.file_list
        for i in files.under(prefix):
            rel = files.path(i)
            if files.flags[i] & ON_DISK and rel.startswith(prefix):
                yield rel

    @property
    def tracked(self) -> "PathSet":
        """What git tracks, sparse included (empty outside git)."""
        return self.file_list.tracked

    @property
    def file_set(self) -> "PathSet":
        """``files`` as a set, plus tracked files a sparse checkout keeps off
        the disk: they exist for links, they are never read."""
        return self.file_list.everything

    def history(self, allow_partial: bool = False,
                base: Optional[str] = None) -> "History":
        """Git history facts, read once per run (one ``git log`` pass; with
        ``base``, a commit, the branch's own commits on top of the base's);
        ``allow_partial``: in a partial clone, never fetch a missing object."""
        _asked_git()
        if "history" not in self._memo:
            self._memo["history"] = read_history(
                self.root, self.config.stale_history, allow_partial, base,
                self.file_list)
        history: History = self._memo["history"]
        return history

    def commit_positions(self, commits: Iterable[str]
                         ) -> Dict[str, Tuple[bool, int]]:
        """Where each of ``commits`` stands against HEAD: (is an ancestor of
        HEAD, commits on HEAD since it); one the repository lacks is left
        out. One pass whatever their number (``git.commit_positions``)."""
        _asked_git()
        return git.commit_positions(self.root, list(commits)) if self.in_git else {}

    def against(self, ref: Optional[str], trees: bool = True
                ) -> Optional["Against"]:
        """The queue and journal folders of ``ref`` (default: the ref this
        branch merges into, where known) and of the merge base, read from
        git's trees; None outside git or when no ref is known. Not
        ``trees``: the ref's name alone (nothing here to compare)."""
        _asked_git()
        key = f"against:{ref}:{trees}"
        if key not in self._memo:
            self._memo[key] = read_against(self, ref, trees)
        result: Optional[Against] = self._memo[key]
        return result

    def changed(self, rev: str) -> FrozenSet[str]:
        """The paths that differ between ``rev`` and the work tree, from the
        root (``--changed-since``), and the untracked files (``git diff``
        lists none): one ``git diff`` per run, whatever the checks that ask;
        UsageError outside git or for no such commit."""
        _asked_git()
        key = f"changed:{rev}"
        if key not in self._memo:
            if not self.in_git:
                raise UsageError(f"--changed-since {rev}: {self.root} is not a "
                                 "git repository")
            self._memo[key] = git.changed_since(self.root, rev, "--changed-since") \
                | frozenset(self.file_list.flagged(TRACKED, 0))
        found: FrozenSet[str] = self._memo[key]
        return found

    def ignored(self, paths: Sequence[str]) -> FrozenSet[str]:
        """Which of ``paths`` (that do not exist) the tree's ``.gitignore``
        files ignore, as a file or as a folder; none outside git
        (``git.ignored_paths``). Those files are touched: a memo holds."""
        if not self.in_git or not paths:
            return frozenset()
        for rel in self.file_list.ending(".gitignore"):
            if posixpath.basename(rel) == ".gitignore":
                with _reading(rel):
                    pass
        asked = [p for path in paths for p in (path, path + "/")]
        hits = git.ignored_paths(self.root, asked)
        return frozenset(p for p in paths if p in hits or p + "/" in hits)

    def read_bytes(self, rel: str, limit: int = 0) -> bytes:
        return read_real(self.real(rel), rel, limit)

    def real(self, rel: str) -> str:
        """The real path ``rel`` names (``paths.resolve``); Unreadable when it
        leaves the root, names ``.git`` or cannot be searched."""
        if "paths" not in self._memo:
            self._memo["paths"] = paths.Resolver(self.root, self.git_dir)
        with _reading(rel):
            real: str = self._memo["paths"].resolve(rel)
            return real

    def stat(self, rel: str) -> os.stat_result:
        """``os.stat`` of ``rel`` through ``real``; Unreadable on failure."""
        real = self.real(rel)
        with _reading(rel):
            return os.stat(real)

    def missing_folder(self, key: str) -> bool:
        """Whether the folder config key ``key`` was set to a folder that does
        not exist yet: no file of the set is in it, and the disk has no
        folder there (git lists no empty one)."""
        if key not in self.config.given:
            return False  # a default folder not made yet is no news
        prefix = getattr(self.config, key).rstrip("/") + "/"
        if any(f.startswith(prefix) for f in self.file_set):
            return False
        try:
            return not stat.S_ISDIR(self.stat(getattr(self.config, key)).st_mode)
        except Unreadable:
            return True

    def read_text(self, rel: str) -> str:
        """UTF-8 text with a BOM accepted; raise Unreadable otherwise."""
        return decode(rel, self.read_bytes(rel))

    def read_markdown(self, rel: str) -> str:
        """Text for the parser: like read_text, refusing files over
        ``max_file_bytes`` (markdown-it holds every token of a file at once)."""
        return decode(rel, self.read_bytes(rel, self.config.max_file_bytes))

    def notes(self) -> Tuple[str, ...]:
        """The files of the set that are notes (``is_note``), found once: a
        scan decoded every path (0.12 s at 500,000), five times in stale."""
        if "note_list" not in self._memo:
            is_note = self.note_names().is_note
            self._memo["note_list"] = tuple(
                f for f in self.files if is_note(f) and self._own_note(f))
        elif "vendored" in self._memo:  # the answer's inputs, for this memo too
            for touched in _touched:
                touched.paths.update(self._memo["vendored"][2])
        found: Tuple[str, ...] = self._memo["note_list"]
        return found

    def is_note(self, rel: str) -> bool:
        """Whether ``rel`` is a folder note: the one answer every check and
        writer asks (``NoteNames``); a vendored file is none."""
        return self.note_names().is_note(rel) and self._own_note(rel)

    def _own_note(self, rel: str) -> bool:
        """Whether a file named as a note is the repository's own folder
        note: neither vendored nor a skill's material."""
        return not self.vendored(rel) and not self.in_skill(rel)

    def in_skill(self, rel: str) -> bool:
        """Whether ``rel`` sits in an agent skill's folder (one holding a
        ``SKILL.md``, at any depth below it): a skill is loaded by name, not
        by the folder an agent works in, so a note-named file there is the
        skill's material (round 7's copied skill kept other repositories'
        ``AGENTS.md`` as examples), never a folder's note."""
        return self._skill_of(rel) is not None

    def skill_sample(self, rel: str) -> bool:
        """Whether ``rel`` is a skill's sample: below an ``examples``,
        ``samples`` or ``assets`` folder inside a skill's folder (output
        material, the skill format's ``assets/``): text written for the
        repository it describes or will be copied into, not for this one."""
        skill = self._skill_of(rel)
        return skill is not None and not SKILL_SAMPLE_FOLDERS.isdisjoint(
            rel[len(skill) + 1:].casefold().split("/")[:-1])

    def _skill_of(self, rel: str) -> Optional[str]:
        """The nearest skill folder holding ``rel``, if any."""
        if "skills" not in self._memo:
            self._memo["skills"] = frozenset(
                f.rpartition("/")[0] for f in self.file_list.ending("/SKILL.md")
                if posixpath.basename(f) == "SKILL.md")
        skills: FrozenSet[str] = self._memo["skills"]
        folder = rel.rpartition("/")[0]
        while skills and folder:
            if folder in skills:
                return folder
            folder = folder.rpartition("/")[0]
        return None

    def vendored(self, rel: str) -> bool:
        """Whether ``rel`` is other people's text: under a ``vendored``
        folder, or marked ``linguist-vendored``/``linguist-generated`` (the
        attribute's ``false`` keeps a vendored folder's file)."""
        if "vendored" not in self._memo:
            attrs, sources = self._linguist()
            bundles, read = self._skill_bundles()
            self._memo["vendored"] = (compile_globs(self.config.vendored), attrs,
                                      sources + read, bundles)
        globs, attrs, sources, bundles = self._memo["vendored"]
        for found in _touched:  # each check's memo holds the attributes
            found.paths.update(sources)
        said = attrs.get(rel, {})
        if any(said.get(n) in ("set", "true") for n in _LINGUIST):
            return True
        if said.get(_LINGUIST[0]) in ("unset", "false"):
            return False
        if globs is not None and globs.match(rel):
            return True
        folder = rel.rpartition("/")[0]
        while bundles and folder:  # a copied skill's folder, at any depth
            if folder in bundles:
                return True
            folder = folder.rpartition("/")[0]
        return False

    def _skill_bundles(self) -> Tuple[FrozenSet[str], Tuple[str, ...]]:
        """The folders of skills copied from elsewhere, and the files that
        said so (a memo's inputs): each ``skills/NAME/SKILL.md`` whose NAME
        the root ``skills-lock.json`` lists with a ``source`` (the ``skills``
        installer's record), and each one inside a dot folder (a tool's:
        ``.claude/``, ``.opencode/``) whose front matter names its
        ``homepage``, ``source`` or ``repository`` URL. A repository's own
        skill names no home; the upstream's sit in ``skills/``, no dot
        folder."""
        skills = [rel for rel in self.file_list.ending("/SKILL.md")
                  if rel.split("/")[-3:-2] == ["skills"]]
        if not skills:
            return frozenset(), ()
        read: List[str] = []
        locked: Set[str] = set()
        if LOCK_FILE in self.file_set:
            read.append(LOCK_FILE)
            locked = _locked_skills(self, LOCK_FILE)
        found: Set[str] = set()
        for rel in skills:
            folder = rel.rpartition("/")[0]
            if folder.rpartition("/")[2] in locked:
                found.add(folder)
            elif any(part.startswith(".") for part in folder.split("/")[:-2]):
                read.append(rel)
                if _names_a_home(self, rel):
                    found.add(folder)
        return frozenset(found), tuple(read)

    def _linguist(self) -> Tuple[Dict[str, Dict[str, str]], Tuple[str, ...]]:
        """The linguist attributes of the markdown files (one ``check-attr``,
        asked only when a ``.gitattributes`` of the set names one) and the
        ``.gitattributes`` files: the inputs of a memo of the answer."""
        if not self.in_git:
            return {}, ()
        sources = tuple(rel for rel in self.file_list.ending(".gitattributes")
                        if posixpath.basename(rel) == ".gitattributes")
        named = False
        for rel in sources:
            try:
                named = named or b"linguist-" in self.read_bytes(rel, 1 << 20)
            except Unreadable:
                continue
        if not named:
            return {}, sources
        return git.attributes(self.root, self.markdown_files(own=False),
                              _LINGUIST), sources

    def note_names(self) -> "NoteNames":
        if "notes" not in self._memo:
            self._memo["notes"] = NoteNames(self.config)
        names: NoteNames = self._memo["notes"]
        return names

    def markdown_files(self, own: bool = True) -> Tuple[str, ...]:
        """The markdown files of the set; ``own``: none vendored."""
        found = tuple(f for f in self.files if f.lower().endswith(MARKDOWN_SUFFIXES))
        return tuple(f for f in found if not self.vendored(f)) if own else found

    def path_changes(self, paths: Sequence[str], base: Optional[str] = None,
                     commits: Sequence[str] = (), edits: bool = False
                     ) -> git.Changes:
        """The commits of ``history``'s pass that change ``paths``, newest
        first, each with its changes' blob ids (``git.path_changes``; close
        it to stop git early); with ``commits``, only those; ``edits``: no
        adds or deletions."""
        return git.path_changes(self.root, self.config.stale_history, paths, base,
                                commits, apart=len(self.file_list.paths)
                                > git.ROOTS_APART, edits=edits)

    def head_blobs(self, paths: Sequence[str]) -> Dict[str, str]:
        """path -> blob id of each of ``paths`` that HEAD has (one
        ``ls-tree``; of the whole tree past ``git.PATHSPEC_MAX`` paths, as
        ``path_changes``); {} for none asked."""
        if len(paths) <= git.PATHSPEC_MAX:
            return git.tree_entries(self.root, "HEAD", paths) if paths else {}
        found = git.tree_entries(self.root, "HEAD", ["."])
        return {path: found[path] for path in paths if path in found}

    def net_changes(self, commits: Sequence[str], folders: Sequence[str],
                    end: Optional[str] = None) -> Dict[str, List[git.PathChange]]:
        """``git.net_changes`` from each commit to ``end`` (a hash; None:
        HEAD) under ``folders`` (``"."``: all); of the whole tree past
        ``git.PATHSPEC_MAX`` folders, filtered here (as ``path_changes``)."""
        if end is None and commits:
            end = git.head_commit(self.root)
        if end is None or not commits:
            return {}
        if len(folders) <= git.PATHSPEC_MAX or "." in folders:
            return git.net_changes(self.root, commits, end, folders)
        under = tuple(f"{f}/" for f in folders)
        return {c: [d for d in changes if d[0].startswith(under)]
                for c, changes in git.net_changes(self.root, commits, end,
                                                  ["."]).items()}

    def index_blobs(self, paths: Sequence[str]) -> Dict[str, str]:
        """``head_blobs`` of the index (one ``ls-files --stage``)."""
        if len(paths) <= git.PATHSPEC_MAX:
            return git.index_entries(self.root, paths) if paths else {}
        found = git.index_entries(self.root, ["."])
        return {path: found[path] for path in paths if path in found}

    def blobs(self, oids: Iterable[str], cap: int, batch: int = 1024
              ) -> Iterator[Tuple[str, bytes]]:
        """(id, its first ``cap`` bytes) of each blob found, ``batch`` at a
        time (one ``cat-file --batch`` each: memory is a batch's, whatever
        the number)."""
        wanted = sorted(set(oids))
        for start in range(0, len(wanted), batch):
            yield from git.read_blobs(self.root, wanted[start:start + batch],
                                      cap).items()


class HitStore:
    """The history pass's newest hit of each path of a ``FileList`` (and of
    ``extra`` paths: pending ones gone from it), as a slot per path and a
    list of the commits that are hits. A dict of every path git named held
    a bytes key per path (50 MiB at 500,000 files) and paths no check asks
    about (deleted long ago). ``gone``: of the paths of neither list (in a
    first-parent log, deleted since) keep the newest that is no prose per
    folder, so a deletion is a change of its folder's code (``gone``)."""

    def __init__(self, files: FileList, extra: Iterable[str] = (),
                 gone: bool = False) -> None:
        self.files = files
        self.extra = {rel: len(files) + i for i, rel in enumerate(
            sorted(rel for rel in set(map(key_of, extra))
                   if files.index_key(rel) < 0))}
        self.slots = array("i", [-1]) * (len(files) + len(self.extra))
        self.hits: List[git.Hit] = []
        self.keep_gone = gone
        self.gone: Dict[str, Tuple[str, int]] = {}  # folder -> (path, hit)
        self._next = 0  # a big commit's paths come in the list's order

    def setdefault(self, path: bytes, hit: git.Hit, /) -> git.Hit:
        """Keep ``hit`` for ``path`` unless it has one (the log is read
        newest first); a path of neither list is dropped (or ``gone``)."""
        slot = self._slot(path)
        if slot >= 0 and self.slots[slot] < 0:
            self._keep(hit)
            self.slots[slot] = len(self.hits) - 1
        elif slot < 0 and self.keep_gone:
            rel = path.decode("utf-8", "surrogateescape")
            folder = rel.rpartition("/")[0]
            if folder not in self.gone and \
                    not rel.lower().endswith(MARKDOWN_SUFFIXES):
                self._keep(hit)
                self.gone[folder] = (rel, len(self.hits) - 1)
        return hit

    def _keep(self, hit: git.Hit) -> None:
        if not self.hits or self.hits[-1] is not hit:  # one per commit
            self.hits.append(hit)

    def get(self, rel: str) -> Optional[git.Hit]:
        try:
            slot = self._slot(key_of(rel))
        except UnicodeEncodeError:
            return None
        if slot < 0:
            kept = self.gone.get(rel.rpartition("/")[0])
            return self.hits[kept[1]] if kept and kept[0] == rel else None
        return self.hits[self.slots[slot]] if self.slots[slot] >= 0 else None

    def gone_paths(self) -> List[str]:
        """The newest deleted path that is no prose of each folder."""
        return [rel for rel, _ in self.gone.values()]

    def _slot(self, key: bytes) -> int:
        """``key``'s slot, or -1: the place after the last one asked is
        tried first (a big commit's paths, and a folder's code, come in the
        list's order: a compare, not a bisection)."""
        i = self._next
        if not (i < len(self.files) and self.files.key(i) == key):
            i = self.files.index_key(key)
            if i < 0:
                return self.extra.get(key, -1)
        self._next = i + 1
        return i


class PathList(Sequence[str]):
    """Paths of a ``FileList`` by their place (4 bytes each in an
    ``array``), then any others as text: a list of text was a ``str`` per
    path (40 MiB for the code of 500,000 files). Slots, and no list until
    a path is not listed: one per note, 25,000 were 10 MiB."""

    __slots__ = ("_files", "_places", "_others")
    _NONE: Tuple[str, ...] = ()

    def __init__(self, files: FileList) -> None:
        self._files = files
        self._places = array("I")
        self._others: Union[List[str], Tuple[str, ...]] = self._NONE

    def append(self, rel: str, place: int = -1) -> None:
        """Add ``rel``, the path at ``place`` of the file list (-1: none)."""
        if place >= 0:
            self._places.append(place)
        elif self._others:
            self._others.append(rel)  # type: ignore[union-attr]
        else:
            self._others = [rel]

    def __len__(self) -> int:
        return len(self._places) + len(self._others)

    def __iter__(self) -> Iterator[str]:
        return chain(map(self._files.path, self._places), self._others)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[str, Sequence[str]]:
        if isinstance(i, slice):
            return tuple(self)[i]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        return self._files.path(self._places[i]) if i < len(self._places) else \
            self._others[i - len(self._places)]


@dataclass(frozen=True)
class History:
    has_commits: bool
    # path -> (committer time, commit, place in the log: greater is newer),
    # for the paths of the file list and the pending ones
    times: HitStore
    boundary: FrozenSet[str]  # shallow-boundary commits (hex)
    pending: FrozenSet[str]  # paths whose index or work tree differs from HEAD

    # each commit's hit as ``last`` gives it, made once: a tuple and a hash
    # per path asked (stale asks of every code path) were 150 bytes each
    shown: Dict[int, Tuple[int, str, int]] = field(default_factory=dict,
                                                    compare=False)

    def last(self, rel: str) -> Optional[Tuple[int, str, int]]:
        hit = self.times.get(rel)
        if hit is None:
            return None
        found = self.shown.get(hit[2])  # a commit's place is its own
        if found is None:
            found = self.shown[hit[2]] = (hit[0], hit[1].decode("ascii"), hit[2])
        return found


@dataclass(frozen=True)
class Against:
    """Another ref's view of the queue and journal, and the merge base's."""

    ref: str
    ref_files: Dict[str, str]  # root-relative path -> blob id, on ``ref``
    base_files: Dict[str, str]  # the same at the merge base ({} if none)
    head_files: Dict[str, str]  # the same at HEAD
    blobs: Dict[str, bytes]  # blob id -> first 64 KiB, for ``ref``'s files
    user: str  # this writer's git user.name ("" if unset, or unread: no claim)


def read_against(ctx: "Context", ref: Optional[str], trees: bool = True
                 ) -> Optional[Against]:
    if not ctx.in_git:
        if ref is not None:
            raise UsageError(f"--against {ref}: {ctx.root} is not a git repository")
        return None
    head, name, commit = git.base_facts(ctx.root, dict(os.environ), ref)
    if name is None or commit is None:  # no guess (or no HEAD), or a bad name
        if ref is None:
            return None
        raise UsageError(f"--against {ref}: names no commit")
    # Each tree, the merge base and the user's name only when an answer can
    # hang on it: the guess and this were twelve git processes in a row.
    # No item here, or none and no entry on the ref: nothing can collide.
    folders = [ctx.config.queue_dir, ctx.config.journal_dir]
    ref_files = git.tree_entries(ctx.root, commit, folders) if trees else {}
    if not ref_files:
        return Against(name, {}, {}, {}, {}, "")
    mb = commit if commit == head else (
        git.merge_base(ctx.root, commit, head) if head else None)
    base_files = ref_files if mb == commit else (
        git.tree_entries(ctx.root, mb, folders) if mb else {})
    head_files = base_files if head == mb else (  # no own commits: one tree
        git.tree_entries(ctx.root, head, folders) if head else {})
    changed = [oid for path, oid in ref_files.items() if base_files.get(path) != oid]
    blobs = git.read_blobs(ctx.root, changed)
    claimed = any(b"Claimed-by:" in blob for blob in blobs.values())
    return Against(name, ref_files, base_files, head_files, blobs,
                   (git.config_value(ctx.root, "user.name") or "") if claimed else "")


def branch_base(ctx: Context, option: Optional[str]) -> Optional[str]:
    """The commit this branch will merge into, when it is named: the option
    (``--base``, ``--against``), else ``ICM_BASE``; None when neither is
    set (or outside git). Not ``git.default_base``'s guesses: an upstream is
    where a branch is pushed, not merged, and a guess must not change the
    verdict of every local run. A name that finds no commit is an error,
    never a quiet fall back to HEAD's history, which would pass in CI what
    fails after "Rebase and merge"."""
    ref = option or os.environ.get("ICM_BASE", "")
    if not ref or not ctx.in_git:
        return None
    commit = git.commit_of(ctx.root, ref)
    if commit is None:
        raise UsageError(f"--base/--against {ref}: names no commit" if option
                         else f"ICM_BASE {ref}: names no commit (fetch it, or "
                         "unset ICM_BASE)")
    return commit


def read_history(root: Path, mode: str, allow_partial: bool, base: Optional[str],
                 files: FileList) -> History:
    """The history facts of ``files``'s paths and the pending ones: no
    check asks of another path."""
    # Start the long pass first; the other facts are gathered while it runs.
    pending = git.HistoryPass(root, mode, allow_partial, base,
                              len(files.paths) > git.ROOTS_APART)
    try:
        has_commits, boundary = git.head_facts(root)  # UsageError outside git
        if not has_commits:
            pending.discard()
            return History(False, HitStore(FileList.of(())), frozenset(),
                           frozenset())
        changes = git.pending_paths(root)
    except BaseException:
        pending.discard()
        raise
    store = HitStore(files, changes, gone=mode == "first-parent")
    pending.result(seen=store)
    return History(True, store, boundary, changes)


class Touched:
    """What a check touched while it ran (``touching``): every path it read,
    stat or resolved through this module, and whether it asked git. A
    memoised answer is reused only while all of them are unchanged."""

    def __init__(self) -> None:
        self.paths: Set[str] = set()
        self.git = False


_touched: List[Touched] = []


@contextlib.contextmanager
def touching() -> Iterator[Touched]:
    """Record what the code run inside touches (``_reading`` sees every
    read, stat and resolution; ``Context``'s git facts say so)."""
    found = Touched()
    _touched.append(found)
    try:
        yield found
    finally:
        _touched.remove(found)


def _asked_git() -> None:
    for found in _touched:
        found.git = True


@contextlib.contextmanager
def _reading(rel: str) -> Iterator[None]:
    """Turn the ways a read fails into one Unreadable with a plain reason."""
    for found in _touched:
        found.paths.add(rel)
    try:
        yield
    except paths.Refused as exc:
        reason = exc.reason
        if "outside the repository" in reason:
            reason += "; not followed"
        raise Unreadable(rel, reason) from None
    except IsADirectoryError:
        raise Unreadable(rel, "is a directory") from None
    except PermissionError:
        raise Unreadable(rel, "permission denied") from None
    except FileNotFoundError:
        raise Unreadable(rel, "no such file (dangling symlink?)") from None
    except OSError as exc:
        raise Unreadable(rel, exc.strerror or str(exc)) from None


def _open(root: Path, rel: str, git_dir: Optional[Path]) -> BinaryIO:
    """``rel`` opened through ``paths``: inside the root at every component,
    a regular file; the caller wraps this in ``_reading``."""
    return open(paths.open_regular(paths.resolve(root, rel, git_dir)), "rb")


def read_file(root: Path, rel: str, limit: int = 0,
              git_dir: Optional[Path] = None) -> bytes:
    """Read a file of the set: never through a symlink that leaves the root
    at any component, only a regular file, never more than ``limit`` bytes
    (0: no limit); Unreadable otherwise."""
    with _reading(rel), _open(root, rel, git_dir) as fh:
        return _read(rel, fh, limit)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system
    says, which a container or ``taskset`` narrows; ``os.cpu_count()``
    counts the whole machine)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def read_real(real: str, rel: str, limit: int = 0) -> bytes:
    """``read_file`` of a path ``Context.real`` already resolved (a fork
    worker of ``check-links`` reads the paths its parent resolved)."""
    with _reading(rel), open(paths.open_regular(real), "rb") as fh:
        return _read(rel, fh, limit)


def _read(rel: str, fh: BinaryIO, limit: int) -> bytes:
    if limit:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise Unreadable(rel, f"{size} bytes is over max_file_bytes "
                                  f"({limit}); not parsed", skipped=True)
    return fh.read()


def read_file_blocks(root: Path, rel: str, chunk: int,
                     git_dir: Optional[Path] = None) -> Iterator[bytes]:
    """Like read_file, in blocks of ``chunk`` bytes."""
    with _reading(rel), _open(root, rel, git_dir) as fh:
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
    """The nearest ancestor holding an icm config (not above the work tree's
    top level), else the git top level; outside git, the nearest ancestor
    holding ``AGENTS.md``; else ``start``. A config is the deliberate
    statement, and a handbook-named file in a subfolder may be a folder
    note (``note_name = "AGENTS.md"``), so the marker counts only outside
    git."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if config_mod.find_config(folder):
            return folder
        if (folder / ".git").exists():
            break  # a config above the repository is not this repository's
    top = git.toplevel(start)
    if top is not None:
        return top
    for folder in (start, *start.parents):
        if (folder / "AGENTS.md").is_file():
            return folder
    return start


# The ``skills`` installer's record of what it copied, and where from.
LOCK_FILE = "skills-lock.json"
# A skill's folders of output material (round 7's copied skill kept other
# repositories' notes in ``references/examples/``, their links theirs).
SKILL_SAMPLE_FOLDERS = frozenset({"examples", "example", "samples", "sample",
                                  "assets"})
_HOME = re.compile(rb"^[ \t]*(?:homepage|source|repository)[ \t]*:[ \t]*[\"']?"
                   rb"https?://", re.M)


def _locked_skills(ctx: "Context", rel: str) -> Set[str]:
    """The skill names ``rel`` lists with a ``source`` (none when it does
    not read as the installer's JSON)."""
    import json  # asked only beside a lock file

    try:
        data = json.loads(ctx.read_bytes(rel, 1 << 20))
    except (Unreadable, ValueError):
        return set()
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return set()
    return {name for name, entry in skills.items() if isinstance(name, str)
            and isinstance(entry, dict) and entry.get("source")}


def _names_a_home(ctx: "Context", rel: str) -> bool:
    """Whether ``rel``'s front matter names a URL it came from."""
    try:
        head = ctx.read_bytes(rel, 1 << 20)[:8192]
    except Unreadable:
        return False
    if not head.startswith(b"---"):
        return False
    end = head.find(b"\n---", 3)
    return end > 0 and _HOME.search(head, 0, end) is not None


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


class NoteNames:
    """Which paths are notes, from ``note_name``: a name (``AGENTS.md``) is
    that file in every folder, the root's too; a glob with ``/`` is matched
    against the whole path (``**/README.md``); a glob without one against
    the file name. ``!`` before an entry names paths that are not notes,
    from the root (``!README.md`` is the root's README.md): an exclusion
    carves out places, where an entry names a kind of file. A path is a note
    when an entry matches it and no exclusion does. The handbook is never a
    note: when the two share a name (``CLAUDE.md``), the handbook indexes
    notes and is not one."""

    def __init__(self, cfg: Config) -> None:
        self.handbook = cfg.handbook
        self.entries: List[Tuple[str, Callable[[str], bool]]] = []
        self.skips: List[Callable[[str], bool]] = []
        for entry in cfg.note_name:
            if entry.startswith("!"):
                self.skips.append(_path_matcher(entry[1:]))
            else:
                self.entries.append((entry, _note_matcher(entry)))
        modes = dict(cfg.index)
        self.unindexed = modes.get("") == "off"
        self.off = [match for entry, match in self.entries
                    if modes.get(entry) == "off"]
        # Plain names alone (the common case) are one set lookup: stale asks
        # of every tracked path.
        plain = all("/" not in entry and not any(c in entry for c in _GLOB_CHARS)
                    for entry, _ in self.entries)
        self.names = frozenset(e for e, _ in self.entries) if plain else None

    def is_note(self, rel: str) -> bool:
        if rel == self.handbook:
            return False
        if self.names is not None:
            hit = rel.rpartition("/")[2] in self.names
        else:
            hit = any(match(rel) for _entry, match in self.entries)
        return hit and not any(skip(rel) for skip in self.skips)

    def needs_index(self, rel: str) -> bool:
        """Whether the note ``rel`` must be named in the handbook: not when
        ``index`` is "off" for it (notes an agent loads by location)."""
        return not self.unindexed and not any(match(rel) for match in self.off)


_GLOB_CHARS = ("*", "?")


def _note_matcher(entry: str) -> Callable[[str], bool]:
    """A positive ``note_name`` entry as a test of a root-relative path."""
    if "/" not in entry:
        if not any(c in entry for c in _GLOB_CHARS):
            return lambda rel: rel.rpartition("/")[2] == entry
        name = Glob(entry)
        return lambda rel: name.match(rel.rpartition("/")[2])
    whole, last = Glob(entry), Glob(entry.rstrip("/").rpartition("/")[2])
    # ``Glob`` lets a pattern naming a folder cover its files; a note is a
    # file the pattern names, so its own name must match the last part.
    return lambda rel: whole.match(rel) and last.match(rel.rpartition("/")[2])


def _path_matcher(pattern: str) -> Callable[[str], bool]:
    """An exclusion: a path from the root (a pattern without ``/`` names a
    file or folder at the root, not at any depth as ``exclude`` reads it)."""
    glob = Glob(pattern)
    if "/" in pattern.rstrip("/"):
        return glob.match
    return lambda rel: glob.match(rel.partition("/")[0])


def walk(root: Path, unopened: Optional[List[str]] = None) -> Tuple[str, ...]:
    """Files under ``root`` outside git: skip ``.git``, never follow symlinked
    folders (a symlink to a file is listed; reading it is checked later).
    Folders that cannot be listed go to ``unopened`` as ``dir/: reason``."""
    found = []

    def failed(exc: OSError) -> None:
        if unopened is not None:
            rel = os.path.relpath(exc.filename, root).replace(os.sep, "/")
            reason = "permission denied" if isinstance(exc, PermissionError) \
                else (exc.strerror or str(exc)).lower()
            unopened.append(f"{'.' if rel == '.' else rel}/: {reason}")

    for folder, dirs, files in os.walk(root, onerror=failed, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git"
                         and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, root)
        for name in files:
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return tuple(found)


def nested_roots(root: Path, files: Iterable[str]) -> Set[str]:
    """Folders below the root with an icm config of their own (``icm.toml``,
    or a ``pyproject.toml`` with ``[tool.icm]``): a monorepo's projects, each
    its own root. The outer run leaves their files to them, as ``exclude``
    would: their notes belong to their handbook, their code to their notes.
    Only real folders inside the root count (git and the walk list none
    through a symlink; the check is kept for a race)."""
    folders = {f.rsplit("/", 1)[0] for f in files
               if f.endswith(("/icm.toml", "/pyproject.toml"))}
    if not folders:
        return set()
    top = os.path.realpath(root)
    found = set()
    for folder in folders:
        real = os.path.realpath(root / folder)
        if real.startswith(top + os.sep) and \
                config_mod.find_config(root / folder) is not None:
            found.add(folder)
    return found


def _under(path: str, folders: Set[str]) -> bool:
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    while folder:
        if folder in folders:
            return True
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return False


def build(root: Path, cfg: Config, now: Optional[datetime] = None,
          progress: Optional[Callable[[int, int], None]] = None) -> Context:
    """Collect the file set once: git's tracked plus untracked-not-ignored
    files (outside git, a walk), minus ``exclude`` and nested roots."""
    if not root.is_dir():
        raise UsageError(f"root {root} is not a folder")
    located = git.locate(root)  # None outside git
    gitdir, prefix = located if located else (None, "")
    in_git = gitdir is not None
    sparse: List[str] = []
    untracked: List[str] = []
    unopened: List[str] = []
    if in_git:
        tracked, untracked, sparse, unopened = git.list_files(root)
        file_list = FileList.of(tracked, untracked, sparse)
        del tracked
    else:
        file_list = FileList.of((), walk(root, unopened))  # none tracked
    excluded = compile_globs(cfg.exclude)
    if excluded is not None:
        file_list = file_list.keep(lambda rel: not excluded.match(rel))
    nested = nested_roots(root, chain(file_list.ending("/icm.toml"),
                                      file_list.ending("/pyproject.toml")))
    if nested:
        file_list = file_list.keep(lambda rel: not _under(rel, nested))
    return Context(
        root=root, config=cfg, file_list=file_list, in_git=in_git,
        cache_dir=gitdir / "icm" if gitdir else None, git_dir=gitdir,
        prefix=prefix,
        unopened=tuple(sorted(unopened)),
        now=now or datetime.now(timezone.utc),
        progress=progress,
        git_installed=in_git or git.available(),
        nested=frozenset(nested),
    )
