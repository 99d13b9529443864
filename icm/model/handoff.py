"""Handoff records: where they are, the fields a record holds, and the
marker naming the commit it was made at."""

from __future__ import annotations

import re
from typing import List

from icm.context import Context
from icm.paths import is_readme

FIELDS = ("Reason", "Open question", "Identity and state", "Confirmed facts",
          "Actions taken", "Negative results", "Open work", "Verbatim tail",
          "Where the rest lives", "Size")


MARKER = re.compile(r"<!-- icm:handoff 1 made-at ([0-9a-f]{40,64}) -->")


RECORD_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})_(.+)\.md\Z")


def records(ctx: Context) -> List[str]:
    """Record files directly in ``handoff_dir`` (README.md aside)."""
    prefix = ctx.config.handoff_dir.rstrip("/") + "/"
    return [f for f in ctx.under(prefix) if f.startswith(prefix)
            and "/" not in f[len(prefix):] and f.endswith(".md")
            and not is_readme(f[len(prefix):])]


RULED_OUT = "ruled out"  # a queue item's section heading, any case


def ruled_out(text: str) -> str:
    """A queue item's ``## Ruled out`` section as written (to the next
    heading of level 1 or 2; line breaks as LF; blank edges dropped), ""
    without one: what a session found does not work, which its handoff
    record's Negative results and ``icm brief`` carry."""
    from icm import markdown
    from icm.lines import to_lf

    start = end = 0
    for sec in markdown.sections(text):
        if start and sec.level and sec.level <= 2:
            end = sec.line
            break
        if not start and sec.level == 2 and sec.title.lower() == RULED_OUT:
            start = sec.line
    if not start:
        return ""
    rows = to_lf(text).split("\n")
    return "\n".join(rows[start:end - 1 if end else len(rows)]).strip("\n")
