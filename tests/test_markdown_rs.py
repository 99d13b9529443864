"""The fast markdown backend (markdown-it.rs) gives the reference's answers
or declines (issue 16). Every other test's documents are differential cases
too (``conftest._both_markdown_backends``); these are the constructs where
the two parsers part, and random documents built from them."""

from __future__ import annotations

from typing import List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icm import extract, markdown, markdown_rs

pytestmark = pytest.mark.skipif(not markdown_rs.available(),
                                reason="markdown-it-pyrs is not installed")

# Answered by the fast path, and the same as the reference.
ANSWERED = [
    "# Title\n\nSee [the guide](docs/guide.md#setup) and ![logo](img/logo.png).\n",
    "[xy](a\\_b%20c) [long label](<with space.md>) [e](a&amp;b.md) [q](a(b)c.md)\n",
    "[ref][x] [x] [x][]\n\n[x]: <dest y> \"title\"\n[y]:\n  e%20f\\_\n",
    "[d]: <data:image/png;base64,AAAA>\n[e]: https://x.test/?a=1&b=2\n",
    "<http://auto.test/a> <me@example.com> <MAILTO:x@y>\n",
    "# A \\_b &amp; `code` *em* [link](x.md) ![alt *q*](i.png) <span>t</span>\n",
    "Setext *heading*\n===\n\nOther\n---\n",
    "<div id=\"top\">\n<a name=\"n\" href=\"a.md\"></a>\n</div>\n\n"
    "<img src=\"i.png\">\n",
    "| a | b |\n|---|---|\n| [x](y.md) | ~~s~~ [z](<w.md>) |\n",
    "> quoted [x](y.md) and\n> [a label\n> over lines](z.md)\n",
    "- item [a](a.md)\n  - nested [b](b.md)\n\n    para [c](c.md)\n",
    "1. one\n2. two [t](t.md)\n\n```md\n[not](a link)\n```\n\n    [nor](this)\n",
    "para\r\nwith [crlf](x.md)\r\n\r\n## Head\r\n",
    "[](\r\n) [a](\r\nb) [c](d\r\n\"t\") ![e](\r\n<f g>\r\n)\r\n\r\n[x]:\r\ny\r\n",
    "é [ü](ü.md)\n# 日本語 [x](y)\n",
    # tabs in indentation: expanded before markdown-it.rs sees them
    "* a\n    * b\n\n\t\tc [x](y)\n",
    "- a\n\n\t[x](y)\n",
    "1. a\n\n\tc [x](y)\n",
    ">\t[x](y)\n",
    "* a\n    * b\n\t\tc [x](y)\n",
    "\t[code](not)\n\ntext\n",
    "[a](javascript:alert) [b](<>) [c]() ![d]()\n",
    "[![img](i.png)](target.md) [`code ](x)`](c.md)\n",
    "> " * 34 + "**a**\n",  # within the depth bound, its text unwalked
]

# (document, why the fast path declines it)
DECLINED = [
    ("a\0b [x](y)\n", "NUL or lone CR"),
    ("a\rb [x](y)\n", "NUL or lone CR"),
    ("[a]: b\n" * 300, "long run of lines opening with ["),
    ("> " * 1500 + "[x](y)\n", "could nest too deep to parse safely"),
    ("*a " * 3000 + "b" + " c*" * 3000, "could nest too deep to parse safely"),
    ("> " * 45 + "[x](y)\n", "nested too deep"),
    # no link syntax, so its inline nodes are not walked: the bound on
    # their depth (two delimiters a level) still declines it
    ("> " * 34 + "*" * 10 + "a" + "*" * 10 + "\n", "nested too deep"),
    ("- \"John Smith \\`[*`]\"\n", "markdown-it.rs raised"),
    ("- a\n-\t[x](y)\n", "node on a line indented with a tab"),
    ("> [x](\n> y.md)\n", "link over lines in a quote"),
    ("> [x]:\n> y.md\n", "definition over lines in a quote"),
]


