"""Per-file extraction cache for the link and dupes checks (one file each).

A file whose stamp (size, mtime, ctime, inode, mode: what ``cp -p``, a
rename over it or ``chmod`` changes) matches the entry and whose times
predate the cache file by more than a second is not even read (git's
racy-clean rule); any other file is read and hashed, so an unreadable one is
reported. Keyed by each file's content hash, icm's version and the
parsers' (markdown-it-py's, and for links pyromark's: the only
things that change what extraction returns); kept in ``icm/`` under the
git directory (never committed, safe to delete).

The cache is untrusted data: a pull request's job can save one that the
pull request's next run restores. So it is JSON, whose reader allocates in
proportion to its input (marshal's took a count from the file: 5 bytes
declaring 2**29 items cost 4 GB), read only when ``fstat`` shows it within
``limit`` (a multiple of the bytes of the files it describes) and its CRC
is right (damage on the disk), and every entry's shape, down to each
nested value its user reads, passes the user's ``check`` (text: no NUL,
no surrogate, as no decoded file holds) before any is used. A cache that
fails anywhere, or whose key differs, is ignored and rewritten; nothing is
said and nothing raised. The ``icm`` folder and the file must be real (a
symlink there is refused: it pointed writes out of the git directory),
and a new file is renamed over the old.

What a well-formed entry can still do: claim any result for the content
hash it is filed under. One icm wrote says only what those bytes parse to;
a forged one needs the git directory (whoever can write it can change the
files) or, in CI, a cache saved by a run that ran the attacker's code:
``actions/cache`` restores a branch's caches only to that branch and its
pull requests, the default branch's to all, so a fork's pull request
poisons only its own runs, whose workflow it controls anyway. A keyed
digest (HMAC) was rejected: its secret lives either beside the cache (its
writer writes both) or outside the repository (icm writes nothing there,
and CI's fresh home would miss every restored entry).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import math
import os
import zlib
from itertools import chain
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Tuple,
    Union,
)

if TYPE_CHECKING:
    import hashlib

from icm import __version__, paths

Stamp = Tuple[int, ...]
Check = Callable[[List[Any]], bool]  # every entry's value at once

FILE_NAME = "links-cache.json"
FORMAT = 1  # the file's layout (``framed``); what entries mean: each user's key
DIGEST_CHARS = 32

# ``limit``: icm's own caches measured 0.07-0.8x the bytes of the files
# they describe (links) and 0.8-2.0x (dupes: text and skeleton), and a
# file's digest, stamp and path take about 150 bytes. One over the limit
# costs only a cold run. JSON's reader builds at most about 22 bytes of
# objects a byte (``[[],[],...]``), so the limit bounds memory too: 0.9
# GiB at 5,000 files of 7 MB (``bench/run_cache.py``).
BASE_BYTES = 1 << 20
PER_FILE = 512
PER_BYTE = 4


def limit(files: int, size: int) -> int:
    """The most bytes a cache of ``files`` files of ``size`` bytes in all may
    hold before it is refused unread."""
    return BASE_BYTES + PER_FILE * files + PER_BYTE * size


def markdown_it_version() -> str:
    """Part of every cache key: a new parser may split text differently."""
    found = installed_version("markdown_it", ("markdown-it-py",))
    if found:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("markdown-it-py")
    except PackageNotFoundError:  # pragma: no cover - vendored installs
        from markdown_it import __version__

        return __version__


def fast_parser_version() -> str:
    """The ``[fast]`` parser's version (pyromark's), or "" without it: part of
    the link cache's key, though its answers are held equal to markdown-it-
    py's (a release that broke that would otherwise be believed from the
    cache). Here, not in ``icm.extract``: a warm run imports no parser."""
    found = installed_version("pyromark", ("pyromark",))
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyromark")
    except PackageNotFoundError:
        return ""


def installed_version(module: str, names: Tuple[str, ...]) -> Optional[str]:
    """The version in the ``NAME-VERSION.dist-info`` folder of one of
    ``names`` beside ``module`` (found, not imported): "" when no such
    module is installed, None when the layout does not answer (no such
    folder, or two). ``importlib.metadata``'s imports (email, zipfile, csv)
    were 25 ms of every warm run for the same answer."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.origin:
        return ""
    site = os.path.dirname(spec.origin)
    if spec.submodule_search_locations is not None:  # a package's __init__
        site = os.path.dirname(site)
    wanted = {name.replace("-", "_").lower() for name in names}
    try:
        entries = os.listdir(site)  # the installed package's folder, not the root
    except OSError:
        return None
    found = {entry[:-len(".dist-info")].partition("-")[2] for entry in entries
             if entry.endswith(".dist-info")
             and entry.partition("-")[0].lower() in wanted}
    return found.pop() if len(found) == 1 else None


