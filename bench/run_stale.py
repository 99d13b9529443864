"""Time icm check-stale against the floor: the same raw ``git log`` pass alone.

    python bench/run_stale.py REPO [REPO ...] [--runs 5] [--seed-notes]

``--seed-notes`` commits a ``context.md`` into every folder that holds
tracked code and has none (git/git has no notes of its own), one commit on
top of HEAD: use it on a throw-away clone only.

The floor command is built from ``icm.git.history_command`` so the two can
never drift apart. Prints a markdown table of medians and the ratio.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from timing import median_seconds

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    parser.add_argument("--seed-notes", action="store_true")
    args = parser.parse_args()
    print("| repository | commits | notes | git log to a file (floor) | git log into a "
          "pipe | icm check-stale | ratio to floor |")
    print("|---|---|---|---|---|---|---|")
    env = git.environment()
    for repo in args.repos:
        repo = repo.resolve()
        if args.seed_notes:
            seed_notes(repo)
        commits = subprocess.run(["git", "rev-list", "--count", "--first-parent",
                                  "HEAD"], cwd=repo, capture_output=True,
                                 text=True).stdout.strip()
        notes = subprocess.run(["git", "ls-files", "--", "*context.md"], cwd=repo,
                               capture_output=True, text=True).stdout.count("\n")
        log = [git.executable() or "git", *git.BASE,
               *git.history_command("first-parent")]
        floor = median_seconds(args.runs, log, repo, env)
        piped = median_seconds(args.runs, ["sh", "-c", " ".join(
            f"'{a}'" for a in log) + " | cat > /dev/null"], repo, env)
        icm = median_seconds(args.runs, [args.icm, "check-stale", "--root",
                                         str(repo)], repo, env)
        print(f"| {repo.name} | {commits} (first-parent) | {notes} | {floor:.2f} s | "
              f"{piped:.2f} s | {icm:.2f} s | {icm / floor:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
