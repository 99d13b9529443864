"""STALE labels by how much changed under the note, and by its form (issue 24).

    python bench/stale_magnitude.py [LABELS.json] [--mirrors /work/.mirror]
                                    [--gone REPO:NOTE ...] [-v]

For each ``check: stale`` label of ``bench/labels/adoption.json`` (the last
label of each repository and note; labels a fix removed left out, as
``stale_classes.py`` does, and any ``--gone`` note: one today's icm no longer
reports), the repository's bare mirror is read at the label's commit, from
the note's last commit: the folder's code as ``stale_classes.code`` reads it
(prose and subfolders with a note of their own left out), and

- ``lines``: lines added and removed (``git log --numstat``), and ``rel``,
  that over the folder's code lines at the label's commit (``git grep -c``);
- ``tokens``: tokens changed (``stale.words``, icm's own, per file: the
  multiset difference between the two versions), and ``trel``, that per
  line of the folder's code;
- ``commits``, ``authors`` (emails) and ``added`` (files) since; ``days``
  from the note's commit to the newest code commit;
- the note's form: ``words``, ``rule`` (a boundary: at most 80 words,
  saying what the folder never does or keeps inside), ``names`` (paths and code
  identifiers it gives, ``stale_classes.names``) and ``kept`` (the share of
  them still found: a path in the tree, an identifier by ``git grep``);
- the share of its statements (``similarity.statements``) that instruct
  (``instr``), read as a rule however worded (``ruled``) or describe named
  code (``desc``), icm's own readings; and ``arrived``, the names it gives
  that did not exist at its last edit and exist now.

Then each feature is a one-threshold rule (error tier: the notes on one
side), cross-validated by repository: for each repository left out, the
threshold and side are chosen on the others (the highest precision whose
recall of actionable notes is at least 0.8, ties to the higher recall),
and the left-out repository's notes are scored. The bar a rule must clear
to be built: pooled over the rotation, the error tier keeps >= 0.8 of the
actionable notes at >= 0.75 precision. Reads only the mirrors.
"""

from __future__ import annotations

import argparse
import collections
import posixpath
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stale_classes import (  # noqa: E402, I001
    GONE_BY_FIX, IDENT, PROSE, git, latest_stale, names, resolve)

from icm import similarity  # noqa: E402
from icm.model.notes import words  # noqa: E402

# A boundary: what the folder owns, never does, keeps inside (rika's form)
RULE = re.compile(r"\b(never|must not|does not|do not|doesn't|without|only|"
                  r"remains? inside|inside this|no other)\b", re.I)
FEATURES = ("lines", "rel", "tokens", "trel", "commits", "authors", "added",
            "days", "words", "names", "kept", "rule", "instr", "ruled", "desc",
            "arrived")


def blob(repo: Path, rev: str, path: str) -> bytes:
    import subprocess

    out = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"],
                         capture_output=True, check=False)
    return out.stdout if out.returncode == 0 else b""


def features(repo: Path, commit: str, note: str) -> Dict[str, float]:
    folder, name = posixpath.dirname(note), posixpath.basename(note)
    head = git(repo, "rev-parse", commit).strip()
    last = git(repo, "log", "-1", "--format=%H", head, "--", note).strip()
    text = git(repo, "show", f"{head}:{note}")
    now = set(git(repo, "ls-tree", "-r", "--name-only", head).split("\n"))
    then = set(git(repo, "ls-tree", "-r", "--name-only", last).split("\n"))
    dirs_then = {posixpath.dirname(f) for f in then}
    noted = {posixpath.dirname(f) for f in now | then
             if posixpath.basename(f) == name}

    def code(path: str) -> bool:
        if folder and not path.startswith(folder + "/"):
            return False
        up = posixpath.dirname(path)
        while up != folder:
            if up in noted:
                return False
            up = posixpath.dirname(up)
        return not path.endswith(PROSE)

    where = folder or "."
    log = git(repo, "log", "--no-renames", "--numstat", "--format=@%H %ct %ae",
              f"{last}..{head}", "--", where)
    lines = 0
    commits, authors, times = set(), set(), [0]
    touched: set = set()
    sha = ""
    for row in log.splitlines():
        if row.startswith("@"):
            sha, when, who = (row[1:].split(" ") + ["", ""])[:3]
            pending = (sha, int(when), who)
            continue
        parts = row.split("\t")
        if len(parts) != 3 or not code(parts[2]):
            continue
        commits.add(pending[0])
        authors.add(pending[2])
        times.append(pending[1])
        touched.add(parts[2])
        lines += sum(int(n) for n in parts[:2] if n.isdigit())
    status = [r.split("\t") for r in git(repo, "diff", "--name-status",
                                         "--no-renames", last, head, "--",
                                         where).splitlines()]
    added = sum(1 for r in status if r[0] == "A" and code(r[-1]))
    total = sum(int(r.rsplit(":", 1)[1]) for r in git(
        repo, "grep", "-c", "-I", "", head, "--", where).splitlines()
        if code(r.split(":", 2)[1]))
    tokens = 0
    for path in sorted(touched):
        old = collections.Counter(words(blob(repo, last, path)))
        new = collections.Counter(words(blob(repo, head, path)))
        tokens += sum(((old - new) + (new - old)).values())
    note_time = int(git(repo, "log", "-1", "--format=%ct", last).strip() or 0)
    said = names(text)
    found = [w for w in said if ("/" in w or "." in w)
             and resolve(w, folder, then, dirs_then)]
    idents = [w for w in said if IDENT.fullmatch(w) and w not in found]
    kept = sum(1 for w in found if resolve(w, folder, now, {
        posixpath.dirname(f) for f in now}))
    kept += sum(1 for w in idents if git(repo, "grep", "-l", "-w", "-F", w, head,
                                         "--", where))
    given = len(found) + len(idents)
    # names the note gave before they existed: code moving toward the note
    dirs_now = {posixpath.dirname(f) for f in now}
    arrived = sum(1 for w in said if ("/" in w or "." in w)
                  and not resolve(w, folder, then, dirs_then)
                  and resolve(w, folder, now, dirs_now))
    arrived += sum(1 for w in said if IDENT.fullmatch(w) and w not in found
                   and not git(repo, "grep", "-l", "-w", "-F", w, last, "--", where)
                   and git(repo, "grep", "-l", "-w", "-F", w, head, "--", where))
    count = len(text.split())
    said_of = similarity.statements(text, note)
    share = (lambda test: sum(map(test, said_of)) / len(said_of)
             if said_of else 0.0)
    return {"arrived": float(arrived),
            "instr": share(lambda s: similarity.instructs(s.text)),
            "ruled": share(similarity.holds_rule),
            "desc": share(lambda s: similarity.describes(s.text)),
            "lines": lines, "rel": lines / max(total, 1), "tokens": tokens,
            "trel": tokens / max(total, 1), "commits": len(commits),
            "authors": len(authors), "added": added,
            "days": (max(times) - note_time) / 86400 if max(times) else 0,
            "words": count, "names": given,
            "kept": kept / given if given else 1.0,
            "rule": float(count <= 80 and bool(RULE.search(text)))}


