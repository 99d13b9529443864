"""Statement similarity: one implementation for every feature that asks
"is this the same statement?" (the dupes check; later the re-invention
warning and the queue's "same work twice").

A **statement** is a paragraph or a list item's paragraph of a markdown
document (``statements``); headings, code blocks, tables and HTML are left
out. Its text is **normalised** (``tokens``) into case-folded words, with
numbers, code spans and paths kept as tokens of their own kind ("material":
where copies diverge), markup and punctuation dropped and ``n't`` spelled
``not``. The **skeleton** of a statement masks its material and drops the
negation words (``not``, ``no``, ``never``, ``always``).

Similarity (``similarity``) is the larger of two measures over skeletons:
the Jaccard index of their content-word sets (robust to reordered words)
and the containment of the shorter statement's word bigrams in the longer
one's (a sentence copied out of a long paragraph, a paragraph split in
two). ``differences`` aligns two statements (difflib's alignment while it
stays under ``ALIGN_STEPS``, a patience alignment past them) and names what
differs in material or polarity: ``[Difference("number", "64 KiB", "1 MiB")]``.

Candidates come from an inverted index of skeleton bigrams: only bigrams
that two to ``cap`` statements hold get a posting list (one held once
cannot pair; one held by more is boilerplate, and its list would make the
work quadratic), and two statements are scored when they share
``MIN_SHARED`` of them, so the cost grows with the text, not its square.
Statements with equal skeletons are grouped by hash, uncapped: a copy that
differs only in a number, a path, a code span or a negation is always
found, whatever its similarity. A statement carrying ``ALLOW_MARKER`` has
``allowed`` set; what that means is the caller's decision.

API::

    stmts = statements(text, "src/context.md")      # List[Statement]
    index = Index(stmts)
    for m in index.pairs(0.75, accept):             # m.a earlier than m.b
        m.a, m.b, m.score, m.differences, m.diverged, m.line_a, m.line_b
    index.nearest("some new text", 0.75)            # best first, aligned
    index.like("some new text", 0.5, min_shared=0)  # [(position, score)]

Every function is pure and linear or capped in its input.
"""

from __future__ import annotations

import math
import posixpath
import re
import sys
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass
from difflib import Match as Block
from difflib import SequenceMatcher
from itertools import accumulate, chain
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from icm.cache import paused_gc

ALLOW_MARKER = "<!-- icm: allow-duplicate -->"
POSTING_CAP = 16  # statements per bigram before it stops finding candidates
MIN_SHARED = 2  # bigrams two statements share before they are compared
MAX_TOKENS = 2000  # tokens of one statement that are compared (a cap, not a rule)
SPAN_CHARS = 60  # longest excerpt a difference quotes
UNIT_CHARS = 5  # a short word after a number is quoted with it (KiB, ms, times)
EDIT_TOKENS = 4  # longest edit, per side, read as a changed value or polarity
# difflib's alignment is cubic at worst ('a b c' against 'a c b', 1,000 words:
# 5 s); these steps (about 20 ms) are far more than any prose pair takes.
ALIGN_STEPS = 200_000
ANCHOR_DEPTH = 8  # passes of the patience alignment that takes over past them

NUMBER, CODE, PATH, WORD = "number", "code", "path", "word"
VERSION = "version"  # a kind of difference: a number that pins a release
MATERIAL = (NUMBER, CODE, PATH)
NEGATIONS = frozenset({"not", "no", "never", "always"})
_MASK = {NUMBER: "#", CODE: "`", PATH: "/"}
_MASKED = frozenset(_MASK.values())
# A code span's value, as written: tried only from a run's first backtick
# (from inside one, every start rescanned the run: quadratic)
_SPAN = re.compile(r"(?<!`)`+([^`]+)`+")

# Words too common to say which rule a statement is (content-word Jaccard
# ignores them; bigrams keep them, since "must not" is made of such words).
STOPWORDS = frozenset("""
a an the and or but if then so of to in on at by for with from as into onto
is are was were be been being it its this that these those there here which
who whom what when where why how do does did done has have had will would
shall should can could may might must also only just than too very all any
each every some such own same other more most one both either neither nor
not no never always we you they he she i me my our your their them us
""".split())

# Material that is not a plain word, masked before words are found: code
# spans, paths and URLs become a marker of the same length (offsets stay
# valid); HTML and link destinations become spaces.
# Every repetition is bounded, so an unclosed backtick or comment costs a
# bounded look-ahead, never a scan to the end of the text (quadratic). A code
# span opens with a whole run of backticks, as in CommonMark: tried from
# inside a run, each of its lengths at each of its places, 20,000 backticks
# took 17 s. A path may start after ``:`` or ``+`` (never with one), so the
# look-ahead for its ``/`` or ``.`` (within a file name's 255 characters) and
# a URL's scheme (32) are bounded too: unbounded, each ``:`` of
# ``'a:' * 20000`` re-read the rest (1 s; 4 s at twice the size).
_CODE = r"(?<!`)(`+)(?!`).{1,1000}?"
_MATERIAL = re.compile(
    rf"(?P<code>{_CODE}\2)"
    r"|(?P<skip><!--.{0,1000}?-->|</?[A-Za-z][^<>\n]{0,500}>"
    r"|\]\([^()\s]{0,1000}(?:\([^()\s]{0,500}\)[^()\s]{0,500})?"
    r"(?:\s+\"[^\"\n]{0,500}\")?\)"
    r"|\]\[[^\]\n]{0,500}\])"
    r"|(?<![\w.@/~-])(?=[\w.@~/-])(?=[\w.@~/:+-]{0,255}[/.][\w~.*])"
    r"(?P<path>[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s<>()\[\]`]+"
    r"|(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@*-]*"
    r"|[\w@-]*\w[\w@-]\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/]))",
    re.DOTALL,
)
# Bigrams of two stop words ("of the") say nothing about which rule a
# statement is: scored, never used to find candidates.
_STOP_PAIRS = frozenset(hash((a, b)) for a in STOPWORDS for b in STOPWORDS)
_MAYBE_MATERIAL = re.compile(r"[`<\]/]|\w\.\w")  # most statements have none
_CODE_MARK, _PATH_MARK, _FILL = "\x01", "\x02", "\x04"
# a number may carry a range operator written against it (``^20.19.0``,
# ``>=20.19.0``): the operator is part of the value a version pins
_WORDS = re.compile(r"[\x01\x02]\x04*|(?:[~^]|[<>]=?|==?)?\d+(?:[.,]\d+)*%?"
                    r"|[^\W\d_](?:[\w']*\w)?")
_NUMERIC = frozenset("0123456789~^<>=")
_CONTRACTION = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}


@dataclass(frozen=True)
class Statement:
    """One paragraph or list item of one document."""

    path: str
    line: int  # 1-based line of the statement's first line
    text: str  # source text (markup kept; line breaks kept)
    allowed: bool = False  # carries the allow-duplicate marker
    headings: Tuple[str, ...] = ()  # the enclosing headings, outermost first


@dataclass(frozen=True)
class Tokens:
    """A normalised statement: parallel tuples, one entry per token."""

    values: Tuple[str, ...]
    kinds: Tuple[str, ...]
    starts: Tuple[int, ...]  # offsets into the statement text
    ends: Tuple[int, ...]

    def __len__(self) -> int:
        return len(self.values)

    def skeleton(self) -> Tuple[str, ...]:
        """Material masked, negation words dropped."""
        return tuple(_MASK.get(k, v) for v, k in zip(self.values, self.kinds)
                     if not (k == WORD and v in NEGATIONS))


@dataclass(frozen=True)
class Difference:
    kind: str  # number, version, code, path or negation
    left: str  # as written in the first statement (whitespace collapsed)
    right: str  # as written in the second


@dataclass(frozen=True)
class Match:
    a: Statement  # the earlier statement in the index's order
    b: Statement
    score: float
    differences: Tuple[Difference, ...]
    line_a: int  # line of the first difference, else of the aligned part
    line_b: int  # (a long paragraph spans many lines)

    @property
    def diverged(self) -> bool:
        return bool(self.differences)


# -- statements ----------------------------------------------------------------


