"""File writing that never overwrites and never leaves half a file, or half
a command: ``all_or_nothing`` makes a command's changes all or none.

Every function here takes the context and a root-relative path and resolves
it through ``icm.paths`` itself, so a command cannot write through a symlink
that leaves the root, or into ``.git``, by forgetting to check.
"""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
import re
import stat
import tempfile
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from icm import paths
from icm.context import Context, Unreadable
from icm.errors import Held, UsageError, held_signals


def _temp_with(folder: Path, data: bytes, mode: int = 0o644) -> str:
    fd, tmp = tempfile.mkstemp(dir=str(folder), prefix=".icm-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _rmdir_quietly(path: Path) -> None:
    try:
        os.rmdir(path)
    except OSError:  # another writer's file is in it now: it stays
        pass


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def target(ctx: Context, rel: str) -> Path:
    """The real path a command may write ``rel`` at (``paths.writable``)."""
    return paths.writable(ctx.root, rel, ctx.git_dir)


def entry(ctx: Context, rel: str) -> Path:
    """The real path of the name ``rel`` itself: its folder resolved, its
    last component not followed (a new file, or one to remove)."""
    folder, name = posixpath.split(rel)
    if not name or name in (".", "..") or paths.is_git_name(name):
        raise UsageError(f"refusing to write {rel}: not a file name inside the "
                         "repository; nothing was changed")
    return target(ctx, folder) / name


def create_new(ctx: Context, rel: str, data: bytes) -> None:
    """Create ``rel`` with ``data`` complete, or not at all; never replace an
    existing file (``Changes.create``)."""
    with all_or_nothing(ctx) as changes:
        changes.create(rel, data)


def replace_atomic(ctx: Context, rel: str, data: bytes) -> None:
    """Replace the file ``rel`` with ``data`` in one rename, keeping its
    permissions (``Changes.replace``)."""
    with all_or_nothing(ctx) as changes:
        changes.replace(rel, data)


def _no_hard_links(exc: OSError) -> bool:
    import errno

    return exc.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV)


