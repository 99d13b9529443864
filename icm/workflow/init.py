"""``icm init``: scaffold an ICM repository without touching what exists.

Everything is checked before anything is created: every path is resolved
inside the root (``icm.paths``), every folder on the way is a folder, every
file that exists is a regular file, and the extended ``pyproject.toml`` still
parses. One refusal stops the command with nothing changed; the changes
are then made all or none (``files.all_or_nothing``: a signal halfway left
half a scaffold).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import sys
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from icm import config as config_mod
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.lines import ending as line_ending
from icm.model.links import near_handbooks
from icm.workflow.files import (
    Changes,
    all_or_nothing,
    entry,
    replaceable,
    target,
    template,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

# Without icm on PATH a bare "include $(shell icm makefile)" ends in "No rule
# to make target 'check'"; the guard says what is missing instead.
INCLUDE_LINE = ("include $(or $(shell icm makefile 2>/dev/null),$(error icm is not "
                "installed or not on PATH: pip install /path/to/icm))")
PREFIX = "icm-"


PYPROJECT_SECTION = """
[tool.icm]
# Every key is optional; these are the defaults. See icm's README.
budget = 1600
exclude = []
"""

# Written where no config would otherwise mark the folder as the root.
ICM_TOML = """# icm's settings. This file makes this folder icm's root: runs from here
# check it, not the repository around it. Every key is optional (see icm's
# README).
"""


_RULE = re.compile(r"([^:=#]*?)::?(?![:=])")


def make_targets() -> List[str]:
    """The target names Makefile.inc defines (read from it, so a target added
    there is known here)."""
    found = re.findall(r"^\$\(ICM_PREFIX\)([\w-]+):", template("Makefile.inc"),
                       re.MULTILINE)
    return list(dict.fromkeys(found))


def clashing_targets(makefile: str) -> List[str]:
    """icm's target names that a Makefile already defines as rules."""
    ours = set(make_targets())
    found = set()
    for line in makefile.splitlines():
        # A rule line: names, then ":" or "::" that is not an assignment
        # (":=", "::=") and no "=" or comment before it. Recipes start with a tab.
        m = _RULE.match(line)
        if m and not line.startswith("\t"):
            found.update(ours.intersection(m.group(1).split()))
    return sorted(found)


def _add_include(makefile: str, name: str) -> Tuple[str, str]:
    """The makefile's text with icm's include added, and the line to print."""
    clash = clashing_targets(makefile)
    sep = "" if makefile.endswith("\n") or not makefile else "\n"
    if not clash:
        return (makefile + sep + f"\n{INCLUDE_LINE}\n",
                f"added icm's include line to {name}")
    text = (makefile + sep + f"\n# icm's targets are prefixed: the {name} has its "
            f"own {clash[0]}.\nICM_PREFIX := {PREFIX}\n{INCLUDE_LINE}\n")
    return text, (f"added icm's include line to {name} with ICM_PREFIX := {PREFIX}"
                  f" (it has its own {', '.join(clash)}): make {PREFIX}check")


# The names GNU make reads, in its order: the first that exists is the one
# make uses, so that is the one to extend.
MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")


# The line to print, the change.
Step = Tuple[str, Optional[Callable[[Changes], None]]]


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

    def make(changes: Changes) -> None:
        folder = posixpath.dirname(rel)
        if folder:
            changes.folder(folder)
        changes.create(rel, text.encode("utf-8"))

    return f"created {rel}", make


def _makefile(ctx: Context) -> Step:
    # The first name make reads is the one to extend.
    name = next((n for n in MAKEFILE_NAMES if _existing(ctx, n) is not None),
                "Makefile")
    if _existing(ctx, name) is None:
        return _new_file(ctx, name,
                         f"# make check runs icm's checks.\n{INCLUDE_LINE}\n")
    raw = _read(ctx, name)
    text = raw.decode("utf-8", "surrogateescape")
    if "icm makefile" in text:
        return f"left alone {name} (already includes icm's targets)", None
    new_text, line = _add_include(text, name)
    replaceable(ctx, name)  # read-only, or a link out of the root: refuse now

    def extend(changes: Changes) -> None:
        changes.replace(name, new_text.encode("utf-8", "surrogateescape"))
    return line, extend


