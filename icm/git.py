"""Every git fact icm needs; the only module that imports gitpython.

Raw ``git`` runs where streaming speed matters (the history pass, file lists);
GitPython gives the repository handle for the facts that are not hot. Every
call scrubs inherited ``GIT_*`` variables so a hook's ``GIT_DIR`` or
``GIT_INDEX_FILE`` never points icm at another repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

from icm.errors import UsageError

# Keep config overrides a user set on purpose; drop everything that relocates
# the repository, its index or its object store.
_KEEP = {"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"}

# Fixed options so user configuration cannot change what we parse.
BASE = (
    "-c", "core.quotePath=false",
    "-c", "log.showSignature=false",
    "-c", "color.ui=false",
    "-c", "core.fsmonitor=false",  # a repository's config must not run programs
    "--no-pager",
    "--literal-pathspecs",
)


def clean_env() -> Dict[str, str]:
    """Return the environment without inherited repository-relocating GIT_*."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") or k in _KEEP}
    env["LC_ALL"] = "C"
    return env


def available() -> bool:
    return shutil.which("git") is not None


def _explain(stderr: str, cwd: Path) -> str:
    text = stderr.strip()
    if "dubious ownership" in text:
        return (f"git refuses {cwd}: dubious ownership; if you trust it, run "
                f"'git config --global --add safe.directory {cwd}'")
    if "not a git repository" in text:
        return f"{cwd} is not inside a git repository"
    first = text.splitlines()[0] if text else "git failed"
    return first


def run(args: Sequence[str], cwd: Path, check: bool = True) -> Tuple[int, bytes, str]:
    """Run git with fixed options; raise UsageError on failure when ``check``."""
    if not available():
        raise UsageError("git is not installed or not on PATH")
    proc = subprocess.run(
        ["git", *BASE, *args], cwd=str(cwd), env=clean_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )
    err = proc.stderr.decode("utf-8", "replace")
    if check and proc.returncode != 0:
        raise UsageError(_explain(err, cwd))
    return proc.returncode, proc.stdout, err


def _rev_parse(cwd: Path, *what: str) -> Optional[List[Path]]:
    """``git rev-parse`` answers as paths, one per flag; None outside a work
    tree."""
    if not available():
        return None
    code, out, err = run(["rev-parse", *what], cwd, check=False)
    if code != 0:
        if "dubious ownership" in err:
            raise UsageError(_explain(err, cwd))
        if "must be run in a work tree" in err:
            raise UsageError(f"{cwd} is inside a bare repository or a .git "
                             "folder; icm needs a work tree")
        return None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    return [Path(line) for line in lines] if len(lines) == len(what) else None


def toplevel(cwd: Path) -> Optional[Path]:
    """The work tree's top level containing ``cwd``, or None outside git."""
    found = _rev_parse(cwd, "--show-toplevel")
    return found[0] if found else None


def locate(cwd: Path) -> Optional[Path]:
    """This work tree's own git directory (each worktree of a repository has
    its own: caches live there), or None outside a work tree. One call
    answers both "is this git?" and "where do caches go?"."""
    found = _rev_parse(cwd, "--show-toplevel", "--absolute-git-dir")
    return found[1] if found else None


def list_files(root: Path) -> Tuple[List[str], List[str], List[str]]:
    """Tracked and untracked-but-not-ignored files under ``root``, root-relative,
    and the folders git could not open (``dir/: reason``).

    One ``ls-files`` call; ``-t`` tags tell them apart, and files deleted from
    the work tree (tag ``R``) are left out without a stat per file. Paths
    come back relative to ``root`` because git runs there.
    """
    _, out, err = run(["ls-files", "-z", "-t", "--cached", "--deleted", "--others",
                     "--exclude-standard"], root)
    tracked: List[str] = []
    untracked: List[str] = []
    deleted = set()
    for item in out.split(b"\0"):
        if not item:
            continue
        tag, name = item[:1], item[2:].decode("utf-8", "surrogateescape")
        if tag == b"?":
            untracked.append(name)
        elif tag == b"R":  # in the index, gone from the work tree
            deleted.add(name)
        else:
            tracked.append(name)
    if deleted:
        tracked = [name for name in tracked if name not in deleted]
    return tracked, untracked, unopened(err)


_UNOPENED = re.compile(r"warning: could not open directory '(.*)': (.+)")


def unopened(stderr: str) -> List[str]:
    """``dir/: reason`` for each folder git warned it could not open (its
    files are missing from the listing; LC_ALL=C keeps the wording fixed)."""
    return [f"{m.group(1)}: {m.group(2).lower()}"
            for m in map(_UNOPENED.match, stderr.splitlines()) if m]


