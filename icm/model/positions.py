"""The positions view: the journal compiled into what is held, what was
overruled and which designs are dead, for an agent to read at cold boot.

- **Current**: every entry not superseded, newest first: its Decision's
  first sentence and its Invariant's, linking the entry, and the designs
  it revives.
- **Superseded**: every entry with a ``Superseded-by:`` line (or a status
  saying so, or an entry that ``Supersedes`` it), with the entry that
  replaced it and why (the replacing Decision's first sentence), or, at
  the end of a longer chain, the entry that holds now and its.
- **Rejected**: every Rejected alternative (its first sentence) with its
  entry, ranked by how often it was re-proposed, most first; the top one
  is labelled "most re-invented". One a newer entry holds again
  (``revived``) is not dead: it is left out.

A sentence is cut from the slot as written, at a sentence's end only,
never inside a code span, link or emphasis, keeping its markup
(``sentence``). With a budget the sections take turns until the next line
would not fit, and the last line counts the cut (``render_markdown``).

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
from itertools import accumulate
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple
from urllib.parse import quote

from icm import similarity
from icm.context import Context, Unreadable
from icm.escape import inert
from icm.lines import spans as line_spans
from icm.model import journal
from icm.model import queue as queue_check

BLOCK_OPEN = "<!-- icm:positions -->"
BLOCK_CLOSE = "<!-- /icm:positions -->"
# A first "sentence" longer than this is a paragraph without a stop: cut at a
# word. Shorter ones are kept whole: a fact cut in half is a wrong fact, and
# the budget (positions_budget, --budget) keeps the view small instead.
SENTENCE_CHARS = 600

SOURCE_CHARS = 2000  # of a paragraph parsed for its first sentence (a cap)
# word pairs a proposal shares with an alternative before they are compared:
# a paraphrase keeps one pair, rarely two (bench/eval_reinvent.py)
MIN_SHARED = 1
QUOTE_CHARS = 80  # the rejected alternative quoted in a warning

REASON_CHARS = 300  # an alternative with why it lost, for ``icm brief``
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

_MARKUP = re.compile(r"[`\[\]<>*_\\&~!]")  # a paragraph that needs the parser

_TEXT_ESCAPE = re.compile(r"[\\`*\[\]<~]|&(?=#?\w+;)|(?<![^\W_])_|_(?![^\W_])")

_SPACES = re.compile(r"(\s+)")

_STOP = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\Z")

_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."})

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,31}:")


@dataclass(frozen=True)
class Held:
    path: str
    decision: str  # first sentence, markdown (``sentence``)
    invariant: str
    revives: Tuple[str, ...] = ()  # entries whose Rejected design it holds again


@dataclass(frozen=True)
class Overruled:
    path: str
    decision: str
    by: str  # the entry that replaced it
    why: str  # the replacing entry's first sentence ("" when it is missing)
    known: bool  # the replacing entry exists (else the journal check's orphan)
    # the chain's end when ``by`` was superseded in turn ("" otherwise), and
    # its Decision: what holds now
    newest: str = ""
    newest_why: str = ""


@dataclass(frozen=True)
class Reproposal:
    path: str  # the queue item or journal entry proposing it
    line: int
    rejected_by: str  # the entry whose Rejected alternative it matches
    alternative: str
    score: float
    acknowledged: bool  # Revives: line, or the entry superseding the rejecter
    overruled_by: str = ""  # a superseded Decision: the entry superseding it
    design_line: int = 0  # the line of the design it matches in the rejecter


@dataclass(frozen=True)
class Dead:
    path: str
    alternative: str  # first sentence, plain (what similarity compares)
    reproposals: Tuple[Reproposal, ...]
    # current entries holding it again (``revived``): not dead, not shown so
    revived_by: Tuple[str, ...] = ()
    shown: str = ""  # the first sentence as markdown (``sentence``)
    reason: str = ""  # the first sentences, why it lost included (markdown)


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


def _said(r: "_Read", role: str, count: int = 1, limit: int = 0) -> str:
    """The first sentence(s) of the section holding ``role`` as markdown
    (``sentence``): from its paragraphs as written, else (a section of lists,
    MADR's computed alternatives) its visible text."""
    slot = r.entry.roles.get(role)
    if slot is None:
        return ""
    source = slot.source or _escaped(slot.visible)
    return sentence(source, limit or SENTENCE_CHARS, r.path, count)


def sentence(text: str, limit: int = SENTENCE_CHARS, path: str = "",
             count: int = 1) -> str:
    """The first ``count`` sentences of a slot's markdown (its first
    paragraph), as inert-ready markdown: cut at a sentence end only, never
    inside a code span, a link, emphasis or a number, with the markup kept.
    Code spans keep their backticks; a relative link is written from the
    root (``/icm/context.md``: it reads the same from any file), one
    leaving the root becomes its text; every other character that could
    start markup is backslash-escaped. Sentences after the first are added
    while the whole stays within ``limit`` characters; a first "sentence"
    longer than that (a paragraph without a stop) is cut at a space outside
    code and links and ends in ``...``. ``path`` is the file the text is
    from (its links are relative to its folder)."""
    para, truncated = _first_paragraph(text)
    pieces = _pieces(para, path, truncated) if para else []
    sizes = list(accumulate(len(p.md) for p in pieces))
    # where a sentence ends: a space after a stop, outside links and
    # emphasis; the paragraph's end ends the last one, stop or none
    ends = [n for n, p in enumerate(pieces) if p.space and p.depth == 0
            and n and pieces[n - 1].ends] + [len(pieces)]
    size = [sizes[n - 1] if n else 0 for n in ends]
    if size[0] > limit:  # no stop within the limit: cut at a word
        spaces = [n for n, p in enumerate(pieces) if p.space and p.depth == 0]
        fits = [n for n in spaces if sizes[n] <= limit - 3]
        cut = fits[-1] if fits else (spaces[0] if spaces else len(pieces))
        shown = "".join(p.md for p in pieces[:cut]).rstrip(" ,;:")
        return shown + ("..." if cut < len(pieces) else "")
    taken = 1
    while taken < min(count, len(ends)) and size[taken] <= limit:
        taken += 1
    return "".join(p.md for p in pieces[:ends[taken - 1]]).strip()



def _first_paragraph(text: str) -> Tuple[str, bool]:
    """The first paragraph of ``text``, at most SOURCE_CHARS of it (cut at a
    space; True when cut)."""
    para = text.strip().split("\n\n", 1)[0].strip()
    if len(para) <= SOURCE_CHARS:
        return para, False
    cut = para[:SOURCE_CHARS]
    return (cut.rsplit(None, 1)[0] if " " in cut else cut), True



class _Piece(NamedTuple):
    """A part of a paragraph a cut may fall after (when ``depth`` is 0)."""

    md: str  # the part as markdown
    space: bool
    depth: int  # links and emphasis open after it
    ends: bool  # ends in a sentence's final stop



def _pieces(para: str, path: str, truncated: bool) -> List[_Piece]:
    """The paragraph as pieces: words and spaces of text outside links and
    emphasis, whole code spans, links' and emphasis' markers, HTML. A
    ``truncated`` paragraph ends no sentence after an unmatched backtick,
    bracket or angle bracket (the cut may have split its span)."""
    if not _MARKUP.search(para):
        return _words(para, False)
    from icm import markdown

    out: List[_Piece] = []
    depth = 0
    stack: List[str] = []  # how each open link closes
    frozen = False

    def add(md: str, ends: bool = False) -> None:
        out.append(_Piece(md, False, depth, ends))

    for tok in markdown.inline_tokens(para):
        kind = tok.type
        inherit = bool(out) and out[-1].ends  # "**Done.**" ends a sentence
        if kind == "text":
            if stack and stack[-1] == ">":  # an autolink's text is its address
                add(tok.content)
            elif depth == 0:
                out.extend(_words(tok.content, frozen))
            else:
                add(_escaped(tok.content), _ends(tok.content, frozen))
            frozen = frozen or (truncated and any(c in tok.content for c in "`[<"))
        elif kind in ("softbreak", "hardbreak"):
            out.append(_Piece(" ", True, depth, False))
        elif kind == "code_inline":
            add(_code_span(tok.content, tok.markup))
        elif kind == "link_open":
            opened, close = _link_parts(tok, path)
            stack.append(close)
            depth += 1
            add(opened)
        elif kind == "link_close":
            depth = max(0, depth - 1)
            add(stack.pop() if stack else "", inherit)
        elif kind.endswith("_open"):
            depth += 1
            add(tok.markup)
        elif kind.endswith("_close"):
            depth = max(0, depth - 1)
            add(tok.markup, inherit)
        else:  # an escape or entity, an image's alt text, inline HTML: text
            add(_escaped(tok.content))
    return out



def _words(text: str, frozen: bool) -> List[_Piece]:
    """Text outside links and emphasis as words and single spaces."""
    return [_Piece(" ", True, 0, False) if part.isspace()
            else _Piece(_escaped(part), False, 0, _ends(part, frozen))
            for part in _SPACES.split(text) if part]



def _ends(text: str, frozen: bool) -> bool:
    """The text ends in a stop (after closing quotes or brackets) that is
    no abbreviation's."""
    word = text.rsplit(None, 1)[-1] if text.strip() else ""
    return not frozen and bool(_STOP.search(word)) and \
        word.lower().lstrip("([\"'") not in _ABBREVIATIONS



def _escaped(text: str) -> str:
    """Text that renders as itself: what could start markup escaped (an
    underscore only where it could open emphasis)."""
    return _TEXT_ESCAPE.sub(r"\\\g<0>", text)



def _code_span(content: str, markup: str) -> str:
    """A code span that parses back to ``content``: its own backticks, a
    space each side where a backtick or a space pair would be eaten."""
    ticks = markup or "`"
    pad = " " if content[:1] == "`" or content[-1:] == "`" or (
        content[:1] == " " and content[-1:] == " " and content.strip()) else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"



def _link_parts(tok: Any, path: str) -> Tuple[str, str]:
    """How a link opens and closes in the cut sentence: an inline link
    keeps its destination, written from the root; a reference link (its
    definition is not in the view) and one leaving the root are their text;
    an autolink stays one."""
    href = str(tok.attrs.get("href", ""))
    if tok.markup == "autolink":
        return "<", ">"
    if (tok.meta or {}).get("ref"):
        return "", ""
    dest = _rooted(href, path)
    return ("[", f"]({dest})") if dest else ("", "")



def _rooted(href: str, path: str) -> str:
    """``href`` written in ``path`` as a destination from the root
    (``/src/x.py#a``); external ones as they are; "" when it leaves the
    root. Percent-encoded so no space or parenthesis ends it early."""
    if _SCHEME.match(href) or href.startswith("//"):
        dest = href
    else:
        target, mark, fragment = href.partition("#")
        if not target:
            target = path
        elif target.startswith("/"):
            target = posixpath.normpath(target.lstrip("/") or ".")
        else:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path),
                                                       target))
        if target == ".." or target.startswith("../"):
            return ""
        dest = "/" + ("" if target == "." else target) + mark + fragment
    return quote(dest, safe="/#%:?&=+@!$',;~*", errors="surrogateescape")



