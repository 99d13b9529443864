"""The fast path of ``markdown.extract``: markdown-it.rs (through the
``markdown-it-pyrs`` wheel), the only module that imports it.

markdown-it-py stays the reference. This module gives the same ``Extract``
or declines (``None``), and ``markdown.extract`` then parses the file with
the reference. It declines on anything it cannot answer exactly: a panic
or any other error, text markdown-it.rs would take quadratic time on, lone
carriage returns and NUL characters (the two parsers count and replace them
differently), nesting deep enough that the reference's own limit could
apply, and a link or definition that spans lines inside a block quote (its
source then holds the quote markers the reference strips). Every value is
read from the source slice that markdown-it.rs maps a node to, with the
reference's own helpers (``parseLinkDestination``, ``_raw_destination``,
``_scan_html``, ``Slugger``), never from markdown-it.rs's normalised
fields. ``bench/diff_backends.py`` and ``tests/test_markdown_rs.py`` check
that both give identical answers.
"""

from __future__ import annotations

import os
import re
from typing import Any, List, Optional, Tuple

from markdown_it.helpers import parseLinkDestination

from icm import markdown
from icm.markdown import Extract, Heading, Link

try:  # an optional dependency: ``pip install 'icm-hygiene[fast]'``
    from markdown_it_pyrs import MarkdownIt as _RsMarkdownIt
except ImportError:  # pragma: no cover - depends on the installation
    _RsMarkdownIt = None

# ``ICM_PARSER=markdown-it-py`` turns the fast path off (the reference alone).
ENV = "ICM_PARSER"
REFERENCE = "markdown-it-py"

# Deeper than this (in markdown-it.rs nodes) the file goes to the reference,
# whose MAX_NESTING cut-off (and its ``too-deep`` finding) must decide.
MAX_DEPTH = 40
# markdown-it.rs takes time quadratic in a run of consecutive lines that
# open with "[" (reference definitions: 1,000 lines 0.03 s, 20,000 12 s).
MAX_BRACKET_RUN = 200
_BRACKET_RUN = re.compile(r"(?:^[ \t>]*\[[^\n]*\n){%d}" % MAX_BRACKET_RUN, re.M)
# markdown-it.rs has no nesting limit, and a tree some 50,000 levels deep
# overflows the C stack (a segmentation fault, in building or freeing it;
# 20,000 levels were safe). Depth is bounded from the text before parsing:
# a block container opens on a line's prefix (a quote marker, a list marker
# or at least one column of indentation per level), an inline one needs an
# emphasis, strikethrough or link delimiter inside one paragraph.
MAX_PREFIX = 1000  # characters (a tab is up to 4 columns: 4,000 levels)
_DEEP_PREFIX = re.compile(r"^[ \t>*+\-0-9.)]{%d}" % MAX_PREFIX, re.M)
MAX_DELIMITERS = 5000  # per paragraph
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\r?\n|$)")
_LONE_CR = re.compile(r"\r(?!\n)")
# A tab in a line's indentation (or after a quote marker): markdown-it.rs
# counts its columns differently inside list items, and drops a link there
# that the reference keeps (kubernetes/community has four such files).
_TAB_INDENT = re.compile(r"^[ >]*\t", re.M)


def _make() -> Any:
    if _RsMarkdownIt is None:
        return None
    return _RsMarkdownIt("commonmark").enable("table").enable("strikethrough")


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
    """``markdown.extract(text)`` through markdown-it.rs, or None where the
    answer could differ from the reference's."""
    return explain(text)[0]


def explain(text: str) -> Tuple[Optional[Extract], str]:
    """``extract`` with the reason it declined ("" when it did not)."""
    if not available():
        return None, "off"
    if "\0" in text or ("\r" in text and _LONE_CR.search(text)):
        return None, "NUL or lone CR"
    if "\t" in text and _TAB_INDENT.search(text):
        return None, "tab in indentation"
    if "[" in text and _BRACKET_RUN.search(text):
        return None, "long run of lines opening with ["
    if _could_nest_deep(text):
        return None, "could nest too deep to parse safely"
    tree = _tree(text)
    if tree is None:
        return None, "markdown-it.rs raised"
    try:
        return _Walk(text).run(tree), ""
    except _Decline as exc:
        return None, str(exc)


