"""Generate a deterministic monorepo for ``icm check`` at scale (issue 27).

    python bench/gen_monorepo.py OUT [--files 50000] [--seed 1]

One package folder per 20 files (``areaNN/pkgNNNNN/``): a ``context.md``
note (prose, a constraints list, links to its code and to another
package's note with a fragment), a ``README.md`` with ten links, and 18
code files under ``src/``. The handbook indexes every note; the journal
holds one entry per 1,000 files, the queue 20 items. Three commits, written
with ``git fast-import`` (500,000 files take seconds to stream, where
``git add`` hashed for minutes): everything, then code changed in one
package in fifty (their notes are STALE), then one note in a hundred
rewritten. One note in fifty copies a rule of another (a dupes finding).
The work tree is checked out at the end, so every file is on disk.
"""

from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

CODE_FILES = 18
PER_PACKAGE = CODE_FILES + 2
AREAS = 50


def words(rng: random.Random, vocab: List[str], n: int) -> str:
    # a common head (a third of the words from 100) and a long flat tail
    return " ".join(vocab[rng.randrange(100 if rng.random() < 0.3 else len(vocab))]
                    for _ in range(n))


def package_dirs(files: int) -> List[str]:
    packages = max(1, files // PER_PACKAGE)
    return [f"area{i % AREAS:02d}/pkg{i:05d}" for i in range(packages)]


def note(rng: random.Random, vocab: List[str], pkgs: List[str], i: int,
         version: int) -> str:
    other = pkgs[rng.randrange(len(pkgs))]
    rel = "../../" + other
    lines = [f"# {pkgs[i]}", "",
             f"Package {i} {words(rng, vocab, 40)}.", "",
             f"{words(rng, vocab, 35).capitalize()} (revision {version}).", "",
             "## Constraints", ""]
    for k in range(4):
        lines.append(f"- {words(rng, vocab, 12).capitalize()} in "
                     f"[mod{k}](src/mod{k}.py).")
    lines += [f"- Callers go through [{other}]({rel}/context.md#constraints).",
              ""]
    if i % 50 == 7:  # a rule copied from another package's note
        lines += ["## Shared", "",
                  f"Every handler in package {i % 97} validates its input before "
                  "it touches the shared cache, and logs the rejected value.", ""]
    return "\n".join(lines)


def readme(rng: random.Random, pkgs: List[str], i: int) -> str:
    lines = [f"# {pkgs[i]} readme", "", "## Usage", ""]
    for k in range(10):
        kind = k % 5
        if kind == 0:
            lines.append(f"See [module {k}](src/mod{k}.py).")
        elif kind == 1:
            lines.append("Read [the note](context.md#constraints) first.")
        elif kind == 2:
            other = pkgs[rng.randrange(len(pkgs))]
            lines.append(f"Compare [{other}](../../{other}/README.md#usage).")
        elif kind == 3:
            lines.append(f"Upstream: <https://example.com/{i}/{k}>.")
        else:
            lines.append(f"Up: [usage](#usage), [code](src/mod{k}.py#L{k + 1}).")
        lines.append("")
    return "\n".join(lines)


def code(i: int, k: int, version: int) -> str:
    return "".join(f"def f{i}_{k}_{j}():\n    return {j + version}\n"
                   for j in range(8))


def journal(rng: random.Random, vocab: List[str], n: int) -> Dict[str, str]:
    out = {}
    for e in range(n):
        day = 1 + e % 28
        month = 1 + (e // 28) % 12
        out[f"journal/2025-{month:02d}-{day:02d}_entry-{e:04d}.md"] = "\n".join([
            f"# Entry {e}: {words(rng, vocab, 5)}", "",
            "## Decision", "", f"{words(rng, vocab, 30).capitalize()}.", "",
            "## Rejected alternative", "", f"{words(rng, vocab, 20).capitalize()}.",
            "", "## Invariant", "", f"{words(rng, vocab, 18).capitalize()}.", "",
            "## Verify command", "", "```sh", "true", "```", ""])
    return out


def generate(files: int, seed: int) -> Tuple[List[Dict[str, str]], int]:
    """The three commits' trees (path -> text), and the notes' count."""
    rng = random.Random(seed)
    vocab = [f"w{i}" + "abcdefghij"[i % 10] * (1 + i % 4) for i in range(6000)]
    pkgs = package_dirs(files)
    first: Dict[str, str] = {}
    index = [f"- [{p}]({p}/context.md): package {i}" for i, p in enumerate(pkgs)]
    first["AGENTS.md"] = "\n".join([
        "# Handbook", "", "Read this, then the note of the folder you work in.",
        "", "## Index of notes", "", *index, ""])
    first["icm.toml"] = "budget = 100000000\nstale_scope = \"subtree\"\n"
    first.update(journal(rng, vocab, max(1, files // 1000)))
    for q in range(1, 21):
        first[f"queue/{q:02d}_item-{q}.md"] = (
            f"# Item {q}\n\n{words(rng, vocab, 25).capitalize()}.\n")
    for i, p in enumerate(pkgs):
        first[f"{p}/context.md"] = note(rng, vocab, pkgs, i, 0)
        first[f"{p}/README.md"] = readme(rng, pkgs, i)
        for k in range(CODE_FILES):
            first[f"{p}/src/mod{k}.py"] = code(i, k, 0)
    second = {f"{p}/src/mod0.py": code(i, 0, 1)
              for i, p in enumerate(pkgs) if i % 50 == 3}
    third = {f"{p}/context.md": note(rng, vocab, pkgs, i, 1)
             for i, p in enumerate(pkgs) if i % 100 == 5}
    return [first, second, third], len(pkgs)


def stream(commits: List[Dict[str, str]]) -> bytes:
    out: List[bytes] = []
    t = 1_700_000_000
    for n, tree in enumerate(commits):
        body = [b"commit refs/heads/main\n",
                b"committer b <b@b> %d +0000\n" % (t + 86400 * n),
                b"data 8\ncommit %d\n" % n]
        for path, text in sorted(tree.items()):
            data = text.encode()
            body.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(),
                                                               len(data), data))
        out.append(b"".join(body) + b"\n")
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=False)
    commits, notes = generate(args.files, args.seed)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(args.out)}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=args.out, check=True,
                   env=env)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=args.out, check=True,
                   env=env, input=stream(commits))
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=args.out,
                   check=True, env=env)
    total = len(set().union(*commits))
    print(f"{total} files, {notes} notes in {args.out}")


if __name__ == "__main__":
    main()
