"""Folder notes and the code each speaks for (staleness, handoffs)."""

from __future__ import annotations

import posixpath
from typing import Callable, Dict, Iterable, List, Optional

from icm.context import MARKDOWN_SUFFIXES, Context


def owner_of(ctx: Context) -> Callable[[str], Optional[str]]:
    """The note that speaks for a path (None for prose, notes, and code no
    note covers)."""
    name = ctx.config.note_name
    note_dirs = {posixpath.dirname(n): n for n in ctx.notes()}
    subtree = ctx.config.stale_scope == "subtree"

    def owner(path: str) -> Optional[str]:
        if path.lower().endswith(MARKDOWN_SUFFIXES) or posixpath.basename(path) == name:
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
