"""What a pull request touched, for ``--changed-since REF`` (issue 27).

A check given REF reports only findings about the paths that differ
between REF and the work tree (``Context.changed``: one ``git diff``).
The links check also checks the files that link into a changed path: a
deleted or renamed target breaks links in files the change never opened
(``links.extract_linking`` finds them, through the link index)."""

from __future__ import annotations

from typing import Any, FrozenSet, Iterable, List

from icm.finding import Finding


def about(findings: Iterable[Finding], changed: FrozenSet[str]) -> List[Finding]:
    """The findings a narrowed run keeps: those on a changed path, on the
    whole root (``.``), or naming a changed path in their json fields (a
    copied rule: either note of the pair)."""
    return [f for f in findings
            if f.path == "." or f.path in changed or _names(f.extra, changed)]


def _names(value: Any, changed: FrozenSet[str]) -> bool:
    if isinstance(value, str):
        return value in changed
    if isinstance(value, dict):
        return any(_names(v, changed) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_names(v, changed) for v in value)
    return False