def stage_move(root: Path, old: str, new: str) -> None:
    """Record in the index that ``old`` became ``new`` (both already on disk)."""
    run(["rm", "-q", "--cached", "--", old], root)
    run(["add", "--", new], root)


# -- history (check-stale) ---------------------------------------------------


class Repository:
    """The facts check-stale needs about the repository holding ``root``,
    read through GitPython's handle (no history walk here)."""

    def __init__(self, root: Path) -> None:
        if not available():
            raise UsageError("git is not installed or not on PATH")
        os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
        import git as gitpython  # the only import of gitpython in icm

        # Resolve the top level with raw git first: it reports dubious
        # ownership and "not a repository" in git's own words.
        if toplevel(root) is None:
            raise UsageError(f"{root} is not inside a git repository "
                             "(check-stale reads git history)")
        try:
            self.repo = gitpython.Repo(str(root), search_parent_directories=True)
        except gitpython.exc.InvalidGitRepositoryError:
            raise UsageError(f"{root} is not inside a git repository") from None
        except gitpython.exc.NoSuchPathError:
            raise UsageError(f"{root} does not exist") from None
        self.root = root
        self.common_dir = Path(self.repo.common_dir)

    def has_commits(self) -> bool:
        return bool(self.repo.head.is_valid())

    def shallow_boundary(self) -> FrozenSet[str]:
        """Commits whose parents this clone lacks; empty when not shallow."""
        path = self.common_dir / "shallow"
        try:
            text = path.read_text(encoding="ascii")
        except OSError:
            return frozenset()
        return frozenset(line.strip() for line in text.splitlines() if line.strip())


HISTORY_ARGS = {
    # A file's time is when its change arrived on this branch: merges are
    # diffed against their first parent so merge-only changes are seen.
    "first-parent": ("--first-parent", "--diff-merges=first-parent"),
    "all": (),
}


def history_command(mode: str) -> List[str]:
    """The one ``git log`` pass (also what the benchmark times as the floor)."""
    return ["log", *HISTORY_ARGS[mode], "--no-renames", "--name-only", "-z",
            "--format=%x00%H %ct", "--relative", "--", "."]


class HistoryPass:
    """The one ``git log`` pass, started at once and parsed on ``result()``,
    so the other git facts are gathered while it runs on the other core.

    git writes into an anonymous temporary file, not a pipe: its stdio
    flushes a pipe in 4 KiB writes, and the context switches made the pass a
    third slower than the same command writing to a file. The file is read
    back in 1 MiB blocks, so memory stays flat whatever the history's size.
    """

    def __init__(self, root: Path, mode: str) -> None:
        if not available():
            raise UsageError("git is not installed or not on PATH")
        self.root = root
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            ["git", *BASE, *history_command(mode)], cwd=str(root), env=clean_env(),
            stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)

    def discard(self) -> None:
        self.proc.wait()
        self.out.close()
        self.err.close()

    def result(self, chunk: int = 1 << 20) -> Dict[bytes, Tuple[int, bytes]]:
        """For every path under the root in HEAD's history, (committer time,
        commit) of the newest commit touching it. Paths are bytes relative to
        the root, exactly as git wrote them (``-z``: no quoting)."""
        try:
            if self.proc.wait() != 0:
                self.err.seek(0)
                raise UsageError(_explain(
                    self.err.read().decode("utf-8", "replace"), self.root))
            self.out.seek(0)
            return _parse_history(iter(lambda: self.out.read(chunk), b""))
        finally:
            self.out.close()
            self.err.close()


def _parse_history(blocks: Iterator[bytes]) -> Dict[bytes, Tuple[int, bytes]]:
    seen: Dict[bytes, Tuple[int, bytes]] = {}
    current: Tuple[int, bytes] = (0, b"")
    expect_header = False
    first_name = False
    rest = b""
    setdefault = seen.setdefault
    for block in blocks:
        tokens = (rest + block).split(b"\0")
        rest = tokens.pop()
        for token in tokens:
            if not token:
                expect_header = True
            elif expect_header:
                sha, _, ct = token.partition(b" ")
                current = (int(ct), sha)
                expect_header = False
                first_name = True
            else:
                if first_name:
                    token = token[1:]  # the newline git puts before the names
                    first_name = False
                setdefault(token, current)  # newest first: keep the first seen
    return seen


def changed_paths(root: Path) -> FrozenSet[str]:
    """Paths under ``root`` whose content differs from HEAD (staged or not)."""
    _, out, _ = run(["diff", "HEAD", "--name-only", "-z", "--relative", "--", "."],
                    root)
    return frozenset(p.decode("utf-8", "surrogateescape")
                     for p in out.split(b"\0") if p)
