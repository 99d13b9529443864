"""Count the git processes one ``icm check`` starts, and time it (issue 27).

    python bench/run_gitcalls.py TREE [TREE...] [--runs 7] [--before OLD]

For each tree (a git work tree): the git subcommands ``python -m icm
check`` starts, in order, read from a logging ``git`` put first on
``PATH`` (icm resolves git from ``PATH``), then interleaved medians of CPU
(user plus system of icm and every git it waited for) and wall seconds.
With ``--before`` (``git archive REV icm | tar -x -C OLD``) the older code
runs in the same turns, ``PYTHONPATH`` at each copy, so both pay the same
interpreter start-up. Every command runs once untimed first (caches and
memos warm, bytecode written).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from timing import interleaved_medians

HERE = Path(__file__).resolve().parent.parent


def environment(code: Path, path: Optional[str] = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    if path is not None:
        env["PATH"] = path
    return env


def git_calls(tree: Path, code: Path) -> List[str]:
    """The subcommands of the git processes one ``icm check`` starts."""
    real = shutil.which("git")
    assert real, "git is not on PATH"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "calls"
        wrapper = Path(tmp) / "bin" / "git"
        wrapper.parent.mkdir()
        # icm's argv is git --no-pager --literal-pathspecs SUBCOMMAND ...
        wrapper.write_text(f"#!/bin/sh\necho \"$3\" >> '{log}'\n"
                           f"exec '{real}' \"$@\"\n")
        wrapper.chmod(0o755)
        log.write_text("")
        path = f"{wrapper.parent}{os.pathsep}{os.environ.get('PATH', '')}"
        subprocess.run([sys.executable, "-m", "icm", "check"], cwd=tree,
                       env=environment(code, path), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return log.read_text().split()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    codes = [("before", args.before)] if args.before else []
    codes.append(("after", HERE))
    print(f"load {os.getloadavg()[0]:.1f}")
    for tree in args.trees:
        for name, code in codes:
            calls = git_calls(tree, code)
            print(f"{tree.name} {name}: {len(calls)} git processes: "
                  f"{' '.join(calls)}")
        cmds = [[sys.executable, "-m", "icm", "check"] for _ in codes]
        envs = [environment(code) for _, code in codes]
        for cmd, env in zip(cmds, envs):
            subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        cpu = interleaved_medians(args.runs, cmds, cwd=tree, cpu=True, envs=envs)
        wall = interleaved_medians(args.runs, cmds, cwd=tree, envs=envs)
        for (name, _), c, w in zip(codes, cpu, wall):
            print(f"{tree.name} {name}: CPU {c:.3f} s, wall {w:.3f} s")
    print(f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