def statements(text: str, path: str = "",
               keep: Optional[Callable[[Sequence[Tuple[int, str]]], bool]] = None
               ) -> List[Statement]:
    """The statements of one markdown document. ``keep`` receives the
    (level, text) of the headings above a paragraph, outermost first, and
    says whether the paragraph counts; by default every paragraph does."""
    from icm import markdown

    if text.startswith("\ufeff"):
        text = text[1:]
    found: List[Statement] = []
    trail: List[Tuple[int, str]] = []  # (level, text) of the enclosing headings
    for block in markdown.blocks(text):
        if block.kind == "heading":
            while trail and trail[-1][0] >= block.level:
                trail.pop()
            trail.append((block.level, block.text))
            continue
        if keep is not None and not keep(trail):
            continue
        allowed = block.comment == ALLOW_MARKER or (
            ALLOW_MARKER in block.text and ALLOW_MARKER in _without_code(block.text))
        found.append(Statement(path, block.line, block.text.strip(), allowed,
                               tuple(t for _level, t in trail)))
    return found


def _without_code(text: str) -> str:
    return re.sub(rf"{_CODE}\1", "", text, flags=re.DOTALL)


# -- normalisation -------------------------------------------------------------


def _mask(text: str) -> str:
    def repl(m: "re.Match[str]") -> str:
        size = m.end() - m.start()
        if m.lastgroup == "skip":
            return " " * size
        mark = _CODE_MARK if m.lastgroup == "code" else _PATH_MARK
        return mark + _FILL * (size - 1)

    text = text.replace("\u2019", "'")
    return _MATERIAL.sub(repl, text) if _MAYBE_MATERIAL.search(text) else text


def _words(word: str) -> Tuple[str, ...]:
    """One written word as normalised words: ``don't`` is ``do not``."""
    word = word.strip("'")
    if word.endswith("n't"):
        base = word[:-3]
        return (_CONTRACTION.get(base, base), "not")
    if word == "cannot":
        return ("can", "not")
    if word.endswith("'s"):
        return (word[:-2],)
    return (word,) if word else ()


def tokens(text: str) -> Tokens:
    """Normalise one statement's text (see the module docstring)."""
    values: List[str] = []
    kinds: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    for n, m in enumerate(_WORDS.finditer(_mask(text))):
        if n >= MAX_TOKENS:
            break
        start, end = m.span()
        first = m.group()[0]
        if first == _CODE_MARK:
            ticks = len(text[start:end]) - len(text[start:end].lstrip("`"))
            parts = [(" ".join(text[start + ticks:end - ticks].split()), CODE)]
        elif first == _PATH_MARK:
            parts = [(text[start:end].rstrip(".,;:").lower(), PATH)]
        elif first in _NUMERIC:
            parts = [(m.group().replace(",", ""), NUMBER)]
        else:
            parts = [(w, WORD) for w in _words(m.group().lower())]
        for value, kind in parts:
            values.append(value)
            kinds.append(kind)
            starts.append(start)
            ends.append(end)
    return Tokens(tuple(values), tuple(kinds), tuple(starts), tuple(ends))


_SKELETON_WORD: Dict[str, Tuple[str, ...]] = {}


def _skeleton_of(word: str) -> Tuple[str, ...]:
    first = word[0]
    if first == _CODE_MARK:
        return ("`",)
    if first == _PATH_MARK:
        return ("/",)
    if first in _NUMERIC:
        return ("#",)
    # interned: every statement holds the one copy of each word
    found = tuple(sys.intern(w) for w in _words(word.lower()) if w not in NEGATIONS)
    if len(_SKELETON_WORD) < 100_000:  # a memo, capped
        _SKELETON_WORD[word] = found
    return found


def skeleton(text: str) -> Tuple[Tuple[str, ...], int]:
    """(``tokens(text).skeleton()``, words as written), without offsets:
    what the index needs, at a fraction of the cost."""
    masked = _mask(text)
    # lower() may change the length of non-ASCII text: then word by word
    found = _WORDS.findall(masked.lower() if masked.isascii() else masked)
    words = found[:MAX_TOKENS]
    hits = list(map(_SKELETON_WORD.get, words))
    if None in hits:
        hits = [_skeleton_of(w) if h is None else h for w, h in zip(words, hits)]
    return tuple(chain.from_iterable(hits)), len(found)  # type: ignore[arg-type]


def word_count(text: str) -> int:
    """Words as written (a code span or a path counts as one)."""
    return skeleton(text)[1]


# -- similarity ----------------------------------------------------------------


def _bigrams(skel: Tuple[str, ...]) -> FrozenSet[int]:
    """Hashes of the skeleton's word bigrams: an int is half the memory of a
    pair of strings, and a collision only adds a candidate or a point of
    score to an unrelated pair once in 2**64."""
    if len(skel) > 1:
        return frozenset(map(hash, zip(skel, skel[1:])))
    return frozenset({hash((skel[0], ""))}) if skel else frozenset()


def _content(skel: Tuple[str, ...]) -> FrozenSet[str]:
    return frozenset(skel).difference(STOPWORDS)


def _score(words_a: FrozenSet[str], bigrams_a: FrozenSet[int],
           words_b: FrozenSet[str], bigrams_b: FrozenSet[int]
           ) -> float:
    """The larger of content-word Jaccard and bigram containment; 0.0 when
    either holds no word but its material (a list of code spans says no
    rule: test3's CRD list matched every statement naming three spans)."""
    if words_a <= _MASKED or words_b <= _MASKED:
        return 0.0
    union = len(words_a | words_b)
    jaccard = len(words_a & words_b) / union if union else 0.0
    shorter = min(len(bigrams_a), len(bigrams_b))
    contained = len(bigrams_a & bigrams_b) / shorter if shorter else 0.0
    return max(jaccard, contained)


def similarity(a: str, b: str) -> float:
    """How alike two statements are, 0.0 to 1.0 (material and negation
    ignored: ``differences`` reports those)."""
    sa, sb = skeleton(a)[0], skeleton(b)[0]
    if sa == sb and sa:
        return 1.0  # equal skeletons: one statement, its values aside
    return _score(_content(sa), _bigrams(sa), _content(sb), _bigrams(sb))


def differences(a: str, b: str, at_a: Optional[Statement] = None,
                at_b: Optional[Statement] = None) -> Tuple[Difference, ...]:
    """What two statements disagree on: numbers, versions, paths, code spans
    and negation, each quoted as written. ``at_a`` and ``at_b`` place them
    (their note and headings): relative paths are resolved from each note's
    folder, and values that name each statement's own folder or heading are
    no disagreement (``parallel``)."""
    return _differences(a, tokens(a), b, tokens(b), at_a, at_b)[0]


def parallel(a: Statement, b: Statement) -> bool:
    """Whether two statements alike in form are each about their own subject:
    their note-relative links or paths name different targets, or every value
    they differ in names the folder or heading of its own statement."""
    return _differences(a.text, tokens(a.text), b.text, tokens(b.text), a, b)[3]


# -- where a statement stands --------------------------------------------------

_DEST = re.compile(r"\]\(\s*<?([^()\s<>]{1,1000})")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}:")
_PARTS = re.compile(r"[^\W_]+")  # the words of a value: `sdk/go/` -> sdk, go


def resolve(path: str, folder: str) -> str:
    """A path written in a note of ``folder`` (``""``: the root), read from
    that folder and normalised: ``../fern/apis/**`` in ``docs/`` is
    ``fern/apis/**``. A URL or an absolute path is returned as written; a
    trailing ``/`` is kept (a folder); one above the root keeps its ``..``."""
    if _SCHEME.match(path) or path.startswith(("/", "~")):
        return path
    joined = posixpath.normpath(posixpath.join(folder, path))
    return joined + "/" if path.endswith("/") and joined != "." else joined


def _explicit(path: str) -> bool:
    return path.startswith(("./", "../"))


def _pathlike(value: str) -> bool:
    return bool(value) and not any(c.isspace() for c in value) and (
        "/" in value or "." in value.strip(".")) and not _SCHEME.match(value)


