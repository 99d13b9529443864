"""The fast path of ``extract.extract``: markdown-it.rs (through the
``markdown-it-pyrs`` wheel), the only module that imports it.

markdown-it-py stays the reference. This module gives the same ``Extract``
or declines (``None``), and ``extract.extract`` then parses the file with
the reference. It declines on anything it cannot answer exactly: text the
two parsers were seen to read apart, or that markdown-it.rs could crash or
go quadratic on (``_screen``, before it parses), a node whose source could
differ (the checks in ``_Walk``), and a panic or any other error. Every value is
read from the source slice that markdown-it.rs maps a node to, with the
reference's own helpers (``parseLinkDestination``, ``_raw_destination``,
``_scan_html``, ``Slugger``), never from markdown-it.rs's normalised
fields. ``bench/diff_backends.py`` and ``tests/test_markdown_rs.py`` check
that both give identical answers.
"""

from __future__ import annotations

import bisect
import importlib
import os
import re
from typing import Any, Iterator, List, Optional, Tuple

from markdown_it.helpers import parseLinkDestination

from icm import markdown
from icm.markdown import Extract, Heading, Link

# ``ICM_PARSER=markdown-it-py`` turns the fast path off (the reference alone).
ENV = "ICM_PARSER"
REFERENCE = "markdown-it-py"

