"""Time ``icm check-handoff`` on many records over a long history.

    python bench/run_handoff.py OUT [--commits 3000] [--records 50 200] [--runs 5]

Builds OUT once with ``gen_history.py`` (``--commits`` commits, a merge of a
short side branch every 50th), then for each size writes that many handoff
records into ``handoff/`` (untracked, as a session leaves them), made at
commits spread evenly over HEAD's history, side branches included, so each
is "N commits ago". Times ``icm check-handoff`` as a process and as the
check's own work in-process, and counts the git processes one run starts (a
``git`` first on PATH that logs and runs the real one). Prints a markdown
table of medians.

The code timed is whichever ``icm`` Python imports: run it with
``PYTHONPATH`` pointing at an older copy to time that one on the same tree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

from timing import median_seconds

FIELDS = ("Reason", "Open question", "Identity and state", "Confirmed facts",
          "Actions taken", "Negative results", "Open work", "Verbatim tail",
          "Where the rest lives", "Size")


def record(commit: str) -> str:
    body = "".join(f"## {name}\nsource: bench\n\n" for name in FIELDS)
    return (f"# Handoff: main at {commit[:12]}\n\n"
            f"<!-- icm:handoff 1 made-at {commit} -->\n\n{body}")


def write_records(out: Path, n: int) -> None:
    folder = out / "handoff"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    commits = subprocess.run(["git", "rev-list", "HEAD"], cwd=out, check=True,
                             capture_output=True, text=True).stdout.split()
    for i in range(n):
        made = commits[(i * len(commits)) // n]
        (folder / f"2026-11-01_r{i:04d}.md").write_text(record(made))


def in_process(root: Path, runs: int) -> float:
    """Median seconds of the check's own work (context, reads, git), without
    the interpreter's and typer's start-up."""
    from icm import config, context
    from icm.checks import handoff

    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        handoff.run(context.build(root, config.load(root)))
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def git_processes(cmd: List[str], env: dict) -> int:
    """How many git processes one run of ``cmd`` starts."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "calls"
        log.write_text("")
        wrapper = Path(tmp) / "git"
        wrapper.write_text(f"#!/bin/sh\necho >> '{log}'\n"
                           f"exec '{shutil.which('git')}' \"$@\"\n")
        wrapper.chmod(0o755)
        subprocess.run(cmd, env=dict(env, PATH=f"{tmp}{os.pathsep}{env['PATH']}"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return len(log.read_text().splitlines())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--commits", type=int, default=3000)
    ap.add_argument("--records", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if not args.out.exists():
        subprocess.run([sys.executable, str(Path(__file__).with_name(
            "gen_history.py")), str(args.out), "--commits", str(args.commits),
            "--notes", "50"], check=True, stdout=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        del os.environ[key]
    cmd = [sys.executable, "-m", "icm", "check-handoff", "--root", str(args.out)]
    commits = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=args.out,
                             capture_output=True, text=True).stdout.strip()
    print("| commits | records | icm check-handoff (process) | its work in-process "
          "| git processes | findings |\n|---|---|---|---|---|---|")
    for n in args.records:
        write_records(args.out, n)
        process_s = median_seconds(args.runs, cmd, env=env)
        work_s = in_process(args.out.resolve(), args.runs)
        found = subprocess.run(cmd, env=env, capture_output=True,
                               text=True).stdout.count("\n")
        print(f"| {commits} | {n} | {process_s:.3f} s | {work_s:.3f} s "
              f"| {git_processes(cmd, env)} | {found} lines |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
