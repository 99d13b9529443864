"""STALE labels by what changed under the note since its last edit (issue 24).

    python bench/stale_classes.py [LABELS.json] [--mirrors /work/.mirror] [-v]

For each ``check: stale`` label of ``bench/labels/adoption.json`` (one per
repository and note; the last label given wins), the repository's bare
mirror (``MIRRORS/OWNER+NAME/repo``) is read at the label's commit: the
note's last commit, the changes to its folder's code since (``git diff
--name-status -M``; prose and subfolders with a note of their own left
out, as ``stale_scope = "subtree"`` does), and the paths and identifiers
the note names: link targets and code spans (``icm.extract``,
``icm.markdown.sections``: icm's own reading), each word of a span with a
``/`` or a ``.`` resolved from the note's folder or the root, or as the
one file under the folder ending in it (as ``named_paths`` resolves a
path). Each note falls in the first class that holds:

- ``named-gone``: a path it names existed at its last edit and is gone;
- ``named-changed``: a file it names was modified (or renamed) since;
- ``span-gone``: an identifier in a code span, found in the folder's code
  at its last edit, is found nowhere there now (``git grep -w -F``);
- ``added-only``: the changes since only added files;
- ``unnamed-changed``: files it does not name changed.

Labels a fix already removed (a ``CLAUDE.md`` symlink judged alone, a
release bump) are left out: they are no finding today. The table gives
each class's actionable and noise counts; ``-v`` prints every note.
Reads only the mirrors; writes nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from icm import markdown  # noqa: E402
from icm.extract import extract  # noqa: E402

GONE_BY_FIX = ("symlink to AGENTS.md", "release version bump")
PROSE = (".md", ".markdown", ".mdx")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
CLASSES = ("named-gone", "named-changed", "span-gone", "added-only",
           "unnamed-changed")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                          text=True, errors="replace", check=False).stdout


def names(text: str) -> Set[str]:
    """The words of the note's link targets and code spans."""
    found = {link.raw for link in extract(text).links}
    for section in markdown.sections(text):
        found.update(c.text for c in section.code if c.info is None)
    return {w.strip("\"'.,;:()").split("#")[0] for s in found for w in s.split()}


def resolve(word: str, folder: str, files: Set[str], dirs: Set[str]
            ) -> Optional[str]:
    for base in (folder, ""):
        path = posixpath.normpath(posixpath.join(base, word.lstrip("/")))
        if path in files or path in dirs:
            return path
    under = folder + "/" if folder else ""
    ends = [f for f in files if f.startswith(under) and f.endswith("/" + word)]
    return ends[0] if len(ends) == 1 else None


def classify(repo: Path, commit: str, note: str) -> Tuple[str, List[str]]:
    """The note's class and what put it there."""
    folder, name = posixpath.dirname(note), posixpath.basename(note)
    head = git(repo, "rev-parse", commit).strip()
    last = git(repo, "log", "-1", "--format=%H", head, "--", note).strip()
    text = git(repo, "show", f"{head}:{note}")
    now = set(git(repo, "ls-tree", "-r", "--name-only", head).split("\n"))
    then = set(git(repo, "ls-tree", "-r", "--name-only", last).split("\n"))
    dirs_now = {posixpath.dirname(f) for f in now}
    dirs_then = {posixpath.dirname(f) for f in then}
    noted = {posixpath.dirname(f) for f in now if posixpath.basename(f) == name}

    def code(path: str) -> bool:
        if folder and not path.startswith(folder + "/"):
            return False
        up = posixpath.dirname(path)
        while up != folder:
            if up in noted:
                return False
            up = posixpath.dirname(up)
        return not path.endswith(PROSE)

    rows = [line.split("\t") for line in git(
        repo, "diff", "--name-status", "-M", last, head, "--",
        folder or ".").splitlines()]
    changes = [(row[0][0], row[1:]) for row in rows if any(map(code, row[1:]))]
    words = names(text)
    named = {w: p for w in words if "/" in w or "." in w
             if (p := resolve(w, folder, then, dirs_then))}
    gone = sorted(w for w, p in named.items() if p not in now and p not in dirs_now)
    if gone:
        return "named-gone", gone
    files = set(named.values())
    changed = sorted(ps[0] for kind, ps in changes if kind in "MR" and ps[0] in files)
    if changed:
        return "named-changed", changed
    lost = [w for w in sorted(words) if IDENT.fullmatch(w)
            and git(repo, "grep", "-l", "-w", "-F", w, last, "--", folder or ".")
            and not git(repo, "grep", "-l", "-w", "-F", w, head, "--", folder or ".")]
    if lost:
        return "span-gone", lost
    kinds = sorted({kind for kind, _ in changes})
    return ("added-only" if set(kinds) <= {"A"} else "unnamed-changed"), kinds


def latest_stale(path: Path) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """Each labelled STALE note's last label, by (repository, note): the
    verdict the three staleness studies score."""
    latest: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for label in json.loads(path.read_text())["labels"]:
        if label["check"] == "stale" and label["code"] == "stale":
            latest[(label["repo"], label["at"])] = label
    return latest


def main() -> None:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labels", nargs="?", default=here / "labels/adoption.json")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    latest = latest_stale(Path(args.labels))
    table: Dict[str, collections.Counter[str]] = {
        c: collections.Counter() for c in CLASSES}
    for (name, note), label in sorted(latest.items()):
        if any(why in label["reason"] for why in GONE_BY_FIX):
            continue
        mirror = Path(args.mirrors) / name.replace("/", "+") / "repo"
        kind, why = classify(mirror, label["commit"], note)
        table[kind][label["verdict"]] += 1
        if args.verbose:
            print(f"{name} {note}: {kind} ({label['verdict']}) {' '.join(why[:3])}")
    print("| what changed since the note | actionable | noise |")
    print("|---|---|---|")
    for kind in CLASSES:
        print(f"| {kind} | {table[kind]['actionable']} | {table[kind]['noise']} |")
    total = sum(table.values(), collections.Counter())
    print(f"| all | {total['actionable']} | {total['noise']} |")


if __name__ == "__main__":
    main()