def _clipped(text: str, limit: int) -> str:
    """Plain text's first sentence, cut at a word to ``limit`` characters
    (what a warning quotes: a finding's message is plain text)."""
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

    found: Set[str] = set()
    if key not in text.lower():
        return found  # most files name nothing: no parse (a third of a build)
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
    shared = journal.sharing(paths, lay)
    # newest first: by the name's date or number, then path (nested records
    # sorted by path were by folder)
    for path in sorted(paths, key=lambda p: (_day(p, lay), p), reverse=True):
        try:
            text = ctx.read_markdown(path)
        except Unreadable:
            continue  # the journal check reports it
        entry = journal.read(text, path, cfg, numbers)
        if path in shared and journal.companion(entry):
            continue  # a record's notes page: no decision (journal's info line)
        read.append(_Read(path, entry, revives(text, path),
                          revives(text, path, _DIFFERS),
                          designs(text, path, entry, lay, "rejected"),
                          designs(text, path, entry, lay, "decision")))
    by_path = {r.path: r for r in read}
    replaced = journal.superseding({r.path: r.entry for r in read})

    def next_of(path: str) -> str:
        return replaced.get(path, ("", 0))[0]

    after = revisiting(read)  # asked once: the view and the warning read it
    back = revived(read, replaced, after)
    alternatives = {r.path: _shown(r, back, lay) for r in read}
    found = sorted(_reproposals(ctx, read, set(back), replaced, lay, after),
                   key=lambda p: (p.path, p.line, p.rejected_by))
    against: Dict[str, List[Reproposal]] = {}
    for p in found:
        against.setdefault(p.rejected_by, []).append(p)
    held = {r.path for r in read if not next_of(r.path)}
    holds_again: Dict[str, List[str]] = {}  # current entry -> entries it revives
    dead: List[Dead] = []
    for r in read:
        revivers = tuple(sorted({who for (target, _line), who in back.items()
                                 if target == r.path and who in held}))
        for who in revivers:
            holds_again.setdefault(who, []).append(r.path)
        if r.entry.options and alternatives[r.path]:  # one Dead an option
            dead += _options_dead(r, back, against.get(r.path, []))
            continue
        if not alternatives[r.path] and not revivers:
            continue  # rejected nothing
        whole = not alternatives[r.path]  # every design it rejected is back
        first_alive = not r.rejected or (r.path, r.rejected[0].line) not in back
        dead.append(Dead(
            r.path, alternatives[r.path] or journal.first_sentence(
                r.entry.said("rejected"), 10**6),
            tuple(against.get(r.path, ())), revivers if whole else (),
            _said(r, "rejected") if first_alive else _escaped(alternatives[r.path]),
            _said(r, "rejected", 3, REASON_CHARS)))
    dead = [d for _n, d in sorted(enumerate(dead), key=lambda nd: (
        -len(nd[1].reproposals), nd[0]))]  # newest first on ties
    current: List[Held] = []
    superseded: List[Overruled] = []
    for r in read:
        decision = _said(r, "decision")
        new = next_of(r.path)
        if new:
            by = by_path.get(new)
            newest = _newest(r.path, next_of, by_path)
            superseded.append(Overruled(
                r.path, decision, new, _said(by, "decision") if by else "",
                by is not None, newest if newest != new else "",
                _said(by_path[newest], "decision") if newest != new else ""))
        else:
            current.append(Held(r.path, decision, _said(r, "invariant"),
                                tuple(sorted(holds_again.get(r.path, ())))))
    return Positions(tuple(current), tuple(superseded), tuple(dead), tuple(found))