def stamp(st: os.stat_result) -> Stamp:
    """What must be unchanged for a file to be trusted without reading it.
    Size and mtime alone miss ``cp -p`` (same size, mtime kept) and chmod."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def blake2b(data: bytes = b"", digest_size: int = 16) -> "hashlib.blake2b":
    """hashlib's BLAKE2b from its own C module: ``import hashlib`` loads
    OpenSSL first (13 of its 15 ms), on every run that keys a memo."""
    try:
        from _blake2 import blake2b as made
    except ImportError:  # pragma: no cover - a Python without the module
        from hashlib import blake2b as made
    return made(data, digest_size=digest_size)


def digest(data: bytes) -> str:
    return blake2b(data).hexdigest()


def column(values: List[Any], *indexes: int) -> Iterator[Any]:
    """The items of lists ``indexes`` of every value, as one run: values
    already known to hold lists there."""
    return chain.from_iterable(value[i] for value in values for i in indexes)


def each(kind: type, items: Iterable[Any]) -> bool:
    """Whether every item is exactly of ``kind`` (``True`` is no int here)."""
    return {kind}.issuperset(map(type, items))


def strings(items: Iterable[Any]) -> bool:
    """Whether every item is a str holding no NUL and no surrogate, as no
    decoded file does (one in a link's destination crashed ``stat``). One
    join and one encode, in C: a scan per string was most of a load."""
    try:
        joined = "".join(items)
        joined.encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return False
    return "\0" not in joined


def counts(values: List[Any], index: int, least: int) -> bool:
    """Whether list ``index`` of every value holds only ints from ``least``."""
    return (each(int, column(values, index))
            and min(column(values, index), default=least) >= least)


def seconds(values: List[Any]) -> bool:
    """``check`` for durations: each a finite, non-negative int or float."""
    return all((type(v) is int or type(v) is float and math.isfinite(v)) and v >= 0
               for v in values)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector: a load builds tens of thousands of lists
    and no cycle, and each collection walked them all (half the load, and
    then a third of the lookups); building a similarity index makes millions
    of tuples and sets, a fifth of a run at 1,000 notes (``similarity``
    takes it from here)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_FOLDER_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                 | getattr(os, "O_NOFOLLOW", 0))
# Without O_NOFOLLOW and opens relative to a folder's descriptor the file
# cannot be opened without following a planted symlink.
_SAFE_OPEN = hasattr(os, "O_NOFOLLOW") and os.open in os.supports_dir_fd


def _open_folder(folder: Path, create: bool) -> int:
    """A descriptor of ``folder``, a real folder (a symlink there is
    ELOOP); every later open and rename is relative to it, so the folder
    cannot be swapped for a link between the check and the write."""
    try:
        return os.open(folder, _FOLDER_FLAGS)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass  # another run made it first
    return os.open(folder, _FOLDER_FLAGS)


def read_capped(path: Path, max_bytes: int) -> Tuple[bytes, int]:
    """A cache file's bytes and its mtime: a regular file only, never through
    a symlink (``O_NOFOLLOW``: ELOOP), refused unread past ``max_bytes``
    (a sparse 1 TB) and refused if it grew past it meanwhile."""
    folder = _open_folder(path.parent, create=False)
    try:
        fd = paths.open_regular(path.name, dir_fd=folder)
    finally:
        os.close(folder)
    with open(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if st.st_size > max_bytes:
            raise paths.Refused("over the limit")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise paths.Refused("over the limit")
    return data, st.st_mtime_ns


class Cache:
    """Entries ``rel -> [digest, value, stamp]``, validated on load: the
    stamp is five ints or empty (``verify`` keeps none), the value passes
    ``check``. A cache larger than ``max_bytes`` is not read."""

    def __init__(self, folder: Optional[Path], key: str, check: Check,
                 max_bytes: int, name: str = FILE_NAME, load: bool = True) -> None:
        self.path = folder / name if folder is not None else None
        self.key = f"{__version__}|{key}"
        self.max_bytes = max_bytes
        self.entries: Dict[str, Any] = {}
        self.used: Dict[str, Any] = {}
        self.dirty = False
        self.written_ns = 0
        if not _SAFE_OPEN:  # pragma: no cover - Windows: no cache at all
            self.path = None
        if self.path is None or not load:  # not load: to be written whole
            return
        try:
            head, _, body = self._read().partition(b"\n")
            if head != _head(body):
                raise ValueError("another format, or damaged")
            with paused_gc():
                doc = json.loads(body.decode("utf-8"), parse_constant=_refuse)
                if (type(doc) is dict and doc.get("key") == self.key
                        and _valid(doc.get("entries"), check)):
                    self.entries = doc["entries"]
                else:
                    self.written_ns = 0
        except Exception:  # noqa: BLE001 - the file is untrusted data: any
            self.written_ns = 0  # failure (read, decode, shape) is a miss

    def _read(self) -> bytes:
        assert self.path is not None
        data, self.written_ns = read_capped(self.path, self.max_bytes)
        return data

    def get_by_stamp(self, rel: str, stamp: Stamp) -> Any:
        """The cached value when the stamp matches and the file was not
        modified or chmodded within the second before the cache was written
        (git's racy check); else None and the caller hashes the content."""
        hit = self.entries.get(rel)
        if (hit is not None and len(stamp) == 5 and tuple(hit[2]) == stamp
                and max(stamp[1], stamp[2]) < self.written_ns - 1_000_000_000):
            self.used[rel] = hit
            return hit[1]
        return None

    def get(self, rel: str, hashed: str, stamp: Stamp) -> Any:
        hit = self.entries.get(rel)
        if hit is not None and hit[0] == hashed:
            self.used[rel] = [hashed, hit[1], list(stamp)]
            self.dirty = self.dirty or tuple(hit[2]) != stamp
            return hit[1]
        return None

    def put(self, rel: str, hashed: str, value: Any, stamp: Stamp) -> None:
        self.used[rel] = [hashed, value, list(stamp)]
        self.dirty = True

    def save(self) -> None:
        """Write the entries used this run (dropping files that went away)
        to a new file, renamed over the old one: a reader sees the old
        cache or the new, and an interrupted write leaves neither behind.
        A saved store is spent: its entries are let go (dupes builds its
        index after saving, and every skeleton stayed held twice)."""
        try:
            self._save()
        finally:
            self.entries, self.used = {}, {}

    def _save(self) -> None:
        if self.path is None:
            return
        if not self.dirty and len(self.used) == len(self.entries):
            return
        try:
            folder = _open_folder(self.path.parent, create=True)
        except OSError:
            return  # a cache that cannot be written is only a slower next run
        try:
            _write(folder, self.path.name, _chunks(
                {"key": self.key, "entries": self.used}, "entries"), self.max_bytes)
            # the marshal file this one replaced: CI's cache step restored
            # and saved it again on every run, megabytes never read
            os.unlink(self.path.stem + ".marshal", dir_fd=folder)
        except (OSError, TypeError, ValueError):  # values are checked; over
            pass  # the limit, the next run would refuse it unread
        finally:
            os.close(folder)


def framed(body: bytes) -> bytes:
    """A cache file: a line naming the format and the body's CRC-32, then
    the body. A byte flipped, lost or added on the disk fails the check and
    the cache is a miss (inside a string it was a wrong answer); a forger
    recomputes any unkeyed check, so this one is only for damage."""
    return _head(body) + b"\n" + body


def _head(body: Union[bytes, memoryview]) -> bytes:
    return b"icm-cache %d %08x" % (FORMAT, zlib.crc32(body))


def _chunks(doc: Dict[str, Any], streamed: str, batch: int = 256
            ) -> Iterator[bytes]:
    """``doc`` as JSON, compact, the bytes one ``json.dumps`` gives, with
    the dict under key ``streamed`` dumped ``batch`` entries at a time:
    the whole document as text, then as bytes, then framed was three
    copies of it at once (210 MiB for a 70 MB dupes cache). A path git
    gave as bytes that are not UTF-8 holds surrogates: they are written as
    \\udcXX escapes, read back as the same characters (only paths may
    hold them: ``strings``)."""
    dumps = functools.partial(json.dumps, ensure_ascii=False,
                              separators=(",", ":"), allow_nan=False)
    parts: List[str] = []
    for n, (key, value) in enumerate(doc.items()):
        lead = f"{',' if n else '{'}{dumps(key)}:"
        if key != streamed:
            parts.append(lead + dumps(value))
            continue
        parts.append(lead + "{")
        for i, (name, entry) in enumerate(value.items()):
            parts.append(f"{',' if i else ''}{dumps(name)}:{dumps(entry)}")
            if len(parts) >= batch:
                yield "".join(parts).encode("utf-8", "backslashreplace")
                parts = []
        parts.append("}")
    parts.append("}")
    yield "".join(parts).encode("utf-8", "backslashreplace")


def _write(folder: int, name: str, chunks: Iterable[bytes], max_bytes: int
           ) -> None:
    """A framed file of ``chunks``, written as they come (the head's CRC
    last, over a placeholder of its length), renamed over ``name``; a
    ValueError, and nothing left, once it passes ``max_bytes``."""
    tmp = f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                 dir_fd=folder)
    try:
        with open(fd, "wb") as fh:
            size = len(_head(b"")) + 1
            fh.write(b"\0" * size)
            crc = 0
            for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise ValueError("over the limit")
                crc = zlib.crc32(chunk, crc)
                fh.write(chunk)
            fh.seek(0)
            fh.write(b"icm-cache %d %08x\n" % (FORMAT, crc))
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:  # an interrupt too: no half-written file is left
        try:
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass
        raise


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not a value icm writes")


def _valid(entries: Any, check: Check) -> bool:
    """Every entry ``[digest, value, stamp]`` as ``Cache`` writes them, and
    ``check`` of all the values (given at once: a call per entry was half
    the checking)."""
    if type(entries) is not dict:
        return False
    for hit in entries.values():
        if not (type(hit) is list and len(hit) == 3 and type(hit[0]) is str
                and len(hit[0]) == DIGEST_CHARS and type(hit[2]) is list
                and len(hit[2]) in (0, 5) and each(int, hit[2])):
            return False
    return check([hit[1] for hit in entries.values()])


MEMO_FORMAT = 2  # the layout of a memo file: a head, the answer, the states
State = Any  # a touched path's state: six ints (stamp, readable), or a reason
CHUNK = 1 << 20  # bytes of a memo's states split at a time


class Memo:
    """One check's whole answer, reused while nothing it depends on changed:
    its ``key`` (icm's code, the config, the options, the file list) and
    the state of every path it touched (``context.touching``), each still
    as it was and older than the run that answered by more than a second
    (git's racy rule: a file changed while the check ran is never trusted).
    The run's start is kept as its distance from the file's mtime, as the
    per-file caches read theirs, so a test can age a memo by its mtime.

    The file: a JSON line (``key``, ``took``), the answer's JSON line, then
    each touched path and its state's text (``state_text``), each ended by
    a NUL. The states are compared as text, never parsed: JSON lists of
    every state were 20 MiB of objects at 500,000 files for 4.6 MB read.

    Untrusted like ``Cache``: framed, capped, the head's shape checked, a
    path valid UTF-8, a state the text of the state now (anything else is
    a miss), the answer parsed only then (its shape checked by the
    caller). A forged memo can claim any answer for the states it lists;
    those include inodes and change times, which a fresh checkout (CI)
    never reproduces, so a restored one matches nothing there."""

    def __init__(self, folder: Optional[Path], name: str, key: str,
                 max_bytes: int) -> None:
        self.path = folder / f"memo-{name}.json" if folder is not None else None
        self.key = f"{__version__}|{MEMO_FORMAT}|{key}"
        self.max_bytes = max_bytes
        self.started_ns = 0
        self._data = b""  # the file, once its head and key are right
        self._answer = self._states = 0  # where the answer and the states start
        if not _SAFE_OPEN:  # pragma: no cover - Windows: no memo
            self.path = None
        if self.path is None:
            return
        try:
            data, written_ns = read_capped(self.path, self.max_bytes)
            body = data.find(b"\n") + 1
            answer = data.find(b"\n", body) + 1
            states = data.find(b"\n", answer) + 1
            if not (0 < body < answer < states) or \
                    data[:body - 1] != _head(memoryview(data)[body:]):
                return
            doc = json.loads(str(memoryview(data)[body:answer], "utf-8"),
                             parse_constant=_refuse)
            if (type(doc) is dict and doc.keys() == {"key", "took"}
                    and doc["key"] == self.key and type(doc["took"]) is int
                    and doc["took"] >= 0):
                self._data, self._answer, self._states = data, answer, states
                self.started_ns = written_ns - doc["took"]
        except Exception:  # noqa: BLE001 - untrusted data: any failure is a miss
            self._data = b""

    def reuse(self, state: Callable[[str], State]) -> Any:
        """The stored answer when every touched path's ``state`` is the one
        stored and was older than the run by a second; else None. The file
        is let go either way."""
        data, self._data = self._data, b""
        if not data:
            return None
        trusted = self.started_ns - 1_000_000_000
        try:
            for rel, was in _entries(data, self._states):
                now = state(rel)
                if state_text(now) != was or type(now) is list and \
                        max(now[1], now[2]) >= trusted:
                    return None
            return json.loads(str(memoryview(data)[self._answer:self._states - 1],
                                  "utf-8"), parse_constant=_refuse)
        except ValueError:  # a path not UTF-8, a state missing, bad JSON
            return None

    def save(self, took_ns: int, inputs: Dict[str, State], answer: Any) -> None:
        """Write the answer and the states its run touched (``took_ns``: how
        long before this write the run began), renamed over the old file."""
        if self.path is None:
            return
        try:
            folder = _open_folder(self.path.parent, create=True)
        except OSError:
            return
        try:
            _write(folder, self.path.name, _memo_chunks(
                {"key": self.key, "took": max(0, took_ns)}, answer, inputs),
                self.max_bytes)
        except (OSError, TypeError, ValueError):
            pass
        finally:
            os.close(folder)


def state_text(state: State) -> bytes:
    """A state as a memo holds it, one text per state: the six ints in
    decimal, or ``!`` and the reason as a JSON string (ASCII, no NUL)."""
    if type(state) is str:
        return b"!" + json.dumps(state).encode("ascii")
    return " ".join(map(str, state)).encode("ascii")


def _memo_chunks(head: Dict[str, Any], answer: Any, inputs: Dict[str, State],
                 batch: int = 256) -> Iterator[bytes]:
    """A memo's body (``Memo``), a batch of states at a time. A path that is
    not UTF-8 (a surrogate) is written as git's bytes: read, it is a miss,
    as it was."""
    dumps = functools.partial(json.dumps, ensure_ascii=False,
                              separators=(",", ":"), allow_nan=False)
    yield (dumps(head) + "\n" + dumps(answer) + "\n").encode(
        "utf-8", "backslashreplace")
    parts: List[bytes] = []
    for rel, value in inputs.items():
        parts += (rel.encode("utf-8", "surrogateescape"), b"\0",
                  state_text(value), b"\0")
        if len(parts) >= 4 * batch:
            yield b"".join(parts)
            parts = []
    yield b"".join(parts)


def _entries(data: bytes, start: int, chunk: int = 0) -> Iterator[Tuple[str, bytes]]:
    """(path, state text) of each NUL-ended pair of ``data`` from ``start``,
    a ``chunk`` of bytes split at a time; ValueError at a path that is not
    UTF-8, or a path with no state."""
    chunk = chunk or CHUNK
    if len(data) > start and data[-1] != 0:
        raise ValueError("the states end with no NUL")
    pos, held = start, None
    while pos < len(data):
        end = data.find(b"\0", min(pos + chunk, len(data) - 1))
        items = data[pos:end].split(b"\0")
        pos = end + 1
        if held is not None:
            items.insert(0, held)
            held = None
        if len(items) % 2:
            held = items.pop()
        for i in range(0, len(items), 2):  # "": the root (a link to "/")
            yield items[i].decode("utf-8"), items[i + 1]
    if held is not None:
        raise ValueError("a path with no state")
