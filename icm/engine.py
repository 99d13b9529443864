"""Run the selected checks over one Context."""

from __future__ import annotations

from typing import Dict, List, Protocol, Sequence, Tuple

from icm.checks import (
    agents,
    bootmap,
    dupes,
    handoff,
    journal,
    links,
    positions,
    queue,
    stale,
)
from icm.context import Context
from icm.finding import Report


class Check(Protocol):
    NAME: str

    def run(self, ctx: Context) -> Report: ...


ALL: Tuple[Check, ...] = (journal, links, stale, bootmap, queue, dupes, handoff,
                          agents, positions)
BY_NAME: Dict[str, Check] = {c.NAME: c for c in ALL}


def run(ctx: Context, names: Sequence[str] = ()) -> List[Report]:
    """Run the named checks (all when empty), in registry order."""
    selected = [BY_NAME[n] for n in names] if names else list(ALL)
    return [check.run(ctx) for check in selected]
