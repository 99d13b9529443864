"""CPU of ``check-links`` before and after a change, cold and warm (issue 24).

    python bench/run_link_targets.py TREE --before OLD --after NEW [--runs 9]

OLD and NEW are copies of icm (``git archive REV icm | tar -x -C OLD``),
byte-compiled first (``python -m compileall``: with
``PYTHONDONTWRITEBYTECODE`` an uncompiled copy pays 40 ms a run), run with
``PYTHONPATH`` at each, in turns. Cold: the tree's ``.git/icm`` deleted
first; warm: after a run of the same copy (the two share the cache folder,
so each warms its own). CPU is user plus system of icm and every git it
waited for; the counts are the run's errors and ``ignored-target`` lines.
Writes only the tree's cache folder: point it at a scratch clone.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
from typing import Dict, List, Tuple


def once(tree: str, icm: str, cold: bool) -> Tuple[float, int, int]:
    if cold:
        shutil.rmtree(os.path.join(tree, ".git", "icm"), ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "icm", "check-links", "--root",
                           tree, "--format", "json"], cwd="/",
                          env={**os.environ, "PYTHONPATH": icm},
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"icm exited {done.returncode}: {done.stderr.strip()[:200]}")
    found = json.loads(done.stdout)["checks"][0]["findings"]
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
            sum(f["severity"] == "error" for f in found),
            sum(f["code"] == "ignored-target" for f in found))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    got: Dict[Tuple[str, bool], List[Tuple[float, int, int]]] = \
        collections.defaultdict(list)
    copies = (("before", a.before), ("after", a.after))
    for _ in range(a.runs):
        for cold in (True, False):
            for label, icm in copies:
                if not cold:
                    once(a.tree, icm, False)
                got[(label, cold)].append(once(a.tree, icm, cold))
    print("| run | before | after | errors before / after | ignored-target "
          "after |")
    print("|---|---|---|---|---|")
    for cold in (True, False):
        b, n = got[("before", cold)], got[("after", cold)]
        print(f"| {'cold' if cold else 'warm'} | "
              f"{statistics.median(x[0] for x in b):.3f} s | "
              f"{statistics.median(x[0] for x in n):.3f} s | "
              f"{b[0][1]} / {n[0][1]} | {n[0][2]} |")


if __name__ == "__main__":
    main()
