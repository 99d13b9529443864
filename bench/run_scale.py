"""Time, CPU and peak memory of ``icm check`` on large trees, beside lychee.

    python bench/gen_monorepo.py /tmp/m200k --files 200000
    python bench/run_scale.py /tmp/m50k /tmp/m200k [--runs 3] [--lychee PATH]

Each round runs, in turn, icm cold (cache deleted), icm warm (the cache and
memos of the run before; nothing changed) and lychee (offline, fragments
checked), so a change in the machine's load falls on all of them alike.
Medians of wall and of CPU (user plus system of the process and every
child it waited for, ``wait4``: the figure a shared machine moves least);
peak memory is the largest resident set ``wait4`` reports for the run.
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
from typing import Dict, List, Optional, Tuple

Sample = Tuple[float, float, int]  # wall s, CPU s, peak RSS KiB


def count_files(tree: Path) -> Tuple[int, int]:
    """Files and markdown files git lists, read as a stream: a child's
    peak counts the pages it shared with this process until exec, and a
    list of 500,000 names made every later run's peak 79 MiB."""
    files = md = 0
    with subprocess.Popen(["git", "ls-files"], cwd=tree,
                          stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            files += 1
            md += line.endswith(b".md\n")
    return files, md


def measure(cmd: List[str], cwd: Optional[Path] = None) -> Sample:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1, 2) or (
            os.waitstatus_to_exitcode(status) == 2 and "icm" in cmd[0]):
        sys.exit(f"{' '.join(cmd)} failed: a failed run is not a timing")
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss)  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    parser.add_argument("--lychee")
    parser.add_argument("--no-cold", action="store_true")
    args = parser.parse_args()
    print("| tree | files | markdown | run | median wall | median CPU | peak RSS "
          "| CPU / lychee |")
    print("|---|---|---|---|---|---|---|---|")
    for tree in (t.resolve() for t in args.trees):
        files, md = count_files(tree)
        icm = [args.icm, "check", "--root", str(tree)]
        runs: Dict[str, List[str]] = {"warm": icm}
        if not args.no_cold:
            runs = {"cold": icm, **runs}
        if args.lychee:
            runs["lychee"] = [args.lychee, "--offline", "--include-fragments",
                              "--no-progress", "--root-dir", str(tree), str(tree)]
        samples: Dict[str, List[Sample]] = {name: [] for name in runs}
        subprocess.run(icm, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(args.runs):
            for name, cmd in runs.items():
                if name == "cold":
                    shutil.rmtree(tree / ".git" / "icm", ignore_errors=True)
                samples[name].append(measure(cmd, tree))
                if name == "cold":  # the next warm run meets the usual cache
                    subprocess.run(icm, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        peer = (statistics.median(s[1] for s in samples["lychee"])
                if "lychee" in samples else None)
        for name, got in samples.items():
            wall = statistics.median(s[0] for s in got)
            cpu = statistics.median(s[1] for s in got)
            peak = max(s[2] for s in got)
            ratio = f"{cpu / peer:.2f}x" if peer and name != "lychee" else ""
            print(f"| {tree.name} | {files} | {md} | {name} | {wall:.2f} s | "
                  f"{cpu:.2f} s | {peak / 1024:.0f} MiB | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
