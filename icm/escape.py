"""Repository text made safe to print: the one set of escapes shared by the
renderers (``report``), the commands that print or write text themselves and
the checks that quote content. Standard library only, so a check may import
it (checks never import ``report``)."""

from __future__ import annotations

import re
from typing import Tuple

_SURROGATE = re.compile("[\ud800-\udfff]")

# What can break a line, redraw a terminal or reorder what a reader sees: C0
# but tab, DEL, C1 (a UTF-8 terminal may read U+009B as CSI), the Unicode
# line and paragraph separators, the bidi embeddings, overrides and isolates
# (Trojan Source), and lone surrogates (bytes that were not UTF-8). A tab
# only moves the cursor. One character class: one linear pass.
# (what a display alone acts on, ``_UNSEEN``'s, is one list for both)
_DISPLAYED = "\x80-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f{_DISPLAYED}\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(m: "re.Match[str]") -> str:
    char = m.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# Of those, what a format that percent-encodes C0 and DEL itself (GitHub's
# workflow commands) still passes to a reader's display: C1, the line and
# paragraph separators and the bidi controls (an annotation reordered).
_UNSEEN = re.compile(f"[{_DISPLAYED}]")


def displayed(text: str) -> str:
    """``text`` with ``_UNSEEN``'s characters escaped as ``inert`` writes
    them (``\\u202e``); C0, DEL and the rest are left to the caller."""
    return _UNSEEN.sub(_escape, text) if _UNSEEN.search(text) else text


def printable(text: str) -> str:
    """``text`` as a stream can encode it: a file-name byte that is not UTF-8
    (held as a lone surrogate) becomes ``\\xNN``, as git and ls print it.
    Without this, ``print`` raises in a UTF-8 locale halfway through the
    output and a JSON document is cut off."""
    return _SURROGATE.sub(_escape, text) if _SURROGATE.search(text) else text


def inert(text: str) -> str:
    """``text`` on one line that no terminal or CI log acts on: every
    character above (a newline in a file name too) shown escaped, as
    ``\\n``, ``\\x1b``, ``\\u202e``; ordinary text is returned unchanged."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def uncommanded(line: str, starts: Tuple[str, ...], code: str) -> str:
    """``line`` with the first character of a leading ``starts`` (after
    whitespace: GitHub's runner reads a command there) written as ``code``
    formats its number: no line icm prints is a CI command."""
    body = line.lstrip()
    if body.startswith(starts):
        cut = len(line) - len(body)
        line = f"{line[:cut]}{code.format(ord(body[0]))}{body[1:]}"
    return line


def text_line(text: str) -> str:
    """A text-format line: ``inert``, and a leading ``::`` or ``##[`` shown
    as ``\\x3a:`` or ``\\x23#[``, so even a line that starts with a file
    name, or an indented line of a script, is never a CI command."""
    return uncommanded(inert(text), ("::", "##["), "\\x{:02x}")


def inert_lines(text: str) -> str:
    """A document icm assembled (a positions view, a handoff record): its
    own line breaks kept, each line a ``text_line`` (a commit message in a
    record began ``::error``)."""
    return "\n".join(map(text_line, text.split("\n")))
