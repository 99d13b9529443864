"""Handoff records read back: a receiver must know whether to trust one.

Every record in ``handoff_dir`` (made by ``icm handoff``) must carry each
field as a ``##`` heading exactly once, found by the markdown parser (a
heading inside the quoted author text is not one; a second one was forged),
and the marker naming the commit it was made at. A commit this repository
does not have is a warning, not an error: a squash merge or a rebase drops
it, and main would fail for ever in every fresh clone. A record made before
the branch's newest commit says how far behind it is (info: an old record
is not a defect, but the receiver should know).

Bad::

    handoff/2026-11-29_main.md: missing field 'Open question'

Said, not failed::

    handoff/2026-11-29_main.md: made at 1a3e64c, 12 commits ago
"""

from __future__ import annotations

from typing import List, Tuple

from icm.context import Context, Unreadable
from icm.finding import Finding, Report, Severity

NAME = "handoff"


def _finding(path: str, message: str, code: str, severity: Severity = Severity.ERROR,
             line: int = 0, fix: str = "") -> Finding:
    return Finding(path=path, line=line, message=f"{path}: {message}", check=NAME,
                   code=code, severity=severity, detail=message, fix=fix)


def run(ctx: Context) -> Report:
    from icm import markdown
    from icm.workflow.handoff import FIELDS, MARKER, records

    found: List[Finding] = []
    paths = sorted(records(ctx))
    made_at: List[Tuple[str, str]] = []  # (record, the commit its marker names)
    for path in paths:
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(_finding(path, f"cannot read: {exc.reason}", "unreadable"))
            continue
        fields = [s for s in markdown.sections(text) if s.level == 2]
        titles = [s.title for s in fields]
        for name in FIELDS:
            if name not in titles:
                found.append(_finding(path, f"missing field '{name}'",
                                      "missing-field",
                                      fix="make a new record with 'icm handoff'"))
            elif titles.count(name) > 1:  # a forged copy: which one is the record's?
                second = [s.line for s in fields if s.title == name][1]
                found.append(_finding(path, f"field '{name}' appears twice",
                                      "duplicate-field", line=second,
                                      fix="make a new record with 'icm handoff'"))
        # Only the preamble before the first field counts: a marker quoted in
        # author text must not vouch for the record.
        first = fields[0].line if fields else 0
        preamble = "\n".join(text.splitlines()[:first - 1]) if first else text
        marks = list(MARKER.finditer(preamble))
        if len(marks) != 1:
            found.append(_finding(
                path, "no 'icm:handoff' marker naming the commit it was made at",
                "no-marker", fix="make a new record with 'icm handoff'"))
            continue
        made_at.append((path, marks[0].group(1)))
    # One pass over the history for every record (one per record took 50
    # records 4.2 s on 3,000 commits).
    positions = ctx.commit_positions(commit for _path, commit in made_at)
    for path, commit in made_at:
        position = positions.get(commit)
        if position is None:
            found.append(_finding(
                path, f"made at {commit[:7]}, which this repository does not have",
                "unknown-commit", severity=Severity.WARNING,
                fix="a squash merge or a rebase drops that commit (or its branch "
                "is not fetched): delete the record once handed over, or make "
                "a new one with 'icm handoff'"))
        elif not position[0]:
            found.append(_finding(
                path, f"made at {commit[:7]}, which is not in this branch's history",
                "off-branch", severity=Severity.INFO))
        elif position[1]:
            n = position[1]
            found.append(_finding(
                path, f"made at {commit[:7]}, {n} commit{'s' if n != 1 else ''} ago",
                "outdated", severity=Severity.INFO,
                fix="make a new record with 'icm handoff' before handing over"))
    findings = tuple(sorted(found))
    failed = any(f.severity is Severity.ERROR for f in findings)
    tail = ("handoff ok",) if paths and not failed else ()
    return Report(NAME, findings, tail=tail, data={"records": len(paths)})
