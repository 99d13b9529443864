"""Folder notes and the code each speaks for (staleness, handoffs)."""

from __future__ import annotations

import posixpath
from typing import Callable, Dict, Iterable, List, Optional

from icm.context import MARKDOWN_SUFFIXES, Context

# Files icm itself writes at the root: its configuration and its baseline
# are icm's, not the folder's code (``init`` made a root note STALE at once).
ICM_FILES = ("icm.toml", "icm-baseline.json")


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


def code_by_note(ctx: Context, paths: Iterable[str]) -> Dict[str, List[str]]:
    """The code files among ``paths`` each note speaks for."""
    owner = owner_of(ctx)
    owned: Dict[str, List[str]] = {n: [] for n in ctx.notes()}
    for path in paths:
        note = owner(path)
        if note is not None:
            owned[note].append(path)
    return owned
