"""``icm new-queue TITLE``: create the next numbered queue item.

A number once used is never given again: journal entries and commits refer
to it. The next number is one above the highest of every source in
``NUMBER_SOURCES`` (the queue folder, the numbers journal entries carry over,
the queue files git history ever added). Two writers at once are serialised
by an advisory lock on the queue folder, and the file is created without
ever replacing another.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable, Iterable, Iterator, Tuple

from icm.checks.queue import number
from icm.context import Context
from icm.errors import UsageError
from icm.slug import slugify
from icm.workflow.files import create_new, ensure_folder, template
from icm.workflow.journal import carried_numbers


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` (POSIX); elsewhere the
    no-overwrite create is the only guard."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _in_queue(ctx: Context, folder: Path) -> Iterable[int]:
    # Listed under the lock, not taken from ctx.files: another writer may
    # have created an item since the context was built.
    return (number(name, strict=False) for name in os.listdir(folder))


def _carried_over(ctx: Context, folder: Path) -> Iterable[int]:
    return carried_numbers(ctx)


def _in_history(ctx: Context, folder: Path) -> Iterable[int]:
    if not ctx.in_git:
        return ()
    from icm import git

    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return (number(path, strict=False) for path in git.added_paths(ctx.root, prefix)
            if "/" not in path[len(prefix):])


# Each source says which numbers it has seen used, badly named items
# included (check-queue reports their names; their numbers are still taken).
# Add a source to widen the memory, e.g. numbers on other clones' refs.
NumberSource = Callable[[Context, Path], Iterable[int]]
NUMBER_SOURCES: Tuple[NumberSource, ...] = (_in_queue, _carried_over, _in_history)


def next_number(ctx: Context, folder: Path) -> int:
    """One above the highest number any source has seen used."""
    return max([0, *(n for source in NUMBER_SOURCES for n in source(ctx, folder))]) + 1


def new_item(ctx: Context, title: str) -> str:
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit (of any "
                         "script) to name the file")
    folder = ensure_folder(ctx.root, ctx.config.queue_dir)
    text = template("queue.md").replace("{title}", title)
    with locked(folder):
        name = f"{next_number(ctx, folder):02d}_{slug}.md"
        create_new(folder / name, text.encode("utf-8"))
    return f"{ctx.config.queue_dir}/{name}"
