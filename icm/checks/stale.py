"""Staleness from git history.

A note (``context.md``) is STALE when the newest commit touching code in its
folder is strictly newer than the last commit touching the note: the code
moved and the note did not. Code is every tracked file in the note's folder
(``stale_scope = "subtree"``: and in subfolders without a note of their own)
that is not prose (``.md``, ``.markdown``, ``.mdx``); a submodule pointer
counts as code, since bumping it changes what the folder builds. Times are
committer times along HEAD's first-parent history, merges diffed against
their first parent, renames not followed. A commit touching note and code
together is ``ok`` (equal is not newer); a note never committed, or a
deciding commit with a missing or malformed committer date, is ``unknown``,
never fresh.

Bad::

    src/context.md: STALE - code in src moved 8 days after the note

Good::

    tests/context.md: ok
"""

from __future__ import annotations

import posixpath
from typing import Dict, List, Optional, Tuple

from icm.context import MARKDOWN_SUFFIXES, UNDATED, Context
from icm.errors import UsageError
from icm.finding import Finding, Report, Severity

NAME = "stale"


def describe(seconds: int) -> str:
    """Whole days, rounded down; under a day hours; under an hour says so."""
    days, hours = seconds // 86400, seconds // 3600
    if days >= 1:
        return f"{days} day" + ("s" if days != 1 else "")
    if hours >= 1:
        return f"{hours} hour" + ("s" if hours != 1 else "")
    return "less than an hour"


def code_by_note(ctx: Context) -> Dict[str, List[str]]:
    """The tracked code files each note speaks for."""
    name = ctx.config.note_name
    notes = ctx.notes()
    note_dirs = {posixpath.dirname(n): n for n in notes}
    subtree = ctx.config.stale_scope == "subtree"
    owned: Dict[str, List[str]] = {n: [] for n in notes}
    for path in ctx.tracked:
        if path.lower().endswith(MARKDOWN_SUFFIXES) or posixpath.basename(path) == name:
            continue
        folder = posixpath.dirname(path)
        if not subtree:
            if folder in note_dirs:
                owned[note_dirs[folder]].append(path)
            continue
        while True:  # nearest folder at or above with a note
            if folder in note_dirs:
                owned[note_dirs[folder]].append(path)
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return owned


def run(ctx: Context) -> Report:
    strict = bool(ctx.options.get("strict"))
    allow_shallow = bool(ctx.options.get("allow_shallow"))
    history = ctx.history()
    if history.boundary and not allow_shallow:
        raise UsageError(
            "shallow clone: history is cut, so every note would look fresh; fetch "
            "full history (actions/checkout 'fetch-depth: 0', or 'git fetch "
            "--unshallow'), or pass --allow-shallow")
    findings: List[Finding] = []
    counts = {"stale": 0, "unknown": 0, "ok": 0}
    for note, code in sorted(code_by_note(ctx).items()):
        folder = posixpath.dirname(note) or "."
        dirty = " (uncommitted changes)" if note in history.changed else ""
        note_last = history.last(note) if note in ctx.tracked else None
        newest: Optional[Tuple[int, str]] = None
        for path in code:
            hit = history.last(path)
            if hit is not None and (newest is None or newest[0] != UNDATED and (
                    hit[0] == UNDATED or hit[0] > newest[0])):  # undated sticks
                newest = hit
        undated = [c for c in (note_last, newest) if c and c[0] == UNDATED]
        if note_last is None:
            verdict, code_name, sev = "unknown - note never committed", "unknown", \
                Severity.ERROR if strict else Severity.WARNING
        elif undated:
            verdict, code_name, sev = (
                f"unknown - commit {undated[0][1][:12]} has no valid committer "
                "date", "unknown", Severity.ERROR if strict else Severity.WARNING)
        elif history.boundary and (note_last[1] in history.boundary or (
                newest is not None and newest[1] in history.boundary)):
            verdict, code_name, sev = (
                "unknown (shallow) - history before the shallow boundary is "
                "missing", "unknown", Severity.ERROR if strict else Severity.WARNING)
        elif newest is not None and newest[0] > note_last[0]:
            moved = describe(newest[0] - note_last[0])
            verdict, code_name, sev = (
                f"STALE - code in {folder} moved {moved} after the note", "stale",
                Severity.ERROR)
        else:
            verdict, code_name, sev = "ok", "ok", Severity.INFO
        counts[code_name] += 1
        fix = {"stale": "reread the note against the code and correct it; git "
                        "records only a changed note, so if it is still true, "
                        "say what you checked",
               "unknown": "commit the note"}.get(code_name, "")
        findings.append(Finding(
            path=note, message=f"{note}: {verdict}{dirty}", check=NAME,
            code=code_name, severity=sev, detail=f"{verdict}{dirty}", fix=fix))
    return Report(NAME, tuple(sorted(findings)), data=counts)
