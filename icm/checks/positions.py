"""Positions: the compiled view stays current, and dead designs are named
when they come back.

With ``positions_file`` set, the block between ``<!-- icm:positions -->``
and ``<!-- /icm:positions -->`` in it must be what ``icm positions``
compiles from the journal now (an error otherwise: the file is read at
cold boot, and a stale one states overruled decisions as held). Always: a
queue item, or a journal entry newer than the rejecting one, that proposes
what an entry listed as its Rejected alternative is a warning, unless it
carries ``Revives: <that entry>`` (see ``icm.positions``).

Bad::

    journal/POSITIONS.md: positions block is out of date (run: icm positions --write)
    queue/09_buffer-whole-file.md: re-proposes what
        journal/2026-10-26_read-input-as-a-stream.md rejected: "load the whole
        file and filter in memory"

Good: the block rewritten by ``icm positions --write`` in the same commit as
the entry, and a deliberate revival saying ``Revives: journal/...``.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from icm import positions
from icm.context import Context, Unreadable
from icm.finding import Finding, Report, Severity
from icm.registry import NoOptions

NAME = "positions"
FIX = "run: icm positions --write"


def run(ctx: Context, options: NoOptions) -> Report:
    view = positions.build(ctx)
    found: List[Finding] = []
    target = ctx.config.positions_file
    if target:
        problem = _block_problem(ctx, target, positions.block_text(view, target))
        if problem:
            code, detail, message = problem
            found.append(Finding(path=target, message=message,
                                 check=NAME, code=code, detail=detail, fix=FIX))
    for p in view.reproposals:
        if p.acknowledged:
            continue
        detail = (f"re-proposes what {p.rejected_by} rejected: "
                  f"\"{positions.quoted(p.alternative)}\"")
        found.append(Finding(
            path=p.path, line=p.line, message=f"{p.path}: {detail}", check=NAME,
            code="re-proposed", severity=Severity.WARNING, detail=detail,
            fix=f"drop it, add 'Revives: {p.rejected_by}' if it is revived on "
                f"purpose, or 'Differs-from: {p.rejected_by}' if it is not the "
                "same proposal", extra={"rejected_by": p.rejected_by,
                                     "alternative": p.alternative,
                                     "similarity": p.score}))
    findings = tuple(sorted(found))
    return Report(NAME, findings, tail=() if findings else ("positions ok",),
                  data={"current": len(view.current),
                        "superseded": len(view.superseded),
                        "rejected": len(view.rejected)})


def _block_problem(ctx: Context, target: str, expected: str
                   ) -> Optional[Tuple[str, str, str]]:
    """(code, detail, message) when the file does not hold ``expected``."""
    from icm import markdown

    try:
        text = ctx.read_markdown(target)
    except Unreadable as exc:
        if exc.reason.startswith("no such file"):
            detail = f"positions file is missing ({FIX})"
            return "positions-missing", detail, f"{target}: {detail}"
        return "unreadable", f"cannot read: {exc.reason}", \
            f"{target}: cannot read: {exc.reason}"
    try:
        block = positions.current_block(text, target)
    except markdown.MarkerError as exc:
        return "positions-markers", str(exc), str(exc)
    if block is None:
        detail = f"no positions block ({FIX})"
        return "positions-no-block", detail, f"{target}: {detail}"
    if block != expected:
        detail = f"positions block is out of date ({FIX})"
        return "positions-stale", detail, f"{target}: {detail}"
    return None
