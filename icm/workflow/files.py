"""File writing that never overwrites and never leaves half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

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


def create_new(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data`` complete, or not at all; never replace an
    existing file. The content is written to a temporary file first and then
    hard-linked into place, which fails if the name is taken."""
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


def replace_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one rename, keeping its permissions."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    tmp = _temp_with(path.parent, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def ensure_folder(root: Path, rel: str) -> Path:
    """``root/rel``, created if missing; UsageError naming it otherwise."""
    folder = root / rel
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {rel}/: {exc.strerror}") from None
    return folder


def template_dir() -> Path:
    """Where the shipped templates (and Makefile.inc) are installed."""
    import icm.templates  # type: ignore[import-not-found,unused-ignore]

    return Path(icm.templates.__file__).resolve().parent


def template(name: str) -> str:
    return (template_dir() / name).read_text(encoding="utf-8")
