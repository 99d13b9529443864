"""What check-stale's word comparison costs, at two sizes and three shapes.

    python bench/run_words.py [--notes 100 1000] [--commits 2000] [--runs 5]

For each size a repository is generated in a temporary folder with ``git
fast-import``: ``--notes`` folders, each a ``context.md`` and an ``a.py``,
then ``--commits`` commits touching one to three files at random, then one
of three endings:

- ``worded``: code changes, then every note changes a word (the words of
  each deciding commit are read: one ``--no-walk`` log, one ``cat-file``);
- ``wordless``: code changes, then every note is re-wrapped (each note is
  walked back to the code: one more log, one more ``cat-file``);
- ``bound``: code changes, then ``WALK`` re-wrappings of every note (the
  walk reads its whole bound for every note: the worst case).

``check-stale`` runs in-process (its typed options, as the engine passes
them); the table gives the median CPU time (this process plus the git
processes it waited for: the shared machine's load swung wall time 2x) of
the whole check, of its word stages alone (``_wordless_pending``,
``_wordless_commits``, ``_walk_back``), their share, and the git processes
the word stages start.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

from icm import config, context, git
from icm.checks import stale
from icm.registry import StaleOptions

NOTE = "# {d}\n\nWhy this folder keeps its rows\nas they came, and what reads them.\n"


class FastImport:
    """A ``git fast-import`` stream of commits on main, ten minutes apart
    (``run_releases.py`` writes its history with it too)."""

    def __init__(self) -> None:
        self.out: List[bytes] = []
        self.mark, self.t = 0, 1_700_000_000

    def commit(self, files: Dict[str, str], parent: int) -> int:
        self.mark += 1
        self.t += 600
        self.out.append(b"commit refs/heads/main\nmark :%d\n" % self.mark)
        self.out.append(b"committer b <b@b> %d +0000\ndata 6\nchange\n" % self.t)
        if parent:
            self.out.append(b"from :%d\n" % parent)
        for path, text in files.items():
            data = text.encode()
            self.out.append(b"M 100644 inline %s\ndata %d\n%s\n"
                            % (path.encode(), len(data), data))
        self.out.append(b"\n")
        return self.mark


def opening(notes: int, seed: int,
            more: Callable[[str], Dict[str, str]] = lambda d: {}
            ) -> Tuple[random.Random, List[str], FastImport, int]:
    """The streams' first commit: ``notes`` folders of 50 to a package, each
    a note, an ``a.py`` and ``more(folder)``'s files; the seeded random, the
    folders, the stream and the commit's mark."""
    rng = random.Random(seed)
    folders = [f"pkg{i // 50:02d}/mod{i:04d}" for i in range(notes)]
    fast = FastImport()
    first: Dict[str, str] = {}
    for d in folders:
        first[f"{d}/context.md"] = NOTE.format(d=d)
        first[f"{d}/a.py"] = "0\n"
        first.update(more(d))
    return rng, folders, fast, fast.commit(first, 0)


def stream(notes: int, commits: int, ending: str, seed: int = 1) -> bytes:
    rng, folders, fast, head = opening(notes, seed)
    commit = fast.commit
    for n in range(commits):
        head = commit({f"{d}/a.py": f"{n}\n"
                       for d in rng.sample(folders, rng.randint(1, 3))}, head)
    head = commit({f"{d}/a.py": "code moved\n" for d in folders}, head)
    if ending == "worded":
        head = commit({f"{d}/context.md": NOTE.format(d=d) + "Reread.\n"
                       for d in folders}, head)
    else:
        for n in range(1 if ending == "wordless" else stale.WALK):
            wrapped = NOTE.replace("\nas", " as", 1) if n % 2 == 0 else NOTE
            head = commit({f"{d}/context.md": wrapped.format(d=d) + "\n" * (n % 3)
                           for d in folders}, head)
    return b"".join(fast.out)


def imported(root: Path, history: bytes) -> None:
    """A repository at ``root`` holding ``history`` (a fast-import stream),
    main checked out."""
    env = git.environment()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, check=True, env=env,
                   input=history)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True, env=env)


def build(root: Path, notes: int, commits: int, ending: str) -> None:
    imported(root, stream(notes, commits, ending))


def cpu() -> float:
    """CPU seconds of this process and of every child it waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


WORD_STAGES = ("_wordless_pending", "_wordless_commits", "_walk_back")


def measure(root: Path, runs: int, names: Tuple[str, ...] = WORD_STAGES
            ) -> Tuple[float, float, int, str]:
    """Median seconds of the check and of the stages ``names`` (functions of
    ``icm.checks.stale``: the word stages by default); those stages' git
    processes; the first finding's message. ``run_releases.py`` times the
    release stages with it."""
    spent: List[float] = []
    started: List[int] = []
    real = subprocess.Popen

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            started.append(1)
            super().__init__(*args, **kwargs)

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            before, count = cpu(), len(started)
            subprocess.Popen = Counted  # type: ignore[misc]
            try:
                return fn(*args, **kwargs)
            finally:
                subprocess.Popen = real  # type: ignore[misc]
                spent.append(cpu() - before)
                processes.append(len(started) - count)
        return wrapper

    saved = {name: getattr(stale, name) for name in names}
    for name in names:
        setattr(stale, name, timed(saved[name]))
    totals, words = [], []
    processes: List[int] = []
    message = ""
    try:
        for _ in range(runs):
            spent.clear()
            processes.clear()
            ctx = context.build(root, config.load(root))
            before = cpu()
            report = stale.run(ctx, StaleOptions())
            totals.append(cpu() - before)
            words.append(sum(spent))
            message = report.findings[0].message
    finally:
        for name in names:
            setattr(stale, name, saved[name])
    return statistics.median(totals), statistics.median(words), sum(processes), \
        message


def table(stages: str, endings: Tuple[str, ...], names: Tuple[str, ...],
          build: Callable[[Path, int, int, str], None]) -> None:
    """The command line and the table of one stale-stage benchmark (this
    one's word stages, ``run_releases.py``'s release stages)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"| notes | commits | ending | check-stale | {stages} stages | share | "
          f"git processes ({stages}s) | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for notes in args.notes:
        for ending in endings:
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp).resolve() / "repo"
                build(root, notes, args.commits, ending)
                total, part, procs, message = measure(root, args.runs, names)
            print(f"| {notes} | {args.commits} | {ending} | {total:.3f} s | "
                  f"{part:.3f} s | {100 * part / total:.0f} % | {procs} | "
                  f"{message} |", flush=True)


def main() -> None:
    table("word", ("worded", "wordless", "bound"), WORD_STAGES, build)


if __name__ == "__main__":
    sys.exit(main())