# Deeper than this (in markdown-it.rs nodes) the file goes to the reference,
# whose MAX_NESTING cut-off (and its ``too-deep`` finding) must decide.
MAX_DEPTH = 40
# markdown-it.rs takes time quadratic in a run of consecutive lines that
# open with "[" (reference definitions: 1,000 lines 0.03 s, 20,000 12 s).
MAX_BRACKET_RUN = 200
# (a pattern that opens with a literal newline is scanned for fast, where
# one that opens with ``^`` is tried at every character)
_BRACKET_LINE = re.compile(r"\n[ \t>]*\[")
# markdown-it.rs has no nesting limit, and a tree some 50,000 levels deep
# overflows the C stack (a segmentation fault, in building or freeing it;
# 20,000 levels were safe). Depth is bounded from the text before parsing:
# a block container opens on a line's prefix (a quote marker, a list marker
# or at least one column of indentation per level), an inline one needs an
# emphasis, strikethrough or link delimiter inside one paragraph.
MAX_PREFIX = 1000  # characters (a tab is up to 4 columns: 4,000 levels)
_PREFIX = r"[ \t>*+\-0-9.)]{%d}" % MAX_PREFIX
_DEEP_FIRST, _DEEP_PREFIX = re.compile(_PREFIX), re.compile("\n" + _PREFIX)
MAX_DELIMITERS = 5000  # per paragraph
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\r?\n|$)")
# A line holding "|" over a delimiter row without one (``---``): the
# reference reads a one-column table, markdown-it.rs a setext heading or a
# rule. Scanned from each "|" to its line's end and the next line: linear.
_ONE_COLUMN_TABLE = re.compile(r"\|[^|\n]*\n[ \t>]*:?-+:?[ \t]*(?:\r?\n|\Z)")
_DEF_LEAD = re.compile(r"[ \t>*+\-0-9.)]*")
_DEF_LABEL = re.compile(r"\[(?:\\.|[^\\\]\n])*\]:")
_DEFINITION_LINE = re.compile(r"\n[ \t>*+\-0-9.)]*\[(?:\\.|[^\\\]\n])*\]:")
_ORDERED_LEAD = re.compile(r"[ \t>*+\-]*\d{1,9}[.)](?:[ \t]|\r?$)")
# Unicode whitespace that is not ASCII: each parser trims its own set.
# (str.isspace() but not space, tab, CR or LF, spelled out: the negated
# class ``[^\S \t\n\r]`` scanned ten times slower)
_ODD_SPACE = re.compile(
    "[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ASCII_ODD_SPACE = re.compile(rb"[\x0b\x0c\x1c-\x1f]")
# A destination ending in a backslash (``[x]: a\``, whitespace of either
# set after it too) is one to the reference and none to markdown-it.rs.
_BACKSLASH_EOL = re.compile(r"\\(?:[ \t]|" + _ODD_SPACE.pattern + r")*(?:\r?\n|\Z)")
# A line with nothing but container markers and whitespace, one of it odd.
_ODD_BLANK_LINE = re.compile(
    r"\n[ \t>*+\-0-9.)]*[^\S \t\n\r][^\S\n\r]*(?=\r?\n|\Z)")
MAX_DEFINITION_WORK = 2_000_000  # definition lines x lines of one paragraph
# markdown-it.rs pads every row of a table to the head's width: time and
# memory grow as columns x rows (2,000 x 2,000: 4 s and 2 GB).
MAX_TABLE_CELLS = 500_000
_DELIMITER_ROW = re.compile(r"\n([ \t>]*)([|:\-][|:\- \t]*)\r?(?=\n|\Z)")
# A line with a quote marker among its leading markers (``> a``, ``- > a``).
_QUOTE_LINE = re.compile(r"\n[ \t>*+\-0-9.)]*>")
_MARKS = re.compile(r"[ \t>*+\-0-9.)]*")
_TABLE_BREAKER = re.compile(
    r"[ \t]{0,3}(?:\d{1,9}[.)]|[-+*_](?:[ \t]|\r?$)|[>#`~<=])|(?: {4}|[ \t]*\t)")
_LEAD = re.compile(r"[ \t>]*")
# A table head on a list marker's line: in the item or over it, by parser.
_LIST_LEAD = re.compile(r"[ \t>]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|\r?$)")
_QUOTE_PREFIX = re.compile(r"[ \t]*(?:>[ \t]*)*")
_RUN_MARKER = re.compile(r"(?:\d{1,9}[.)]|[-+*=][ \t]*\r?$|[|:\-=][|:\-= \t]*\r?$)")
# ``[x]:<y>(`` with its title going on: the parsers end it differently.
_ANGLE_TITLE = re.compile(r"\]:[ \t]*\n?[ \t]*<[^<>\n]*>[\"'(]")
# An empty title, then more text: the reference drops the definition.
_EMPTY_TITLE_LINE = re.compile(r"\n[ \t>]*(?:\"\"|''|\(\))")
_LONE_CR = re.compile(r"\r(?!\n)")
# A tab in a line's indentation: inside a list item or a quote,
# markdown-it.rs maps the nodes of that line to the wrong bytes (a link's
# source then misses its ")"). Where block structure is concerned a tab is
# spaces to the next multiple of four columns (CommonMark), so tabs in the
# leading run of spaces and quote markers are expanded before markdown-it.rs
# sees the text; lines keep their numbers. A tab still left in a line's
# prefix (after a list marker) makes a node that touches that line go to
# the reference, as does raw HTML over lines when one was expanded.
_PREFIX_TABS = re.compile(r"^[ >]*\t[ \t>]*", re.M)
_TAB_LINE = re.compile(rb"^[ \t>*+\-0-9.)]*\t[^\n]*", re.M)


def _make() -> Any:
    """markdown-it.rs with the reference's syntax (CommonMark, tables,
    strikethrough), or None: an optional dependency, ``pip install
    'icm-hygiene[fast]'``."""
    try:
        module = importlib.import_module("markdown_it_pyrs")
    except ImportError:  # pragma: no cover - depends on the installation
        return None
    return module.MarkdownIt("commonmark").enable("table").enable("strikethrough")


_RS = _make()


def available() -> bool:
    """Whether the fast path is installed and not turned off."""
    return _RS is not None and os.environ.get(ENV, "") != REFERENCE


_null = -1  # a descriptor of /dev/null, opened once


def _tree(text: str) -> Any:
    """markdown-it.rs's tree, or None on any error. A Rust panic prints its
    message (and a backtrace) on fd 2 before Python sees the exception, so
    fd 2 points at /dev/null for the call."""
    global _null
    if _null < 0:
        _null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    try:
        os.dup2(_null, 2)
        try:
            return _RS.tree(text)
        except BaseException as exc:  # noqa: BLE001 - a panic is a BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return None
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class _Decline(Exception):
    """This file goes to the reference parser (the reason is the message)."""


def extract(text: str) -> Optional[Extract]:
    """``extract.extract(text)`` through markdown-it.rs, or None where the
    answer could differ from the reference's."""
    return explain(text)[0]


def explain(text: str) -> Tuple[Optional[Extract], str]:
    """``extract`` with the reason it declined ("" when it did not)."""
    if not available():
        return None, "off"
    why = _screen(text)
    if why:
        return None, why
    expanded: List[Tuple[int, int]] = []
    if "\t" in text:
        text, expanded = _expand_prefix_tabs(text)
    tree = _tree(text)
    if tree is None:
        return None, "markdown-it.rs raised"
    try:
        return _Walk(text, expanded).run(tree), ""
    except _Decline as exc:
        return None, str(exc)


def _screen(text: str) -> str:
    """Why markdown-it.rs must not see ``text`` (or could answer it
    differently from the reference), read from the text alone; "" if
    nothing stands in the way. Every test here is linear."""
    if "\0" in text or ("\r" in text and _LONE_CR.search(text)):
        return "NUL or lone CR"
    if not text.isascii() and "\x85" in text:
        return "U+0085 (a space in labels to markdown-it.rs only)"
    if _has_odd_space(text) and _odd_space_apart(text):
        return "Unicode whitespace where the parsers trim apart"
    brackets = len(_BRACKET_LINE.findall(text))
    if brackets >= MAX_BRACKET_RUN - 1 and _bracket_run(text):
        return "long run of lines opening with ["
    if brackets * text.count("\n") > MAX_DEFINITION_WORK and any(
            len(_BRACKET_LINE.findall(part)) * part.count("\n") > MAX_DEFINITION_WORK
            for part in _BLANK_LINE.split(text)):
        return "definitions over many lines of one paragraph"
    if "|" in text and _ONE_COLUMN_TABLE.search(text):
        return "a one-column table or a setext heading"
    if ("|" in text or ":-" in text or "-:" in text) and _odd_delimiter_row(text):
        return "a delimiter row the parsers could read apart"
    if ">" in text and _markers_in_quote_run(text):
        return "markers in a paragraph that starts in a quote"
    if "<!" in text and _old_style_html(text):
        return "an HTML declaration or comment the parsers read apart"
    if "]:" in text and (_backslash_definition(text) or _ANGLE_TITLE.search(text)
                         or _EMPTY_TITLE_LINE.search(text)
                         or _ordered_line_after_definition(text)):
        return "a definition the parsers read apart"
    if _could_nest_deep(text):
        return "could nest too deep to parse safely"
    return ""


def _bracket_run(text: str) -> bool:
    """Whether MAX_BRACKET_RUN lines in a row open with "[" (each line is
    looked at once)."""
    text = "\n" + text
    run, line_end = 0, -2
    for m in _BRACKET_LINE.finditer(text):
        run = run + 1 if m.start() == line_end else 1
        if run >= MAX_BRACKET_RUN:
            return True
        line_end = text.find("\n", m.end())
    return False


def _has_odd_space(text: str) -> bool:
    if text.isascii():  # six substring scans beat one regex pass
        return any(ch in text for ch in "\x0b\x0c\x1c\x1d\x1e\x1f")
    return _ODD_SPACE.search(text) is not None


def _odd_space_apart(text: str) -> bool:
    """Unicode whitespace (no-break space, form feed...) where the parsers
    part: markdown-it.rs trims ASCII whitespace, the reference ``strip()``
    all of it. That matters on a line of whitespace alone (blank to one,
    text to the other) and in a definition (its destination's end); in a
    heading it is caught at the node."""
    if _ODD_BLANK_LINE.search("\n" + text):
        return True
    line_end = -1
    for m in _ODD_SPACE.finditer(text):
        if m.start() <= line_end:
            continue  # this line was looked at
        start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.start())
        line_end = len(text) if line_end < 0 else line_end
        if "]:" in text[start:line_end]:
            return True
    return False


