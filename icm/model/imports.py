"""``@path`` imports (Claude Code's and Gemini CLI's form): which lines are
imports, the files a set of notes brings in (up to five hops, not inside
code, each real file once), and whether a note is only an import stub.
Bootmap sizes the boot set with them, staleness judges a stub with them,
init reads a stub with them; what goes wrong on the way is returned as
problems for the check that reports them."""

from __future__ import annotations

import posixpath
import re
import stat
from dataclasses import dataclass
from typing import Dict, List, Tuple

from icm.context import Context, Unreadable, decode, read_real
from icm.model import aliases as aliases_mod
from icm.paths import unnameable

MAX_HOPS = 5
# An import is "@" at the start of a word, naming something file-like (a
# folder separator or a dot), so "@alice" in prose is not an import. The
# regex takes the whole word and the test for "/" or "." is made after: a
# regex demanding it retries from every "@" after an escaped space, which is
# quadratic on one text run of "@a\ " * N.
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:[^\s\\`]|\\ )*)")
# "@scope/name" (one slash, no dot) that names no file is an npm package or a
# GitHub team, not an import: Tres's notes list "@tresjs/core" and its kin.
_SCOPED = re.compile(r"[A-Za-z0-9_][\w-]*/[\w-]+")
# A stub is a few lines: a larger note has text of its own and is not read
# (bootmap asks only notes of at most STUB_MAX_WORDS words by its count,
# which never exceeds ``str.split``'s).
STUB_MAX_BYTES = 4096
STUB_MAX_WORDS = 64


@dataclass(frozen=True)
class BootFile:
    path: str
    size: int
    via: str  # "" for a listed file, else the file that imports it


@dataclass(frozen=True)
class Problem:
    """A file that could not be read (``line`` 0, ``target`` ""), or an
    import at ``line`` of ``path`` that cannot be followed (``why``: refused,
    or "" when the target is no file; ``unknown`` when it may be a module
    path alias no config maps, ``@/x``)."""

    path: str
    reason: str
    line: int = 0
    target: str = ""
    unknown: bool = False


def imports_in(text: str) -> List[Tuple[int, str]]:
    """``@path`` imports outside code spans and code blocks, with lines."""
    from icm import markdown

    found = []
    for line, content in markdown.prose_lines(text):
        for m in _IMPORT.finditer(content):
            word = m.group(1)
            if "/" not in word and "." not in word:
                continue
            target = word.replace("\\ ", " ").rstrip(".,;:!?)")
            if target:
                found.append((line, target))
    return found


def size(ctx: Context, rel: str) -> int:
    try:
        return ctx.stat(rel).st_size
    except Unreadable:
        return 0


def _is_file(ctx: Context, rel: str) -> bool:
    try:
        return stat.S_ISREG(ctx.stat(rel).st_mode)
    except Unreadable:
        return False


def _refused(ctx: Context, rel: str) -> str:
    """Why an import may not be followed ("" when it may); a name no file
    can have is refused before the disk is asked."""
    impossible = unnameable(rel)
    if impossible:
        return impossible
    try:
        ctx.real(rel)
    except Unreadable as exc:
        return exc.reason
    return ""


def follow(ctx: Context, listed: List[str]) -> Tuple[List[BootFile], List[Problem]]:
    """The files ``listed`` with their imports followed, each real file
    once, and what could not be read or followed."""
    files: List[BootFile] = []
    problems: List[Problem] = []
    seen: Dict[str, str] = {}
    known: List[Tuple[aliases_mod.Alias, ...]] = []  # read on the first miss
    queue: List[Tuple[str, str, int]] = [(p, "", 0) for p in listed]
    while queue:
        rel, via, depth = queue.pop(0)
        try:
            key = ctx.real(rel)  # a symlinked CLAUDE.md is AGENTS.md
        except Unreadable as exc:
            problems.append(Problem(rel, exc.reason))
            continue
        if key in seen:
            continue
        seen[key] = rel
        try:
            mode = ctx.stat(rel).st_mode
        except Unreadable as exc:
            problems.append(Problem(rel, exc.reason))
            continue
        if not stat.S_ISREG(mode):  # the reasons context's reads give
            problems.append(Problem(rel, "is a directory" if stat.S_ISDIR(mode)
                                    else "not a regular file"))
            continue
        files.append(BootFile(rel, size(ctx, rel), via))
        if depth >= MAX_HOPS or not rel.lower().endswith(".md"):
            continue
        try:
            text = ctx.read_markdown(rel)
        except Unreadable:
            continue  # the size counts; imports of an unreadable file cannot
        folder = posixpath.dirname(rel)
        for line, target in imports_in(text):
            if target.startswith("~"):
                continue  # the user's home: not part of this repository
            joined = target.lstrip("/") if target.startswith("/") else \
                posixpath.join(folder, target)
            norm = posixpath.normpath(joined)
            why = "outside the repository root" if norm.startswith("../") \
                or norm == ".." else _refused(ctx, norm)
            if why or not _is_file(ctx, norm):
                if not why and _SCOPED.fullmatch(target):
                    continue  # @scope/name naming no file: a package or team
                if not why:
                    if not known:
                        known.append(aliases_mod.load(ctx))
                    hit = aliases_mod.match(known[0], "@" + target)
                    if hit is not None:
                        if any(aliases_mod.module_exists(ctx, p) for p in hit[1]):
                            continue  # a module of the code (@/components/x)
                        why = (f"alias {hit[0].pattern} of {hit[0].config}: no "
                               f"module {hit[1][0] if hit[1] else ''}")
                problems.append(Problem(rel, why, line, target, unknown=not why
                                        and target.startswith("/")))
            else:
                queue.append((norm, rel, depth + 1))
    return files, problems


def stub_imports(ctx: Context, note: str) -> Tuple[str, ...]:
    """The files a note brings in when it is only an import stub: its visible
    text is ``@path`` imports alone (headings and comments aside), as Claude
    Code's ``CLAUDE.md`` holding ``@AGENTS.md`` is. The imports are followed
    as the boot set follows them (``follow``); () for a note with words of
    its own. Staleness judges a stub with these files, as bootmap sizes it."""
    try:  # one resolution, one open: stale asks this of every note
        data = read_real(ctx.real(note), note, STUB_MAX_BYTES)
        if b"@" not in data:
            return ()
        text = decode(note, data)
    except Unreadable:  # over the cap too: no stub
        return ()
    if not _is_stub(text):
        return ()
    files, _problems = follow(ctx, [note])  # bad imports: bootmap's findings
    return tuple(f.path for f in files if f.path != note)


def _is_stub(text: str) -> bool:
    from icm import markdown

    if len(text.split()) > STUB_MAX_WORDS:
        return False
    found = imports_in(text)
    words = " ".join(s.visible for s in markdown.sections(text)).split()
    return bool(found) and len(words) == len(found) \
        and all(w.startswith("@") for w in words)
