"""Differential test of icm's two markdown backends (issues 16, 27).

    python bench/diff_backends.py TREE [TREE ...] [--show 10]

For every ``.md`` file of each tree (read in place; nothing is copied), the
fast path's ``explain`` (``icm.markdown_events``, pulldown-cmark through
pyromark) and ``icm.markdown.extract_reference`` (markdown-it-py) must give
the same ``Extract``: the same links in the same order with the same lines, raw and
normalised destinations and kinds, the same anchors and the same headings.
A file the fast path declines goes to the reference in icm, so it counts
as "declined", never as a difference; the reasons are tallied. Exit 1 on
any difference, 2 when the backend's wheel is not installed.

Pass this repository too (``.``): its docs, journal and the example
repository are the test suite's fixtures.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import List, Tuple

from icm import markdown, markdown_events


def md_files(tree: Path) -> List[Tuple[str, str]]:
    found = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in (".git", ".venv", "node_modules"))
        for name in sorted(files):
            if name.endswith(".md"):
                path = Path(folder, name)
                if not path.is_file() or path.is_symlink():
                    continue
                try:
                    text = path.read_bytes().decode("utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                found.append((str(path.relative_to(tree)), text))
    return found


def first_difference(a: markdown.Extract, b: markdown.Extract) -> str:
    for field in ("links", "anchors", "headings"):
        xs, ys = getattr(a, field), getattr(b, field)
        for i, (x, y) in enumerate(zip(xs, ys)):
            if x != y:
                return f"{field}[{i}]: fast {x!r} / reference {y!r}"
        if len(xs) != len(ys):
            return f"{field}: fast has {len(xs)}, reference {len(ys)}"
    return f"too_deep: fast {a.too_deep} / reference {b.too_deep}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args()
    backend = markdown_events
    if not backend.available():
        print("pyromark is not installed (pip install 'icm-hygiene[fast]')",
              file=sys.stderr)
        return 2
    print("| tree | md files | links compared | fast path | declined | differing |")
    print("|---|---|---|---|---|---|")
    total_diff = 0
    reasons: Counter = Counter()
    shown: List[str] = []
    for tree in args.trees:
        tree = tree.resolve()
        files = md_files(tree)
        fast = declined = differing = links = 0
        for rel, text in files:
            got, why = backend.explain(text)
            want = markdown.extract_reference(text)
            links += len(want.links)
            if got is None:
                declined += 1
                reasons[why] += 1
                continue
            fast += 1
            if got != want:
                differing += 1
                shown.append(f"{tree.name}/{rel}: {first_difference(got, want)}")
        total_diff += differing
        print(f"| {tree.name} | {len(files)} | {links} | {fast} | {declined} | "
              f"{differing} |", flush=True)
    for reason, count in reasons.most_common():
        print(f"declined: {count} x {reason}")
    for line in shown[:args.show]:
        print(f"DIFF {line}")
    return 1 if total_diff else 0


if __name__ == "__main__":
    sys.exit(main())
