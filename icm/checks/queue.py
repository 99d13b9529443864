"""Queue hygiene: pending work is one ``NN_slug.md`` file per item in
``queue/``, and no two items share a number (two writers both took 07).

Against another ref (``--against REF``; by default the ref this branch merges
into, where known: ``ICM_BASE``, ``origin/$GITHUB_BASE_REF``, the upstream,
local ``main``/``master`` when it is ahead of ``origin/HEAD``, ``origin/HEAD``),
the merge is seen before it happens, from git's trees and
the merge base: an item added here whose number REF also uses, an item
changed here (claimed, edited) that REF finished as a journal entry (one
this branch never touched is deleted by the merge, as REF did: no finding),
and an item REF says another writer claimed.

Bad::

    queue: number 07 is used twice: queue/07_a.md, queue/07_b.md
    queue/07_a.md: number 07 is also queue/07_b.md on origin/main (renumber:
    icm renumber 07)
    queue/07_x.md: finished on origin/main as journal/2026-11-02_x.md, still queued here
    queue/07_x.md: claimed by Ada on feat (origin/main)

Good: ``queue/07_auto-detect-delimiter.md`` and ``queue/08_summary-to-stderr.md``,
then ``queue ok (against origin/main)``: the last line names the base, or
says there was none (``queue ok (no base branch to compare with)``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from icm.context import Against, Context, Unreadable
from icm.escape import inert
from icm.finding import Finding, Report, Rule, Rules, Severity, failing
from icm.lines import to_lf
from icm.model.queue import CARRIED, PATTERN, claim_of, gist, items, match, number
from icm.registry import QueueOptions

NAME = "queue"
# icm explain: why the rule matters, and how to silence it here
WHY = ("Two writers taking one number, or doing one piece of work twice, collide at the"
       " merge unless it is seen before.")
SILENCE = "icm renumber NN for a collision; --against REF names the base"
RULES = Rules(NAME, {
    "bad-name": Rule("a queue item's file name does not match NN_slug.md",
                     fix="rename to a two-digit number, an underscore and a "
                     "slug, or use 'icm new-queue'", whole_file=True),
    "duplicate-number": Rule("two queue items share a number",
                             fix="renumber all but one with 'git mv' to the "
                             "next free number", whole_file=True),
    "number-collision": Rule("an item added here has a number the base branch "
                             "also used", whole_file=True),
    "finished-elsewhere": Rule("an item changed here was finished on the base "
                               "branch", whole_file=True),
    "same-work": Rule("an item added here looks like one added on the base "
                      "branch", Severity.WARNING, whole_file=True),
    "claimed-elsewhere": Rule("an item is claimed by another writer on the base "
                              "branch", Severity.WARNING, whole_file=True),
    "no-folder": Rule("queue_dir names a folder that does not exist yet",
                      Severity.INFO),
})
# What the ok line says when no base is known (``git.default_base``): a
# bare ``queue ok`` read as "no collision with main" when nothing was compared.
NO_BASE = "no base branch to compare with"
# Two items whose gists score this much (icm.similarity) look like the same
# work: measured on item pairs in tests/test_two_writers.py; a warning only.
# The ref's gists are indexed once (``Index.like``, any shared word): scoring
# every pair, each gist re-read per pair, took 200 items a side 5.7 s.
SAME_WORK = 0.5


def run(ctx: Context, options: QueueOptions) -> Report:
    findings: List[Finding] = []
    by_number: Dict[int, List[str]] = defaultdict(list)
    for path in items(ctx):
        name = path.rsplit("/", 1)[-1]
        m = match(name)
        if not m:
            findings.append(RULES("bad-name", path,
                                  f"name does not match {PATTERN}"))
            continue
        by_number[int(m.group(1))].append(path)
    for _number, paths in sorted(by_number.items()):
        if len(paths) < 2:
            continue
        paths.sort()
        times = "twice" if len(paths) == 2 else f"{len(paths)} times"
        label = paths[0].rsplit("/", 1)[-1].split("_", 1)[0]
        findings.append(RULES(
            "duplicate-number", paths[0], f"{ctx.config.queue_dir}: number {label} "
            f"is used {times}: {', '.join(paths)}", located=True))
    # Every finding against the ref is about an item here: with none, the
    # ref's name is all the last line needs (no tree, no merge base).
    view = ctx.against(options.against,
                       trees=any(number(p) >= 0 for p in items(ctx)))
    findings += _against(ctx, view)
    missing = ctx.missing_folder("queue_dir")  # as the journal's: a typo shows
    if missing:
        findings.append(RULES("no-folder", ".", f"queue: no folder "
                              f"{ctx.config.queue_dir} yet (queue_dir)"))
    base = f"against {view.ref}" if view else NO_BASE

    def tail(found: Tuple[Finding, ...]) -> Tuple[str, ...]:
        """The line naming the base compared with, pass or fail."""
        problems = [f for f in found if f.severity is not Severity.INFO]
        if missing:
            return ()
        if not failing(found):
            return (f"queue ok ({base})",)
        noun = "problem" if len(problems) == 1 else "problems"
        return (f"queue: {len(problems)} {noun} ({base})",)

    return Report.of(NAME, findings, retail=tail,
                     data={"items": sum(len(v) for v in by_number.values()),
                           "base": view.ref if view else None})


def _in(folder: str, path: str) -> bool:
    prefix = folder.rstrip("/") + "/"
    return path.startswith(prefix) and "/" not in path[len(prefix):]


def _text(view: Against, path: str) -> str:
    return view.blobs.get(view.ref_files.get(path, ""), b"").decode(
        "utf-8", "replace")


def _against(ctx: Context, view: Optional[Against]) -> List[Finding]:
    """What merging ``view.ref`` would collide with, seen before the merge."""
    if view is None:
        return []
    qdir, jdir, ref = ctx.config.queue_dir, ctx.config.journal_dir, view.ref
    here = [p for p in items(ctx) if number(p) >= 0]
    theirs = [p for p in view.ref_files if _in(qdir, p) and number(p) >= 0]
    found: List[Finding] = []

    def add(path: str, detail: str, code: str, fix: str,
            severity: Optional[Severity] = None) -> None:
        found.append(RULES(code, path, detail, fix=fix, severity=severity))

    by_number: Dict[int, List[str]] = defaultdict(list)
    for path in theirs:
        by_number[number(path)].append(path)
    for path in here:
        if path in view.base_files:
            continue  # not added on this branch
        label = path.rsplit("/", 1)[-1].split("_", 1)[0]
        for other in sorted(by_number.get(number(path), [])):
            if other != path:
                add(path, f"number {label} is also {other} on {ref} (renumber: "
                    f"icm renumber {label})", "number-collision",
                    f"icm renumber {label}")
    finished = {}
    for path in view.ref_files:
        if _in(jdir, path) and path not in view.base_files:
            for carried in CARRIED.findall(to_lf(_text(view, path))):
                finished[carried] = path
            slug = path.rsplit("/", 1)[-1][11:]  # after "YYYY-MM-DD_"
            finished.setdefault(f"slug:{slug}", path)
    for path in here:
        if path not in view.base_files or path in view.ref_files:
            continue  # added here, or still queued on the ref
        if view.head_files.get(path) == view.base_files[path]:
            continue  # untouched here: the merge deletes it as the ref did
        slug = path.rsplit("/", 1)[-1].split("_", 1)[-1]
        entry = finished.get(path) or finished.get(f"slug:{slug}")
        if entry:
            add(path, f"finished on {ref} as {entry}, still queued here",
                "finished-elsewhere", f"drop {path} here (git rm), or rebase on "
                f"{ref}")
    added_there = [p for p in theirs if p not in view.base_files]
    if added_there:  # similarity loads only then: 8 ms of a run with none
        from icm.similarity import Index, Statement

        index = Index(Statement(p, 1, gist(_text(view, p))) for p in added_there)
    for path in here:
        if path in view.base_files or not added_there:
            continue
        try:
            mine = gist(ctx.read_text(path))
        except Unreadable:
            continue
        for j, _score in index.like(mine, SAME_WORK, min_shared=0):
            other = index.statements[j].path
            if other != path and number(other) != number(path):
                add(path, f"looks like {other} on {ref} (same work twice?)",
                    "same-work", "if it is the same work, keep one item",
                    Severity.WARNING)
    for path in here:
        claim = claim_of(_text(view, path)) if path in view.ref_files else None
        if claim and claim[0] != inert(view.user):  # as ``claim`` writes it
            add(path, f"claimed by {claim[0]} on {claim[1]} ({ref})",
                "claimed-elsewhere", "agree with that writer who takes it, or "
                "pick another item", Severity.WARNING)
    return found
