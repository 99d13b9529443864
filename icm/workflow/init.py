"""``icm init``: scaffold an ICM repository without touching what exists."""

from __future__ import annotations

import os
import re
from typing import List, Tuple

from icm.checks.links import near_handbooks
from icm.context import Context
from icm.workflow.files import create_new, replace_atomic, template

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


def init(ctx: Context) -> List[str]:
    """Create what is missing; return one line per file created or left."""
    cfg, root = ctx.config, ctx.root
    said: List[str] = []

    def create(rel: str, text: str) -> None:
        path = root / rel
        if path.exists() or path.is_symlink():
            said.append(f"left alone {rel} (exists)")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        create_new(path, text.encode("utf-8"))
        said.append(f"created {rel}")

    handbook_key = ""
    near = near_handbooks(ctx) if not (root / cfg.handbook).exists() else []
    if not near:
        create(cfg.handbook, template("AGENTS.md"))
    elif cfg.source:
        # A config exists and names another handbook: editing it was rejected
        # (it is the user's file); a second handbook would split the method.
        said.append(f"left alone {near[0]}; not creating {cfg.handbook} beside it: "
                    f'set handbook = "{near[0]}" in {cfg.source}')
    else:
        handbook_key = f'handbook = "{near[0]}"\n'
        said.append(f"using {near[0]} as the handbook (not creating {cfg.handbook})")
    create(f"{cfg.journal_dir}/.gitkeep", "")
    create(f"{cfg.queue_dir}/.gitkeep", "")
    name = next((n for n in MAKEFILE_NAMES if n in os.listdir(root)), "Makefile")
    makefile = root / name
    if makefile.is_file() and not makefile.is_symlink():
        raw = makefile.read_bytes()
        if b"icm makefile" in raw:
            said.append(f"left alone {name} (already includes icm's targets)")
        else:
            text, line = _add_include(raw.decode("utf-8", "surrogateescape"), name)
            replace_atomic(makefile, text.encode("utf-8", "surrogateescape"))
            said.append(line)
    elif makefile.exists() or makefile.is_symlink():
        said.append(f"left alone {name}; add this line to it: {INCLUDE_LINE}")
    else:
        create("Makefile", f"# make check runs icm's checks.\n{INCLUDE_LINE}\n")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        raw = pyproject.read_bytes()
        if b"[tool.icm]" in raw:
            said.append("left alone pyproject.toml (has [tool.icm])")
        else:
            sep = b"" if raw.endswith(b"\n") or not raw else b"\n"
            section = PYPROJECT_SECTION + handbook_key
            replace_atomic(pyproject, raw + sep + section.encode())
            said.append("added [tool.icm] to pyproject.toml")
    elif handbook_key:
        create("icm.toml", handbook_key)
    return said