def same_path(p: str, folder_p: str, q: str, folder_q: str) -> bool:
    """Whether two paths, each written in a note of its folder, can name one
    target. ``./x`` and ``../x`` are read from their folder only; a bare
    ``src/x`` may be from the folder or from the root (notes write both); a
    file's name alone (``Input.tsx``) names it wherever it sits
    (``src/components/Input.tsx``), and a bare path the tail of the other's
    reading from its folder names that (``features/players/`` in the root's
    layout, ``players/`` in ``backend/app/features/``'s note)."""
    if _readings(p, folder_p) & _readings(q, folder_q):
        return True
    for name, other, folder in ((p, q, folder_p), (q, p, folder_q)):
        if not (_pathlike(name) and _pathlike(other)) or _explicit(other):
            continue
        if "/" not in name and other.rsplit("/", 1)[-1] == name:
            return True
        if not _explicit(name):
            # the other names more of the path than ``name`` wrote, and
            # what its folder adds to ``name`` is that
            here = resolve(name, "").rstrip("/")
            tail = resolve(other, "").rstrip("/")
            if tail.count("/") > here.count("/") and \
                    resolve(name, folder).rstrip("/").endswith("/" + tail):
                return True
    return False


# One thing named twice: a crate and its module (`foo-bar`, `foo_bar`), a
# file and its module (`api.rs`, `api`), a call with and without arguments
# (`auto_impl`, `#[auto_impl(&, Arc)]`; `Stream`, `Stream<Item = T>`):
# blueprint's crate and src notes, 6 of its 7 false diverged copies.
_ATTRIBUTE = re.compile(r"#!?\[(.{1,200})\]")
_ARGUMENTS = re.compile(r"(?:\(.{0,200}\)|<.{0,200}>)+[!?]?")
_EXTENSION = re.compile(r"\.[a-z][a-z0-9]{0,3}")


def _name(value: str) -> str:
    held = _ATTRIBUTE.fullmatch(value)
    core = held.group(1) if held else value
    bare = _ARGUMENTS.search(core)
    if bare is not None and bare.end() == len(core) and bare.start() > 0:
        core = core[:bare.start()]
    return core.casefold().replace("-", "_")


def same_name(x: str, y: str) -> bool:
    """Whether two code values name one thing: equal once case, ``-`` for
    ``_``, an attribute's ``#[...]``, trailing arguments and, on one side
    only, a file extension are set aside. A path is ``same_path``'s."""
    nx, ny = _name(x), _name(y)
    if not nx or not ny or "/" in nx + ny or " " in nx + ny:
        return nx == ny and bool(nx)
    for a, b in ((nx, ny), (ny, nx)):
        stem, dot, ext = a.rpartition(".")
        if dot and stem and _EXTENSION.fullmatch("." + ext) and "." not in b:
            a = stem
        if a == b:
            return True
    return False


def _readings(path: str, folder: str) -> FrozenSet[str]:
    if not _pathlike(path):
        return frozenset({path})
    found = {resolve(path, folder)}
    if not _explicit(path):
        found.add(resolve(path, ""))
    return frozenset(found)


@dataclass(frozen=True)
class _Place:
    folder: str
    subjects: FrozenSet[str]  # words of its folder's parts and its headings

    @staticmethod
    def of(stmt: Optional[Statement]) -> "_Place":
        if stmt is None or not stmt.path:
            return _Place("", frozenset())
        folder = posixpath.dirname(stmt.path)
        words = set(_PARTS.findall(folder.lower()))
        for heading in stmt.headings:
            words.update(_content(skeleton(heading)[0]))
        return _Place(folder, frozenset(words))


def _local_targets(text: str, toks: Tokens, folder: str) -> FrozenSet[str]:
    """What a statement's note-relative links and ``./``/``../`` paths name."""
    found = set()
    if "](" in text:
        for m in _DEST.finditer(text):
            dest = m.group(1).split("#", 1)[0]
            if dest and not _SCHEME.match(dest) and not dest.startswith("/"):
                found.add(resolve(dest, folder))
    for value, kind in zip(toks.values, toks.kinds):
        if kind in (PATH, CODE) and _explicit(value) and _pathlike(value):
            found.add(resolve(value, folder))
    return frozenset(found)


def _alternation(values: Sequence[str], kinds: Sequence[str]) -> Optional[Set[str]]:
    """The members of a run of scope words (``TS/TSX``, ``Node/Bun``, ``TS``)
    or None when it holds anything else (a file, a folder, a number)."""
    found: Set[str] = set()
    for value, kind in zip(values, kinds):
        if kind == WORD:
            if value not in STOPWORDS:
                found.add(value)
        elif kind == PATH and "." not in value and not value.endswith("/") and (
                not value.startswith("/")):
            found.update(value.split("/"))
        else:
            return None
    return found or None


def _polarity(values: Sequence[str]) -> int:
    """Odd for a negated edit: ``never``, ``do not`` and ``must not`` alike."""
    return sum(v in ("not", "no", "never") for v in values) % 2


def _explained(va: Sequence[str], vb: Sequence[str], pa: _Place, pb: _Place
               ) -> bool:
    """Whether a changed value names its own statement's subject (a
    per-package fact: `packages/graph/src` under graph, `packages/api/src`
    in packages/api)."""
    parts_a = set(_PARTS.findall(" ".join(va).lower()))
    parts_b = set(_PARTS.findall(" ".join(vb).lower()))
    own_a = (parts_a - parts_b) & (pa.subjects - pb.subjects)
    own_b = (parts_b - parts_a) & (pb.subjects - pa.subjects)
    return bool(own_a or own_b)


def _mirrored(va: Sequence[str], vb: Sequence[str], pa: _Place, pb: _Place
              ) -> bool:
    """Whether each changed value names the other statement's folder or
    heading (mirrored steps: a hook's note names the skill's file, the
    skill's note the hook's), so neither is a copy of the other."""
    parts_a = set(_PARTS.findall(" ".join(va).lower()))
    parts_b = set(_PARTS.findall(" ".join(vb).lower()))
    return bool((parts_a - parts_b) & (pb.subjects - pa.subjects)) and bool(
        (parts_b - parts_a) & (pa.subjects - pb.subjects))


_PLACEHOLDER = re.compile(r"\s*<[^<>\s]{1,40}>")
TARGET_WORDS = 3  # words of a command in a code span for it to be a target


def maybe_material(text: str) -> bool:
    """Whether a text may hold a path or code span (most prose does not,
    and is never tokenised for ``targets`` or ``written``)."""
    return _MAYBE_MATERIAL.search(text) is not None


def targets(stmt: Statement, toks: Optional[Tokens] = None) -> FrozenSet[str]:
    """What a statement names, as each note means it: its paths and
    path-like code spans resolved from its note's folder (``prisma/x`` in
    ``packages/shared/`` is ``packages/shared/prisma/x``), and commands of
    ``TARGET_WORDS`` words or more, placeholders (``<file>``) cut, as run
    in the note's folder (every SDK's own `make lint` is its own).
    Two notes naming one target under a shared label ("Postgres schema")
    state one fact however few their words (restated rules)."""
    if toks is None:
        if _MAYBE_MATERIAL.search(stmt.text) is None:
            return frozenset()  # no path or code span (most prose)
        toks = tokens(stmt.text)
    folder = posixpath.dirname(stmt.path)
    found = set()
    for value, kind in zip(toks.values, toks.kinds):
        if kind not in (PATH, CODE):
            continue
        value = _PLACEHOLDER.sub("", value).strip()
        if any(c.isspace() for c in value):
            if len(value.split()) >= TARGET_WORDS:  # run where its note is
                found.add(f"{folder}$ " + " ".join(value.split()))
        elif _pathlike(value) and "*" not in value and "{" not in value:
            found.add(resolve(value, folder).rstrip("/"))
    return frozenset(found)


WRITTEN_CAP = 3  # statements a written term is held by before it says little
_TERM = re.compile(r"[\w.:/+-]*[_.:/A-Z][\w.:/+-]*")


