"""Time icm's start-up beside the bare interpreter, and say where it goes.

    python bench/run_startup.py [--tree DIR] [--runs 11] [--imports 5]
                                [--before OLD] [--code NAME=DIR ...]
                                [--instructions]

Each command runs as ``python -m icm ...`` from ``--tree`` (default: this
repository's ``example_repo``) with ``PYTHONPATH`` at the code timed: this
checkout, and with ``--before`` an older copy of it (``git archive REV icm |
tar -x -C OLD``; ``--code``: any other copy, named), so each pays the same
interpreter and site start-up. The
floor, ``python -c pass``, runs in the same turns. Figures are medians of
interleaved runs (``timing.interleaved_medians``), CPU seconds (user plus
system of the process and the git it waited for: the machine is shared) and
wall seconds, with the load average before and after.

``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment and
every command runs once untimed: an installed icm has its bytecode, and with
the variable set every module of icm compiled from source on every run
(0.2 s of a check).

``--instructions`` adds each command's instructions (valgrind's callgrind,
``PYTHONHASHSEED=0``, one run: the count is the same whatever the load, where
CPU seconds on a shared machine swung 20 %), icm's process alone: the git it
starts is not traced.

Then ``-X importtime`` of each command (median of ``--imports`` runs of the
code timed, not ``--before``'s): the modules loaded beyond the floor's, the
import time they took, and the costliest by own time, icm's modules one by
one, every other package as one row.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from timing import interleaved_medians

HERE = Path(__file__).resolve().parent.parent
COMMANDS: Tuple[Tuple[str, ...], ...] = (("--version",), ("--help",),
                                         ("check-links",), ("check",))
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def environment(code: Path) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    return env


def icm(argv: Sequence[str]) -> List[str]:
    return [sys.executable, "-m", "icm", *argv]


def instructions(cmd: Sequence[str], code: Path, tree: Path) -> int:
    """Instructions ``cmd`` executes (callgrind's ``Collected``), run once
    before untraced."""
    env = dict(environment(code), PYTHONHASHSEED="0")
    subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    proc = subprocess.run(["valgrind", "--tool=callgrind",
                           "--callgrind-out-file=/dev/null", *cmd], cwd=tree,
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode not in (0, 1) or not found:
        sys.exit(f"{' '.join(cmd)} under valgrind exited {proc.returncode}")
    return int(found.group(1))


def loaded(code: Path, tree: Path, argv: Sequence[str]) -> Tuple[int, Counter]:
    """One ``-X importtime`` run: the number of modules imported and each
    one's own microseconds, by module (icm's) or top-level package."""
    cmd = [sys.executable, "-X", "importtime",
           *(["-m", "icm", *argv] if argv else ["-c", "pass"])]
    proc = subprocess.run(cmd, cwd=tree, env=environment(code), text=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}")
    own: Counter = Counter()
    count = 0
    for match in map(_LINE.match, proc.stderr.splitlines()):
        if match:
            name = match.group(4)
            own[name if name.startswith("icm") else name.split(".")[0]] += int(
                match.group(1))
            count += 1
    return count, own


def imports(code: Path, tree: Path, argv: Sequence[str], runs: int
            ) -> Tuple[int, Dict[str, float]]:
    samples = [loaded(code, tree, argv) for _ in range(runs)]
    names = set().union(*(own for _, own in samples))
    return (samples[0][0], {name: statistics.median(own[name] for _, own in samples)
                            for name in names})


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=HERE / "example_repo")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--imports", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args(argv)
    codes = [("after", HERE)] + ([("before", args.before)] if args.before else []) + [
        (name, Path(path)) for name, _, path in (c.partition("=") for c in args.code)]
    for name, code in codes:
        found = subprocess.run(
            [sys.executable, "-c", "import icm; print(icm.__file__)"],
            env=environment(code), capture_output=True, text=True,
            cwd=args.tree).stdout.strip()
        if not found.startswith(str(code.resolve())):
            sys.exit(f"{name}: PYTHONPATH={code} imports icm from {found}")
    floor = [sys.executable, "-c", "pass"]
    timed: List[Tuple[str, List[str], Path]] = [("python -c pass", floor, HERE)]
    for command in COMMANDS:
        for name, code in codes:
            timed.append((f"icm {' '.join(command)} ({name})", icm(command), code))
    # Each timed run right after one of its own: a run of another command
    # leaves the caches as that command wants them (``icm check``'s agents
    # check rewrites the link cache with its two files), and the first run
    # of a code writes its bytecode.
    runs = [cmd for _, cmd, _ in timed for _ in range(2)]
    envs = [environment(code) for _, _, code in timed for _ in range(2)]
    load = os.getloadavg()
    cpu = interleaved_medians(args.runs, runs, cwd=args.tree, cpu=True, envs=envs)[1::2]
    wall = interleaved_medians(args.runs, runs, cwd=args.tree, envs=envs)[1::2]
    after = os.getloadavg()
    counted = [instructions(cmd, code, args.tree) for _, cmd, code in timed
               ] if args.instructions else []
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load "
          f"{load[0]:.1f} before, {after[0]:.1f} after; medians of {args.runs}, "
          f"tree {args.tree}\n")
    print("| command | CPU s | wall s | CPU vs python -c pass |"
          + (" instructions (M) | vs python -c pass |" if counted else ""))
    print("|---|---|---|---|" + ("---|---|" if counted else ""))
    for i, ((label, _, _), c, w) in enumerate(zip(timed, cpu, wall)):
        print(f"| `{label}` | {c:.3f} | {w:.3f} | {c / cpu[0]:.2f}x |" + (
            f" {counted[i] / 1e6:.0f} | {counted[i] / counted[0]:.2f}x |"
            if counted else ""))
    base_count, base = imports(HERE, args.tree, (), args.imports)
    for command in COMMANDS:
        count, own = imports(HERE, args.tree, command, args.imports)
        extra = {k: v for k, v in own.items() if k not in base or k == "site"}
        print(f"\n`icm {' '.join(command)}`: {count} modules ({base_count} in the "
              f"floor), {sum(own.values()) / 1000:.1f} ms of imports "
              f"({sum(base.values()) / 1000:.1f} ms in the floor); costliest:")
        print(", ".join(f"{k} {v / 1000:.1f}" for k, v in sorted(
            extra.items(), key=lambda kv: -kv[1])[:args.top]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
