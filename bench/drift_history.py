"""Mine real one-sentence drifts from the history of agent notes (issue 25).

    python bench/drift_history.py MIRROR... --out /tmp/drifts.json
        [--max-commits 3000] [--max-candidates 200] [--notes REGEX]
        [--copy 0.9] [--copy-words 0.6]

Each MIRROR is a git directory (the search tool's ``fetch`` leaves one at
``/work/.mirror/OWNER+NAME/repo``; the repository is named from that path).
Git is the only program run on it, as data: no file of theirs is executed,
and nothing is written but ``--out`` (which belongs in /tmp: it holds their
text).

The notes are the tracked files whose path matches ``--notes`` (agent
notes: ``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md`` in any folder,
``.github/copilot-instructions.md``, ``.github/instructions/*.instructions.md``,
``.cursor/rules/*.mdc``, ``.cursorrules``, ``.windsurfrules``,
``.clinerules``, and ``.md`` files under ``.clinerules/``, ``.roo/rules*/``,
``.continue/rules/``), minus
symlinks and files over 256 KiB. The walk is first-parent, newest
``--max-commits`` commits (a merge is its diff against its first parent).
For each commit C changing a note A, icm's statements
(``similarity.statements``, four words or more) of every note at C^ and
at C are read. A candidate is a statement s of A at C^ that

1. has a copy t in another note B at C^ (the same text with whitespace
   folded, or ``similarity(s, t) >= 0.9`` with 0.6 of their plain words,
   code spans included, shared: icm's score masks code spans, so "use `X`
   instead of `Y`" scores 1.0 against any rule of that form),
2. is gone from A at C, replaced by a new statement s' of A with
   ``similarity(s, s') >= 0.5`` and half the shorter one's plain words
   shared (the edit; the closest one), and
3. whose copy t is still in B at C, unchanged.

For each candidate the record holds the commit, its date and subject, A
and the line of s' at C, B and the line of t at C, the three texts and a
word diff of s against s', and ``fixed_later``: the first later
first-parent commit in which B's t is gone and B holds a statement at
``similarity >= 0.9`` to s' (the drift mended), else null. At most
``--max-candidates`` candidates per repository, newest first.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from icm import similarity  # noqa: E402

NOTES = (r"(^|/)(AGENTS|CLAUDE|GEMINI)\.md$|^\.github/copilot-instructions\.md$"
         r"|^\.github/instructions/.*\.instructions\.md$|(^|/)\.cursor/rules/.*\.mdc$"
         r"|(^|/)\.(cursorrules|windsurfrules|clinerules)$"
         r"|(^|/)\.(clinerules|roo/rules[^/]*|continue/rules)/.*\.md$")
MAX_BYTES = 256 * 1024
MIN_WORDS = 4
COPY = 0.9  # a copy: this similarity or the same folded text
EDIT = 0.5  # an edit: the new statement is at least this close to the old
COPY_WORDS = 0.6  # and this share of their plain words (Jaccard)
EDIT_WORDS = 0.5  # and this share of the shorter one's plain words
FIXED = 0.9  # a later statement of B this close to s' mends the drift
THRESHOLDS = {"copy": COPY, "copy_words": COPY_WORDS}  # --copy, --copy-words


def git(mirror: Path, *args: str, ok: Sequence[int] = (0,)) -> bytes:
    done = subprocess.run(["git", "--git-dir", str(mirror), *args],
                          capture_output=True)
    if done.returncode not in ok:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode()[-300:]}")
    return done.stdout


def repo_name(mirror: Path) -> str:
    part = mirror.parent.name if mirror.name in ("repo", ".git") else mirror.name
    return part.replace("+", "/", 1)


def fold(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Stmt:
    line: int
    text: str


class Reader:
    """Note files and their statements at commits of one mirror, cached."""

    def __init__(self, mirror: Path, notes: re.Pattern[str]) -> None:
        self.mirror = mirror
        self.notes = notes
        self._trees: Dict[str, Dict[str, str]] = {}
        self._stmts: Dict[Tuple[str, str], List[Stmt]] = {}

    def tree(self, commit: str) -> Dict[str, str]:
        """path -> blob of the notes at ``commit`` (no symlinks, no big files)."""
        if commit not in self._trees:
            out = git(self.mirror, "ls-tree", "-r", "-l", "-z", "--full-tree",
                      "--end-of-options", commit)
            found = {}
            for rec in out.decode("utf-8", "replace").split("\0"):
                if not rec:
                    continue
                meta, path = rec.split("\t", 1)
                mode, kind, blob, size = meta.split()
                if (kind == "blob" and mode != "120000" and self.notes.search(path)
                        and size.isdigit() and int(size) <= MAX_BYTES):
                    found[path] = blob
            self._trees[commit] = found
        return self._trees[commit]

    def statements(self, path: str, blob: str) -> List[Stmt]:
        key = (path, blob)
        if key not in self._stmts:
            try:
                text = git(self.mirror, "cat-file", "blob", blob).decode(
                    "utf-8", "replace")
            except RuntimeError:  # a blob the snapshot lacks
                text = ""
            if text.lstrip().startswith("@") and len(text.split()) <= 3:
                text = ""  # an import stub: no note of its own
            self._stmts[key] = [
                Stmt(s.line, s.text) for s in similarity.statements(text, path)
                if similarity.word_count(s.text) >= MIN_WORDS]
        return self._stmts[key]

    def at(self, commit: str, path: str) -> List[Stmt]:
        blob = self.tree(commit).get(path)
        return self.statements(path, blob) if blob else []


def plain_words(text: str) -> FrozenSet[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def overlap(a: str, b: str, jaccard: bool) -> float:
    """Shared plain words (code spans included) over their union, or over
    the smaller set: ``similarity`` masks code spans, so two rules alike
    only in form ("use `X` instead of `Y`") score 1.0 there."""
    wa, wb = plain_words(a), plain_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / (len(wa | wb) if jaccard else min(len(wa), len(wb)))


def is_copy(a: str, b: str) -> bool:
    return fold(a) == fold(b) or (similarity.similarity(a, b) >= THRESHOLDS["copy"]
                                  and overlap(a, b, jaccard=True)
                                  >= THRESHOLDS["copy_words"])


def is_edit(a: str, b: str) -> bool:
    return (similarity.similarity(a, b) >= EDIT
            and overlap(a, b, jaccard=False) >= EDIT_WORDS)


def word_diff(a: str, b: str) -> str:
    wa, wb = a.split(), b.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=wa, b=wb).get_opcodes():
        if op == "equal":
            out.append(" ".join(wa[i1:i2]) if i2 - i1 <= 6 else
                       f"{' '.join(wa[i1:i1 + 3])} ... {' '.join(wa[i2 - 3:i2])}")
        else:
            out.append(f"[-{' '.join(wa[i1:i2])}-]{{+{' '.join(wb[j1:j2])}+}}")
    return " ".join(x for x in out if x)


def commits(mirror: Path, notes: re.Pattern[str], limit: int
            ) -> Iterator[Tuple[str, str, str, str, List[str]]]:
    """(commit, parent, date, subject, notes changed), newest first."""
    out = git(mirror, "log", "--first-parent", "--diff-merges=first-parent",
              "--no-renames", "-z", "--name-only",
              "--format=%x01%H%x09%P%x09%cI%x09%s", f"-n{limit}",
              "--end-of-options", "HEAD", "--").decode("utf-8", "replace")
    for chunk in out.split("\x01")[1:]:
        head, _, files = chunk.partition("\n")
        fields = head.split("\t", 3)
        if len(fields) < 4 or not fields[1]:
            continue  # the root commit: nothing to compare with
        changed = [f.strip("\n") for f in files.split("\0")]
        changed = [f for f in changed if f and notes.search(f)]
        if changed:
            yield fields[0], fields[1].split()[0], fields[2], fields[3], changed


def fixed_later(mirror: Path, reader: Reader, commit: str, b_path: str,
                t: str, edited: str) -> Optional[str]:
    out = git(mirror, "log", "--first-parent", "--reverse", "--format=%H",
              "--end-of-options", f"{commit}..HEAD", "--", b_path)
    for later in out.decode().split():
        try:
            stmts = reader.at(later, b_path)
        except RuntimeError:
            continue
        if not stmts:
            return None  # B removed (or emptied): not mended, gone
        if any(fold(x.text) == fold(t) for x in stmts):
            continue
        if any(fold(x.text) == fold(edited)
               or similarity.similarity(x.text, edited) >= FIXED for x in stmts):
            return later
        return None  # t changed another way
    return None


def mine(mirror: Path, notes: re.Pattern[str], max_commits: int,
         max_candidates: int) -> Tuple[List[Dict[str, Any]], Dict[str, int]]:
    reader = Reader(mirror, notes)
    found: List[Dict[str, Any]] = []
    seen: Set[Tuple[str, str, int, str, int]] = set()
    stats = {"note_commits": 0, "skipped": 0}
    for commit, parent, date, subject, changed in commits(mirror, notes,
                                                          max_commits):
        stats["note_commits"] += 1
        try:
            before, after = reader.tree(parent), reader.tree(commit)
        except RuntimeError:
            stats["skipped"] += 1
            continue
        for a_path in changed:
            if a_path not in before or a_path not in after:
                continue
            try:
                old = reader.at(parent, a_path)
                new = reader.at(commit, a_path)
            except RuntimeError:
                stats["skipped"] += 1
                continue
            old_texts = {fold(s.text) for s in old}
            new_texts = {fold(s.text) for s in new}
            gone = [s for s in old if fold(s.text) not in new_texts]
            added = [s for s in new if fold(s.text) not in old_texts]
            if not gone or not added:
                continue
            for s in gone:
                edits = [x for x in added if is_edit(s.text, x.text)]
                if not edits:
                    continue
                best = max(edits, key=lambda x: (similarity.similarity(s.text, x.text),
                                                 overlap(s.text, x.text, True)))
                for b_path in sorted(set(before) & set(after)):
                    if b_path == a_path:
                        continue
                    b_old = reader.at(parent, b_path)
                    copies = [t for t in b_old if is_copy(s.text, t.text)]
                    if not copies:
                        continue
                    b_new = reader.at(commit, b_path)
                    for t in copies:
                        kept = [x for x in b_new if fold(x.text) == fold(t.text)]
                        if not kept or fold(best.text) == fold(t.text):
                            continue  # B changed too, or A converged on B
                        key = (commit, a_path, best.line, b_path, kept[0].line)
                        if key in seen:
                            break  # two old statements edited into one
                        seen.add(key)
                        found.append({
                            "repo": repo_name(mirror), "commit": commit,
                            "parent": parent, "date": date, "subject": subject,
                            "a": {"path": a_path, "line": best.line},
                            "b": {"path": b_path, "line": kept[0].line},
                            "a_before_line": s.line,
                            "similarity_edit": round(
                                similarity.similarity(s.text, best.text), 3),
                            "similarity_now": round(
                                similarity.similarity(best.text, t.text), 3),
                            "before": s.text, "after": best.text,
                            "copy": t.text,
                            "word_diff": word_diff(s.text, best.text),
                            "fixed_later": fixed_later(mirror, reader, commit,
                                                       b_path, t.text, best.text),
                        })
                        break
                if len(found) >= max_candidates:
                    break
            if len(found) >= max_candidates:
                break
        if len(found) >= max_candidates:
            break
    return found, stats


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mirrors", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-commits", type=int, default=3000)
    ap.add_argument("--max-candidates", type=int, default=200)
    ap.add_argument("--notes", default=NOTES)
    ap.add_argument("--copy", type=float, default=COPY,
                    help="similarity of a copy (a looser run: 0.75, icm's own)")
    ap.add_argument("--copy-words", type=float, default=COPY_WORDS)
    args = ap.parse_args(argv)
    THRESHOLDS.update(copy=args.copy, copy_words=args.copy_words)
    notes = re.compile(args.notes)
    doc: Dict[str, Any] = {"notes": args.notes, "max_commits": args.max_commits,
                           "copy": args.copy, "copy_words": args.copy_words,
                           "repositories": [], "candidates": []}
    for mirror in args.mirrors:
        found, stats = mine(mirror, notes, args.max_commits, args.max_candidates)
        head = git(mirror, "rev-parse", "--end-of-options", "HEAD").decode().strip()
        doc["repositories"].append({"repo": repo_name(mirror), "head": head,
                                    "candidates": len(found), **stats})
        doc["candidates"].extend(found)
        print(f"{repo_name(mirror)}: {stats['note_commits']} note commits, "
              f"{len(found)} candidates", file=sys.stderr)
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