def _pyproject(ctx: Context, handbook_key: str, away: Optional[Path]
               ) -> Optional[Step]:
    """The config step: ``[tool.icm]`` added to a pyproject.toml, or a new
    ``icm.toml`` when a handbook must be named or the folder would not be
    found as the root (``away``: the root found instead)."""
    rel = "pyproject.toml"
    why = (f" (it makes this folder icm's root; without it icm run here "
           f"checks {away})") if away is not None else ""
    if _existing(ctx, rel) is None:
        if away is not None:
            line, make = _new_file(ctx, "icm.toml", ICM_TOML + handbook_key)
            return line + why, make
        if handbook_key:
            return _new_file(ctx, "icm.toml", handbook_key)
        return None
    raw = _read(ctx, rel)
    try:
        text = raw.decode("utf-8-sig")
        doc = tomllib.loads(text)
    except UnicodeDecodeError:
        raise UsageError(f"{rel}: not valid UTF-8; nothing was changed") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{config_mod.toml_error(rel, text, exc)}; nothing was "
                         "changed") from None
    if config_mod.tool_icm(doc) is not None:
        return "left alone pyproject.toml (has [tool.icm])", None
    newline = line_ending(text)
    sep = "" if not text or text.endswith(("\n", "\r")) else newline
    added = (sep + (PYPROJECT_SECTION + handbook_key).replace("\n", newline)
             ).encode("utf-8")
    try:
        config_mod.tool_icm(tomllib.loads((raw + added).decode("utf-8-sig")))
    except tomllib.TOMLDecodeError:
        # `tool = {...}` inline: a [tool.icm] header after it is invalid TOML.
        raise UsageError(f"cannot add [tool.icm] to {rel} without breaking it; "
                         "add the table by hand; nothing was changed") from None
    replaceable(ctx, rel)  # read-only, or a link out of the root: refuse now

    def extend(changes: Changes) -> None:
        changes.replace(rel, raw + added)

    return "added [tool.icm] to pyproject.toml" + why, extend


def _found_instead(ctx: Context, makes_marker: bool) -> Optional[Path]:
    """The root that discovery would find from this folder once init has run,
    when it is not this folder: a subfolder of a git repository without a
    config of its own is checked from the top."""
    from icm.context import find_root

    found = find_root(ctx.root)
    if found == ctx.root:
        return None
    if not ctx.in_git and makes_marker and config_mod.find_config(found) is None:
        return None  # outside git, the AGENTS.md init makes here is found first
    return found


def init(ctx: Context) -> List[str]:
    """Create what is missing; return one line per file created or left.
    Every step is planned (and refused) before the first change."""
    cfg = ctx.config
    steps: List[Step] = []
    handbook_key = ""
    near = near_handbooks(ctx) if _existing(ctx, cfg.handbook) is None else []
    makes_marker = False
    if not near:
        steps.append(_new_file(ctx, cfg.handbook, template("AGENTS.md")))
        makes_marker = cfg.handbook == "AGENTS.md"
    elif cfg.source:
        # A config exists and names another handbook: editing it was rejected
        # (it is the user's file); a second handbook would split the method.
        steps.append((f"left alone {near[0]}; not creating {cfg.handbook} beside "
                      f'it: set handbook = "{near[0]}" in {cfg.source}', None))
    else:
        handbook_key = f'handbook = "{near[0]}"\n'
        steps.append((f"using {near[0]} as the handbook (not creating "
                      f"{cfg.handbook})", None))
    steps += [
        _new_file(ctx, f"{cfg.journal_dir}/.gitkeep", ""),
        _new_file(ctx, f"{cfg.queue_dir}/.gitkeep", ""),
        _makefile(ctx),
    ]
    last = _pyproject(ctx, handbook_key, _found_instead(ctx, makes_marker))
    if last is not None:
        steps.append(last)
    with all_or_nothing(ctx) as changes:
        for _line, change in steps:
            if change is not None:
                change(changes)
    return [line for line, _ in steps]
