"""The least time any link check built on pulldown-cmark's events can take
on a tree: read every tracked ``.md`` file and read every event pyromark
gives for it (with ranges, and its reference definitions), and nothing else
(no screens, no walk, no cache, no resolution), split over ``--jobs``
forked processes as icm splits a cold run.

    python bench/parse_floor.py TREE [--jobs N]

``run_links.py --floor`` times it as a command beside icm and the peers, so
interpreter start-up counts on both sides. A panic is caught and the file
counted; the number of files and panics goes to stdout.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import List


def _build(root: Path, names: List[str]) -> int:
    import pyromark

    md = pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES
                           | pyromark.Options.ENABLE_STRIKETHROUGH)
    panics = 0
    for name in names:
        path = root / name
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        try:
            for _ in md.events_with_range(text, merge_text=True):
                pass
            md.reference_definitions(text)
        except BaseException:  # noqa: BLE001 - a panic is a BaseException
            panics += 1
    return panics


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=args.tree,
                            capture_output=True, text=True, check=True).stdout
    names = [n for n in listed.split("\0") if n.endswith(".md")]
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # panic messages
    pids = []
    for i in range(args.jobs):
        pid = os.fork()
        if pid == 0:
            os._exit(min(_build(args.tree, names[i::args.jobs]), 100))
        pids.append(pid)
    panics = sum(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids)
    sys.stdout.write(f"{len(names)} files, {panics} panics\n")


if __name__ == "__main__":
    main()
