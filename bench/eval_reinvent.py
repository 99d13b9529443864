"""Measure the re-invention warning on its labelled set.

    python bench/eval_reinvent.py [--cases bench/reinvent_cases.json]
                                  [--min-shared N]

Each case pairs a Rejected alternative with a proposal (a queue item's
title and first paragraph) and says whether the proposal re-proposes it
(label 1, a paraphrase) or not (label 0, an unrelated item that shares
vocabulary). The script runs icm's own path: every alternative's first
sentence (``journal.first_sentence``) goes into one ``similarity.Index``,
each proposal is written as a queue item and read back with
``positions.proposal``, and ``Index.nearest`` finds what it matches. A
warning is a match at or above the threshold: a true positive when it is
the case's own alternative and the label is 1, a false positive otherwise
(a negative matching anything, or a paraphrase matching another case's
alternative). Prints precision and recall for a sweep of thresholds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from icm import similarity  # noqa: E402
from icm.model import journal, positions  # noqa: E402


def queue_item(text: str) -> str:
    """The proposal as a queue item: its first sentence is the title."""
    title, _, rest = text.partition(". ")
    return f"# {title.rstrip('.')}\n\n{rest}\n"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=str(ROOT / "bench/reinvent_cases.json"))
    parser.add_argument("--min-shared", type=int, default=positions.MIN_SHARED)
    args = parser.parse_args(argv)
    cases = json.loads(Path(args.cases).read_text())["cases"]
    alternatives = sorted({journal.first_sentence(c["rejected"], 10**6)
                           for c in cases})
    index = similarity.Index(similarity.Statement(f"alt{n}", 1, text)
                             for n, text in enumerate(alternatives))
    # (score, is the case's own alternative, label) of every candidate match
    scored: List[Tuple[float, bool, int]] = []
    for case in cases:
        own = journal.first_sentence(case["rejected"], 10**6)
        said, _line = positions.proposal(queue_item(case["proposal"]))
        for m in index.nearest(said, 0.0, limit=len(alternatives),
                               min_shared=args.min_shared):
            scored.append((m.score, m.b.text == own, case["label"]))
    positives = sum(1 for c in cases if c["label"] == 1)
    print(f"{len(cases)} cases ({positives} re-proposals), "
          f"{len(alternatives)} alternatives, min_shared={args.min_shared}")
    print("threshold  warnings  true  precision  recall")
    for step in range(10, 55, 5):
        t = step / 100
        warned = [s for s in scored if s[0] >= t]
        hits = sum(1 for _, own, label in warned if own and label == 1)
        precision = hits / len(warned) if warned else 1.0
        print(f"{t:9.2f}  {len(warned):8d}  {hits:4d}  {precision:9.2f}  "
              f"{hits / positives:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
