"""``icm brief ITEM...``: what a session picking up queue items reads, as one
markdown document within a token budget. It reads; it never writes.

In order: the handbook, the notes of the folders the items name or link to
(links resolved as check-links resolves them; paths in prose and code
spans), the items themselves (a claimed item's ``## Ruled out`` section
with it), each quoted whole in a fence; then the positions that bear on
the items: the journal entries they re-propose (the re-invention warning,
shown on the entry's line), name or resemble, best first, then the current
decisions of the folders they touch.

The ranking is the project's one similarity (``icm.similarity``, the
re-invention warning's score) of each item (its title, its gist, its whole
text) against each entry (its Rejected alternative with why it lost, its
Decision, the words of its file name), the best statement counting; an
entry the item links to or names goes first; one naming a folder the item
touches gains ``FOLDER_BONUS``, one the warning says the item re-proposes
``WARNED_BONUS`` (bench/eval_brief.py). A line shows the entry, whether it
holds (what holds now, for a superseded one), its Decision and the
alternative it rejected with why.

``--budget N`` (default ``brief_budget``) bounds the whole document in
tokens (bytes / 4, or ``--tokenizer``, counted as bootmap counts): the
files are kept whole, positions are cut from the bottom and the cut is
counted on the last line. Repository text leaves inert (``icm.escape``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from icm import similarity
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.escape import inert, inert_lines
from icm.lines import to_lf
from icm.model import journal, positions
from icm.model.handoff import ruled_out
from icm.model.notes import owner_of
from icm.model.queue import claim_of
from icm.tokens import token_counter
from icm.workflow import positions as views
from icm.workflow.handoff import fenced
from icm.workflow.queue import find_item

# An entry must resemble an item this much to be listed as bearing on it
# (bench/eval_brief.py: below it, entries sharing a word or two by chance).
MIN_SCORE = 0.1
FOLDER_BONUS = 0.15  # an entry naming a folder the item touches
WARNED_BONUS = 0.1  # an entry whose alternative the warning says it re-proposes
NAMED = 2.0  # an entry the item links to or names: first
QUERY_WORDS = 400  # of an item's whole text compared (a cap, not a rule)


@dataclass(frozen=True)
class Part:
    """A file the brief quotes whole."""

    path: str
    role: str  # "handbook", "note of DIR", "queue item"
    text: str


@dataclass(frozen=True)
class Position:
    """One line of the positions that bear on the items."""

    entry: str  # the journal entry (or, for a warning, the item)
    kind: str  # "re-proposed" (a warning), "resembles", "folder"
    score: float
    line: str  # markdown, one line


@dataclass(frozen=True)
class Brief:
    items: Tuple[str, ...]
    parts: Tuple[Part, ...]
    positions: Tuple[Position, ...]  # every one, best first
    shown: int  # how many fit the budget
    budget: int
    tokens: int
    tokenizer: str
    text: str  # the document


def assemble(ctx: Context, wanted: Sequence[str], budget: Optional[int] = None,
             tokenizer: str = "bytes",
             view: Optional[positions.Positions] = None) -> Brief:
    """The brief for the queue items ``wanted`` (numbers, slugs or paths);
    ``view`` is ``positions.build(ctx)`` when the caller has it."""
    count, approx = token_counter(tokenizer)
    limit = budget if budget is not None else (
        ctx.config.brief_budget or ctx.config.budget * 5 // 4)
    items = list(dict.fromkeys(find_item(ctx, w) for w in wanted))
    texts = {item: _read(ctx, item) for item in items}
    folders, names = views.folders_of(ctx), views.file_names(ctx)
    named = {item: views.named_paths(ctx, item, texts[item], folders, names)
             for item in items}
    touched = views.touched([p for item in items for p in named[item]
                             if not _is_journal_or_queue(ctx, p)], folders)
    parts = _parts(ctx, items, texts, named, touched, folders)
    view = view or positions.build(ctx)
    found = _positions(ctx, view, items, texts, named, touched)
    head = _head(items, parts)
    shown, text = _fit(head, found, limit, count)
    return Brief(tuple(items), tuple(parts), tuple(found), shown, limit,
                 count(text.encode("utf-8", "surrogateescape")),
                 "bytes/4" if approx else tokenizer, text)


def _read(ctx: Context, path: str) -> str:
    try:
        return ctx.read_markdown(path)
    except Unreadable as exc:
        raise UsageError(f"{path}: cannot read: {exc.reason}") from None


def _is_journal_or_queue(ctx: Context, path: str) -> bool:
    """A path in the journal or the queue names an entry or an item (a link
    the ranking follows), not a folder of code."""
    return any(path == d or path.startswith(d + "/") for d in
               (ctx.config.journal_dir.rstrip("/"), ctx.config.queue_dir.rstrip("/")))


def _parts(ctx: Context, items: Sequence[str], texts: Dict[str, str],
           named: Dict[str, List[str]], touched: Sequence[str],
           folders: Set[str]) -> List[Part]:
    """The handbook, the notes of what the items name, the items."""
    out: List[Part] = []
    handbook = ctx.config.handbook
    if handbook in ctx.file_set:
        try:
            out.append(Part(handbook, "handbook", ctx.read_markdown(handbook)))
        except Unreadable:
            pass  # the links check reports it
    notes = set(ctx.notes())
    owner = owner_of(ctx)
    picked: Dict[str, str] = {}
    for p in [p for item in items for p in named[item]]:
        if p in notes:
            picked.setdefault(p, posixpath.dirname(p))
    for folder in touched:
        # the note a code file in the folder is owned by (stale_scope's rule)
        note = owner(posixpath.join(folder, "x")) if folder in folders else None
        if note is not None:
            picked.setdefault(note, folder)
    for note, folder in picked.items():
        try:
            out.append(Part(note, f"note of {folder or '.'}/",
                            ctx.read_markdown(note)))
        except Unreadable:
            continue
    out += [Part(item, "queue item", texts[item]) for item in items]
    return out


# -- the positions that bear on the items ---------------------------------------


@dataclass
class _Entry:
    path: str
    state: str  # "holds" or "superseded"
    decision: str = ""
    invariant: str = ""
    rejected: str = ""  # the alternative with why it lost (markdown)
    plain: str = ""  # the alternative's first sentence, plain
    newest: str = ""  # what holds now, for a superseded entry
    newest_why: str = ""


def _entries(view: positions.Positions) -> Dict[str, _Entry]:
    found: Dict[str, _Entry] = {}
    for h in view.current:
        found[h.path] = _Entry(h.path, "holds", h.decision, h.invariant)
    for o in view.superseded:
        newest = o.newest or (o.by if o.known else "")
        found[o.path] = _Entry(o.path, "superseded", o.decision,
                               newest=newest, newest_why=o.newest_why or o.why)
    for d in view.rejected:  # a record listing options: one Dead each
        e = found.get(d.path)
        if e is not None and not d.revived_by:
            e.rejected = " ".join(filter(None, (e.rejected, d.reason or d.shown)))
            e.plain = " ".join(filter(None, (e.plain, d.alternative)))
    return found


def _positions(ctx: Context, view: positions.Positions, items: Sequence[str],
               texts: Dict[str, str], named: Dict[str, List[str]],
               touched: Sequence[str]) -> List[Position]:
    """The entries that bear on the items: by score, best first (those the
    items re-propose, link to or name first), then the current decisions of
    the touched folders, newest first."""
    entries = _entries(view)
    first: Dict[str, float] = {}
    warned: Dict[str, str] = {}  # entry -> the item re-proposing what it rejected
    for p in view.reproposals:
        if p.path in items and not p.acknowledged and p.rejected_by in entries:
            warned.setdefault(p.rejected_by, p.path)
    for item in items:
        for path in named[item]:
            if path in entries:
                first[path] = NAMED
    scores = _scores(entries, [texts[i] for i in items])
    near = views.touching(ctx, sorted(entries), list(touched), below=False)
    ranked: Dict[str, float] = {}
    for path in entries:
        score = max(scores.get(path, 0.0), first.get(path, 0.0))
        if score >= MIN_SCORE:
            ranked[path] = score + (FOLDER_BONUS if path in near else 0.0) + (
                WARNED_BONUS if path in warned else 0.0)
    order = sorted(ranked, key=lambda p: (-ranked[p], p))
    rest = sorted((p for p in near if p not in ranked
                   and entries[p].state == "holds"), reverse=True)
    out: List[Position] = []
    seen: Set[str] = set()  # entries whose decision was stated above
    for path in order + rest:
        kind = "re-proposed" if path in warned else (
            "resembles" if path in ranked else "folder")
        out.append(Position(path, kind, round(ranked.get(path, 0.0), 3),
                            _line(entries[path], warned.get(path, ""), seen)))
    return out


def _scores(entries: Dict[str, _Entry], items: Sequence[str]) -> Dict[str, float]:
    """Each entry's best similarity to any of the items' statements."""
    stmts: List[similarity.Statement] = []
    for e in entries.values():
        for text in (e.plain, e.rejected, e.decision, _slug_words(e.path)):
            if text:
                stmts.append(similarity.Statement(e.path, 1, text))
    if not stmts:
        return {}
    # Uncapped posting lists: a word most entries hold (a module's name)
    # still finds them; one brief compares its few queries with every entry
    # sharing a word, linear in the journal.
    index = similarity.Index(stmts, cap=max(similarity.POSTING_CAP, len(stmts)))
    best: Dict[str, float] = {}
    for text in items:
        for query in _queries(text):
            for j, score in index.like(query, MIN_SCORE, min_shared=0):
                path = index.statements[j].path
                best[path] = max(best.get(path, 0.0), score)
    return best


def _queries(text: str) -> List[str]:
    """An item as the ranking asks about it: its title, its gist (title and
    first paragraph, as the re-invention warning reads it) and its text."""
    gist, _line = positions.proposal(text)
    title = next((ln.lstrip("#").strip() for ln in to_lf(text).split("\n")
                  if ln.startswith("# ")), "")
    whole = " ".join(text.split()[:QUERY_WORDS])
    return [q for q in dict.fromkeys((title, gist, whole)) if q]


def _slug_words(path: str) -> str:
    name = posixpath.basename(path)
    m = journal.ENTRY_NAME.match(name)
    return m.group(4).replace("-", " ") if m else ""


def _link(path: str) -> str:
    """A link from the root: it reads the same wherever the brief is put."""
    return positions.rooted_link(path)


def _escaped(text: str) -> str:
    return positions.plain_text(text)


def _line(e: _Entry, warned_by: str, seen: Set[str]) -> str:
    """One entry: whether it holds (what holds now, stated once per brief),
    its Decision, the alternative it rejected and why it lost."""
    head = f"- {_link(e.path)}"
    if warned_by:
        head += f" (**{_escaped(warned_by)} re-proposes what it rejected**)"
    if e.state == "superseded":
        now = "what replaced it is missing"
        if e.newest:
            now = _link(e.newest) + ("" if e.newest in seen else
                                     f", which holds: {inert(e.newest_why)}")
            seen.add(e.newest)
        said = f"superseded by {now} It had decided: {inert(e.decision)}"
    else:
        said = f"holds: {inert(e.decision)}"
        if e.invariant:
            said += f" {inert(e.invariant)}"
        seen.add(e.path)
    if e.rejected:
        said += f" Rejected: {inert(e.rejected)}"
    return f"{head} {said}"


# -- the document ------------------------------------------------------------------


HEADING = "## Positions that bear on these items"
GUIDE = ("The journal entries these items re-propose, name or resemble, best "
         "first, then the current decisions of the folders they touch. Reviving "
         "a Rejected design needs a `Revives:` line.")


def _head(items: Sequence[str], parts: Sequence[Part]) -> str:
    out = [f"# Brief: {', '.join(_escaped(i) for i in items)}", "",
           "Assembled by `icm brief` from the handbook, the notes of the folders "
           "the items name, the items and the journal; read it in this order. "
           "Files are quoted whole.", ""]
    for part in parts:
        out += [f"## {_escaped(part.path)} ({part.role})", "",
                fenced(to_lf(part.text).strip("\n"), "markdown"), ""]
    return inert_lines("\n".join(out)) + "\n"


def _fit(head: str, found: Sequence[Position], budget: int,
         count: Callable[[bytes], int]) -> Tuple[int, str]:
    """How many positions fit after ``head`` and the document: lines are
    taken in order until the next would pass the budget with the last line
    counting what is left; the whole is counted again (a tokenizer's
    count of a whole is not the sum of its lines')."""
    lines = [inert_lines(p.line) for p in found]

    def text(n: int) -> str:
        body = [HEADING, "", GUIDE, ""] + lines[:n]
        if not found:
            body.append("(none found)")
        if n < len(found):
            body += ["", positions.not_shown(len(found) - n, budget)]
        return head + "\n".join(body) + "\n"

    def size(doc: str) -> int:
        return count(doc.encode("utf-8", "surrogateescape"))

    base = size(text(0))
    used, n = base, 0
    for line in lines:
        extra = count((line + "\n").encode("utf-8", "surrogateescape"))
        if used + extra > budget:
            break
        used, n = used + extra, n + 1
    while n and size(text(n)) > budget:  # digits of the count, merged tokens
        n -= 1
    return n, text(n)


def as_json(b: Brief) -> Dict[str, Any]:
    items = []
    for item in b.items:
        text = next(p.text for p in b.parts if p.path == item)
        claim = claim_of(text)
        items.append({"path": item, "claimed_by": claim[0] if claim else None,
                      "ruled_out": ruled_out(text) or None})
    return {
        "items": items,
        "files": [{"path": p.path, "role": p.role} for p in b.parts],
        "positions": [{"entry": p.entry, "kind": p.kind, "score": p.score,
                       "shown": n < b.shown, "line": p.line}
                      for n, p in enumerate(b.positions)],
        "not_shown": len(b.positions) - b.shown,
        "tokens": b.tokens, "budget": b.budget, "tokenizer": b.tokenizer,
        "document": b.text,
    }


def command(ctx: Context, wanted: Sequence[str], budget: Optional[int],
            tokenizer: str, fmt: str) -> str:
    """What ``icm brief`` prints."""
    import json

    from icm.report import plain

    brief = assemble(ctx, wanted, budget, tokenizer)
    if fmt == "json":
        return json.dumps(plain(as_json(brief)), indent=2,
                          ensure_ascii=False) + "\n"
    return brief.text