def written(stmt: Statement, toks: Optional[Tokens] = None) -> FrozenSet[str]:
    """A statement's distinctive terms as written, wherever its note is: its
    paths, commands (two words or more, placeholders cut) and code spans
    shaped like an identifier (`lsp_diagnostics_directory`, `fmt.Errorf`),
    a leading ``./`` or ``/`` dropped. A term few statements hold names one
    fact however each note's folder reads it: "Update `docs/REFERENCE.md`"
    in ``src/`` and ``src/agents/`` (a target resolves them apart);
    ``WRITTEN_CAP`` keeps a common one (every SDK's `make lint`) out."""
    if toks is None:
        if _MAYBE_MATERIAL.search(stmt.text) is None:
            return frozenset()
        toks = tokens(stmt.text)
    found = set()
    for value, kind in zip(toks.values, toks.kinds):
        if kind not in (PATH, CODE):
            continue
        value = " ".join(_PLACEHOLDER.sub("", value).split())
        while value.startswith(("./", "/")):
            value = value[2:] if value.startswith("./") else value[1:]
        if len(value) < 4:
            continue
        if " " in value or kind == PATH or _TERM.fullmatch(value) and (
                any(c.isalpha() for c in value)):
            found.add(value.lower())
    return frozenset(found)


# A note's word about itself: every generated note says it, each of its own
# ("Note: This file was automatically generated", "No unit tests in this
# module", a "**Version**: ... | **Status**: ..." header). Two of them are
# no rule held twice (test2's ecchronos: 14 of its 15 false copies).
_SELF = re.compile(r"\bthis\s+(?:file|module|directory|dir|folder|package|crate|"
                   r"namespace|document|note|subsystem|component|page|"
                   r"subdirectory|submodule)\b", re.IGNORECASE)
_FIELD = re.compile(r"\*\*([^*\n]{1,40}?)(?::\*\*|\*\*\s*:)")
_META = frozenset({"version", "status", "updated", "last updated", "generated",
                   "commit", "branch", "category", "date", "author", "owner",
                   "maintainer", "created", "revision"})
_ITEM = re.compile(r"\s*(?:[-+]\s+|\d+[.)]\s+)?")
_LABELS = frozenset({"note", "nb", "important"})
_DESCRIBING = frozenset({"this", "these", "no", "there", "here", "it"})


def self_said(text: str) -> bool:
    """Whether a statement is its note's word about itself: a header of
    ``**Field**:`` entries (two or more, one a field like Version or
    Status), one field whose value says its slot is empty ("**Classes**:
    No specific classes exported", "**Exports**: none"), or a statement
    whose subject is "this file", "this module" and the like. An
    instruction about it is a rule the notes share ("Keep the docs of this
    module aligned"), so only a description counts: its first word is
    "This", "No", "There" or a verb's third person ("Handles ... for this
    namespace")."""
    if empty_field(text):
        return True
    fields = _FIELD.findall(text[:2000])
    if len(fields) >= 2 and _ITEM.sub("", text, 1).startswith("**") and any(
            f.strip().lower() in _META for f in fields):
        return True
    if _SELF.search(text[:2000]) is None:
        return False
    words = re.findall(r"[a-z]+", text[:200].lower())
    while words and words[0] in _LABELS:
        words = words[1:]
    if not words:
        return False
    first = words[0]
    return first in _DESCRIBING or (first.endswith("s") and len(first) > 3
                                    and not first.endswith(("ss", "us")))


# A field whose value is "none", or "no ... <participle>": each generated
# note's own empty slot (test3: 24 of 26 false copies), not a prohibition
# ("**Dependencies**: No new runtime dependencies" names no participle).
EMPTY_CHARS = 200
_EMPTY_FIELD = re.compile(
    r"\s*(?:[-+*]\s+|\d+[.)]\s+)?\*\*[^*\n]{1,40}?(?::\*\*|\*\*\s*:)\s*"
    r"(?:none|n/a|nothing|not applicable|[-\u2013\u2014]"
    r"|no(?:\s+[\w-]+){0,5}?\s+(?:[a-z]+ed|found|known|shown|given|yet))"
    r"\s*[.;]?\s*", re.IGNORECASE)

# A description of code: a list item whose subject names a file, a folder, a
# link or an identifier (`` `x.tsx` ``, ``**[debug/](debug/AGENTS.md)**``,
# ``**McpRegistry**``, a ``**Purpose**:`` field) and whose value says what
# it is. A folder note details it and the parent's list or the handbook
# summarises it: two homes of no rule (issue 24: 10 of local-mcp-gateway's
# 17 false copies). A value that instructs (a modal, an imperative first
# word: "`gen.ts` - Never edit by hand", "`test` - Run the suite") is a rule
# about the thing, and a command (a code span with a space) is one to run.
_ITEM_MARK = re.compile(r"\s*(?:[-+*]\s+|\d+[.)]\s+)?")
_SUBJECT = re.compile(
    r"(\*\*)?(?:`[^`\s]{1,200}`|\[[^\]\n]{1,200}\]\([^()\s]{1,500}\)"
    r"|[A-Za-z]\w{0,80}?[a-z][A-Z]\w{0,80}|\w{1,80}[._]\w[\w.]{0,80}"
    r"|(?i:purpose|description|role|responsibility|summary))"
    r"(?:(?(1)\*\*)\s*:|:\*\*|(?(1)\*\*)\s+[-\u2013\u2014])\s+")
_MODAL = re.compile(r"\b(?:must|should|shall|never|always|do\s+not|don't|avoid|"
                    r"prefer|ensure|make\s+sure|need\s+to|have\s+to|has\s+to|"
                    r"only)\b", re.IGNORECASE)
_IMPERATIVE = frozenset("""
use run keep add edit update avoid prefer import call write put make check wrap
follow place set pass create delete remove register export document mark test
read start stop install commit push rebase regenerate build lint format define
declare name return throw validate extend implement override mock see refer
consult prefer copy move rename replace change modify configure enable disable
leave let no don't do never always
""".split())
# More verbs that open an instruction ("Maintain alignment ...", "Record
# outcomes ..."), for ``instructs`` only: after a named function's subject
# ("`from_toml(path)`: load and validate ...") they say what it does, and
# ``describes`` keeps the list above.
_INSTRUCTING = _IMPERATIVE | frozenset("""
record preserve reuse verify ask maintain tell include exclude handle store
log save load send emit fetch generate open close print raise catch require
allow apply bump pin tag merge split group limit cap retry wait skip drop
strip trim escape quote parse sort serialize encode decode sign compare
search find look treat consider remember rely report flag fix resolve review
cover expose hide inject prefix suffix reference cite link list show ship
release deploy publish restart reset clean clear purge cache guard protect
lock unlock respect honour honor obey stick prevent reject accept describe
explain mention state annotate comment type cast convert unwrap await
schedule queue dispatch route bind mount unmount attach detach sync notify
alert
""".split())
# A clause that puts the instruction after its comma: "If these updates are
# not made, tell the developer ..." instructs.
_LEAD_CLAUSE = frozenset("if when whenever before after once unless while until "
                         "for to in on".split())


def empty_field(text: str) -> bool:
    """Whether a statement is one ``**Field**:`` whose value says its slot
    is empty (see above): it says nothing another statement could hold."""
    return len(text) <= EMPTY_CHARS and _EMPTY_FIELD.fullmatch(text) is not None


def describes(text: str) -> bool:
    """Whether a statement is a description of named code (see above)."""
    if len(text) > 2000:
        return False
    mark = _ITEM_MARK.match(text)
    subject = _SUBJECT.match(text, mark.end() if mark else 0)
    if subject is None:
        return False
    value = text[subject.end():]
    if not value.strip() or _MODAL.search(value):
        return False
    for sentence in re.split(r"[.;!]\s+", value):
        words = re.findall(r"[a-z']+", sentence[:80].lower())
        if words and words[0] in _IMPERATIVE:
            return False
    return True


def instructs(text: str) -> bool:
    """Whether a statement tells the reader what to do (a modal, or a
    sentence opening on an imperative), not how the code is: "Depends on
    `x` for y", "Requires Foundry to be installed" describe."""
    if describes(text):
        return False
    if _MODAL.search(text[:2000]):
        return True
    body = _ITEM_MARK.sub("", text[:2000], 1)
    for sentence in re.split(r"[.;!:]\s+|\s+[-\u2013\u2014]{1,2}\s+", body):
        words = re.findall(r"[a-z']+", sentence[:80].lower())
        if words and (words[0] in _IMPERATIVE or words[0] in _INSTRUCTING
                      and not sentence.lstrip().startswith("`")):
            return True  # (a code span's words name code: `generate_x()`)
        if words and words[0] in _LEAD_CLAUSE and "," in sentence:
            after = re.findall(r"[a-z']+", sentence.split(",", 1)[1][:40].lower())
            if after and after[0] in _INSTRUCTING:
                return True
    return False


