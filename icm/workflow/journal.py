"""``icm new-journal ITEM``: turn a queue item into a dated journal entry.

The entry is created complete (the four slots, the item's title and text
carried in) before the queue item is removed, so an interruption leaves
either both files or the finished entry, never neither. A tracked item's
removal is staged together with the new entry, as ``git mv`` would.
"""

from __future__ import annotations

import os
import re
import unicodedata
from datetime import date
from typing import Dict, List, Optional, Sequence, Tuple

from icm.config import DEFAULT_SLOTS
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.lines import ending, fenced, join, split, to_lf
from icm.model.journal import entries, parse_entry, valid_name, verify_slot
from icm.model.queue import items, number
from icm.workflow.files import (
    create_new,
    ensure_folder,
    entry,
    fill,
    target,
    template,
)

# The line that records which queue item an entry finished; new-queue reads
# it back so the item's number is never given again.
CARRIED = "Carried over from `{source}`"


def carried_numbers(ctx: Context) -> List[int]:
    """Queue numbers that journal entries say they carried over."""
    queue = ctx.config.queue_dir.rstrip("/")
    before = CARRIED.partition("{source}")[0] + queue + "/"
    pattern = re.compile(re.escape(before.encode()) + rb"([^`/\n]+)`")
    found: List[int] = []
    for path in entries(ctx):
        try:
            data = ctx.read_bytes(path, ctx.config.max_file_bytes)
        except Unreadable:
            continue
        found.extend(number(m.group(1).decode("utf-8", "replace"), strict=False)
                     for m in pattern.finditer(data))
    return found


def find_item(ctx: Context, item: str) -> str:
    """Resolve a number (``07``/``7``), a slug or a path to one queue file."""
    queue = sorted(items(ctx))
    wanted = item.strip().replace("\\", "/")
    matches: List[str] = []
    if wanted.isdigit():
        matches = [q for q in queue if number(q) == int(wanted)]
    elif "/" in wanted or wanted.endswith(".md"):
        rel = os.path.relpath(os.path.abspath(wanted), ctx.root).replace(os.sep, "/") \
            if os.path.isabs(wanted) or os.path.exists(wanted) else wanted
        matches = [q for q in queue if q == rel or q == wanted
                   or q.rsplit("/", 1)[-1] == wanted]
    else:
        # A terminal may type the decomposed form of the name new-queue wrote.
        forms = {wanted, unicodedata.normalize("NFKC", wanted)}
        matches = [q for q in queue if _slug(q) in forms]
    if len(matches) == 1:
        return matches[0]
    listing = ", ".join(queue) if queue else "the queue is empty"
    if not matches:
        raise UsageError(f"no queue item matches '{item}' ({listing})")
    raise UsageError(f"'{item}' matches several queue items: {', '.join(matches)}")


def _slug(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3].split("_", 1)[1] if "_" in name else name[:-3]


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
    from icm.workflow.queue import locked

    source = find_item(ctx, item)
    # Under the queue's lock: two runs on one item give one entry and one error.
    with locked(target(ctx, ctx.config.queue_dir)):
        if not os.path.lexists(ctx.root / source):
            raise UsageError(f"{source} is gone: another writer finished or moved "
                             "it just now")
        return _finish(ctx, source, day, force)


def _finish(ctx: Context, source: str, day: Optional[date],
            force: bool) -> List[str]:
    from icm import git
    from icm.model.queue import claim_of
    from icm.workflow.claims import me, without_claim

    try:
        text = ctx.read_text(source)
    except Unreadable as exc:
        raise UsageError(f"{source}: cannot read: {exc.reason}") from None
    newline = ending(text)  # the entry is written with the item's line ending
    held = claim_of(text)
    if held and held[0] != me(ctx) and not force:
        raise UsageError(f"{source}: claimed by {held[0]} on {held[1]}, {held[2]}; "
                         "pass --force to finish it anyway")
    slug = _slug(source)
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
    target, old = entry(ctx, rel), entry(ctx, source)
    ensure_folder(ctx, ctx.config.journal_dir)
    create_new(ctx, rel, text.encode("utf-8"))
    try:
        os.unlink(old)
    except OSError as exc:
        os.unlink(target)  # undo: nothing has changed
        raise UsageError(f"cannot remove {source}: {exc.strerror}; nothing "
                         "was changed") from None
    if source in ctx.tracked:
        try:
            git.stage_move(ctx.root, source, rel)
        except UsageError as exc:
            # The files are right; only the index could not follow.
            raise UsageError(f"wrote {rel} and removed {source}, but git could "
                             f"not stage the move: {exc}") from None
        return [rel, f"removed {source} (staged in git as a move)"]
    return [rel, f"removed {source}"]