def _delimiters(text: str) -> int:
    return text.count("*") + text.count("_") + text.count("~") + text.count("[")


def _could_nest_deep(text: str) -> bool:
    if len(text) > MAX_PREFIX and _DEEP_PREFIX.search(text):
        return True
    if _delimiters(text) <= MAX_DELIMITERS:
        return False
    return any(_delimiters(part) > MAX_DELIMITERS for part in _BLANK_LINE.split(text))


class _Walk:
    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
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

    def source(self, node: Any) -> Tuple[int, str]:
        start, end = node.srcmap
        return start, self.data[start:end].decode("utf-8")

    def run(self, tree: Any) -> Extract:
        # (node, depth, inside a block quote)
        stack: List[Tuple[Any, int, bool]] = [(tree, 0, False)]
        while stack:
            node, depth, quoted = stack.pop()
            if depth > MAX_DEPTH:
                raise _Decline("nested too deep")
            name = node.name
            if name in ("heading", "lheading"):
                self.heading(node)
            elif name in ("link", "image"):
                self.inline_link(node, quoted)
                if name == "image":
                    continue  # alt text is no part of the reference's stream
            elif name == "autolink":
                self.autolink(node)
                continue
            elif name == "html_inline":
                self.html(node, node.meta.get("content", ""))
                continue
            elif name == "html_block":
                self.html(node, node.meta.get("content", ""))
                continue
            elif name == "definition":
                self.definition(node, quoted)
                continue
            quoted = quoted or name == "blockquote"
            stack.extend((child, depth + 1, quoted) for child in reversed(node.children))
        return Extract(tuple(self.links), tuple(self.anchors), tuple(self.headings), 0)

    def heading(self, node: Any) -> None:
        text = _plain_text(node, self.data)
        start = node.srcmap[0] if node.srcmap else 0
        self.anchors.append(self.slugger.slug(text))
        self.headings.append(Heading(int(node.meta["level"]), text.strip(),
                                     self.line(start)))

    def inline_link(self, node: Any, quoted: bool) -> None:
        if not node.srcmap:
            raise _Decline("no source map")
        start, src = self.source(node)
        if not src.endswith(")"):
            return  # a reference use: its definition is the one checked
        if quoted and "\n" in src:
            raise _Decline("link over lines in a quote")
        image = node.name == "image"
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
        start = node.srcmap[0] if node.srcmap else 0
        base = self.line(start)
        for offset, what, value in markdown._scan_html(content):
            if what == "link":
                self.links.append(Link(base + offset, value, value, "html"))
            else:
                self.anchors.append(value)

    def definition(self, node: Any, quoted: bool) -> None:
        if not node.srcmap:
            raise _Decline("no source map")
        start, src = self.source(node)
        if quoted and "\n" in src:
            raise _Decline("definition over lines in a quote")
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
        href = res.str
        raw = href
        m = markdown._DEF_DEST.search(src)
        if m:
            raw = m.group(1)
            if raw.startswith("<") and raw.endswith(">"):
                raw = raw[1:-1]
        self.links.append(Link(self.line(start), raw, href, "definition"))


_LABEL = re.compile(r"[ \t]*\[(?:\\.|[^\\\]])*\]:", re.S)


def _plain_text(heading: Any, data: bytes) -> str:
    """``markdown.inline_text`` of a heading's inline content: text, escapes
    and entities, code spans and autolink text; an image's alt text and raw
    HTML are left out, line breaks are spaces."""
    parts: List[str] = []
    stack = list(reversed(heading.children))
    while stack:
        node = stack.pop()
        name = node.name
        if name in ("text", "text_special"):
            parts.append(node.meta.get("content", ""))
        elif name in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif name == "code_inline":
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
