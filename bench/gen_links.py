"""Generate a deterministic markdown tree for the link benchmark.

    python bench/gen_links.py OUT [--files 5000] [--seed 1] [--other 0]

Every link kind icm extracts appears (inline, reference, definition, image,
autolink, raw HTML, fragments, folder links, external URLs), about 20 links a
file, and about 2 % of them broken. ``--other N`` adds N non-markdown files
(source-like text) beside them, for the scale run. The tree is made a git
repository so icm reads it as users' trees are read.
"""

from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path


def generate(out: Path, files: int, seed: int) -> int:
    rng = random.Random(seed)
    names = [f"area{i % 50:02d}/topic{i // 50:03d}/page{i}.md" for i in range(files)]
    total = 0
    for i, name in enumerate(names):
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"# Page {i}", "", "Intro paragraph with no links at all, just "
                 "prose that the parser has to read anyway.", ""]
        for section in range(4):
            lines += [f"## Section {section} of page {i}", ""]
            for _ in range(5):
                j = rng.randrange(files)
                other = names[j]
                rel = Path(*([".."] * 2), other).as_posix()
                broken = rng.random() < 0.02
                kind = rng.randrange(8)
                target = rel + ("-gone" if broken else "")
                if kind == 0:
                    lines.append(f"See [page {j}]({target}) for details.")
                elif kind == 1:
                    frag = f"section-{rng.randrange(5 if broken else 4)}-of-page-{j}"
                    lines.append(f"Jump to [there]({rel}#{frag}).")
                elif kind == 2:
                    lines.append(f"Read [the ref][r{total}] too.")
                    lines.append("")
                    lines.append(f"[r{total}]: {target}")
                elif kind == 3:
                    lines.append(f"![diagram](/{other}{'-gone' if broken else ''})")
                elif kind == 4:
                    lines.append(f'<a href="{target}">html link</a>')
                elif kind == 5:
                    lines.append(f"<https://example.com/{i}/{j}> is external.")
                elif kind == 6:
                    lines.append(f"Same page: [up](#section-{section}-of-page-{i}).")
                else:
                    lines.append(f"The [folder](../../area{j % 50:02d}/) exists.")
                lines.append("")
                total += 1
            lines += ["```", "[not a link](nowhere.md)", "```", ""]
        path.write_text("\n".join(lines), encoding="utf-8")
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--other", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=False)
    total = generate(args.out, args.files, args.seed)
    for i in range(args.other):
        path = args.out / f"src{i % 100:02d}/mod{i // 100:03d}/file{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def f{i}():\n    return {i}\n" * 20)
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "PATH": "/usr/bin:/bin"}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "commit", "-qm", "generated"]):
        subprocess.run(cmd, cwd=args.out, check=True, env=env)
    print(f"{args.files} markdown files, {args.other} other files, {total} links "
          f"in {args.out}")


if __name__ == "__main__":
    main()
