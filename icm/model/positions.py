"""The positions view: the journal compiled into what is held, what was
overruled and which designs are dead, for an agent to read at cold boot.

- **Current**: every entry not superseded, newest first: its Decision's
  first sentence and its Invariant's, linking the entry.
- **Superseded**: every entry with a ``Superseded-by:`` line (or a status
  saying so, or an entry that ``Supersedes`` it), with the entry that
  replaced it and why (the replacing Decision's first sentence).
- **Rejected**: every Rejected alternative (its first sentence) with its
  entry, ranked by how often it was re-proposed, most first; the top one
  is labelled "most re-invented".

Slots are read by role (``model.journal``): in a MADR journal the decision
is the Decision Outcome and the rejected alternatives are the options it
did not choose.

A **re-proposal** is a queue item (its title and first paragraph) or a
journal entry dated after the rejecting one (its Decision) at or above
``reinvent_similarity`` to a Rejected alternative, by ``icm.similarity``
(a candidate shares one word pair with it). A line ``Revives: <entry>`` in
the item or entry acknowledges it, as does the entry that supersedes the
rejecting one: both still count for the ranking, neither is warned about.
A line ``Differs-from: <entry>`` says a reader compared the two and found
a different proposal (the warning's false positive, which similarity alone
cannot tell from a copy, e.g. the opposite of what was rejected): it is no
re-proposal at all, warned about or counted.

Everything here is pure over the Context; ``render_markdown`` is the text
``icm positions`` prints and ``--write`` puts between ``BLOCK_OPEN`` and
``BLOCK_CLOSE`` of ``positions_file``.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple
from urllib.parse import quote

from icm import similarity
from icm.context import Context, Unreadable
from icm.escape import inert
from icm.lines import spans as line_spans
from icm.model import journal
from icm.model import queue as queue_check

BLOCK_OPEN = "<!-- icm:positions -->"
BLOCK_CLOSE = "<!-- /icm:positions -->"
SENTENCE_CHARS = 100  # a longer first sentence is cut (the view stays compact)
# word pairs a proposal shares with an alternative before they are compared:
# a paraphrase keeps one pair, rarely two (bench/eval_reinvent.py)
MIN_SHARED = 1
QUOTE_CHARS = 80  # the rejected alternative quoted in a warning
# share of a Rejected alternative's (weighted) words a newer Decision holds
# to revive it: "Standalone components are preferred ..." revives "Use
# standalone components" (set after the test part was run: journal
# 2026-12-01_detectors-held-out)
REVIVED_SHARE = 0.5
_REVIVES = "revives:"
_DIFFERS = "differs-from:"
_OPEN_GAP = re.compile(r"([(\[]) +")
_CLOSE_GAP = re.compile(r" +([)\],;:.!?])")
_ESCAPE = re.compile(r"([\\\[\]<`])")  # what could start a link, code or HTML


@dataclass(frozen=True)
class Held:
    path: str
    decision: str
    invariant: str


@dataclass(frozen=True)
class Overruled:
    path: str
    decision: str
    by: str  # the entry that replaced it
    why: str  # the replacing entry's first sentence ("" when it is missing)
    known: bool  # the replacing entry exists (else the journal check's orphan)


@dataclass(frozen=True)
class Reproposal:
    path: str  # the queue item or journal entry proposing it
    line: int
    rejected_by: str  # the entry whose Rejected alternative it matches
    alternative: str
    score: float
    acknowledged: bool  # Revives: line, or the entry superseding the rejecter
    overruled_by: str = ""  # a superseded Decision: the entry superseding it


@dataclass(frozen=True)
class Dead:
    path: str
    alternative: str
    reproposals: Tuple[Reproposal, ...]


@dataclass(frozen=True)
class Positions:
    current: Tuple[Held, ...]
    superseded: Tuple[Overruled, ...]
    rejected: Tuple[Dead, ...]
    reproposals: Tuple[Reproposal, ...]


@dataclass(frozen=True)
class _Read:
    path: str
    entry: journal.Entry
    revives: Set[str]
    differs: Set[str]
    rejected: Tuple[similarity.Statement, ...] = ()  # each Rejected alternative
    decided: Tuple[similarity.Statement, ...] = ()  # its Decision's statements


def sentence(text: str, limit: int = SENTENCE_CHARS) -> str:
    """The first sentence of a slot, cut at a word to ``limit`` characters."""
    said = journal.first_sentence(text, 10**6)
    # visible text spaces out what code spans held: "( sh -c )" -> "(sh -c)"
    said = _CLOSE_GAP.sub(r"\1", _OPEN_GAP.sub(r"\1", said))
    if len(said) <= limit:
        return said
    cut = said[:limit - 3]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;:") + "..."


def _day(path: str, lay: journal.Layout) -> str:
    """What orders the entry (its name's date or number; ``""`` for a name
    ``journal_pattern`` refuses)."""
    return lay.pattern.sequence(path.rsplit("/", 1)[-1])


def revives(text: str, path: str, key: str = _REVIVES) -> Set[str]:
    """Entries a ``Revives:`` line (or another ``key``) names: a line of its
    own in a top-level paragraph, a path from the root or a link from the
    file's folder (as ``Superseded-by:`` reads it)."""
    from icm import markdown

    found = set()
    for sec in markdown.sections(text):
        for _line, source in sec.lines:
            source = source.strip()
            if source[:len(key)].lower() == key:
                found.add(journal.target(source[len(key):].strip(), path))
    return found