def _run_lines(text: str, pos: int) -> Iterator[Tuple[int, str]]:
    """The lines after the newline at ``pos`` up to a blank line or the
    end, each with the position of the newline before it: the one walk of
    a blank-free run, shared by the screens that look inside tables and
    quotes (each screen walks a run once, so the screens stay linear)."""
    while pos < len(text):
        nxt = text.find("\n", pos + 1)
        line = text[pos + 1:nxt if nxt >= 0 else len(text)]
        if not line.strip(" \t\r"):
            return
        yield pos, line
        if nxt < 0:
            return
        pos = nxt


def _odd_delimiter_row(text: str) -> bool:
    """A table delimiter row (``|-|``, ``:-``) under a line without a pipe
    or under a fence or HTML opener, or a table that could hold more than
    MAX_TABLE_CELLS cells (its columns times the lines of the text)."""
    lines = text.count("\n") + 1
    text = "\n" + text
    walked = -1
    for m in _DELIMITER_ROW.finditer(text):
        row = m.group(2)
        if "|" not in row and ":" not in row:
            continue  # a setext underline or a rule
        if (row.count("|") + 1) * lines > MAX_TABLE_CELLS:
            return True
        end = m.start()  # the previous line ends here
        head = text[text.rfind("\n", 0, end) + 1:end]
        if "|" not in head or head.lstrip(" \t>").startswith(("`", "~", "<")) \
                or "\\|" in head or _ODD_SPACE.search(head) \
                or _LIST_LEAD.match(head):
            return True
        if m.start() < walked:
            continue
        # the table's body: a line that could open a block ends the table
        # in one parser and not the other (``2) x`` under a row, say)
        walked = m.end()
        for walked, line in _run_lines(text, m.end()):  # noqa: B007 - read after
            if _TABLE_BREAKER.match(line):
                return True
    return False


