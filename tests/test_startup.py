"""Start-up loads only what a run uses (issue 16): measured in a fresh
interpreter, where ``sys.modules`` starts empty."""

import subprocess
import sys
from pathlib import Path

from icm import __version__
from tests.conftest import commit

REPORT = ("import atexit, sys; atexit.register(lambda: print(sorted(m for m in "
          "{mods!r} if m in sys.modules), file=sys.stderr)); "
          "sys.argv = ['icm', *{argv!r}]; from icm.__main__ import run; run()")


def loaded(argv, mods, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", REPORT.format(mods=mods, argv=argv)],
                          capture_output=True, text=True, cwd=cwd)


def test_version_loads_no_cli(tmp_path: Path) -> None:
    proc = loaded(["--version"], ("typer", "icm.cli", "icm.usage", "icm.report"),
                  tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, f"icm {__version__}\n", "[]\n")


def test_version_among_other_words_is_typer_s(tmp_path: Path) -> None:
    proc = loaded(["--version", "check"], ("icm.cli",), tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, f"icm {__version__}\n", "['icm.cli']\n")


def test_check_links_loads_neither_pydantic_nor_gitpython(repo: Path) -> None:
    commit(repo, {"AGENTS.md": "# h\n\n[a](a.md)\n", "a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    proc = loaded(["check-links", "--root", str(repo)], ("pydantic", "git"), repo)
    assert (proc.returncode, proc.stderr) == (0, "[]\n"), proc.stdout


def test_check_links_loads_no_other_check(repo: Path) -> None:
    """The registry imports a check when it runs (about 40 ms of start-up)."""
    commit(repo, {"AGENTS.md": "# h\n\n[a](a.md)\n", "a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    others = ("icm.checks.dupes", "icm.checks.agents", "icm.checks.positions",
              "icm.checks.stale", "icm.similarity", "icm.checks.links")
    proc = loaded(["check-links", "--root", str(repo)], others, repo)
    assert (proc.returncode, proc.stderr) == (0, "['icm.checks.links']\n"), proc.stdout
