"""``icm init``: scaffold an ICM repository without touching what exists."""

from __future__ import annotations

from typing import List

from icm.context import Context
from icm.workflow.files import create_new, replace_atomic, template

INCLUDE_LINE = "include $(shell icm makefile)"

PYPROJECT_SECTION = """
[tool.icm]
# Every key is optional; these are the defaults. See icm's README.
budget = 1600
exclude = []
"""


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

    create(cfg.handbook, template("AGENTS.md"))
    create(f"{cfg.journal_dir}/.gitkeep", "")
    create(f"{cfg.queue_dir}/.gitkeep", "")
    makefile = root / "Makefile"
    if makefile.exists():
        text = makefile.read_text(encoding="utf-8", errors="replace")
        if INCLUDE_LINE in text:
            said.append("left alone Makefile (already includes icm's targets)")
        else:
            said.append(f"left alone Makefile; add this line to it: {INCLUDE_LINE}")
    else:
        create("Makefile", f"# make check runs icm's checks.\n{INCLUDE_LINE}\n")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        raw = pyproject.read_bytes()
        if b"[tool.icm]" in raw:
            said.append("left alone pyproject.toml (has [tool.icm])")
        else:
            sep = b"" if raw.endswith(b"\n") or not raw else b"\n"
            replace_atomic(pyproject, raw + sep + PYPROJECT_SECTION.encode())
            said.append("added [tool.icm] to pyproject.toml")
    return said
