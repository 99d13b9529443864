"""What keeping each folder's newest deleted file costs the history pass.

    python bench/run_gone.py REPO [--commits 5000 24000] [--runs 5]

For each size, HEAD's first-parent log of the newest ``--commits`` commits
(icm's own ``history_command``, with ``-n``) is written to a temporary
file once, then parsed into a ``HitStore`` of HEAD's tracked files
without and with ``gone`` (``context.HitStore``), in turn, ``--runs``
times each; the table gives the median CPU seconds of the parse
(``process_time``: load swung wall time), the paths the log names that
are no longer tracked, and the folders ``gone`` keeps. git's own time is
left out: it is the same for both.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from icm import git  # noqa: E402
from icm.context import FileList, HitStore  # noqa: E402


def parse_seconds(log: Path, files: FileList, gone: bool) -> float:
    store = HitStore(files, (), gone=gone)
    start = time.process_time()
    with log.open("rb") as fh:
        git._parse_history(iter(lambda: fh.read(1 << 20), b""), store)
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, nargs="+", default=[5000, 24000])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tracked = subprocess.run(["git", "-C", str(args.repo), "ls-tree", "-r", "-z",
                              "--name-only", "HEAD"], capture_output=True,
                             check=True).stdout.decode().split("\0")[:-1]
    files = FileList.of(tracked)
    print("| commits | paths no longer tracked | folders kept | parse, CPU s "
          "(without) | with `gone` | ratio |")
    print("|---|---|---|---|---|---|")
    for n in args.commits:
        argv = git.history_command("first-parent", True)
        at = argv.index("log") + 1
        argv = [*argv[:at], f"-n{n}", *argv[at:]]
        with tempfile.NamedTemporaryFile() as out:
            subprocess.run(["git", "-C", str(args.repo), *argv], stdout=out,
                           check=True)
            log = Path(out.name)
            times: List[List[float]] = [[], []]
            for _ in range(args.runs):
                for i, gone in enumerate((False, True)):
                    times[i].append(parse_seconds(log, files, gone))
            store = HitStore(files, (), gone=True)
            with log.open("rb") as fh:
                seen: Dict[bytes, git.Hit] = {}
                git._parse_history(iter(lambda: fh.read(1 << 20), b""), seen)
                fh.seek(0)
                git._parse_history(iter(lambda: fh.read(1 << 20), b""), store)
        absent = sum(1 for p in seen if files.index(
            p.decode("utf-8", "surrogateescape")) < 0)
        without, with_gone = median(times[0]), median(times[1])
        print(f"| {n} | {absent} | {len(store.gone)} | {without:.3f} | "
              f"{with_gone:.3f} | {with_gone / without:.2f}x |")


if __name__ == "__main__":
    main()
