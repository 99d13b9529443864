"""``extract``: the links, anchors and headings of one document, through the
fast parser where it is installed and answers (``icm.markdown_rs``), else
markdown-it-py (``markdown.extract_reference``, the reference). The choice
lives here, above both parsers, so that neither imports the other back."""

from __future__ import annotations

import os
from typing import Any, Optional

from icm import markdown
from icm.markdown import Extract

_fast: Any = None  # markdown_rs.extract, or False once known to be off


def extract(text: str) -> Extract:
    """Links (with 1-based lines), anchors and headings of one document:
    through markdown-it.rs where it is installed and gives the same answer
    (``icm.markdown_rs``), else ``markdown.extract_reference``."""
    if _fast is None:
        backend()
    if _fast:
        got: Optional[Extract] = _fast(text)
        if got is not None:
            return got
    return markdown.extract_reference(text)


def backend() -> str:
    """The parser ``extract`` tries first, loaded now (the link check calls
    it before forking its workers, so each need not load it again)."""
    global _fast
    if _fast is None:
        if os.environ.get("ICM_PARSER") == "events":  # pulldown-cmark (issue 27)
            from icm import markdown_events
            _fast = markdown_events.extract if markdown_events.available() \
                else False
        else:
            from icm import markdown_rs
            _fast = markdown_rs.extract if markdown_rs.available() else False
    if not _fast:
        return "markdown-it-py"
    return "pulldown-cmark" if os.environ.get("ICM_PARSER") == "events" else \
        "markdown-it.rs"
