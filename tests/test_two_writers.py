"""Two writers, one tree: queue collisions seen before the merge, claims,
renumber, and concurrent writers on one machine. Real git, real branches."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import List, Tuple

import pytest

from tests.conftest import commit, git, python_lines, write

D1 = "2026-11-01T12:00:00+00:00"
D2 = "2026-11-02T12:00:00+00:00"
D3 = "2026-11-03T12:00:00+00:00"


def _start(repo: Path) -> None:
    git(repo, "config", "user.name", "Ada")
    commit(repo, {"AGENTS.md": "# H\n", "queue/06_old.md": "# Old\n"}, D1, "start")
    git(repo, "branch", "-M", "main")


def test_same_number_on_two_branches(repo: Path, icm) -> None:
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_auto-detect-delimiter.md": "# Auto\n"}, D2, "a")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"queue/07_streaming-writer.md": "# Stream\n"}, D2, "b")
    git(repo, "checkout", "-q", "feat")
    want = (1, ("queue/07_auto-detect-delimiter.md: number 07 is also "
                "queue/07_streaming-writer.md on main (renumber: icm renumber 07)"
                "\nqueue: 1 problem (against main)\n"), "")
    # No remote, no upstream: local main is the base (a bare ``queue ok``
    # once hid this collision).
    assert icm("check-queue", "--root", str(repo)) == want
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == want
    # The same against main's own view of itself: nothing added here.
    git(repo, "checkout", "-q", "main")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (
        0, "queue ok (against main)\n", "")


def test_collision_against_remote_tracking_and_upstream(tmp_path: Path,
                                                        repo: Path, icm) -> None:
    _start(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "config", "user.name", "Bob")
    git(clone, "checkout", "-q", "-b", "work", "--track", "origin/main")
    commit(clone, {"queue/07_mine.md": "# Mine\n"}, D2, "mine")
    commit(repo, {"queue/07_theirs.md": "# Theirs\n"}, D2, "theirs")
    git(clone, "fetch", "-q")
    want = (1, "queue/07_mine.md: number 07 is also queue/07_theirs.md on "
            "origin/main (renumber: icm renumber 07)\nqueue: 1 problem "
            "(against origin/main)\n", "")
    assert icm("check-queue", "--against", "origin/main", "--root",
               str(clone)) == want
    assert icm("check-queue", "--root", str(clone)) == want  # the upstream
    # new-queue skips the number the other branch took.
    assert icm("new-queue", "Next", "--root", str(clone)) == (
        0, "queue/08_next.md\n", "")


def test_base_ref_from_environment(repo: Path, icm, monkeypatch) -> None:
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_a.md": "# A\n"}, D2, "a")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"queue/07_b.md": "# B\n"}, D2, "b")
    git(repo, "checkout", "-q", "feat")
    monkeypatch.setenv("ICM_BASE", "main")
    assert icm("check-queue", "--root", str(repo))[0] == 1
    monkeypatch.delenv("ICM_BASE")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    assert icm("check-queue", "--root", str(repo))[1].startswith(
        "queue/07_a.md: number 07 is also queue/07_b.md on origin/main")


def test_finished_on_base_still_queued_here(repo: Path, icm) -> None:
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n"}, D2, "queue 07")
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"src.py": "1\n"}, D3, "other work")
    git(repo, "checkout", "-q", "main")
    assert icm("new-journal", "07", "--date", "2026-11-02", "--root",
               str(repo))[0] == 0
    git(repo, "commit", "-q", "-m", "finish 07")
    git(repo, "checkout", "-q", "feat")
    # Untouched here, the merge deletes it as main did: a branch merely
    # behind main was an error (newcomer round 2).
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (
        0, "queue ok (against main)\n", "")
    commit(repo, {"queue/07_x.md": "# X\n\nHalf done here.\n"}, D3, "work on 07")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (1, (
        "queue/07_x.md: finished on main as journal/2026-11-02_x.md, still "
        "queued here\nqueue: 1 problem (against main)\n"), "")


def test_claim_travels_with_the_branch(repo: Path, icm) -> None:
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n\nDetails.\n"}, D2, "queue 07")
    git(repo, "checkout", "-q", "-b", "bob")
    git(repo, "config", "user.name", "Bob")
    code, out, err = icm("claim", "07", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.startswith("queue/07_x.md: Claimed-by: Bob on bob, ")
    text = (repo / "queue/07_x.md").read_text()
    assert text.startswith("# X\n\nClaimed-by: Bob on bob, ") and \
        text.endswith("\n\nDetails.\n")
    git(repo, "commit", "-q", "-am", "claim 07")
    git(repo, "checkout", "-q", "main")
    git(repo, "config", "user.name", "Ada")
    code, out, _ = icm("check-queue", "--against", "bob", "--root", str(repo))
    assert (code, out) == (0, "queue/07_x.md: claimed by Bob on bob (bob)\n"
                           "queue ok (against bob)\n")
    # Ada may not finish or release Bob's item without --force.
    git(repo, "merge", "-q", "bob")
    assert icm("new-journal", "07", "--root", str(repo))[2].startswith(
        "icm: queue/07_x.md: claimed by Bob on bob, ")
    assert icm("release", "07", "--root", str(repo)) == (
        2, "", "icm: queue/07_x.md: claimed by Bob, not by you; pass --force to "
        "release it anyway\n")
    assert icm("release", "07", "--force", "--root", str(repo)) == (
        0, "queue/07_x.md: released\n", "")
    assert (repo / "queue/07_x.md").read_text() == "# X\n\nDetails.\n"
    assert icm("new-journal", "07", "--root", str(repo))[0] == 0


def test_renumber_rewrites_links_in_three_files(repo: Path, icm) -> None:
    _start(repo)
    commit(repo, {
        "queue/07_x.md": "# X\n",
        "AGENTS.md": "# H\n\nSee [07](queue/07_x.md) and [again](queue/07_x.md#x).\n",
        "docs/plan.md": "Next: [x](../queue/07_x.md).\n\n[ref]: ../queue/07_x.md\n",
        "queue/06_old.md": "Before [07](07_x.md).\n",
    }, D2, "links")
    assert icm("renumber", "07", "--root", str(repo)) == (0, (
        "queue/07_x.md -> queue/08_x.md\n"
        "AGENTS.md: link rewritten\n"
        "docs/plan.md: link rewritten\n"
        "queue/06_old.md: link rewritten\n"), "")
    assert (repo / "AGENTS.md").read_text() == (
        "# H\n\nSee [07](queue/08_x.md) and [again](queue/08_x.md#x).\n")
    assert (repo / "docs/plan.md").read_text() == (
        "Next: [x](../queue/08_x.md).\n\n[ref]: ../queue/08_x.md\n")
    assert (repo / "queue/06_old.md").read_text() == "Before [07](08_x.md).\n"
    assert not (repo / "queue/07_x.md").exists()
    status = git(repo, "status", "--porcelain", "--", "queue")
    assert "R  queue/07_x.md -> queue/08_x.md" in status
    assert icm("check-links", "--root", str(repo))[0] == 0
    assert icm("renumber", "08", "--to", "6", "--root", str(repo)) == (
        2, "", "icm: number 06 is already used; pick a free one or leave out "
        "--to\n")


def test_renumber_failure_changes_nothing(repo: Path, icm, monkeypatch) -> None:
    """A file that cannot be put in place after another was: the other goes
    back, the new item goes, nothing is left beside them."""
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n", "a.md": "[a](queue/07_x.md)\n",
                  "b.md": "[b](queue/07_x.md)\n"}, D2, "links")
    real = os.replace

    def failing(src, dst, *args, **kwargs):
        if str(dst).endswith("b.md"):
            raise OSError(5, "Input/output error")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing)
    assert icm("renumber", "07", "--root", str(repo)) == (
        2, "", "icm: cannot write b.md: Input/output error\n")
    assert (repo / "a.md").read_text() == "[a](queue/07_x.md)\n"
    assert sorted(os.listdir(repo / "queue")) == ["06_old.md", "07_x.md"]
    assert [p.name for p in repo.rglob(".icm-*")] == []


def test_a_put_back_that_fails_says_where_the_old_text_is(repo: Path, icm,
                                                           monkeypatch) -> None:
    """The undo itself fails: one line says what failed and where the old
    text is kept; that file is never deleted."""
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n", "a.md": "[a](queue/07_x.md)\n",
                  "b.md": "[b](queue/07_x.md)\n"}, D2, "links")
    real = os.replace

    def failing(src, dst, *args, **kwargs):
        if str(dst).endswith("b.md") or str(dst).endswith("a.md") \
                and os.path.basename(src).startswith(".icm-") \
                and (repo / "a.md").read_text() != "[a](queue/07_x.md)\n":
            raise OSError(5, "Input/output error")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing)
    code, out, err = icm("renumber", "07", "--root", str(repo))
    kept = [p for p in repo.glob(".icm-*")]
    assert len(kept) == 1 and kept[0].read_text() == "[a](queue/07_x.md)\n"
    assert (code, out, err) == (2, "", (
        "icm: cannot write b.md: Input/output error; then putting back failed, "
        f"check by hand: a.md (Input/output error; its old text is in "
        f"{kept[0].name})\n"))


def test_no_remote_no_upstream_is_todays_behaviour(repo: Path, icm) -> None:
    _start(repo)
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")
    assert icm("check-queue", "--against", "nope", "--root", str(repo)) == (
        2, "", "icm: --against nope: names no commit\n")


def test_twenty_parallel_new_queue(repo: Path) -> None:
    _start(repo)
    cmd = [sys.executable, "-m", "icm", "new-queue", "--root", str(repo)]
    procs = [subprocess.Popen([*cmd, f"writer {i}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(20)]
    outs = [p.communicate()[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(int(o.split("/")[1][:2]) for o in outs) == list(range(7, 27))
    assert len(list((repo / "queue").glob("*.md"))) == 21


def test_new_journal_twice_at_once(repo: Path) -> None:
    _start(repo)
    write(repo, {"queue/07_x.md": "# X\n"})
    cmd = [sys.executable, "-m", "icm", "new-journal", "07", "--date",
           "2026-11-29", "--root", str(repo)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    results = sorted((p.wait(), p.stdout.read(), p.stderr.read())  # type: ignore
                     for p in procs)
    assert results[0] == (0, "journal/2026-11-29_x.md\nremoved queue/07_x.md\n",
                          "")
    assert results[1][0] == 2 and results[1][1] == ""
    assert results[1][2] in (
        "icm: queue/07_x.md is gone: another writer finished or moved it just "
        "now\n",
        "icm: no queue item matches '07' (queue/06_old.md)\n")
    assert [p.name for p in (repo / "journal").iterdir()] == ["2026-11-29_x.md"]


def test_same_work_twice_is_a_warning(repo: Path, icm) -> None:
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_parse-dates.md": (
        "# Parse dates in the export\n\nThe export has ISO dates that the "
        "cleaner drops; parse them into datetime before filtering rows.\n")},
        D2, "mine")
    git(repo, "checkout", "-q", "main")
    commit(repo, {
        "queue/08_date-parsing.md": (
            "# Date parsing for exports\n\nThe cleaner drops ISO dates in the "
            "export; parse them into datetime before rows are filtered.\n"),
        "queue/09_stderr.md": (
            "# Write the summary line to stderr\n\nScripts read stdout and the "
            "summary breaks them.\n")}, D2, "theirs")
    git(repo, "checkout", "-q", "feat")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (0, (
        "queue/07_parse-dates.md: looks like queue/08_date-parsing.md on main "
        "(same work twice?)\nqueue ok (against main)\n"), "")


def test_finished_entry_does_not_carry_the_claim(repo: Path, icm) -> None:
    _start(repo)
    write(repo, {"queue/07_x.md": "# X\n\nClaimed-by: Ada on main, 2026-11-02\n\n"
                                  "Details.\n"})
    assert icm("new-journal", "07", "--date", "2026-11-03", "--root",
               str(repo))[0] == 0
    text = (repo / "journal/2026-11-03_x.md").read_text()
    assert "Claimed-by" not in text
    assert "Carried over from `queue/07_x.md`:\n\nDetails.\n" in text


def _today() -> str:
    from datetime import datetime

    return f"{datetime.now().astimezone():%Y-%m-%d}"


def test_a_claim_names_its_writer_on_one_line(repo: Path, icm) -> None:
    """A newline in user.name planted a slot heading, or another writer's
    claim; the claim line is one line, inert, and reads back as its writer."""
    _start(repo)
    item = "# Item\n\nbody\n"
    write(repo, {"queue/03_item.md": item})
    root = ("--root", str(repo))
    day = _today()
    git(repo, "config", "user.name", "eve\n## Decision")
    line = f"Claimed-by: eve\\n## Decision on main, {day}"
    assert icm("claim", "03", *root) == (0, f"queue/03_item.md: {line}\n", "")
    assert (repo / "queue/03_item.md").read_text() == f"# Item\n\n{line}\n\nbody\n"
    assert icm("claim", "03", *root)[0] == 0  # still this writer's
    assert icm("release", "03", *root) == (0, "queue/03_item.md: released\n", "")
    assert (repo / "queue/03_item.md").read_text() == item
    git(repo, "config", "user.name", "a on b, 2020-01-01\n...")
    assert icm("claim", "03", *root)[0] == 0
    git(repo, "config", "user.name", "Bob")
    assert icm("claim", "03", *root) == (
        2, "", "icm: queue/03_item.md: claimed by a on b, 2020-01-01\\n... on "
        f"main, {day}; pass --force to take it over\n")


def test_a_claim_from_a_name_and_branch_that_are_not_utf8(repo: Path, icm) -> None:
    _start(repo)
    write(repo, {"queue/03_item.md": "# Item\n\nbody\n"})
    git(repo, "config", "user.name", os.fsdecode(b"ab\xffc"))
    git(repo, "checkout", "-q", "-b", os.fsdecode(b"br\xff\xc2\xa0x"))
    line = f"Claimed-by: ab\\xffc on br\\xff\\u00a0x, {_today()}"
    assert icm("claim", "03", "--root", str(repo)) == (
        0, f"queue/03_item.md: {line}\n", "")
    assert (repo / "queue/03_item.md").read_text() == f"# Item\n\n{line}\n\nbody\n"
    assert icm("release", "03", "--root", str(repo)) == (
        0, "queue/03_item.md: released\n", "")
    assert (repo / "queue/03_item.md").read_text() == "# Item\n\nbody\n"


def test_a_claim_line_in_a_fence_is_no_claim(repo: Path, icm) -> None:
    """Only a claim line outside fenced code counts, or is rewritten or
    removed: the one in the fence is an example."""
    _start(repo)
    doc = ("# Doc\n\n```text\nClaimed-by: Alice on feat, 2026-01-01\n```\n\n"
           "~~~~\n~~~\nClaimed-by: Alice on feat, 2026-01-01\n   ~~~~  \n")
    write(repo, {"queue/05_doc.md": doc})
    git(repo, "config", "user.name", "Bob")
    root = ("--root", str(repo))
    assert icm("release", "05", *root) == (2, "", "icm: queue/05_doc.md: not "
                                           "claimed\n")
    line = f"Claimed-by: Bob on main, {_today()}"
    assert icm("claim", "05", *root) == (0, f"queue/05_doc.md: {line}\n", "")
    assert (repo / "queue/05_doc.md").read_text() == doc.replace(
        "# Doc\n\n", f"# Doc\n\n{line}\n\n")
    git(repo, "config", "user.name", "Alice")
    assert icm("claim", "05", "--force", *root)[0] == 0
    assert icm("release", "05", *root) == (0, "queue/05_doc.md: released\n", "")
    assert (repo / "queue/05_doc.md").read_text() == doc


def test_claimed_elsewhere_ignores_a_fenced_claim(repo: Path, icm) -> None:
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n"}, D2, "queue 07")
    git(repo, "checkout", "-q", "-b", "bob")
    commit(repo, {"queue/07_x.md": "# X\n\n```\nClaimed-by: Bob on bob, "
                  "2026-11-02\n```\n"}, D3, "an example")
    git(repo, "checkout", "-q", "main")
    assert icm("check-queue", "--against", "bob", "--root", str(repo)) == (
        0, "queue ok (against bob)\n", "")


def test_renumber_rewrites_the_items_links_to_itself(repo: Path, icm) -> None:
    _start(repo)
    item = ("# Item\n\nSee [n](07_x.md#notes), [top](#notes) and "
            "[q](../queue/07_x.md).\r\n\n## Notes\n\nx\n")
    commit(repo, {"queue/07_x.md": item, "a.md": "[x](queue/07_x.md)\n"}, D2, "x")
    assert icm("check-links", "--root", str(repo))[0] == 0
    assert icm("renumber", "07", "--to", "9", "--root", str(repo)) == (0, (
        "queue/07_x.md -> queue/09_x.md\n"
        "a.md: link rewritten\n"
        "queue/09_x.md: link rewritten\n"), "")
    assert (repo / "queue/09_x.md").read_bytes().decode() == item.replace(
        "(07_x", "(09_x").replace("queue/07", "queue/09")
    assert icm("check-links", "--root", str(repo))[0] == 0
    assert git(repo, "ls-files", "queue") == "queue/06_old.md\nqueue/09_x.md\n"
    # Ambiguous on its own line: refused, nothing changed.
    write(repo, {"queue/09_x.md": "# Item\n\n[n](09_x.md) `09_x.md`\n"})
    assert icm("renumber", "09", "--to", "11", "--root", str(repo)) == (
        2, "", "icm: queue/09_x.md:3: cannot rewrite the link '09_x.md' to "
        "queue/09_x.md in place: the line holds it outside the link too; nothing "
        "was changed\n")
    assert sorted(p.name for p in (repo / "queue").iterdir()) == [
        "06_old.md", "09_x.md"]


# -- same work twice, at scale (issue 22, item 10) -----------------------------

WORDS = [f"{c}{v}{d}" for c in "bcdfghklmnprstvz" for v in "aeiou" for d in "bdgkmnt"]


def _sides(repo: Path, per_side: int) -> None:
    """``per_side`` items added on main and on feat, each a title and a
    sentence of its own words; feat's first rewords main's first."""
    import random

    rnd = random.Random(per_side)
    theirs = [rnd.sample(WORDS, 24) for _ in range(per_side)]
    mine = [theirs[0][:21] + rnd.sample(WORDS, 3)] + [
        rnd.sample(WORDS, 24) for _ in range(per_side - 1)]

    def item(words: list) -> str:
        return f"# {' '.join(words[:4])}\n\n{' '.join(words[4:])}.\n"

    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {f"queue/{2 * n + 10}_mine-{n}.md": item(w)
                  for n, w in enumerate(mine)}, D2, "mine")
    git(repo, "checkout", "-q", "main")
    commit(repo, {f"queue/{2 * n + 11}_theirs-{n}.md": item(w)
                  for n, w in enumerate(theirs)}, D2, "theirs")
    git(repo, "checkout", "-q", "feat")


def test_same_work_costs_linear_work(tmp_path: Path, monkeypatch) -> None:
    """Scoring every pair of added items, each gist re-read per pair, was
    quadratic (200 items a side: 5.7 s). Each gist is now tokenised once and
    candidates come from the index, so twice the items is about twice the
    work (Python lines run: no clock)."""
    from icm import config, context
    from icm.checks import queue
    from icm.registry import QueueOptions

    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    def check(root: Path, found: list) -> None:
        ctx = context.build(root, config.load(root))
        found[:] = [f.line_text for f in queue.run(
            ctx, QueueOptions(against="main")).findings]

    work = {}
    for per_side in (20, 40):
        root, found = tmp_path / str(per_side), []
        root.mkdir()
        git(root, "init", "-q")
        _sides(root, per_side)
        work[per_side] = python_lines(partial(check, root, found), limit=10 ** 6)
        assert found == ["queue/10_mine-0.md: looks like queue/11_theirs-0.md on "
                         "main (same work twice?)"]
    assert work[40] <= 2.2 * work[20]


def test_same_work_in_other_words_order(repo: Path, icm) -> None:
    """Jaccard alone: the same words, no pair of them in the same order,
    so no shared bigram; the index's word postings still find it."""
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_summary.md": "# Summary to stderr\n"}, D2, "mine")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"queue/08_stderr.md": "# Stderr: the summary\n"}, D2, "theirs")
    git(repo, "checkout", "-q", "feat")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (0, (
        "queue/07_summary.md: looks like queue/08_stderr.md on main "
        "(same work twice?)\nqueue ok (against main)\n"), "")


