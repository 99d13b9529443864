"""Staleness: the tree as it will be committed, against git history.

A note (``context.md``) is STALE when code in its folder changed after it.
Code is every tracked file in the note's folder (``stale_scope =
"subtree"``: and in subfolders without a note of their own) that is not
prose (``.md``, ``.markdown``, ``.mdx``) and that ``stale_ignore`` (plus
``stale_ignore_extend``) leaves in: by default lockfiles and test
snapshots, which a tool writes, so a commit of only those moves no code;
with ``stale_tests = "ignore"`` (the default) test files too
(``DEFAULT_STALE_TESTS``), unless all of the note's code is tests. A
deleted file is code too: in first-parent history each folder's newest
deleted file that is no prose (``HitStore.gone``; a note whose files were
removed was ok once the commit landed, STALE only while pending). A
submodule pointer counts as code, since bumping it changes what the folder
builds. A release bump moves no code either: a commit whose change to a
manifest (``MANIFESTS``: ``package.json``, ``Cargo.toml``,
``pyproject.toml``, Helm's ``Chart.yaml``, ...) leaves its data as it was
but for the package's own version (a dependency's version is code, and so
is a version in any other file). Nor does code that came back: a note
history left STALE is judged net of every commit since its own
(``_net_same``: one ``diff-tree`` to HEAD, and one to the base with
``--base``), so a dependency added and dropped
again around release bumps, where each commit changed a token, is no move
when each file's tokens at HEAD are those of the note's commit. A reformat
moves no code either: one asks of each commit whether its
change to each file left the file's tokens (``code_digest``) as they were:
a manifest's data but its own version; a file whose indentation is syntax
(``indented``: Python, YAML, Makefiles, ...) each non-blank line's
indentation and words; any other file its words, so realigning,
re-wrapping, trailing spaces, blank lines and line endings are no change.
A binary or over-the-cap file always changes. It is asked only of a note
history left behind (one log of those notes, newest first, to the newest
commit that changed a token, which then gives the days, at most ``WALK``
commits each; ``cat-file`` once per 1,024 blobs, read as the walk goes), and
of pending code under a note it would make STALE (one ``ls-tree``, one
``ls-files``, one ``cat-file``: the index and the work tree must both hold
HEAD's tokens).

A note changes only when a word of it does: whitespace, line endings and
re-wrapping are no review, or one appended empty line would certify any
code. ``icm review NOTE`` is the review: it writes the date into the note's
marker line, a word. For a pending note the work tree's words are set
against HEAD's; in history, the words before and after the note's deciding
commit (one ``git log --no-walk``, one ``cat-file --batch``). When that
commit changed no word, the note's changes are walked back (one log of the
note and its newest code file) to the last that did: a word changed at or
after the newest code commit is ok; none changed since it is STALE; the
walk stops after ``WALK`` changes, and past it the note is ``unknown``.

A note that is only an import stub (``@AGENTS.md``, Claude Code's form) is
judged with what it imports: a change to an imported file is a change to
the note, as the agent reads that file there (words are compared for the
stub's own file only). A note that is a symlink to another file of the
repository (``CLAUDE.md -> AGENTS.md``) is judged with that file: the link
itself never changes. A link to a note of its own folder is that note under
a second name, so it gets no line of its own (``notes.sibling_links``: one
file, one verdict, as bootmap and dupes list it once); a link whose target
is gone (or loops, or leaves the root) is ``unknown``: no words to judge.

History: HEAD's first-parent history, merges diffed against their first
parent, renames not followed. The note is STALE when the newest commit
touching its code comes after the last commit touching the note in that
history; a commit touching both is ``ok`` (equal is not newer). "After" is
the log's order, never the committer clock: a note fixed in a child commit
whose date is skewed earlier is fresh. The days in the message are
committer times.

Against a base (``--base REF``, or ``ICM_BASE``; the GitHub Action sets
``ICM_BASE`` on pull requests), the history is the one the base will have
after "Rebase and merge": the base's, then the commits the branch adds
(``base..HEAD``, merges left out), each in its own place. On GitHub's merge
ref (``refs/pull/N/merge``, what a pull request's job checks out) HEAD's
first-parent history folds the whole pull request into its merge commit, so
a note changed in the first commit and its code in a later one was a tie,
``ok`` in CI and STALE on main after a rebase merge. The strategies: a merge
commit and a squash each fold the pull request into one commit on the base
(a note it changes anywhere ties with its code: ok); a rebase keeps every
commit, so their order decides. Judged per commit the verdict is the
strictest of the three: ok there is ok after any of them. Without a base,
HEAD's own history (the merge ref's fold, in CI).

Pending changes come first: a path whose index or work tree differs from
HEAD (modified, added, deleted, either side of a rename) changed *now*,
after every commit. A changed note is ``ok (pending)``, its code changed
too or not (both in one commit is a tie, and a tie is ok); changed code
under an unchanged note is STALE before the commit lands. So a pre-commit
hook refuses the code-only commit and passes the one that fixes the note,
instead of refusing the fix for what an earlier commit did. ``--committed``
judges history alone (CI on a clean checkout, where both agree).

A note never committed is ``unknown``, never fresh: there is no history to
set it against (``--strict`` makes unknown a failure). One in the commit
being made (added to the index, or a renamed note) is ``ok (pending)`` like
any changed note, so a new folder's first commit passes a ``--strict``
hook. A deciding commit with
a missing or malformed committer date is ``unknown`` too.

Bad (the third: a pull request that changed the note, then its code,
judged with ``ICM_BASE``; the fourth: code committed with an empty line
added to the note)::

    src/context.md: STALE - code in src moved 8 days after the note
    src/context.md: STALE - code in src changed (uncommitted) after the note
    src/context.md: STALE - code in src moved 2 hours after the note
    src/context.md: STALE - code in src moved, and no word of the note changed since

Good::

    tests/context.md: ok
    src/context.md: ok (pending)
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import sys
from contextlib import closing
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from icm.config import DEFAULT_STALE_TESTS, dotted_cost
from icm.context import (
    UNDATED,
    Context,
    GlobSet,
    History,
    Unreadable,
    branch_base,
    compile_globs,
)
from icm.errors import UsageError
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model.notes import (
    WORDS_CAP,
    code_by_note,
    link_target,
    owner_of,
    sibling_links,
    stamped,
    words_digest,
)
from icm.registry import StaleOptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

NAME = "stale"
# icm explain: why the rule matters, and how to silence it here
WHY = ("A note older than its folder's code describes code that moved on, and the next "
       "session trusts it anyway.")
SILENCE = "reread the note against the code and commit it (with the code)"
RULES = Rules(NAME, {
    "stale": Rule("a note's folder has code that changed after the note's last "
                  "change of words (a release bump of a manifest's own version, "
                  "a reformat that changes no token, or changes that cancel "
                  "out, are no change of code)",
                  fix="reread the note against the code and correct it; if it is "
                  "still true, run `icm review NOTE` (a whitespace change is no "
                  "review)", whole_file=True),
    "unknown": Rule("staleness cannot be judged (never committed, no date, "
                    "shallow): a warning, an error with --strict",
                    Severity.WARNING, "commit the note", whole_file=True),
    "ok": Rule("the note is not older than its code", Severity.INFO),
    "no-notes": Rule("no notes named note_name yet", Severity.INFO),
    "not-applicable": Rule("not a git repository: staleness not checked",
                           Severity.INFO),
})

WALK = 32  # a note's changes read back for the last that changed a word

Hit = Tuple[int, str, int]  # History.last: time, commit, place in the log

# A package's own version in its manifest, by file name: what a release tool
# (changesets, `npm version`, cargo-release, semantic-release) bumps. A
# dependency's version is not here: a range bump changes what is built.
MANIFESTS: Dict[str, Tuple[Tuple[str, ...], ...]] = {
    "package.json": (("version",),),
    "deno.json": (("version",),),
    "jsr.json": (("version",),),
    "composer.json": (("version",),),
    "Cargo.toml": (("package", "version"), ("workspace", "package", "version")),
    "pyproject.toml": (("project", "version"), ("tool", "poetry", "version")),
    # Helm: the chart's own version and the app release it packages, which
    # chart-releaser and release-please bump together (curie's 0.7.0 to 0.7.1)
    "Chart.yaml": (("version",), ("appVersion",)),
}
MANIFEST_TOML_COST = 1_000_000  # config.dotted_cost: about 10 ms of tomllib
NET_CAP = 64  # note commits whose net change to HEAD one diff-tree reads


def describe(seconds: int) -> str:
    """Whole days, rounded down; under a day hours; under an hour says so."""
    days, hours = seconds // 86400, seconds // 3600
    if days >= 1:
        return f"{days} day" + ("s" if days != 1 else "")
    if hours >= 1:
        return f"{hours} hour" + ("s" if hours != 1 else "")
    return "less than an hour"


def _changed(digests: Dict[str, Optional[bytes]], old: str, new: str) -> bool:
    """Whether a change from blob ``old`` to ``new`` changed a word; one not
    read (none: added or deleted; missing; over the cap) counts as changed,
    as every change did before words were compared."""
    a, b = digests.get(old), digests.get(new)
    return a is None or b is None or a != b


def _canonical(value: Any) -> Any:
    """A parsed manifest as a comparable value: tables without their order,
    every scalar with its type (``true`` is not ``1``)."""
    if isinstance(value, dict):
        return ("{", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("[", tuple(_canonical(v) for v in value))
    return (type(value).__name__, repr(value))


def manifest_digest(path: str, data: Optional[bytes]) -> Optional[bytes]:
    """A manifest's data (``MANIFESTS``) with the package's own version taken
    out, as a fingerprint; None for a file that is no manifest, and for one
    that is missing, over the cap, or not valid JSON or TOML (its change is
    then a change of code)."""
    keys = MANIFESTS.get(posixpath.basename(path))
    if keys is None or data is None or len(data) >= WORDS_CAP:
        return None
    try:
        text = data.decode("utf-8-sig")
        if path.endswith(".yaml"):
            return _yaml_digest(text, keys)
        if path.endswith(".json"):
            doc = json.loads(text)
        elif dotted_cost(text, MANIFEST_TOML_COST):
            return None
        else:
            doc = tomllib.loads(text)
        for key in keys:
            table = doc
            for part in key[:-1]:
                table = table.get(part) if isinstance(table, dict) else None
            if isinstance(table, dict):
                table.pop(key[-1], None)
        shown = repr(_canonical(doc)).encode("utf-8", "surrogateescape")
    except (ValueError, RecursionError):  # JSON, TOML, UTF-8 and int errors
        return None
    return hashlib.blake2b(shown, digest_size=16).digest()


def _yaml_digest(text: str, keys: Tuple[Tuple[str, ...], ...]) -> bytes:
    """A YAML manifest's lines as ``indented`` files are read, but a top-level
    key of ``keys`` with its value on its line (a line at column 0: nested
    keys, a dependency's ``version`` under ``dependencies:``, are indented,
    and so is a block scalar's text)."""
    top = {k[0] for k in keys if len(k) == 1}
    kept = []
    for line in _lines(text):
        m = _YAML_TOP.match(line)
        if m is None or m.group(1) not in top or not m.group(2) \
                or m.group(2)[0] in "|>&*!#":  # a block, an anchor, a tag
            kept.append(line)
    joined = "\n".join(kept).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(joined, digest_size=16).digest()


# A top-level key and its value on the line (``version: 0.7.1``).
_YAML_TOP = re.compile(r"[\"']?([A-Za-z_][\w.-]*)[\"']?:[ \t]+(\S.*)?$")


# Files whose indentation is syntax (blocks, nesting, a recipe's tab): a
# re-indent changes what they do. By suffix, and by name for files without one.
INDENTED_SUFFIXES = frozenset({
    ".py", ".pyi", ".pyw", ".pyx", ".pxd", ".bzl", ".star", ".yaml", ".yml",
    ".mk", ".mak", ".haml", ".pug", ".jade", ".slim", ".coffee", ".litcoffee",
    ".nim", ".nims", ".sass", ".styl", ".hs", ".lhs", ".elm", ".purs", ".fs",
    ".fsi", ".fsx", ".gd", ".cabal", ".mojo", ".patch", ".diff"})
INDENTED_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile", "BUILD",
                            "WORKSPACE", "Snakefile", "SConstruct", "SConscript",
                            "Tiltfile"})