# Where the two parsers part, found by attacking the fast path (issue 16):
# each must be declined, whatever the reason.
PARTED = [
    "<!y[]()", "# <!t>", "a <!X [b](c)>", "|<!----[]()-->",  # 0.31 HTML rules
    "# a \xa0", "# \x0b c", "\x0c\n[]()", "\xa0\n<a href=\"\">", "[x]:\xa0",
    "[x]: y\xa0'z'\n",  # Unicode whitespace trimmed apart
    "#\n|-", "+ #\n|-", ".\n-|\n]|[]()", "a\n:-\n-", "v\n:-\n    <a@b>",
    "<a\nhref=''>\n:-", "[x]:\nc\n:-", "~~~|<n id=\"\">\n-|-", "<div>|<hp:>\n-|-",
    ">y\n2. # h\n", "> y\n7) [x]: z\n", ">>!\n>-\n    []()", ">n\n=\n2) #",
    "><a\nhref=''>|)\n-|-",  # lazy lines of a quote
    "a|b\n-|-\n[x](y\\|z)|w", "-|<tp:>\\|\n-|-",  # escaped pipes
    "a|b\n-|-\n2) <a\nhref='m'>",  # a block start inside a table's body
    "- <!--\n\n  <img src=''>", "- <script\n\n  []()", "- <?\n\n  <img src=''>",
    "[x]:y\n\"\"t", "[x]: y\n()t", "[x]:<y>(\nt)", "[x]:<>(\n)",
    "- [x]: a\\\n", "[x]: a\\\t", "- [x]:\\",  # definitions
    "[x]: w\n\n# ![x](", "[x]: w\n\n# a [x]( ", "# ~~~~a~~b", "# a~~~~b~~c",
    "# `   `",  # headings
    "x [`)``[x](y)` `", "``[[`]`]](x)", "[`[``](`)`",  # code spans in labels
    "[c][a\x85](z)\n\n[a]: u\n", "[a](<b>'c')", "[a](<b>(c))", "[x]:\ny\xa0",
    "- \xa0\n<ab:>", ">\u2028\n<a href=\"\">",  # second round
    "[x]:\ny\u2028\\\n",  # a backslash end after a Unicode space
    "-\n-     <tp:>|(\n-|-",  # a table head on a list marker's line
    "#\n-:",  # a pipe-less delimiter row that ends in a colon
    "- >_\n\t-\n[x]:()",  # a lazy line of a quote opened in a list item
    "[x]:() (\n2)", "[x]: y (a\nb\n2)", "- [x]: y (\n  2. a)",
    "[x]: y '\n10)\n'",  # an ordered marker inside a title over lines (third round)
    "[X]:\n(d)\\\x0c", "[X]:\n(d)\\\xa0",  # a backslash, then odd whitespace
    "$\n\t<!X<n id=\"\">",  # a tab-indented lazy line opens no HTML block
    "# |\x0c\n-|-", "# |\xa0\n-|-",  # odd whitespace in a table's head
    "# \\||`\n-|-",  # an escaped pipe in a table's head
    "e<!--\n# <!-->",  # an inline comment's "-->" past a block start
    ">[\n0. >]()",  # a list marker, then ">", under a quote: no quote marker
]
# Inputs on which markdown-it.rs is quadratic or worse: declined before it
# runs (each took 4-50 s, or 2 GB, unscreened).
COSTLY = [
    ("[a]:\nb\n" * 4999 + "\n") * 8,
    "[a]:\nb\n" * 1000 + "x\n" * 200000,
    "|a" * 2000 + "|\n" + "|-" * 2000 + "|\n" + "x\n" * 2000,
]


@pytest.mark.parametrize("text", PARTED)
def test_where_the_parsers_part_the_fast_path_declines(text: str) -> None:
    got, why = markdown_rs.explain(text)
    assert got is None and why, (got, markdown.extract_reference(text))


@pytest.mark.parametrize("text", COSTLY, ids=["definitions", "definitions-long",
                                              "wide-table"])
def test_costly_inputs_never_reach_markdown_it_rs(text: str) -> None:
    assert markdown_rs._screen(text) != ""


@pytest.mark.parametrize("text", ANSWERED)
def test_fast_path_answers_as_the_reference(text: str) -> None:
    got, why = markdown_rs.explain(text)
    assert why == ""
    assert got == markdown.extract_reference(text)


@pytest.mark.parametrize("text,why", DECLINED)
def test_fast_path_declines_where_it_could_differ(text: str, why: str) -> None:
    got, reason = markdown_rs.explain(text)
    assert (got, reason) == (None, why)
    assert extract.extract(text) == markdown.extract_reference(text)


def test_a_panic_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """markdown-it.rs writes a panic's message to fd 2 itself: icm's output
    must not carry it."""
    assert markdown_rs.explain("- \"x \\`[*`]\"\n") == (None, "markdown-it.rs raised")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_a_tree_deep_enough_to_crash_is_never_built() -> None:
    """50,000 nested quotes overflow the C stack inside markdown-it.rs (a
    segmentation fault, not an exception); the text screen stops it first."""
    text = "> " * 60000
    assert markdown_rs.explain(text) == (None, "could nest too deep to parse safely")
    assert extract.extract(text).too_deep > 0


def test_icm_parser_turns_the_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(markdown_rs.ENV, markdown_rs.REFERENCE)
    assert not markdown_rs.available()
    assert markdown_rs.explain("[x](y)") == (None, "off")


def test_tab_expansion_keeps_lines_and_columns() -> None:
    text, spans = markdown_rs._expand_prefix_tabs("a\n>\tb\n \tc\nd\te\n")
    assert text == "a\n>   b\n    c\nd\te\n"
    data = text.encode()
    assert [data[s:e] for s, e in spans] == [b">   b", b"    c"]


FRAGMENTS = [
    "[a](b.md)", "[a b](<c d.md>)", "![i](j.png)", "[r][x]", "[x]", "<http://h.test>",
    "<a href=\"h.md\">", "<span id=\"s\">", "`code [x](y)`", "*em [e](f)*", "**st**",
    "~~del~~", "\\[esc\\]", "&amp;", "[p](q(r).md)", "[t](u \"title\")", "[", "]",
    "(", ")", "`", "<", ">", "*", "_", "\\", "!", "&", "#", "|", "é", "x", "y z",
    "``", "<!-- c -->", "<!X>", "\xa0", "\\|", "~~~", ":-", "](", "\"\"", "1.",
]
LINE_STARTS = ["", "# ", "## ", "> ", ">\t", "- ", "  - ", "\t", "    ", "1. ",
               "\t- ", "[x]: ", "[x]:\n  ", "| ", "```\n", "<div>\n", "---\n",
               "2. ", "|-|\n", ":-\n", "<!-- ", "<script>\n", "- <!--\n"]


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: List[str] = []
    for _ in range(draw(st.integers(1, 8))):
        start = draw(st.sampled_from(LINE_STARTS))
        body = " ".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=5)))
        lines.append(start + body)
        if draw(st.booleans()):
            lines.append("")
    if draw(st.booleans()):
        lines.insert(1, "|---|---|")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_random_documents_answer_as_the_reference_or_decline(text: str) -> None:
    got, _why = markdown_rs.explain(text)
    if got is not None:
        assert got == markdown.extract_reference(text)
