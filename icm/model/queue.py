"""Queue items: which files are items, their numbers, their gists and the
``Claimed-by:`` line that says who holds one."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from icm.context import Context
from icm.lines import fenced, split
from icm.paths import is_readme
from icm.slug import is_slug

ITEM_NAME = re.compile(r"([0-9]{2,})_(.+)\.md\Z", re.DOTALL)


# Both see lines by ``icm.lines`` (CLAIM one split line at a time, CARRIED
# through ``to_lf``): ``^`` and ``$`` see only LF, so a CRLF or CR-only
# item's claim was invisible (and taken over without --force).
CLAIM = re.compile(r"^Claimed-by: *(?P<who>.+?) on (?P<branch>\S+), "
                   r"(?P<day>\d{4}-\d{2}-\d{2}) *$", re.M)


CARRIED = re.compile(r"^Carried over from `([^`\n]+)`", re.M)


PATTERN = "NN_slug.md"


def items(ctx: Context) -> List[str]:
    """Files directly in the queue folder, placeholders and README aside."""
    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return [f for f in ctx.under(prefix) if f.startswith(prefix)
            and "/" not in f[len(prefix):]
            and not f[len(prefix):].startswith(".")
            and not is_readme(f[len(prefix):])]


def match(name: str, strict: bool = True) -> "Optional[re.Match[str]]":
    """The ``NN_slug.md`` parse of a file name: number and slug, or None.
    Not ``strict``: any slug, for a number a badly named item still uses."""
    m = ITEM_NAME.match(name)
    return m if m and (is_slug(m.group(2)) or not strict) else None


def number(path: str, strict: bool = True) -> int:
    m = match(path.rsplit("/", 1)[-1], strict)
    return int(m.group(1)) if m else -1


def gist(text: str) -> str:
    """An item's title and first paragraph: what two writers would each
    write first about the same work (claim lines left out)."""
    title, para, started = "", [], False
    for line, _end in split(text):
        stripped = line.strip()
        if not title and stripped.startswith("# "):
            title = stripped[2:]
        elif stripped and not CLAIM.match(stripped):
            para.append(stripped)
            started = True
        elif started:
            break
    return f"{title}. {' '.join(para)}"


def claim_at(rows: List[str]) -> int:
    """Index of the claim line among an item's lines (``lines.split``), or
    -1: the first ``CLAIM`` line outside fenced code. A claim shown in a
    fence is an example, not a writer (and not for a writer to edit)."""
    flags = fenced(rows)[0]
    return next((i for i, row in enumerate(rows)
                 if not flags[i] and CLAIM.match(row)), -1)


def claim_of(text: str) -> Optional[Tuple[str, str, str]]:
    """(who, branch, date) of an item's ``Claimed-by:`` line, if any."""
    rows = [row for row, _end in split(text)]
    at = claim_at(rows)
    m = CLAIM.match(rows[at]) if at >= 0 else None
    return (m.group("who"), m.group("branch"), m.group("day")) if m else None
