"""File writing that never overwrites and never leaves half a file.

Every function here takes the context and a root-relative path and resolves
it through ``icm.paths`` itself, so a command cannot write through a symlink
that leaves the root, or into ``.git``, by forgetting to check.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import tempfile
from pathlib import Path
from typing import Dict

from icm import paths
from icm.context import Context
from icm.errors import UsageError


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
    existing file. The content is written to a temporary file first and then
    hard-linked into place, which fails if the name is taken (a symlink
    included: it is never written through)."""
    path = entry(ctx, rel)
    try:
        tmp = _temp_with(path.parent, data)
    except PermissionError:
        raise UsageError(f"cannot write in {path.parent}: permission denied") from None
    except OSError as exc:
        raise UsageError(f"cannot write in {path.parent}: {exc.strerror}") from None
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise UsageError(f"{path.name} already exists; not overwriting it") from None
    except OSError as exc:
        if not _no_hard_links(exc):
            raise UsageError(f"cannot create {path}: {exc.strerror}") from None
        _create_exclusive(path, data)  # a file system without hard links
    finally:
        _unlink_quietly(tmp)


def _no_hard_links(exc: OSError) -> bool:
    import errno

    return exc.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV)


def _create_exclusive(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
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


def replace_atomic(ctx: Context, rel: str, data: bytes) -> None:
    """Replace the file ``rel`` with ``data`` in one rename, keeping its
    permissions (and a symlink to it: the target is what changes)."""
    path = replaceable(ctx, rel)
    mode = path.stat().st_mode & 0o7777
    try:
        tmp = _temp_with(path.parent, data, mode)
    except OSError as exc:
        raise UsageError(f"cannot write in {path.parent}: {exc.strerror}") from None
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
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