def _markers_in_quote_run(text: str) -> bool:
    """A line of list or table markers that is a lazy continuation of a
    quoted paragraph (fewer quote markers than the quote it follows, in a
    blank-free run): the reference's lazy-continuation check and
    markdown-it.rs's part there. A line with all its quote markers is read
    the same by both; a ``>`` after the line's list marker (``0. >``) opens
    a quote in the item and is none of them."""
    text = "\n" + text
    walked = -1
    for m in _QUOTE_LINE.finditer(text):
        if m.start() < walked:
            continue
        depth = 0
        walked = m.start()
        for walked, line in _run_lines(text, m.start()):  # noqa: B007 - read after
            prefix = _QUOTE_PREFIX.match(line).group()  # type: ignore[union-attr]
            quotes = _MARKS.match(line).group().count(">")  # type: ignore[union-attr]
            if prefix.count(">") < depth and _RUN_MARKER.match(line, len(prefix)):
                return True
            depth = max(depth, quotes)
    return False


def _old_style_html(text: str) -> bool:
    """Inline ``<!`` markup the parsers read apart: the reference follows
    CommonMark 0.31 (``<!`` and any letter, ``<!-->``, ``--`` inside a
    comment), markdown-it.rs the older rule. A comment or an upper-case
    declaration that opens a line (an HTML block: the same rule in both) is
    passed over whole; one in a list item is declined at its node. Each
    line's lead is measured once (many comments on one line stay linear)."""
    seen, lead_end, shallow = 0, 0, True
    pos = text.find("<!")
    while pos >= 0:
        newline = text.rfind("\n", seen, pos)
        if newline >= 0 or seen == 0:
            lead_end = _LEAD.match(text, newline + 1).end()  # type: ignore[union-attr]
            # four columns in (a tab, say) it opens no block: a lazy line
            indent = text[newline + 1:lead_end].rpartition(">")[2]
            shallow = "\t" not in indent and len(indent) <= 3
        seen = pos
        block = pos == lead_end and shallow
        if text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            if end < 0:
                return True
            body = text[pos + 4:end]
            if not block and (body.startswith((">", "->")) or "--" in body
                              or body.endswith("-") or "<!" in body):
                # (an inline comment may not close where its "-->" is, if a
                # block starts between: the "<!" passed over would count)
                return True
            pos = text.find("<!", end + 3)
            continue
        after = text[pos + 2:pos + 3]
        if not (block and after.isascii() and after.isupper()):
            return True
        pos = text.find("<!", pos + 2)
    return False


