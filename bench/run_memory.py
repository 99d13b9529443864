"""Where ``icm check``'s memory goes: resident set after each stage, in-process.

    python bench/run_memory.py /tmp/m50k /tmp/m500k [--cold] [--order stale,links]
    python bench/run_memory.py /tmp/m500k --trace 8

For each tree, in a fresh interpreter (so one tree's heap is not the next
one's): the resident set after imports, after ``context.build``, after each
check in registry order (``--order``: those named first, in that order,
then the rest), and the peak (``ru_maxrss``), in MiB. ``--cold``
deletes the tree's cache first (``.git/icm``); without it the run before
this one's cache is used, as a warm ``icm check`` does. Stage figures are
``/proc/self/statm`` (Linux); the peak includes what a stage freed again.
``--trace N``: ``tracemalloc`` from the start, each stage's traced peak
and the N lines holding most at its end (tracing costs memory and time:
its figures are for where, not how much). Parser workers are other
processes: their memory is ``run_scale.py``'s.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

STAGES = r"""
import resource, sys, tracemalloc
from pathlib import Path
top = int(sys.argv[3])
if top:
    tracemalloc.start()

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

print(f"start {rss():.0f} {peak():.0f}", flush=True)
from icm import config, context, engine, registry
root = Path(sys.argv[1]).resolve()
print(f"imports {rss():.0f} {peak():.0f}", flush=True)
ctx = context.build(root, config.load(root))
print(f"build {rss():.0f} {peak():.0f}", flush=True)
first = [registry.BY_NAME[name] for name in sys.argv[2].split(",") if name]
for spec in [*first, *(s for s in registry.ALL if s not in first)]:
    options = registry.options_for(spec, {}, history_optional=True)
    if top:
        tracemalloc.reset_peak()
    report = engine.run_one(ctx, spec, options)
    del report
    print(f"{spec.name} {rss():.0f} {peak():.0f}", flush=True)
    if top:
        now, most = tracemalloc.get_traced_memory()
        print(f"# {spec.name}: traced {now / 2**20:.1f} MiB, peak {most / 2**20:.1f}",
              file=sys.stderr)
        for stat in tracemalloc.take_snapshot().statistics("lineno")[:top]:
            print(f"#   {stat}", file=sys.stderr)
"""


def stages(tree: Path, order: str = "", trace: int = 0) -> List[List[str]]:
    proc = subprocess.run([sys.executable, "-c", STAGES, str(tree), order,
                           str(trace)], check=True, capture_output=True, text=True)
    sys.stderr.write(proc.stderr)
    return [line.split() for line in proc.stdout.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--order", default="", help="checks to run first, by name")
    parser.add_argument("--trace", type=int, default=0, metavar="N")
    args = parser.parse_args()
    rows = []
    for tree in (t.resolve() for t in args.trees):
        if args.cold:
            shutil.rmtree(tree / ".git" / "icm", ignore_errors=True)
        rows.append((tree.name, stages(tree, args.order, args.trace)))
    names = [stage for stage, _, _ in rows[0][1]]
    print("| stage | " + " | ".join(f"{name} RSS / peak" for name, _ in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for i, stage in enumerate(names):
        cells = [f"{got[i][1]} / {got[i][2]} MiB" for _, got in rows]
        print(f"| {stage} | " + " | ".join(cells) + " |")
    self = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"\n(largest child peak {self:.0f} MiB)")


if __name__ == "__main__":
    main()