def _create_exclusive(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise UsageError(f"{path.name} already exists; not overwriting it") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        _unlink_quietly(str(path))
        raise


def replaceable(ctx: Context, rel: str) -> Path:
    """The real path of an existing file ``rel`` that may be replaced: a
    symlink inside the root is followed (its target is written, the link
    kept); anything but a regular file, or a read-only one, is refused."""
    path = target(ctx, rel)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise UsageError(f"cannot write {rel}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"refusing to write {rel}: not a regular file; nothing "
                         "was changed")
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise UsageError(f"refusing to write {rel}: the file is read-only; "
                         "nothing was changed")
    return path


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` (POSIX); elsewhere the
    no-overwrite create is the only guard."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def queue_locked(ctx: Context, make: bool = False) -> Iterator[Path]:
    """Hold the queue folder's lock, which every writer takes around its
    read-modify-write (``claim`` and ``renumber`` both rewrite an item; the
    handbook and the positions file link items). Without a queue folder
    there is no item to race over and nothing is held, unless ``make``
    creates it first."""
    folder = ensure_folder(ctx, ctx.config.queue_dir) if make \
        else target(ctx, ctx.config.queue_dir)
    if not make and not os.path.isdir(folder):
        yield folder
        return
    with locked(folder):
        yield folder


@contextlib.contextmanager
def journal_locked(ctx: Context) -> Iterator[Path]:
    """Hold the journal folder's lock, which ``new-journal`` takes to pick a
    number (``NNNN-title.md``) or mark an entry superseded; the folder is
    made if missing, and removed again if still empty when the lock goes
    (nothing was written)."""
    rel = ctx.config.journal_dir
    made = not os.path.isdir(target(ctx, rel))
    folder = ensure_folder(ctx, rel)
    try:
        with locked(folder):
            yield folder
    finally:
        if made:
            _rmdir_quietly(folder)


class _Stopped(KeyboardInterrupt):
    """A held signal stops the changes before the next step (undone)."""


class _Step:
    """One file change: what it writes, and what it holds until the end."""

    def __init__(self, kind: str, rel: str, path: Path, data: bytes = b"",
                 mode: int = 0o644) -> None:
        self.kind, self.rel, self.path, self.data, self.mode = \
            kind, rel, path, data, mode
        self.tmp: Optional[str] = None  # the new bytes, written and synced
        self.aside: Optional[str] = None  # the old file, under a hidden name
        self.old: Optional[bytes] = None  # its bytes, where nothing links
        self.kept = False  # it could not be put back: the aside stays


class Changes:
    """The file changes of one command, each path resolved (or refused) as
    it is named, all made in ``commit``: first the folders, and every new
    text written to a temporary file beside its target and synced (the
    slow part, which changes no file), then each put in place by a rename,
    a replaced or removed file kept under a hidden name until all are in
    (the fast part). A failure or a held signal puts back whatever was put
    in, by renames. Made only by ``all_or_nothing``."""

    def __init__(self, ctx: Context, held: Held) -> None:
        self.ctx = ctx
        self._held = held
        self._folders: List[Tuple[str, Path]] = []
        self._steps: List[_Step] = []
        self._undo: List[Tuple[str, Callable[[], None]]] = []
        self._open = True

    def _check(self) -> None:
        if self._held:
            raise _Stopped
        if not self._open:  # pragma: no cover - a programming error
            raise RuntimeError("a change after commit")

    def folder(self, rel: str) -> None:
        """Make the folder ``rel`` if missing (``ensure_folder``), before
        any file; the folders made go again on undo."""
        self._check()
        self._folders.append((rel, target(self.ctx, rel)))

    def _make(self, rel: str, path: Path) -> None:
        made = []
        for folder in [path, *path.parents]:
            if os.path.lexists(folder):
                break
            made.append(folder)
        ensure_folder(self.ctx, rel)
        for folder in reversed(made):  # undone the deepest first
            self._undo.append((rel, functools.partial(_rmdir_quietly, folder)))

    def create(self, rel: str, data: bytes) -> None:
        """Create ``rel`` (hard-linked into place: a name taken, a symlink
        included, is refused and never written through)."""
        self._check()
        self._steps.append(_Step("create", rel, entry(self.ctx, rel), data))

    def replace(self, rel: str, data: bytes) -> None:
        """Replace ``rel``, keeping its permissions (a symlink to it is kept:
        its target is what changes)."""
        self._check()
        path = replaceable(self.ctx, rel)
        self._steps.append(_Step("replace", rel, path, data,
                                 path.stat().st_mode & 0o7777))

    def remove(self, rel: str) -> None:
        """Remove the file (or symlink) ``rel``."""
        self._check()
        path = entry(self.ctx, rel)
        if not os.path.lexists(path):
            raise UsageError(f"cannot remove {rel}: it is gone; nothing was "
                             "changed")
        self._steps.append(_Step("remove", rel, path))

    def commit(self) -> None:
        """Make the changes. From here they stay: a signal arriving later is
        acted on when the block ends (git's index, which follows the files,
        is then complete too)."""
        self._check()
        for rel, path in self._folders:
            self._make(rel, path)
        for step in self._steps:
            self._check()
            self._prepare(step)
        for step in self._steps:
            self._check()
            self._apply(step)
        self._check()
        self._open = False
        self._undo.clear()
        self._finish()

    def _prepare(self, step: _Step) -> None:
        if step.kind == "remove":
            return
        folder = step.path.parent
        try:
            step.tmp = _temp_with(folder, step.data, step.mode)
        except PermissionError as exc:
            why = "permission denied" if step.kind == "create" else exc.strerror
            raise UsageError(f"cannot write in {folder}: {why}") from None
        except OSError as exc:
            raise UsageError(f"cannot write in {folder}: {exc.strerror}") from None

    def _apply(self, step: _Step) -> None:
        path, tmp = step.path, step.tmp
        if step.kind == "create":
            assert tmp is not None
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise UsageError(f"{path.name} already exists; not overwriting "
                                 "it") from None
            except OSError as exc:
                if not _no_hard_links(exc):
                    raise UsageError(f"cannot create {path}: {exc.strerror}") \
                        from None
                _create_exclusive(path, step.data, step.mode)
            self._undo.append((step.rel, functools.partial(os.unlink, path)))
        elif step.kind == "replace":
            assert tmp is not None
            self._set_aside(step, link=True)
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise UsageError(f"cannot write {step.rel}: {exc.strerror}") \
                    from None
            step.tmp = None
            self._undo.append((step.rel, functools.partial(self._put_back, step)))
        else:
            self._set_aside(step, link=False)
            self._undo.append((step.rel, functools.partial(self._put_back, step)))

    def _set_aside(self, step: _Step, link: bool) -> None:
        """Keep the file at ``step.path`` under a hidden name beside it: a
        second hard link for a replace (the name never goes missing), the
        file itself renamed for a remove. Without hard links a replace keeps
        the old bytes instead."""
        folder = step.path.parent
        try:
            fd, aside = tempfile.mkstemp(dir=str(folder), prefix=".icm-")
            os.close(fd)
        except OSError as exc:
            raise UsageError(f"cannot write in {folder}: {exc.strerror}") from None
        step.aside = aside
        try:
            if link:
                os.unlink(aside)
                os.link(step.path, aside)
            else:
                os.replace(step.path, aside)  # over our own empty placeholder
        except OSError as exc:
            step.aside = None
            _unlink_quietly(aside)
            if link and _no_hard_links(exc):
                step.old = self._bytes(step.rel)
                return
            verb = "write" if link else "remove"
            raise UsageError(f"cannot {verb} {step.rel}: {exc.strerror}; "
                             "nothing was changed") from None

    def _put_back(self, step: _Step) -> None:
        try:
            if step.aside is not None:
                os.replace(step.aside, step.path)
                step.aside = None
            elif step.old is not None:  # no hard links: the slow way
                os.replace(_temp_with(step.path.parent, step.old, step.mode),
                           step.path)
        except OSError as exc:
            step.kept = step.aside is not None  # the old text: never dropped
            where = ""
            if step.aside is not None:
                kept = os.path.relpath(step.aside, os.path.realpath(self.ctx.root))
                where = f"; its old text is in {kept}"
            raise UsageError(f"{exc.strerror}{where}") from None

    def _bytes(self, rel: str) -> bytes:
        ctx = self.ctx
        try:
            return ctx.read_bytes(rel)
        except Unreadable as exc:
            raise UsageError(f"{rel}: cannot read: {exc.reason}; nothing was "
                             "changed") from None

    def _finish(self, temporary: bool = True, aside: bool = True) -> None:
        """Drop what the steps held: temporary files, files set aside (but
        one that could not be put back)."""
        for step in self._steps:
            if temporary and step.tmp is not None:
                _unlink_quietly(step.tmp)
                step.tmp = None
            if aside and step.aside is not None and not step.kept:
                _unlink_quietly(step.aside)
                step.aside = None

    def undo(self, why: BaseException) -> None:
        """Put back every change, the last first (``why``: what stopped
        them); UsageError naming what could not be."""
        self._finish(aside=False)  # first: a folder to remove must be empty
        failed = []
        while self._undo:
            rel, step = self._undo.pop()
            try:
                step()
            except (OSError, UsageError) as exc:
                failed.append(f"{rel} ({exc.strerror or exc})"
                              if isinstance(exc, OSError) else f"{rel} ({exc})")
        self._finish()
        if failed:
            self._held.signals.clear()  # the message must not be lost to one
            cause = str(why) if isinstance(why, UsageError) else "interrupted" \
                if isinstance(why, KeyboardInterrupt) else type(why).__name__
            raise UsageError(f"{cause}; then putting back failed, check by hand: "
                             f"{', '.join(failed)}")


@contextlib.contextmanager
def all_or_nothing(ctx: Context) -> Iterator[Changes]:
    """Make the block's changes all or none. SIGINT, SIGTERM and SIGHUP are
    held throughout (``held_signals``); one that arrives, or any failure,
    before ``commit`` (or the block's end) undoes every change made, then
    the signal is acted on (130, or the process ends by it). Nothing is ever
    cut between two changes, so no signal splits a command's files."""
    with held_signals() as held:
        changes = Changes(ctx, held)
        try:
            yield changes
            if changes._open:
                changes.commit()
        except BaseException as exc:
            changes.undo(exc)
            raise


def ensure_folder(ctx: Context, rel: str) -> Path:
    """The real path of folder ``rel``, created if missing; UsageError naming
    it otherwise."""
    folder = target(ctx, rel)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {rel}/: {exc.strerror}") from None
    return folder


def fill(text: str, values: Dict[str, str]) -> str:
    """Replace ``{name}`` placeholders in one pass, so a value that itself
    holds ``{carried}`` (a person's title) is never expanded. A value that
    is not UTF-8 (undecodable bytes from the command line) is refused."""
    for key, value in values.items():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"the {key} is not valid UTF-8 text (check the "
                             "terminal's encoding); nothing was changed") from None
    return re.sub(r"\{(\w+)\}",
                  lambda m: values.get(m.group(1), m.group(0)), text)


def template_dir() -> Path:
    """Where the shipped templates (and Makefile.inc) are installed."""
    import icm.templates  # type: ignore[import-not-found,unused-ignore]

    return Path(icm.templates.__file__).resolve().parent


def template(name: str) -> str:
    """A shipped template's text (a regular file, read through ``paths``)."""
    folder = template_dir()
    try:
        real = paths.resolve(folder, name)
        return paths.read_regular(real).decode("utf-8")
    except (paths.Refused, OSError, UnicodeDecodeError) as exc:
        why = exc.reason if isinstance(exc, paths.Refused) else str(exc)
        raise UsageError(f"icm's template {name} cannot be read ({why}); "
                         "reinstall icm") from None
