"""Queue hygiene: pending work is one ``NN_slug.md`` file per item in
``queue/``, and no two items share a number (two writers both took 07).

Bad::

    queue: number 07 is used twice: queue/07_a.md, queue/07_b.md

Good: ``queue/07_auto-detect-delimiter.md`` and ``queue/08_summary-to-stderr.md``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Dict, List, Optional

from icm.context import Context
from icm.finding import Finding, Report
from icm.slug import is_slug

NAME = "queue"
ITEM_NAME = re.compile(r"([0-9]{2,})_(.+)\.md\Z", re.DOTALL)
PATTERN = "NN_slug.md"


def items(ctx: Context) -> List[str]:
    """Files directly in the queue folder, placeholders and README aside."""
    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return [f for f in ctx.files if f.startswith(prefix)
            and "/" not in f[len(prefix):]
            and not f[len(prefix):].startswith(".")
            and f[len(prefix):] != "README.md"]


def match(name: str, strict: bool = True) -> "Optional[re.Match[str]]":
    """The ``NN_slug.md`` parse of a file name: number and slug, or None.
    Not ``strict``: any slug, for a number a badly named item still uses."""
    m = ITEM_NAME.match(name)
    return m if m and (is_slug(m.group(2)) or not strict) else None


def number(path: str, strict: bool = True) -> int:
    m = match(path.rsplit("/", 1)[-1], strict)
    return int(m.group(1)) if m else -1


def run(ctx: Context) -> Report:
    findings: List[Finding] = []
    by_number: Dict[int, List[str]] = defaultdict(list)
    for path in items(ctx):
        name = path.rsplit("/", 1)[-1]
        m = match(name)
        if not m:
            findings.append(Finding(
                path=path, message=f"{path}: name does not match {PATTERN}",
                check=NAME, code="bad-name", detail=f"name does not match {PATTERN}",
                fix="rename to a two-digit number, an underscore and a slug, or use "
                    "'icm new-queue'"))
            continue
        by_number[int(m.group(1))].append(path)
    for _number, paths in sorted(by_number.items()):
        if len(paths) < 2:
            continue
        paths.sort()
        times = "twice" if len(paths) == 2 else f"{len(paths)} times"
        label = paths[0].rsplit("/", 1)[-1].split("_", 1)[0]
        findings.append(Finding(
            path=paths[0], message=f"{ctx.config.queue_dir}: number {label} is used "
            f"{times}: {', '.join(paths)}", check=NAME, code="duplicate-number",
            detail=f"number {label} is used {times}",
            fix="renumber all but one with 'git mv' to the next free number"))
    findings.sort()
    return Report(NAME, tuple(findings), tail=() if findings else ("queue ok",),
                  data={"items": sum(len(v) for v in by_number.values())})
