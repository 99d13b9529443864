"""``icm check-links --fix``: keep the handbook's marked index block in step
with the notes that exist.

Only the text between ``<!-- icm:index -->`` and ``<!-- /icm:index -->`` is
ever changed; the block is appended at the end when absent. The handbook is
rewritten atomically (temporary file in the same folder, then rename).
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import List, Optional, Tuple

from icm import markdown
from icm.checks import links
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.workflow.files import line_ending, replace_atomic

OPEN = "<!-- icm:index -->"
CLOSE = "<!-- /icm:index -->"
_BLOCK = re.compile(re.escape(OPEN) + r"(.*?)" + re.escape(CLOSE), re.S)


def _target(handbook: str, line: str) -> Optional[str]:
    """The root-relative path the first link on ``line`` points to."""
    for lk in markdown.extract(line).links:
        target = links.resolve(handbook, lk.href)
        if target is not None and not target.problem:
            return target.path
    return None


def _exists(ctx: Context, rel: str) -> bool:
    """Whether ``rel`` exists, judged through ``paths`` (never outside)."""
    try:
        return os.path.exists(ctx.real(rel))
    except Unreadable:
        return False


def fix(ctx: Context) -> List[str]:
    """Rewrite the index block; return one line per change made."""
    handbook = ctx.config.handbook
    try:
        raw = ctx.read_bytes(handbook)
        text = ctx.read_text(handbook)
    except Unreadable as exc:
        if exc.reason.startswith("no such file"):
            raise UsageError(f"handbook {handbook} does not exist (create it, or "
                             "run 'icm init')") from None
        raise UsageError(f"{handbook}: cannot read: {exc.reason}") from None
    bom = raw.startswith(b"\xef\xbb\xbf")
    newline = line_ending(text)
    notes = set(links.notes_below_root(ctx))
    match = _BLOCK.search(text)
    body = match.group(1) if match else ""
    outside = text[:match.start()] + text[match.end():] if match else text
    linked_outside = {t for t in (_target(handbook, ln)
                                  for ln in outside.splitlines()) if t}
    kept: List[Tuple[str, str]] = []
    changes: List[str] = []
    present = set()
    for line in body.splitlines():
        if not line.strip():
            continue
        target = _target(handbook, line)
        if target is not None and target.endswith("/" + ctx.config.note_name) \
                and target not in notes and target not in ctx.file_set \
                and not _exists(ctx, target):
            changes.append(f"removed from {handbook} index: {target}")
            continue
        kept.append((target or "", line.rstrip()))
        if target:
            present.add(target)
    folder = posixpath.dirname(handbook)
    for note in sorted(notes - present - linked_outside):
        rel = posixpath.relpath(note, folder) if folder else note
        kept.append((note, f"- [{posixpath.dirname(note)}]({rel})"))
        changes.append(f"added to {handbook} index: {note}")
    if not changes:
        return []
    kept.sort(key=lambda item: item[0])
    block = newline.join([OPEN, *(line for _, line in kept), CLOSE])
    if match:
        new_text = text[:match.start()] + block + text[match.end():]
    else:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        new_text = text + sep + newline + block + newline
    data = new_text.encode("utf-8")
    replace_atomic(ctx, handbook, (b"\xef\xbb\xbf" if bom else b"") + data)
    return changes