def proposal(text: str) -> Tuple[str, int]:
    """A queue item's title and first paragraph, and the line it starts on."""
    from icm import markdown

    title, line, body = "", 0, ""
    for block in markdown.blocks(text):
        if block.kind == "heading" and not title and not body:
            title, line = block.text, block.line
        elif block.kind == "paragraph" and not _is_field(block.text):
            body, line = block.text, line or block.line
            break
    return " ".join(f"{title} {body}".split()), line or 1


def _is_field(paragraph: str) -> bool:
    """A machine line (a claim, a revival, carried-over provenance)."""
    head = paragraph.lstrip().lower()
    return head.startswith(("claimed-by:", _REVIVES, _DIFFERS, "carried over from"))


def build(ctx: Context) -> Positions:
    """Read the journal and the queue once; compile the view."""
    cfg = ctx.config
    lay = journal.layout(cfg)
    read: List[_Read] = []
    paths = journal.entries(ctx)
    numbers = journal.numbered(paths, lay)
    for path in sorted(paths, reverse=True):  # newest first
        try:
            text = ctx.read_markdown(path)
        except Unreadable:
            continue  # the journal check reports it
        entry = journal.read(text, path, cfg, numbers)
        read.append(_Read(path, entry, revives(text, path),
                          revives(text, path, _DIFFERS),
                          designs(text, path, entry, lay, "rejected"),
                          designs(text, path, entry, lay, "decision")))
    by_path = {r.path: r for r in read}
    replaced = journal.superseding({r.path: r.entry for r in read})
    current: List[Held] = []
    superseded: List[Overruled] = []
    for r in read:
        decision = sentence(r.entry.said("decision"))
        if r.path in replaced and replaced[r.path][0]:
            new = replaced[r.path][0]
            by = by_path.get(new)
            why = sentence(by.entry.said("decision")) if by else ""
            superseded.append(Overruled(r.path, decision, new, why, by is not None))
        else:
            current.append(Held(r.path, decision,
                                sentence(r.entry.said("invariant"))))
    back = revived(read, replaced)
    alternatives = {r.path: _shown(r, back, lay) for r in read}
    found = sorted(_reproposals(ctx, read, back, replaced, lay),
                   key=lambda p: (p.path, p.line, p.rejected_by))
    against: Dict[str, List[Reproposal]] = {}
    for p in found:
        against.setdefault(p.rejected_by, []).append(p)
    dead = [Dead(r.path, alternatives[r.path], tuple(against.get(r.path, ())))
            for r in read if alternatives[r.path]]
    order = {d.path: n for n, d in enumerate(dead)}  # newest first on ties
    dead.sort(key=lambda d: (-len(d.reproposals), order[d.path]))
    return Positions(tuple(current), tuple(superseded), tuple(dead), tuple(found))


def designs(text: str, path: str, entry: journal.Entry, lay: journal.Layout,
            role: str) -> Tuple[similarity.Statement, ...]:
    """The statements (paragraphs, list items) of the section holding
    ``role``: each Rejected alternative is one, not only the section's first
    sentence (a list of four rejected designs named one). MADR's rejected
    alternatives are computed (the options not chosen, "A; B."): one
    statement each, at the options' heading."""
    slot = entry.roles.get(role)
    if slot is None:
        return ()
    if slot.name not in lay.headings(role):  # computed, not a section
        parts = [p.strip(" .") for p in slot.visible.split("; ")]
        return tuple(similarity.Statement(path, slot.line + n, part)
                     for n, part in enumerate(p for p in parts if p))
    found = similarity.statements(text, path, lambda trail: any(
        level == 2 and title == slot.name for level, title in trail))
    return tuple(dataclasses.replace(s, text=untemplated(s.text)) for s in found)


