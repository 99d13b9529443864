"""``check-links --fix`` changes only the index block it owns (issue 10,
items 9 and 11; issue 9's placement friction): markers are found by the
markdown parser, an ambiguous or unterminated block is refused, written
links read back as the same path for any folder name, and a second run
changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.workflow import index
from tests.conftest import write

OPEN, CLOSE = index.OPEN, index.CLOSE


def fix(icm, root: Path):
    return icm("check-links", "--fix", "--root", str(root))


MENTIONS = (
    "# H\n\nWrite the index between `<!-- icm:index -->` and\n"
    f"{CLOSE} in prose, like this sentence does.\n\n"
    f"```md\n{OPEN}\n- [x](x/context.md)\n{CLOSE}\n```\n\n"
    f"    {OPEN}\n    indented code\n    {CLOSE}\n\n"
    f"> {OPEN}\n> quoted\n> {CLOSE}\n"
)


def test_mentions_of_the_markers_are_prose(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": MENTIONS, "a/context.md": "x"})
    code, out, err = fix(icm, repo)
    assert (code, err) == (0, "")
    assert out == "added to AGENTS.md index: a/context.md\nlinks ok\n"
    assert (repo / "AGENTS.md").read_text() == (
        MENTIONS + f"\n## Index of notes\n\n{OPEN}\n- [a](a/context.md)\n{CLOSE}\n")


@pytest.mark.parametrize("text,message", [
    (f"# H\n\n{OPEN}\n- [a](a/context.md)\n{CLOSE}\n\n{OPEN}\n{CLOSE}\n",
     f"AGENTS.md: more than one index block (markers on lines 3, 5, 7, 8); keep "
     f"one {OPEN} ... {CLOSE} block"),
    (f"# H\n\n{OPEN}\n- [a](a/context.md)\n\nMore prose.\n",
     f"AGENTS.md:3: {OPEN} has no {CLOSE} after it; add the end marker or remove "
     "this one"),
    (f"# H\n\n{CLOSE}\n",
     f"AGENTS.md:3: {CLOSE} has no {OPEN} before it; add the start marker or "
     "remove this one"),
    (f"# H\n\n{CLOSE}\n\n{OPEN}\n",
     f"AGENTS.md:5: {OPEN} has no {CLOSE} after it; add the end marker or remove "
     "this one"),
])
def test_ambiguous_or_unterminated_block_is_refused(repo: Path, icm, text: str,
                                                    message: str) -> None:
    write(repo, {"AGENTS.md": text, "b/context.md": "x"})
    assert fix(icm, repo) == (2, "", f"icm: {message}\n")
    assert (repo / "AGENTS.md").read_text() == text


def test_new_block_goes_under_an_existing_index_heading(repo: Path, icm) -> None:
    text = "# H\n\n## Index of notes\n\nHand-written words.\n\n## Later\n\nx\n"
    write(repo, {"AGENTS.md": text, "a/b/context.md": "x", "a/context.md": "x",
                 "a-b/context.md": "x"})
    assert fix(icm, repo)[0] == 0
    assert (repo / "AGENTS.md").read_text() == (
        f"# H\n\n## Index of notes\n\n{OPEN}\n- [a](a/context.md)\n"
        f"- [a/b](a/b/context.md)\n- [a-b](a-b/context.md)\n{CLOSE}\n\n"
        "Hand-written words.\n\n## Later\n\nx\n")


ODD = ["my dir", "a#b", "p(q", "pct%41", "tab\there", "new\nline", "br]ack[et",
       "back\\slash", "<angle>", "amp&amp;", "star*_x", "q?x", "é ü", "`tick"]


def test_odd_folder_names_round_trip_and_settle(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "# H\n", **{f"{n}/context.md": "x" for n in ODD}})
    code, out, err = fix(icm, repo)
    assert (code, err) == (0, "")
    assert out.endswith("links ok\n") and out.count("added to") == len(ODD)
    first = (repo / "AGENTS.md").read_bytes()
    assert fix(icm, repo) == (0, "links ok\n", "")
    assert (repo / "AGENTS.md").read_bytes() == first
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


def test_undecodable_folder_name_round_trips(repo: Path, icm) -> None:
    name = os.fsdecode(b"bad\xff")
    write(repo, {"AGENTS.md": "# H\n", f"{name}/context.md": "x"})
    assert fix(icm, repo)[0] == 0
    assert "- [bad\ufffd](bad%FF/context.md)" in (repo / "AGENTS.md").read_text(
        errors="replace")
    assert fix(icm, repo) == (0, "links ok\n", "")


_names = st.text(st.characters(exclude_characters="/\0", exclude_categories=("Cs",)),
                 min_size=1, max_size=12).filter(lambda n: n not in (".", ".."))


@given(st.lists(_names, min_size=1, max_size=3),
       st.sampled_from(["AGENTS.md", "docs/HANDBOOK.md", "a/b/H.md"]))
def test_written_link_reads_back_as_the_same_path(folders, handbook: str) -> None:
    note = "/".join(folders) + "/context.md"
    line = index.entry_line(handbook, note)
    assert index.entries(handbook, [line], 1) == [([line], [note])]


def test_a_label_wrapped_onto_two_lines_is_one_entry(repo: Path, icm) -> None:
    """An index line whose label wraps was read line by line: its note
    looked unlisted and was added a second time, and a gone note's wrapped
    entry was never removed. Entries are read as the link parser reads
    them; their lines are kept as written."""
    text = (f"# H\n\n## Index of notes\n\n{OPEN}\n"
            "- [the source folder, described at some\n  length](src/context.md)\n"
            "  and a description line after it\n"
            "- [a folder since removed,\n  described](gone/context.md)\n"
            f"{CLOSE}\n")
    write(repo, {"AGENTS.md": text, "src/context.md": "x", "lib/context.md": "x"})
    assert fix(icm, repo) == (0, "removed from AGENTS.md index: gone/context.md\n"
                              "added to AGENTS.md index: lib/context.md\n"
                              "links ok\n", "")
    assert (repo / "AGENTS.md").read_text() == (
        f"# H\n\n## Index of notes\n\n{OPEN}\n- [lib](lib/context.md)\n"
        "- [the source folder, described at some\n  length](src/context.md)\n"
        f"  and a description line after it\n{CLOSE}\n")
    assert fix(icm, repo) == (0, "links ok\n", "")


def test_a_link_wrapped_outside_a_list_is_refused(repo: Path, icm) -> None:
    """Outside a list item the lines of a wrapped link cannot be moved as
    one entry: one line, the handbook unchanged."""
    text = (f"# H\n\n{OPEN}\n- [lib](lib/context.md)\n\nSee [the source\n"
            f"folder](src/context.md).\n{CLOSE}\n")
    write(repo, {"AGENTS.md": text, "src/context.md": "x", "lib/context.md": "x",
                 "new/context.md": "x"})
    assert fix(icm, repo) == (2, "", "icm: AGENTS.md:6: a link in the index "
                              "block spans lines outside a list item; put it on "
                              "one line or in a list item (nothing changed)\n")
    assert (repo / "AGENTS.md").read_text() == text