def test_same_work_among_boilerplate_items(repo: Path, icm) -> None:
    """Words held by more of the ref's items than the posting cap are
    boilerplate, not evidence; the words only the two items share still
    find them. (Scoring every pair flagged all 30 "Fix the parser for X".)"""
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_dates.md": (
        "# Fix the parser for ISO dates\n\nThe parser drops ISO dates in "
        "the export.\n")}, D2, "mine")
    git(repo, "checkout", "-q", "main")
    commit(repo, {f"queue/{n}_fix-{n}.md": (
        f"# Fix the parser for {WORDS[n]}\n\nThe parser drops {WORDS[n]} "
        f"{WORDS[n + 1]} in the export.\n") for n in range(10, 40)}, D2, "fixes")
    commit(repo, {"queue/40_iso.md": (
        "# Fix the parser for ISO dates\n\nISO dates are dropped by the "
        "parser in the export.\n")}, D3, "iso")
    git(repo, "checkout", "-q", "feat")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (0, (
        "queue/07_dates.md: looks like queue/40_iso.md on main "
        "(same work twice?)\nqueue ok (against main)\n"), "")

# -- every writer of a queue item holds the queue lock ------------------------


def _waiting(pid: int) -> bool:
    """Whether ``pid`` waits for a file lock (``/proc/locks``: ``->``)."""
    with open("/proc/locks") as fh:
        for line in fh:
            parts = line.split()
            if "->" in parts and parts[parts.index("->") + 4] == str(pid):
                return True
    return False


