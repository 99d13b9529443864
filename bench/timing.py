"""The one timing loop the benchmark runners share."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple


def median_seconds(runs: int, cmd: Sequence[str], cwd: Optional[Path] = None,
                   env: Optional[Dict[str, str]] = None,
                   before: Optional[Callable[[], object]] = None,
                   judged: bool = True, cpu: bool = False) -> float:
    """Median wall time of ``runs`` runs of ``cmd`` (``cpu``: user plus
    system time of the process and every child it waited for, which other
    jobs on a shared machine move less). When ``judged``, a run exiting
    with anything but 0 or 1 aborts: a failed run is not a timing."""
    samples: List[float] = []
    for _ in range(runs):
        if before is not None:
            before()
        samples.append(_once(cmd, cwd, env, judged, cpu))
    return statistics.median(samples)


def interleaved_medians(runs: int, cmds: Sequence[Sequence[str]],
                        cwd: Optional[Path] = None,
                        env: Optional[Dict[str, str]] = None,
                        cpu: bool = False,
                        envs: Optional[Sequence[Dict[str, str]]] = None
                        ) -> List[float]:
    """``median_seconds`` of each command, run in turn (one of each, then
    again), so a change in the machine's load falls on all of them alike;
    ``envs``: one environment per command."""
    samples: List[List[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(_once(cmd, cwd, envs[i] if envs else env, True, cpu))
    return [statistics.median(s) for s in samples]


def _once(cmd: Sequence[str], cwd: Optional[Path], env: Optional[Dict[str, str]],
          judged: bool, cpu: bool) -> float:
    def clock() -> float:
        if not cpu:
            return time.perf_counter()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    start = clock()
    code = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    taken = clock() - start
    if judged and code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {code}: a failed run is not a timing")
    return taken


def run_once(cmd: Sequence[str], cwd: Optional[Path] = None,
             env: Optional[Dict[str, str]] = None,
             before: Optional[Callable[[], object]] = None,
             judged: bool = True) -> Tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the command and every
    child it waited for) of one run of ``cmd``. When ``judged``, a run
    exiting with anything but 0 or 1 aborts: a failed run is not a timing."""
    if before is not None:
        before()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    if judged and code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {code}: a failed run is not a timing")
    return wall, (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)


def quiet(parse: Callable[[str], Any], text: str) -> Any:
    """``parse(text)``, or None where it raised (a Rust panic is a
    BaseException): a candidate that fails on a file still gets timed."""
    try:
        return parse(text)
    except BaseException as exc:  # noqa: BLE001 - panics too
        if isinstance(exc, KeyboardInterrupt):
            raise
        return None
