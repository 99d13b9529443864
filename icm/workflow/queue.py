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
from typing import Callable, Iterable, Iterator, List, Sequence, Set, Tuple

from icm.context import Context
from icm.errors import UsageError
from icm.model.queue import number
from icm.slug import slugify
from icm.workflow.files import create_new, ensure_folder, fill, template
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


def ref_numbers(ctx: Context, refs: Sequence[str]) -> List[int]:
    """Queue numbers used on other refs (``--against``, ``queue_refs``, or by
    default the upstream and ``origin/HEAD``), read from git's trees: a
    number another branch took is not free here either."""
    from icm import git

    if not ctx.in_git:
        return []
    wanted = list(refs) or [r for r in (git.upstream(ctx.root),
                                        git.origin_default(ctx.root)) if r]
    found: List[int] = []
    for ref in wanted:
        if git.commit_of(ctx.root, ref) is None:
            raise UsageError(f"queue ref {ref}: names no commit (queue_refs or "
                             "--against)")
        found += [number(p, strict=False) for p in git.tree_entries(
            ctx.root, ref, [ctx.config.queue_dir])]
    return found


def _in_queue(ctx: Context, folder: Path) -> Iterable[int]:
    # Listed under the lock, not taken from ctx.files: another writer may
    # have created an item since the context was built.
    return (number(name, strict=False) for name in os.listdir(folder))


def _carried_over(ctx: Context, folder: Path) -> Iterable[int]:
    return carried_numbers(ctx)


def _on_refs(ctx: Context, folder: Path) -> Iterable[int]:
    against = ctx.options.get("against")
    return ref_numbers(ctx, [str(against)] if against else ctx.config.queue_refs)


def _in_history(ctx: Context, folder: Path) -> Iterable[int]:
    if not ctx.in_git:
        return ()
    from icm import git

    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return (number(path, strict=False) for path in git.added_paths(ctx.root, prefix)
            if "/" not in path[len(prefix):])


# Each source says which numbers it has seen used, badly named items
# included (check-queue reports their names; their numbers are still taken).
# ``_on_refs`` reads other branches' trees (``--against``, ``queue_refs``).
NumberSource = Callable[[Context, Path], Iterable[int]]
NUMBER_SOURCES: Tuple[NumberSource, ...] = (_in_queue, _carried_over, _in_history,
                                            _on_refs)


def used_numbers(ctx: Context, folder: Path) -> Set[int]:
    """Every number any source has seen used."""
    return {n for source in NUMBER_SOURCES for n in source(ctx, folder) if n >= 0}


def next_number(ctx: Context, folder: Path) -> int:
    """One above the highest number any source has seen used."""
    return max([0, *used_numbers(ctx, folder)]) + 1


def new_item(ctx: Context, title: str) -> str:
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit (of any "
                         "script) to name the file")
    text = fill(template("queue.md"), {"title": title})
    folder = ensure_folder(ctx, ctx.config.queue_dir)
    with locked(folder):
        name = f"{next_number(ctx, folder):02d}_{slug}.md"
        create_new(ctx, f"{ctx.config.queue_dir}/{name}", text.encode("utf-8"))
    return f"{ctx.config.queue_dir}/{name}"