def indented(path: str) -> bool:
    """Whether ``path`` is a file whose indentation is syntax (``INDENTED_*``)."""
    name = posixpath.basename(path)
    return name in INDENTED_NAMES or posixpath.splitext(name)[1].lower() in \
        INDENTED_SUFFIXES


def _lines(text: str) -> List[str]:
    """Each non-blank line as its indentation and its words, one space apart."""
    kept = []
    for line in text.splitlines():
        rest = line.lstrip()
        if rest:
            kept.append(line[:len(line) - len(rest)] + " ".join(rest.split()))
    return kept


def code_digest(path: str, data: Optional[bytes]) -> Optional[bytes]:
    """The fingerprint of a code file's tokens: a manifest's data but its own
    version (``manifest_digest``); for a file whose indentation is syntax
    (``indented``) each non-blank line's indentation and words; for any other
    its words (``words``), so realigning, re-wrapping, trailing spaces, blank
    lines and line endings change nothing. None (every change counts) for a
    missing, binary (a NUL) or over-the-cap file."""
    if posixpath.basename(path) in MANIFESTS:
        return manifest_digest(path, data)
    if data is None or len(data) >= WORDS_CAP or b"\0" in data:
        return None
    if not indented(path):
        return words_digest(data)
    text = data.decode("utf-8", "surrogateescape").lstrip("\ufeff")
    joined = "\n".join(_lines(text)).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(joined, digest_size=16).digest()