def _options_dead(r: _Read, back: Dict[Tuple[str, int], str],
                  against: Sequence[Reproposal]) -> List[Dead]:
    """One dead design per option ``r`` rejected and no entry revived, each
    with its own reason and the re-proposals matching it."""
    found = []
    for stmt, option in zip(r.rejected, r.entry.options):
        if (r.path, stmt.line) in back:
            continue
        name = sentence(option.name, SENTENCE_CHARS, r.path).rstrip(".")
        why = sentence(option.reason, REASON_CHARS, r.path) if option.reason else ""
        shown = f"{name}: {why}" if why else name
        shown += "" if shown.endswith((".", "!", "?")) else "."
        found.append(Dead(r.path, stmt.text, tuple(
            p for p in against if p.design_line == stmt.line), (), shown, shown))
    return found


def _newest(path: str, next_of: Any, by_path: Dict[str, _Read]) -> str:
    """The end of ``path``'s supersede chain among the entries read: it stops
    at a missing entry or where a cycle turns back."""
    at, seen = next_of(path) or path, {path}
    while at in by_path and at not in seen:
        seen.add(at)
        nxt = next_of(at)
        if not nxt or nxt not in by_path or nxt in seen:
            break
        at = nxt
    return at


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
    if role == "rejected" and entry.options:  # a list of options: each one
        return tuple(similarity.Statement(path, o.line, o.name.strip(" ."))
                     for o in entry.options)
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


