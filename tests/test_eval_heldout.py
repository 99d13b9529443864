"""The held-out evaluation's labels parse and agree with its split
(``bench/eval_heldout.py``, issue 25): a label the harness cannot read, or
a split that names a repository with no labels, would turn the figures into
zeros without an error. The figures themselves need the checkouts; this
needs none."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

_PATH = Path(__file__).parent.parent / "bench" / "eval_heldout.py"
_SPEC = importlib.util.spec_from_file_location("eval_heldout", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
heldout = importlib.util.module_from_spec(_SPEC)
sys.modules["eval_heldout"] = heldout  # dataclasses look their module up
_SPEC.loader.exec_module(heldout)

SPLIT = json.loads((heldout.LABELS / "split.json").read_text(encoding="utf-8"))


def test_every_note_repository_has_labels_of_its_commit() -> None:
    for entry in SPLIT["notes"]:
        labels = heldout.load_repo_labels(heldout.label_file(entry["repo"]))
        assert (labels.repo, labels.commit) == (entry["repo"], entry["commit"])
        ids = [c.id for c in labels.clusters]
        assert len(ids) == len(set(ids)), entry["repo"]


def test_both_parts_hold_repositories_and_cases() -> None:
    parts = {e["part"] for e in SPLIT["notes"]} | {e["part"] for e in SPLIT["reinvent"]}
    assert parts == {"tune", "test"}
    records, cases = heldout.load_reinvent(heldout.LABELS / "reinvent.json")
    part = {e["repo"]: e["part"] for e in SPLIT["reinvent"]}
    of = {r.id: part[r.repo] for r in records}  # a record's repo is in the split
    test = [c for c in cases if of[c.record] == "test"]
    assert len(test) >= 24 and any(c.kind == "revived" for c in test)


def test_exact_sentences_skip_code_headings_and_tables() -> None:
    text = ("# Never hand-edit the generated files here\n\n"
            "- Never hand-edit the generated files. Run make.\n\n"
            "```\nNever hand-edit the generated files.\n```\n"
            "| Never hand-edit the generated files. |\n")
    assert heldout.sentences(text) == [(3, "Never hand-edit the generated files.")]
