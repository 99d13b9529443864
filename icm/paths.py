"""Every path icm reads or writes passes through here.

``resolve`` turns a root-relative path into the real path it names, following
symlinks one hop at a time, and refuses a path that is absolute, that leaves
the root at any component (``..``, a symlinked folder or file pointing out,
even one that points back in later), that has a ``.git`` component, that
lies inside the git directory or that no file can have (a NUL made
``os.stat`` raise ValueError: a crash, not a finding). ``open_regular``
opens only regular files (``stat``, then ``O_NONBLOCK`` and ``fstat``): a
FIFO never blocks, a device is never opened. ``writable`` is the same
resolution for commands that write, refused as one line before anything
changes. ``confine`` is ``clean`` for configured paths, on any system.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union

from icm.errors import UsageError

MAX_HOPS = 40  # symlinks followed in one path, as Linux allows

OUTSIDE = "symlink points outside the repository"
NAME_MAX = 255  # bytes in one file name (ext4, APFS, NTFS alike)
PATH_MAX = 4096  # bytes in a path, as Linux allows (macOS: 1024, ENAMETOOLONG)
NUL = "a file name cannot hold a NUL byte"


class Refused(Exception):
    """A path icm will not read or write; ``reason`` says why, in a phrase."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_git_name(name: str) -> bool:
    """``.git`` as any file system may spell it (``.GIT``, ``.git.``)."""
    return name.rstrip(". ").casefold() == ".git"


# A folder's README and its translations (README.ko.md, README.zh-CN.md,
# README_ja.md, README.pt-BR.md): a folder's description, never one of its
# entries or items. Two letters for the language: three read "readme-fix.md"
# and "README-old.md" (a queue item, an old page) as READMEs, unchecked.
_README = re.compile(r"readme(?:[._-][a-z]{2}(?:[_-][a-z0-9]{2,4})?)?\.md",
                     re.IGNORECASE)


def is_readme(name: str) -> bool:
    """Whether a file name is a README, or one translated."""
    return _README.fullmatch(name) is not None


def clean(rel: str) -> str:
    """The normal form of a root-relative path (``./a//b/`` -> ``a/b``);
    Refused when it is absolute, leaves the root or names ``.git``."""
    if rel.startswith("/"):
        raise Refused("absolute path; icm only uses paths inside the repository")
    if rel and "//" not in rel and "/." not in "/" + rel and not rel.endswith("/") \
            and ".git" not in rel.casefold():
        return rel  # already normal (the file set's paths): the hot case
    norm = posixpath.normpath(rel) if rel else "."
    if norm == ".." or norm.startswith("../"):
        raise Refused("leaves the repository")
    if any(is_git_name(part) for part in norm.split("/")):
        raise Refused("inside the git directory")
    return "" if norm == "." else norm


# A drive letter (``C:``, ``C:/x``): absolute, or relative to another folder,
# wherever the config is read on Windows.
_DRIVE = re.compile(r"[A-Za-z]:")


def confine(rel: str) -> str:
    """``clean`` for a path or glob from the configuration, which may be read
    on any system: also Refused for a drive letter or a backslash (Windows
    reads ``C:/x`` as absolute and ``..\\x`` as leaving the root)."""
    if _DRIVE.match(rel):
        raise Refused("a drive letter; icm only uses paths inside the repository")
    if "\\" in rel:
        raise Refused("a backslash; folders are separated by '/'")
    return clean(rel)


def unnameable(rel: str) -> str:
    """Why no file can have the path ``rel`` ("" when one can): a NUL byte or
    a character the file system's encoding cannot hold (the OS is never
    asked: Python raises ValueError, a crash), a name over NAME_MAX bytes or
    a path over PATH_MAX (ENAMETOOLONG). A byte that is not UTF-8 (``%FF``,
    held as a surrogate escape) is a name Linux keeps: not refused."""
    why = _crashing(rel)
    if why:
        return why
    raw = os.fsencode(rel)
    if any(len(name) > NAME_MAX for name in raw.split(b"/")):
        return f"a file name cannot be longer than {NAME_MAX} bytes"
    if len(raw) > PATH_MAX:
        return f"a path cannot be longer than {PATH_MAX} bytes"
    return ""


