"""Time icm check-stale against the floor: the same raw ``git log`` pass alone.

    python bench/run_stale.py REPO [REPO ...] [--runs 5]

The floor command is built from ``icm.git.history_command`` so the two can
never drift apart. Prints a markdown table of medians and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from icm import git


def median(runs: int, cmd, cwd: Path) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=git.clean_env())
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    args = parser.parse_args()
    print("| repository | commits | notes | git log floor | icm check-stale | ratio |")
    print("|---|---|---|---|---|---|")
    for repo in args.repos:
        repo = repo.resolve()
        commits = subprocess.run(["git", "rev-list", "--count", "--first-parent",
                                  "HEAD"], cwd=repo, capture_output=True,
                                 text=True).stdout.strip()
        notes = subprocess.run(["git", "ls-files", "--", "*context.md"], cwd=repo,
                               capture_output=True, text=True).stdout.count("\n")
        floor = median(args.runs, ["git", *git.BASE,
                                   *git.history_command("first-parent")], repo)
        icm = median(args.runs, [args.icm, "check-stale", "--root", str(repo)], repo)
        print(f"| {repo.name} | {commits} (first-parent) | {notes} | {floor:.2f} s | "
              f"{icm:.2f} s | {icm / floor:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