def _backslash_definition(text: str) -> bool:
    r"""Whether a definition's destination (or a title after it) could end
    in a backslash: a line ``[x]: a\`` (its label found as the reference
    finds it, the first ``]``), or ``a\`` on the line after a bare
    ``[x]:``. ``[name]: some words\`` is prose to both."""
    for m in _BACKSLASH_EOL.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        lead = _DEF_LEAD.match(text, start).end()  # type: ignore[union-attr]
        label = _DEF_LABEL.match(text, lead, m.start())
        if label is not None:
            rest = text[label.end():m.start() + 1]
        else:
            before = text.rfind("\n", 0, max(start - 1, 0)) + 1
            if not text[before:start].rstrip().endswith("]:"):
                continue
            rest = text[start:m.start() + 1]
        words = [w for w in re.split(r"[ \t]+", rest) if w]  # ASCII only, as
        if len(words) <= 1 or words[1][0] in "\"'(":  # the reference splits
            return True
    return False


def _ordered_line_after_definition(text: str) -> bool:
    """A line opening like an ordered list item (``2)``, ``10.``) later in
    the blank-free run of a definition: inside a title over lines
    (``[x]: y (\n2)``) the parsers part on whether it ends the definition.
    Each run is walked once."""
    text = "\n" + text
    walked = -1
    for m in _DEFINITION_LINE.finditer(text):
        if m.start() < walked:
            continue
        line_end = text.find("\n", m.end())
        if line_end < 0:
            return False
        walked = line_end
        for walked, line in _run_lines(text, line_end):  # noqa: B007 - read after
            if _ORDERED_LEAD.match(line):
                return True
    return False


def _delimiters(text: str) -> int:
    return text.count("*") + text.count("_") + text.count("~") + text.count("[")


def _could_nest_deep(text: str) -> bool:
    if len(text) > MAX_PREFIX and (_DEEP_FIRST.match(text)
                                   or _DEEP_PREFIX.search(text)):
        return True
    if _delimiters(text) <= MAX_DELIMITERS:
        return False
    return any(_delimiters(part) > MAX_DELIMITERS for part in _BLANK_LINE.split(text))


def _touches(spans: List[Tuple[int, int]], start: int, end: int) -> bool:
    """Whether any of ``spans`` (sorted, disjoint) overlaps [start, end]."""
    i = bisect.bisect_right(spans, (end, 1 << 62))
    return i > 0 and spans[i - 1][1] >= start


def _expand_prefix_tabs(text: str) -> Tuple[str, List[Tuple[int, int]]]:
    """``text`` with the tabs of each line's leading run of spaces and quote
    markers turned into spaces (tab stops of four columns), and the byte
    spans, in the new text, of the lines changed."""
    out: List[str] = []
    spans: List[Tuple[int, int]] = []
    at = 0  # characters of ``text`` copied
    size = 0  # bytes written so far
    for m in _PREFIX_TABS.finditer(text):
        head = text[at:m.start()]
        out.append(head)
        size += len(head.encode("utf-8"))
        column, run = 0, []
        for ch in m.group():
            if ch == "\t":
                width = 4 - column % 4
                run.append(" " * width)
                column += width
            else:
                run.append(ch)
                column += 1
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        new = "".join(run)
        out.append(new)
        rest = len(text[m.end():line_end].encode("utf-8"))
        spans.append((size, size + len(new) + rest))
        size += len(new)
        at = m.end()
    out.append(text[at:])
    return "".join(out), spans


_ANY_DEFINITION = re.compile(rb"\n[ \t>*+\-0-9.)]*\[(?:\\.|[^\n\]\\])*\]:")
_ANGLE_THEN_TITLE = re.compile(r"\]\([ \t\n]*<[^<>\n]*>[\"'(]")
_RAW_BLOCK = re.compile(r"[ \t]*<(?:[!?]|script|pre|style|textarea)", re.I)
# A heading ending in ``[x](``: a reference use to markdown-it.rs, text to
# the reference.
_LINK_OPENING_AT_END = re.compile(rb"\]\([ \t]*(?:\r?\n)?\Z")

