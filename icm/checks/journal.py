"""The journal slot gate.

Every ``journal/*.md`` entry must carry each configured slot (default:
Decision, Rejected alternative, Invariant, Verify command) as a level-2
heading whose text is exactly the slot name, and each slot must have content.
Headings are found by a markdown parser, so ``## Invariant`` inside a fence is
not a heading and a setext ``Invariant\\n---`` is. Entries are named
``YYYY-MM-DD_slug.md``. ``journal_exempt`` may only shrink: an exempt entry
that is now complete, or no longer exists, is reported.

Bad::

    journal/2026-10-29_summary-line-to-stderr.md: missing slot 'Invariant'

Good: all four ``##`` sections present, each with at least a line of text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import List, Sequence, Tuple

from icm.context import Context, Unreadable
from icm.finding import Finding, Report, Severity
from icm.slug import is_slug

NAME = "journal"
ENTRY_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})_(.+)\.md\Z", re.DOTALL)
PATTERN = "YYYY-MM-DD_slug.md"


def entries(ctx: Context) -> List[str]:
    """Markdown files directly inside the journal folder (README.md aside)."""
    prefix = ctx.config.journal_dir.rstrip("/") + "/"
    return [
        f for f in ctx.files
        if f.startswith(prefix) and "/" not in f[len(prefix):]
        and f.lower().endswith(".md") and f[len(prefix):] != "README.md"
    ]


def _finding(path: str, message: str, code: str, line: int = 0, rank: int = 0,
             fix: str = "", severity: Severity = Severity.ERROR) -> Finding:
    return Finding(path=path, line=line, rank=rank, message=f"{path}: {message}",
                   check=NAME, code=code, detail=message, fix=fix, severity=severity)


def valid_name(filename: str) -> bool:
    m = ENTRY_NAME.match(filename)
    if not m or not is_slug(m.group(4)):
        return False
    try:
        date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def slot_problems(text: str, slots: Sequence[str]) -> List[Tuple[int, str, str, int]]:
    """(slot index, slot, 'missing'|'empty', line) for one entry's text."""
    from icm import markdown  # loaded on first use: keeps other commands light

    heads = markdown.headings(markdown.parse(text, inline=lambda _c: False))
    problems = []
    for index, slot in enumerate(slots):
        at = [i for i, h in enumerate(heads) if h.level == 2 and h.text == slot]
        if not at:
            problems.append((index, slot, "missing", 0))
            continue
        i = at[0]
        j = next((k for k in range(i + 1, len(heads)) if heads[k].level <= 2),
                 len(heads))
        if not heads[i].body and j == i + 1:
            problems.append((index, slot, "empty", heads[i].line))
    return problems


def run(ctx: Context) -> Report:
    cfg = ctx.config
    exempt = set(cfg.journal_exempt)
    found: List[Finding] = []
    present = set(entries(ctx))
    for path in sorted(present):
        filename = path.rsplit("/", 1)[-1]
        if not valid_name(filename):
            found.append(_finding(
                path, f"name does not match {PATTERN}", "bad-name", rank=-1,
                fix=f"rename to {PATTERN}, e.g. {ctx.now:%Y-%m-%d}_my-change.md"))
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(_finding(path, f"cannot read: {exc.reason}",
                                  "skipped" if exc.skipped else "unreadable",
                                  severity=Severity.WARNING if exc.skipped
                                  else Severity.ERROR))
            continue
        problems = slot_problems(text, cfg.slots)
        if path in exempt:
            if not problems:
                found.append(_finding(
                    path, "exempt but complete, remove it from journal_exempt",
                    "exempt-complete", fix="delete this path from journal_exempt"))
            continue
        for index, slot, kind, line in problems:
            found.append(_finding(
                path, f"{kind} slot '{slot}'", f"{kind}-slot", line=line, rank=index,
                fix=f"add a '## {slot}' section" if kind == "missing"
                else f"write the {slot} under its heading"))
    for path in sorted(exempt - present):
        found.append(_finding(
            path, "exempt but missing, remove it from journal_exempt",
            "exempt-missing", fix="delete this path from journal_exempt"))
    findings = tuple(sorted(found))
    failed = any(f.severity is Severity.ERROR for f in findings)
    tail = () if failed else ("journal ok",)
    return Report(NAME, findings, tail=tail, data={"entries": len(present)})


