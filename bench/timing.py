"""The one timing loop the benchmark runners share."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple


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


def median_seconds(runs: int, cmd: Sequence[str], cwd: Optional[Path] = None,
                   env: Optional[Dict[str, str]] = None,
                   before: Optional[Callable[[], object]] = None,
                   judged: bool = True) -> float:
    """Median wall time of ``runs`` runs of ``cmd`` (``run_once``)."""
    samples: List[float] = [run_once(cmd, cwd, env, before, judged)[0]
                            for _ in range(runs)]
    return statistics.median(samples)
