"""The event-stream path (pulldown-cmark through pyromark, issue 27) gives
the reference's answers or declines. These are the constructs where the two
parsers part, found by ``bench/diff_backends.py --backend events`` on real
trees and by fuzzing (random documents, mutated real files), and random
documents built from them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icm import extract, markdown, markdown_events

pytestmark = pytest.mark.skipif(not markdown_events.available(),
                                reason="pyromark is not installed")

ROOT = Path(__file__).resolve().parent.parent

# Answered by the event path, and the same as the reference.
ANSWERED = [
    "# Title\n\nSee [the guide](docs/guide.md#setup) and ![logo](img/logo.png).\n",
    "[xy](a\\_b%20c) [long label](<with space.md>) [e](a&amp;b.md) [q](a(b)c.md)\n",
    "[ref][x] [x] [x][]\n\n[x]: <dest y> \"title\"\n[y]:\n  e%20f\\_\n",
    "[d]: <data:image/png;base64,AAAA>\n[e]: https://x.test/?a=1&b=2\n",
    "<http://auto.test/a> <me@example.com> <MAILTO:x@y>\n",
    "# A \\_b &amp; `code` *em* [link](x.md) ![alt *q*](i.png) <span id=s>t</span>\n",
    "# <http://a.test/%41> <m@e.test> ~~gone~~ a~~b~~c\n",
    "Setext *heading*\n===\n\nOther\n---\n",
    "<div id=\"top\">\n<a name=\"n\" href=\"a.md\"></a>\n</div>\n\n"
    "<img src=\"i.png\">\n",
    "| a | b |\n|---|---|\n| [x](y.md) | ~~s~~ [z](<w.md>) |\n",
    "> quoted [x](y.md) and\n> [a label\n> over lines](z.md)\n",
    "- item [a](a.md)\n  - nested [b](b.md)\n\n    para [c](c.md)\n",
    "1. one\n2. two [t](t.md)\n\n```md\n[not](a link)\n```\n\n    [nor](this)\n",
    "para\r\nwith [crlf](x.md)\r\n\r\n## Head\r\n",
    "é [ü](ü.md)\n# 日本語 [x](y)\n",
    "[a](javascript-free.md) [b](<>) [c]() ![d]()\n",
    "[![img](i.png)](target.md)\n",
    # a label defined again: reported once by pulldown-cmark, listed twice
    "[a]: x\n[A]: y\n\n[a] [b]\n\n[b]: z\n\n- [b]: w\n",
    "[a]: x\n\n> [a]: y\n",
    "[Tim]: [a](b)\n\n- x\n- [Tim]: [c](d)\n",
    "* [jing]: x\n    * any [a](b)\n",
    # a list item's continuation more indented than its text: no lazy line
    "    - [x] a\n          - [L](x.md)\n",
    "* Beta\n    * KEP 277: a\n        * \n    * KEP 2040: b [x](y)\n        * \n",
    "- a\n  \t**b** [c](d)\n",
    "## May 2, 2022\t[Public Meeting](x.md)\n",
    "## September 14\t\n", "## A \t\n", "# A&#9;\n", "# A\xa0b\n",
    "[Jim A]: Quick note: [x](y.md)\n",
    # a lazy line indented as code that opens a list item four columns or
    # more past the item's marker: lazy to both (kubernetes/community's
    # meeting notes, six files declined for it)
    "*    Welcome \n    *   CoC [a](b.md)\n    *   more [c](d.md)\n",
    "1.    one \n    - two [x](y.md)\n", "- a\n  -    b\n      * c [x](y.md)\n",
    "> " * 44 + "[x](y)\n",
]

# (document, why the event path declines it)
DECLINED = [
    ("a\0b [x](y)\n", "NUL or lone CR"),
    ("a\rb [x](y)\n", "NUL or lone CR"),
    ("> " * 150 + "[x](y)\n", "could nest too deep"),
    ("- " * 50 + "[x](y)\n", "could nest too deep"),
    ("\t" * 30 + "x\n", "could nest too deep"),
    ("> [x](\n> y.md)\n", "link over lines in a quote"),
    ("[![[x](y)](b)](c)\n", "a link inside an image"),
    ("![a [b](c)](d)\n", "a link inside an image"),
    ("[j](javascript:x)\n", "a destination the parsers read apart"),
    ("[x](\x0c)\n", "a form feed or vertical tab beside a link"),
    ("[x](y \x0b\"t\")\n", "a form feed or vertical tab beside a link"),
    ("![x](y\x0c)\n", "a form feed or vertical tab beside a link"),
    ("<javascript:x>\n", "an autolink the reference does not make"),
    ("[x]: javascript:y\n", "a definition the reference does not make"),
    ("[y]:\n=\n", "a definition pulldown-cmark does not report"),
    ("# ~a~\n", "strikethrough the parsers read apart"),
    ("# A\t#\n", "tildes or a tab the parsers read apart in a heading"),
    ("# \xa0A\n", "Unicode whitespace at a heading's end"),
    # the reference's destination steps over a backslash and any control
    # character (the conftest differential found it on its first run)
    ("[x](\\\x1f)\n", "a backslash before a control character in a destination"),
    ("[x](a\\\nb)\n", "a backslash before a control character in a destination"),
    ("[x](<a\\\x01>)\n", "a backslash before a control character in a destination"),
    ("[x](\n  a\\\x1fb)\n",
     "a backslash before a control character in a destination"),
    ("[x]: a\\\x1fb\n\n[x]\n",
     "a backslash before a control character in a destination"),
    # pulldown-cmark closes a comment at its first ``-->`` (spec 0.31), the
    # reference refuses a ``--`` run into the end and reads the tag inside
    # (hypothesis found it in CI)
    ('[<!--<a href="x.md"><!---->\n', "a comment the parsers read apart"),
    ('a <!--<a href="x.md"><!--->\n', "a comment the parsers read apart"),
]

# A lazy line indented as code the parsers read apart, in a list: its
# top-level block (from a line of column 0 after a blank line to the next)
# is read by the reference alone, the rest by the event path (issue 27:
# one 264 KB file of kubernetes/community was 0.2 s of markdown-it-py).
LAZY_BLOCK = ("*    Welcome\n    *   CoC\n    *   Updates\n        *   Summit\n"
              "            *   Staffed\n    *   Review [board](b.md)\n"
              "*   Open [mic](m.md)\n")
LAZY_ANSWERED = [
    "# Notes\n\n[before](a.md)\n\n" + LAZY_BLOCK + "\n## Next\n\n[c](c.md)\n",
    LAZY_BLOCK + "\n" + LAZY_BLOCK.replace("b.md", "d.md")]
ANSWERED += [*LAZY_ANSWERED,
             # declined whole before: the same lazy line opening a heading, a
             # rule, a table's row or an empty item, or after a tab
             "*    W\n        *   C\n    *   R [p](q)\n",
             "*    W\n    # h [x](y.md)\n", "*    W\n    * * *\n",
             "*    W\n    * a | b [x](y.md)\n", "*    W\n    -\n[x](y)\n",
             "  -   a\n\t\t+  b\n    + [a](b.md)\n"]
# ... unless the block could read otherwise alone: a definition anywhere,
# a fence or an HTML block that runs over blank lines, a heading or an id
# in the block
LAZY_DECLINED = [LAZY_BLOCK + end for end in (
    "```\n[x](y)\n```\n", "<!-- c -->\n", "## In\n", "<a id=\"x\">\n",
    "\n[d]: e.md\n")]
DECLINED += [(text, "a lazy line indented as code opens a block")
             for text in LAZY_DECLINED]

# Where the two parsers part, found by fuzzing the event path: each must
# be declined, whatever the reason.
PARTED = [
    "[x]:\\ ", "[x]:\\\n", "[x]:y\n\t[]()", "[x]:\n+", "[x]:\n=", "[x]:\n*",
    "[x]:\n1.", "[x]:|\n<a>\n[]()", "[1]:()()\n2.\n-", "- [x]:y\n)\n-",
    ">[1]:>\n=\n-", "0) [x]:_\n<\n\n    <a href=\"\">", " [x]:y\n\t- <a name=n>",
    " [x]:>\n    - <a href=\"\">", "* [1]:;\ns\n-", " [x]:()\n    d<tp:>",
    ">\n\t >1. [1]:n", "[x]:>\n\t>\n2. #",
    "[x]:_\n\t>\n=", ">>[\n    - ]:>",  # after a definition, one in code to
    # one parser, one over lines in a quote
    ">>)\n    - []()", ">>.\n    - []()", "[y]:>\n\t[]()", ">>`[]()\n\t- `",
    ">>\\\n    - <img src=g>", ">>- ;  \n    - []()", ">>\\\n    <!--[]()",
    "-    )\n    ```<tp:>",  # lazy lines indented as code
    ">>- \t[]()", ">>- \t<tp:>", "~~~\n~~~\n>>- \t[]()", ">> - \t[]()",
    ">> - \t[1]:n", ">>- 2)\t  <m@x>",  # a tab after a marker
    "[x]:\\\t>", "[x]:\\\t]()", "[a](b\\ c)",  # a backslash, then whitespace
    "><e>\n    ><img src=>",  # HTML in a quote, then a lazy line
    ">\n    >[]()", ">[x]:>\n>-\n>-",  # quote markers
    "|+\n--", "|)\n--", "-|\n--", "<div \\|[]()\n:-", "# |>\n-|-",
    "a|b\n-|-\nc [a](b)\n    d [e](f)\n", "[](u '\n')|(\n-|-",  # tables
    "1. \xa0\n[]()", "\xa0\n[]()", "\xa0\n<tp:>", "```\n```\n<a>\xa0\n#",
    "# A\t#\n", "# A&#32;\t\n", "# A #\t\n", "~~l~~~\n=", "# ~~~a~~~\n",
    ": \t\n_\n-", "\\ \n]\n-", "`\r\n`\n-", "# + \xa0\t",
    "[x]:>\n# [x]\t", "#;\t) <t>\n- ",  # headings
    "[![[]()]()]()",  # a link in an image in a link
    "[x]( \\\x1f)", "[x]:\n\\\x02",  # a backslash before a control character
    "```\n```\t\n<a href=\"h.md\">", "~~~\n~~~ \t\n> <a href=\"h.md\">",
    "    x\n~~~\n~~~      \t \n> <a href=\"h.md\">\n",  # a fence, then a tab
    " -      x\n    >      c\n\t\t>    [a](b.md)\n",  # a quote's lines, a tab
    "+      x\n\t>     y\n                > [c](d.md)\n",  # before a marker
    " 1.    x\n         >   # h\n                >    # h # h\n",  # a marker
    # further in than the quote's above
]

# A hard line break (a backslash ending a line) beside a link: both parsers
# agree, so the event path answers (it declined 25 more files of
# kubernetes/community when every backslash before a break was screened).
ANSWERED += ["Some text\\\nmore [x](y.md) here\\\n[a](b)\n",
             "[x](y.md)\\\nnext\n", "a [b]\\\n\n[b]: c\n"]


@pytest.mark.parametrize("text", ANSWERED)
def test_event_path_answers_as_the_reference(text: str) -> None:
    got, why = markdown_events.explain(text)
    assert why == ""
    assert got == markdown.extract_reference(text)


@pytest.mark.parametrize("text,why", DECLINED)
def test_event_path_declines_where_it_could_differ(text: str, why: str) -> None:
    got, reason = markdown_events.explain(text)
    assert (got, reason) == (None, why)


@pytest.mark.parametrize("text", PARTED)
def test_where_the_parsers_part_the_event_path_declines(text: str) -> None:
    got, why = markdown_events.explain(text)
    assert got is None and why, (got, markdown.extract_reference(text))


class _Panic(BaseException):
    """What a Rust panic arrives as: pyo3's PanicException is a BaseException."""