# A heading that says its items are rules: a line under it instructs
# however it is worded ("`Object.freeze()` in stores - breaks validation"
# under ANTI-PATTERNS, "Final docs go to `docs/`" under Rules).
_RULE_HEADING = re.compile(
    r"\b(?:rules?|conventions?|standards?|guidelines?|anti-?patterns?|"
    r"instructions?|requirements?|polic(?:y|ies)|constraints?|invariants?|"
    r"don'?ts|do\s+not|must|never)\b", re.IGNORECASE)


def under_rules(s: Statement) -> bool:
    """Whether any heading enclosing a statement names rules."""
    return any(_RULE_HEADING.search(h[:200]) for h in s.headings)


# A word that makes a statement hold of a whole kind: "Every reader stops
# at 1 MiB", "nobody edits them by hand", "and nowhere else" say an
# invariant, not what one thing is.
_QUANTIFIER = re.compile(r"\b(?:every|each|all|any|no|none|nobody|no\s+one|"
                         r"nothing|nowhere|neither|nor|without|unless|except)\b",
                         re.IGNORECASE)


# A label and its value: "**Profile**: a named collection of servers",
# "**Admin SPA** (served at `/admin`) - world and user management".
_LABELLED = re.compile(r"\s*(?:[-+*]\s+|\d{1,3}[.)]\s+)?\*\*[^*\n]{1,60}?(?::\*\*|"
                       r"\*\*\s*(?:\([^)\n]{0,80}\)\s*)?(?::|[-\u2013\u2014]{1,2}\s))")


def labelled(text: str) -> bool:
    """Whether a statement is a bold label and its value."""
    return _LABELLED.match(text) is not None


def ruled(s: Statement) -> bool:
    """Whether a statement that does not instruct still reads as a rule:
    it holds of a whole kind (a quantifier) or sits under a heading
    naming rules (``under_rules``)."""
    return bool(_QUANTIFIER.search(s.text[:2000])) or under_rules(s)


def holds_rule(s: Statement) -> bool:
    """Whether a statement reads as a rule however it is worded: it
    instructs (``instructs``) or is ``ruled``. A copy where neither side
    does is a fact or a description said twice."""
    return instructs(s.text) or ruled(s)


def own_subjects(a: Statement, b: Statement) -> bool:
    """Whether two statements, however worded, each name their own folder or
    heading in words the other lacks (every package's own alias, its own
    build step): two rules of one form, no restatement."""
    pa, pb = _Place.of(a), _Place.of(b)
    parts_a = set(_PARTS.findall(" ".join(tokens(a.text).values)))
    parts_b = set(_PARTS.findall(" ".join(tokens(b.text).values)))
    return bool((parts_a - parts_b) & (pa.subjects - pb.subjects)) and bool(
        (parts_b - parts_a) & (pb.subjects - pa.subjects))


def _differences(a: str, ta: Tokens, b: str, tb: Tokens,
                 at_a: Optional[Statement] = None, at_b: Optional[Statement] = None
                 ) -> Tuple[Tuple[Difference, ...], int, int, bool]:
    """(differences, offset in ``a``, offset in ``b``, parallel): the offsets
    are those of the first difference, or of the aligned part when there is
    none; parallel when the two are each about their own subject."""
    pa, pb = _Place.of(at_a), _Place.of(at_b)
    placed = at_a is not None and at_b is not None and pa.folder != pb.folder
    if placed:
        mine = _local_targets(a, ta, pa.folder)
        if mine and mine != _local_targets(b, tb, pb.folder) and _local_targets(
                b, tb, pb.folder):
            return (), 0, 0, True
    ops = _opcodes(ta.values, tb.values)
    found: List[Difference] = []
    first = next((op for op in ops if op[0] == "equal"), None)
    off_a = ta.starts[first[1]] if first else 0
    off_b = tb.starts[first[3]] if first else 0
    at: Optional[Tuple[int, int]] = None  # where the first difference is
    last_equal = max((i for i, op in enumerate(ops) if op[0] == "equal"), default=-1)
    first_equal = next((i for i, op in enumerate(ops) if op[0] == "equal"), -1)
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            continue
        if max(i2 - i1, j2 - j1) > EDIT_TOKENS:
            continue  # a rewritten passage, not a changed value
        inside = first_equal < n < last_equal  # not context around a contained copy
        kinds_a, kinds_b = set(ta.kinds[i1:i2]), set(tb.kinds[j1:j2])
        material = [k for k in MATERIAL if k in kinds_a | kinds_b]
        valued = bool(kinds_a & set(MATERIAL)) and bool(kinds_b & set(MATERIAL))
        negation = _polarity(ta.values[i1:i2]) != _polarity(tb.values[j1:j2])
        if tag == "replace" and material:
            va, vb = ta.values[i1:i2], tb.values[j1:j2]
            scope_a = _alternation(va, ta.kinds[i1:i2])
            scope_b = _alternation(vb, tb.kinds[j1:j2])
            if scope_a and scope_b and (scope_a <= scope_b or scope_b <= scope_a):
                continue  # scope words: `TS/TSX` and `TS` name one rule
            if not valued:
                continue  # a value on one side only: reworded, not changed
            if len(va) == len(vb) and all(
                    same_path(x, pa.folder, y, pb.folder) for x, y in zip(va, vb)):
                continue  # one target written from two folders
            ma = [v for v, k in zip(va, ta.kinds[i1:i2]) if k in MATERIAL]
            mb = [v for v, k in zip(vb, tb.kinds[j1:j2]) if k in MATERIAL]
            if len(ma) == len(mb) and all(map(same_name, ma, mb)):
                continue  # one thing named twice (`api.rs`, the `api` module)
            if placed and (_explained(va, vb, pa, pb) or _mirrored(va, vb, pa, pb)):
                return (), 0, 0, True  # each names its own package, or the other's
            kind = material[0]
            if kind == NUMBER and any(_version(v) for v in va + vb) or (
                    kind == CODE and all(_version(v) for v in va + vb)):
                kind = VERSION
            i1, i2 = _narrow(ta, i1, i2)  # quote the values, not the words
            j1, j2 = _narrow(tb, j1, j2)  # around them
        elif negation and tag != "replace" and _negated(ta.values[:i1]) \
                and _negated(tb.values[:j1]):
            continue  # "Never use X (no `Y`)": a negated rule's emphasis
        elif negation and (inside or tag == "replace" or _only_negations(
                ta.values[i1:i2] + tb.values[j1:j2])):
            if tag != "replace" and _forbids(
                    at_b if _polarity(ta.values[i1:i2]) else at_a):
                continue  # the bare side is an item of a "Do Not" list
            kind = "negation"
            if tag != "replace" and i1 > 0 and j1 > 0:
                i1, j1 = i1 - 1, j1 - 1  # quote the word the negation binds to
            elif tag != "replace" and i2 < len(ta) and j2 < len(tb):
                i2, j2 = i2 + 1, j2 + 1  # at the start: the word after it
        else:
            continue
        if (kind in (NUMBER, VERSION) and ta.kinds[i2 - 1] == NUMBER == tb.kinds[j2 - 1]
                and i2 < len(ta) and j2 < len(tb) and ta.values[i2] == tb.values[j2]
                and _is_unit(ta, i2)):
            i2, j2 = i2 + 1, j2 + 1  # quote the unit: '2 MiB' vs '1 MiB'
        found.append(Difference(kind, _span(a, ta, i1, i2), _span(b, tb, j1, j2)))
        if at is None:
            at = (_start(ta, i1, i2), _start(tb, j1, j2))
    return (tuple(found), *(at or (off_a, off_b)), False)


_VERSION = re.compile(r"(?:[~^]|[<>]=?|==?)?v?\d+(?:\.\d+)*(?:[-+][\w.]+)?")


def _version(value: str) -> bool:
    """``^20.19.0``, ``>=3.9``, ``1.2.3``: a number that pins a release."""
    return bool(_VERSION.fullmatch(value)) and (
        value[0] in "~^<>=v" or value.count(".") >= 2)


class _Costly(Exception):
    """difflib would pass ``ALIGN_STEPS``."""