# The words MADR's template puts in every Decision Outcome: two outcomes
# about different things shared them and looked like one design.
_TEMPLATE = re.compile(r"\bchosen option\b\s*:?|\bbecause\b", re.I)


def untemplated(text: str) -> str:
    """A decision's own words, without the template's (``Chosen option:
    "X", because ...``)."""
    return " ".join(_TEMPLATE.sub(" ", text).split())


def _threshold(ctx: Context) -> float:
    cfg = ctx.config
    return cfg.reinvent_semantic if cfg.similarity == "semantic" else \
        cfg.reinvent_similarity


def _ranker(ctx: Context, texts: Sequence[str]) -> similarity.Ranker:
    embed = similarity.semantic_model() if ctx.config.similarity == "semantic" \
        else None
    return similarity.Ranker(texts, embed)


def revived(read: Sequence[_Read], replaced: Dict[str, Tuple[str, int]]
            ) -> Set[Tuple[str, int]]:
    """The Rejected alternatives (entry, line) a newer entry brought back:
    it says ``Revives: <entry>`` (the alternative its Decision is most like,
    the first when it is like none), or it supersedes the entry and its
    Decision holds that alternative (``REVIVED_SHARE`` of its words). A
    revived design is current, not dead."""
    by_path = {r.path: r for r in read}
    back: Set[Tuple[str, int]] = set()
    for r in read:
        said = " ".join(s.text for s in r.decided) or r.entry.said("decision")
        named = set(r.revives)
        named.update(p for p in by_path
                     if replaced.get(p, ("", 0))[0] == r.path)
        for target in sorted(named):
            old = by_path.get(target)
            if old is None or not old.rejected or target == r.path:
                continue
            ranker = similarity.Ranker([s.text for s in old.rejected])
            ranked = ranker.ranked(said, REVIVED_SHARE, contained=True)
            if ranked:
                back.add((target, old.rejected[ranked[0][0]].line))
            elif target in r.revives:
                back.add((target, old.rejected[0].line))
    return back


def _shown(r: _Read, back: Set[Tuple[str, int]], lay: journal.Layout) -> str:
    """The Rejected alternative the view lists for an entry: its first one
    still dead (``""`` when every one was revived: current, not dead)."""
    alive = [s for s in r.rejected if (r.path, s.line) not in back]
    slot = r.entry.roles.get("rejected")
    if alive and slot is not None and slot.name not in lay.headings("rejected"):
        return "; ".join(s.text for s in alive) + "."  # MADR's, computed
    for stmt in alive:
        return journal.first_sentence(stmt.text, 10**6)
    if r.rejected:
        return ""
    return journal.first_sentence(r.entry.said("rejected"), 10**6)


def _reproposals(ctx: Context, read: Sequence[_Read],
                 back: Set[Tuple[str, int]], replaced: Dict[str, Tuple[str, int]],
                 lay: journal.Layout) -> List[Reproposal]:
    """Each queue item's and newer entry's best match among the dead designs
    (every Rejected alternative not revived, every superseded Decision), when
    it scores at or above the threshold (``bench/eval_heldout.py``)."""
    dead: List[Tuple[_Read, similarity.Statement, bool]] = []  # (entry, design,
    for r in read:                                           # superseded)
        dead += [(r, s, False) for s in r.rejected if (r.path, s.line) not in back]
        if replaced.get(r.path, ("", 0))[0]:
            dead += [(r, s, True) for s in r.decided]
    if not dead:
        return []
    ranker = _ranker(ctx, [s.text for _r, s, _x in dead])
    threshold = _threshold(ctx)
    # (path, line, what it says, entries it revives, its day, entries it
    # differs from)
    proposals: List[Tuple[str, int, str, Set[str], str, Set[str]]] = []
    for item in sorted(queue_check.items(ctx)):
        if not item.lower().endswith(".md"):
            continue
        try:
            text = ctx.read_markdown(item)
        except Unreadable:
            continue  # the queue and links checks report it
        said, line = proposal(text)
        proposals.append((item, line, said, revives(text, item), "",
                          revives(text, item, _DIFFERS)))
    for r in read:
        slot = r.entry.roles.get("decision")
        if slot is not None and slot.visible and _day(r.path, lay):
            proposals.append((r.path, slot.line, untemplated(slot.visible), r.revives,
                              _day(r.path, lay), r.differs))
    found = []
    for path, line, said, revived_here, day, differs in proposals:
        if not similarity.skeleton(said)[0]:
            continue  # nothing to compare: an empty skeleton equals any other
        for n, score in ranker.ranked(said, threshold):
            rejecter, design, superseded = dead[n]
            if rejecter.path == path:
                continue  # an entry does not re-propose its own designs
            then = _day(rejecter.path, lay)
            if day and not (then and then < day):
                continue  # only an entry newer than the rejecting one
            if rejecter.path in differs:
                continue  # compared by a reader: a different proposal
            by = replaced.get(rejecter.path, ("", 0))[0]
            acknowledged = rejecter.path in revived_here or by == path
            found.append(Reproposal(
                path, line, rejecter.path, design.text, round(score, 3),
                acknowledged, by if superseded else ""))
            break  # the top match only
    return found


