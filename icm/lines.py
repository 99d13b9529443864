"""The one line-splitting rule: CRLF, a lone CR and LF each end a line, as
markdown-it counts them. A line number the parser gives names the line a
writer edits, a regex over queue and journal text sees CR-only and CRLF
files as it sees LF ones, and a rewrite keeps each line's own ending.

Light on purpose (no markdown-it): the queue check and the writers use it.
So is ``fenced``, the one rule for which lines are fenced code.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Tuple

BREAK = re.compile(r"\r\n|\r|\n")
# The mark of a heading's own ``{#id}`` among a file's anchors (no slug holds
# "{"): here, light, because the link check reads anchors from its cache
# without loading the parsers (``markdown.Slugger.anchors``).
CUSTOM_ID = "{#}"
# CommonMark's fences: up to three spaces, then three or more backticks (no
# backtick in the info string) or tildes; closed by a line of the same
# character, at least as long, followed only by spaces and tabs.
_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*\Z")


def spans(text: str) -> List[Tuple[int, int]]:
    """(start, end without the break) of every line."""
    found, start = [], 0
    for m in BREAK.finditer(text):
        found.append((start, m.start()))
        start = m.end()
    found.append((start, len(text)))
    return found


def split(text: str) -> List[Tuple[str, str]]:
    """(line, its break) for every line; the last break may be ""."""
    found, start = [], 0
    for m in BREAK.finditer(text):
        found.append((text[start:m.start()], m.group()))
        start = m.end()
    found.append((text[start:], ""))
    return found


def join(parts: List[Tuple[str, str]]) -> str:
    return "".join(line + end for line, end in parts)


def ending(text: str) -> str:
    """The file's own line ending (its first one): CRLF, LF or a lone CR."""
    m = BREAK.search(text)
    return m.group() if m else "\n"


def to_lf(text: str) -> str:
    """``text`` with every break an LF, for ``re.M`` patterns (``^``/``$``
    see only LF)."""
    return BREAK.sub("\n", text)


def fenced(rows: Iterable[str]) -> Tuple[List[bool], str]:
    """Whether each line (without its break) is fenced code, its fence lines
    included, and the fence left open after the last line ("" if none).
    As at the top level: a list item's indented fence also fences the lines
    after the item (a claim there is not taken, the safe side). One pass."""
    flags: List[bool] = []
    fence = ""
    for row in rows:
        if fence:
            flags.append(True)
            m = _CLOSE.match(row)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
            continue
        m = _OPEN.match(row)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
        flags.append(bool(fence))
    return flags, fence