def _blocked_or_ended(proc: "subprocess.Popen[str]") -> bool:
    """Wait until ``proc`` waits for a lock (True) or ends (False)."""
    while proc.poll() is None:
        if _waiting(proc.pid):
            return True
        time.sleep(0.001)
    return False


needs_proc_locks = pytest.mark.skipif(not os.path.exists("/proc/locks"),
                                      reason="needs Linux's /proc/locks")

ENTRY = ("# A\n\n## Decision\nx.\n\n## Rejected alternative\ny.\n\n"
         "## Invariant\nz.\n\n## Verify command\n```sh\ntrue\n```\n")
# Every writer, each on the tree of its own test: what it is given.
QUEUE_WRITERS = {
    "claim": ["claim", "07"],
    "release": ["release", "08"],
    "renumber": ["renumber", "07"],
    "new-journal": ["new-journal", "07", "--date", "2026-11-29"],
    "new-queue": ["new-queue", "Next"],
    "check-links --fix": ["check-links", "--fix"],
    "positions --write": ["positions", "--write"],
    "review": ["review", "a/context.md"],
}


@needs_proc_locks
@pytest.mark.parametrize("name", sorted(QUEUE_WRITERS))
def test_every_queue_writer_waits_for_the_queue_lock(repo: Path, name: str) -> None:
    """claim and release took no lock; the rule is every writer's, so each
    is started while the test holds the queue folder's lock: each waits for
    it, then does its work."""
    import fcntl

    _start(repo)
    write(repo, {"queue/07_x.md": "# X\n",
                 "queue/08_y.md": "# Y\n\nClaimed-by: Ada on main, 2026-11-01\n",
                 "a/context.md": "# A\n", "journal/2026-11-01_a.md": ENTRY,
                 "pyproject.toml": '[tool.icm]\npositions_file = "POSITIONS.md"\n'})
    fd = os.open(repo / "queue", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-m", "icm", *QUEUE_WRITERS[name],
                                 "--root", str(repo)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        waited = _blocked_or_ended(proc)
    finally:
        os.close(fd)
    out, err = proc.communicate()
    assert waited, (name, proc.returncode, out, err)
    assert (proc.returncode, err) == (0, "")


def _forked(argv, env, out: Path) -> int:
    """Run icm's ``main(argv)`` in a forked child (a real process, without a
    fresh interpreter's start-up); its pid. ``out`` gets the exit code,
    stdout and stderr, NUL-separated."""
    pid = os.fork()
    if pid:
        return pid
    code = 2
    try:  # the child: never back into pytest
        from icm.cli import main

        os.environ.update(env)
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        code = main(argv)
        out.write_text(f"{code}\0{sys.stdout.getvalue()}\0{sys.stderr.getvalue()}")
    finally:
        os._exit(code)


def test_thirty_races_of_two_claims(repo: Path, tmp_path: Path) -> None:
    """Two writers claim one item at once, 30 times over (30 items, all
    started together): exactly one is told it holds the item, and it is the
    one the item names. Without the lock both were, 7 times in 30."""
    _start(repo)
    git(repo, "config", "--unset", "user.name")
    items = range(7, 37)
    write(repo, {f"queue/{n:02d}_item-{n}.md": f"# Item {n}\n\nBody.\n"
                 for n in items})
    configs = {}
    for who in ("Ada", "Bob"):
        configs[who] = tmp_path / f"{who}.gitconfig"
        configs[who].write_text(f"[user]\n\tname = {who}\n")
    runs = []
    for n in items:
        for who in ("Ada", "Bob"):
            out = tmp_path / f"{n}-{who}"
            runs.append((n, who, out, _forked(
                ["claim", str(n), "--root", str(repo)],
                {"GIT_CONFIG_GLOBAL": str(configs[who])}, out)))
    won: dict = {}
    for n, who, out, pid in runs:
        os.waitpid(pid, 0)
        code, _stdout, err = out.read_text().split("\0")
        if code == "0":
            assert n not in won, f"item {n}: {won.get(n)} and {who} both hold it"
            won[n] = who
        else:
            assert code == "2" and " claimed by " in err, (code, err)
    assert sorted(won) == list(items)
    for n, who in won.items():
        text = (repo / f"queue/{n:02d}_item-{n}.md").read_text()
        assert f"Claimed-by: {who} on main, " in text


@needs_proc_locks
def test_a_claim_made_during_a_renumber_survives_on_the_new_item(
        repo: Path, tmp_path: Path) -> None:
    """renumber is stopped halfway through putting its 300 texts in place;
    a claim of the old number then waits for the lock (unlocked, it was
    written to the old file, which renumber then removed), and lands on the
    renumbered item."""
    from tests.test_interrupt import (
        RENUMBER,
        _links,
        _renaming,
        _renumber_repo,
        _signal_when,
        _Writer,
    )

    _renumber_repo(repo)
    renumber = _Writer([*RENUMBER, str(repo)], tmp_path)
    first = repo / "docs/d000.md"
    assert _signal_when(renumber, _renaming(repo),
                        lambda: "02_x" in first.read_text() or None, None)
    claim = subprocess.Popen([sys.executable, "-m", "icm", "claim", "01", "--root",
                              str(repo)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    waited = _blocked_or_ended(claim)
    renumber.resume()
    assert renumber.wait()[0] == 0
    out, err = claim.communicate()
    assert waited and (claim.returncode, err) == (0, ""), (claim.returncode, err)
    line = f"Claimed-by: Ada on main, {_today()}"
    assert out == f"queue/02_x.md: {line}\n"
    assert sorted(os.listdir(repo / "queue")) == ["02_x.md"]
    assert (repo / "queue/02_x.md").read_text() == f"# X\n\n{line}\n"
    assert _links(repo) == {"01": 0, "02": 300}


# -- which base check-queue compares with, and that it says so ----------------


def _clone_on_feat(tmp_path: Path, repo: Path, track: bool = False) -> Path:
    """A clone whose ``origin/HEAD`` is origin/main, on branch feat made from
    it (tracking it only with ``track``), with 07 added there."""
    _start(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "config", "user.name", "Bob")
    git(clone, "checkout", "-q", "-b", "feat",
        *(("--track",) if track else ("--no-track",)), "origin/main")
    commit(clone, {"queue/07_mine.md": "# Mine\n"}, D2, "mine")
    return clone


def _merged_into_local_main(clone: Path, item: str) -> None:
    """Another worktree's merge into local main, not pushed: origin/HEAD
    does not have it."""
    git(clone, "checkout", "-q", "main")
    commit(clone, {item: "# Theirs\n"}, D2, "merge theirs")
    git(clone, "checkout", "-q", "feat")


def test_local_main_ahead_of_a_stale_origin_head_is_the_base(
        tmp_path: Path, repo: Path, icm) -> None:
    """The 07/07 collision a stale origin/HEAD said "queue ok" over."""
    clone = _clone_on_feat(tmp_path, repo)
    assert icm("check-queue", "--root", str(clone)) == (
        0, "queue ok (against origin/main)\n", "")
    _merged_into_local_main(clone, "queue/07_theirs.md")
    assert icm("check-queue", "--root", str(clone)) == (1, (
        "queue/07_mine.md: number 07 is also queue/07_theirs.md on main "
        "(renumber: icm renumber 07)\nqueue: 1 problem (against main)\n"), "")
    # On main itself, local main is no base: origin/HEAD is.
    git(clone, "checkout", "-q", "main")
    assert icm("check-queue", "--root", str(clone)) == (
        0, "queue ok (against origin/main)\n", "")


def test_local_main_behind_origin_head_is_not_the_base(
        tmp_path: Path, repo: Path, icm) -> None:
    clone = _clone_on_feat(tmp_path, repo)
    commit(repo, {"queue/07_theirs.md": "# Theirs\n"}, D2, "theirs")
    git(clone, "fetch", "-q")  # origin/main moves on, local main stays behind
    assert icm("check-queue", "--root", str(clone)) == (1, (
        "queue/07_mine.md: number 07 is also queue/07_theirs.md on origin/main "
        "(renumber: icm renumber 07)\nqueue: 1 problem (against origin/main)\n"),
        "")


def test_the_upstream_comes_before_local_main(tmp_path: Path, repo: Path,
                                              icm) -> None:
    clone = _clone_on_feat(tmp_path, repo, track=True)
    _merged_into_local_main(clone, "queue/07_theirs.md")
    assert icm("check-queue", "--root", str(clone)) == (
        0, "queue ok (against origin/main)\n", "")
    assert icm("check-queue", "--against", "main", "--root", str(clone))[0] == 1


def test_master_when_there_is_no_main(repo: Path, icm) -> None:
    _start(repo)
    git(repo, "branch", "-m", "main", "master")
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_a.md": "# A\n"}, D2, "a")
    git(repo, "checkout", "-q", "master")
    commit(repo, {"queue/07_b.md": "# B\n"}, D2, "b")
    git(repo, "checkout", "-q", "feat")
    assert icm("check-queue", "--root", str(repo))[1].endswith(
        "queue: 1 problem (against master)\n")
    git(repo, "branch", "-m", "master", "trunk")
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")


# -- the base guess: one git process per fact ---------------------------------


def _queue_processes(root: Path, monkeypatch) -> Tuple[List[str], str]:
    """The git subcommands check-queue starts (the context built first, on
    its own) and its last line: the guess was eleven processes in a row,
    waited on one after another, in every ``icm check``."""
    from icm import config, context
    from icm.checks import queue
    from icm.registry import QueueOptions
    from tests.test_stale import _git_processes

    ctx = context.build(root, config.load(root))
    started = _git_processes(monkeypatch)
    try:
        report = queue.run(ctx, QueueOptions())
    finally:
        monkeypatch.undo()
    return ([argv[argv.index("--literal-pathspecs") + 1] for argv in started],
            report.tail[-1])


def test_the_base_guess_is_one_git_process_per_fact(tmp_path: Path, repo: Path,
                                                    monkeypatch) -> None:
    clone = _clone_on_feat(tmp_path, repo, track=True)
    # Items here, a branch ahead of its upstream: the refs, the upstream's
    # commit, the two trees and the merge base; the base's tree is the ref's.
    assert _queue_processes(clone, monkeypatch) == (
        ["for-each-ref", "cat-file", "ls-tree", "merge-base", "ls-tree"],
        "queue ok (against origin/main)")
    # A claim on the ref: then the user's name.
    commit(repo, {"queue/06_old.md": "# Old\n\nClaimed-by: Ada on main, "
                  "2026-11-02\n"}, D2, "claim")
    git(clone, "fetch", "-q")
    assert _queue_processes(clone, monkeypatch) == (
        ["for-each-ref", "cat-file", "ls-tree", "merge-base", "ls-tree",
         "ls-tree", "cat-file", "config"],
        "queue ok (against origin/main)")
    # No item here: the ref's name is all the last line needs.
    git(clone, "rm", "-q", "-r", "queue")
    git(clone, "commit", "-q", "-m", "no queue")
    assert _queue_processes(clone, monkeypatch) == (
        ["for-each-ref", "cat-file"], "queue ok (against origin/main)")
    # CI names its base: one process, whatever else the clone has.
    monkeypatch.setenv("ICM_BASE", "origin/main")
    assert _queue_processes(clone, monkeypatch) == (
        ["cat-file"], "queue ok (against origin/main)")


def test_the_guess_on_a_detached_head_and_an_unborn_one(repo: Path, icm,
                                                        monkeypatch) -> None:
    """No branch checked out: local main is still the base (it is not the
    current branch), also past an ``ICM_BASE`` git cannot even look up
    there (``@{upstream}``: it stopped the batch of names); no commit at
    all: no base, and no error."""
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")
    _start(repo)
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_a.md": "# A\n"}, D2, "a")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"queue/07_b.md": "# B\n"}, D2, "b")
    git(repo, "checkout", "-q", "--detach", "feat")
    want = (1, ("queue/07_a.md: number 07 is also queue/07_b.md on main (renumber: "
                "icm renumber 07)\nqueue: 1 problem (against main)\n"), "")
    assert icm("check-queue", "--root", str(repo)) == want
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.setenv("ICM_BASE", "@{upstream}")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    assert icm("check-queue", "--root", str(repo)) == (
        1, want[1].replace("main", "origin/main"), "")
