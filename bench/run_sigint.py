"""Ctrl-C at random moments: icm must end with ``icm: interrupted`` and exit
130, or finish normally, never print a traceback, hang or leave a worker.

Usage: python bench/run_sigint.py [COUNT] [FILES]
       python bench/run_sigint.py renumber [COUNT] [FILES]

Builds a throw-away repository of FILES markdown files (enough for the fork
pool), then COUNT times starts ``icm check-links --jobs 2`` with the cache
removed, waits a random time within one run's length and sends SIGINT to
its whole process group, as a terminal does. Outcomes are counted; any bad
one (a traceback, another exit code, a run still going after 60 s, a process
of the group left alive) is printed and makes the script exit 1.

``renumber``: COUNT times (default 60) ``icm renumber 01 --to 2`` on an
item FILES files link (default 300), stopped (SIGSTOP) at a random moment
within one run's length, looked at, then sent SIGTERM, SIGHUP, SIGINT or
SIGKILL in turn and let go. Each run is counted by where the signal landed
(start-up and planning: nothing written; writing the new texts: temporary
files only; putting them in place: the new item exists) and how it ended:
every link on 01 and 01 alone, every link on 02 and 02 alone, or split.
A split or a temporary file left after a signal icm can hold is bad (exit
1); SIGKILL's splits are counted, not judged: nothing can hold it.
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


def _renumber_tree(root: Path, files: int) -> None:
    for folder in ("queue", "docs"):
        shutil.rmtree(root / folder, ignore_errors=True)
        (root / folder).mkdir(parents=True)
    (root / "AGENTS.md").write_text("# H\n")
    (root / "queue/01_x.md").write_text("# X\n")
    for i in range(files):
        (root / f"docs/d{i:04d}.md").write_text(f"# D{i}\n\n[x](../queue/01_x.md)\n")


def _phase(root: Path) -> str:
    if (root / "queue/02_x.md").exists():
        return "putting texts in place, or after"
    if any(n.startswith(".icm-") for n in os.listdir(root / "queue")):
        return "writing new texts"
    return "start-up and planning"


def _ending(root: Path) -> str:
    items = sorted(n for n in os.listdir(root / "queue") if not n.startswith("."))
    texts = [p.read_text() for p in (root / "docs").iterdir() if p.suffix == ".md"]
    on = {n for n in ("01", "02") for t in texts if f"queue/{n}_x.md" in t}
    left = [p for p in root.rglob(".icm-*")]
    if items == ["01_x.md"] and on == {"01"}:
        end = "all on 01"
    elif items == ["02_x.md"] and on == {"02"}:
        end = "all on 02"
    else:
        end = f"SPLIT ({', '.join(items)}; links on {', '.join(sorted(on))})"
    return end + (", .icm- files left" if left else "")


def renumber(argv: List[str]) -> int:
    count = int(argv[0]) if argv else 60
    files = int(argv[1]) if len(argv) > 1 else 300
    root = Path(tempfile.mkdtemp()) / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    cmd = [sys.executable, "-m", "icm", "renumber", "01", "--to", "2",
           "--root", str(root)]
    _renumber_tree(root, files)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    length = time.perf_counter() - start
    print(f"renumber, {files} linking files, one run: {length:.2f} s; {count} "
          "signals")
    signals = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL]
    outcomes: Counter[str] = Counter()
    bad = 0
    rng = random.Random(1)
    for n in range(count):
        sig = signals[n % len(signals)]
        _renumber_tree(root, files)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, length))
        os.kill(proc.pid, signal.SIGSTOP)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        phase = "finished first"
        if os.WIFSTOPPED(status):
            phase = _phase(root)
            os.kill(proc.pid, sig)
            os.kill(proc.pid, signal.SIGCONT)
            _, status = os.waitpid(proc.pid, 0)
        proc.returncode = 0  # reaped above
        end = _ending(root)
        outcomes[f"{sig.name:7s} {phase:32s} -> {end}"] += 1
        if sig != signal.SIGKILL and (end.startswith("SPLIT") or "left" in end):
            bad += 1
            left = sorted(str(p.relative_to(root)) for p in root.rglob(".icm-*"))
            print(f"bad: {sig.name} {phase}: exit "
                  f"{os.waitstatus_to_exitcode(status)}, left {left[:4]}")
    for outcome, k in sorted(outcomes.items()):
        print(f"{k:5d}  {outcome}")
    print("every held signal: all or nothing" if not bad else f"{bad} bad outcomes")
    shutil.rmtree(root.parent, ignore_errors=True)
    return 1 if bad else 0


def main(argv: List[str]) -> int:
    if argv[:1] == ["renumber"]:
        return renumber(argv[1:])
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
