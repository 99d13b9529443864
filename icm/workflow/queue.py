"""``icm new-queue TITLE``: create the next numbered queue item.

The number is the highest in use plus one (numbers of finished items are not
reused: journal entries and commits refer to them). Two writers at once are
serialised by an advisory lock on the queue folder, and the file is created
without ever replacing another.
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

from icm.checks.queue import number
from icm.context import Context
from icm.errors import UsageError
from icm.workflow.files import create_new, ensure_folder, template


def slugify(title: str) -> str:
    """``Auto-detect the delimiter`` -> ``auto-detect-the-delimiter``."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:60].rstrip("-")


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
        found += [number(p) for p in git.tree_entries(
            ctx.root, ref, [ctx.config.queue_dir])]
    return found


def new_item(ctx: Context, title: str, against: Optional[str] = None) -> str:
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit")
    folder = ensure_folder(ctx.root, ctx.config.queue_dir)
    text = template("queue.md").replace("{title}", title)
    with locked(folder):
        used = [number(name) for name in os.listdir(folder)]
        used += ref_numbers(ctx, [against] if against else ctx.config.queue_refs)
        next_number = max([0, *used]) + 1
        name = f"{next_number:02d}_{slug}.md"
        create_new(folder / name, text.encode("utf-8"))
    return f"{ctx.config.queue_dir}/{name}"