def test_a_panic_declines_and_prints_nothing(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    import os

    def panics(self: Any) -> Any:
        os.write(2, b"thread '<unnamed>' panicked\n")  # as Rust writes it
        raise _Panic("index out of bounds")

    monkeypatch.setattr(markdown_events._Walk, "run", panics)
    assert markdown_events.explain("[x](y)\n") == (None, "pulldown-cmark raised")
    assert capfd.readouterr() == ("", "")


def test_a_mistake_of_icms_own_is_raised_not_declined(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(self: Any) -> Any:
        raise KeyError("x")

    monkeypatch.setattr(markdown_events._Walk, "run", fails)
    with pytest.raises(KeyError):
        markdown_events.explain("[x](y)\n")


def test_extract_tries_the_event_path_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(extract.ENV, raising=False)
    monkeypatch.setattr(extract, "_fast", None)
    assert extract.backend() == "pulldown-cmark"
    assert extract._fast is markdown_events.extract
    text = "# T\n\n[a](b.md) <x id=y>\n\n[r]: s\n"
    assert extract.extract(text) == markdown.extract_reference(text)


def test_icm_parser_turns_the_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(extract.ENV, extract.REFERENCE)
    monkeypatch.setattr(extract, "_fast", None)
    assert extract.backend() == "markdown-it-py"
    assert extract._fast is False


def test_a_declined_file_is_the_references(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file nested deeper than the reference keeps (its ``too-deep``
    finding) is declined, and ``extract`` gives the reference's answer."""
    monkeypatch.setattr(extract, "_fast", markdown_events.extract)
    text = "> " * 60000 + "[x](y)\n"
    assert markdown_events.explain(text) == (None, "could nest too deep")
    assert extract.extract(text) == markdown.extract_reference(text)
    assert extract.extract(text).too_deep > 0


_SPEC = importlib.util.spec_from_file_location(
    "run_adversarial", ROOT / "bench" / "run_adversarial.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)
MARKDOWN_CASES = [(label, build) for stage, label, build in bench.CASES
                  if stage in ("markdown parse", "reference/heading slugs")
                  and not label.startswith("'# a' * N")]


@pytest.mark.parametrize("label,build", MARKDOWN_CASES,
                         ids=[label for label, _ in MARKDOWN_CASES])
def test_adversarial_inputs_finish_on_the_event_path(
        label: str, build: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench/run_adversarial.py``'s markdown inputs (at 64 KB; their
    growth is measured there) through the event path first: none hangs."""
    monkeypatch.setattr(extract, "_fast", markdown_events.extract)
    assert build(1 << 16)() is not None


def test_importing_markdown_loads_no_event_path() -> None:
    """The caller chooses the parser: ``icm.markdown`` imports the adapter
    only when asked for it, so start-up and the default stay as they were."""
    code = ("import sys, icm.markdown; "
            "assert 'icm.markdown_events' not in sys.modules; "
            "assert 'pyromark' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_this_repositorys_documents_answer_as_the_reference() -> None:
    """The docs, journal and example repository: the suite's fixtures."""
    differing = []
    for path in sorted(ROOT.glob("**/*.md")):
        if ".venv" in path.parts or ".git" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        got = markdown_events.extract(text)
        if got is not None and got != markdown.extract_reference(text):
            differing.append(str(path.relative_to(ROOT)))
    assert differing == []


FRAGMENTS = [
    "[a](b.md)", "[a b](<c d.md>)", "![i](j.png)", "[r][x]", "[x]", "[x][]",
    "<http://h.test>", "<m@e.test>", "<a href=\"h.md\">", "<span id=\"s\">",
    "`code [x](y)`", "*em [e](f)*", "**st**", "~~del~~", "~s~", "\\[esc\\]",
    "&amp;", "&#32;", "[p](q(r).md)", "[t](u \"title\")", "[", "]", "(", ")",
    "`", "``", "<", ">", "*", "_", "\\", "!", "&", "#", "|", "\\|", "é", "x",
    "y z", "~~~", "```", ":-", "](", "]:", "\"\"", "1.", "2)", "- ", "---",
    "<!-- c -->", "<!X>", "<div>", "<script>", "\t", "    ", "\xa0", "[x]: y",
    "\\\x1f", "\\\n", "\\\x01",
    "[x]:", "'t'", "<a name=n>", "<img src=i.png>", "[a [b](c)](d)",
    "![a [b](c)](d)", "[![i](j)](k)", "[j](javascript:x)", "  \n", "[^1]",
]
LINE_STARTS = [
    "", "", "# ", "## ", "> ", ">> ", ">\t", "- ", "* ", "  - ", "    - ",
    "     - ", "\t", "    ", "        ", "1. ", "10) ", "\t- ", "-    ",
    "[x]: ", "[x]:\n  ", "| ", "```\n", "~~~\n", "<div>\n", "---\n", "2. ",
    "|-|\n", "|---|---|\n", ":-\n", "<!-- ", "- <!--\n", "> - ", "- > ", "   ",
    "*    ", "  -   ", "\t\t+  ",
]


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
        lines.insert(draw(st.integers(0, len(lines))),
                     draw(st.sampled_from(["|---|---|", "-|-", "---", "==="])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_random_documents_answer_as_the_reference_or_decline(text: str) -> None:
    got, _why = markdown_events.explain(text)
    if got is not None:
        assert got == markdown.extract_reference(text)


def test_a_parted_lazy_line_costs_its_block_not_the_file() -> None:
    """The block of a lazy line the parsers read apart is the reference's,
    read alone (the walk's links there dropped), the rest the event path's;
    where the block could read otherwise alone, the file is declined."""
    for text in LAZY_ANSWERED:
        got, why = markdown_events.explain(text)
        assert (why, got) == ("", markdown.extract_reference(text))
    for text in LAZY_DECLINED:
        assert markdown_events.explain(text) == (
            None, "a lazy line indented as code opens a block")


def test_ranges_for_lazy_lines_are_kept_only_where_one_could_open() -> None:
    """A file whose indented lines open no block records no ranges for the
    lazy-line screen; one with such a line does, and still parts it."""
    quiet = "- item\n\n      code, no opener\n\n  text [a](b)\n"
    assert not markdown_events._Lazy(quiet.encode()).any
    assert markdown_events.explain(quiet) == (
        markdown.extract_reference(quiet), "")
    assert all(markdown_events._Lazy(t.encode()).any
               for t in (*LAZY_ANSWERED, *LAZY_DECLINED))


@pytest.mark.parametrize("text", [*ANSWERED, *LAZY_ANSWERED,
                                  *(t for t, _why in DECLINED)])
def test_without_headings_the_answer_is_the_same_but_for_them(text: str) -> None:
    """``headings=False`` (the link check's parse) leaves out the heading
    records alone: links, anchors, depth and every decline are the same,
    on the event path and through the reference."""
    import dataclasses

    assert markdown_events.explain(text, False) == (
        lambda got, why: (got and dataclasses.replace(got, headings=()), why))(
        *markdown_events.explain(text))
    assert extract.extract(text, headings=False) == dataclasses.replace(
        extract.extract(text), headings=())


def test_the_link_check_builds_no_heading_record(
        repo: Path, monkeypatch: pytest.MonkeyPatch, icm) -> None:
    """Only anchors answer a fragment: a heading record a file (level, text,
    line: 68,000 on PowerShell-Docs, 5 % of the walk) is built for nobody."""
    from tests.conftest import write

    write(repo, {"AGENTS.md": "# H\n\n## Two\n\n[x](#two) [y](a.md#a)\n",
                 "a.md": "A\n=\n\n# B\n"})
    built: List[Any] = []
    heading = markdown_events.Heading
    monkeypatch.setattr(markdown_events, "Heading",
                        lambda *a: built.append(a) or heading(*a))
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")
    assert built == []
