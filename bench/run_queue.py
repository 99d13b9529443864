"""Time ``icm check-queue --against`` against its floor: one ``git ls-tree`` of
each side.

    python bench/run_queue.py OUT [--commits 20000] [--items 2000] [--runs 5]

Builds OUT with ``git fast-import``: ``main`` has ``--commits`` commits, one in
ten adding a queue item (so ``--items`` items in all, a tenth of them later
finished as journal entries); branch ``feat`` forks 500 commits before main's
tip and adds 50 items of its own, numbered as a second writer would number
them (colliding). Then times, on ``feat``, ``icm check-queue --against main``
and the floor: ``git ls-tree -r`` of ``main`` and of ``feat`` over queue/ and
journal/, run back to back. Prints a markdown table of medians and the ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

from timing import median_seconds


def build(out: Path, commits: int, items: int) -> None:
    every = max(1, commits // items)
    data: List[bytes] = []
    t = 1_700_000_000

    def commit(ref: str, message: str, changes: List[bytes], parent: str) -> None:
        nonlocal t
        t += 60
        msg = message.encode()
        data.append(b"commit %s\ncommitter B <b@x> %d +0000\ndata %d\n%s\n"
                    % (ref.encode(), t, len(msg), msg))
        if parent:
            data.append(b"from %s\n" % parent.encode())
        data.extend(changes)
        data.append(b"\n")

    def put(path: str, text: str) -> bytes:
        raw = text.encode()
        return b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(raw), raw)

    fork = commits - 500
    n = 0
    for i in range(1, commits + 1):
        changes = [put(f"src/f{i % 97}.py", f"x = {i}\n")]
        if i % every == 0 and n < items:
            n += 1
            changes.append(put(f"queue/{n:04d}_item-{n}.md", f"# Item {n}\n"))
            if n % 10 == 0 and n > 20:
                done = n - 20
                changes.append(b"D queue/%04d_item-%d.md\n" % (done, done))
                changes.append(put(f"journal/2026-01-01_item-{done}.md",
                                   f"# Item {done}\n\nCarried over from "
                                   f"`queue/{done:04d}_item-{done}.md`:\n"))
        commit("refs/heads/main", f"c{i}", changes, "")
        if i == fork:
            data.append(b"reset refs/heads/feat\nfrom refs/heads/main\n\n")
            fork_n = n
    for j in range(1, 51):
        k = fork_n + j
        commit("refs/heads/feat", f"feat {j}",
               [put(f"queue/{k:04d}_mine-{k}.md", f"# Mine {k}\n")], "")
    subprocess.run(["git", "init", "-q", str(out)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=out, check=True,
                   input=b"".join(data))
    subprocess.run(["git", "checkout", "-q", "feat"], cwd=out, check=True)


def in_process(root: Path, runs: int) -> float:
    """Median seconds of the check's own work (context, git reads, compare),
    without the interpreter's and typer's start-up."""
    import statistics
    import time

    from icm import config, context
    from icm.checks import queue
    from icm.registry import QueueOptions

    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        ctx = context.build(root, config.load(root))
        queue.run(ctx, QueueOptions(against="main"))
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--commits", type=int, default=20000)
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if not args.out.exists():
        build(args.out, args.commits, args.items)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    icm = [sys.executable, "-m", "icm", "check-queue", "--against", "main",
           "--root", str(args.out)]
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as fh:
        fh.write("git ls-tree -r main -- queue journal >/dev/null && "
                 "git ls-tree -r feat -- queue journal >/dev/null\n")
    floor = ["sh", fh.name]
    icm_s = median_seconds(args.runs, icm, env=env)
    floor_s = median_seconds(args.runs, floor, cwd=args.out, env=env)
    os.unlink(fh.name)
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        del os.environ[key]
    work_s = in_process(args.out.resolve(), args.runs)
    found = subprocess.run(icm, env=env, capture_output=True, text=True).stdout
    print(f"| commits | items | icm check-queue --against (process) | its work "
          f"in-process | ls-tree both sides | process / floor | work / floor "
          f"| findings |\n|---|---|---|---|---|---|---|---|\n"
          f"| {args.commits} | {args.items} | {icm_s:.3f} s | {work_s:.3f} s "
          f"| {floor_s:.3f} s | {icm_s / floor_s:.2f}x | {work_s / floor_s:.2f}x "
          f"| {found.count(chr(10))} lines |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
