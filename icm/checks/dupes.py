"""One fact, one home: rules copied between notes, and copies that disagree.

Reads the handbook, every note and the ``Invariant`` section of every
journal entry, splits them into statements (paragraphs and list items;
headings and code left out; fewer than ``dupes_min_words`` words ignored)
and compares them across files with ``icm.similarity``. A statement at or
above ``dupes_similarity`` to one in another file is a copy: a warning
(``dupes_copies = "error"`` makes it fail). A copy that differs in a number,
a path, a code span or a negation (``must``/``must not``,
``always``/``never``) has diverged, an error; a copy that differs *only* in
those is diverged whatever its similarity. The home is the handbook, then
the shallower note, then the path sorting first; journal entries come last
and are never compared with each other (a newer entry may correct an older
one). ``<!-- icm: allow-duplicate -->`` on either statement, or
``dupes_ignore`` globs of paths, acknowledge a deliberate copy.

Bad (one line each)::

    duplicate rule: src/context.md:12 repeats AGENTS.md:30 (keep one home,
        link to it)
    diverged rule: tests/context.md:8 and src/context.md:12 disagree:
        '64 KiB' vs '1 MiB'

Good: the rule stated once, in ``AGENTS.md``, and ``src/context.md``
linking to it.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from icm import cache as cache_mod
from icm import similarity
from icm.context import Context, Unreadable, compile_globs, decode
from icm.finding import Finding, Report, Rule, Rules, Severity
from icm.model import journal
from icm.registry import NoOptions

NAME = "dupes"
# icm explain: why the rule matters, and how to silence it here
WHY = ("One fact, one home: a copy costs a reader twice, and a copy that disagrees "
       "leads to a wrong change.")
SILENCE = ("<!-- icm: allow-duplicate --> on either statement; dupes_ignore (globs of "
           "files)")
SLOT = "Invariant"
FIX = "keep one home, link to it"
CACHE_FILE = "dupes-cache.marshal"
RULES = Rules(NAME, {
    "duplicate-rule": Rule("a rule stated in a second home (a warning; "
                           "dupes_copies = \"error\" makes it an error)",
                           Severity.WARNING),
    "diverged-rule": Rule("two homes of one rule disagree on a value",
                          fix="decide which is true, keep it in one home and "
                          "link to it"),
    "unreadable": Rule("a note cannot be read as UTF-8 text"),
    "skipped": Rule("a note over max_file_bytes was not read", Severity.WARNING),
})


def sources(ctx: Context) -> List[Tuple[int, str]]:
    """(kind, path) of every file read, homes first: 0 handbook, 1 notes
    (shallower first), 2 journal entries."""
    cfg = ctx.config
    ignored = compile_globs(cfg.dupes_ignore)
    found = []
    if cfg.handbook in ctx.file_set:
        found.append((0, cfg.handbook))
    found += [(1, n) for n in ctx.notes() if n != cfg.handbook]
    found += [(2, e) for e in journal.entries(ctx)]
    found.sort(key=lambda kp: (kp[0], kp[1].count("/"), kp[1]))
    return [(k, p) for k, p in found if ignored is None or not ignored.match(p)]


def _invariant(headings: Sequence[Tuple[int, str]]) -> bool:
    return any(level == 2 and text == SLOT for level, text in headings)


def run(ctx: Context, options: NoOptions) -> Report:
    with similarity.paused_gc():
        return _run(ctx)


def _run(ctx: Context) -> Report:
    cfg = ctx.config
    found: List[Finding] = []
    stmts: List[similarity.Statement] = []
    skeletons: List[Tuple[Tuple[str, ...], int]] = []
    kinds: Dict[str, int] = {}
    store = cache_mod.Cache(ctx.cache_dir, f"mdit {cache_mod.markdown_it_version()}",
                            CACHE_FILE)
    for kind, path in sources(ctx):
        try:
            cached = _read(ctx, store, kind, path)
        except Unreadable as exc:
            found.append(RULES("skipped" if exc.skipped else "unreadable", path,
                               f"cannot read: {exc.reason}"))
            continue
        kinds[path] = kind
        for line, text, allowed, skel, words in cached:
            stmts.append(similarity.Statement(path, line, text, allowed))
            skeletons.append((tuple(skel), words))
    store.save()

    def accept(a: similarity.Statement, b: similarity.Statement) -> bool:
        return (a.path != b.path and not (kinds[a.path] == 2 == kinds[b.path])
                and not (a.allowed or b.allowed))

    index = similarity.Index(stmts, cfg.dupes_min_words, skeletons=skeletons)
    copies = Severity.ERROR if cfg.dupes_copies == "error" else Severity.WARNING
    matches = index.pairs(cfg.dupes_similarity, accept)
    for m in _current(matches, kinds):
        found.append(_finding(m, copies))
    return Report.of(NAME, found, ok=not found,
                     data={"files": len(kinds), "statements": len(index)})


def _read(ctx: Context, store: cache_mod.Cache, kind: int, path: str
          ) -> List[Any]:
    """[line, text, allowed, skeleton, words] per statement of one file, from
    the cache when its size and mtime, or its content hash, match."""
    try:
        stamp = cache_mod.stamp(ctx.stat(path))
    except Unreadable:
        stamp = ()
    hit = store.get_by_stamp(path, stamp)
    if isinstance(hit, list) and hit and hit[0] == kind:
        return list(hit[1])
    data = ctx.read_bytes(path, ctx.config.max_file_bytes)
    hashed = cache_mod.digest(data)
    hit = store.get(path, hashed, stamp)
    if isinstance(hit, list) and hit and hit[0] == kind:
        return list(hit[1])
    keep = _invariant if kind == 2 else None
    found = []
    for s in similarity.statements(decode(path, data), path, keep):
        skel, words = similarity.skeleton(s.text)
        found.append([s.line, s.text, s.allowed, skel, words])
    store.put(path, hashed, [kind, found], stamp)
    return found


def _current(matches: Sequence[similarity.Match], kinds: Dict[str, int]
             ) -> List[similarity.Match]:
    """One finding per copy, against its home (the earliest statement it
    matches). Drop what the journal may repeat: a note's rule restated as an
    entry's Invariant is its record, not a second home; a disagreement is kept
    unless a newer entry restates the rule as the note has it (corrected)."""
    agreed: Dict[int, str] = {}  # id of a note's statement -> newest entry
    for m in matches:
        if kinds[m.b.path] == 2 and not m.diverged:
            agreed[id(m.a)] = max(agreed.get(id(m.a), ""), m.b.path)
    kept, seen = [], set()
    for m in matches:  # in index order: a copy's first match is its home
        if id(m.b) in seen or (kinds[m.b.path] == 2 and not (
                m.diverged and m.b.path > agreed.get(id(m.a), ""))):
            continue
        seen.add(id(m.b))
        kept.append(m)
    return kept


def _finding(m: similarity.Match, copies: Severity) -> Finding:
    copy, home = f"{m.b.path}:{m.line_b}", f"{m.a.path}:{m.line_a}"
    extra: Dict[str, Any] = {
        "locations": [
            {"path": m.b.path, "line": m.line_b, "text": m.b.text},
            {"path": m.a.path, "line": m.line_a, "text": m.a.text},
        ],
        "similarity": round(m.score, 3),
    }
    if m.diverged:
        what = "; ".join(f"'{d.right}' vs '{d.left}'" for d in m.differences)
        extra["differences"] = [{"kind": d.kind, "copy": d.right, "home": d.left}
                                for d in m.differences]
        return RULES("diverged-rule", m.b.path, f"diverged rule: {copy} and "
                     f"{home} disagree: {what}", line=m.line_b, located=True,
                     extra=extra)
    return RULES("duplicate-rule", m.b.path, f"duplicate rule: {copy} repeats "
                 f"{home} ({FIX})", line=m.line_b, located=True, severity=copies,
                 extra=extra, fix=f"delete the copy and link to {m.a.path}")