REVISIT_HOPS = 32  # the records one record's revisits lead to, at most


def revisiting(read: Sequence[_Read]) -> Dict[str, Set[str]]:
    """Each record -> the records that revisit it: those its status area
    names (``Entry.revisited_by``: Amended by X, a part superseded by X),
    and those that revisit them in turn (curie's 0063, then 0078, then
    0082), at most ``REVISIT_HOPS`` from each: a newer one may hold again
    what the first rejected, as its authors recorded."""
    by_path = {r.path: r for r in read}
    after: Dict[str, Set[str]] = {}
    for r in read:
        seen: Set[str] = set()
        todo = [t for t, _ in reversed(r.entry.revisited_by)]
        while todo and len(seen) < REVISIT_HOPS:
            t = todo.pop()
            if t in seen or t == r.path or t not in by_path:
                continue
            seen.add(t)
            todo += [u for u, _ in reversed(by_path[t].entry.revisited_by)]
        after[r.path] = seen
    return after


def revived(read: Sequence[_Read], replaced: Dict[str, Tuple[str, int]],
            after: Dict[str, Set[str]]) -> Dict[Tuple[str, int], str]:
    """The Rejected alternatives (entry, line) a newer entry brought back,
    each with that entry: it says ``Revives: <entry>`` (the alternative its
    Decision is most like, the first when it is like none), or it supersedes
    the entry and its Decision holds that alternative (``REVIVED_SHARE`` of
    its words), or it revisits the entry (``after``: ``revisiting``) and its
    Decision holds that alternative. A revived design is current, not
    dead: the one answer the warning and the view both ask."""
    by_path = {r.path: r for r in read}
    revisits: Dict[str, Set[str]] = {}  # record -> the records it revisits
    for first, later in after.items():
        for p in later:
            revisits.setdefault(p, set()).add(first)
    back: Dict[Tuple[str, int], str] = {}
    for r in read:
        said = " ".join(s.text for s in r.decided) or r.entry.said("decision")
        named = set(r.revives)
        named.update(p for p in by_path
                     if replaced.get(p, ("", 0))[0] == r.path)
        named.update(revisits.get(r.path, ()))
        for target in sorted(named):
            old = by_path.get(target)
            if old is None or not old.rejected or target == r.path:
                continue
            ranker = similarity.Ranker([s.text for s in old.rejected])
            ranked = ranker.ranked(said, REVIVED_SHARE, contained=True)
            if ranked:
                back.setdefault((target, old.rejected[ranked[0][0]].line), r.path)
            elif target in r.revives:
                back.setdefault((target, old.rejected[0].line), r.path)
    return back


