"""The only module that imports markdown_it: one parser, made in one place.

Coordinates are converted here, once: markdown-it line maps are 0-based and
exist only on block tokens, so inline positions are found by counting line
breaks inside the block. Callers see 1-based lines only.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from html import unescape
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from markdown_it import MarkdownIt
from markdown_it.common.html_blocks import block_names
from markdown_it.helpers import parseLinkDestination, parseLinkLabel
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from icm.lines import CUSTOM_ID
from icm.lines import spans as line_spans


@dataclass(frozen=True)
class Heading:
    level: int
    text: str  # plain text as GitHub renders it (code and emphasis reduced)
    line: int  # 1-based


@dataclass(frozen=True)
class Link:
    line: int  # 1-based
    raw: str  # destination as written (angle brackets removed)
    href: str  # destination as markdown-it normalised it (percent-encoded)
    kind: str  # link, image, reference, definition, autolink, html


def _annotate(md: MarkdownIt, rule_name: str, token_type: str,
              meta: Callable[[Any, int], Dict[str, Any]]) -> None:
    """Wrap an inline rule so the first token of ``token_type`` it makes gets
    ``meta(state, start)`` merged into its ``meta`` (``start``: where the rule
    began in the inline source). The one way icm extends markdown-it."""
    for rule in md.inline.ruler.__rules__:
        if rule.name == rule_name:
            original = rule.fn
            break
    else:  # pragma: no cover - markdown-it always has these rules
        return

    def wrapped(state: Any, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        ok = original(state, silent)
        if ok and not silent:
            for tok in state.tokens[count:]:
                if tok.type == token_type:
                    tok.meta = dict(tok.meta or {}, **meta(state, start))
                    break
        return ok

    md.inline.ruler.at(rule_name, wrapped)


def _reference_meta(rule_name: str) -> Callable[[Any, int], Dict[str, Any]]:
    """Tell reference-style uses from inline ones (``ref``) and keep an inline
    destination as written (``raw``).

    A definition is checked once where it is written; its uses share its
    destination and would only repeat the finding."""
    def meta(state: Any, start: int) -> Dict[str, Any]:
        is_ref = not state.src[start:state.pos].endswith(")")
        raw = "" if is_ref else _raw_destination(state, start, rule_name == "image")
        return {"ref": is_ref, "raw": raw}

    return meta


def _label_end(state: StateInline, start: int, image: bool) -> int:
    """Where the label of the link or image at ``start`` ends, found as the
    link and image rules find it (``-1``: none)."""
    if image:
        return parseLinkLabel(state, start + 1, False)
    return parseLinkLabel(state, start, True)


def _raw_destination(state: StateInline, start: int, image: bool) -> str:
    """The destination of an inline link exactly as written in the source."""
    src = state.src
    end = _label_end(state, start, image)
    if end < 0:
        return ""
    pos = end + 2  # past "]("
    while pos < len(src) and src[pos] in " \t\n":
        pos += 1
    if pos < len(src) and src[pos] == "<":
        close = src.find(">", pos + 1)
        return src[pos + 1:close] if close > 0 else ""
    depth, out = 0, []
    while pos < len(src):
        ch = src[pos]
        if ch == "\\" and pos + 1 < len(src):
            out.append(src[pos:pos + 2])
            pos += 2
            continue
        if ch in " \t\n":
            break
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        out.append(ch)
        pos += 1
    return "".join(out)


_PLAIN_LABEL = re.compile(r"[^\[\]`<\\]*\]\(")
_PLAIN_DEST = re.compile(r"[ \t\n]*([^\s()<\\\x00-\x1f\x7f]+)(?=[ \t\n)])")


# The tag names that open an HTML block (CommonMark's list, as the reference
# has it), for a fast path that screens HTML blocks.
HTML_BLOCK_NAMES: Tuple[str, ...] = tuple(block_names)


def link_destination(src: str, pos: int) -> Optional[str]:
    """The destination at ``src[pos:]`` as the reference's helper parses it,
    or None where it does not parse."""
    res = parseLinkDestination(src, pos, len(src))
    return str(res.str) if res.ok else None


def label_end(src: str, image: bool) -> int:
    """Where the label of ``src``, one whole inline link or image, ends."""
    return _label_end(StateInline(src, _MD, {}, []), 0, image)


def inline_destination(src: str, image: bool) -> Optional[Tuple[str, str]]:
    """``(raw, href)`` of ``src``, one whole inline link or image, as the
    reference's rules give them; None when its label does not parse. The
    fast path (``markdown_events``) reads its links' sources with this."""
    # The common case, answered without the rules: a label holding nothing
    # that could hide a "]" (code, HTML, brackets, escapes) ends at the
    # first one, and a destination without escapes, entities ("&" and ";"),
    # parentheses, angle brackets or spaces is itself as written and parsed.
    label = _PLAIN_LABEL.match(src, 2 if image else 1)
    if label is not None:
        dest = _PLAIN_DEST.match(src, label.end())
        if dest is not None and not ("&" in dest.group(1) and ";" in dest.group(1)):
            value = dest.group(1)
            return value, value if _MD.validateLink(value) else ""
    state = StateInline(src, _MD, {}, [])
    end = _label_end(state, 0, image)
    if end < 0:
        return None
    pos = end + 2
    while pos < len(src) and src[pos] in " \t\n":
        pos += 1
    res = parseLinkDestination(src, pos, len(src))
    href = res.str if res.ok and _MD.validateLink(res.str) else ""
    return _raw_destination(state, 0, image), href


