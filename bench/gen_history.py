"""Generate a repository with a long history for the staleness benchmark.

    python bench/gen_history.py OUT [--commits 20000] [--notes 500] [--seed 1]

Written with ``git fast-import`` so 20,000 commits take seconds: ``--notes``
folders, each with a ``context.md`` and three code files; every commit
touches one to three files, every 50th is a merge of a short side branch,
and committer times rise by 10 minutes a commit.
"""

from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path
from typing import List


def stream(commits: int, notes: int, seed: int) -> bytes:
    rng = random.Random(seed)
    folders = [f"pkg{i // 50:02d}/mod{i:03d}" for i in range(notes)]
    files = [f"{d}/{name}" for d in folders
             for name in ("context.md", "a.py", "b.py", "c.rs")]
    out: List[bytes] = []
    t = 1_700_000_000
    mark = 0

    def blob(text: str) -> int:
        nonlocal mark
        mark += 1
        data = text.encode()
        out.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
        return mark

    def commit(branch: str, paths: List[str], parent: int, merge: int = 0) -> int:
        nonlocal mark, t
        blobs = [(p, blob(f"{p} at {t}\n")) for p in paths]
        mark += 1
        t += 600
        msg = b"change"
        out.append(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), mark))
        out.append(b"author b <b@b> %d +0000\ncommitter b <b@b> %d +0000\n" % (t, t))
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        if parent:
            out.append(b"from :%d\n" % parent)
        if merge:
            out.append(b"merge :%d\n" % merge)
        for p, m in blobs:
            out.append(b"M 100644 :%d %s\n" % (m, p.encode()))
        out.append(b"\n")
        return mark

    head = commit("main", files, 0)
    made = 1
    while made < commits:
        if made % 50 == 0:
            side = head
            for _ in range(3):
                side = commit("side", rng.sample(files, rng.randint(1, 3)), side)
            head = commit("main", rng.sample(files, 1), head, merge=side)
            made += 4
        else:
            head = commit("main", rng.sample(files, rng.randint(1, 3)), head)
            made += 1
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=False)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=args.out, check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=args.out, check=True,
                   input=stream(args.commits, args.notes, args.seed))
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=args.out, check=True)
    count = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=args.out,
                           capture_output=True, text=True, check=True).stdout.strip()
    print(f"{count} commits, {args.notes} notes in {args.out}")


if __name__ == "__main__":
    main()