Row = Tuple[str, str, Dict[str, float]]  # repo, verdict, features


def scores(rows: Sequence[Row], tier: Callable[[Dict[str, float]], bool]
           ) -> Tuple[int, int, int]:
    """(actionable in the error tier, the tier's size, actionable in all)."""
    kept = [v for _, v, f in rows if tier(f)]
    return (kept.count("actionable"), len(kept),
            sum(v == "actionable" for _, v, _ in rows))


def choose(rows: Sequence[Row], feature: str) -> Tuple[float, int]:
    """The threshold and side (1: feature >= t is an error; -1: <= t) with
    the best precision at recall >= 0.8 on ``rows``."""
    best: Tuple[float, float, float, int] = (-1.0, -1.0, 0.0, 1)
    for t in sorted({f[feature] for _, _, f in rows}):
        for side in (1, -1):
            hit, size, total = scores(rows, lambda f, s=side, t=t:
                                      s * (f[feature] - t) >= 0)
            recall = hit / total if total else 0.0
            precision = hit / size if size else 0.0
            if recall >= 0.8 and (precision, recall) > best[:2]:
                best = (precision, recall, t, side)
    return best[2], best[3]


def main() -> None:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labels", nargs="?", default=here / "labels/adoption.json")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--gone", nargs="*", default=[],
                        help="REPO:NOTE pairs today's icm no longer reports")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    latest = latest_stale(Path(args.labels))
    rows: List[Row] = []
    for (name, note), label in sorted(latest.items()):
        if any(why in label["reason"] for why in GONE_BY_FIX) \
                or f"{name}:{note}" in args.gone:
            continue
        mirror = Path(args.mirrors) / name.replace("/", "+") / "repo"
        got = features(mirror, label["commit"], note)
        rows.append((name, label["verdict"], got))
        if args.verbose:
            print(f"{name} {note} {label['verdict']}: " + " ".join(
                f"{k}={got[k]:.3g}" for k in FEATURES))
    base = scores(rows, lambda f: True)
    print(f"{len(rows)} notes, {base[0]} actionable ({base[0] / len(rows):.0%}) in "
          f"{len({r for r, _, _ in rows})} repositories")
    print("| rule (threshold chosen on the other repositories) | error tier "
          "keeps, of actionable | precision | thresholds chosen | clears |")
    print("|---|---|---|---|---|")
    print(f"| every STALE note an error (today) | {base[0]} of {base[2]} (100 %) | "
          f"{base[0] / base[1]:.0%} | - | no |")
    repos = sorted({r for r, _, _ in rows})
    for feature in FEATURES:
        hit = size = total = 0
        chosen = []
        for left in repos:
            train = [r for r in rows if r[0] != left]
            test = [r for r in rows if r[0] == left]
            t, side = choose(train, feature)
            chosen.append(f"{'>=' if side > 0 else '<='}{t:.3g}")
            h, s, n = scores(test, lambda f, s=side, t=t, k=feature:
                             s * (f[k] - t) >= 0)
            hit, size, total = hit + h, size + s, total + n
        recall, precision = hit / total, hit / size if size else 0.0
        common = collections.Counter(chosen).most_common(1)[0][0]
        print(f"| {feature} | {hit} of {total} ({recall:.0%}) | {precision:.0%} | "
              f"{common} ({len(set(chosen))} distinct) | "
              f"{'yes' if recall >= 0.8 and precision >= 0.75 else 'no'} |")


if __name__ == "__main__":
    main()
