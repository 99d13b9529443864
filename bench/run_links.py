"""Time icm check-links (cold and warm) against lychee and remark-validate-links
on the same trees, in the same run. Prints a markdown table of medians.

    python bench/run_links.py TREE [TREE ...] [--runs 5] [--lychee PATH]
                              [--rumdl PATH] [--remark DIR] [--remark-runs 1]
                              [--jobs N [N ...]] [--floor] [--restored]
    python bench/run_links.py TREE [TREE ...] --parsers NAME [NAME ...]
                              --lychee PATH [--rumdl PATH] [--runs 5]
                              [--jobs 1 2]

Cold: icm's cache deleted before each run. Warm: cache left from the run
before. lychee runs offline with fragment checking; remark-validate-links
runs through remark-cli (DIR holds its node_modules); rumdl runs its two
link rules (MD051 fragments, MD057 relative links) without its cache. A
peer that is not given is left out of the table. ``--jobs`` adds a second
table: icm cold with ``--jobs N`` for each N (parser processes). Exit codes
of peers are not judged: they disagree with icm and each other about what
is broken (see the counts). ``--floor`` adds a third table: the parse
alone (``parse_floor.py``: read every file and every pulldown-cmark event
of it, on every core, start-up included), the least a cold run on this
parser can take, beside lychee in the same run. ``--restored`` adds a column:
icm with the cache of an earlier run restored into a fresh checkout (every
file's stamp new, as ``actions/cache`` leaves it in CI: files are read and
hashed, none parsed). ``--cpu`` reports CPU seconds instead of wall time
(the figures to read on a shared machine).

``--parsers`` prints only the parser table (issue 27): icm cold with each
named parser (``events``: the default, pulldown-cmark through
``icm.markdown_events``; ``markdown-it-py``: the reference alone, forced
through ``ICM_PARSER``; ``LABEL=PATH``: the icm at PATH, an older copy
run with ``PYTHONPATH``) at each ``--jobs`` (default 1 and 2), lychee and
rumdl, one run of each per round, interleaved, ``--runs`` rounds; medians
of wall and CPU seconds (user + system, workers included). The CPU ratio
is the one to read on a shared machine. Each icm runs once, untimed, before
the rounds, and ``PYTHONDONTWRITEBYTECODE`` is dropped for it: an installed
icm has its bytecode, and a copy run with the variable compiled every
module on every run (60-90 ms a run, before and after alike).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from timing import median_seconds, run_once


def md_files(tree: Path) -> List[str]:
    """The tree's tracked markdown files, the ones the tables count."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=tree,
                            capture_output=True, text=True).stdout
    return [name for name in listed.split("\0") if name.endswith(".md")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--icm", default=str(Path(sys.executable).with_name("icm")))
    parser.add_argument("--lychee")
    parser.add_argument("--rumdl")
    parser.add_argument("--jobs", nargs="*", default=[])
    parser.add_argument("--remark", type=Path)
    parser.add_argument("--remark-runs", type=int, default=1)
    parser.add_argument("--floor", action="store_true")
    parser.add_argument("--restored", action="store_true")
    parser.add_argument("--parsers", nargs="*", default=[])
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds (user + system, children too), not wall")
    args = parser.parse_args()
    if args.parsers:
        parser_table(args)
        return
    print("| tree | md files | icm cold | icm warm | icm, cache restored | lychee "
          "| rumdl | remark-validate-links | cold / lychee | warm / lychee "
          "| restored / lychee | cold / rumdl |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    by_jobs = []
    floors = []
    for tree in args.trees:
        tree = tree.resolve()
        markdown = md_files(tree)
        md = len(markdown)
        cache = tree / ".git" / "icm"
        icm = [args.icm, "check-links", "--root", str(tree)]
        cold = median_seconds(args.runs, icm, cpu=args.cpu,
                              before=lambda cache=cache: shutil.rmtree(cache, True))
        warm = median_seconds(args.runs, icm, cpu=args.cpu)
        restored = None
        if args.restored:
            names = [tree / n for n in markdown]
            restored = median_seconds(
                args.runs, icm, cpu=args.cpu, before=lambda names=names: [
                    os.utime(n) for n in names if n.is_file() and not n.is_symlink()])
        lychee = remark = rumdl = None
        if args.lychee:
            lychee = median_seconds(
                args.runs, [args.lychee, "--offline", "--include-fragments",
                            "--no-progress", "--root-dir", str(tree), str(tree)],
                judged=False, cpu=args.cpu)
        if args.rumdl:
            rumdl = median_seconds(
                args.runs, [args.rumdl, "check", "--enable", "MD051,MD057",
                            "--no-cache", "."], cwd=tree, judged=False,
                cpu=args.cpu)
        for jobs in args.jobs:
            by_jobs.append((tree.name, jobs, median_seconds(
                args.runs, [*icm, "--jobs", jobs],
                before=lambda cache=cache: shutil.rmtree(cache, True))))
        if args.floor:
            floors.append((tree.name, cold, lychee, median_seconds(
                args.runs, [sys.executable, str(Path(__file__).with_name(
                    "parse_floor.py")), str(tree)], cpu=args.cpu)))
        if args.remark:
            bin_ = str(args.remark / "node_modules" / ".bin" / "remark")
            remark = median_seconds(
                args.remark_runs, [bin_, "--quiet", "--frail", "--no-stdout",
                                   "--use", "remark-validate-links", "."],
                cwd=tree, judged=False)
        print(f"| {tree.name} | {md} | {_secs(cold)} | {_secs(warm)} | "
              f"{_secs(restored)} | {_secs(lychee)} | {_secs(rumdl)} | "
              f"{_secs(remark)} | {_ratio(cold, lychee)} | {_ratio(warm, lychee)} | "
              f"{_ratio(restored, lychee) if restored else 'n/a'} | "
              f"{_ratio(cold, rumdl)} |", flush=True)
    if by_jobs:
        print("\n| tree | --jobs | icm cold |\n|---|---|---|")
        for name, jobs, secs in by_jobs:
            print(f"| {name} | {jobs} | {secs:.2f} s |")
    if floors:
        print("\n| tree | icm cold | pulldown-cmark events alone | lychee | "
              "parse alone / lychee |\n|---|---|---|---|---|")
        for name, cold, lychee, floor in floors:
            print(f"| {name} | {_secs(cold)} | {_secs(floor)} | {_secs(lychee)} | "
                  f"{_ratio(floor, lychee)} |")


def parser_table(args: argparse.Namespace) -> None:
    jobs = args.jobs or ["1", "2"]
    print("| tree | md files | parser | --jobs | icm cold, wall | icm cold, CPU | "
          "lychee, wall | lychee, CPU | rumdl, wall | rumdl, CPU | CPU / lychee | "
          "CPU / rumdl |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        tree = tree.resolve()
        md = len(md_files(tree))
        cache = tree / ".git" / "icm"
        runs: Dict[str, List[Tuple[float, float]]] = {}
        commands = []
        for name in args.parsers:
            env = {k: v for k, v in os.environ.items()
                   if k not in ("ICM_PARSER", "PYTHONDONTWRITEBYTECODE")}
            exe = args.icm
            if "=" in name:  # LABEL=PATH: another icm (an older copy)
                exe = name.partition("=")[2]
            elif name != "events":
                env["ICM_PARSER"] = name
            for n in jobs:
                commands.append((f"{name} {n}", env, [
                    exe, "check-links", "--root", str(tree), "--jobs", n]))
        for _label, env, cmd in commands:  # bytecode written, untimed
            run_once(cmd, env=env, before=lambda c=cache: shutil.rmtree(c, True))
        lychee = [args.lychee, "--offline", "--include-fragments", "--no-progress",
                  "--root-dir", str(tree), str(tree)]
        rumdl = [args.rumdl, "check", "--enable", "MD051,MD057", "--no-cache", "."]
        for _ in range(args.runs):
            if args.lychee:
                runs.setdefault("lychee", []).append(run_once(lychee, judged=False))
            if args.rumdl:
                runs.setdefault("rumdl", []).append(run_once(rumdl, cwd=tree,
                                                             judged=False))
            for label, env, cmd in commands:
                runs.setdefault(label, []).append(run_once(
                    cmd, env=env, before=lambda c=cache: shutil.rmtree(c, True)))
        peer = _medians(runs["lychee"]) if args.lychee else (None, None)
        other = _medians(runs["rumdl"]) if args.rumdl else (None, None)
        for name in args.parsers:
            for n in jobs:
                wall, cpu = _medians(runs[f"{name} {n}"])
                print(f"| {tree.name} | {md} | {name.partition('=')[0]} | {n} | "
                      f"{wall:.2f} s | "
                      f"{cpu:.2f} s | {_secs(peer[0])} | {_secs(peer[1])} | "
                      f"{_secs(other[0])} | {_secs(other[1])} | "
                      f"{_ratio(cpu, peer[1])} | {_ratio(cpu, other[1])} |",
                      flush=True)


def _medians(samples: List[Tuple[float, float]]) -> Tuple[float, float]:
    return (statistics.median(w for w, _ in samples),
            statistics.median(c for _, c in samples))


def _secs(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _ratio(value: float, peer: Optional[float]) -> str:
    return "n/a" if not peer else f"{value / peer:.1f}x"


if __name__ == "__main__":
    main()
