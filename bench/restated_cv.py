"""Restated-rule recall, per part and cross-validated by part (issue 25).

    python bench/restated_cv.py CHECKOUTS_DIR [--rotate]

CHECKOUTS_DIR is ``bench/eval_heldout.py``'s (one work tree per repository
of ``split.json``, at its commit). Each note repository becomes the same
workspace as there, with ``dupes_restated = "info"``, and ``dupes.run``
runs in this process (the semantic model loads once), scored by
``eval_heldout.score``: the same figures as ``eval_heldout.py --config
'dupes_restated = "info"'``. Prints restated-rule cluster recall and
``restated-rule`` finding precision per part, lexical and semantic.

``--rotate`` sweeps ``similarity.WRITTEN_CAP``, ``dupes.RESTATED_ROLE`` and
``dupes.RESTATED_WITHIN`` (None: no pair inside one note) and, for each
part, chooses the value with the best F1 (pooled recall and precision) on
the other parts and reports it on that part: every part is spent, so the
figure that is not the tuned one is the rotation's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_heldout as ev  # noqa: E402

from icm import config, context, similarity  # noqa: E402
from icm.checks import dupes  # noqa: E402
from icm.registry import DupesOptions  # noqa: E402

PARTS = ("tune", "test", "test2", "test3", "test4")
Workspace = Tuple[Path, ev.RepoLabels, Dict[str, str]]


def workspaces(checkouts: Path, tmp: Path, part: str) -> List[Workspace]:
    """The part's note repositories as ``eval_heldout`` builds them."""
    split = json.loads((ev.LABELS / "split.json").read_text(encoding="utf-8"))
    out = []
    for entry in split["notes"]:
        if entry["part"] != part:
            continue
        where = ev.checkout(checkouts, entry["repo"], entry["commit"])
        notes = ev.note_paths(where, entry)
        links = ev.aliases(where, notes)
        ws = tmp / entry["repo"].replace("/", "+")
        ws.mkdir(parents=True)
        ev.make_repo(ws, {p: (where / p).read_bytes() for p in notes},
                     f'handbook = "{entry["handbook"]}"\n'
                     f'note_name = "{entry["note_name"]}"\n'
                     'dupes_restated = "info"\n', links)
        out.append((ws, ev.load_repo_labels(ev.label_file(entry["repo"])), links))
    return out


def run(ws: Path, semantic: bool) -> List[Dict[str, Any]]:
    """``check-dupes``' findings as its JSON has them."""
    cfg = dataclasses.replace(config.load(ws), similarity="semantic"
                              if semantic else "lexical")
    report = dupes.run(context.build(ws, cfg), DupesOptions())
    return [{**f.extra, "code": f.code, "severity": f.severity.value}
            for f in report.findings]


def evaluate(parts: Sequence[Workspace], semantic: bool) -> ev.Tally:
    tally = ev.Tally()
    for ws, labels, links in parts:
        ev.score(labels, ev.reported(run(ws, semantic)), tally, links)
    return tally


def figure(t: ev.Tally) -> str:
    return (f"R {ev.ratio(t.restated_found, t.restated)}  "
            f"P {ev.ratio(t.reworded_true, t.reworded)}")


def f1(tallies: Sequence[ev.Tally]) -> float:
    found = sum(t.restated_found for t in tallies)
    r = found / max(1, sum(t.restated for t in tallies))
    p = sum(t.reworded_true for t in tallies) / max(
        1, sum(t.reworded for t in tallies))
    return 2 * r * p / (r + p or 1.0)


def rotate(ws: Dict[str, List[Workspace]], semantic: bool, name: str,
           values: Sequence[Any], setter: Callable[[Any], None]) -> None:
    """Each part held out in turn: the value best on the others."""
    got = {}
    for v in values:
        setter(v)
        got[v] = {p: evaluate(ws[p], semantic) for p in PARTS}
        print(f"  {name} = {v}: " + "  ".join(
            f"{p} {figure(got[v][p])}" for p in PARTS))
    pooled = []
    for held in PARTS:
        best = max(values, key=lambda v: f1([got[v][p] for p in PARTS
                                             if p != held]))
        pooled.append(got[best][held])
        print(f"  held out {held}: {name} = {best}, {figure(got[best][held])}")
    total = ev.Tally(restated=sum(t.restated for t in pooled),
                     restated_found=sum(t.restated_found for t in pooled),
                     reworded=sum(t.reworded for t in pooled),
                     reworded_true=sum(t.reworded_true for t in pooled))
    print(f"  cross-validated: {figure(total)}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkouts", type=Path)
    ap.add_argument("--rotate", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="restated-cv-") as tmp:
        try:
            ws = {p: workspaces(args.checkouts, Path(tmp) / p, p) for p in PARTS}
        except ev.Refused as exc:
            print(f"restated_cv: {exc}", file=sys.stderr)
            return 2
        for semantic in (False, True):
            mode = "semantic" if semantic else "lexical"
            for p in PARTS:
                print(f"{mode} {p}: {figure(evaluate(ws[p], semantic))}")
            if not args.rotate:
                continue
            role, cap = dupes.RESTATED_ROLE, similarity.WRITTEN_CAP
            print(f"{mode}, rotated:")
            rotate(ws, semantic, "WRITTEN_CAP", (2, 3, 4, 6, 10),
                   lambda v: setattr(similarity, "WRITTEN_CAP", v))
            similarity.WRITTEN_CAP = cap
            rotate(ws, semantic, "RESTATED_ROLE",
                   (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4),
                   lambda v: setattr(dupes, "RESTATED_ROLE", (v, v)))
            dupes.RESTATED_ROLE = role
            within = dupes.RESTATED_WITHIN
            rotate(ws, semantic, "RESTATED_WITHIN", (None, 0.4, 0.5, 0.6),
                   lambda v: setattr(dupes, "RESTATED_WITHIN",
                                     None if v is None else (v, v)))
            dupes.RESTATED_WITHIN = within
    return 0


if __name__ == "__main__":
    sys.exit(main())
