"""Time icm check-links (cold and warm) against lychee and remark-validate-links
on the same trees, in the same run. Prints a markdown table of medians.

    python bench/run_links.py TREE [TREE ...] [--runs 5] [--lychee PATH]
                              [--remark DIR] [--remark-runs 1]

Cold: icm's cache deleted before each run. Warm: cache left from the run
before. lychee runs offline with fragment checking; remark-validate-links
runs through remark-cli (DIR holds its node_modules). A peer that is not
given is left out of the table. Exit codes of peers are not judged: they
disagree with icm and each other about what is broken (see the counts).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence


def timed(cmd: Sequence[str], cwd: Optional[Path] = None) -> float:
    start = time.perf_counter()
    code = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    elapsed = time.perf_counter() - start
    if "icm" in Path(cmd[0]).name and code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {code}: a failed run is not a timing")
    return elapsed


def median_of(runs: int, cmd: Sequence[str], before=None, cwd=None) -> float:
    samples: List[float] = []
    for _ in range(runs):
        if before:
            before()
        samples.append(timed(cmd, cwd))
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    parser.add_argument("--lychee")
    parser.add_argument("--remark", type=Path)
    parser.add_argument("--remark-runs", type=int, default=1)
    args = parser.parse_args()
    print("| tree | md files | icm cold | icm warm | lychee | remark-validate-links "
          "| cold / lychee | warm / lychee |")
    print("|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        tree = tree.resolve()
        md = subprocess.run(["git", "ls-files", "*.md"], cwd=tree, capture_output=True,
                            text=True).stdout.count("\n")
        cache = tree / ".git" / "icm"
        icm = [args.icm, "check-links", "--root", str(tree)]
        cold = median_of(args.runs, icm,
                         before=lambda cache=cache: shutil.rmtree(cache, True))
        warm = median_of(args.runs, icm)
        lychee = remark = None
        if args.lychee:
            lychee = median_of(args.runs, [args.lychee, "--offline",
                                           "--include-fragments", "--no-progress",
                                           "--root-dir", str(tree), str(tree)])
        if args.remark:
            bin_ = str(args.remark / "node_modules" / ".bin" / "remark")
            remark = median_of(args.remark_runs, [
                bin_, "--quiet", "--frail", "--no-stdout", "--use",
                "remark-validate-links", "."], cwd=tree)
        print(f"| {tree.name} | {md} | {_secs(cold)} | {_secs(warm)} | "
              f"{_secs(lychee)} | {_secs(remark)} | {_ratio(cold, lychee)} | "
              f"{_ratio(warm, lychee)} |", flush=True)


def _secs(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _ratio(value: float, peer: Optional[float]) -> str:
    return "n/a" if not peer else f"{value / peer:.1f}x"


if __name__ == "__main__":
    main()
