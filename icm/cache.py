"""Per-file extraction cache for the link check.

Keyed by each file's content hash, icm's version and markdown-it-py's version
(the only things that change what extraction returns); kept under the git
directory (never committed, safe to delete); a cache that does not load, or
whose key differs, is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional

from icm import __version__

FILE_NAME = "links-cache.json"


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Cache:
    def __init__(self, folder: Optional[Path], key: str) -> None:
        self.path = folder / FILE_NAME if folder is not None else None
        self.key = f"{__version__}|{key}"
        self.entries: Dict[str, Any] = {}
        self.used: Dict[str, Any] = {}
        self.dirty = False
        if self.path is not None:
            try:
                doc = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(doc, dict) and doc.get("key") == self.key:
                    entries = doc.get("entries")
                    if isinstance(entries, dict):
                        self.entries = entries
            except (OSError, ValueError):
                pass

    def get(self, rel: str, hashed: str) -> Any:
        hit = self.entries.get(rel)
        if isinstance(hit, list) and len(hit) == 2 and hit[0] == hashed:
            self.used[rel] = hit
            return hit[1]
        return None

    def put(self, rel: str, hashed: str, value: Any) -> None:
        self.used[rel] = [hashed, value]
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
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": self.key, "entries": self.used}, fh,
                          separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
