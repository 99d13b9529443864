"""STALE findings of two icm runs scored against the labels (issue 24).

    python bench/stale_compare.py REPO BEFORE.json AFTER.json [REPO B A ...]
        [--labels bench/labels/adoption.json]

Each BEFORE/AFTER is a JSON report of one repository, from `icm check-stale
--format json` (or `adoption_trial.py --out`). For each labelled STALE note
(``stale_classes.latest_stale``: the last label of each repository and
note), whether each run still calls it STALE; per repository and pooled:
actionable and noise kept, unlabelled notes cleared, notes made STALE. The
notes a change cleared are printed with their label's verdict. Reads only
the files given; writes nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Set

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stale_classes import latest_stale  # noqa: E402


def stale_paths(path: str) -> Set[str]:
    doc: Dict[str, Any] = json.loads(Path(path).read_text())
    found: List[Dict[str, Any]] = doc["findings"] if "findings" in doc else [
        f for check in doc["checks"] for f in check["findings"]]
    return {f["path"] for f in found if f["check"] == "stale" and f["code"] == "stale"}


def main() -> None:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="REPO BEFORE.json AFTER.json ...")
    parser.add_argument("--labels", default=here / "labels/adoption.json")
    args = parser.parse_args()
    if len(args.runs) % 3:
        parser.error("give REPO BEFORE.json AFTER.json in threes")
    labels = latest_stale(Path(args.labels))
    total: collections.Counter[str] = collections.Counter()
    print("| repository | STALE before | after | actionable kept | noise kept "
          "| unlabelled cleared | made STALE |")
    print("|---|---|---|---|---|---|---|")
    for i in range(0, len(args.runs), 3):
        repo, before, after = args.runs[i:i + 3]
        was, now = stale_paths(before), stale_paths(after)
        row: collections.Counter[str] = collections.Counter()
        for (name, note), label in sorted(labels.items()):
            if name != repo or note not in was:
                continue
            row[label["verdict"]] += 1
            row[label["verdict"] + " kept"] += note in now
            if note not in now:
                print(f"  cleared ({label['verdict']}): {repo} {note}",
                      file=sys.stderr)
        row["stale"], row["stale after"] = len(was), len(now)
        row["unlabelled"] = len({p for p in was - now if (repo, p) not in labels})
        row["made"] = len(now - was)
        total.update(row)
        print(f"| {repo} | {row['stale']} | {row['stale after']} | "
              f"{row['actionable kept']} of {row['actionable']} | "
              f"{row['noise kept']} of {row['noise']} | {row['unlabelled']} | "
              f"{row['made']} |")
    print(f"| all | {total['stale']} | {total['stale after']} | "
          f"{total['actionable kept']} of {total['actionable']} | "
          f"{total['noise kept']} of {total['noise']} | {total['unlabelled']} | "
          f"{total['made']} |")


if __name__ == "__main__":
    main()