_BLOCKS = frozenset(("paragraph", "bullet_list", "ordered_list", "blockquote",
                     "fence", "code_block", "html_block", "heading", "lheading",
                     "table", "hr", "definition"))

# Nodes that hold no link, anchor or heading (code spans and blocks hold
# only text): the walk does not look inside them.
_LEAVES = frozenset(("text", "text_special", "softbreak", "hardbreak", "code_inline",
                     "code_block", "fence", "hr"))


class _Walk:
    def __init__(self, text: str, expanded: List[Tuple[int, int]]) -> None:
        self.data = text.encode("utf-8")
        self.expanded = expanded  # byte spans of lines whose tabs were expanded
        self._definitions: Optional[bool] = None
        # (start, end) bytes of each line indented with a tab
        self.tabbed: List[Tuple[int, int]] = (
            [m.span() for m in _TAB_LINE.finditer(self.data)] if "\t" in text else [])
        self.links: List[Link] = []
        self.anchors: List[str] = []
        self.headings: List[Heading] = []
        self.slugger = markdown.Slugger()
        self._at = 0  # byte offset ``_line`` counted to
        self._line = 1

    def line(self, offset: int) -> int:
        """1-based line of a byte offset; offsets come in document order, so
        counting forward from the last one keeps the walk linear."""
        if offset < self._at:
            self._at, self._line = 0, 1
        self._line += self.data.count(b"\n", self._at, offset)
        self._at = offset
        return self._line

    def span(self, node: Any) -> Tuple[int, int]:
        """A node's byte span, where markdown-it.rs maps it right."""
        if not node.srcmap:
            raise _Decline("no source map")
        start, end = node.srcmap
        if self.tabbed and _touches(self.tabbed, start, end):
            raise _Decline("node on a line indented with a tab")
        return start, end

    def source(self, node: Any) -> Tuple[int, str]:
        """A node's start and its source as the reference reads it: with
        CRLF as LF (markdown-it normalises line ends before it parses; a
        lone CR is screened out), else ``[a](\r\nb)`` read as ``\r``."""
        start, end = self.span(node)
        return start, self.data[start:end].decode("utf-8").replace("\r\n", "\n")

    def run(self, tree: Any) -> Extract:
        self.visit(tree.children, 1, False)
        return Extract(tuple(self.links), tuple(self.anchors), tuple(self.headings), 0)

    def visit(self, nodes: Any, depth: int, quoted: bool) -> None:
        """Document order; recursion only into containers, at most
        MAX_DEPTH deep (leaves, most of the nodes, cost one lookup)."""
        if depth > MAX_DEPTH:
            raise _Decline("nested too deep")
        for node in nodes:
            name = node.name
            if name in _LEAVES:
                continue
            if name == "link":
                self.inline_link(node, quoted)
            elif name in ("heading", "lheading"):
                if self.heading(node, depth):
                    continue
            elif name == "html_inline":
                self.html(node, node.meta.get("content", ""))
                continue
            elif name == "html_block":
                content = node.meta.get("content", "")
                if depth > 1 and _RAW_BLOCK.match(content):
                    # kinds 1-5 run past a blank line in a list item in one
                    # parser and stop there in the other
                    raise _Decline("raw HTML block of kinds 1-5 in a container")
                self.html(node, content)
                continue
            elif name == "image":
                self.inline_link(node, quoted)
                continue  # alt text is no part of the reference's stream
            elif name == "autolink":
                self.autolink(node)
                continue
            elif name == "definition":
                self.definition(node, quoted)
                continue
            elif name == "table":
                start, end = self.span(node)
                head = self.data[start:min(end, start + 64)]
                if head.lstrip(b" \t").startswith(b"["):
                    # its head could be a definition to the reference
                    raise _Decline("table whose head could be a definition")
                if self.data.find(b"\\|", start, end) >= 0:
                    raise _Decline("escaped pipe in a table")
                self._backticks_and_brackets(start, end)
                if self._inert(start, end, depth + 3):  # thead, trow, tcell
                    continue
            elif name == "paragraph":
                start, end = self.span(node)
                self._backticks_and_brackets(start, end)
                if self._inert(start, end, depth):
                    continue
            elif name == "list_item":  # a tight item's text has no paragraph
                spans = [c.srcmap for c in node.children
                         if c.name not in _BLOCKS and c.srcmap]
                if spans:
                    self._backticks_and_brackets(spans[0][0], spans[-1][1])
            elif name == "blockquote":
                self.visit(node.children, depth + 1, True)
                continue
            self.visit(node.children, depth + 1, quoted)

    def _inert(self, start: int, end: int, depth: int) -> bool:
        """Whether the inline nodes of a block spanning ``start:end`` at
        ``depth`` can hold nothing the walk reads: a link, an image, an
        autolink and raw HTML each need ``[`` or ``<``. Such a block's
        children are not visited (most nodes are text in them, and reading
        a node from markdown-it.rs costs more than the walk's own work),
        where the walk could not have met MAX_DEPTH there either: each
        level of emphasis or strikethrough takes two delimiter characters."""
        data = self.data
        if data.find(b"[", start, end) >= 0 or data.find(b"<", start, end) >= 0:
            return False
        delimiters = (data.count(b"*", start, end) + data.count(b"_", start, end)
                      + data.count(b"~", start, end))
        return depth + 1 + delimiters // 2 <= MAX_DEPTH

    def _backticks_and_brackets(self, start: int, end: int) -> None:
        """Backtick runs of two or more beside link brackets: the parsers
        pair code spans inside labels differently. Brackets are a link's
        only where ``](`` or ``][`` follows, or where the text holds a
        definition for a shortcut reference."""
        data = self.data
        if data.find(b"``", start, end) >= 0 and data.find(b"[", start, end) >= 0 and (
                data.find(b"](", start, end) >= 0 or data.find(b"][", start, end) >= 0
                or self.definitions()):
            raise _Decline("backtick runs beside link brackets")

    def definitions(self) -> bool:
        """Whether a line of the text opens like a reference definition."""
        if self._definitions is None:
            self._definitions = _ANY_DEFINITION.search(b"\n" + self.data) is not None
        return self._definitions

    def heading(self, node: Any, depth: int) -> bool:
        """Record a heading's anchor; True if its inline nodes are inert."""
        start, end = self.span(node)
        source = self.data[start:end]
        if b"~~~" in source or (
                b"](" in source and _LINK_OPENING_AT_END.search(source)) or (
                (not source.isascii() or _ASCII_ODD_SPACE.search(source))
                and _ODD_SPACE.search(source.decode("utf-8"))):
            raise _Decline("heading the parsers read apart")
        self._backticks_and_brackets(start, end)
        text = _plain_text(node, self.data)
        if self.expanded and _touches(self.expanded, start, end):
            # its text could hold a tab that became spaces (in a code span)
            raise _Decline("heading on a line whose tabs were expanded")
        self.anchors.append(self.slugger.slug(text))
        self.headings.append(Heading(int(node.meta["level"]), text.strip(),
                                     self.line(start)))
        return self._inert(start, end, depth)

    def inline_link(self, node: Any, quoted: bool) -> None:
        start, src = self.source(node)
        if not src.endswith(")"):
            return  # a reference use: its definition is the one checked
        image = node.name == "image"
        if "<" in src and _ANGLE_THEN_TITLE.search(src):
            raise _Decline("angle destination with a title and no space")
        if quoted and "\n" in src:
            # The reference reads the link with the quote markers of its
            # later lines stripped: only its label may span lines here.
            end = markdown.label_end(src, image)
            if end < 0 or "\n" in src[end:]:
                raise _Decline("link over lines in a quote")
        found = markdown.inline_destination(src, image)
        if found is None:
            raise _Decline("link the reference would not parse")
        raw, href = found
        self.links.append(Link(self.line(start), raw or href, href,
                               "image" if image else "link"))

    def autolink(self, node: Any) -> None:
        start, src = self.source(node)
        inner = src[1:-1]
        href = inner if ":" in inner else "mailto:" + inner
        self.links.append(Link(self.line(start), href, href, "autolink"))

    def html(self, node: Any, content: str) -> None:
        start, end = self.span(node)
        if self.expanded and "\n" in content and _touches(self.expanded, start, end):
            raise _Decline("raw HTML over a line whose tabs were expanded")
        base = self.line(start)
        for offset, what, value in markdown._scan_html(content):
            if what == "link":
                self.links.append(Link(base + offset, value, value, "html"))
            else:
                self.anchors.append(value)

    def definition(self, node: Any, quoted: bool) -> None:
        start, src = self.source(node)
        if quoted and "\n" in src:
            raise _Decline("definition over lines in a quote")
        if not src.isascii() or _ASCII_ODD_SPACE.search(src.encode("ascii")):
            if _ODD_SPACE.search(src):
                raise _Decline("Unicode whitespace in a definition")
        if "|" in src:  # over a delimiter row the reference reads a table
            raise _Decline("definition that could head a table")
        if "\n" in src and _BLOCK_AFTER_LABEL.match(src):
            raise _Decline("definition whose next line could open a block")
        plain = _PLAIN_DEFINITION.match(src)
        value = "" if plain is None else plain.group(plain.lastindex or 1)
        if plain is not None and not ("&" in value and ";" in value):
            # no escapes, entities, brackets or parentheses: as written
            raw = href = value
        else:
            raw, href = _definition_destination(src)
        if not markdown._MD.validateLink(href):
            raise _Decline("definition the reference would not make")
        self.links.append(Link(self.line(start), raw, href, "definition"))


