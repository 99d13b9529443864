"""Every git fact icm needs; the only module that imports gitpython.

Raw ``git`` runs where streaming speed matters (the history pass, file lists);
GitPython gives the repository handle for the facts that are not hot. Every
call scrubs inherited ``GIT_*`` variables so a hook's ``GIT_DIR`` or
``GIT_INDEX_FILE`` never points icm at another repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from icm.errors import UsageError

# Keep config overrides a user set on purpose; drop everything that relocates
# the repository, its index or its object store.
_KEEP = {"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"}

# Fixed options so user configuration cannot change what we parse.
BASE = (
    "-c", "core.quotePath=false",
    "-c", "log.showSignature=false",
    "-c", "color.ui=false",
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


def toplevel(cwd: Path) -> Optional[Path]:
    """The work tree's top level containing ``cwd``, or None outside git."""
    if not available():
        return None
    code, out, err = run(["rev-parse", "--show-toplevel"], cwd, check=False)
    if code != 0:
        if "dubious ownership" in err:
            raise UsageError(_explain(err, cwd))
        return None
    top = out.decode("utf-8", "surrogateescape").strip()
    return Path(top) if top else None


def list_files(root: Path) -> Tuple[List[str], List[str]]:
    """Tracked and untracked-but-not-ignored files under ``root``, root-relative.

    One ``ls-files`` call; ``-t`` tags tell the two apart. Paths come back
    relative to ``root`` because git runs there.
    """
    _, out, _ = run(
        ["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard"], root
    )
    tracked: List[str] = []
    untracked: List[str] = []
    for item in out.split(b"\0"):
        if not item:
            continue
        tag, name = item[:1], item[2:].decode("utf-8", "surrogateescape")
        (untracked if tag == b"?" else tracked).append(name)
    return tracked, untracked


def git_dir(root: Path) -> Optional[Path]:
    """The repository's common git directory (for caches), or None."""
    code, out, _ = run(["rev-parse", "--git-common-dir"], root, check=False)
    if code != 0:
        return None
    path = Path(out.decode("utf-8", "surrogateescape").strip())
    return path if path.is_absolute() else (root / path).resolve()


def is_tracked(root: Path, rel: str) -> bool:
    code, out, _ = run(["ls-files", "-z", "--error-unmatch", "--", rel], root,
                       check=False)
    return code == 0 and bool(out)


def stage_move(root: Path, old: str, new: str) -> None:
    """Record in the index that ``old`` became ``new`` (both already on disk)."""
    run(["rm", "-q", "--cached", "--", old], root)
    run(["add", "--", new], root)


def stream(args: Sequence[str], cwd: Path, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Yield git's stdout in large chunks; raise UsageError if git fails."""
    if not available():
        raise UsageError("git is not installed or not on PATH")
    proc = subprocess.Popen(
        ["git", *BASE, *args], cwd=str(cwd), env=clean_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        while True:
            block = proc.stdout.read(chunk)
            if not block:
                break
            yield block
    finally:
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        code = proc.wait()
    if code != 0:
        raise UsageError(_explain(err, cwd))
