"""What ``check-dupes`` says of the labelled real drifts (issue 25).

    python bench/drift_eval.py bench/labels/drifts.json --workspace /tmp/dw
        [--mirrors /work/.mirror] [--icm "python -m icm"] [--out X.json]

The labels (``bench/labels/drifts.json``) come from ``drift_history.py``:
each is a commit C that edited a statement of note A whose copy in note B
it left alone, labelled ``drift``, ``intended`` or ``no-rule`` before any
icm output was read. For each label the notes at C (the miner's note
files: no symlinks, none over 256 KiB) are read from the mirror
(``MIRRORS/OWNER+NAME/repo``, git as data, nothing of theirs run) and
copied into a fresh git repository under ``--workspace`` (``ID/``) with an
``icm.toml`` naming them (``note_name``: their paths; ``handbook``: the
root ``AGENTS.md``, ``CLAUDE.md`` or ``GEMINI.md`` when there is one).
``check-dupes --format json`` then runs there four times: the default
config, ``dupes_diverged = "error"``, ``dupes_siblings = "warning"``
(sibling folders' notes are not compared by default; this run shows what
the detector would say of them), and that with ``dupes_min_words = 4``
(the miner's own floor: real edits are often short lines). The finding
whose locations fall in A's edited statement and B's copy is the answer:
``diverged-rule``, ``mirror-drift`` (one folder's notes for two tools),
``duplicate-rule``, ``template-copies``, or none. Printed: per repository
and pooled, how many drifts icm reports diverged (recall), how many
diverged findings are drifts (precision), the same for errors under
``dupes_diverged = "error"``, the difference kinds of right and wrong
findings, and the baseline "every one-copy edit is a drift" (the drift
share). ``--out`` keeps the joined
rows (repository, commit, places, verdict, code, kinds; no text).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import drift_history as dh  # noqa: E402
import eval_heldout as ev  # noqa: E402

from icm import similarity  # noqa: E402

RUNS = {
    "default": "",
    "error": 'dupes_diverged = "error"\n',
    "siblings": 'dupes_siblings = "warning"\n',
    "short": 'dupes_siblings = "warning"\ndupes_min_words = 4\n',
}
DIVERGED = ("diverged-rule", "mirror-drift")
HANDBOOKS = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")


def toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def span(reader: dh.Reader, commit: str, path: str, line: int) -> Tuple[int, int]:
    """The lines of the statement starting at ``line`` (a finding names the
    line where two statements differ, inside a long paragraph)."""
    blob = reader.tree(commit)[path]
    text = dh.git(reader.mirror, "cat-file", "blob", blob).decode("utf-8", "replace")
    for s in similarity.statements(text, path):
        if s.line == line:
            return line, line + s.text.count("\n")
    return line, line


def workspace(reader: dh.Reader, commit: str, where: Path, extra: str) -> None:
    tree = reader.tree(commit)
    files = {p: dh.git(reader.mirror, "cat-file", "blob", b) for p, b in tree.items()}
    handbook = next((h for h in HANDBOOKS if h in files), "AGENTS.md")
    notes = sorted(p for p in files if p != handbook)
    ev.make_repo(where, files, f'handbook = "{handbook}"\n'
                 f"note_name = {toml_list(notes)}\n" + extra)


def find(found: Sequence[ev.Reported], a: Tuple[str, int, int],
         b: Tuple[str, int, int]) -> Optional[ev.Reported]:
    def at(loc: Tuple[str, int], want: Tuple[str, int, int]) -> bool:
        return loc[0] == want[0] and want[1] <= loc[1] <= want[2]

    best = None
    for f in found:
        locs = f.locations
        if any(at(x, a) for x in locs) and any(at(y, b) for y in locs):
            if best is None or f.diverged and not best.diverged:
                best = f
    return best


def edit_kinds(a_text: str, b_text: str) -> Tuple[str, ...]:
    """What the edited statement and the copy differ in, in icm's terms
    (``similarity.differences``, no places), else ``wording``."""
    kinds = sorted({d.kind for d in similarity.differences(a_text, b_text)})
    return tuple(kinds) or ("wording",)


def evaluate(labels: Dict[str, Any], mirrors: Path, ws_root: Path,
             icm: Sequence[str]) -> List[Dict[str, Any]]:
    rows = []
    readers: Dict[str, dh.Reader] = {}
    notes = re.compile(labels["mined"]["notes"])
    for lab in labels["labels"]:
        repo = lab["repo"]
        mirror = mirrors / repo.replace("/", "+") / "repo"
        reader = readers.setdefault(repo, dh.Reader(mirror, notes))
        commit = lab["commit"]
        pa, pb = lab["a"]["path"], lab["b"]["path"]
        a = (pa, *span(reader, commit, pa, lab["a"]["line"]))
        b = (pb, *span(reader, commit, pb, lab["b"]["line"]))
        a_text = next(s.text for s in reader.at(commit, a[0]) if s.line == a[1])
        b_text = next(s.text for s in reader.at(commit, b[0]) if s.line == b[1])
        row: Dict[str, Any] = {
            "id": lab["id"], "repo": repo, "commit": commit,
            "a": f"{a[0]}:{a[1]}", "b": f"{b[0]}:{b[1]}",
            "verdict": lab["verdict"], "fixed_later": lab["fixed_later"],
            "words": min(similarity.word_count(a_text), similarity.word_count(b_text)),
            "edit_kinds": list(edit_kinds(a_text, b_text))}
        for run, extra in RUNS.items():
            where = ws_root / f"{lab['id']}-{run}"
            if where.exists():
                shutil.rmtree(where)
            where.mkdir(parents=True)
            workspace(reader, commit, where, extra)
            hit = find(ev.reported(ev.run_icm(icm, where, "check-dupes")), a, b)
            row[run] = ({"code": hit.code, "severity": hit.severity,
                         "kinds": list(hit.kinds)} if hit else None)
        rows.append(row)
    return rows


def ratio(hit: int, total: int) -> str:
    return f"{hit}/{total} ({hit / total:.2f})" if total else f"{hit}/0 (-)"


def diverged(row: Dict[str, Any], run: str, error: bool = False) -> bool:
    hit = row[run]
    return bool(hit and hit["code"] in DIVERGED
                and (not error or hit["severity"] == "error"))


def render(rows: Sequence[Dict[str, Any]]) -> str:
    groups: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["repo"]].append(r)
    out = ["| repository | candidates | drift / intended / no-rule | fixed later "
           "| default: diverged (drifts) | duplicate | none "
           "| error tier: errors (drifts) | siblings on: diverged (drifts) "
           "| and 4 words: diverged (drifts) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, rs in [*sorted(groups.items()), ("pooled", list(rows))]:
        v = Counter(r["verdict"] for r in rs)
        div = [r for r in rs if diverged(r, "default")]
        err = [r for r in rs if diverged(r, "error", error=True)]
        sib = [r for r in rs if diverged(r, "siblings")]
        short = [r for r in rs if diverged(r, "short")]
        dup = sum(1 for r in rs
                  if r["default"] and r["default"]["code"] not in DIVERGED)
        out.append(
            f"| {name} | {len(rs)} | {v['drift']} / {v['intended']} / {v['no-rule']} "
            f"| {sum(1 for r in rs if r['fixed_later'])} "
            f"| {len(div)} ({sum(r['verdict'] == 'drift' for r in div)}) | {dup} "
            f"| {sum(1 for r in rs if not r['default'])} "
            f"| {len(err)} ({sum(r['verdict'] == 'drift' for r in err)}) "
            f"| {len(sib)} ({sum(r['verdict'] == 'drift' for r in sib)}) "
            f"| {len(short)} ({sum(r['verdict'] == 'drift' for r in short)}) |")
    drifts = [r for r in rows if r["verdict"] == "drift"]
    lines = ["", "\n".join(out), ""]
    tiers: Tuple[Tuple[str, str, bool], ...] = (
        ("default", "diverged (default config)", False),
        ("error", 'errors (dupes_diverged = "error")', True),
        ("siblings", 'diverged (dupes_siblings = "warning")', False),
        ("short", "diverged (siblings and dupes_min_words = 4)", False))
    for run, label, errors in tiers:
        found = [r for r in rows if diverged(r, run, errors)]
        right = sum(r["verdict"] == "drift" for r in found)
        caught = sum(diverged(r, run, errors) for r in drifts)
        lines.append(f"- {label}: recall {ratio(caught, len(drifts))}, "
                     f"precision {ratio(right, len(found))}")
    lines.append(f"- baseline, every one-copy edit a drift: precision "
                 f"{ratio(len(drifts), len(rows))}")
    kinds: Dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        side = "drift" if r["verdict"] == "drift" else "not drift"
        for k in r["edit_kinds"]:
            kinds[f"edit, {side}"][k] += 1
        runs = [run for run in ("default", "siblings", "short") if diverged(r, run)]
        if runs:
            hit = r[runs[0]]
            verdict = "right" if side == "drift" else "wrong"
            for k in hit["kinds"] or ["(none named)"]:
                kinds[f"diverged finding, {verdict}"][k] += 1
    for key in sorted(kinds):
        lines.append(f"- kinds, {key}: " + ", ".join(
            f"{k} {n}" for k, n in kinds[key].most_common()))
    lines.append("")
    lines.append("| id | repository | A | B | verdict | words | default "
                 "| error run | siblings on | and 4 words |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")

    def cell(hit: Optional[Dict[str, Any]]) -> str:
        if not hit:
            return "none"
        kinds = f" ({', '.join(hit['kinds'])})" if hit["kinds"] else ""
        return f"{hit['code']} {hit['severity']}{kinds}"

    for r in rows:
        lines.append(f"| {r['id']} | {r['repo']} | `{r['a']}` | `{r['b']}` "
                     f"| {r['verdict']} | {r['words']} | {cell(r['default'])} "
                     f"| {cell(r['error'])} | {cell(r['siblings'])} "
                     f"| {cell(r['short'])} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels", type=Path)
    ap.add_argument("--workspace", type=Path, required=True)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--icm", default=f"{shlex.quote(sys.executable)} -m icm")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    labels = json.loads(args.labels.read_text(encoding="utf-8"))
    try:
        rows = evaluate(labels, args.mirrors, args.workspace, shlex.split(args.icm))
    except (ev.Refused, RuntimeError) as exc:
        print(f"drift_eval: {exc}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
