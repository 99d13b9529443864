"""``icm baseline``: write ``icm-baseline.json``, today's findings, which
``icm check`` then counts and does not fail on (``icm.baseline`` reads it).

A first run writes every error and warning the checks report (the codes
``select``/``ignore`` keep, inline suppressions already applied). Once the
file exists it only shrinks: an entry whose finding is gone is dropped, a
count falls to what is found, and a finding it does not hold is left out
(exit 1) unless ``--grow``. ESLint splits its suppressions the same way
(``--prune-suppressions`` apart from ``--suppress-all``): a plain rerun,
the command an agent reaches for when a gate is red, must never silence the
finding that made it red. Entries of a check or code this run does not
judge are kept as they are; an entry in an older key (``baseline.adopt``)
is written in today's.

Only that one file is written, in one rename (``files``), never through a
symlink; a file changed while the checks ran is left alone.
"""

from __future__ import annotations

import os
from typing import List, Tuple

from icm import baseline, engine, registry
from icm.baseline import FILE, Key
from icm.context import Context, Unreadable, read_file
from icm.errors import UsageError
from icm.workflow import files


def write(ctx: Context, grow: bool = False) -> Tuple[List[str], int]:
    """Write the baseline; return the lines to print and the exit code (1
    when findings were left out)."""
    path = ctx.root / FILE
    if os.path.islink(path):
        raise UsageError(f"refusing to write {FILE}: it is a symlink; nothing "
                         "was changed")
    old = baseline.load(ctx)  # bounded and validated first
    before = _bytes(ctx) if old is not None else None
    cfg = ctx.config
    chosen = registry.Selection.of((cfg.select, cfg.ignore), ((), ()))
    specs = [spec for spec in registry.ALL if chosen.runs(spec.name)]
    chosen.check(specs)
    reports, _held = baseline.judge(ctx, engine.run(ctx, specs), chosen)
    found = [f for r in reports for f in r.findings]
    today = baseline.counted(found)
    recorded = old
    if old is not None:  # an entry as older versions keyed it, as today's
        old = baseline.adopt(old, found)
    ran = {r.check for r in reports}

    def judged(k: Key) -> bool:
        return k[0] in ran and chosen.wants(k[0], k[1])

    if old is None:
        entries, dropped, left_out = today, 0, 0
    else:
        entries = {k: n for k, n in old.items() if not judged(k)}
        for k, n in today.items():
            entries[k] = n if grow else min(n, old.get(k, 0))
        entries = {k: n for k, n in entries.items() if n}
        dropped = sum(n - entries.get(k, 0) for k, n in old.items()
                      if judged(k) and n > entries.get(k, 0))
        left_out = 0 if grow else sum(n - old.get(k, 0) for k, n in today.items()
                                      if n > old.get(k, 0))
    total = sum(entries.values())
    said: List[str] = []
    if old is not None and entries == recorded:
        said.append(f"left alone {FILE}: {_findings(total)}, none fixed")
    elif old is None and not entries:
        said.append(f"no findings: {FILE} not written")
    else:
        data = baseline.dump(entries)
        if before is not None and _bytes(ctx) != before:
            raise UsageError(f"{FILE} changed while icm ran; nothing was written")
        if before is None:
            files.create_new(ctx, FILE, data)
        else:
            files.replace_atomic(ctx, FILE, data)
        added = sum(n - (old or {}).get(k, 0) for k, n in entries.items()
                    if old is not None and n > old.get(k, 0))
        why = "".join(f" ({n} {what})" for n, what in (
            (dropped, "dropped: fixed"), (added, "added")) if n)
        said.append(f"wrote {FILE}: {_findings(total)}{why}")
    if left_out:
        them = "it" if left_out == 1 else "them"
        said.append(f"{FILE}: {_findings(left_out, 'new finding')} not added "
                    f"(fix {them}, or icm baseline --grow adds {them})")
    return said, 1 if left_out else 0


def _findings(n: int, noun: str = "finding") -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _bytes(ctx: Context) -> bytes:
    try:
        return read_file(ctx.root, FILE, 0, ctx.git_dir)
    except Unreadable as exc:
        raise UsageError(f"{FILE}: cannot read: {exc.reason}") from None

