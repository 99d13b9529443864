"""Ctrl-C at random moments: icm must end with ``icm: interrupted`` and exit
130, or finish normally, never print a traceback, hang or leave a worker.

Usage: python bench/run_sigint.py [COUNT] [FILES]

Builds a throw-away repository of FILES markdown files (enough for the fork
pool), then COUNT times starts ``icm check-links --jobs 2`` with the cache
removed, waits a random time within one run's length and sends SIGINT to
its whole process group, as a terminal does. Outcomes are counted; any bad
one (a traceback, another exit code, a run still going after 60 s, a process
of the group left alive) is printed and makes the script exit 1.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import List


def build(root: Path, files: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "AGENTS.md").write_text("# H\n")
    for i in range(files):
        folder = root / f"d{i % 40}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"## S{j}\n\n[x](../d{(i + j) % 40}/n{j}.md#s{j}) <a href=\"y\">"
                       f"</a>\n\n" for j in range(40))
        (folder / f"n{i}.md").write_text(body)


def _group(pgid: int) -> List[str]:
    """Commands of the processes still in the group (zombies aside: their
    parent is gone and init reaps them)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                found.append(" ".join(c.decode(errors="replace") for c in cmd[:3]))
        except (OSError, IndexError, ValueError):
            continue
    return found


def classify(proc: "subprocess.Popen[bytes]") -> str:
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hang"
    left = _group(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
        return "left behind: " + ", ".join(sorted(left))
    text = err.decode("utf-8", "replace")
    if "Traceback" in text:
        frames = re.findall(r'File "([^"]*)", line \d+, in (\S+)', text)
        ours = [func for path, func in frames if f"{os.sep}icm{os.sep}" in path]
        if all(func == "<module>" for func in ours):
            return STARTUP  # importing the entry modules, before any call
        return "traceback: " + " <- ".join(f for f in reversed(ours))
    if proc.returncode == 130 and text == "icm: interrupted\n":
        return "interrupted (130)"
    if proc.returncode in (0, 1) and text == "":
        return "finished before the signal"
    if proc.returncode == -signal.SIGINT and text == "":
        return "killed before Python's handler was installed"
    if proc.returncode == -signal.SIGINT and text == "icm: interrupted\n":
        return SAID_THEN_KILLED
    return f"exit {proc.returncode}: {text.strip()[:200]!r}"


# Python's own start-up (site, the import system) can be interrupted before
# any icm code runs; no program can catch that, so it is counted apart.
STARTUP = "traceback in start-up, before icm's code runs (imports only)"
SAID_THEN_KILLED = "said 'icm: interrupted', then ended by SIGINT (shell: 130)"
GOOD = {"interrupted (130)", SAID_THEN_KILLED, "finished before the signal",
        "killed before Python's handler was installed", STARTUP}


def main(argv: List[str]) -> int:
    count = int(argv[0]) if argv else 300
    files = int(argv[1]) if len(argv) > 1 else 400
    root = Path(tempfile.mkdtemp()) / "repo"
    build(root, files)
    cmd = [sys.executable, "-m", "icm", "check-links", "--root", str(root),
           "--jobs", "2"]
    cache = root / ".git" / "icm"
    shutil.rmtree(cache, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
    length = time.perf_counter() - start
    print(f"{files} files, one uncached run: {length:.2f} s; {count} interrupts")
    outcomes: Counter[str] = Counter()
    rng = random.Random(1)
    for _ in range(count):
        shutil.rmtree(cache, ignore_errors=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        time.sleep(rng.uniform(0, length))
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        outcomes[classify(proc)] += 1
    for outcome, n in outcomes.most_common():
        print(f"{n:5d}  {outcome}")
    bad = sum(n for outcome, n in outcomes.items() if outcome not in GOOD)
    print("no traceback, hang or stray worker" if not bad else f"{bad} bad outcomes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
