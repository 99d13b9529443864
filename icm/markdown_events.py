"""An event-stream path for ``markdown.extract``: pulldown-cmark (lychee's
own parser) through the ``pyromark`` wheel, the only module that imports it.

Python sees only events with byte ranges, never a tree, and reads each value
the link check needs from the source bytes a range points at, with the
reference's own helpers (``inline_destination``, ``parseLinkDestination``,
``_DEF_DEST``, ``_scan_html``, ``Slugger``); pulldown-cmark's own reading
(a destination, a definition's span) is a second opinion, and where the two
disagree the file is declined. markdown-it-py stays the reference: where
the parsers read a construct apart, ``explain`` returns None with the
reason and the caller parses the file with ``markdown.extract_reference``.
``bench/diff_backends.py --backend events`` and
``tests/test_markdown_events.py`` hold the two to the same answers.
"""

from __future__ import annotations

import bisect
import importlib
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

from markdown_it.common.html_blocks import block_names
from markdown_it.helpers import parseLinkDestination

from icm import markdown
from icm.markdown import Extract, Heading, Link

# ``ICM_PARSER=events`` makes ``markdown.extract`` try this path first.
ENV = "ICM_PARSER"
NAME = "events"

# Deeper than this (pulldown-cmark's open blocks and spans) the file goes to
# the reference, whose MAX_NESTING cut-off (and ``too-deep``) must decide.
MAX_DEPTH = 40

