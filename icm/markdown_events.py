"""An event-stream path for ``extract.extract``: pulldown-cmark (lychee's
own parser) through the ``pyromark`` wheel, the only module that imports it.

Python sees only events with byte ranges, never a tree, and reads each value
the link check needs from the source bytes a range points at, with the
reference's own helpers (``inline_destination``, ``link_destination``,
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

from markdown_it.common import html_re

from icm import markdown
from icm.markdown import Extract, Heading, Link

# The reference drops blocks nested MAX_NESTING (100) levels deep and says
# where (``too-deep``): a file that could nest that deep is its to answer.
# A line opening a block at level L has a prefix of container markers and
# indentation of at least L/4 characters (a tab is four columns, two list
# levels of two each), so a prefix weighing MAX_WEIGHT is declined.
MAX_WEIGHT = 90
_LONG_PREFIX = re.compile(r"\n[ \t>*+\-0-9.)]{%d,}" % (MAX_WEIGHT // 4))
# the part of such a prefix that opens containers: indentation, quote
# markers and list markers with their space (``----`` is no marker)
_CONTAINER_PREFIX = re.compile(r"(?:[ \t>]|(?:[*+\-]|\d{1,9}[.)])[ \t])*")

_LONE_CR = re.compile(r"\r(?!\n)")
_BACKSLASH_SPACE = re.compile(r"\\[ \t]")
# A backslash before a line break or another ASCII control character: in a
# destination the reference steps over the pair, pulldown-cmark makes no
# link. (Most are hard line breaks, far from any destination.)
_BACKSLASH_CONTROL = re.compile(r"\\[\x00-\x08\x0a-\x1f]")
_BLANKS = re.compile(r"[ \t]+")
# A quote's line, then one indented as code that opens with ">": the
# reference goes on with the quote, pulldown-cmark reads code.
_INDENTED_QUOTE = re.compile(r"\n {0,3}>[^\n]*\n(?: {4}| {0,3}\t)[ \t]*>")
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
    if not hasattr(getattr(module, "Markdown", None), "reference_definitions"):
        return None  # pragma: no cover - before 0.10, another API
    options = module.Options.ENABLE_TABLES | module.Options.ENABLE_STRIKETHROUGH
    return module.Markdown(options=options)


_PM = _make()


def available() -> bool:
    """Whether pyromark is installed."""
    return _PM is not None


class _Decline(Exception):
    """This file goes to the reference parser (the reason is the message)."""


def extract(text: str, headings: bool = True) -> Optional[Extract]:
    """``markdown.extract(text)`` through pulldown-cmark, or None where the
    answer could differ from the reference's; ``headings=False``: without
    the heading records (anchors are kept)."""
    return explain(text, headings)[0]


_null = -1  # a descriptor of /dev/null, opened once


def explain(text: str, headings: bool = True) -> Tuple[Optional[Extract], str]:
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
            return _Walk(text, headings).run(), ""
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
# (possessive: the classes cannot give back what the next item needs, so the
# answer is the same and a list item's line is not tried twice)
_DELIMITER_ROW = re.compile(r"\n([ \t>]*+)([|:\-][|:\- \t]*+)\r?(?=\n|\Z)")
# A line in a table's body that could open a block, or is indented as code:
# the table ends there in one parser and not in the other.
_TABLE_BREAKER = re.compile(
    r"[ \t]{0,3}(?:\d{1,9}[.)]|[-+*_](?:[ \t]|\r?$)|[>#`~<=])|(?: {4}|[ \t]*\t)")
# A table head opening like another block (a fence, HTML, a definition, a
# heading): a table to the reference, which tries tables first.
_HEAD_OPENERS = ("`", "~", "<", "[", "#")
# A table head on a list marker's line: in the item or over it, by parser.
_LIST_LEAD = re.compile(r"[ \t>]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|\r?$)")


def _screen(text: str) -> str:
    """Why the text must go to the reference, read from the text alone; ""
    if nothing stands in the way. Every test here is linear."""
    if "\0" in text or ("\r" in text and _LONE_CR.search(text)):
        return "NUL or lone CR"
    # (one regex pass: two substring tests were 80 ms of PowerShell-Docs)
    if _BACKSLASH_SPACE.search(text) and _escaped_space(text):
        return "a backslash before whitespace in a destination"
    if "\\" in text and _escaped_control(text):
        return "a backslash before a control character in a destination"
    if len(text) > MAX_WEIGHT // 4 and _deep(text):
        return "could nest too deep"
    if ">" in text and _INDENTED_QUOTE.search("\n" + text):
        return "a quote marker indented as code under a quote"
    if "\t" in text and _marker_tab(text):
        return "a tab after a list or quote marker"
    if ("\x0b" in text or "\x0c" in text) and "](" in text:
        # whitespace between a link's parentheses to pulldown-cmark, no
        # link to the reference (CommonMark allows spaces and tabs there)
        return "a form feed or vertical tab beside a link"
    if not text.isascii() or "\x0b" in text or "\x0c" in text:
        if _ODD_SPACE.search(text) and (_ODD_BLANK_LINE.search("\n" + text)
                                        or _ODD_HTML_LINE.search("\n" + text)):
            return "a line of Unicode whitespace, or HTML with it"
    if "|" in text and _ONE_COLUMN_TABLE.search(text):
        return "a one-column table or a setext heading"
    if ("|" in text or ":-" in text or "-:" in text) and _odd_delimiter_row(text):
        return "a delimiter row the parsers could read apart"
    if "\t" in text and ("```" in text or "~~~" in text) and _FENCE_TAB.search(text):
        return "a fence line ending in a tab"
    if "\t" in text and ">" in text and _TAB_QUOTE.search(text):
        return "a quote's lines led by a tab"
    if "\n " in text and ">" in text and _QUOTE_DEEPER.search("\n" + text):
        return "a quote marker more indented than the one above"
    return ""


# A quote's line, then one whose marker stands further in: a quote's next
# line to the reference, code or text to pulldown-cmark where the first
# stands in a list (fuzzing; ``_INDENTED_QUOTE`` holds the top level).
_QUOTE_DEEPER = re.compile(r"\n( *+)>[^\n]*+\n\1 [ \t]*+>")  # possessive: as above


# Two lines of a quote, either led by a tab before its marker: the parsers
# count the columns apart (code to one, a paragraph to the other; fuzzing).
_TAB_QUOTE = re.compile(
    r"(?m)^(?:[ ]*+\t[ \t]*+>[^\n]*+\n[ \t]*+>|[ \t]*+>[^\n]*+\n[ ]*+\t[ \t]*+>)")


# A fence's line ending in whitespace with a tab: a closing fence to the
# reference (CommonMark), code to pulldown-cmark (found by fuzzing).
# (possessive: "[ \t]*\t[ \t]*" backtracked, 5 s on 40 KB of whitespace)
_FENCE_TAB = re.compile(r"(?m)^[ \t>*+\-0-9.)]*+(?:`{3,}+|~{3,}+)[ ]*+\t[ \t]*+\r?$")


def _marker_tab(text: str) -> bool:
    """A tab in a line's lead after a quote marker, or after a list marker
    making five columns or more (the item's text then opens as code):
    the parsers count those columns apart. Tabs that only indent agree."""
    for m in _PREFIX_TAB.finditer(text):
        lead = m.group()
        if ">" in lead:
            return True
        for marker in _MARKER_SPACE.finditer(lead):
            space = marker.group(1)
            if "\t" in space and len(lead[:marker.end()].expandtabs(4)) - len(
                    lead[:marker.start(1)].expandtabs(4)) >= 5:
                return True
    return False


def _escaped_space(text: str) -> bool:
    """A backslash before a space or tab on a line with link syntax (or the
    line after one): the reference's destination takes both, pulldown-
    cmark's ends at the whitespace. Each line is looked at once."""
    seen = -1
    for m in _BACKSLASH_SPACE.finditer(text):
        begin = text.rfind("\n", 0, m.start()) + 1
        if begin == seen:
            continue
        seen = begin
        above = text.rfind("\n", 0, begin - 1) + 1 if begin else 0
        stop = text.find("\n", m.end())
        lines = text[above:stop if stop >= 0 else len(text)]
        if "](" in lines or "]:" in lines:
            return True
    return False


def _escaped_control(text: str) -> bool:
    """A backslash before a control character (a line break too) where a
    destination could hold it: in the word that follows ``](`` or ``]:``
    (on its line or the next) or an opening ``<``, still open. Each match
    looks back over its own line and the one before."""
    for m in _BACKSLASH_CONTROL.finditer(text):
        begin = text.rfind("\n", 0, m.start()) + 1
        words = _BLANKS.split(text[begin:m.start()].lstrip(" \t>"))
        if _open_destination(words[-1]):
            return True
        if len(words) > 1:
            before = words[-2]
        else:  # the first word of its line: a destination after a break
            end = max(begin - 1, 0)
            before = text[text.rfind("\n", 0, end) + 1:end].rstrip(" \t\r")
        if before.endswith(("](", "]:")):
            return True
    return False


def _open_destination(word: str) -> bool:
    """Whether a destination opened in ``word`` (no whitespace in it) could
    still be going on at its end."""
    if "]:" in word:
        return True
    if "<" in word and ">" not in word.rpartition("<")[2]:
        return True
    if "](" in word:
        tail = _ESCAPED.sub("", word.rpartition("](")[2])
        return tail.count(")") <= tail.count("(")
    return False


_ESCAPED = re.compile(r"\\.")


def _deep(text: str) -> bool:
    text = "\n" + text
    for m in _LONG_PREFIX.finditer(text):
        prefix = _CONTAINER_PREFIX.match(text, m.start() + 1).group()  # type: ignore[union-attr]
        if len(prefix) + 3 * prefix.count("\t") >= MAX_WEIGHT:  # a marker and
            # its space weigh two: two levels (list, item) in two columns
            return True
    return False


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
        begin = text.rfind("\n", 0, end)
        head = text[begin + 1:end]
        above = text[text.rfind("\n", 0, max(begin, 0)) + 1:max(begin, 0)]
        if above.strip(" \t\r>"):
            return True  # a paragraph's line as the head: its inline text
            # may run into the head in one parser
        if "|" not in head or head.lstrip(" \t>").startswith(_HEAD_OPENERS) \
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
_INDENTED_OPENER = re.compile(  # (the lookahead fails fast on most lines)
    rb"\n(?=[ \t>]*?(?: {4}|\t))([ \t>]*?(?: {4}|\t)[ \t]*)"
    rb"(?:(?:[*+-]|\d{1,9}[.)]|#{1,6})(?=[ \t\r\n])|\*\*\*|---|___|```|~~~|[<>|])")
_ITEM_MARKER = re.compile(rb"( *)(?:[*+-]|\d{1,9}[.)])( *)(\r?\n|\Z)?")
# Such a line opening a list item with text (no rule, no pipe): the
# reference's list rule reads it as a lazy line too where it is four
# columns or more past the enclosing item's marker (``list_block``'s
# "paragraph continuation" case, CommonMark's rule).
_LAZY_ITEM = re.compile(rb"(?:[*+-]|\d{1,9}[.)])[ \t]+[^ \t\r\n][^|\n]*(?:\n|\Z)")
_RULE = re.compile(rb"([*_-])(?:[ \t]*\1){2,}[ \t]*\r?(?:\n|\Z)")
# A tab after a list marker (the columns it makes decide the item's text).
_PREFIX_TAB = re.compile(r"(?m)^[ \t>*+\-0-9.)]*\t[ \t]*")
_MARKER_SPACE = re.compile(r"(?:[*+-]|\d{1,9}[.)])([ \t]+)")
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
_LEAD = re.compile(rb"[ \t>]*")
_BLANK = re.compile(rb"[ \t]*(?:\r?\n|\Z)")
# A line that is not blank and opens with no quote marker.
_LAZY_AFTER = re.compile(rb"(?! {0,3}>)[ \t]*[^ \t\r\n]")
_LAST_MARKER = re.compile(rb"(?:[*+-]|\d{1,9}[.)])(?=[ \t]*\Z)")

# The line after a definition, unless it is blank, another definition,
# plain text or a block both parsers let interrupt a paragraph (a heading,
# a quote, a list item with text, a fence, an HTML comment or block tag):
# the reference parses it
# as a new block (a setext underline, HTML of kind 7, an empty list item),
# pulldown-cmark as the rest of a paragraph.
_AFTER_DEFINITION = re.compile(
    rb"(?:[A-Za-z\[#]|(?:[*+-]|1[.)])[ \t]+[^ \t\r\n]|```|~~~|<!--"
    rb"|\r?\n|\Z|</?(?i:"
    + "|".join(n for n in markdown.HTML_BLOCK_NAMES if n != "search").encode()
    + rb")(?:[ \t>/]|\r?\n|\Z))")
# A line with nothing but container markers and whitespace, one of it not
# ASCII: blank to pulldown-cmark, text to the reference (``strip``).
_ODD_BLANK_LINE = re.compile(
    r"\n[ \t>*+\-0-9.)]*[^\S \t\n\r][^\S\n\r]*(?=\r?\n|\Z)")
# A line opening with HTML and holding such whitespace: where an HTML block
# of kind 7 may open (a tag and whitespace alone), the parsers part.
_ODD_HTML_LINE = re.compile(r"\n[ \t>*+\-0-9.)]*<[^\n]*?[^\S \t\n\r]")

# Text that could be a definition to the reference: a label, a destination
# (on the label's line or the next), then a title's opening or the line's end.
_END = rb"[ \t]*(?=\r?\n|\Z)"
_DEFINITION_OPEN = re.compile(
    rb"\[(?:\\.|[^\\\[\]])*\]:[ \t]*(?:\r?\n[ \t>]*)?"
    rb"(?:<[^>\n]*>|[^ \t\r\n]+)(?=[ \t\r\n]|\Z)[ \t]*"
    # then the line's end, a title closed on the line, or one left open
    rb"(?:" + _END + rb"|\"[^\"\n]*\"" + _END + rb"|'[^'\n]*'" + _END
    + rb"|\([^()\n]*\)" + _END + rb"|\"[^\"\n]*" + _END + rb"|'[^'\n]*" + _END
    + rb"|\([^)\n]*" + _END + rb")")
_TILDES = re.compile(rb"~{2,}")
# An ATX heading of plain text: no link, code, HTML, escape, entity or
# emphasis syntax.
_PLAIN_ATX = re.compile(rb" {0,3}#{1,6}[ \t][^\[\]<>`\\&*_!\n]*(?:\r?\n|\Z)")
_SPACE_BREAK = re.compile(rb"[ \t]\r?\n")
# Two tildes and no third.
_STRIKE = re.compile(rb"~~(?!~)")
_CONTAINER_STARTS = frozenset(("BlockQuote", "List", "Item"))
# Where a line's text (after container markers) opens with "[".
_BRACKET_LINE = re.compile(rb"\n[ \t>*+\-0-9.)]*\[")


class _Walk:
    def __init__(self, text: str, headings: bool = True) -> None:
        self.text = text
        # the link check reads anchors only: 68,000 heading records were 5 %
        # of PowerShell-Docs' walk
        self.headings = headings
        self.data = text.encode("utf-8")
        self._at = 0  # byte offset ``_line`` counted to
        self._line = 1
        self.links: List[Link] = []
        self.at: List[int] = []  # the byte offset of each link
        self.quotes: List[int] = []  # where the open block quotes end
        self.quote_spans: List[Tuple[int, int]] = []  # every block quote

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

    def quoted(self, offset: int) -> bool:
        """Whether ``offset`` lies in a block quote (offsets in order)."""
        quotes = self.quotes
        while quotes and quotes[-1] <= offset:
            quotes.pop()
        return bool(quotes)

    def run(self) -> Extract:
        """One pass over the events. Most events are text, breaks and the
        ends of spans nobody reads, so each costs a test or two; what only
        some files need is recorded for them alone and looked at after."""
        text, data = self.text, self.data
        links = self.links
        anchors: List[str] = []
        heads: List[Heading] = []
        heads_at: List[int] = []  # where each heading starts
        slugger = markdown.Slugger()
        defs: Dict[str, Any] = (_PM.reference_definitions(text)
                                if "]:" in text else {})
        lazy = _Lazy(data)
        # ranges are recorded only where some line indented as code opens
        # like a block: 2,000 of PowerShell-Docs' 2,500 indented files have none
        lz = lazy.any
        blocks: List[Tuple[int, int]] = []  # code and HTML blocks
        head: Optional[List[str]] = None  # heading text, while in one
        sink: Optional[List[str]] = None  # where text goes: heading, HTML
        held: List[str] = []  # anchors of raw HTML inside a heading
        head_start = head_level = 0
        html_start = 0
        image = 0  # depth of images: their alt text is no part of the answer
        autolink = False  # in an autolink in a heading (its text normalised)
        tab = False  # the heading holds a tab
        runs = strikes = 0  # runs of two or more tildes in it; its strikethroughs
        for event, span in _PM.events_with_range(text, merge_text=True):
            if type(event) is str:  # SoftBreak, HardBreak, Rule
                if event != "Rule":
                    if sink is head and sink is not None:
                        sink.append(" ")
                    if lz:
                        lazy.breaks.append(span["end"])
                continue
            if "Text" in event:
                if sink is not None:
                    value = event["Text"]
                    sink.append(markdown._MD.normalizeLinkText(value) if autolink
                                else value)
                continue
            if "End" in event:
                if sink is None and not image:
                    continue
                end = event["End"]
                if end == "Image":
                    image -= 1
                    if not image and head is not None:
                        sink = head
                elif end == "Link":
                    autolink = False
                elif end == "HtmlBlock":
                    assert sink is not None
                    self.html("".join(sink), html_start, anchors)
                    sink = None
                    if self.quotes and self.quoted(span["start"]) and \
                            _LAZY_AFTER.match(data, span["end"]):
                        # the reference runs an HTML block in a quote on
                        # over a line without the quote's marker
                        raise _Decline("HTML in a quote, then a lazy line")
                elif type(end) is dict and "Heading" in end:
                    assert head is not None
                    value = "".join(head)
                    stop = span["end"]
                    source = b""  # sliced only where it is read
                    if data.find(b"\n", head_start, stop - 1) >= 0:
                        source = data[head_start:stop]
                        # a setext heading's lines before its underline
                        last = source.rstrip(b"\r\n").rfind(b"\n")
                        body = source[:last].rstrip(b"\r") if last > 0 else b""
                        if body and (_SPACE_BREAK.search(body) or b"\r" in body):
                            # a setext heading's line ending in whitespace (or
                            # CR): the parsers keep it apart before the break
                            raise _Decline("a heading line ending in whitespace")
                    if tab and not source:
                        source = data[head_start:stop]
                    if tab and value.endswith(("\t", " ")) and \
                            _PLAIN_ATX.match(source):
                        # pulldown-cmark keeps the whitespace that ends an ATX
                        # heading's line when a tab is in it; the reference
                        # strips the line (plain text only: that whitespace
                        # also changes how pulldown-cmark reads brackets)
                        line = source.rstrip(b"\r\n")
                        tail = line[len(line.rstrip(b" \t")):].decode("ascii")
                        if line.rstrip(b" \t").endswith(b"#"):
                            raise _Decline("a closing sequence before a tab")
                        if tail and value.endswith(tail):
                            value = value[:-len(tail)]
                    if value and not value.isascii() and (
                            _ODD_SPACE.match(value) or _ODD_SPACE.match(value[-1])):
                        # the reference strips it at the ends, pulldown-cmark
                        # does not (inside, both keep it)
                        raise _Decline("Unicode whitespace at a heading's end")
                    if runs != 2 * strikes or tab and (
                            value.rstrip(" \t") != value or b"\t#" in source):
                        raise _Decline("tildes or a tab the parsers read apart "
                                       "in a heading")
                    anchors.extend(slugger.anchors(value))
                    anchors.extend(held)
                    held.clear()
                    heads_at.append(head_start)
                    if self.headings:
                        heads.append(Heading(head_level, value.strip(),
                                             self.line(head_start)))
                    head = sink = None
                continue
            tag = event.get("Start")
            if tag is None:
                if "Code" in event:
                    if sink is head and sink is not None:
                        sink.append(event["Code"])
                    if lz:
                        lazy.spans.append(span)
                elif "InlineHtml" in event:
                    if _comment_apart(event["InlineHtml"]):
                        raise _Decline("a comment the parsers read apart")
                    if not image:
                        self.html(event["InlineHtml"], span["start"],
                                  held if head is not None else anchors)
                    if lz:
                        lazy.spans.append(span)
                elif "Html" in event and sink is not None:
                    sink.append(event["Html"])
                continue
            if type(tag) is str:
                if tag == "Item":
                    if lz:
                        lazy.items.append((span["start"], span["end"]))
                elif tag == "HtmlBlock":
                    sink, html_start = [], span["start"]
                    blocks.append((span["start"], span["end"]))
                elif tag == "Strikethrough" and head is not None:
                    # markdown-it pairs runs of two tildes, pulldown-cmark
                    # runs of one or two
                    end = span["end"]
                    if not (_STRIKE.match(data, span["start"])
                            and data.endswith(b"~~", 0, end)
                            and not data.endswith(b"~", 0, end - 2)):
                        raise _Decline("strikethrough the parsers read apart")
                    strikes += 1
                continue
            if "Link" in tag:
                if image:
                    # a link in an image's text: no link may hold it
                    # (CommonMark), which the reference does not see
                    raise _Decline("a link inside an image")
                if self.link(tag["Link"], span, False) and head is not None:
                    autolink = True
                if lz:
                    lazy.spans.append(span)
            elif "Image" in tag:
                if not image:
                    self.link(tag["Image"], span, True)
                image += 1
                sink = None
                if lz:
                    lazy.spans.append(span)
            elif "Heading" in tag:
                start = span["start"]
                tab = data.find(b"\t", start, span["end"]) >= 0
                runs = (len(_TILDES.findall(data, start, span["end"]))
                        if data.find(b"~~", start, span["end"]) >= 0 else 0)
                strikes = 0
                head = sink = []
                head_start = start
                head_level = int(tag["Heading"]["level"][1])
                if lz:
                    lazy.spans.append(span)  # a setext heading's text
            elif "BlockQuote" in tag:
                self.quoted(span["start"])
                self.quotes.append(span["end"])
                self.quote_spans.append((span["start"], span["end"]))
                if lz:
                    lazy.quotes.append((span["start"], span["end"]))
            elif "CodeBlock" in tag:
                blocks.append((span["start"], span["end"]))
        parted = lazy.check() if lz else []
        if b"]:" in data:
            repeats = _definition_like(text, data, defs, blocks)
            if defs:
                if parted:
                    raise _Decline(_LAZY_PART)
                self.definitions(defs, repeats)
        if parted:
            self.by_reference(parted, blocks, heads_at)
        return Extract(tuple(links), tuple(anchors), tuple(heads), 0)

    def by_reference(self, parted: List[int], blocks: List[Tuple[int, int]],
                     heads_at: List[int]) -> None:
        """Read each top-level block holding a line of ``parted`` with the
        reference, alone, and put its links in place of the walk's.

        A block starts at a line of column 0 after a blank line (or at the
        text's start) outside any code or HTML block, and ends where the
        next begins: there both parsers have closed every paragraph, list
        and quote, so each block reads alone as in the whole. What could
        make it read otherwise is declined: a definition anywhere (a use
        in the block would need it; the caller declines those), a fence or
        an HTML block of the kinds that run over blank lines opening in the
        block, and a heading or an ``id``/``name`` (anchors and slugs are
        the walk's)."""
        data = self.data
        cuts = [0, *(m.end() for m in _BLOCK_START.finditer(data)), len(data)]
        spans = sorted(blocks)
        open_at: List[int] = []  # the cuts no code or HTML block spans
        j, reach = 0, -1
        for cut in cuts:
            while j < len(spans) and spans[j][0] < cut:
                reach = max(reach, spans[j][1])
                j += 1
            if reach <= cut:
                open_at.append(cut)
        chunks: List[Tuple[int, int]] = []
        for line in parted:
            if chunks and line < chunks[-1][1]:
                continue
            i = bisect.bisect_right(open_at, line) - 1
            chunks.append((open_at[i], open_at[i + 1]))
        links, at = self.links, self.at
        kept: List[Link] = []
        kept_at: List[int] = []
        k = 0
        for start, end in chunks:
            chunk = data[start:end]
            if _CHUNK_RISK.search(chunk):
                raise _Decline(_LAZY_PART)
            first = self.line(start)
            # blocks start and end at lines' starts: a heading on one of
            # its lines starts in its bytes
            i = bisect.bisect_left(heads_at, start)
            if i < len(heads_at) and heads_at[i] < end:
                raise _Decline(_LAZY_PART)
            got = markdown.extract_reference(chunk.decode("utf-8"))
            if got.anchors or got.headings or got.too_deep:
                raise _Decline(_LAZY_PART)
            while k < len(links) and at[k] < start:
                kept.append(links[k])
                kept_at.append(at[k])
                k += 1
            while k < len(links) and at[k] < end:
                k += 1  # the walk's reading of the block: not the reference's
            for link in got.links:
                kept.append(Link(link.line + first - 1, link.raw, link.href,
                                 link.kind))
                kept_at.append(start)
        kept.extend(links[k:])
        kept_at.extend(at[k:])
        links[:], at[:] = kept, kept_at

    def link(self, tag: Dict[str, Any], span: Dict[str, int], image: bool) -> bool:
        """Record an inline link or an autolink; True for an autolink."""
        kind = tag["link_type"]
        start, end = span["start"], span["end"]
        if kind == "Inline":
            src = self.source(start, end)
            if "\n" in src and self.quotes and self.quoted(start):
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
            self.links.append(Link(self.line(start), raw or href, href,
                                   "image" if image else "link"))
            self.at.append(start)
            return False
        if kind in ("Autolink", "Email"):
            inner = self.source(start + 1, end - 1)
            href = inner if kind == "Autolink" else "mailto:" + inner
            if not markdown._MD.validateLink(href):
                raise _Decline("an autolink the reference does not make")
            self.links.append(Link(self.line(start), href, href, "autolink"))
            self.at.append(start)
            return True
        return False  # a reference use: its definition is the one checked

    def html(self, content: str, start: int, anchors: List[str]) -> None:
        found = markdown._scan_html(content)
        if not found:
            return
        base = self.line(start)
        for offset, what, value in found:
            if what == "link":
                self.links.append(Link(base + offset, value, value, "html"))
                self.at.append(start)
            else:
                anchors.append(value)

    def definitions(self, defs: Dict[str, Any],
                    repeats: List[Tuple[int, int, str]]) -> None:
        """Put each definition among the links in document order."""
        spans = sorted([*((d["span"]["start"], d["span"]["end"], d["dest"])
                          for d in defs.values()), *repeats])
        found = [(start, self.definition(start, end, dest))
                 for start, end, dest in spans]
        links = self.links
        if not links:
            links.extend(link for _, link in found)
            return
        # stable: links of one HTML block share their block's offset
        merged = sorted([*zip(self.at, links), *found], key=lambda pair: pair[0])
        links[:] = [link for _, link in merged]

    def code_after(self, begin: int, start: int, after: int) -> bool:
        """Whether the line at ``after`` could be read apart after the
        definition at ``start`` (on the line from ``begin``): indented as
        code for its container, or less indented than the container's text
        (a lazy line: the rest of the paragraph to pulldown-cmark, outside
        the container to the reference). The container's column is known
        within the definition's own indentation (0-3)."""
        data = self.data
        if _BLANK.match(data, after):
            return False
        lead = _LEAD.match(data, after).group()  # type: ignore[union-attr]
        prefix = data[begin:start]
        if b">" in lead or b">" in prefix:
            return (_CODE_LINE.match(data, after) is not None
                    or lead.count(b">") < prefix.count(b">"))
        if b"\t" in prefix:
            return True
        column = len(prefix)  # the widest the container's text could start
        marker = _LAST_MARKER.search(prefix)
        least = marker.end() + 1 if marker else max(0, column - 3)
        indent = len(lead.decode().expandtabs(4))
        return indent >= least + 4 or indent < column

    def definition(self, start: int, end: int, dest: str) -> Link:
        """A definition, read as the reference reads it."""
        if not markdown._MD.validateLink(dest):
            raise _Decline("a definition the reference does not make")
        src = self.source(start, end)
        if "\n" in src and any(s <= start < e for s, e in self.quote_spans):
            # the reference reads it with the quote markers of its later
            # lines stripped, and may end it apart on a lazy line
            raise _Decline("a definition over lines in a quote")
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
        if stop >= 0 and (self.code_after(begin, start, stop + 1) or not (
                _AFTER_DEFINITION.match(data, _LEAD.match(  # type: ignore[union-attr]
                    data, stop + 1).end()))):
            raise _Decline("a definition the next line could end apart")
        m = markdown._DEF_DEST.search(chunk)
        raw = dest
        if m:
            raw = m.group(1)
            if raw.startswith("<") and raw.endswith(">"):
                raw = raw[1:-1]
        plain = _PLAIN_DEFINITION.match(src)
        if plain is not None and plain.group(plain.lastindex or 1) == dest and (
                "&" not in dest or ";" not in dest):
            href = dest  # no escapes, entities or brackets: as written
        else:
            href = _definition_href(src)
        if href != dest:
            raise _Decline("a definition the parsers read apart")
        return Link(self.line(start), raw, href, "definition")


def _definition_like(text: str, data: bytes, defs: Dict[str, Any],
                     blocks: List[Tuple[int, int]]) -> List[Tuple[int, int, str]]:
    """The definitions pulldown-cmark read and did not report: a label
    defined again is reported once (the first), where the reference lists
    each. Decline where a line opens like a definition the reference could
    make and is no such repeat, outside code and HTML blocks: text to
    pulldown-cmark, maybe a definition to the reference."""
    reported = {d["span"]["start"] for d in defs.values()}
    labels = {" ".join(label.split()).lower() for label in defs}
    blocks.sort()
    starts = [s for s, _ in blocks]
    again: List[int] = []
    for m in _BRACKET_LINE.finditer(b"\n" + data):
        at = m.end() - 2  # in ``data``
        if at in reported:
            continue
        found = _DEFINITION_OPEN.match(data, at)
        if found is None:
            continue
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and blocks[i][1] > at:
            lead = data[data.rfind(b"\n", 0, at) + 1:at]
            if b"\t" not in lead and b">" not in lead:
                continue  # code or HTML to both (a tab or a quote marker
                # before it could put it in a block to one alone)
            raise _Decline("a definition pulldown-cmark does not report")
        label = data[at + 1:data.find(b"]", at)]
        if b"\n" in found.group() or not label.isascii() or \
                " ".join(label.decode("ascii").split()).lower() not in labels:
            raise _Decline("a definition pulldown-cmark does not report")
        again.append(at)
    if not again:
        return []
    # A repeat is a definition where no event covers it (pulldown-cmark
    # took it for one) and text where one does.
    ranges: List[Tuple[int, int]] = []
    for event, span in _PM.events_with_range(text, merge_text=True):
        if type(event) is not str:
            if "End" in event:
                continue
            tag = event.get("Start")
            if tag in _CONTAINER_STARTS if type(tag) is str else (
                    tag is not None and _CONTAINER_STARTS.intersection(tag)):
                continue
        ranges.append((span["start"], span["end"]))
    ranges.sort()
    range_starts = [s for s, _ in ranges]
    reach: List[int] = []
    for _, end in ranges:
        reach.append(max(end, reach[-1]) if reach else end)
    repeats: List[Tuple[int, int, str]] = []
    for at in again:
        i = bisect.bisect_right(range_starts, at) - 1
        if i >= 0 and reach[i] > at:
            continue  # text to both: a definition cannot interrupt a paragraph
        stop = data.find(b"\n", at)
        line = data[at:stop if stop >= 0 else len(data)].decode("utf-8")
        alone = list(_PM.reference_definitions(line).values())
        if len(alone) != 1 or alone[0]["span"]["start"] != 0:
            raise _Decline("a definition pulldown-cmark does not report")
        size = len(line[:alone[0]["span"]["end"]].encode("utf-8"))
        repeats.append((at, at + size, alone[0]["dest"]))
    return repeats


class _Lazy:
    """Lines indented as code (four columns) that open like a block, and
    where pulldown-cmark read one as the next line of a paragraph: a lazy
    line (CommonMark) where the reference may end the paragraph and read
    code. Only where it is less indented than the list item's text, or
    under a quote, can the reference read it apart. Such lines are looked
    for only where pulldown-cmark went on with a paragraph (after a line
    break's range, or inside an inline range over lines): a scan of every
    line was 0.14 s of PowerShell-Docs' 1.9 s parse."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        # where no line is indented, no lazy line can be indented as code
        self.any = (b"\n " in data or b"\n\t" in data) and \
            _INDENTED_OPENER.search(data) is not None
        self.breaks: List[int] = []  # where a line break's range ends
        self.spans: List[Dict[str, int]] = []  # inline ranges (filtered later)
        self.items: List[Tuple[int, int]] = []
        self.quotes: List[Tuple[int, int]] = []

    def lines(self) -> Iterator[Tuple[int, int, bool]]:
        """Each such line in order: its offset, its indent (-1 under a quote
        marker), and whether it opens a list item both parsers read lazily."""
        data = self.data
        found = set(self.breaks)
        for span in self.spans:
            start, end = span["start"], span["end"]
            at = data.find(b"\n", start, end - 1)
            while at >= 0:
                found.add(at + 1)
                at = data.find(b"\n", at + 1, end - 1)
        for line in sorted(found):
            m = _INDENTED_OPENER.match(data, line - 1)
            if m is None:
                continue
            at = line - 1
            if not data[data.rfind(b"\n", 0, at) + 1:at].strip():
                continue  # after a blank line: no paragraph goes on
            lead = m.group(1)
            item = b"\t" not in lead and _LAZY_ITEM.match(data, m.end(1)) \
                is not None and _RULE.match(data, m.end(1)) is None
            yield (line, -1 if b">" in lead else
                   len(lead.decode("ascii").expandtabs(4)), item)

    def check(self) -> List[int]:
        """The lines in a list item the parsers may read apart, in order
        (``_Walk.by_reference`` reads their blocks); one under a quote
        declines the file."""
        items = sorted(self.items)
        item_starts = [s for s, _ in items]
        parted = []
        for line, col, item in self.lines():
            if col < 0 or any(s < line < e for s, e in self.quotes):
                raise _Decline(_LAZY_PART)
            i = bisect.bisect_left(item_starts, line) - 1
            while i >= 0 and items[i][1] <= line:
                i -= 1
            if i >= 0 and col < _content_column(self.data, items[i][0]):
                if item and col - _marker_column(self.data, items[i][0]) >= 4:
                    continue  # a lazy line to both
                parted.append(line)
        return parted


_LAZY_PART = "a lazy line indented as code opens a block"


def _comment_apart(html: str) -> bool:
    """An inline comment pulldown-cmark closes at its first ``-->`` (the
    spec since 0.31) that the reference's older rule refuses (``<!--`` ...
    ``<!---->``: a ``--`` run into the end), so it reads the tags inside."""
    return html.startswith("<!--") and _REFERENCE_COMMENT.fullmatch(html) is None


_REFERENCE_COMMENT = re.compile(html_re.comment)
# Where a top-level block begins: a line of column 0 after a blank line.
_BLOCK_START = re.compile(rb"\n[ \t]*\r?\n(?=[^ \t\r\n])")
# In a block read alone: a fence or an HTML block that runs over blank
# lines (comments, ``<?``, ``<!X``, CDATA, script, pre, style, textarea),
# opening a line, and an ``id`` or ``name`` (an anchor).
_CHUNK_RISK = re.compile(
    rb"(?m)^[ \t>*+\-0-9.)]*(?:```|~~~|<[!?]|<(?i:script|pre|style|textarea))"
    rb"|(?i:\b(?:id|name)[ \t\r\n]*=)")


def _marker_column(data: bytes, start: int) -> int:
    """The column of the marker of the list item whose range starts at
    ``start`` (its indentation is in the range); a large one where its
    line holds anything but spaces before the marker."""
    begin = data.rfind(b"\n", 0, start) + 1
    prefix = data[begin:start]
    m = _ITEM_MARKER.match(data, start)
    if m is None or prefix.strip(b" "):
        return 1 << 30
    return len(prefix) + len(m.group(1))


def _content_column(data: bytes, start: int) -> int:
    """The column where the text of the list item whose marker is at
    ``start`` begins (CommonMark's rule); a large one where its line holds
    a tab or a quote marker before it."""
    begin = data.rfind(b"\n", 0, start) + 1
    prefix = data[begin:start]
    m = _ITEM_MARKER.match(data, start)
    if m is None or prefix.strip(b" ") or data.startswith(b"\t", m.end(2)):
        return 1 << 30
    width = m.end(2) - start
    spaces = len(m.group(2))
    if m.group(3) is not None or spaces > 4:
        width -= spaces - 1
    return len(prefix) + width


_LABEL = re.compile(r"[ \t]*\[(?:\\.|[^\\\]])*\]:", re.S)
_PLAIN_DEFINITION = re.compile(
    r"[ \t]*\[[^\[\]\\]*\]:[ \t]*\n?[ \t]*"
    r"(?:<([^<>\n\\]*)>|([^\s()<\\\x00-\x1f\x7f]+))(?=\s|\Z)")


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
    dest = markdown.link_destination(src, pos)
    if dest is None:
        raise _Decline("a definition the reference would not parse")
    return dest