def _gone(ctx: Context, history: History, excluded: Optional[GlobSet]
          ) -> Set[str]:
    """Each folder's newest deleted code file (``HitStore.gone``), outside
    ``exclude`` and nested roots: a deletion since the note changed its code
    (a note whose files were removed stayed ok once the commit landed)."""
    return {p for p in history.times.gone_paths()
            if not (excluded is not None and excluded.match(p))
            and not any(p.startswith(root + "/") for root in ctx.nested)}


def _info(code: str, text: str) -> Report:
    """A run that judged nothing says why, as one info line."""
    return Report(NAME, (RULES(code, ".", text),),
                  data={"stale": 0, "unknown": 0, "ok": 0})


def _not_code(ctx: Context, gone: Set[str]
              ) -> Callable[[Sequence[str]], Callable[[str], bool]]:
    """For a note's code, whether a path is none of it: one ``stale_ignore``
    (or ``stale_ignore_extend``) names, or with ``stale_tests = "ignore"`` a
    test file (``DEFAULT_STALE_TESTS``) unless the note's code is all tests
    (asked at its first test file). A deleted test file (``gone``) stays
    code: a folder keeps only its newest deletion, which may stand for an
    older one of source."""
    globs = compile_globs((*ctx.config.stale_ignore, *ctx.config.stale_ignore_extend))
    ignored = globs.match if globs is not None else lambda path: False
    tests = compile_globs(DEFAULT_STALE_TESTS) \
        if ctx.config.stale_tests == "ignore" else None
    if tests is None:
        return lambda code: ignored
    is_test = tests.match

    def of(code: Sequence[str]) -> Callable[[str], bool]:
        code_is_tests: List[bool] = []

        def skip(path: str) -> bool:
            if ignored(path):
                return True
            if path in gone or not is_test(path):
                return False
            if not code_is_tests:
                code_is_tests.append(all(is_test(p) or ignored(p) for p in code))
            return not code_is_tests[0]
        return skip
    return of


