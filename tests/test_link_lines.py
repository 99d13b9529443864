"""A link's line is where it is written, whatever newlines came before it
in its paragraph (found by bench/eval_backends.py, issue 16)."""

import json
from pathlib import Path

from icm import extract, markdown
from tests.conftest import commit


def lines(text: str):
    return [(link.line, link.raw, link.kind) for link in extract.extract(text).links]


def test_newlines_no_token_shows_still_count() -> None:
    text = ("# T\n\n"
            "some `code\nspan` then [a](a.md)\n"        # a code span wraps
            "and ![alt\ntext](i.png) [b](b.md)\n"       # an image's alt wraps
            "[c](c.md\n'title') [d](d.md) <http://x.y/>\n"  # a title on its own line
            "<a href=\"e.md\">e</a>\n")
    assert lines(text) == [(4, "a.md", "link"), (5, "i.png", "image"),
                           (6, "b.md", "link"), (7, "c.md", "link"),
                           (8, "d.md", "link"), (8, "http://x.y/", "autolink"),
                           (9, "e.md", "html")]


def test_cli_reports_the_written_line(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# h\n\nsome `code\nspan` then [x](missing.md)\n"},
           "2026-10-01T12:00:00+00:00")
    code, out, err = icm("check-links", "--root", str(repo), "--format", "json")
    findings = json.loads(out)["checks"][0]["findings"]
    assert (code, err) == (1, "")
    assert [(f["path"], f["line"], f["text"]) for f in findings] == [
        ("AGENTS.md", 4, "broken link: AGENTS.md -> missing.md")]


def test_ascii_fast_path_is_the_general_rule() -> None:
    """``slug`` answers ASCII text with one regex: every ASCII character,
    in every position, gives what the per-character Unicode rule gives."""
    import unicodedata

    for code in range(128):
        ch = chr(code)
        text = f"{ch}a{ch}B {ch}-{ch}"
        general = "".join(c for c in text.lower() if c in " -" or
                          unicodedata.category(c) in markdown._KEEP_CATEGORIES)
        assert markdown.slug(text) == general.replace(" ", "-"), repr(ch)


def test_escapes_and_entities_are_part_of_the_heading() -> None:
    """``a\\_b`` renders as ``a_b`` and GitHub's anchor keeps the underscore;
    the inline stage's ``text_special`` tokens were once dropped."""
    ext = markdown.extract_reference("# a\\_b &amp; c\n")
    assert ext.anchors == ("a_b--c",)
    assert ext.headings[0].text == "a_b & c"


def test_raw_destination_of_any_label() -> None:
    """The raw destination (messages, ignore globs) is as written for labels
    of any length: it was the decoded href past one character."""
    links = markdown.extract_reference("[xy](a\\_b%20c) ![img](<d e>)\n").links
    assert [(lk.raw, lk.href) for lk in links] == [("a\\_b%20c", "a_b%20c"),
                                                   ("d e", "d e")]


def test_definition_lines_are_markdown_lines() -> None:
    """A form feed or U+2028 is no line break to markdown: the definition's
    raw text is read from its own line all the same."""
    ext = markdown.extract_reference("a\u2028b\x0c\n\n[x]: d\\_e\n")
    assert [(lk.line, lk.raw, lk.href) for lk in ext.links] == [(3, "d\\_e", "d_e")]
