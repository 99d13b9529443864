"""Time and peak memory of ``icm check`` on a large tree.

    python bench/gen_links.py /tmp/scale --files 5000 --other 45000
    python bench/run_scale.py /tmp/scale [--runs 3]

Peak memory is the maximum resident set size the kernel reports for the icm
process and the workers it waited for (``wait4``), cold (cache deleted) and
warm.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Tuple


def measure(cmd: List[str]) -> Tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed: a failed run is not a timing")
    return time.perf_counter() - start, usage.ru_maxrss  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    args = parser.parse_args()
    tree = args.tree.resolve()
    files = subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True,
                           text=True).stdout.splitlines()
    md = sum(1 for f in files if f.endswith(".md"))
    cmd = [args.icm, "check", "--root", str(tree)]
    print("| tree | files | markdown | run | median time | peak RSS |")
    print("|---|---|---|---|---|---|")
    for label in ("cold", "warm"):
        samples = []
        for _ in range(args.runs):
            if label == "cold":
                shutil.rmtree(tree / ".git" / "icm", ignore_errors=True)
            samples.append(measure(cmd))
        secs = statistics.median(s for s, _ in samples)
        peak = max(m for _, m in samples)
        print(f"| {tree.name} | {len(files)} | {md} | {label} | {secs:.2f} s | "
              f"{peak / 1024:.0f} MiB |", flush=True)


if __name__ == "__main__":
    main()
