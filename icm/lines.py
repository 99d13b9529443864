"""The one line-splitting rule: CRLF, a lone CR and LF each end a line, as
markdown-it counts them. A line number the parser gives names the line a
writer edits, a regex over queue and journal text sees CR-only and CRLF
files as it sees LF ones, and a rewrite keeps each line's own ending.

Light on purpose (no markdown-it): the queue check and the writers use it.
"""

from __future__ import annotations

import re
from typing import List, Tuple

BREAK = re.compile(r"\r\n|\r|\n")


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