def _crashing(rel: str) -> str:
    """The part of ``unnameable`` every resolution checks (cheap: ASCII paths
    are one scan); over-long names are the OS's to refuse, as an OSError."""
    if "\0" in rel:
        return NUL
    if not rel.isascii():
        try:
            os.fsencode(rel)
        except UnicodeEncodeError:
            return "a file name cannot hold an unpaired surrogate"
    return ""


def _nameable(rel: str) -> None:
    why = _crashing(rel)
    if why:
        raise Refused(why)


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def resolve(root: Union[str, Path], rel: str,
            git_dir: Optional[Path] = None) -> str:
    """The real path ``rel`` names below ``root``, with every hop inside it.

    Components that do not exist yet are kept as written (a path about to be
    created). Raises Refused, or OSError when a folder cannot be searched.
    """
    given = os.path.abspath(root)
    return _resolve(given, os.path.realpath(given), rel, git_dir)


_PLAIN = "\0"  # no path holds a NUL


class Resolver:
    """``resolve`` for many paths of one run: the root's real path is found
    once, and each folder's answer is kept, so a file costs one ``lstat``
    (a whole-path walk per file made a warm ``check-links`` twice as slow)."""

    def __init__(self, root: Union[str, Path], git_dir: Optional[Path]) -> None:
        self.given = os.path.abspath(root)
        self.top = os.path.realpath(self.given)
        self.git_dir = git_dir
        self.real_git = os.path.realpath(git_dir) if git_dir is not None else ""
        self.prefix = os.path.join(self.top, "")
        # folder -> its real path, or _PLAIN for the root's joined with it
        # (most: their own strings were 2.5 MiB of 25,000 folders)
        self.folders: Dict[str, str] = {}
        self.missing: Set[str] = set()  # folders (in ``folders``) that do not exist

    def resolve(self, rel: str) -> str:
        if "\0" in rel or not rel.isascii():  # the hot path: one scan each
            _nameable(rel)
        norm = clean(rel)
        folder, name = posixpath.split(norm)
        if not name or is_git_name(name):
            return _resolve(self.given, self.top, norm, self.git_dir)
        real, missing = self._folder(folder)
        if not real:  # refused, missing or not a folder: the long way, which
            # also words the reason for the whole path
            return _resolve(self.given, self.top, norm, self.git_dir)
        path = os.path.join(real, name)
        if missing:
            return path  # below a missing folder nothing can be a link
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return path  # missing (a broken link's target): kept as written
        except OSError:
            return _resolve(self.given, self.top, norm, self.git_dir)
        if not stat.S_ISLNK(mode) and not (
                self.real_git and _inside(path, self.real_git)):
            return path
        return _resolve(self.given, self.top, norm, self.git_dir)


    def _folder(self, folder: str) -> Tuple[str, bool]:
        """The real path of an existing or missing folder, and whether it is
        missing (each new folder built on its parent's: one ``lstat``); ""
        when there is no shortcut. A loop from the root, not a call a
        folder (1,500 folders were a ``RecursionError``); below a missing
        folder nothing is asked or kept: it is missing too (every folder
        of 1,000 deep links, kept, was 900 MB)."""
        if not folder:
            return self.top, False
        hit = self.folders.get(folder)
        if hit is not None:
            return (self.prefix + folder if hit is _PLAIN else hit), \
                folder in self.missing
        base, at = self.top, 0
        while True:
            end = folder.find("/", at)
            known = folder if end < 0 else folder[:end]
            hit = self.folders.get(known)
            base = self._step(known, base) if hit is None else \
                self.prefix + known if hit is _PLAIN else hit
            if not base:
                return "", False
            if known in self.missing:
                rest = "" if end < 0 else folder[end + 1:]
                if ".git" in rest.casefold() and any(  # ``clean`` asked
                        is_git_name(part) for part in rest.split("/")):
                    return "", False
                return (os.path.join(base, rest) if rest else base), True
            if end < 0:
                return base, False
            at = end + 1

    def _step(self, folder: str, base: str) -> str:
        """``folder``'s real path from its parent's (``base``), kept."""
        name = posixpath.basename(folder)
        real = ""
        if not is_git_name(name):
            path = os.path.join(base, name)
            try:
                mode = os.lstat(path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                mode = -1
            except OSError:
                mode = 0
            if mode == -1:
                # missing, as ``_resolve`` keeps it: written, never followed
                real = path
                self.missing.add(folder)
            elif stat.S_ISDIR(mode) and not (self.real_git
                                              and _inside(path, self.real_git)):
                real = path
            elif stat.S_ISLNK(mode):  # follow it the careful way
                try:
                    real = _resolve(self.given, self.top, folder, self.git_dir)
                except (Refused, OSError):
                    real = ""
                real = real if real and os.path.isdir(real) else ""
        if real:
            self.folders[folder] = _PLAIN if real == self.prefix + folder else real
        return real


def _resolve(given: str, top: str, rel: str, git_dir: Optional[Path]) -> str:
    _nameable(rel)
    original = [p for p in clean(rel).split("/") if p]
    todo: List[str] = []  # components from symlink targets, next one last
    current, taken, hops, missing = top, 0, 0, False
    while todo or taken < len(original):
        if todo:
            name = todo.pop()
        else:
            name, taken = original[taken], taken + 1
        if name in ("", "."):
            continue
        if name == "..":
            if current == top:
                raise Refused(_via(original, taken))
            current = os.path.dirname(current)
            continue
        if is_git_name(name):
            raise Refused("inside the git directory")
        current = os.path.join(current, name)
        if missing:
            continue
        try:
            st = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            missing = True  # created later: nothing below it can be a link
            continue
        if not stat.S_ISLNK(st.st_mode):
            continue
        hops += 1
        if hops > MAX_HOPS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), current)
        target = os.readlink(current)
        current = os.path.dirname(current)
        if os.path.isabs(target):
            target = os.path.normpath(target)
            base = top if _inside(target, top) else given
            if not _inside(target, base):
                raise Refused(_via(original, taken))
            current = top
            target = os.path.relpath(target, base)
        todo.extend(reversed([p for p in target.split("/") if p]))
    if git_dir is not None and _inside(current, os.path.realpath(git_dir)):
        raise Refused("inside the git directory")
    return current


