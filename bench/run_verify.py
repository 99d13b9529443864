"""Time ``icm verify`` over generated entries against the serial sum.

    python bench/run_verify.py [--entries 200] [--seconds 0.1] [--runs 3]
                               [--jobs 1 2]

Writes ENTRIES journal entries whose Verify command is ``sleep SECONDS``
into a temporary folder (no git needed), then times ``icm verify --jobs N``
for each N. The serial sum is measured too: the same ``sh -c`` commands run
one after another by this script, which is the floor for ``--jobs 1``;
divided by N it is the floor for ``--jobs N``. Prints a markdown table of
medians.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import median_seconds

ENTRY = """# Entry {n}

## Decision
Generated.

## Rejected alternative
None taken.

## Invariant
Sleeping works.

## Verify command
`sleep {seconds}`
"""


def generate(root: Path, entries: int, seconds: float) -> None:
    (root / "journal").mkdir()
    (root / "icm.toml").write_text("verify_timeout = 60\n")
    for n in range(entries):
        name = f"2026-01-01_entry-{n:04d}.md"
        (root / "journal" / name).write_text(ENTRY.format(n=n, seconds=seconds))


def serial_sum(entries: int, seconds: float, cwd: Path) -> float:
    start = time.perf_counter()
    for _ in range(entries):
        subprocess.run(["sh", "-c", f"sleep {seconds}"], cwd=cwd,
                       stdin=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.entries, args.seconds)
        floor = serial_sum(args.entries, args.seconds, root)
        print(f"{args.entries} entries, each `sleep {args.seconds}`; nominal "
              f"{args.entries * args.seconds:.1f} s; serial sum measured "
              f"{floor:.2f} s")
        print()
        print("| --jobs | icm verify (median) | serial sum / jobs | ratio |")
        print("|---|---|---|---|")
        for jobs in args.jobs:
            took = median_seconds(args.runs, [args.icm, "verify", "--jobs", str(jobs),
                                              "--root", str(root)])
            bound = floor / jobs
            print(f"| {jobs} | {took:.2f} s | {bound:.2f} s | {took / bound:.2f}x |")


if __name__ == "__main__":
    main()