_LABEL = re.compile(r"[ \t]*\[(?:\\.|[^\\\]])*\]:", re.S)
# ``[x]:`` then a line that could start a block (``*``, ``<div>``, ``1.``):
# the two parsers disagree on which ends the definition.
_BLOCK_AFTER_LABEL = re.compile(
    r"[ \t]*\[(?:\\.|[^\\\]])*\]:[ \t]*\n[ \t]*[^A-Za-z/. \t]", re.S)
_PLAIN_DEFINITION = re.compile(
    r"[ \t]*\[[^\[\]\\]*\]:[ \t]*\n?[ \t]*"
    r"(?:<([^<>\n\\]*)>|([^\s()<\\\x00-\x1f\x7f]+))(?=\s|\Z)")


def _definition_destination(src: str) -> Tuple[str, str]:
    """(raw, href) of a definition's source, with the reference's helper
    and its ``_DEF_DEST`` reading of the raw text."""
    label = _LABEL.match(src)
    if label is None:
        raise _Decline("definition label not found")
    pos = label.end()
    while pos < len(src) and src[pos] in " \t":
        pos += 1
    if pos < len(src) and src[pos] == "\n":
        pos += 1
        while pos < len(src) and src[pos] in " \t":
            pos += 1
    res = parseLinkDestination(src, pos, len(src))
    if not res.ok:
        raise _Decline("definition the reference would not parse")
    raw = res.str
    m = markdown._DEF_DEST.search(src)
    if m:
        raw = m.group(1)
        if raw.startswith("<") and raw.endswith(">"):
            raw = raw[1:-1]
    return raw, res.str


def _plain_text(heading: Any, data: bytes) -> str:
    """``markdown.inline_text`` of a heading's inline content: text, escapes
    and entities, code spans and autolink text; an image's alt text and raw
    HTML are left out, line breaks are spaces."""
    children = heading.children
    if len(children) == 1 and children[0].name == "text":  # most headings
        return str(children[0].meta.get("content", ""))
    parts: List[str] = []
    stack = list(reversed(children))
    while stack:
        node = stack.pop()
        name = node.name
        if name in ("text", "text_special"):
            parts.append(node.meta.get("content", ""))
        elif name in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif name == "code_inline":
            start, end = node.srcmap
            if not data[start:end].strip(b"`").strip(b" \n"):
                raise _Decline("code span of spaces in a heading")
            parts.append("".join(c.meta.get("content", "") for c in node.children))
        elif name == "autolink":
            start, end = node.srcmap
            parts.append(markdown._MD.normalizeLinkText(
                data[start + 1:end - 1].decode("utf-8")))
        elif name in ("image", "html_inline"):
            continue
        else:
            stack.extend(reversed(node.children))
    return "".join(parts)
