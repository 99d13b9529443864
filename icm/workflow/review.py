"""``icm review NOTE...``: record that a note was read against its code and
is still true.

A review is one visible line in the note, ``<!-- icm: reviewed
2026-12-01 -->`` (today in UTC, or ``--date``), updated in place when the
note has one: the first outside fenced code, else the note's last line. A
second review the same day adds a count (``reviewed 2026-12-01 (2)``), so
every review changes a word: check-stale counts only a change of words, and
a whitespace edit is no review. The line goes in the commit with the code,
so the review is in pre-commit, in CI and in history alike.

Bad::

    $ printf '\n' >> src/context.md   # git sees a change, check-stale no word

Good::

    $ icm review src/context.md
    src/context.md: reviewed 2026-12-01

Every note named is checked and planned before the first write, under
the queue lock (renumber rewrites links in notes), and all are written or
none (``files.all_or_nothing``), each keeping its line endings and
byte-order mark. A path that is not a note, a symlink (git records the
link, not the text: a review there would change nothing git sees) and a
file that is not UTF-8 are refused, nothing changed.
"""

from __future__ import annotations

import os
import posixpath
import re
from datetime import date, timezone
from typing import List, Optional, Sequence, Tuple

from icm import lines
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.workflow.files import all_or_nothing, entry, queue_locked, target

_MARKER = re.compile(r" {0,3}<!--[ \t]*icm:[ \t]*reviewed[ \t]+([0-9]{4}-[0-9]{2}-"
                     r"[0-9]{2})(?:[ \t]+\(([0-9]+)\))?[ \t]*-->[ \t]*")


def marker(day: str, count: int = 1) -> str:
    """The marker line (without its break) of the ``count``-th review on
    ``day``."""
    return f"<!-- icm: reviewed {day}{f' ({count})' if count > 1 else ''} -->"


def review(ctx: Context, named: Sequence[str], day: Optional[date] = None
           ) -> List[str]:
    """Write or update each note's marker; one line per note."""
    when = (day or ctx.now.astimezone(timezone.utc).date()).isoformat()
    notes: List[str] = []
    for raw in named:
        rel = _note(ctx, raw)
        if rel not in notes:
            notes.append(rel)
    with queue_locked(ctx):  # renumber rewrites links in notes too
        planned = [(rel, *_marked(ctx, rel, when)) for rel in notes]
        with all_or_nothing(ctx) as changes:
            for rel, data, _ in planned:
                changes.replace(rel, data)
    return [f"{rel}: {said}" for rel, _, said in planned]


def _note(ctx: Context, raw: str) -> str:
    """The note ``raw`` names: a path from the working folder when that is
    inside the root (as a shell completes it), else from the root; one line
    and exit 2 for anything but a note."""
    try:
        here = os.path.realpath(os.getcwd())
    except FileNotFoundError:
        here = ""
    top = str(ctx.root)
    if os.path.isabs(raw) or here == top or here.startswith(top + os.sep):
        folder, name = os.path.split(os.path.abspath(raw))
        rel = os.path.relpath(os.path.join(os.path.realpath(folder), name),
                              ctx.root).replace(os.sep, "/")
    else:
        rel = posixpath.normpath(raw.replace("\\", "/"))
    if rel not in ctx.notes():
        raise UsageError(f"{raw}: not a note (notes are the files named "
                         f"{ctx.config.note_label}, the handbook aside); nothing "
                         "was changed")
    target(ctx, rel)  # a symlink out of the root: the writers' refusal
    if os.path.islink(entry(ctx, rel)):
        raise UsageError(f"refusing to write {rel}: a symlink (git records the "
                         "link, not the text it points to: review that file); "
                         "nothing was changed")
    return rel


def _marked(ctx: Context, rel: str, day: str) -> Tuple[bytes, str]:
    """The note's new bytes and what the review says (``reviewed DAY``)."""
    try:
        text = ctx.read_bytes(rel).decode("utf-8")  # a BOM stays a character
    except Unreadable as exc:
        raise UsageError(f"{rel}: cannot read: {exc.reason}; nothing was "
                         "changed") from None
    except UnicodeDecodeError:
        raise UsageError(f"{rel}: cannot read: not valid UTF-8; nothing was "
                         "changed") from None
    new, said = mark(text, day)
    return new.encode("utf-8"), said


def mark(text: str, day: str) -> Tuple[str, str]:
    """``text`` with its marker set to ``day`` (added at the end when it has
    none), and what the review says; every other character kept."""
    rows = lines.split(text)
    at = _marker_row(rows)
    if at is not None:
        row, end = rows[at]
        bom = "\ufeff" if row.startswith("\ufeff") else ""
        found = _MARKER.fullmatch(row[len(bom):])
        assert found is not None
        count = int(found.group(2) or 1) + 1 if found.group(1) == day else 1
        rows[at] = (bom + marker(day, count), end)
        new = lines.join(rows)
    else:
        count = 1
        end = lines.ending(text)
        if not text:
            new = marker(day) + end
        else:
            closed = rows[-1] == ("", "")  # the text ends with a line break
            last = rows[-2][0] if closed else rows[-1][0]
            new = text + ("" if closed else end) + (end if last.strip() else "") \
                + marker(day) + end
    return new, marker(day, count)[len("<!-- icm: "):-len(" -->")]


def _marker_row(rows: List[Tuple[str, str]]) -> Optional[int]:
    """The row holding the marker: the first outside fenced code (an example
    in a fence is not one), else the last non-blank row (one written after
    a fence left open)."""
    flags, _ = lines.fenced(row for row, _ in rows)
    for i, (row, _) in enumerate(rows):
        if not flags[i] and _MARKER.fullmatch(row.lstrip("\ufeff") if i == 0
                                              else row):
            return i
    for i in range(len(rows) - 1, -1, -1):
        if rows[i][0].strip():
            return i if _MARKER.fullmatch(rows[i][0].lstrip("\ufeff")) else None
    return None