def _pending_code(code: Sequence[str], pending: FrozenSet[str], ctx: Context,
                  skip_of: Callable[[Sequence[str]], Callable[[str], bool]]
                  ) -> List[str]:
    """The tracked pending files of ``code`` that are code (its skip made
    only when one is pending)."""
    found = [p for p in code if p in pending and p in ctx.tracked]
    if not found:
        return found
    skip = skip_of(code)
    return [p for p in found if not skip(p)]


def _newest(code: Sequence[str], history: History, skip: Callable[[str], bool]
            ) -> Tuple[Optional[Hit], str]:
    """The deciding commit of ``code`` and its path: the first undated one
    (nothing is provably newer), else the newest place. ``skip`` is asked
    only of the candidates, newest first: matching every path against the
    globs was the cost of the run."""
    hits = [(hit, path) for path in code if (hit := history.last(path)) is not None]
    for hit, path in hits:
        if hit[0] == UNDATED and not skip(path):
            return hit, path
    if not hits:
        return None, ""
    top = max(hits, key=lambda h: h[0][2])
    if not skip(top[1]):
        return top
    for hit, path in sorted(hits, key=lambda h: h[0][2], reverse=True):
        if not skip(path):
            return hit, path
    return None, ""


def _last_of(history: History, paths: List[str]) -> Optional[Hit]:
    """The last commit touching any of ``paths``, by place in the log."""
    hits = [hit for hit in map(history.last, paths) if hit is not None]
    return max(hits, key=lambda hit: hit[2]) if hits else None


def _link_target(ctx: Context, note: str) -> Tuple[str, ...]:
    """The tracked file a symlinked note is (``CLAUDE.md -> AGENTS.md``);
    () otherwise."""
    rel = link_target(ctx, note)
    return (rel,) if rel != note and rel in ctx.tracked else ()


def _unreadable(ctx: Context, top: str, note: str) -> Optional[str]:
    """Why a note on disk cannot be read (a dangling symlink, a loop, one out
    of the root), through ``paths``; None when it can. A note no link leads
    to (its real path is ``top``'s, the root's real path, joined with it)
    costs one ``lstat``: a ``stat`` of every note was a tenth of a run."""
    try:
        if ctx.real(note) == os.path.join(top, note):
            return None
        ctx.stat(note)
    except Unreadable as exc:
        return exc.reason
    return None


def _digests(ctx: Context, oids: Sequence[str]) -> Dict[str, Optional[bytes]]:
    return {oid: words_digest(data) for oid, data in ctx.blobs(oids, WORDS_CAP)}


def _wordless_pending(ctx: Context, notes: Sequence[str]) -> Set[str]:
    """The pending notes whose work tree changed no word of HEAD's text (one
    ``ls-tree``, one ``cat-file``); a note HEAD lacks, or that cannot be
    read, changed."""
    head = ctx.head_blobs(notes)
    digests = _digests(ctx, list(head.values()))
    same = set()
    for note in notes:
        before = digests.get(head.get(note, ""))
        try:
            now = words_digest(ctx.read_bytes(note, WORDS_CAP))
        except Unreadable:
            continue
        if before is not None and now == before:
            same.add(note)
    return same


