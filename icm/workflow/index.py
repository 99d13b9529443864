"""``icm check-links --fix``: keep the handbook's marked index block in step
with the notes that exist.

Only the lines from ``<!-- icm:index -->`` to ``<!-- /icm:index -->`` are
ever changed. The markers count only as HTML-comment blocks of their own,
found by the markdown parser: a sentence or a code example that quotes them
is prose. Two blocks, or a marker without its partner, is refused with one
line rather than guessed at; so is a link wrapped outside a list item, as
entries are moved whole (``entries``). Without a block, one is added under an
``## Index of notes`` heading (the existing one, or a new one at the end).
The handbook is rewritten atomically (temporary file, then rename).
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import quote

from icm import markdown
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.extract import extract
from icm.lines import ending as line_ending
from icm.lines import spans as line_spans
from icm.model import links
from icm.workflow.files import queue_locked, replace_atomic

OPEN = "<!-- icm:index -->"
CLOSE = "<!-- /icm:index -->"
HEADING = "Index of notes"
# Characters that could end or reshape a link label; escaped with "\".
_LABEL_SPECIAL = re.compile(r"([\\\[\]`<>&*_!])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _target(handbook: str, href: str) -> Optional[str]:
    target = links.resolve(handbook, href)
    return target.path if target is not None and not target.problem else None


def entries(handbook: str, body: Sequence[str], at: int
            ) -> List[Tuple[List[str], List[str]]]:
    """The block's entries as the link parser reads them, each with the
    paths it links to: the own lines of a list item (a label wrapped onto
    the next line too) are one entry, a nested item one of its own, any
    other line one each. ``at`` is the 1-based line of ``body[0]``, for
    the refusal: an entry whose links read differently on their own than in
    the block (a link wrapped outside a list) cannot be moved safely."""
    text = "\n".join(body)
    owner = list(range(len(body)))
    for tok in markdown.parse(text, inline=lambda _c: False):
        if tok.type == "list_item_open" and tok.map:  # outer items first
            for n in range(tok.map[0], min(tok.map[1], len(body))):
                owner[n] = tok.map[0]
    runs: List[int] = []  # the entry each line belongs to
    for n in range(len(body)):
        runs.append(runs[-1] if n and owner[n] == owner[n - 1] else n)
    whole: Dict[int, List[str]] = {}
    for lk in extract(text).links:
        whole.setdefault(runs[lk.line - 1], []).append(lk.href)
    grouped: Dict[int, List[str]] = {}  # one pass: a scan per entry was quadratic
    for n, start in enumerate(runs):
        grouped.setdefault(start, []).append(body[n])
    found = []
    for start in sorted(grouped):
        lines = grouped[start]
        while lines and not lines[-1].strip():
            lines.pop()
        hrefs = [lk.href for lk in extract("\n".join(lines)).links]
        if hrefs != whole.get(start, []):
            raise UsageError(f"{handbook}:{at + start}: a link in the index block "
                             "spans lines outside a list item; put it on one "
                             "line or in a list item (nothing changed)")
        if lines:
            found.append((lines, [t for t in (_target(handbook, h) for h in hrefs)
                                  if t]))
    return found


def _exists(ctx: Context, rel: str) -> bool:
    """Whether ``rel`` exists, judged through ``paths`` (never outside)."""
    try:
        return os.path.exists(ctx.real(rel))
    except Unreadable:
        return False
def destination(handbook: str, note: str) -> str:
    """``note`` as a link destination written in ``handbook``: every byte
    but letters, digits and ``/-._~`` percent-encoded, which CommonMark
    keeps as written and ``links.resolve`` decodes back (a space, ``#``,
    ``(``, ``%``, a tab or a newline in a folder name included)."""
    folder = posixpath.dirname(handbook)
    rel = posixpath.relpath(note, folder) if folder else note
    return quote(rel, safe="/", errors="surrogateescape")


def label(note: str) -> str:
    """The link text for ``note``: its folder, on one line, with the
    characters that could end or reshape a label escaped."""
    folder = posixpath.dirname(note).encode("utf-8", "surrogateescape")
    text = _CONTROL.sub(" ", folder.decode("utf-8", "replace"))
    return _LABEL_SPECIAL.sub(r"\\\1", text)


def entry_line(handbook: str, note: str) -> str:
    return f"- [{label(note)}]({destination(handbook, note)})"


def _heading_end(tokens: Sequence[Any]) -> Optional[int]:
    """The line after a top-level ``Index of notes`` heading, if there is one."""
    for i, tok in enumerate(tokens[:-1]):
        if tok.type == "heading_open" and tok.level == 0 and tok.map \
                and tokens[i + 1].content.strip() == HEADING:
            return int(tok.map[1])
    return None


def _tree_order(item: Tuple[str, str]) -> Tuple[str, ...]:
    """Parent folders before their children: ``a``, ``a/b``, ``a-b``."""
    target = item[0]
    return tuple(posixpath.dirname(target).split("/")) if target else ()


def fix(ctx: Context) -> List[str]:
    """Rewrite the index block; return one line per change made. Under the
    queue lock: renumber rewrites the handbook's links to items."""
    with queue_locked(ctx):
        found = _fixed(ctx)
        if found:
            replace_atomic(ctx, ctx.config.handbook, found[1])
        return found[0] if found else []


def _fixed(ctx: Context) -> Optional[Tuple[List[str], bytes]]:
    """The changes to make and the handbook's new bytes, or None."""
    handbook = ctx.config.handbook
    try:
        raw = ctx.read_bytes(handbook)
        text = ctx.read_text(handbook)
    except Unreadable as exc:
        if exc.reason.startswith("no such file"):
            raise UsageError(f"handbook {handbook} does not exist (create it, or "
                             "run 'icm init')") from None
        raise UsageError(f"{handbook}: cannot read: {exc.reason}") from None
    bom = raw.startswith(b"\xef\xbb\xbf")
    newline = line_ending(text)
    notes = set(links.notes_to_index(ctx))  # "off" notes: never added
    tokens = markdown.parse(text, inline=lambda _c: False)
    try:
        found = markdown.marked_block(tokens, OPEN, CLOSE, "index", handbook)
    except markdown.MarkerError as exc:
        raise UsageError(str(exc)) from None
    spans = line_spans(text)
    if found:
        first, last = found
        start, end = spans[first][0], spans[last][1]
        body = [text[s:e] for s, e in spans[first + 1:last]]
        outside = text[:start] + text[end:]
    else:
        body, outside = [], text
    linked_outside = {t for t in (_target(handbook, lk.href)
                                  for lk in extract(outside).links) if t}
    kept: List[Tuple[str, str]] = []
    changes: List[str] = []
    present = set()
    for lines, targets in entries(handbook, body, first + 2 if found else 0):
        target = targets[0] if targets else None
        if target is not None and "/" in target and ctx.is_note(target) \
                and target not in notes and target not in ctx.file_set \
                and not _exists(ctx, target):
            changes.append(f"removed from {handbook} index: {target}")
            continue
        kept.append((target or "", newline.join(lines).rstrip()))
        present.update(targets)
    named = links.named_notes(handbook, text, notes - present - linked_outside)
    for note in sorted(notes - present - linked_outside - named):
        kept.append((note, entry_line(handbook, note)))
        changes.append(f"added to {handbook} index: {note}")
    if not changes:
        return None
    kept.sort(key=_tree_order)
    block = newline.join([OPEN, *(line for _, line in kept), CLOSE])
    if found:
        new_text = text[:start] + block + text[end:]
    else:
        new_text = _insert(text, tokens, spans, block, newline)
    return changes, (b"\xef\xbb\xbf" if bom else b"") + new_text.encode("utf-8")


def _insert(text: str, tokens: Sequence[Any],
            spans: List[Tuple[int, int]], block: str, newline: str) -> str:
    """A new block: under the ``Index of notes`` heading when the handbook
    has one, else under a new such heading at the end."""
    after = _heading_end(tokens)
    if after is None:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        return f"{text}{sep}{newline}## {HEADING}{newline}{newline}{block}{newline}"
    at = spans[after][0] if after < len(spans) else len(text)
    head, rest = text[:at], text[at:]
    if head and not head.endswith(("\n", "\r")):
        head += newline
    gap = newline if rest.strip() and not rest.startswith(("\n", "\r")) else ""
    return f"{head}{newline}{block}{newline}{gap}{rest}"