def _shown(r: _Read, back: Dict[Tuple[str, int], str], lay: journal.Layout
           ) -> str:
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
                 lay: journal.Layout, after: Dict[str, Set[str]]
                 ) -> List[Reproposal]:
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
            acknowledged = rejecter.path in revived_here or by == path or \
                path in after.get(rejecter.path, ())
            found.append(Reproposal(
                path, line, rejecter.path, design.text, round(score, 3),
                acknowledged, by if superseded else "", design.line))
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


def rooted_link(path: str) -> str:
    """A link to ``path`` from the root (``/journal/x.md``): it reads the same
    from any file, or from a document on stdout."""
    dest = quote("/" + path, safe="/", errors="surrogateescape")
    return f"[{_text(path)}]({dest})"



def plain_text(text: str) -> str:
    """Repository text shown as text in a view's markdown (``_text``)."""
    return _text(text)



def quoted(alternative: str) -> str:
    """A Rejected alternative as a warning quotes it: no final stop, a
    capital that only starts the sentence lowered, capped."""
    text = _clipped(alternative, QUOTE_CHARS).rstrip(".")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text


PREAMBLE = ("Compiled by `icm positions`; do not edit. Read before proposing work: "
            "reviving a Rejected design needs a `Revives:` line.")

SECTIONS = ("Current", "Superseded", "Rejected")



def render_markdown(view: Positions, base: str = "", budget: int = 0) -> str:
    """The view as markdown, links relative to the folder ``base``. With a
    ``budget`` (tokens, bytes / 4) each section keeps its first lines, the
    sections taking turns, until the next line would not fit; the last line
    counts what was cut."""
    lines = [_current_lines(view, base), _superseded_lines(view, base),
             _rejected_lines(view, base)]
    counts = _fit(lines, budget) if budget > 0 else [len(ls) for ls in lines]
    out = [PREAMBLE]
    for title, shown, count in zip(SECTIONS, lines, counts):
        out += ["", f"## {title}", ""]
        out += shown[:count] or ["(none shown)" if shown else "(none)"]
    cut = sum(len(ls) for ls in lines) - sum(counts)
    if cut:
        out += ["", not_shown(cut, budget)]
    return "\n".join(out) + "\n"



def not_shown(cut: int, budget: int) -> str:
    """The last line of a view (or a brief) that a budget cut."""
    return f"... {cut} more positions not shown (budget {budget} tokens)"



