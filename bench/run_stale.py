"""Time icm check-stale against the floor: the plain ``git log`` a user
would run for the same facts.

    python bench/run_stale.py REPO [REPO ...] [--runs 5] [--seed-notes]
        [--history first-parent|all] [--base REF] [--cpu]

``--seed-notes`` commits a ``context.md`` into every folder that holds
tracked code and has none (git/git has no notes of its own), one commit on
top of HEAD: use it on a throw-away clone only. ``--history all`` writes
``stale_history = "all"`` into an ``icm.toml`` at the root (also for a
throw-away clone) and times the walk of every commit. ``--base REF`` runs
``icm check-stale --base REF`` (a pull request's judging: the commits HEAD
adds to REF on top of REF's history, two git processes at once) against
the same floor, HEAD's plain log; its history command is REF's pass.
``--cpu`` times user plus system CPU, children included (both passes
count in full, where wall time overlaps them), for a loaded machine.

The floor is ``git log [--first-parent] --name-only``, no pathspec, its output
discarded. icm's own history command (``icm.git.history_command``, so the
two cannot drift apart) is timed alone beside it. The three run in turn,
one of each and again, so a shift in the machine's load falls on all. Peak memory is the
largest sum of resident sets over icm and every process under it, read
from ``/proc`` every 10 ms. Prints a markdown table of medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Set

from timing import interleaved_medians, median_seconds

from icm import git


def seed_notes(repo: Path) -> int:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True,
                           check=True).stdout.decode().split("\0")
    folders = {str(Path(f).parent) for f in files if f and not f.endswith(".md")}
    added = 0
    for folder in sorted(folders):
        note = repo / folder / "context.md"
        if not note.exists():
            note.write_text(f"# {folder}\n")
            added += 1
    if added:
        subprocess.run(["git", "add", "-A", "--", "*context.md"], cwd=repo, check=True)
        subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=b@b",
                        "commit", "-qm", "bench: seed notes"], cwd=repo, check=True)
    return added


def _tree_rss(top: int) -> int:
    """Resident bytes of ``top`` and every process under it."""
    children: Dict[int, List[int]] = {}
    rss: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)  # ppid
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [top]
    seen: Set[int] = set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            total += rss.get(pid, 0)
            todo += children.get(pid, [])
    return total


def peak_tree_rss(runs: int, cmd: Sequence[str], cwd: Path,
                  env: Dict[str, str]) -> int:
    """Median over ``runs`` of the peak resident set of the process tree."""
    peaks = []
    for _ in range(runs):
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.01)
        peaks.append(peak)
    return int(statistics.median(peaks))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    parser.add_argument("--before", help="another icm (an older build) timed in "
                        "the same run, for a before/after figure")
    parser.add_argument("--seed-notes", action="store_true")
    parser.add_argument("--history", choices=("first-parent", "all"),
                        default="first-parent")
    parser.add_argument("--base", help="judge HEAD as a branch merging into "
                        "this ref (icm check-stale --base REF)")
    parser.add_argument("--cpu", action="store_true", help="time CPU (user + "
                        "system, children included), not wall: a shared machine")
    args = parser.parse_args()
    print("| repository | history | commits | notes | raw git log (floor) | "
          "icm's history command | icm check-stale | icm / floor | "
          "peak RSS, raw | peak RSS, icm |" + (" before | before / floor |"
                                               if args.before else ""))
    print("|---" * (12 if args.before else 10) + "|")
    env = git.environment()
    first = ["--first-parent"] if args.history == "first-parent" else []
    for repo in args.repos:
        repo = repo.resolve()
        if args.seed_notes:
            seed_notes(repo)
        if args.history == "all":
            config = repo / "icm.toml"
            if not config.exists():
                config.write_text('stale_history = "all"\n')
        commits = subprocess.run(["git", "rev-list", "--count", *first, "HEAD"],
                                 cwd=repo, capture_output=True,
                                 text=True).stdout.strip()
        notes = subprocess.run(["git", "ls-files", "--", "*context.md"], cwd=repo,
                               capture_output=True, text=True).stdout.count("\n")
        exe = git.executable() or "git"
        # Both write to /dev/null (the timing loop's stdout); icm's pass writes
        # to a temporary file, which it then reads back.
        raw = [exe, "log", *first, "--name-only"]
        base = git.commit_of(repo, args.base) if args.base else None
        if args.base and base is None:
            sys.exit(f"--base {args.base}: names no commit in {repo}")
        own = [exe, *git.BASE, *git.history_command(args.history,
                                                    git.at_top_level(repo), base)]
        icm_cmd = [args.icm, "check-stale", "--root", str(repo),
                   *(["--base", args.base] if args.base else [])]
        floor, ours, icm = interleaved_medians(args.runs, [raw, own, icm_cmd], repo,
                                               env, cpu=args.cpu)
        before = ""
        if args.before:
            old = median_seconds(args.runs, [args.before, *icm_cmd[1:]], repo, env,
                                 cpu=args.cpu)
            before = f" {old:.2f} s | {old / floor:.2f}x |"
        mem_raw = peak_tree_rss(min(args.runs, 3), raw, repo, env) >> 20
        mem_icm = peak_tree_rss(min(args.runs, 3), icm_cmd, repo, env) >> 20
        mode = f"{args.history}, --base {args.base}" if args.base else args.history
        print(f"| {repo.name} | {mode} | {commits} | {notes} | "
              f"{floor:.2f} s | {ours:.2f} s | {icm:.2f} s | {icm / floor:.2f}x | "
              f"{mem_raw} MiB | {mem_icm} MiB |{before}", flush=True)


if __name__ == "__main__":
    main()
