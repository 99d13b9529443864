"""``icm new-journal ITEM``: turn a queue item into a dated journal entry.

The entry is created complete (the four slots, the item's title and text
carried in) before the queue item is removed, both in one
``all_or_nothing``: a signal or a failure leaves the item or the finished
entry, one of them. SIGKILL between the two leaves both, never neither. A
tracked item's removal is staged together with the new entry, as ``git mv``
would.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Dict, List, Optional, Sequence, Tuple

from icm import git
from icm.config import DEFAULT_SLOTS
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.lines import ending, fenced, join, split, to_lf
from icm.model.journal import parse_entry, valid_name, verify_slot
from icm.model.queue import claim_of
from icm.workflow.claims import me, without_claim
from icm.workflow.files import all_or_nothing, fill, queue_locked, template
from icm.workflow.queue import CARRIED, find_item, item_bytes, item_slug, still_there


def split_title(text: str, fallback: str,
                newline: str = "\n") -> Tuple[str, str]:
    """The item's first ``#`` heading as the title, and the rest of its text
    byte for byte, each line with its own ending (a carried code block
    lost a blank line once), blank lines at either end left out. A fence
    the text leaves open is closed on a line of its own, or it swallowed
    the slots added after it; the last line takes ``newline``."""
    parts = split(text)
    if parts[-1] == ("", "") and len(parts) > 1:
        parts.pop()  # the empty "line" after a final break
    title = fallback
    for i, (row, _end) in enumerate(parts):
        m = re.match(r"#\s+(.+?)\s*#*\s*$", row)
        if m:
            title = m.group(1)
            del parts[i]
        if m or row.strip():
            break
    flags, fence = fenced([row for row, _end in parts])
    start, stop = 0, len(parts)
    while start < stop and not parts[start][0].strip(" \t"):
        start += 1
    while stop > start and not flags[stop - 1] and not parts[stop - 1][0].strip(
            " \t"):
        stop -= 1
    body = parts[start:stop]
    if body:
        row, end = body[-1]
        # No break, or a lone CR an LF after it would join into one CRLF.
        body[-1] = (row, newline if not end or end + newline == "\r\n" else end)
        if fence:
            body.append((fence, newline))
    return title, join(body)


def entry_text(text: str, slots: Sequence[str], present: Sequence[str],
               verify: Optional[str], values: Dict[str, str]) -> str:
    """The journal template with one ``## `` section per configured slot the
    item does not already hold (it keeps its own: one heading per slot), in
    ``slots`` order. A slot the template has keeps its hint; the verify slot
    takes the Verify command's; any other slot is a bare heading. Only the
    part above the slots is filled: a slot name is never a placeholder."""
    head: List[str] = []
    hints: Dict[str, List[str]] = {}
    rows = head
    for row in text.split("\n"):
        if row.startswith("## "):
            rows = hints.setdefault(row[3:].strip(), [])
        else:
            rows.append(row)
    default = DEFAULT_SLOTS[3]
    parts = []
    for slot in slots:
        if slot in present:
            continue
        hint = hints.get(slot, hints.get(default, []) if slot == verify else [])
        parts.append("\n".join([f"## {slot}", *hint]).rstrip("\n"))
    top = fill("\n".join(head), values)
    return f"{top}\n" + "\n\n".join(parts) + "\n" if parts else top


def new_entry(ctx: Context, item: str, day: Optional[date] = None,
              force: bool = False) -> List[str]:
    """Write the entry; return its path and a line saying what became of the
    queue item."""
    source = find_item(ctx, item)
    was = item_bytes(ctx, source)
    # Under the queue's lock: two runs on one item give one entry and one error;
    # an item renumbered meanwhile is finished at its new name.
    with queue_locked(ctx) as folder:
        return _finish(ctx, still_there(ctx, source, folder, was), day, force)


def _finish(ctx: Context, source: str, day: Optional[date],
            force: bool) -> List[str]:
    try:
        text = ctx.read_text(source)
    except Unreadable as exc:
        raise UsageError(f"{source}: cannot read: {exc.reason}") from None
    newline = ending(text)  # the entry is written with the item's line ending
    held = claim_of(text)
    if held and held[0] != me(ctx) and not force:
        raise UsageError(f"{source}: claimed by {held[0]} on {held[1]}, {held[2]}; "
                         "pass --force to finish it anyway")
    slug = item_slug(source)
    # A claim is about pending work; the finished entry does not carry it.
    title, body = split_title(without_claim(text),
                              slug.replace("-", " ").capitalize(), newline)
    day = day or ctx.now.astimezone().date()  # the user's today, not UTC's
    name = f"{day.isoformat()}_{slug}.md"  # strftime drops zeros of year 1
    if not valid_name(name):
        raise UsageError(f"cannot make a journal name from '{slug}'")
    # The line is written even for an item with no text: it is how the
    # number stays used once the queue file is gone.
    said = CARRIED.format(source=source)
    slots = ctx.config.slots
    # The body goes in as it is, its own endings kept: the rest of the entry
    # is made with LF and takes the item's ending, around a mark longer than
    # any run of NULs elsewhere in it.
    mark = "\0" * (1 + title.count("\0") + "".join(slots).count("\0"))
    carried = f"{said}:\n\n{mark}" if body else f"{said}.\n"
    # Slots the item already holds are its own: the template's empty copies
    # would make each slot twice (and the gate judged only the first).
    present = list(parse_entry(to_lf(body), source, slots, None).slots)
    text = entry_text(template("journal.md"), slots, present,
                      verify_slot(ctx.config), {"title": title, "carried": carried})
    text = body.join(piece.replace("\n", newline) for piece in text.split(mark))
    rel = f"{ctx.config.journal_dir}/{name}"
    # Every path is resolved before anything changes: a journal folder or a
    # queue folder symlinked out of the root refuses the whole command.
    with all_or_nothing(ctx) as changes:
        changes.folder(ctx.config.journal_dir)
        changes.create(rel, text.encode("utf-8"))
        changes.remove(source)
        changes.commit()
        if source not in ctx.tracked:
            return [rel, f"removed {source}"]
        try:
            git.stage_move(ctx.root, source, rel)
        except UsageError as exc:
            # The files are right; only the index could not follow.
            raise UsageError(f"wrote {rel} and removed {source}, but git could "
                             f"not stage the move: {exc}") from None
    return [rel, f"removed {source} (staged in git as a move)"]
