"""Run the selected checks over one Context.

A check's module is imported when it runs: ``icm check-links`` does not
load the dupes, agents or positions checks (about 40 ms of start-up)."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from icm import registry
from icm.context import Context
from icm.finding import Report
from icm.registry import Spec


def run_one(ctx: Context, spec: Spec, options: Optional[Any] = None) -> Report:
    """One check, with its options (its defaults when None)."""
    report: Report = spec.module.run(ctx, options if options is not None
                                     else spec.options())
    return report


def run(ctx: Context, specs: Sequence[Spec] = registry.ALL,
        given: Mapping[str, Any] = {}) -> List[Report]:
    """Run ``specs`` in registry order, each with its share of ``given``
    (option values by field name). Run with others, a check that needs git
    history says so in one line outside git instead of failing the run."""
    together = {"history_optional": True} if len(specs) > 1 else {}
    return [run_one(ctx, spec, registry.options_for(spec, given, **together))
            for spec in specs]
