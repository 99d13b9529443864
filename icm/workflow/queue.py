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
from typing import Iterator

from icm.checks.queue import number
from icm.context import Context
from icm.errors import UsageError
from icm.workflow.files import create_new, ensure_folder, fill, template


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


def new_item(ctx: Context, title: str) -> str:
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit")
    text = fill(template("queue.md"), {"title": title})
    folder = ensure_folder(ctx, ctx.config.queue_dir)
    with locked(folder):
        used = [number(name) for name in os.listdir(folder)]
        next_number = max([0, *used]) + 1
        name = f"{next_number:02d}_{slug}.md"
        create_new(ctx, f"{ctx.config.queue_dir}/{name}", text.encode("utf-8"))
    return f"{ctx.config.queue_dir}/{name}"