class _Quiet:
    """Stands in for the block rules' module loggers: each rule calls
    ``LOGGER.debug`` on every line it tries, a fifth of the block parse time,
    for output nobody reads."""

    @staticmethod
    def debug(*_args: Any, **_kwargs: Any) -> None:
        return None


def _silence_block_loggers() -> None:
    import importlib
    import pkgutil

    import markdown_it.rules_block as rules

    for info in pkgutil.iter_modules(rules.__path__):
        module = importlib.import_module(f"{rules.__name__}.{info.name}")
        if hasattr(module, "LOGGER"):
            setattr(module, "LOGGER", _Quiet())  # noqa: B010 - typed module


def _keep_destination(url: str) -> str:
    """Skip markdown-it's percent-encoding of destinations: icm decodes them
    again at once, and encoding is a tenth of the parse time."""
    return url


# Block quotes, list items and links nest at most this deep; markdown-it
# drops whatever lies deeper, so ``parse`` notes where that happened. The
# commonmark preset's 20 cut off links at ten nested lists (a list item is
# two levels); 100 stays far inside Python's recursion limit (5,000 nested
# quotes or lists parse without a RecursionError).
MAX_NESTING = 100
_TOO_DEEP = "icm_too_deep"  # env key: 0-based line where content was dropped


def _watch_nesting(md: MarkdownIt) -> None:
    """Record in ``env`` the first place markdown-it skips for depth."""
    block_tokenize = md.block.tokenize
    inline_tokenize = md.inline.tokenize

    def block(state: Any, start: int, end: int) -> None:
        if state.level >= MAX_NESTING and _TOO_DEEP not in state.env:
            line = state.skipEmptyLines(start)
            if line < end and state.sCount[line] >= state.blkIndent:
                state.env[_TOO_DEEP] = line
        block_tokenize(state, start, end)

    def inline(state: Any) -> None:
        if state.level >= MAX_NESTING and state.pos < state.posMax \
                and _TOO_DEEP not in state.env:
            state.env[_TOO_DEEP] = -1  # parse() puts the block's line here
        inline_tokenize(state)

    md.block.tokenize = block  # type: ignore[method-assign,assignment]
    md.inline.tokenize = inline  # type: ignore[method-assign]


def _make() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"inline_definitions": True,
                                   "maxNesting": MAX_NESTING})
    md.enable(["table", "strikethrough"])
    # The inline stage runs only where it can matter; see parse().
    md.core.ruler.disable("inline")
    md.normalizeLink = _keep_destination  # type: ignore[method-assign]
    _silence_block_loggers()
    return md


_MD = _make()
_watch_nesting(_MD)
_annotate(_MD, "link", "link_open", _reference_meta("link"))
_annotate(_MD, "image", "image", _reference_meta("image"))
# Where each link began in the inline source: a link's line is counted from
# the source, since a code span, an image's alt text or a destination can
# hold a newline that no token shows.
for _rule, _token in (("link", "link_open"), ("image", "image"),
                      ("autolink", "link_open"), ("html_inline", "html_inline")):
    _annotate(_MD, _rule, _token, lambda _state, start: {"pos": start})

