"""``icm init --agents NAME``: scaffold an exported-session folder in the
AGENTS layout (``Agents/NAME/``) from the shipped templates.

Every target is checked before anything is created, and each file is created
without ever replacing one: an existing folder is refused whole.
"""

from __future__ import annotations

import os
import re
from typing import List

from icm.context import Context
from icm.errors import UsageError
from icm.model.agents import OPTIONAL, REQUIRED
from icm.workflow.files import all_or_nothing, entry, fill, template

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}\Z")


def parent(ctx: Context) -> str:
    """Where sessions go: the first ``agents_dirs`` pattern's folder part
    (``Agents/*`` gives ``Agents``)."""
    for pattern in ctx.config.agents_dirs:
        head = pattern.strip("/")
        if head.endswith("/*") and not any(c in head[:-2] for c in "*?["):
            return head[:-2]
    return "Agents"


def scaffold(ctx: Context, name: str) -> List[str]:
    if not _NAME.match(name) or name in (".", ".."):
        raise UsageError(f"--agents {name!r}: use letters, digits, '.', '_' and "
                         "'-' (a folder name, not a path)")
    folder_rel = f"{parent(ctx)}/{name}"
    if os.path.lexists(entry(ctx, folder_rel)):
        raise UsageError(f"{folder_rel}/ already exists; not overwriting it")
    made = []
    with all_or_nothing(ctx) as changes:  # no half an agent folder
        changes.folder(folder_rel)
        for filename in (*REQUIRED, *OPTIONAL):
            text = fill(template(f"agents/{filename}"), {"name": name})
            changes.create(f"{folder_rel}/{filename}", text.encode("utf-8"))
            made.append(f"created {folder_rel}/{filename}")
    return made
