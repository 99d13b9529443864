"""The one timing loop the benchmark runners share."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence


def median_seconds(runs: int, cmd: Sequence[str], cwd: Optional[Path] = None,
                   env: Optional[Dict[str, str]] = None,
                   before: Optional[Callable[[], object]] = None,
                   judged: bool = True) -> float:
    """Median wall time of ``runs`` runs of ``cmd``. When ``judged``, a run
    exiting with anything but 0 or 1 aborts: a failed run is not a timing."""
    samples: List[float] = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        code = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode
        samples.append(time.perf_counter() - start)
        if judged and code not in (0, 1):
            sys.exit(f"{' '.join(cmd)} exited {code}: a failed run is not a timing")
    return statistics.median(samples)