_LINKISH = re.compile(r"[\[<@]")


def parse(text: str, inline: Optional[Callable[[str], bool]] = None,
          env: Optional[Dict[str, Any]] = None) -> List[Token]:
    """Block-parse ``text``; run the inline stage on headings and on blocks that
    ``inline`` accepts (default: those that could hold a link or an anchor).

    The inline stage is most of markdown-it's cost and most paragraphs hold no
    ``[`` or ``<``, so skipping it there changes no answer and saves the time.
    ``too_deep(env)`` afterwards says where nesting cut content off.
    """
    accept = inline or (lambda content: _LINKISH.search(content) is not None)
    env = {} if env is None else env
    tokens = _MD.parse(text, env)
    prev: Optional[Token] = None
    for tok in tokens:
        if tok.type == "inline" and (
            (prev is not None and prev.type == "heading_open") or accept(tok.content)
        ):
            children: List[Token] = []
            _MD.inline.parse(tok.content, _MD, env, children)
            tok.children = children
            if env.get(_TOO_DEEP) == -1:
                env[_TOO_DEEP] = tok.map[0] if tok.map else 0
        prev = tok
    return tokens


def too_deep(env: Dict[str, Any]) -> int:
    """The 1-based line where a parse dropped content nested deeper than
    MAX_NESTING, or 0."""
    line = env.get(_TOO_DEEP)
    return 0 if line is None else int(line) + 1


def prose_lines(text: str) -> List[Tuple[int, str]]:
    """(1-based line, text) for the prose of a document: every text token,
    so code spans, code blocks and HTML are left out."""
    tokens = parse(text, inline=lambda _c: True)
    found: List[Tuple[int, str]] = []
    for tok in tokens:
        if tok.type != "inline" or not tok.children or not tok.map:
            continue
        line = tok.map[0] + 1
        for child in tok.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "text":
                found.append((line, child.content))
    return found