def _fit(lines: Sequence[Sequence[str]], budget: int) -> List[int]:
    """How many lines of each section fit ``budget`` with the layout of
    ``render_markdown``: one at a time from each section in turn, a section
    closed at its first line that does not fit (cut from the bottom).
    Sizes are summed, never re-rendered: linear in the lines."""
    def size(line: str) -> int:
        return len(line.encode("utf-8", "surrogateescape")) + 1

    fixed = size(PREAMBLE) + sum(size("") * 2 + size(f"## {t}") for t in SECTIONS)
    empty = [size("(none shown)" if ls else "(none)") for ls in lines]
    total = sum(len(ls) for ls in lines)
    counts = [0] * len(lines)
    used = fixed + sum(empty)
    going = [bool(ls) for ls in lines]

    def tokens(extra: int, shown: int) -> int:
        cut = total - shown
        tail = size("") + size(not_shown(cut, budget)) if cut else 0
        return (used + extra + tail) // 4

    shown = 0
    while any(going):
        for i, section in enumerate(lines):
            if not going[i]:
                continue
            n = counts[i]
            extra = size(section[n]) - (empty[i] if n == 0 else 0)
            if tokens(extra, shown + 1) > budget:
                going[i] = False
                continue
            used += extra
            counts[i], shown = n + 1, shown + 1
            going[i] = counts[i] < len(section)
    return counts



def _current_lines(view: Positions, base: str) -> List[str]:
    out = []
    for held in view.current:
        said = " ".join(s for s in (held.decision, held.invariant) if s)
        again = (" (revives what " + ", ".join(_link(p, base) for p in held.revives)
                 + " rejected)") if held.revives else ""
        out.append(f"- {_link(held.path, base)}: {inert(said) or '(no Decision)'}"
                   f"{again}")
    return out



def _superseded_lines(view: Positions, base: str) -> List[str]:
    out = []
    for old in view.superseded:
        if not old.known:  # no link: check-links would repeat the orphan
            by = f"{_text(old.by)} (missing)"
        elif old.newest:
            by = (f"{_link(old.by, base)}, now by {_link(old.newest, base)}: "
                  f"{inert(old.newest_why)}")
        else:
            by = f"{_link(old.by, base)}: {inert(old.why)}"
        out.append(f"- {_link(old.path, base)}: {inert(old.decision)} Replaced by "
                   f"{by}")
    return out



def _rejected_lines(view: Positions, base: str) -> List[str]:
    out = []
    first = True
    for dead in view.rejected:
        if dead.revived_by:
            continue  # held again: a current decision, not a dead design
        times = len(dead.reproposals)
        label = (("**most re-invented**, " if first else "")
                 + f"re-proposed {times}x: ") if times else ""
        first = first and not times
        said = dead.shown or _escaped(_clipped(dead.alternative, SENTENCE_CHARS))
        out.append(f"- {label}{inert(said)} ({_link(dead.path, base)})")
    return out



def only(view: Positions, entries: Set[str]) -> Positions:
    """The view of ``entries`` alone (``icm positions --folder``)."""
    return Positions(tuple(h for h in view.current if h.path in entries),
                     tuple(o for o in view.superseded if o.path in entries),
                     tuple(d for d in view.rejected if d.path in entries),
                     view.reproposals)


def as_json(view: Positions) -> Dict[str, Any]:
    def proposal(p: Reproposal) -> Dict[str, Any]:
        return {"path": p.path, "line": p.line, "similarity": p.score,
                "acknowledged": p.acknowledged}

    top = next((d for d in view.rejected  # one design, not its entry's
                if d.reproposals and not d.revived_by), None)
    return {
        "current": [{"entry": h.path, "decision": h.decision,
                     "invariant": h.invariant, "revives": list(h.revives)}
                    for h in view.current],
        "superseded": [{"entry": o.path, "decision": o.decision,
                        "superseded_by": o.by, "why": o.why,
                        "newest": o.newest or (o.by if o.known else None)}
                       for o in view.superseded],
        "rejected": [{"entry": d.path, "alternative": d.alternative,
                      "reproposed": len(d.reproposals),
                      "most_reinvented": d is top,
                      "revived_by": list(d.revived_by),
                      "reproposals": [proposal(p) for p in d.reproposals]}
                     for d in view.rejected],
    }


def block_text(view: Positions, positions_file: str, budget: int = 0) -> str:
    """What belongs between the markers of ``positions_file``."""
    return render_markdown(view, posixpath.dirname(positions_file), budget)


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