def _wordless_commits(ctx: Context, deciding: Dict[str, str]) -> Set[str]:
    """The notes whose deciding commit (``deciding``: note -> commit) changed
    no word of them: one ``git log --no-walk`` of those commits, one
    ``cat-file``."""
    # note -> its deciding commit's change, the log's own tuple (a key and a
    # pair a note were 10 MiB at 500k); an added or deleted note changed
    # (``_changed``: no blob), so git's layer drops it as read (``edits``:
    # a first commit's 24,500 adds were 4.9 MiB and an ``ls-tree``); a
    # path is one change in a commit's diff
    found: Dict[str, Change] = {}
    with closing(ctx.path_changes(sorted(deciding), edits=True,
                                  commits=sorted(set(deciding.values())))) as walk:
        for sha, _, changes in walk:
            for change in changes:  # past PATHSPEC_MAX every change comes
                if deciding.get(change[0]) == sha:
                    found[change[0]] = change
    digests = _digests(ctx, [oid for _, old, new in found.values()
                             for oid in (old, new)])
    return {note for note, (_, old, new) in found.items()
            if not _changed(digests, old, new)}


def _walk_back(ctx: Context, pairs: Dict[str, str], base: Optional[str],
               history: History) -> Dict[str, str]:
    """For each note (``pairs``: note -> its newest code file), walk its
    changes back from the newest, in the history's order: ``ok`` when one
    at or after the code file's newest commit changed a word, ``stale`` when
    none since did, ``bound`` after ``WALK`` wordless ones, ``shallow`` when
    the change found is at the shallow boundary. One log of all the notes
    and their code files, stopped when every note is decided; one
    ``cat-file``."""
    code_of: Dict[str, List[str]] = {}
    for note, path in pairs.items():
        code_of.setdefault(path, []).append(note)
    seen: Dict[str, List[Tuple[str, str, str]]] = {n: [] for n in pairs}
    reached: Set[str] = set()
    left = set(pairs)  # a note is never code: a path is one or the other
    with closing(ctx.path_changes(sorted({*pairs, *pairs.values()}), base)) as walk:
        for sha, _, changes in walk:  # each step costs its commit's changes
            for path, old, new in changes:
                if path in left:
                    seen[path].append((sha, old, new))
            for path, _, _ in changes:
                for note in code_of.get(path, ()):
                    if note in left:  # the code's newest commit: the walk ends
                        reached.add(note)
                        left.discard(note)
            for path, _, _ in changes:
                if path in left and len(seen[path]) >= WALK:
                    left.discard(path)
            if not left:
                break
    digests = _digests(ctx, [oid for found in seen.values()
                             for _, old, new in found for oid in (old, new)])
    verdicts = {}
    for note, found in seen.items():
        hit = next((sha for sha, old, new in found if _changed(digests, old, new)),
                   None)
        verdicts[note] = ("shallow" if hit in history.boundary else "ok") \
            if hit is not None else "stale" if note in reached \
            else "bound" if len(found) >= WALK else "ok"
    return verdicts


def _pending_same(ctx: Context, paths: Sequence[str]) -> Set[str]:
    """The pending code files (``paths``) whose index and work tree both hold
    HEAD's tokens (``code_digest``; one ``ls-tree``, one ``ls-files``, one
    ``cat-file``): a staged change undone in the work tree is still in the
    commit."""
    if not paths:
        return set()
    head, index = ctx.head_blobs(paths), ctx.index_blobs(paths)
    data = dict(ctx.blobs([*head.values(), *index.values()], WORDS_CAP))
    same = set()
    for path in paths:
        old = code_digest(path, data.get(head.get(path, "")))
        try:
            now = code_digest(path, ctx.read_bytes(path, WORDS_CAP))
        except Unreadable:
            continue
        if old is not None and old == now == code_digest(
                path, data.get(index.get(path, ""))):
            same.add(path)
    return same


Change = Tuple[str, str, str]  # path, old blob, new blob


def _moves(digests: Dict[Tuple[str, str], Optional[bytes]],
           found: List[Change]) -> bool:
    """Whether a commit's changes (``found``) changed a token of one file; one
    not read, or not fingerprinted, did."""
    return any(digests.get((old, path)) is None
               or digests.get((old, path)) != digests.get((new, path))
               for path, old, new in found)