def inline_text(tok: Token) -> str:
    """Plain text of an inline token as GitHub's textContent sees it
    (``text_special``: a backslash escape or an entity, as rendered)."""
    parts = []
    for child in tok.children or []:
        if child.type in ("text", "text_special", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


@dataclass(frozen=True)
class Block:
    """A paragraph (also inside a list item or a quote) or a heading."""

    kind: str  # "paragraph" or "heading"
    line: int  # 1-based
    text: str  # the block's source text, container markers stripped
    level: int = 0  # heading level; 0 for a paragraph
    comment: str = ""  # an HTML comment block directly before the block


def blocks(text: str) -> List[Block]:
    """Paragraphs and headings in document order: code blocks, tables and
    HTML are left out. A paragraph keeps its source text (code spans, link
    syntax) and its line breaks, so a position inside it maps to a line."""
    tokens = parse(text, inline=lambda _c: False)
    found: List[Block] = []
    comment = ""
    for i, tok in enumerate(tokens):
        if tok.type == "html_block":
            comment = tok.content.strip() if _is_comment(tok.content) else ""
            continue
        if tok.type == "inline" and tok.map and i > 0:
            opener = tokens[i - 1].type
            line = tok.map[0] + 1
            if opener == "heading_open":
                level = int(tokens[i - 1].tag[1])
                found.append(Block("heading", line, inline_text(tok).strip(), level))
            elif opener == "paragraph_open":
                found.append(Block("paragraph", line, tok.content, 0, comment))
        if not tok.type.endswith("_open"):
            comment = ""
    return found


class MarkerError(ValueError):
    """A marked block that cannot be told apart: two, or a lone marker."""


def marked_block(tokens: Sequence[Token], start: str, end: str, what: str,
                 path: str) -> Optional[Tuple[int, int]]:
    """0-based lines of a block's ``start`` and ``end`` markers, each an
    HTML-comment block of its own at the top level (never inside code,
    quotes, lists or prose); None without markers. Two blocks or a marker
    without its partner raise ``MarkerError``, never a guess."""
    opens: List[int] = []
    closes: List[int] = []
    for tok in tokens:
        if tok.type != "html_block" or tok.level != 0 or not tok.map:
            continue
        content = tok.content.strip()
        if content == start:
            opens.append(tok.map[0])
        elif content == end:
            closes.append(tok.map[0])
    if len(opens) > 1 or len(closes) > 1:
        where = ", ".join(str(n + 1) for n in sorted(opens + closes))
        raise MarkerError(f"{path}: more than one {what} block (markers on lines "
                          f"{where}); keep one {start} ... {end} block")
    if opens and (not closes or closes[0] < opens[0]):
        raise MarkerError(f"{path}:{opens[0] + 1}: {start} has no {end} after "
                          "it; add the end marker or remove this one")
    if closes and not opens:
        raise MarkerError(f"{path}:{closes[0] + 1}: {end} has no {start} before "
                          "it; add the start marker or remove this one")
    return (opens[0], closes[0]) if opens else None


def headings(tokens: Sequence[Token]) -> List[Heading]:
    """Every heading (nested ones too: GitHub gives them anchors)."""
    found = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            line = (tok.map[0] + 1) if tok.map else 0
            found.append(Heading(int(tok.tag[1]), inline_text(tokens[i + 1]).strip(),
                                 line))
    return found


def _is_comment(html: str) -> bool:
    s = html.strip()
    return s.startswith("<!--") and s.endswith("-->")


@dataclass(frozen=True)
class Code:
    line: int  # 1-based: the fence line, or the line of the code span
    text: str
    info: Optional[str]  # a block's language ("" when none); None: a code span


@dataclass(frozen=True)
class Section:
    """The blocks from one top-level heading to the next (level 0: the text
    before the first heading). Headings inside a blockquote or a list item do
    not start a section."""

    level: int
    title: str
    line: int  # 1-based line of the heading; 0 for the text before it
    visible: str  # the text a reader sees, whitespace collapsed
    code: Tuple[Code, ...]  # code blocks and code spans, in order
    lines: Tuple[Tuple[int, str], ...]  # (line, source) of top-level paragraphs
    # (line, source) of the first paragraph of each top-level list item
    items: Tuple[Tuple[int, str], ...] = ()


_TAG = re.compile(r"<[^<>]*>")


def sections(text: str) -> List[Section]:
    """Split a document at its top-level headings. Visible text is what a
    reader sees: paragraphs, code and HTML that is not only a comment; a
    reference definition (``[//]: # (todo)``) or a comment is not."""
    tokens = parse(text, inline=lambda _c: True)
    found: List[Section] = []
    head: Tuple[int, str, int] = (0, "", 0)
    words: List[str] = []
    code: List[Code] = []
    lines: List[Tuple[int, str]] = []
    items: List[Tuple[int, str]] = []

    def close() -> None:
        seen = " ".join(" ".join(words).split())
        found.append(Section(head[0], head[1], head[2], seen, tuple(code),
                             tuple(lines), tuple(items)))
        words.clear()
        code.clear()
        lines.clear()
        items.clear()

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        first = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "heading_open" and tok.level == 0:
            close()
            head = (int(tok.tag[1]), inline_text(tokens[i + 1]).strip(), first)
            i += 3  # heading_open, inline, heading_close
            continue
        if tok.type == "inline":
            if tok.level == 1 and tokens[i - 1].type == "paragraph_open":
                lines.extend((first + k, part)
                             for k, part in enumerate(tok.content.split("\n")))
            elif tok.level == 3 and tokens[i - 1].type == "paragraph_open" \
                    and tokens[i - 2].type == "list_item_open" \
                    and tokens[i - 2].level == 1:
                items.append((first, tok.content))
            line = first
            for child in tok.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                    words.append(" ")
                elif child.type == "text":
                    words.append(child.content)
                    line += child.content.count("\n")
                elif child.type == "code_inline":
                    words.append(child.content)
                    code.append(Code(line, child.content, None))
        elif tok.type in ("fence", "code_block"):
            words.append(tok.content)
            info = tok.info.split()[0].lower() if tok.info.split() else ""
            code.append(Code(first, tok.content, info))
        elif tok.type == "html_block" and not _is_comment(tok.content):
            words.append(_TAG.sub(" ", tok.content))
        i += 1
    close()
    return found


# -- GitHub anchors ---------------------------------------------------------

_KEEP_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Nd", "Mn", "Mc", "Pc"}


_ASCII_DROP = re.compile(r"[^a-z0-9_ \-]")


def slug(text: str) -> str:
    """One heading's anchor as github-slugger makes it (before deduplication):
    lower-case, drop everything but letters, marks, digits, connector
    punctuation, spaces and hyphens, then spaces to hyphens."""
    if text.isascii():  # the same rule, for ASCII: letters, digits, "_"
        return _ASCII_DROP.sub("", text.lower()).replace(" ", "-")
    out = []
    for ch in text.lower():
        if ch == " " or ch == "-" or unicodedata.category(ch) in _KEEP_CATEGORIES:
            out.append(ch)
    return "".join(out).replace(" ", "-")


class Slugger:
    """Deduplicating slugger: ``a``, ``a``, ``a-1`` give ``a``, ``a-1``,
    ``a-1-1``, numbered against every slug seen so far."""

    def __init__(self) -> None:
        self.seen: Dict[str, int] = {}

    def slug(self, text: str) -> str:
        base = result = slug(text)
        while result in self.seen:
            self.seen[base] += 1
            result = f"{base}-{self.seen[base]}"
        self.seen[result] = 0
        return result

    def anchors(self, text: str) -> Tuple[str, ...]:
        """A heading's anchors: its slug, and the id it names at its end
        (``## Setup {#install}``: Docusaurus's, kramdown's and Pandoc's
        syntax), marked ``CUSTOM_ID``: GitHub shows the braces as text, so
        only a site's page has it (``checks/links``)."""
        own = _CUSTOM_ID.search(text) if "{#" in text else None
        return (self.slug(text), CUSTOM_ID + own.group(1)) if own \
            else (self.slug(text),)


# ``{#id}`` ending a heading (``\w``: letters of any script, digits, "_");
# an anchor holding it starts with CUSTOM_ID, which no slug holds
_CUSTOM_ID = re.compile(r"\{#([\w-]{1,200})\}[ \t]*$")


# -- links and anchors --------------------------------------------------------


_TAG_SPACE = "\t\n\f\r "
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTR_NAME = re.compile(r"[^\t\n\f\r />=]*")
_SPACES = re.compile(r"[\t\n\f\r /]*")
_UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
_RAW_TEXT = {"script", "style", "textarea", "title", "xmp", "iframe", "noembed",
             "noframes"}


def _scan_html(html: str) -> List[Tuple[int, str, str]]:
    """``(line offset, "link"|"anchor", value)`` for ``href``/``src`` of
    ``<a>``/``<img>`` and every ``id`` (and ``<a name>``) in raw HTML.

    One left-to-right pass in the manner of the HTML5 tokenizer: a tag, a
    quoted value or a comment that the end of the text interrupts ends the
    scan (as a browser drops it) instead of being retried from the next
    ``<``. ``html.parser`` retried, which made ``'<a href=' * 37500`` and
    ``'<!--' * N`` quadratic: minutes for a few hundred kilobytes.
    """
    found: List[Tuple[int, str, str]] = []
    end = len(html)
    line, counted = 0, 0
    pos = 0
    while True:
        start = html.find("<", pos)
        if start < 0 or start + 1 >= end:
            return found
        nxt = html[start + 1]
        if html.startswith("<!--", start):
            close = html.find("-->", start + 4)
            if close < 0:
                return found
            pos = close + 3
            continue
        if nxt in "!?":
            close = html.find(">", start + 2)
            if close < 0:
                return found
            pos = close + 1
            continue
        closing = nxt == "/"
        k = start + 2 if closing else start + 1
        if not (k < end and html[k].isascii() and html[k].isalpha()):
            pos = start + 1
            continue
        name_end = _TAG_NAME.match(html, k).end()  # type: ignore[union-attr]
        tag = html[k:name_end].lower()
        attrs: List[Tuple[str, str]] = []
        k = name_end
        while True:
            k = _SPACES.match(html, k).end()  # type: ignore[union-attr]
            if k >= end:
                return found  # end of text inside a tag: the tag is dropped
            if html[k] == ">":
                break
            a_end = _ATTR_NAME.match(html, k + 1).end()  # type: ignore[union-attr]
            attr = html[k:a_end].lower()
            k = a_end
            while k < end and html[k] in _TAG_SPACE:
                k += 1
            if k < end and html[k] == "=":
                k += 1
                while k < end and html[k] in _TAG_SPACE:
                    k += 1
                if k >= end:
                    return found
                if html[k] in "\"'":
                    close = html.find(html[k], k + 1)
                    if close < 0:
                        return found  # an unclosed quote runs to the end
                    attrs.append((attr, html[k + 1:close]))
                    k = close + 1
                else:
                    v_end = _UNQUOTED.match(html, k).end()  # type: ignore[union-attr]
                    attrs.append((attr, html[k:v_end]))
                    k = v_end
        pos = k + 1
        if closing:
            continue
        line += html.count("\n", counted, start)
        counted = start
        for attr, value in attrs:
            value = unescape(value)
            if (attr == "href" and tag == "a") or (attr == "src" and tag == "img"):
                found.append((line, "link", value))
            elif attr == "id" or (attr == "name" and tag == "a"):
                found.append((line, "anchor", value))
        if tag in _RAW_TEXT:  # no tags inside until its end tag
            m = re.compile(rf"</{tag}[\t\n\f\r />]", re.I).search(html, pos)
            if m is None:
                return found
            pos = m.start()


@dataclass(frozen=True)
class Extract:
    links: Tuple[Link, ...]
    anchors: Tuple[str, ...]  # GitHub heading slugs and explicit ids, as written
    headings: Tuple[Heading, ...]
    too_deep: int = 0  # 1-based line where nesting cut content off, or 0


_DEF_DEST = re.compile(r"\]:[ \t]*\n?[ \t]*(<[^>\n]*>|\S+)")


def extract_reference(text: str) -> Extract:
    """``extract`` by markdown-it-py alone: the reference implementation."""
    env: Dict[str, Any] = {}
    tokens = parse(text, env=env)
    spans = line_spans(text)
    links: List[Link] = []
    anchors: List[str] = []
    slugger = Slugger()
    prev: Optional[Token] = None
    for tok in tokens:
        base = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "inline" and tok.children is not None:
            if prev is not None and prev.type == "heading_open":
                anchors.extend(slugger.anchors(inline_text(tok)))
            _inline_links(tok.children, base, links, anchors, tok.content)
        elif tok.type == "html_block":
            for offset, what, value in _scan_html(tok.content):
                if what == "link":
                    links.append(Link(base + offset, value, value, "html"))
                else:
                    anchors.append(value)
        elif tok.type == "definition":
            raw = tok.meta.get("url", "")
            if tok.map:
                chunk = "\n".join(text[a:b] for a, b in spans[tok.map[0]:tok.map[1]])
                m = _DEF_DEST.search(chunk)
                if m:
                    raw = m.group(1)
                    if raw.startswith("<") and raw.endswith(">"):
                        raw = raw[1:-1]
            links.append(Link(base, raw, tok.meta.get("url", ""), "definition"))
        prev = tok
    heads = tuple(headings(tokens))
    return Extract(tuple(links), tuple(anchors), heads, too_deep(env))


def _inline_links(children: Sequence[Token], base: int, links: List[Link],
                  anchors: List[str], source: str) -> None:
    """Links and anchors of one inline run; ``source`` is the text it was
    parsed from, whose first line is ``base``. Lines come from each token's
    source position, counted forward once (linear)."""
    line, seen = base, 0
    for child in children:
        pos = (child.meta or {}).get("pos")
        if isinstance(pos, int) and pos >= seen:
            line += source.count("\n", seen, pos)
            seen = pos
        if child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            meta = child.meta or {}
            if child.markup in ("autolink", "linkify"):
                links.append(Link(line, href, href, "autolink"))
            elif not meta.get("ref"):
                links.append(Link(line, meta.get("raw") or href, href, "link"))
        elif child.type == "image":
            meta = child.meta or {}
            if not meta.get("ref"):
                src = str(child.attrs.get("src", ""))
                links.append(Link(line, meta.get("raw") or src, src, "image"))
        elif child.type == "html_inline":
            for offset, what, value in _scan_html(child.content):
                if what == "link":
                    links.append(Link(line + offset, value, value, "html"))
                else:
                    anchors.append(value)


def inline_tokens(src: str) -> List[Token]:
    """The inline tokens of one paragraph's source (no reference
    definitions: a ``[text][ref]`` stays text), for a reader that cuts or
    re-renders inline markup (the positions view's sentences)."""
    children: List[Token] = []
    _MD.inline.parse(src, _MD, {}, children)
    return children