def _via(original: List[str], taken: int) -> str:
    """Which component left the root: the file itself, or a folder on the way."""
    if taken >= len(original):
        return OUTSIDE
    return f"{'/'.join(original[:taken])}/ is a symlink pointing outside the " \
        "repository"


def open_regular(path: str, dir_fd: Optional[int] = None) -> int:
    """A read-only descriptor of ``path`` (relative to ``dir_fd`` when
    given) if it is a regular file; Refused for anything else. A device is
    never opened (opening one can act); the open is non-blocking and
    re-checked, so a FIFO swapped in cannot hang."""
    _refuse_kind(os.stat(path, dir_fd=dir_fd).st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_BINARY", 0), dir_fd=dir_fd)
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        _refuse_kind(mode)
    return fd


def _refuse_kind(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise Refused("is a directory" if stat.S_ISDIR(mode)
                      else "not a regular file")


def read_regular(path: str) -> bytes:
    """All of ``path``, a regular file (icm's own files: templates, caches)."""
    with open(open_regular(path), "rb") as fh:
        return fh.read()


def writable(root: Path, rel: str, git_dir: Optional[Path] = None) -> Path:
    """Where a command may write ``rel``: resolved inside the root, or one
    line saying why not (raised before anything is changed)."""
    try:
        return Path(resolve(root, rel, git_dir))
    except Refused as exc:
        raise UsageError(f"refusing to write {rel}: {exc.reason}; nothing was "
                         "changed") from None
    except OSError as exc:
        raise UsageError(f"cannot write {rel}: {exc.strerror}; nothing was "
                         "changed") from None
