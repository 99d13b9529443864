"""STALE labels by whether the code that moved is tests alone (issue 24).

    python bench/stale_tests.py [LABELS.json] [--mirrors /work/.mirror] [-v]

For each ``check: stale`` label of ``bench/labels/adoption.json`` (the last
label of each repository and note; labels a fix removed left out, as
``stale_classes.py`` does), the repository's bare mirror is read at the
label's commit, as ``check-stale`` reads it with init's config
(``stale_scope = "folder"``): from the note's last commit that changed a
word of it (``notes.words``), every first-parent commit since, and in each
the files of the note's folder that are code (no prose, no other note, not
``stale_ignore``'s defaults) whose change moved a token
(``stale.code_digest``). Each note falls in one class:

- ``test-only``: every file so moved is a test file (``TESTS``);
- ``mixed``: test files and others moved;
- ``no-tests``: only files that are no test moved;
- ``all-tests``: the note's folder holds only test files (its code is
  tests, so a rule would keep them code);
- ``gone-today``: nothing moved a token (a reformat, a release bump: a
  rule already made it ok).

The table gives each class's actionable and noise counts, per repository
and pooled, and the label reasons of the test-only notes with ``-v``.
Reads only the mirrors; writes nothing.
"""

from __future__ import annotations

import argparse
import collections
import posixpath
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stale_classes import GONE_BY_FIX, PROSE, git, latest_stale  # noqa: E402, I001

from icm.checks.stale import code_digest  # noqa: E402
from icm.model.notes import words  # noqa: E402
from icm.config import DEFAULT_STALE_IGNORE  # noqa: E402
from icm.context import compile_globs  # noqa: E402

try:
    from icm.config import DEFAULT_STALE_TESTS as TESTS  # noqa: E402
except ImportError:  # before the rule was built: the list it was measured with
    TESTS = (
        "*_test.go", "test_*.py", "*_test.py", "conftest.py", "*.test.*",
        "*.spec.*", "*.e2e-spec.*", "*.cy.*", "*_spec.rb", "*_test.rb",
        "*_test.exs", "*_test.dart", "*Test.java", "*Tests.java", "*Test.kt",
        "*Tests.kt", "*Test.php", "*Tests.cs", "*Test.cs", "*Tests.swift",
        "*_test.cc", "*_test.cpp", "*_unittest.cc", "tests/", "test/",
        "Tests/", "__tests__/", "__mocks__/", "testdata/", "fixtures/",
        "__fixtures__/", "e2e/", "*.Tests/", "*.UnitTests/",
        "*.IntegrationTests/")

CLASSES = ("test-only", "mixed", "no-tests", "all-tests", "gone-today")
is_test = compile_globs(TESTS).match  # type: ignore[union-attr]
ignored = compile_globs(DEFAULT_STALE_IGNORE).match  # type: ignore[union-attr]


def blobs(repo: Path, oids: Set[str]) -> Dict[str, bytes]:
    """Each blob's bytes, one ``cat-file --batch``."""
    order = sorted(o for o in oids if o.strip("0"))
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"],
                         input="".join(o + "\n" for o in order).encode(),
                         capture_output=True, check=True).stdout
    found, at = {}, 0
    for oid in order:
        head_end = out.index(b"\n", at)
        size = int(out[at:head_end].split()[2])
        found[oid] = out[head_end + 1:head_end + 1 + size]
        at = head_end + 2 + size
    return found


def word_commit(repo: Path, head: str, note: str) -> str:
    """The note's last first-parent commit that changed a word of it."""
    rows = git(repo, "-c", "core.quotepath=off", "log", "--first-parent", "-m",
               "--no-renames", "--raw", "--no-abbrev", "--format=@%H", head,
               "--", note).splitlines()
    changes: List[Tuple[str, str, str]] = []
    sha = ""
    for row in rows:
        if row.startswith("@"):
            sha = row[1:]
        elif row.startswith(":"):
            meta, _ = row.split("\t", 1)
            _, _, old, new, _ = meta[1:].split(" ")
            changes.append((sha, old, new))
    data = blobs(repo, {o for _, a, b in changes for o in (a, b)})
    for sha, old, new in changes:
        if old not in data or new not in data \
                or words(data[old]) != words(data[new]):
            return sha
    return changes[-1][0] if changes else ""