# -- rendering -----------------------------------------------------------------


def _text(sentence: str) -> str:
    """Repository text as inert markdown on one line: what could start a
    link, code or HTML backslash-escaped, then every line break and control
    character shown escaped, so no text (a percent-encoded Superseded-by
    target included) can start a line, a heading of its own or an escape."""
    return inert(_ESCAPE.sub(r"\\\1", sentence))


def _link(path: str, base: str) -> str:
    rel = posixpath.relpath(path, base) if base else path
    dest = quote(rel, safe="/", errors="surrogateescape")
    return f"[{_text(rel)}]({dest})"


def quoted(alternative: str) -> str:
    """A Rejected alternative as a warning quotes it: no final stop, a
    capital that only starts the sentence lowered, capped."""
    text = sentence(alternative, QUOTE_CHARS).rstrip(".")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text


def render_markdown(view: Positions, base: str = "") -> str:
    """The view as markdown, links relative to the folder ``base``."""
    out = ["Compiled by `icm positions`; do not edit. Read before proposing "
           "work: reviving a Rejected design needs a `Revives:` line.",
           "", "## Current", ""]
    for held in view.current:
        said = " ".join(s for s in (held.decision, held.invariant) if s)
        out.append(f"- {_link(held.path, base)}: {_text(said) or '(no Decision)'}")
    if not view.current:
        out.append("(none)")
    out += ["", "## Superseded", ""]
    for old in view.superseded:
        by = f"{_link(old.by, base)}: {_text(old.why)}" if old.known else \
            f"{_text(old.by)} (missing)"  # no link: check-links would repeat it
        out.append(f"- {_link(old.path, base)}: {_text(old.decision)} Replaced by "
                   f"{by}")
    if not view.superseded:
        out.append("(none)")
    out += ["", "## Rejected", ""]
    for n, dead in enumerate(view.rejected):
        times = len(dead.reproposals)
        label = (("**most re-invented**, " if n == 0 else "")
                 + f"re-proposed {times}x: ") if times else ""
        said = sentence(dead.alternative)
        out.append(f"- {label}{_text(said)} ({_link(dead.path, base)})")
    if not view.rejected:
        out.append("(none)")
    return "\n".join(out) + "\n"


def as_json(view: Positions) -> Dict[str, Any]:
    def proposal(p: Reproposal) -> Dict[str, Any]:
        return {"path": p.path, "line": p.line, "similarity": p.score,
                "acknowledged": p.acknowledged}

    return {
        "current": [{"entry": h.path, "decision": h.decision,
                     "invariant": h.invariant} for h in view.current],
        "superseded": [{"entry": o.path, "decision": o.decision,
                        "superseded_by": o.by, "why": o.why}
                       for o in view.superseded],
        "rejected": [{"entry": d.path, "alternative": d.alternative,
                      "reproposed": len(d.reproposals),
                      "most_reinvented": n == 0 and bool(d.reproposals),
                      "reproposals": [proposal(p) for p in d.reproposals]}
                     for n, d in enumerate(view.rejected)],
    }


def block_text(view: Positions, positions_file: str) -> str:
    """What belongs between the markers of ``positions_file``."""
    return render_markdown(view, posixpath.dirname(positions_file))


def current_block(text: str, path: str) -> Optional[str]:
    """The text between the markers of ``text`` (lines joined by ``\\n``),
    None without a block; ``markdown.MarkerError`` when ambiguous."""
    from icm import markdown

    tokens = markdown.parse(text, inline=lambda _c: False)
    found = markdown.marked_block(tokens, BLOCK_OPEN, BLOCK_CLOSE, "positions",
                                  path)
    if found is None:
        return None
    spans = line_spans(text)
    return "".join(text[s:e] + "\n" for s, e in spans[found[0] + 1:found[1]])