def _last_moving(ctx: Context, moved: Dict[str, Tuple[List[str], Sequence[str]]],
                 skips: Dict[str, Callable[[str], bool]], base: Optional[str],
                 digests: Dict[Tuple[str, str], Optional[bytes]]
                 ) -> Dict[str, Optional[int]]:
    """For the notes history left behind (``moved``: note -> (its own tracked
    files, its code)), the committer time of the newest commit since the
    note that changed a token of its code (``code_digest``); None when none
    since did. One log of the notes and their code, newest first, stopped
    when every note is decided (a note's own commit, a change of tokens, or
    ``WALK`` commits: past them it keeps its verdict, as does one the log
    never decides); one ``cat-file`` per 1,024 blobs, read as the walk goes,
    so a note whose newest commit moved code is decided there."""
    owners: Dict[str, List[Tuple[str, bool]]] = {}
    for note, (parts, code) in moved.items():
        for path in parts:
            owners.setdefault(path, []).append((note, True))
        for path in code:
            owners.setdefault(path, []).append((note, False))
    seen: Dict[str, List[Tuple[int, List[Change]]]] = {note: [] for note in moved}
    undated: Set[str] = set()  # nothing is provably older than such a commit
    reached: Set[str] = set()  # the walk came to the note's own commit
    left = set(moved)
    # skip's answer per path (globs cost most): a path's notes speak for one
    # folder's code, so they answer alike
    is_code: Dict[str, bool] = {}
    unread: Dict[str, Set[str]] = {}  # blob -> the paths it is read as
    fresh: Set[str] = set()  # notes with changes not yet read

    def settle() -> None:
        for oid, data in ctx.blobs(unread, WORDS_CAP):
            for path in unread[oid]:
                digests[(oid, path)] = code_digest(path, data)
        unread.clear()
        left.difference_update({n for n in fresh if any(
            _moves(digests, found) for _, found in seen[n])})
        fresh.clear()

    with closing(ctx.path_changes(sorted(owners), base)) as walk:
        for _, when, changes in walk:  # each step costs its commit's changes
            touched: Dict[str, List[Change]] = {}
            for path, old, new in changes:
                for note, own in owners.get(path, ()):
                    if note not in left:
                        continue
                    if own:
                        reached.add(note)  # a tie: its code here is no later
                        continue
                    if path not in is_code:
                        is_code[path] = not skips[note](path)
                    if is_code[path]:
                        touched.setdefault(note, []).append((path, old, new))
            left -= reached
            for note, found in touched.items():
                if note not in left:
                    continue
                if when == UNDATED:
                    undated.add(note)
                    left.discard(note)
                    continue
                seen[note].append((when, found))
                fresh.add(note)
                for path, old, new in found:
                    for oid in (old, new):
                        if oid.strip("0") and (oid, path) not in digests:
                            unread.setdefault(oid, set()).add(path)  # 0s: none
                if len(seen[note]) >= WALK:
                    left.discard(note)
            if len(unread) >= 1024:
                settle()
            if not left:
                break
    settle()
    verdicts: Dict[str, Optional[int]] = {}
    for note, found_list in seen.items():
        moving = next((when for when, found in found_list
                       if _moves(digests, found)), None)
        if moving is not None:
            verdicts[note] = moving
        elif note in reached and note not in undated:
            verdicts[note] = None
    return verdicts


def _net_same(ctx: Context, since: Dict[str, Hit],
              skips: Dict[str, Callable[[str], bool]],
              excluded: Optional[GlobSet], base: Optional[str],
              digests: Dict[Tuple[str, str], Optional[bytes]]) -> Set[str]:
    """The notes (``since``: note -> its last commit) whose code holds at
    HEAD (and at ``base``) the tokens it held at that commit
    (``code_digest``), whatever came between: a dependency added and dropped
    again, a version bumped twice. One ``diff-tree`` of the notes' folders
    per end, for the ``NET_CAP`` newest of the notes' commits (a note past
    them keeps its verdict); a ``cat-file`` of other files, then one of the
    manifests of notes still unmoved. A file added, deleted or not read
    moves code. ``digests`` holds those the walk read."""
    owner = owner_of(ctx)
    by_commit: Dict[str, List[str]] = {}
    place: Dict[str, int] = {}
    for note, hit in sorted(since.items()):
        by_commit.setdefault(hit[1], []).append(note)
        place[hit[1]] = hit[2]
    newest = sorted(by_commit, key=lambda c: -place[c])[:NET_CAP]
    folders = sorted({posixpath.dirname(n) or "." for c in newest
                      for n in by_commit[c]})
    # with a base, a rebase lays the branch on it: both ends must hold
    nets = [ctx.net_changes(newest, folders, end)
            for end in ((None,) if base is None else (None, base))]
    found: Dict[str, List[Change]] = {}
    for commit in newest:
        notes: Dict[str, List[str]] = {}
        for note in by_commit[commit]:
            notes.setdefault(posixpath.dirname(note), []).append(note)
            found[note] = []
        for path, old, new in (c for net in nets for c in net.get(commit, ())):
            speaker = owner(path)
            if speaker is None or (excluded is not None and excluded.match(path)) \
                    or any(path.startswith(r + "/") for r in ctx.nested):
                continue
            for note in notes.get(posixpath.dirname(speaker), ()):
                if not skips[note](path):
                    found[note].append((path, old, new))
    # a file added or deleted moves code unread; other files before
    # manifests (a TOML parse each was most of the cost), a note moved by
    # one left out of the second read
    left = {n for n, changes in found.items()
            if all(o.strip("0") and w.strip("0") for _, o, w in changes)}
    for manifests in (False, True):
        part = {n: [c for c in found[n]
                    if (posixpath.basename(c[0]) in MANIFESTS) == manifests]
                for n in left}
        unread: Dict[str, Set[str]] = {}  # blob -> the paths it is read as
        for changes in part.values():
            for path, old, new in changes:
                for oid in (old, new):
                    if (oid, path) not in digests:
                        unread.setdefault(oid, set()).add(path)
        digests.update({(oid, path): code_digest(path, data) for oid, data
                        in ctx.blobs(unread, WORDS_CAP) for path in unread[oid]})
        left -= {n for n, changes in part.items() if _moves(digests, changes)}
    return left


