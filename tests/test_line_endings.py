"""CRLF and CR-only queue items, journal entries and linking files: claims
are seen, writers keep each line's own ending, and renumber edits the line
the parser named (one rule: ``icm.lines``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from icm import lines
from icm.workflow.claims import with_claim, without_claim
from tests.conftest import commit, git, write

D1 = "2026-11-01T12:00:00+00:00"
ENDINGS = {"crlf": "\r\n", "cr": "\r", "lf": "\n"}


def _today() -> str:
    return f"{datetime.now().astimezone():%Y-%m-%d}"


def _start(repo: Path) -> None:
    git(repo, "config", "user.name", "Ada")
    commit(repo, {"AGENTS.md": "# H\n"}, D1, "start")


@pytest.mark.parametrize("nl", ENDINGS.values(), ids=ENDINGS.keys())
def test_another_writers_claim_is_seen_whatever_the_endings(repo: Path, icm,
                                                            nl: str) -> None:
    _start(repo)
    item = f"# Thing{nl}{nl}Claimed-by: Bob on feat, 2026-11-29{nl}{nl}Body.{nl}"
    write(repo, {"queue/01_thing.md": item.encode()})
    root = ("--root", str(repo))
    assert icm("claim", "01", *root) == (
        2, "", "icm: queue/01_thing.md: claimed by Bob on feat, 2026-11-29; pass "
        "--force to take it over\n")
    assert icm("release", "01", *root) == (
        2, "", "icm: queue/01_thing.md: claimed by Bob, not by you; pass --force "
        "to release it anyway\n")
    assert icm("new-journal", "01", *root) == (
        2, "", "icm: queue/01_thing.md: claimed by Bob on feat, 2026-11-29; pass "
        "--force to finish it anyway\n")
    assert (repo / "queue/01_thing.md").read_bytes() == item.encode()
    assert icm("release", "01", "--force", *root) == (
        0, "queue/01_thing.md: released\n", "")
    assert (repo / "queue/01_thing.md").read_bytes() == \
        f"# Thing{nl}{nl}Body.{nl}".encode()


@pytest.mark.parametrize("nl", ENDINGS.values(), ids=ENDINGS.keys())
def test_claim_and_release_keep_the_items_endings(repo: Path, icm, nl: str) -> None:
    _start(repo)
    item = f"\ufeff# Thing one{nl}{nl}Body.{nl}"
    write(repo, {"queue/01_thing-one.md": item.encode()})
    line = f"Claimed-by: Ada on main, {_today()}"
    assert icm("claim", "01", "--root", str(repo)) == (
        0, f"queue/01_thing-one.md: {line}\n", "")
    assert (repo / "queue/01_thing-one.md").read_bytes() == (
        f"\ufeff# Thing one{nl}{nl}{line}{nl}{nl}Body.{nl}".encode())
    assert icm("release", "01", "--root", str(repo)) == (
        0, "queue/01_thing-one.md: released\n", "")
    assert (repo / "queue/01_thing-one.md").read_bytes() == item.encode()


@pytest.mark.parametrize("nl", ENDINGS.values(), ids=ENDINGS.keys())
def test_new_journal_writes_the_items_endings(repo: Path, icm, nl: str) -> None:
    _start(repo)
    write(repo, {"queue/01_thing.md": f"# Thing{nl}{nl}Claimed-by: Ada on main, "
                 f"2026-11-29{nl}{nl}Body\u2028still one line.{nl}".encode()})
    assert icm("new-journal", "01", "--date", "2026-11-29", "--root",
               str(repo))[0] == 0
    data = (repo / "journal/2026-11-29_thing.md").read_bytes().decode()
    assert data.startswith(f"# Thing{nl}{nl}Carried over from `queue/01_thing.md`:"
                           f"{nl}{nl}Body\u2028still one line.{nl}{nl}## Decision{nl}")
    assert [end for _line, end in lines.split(data)][:-1] == \
        [nl] * (len(lines.split(data)) - 1)


def test_finished_elsewhere_is_seen_in_a_cr_only_entry(repo: Path, icm) -> None:
    _start(repo)
    commit(repo, {"queue/07_x.md": "# X\n"}, D1, "queue 07")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"queue/07_x.md": "# X\n\nStarted.\n"}, D1, "work on 07")
    git(repo, "checkout", "-q", "main")
    git(repo, "rm", "-q", "queue/07_x.md")
    commit(repo, {"journal/2026-11-02_done.md":
                  "# Done\r\rCarried over from `queue/07_x.md`:\r\rX.\r"}, D1, "done")
    git(repo, "checkout", "-q", "feat")
    assert icm("check-queue", "--against", "main", "--root", str(repo)) == (1, (
        "queue/07_x.md: finished on main as journal/2026-11-02_done.md, still "
        "queued here\nqueue: 1 problem (against main)\n"), "")


_line = st.text(st.sampled_from("ab #\t"), max_size=6)
_claim = st.sampled_from(["Claimed-by: Bob on feat, 2026-11-29",
                          "Claimed-by: Ada on x, 2026-01-01  "])


@given(st.lists(st.tuples(st.one_of(_line, _claim),
                          st.sampled_from(["\r\n", "\r", "\n"])), max_size=8),
       st.sampled_from(["", "x"]))
@example(parts=[("a", "\r"), ("Claimed-by: Bob on feat, 2026-11-29", "\r\n"),
                ("", "\n"), (" ", "\r\n")], last="")  # "a\r" + "\n" read as CRLF
@example(parts=[("", "\n"), ("# T", "\r"), ("", "\n"), ("b", "\n")], last="")
def test_claim_writers_keep_every_other_line_and_ending(parts, last: str) -> None:
    text = "".join(line + end for line, end in parts) + last
    new = "Claimed-by: Eve on main, 2026-12-01"
    claimed = with_claim(text, new)
    from icm.model.queue import claim_of

    assert claim_of(claimed) == ("Eve", "main", "2026-12-01")
    released = without_claim(claimed)
    assert claim_of(released) == claim_of(without_claim(text))
    # Lines other than the claim (and a blank line beside it) and their
    # endings survive both writers: no line is joined, split or re-ended.
    kept = [p for p in lines.split(text) if p[0] and not p[0].startswith("Claimed")]
    for result in (claimed, released):
        got = [p for p in lines.split(result)
               if p[0] and not p[0].startswith("Claimed")]
        assert [p[0] for p in got] == [p[0] for p in kept]
        assert [p[1] for p in got][:-1] == [p[1] for p in kept][:-1]
        assert set(lines.ending(result)) <= set("\r\n")


@given(st.lists(st.tuples(st.one_of(_line, _claim, st.just("```")),
                          st.sampled_from(["\r\n", "\r", "\n"])), max_size=8),
       st.sampled_from(["", "x", "# T", " "]))
@example(parts=[], last="# T")  # came back as "# T\n\n"
@example(parts=[], last=" x")  # came back as "\n x"
@example(parts=[("# T", "\n")], last="b")  # "# T\n\nb" was claimed alike
def test_release_gives_back_what_claim_was_given(parts, last: str) -> None:
    from icm.model.queue import claim_of

    text = "".join(line + end for line, end in parts) + last
    assume(claim_of(text) is None)  # a claim in a fence is not one
    claimed = with_claim(text, "Claimed-by: Eve on main, 2026-12-01")
    assert without_claim(claimed) == text


def test_renumber_rewrites_the_link_on_the_parsers_line(repo: Path, icm) -> None:
    """A lone CR is a line break to the parser: the link is on line 3, and
    the code span on line 4 (the old line 3 of a split on LF) is left alone."""
    _start(repo)
    notes = ("Intro\rmore.\n[item](queue/01_thing-one.md)\n"
             "`queue/01_thing-one.md` is the old name.\n")
    write(repo, {"queue/01_thing-one.md": "# Thing one\n", "notes.md": notes})
    assert icm("renumber", "01", "--to", "3", "--root", str(repo)) == (0, (
        "queue/01_thing-one.md -> queue/03_thing-one.md\n"
        "notes.md: link rewritten\n"), "")
    assert (repo / "notes.md").read_bytes() == notes.replace(
        "(queue/01", "(queue/03").encode()
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


@pytest.mark.parametrize("nl", ENDINGS.values(), ids=ENDINGS.keys())
def test_renumber_keeps_the_linking_files_endings(repo: Path, icm, nl: str) -> None:
    _start(repo)
    notes = f"\ufeff# Notes{nl}{nl}See [item](queue/01_thing-one.md).{nl}"
    write(repo, {"queue/01_thing-one.md": "# Thing one\n", "notes.md": notes})
    assert icm("renumber", "01", "--to", "3", "--root", str(repo)) == (0, (
        "queue/01_thing-one.md -> queue/03_thing-one.md\n"
        "notes.md: link rewritten\n"), "")
    assert (repo / "notes.md").read_bytes() == notes.replace("01_", "03_").encode()


def test_renumber_refuses_a_line_holding_the_path_outside_the_link(
        repo: Path, icm) -> None:
    _start(repo)
    notes = "See [item](queue/01_x.md) or `queue/01_x.md`.\r"
    write(repo, {"queue/01_x.md": "# X\n", "notes.md": notes})
    assert icm("renumber", "01", "--to", "3", "--root", str(repo)) == (
        2, "", "icm: notes.md:1: cannot rewrite the link 'queue/01_x.md' to "
        "queue/01_x.md in place: the line holds it outside the link too; nothing "
        "was changed\n")
    assert (repo / "notes.md").read_bytes() == notes.encode()
    assert sorted(p.name for p in (repo / "queue").iterdir()) == ["01_x.md"]