_LONE_CR = re.compile(r"\r(?!\n)")
# Unicode whitespace that is not ASCII: markdown-it-py trims it (``strip``)
# where pulldown-cmark trims ASCII whitespace alone.
_ODD_SPACE = re.compile(
    "[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def _make() -> Any:
    """pulldown-cmark with the reference's syntax (CommonMark, tables,
    strikethrough), or None where pyromark is not installed."""
    try:
        module = importlib.import_module("pyromark")
    except ImportError:  # pragma: no cover - depends on the installation
        return None
    options = module.Options.ENABLE_TABLES | module.Options.ENABLE_STRIKETHROUGH
    return module.Markdown(options=options)


_PM = _make()


def available() -> bool:
    """Whether pyromark is installed."""
    return _PM is not None


class _Decline(Exception):
    """This file goes to the reference parser (the reason is the message)."""


def extract(text: str) -> Optional[Extract]:
    """``markdown.extract(text)`` through pulldown-cmark, or None where the
    answer could differ from the reference's."""
    return explain(text)[0]


_null = -1  # a descriptor of /dev/null, opened once


def explain(text: str) -> Tuple[Optional[Extract], str]:
    """``extract`` with the reason it declined ("" when it did not)."""
    if _PM is None:
        return None, "off"
    why = _screen(text)
    if why:
        return None, why
    # A Rust panic prints its message on fd 2 before Python sees the
    # exception, so fd 2 points at /dev/null while the events are read.
    global _null
    if _null < 0:
        _null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    try:
        os.dup2(_null, 2)
        try:
            return _Walk(text).run(), ""
        except _Decline as exc:
            return None, str(exc)
        except Exception:  # icm's own mistake: never hidden as a decline
            raise
        except BaseException as exc:  # noqa: BLE001 - a panic is a BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return None, "pulldown-cmark raised"
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# A line holding "|" over a delimiter row without one (``---``): the
# reference reads a one-column table, pulldown-cmark a setext heading.
_ONE_COLUMN_TABLE = re.compile(r"\|[^|\n]*\n[ \t>]*:?-+:?[ \t]*(?:\r?\n|\Z)")
_DELIMITER_ROW = re.compile(r"\n([ \t>]*)([|:\-][|:\- \t]*)\r?(?=\n|\Z)")
# A line in a table's body that could open a block, or is indented as code:
# the table ends there in one parser and not in the other.
_TABLE_BREAKER = re.compile(
    r"[ \t]{0,3}(?:\d{1,9}[.)]|[-+*_](?:[ \t]|\r?$)|[>#`~<=])|(?: {4}|[ \t]*\t)")
# A table head on a list marker's line: in the item or over it, by parser.
_LIST_LEAD = re.compile(r"[ \t>]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|\r?$)")


def _screen(text: str) -> str:
    """Why the text must go to the reference, read from the text alone; ""
    if nothing stands in the way. Every test here is linear."""
    if "\0" in text or ("\r" in text and _LONE_CR.search(text)):
        return "NUL or lone CR"
    if "\t" in text and _MARKER_TAB.search(text):
        return "a tab after a list marker"
    if not text.isascii() or "\x0b" in text or "\x0c" in text:
        if _ODD_SPACE.search(text) and _ODD_BLANK_LINE.search("\n" + text):
            return "a line of Unicode whitespace"
    if "|" in text and _ONE_COLUMN_TABLE.search(text):
        return "a one-column table or a setext heading"
    if ("|" in text or ":-" in text or "-:" in text) and _odd_delimiter_row(text):
        return "a delimiter row the parsers could read apart"
    return ""


def _run_lines(text: str, pos: int) -> Iterator[Tuple[int, str]]:
    """The lines after the newline at ``pos`` up to a blank line or the
    end, each with the position of the newline before it."""
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
    """A table delimiter row (``|-|``, ``:-``) under a line the parsers
    could read apart as a table head (no pipe, a fence or HTML opener, an
    escaped pipe, a list marker, odd whitespace), or over a body line that
    could open a block. Each table's body is walked once."""
    text = "\n" + text
    walked = -1
    for m in _DELIMITER_ROW.finditer(text):
        row = m.group(2)
        if "|" not in row and ":" not in row:
            continue  # a setext underline or a rule
        end = m.start()  # the previous line ends here
        head = text[text.rfind("\n", 0, end) + 1:end]
        if "|" not in head or head.lstrip(" \t>").startswith(("`", "~", "<", "[")) \
                or "\\|" in head or _ODD_SPACE.search(head) \
                or _LIST_LEAD.match(head):
            return True
        if m.start() < walked:
            continue
        walked = m.end()
        for walked, line in _run_lines(text, m.end()):  # noqa: B007 - read after
            if _TABLE_BREAKER.match(line) or "\\|" in line:
                return True
    return False


# A line indented as code (four columns) that opens like a block: where
# pulldown-cmark reads it as a lazy line of a paragraph (CommonMark), the
# reference may end the paragraph there and read code.
_INDENTED_OPENER = re.compile(
    rb"\n([ \t>]*?(?: {4}|\t)[ \t]*)(?:[*+\-_`~<>#|]|\d{1,9}[.)])")
_ITEM_MARKER = re.compile(rb"(?:[*+-]|\d{1,9}[.)])( *)(\r?\n|\Z)?")
# A tab after a list marker: the item's content column, by parser.
_MARKER_TAB = re.compile(r"(?m)^[ \t>]*(?:[*+-]|\d{1,9}[.)]) *\t")
# Backslash, then whitespace to the line's end, in a definition: the
# reference's destination (or title) runs on, pulldown-cmark's ends.
_BACKSLASH_EOL = re.compile(r"\\[ \t]*(?:\n|\Z)")
# ``[x]:`` then a line that could start a block (``*``, ``<div>``, ``1.``):
# the two parsers disagree on which ends the definition.
_BLOCK_AFTER_LABEL = re.compile(
    r"[ \t]*\[(?:\\.|[^\\\]])*\]:[ \t]*\n[ \t]*[^A-Za-z/. \t]", re.S)
# The line after a definition indented as code: a lazy line to pulldown-
# cmark, code to the reference.
_CODE_LINE = re.compile(rb"[ >]*(?: {4}|\t)")

# The line after a definition, unless it is blank, another definition,
# plain text or a block both parsers let interrupt a paragraph (a heading,
# a quote, a fence, an HTML comment or block tag): the reference parses it
# as a new block (a setext underline, HTML of kind 7, an empty list item),
# pulldown-cmark as the rest of a paragraph.
_AFTER_DEFINITION = re.compile(
    rb"[ \t>]*(?:[A-Za-z\[>#]|```|~~~|<!--|\r?\n|\Z|</?(?i:"
    + "|".join(n for n in block_names if n != "search").encode()
    + rb")(?:[ \t>/]|\r?\n|\Z))")
# A line with nothing but container markers and whitespace, one of it not
# ASCII: blank to pulldown-cmark, text to the reference (``strip``).
_ODD_BLANK_LINE = re.compile(
    r"\n[ \t>*+\-0-9.)]*[^\S \t\n\r][^\S\n\r]*(?=\r?\n|\Z)")

# Ranges a lazy line inside of is read alike (or looked at apart).
_LAZY_FREE = frozenset(("BlockQuote", "List", "Item", "CodeBlock", "HtmlBlock",
                        "Table"))
# Text that could be a definition to the reference: a label, a destination
# (on the label's line or the next), then a title's opening or the line's end.
_DEFINITION_OPEN = re.compile(
    rb"\[(?:\\.|[^\\\[\]])*\]:[ \t]*(?:\r?\n[ \t>]*)?(?:<[^>\n]*>|[^ \t\r\n]+)"
    rb"[ \t]*(?:\r?\n|\Z|[\"'(])")

# Containers: a range that covers them says nothing about what is inside.
_CONTAINERS = frozenset(("BlockQuote", "List", "Item"))


class _Walk:
    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")
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

    def source(self, start: int, end: int) -> str:
        """The source of a range as the reference reads it: CRLF as LF."""
        return self.data[start:end].decode("utf-8").replace("\r\n", "\n")

    def run(self) -> Extract:
        text, data = self.text, self.data
        links: List[Link] = []
        at: List[int] = []  # the byte offset of each link, for definitions
        anchors: List[str] = []
        heads: List[Heading] = []
        slugger = markdown.Slugger()
        defs: Dict[str, Any] = (_PM.reference_definitions(text)
                                if "]:" in text else {})
        # Definitions make no event; a label defined twice is reported once.
        covered: Optional[List[Tuple[int, int]]] = (
            [] if defs and text.count("]:") != len(defs) else None)
        depth = quotes = image = 0
        head: Optional[List[str]] = None  # heading text, while in one
        held: List[str] = []  # anchors of raw HTML inside a heading
        head_start = head_level = 0
        html: Optional[List[str]] = None  # an HTML block's text, while in one
        html_start = 0
        autolink = False  # in an autolink (its text is normalised)
        # line starts indented as code that open like a block, in order; a
        # range of content that holds one reads it as a lazy line
        lazy: List[int] = []
        self.lazy_cols: List[int] = []  # each line's indent (-1: not spaces)
        if b"\n " in data or b"\n\t" in data:
            for m in _INDENTED_OPENER.finditer(data):
                lazy.append(m.start() + 1)
                lead = m.group(1)
                self.lazy_cols.append(len(lead) if lead.strip(b" ") == b"" else -1)
        lazy_at = 0
        self.items: List[int] = []  # content columns of the open list items
        self.quotes = 0
        # where a block's text opens like a definition that pulldown-cmark
        # did not take, the reference may have
        opens = b"]:" in data
        item = False  # an item opened and its text has not begun
        for event, span in _PM.events_with_range(text, merge_text=True):
            if type(event) is str:  # SoftBreak, HardBreak, Rule
                if head is not None and not image and event != "Rule":
                    head.append(" ")
                if lazy_at < len(lazy) and event != "Rule":
                    lazy_at = self.lazy(lazy, lazy_at, span["start"],
                                        span["end"] + 1)
                continue
            if "Text" in event:
                if item:
                    item = self.opens(span["start"])
                if head is not None and not image:
                    value = event["Text"]
                    head.append(markdown._MD.normalizeLinkText(value) if autolink
                                else value)
                elif html is not None:
                    html.append(event["Text"])
                continue
            if "End" in event:
                depth -= 1
                end = event["End"]
                if end == "Image":
                    image -= 1
                elif end == "Link":
                    autolink = False
                elif end == "HtmlBlock":
                    assert html is not None
                    self.html("".join(html), html_start, links, at, anchors)
                    html = None
                elif type(end) is dict and "Heading" in end:
                    assert head is not None
                    value = "".join(head)
                    if _ODD_SPACE.search(value):
                        raise _Decline("Unicode whitespace in a heading")
                    anchors.append(slugger.slug(value))
                    anchors.extend(held)
                    held.clear()
                    heads.append(Heading(head_level, value.strip(),
                                         self.line(head_start)))
                    head = None
                elif end == "Item":
                    self.items.pop()
                elif type(end) is dict and "BlockQuote" in end:
                    quotes -= 1
                    self.quotes = quotes
                continue
            start = span["start"]
            if item:
                item = self.opens(start)
            if lazy_at < len(lazy):
                tag = event.get("Start")
                if tag is None or (type(tag) is str and tag not in _LAZY_FREE) or (
                        type(tag) is dict and not _LAZY_FREE.intersection(tag)):
                    lazy_at = self.lazy(lazy, lazy_at, start, span["end"])
            if "Start" in event:
                depth += 1
                if depth > MAX_DEPTH:
                    raise _Decline("nested too deep")
                tag = event["Start"]
                if type(tag) is str:
                    if tag == "HtmlBlock":
                        html, html_start = [], start
                    elif tag == "Paragraph" and opens:
                        self.opens(start)
                    elif tag == "Item":
                        self.items.append(self.content_column(start))
                        item = opens
                    elif tag == "Strikethrough" and head is not None:
                        raise _Decline("strikethrough in a heading")
                    if covered is not None and tag not in _CONTAINERS:
                        covered.append((start, span["end"]))
                    continue
                if "Link" in tag:
                    if not image:
                        autolink = self.link(tag["Link"], start, span["end"],
                                             quotes, False, links, at)
                elif "Image" in tag:
                    if not image:
                        self.link(tag["Image"], start, span["end"], quotes, True,
                                  links, at)
                    image += 1
                elif "Heading" in tag:
                    if data.find(b"\t", start, span["end"]) >= 0 or \
                            data.find(b"~~", start, span["end"]) >= 0:
                        raise _Decline("a tab or tildes in a heading")
                    if opens:
                        self.opens(start)
                    head, head_start = [], start
                    head_level = int(tag["Heading"]["level"][1])
                elif "BlockQuote" in tag:
                    quotes += 1
                    self.quotes = quotes
                if covered is not None and not _CONTAINERS.intersection(tag):
                    covered.append((start, span["end"]))
                continue
            if covered is not None:
                covered.append((start, span["end"]))
            if "Code" in event:
                if head is not None and not image:
                    head.append(event["Code"])
            elif "InlineHtml" in event:
                if not image:
                    self.html(event["InlineHtml"], start, links, at,
                              held if head is not None else anchors)
            elif "Html" in event:
                if html is not None:
                    html.append(event["Html"])
        if defs:
            self.definitions(defs, covered, links, at)
        return Extract(tuple(links), tuple(anchors), tuple(heads), 0)

    def opens(self, start: int) -> bool:
        """Decline if the text at ``start`` opens like a definition."""
        if self.data.startswith(b"[", start) and _DEFINITION_OPEN.match(
                self.data, start):
            raise _Decline("text that opens like a definition")
        return False

    def content_column(self, start: int) -> int:
        """The column where the text of the list item whose marker is at
        ``start`` begins (CommonMark's rule); a large one where its line
        holds a tab or a quote marker before it."""
        data = self.data
        begin = data.rfind(b"\n", 0, start) + 1
        prefix = data[begin:start]
        m = _ITEM_MARKER.match(data, start)
        if m is None or prefix.strip(b" ") or data.startswith(b"\t", m.end(1)):
            return 1 << 30
        width = m.end(1) - start
        spaces = len(m.group(1))
        if m.group(2) is not None or spaces > 4:
            width -= spaces - 1
        return len(prefix) + width

    def lazy(self, lazy: List[int], at: int, start: int, end: int) -> int:
        """Decline if a line of ``lazy`` starts inside ``start:end`` (past
        its start) as a lazy line: less indented than the list item's text,
        or under a quote; the index of the first line past ``start``."""
        while at < len(lazy) and lazy[at] <= start:
            at += 1
        while at < len(lazy) and lazy[at] < end:
            col = self.lazy_cols[at]
            if col < 0 or self.quotes or (self.items and col < self.items[-1]):
                raise _Decline("a lazy line indented as code opens a block")
            at += 1
        return at

    def link(self, tag: Dict[str, Any], start: int, end: int, quotes: int,
             image: bool, links: List[Link], at: List[int]) -> bool:
        """Record an inline link or an autolink; True for an autolink."""
        kind = tag["link_type"]
        if kind == "Inline":
            src = self.source(start, end)
            if quotes and "\n" in src:
                # The reference reads the link with the quote markers of its
                # later lines stripped: only its label may span lines here.
                label = markdown.label_end(src, image)
                if label < 0 or "\n" in src[label:]:
                    raise _Decline("link over lines in a quote")
            found = markdown.inline_destination(src, image)
            if found is None:
                raise _Decline("link the reference would not parse")
            raw, href = found
            if href != tag["dest_url"]:
                raise _Decline("a destination the parsers read apart")
            links.append(Link(self.line(start), raw or href, href,
                              "image" if image else "link"))
            at.append(start)
            return False
        if kind in ("Autolink", "Email"):
            inner = self.source(start + 1, end - 1)
            href = inner if kind == "Autolink" else "mailto:" + inner
            if not markdown._MD.validateLink(href):
                raise _Decline("an autolink the reference does not make")
            links.append(Link(self.line(start), href, href, "autolink"))
            at.append(start)
            return True
        return False  # a reference use: its definition is the one checked

    def html(self, content: str, start: int, links: List[Link], at: List[int],
             anchors: List[str]) -> None:
        found = markdown._scan_html(content)
        if not found:
            return
        base = self.line(start)
        for offset, what, value in found:
            if what == "link":
                links.append(Link(base + offset, value, value, "html"))
                at.append(start)
            else:
                anchors.append(value)

    def definitions(self, defs: Dict[str, Any],
                    covered: Optional[List[Tuple[int, int]]],
                    links: List[Link], at: List[int]) -> None:
        """Put each definition among the links in document order."""
        spans = sorted((d["span"]["start"], d["span"]["end"], d["dest"])
                       for d in defs.values())
        if covered is not None:
            self.unreported(spans, covered)
        found: List[Tuple[int, Link]] = []
        for start, end, dest in spans:
            found.append((start, self.definition(start, end, dest)))
        if not links:
            links.extend(link for _, link in found)
            return
        # stable: links of one HTML block share their block's offset
        merged = sorted([*zip(at, links), *found], key=lambda pair: pair[0])
        links[:] = [link for _, link in merged]

    def definition(self, start: int, end: int, dest: str) -> Link:
        if not markdown._MD.validateLink(dest):
            raise _Decline("a definition the reference does not make")
        src = self.source(start, end)
        if "\n" in src and _BLOCK_AFTER_LABEL.match(src):
            raise _Decline("a definition whose next line could open a block")
        data = self.data
        last = end - 1 if end > start and data[end - 1] == 10 else end
        # the reference reads the raw destination from the source lines of
        # the definition's map, container markers and all
        begin = data.rfind(b"\n", 0, start) + 1
        stop = data.find(b"\n", last)
        chunk = data[begin:stop if stop >= 0 else len(data)].decode("utf-8")
        chunk = chunk.replace("\r\n", "\n").rstrip("\r")
        if "\\" in chunk and _BACKSLASH_EOL.search(chunk):
            raise _Decline("a definition ending in a backslash")
        if stop >= 0 and (_CODE_LINE.match(data, stop + 1)
                          or not _AFTER_DEFINITION.match(data, stop + 1)):
            raise _Decline("a definition the next line could end apart")
        m = markdown._DEF_DEST.search(chunk)
        raw = dest
        if m:
            raw = m.group(1)
            if raw.startswith("<") and raw.endswith(">"):
                raw = raw[1:-1]
        href = _definition_href(src)
        if href != dest:
            raise _Decline("a definition the parsers read apart")
        return Link(self.line(start), raw, href, "definition")

    def unreported(self, spans: List[Tuple[int, int, str]],
                   covered: List[Tuple[int, int]]) -> None:
        """Decline where a ``]:`` lies in no event's range and no reported
        definition: a definition pulldown-cmark read and did not report (a
        label defined twice), which the reference lists."""
        ranges = sorted([*covered, *((s, e) for s, e, _ in spans)])
        starts = [s for s, _ in ranges]
        reach: List[int] = []  # the furthest end of the ranges so far
        furthest = -1
        for _, e in ranges:
            furthest = max(furthest, e)
            reach.append(furthest)
        data = self.data
        pos = data.find(b"]:")
        while pos >= 0:
            i = bisect.bisect_right(starts, pos) - 1
            if i < 0 or reach[i] <= pos:
                raise _Decline("a definition pulldown-cmark does not report")
            pos = data.find(b"]:", pos + 2)


_LABEL = re.compile(r"[ \t]*\[(?:\\.|[^\\\]])*\]:", re.S)


def _definition_href(src: str) -> str:
    """A definition's destination as the reference's helper parses it."""
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
        raise _Decline("a definition the reference would not parse")
    return str(res.str)
