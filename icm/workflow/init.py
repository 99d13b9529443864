"""``icm init``: scaffold an ICM repository without touching what exists.

Everything is checked before anything is created: every path is resolved
inside the root (``icm.paths``), every folder on the way is a folder, every
file that exists is a regular file, and the extended ``pyproject.toml`` still
parses. One refusal stops the command with nothing changed.
"""

from __future__ import annotations

import os
import posixpath
import stat
import sys
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from icm import config as config_mod
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.workflow.files import (
    create_new,
    ensure_folder,
    entry,
    line_ending,
    replace_atomic,
    replaceable,
    target,
    template,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

INCLUDE_LINE = "include $(shell icm makefile)"

PYPROJECT_SECTION = """
[tool.icm]
# Every key is optional; these are the defaults. See icm's README.
budget = 1600
exclude = []
"""

Step = Tuple[str, Optional[Callable[[], None]]]  # the line to print, the change


def _refuse(rel: str, why: str) -> UsageError:
    return UsageError(f"refusing to write {rel}: {why}; nothing was changed")


def _existing(ctx: Context, rel: str) -> Optional[Path]:
    """The real path of ``rel`` when something is there (a symlink inside the
    root followed), None when nothing is; refuse a folder on the way that is
    not a folder, and anything there that is not a regular file."""
    path = entry(ctx, rel)
    top = Path(os.path.realpath(ctx.root))
    for folder in path.parents:
        if folder == top or top not in folder.parents:
            break
        if os.path.lexists(folder) and not folder.is_dir():
            shown = posixpath.relpath(folder.as_posix(), top.as_posix())
            raise _refuse(rel, f"{shown} is not a folder")
    if not os.path.lexists(path):
        return None
    real = target(ctx, rel)
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        raise _refuse(rel, exc.strerror or "cannot be examined") from None
    if not stat.S_ISREG(mode):
        raise _refuse(rel, "it exists and is not a regular file")
    return real


def _read(ctx: Context, rel: str) -> bytes:
    try:
        return ctx.read_bytes(rel)
    except Unreadable as exc:
        raise UsageError(f"{rel}: cannot read: {exc.reason}; nothing was "
                         "changed") from None


def _new_file(ctx: Context, rel: str, text: str) -> Step:
    if _existing(ctx, rel) is not None:
        return f"left alone {rel} (exists)", None

    def make() -> None:
        folder = posixpath.dirname(rel)
        if folder:
            ensure_folder(ctx, folder)
        create_new(ctx, rel, text.encode("utf-8"))

    return f"created {rel}", make


def _makefile(ctx: Context) -> Step:
    if _existing(ctx, "Makefile") is None:
        return _new_file(ctx, "Makefile",
                         f"# make check runs icm's checks.\n{INCLUDE_LINE}\n")
    text = _read(ctx, "Makefile").decode("utf-8", "replace")
    if INCLUDE_LINE in text:
        return "left alone Makefile (already includes icm's targets)", None
    return f"left alone Makefile; add this line to it: {INCLUDE_LINE}", None


def _pyproject(ctx: Context) -> Optional[Step]:
    rel = "pyproject.toml"
    if _existing(ctx, rel) is None:
        return None
    raw = _read(ctx, rel)
    try:
        text = raw.decode("utf-8-sig")
        doc = tomllib.loads(text)
    except UnicodeDecodeError:
        raise UsageError(f"{rel}: not valid UTF-8; nothing was changed") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{rel}: invalid TOML: {exc}; nothing was changed") from None
    if config_mod.tool_icm(doc) is not None:
        return "left alone pyproject.toml (has [tool.icm])", None
    newline = line_ending(text)
    sep = "" if not text or text.endswith(("\n", "\r")) else newline
    added = (sep + PYPROJECT_SECTION.replace("\n", newline)).encode("utf-8")
    try:
        config_mod.tool_icm(tomllib.loads((raw + added).decode("utf-8-sig")))
    except tomllib.TOMLDecodeError:
        # `tool = {...}` inline: a [tool.icm] header after it is invalid TOML.
        raise UsageError(f"cannot add [tool.icm] to {rel} without breaking it; "
                         "add the table by hand; nothing was changed") from None
    replaceable(ctx, rel)  # read-only, or a link out of the root: refuse now

    def extend() -> None:
        replace_atomic(ctx, rel, raw + added)

    return "added [tool.icm] to pyproject.toml", extend


def init(ctx: Context) -> List[str]:
    """Create what is missing; return one line per file created or left."""
    cfg = ctx.config
    steps: List[Step] = [
        _new_file(ctx, cfg.handbook, template("AGENTS.md")),
        _new_file(ctx, f"{cfg.journal_dir}/.gitkeep", ""),
        _new_file(ctx, f"{cfg.queue_dir}/.gitkeep", ""),
        _makefile(ctx),
    ]
    last = _pyproject(ctx)
    if last is not None:
        steps.append(last)
    for _line, change in steps:
        if change is not None:
            change()
    return [line for line, _ in steps]
