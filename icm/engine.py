"""Run the selected checks over one Context.

A check's module is imported when it runs: ``icm check-links`` does not
load the dupes, agents or positions checks (about 40 ms of start-up)."""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Protocol, Sequence, Tuple

from icm.context import Context
from icm.finding import Report


class Check(Protocol):
    NAME: str

    def run(self, ctx: Context) -> Report: ...


# Registry order: the order ``icm check`` runs and prints them. Each name is
# its module in icm/checks/ and that module's NAME.
NAMES: Tuple[str, ...] = ("journal", "links", "stale", "bootmap", "queue", "dupes",
                          "handoff", "agents", "positions")


def check(name: str) -> Check:
    """The check module called ``name`` (KeyError for an unknown name)."""
    if name not in NAMES:
        raise KeyError(name)
    module: Check = importlib.import_module(f"icm.checks.{name}")
    return module


def __getattr__(name: str) -> Any:
    """``ALL`` and ``BY_NAME``: every check, loaded on first use."""
    if name == "ALL":
        return tuple(check(n) for n in NAMES)
    if name == "BY_NAME":
        return {n: check(n) for n in NAMES}
    raise AttributeError(name)


ALL: Tuple[Check, ...]
BY_NAME: Dict[str, Check]


def run(ctx: Context, names: Sequence[str] = ()) -> List[Report]:
    """Run the named checks (all when empty), in registry order."""
    return [check(n).run(ctx) for n in (names or NAMES)]
