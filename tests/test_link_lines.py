"""A link's line is where it is written, whatever newlines came before it
in its paragraph (found by bench/eval_backends.py, issue 16)."""

import json
from pathlib import Path

from icm import markdown
from tests.conftest import commit


def lines(text: str):
    return [(link.line, link.raw, link.kind) for link in markdown.extract(text).links]


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
