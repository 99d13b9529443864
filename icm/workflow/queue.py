"""``icm new-queue TITLE``: create the next numbered queue item.

A number once used is never given again: journal entries and commits refer
to it. The next number is one above the highest of every source in
``NUMBER_SOURCES`` (the queue folder, the numbers journal entries carry over,
the queue files git history ever added). Two writers at once are serialised
by an advisory lock on the queue folder (``files.queue_locked``), and the
file is created without ever replacing another.

Finding an item is here too: the writers of items (claims, journal) import
this module, never each other's parents.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence, Set, Tuple

from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.model.journal import entries
from icm.model.queue import items, number
from icm.slug import slugify
from icm.workflow.files import create_new, fill, queue_locked, template

_NUMBER = re.compile(r"\A\d+")

# The line that records which queue item an entry finished; new-queue reads
# it back so the item's number is never given again.
CARRIED = "Carried over from `{source}`"


def carried_numbers(ctx: Context) -> List[int]:
    """Queue numbers that journal entries say they carried over."""
    queue = ctx.config.queue_dir.rstrip("/")
    before = CARRIED.partition("{source}")[0] + queue + "/"
    pattern = re.compile(re.escape(before.encode()) + rb"([^`/\n]+)`")
    found: List[int] = []
    for path in entries(ctx):
        try:
            data = ctx.read_bytes(path, ctx.config.max_file_bytes)
        except Unreadable:
            continue
        found.extend(number(m.group(1).decode("utf-8", "replace"), strict=False)
                     for m in pattern.finditer(data))
    return found


def find_item(ctx: Context, item: str) -> str:
    """Resolve a number (``07``/``7``), a slug or a path to one queue file."""
    queue = sorted(items(ctx))
    wanted = item.strip().replace("\\", "/")
    matches: List[str] = []
    if wanted.isdigit():
        matches = [q for q in queue if number(q) == int(wanted)]
    elif "/" in wanted or wanted.endswith(".md"):
        rel = os.path.relpath(os.path.abspath(wanted), ctx.root).replace(os.sep, "/") \
            if os.path.isabs(wanted) or os.path.exists(wanted) else wanted
        matches = [q for q in queue if q == rel or q == wanted
                   or q.rsplit("/", 1)[-1] == wanted]
    else:
        # A terminal may type the decomposed form of the name new-queue wrote.
        forms = {wanted, unicodedata.normalize("NFKC", wanted)}
        matches = [q for q in queue if item_slug(q) in forms]
    if len(matches) == 1:
        return matches[0]
    listing = ", ".join(queue) if queue else "the queue is empty"
    if not matches:
        raise UsageError(f"no queue item matches '{item}' ({listing})")
    raise UsageError(f"'{item}' matches several queue items: {', '.join(matches)}")


def item_slug(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3].split("_", 1)[1] if "_" in name else name[:-3]


def item_bytes(ctx: Context, path: str) -> Optional[bytes]:
    """The bytes of the item ``path`` now, None when it cannot be read (a
    writer may have moved it since it was found)."""
    try:
        return ctx.read_bytes(path)
    except Unreadable:
        return None


def still_there(ctx: Context, path: str, folder: Path,
                was: Optional[bytes]) -> str:
    """``path`` as it is now, under the queue lock: the item found before the
    lock may have been moved or finished meanwhile. Given ``was``, its bytes
    when found, an item renumbered meanwhile is found at its new name: the
    one item with the same name after its number and those bytes, its links
    to itself aside (a claim made during a renumber was written to the old
    file and lost). Anything else is one line: it is gone."""
    name = path.rsplit("/", 1)[-1]
    present = os.listdir(folder)
    if name in present:
        return path
    tail = _NUMBER.sub("", name)
    moved = []
    for other in sorted(present):
        if was is None or other == name or not _NUMBER.match(other) \
                or _NUMBER.sub("", other) != tail:
            continue
        rel = f"{ctx.config.queue_dir}/{other}"
        if item_bytes(ctx, rel) in (was, was.replace(os.fsencode(name),
                                                        os.fsencode(other))):
            moved.append(rel)
    if len(moved) == 1:
        return moved[0]
    raise UsageError(f"{path} is gone: another writer finished or moved it just "
                     "now")


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


def _in_queue(ctx: Context, folder: Path, refs: Sequence[str]) -> Iterable[int]:
    # Listed under the lock, not taken from ctx.files: another writer may
    # have created an item since the context was built.
    return (number(name, strict=False) for name in os.listdir(folder))


def _carried_over(ctx: Context, folder: Path, refs: Sequence[str]
                  ) -> Iterable[int]:
    return carried_numbers(ctx)


def _on_refs(ctx: Context, folder: Path, refs: Sequence[str]) -> Iterable[int]:
    return ref_numbers(ctx, refs)


def _in_history(ctx: Context, folder: Path, refs: Sequence[str]) -> Iterable[int]:
    if not ctx.in_git:
        return ()
    from icm import git

    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return (number(path, strict=False) for path in git.added_paths(ctx.root, prefix)
            if "/" not in path[len(prefix):])


# Each source says which numbers it has seen used, badly named items
# included (check-queue reports their names; their numbers are still taken).
# ``_on_refs`` reads other branches' trees (``--against``, ``queue_refs``).
NumberSource = Callable[[Context, Path, Sequence[str]], Iterable[int]]
NUMBER_SOURCES: Tuple[NumberSource, ...] = (_in_queue, _carried_over, _in_history,
                                            _on_refs)


def used_numbers(ctx: Context, folder: Path, against: Optional[str] = None
                 ) -> Set[int]:
    """Every number any source has seen used; other refs are ``against``
    (``--against``), else ``queue_refs``, else the defaults."""
    refs = [against] if against else list(ctx.config.queue_refs)
    return {n for source in NUMBER_SOURCES for n in source(ctx, folder, refs)
            if n >= 0}


def next_number(ctx: Context, folder: Path, against: Optional[str] = None) -> int:
    """One above the highest number any source has seen used."""
    return max([0, *used_numbers(ctx, folder, against)]) + 1


def new_item(ctx: Context, title: str, against: Optional[str] = None) -> str:
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit (of any "
                         "script) to name the file")
    text = fill(template("queue.md"), {"title": title})
    with queue_locked(ctx, make=True) as folder:
        name = f"{next_number(ctx, folder, against):02d}_{slug}.md"
        create_new(ctx, f"{ctx.config.queue_dir}/{name}", text.encode("utf-8"))
    return f"{ctx.config.queue_dir}/{name}"