def moved(repo: Path, head: str, note: str) -> Tuple[Set[str], List[str]]:
    """The note's folder's code files whose change since the note moved a
    token, and the folder's code files at ``head``."""
    folder, name = posixpath.dirname(note), posixpath.basename(note)
    last = word_commit(repo, head, note)
    tree = git(repo, "-c", "core.quotepath=off", "ls-tree", "-r", "--name-only",
               head, "--", folder or ".").splitlines()
    notes = {f for f in tree if posixpath.basename(f) in
             (name, "AGENTS.md", "CLAUDE.md", "GEMINI.md")}

    def code(path: str) -> bool:
        return posixpath.dirname(path) == folder and path not in notes \
            and not path.lower().endswith(PROSE) and not ignored(path)

    rows = git(repo, "-c", "core.quotepath=off", "log", "--first-parent", "-m",
               "--no-renames", "--raw", "--no-abbrev", "--format=@%H",
               f"{last}..{head}", "--", folder or ".").splitlines()
    changes: List[Tuple[str, str, str]] = []
    for row in rows:
        if row.startswith(":"):
            meta, path = row.split("\t", 1)
            _, _, old, new, _ = meta[1:].split(" ")
            if code(path):
                changes.append((path, old, new))
    data = blobs(repo, {o for _, a, b in changes for o in (a, b)})
    out = {path for path, old, new in changes
           if (a := code_digest(path, data.get(old))) is None
           or a != code_digest(path, data.get(new))}
    return out, [f for f in tree if code(f)]


def classify(repo: Path, commit: str, note: str) -> Tuple[str, List[str]]:
    head = git(repo, "rev-parse", commit).strip()
    files, now = moved(repo, head, note)
    if not files:
        return "gone-today", []
    if now and all(map(is_test, now)):
        return "all-tests", sorted(files)
    tests = {f for f in files if is_test(f)}
    kind = "test-only" if tests == files else "mixed" if tests else "no-tests"
    return kind, sorted(files)


def table(rows: List[Tuple[str, str, str]], title: str) -> None:
    counts: Dict[str, collections.Counter[str]] = collections.defaultdict(
        collections.Counter)
    for repo, kind, verdict in rows:
        counts[repo][(kind, verdict)] += 1  # type: ignore[index]
        counts["pooled"][(kind, verdict)] += 1  # type: ignore[index]
    print(f"\n{title}")
    print("| repository | " + " | ".join(f"{k} (act / noise)" for k in CLASSES)
          + " |")
    print("|---|" + "---|" * len(CLASSES))
    for repo in sorted(counts, key=lambda r: (r == "pooled", r)):
        c = counts[repo]
        cells = [f"{c[(k, 'actionable')]} / {c[(k, 'noise')]}"  # type: ignore
                 for k in CLASSES]
        print(f"| {repo} | " + " | ".join(cells) + " |")


def main() -> None:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labels", nargs="?", default=here / "labels/adoption.json")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    latest = latest_stale(Path(args.labels))
    rows: List[Tuple[str, str, str]] = []
    for (name, note), label in sorted(latest.items()):
        if any(why in label["reason"] for why in GONE_BY_FIX):
            continue
        mirror = Path(args.mirrors) / name.replace("/", "+") / "repo"
        kind, files = classify(mirror, label["commit"], note)
        rows.append((name, kind, label["verdict"]))
        if args.verbose:
            shown: Optional[str] = label["reason"] if kind == "test-only" else ""
            print(f"{name} {note}: {kind} ({label['verdict']}) "
                  f"{' '.join(files[:4])}{' ...' if len(files) > 4 else ''}"
                  + (f"\n    {shown}" if shown else ""))
    table(rows, "STALE notes by what moved since the note's last change of words")


if __name__ == "__main__":
    main()
