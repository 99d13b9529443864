"""Folder notes, the code each speaks for (staleness, handoffs), and which
notes an agent reads together (dupes)."""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from itertools import chain, repeat
from typing import (
    AbstractSet,
    Callable,
    Container,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from icm.context import (
    MARKDOWN_SUFFIXES,
    TRACKED,
    Context,
    PathList,
    Unreadable,
    compile_globs,
)

# Names agents load from the folder they work in, one per tool (the agents.md
# convention, Claude Code, Gemini CLI): init's detection and read_together's.
PER_TOOL = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
# Files icm itself writes at the root: its configuration and its baseline
# are icm's, not the folder's code (``init`` made a root note STALE at once).
ICM_FILES = ("icm.toml", "icm-baseline.json")
# Notes of one text, each folder's own name and path masked, that make a
# stamp (dupes' TEMPLATE_NOTES: a note and at least two others).
STAMPED = 3


def icm_owned(ctx: Context) -> Callable[[str], bool]:
    """Whether a path is one icm writes for itself, never code: ``ICM_FILES``
    and the ``.gitkeep`` ``init`` puts in the journal and queue folders (not
    the folders' other files: ``queue/`` may be a project's own package)."""
    cfg = ctx.config
    owned = frozenset((*ICM_FILES, *(f"{folder.rstrip('/')}/.gitkeep" for folder
                                     in (cfg.journal_dir, cfg.queue_dir))))
    return owned.__contains__


def owner_of(ctx: Context) -> Callable[[str], Optional[str]]:
    """The note that speaks for a path (None for prose, notes, icm's own
    files, and code no note covers)."""
    is_note, owned = ctx.note_names().is_note, icm_owned(ctx)
    note_dirs = {posixpath.dirname(n): n for n in ctx.notes()}
    subtree = ctx.config.stale_scope == "subtree"

    def owner(path: str) -> Optional[str]:
        if path.lower().endswith(MARKDOWN_SUFFIXES) or is_note(path) \
                or owned(path):
            return None
        folder = path.rpartition("/")[0]
        if not subtree:
            return note_dirs.get(folder)
        if folder not in nearest:  # once a folder: stale asks of every path
            nearest[folder] = _nearest(folder)
        return nearest[folder]

    def _nearest(folder: str) -> Optional[str]:
        while True:  # nearest folder at or above with a note
            if folder in note_dirs:
                return note_dirs[folder]
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    nearest: Dict[str, Optional[str]] = {}
    return owner


def code_by_note(ctx: Context, pending: AbstractSet[str] = frozenset(),
                 links: Optional[AbstractSet[str]] = None
                 ) -> Dict[str, Sequence[str]]:
    """The code files among the tracked ones and ``pending`` each note
    speaks for, each note's as a ``PathList`` (a place per listed path).
    Two notes of one folder (an ``AGENTS.md`` and a ``CLAUDE.md``) both
    speak for its code, unless one only mirrors the other (``_speakers``;
    ``links``: ``sibling_links`` where the caller has it already)."""
    owner = owner_of(ctx)
    notes = ctx.notes()
    owned = {n: PathList(ctx.file_list) for n in notes}
    speakers = _speakers(ctx, notes, links)
    files = ctx.file_list
    others = sorted(p for p in pending if p not in files.tracked)
    for place, path in chain(enumerate(files.paths), zip(repeat(-1), others)):
        if place >= 0 and not files.flags[place] & TRACKED:
            continue
        note = owner(path)
        if note is not None:
            for speaker in speakers.get(note, (note,)):
                owned[speaker].append(path, place)
    return dict(owned)


def link_target(ctx: Context, note: str) -> str:
    """The path from the root of what a symlinked note resolves to (the
    note itself when it is no link), resolved the one way every read is."""
    try:
        real = ctx.real(note)
    except Unreadable:
        return note
    return os.path.relpath(real, os.path.realpath(ctx.root)).replace(os.sep, "/")


def mirrors(ctx: Context, notes: Iterable[str]) -> Set[str]:
    """The notes that are symlinks to another of ``notes`` (bunli's and
    upbrr's ``CLAUDE.md -> AGENTS.md``): one text, so one entry wherever
    notes are listed, sized or picked."""
    every = set(notes)
    return {n for n in every if link_target(ctx, n) != n
            and link_target(ctx, n) in every}


def sibling_links(ctx: Context, notes: Iterable[str]) -> Set[str]:
    """The ``mirrors`` that link to a note of their own folder, and the
    per-tool notes whose bytes are another's of their folder (a copy a sync
    script keeps: round 13's crates, ``CLAUDE.md`` copied from ``AGENTS.md``,
    each STALE line twice): that note under a second name, given no code
    (``_speakers``) and judged nowhere apart (a link to another folder's
    note speaks for its own folder). Of copies, the first by name stays."""
    folders: Dict[str, Set[str]] = {}
    for note in notes:
        folders.setdefault(posixpath.dirname(note), set()).add(note)
    found = {n for group in folders.values() if len(group) > 1 for n in group
             if link_target(ctx, n) in group - {n}}  # one folder's alone: free
    for group in folders.values():
        tools = sorted(n for n in group if n not in found and tool_of(n) is not None
                       and link_target(ctx, n) == n)
        if len(tools) < 2:
            continue
        sizes: Dict[int, List[str]] = {}
        for note in tools:  # only notes of one size are read (a warm run
            try:            # of paired notes that differ reads none)
                sizes.setdefault(ctx.stat(note).st_size, []).append(note)
            except Unreadable:
                continue
        for same in sizes.values():
            seen: Dict[bytes, str] = {}
            for note in same if len(same) > 1 else ():
                try:  # same words, so reviewed when its twin was
                    data = ctx.read_bytes(note, WORDS_CAP)
                except Unreadable:
                    continue
                if data in seen and tool_mirrors(seen[data], note):
                    found.add(note)
                else:
                    seen.setdefault(data, note)
    return found


def _speakers(ctx: Context, notes: Iterable[str],
              links: Optional[AbstractSet[str]] = None
              ) -> Dict[str, Tuple[str, ...]]:
    """For the note ``owner_of`` picks in a folder holding several, the
    folder's notes that speak for its code: each but a symlink to a sibling
    or an import stub bringing one in (``CLAUDE.md`` holding ``@AGENTS.md``:
    judged with it, it would repeat its verdict). Only the last-sorted note
    was given the code: an ``AGENTS.md`` beside a ``CLAUDE.md`` with words
    of its own was never judged (issue 24's trial)."""
    from icm.model.imports import stub_imports

    folders: Dict[str, List[str]] = {}
    notes = list(notes)
    if links is None:
        links = sibling_links(ctx, notes)
    for note in notes:
        folders.setdefault(posixpath.dirname(note), []).append(note)
    speakers: Dict[str, Tuple[str, ...]] = {}
    for group in folders.values():
        if len(group) < 2:
            continue
        picked = group[-1]  # owner_of's: the last of the folder's notes
        members = set(group)
        mirrors = {n for n in group
                   if n in links or members.intersection(stub_imports(ctx, n))}
        speaking = tuple(n for n in sorted(group) if n not in mirrors)
        speakers[picked] = speaking or (picked,)
    return speakers


def tool_of(path: str) -> Optional[str]:
    """The ``PER_TOOL`` name of a note (None for a name every tool reads)."""
    name = posixpath.basename(path)
    return name if name in PER_TOOL else None


def tool_mirrors(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one folder's notes for two tools (its
    ``AGENTS.md`` and ``GEMINI.md``): no session reads both, unless one
    names the other; their copies are the intent, their drift a finding."""
    ta, tb = tool_of(a), tool_of(b)
    return ta is not None and tb is not None and ta != tb \
        and posixpath.dirname(a) == posixpath.dirname(b)


def read_together(a: str, b: str, always: Container[str] = (),
                  named: AbstractSet[Tuple[str, str]] = frozenset(),
                  apart: Container[Tuple[str, str]] = ()) -> bool:
    """Whether an agent reads files ``a`` and ``b`` in one session: one names
    the other (``named``: (note, note it names) pairs, "root +
    `internal/AGENTS.md` rules still apply"), either is read in every
    session (``always``: ``always_read``), or one's folder is the other's or
    holds it (an agent working in a folder loads its notes and its
    ancestors'). Notes of two sibling folders are loaded by agents working
    in each, never together: a difference between them is often deliberate.
    Nor are notes for two tools (``tool_of``): a session of one reads the
    always-read file of another unless its tool has its own file beside it
    (``apart``: (always-read file, tool) pairs, ``tools_apart``)."""
    if (a, b) in named or (b, a) in named:
        return True
    ta, tb = tool_of(a), tool_of(b)
    if ta is not None and tb is not None and ta != tb:
        return (a in always and (a, tb) not in apart) \
            or (b in always and (b, ta) not in apart)
    if a in always or b in always:
        return True
    top, low = sorted((posixpath.dirname(a), posixpath.dirname(b)), key=len)
    return not top or low == top or low.startswith(top + "/")


def tools_apart(always: Iterable[str], notes: Iterable[str],
                named: AbstractSet[Tuple[str, str]] = frozenset()
                ) -> FrozenSet[Tuple[str, str]]:
    """(always-read file, tool) pairs whose tool has a note of its own in the
    file's folder, one not naming it (a root ``GEMINI.md`` beside the
    ``AGENTS.md`` handbook: Gemini reads that, not the handbook; a
    ``CLAUDE.md`` holding ``@AGENTS.md`` brings it in)."""
    by_folder: Dict[str, List[str]] = {}
    for note in notes:
        if tool_of(note) is not None:
            by_folder.setdefault(posixpath.dirname(note), []).append(note)
    return frozenset(
        (path, tool) for path in always if tool_of(path) is not None
        for note in by_folder.get(posixpath.dirname(path), ())
        for tool in [tool_of(note)] if tool is not None and tool != tool_of(path)
        and (note, path) not in named)


def tool_files_beside(ctx: Context, always: Iterable[str],
                      notes: Container[str]) -> Dict[str, str]:
    """The text of each ``PER_TOOL`` file beside an always-read one that is
    no note, from the file list (a root ``GEMINI.md`` init left out, read at
    start as the handbook is), for ``tools_apart``: a symlink's is its
    target's path as an import, an unreadable one is left out (its tool
    reads the handbook, as before). At most two small reads."""
    found = {}
    for folder in sorted({posixpath.dirname(p) for p in always if tool_of(p)}):
        for name in PER_TOOL:
            path = posixpath.join(folder, name)
            if path in notes or path in always or path not in ctx.file_set:
                continue
            target = link_target(ctx, path)
            try:
                found[path] = f"@{posixpath.relpath(target, folder or '.')}" \
                    if target != path else ctx.read_markdown(path)
            except Unreadable:
                continue
    return found


def always_read(ctx: Context) -> FrozenSet[str]:
    """The files every session reads: the handbook and the configured
    ``boot`` set (the default boot set's largest note is one session's, not
    every one's). What they import is the caller's to add: dupes finds it in
    the statements it has cached, so a warm run reads no file."""
    cfg = ctx.config
    listed = {cfg.handbook} if cfg.handbook in ctx.file_set else set()
    pattern = compile_globs(cfg.boot)
    if pattern is not None:
        listed.update(f for f in ctx.files if pattern.match(f))
    return frozenset(listed)


WORDS_CAP = 1 << 18  # bytes of a note compared; a longer one: any change counts


def words(data: bytes) -> Tuple[str, ...]:
    """What a review must change: the text's words, whitespace of every kind
    (line endings, re-wrapping, indentation, a BOM) aside."""
    return tuple(data.decode("utf-8", "surrogateescape").lstrip("\ufeff").split())


def words_digest(data: bytes) -> Optional[bytes]:
    """The words' fingerprint; None when the text may be cut at the cap."""
    if len(data) >= WORDS_CAP:
        return None
    joined = "\0".join(words(data)).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(joined, digest_size=16).digest()


def own_masked(text: str, note: str) -> str:
    """``text`` with the note's own folder (its path, then its name, as whole
    words) masked: what a stamp's copies share."""
    folder = posixpath.dirname(note)
    for own in dict.fromkeys((folder, posixpath.basename(folder))):
        if own:
            text = re.sub(rf"(?<!\w){re.escape(own)}(?!\w)", "\0", text)
    return text


def stamp_keys(ctx: Context, notes: Iterable[str], limit: int = WORDS_CAP,
               digest: Callable[[bytes], Optional[bytes]] = words_digest
               ) -> Dict[str, bytes]:
    """note -> the digest of its text, own folder masked (``stamped``)."""
    keys: Dict[str, bytes] = {}
    for note in notes:
        try:
            text = ctx.read_bytes(note, limit).decode("utf-8", "surrogateescape")
        except Unreadable:
            continue
        key = digest(own_masked(text, note).encode("utf-8", "surrogateescape"))
        if key is not None:
            keys[note] = key
    return keys


def stamped(ctx: Context, notes: Sequence[str], limit: int = WORDS_CAP,
            digest: Callable[[bytes], Optional[bytes]] = words_digest
            ) -> Dict[str, int]:
    """The notes whose text is that of ``STAMPED - 1`` others or more once
    each note's own folder is masked (its path, then its name, as whole
    words) and ``digest`` has taken what else it drops (stale's: whitespace):
    one text a tool writes into every folder (Pommel's ``CLAUDE.md`` per
    crate, its name in it), which says nothing of a folder's code. Nothing
    looser: notes of one shape with their own facts differ. note -> how many
    others share its text; one read (``limit`` bytes) and one hash a note,
    and an unreadable one, or one ``digest`` refuses, is in no group."""
    keys = stamp_keys(ctx, notes, limit, digest)
    sizes: Dict[bytes, int] = {}
    for key in keys.values():
        sizes[key] = sizes.get(key, 0) + 1
    return {note: sizes[key] - 1 for note, key in keys.items()
            if sizes[key] >= STAMPED}
