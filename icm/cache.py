"""Per-file extraction cache for the link and dupes checks (one file each).

A file whose stamp (size, mtime, ctime, inode, mode: what ``cp -p``, a
rename over it or ``chmod`` changes) matches the entry and whose times
predate the cache file by more than a second is not even read (git's
racy-clean rule); any other file is read and hashed, so an unreadable one is
reported. Stored with ``marshal`` (plain data
only: marshal builds no objects of arbitrary classes and runs nothing), four
times faster to load than json.
Keyed by each file's content hash, icm's version and markdown-it-py's version
(the only things that change what extraction returns); kept under the git
directory (never committed, safe to delete); a cache that does not load, or
whose key differs, is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from icm import __version__, paths

Stamp = Tuple[int, ...]

FILE_NAME = "links-cache.marshal"


def markdown_it_version() -> str:
    """Part of every cache key: a new parser may split text differently."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("markdown-it-py")
    except PackageNotFoundError:  # pragma: no cover - vendored installs
        from markdown_it import __version__

        return __version__
def stamp(st: os.stat_result) -> Stamp:
    """What must be unchanged for a file to be trusted without reading it.
    Size and mtime alone miss ``cp -p`` (same size, mtime kept) and chmod."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Cache:
    def __init__(self, folder: Optional[Path], key: str,
                 name: str = FILE_NAME) -> None:
        self.path = folder / name if folder is not None else None
        self.key = f"{__version__}|{key}"
        self.entries: Dict[str, Any] = {}
        self.used: Dict[str, Any] = {}
        self.dirty = False
        self.written_ns = 0
        if self.path is not None:
            try:
                self.written_ns = self.path.stat().st_mtime_ns
                # A regular file only: a FIFO planted here must not hang icm.
                doc = marshal.loads(paths.read_regular(str(self.path)))
                if isinstance(doc, dict) and doc.get("key") == self.key:
                    entries = doc.get("entries")
                    if isinstance(entries, dict):
                        self.entries = entries
            except (OSError, ValueError, EOFError, TypeError, paths.Refused):
                pass

    def get_by_stamp(self, rel: str, stamp: Stamp) -> Any:
        """The cached value when the stamp matches and the file was not
        modified or chmodded within the second before the cache was written
        (git's racy check); else None and the caller hashes the content."""
        hit = self.entries.get(rel)
        if (isinstance(hit, list) and len(hit) == 3 and tuple(hit[2]) == stamp
                and len(stamp) == 5
                and max(stamp[1], stamp[2]) < self.written_ns - 1_000_000_000):
            self.used[rel] = hit
            return hit[1]
        return None

    def get(self, rel: str, hashed: str, stamp: Stamp) -> Any:
        hit = self.entries.get(rel)
        if isinstance(hit, list) and len(hit) == 3 and hit[0] == hashed:
            self.used[rel] = [hashed, hit[1], list(stamp)]
            self.dirty = self.dirty or tuple(hit[2]) != stamp
            return hit[1]
        return None

    def put(self, rel: str, hashed: str, value: Any, stamp: Stamp) -> None:
        self.used[rel] = [hashed, value, list(stamp)]
        self.dirty = True

    def save(self) -> None:
        """Write the entries used this run (dropping files that went away)."""
        if self.path is None:
            return
        if not self.dirty and len(self.used) == len(self.entries):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=str(self.path.parent), prefix=".tmp-")
        except OSError:
            return  # a cache that cannot be written is only a slower next run
        try:
            with os.fdopen(fd, "wb") as fh:
                marshal.dump({"key": self.key, "entries": self.used}, fh)
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
