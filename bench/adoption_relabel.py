"""Match a new adoption trial's findings with the verdicts already given.

    python bench/adoption_relabel.py LABELS.json NEW.json [--repo OWNER/NAME]
        [--sample N --seed S] [--version TEXT] [--check CHECK]

LABELS.json is bench/labels/adoption.json; NEW.json is what
`adoption_trial.py --out` wrote for one repository (an icm with fixes, say).
A finding is already labelled when a label names the same repository,
commit, check, code and place (`path:line`, or the path): the verdict is
about the repository's text, which the commit pins, so it holds whichever
icm found it. The script prints the share over the labelled findings, then
every finding still to read as a label line with `"verdict": "?"`, ready to
fill in and append (its message on the `#` line above it, for reading
only). `--sample N --seed S` reads the same random sample the labels were
made from (a repository with more than N findings). `--check CHECK` reads
only that check's findings and labels, and also counts the labels whose
finding is gone, by verdict (a fix's figure: noise gone, actionable kept).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path
from typing import Any, Dict, List, Tuple

Key = Tuple[str, str, str]


def place(finding: Dict[str, Any]) -> str:
    return str(finding["path"]) + (f":{finding['line']}" if finding["line"] else "")


def repo_name(trial: Dict[str, Any]) -> str:
    """owner/name from the fetch mirror's folder (`owner+name/repo`)."""
    source = Path(trial["source"])
    folder = source.parent.name if source.name == "repo" else source.name
    if "+" not in folder:
        raise SystemExit(f"cannot tell the repository from {source}: "
                         "give --repo OWNER/NAME")
    return folder.replace("+", "/", 1)


def asks(trial: Dict[str, Any], sample: int, seed: int) -> List[Dict[str, Any]]:
    """The findings that ask something of someone, or the labelled sample."""
    found = [f for f in trial["findings"] if f["severity"] != "info"]
    if sample and len(found) > sample:
        picked = sorted(random.Random(seed).sample(range(len(found)), sample))
        found = [found[i] for i in picked]
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", type=Path)
    ap.add_argument("trial", type=Path)
    ap.add_argument("--repo", help="owner/name (default: from the source path)")
    ap.add_argument("--sample", type=int, default=0,
                    help="read only a random sample of this many findings")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--version", default="?",
                    help="the version field of the label lines printed")
    ap.add_argument("--check", help="only this check's findings and labels")
    a = ap.parse_args()
    trial = json.loads(a.trial.read_text())
    repo = a.repo or repo_name(trial)
    commit = trial["commit"][:12]
    # One label answers one finding: a place can hold several (two links on
    # a line, a record missing two slots), and labels name no slot or link.
    verdicts: Dict[Key, List[str]] = collections.defaultdict(list)
    for label in json.loads(a.labels.read_text())["labels"]:
        if label["repo"] == repo and trial["commit"].startswith(label["commit"]) \
                and a.check in (None, label["check"]):
            verdicts[(label["check"], label["code"], label["at"])].append(
                label["verdict"])
    counts: collections.Counter[str] = collections.Counter()
    unread = []
    for f in asks(trial, a.sample, a.seed):
        if a.check not in (None, f["check"]):
            continue
        left = verdicts.get((f["check"], f["code"], place(f)))
        if not left:
            unread.append(f)
        else:
            counts[left.pop(0)] += 1
    labelled = counts["actionable"] + counts["noise"]
    share = f"{100 * counts['actionable'] / labelled:.0f} %" if labelled else "n/a"
    print(f"{repo} {commit}: {labelled} labelled ({counts['actionable']} "
          f"actionable, {counts['noise']} noise: {share}), "
          f"{len(unread)} to read")
    if a.check is not None:
        gone = collections.Counter(v for left in verdicts.values() for v in left)
        print(f"{a.check}: labels whose finding is gone: {gone['actionable']} "
              f"actionable, {gone['noise']} noise")
    for f in unread:
        # The message is for reading only: labels hold no text of the
        # repository, so it stays on its own line, out of the label.
        print(f"# {f['message']}")
        print(json.dumps({"repo": repo, "commit": commit, "version": a.version,
                          "check": f["check"], "code": f["code"],
                          "at": place(f), "verdict": "?", "reason": ""}) + ",")


if __name__ == "__main__":
    main()
