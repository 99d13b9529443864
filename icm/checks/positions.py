"""Positions: the compiled view stays current, and dead designs are named
when they come back.

With ``positions_file`` set, the block between ``<!-- icm:positions -->``
and ``<!-- /icm:positions -->`` in it must be what ``icm positions``
compiles from the journal now, within ``positions_budget`` when one is set
(an error otherwise: the file is read at cold boot, and a stale one states
overruled decisions as held). Always: a queue item, or a journal entry
newer than the rejecting one, that proposes what an entry listed as its
Rejected alternative is a warning, unless it carries ``Revives: <that
entry>`` (see ``icm.model.positions``).

Bad::

    journal/POSITIONS.md: positions block is out of date (run: icm positions --write)
    queue/09_buffer-whole-file.md: re-proposes what
        journal/2026-10-26_read-input-as-a-stream.md rejected: "load the whole
        file and filter in memory"

Good: the block rewritten by ``icm positions --write`` in the same commit as
the entry, and a deliberate revival saying ``Revives: journal/...``.
"""

from __future__ import annotations

from typing import List, Optional

from icm.context import Context, Unreadable
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model import positions
from icm.registry import NoOptions

NAME = "positions"
# icm explain: why the rule matters, and how to silence it here
WHY = ("The positions view is read at cold boot: a stale one states overruled decisions"
       " as held, and a rejected design that comes back unnamed is argued again.")
SILENCE = ("Revives: journal/... or Differs-from: journal/... in the proposal; "
           "reinvent_similarity sets the threshold")
FIX = "run: icm positions --write"
RULES = Rules(NAME, {
    "positions-stale": Rule("the positions block is not what the journal "
                            "compiles to now", fix=FIX),
    "positions-missing": Rule("positions_file does not exist", fix=FIX),
    "positions-no-block": Rule("positions_file has no positions block", fix=FIX),
    "positions-markers": Rule("two positions blocks, or a lone marker", fix=FIX),
    "unreadable": Rule("positions_file cannot be read as UTF-8 text", fix=FIX),
    "re-proposed": Rule("a queue item or newer entry proposes a Rejected "
                        "alternative", Severity.WARNING),
})


def run(ctx: Context, options: NoOptions) -> Report:
    view = positions.build(ctx)
    found: List[Finding] = []
    target = ctx.config.positions_file
    if target:
        problem = _block_problem(ctx, target, positions.block_text(
            view, target, ctx.config.positions_budget))
        if problem is not None:
            found.append(problem)
    for p in view.reproposals:
        if p.acknowledged:
            continue
        what = (f"{p.rejected_by} decided and {p.overruled_by} superseded"
                if p.overruled_by else f"{p.rejected_by} rejected")
        found.append(RULES(
            "re-proposed", p.path, f"re-proposes what {what}: "
            f"\"{positions.quoted(p.alternative)}\"", line=p.line,
            fix=f"drop it, add 'Revives: {p.rejected_by}' if it is revived on "
                f"purpose, or 'Differs-from: {p.rejected_by}' if it is not the "
                "same proposal", extra={"rejected_by": p.rejected_by,
                                     "alternative": p.alternative,
                                     "similarity": p.score}))
    return Report.of(NAME, found, ok=not found,
                     data={"current": len(view.current),
                           "superseded": len(view.superseded),
                           "rejected": len(view.rejected)})


def _block_problem(ctx: Context, target: str, expected: str) -> Optional[Finding]:
    """What is wrong when the file does not hold ``expected``."""
    from icm import markdown

    try:
        text = ctx.read_markdown(target)
    except Unreadable as exc:
        if exc.reason.startswith("no such file"):
            return RULES("positions-missing", target,
                         f"positions file is missing ({FIX})")
        return RULES("unreadable", target, cannot_read(exc.reason))
    try:
        block = positions.current_block(text, target)
    except markdown.MarkerError as exc:
        return RULES("positions-markers", target, str(exc), located=True)
    if block is None:
        return RULES("positions-no-block", target, f"no positions block ({FIX})")
    if block != expected:
        return RULES("positions-stale", target,
                     f"positions block is out of date ({FIX})")
    return None
