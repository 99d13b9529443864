"""``icm review NOTE...`` writes one marker line, in place when present,
keeping everything else byte for byte (issue 24, item 3)."""

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.workflow import review as review_mod
from tests.conftest import commit, write

D1 = "2026-10-01T12:00:00+00:00"


def review(icm, root: Path, *args: str):
    return icm("review", "--root", str(root), *args)


@pytest.fixture
def notes(repo: Path) -> Path:
    commit(repo, {"AGENTS.md": "# Handbook\n", "README.md": "# Read me\n",
                  "src/context.md": "# src\n\nWhy it is so.\n",
                  "tests/context.md": "# tests\n\nHow they run.",
                  "src/x.py": "1"}, D1)
    return repo


def test_writes_the_marker_at_the_end(notes: Path, icm) -> None:
    assert review(icm, notes, "--date", "2026-12-01", "src/context.md",
                  "tests/context.md") == (
        0, "src/context.md: reviewed 2026-12-01\n"
        "tests/context.md: reviewed 2026-12-01\n", "")
    assert (notes / "src/context.md").read_bytes() == (
        b"# src\n\nWhy it is so.\n\n<!-- icm: reviewed 2026-12-01 -->\n")
    # no final line break: one is added before the blank line
    assert (notes / "tests/context.md").read_bytes() == (
        b"# tests\n\nHow they run.\n\n<!-- icm: reviewed 2026-12-01 -->\n")


def test_updates_the_marker_in_place(notes: Path, icm) -> None:
    write(notes, {"src/context.md": "# src\n<!-- icm: reviewed 2026-11-02 -->\n\n"
                  "Why it is so.\n"})
    assert review(icm, notes, "--date", "2026-12-01", "src/context.md")[:2] == (
        0, "src/context.md: reviewed 2026-12-01\n")
    assert (notes / "src/context.md").read_bytes() == (
        b"# src\n<!-- icm: reviewed 2026-12-01 -->\n\nWhy it is so.\n")


def test_a_second_review_the_same_day_still_changes_a_word(notes: Path,
                                                          icm) -> None:
    for said in ("", " (2)", " (3)"):
        assert review(icm, notes, "--date", "2026-12-01", "src/context.md") == (
            0, f"src/context.md: reviewed 2026-12-01{said}\n", "")
    assert (notes / "src/context.md").read_bytes() == (
        b"# src\n\nWhy it is so.\n\n<!-- icm: reviewed 2026-12-01 (3) -->\n")
    assert review(icm, notes, "--date", "2026-12-02", "src/context.md")[1] == (
        "src/context.md: reviewed 2026-12-02\n")


def test_keeps_crlf_and_a_bom(notes: Path, icm) -> None:
    write(notes, {"src/context.md": b"\xef\xbb\xbf# src\r\n\r\nWhy.\r\n",
                  "tests/context.md": b"\xef\xbb\xbf<!-- icm: reviewed 2026-01-01 "
                  b"-->\r\n# tests\r\n"})
    review(icm, notes, "--date", "2026-12-01", "src/context.md", "tests/context.md")
    assert (notes / "src/context.md").read_bytes() == (
        b"\xef\xbb\xbf# src\r\n\r\nWhy.\r\n\r\n<!-- icm: reviewed 2026-12-01 -->\r\n")
    assert (notes / "tests/context.md").read_bytes() == (
        b"\xef\xbb\xbf<!-- icm: reviewed 2026-12-01 -->\r\n# tests\r\n")


def test_a_marker_in_a_fence_is_an_example(notes: Path, icm) -> None:
    text = ("# src\n\n```md\n<!-- icm: reviewed 2026-01-01 -->\n```\n")
    write(notes, {"src/context.md": text})
    review(icm, notes, "--date", "2026-12-01", "src/context.md")
    assert (notes / "src/context.md").read_text() == (
        text + "\n<!-- icm: reviewed 2026-12-01 -->\n")


def test_a_marker_after_a_fence_left_open_is_found_again(notes: Path,
                                                        icm) -> None:
    write(notes, {"src/context.md": "# src\n\n```\nopen"})
    review(icm, notes, "--date", "2026-12-01", "src/context.md")
    review(icm, notes, "--date", "2026-12-02", "src/context.md")
    assert (notes / "src/context.md").read_text() == (
        "# src\n\n```\nopen\n\n<!-- icm: reviewed 2026-12-02 -->\n")


def test_an_empty_note(notes: Path, icm) -> None:
    write(notes, {"src/context.md": ""})
    review(icm, notes, "--date", "2026-12-01", "src/context.md")
    assert (notes / "src/context.md").read_text() == (
        "<!-- icm: reviewed 2026-12-01 -->\n")


