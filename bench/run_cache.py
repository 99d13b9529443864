"""Time loading icm's caches (JSON, every entry checked) against marshal,
the format they replaced, and measure what a hostile cache costs.

    python bench/run_cache.py TREE [TREE ...] [--runs 15] [--before ICM]

Each TREE is a git repository (``gen_links.py`` and ``run_dupes.py`` write
them). The link and dupes caches are written by one ``check-links`` and one
``check-dupes`` run, then, for each, the median CPU time (``process_time``:
other jobs share the machine) of: ``marshal.loads`` of the file the
marshal code wrote (``--before``: its ``icm``; collector on, as it loaded
them); ``json.loads`` alone; and icm's
whole load (``Cache``: open, ``fstat``, read, decode, JSON, every entry's
shape and text), with the file sizes and the limit. Then the peak memory
(``wait4``) of a ``check-links`` run with icm's own cache, with none, and
with a hostile cache of ``[[],[],...]`` just under the limit, framed with
its CRC right: the most a cache can cost. With ``--before``, the median CPU time of warm
``check-links`` and ``check-dupes`` runs of both codes, interleaved.
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import shutil
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from icm import cache, config, context  # noqa: E402
from icm.checks import dupes, links  # noqa: E402


def cpu(runs: int, fn: Callable[[], object]) -> float:
    samples: List[float] = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def load(folder: Path, key: str, check: cache.Check, limit: int, name: str,
         count: int) -> None:
    store = cache.Cache(folder, key, check, limit, name)
    assert len(store.entries) == count, "icm's own cache was refused"


# Run from a bare interpreter: a child's peak counts the pages it shared
# with its parent until exec, and this process holds the caches it timed.
_PEAK = """import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)"""


def peak(cmd: List[str]) -> int:
    """Peak resident memory (MiB) of one run."""
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True,
                         text=True, check=True).stdout.split()
    if int(out[0]) not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {out[0]}: a failed run is not a measure")
    return int(out[1]) // 1024


def warm_cpu(runs: int, programs: List[str], args: List[str]) -> List[float]:
    """Median CPU time (user + system) of a warm run of each program,
    interleaved so load on the machine falls on each alike."""
    samples: List[List[float]] = [[] for _ in programs]
    for program in programs:
        subprocess.run([program, *args], stdout=subprocess.DEVNULL, check=False)
    for _ in range(runs):
        for i, program in enumerate(programs):
            before = os.times()
            subprocess.run([program, *args], stdout=subprocess.DEVNULL, check=False)
            after = os.times()
            samples[i].append(after.children_user - before.children_user
                              + after.children_system - before.children_system)
    return [statistics.median(s) for s in samples]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--before", help="icm of the marshal code, to time its files")
    args = ap.parse_args()
    icm = str(Path(sys.executable).with_name("icm"))
    print("| tree | cache | files | file bytes | marshal bytes | JSON bytes | limit | "
          "marshal.loads | json.loads | icm's load (JSON + checks) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        ctx = context.build(tree, config.load(tree))
        assert ctx.cache_dir is not None
        for program in (icm, args.before):
            for cmd in ("check-links", "check-dupes"):
                if program:
                    subprocess.run([program, cmd, "--root", str(tree)],
                                   stdout=subprocess.DEVNULL, check=False)
        users = (
            ("links", cache.FILE_NAME, ctx.markdown_files(), links.cached_parse,
             links.cache_key()),
            ("dupes", dupes.CACHE_FILE, [p for _, p in dupes.sources(ctx)],
             dupes.cached_statements, dupes.cache_key()))
        for label, name, files, check, key in users:
            path = ctx.cache_dir / name
            if not path.is_file():
                continue
            size = sum(ctx.stat(f).st_size for f in files)
            limit = cache.limit(len(files), size)
            data = path.read_bytes()
            body = data.partition(b"\n")[2]  # after the format and CRC line
            count = len(json.loads(body)["entries"])
            before = path.with_suffix(".marshal")  # as the code before wrote it
            old = before.read_bytes() if before.is_file() else b""
            loads = (f"{cpu(args.runs, partial(marshal.loads, old)):.3f} s" if old
                     else "-")
            whole = cpu(args.runs, partial(load, ctx.cache_dir, key, check, limit,
                                           name, count))
            print(f"| {tree.name} | {label} | {len(files)} | {size:,} "
                  f"| {len(old):,} | {len(data):,} | {limit:,} | {loads} "
                  f"| {cpu(args.runs, partial(json.loads, body)):.3f} s "
                  f"| {whole:.3f} s |")
    print()
    print("| tree | check-links peak memory: icm's cache | no cache | hostile cache "
          "at the limit |")
    print("|---|---|---|---|")
    for tree in args.trees:
        ctx = context.build(tree, config.load(tree))
        assert ctx.cache_dir is not None
        path = ctx.cache_dir / cache.FILE_NAME
        files = ctx.markdown_files()
        limit = cache.limit(len(files), sum(ctx.stat(f).st_size for f in files))
        cmd = [icm, "check-links", "--root", str(tree), "--jobs", "1"]
        peak(cmd)
        own = peak(cmd)
        saved = path.with_name("saved.json")
        shutil.copy(path, saved)
        path.unlink()
        none = peak(cmd)
        # framed, its CRC right: what a deliberate writer plants
        body = ("[" + ",".join(["[]"] * ((limit - 40) // 3)) + "]").encode()
        path.write_bytes(cache.framed(body))
        hostile = peak(cmd)
        os.replace(saved, path)
        print(f"| {tree.name} | {own} MiB | {none} MiB | {hostile} MiB "
              f"({limit:,} bytes) |")
    if args.before:
        print()
        print("| tree | warm check | CPU, marshal code | CPU, now | now / marshal |")
        print("|---|---|---|---|---|")
        for tree in args.trees:
            for check in ("check-links", "check-dupes"):
                old, new = warm_cpu(args.runs, [args.before, icm],
                                    [check, "--root", str(tree)])
                print(f"| {tree.name} | {check} | {old:.3f} s | {new:.3f} s "
                      f"| {new / old:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
