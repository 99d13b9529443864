"""Handoff records: where they are, the fields a record holds, and the
marker naming the commit it was made at."""

from __future__ import annotations

import re
from typing import List

from icm.context import Context

FIELDS = ("Reason", "Open question", "Identity and state", "Confirmed facts",
          "Actions taken", "Negative results", "Open work", "Verbatim tail",
          "Where the rest lives", "Size")


MARKER = re.compile(r"<!-- icm:handoff 1 made-at ([0-9a-f]{40,64}) -->")


RECORD_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})_(.+)\.md\Z")


def records(ctx: Context) -> List[str]:
    """Record files directly in ``handoff_dir`` (README.md aside)."""
    prefix = ctx.config.handoff_dir.rstrip("/") + "/"
    return [f for f in ctx.files if f.startswith(prefix)
            and "/" not in f[len(prefix):] and f.endswith(".md")
            and f[len(prefix):] != "README.md"]
