"""How often ``icm brief`` holds the entry a queue item bears on, and how
large the brief stays as the journal grows.

    python bench/eval_brief.py [/tmp/bench/brief] [--entries 500] [--items 100]
    python bench/eval_brief.py --sizes 10,50,100,250,500,1000
    python bench/eval_brief.py --no-bonus    # what the ranking adds to similarity

The project comes from ``gen_brief.py`` (labels from its construction).
Recall: for each item, is its labelled entry among the positions a brief of
1,000, 2,000 and 4,000 tokens shows (and where it ranks when nothing is
cut). Sizes: for journals of each size, the largest brief of the first
twenty items at the default budget (2,000 tokens, ``budget`` 1600 plus a
quarter), the positions view whole, and the CPU time of one brief.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gen_brief import generate  # noqa: E402

from icm import config, context  # noqa: E402
from icm.model import positions  # noqa: E402
from icm.workflow import brief  # noqa: E402

BUDGETS = (1000, 2000, 4000)


def _context(root: Path) -> context.Context:
    return context.build(root, config.load(root))


def recall(root: Path, entries: int, items: int, seed: int) -> None:
    labels = generate(root, entries, items, seed)
    ctx = _context(root)
    view = positions.build(ctx)
    hits: Dict[int, Dict[str, List[bool]]] = {b: {} for b in BUDGETS}
    ranks: List[int] = []
    for item, label in sorted(labels.items()):
        full = brief.assemble(ctx, [item], 10**9, view=view)
        listed = [p.entry for p in full.positions]
        ranks.append(listed.index(label["entry"]) + 1
                     if label["entry"] in listed else 0)
        for budget in BUDGETS:
            b = brief.assemble(ctx, [item], budget, view=view)
            shown = {p.entry for p in b.positions[:b.shown]}
            hits[budget].setdefault(label["kind"], []).append(
                label["entry"] in shown)
    kinds = sorted({k for h in hits.values() for k in h})
    print(f"{entries} entries, {len(labels)} items (seed {seed})")
    print("| budget | " + " | ".join(f"{k} ({len(hits[BUDGETS[0]][k])})"
                                      for k in kinds) + " | all |")
    print("|---:|" + "---:|" * (len(kinds) + 1))
    for budget in BUDGETS:
        row = [sum(hits[budget][k]) / len(hits[budget][k]) for k in kinds]
        every = [h for k in kinds for h in hits[budget][k]]
        print(f"| {budget:,} | " + " | ".join(f"{r:.0%}" for r in row)
              + f" | **{sum(every) / len(every):.0%}** |")
    found = [r for r in ranks if r]
    print(f"rank when nothing is cut: median {statistics.median(found)}, "
          f"first {sum(r == 1 for r in ranks)}, top 5 {sum(0 < r <= 5 for r in ranks)}"
          f", not listed {ranks.count(0)} of {len(ranks)}")


def sizes(root: Path, counts: List[int], seed: int) -> None:
    print("| entries | positions view | brief, largest of 20 items | "
          "files in it | CPU per brief |")
    print("|---:|---:|---:|---:|---:|")
    for n in counts:
        labels = generate(root / f"n{n}", n, 20, seed)
        ctx = _context(root / f"n{n}")
        view = positions.build(ctx)
        whole = len(positions.render_markdown(view).encode()) // 4
        largest, files, times = 0, 0, []
        for item in sorted(labels):
            start = time.process_time()
            b = brief.assemble(ctx, [item])
            times.append(time.process_time() - start)
            if b.tokens > largest:
                largest = b.tokens
                files = len(brief._head(b.items, b.parts).encode()) // 4
        print(f"| {n:,} | {whole:,} tokens | {largest:,} tokens "
              f"(budget {b.budget:,}) | {files:,} tokens | "
              f"{statistics.median(times) * 1000:.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?",
                        default=Path("/tmp/bench/brief"))
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sizes", default="")
    parser.add_argument("--no-bonus", action="store_true",
                        help="similarity and named entries alone (no folder or "
                        "warning bonus): what the bonuses add")
    args = parser.parse_args()
    if args.no_bonus:
        brief.FOLDER_BONUS = brief.WARNED_BONUS = 0.0
    if args.sizes:
        sizes(args.folder, [int(n) for n in args.sizes.split(",")], args.seed)
    else:
        recall(args.folder, args.entries, args.items, args.seed)


if __name__ == "__main__":
    main()
