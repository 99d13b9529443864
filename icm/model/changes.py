"""What a pull request touched, for ``--changed-since REF`` (issue 27).

A check given REF reports only findings about the paths that differ
between REF and the work tree (``Context.changed``: one ``git diff``).
The links check also checks the files that link into a changed path: a
deleted or renamed target breaks links in files the change never opened.
The parsed corpus (the link cache, on a warm run) already holds every
file's outgoing links, so finding those files resolves strings and reads
no file."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Set, Tuple

from icm.finding import Finding
from icm.model.links import near, targets


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


def linking_into(parsed: Dict[str, Tuple[Any, ...]], changed: FrozenSet[str]
                 ) -> Set[str]:
    """The files of ``parsed`` (path: links first) with a link to a changed
    path or to a folder above one (a link to ``docs`` when ``docs/a.md``
    went), compared casefolded: a link in another letter case is judged by
    what the change did to the file it nearly names. The link index
    (``links.extract_linking``) answers by the same two functions."""
    wanted = near(changed)
    return {source for source, parts in parsed.items()
            if not wanted.isdisjoint(targets(source, parts[0]))}