def test_the_date_defaults_to_today_in_utc(notes: Path) -> None:
    from datetime import datetime, timedelta, timezone

    from icm import config, context

    # 23:30 at UTC-5 is the next day in UTC
    now = datetime(2026, 11, 30, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    ctx = context.build(notes, config.load(notes), now=now)
    assert review_mod.review(ctx, ["src/context.md"]) == [
        "src/context.md: reviewed 2026-12-01"]


@pytest.mark.parametrize("name", ["README.md", "AGENTS.md", "src/x.py",
                                  "nowhere/context.md", "../context.md"])
def test_a_path_that_is_not_a_note_is_one_line(notes: Path, icm, name: str) -> None:
    before = (notes / "src/context.md").read_bytes()
    assert review(icm, notes, "src/context.md", name) == (
        2, "", f"icm: {name}: not a note (notes are the files named context.md, "
        "the handbook aside); nothing was changed\n")
    assert (notes / "src/context.md").read_bytes() == before


def test_a_path_from_the_working_folder(notes: Path, icm, monkeypatch) -> None:
    monkeypatch.chdir(notes / "src")
    assert icm("review", "--date", "2026-12-01", "context.md") == (
        0, "src/context.md: reviewed 2026-12-01\n", "")


def test_a_symlinked_note_is_refused(notes: Path, icm, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not ours\n")
    os.symlink(str(outside), notes / "away" / "context.md") if (
        notes / "away").mkdir() is None else None
    (notes / "lib").mkdir()
    os.symlink("../src/context.md", notes / "lib" / "context.md")
    before = (notes / "src/context.md").read_bytes()
    assert review(icm, notes, "away/context.md") == (
        2, "", "icm: refusing to write away/context.md: symlink points outside "
        "the repository; nothing was changed\n")
    assert review(icm, notes, "src/context.md", "lib/context.md") == (
        2, "", "icm: refusing to write lib/context.md: a symlink (git records the "
        "link, not the text it points to: review that file); nothing was "
        "changed\n")
    assert outside.read_text() == "not ours\n"
    assert (notes / "src/context.md").read_bytes() == before


def test_a_note_that_is_not_utf8_is_refused(notes: Path, icm) -> None:
    write(notes, {"src/context.md": b"caf\xe9\n"})
    assert review(icm, notes, "src/context.md") == (
        2, "", "icm: src/context.md: cannot read: not valid UTF-8; nothing was "
        "changed\n")
    assert (notes / "src/context.md").read_bytes() == b"caf\xe9\n"


def test_a_bad_date_is_one_line(notes: Path, icm) -> None:
    assert review(icm, notes, "--date", "2026-13-01", "src/context.md") == (
        2, "", "icm: --date 2026-13-01 does not exist: there is no month 13\n")


def test_markers_are_no_duplicate_rule(notes: Path, icm) -> None:
    """Identical "last reviewed" lines were three duplicate-rule warnings
    (issue 24): the marker is too short to be a statement."""
    said = ("The parser keeps every token of a file at once.",
            "Queue numbers are never reused across branches here.",
            "Each writer holds the lock around its whole change.")
    write(notes, {f"n{i}/context.md": f"# n{i}\n\n{text}\n"
                  for i, text in enumerate(said)})
    assert icm("check-dupes", "--root", str(notes))[:2] == (0, "dupes ok\n")
    review(icm, notes, "--date", "2026-12-01", "n0/context.md", "n1/context.md",
           "n2/context.md")
    code, out, _ = icm("check-dupes", "--root", str(notes))
    assert (code, out) == (0, "dupes ok\n")


# -- the writer's properties ---------------------------------------------------


ROWS = st.sampled_from([
    "", "   ", "Why it is so.", "```", "~~~", "    indented", "\ufeffwith a BOM",
    "<!-- icm: reviewed 2026-01-01 -->", "   <!-- icm: reviewed 2026-12-01 (4) -->",
    "<!-- icm: reviewed 2026-12-01 -->", "<!-- other comment -->", "- item"])
BREAKS = st.sampled_from(["\n", "\r\n", "\r"])


@given(st.lists(st.tuples(ROWS, BREAKS), max_size=12), st.booleans(),
       st.sampled_from(["2026-12-01", "2026-12-02"]))
def test_a_review_changes_a_word_and_nothing_else(parts, closed, day) -> None:
    from icm import lines
    from icm.model.notes import words

    text = "".join(row + end for row, end in parts)
    if parts and not closed:
        text = text[:-len(parts[-1][1])]
    new, said = review_mod.mark(text, day)
    assert words(new.encode()) != words(text.encode())
    assert said.startswith(f"reviewed {day}")
    old_rows, new_rows = lines.split(text), lines.split(new)
    if len(new_rows) == len(old_rows):  # updated in place: one row differs
        changed = [i for i, (a, b) in enumerate(zip(old_rows, new_rows)) if a != b]
        assert len(changed) == 1
        assert old_rows[changed[0]][1] == new_rows[changed[0]][1]  # its break
    else:  # appended: the old text is kept whole, in the file's own ending
        assert new.startswith(text)
        assert new.endswith(review_mod.marker(day) + lines.ending(text))
    again, _ = review_mod.mark(new, day)  # a second review finds the first
    assert len(lines.split(again)) == len(new_rows)


def test_no_note_named_is_one_line(icm) -> None:
    assert icm("review") == (
        2, "", "icm: review needs NOTE (usage: icm review [OPTIONS] NOTE...)\n")
