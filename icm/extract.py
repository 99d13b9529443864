"""``extract``: the links, anchors and headings of one document, through the
fast parser where it is installed and answers (``icm.markdown_events``:
pulldown-cmark, ``[fast]``), else markdown-it-py (``markdown.extract_reference``,
the reference). The choice lives here, above both parsers, so that neither
imports the other back. ``ICM_PARSER=markdown-it-py`` turns the fast parser
off."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Optional

from icm import markdown
from icm.markdown import Extract

ENV = "ICM_PARSER"
REFERENCE = "markdown-it-py"

_fast: Any = None  # markdown_events.extract, or False once known to be off


def extract(text: str, headings: bool = True) -> Extract:
    """Links (with 1-based lines), anchors and headings of one document:
    through pulldown-cmark where it is installed and gives the same answer
    (``icm.markdown_events``), else ``markdown.extract_reference``.
    ``headings=False``: no heading records (``headings`` is empty)."""
    if _fast is None:
        backend()
    if _fast:
        got: Optional[Extract] = _fast(text, headings)
        if got is not None:
            return got
    found = markdown.extract_reference(text)
    return found if headings else replace(found, headings=())


def backend() -> str:
    """The parser ``extract`` tries first, loaded now (the link check calls
    it before forking its workers, so each need not load it again)."""
    global _fast
    if _fast is None:
        _fast = False
        if os.environ.get(ENV, "") != REFERENCE:
            from icm import markdown_events

            if markdown_events.available():
                _fast = markdown_events.extract
    return "pulldown-cmark" if _fast else REFERENCE