class _Bounded(SequenceMatcher[str]):
    """difflib's matcher, stopped before its steps pass ``steps``: each
    search is charged, before it runs, the most its loops can take (every
    occurrence in ``b`` of every token of its range of ``a``)."""

    def __init__(self, a: Sequence[str], b: Sequence[str], steps: int) -> None:
        super().__init__(None, a, b, autojunk=False)
        count = Counter(b)
        self._upto = list(accumulate((count[t] for t in a), initial=0))
        self._left, self._size_b = steps, len(b)

    def find_longest_match(self, alo: int = 0, ahi: Optional[int] = None,
                           blo: int = 0, bhi: Optional[int] = None) -> Block:
        ahi = len(self._upto) - 1 if ahi is None else ahi
        bhi = self._size_b if bhi is None else bhi
        self._left -= (2 * (ahi - alo) + bhi - blo
                       + self._upto[ahi] - self._upto[alo])
        if self._left < 0:
            raise _Costly
        return super().find_longest_match(alo, ahi, blo, bhi)


def _opcodes(a: Sequence[str], b: Sequence[str], steps: int = ALIGN_STEPS
             ) -> Sequence[Tuple[str, int, int, int, int]]:
    """difflib's opcodes (``autojunk=False``) where it is cheap, which is
    every pair of prose; past ``steps``, a patience alignment's."""
    try:
        return _Bounded(a, b, steps).get_opcodes()
    except _Costly:
        pass
    blocks: List[Tuple[int, int, int]] = []
    _anchor(a, b, 0, len(a), 0, len(b), blocks, ANCHOR_DEPTH)
    ops: List[Tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in [*_joined(blocks), (len(a), len(b), 0)]:
        tag = ("replace" if i < ai and j < bj else "delete" if i < ai
               else "insert" if j < bj else "")
        if tag:
            ops.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            ops.append(("equal", ai, i, bj, j))
    return ops


def _anchor(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int,
            bhi: int, out: List[Tuple[int, int, int]], depth: int) -> None:
    """Matching blocks of ``a[alo:ahi]`` and ``b[blo:bhi]``, in order: the
    common start and end, then the longest chain of tokens each side holds
    once (patience diff), each gap between them in turn, ``depth`` passes
    deep. A gap with no such token is left unmatched (a rewritten passage).
    Each pass is linear, so the whole is ``depth`` times the tokens."""
    start = alo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo, blo = alo + 1, blo + 1
    if alo > start:
        out.append((start, blo - (alo - start), alo - start))
    end = 0
    while alo < ahi - end and blo < bhi - end and a[ahi - end - 1] == b[bhi - end - 1]:
        end += 1
    ahi, bhi = ahi - end, bhi - end
    if depth and alo < ahi and blo < bhi:
        in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
        at_b = {t: j for j, t in enumerate(b[blo:bhi], blo)
                if in_b[t] == 1 and in_a[t] == 1}
        chain = _increasing([(i, at_b[t]) for i, t in enumerate(a[alo:ahi], alo)
                             if t in at_b])
        if chain:
            for i, j in chain:
                _anchor(a, b, alo, i, blo, j, out, depth - 1)
                out.append((i, j, 1))
                alo, blo = i + 1, j + 1
            _anchor(a, b, alo, ahi, blo, bhi, out, depth - 1)
    if end:
        out.append((ahi, bhi, end))


def _increasing(pairs: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by the first) whose second
    members increase too, in n log n (patience sorting)."""
    tails: List[int] = []  # smallest second member ending a run of each length
    ends: List[int] = []  # the pair that ends it
    back = [-1] * len(pairs)
    for n, (_i, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
        back[n] = ends[k - 1] if k else -1
    found = []
    n = ends[-1] if ends else -1
    while n >= 0:
        found.append(pairs[n])
        n = back[n]
    return found[::-1]


def _joined(blocks: Iterable[Tuple[int, int, int]]) -> List[Tuple[int, int, int]]:
    """Adjacent blocks as one, as difflib gives them."""
    out: List[Tuple[int, int, int]] = []
    for i, j, size in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + size)
        else:
            out.append((i, j, size))
    return out


def _narrow(toks: Tokens, i1: int, i2: int) -> Tuple[int, int]:
    """The part of a token range from its first to its last material token
    (the whole range when it holds none)."""
    at = [i for i in range(i1, i2) if toks.kinds[i] in MATERIAL]
    if not at:
        return i1, i2
    end = at[-1] + 1
    if end < i2 and _is_unit(toks, end) and toks.kinds[end - 1] == NUMBER:
        end += 1  # '64 KiB', not '64'
    return at[0], end


def _is_unit(toks: Tokens, i: int) -> bool:
    value = toks.values[i]
    return (toks.kinds[i] == WORD and len(value) <= UNIT_CHARS
            and value not in STOPWORDS)


def _start(toks: Tokens, i1: int, i2: int) -> int:
    """Offset of a token range; an empty range sits before token ``i1``."""
    if i1 < i2 or i1 < len(toks.starts):
        return toks.starts[min(i1, len(toks.starts) - 1)]
    return toks.ends[-1] if toks.ends else 0


def _negated(values: Sequence[str]) -> bool:
    """Whether these words hold a negation (``not``, ``no``, ``never``)."""
    return any(v in ("not", "no", "never") for v in values)


# A heading that negates what it lists ("Do Not", "Don'ts", "Never",
# "Avoid"): riot-api-project's "Edit `components/ui/` manually" under one
# agreed with "Never edit manually" (a fresh round 10 tree).
_PROHIBITION = re.compile(
    r"[\W_]*(?:do\s*n[o\u2019']?t|don[\u2019']?ts|never|avoid)\b", re.IGNORECASE)


def _forbids(stmt: Optional[Statement]) -> bool:
    """Whether a statement's innermost heading negates what it lists."""
    return stmt is not None and bool(stmt.headings) and \
        _PROHIBITION.match(stmt.headings[-1][:200]) is not None


def _only_negations(values: Sequence[str]) -> bool:
    """A pure polarity edit ("never" or "do not" put before the rule), as
    opposed to the context around a statement copied out of a longer one."""
    return any(v in NEGATIONS for v in values) and all(
        v in NEGATIONS or v in ("do", "does", "did") for v in values)


def _negations(values: Sequence[str]) -> Tuple[str, ...]:
    return tuple(v for v in values if v in NEGATIONS)


def _span(text: str, toks: Tokens, i1: int, i2: int) -> str:
    if i1 >= i2:
        return ""
    excerpt = " ".join(text[toks.starts[i1]:toks.ends[i2 - 1]].split())
    excerpt = "".join(c if c.isprintable() else " " for c in excerpt)
    if len(excerpt) > SPAN_CHARS:
        excerpt = excerpt[:SPAN_CHARS - 3].rstrip() + "..."
    return excerpt


# -- the index -----------------------------------------------------------------





class Index:
    """Statements prepared for comparison; build once, ask many times.
    Statements of fewer than ``min_words`` words are left out; ``skeletons``
    may bring ``skeleton(s.text)`` of each statement, computed before."""

    def __init__(self, statements: Iterable[Statement], min_words: int = 0,
                 cap: int = POSTING_CAP,
                 skeletons: Optional[Iterable[Tuple[Tuple[str, ...], int]]] = None
                 ) -> None:
        with paused_gc():
            self._build(statements, min_words, cap, skeletons)

    def _build(self, statements: Iterable[Statement], min_words: int, cap: int,
               skeletons: Optional[Iterable[Tuple[Tuple[str, ...], int]]]
               ) -> None:
        self.statements: List[Statement] = []
        self.cap = cap
        self._skeletons: List[Tuple[str, ...]] = []
        self._bigrams: List[FrozenSet[int]] = []
        self._words: Dict[int, FrozenSet[str]] = {}  # content words, when asked
        self._tokens: Dict[int, Tokens] = {}
        self._groups: Dict[Tuple[str, ...], List[int]] = defaultdict(list)
        # ``skeletons``: ``skeleton(s.text)`` per statement, e.g. from a cache
        self._short: Set[int] = set()  # under ``min_words``: paired by skeleton
        keys: List[FrozenSet[int]] = []  # what finds candidates: bigrams, and
        # the word triples around each masked value (see ``_mask_keys``)
        # ``skeletons``: ``skeleton(s.text)`` per statement, e.g. from a cache
        known = iter(skeletons) if skeletons is not None else None
        for stmt in statements:
            skel, words = skeleton(stmt.text) if known is None else next(known)
            short = words < min_words
            if short and not _valued(skel):
                continue
            if short:
                self._short.add(len(self.statements))
            self._groups[skel].append(len(self.statements))
            self.statements.append(stmt)
            self._skeletons.append(skel)
            bigrams = frozenset() if short else _bigrams(skel)
            self._bigrams.append(bigrams)
            keys.append(bigrams | _mask_keys(skel) if not short and (
                "`" in skel or "/" in skel) else bigrams)
        # Most bigrams occur once; counting them in C and indexing only the
        # shared ones keeps the Python loop to the few that can pair.
        counts = Counter(chain.from_iterable(keys))
        shared = frozenset(k for k, n in counts.items()
                           if 1 < n <= cap and k not in _STOP_PAIRS)
        self._postings: Dict[int, List[int]] = defaultdict(list)
        for i, held in enumerate(keys):
            for key in held & shared:
                self._postings[key].append(i)
        self._lookup: Optional[Dict[int, List[int]]] = None
        self._by_word: Optional[Dict[str, List[int]]] = None

    def __len__(self) -> int:
        return len(self.statements)

    def pairs(self, threshold: float,
              accept: Optional[Callable[[Statement, Statement], bool]] = None
              ) -> List[Match]:
        """Every pair at or above ``threshold``, plus every pair with equal
        skeletons (each member paired with the group's first member it is
        accepted with); ``accept`` filters pairs before they are scored.
        Sorted by the index order of (a, b)."""
        ok = accept or (lambda _a, _b: True)
        stmts = self.statements
        found: Dict[Tuple[int, int], Match] = {}
        for group in self._groups.values():
            for n, j in enumerate(group):
                for i in group[:min(n, self.cap)]:
                    if not ok(stmts[i], stmts[j]):
                        continue
                    m = self._match(i, j, 1.0)
                    if m is None:
                        continue  # each about its own subject: try the next
                    if not (i in self._short or j in self._short) or (
                            m.diverged and all(d.kind in (NUMBER, VERSION)
                                               for d in m.differences)):
                        # a short pair only when a number or version differs:
                        # one that names another file is a list of files
                        found[(i, j)] = m
                    break
        for i, j in sorted(self._candidates()):
            if (i, j) in found or self._skeletons[i] == self._skeletons[j]:
                continue
            score = _score(self._content(i), self._bigrams[i],
                           self._content(j), self._bigrams[j])
            if score >= threshold and ok(stmts[i], stmts[j]) \
                    and not self._form_alike(i, j):
                m = self._match(i, j, score)
                if m is not None:
                    found[(i, j)] = m
        return [found[k] for k in sorted(found)]

    def nearest(self, text: str, threshold: float, limit: int = 5,
                min_shared: int = MIN_SHARED) -> List[Match]:
        """Indexed statements like ``text`` (as statement ``a``), best first,
        as ``like`` finds them, aligned."""
        query = Statement("", 1, text)
        toks = tokens(text)
        out = []
        for j, score in self.like(text, threshold, min_shared)[:limit]:
            b = self.statements[j]
            diffs, off_a, off_b, _ = _differences(text, toks, b.text,
                                                  self._token(j))
            out.append(Match(query, b, score, diffs, _line(query, off_a),
                             _line(b, off_b)))
        return out

    def like(self, text: str, threshold: float, min_shared: int = MIN_SHARED
             ) -> List[Tuple[int, float]]:
        """(position, score) of the indexed statements like ``text``, best
        first. A candidate has its skeleton or shares ``min_shared`` bigrams
        with it (1: a paraphrase that keeps one pair of words, as the
        re-invention warning needs; 0: any bigram or content word, which
        finds what ``similarity`` scores above 0 wherever no posting list is
        over the cap). An empty skeleton is like nothing, as ``similarity``
        has it."""
        skel = skeleton(text)[0]
        if not skel:
            return []
        words, bigrams = _content(skel), _bigrams(skel)
        shared: Dict[int, int] = {}
        lookup = self._full_postings()
        for key in bigrams if min_shared < 1 else bigrams - _STOP_PAIRS:
            posting = lookup.get(key, ())
            if len(posting) <= self.cap:
                for j in posting:
                    shared[j] = shared.get(j, 0) + 1
        near = set(shared) | set(self._groups.get(skel, ()))
        if min_shared < 1:
            by_word = self._word_postings()
            for word in words:
                posting = by_word.get(word, ())
                if len(posting) <= self.cap:
                    near.update(posting)
        scored = []
        for j in near:
            exact = self._skeletons[j] == skel
            score = 1.0 if exact else _score(words, bigrams, self._content(j),
                                             self._bigrams[j])
            if score >= threshold and (exact or shared.get(j, 0) >= min_shared):
                scored.append((-score, j))
        scored.sort()
        return [(j, -neg) for neg, j in scored]

    def _word_postings(self) -> Dict[str, List[int]]:
        """Every content word's statements (capped), built on the first
        ``like`` that asks for them."""
        if self._by_word is None:
            found: Dict[str, List[int]] = defaultdict(list)
            for i in range(len(self.statements)):
                for word in self._content(i):
                    posting = found[word]
                    if len(posting) <= self.cap:
                        posting.append(i)
            self._by_word = dict(found)
        return self._by_word

    def _full_postings(self) -> Dict[int, List[int]]:
        """Every bigram's statements (capped), built on the first ``like``:
        a query may share a bigram that only one statement holds."""
        if self._lookup is None:
            lookup: Dict[int, List[int]] = defaultdict(list)
            for i, bigrams in enumerate(self._bigrams):
                for key in bigrams:
                    posting = lookup[key]
                    if len(posting) <= self.cap:
                        posting.append(i)
            self._lookup = dict(lookup)
        return self._lookup

    def _candidates(self) -> Iterable[Tuple[int, int]]:
        """Pairs sharing at least ``MIN_SHARED`` bigrams whose posting lists
        are within the cap: at most cap x bigrams pair updates in all."""
        shared: Dict[Tuple[int, int], int] = defaultdict(int)
        cap = self.cap
        for posting in self._postings.values():
            if 1 < len(posting) <= cap:
                for n, j in enumerate(posting):
                    for i in posting[:n]:
                        shared[(i, j)] += 1
        return [pair for pair, count in shared.items() if count >= MIN_SHARED]

    def _content(self, i: int) -> FrozenSet[str]:
        hit = self._words.get(i)
        if hit is None:
            hit = self._words[i] = _content(self._skeletons[i])
        return hit

    def _token(self, i: int) -> Tokens:
        hit = self._tokens.get(i)
        if hit is None:
            hit = self._tokens[i] = tokens(self.statements[i].text)
        return hit

    def _form_alike(self, i: int, j: int) -> bool:
        """Two lists alike only in form: no content word shared but masked
        values, and no code span of one in the other (slsa-builder's
        changelog categories against job permissions: "`A`, `B`, or `C`"
        shares only its glue)."""
        if not self._content(i) & self._content(j) <= _MASKED:
            return False
        spans = set(_SPAN.findall(self.statements[i].text))
        return not spans.intersection(_SPAN.findall(self.statements[j].text))

    def _match(self, i: int, j: int, score: float) -> Optional[Match]:
        """The aligned pair, None when the two are each about their own
        subject (``parallel``): no copy and no disagreement."""
        a, b = self.statements[i], self.statements[j]
        diffs, off_a, off_b, apart = _differences(a.text, self._token(i), b.text,
                                                  self._token(j), a, b)
        if apart:
            return None
        return Match(a, b, score, diffs, _line(a, off_a), _line(b, off_b))


def _valued(skel: Tuple[str, ...]) -> bool:
    """A short statement worth pairing: a value and a word to say what of."""
    return any(t in _MASKED for t in skel) and any(
        t not in _MASKED and t not in STOPWORDS for t in skel)


def _mask_keys(skel: Tuple[str, ...]) -> FrozenSet[int]:
    """Hashes of the word triples around each masked code span or path: a
    bigram like ('run', '`') is held by more statements than the cap, but
    ('run', '`', 'before') by few, so a pair sharing only masked values is
    still a candidate."""
    size = len(skel)
    at = [k for k, t in enumerate(skel) if t == "`" or t == "/"]
    return frozenset(hash(skel[k - d:k - d + 3]) for k in at for d in (0, 1, 2)
                     if 0 <= k - d and k - d + 3 <= size)


def _line(stmt: Statement, offset: int) -> int:
    return stmt.line + stmt.text.count("\n", 0, offset)


# -- ranking: the re-invention warning -----------------------------------------

RANK_CAP = 64  # texts per word before the word stops finding candidates
RANK_SHARED = 2  # words a proposal shares with a longer design to be ranked
_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def stem(word: str) -> str:
    """A word without its commonest English ending (``records`` and
    ``record``, ``numbering`` and ``number``): paraphrases inflect."""
    for suffix, repl in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            base = word[:-len(suffix)] + repl
            if suffix in ("ing", "ed") and base[-1] == base[-2] and (
                    base[-1] not in "aeiouls"):
                base = base[:-1]  # splitting, split; planned, plan
            return base
    return word


def rank_words(text: str, skel: Optional[Tuple[str, ...]] = None
               ) -> FrozenSet[str]:
    """The stemmed content words of a text (material and stop words out);
    ``skel``: its ``skeleton``, when known."""
    return frozenset(stem(w) for w in (skeleton(text)[0] if skel is None else skel)
                     if w not in STOPWORDS and w not in _MASKED and len(w) > 1)


Embedder = Callable[[Sequence[str]], Any]
SEMANTIC_PACKAGE = "wordllama"
_MODEL: List[Embedder] = []


def semantic_model() -> Embedder:
    """The semantic option's embedder: wordllama's 256-dimension model, read
    from the files its wheel ships (``WordLlama.load`` looks for the
    tokenizer where the wheel does not put it, then downloads it: icm never
    reaches the network). Loaded once per process; ``UsageError`` when the
    extra is not installed."""
    if _MODEL:
        return _MODEL[0]
    from icm.errors import UsageError

    try:
        from pathlib import Path

        import wordllama  # type: ignore[import-not-found,import-untyped,unused-ignore]
        from safetensors import safe_open  # type: ignore[import-not-found,unused-ignore]
        from tokenizers import Tokenizer  # type: ignore[import-not-found,unused-ignore]
        from wordllama.inference import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
            WordLlamaInference,
        )

        base = Path(wordllama.__file__).parent
        tokenizer = Tokenizer.from_file(
            str(base / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        with safe_open(str(base / "weights" / "l2_supercat_256.safetensors"),
                       framework="np", device="cpu") as weights:
            table = weights.get_tensor("embedding.weight")
        model = WordLlamaInference(table, tokenizer)
    except (ImportError, OSError, ValueError, KeyError) as exc:
        raise UsageError(
            f"similarity = \"semantic\" needs the semantic extra (pip install "
            f"'icm-hygiene[semantic]'): {type(exc).__name__}: {exc}") from None

    def embed(texts: Sequence[str]) -> Any:
        return model.embed(list(texts), norm=True)

    _MODEL.append(embed)
    return embed


class Ranker:
    """Texts a query is ranked against (the re-invention warning: rejected
    alternatives and superseded decisions). Candidates share a stemmed
    content word with the query (a word held by more than ``RANK_CAP``
    texts finds none: linear); the lexical score is the Dice overlap of
    their words weighted by rarity (a word every alternative holds says
    little), the semantic one (``embed`` given) the mean of that and the
    cosine of the two texts' embeddings."""

    def __init__(self, texts: Sequence[str], embed: Optional[Embedder] = None,
                 skeletons: Optional[Sequence[Tuple[str, ...]]] = None) -> None:
        self._words = [rank_words(t) for t in texts] if skeletons is None else [
            rank_words(t, s) for t, s in zip(texts, skeletons)]
        self._postings: Dict[str, List[int]] = defaultdict(list)
        for i, words in enumerate(self._words):
            for word in words:
                self._postings[word].append(i)
        size = len(texts)
        self._weight = {w: math.log(1 + size / len(p))
                        for w, p in self._postings.items()}
        self._embed = embed
        self._vectors = embed(texts) if embed is not None and texts else None

    def _weigh(self, words: Iterable[str]) -> float:
        # a word no text holds is as rare as one held once
        rare = math.log(2 + len(self._words))
        # fsum: exact whatever the set's order, so a tie is a tie under
        # every hash seed (a float sum broke one by the seed)
        return math.fsum(self._weight.get(w, rare) for w in words)

    def ranked(self, query: str, threshold: float, contained: bool = False
               ) -> List[Tuple[int, float]]:
        """(position, score) of the texts at or above ``threshold``, best
        first (ties: the earlier text). ``contained``: the share of each
        text's weighted words the query holds (a Decision that states a
        design and its reasons holds it whole), never semantic."""
        words = rank_words(query)
        near: Set[int] = set()
        for word in words:
            posting = self._postings.get(word, ())
            if len(posting) <= RANK_CAP:
                near.update(posting)
        if not near:
            return []
        total = self._weigh(words)
        scores: Dict[int, float] = {}
        for i in near:
            common = words & self._words[i]
            if len(common) < min(RANK_SHARED, len(self._words[i])):
                continue  # one word in common is a topic, not a proposal
            shared = self._weigh(common)
            scores[i] = shared / (self._weigh(self._words[i]) or 1.0) if contained \
                else 2 * shared / (total + self._weigh(self._words[i]) or 1.0)
        if self._embed is not None and self._vectors is not None and not contained:
            vector = self._embed([query])[0]
            for i in scores:
                scores[i] = (scores[i] + float(self._vectors[i] @ vector)) / 2
        return sorted(((i, s) for i, s in scores.items() if s >= threshold),
                      key=lambda p: (-p[1], p[0]))

    def neighbours(self, threshold: float, accept: Callable[[int, int], bool],
                   floor: float = 0.0, cap: int = RANK_CAP,
                   relaxed: Optional[Tuple[float, Callable[[int, int], bool]]]
                   = None,
                   apart: Optional[Tuple[float, Callable[[int, int], bool]]]
                   = None) -> List[Tuple[int, int, float]]:
        """(i, j, score), i < j: each text's best match among the others at
        or above ``threshold``, each pair once, in order (restated rules:
        a rule reworded in a second home). Candidates share two stemmed
        words held by at most ``cap`` texts, so the work grows with the
        text; a pair under the lexical ``floor`` is not scored further (the
        semantic score is the mean of the lexical one and the cosine);
        ``relaxed`` (a lower threshold, a test of the pair) holds the pairs
        the test accepts to that threshold, asked only of pairs between;
        ``apart`` (a threshold, a test no pair ``accept`` takes passes) finds
        each text's best match among the pairs its test takes, in the same
        pass (restated rules inside one note)."""
        weight = self._weight
        weights = [self._weigh(w) for w in self._words]
        vectors = self._vectors
        best: Dict[int, Tuple[float, int]] = {}
        best_apart: Dict[int, Tuple[float, int]] = {}
        capped = {w: p for w, p in self._postings.items() if 1 < len(p) <= cap}
        for i, words in enumerate(self._words):
            near: Set[int] = set()
            for word in words & capped.keys():
                near.update(capped[word])
            for j in sorted(k for k in near if k > i):
                common = words & self._words[j]
                if len(common) < RANK_SHARED:
                    continue
                score = 2 * math.fsum(weight[w] for w in common) / (
                    weights[i] + weights[j] or 1.0)
                if score < floor:
                    continue
                if vectors is not None:
                    score = (score + float(vectors[i] @ vectors[j])) / 2
                held = best
                if apart is not None and score >= apart[0] and apart[1](i, j):
                    held = best_apart
                # under the threshold a pair is no one's best worth reporting
                elif score < threshold and (relaxed is None or score < relaxed[0]
                                            or not relaxed[1](i, j)) or not (
                        accept(i, j)):
                    continue
                for a, b in ((i, j), (j, i)):
                    if score > held.get(a, (-1.0, 0))[0]:
                        held[a] = (score, b)
        pairs = {(min(a, b), max(a, b)): s for found in (best, best_apart)
                 for a, (s, b) in found.items()}
        return sorted((i, j, s) for (i, j), s in pairs.items())