def _moved(folder: str, gap: int) -> str:
    when = f"moved {describe(gap)} after the note" if gap >= 0 else (
        f"moved after the note, in a commit dated {describe(-gap)} before it")
    return f"STALE - code in {folder} {when}"


def _stamped_line(others: int) -> str:
    return (f"ok - the same text as {others} other notes (a stamped note: says "
            "nothing of its folder's code)")


def _review_fix(note: str, folder: str = "", since: str = "") -> str:
    """The STALE line's hint: what to read (the commits since the note, or
    the uncommitted changes, where the verdict compared them), then fix or
    ``icm review``."""
    what = "the code"
    if folder:
        # a pathspec opening with ":" is git's magic; "./" makes it a path
        spec = shlex.quote("./" + folder if folder.startswith(":") else folder)
        what = (f"what changed since it (`git log --stat {since[:12]}.. -- {spec}`)"
                if since else f"the uncommitted changes (`git status -- {spec}`)")
    return (f"reread the note against {what} and correct it; if it is still "
            f"true, run `icm review {shlex.quote(note)}` (a whitespace change is "
            "no review)")


def run(ctx: Context, options: StaleOptions) -> Report:
    strict, committed = options.strict, options.committed
    if not ctx.in_git:
        if options.history_optional and ctx.git_installed:
            return _info("not-applicable",
                         "stale: not a git repository; staleness not checked")
        ctx.history(options.allow_partial)  # raises why: no repository, no git
    if not ctx.notes():
        name = ctx.config.note_label
        return _info("no-notes", f"stale: no notes named {name} yet (or set note_name)")
    base = branch_base(ctx, options.against)
    history = ctx.history(options.allow_partial, base)
    if history.boundary and not options.allow_shallow:
        raise UsageError(
            "shallow clone: history is cut, so every note would look fresh; fetch "
            "full history (actions/checkout 'fetch-depth: 0', or 'git fetch "
            "--unshallow'), or pass --allow-shallow")
    pending = frozenset() if committed else history.pending
    excluded = compile_globs(ctx.config.exclude)
    if excluded is not None:
        pending = frozenset(p for p in pending if not excluded.match(p))
    links = sibling_links(ctx, ctx.notes())  # one file, one verdict: its own
    top = os.path.realpath(ctx.root)
    deleted = _gone(ctx, history, excluded)
    owned = sorted((note, code) for note, code in code_by_note(
        ctx, pending | deleted, links).items() if note not in links)
    skip_of = _not_code(ctx, deleted)
    # a note's skip holds its code: kept only for the notes left behind
    # (one each held every note's code, 14 MiB at 500k)
    skips: Dict[str, Callable[[str], bool]] = {}
    # A pending note that changed no word is no review: history judges it.
    wordless = _wordless_pending(ctx, [n for n, _ in owned if n in pending
                                       and n in ctx.tracked])
    # A pending change of no token (a reformat, a release bump) is no change
    # of code: read only where it would make a note STALE (code of a note
    # with no pending change of words).
    same = _pending_same(ctx, sorted({
        p for note, code in owned if note not in pending or note in wordless
        for p in _pending_code(code, pending, ctx, skip_of)}))
    pending_code = frozenset(p for p in pending if p not in same)
    unknown = Severity.ERROR if strict else Severity.WARNING
    # bootmap's own reading of imports, so a stub means one thing to both
    from icm.model.imports import stub_imports

    # (note, verdict, severity, code, parts: None for the note alone): a
    # note's code is let go once judged (all of it held was 10 MiB at 500k)
    judged: List[Tuple[str, str, Severity, str, Optional[List[str]]]] = []
    deciding: Dict[str, str] = {}  # note -> its commit, where words decide
    newest_path: Dict[str, str] = {}
    moved: Dict[str, Tuple[List[str], Sequence[str]]] = {}
    note_time: Dict[str, Hit] = {}
    since_of: Dict[str, str] = {}  # a STALE note -> its commit ("" uncommitted)
    owned.reverse()
    while owned:
        note, code = owned.pop()
        folder = posixpath.dirname(note) or "."
        note_last = history.last(note) if note in ctx.tracked else None
        skip = skip_of(code)
        newest, path = _newest(code, history, skip)
        parts = [note]
        if note_last is not None and note not in pending and (
                any(p in pending_code and not skip(p) for p in code)
                or newest is not None and newest[2] > note_last[2]):
            # Only a note its code left behind is read: a stub's import may
            # be newer (reading every note was a third of a 3,000-note run).
            parts += _link_target(ctx, note) or stub_imports(ctx, note)
            note_last = _last_of(history, [p for p in parts if p in ctx.tracked])
        undated = [c for c in (note_last, newest) if c and c[0] == UNDATED]
        gone = _unreadable(ctx, top, note)
        if gone is not None:
            verdict, code_name, sev = f"unknown - {cannot_read(gone)}", "unknown", \
                unknown
        elif note in pending and note not in wordless or any(
                p in pending for p in parts[1:]):  # in the commit being made
            verdict, code_name, sev = "ok (pending)", "ok", Severity.INFO
        elif note_last is None:
            verdict, code_name, sev = "unknown - note never committed", "unknown", \
                unknown
        elif any(p in pending_code and not skip(p) for p in code):
            verdict, code_name, sev = (
                f"STALE - code in {folder} changed (uncommitted) after the note",
                "stale", Severity.ERROR)
            since_of[note] = ""
        elif undated:
            verdict, code_name, sev = (
                f"unknown - commit {undated[0][1][:12]} has no valid committer "
                "date", "unknown", unknown)
        elif history.boundary and (note_last[1] in history.boundary or (
                newest is not None and newest[1] in history.boundary)):
            verdict, code_name, sev = (
                "unknown (shallow) - history before the shallow boundary is "
                "missing", "unknown", unknown)
        elif newest is not None and newest[2] > note_last[2]:
            verdict, code_name, sev = (_moved(folder, newest[0] - note_last[0]),
                                       "stale", Severity.ERROR)
            moved[note] = ([p for p in parts if p in ctx.tracked], code)
            since_of[note] = note_last[1]
            skips[note] = skip
            note_time[note] = note_last
        else:
            verdict, code_name, sev = "ok", "ok", Severity.INFO
            if newest is not None:
                deciding[note] = note_last[1]
                newest_path[note] = path
        judged.append((note, verdict, sev, code_name, parts if parts[1:] else None))
    digests: Dict[Tuple[str, str], Optional[bytes]] = {}  # (blob, path): tokens
    released = _last_moving(ctx, moved, skips, base, digests) if moved else {}
    # Net of every commit since the note, its code's tokens held: no move.
    still = {note: note_time[note] for note in moved
             if released.get(note, 0) is not None}
    for note in _net_same(ctx, still, skips, excluded, base, digests) \
            if still else ():
        released[note] = None
    # No token of code changed since the note: its words decide, as for an
    # ok note; a wordless one keeps its STALE (the newest commit of its code
    # that changed a token, where a walk back would end, is not known here).
    bumps_only = {note: note_time[note][1] for note, when in released.items()
                  if when is None}
    walked: Dict[str, str] = {}
    if deciding or bumps_only:
        wordless_commits = _wordless_commits(ctx, {**deciding, **bumps_only}
                                             if bumps_only else deciding)
        for note in wordless_commits & set(bumps_only):
            del released[note]
        wordless_commits -= set(bumps_only)
        if wordless_commits:
            walked = _walk_back(ctx, {n: newest_path[n] for n in wordless_commits},
                                base, history)
    findings: List[Finding] = []
    counts = {"stale": 0, "unknown": 0, "ok": 0}
    stamps: Optional[Dict[str, int]] = None
    for note, verdict, sev, code_name, read in judged:
        folder = posixpath.dirname(note) or "."
        if note in released:
            when = released[note]
            verdict, code_name, sev = ("ok", "ok", Severity.INFO) if when is None \
                else (_moved(folder, when - note_time[note][0]), "stale",
                      Severity.ERROR)
        how = walked.get(note, "ok")
        if how != "ok":
            since_of.pop(note, None)  # the note's commit was not what decided
        if how == "stale":
            verdict, code_name, sev = (
                f"STALE - code in {folder} moved, and no word of the note changed "
                "since", "stale", Severity.ERROR)
        elif how == "bound":
            verdict, code_name, sev = (
                f"unknown - the note's last {WALK} changes altered no word",
                "unknown", unknown)
        elif how == "shallow":
            verdict, code_name, sev = (
                "unknown (shallow) - history before the shallow boundary is "
                "missing", "unknown", unknown)
        if code_name == "stale" and read is None:  # no stub, no link
            if stamps is None:  # read only when a note would be STALE
                stamps = stamped(ctx, [j[0] for j in judged])
            if note in stamps:
                verdict, code_name, sev = _stamped_line(stamps[note]), "ok", \
                    Severity.INFO
        dirty = " (uncommitted changes)" if committed and any(
            p in history.pending for p in read or (note,)) else ""
        counts[code_name] += 1
        findings.append(RULES(code_name, note, verdict + dirty if dirty else verdict,
                              severity=sev,
                              fix=_review_fix(note, folder, since_of[note])
                              if code_name == "stale" and note in since_of else
                              _review_fix(note) if code_name == "stale" else None,
                              subject=f"code in {folder}"))
    return Report(NAME, tuple(sorted(findings)), data=counts)
