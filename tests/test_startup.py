"""Start-up loads only what a run uses (issue 16): measured in a fresh
interpreter, where ``sys.modules`` starts empty."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icm import __version__, cache
from tests.conftest import commit

REPORT = ("import atexit, sys; atexit.register(lambda: print(sorted(m for m in "
          "{mods!r} if m in sys.modules), file=sys.stderr)); "
          "sys.argv = ['icm', *{argv!r}]; from icm.__main__ import run; run()")


def loaded(argv, mods, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", REPORT.format(mods=mods, argv=argv)],
                          capture_output=True, text=True, cwd=cwd)


# The modules a run adds to the bare interpreter's, ``signal`` aside (the
# exit ignores a late Ctrl-C; some sites load it already).
ADDED = ("import atexit, sys; bare = set(sys.modules); "
         "atexit.register(lambda: print(sorted(set(sys.modules) - bare - "
         "{{'signal'}}), "
         "file=sys.stderr)); sys.argv = ['icm', *{argv!r}]; "
         "from icm.__main__ import run; run()")


def test_version_loads_nothing_the_interpreter_does_not(tmp_path: Path) -> None:
    """``icm --version`` costs what ``python -c pass`` does: no typer, git
    or markdown_it, and not even ``typing`` or ``threading``."""
    proc = subprocess.run([sys.executable, "-c", ADDED.format(argv=["--version"])],
                          capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, f"icm {__version__}\n",
        "['icm', 'icm.__main__', 'icm.errors', 'icm.output']\n")


def test_version_among_other_words_is_typer_s(tmp_path: Path) -> None:
    proc = loaded(["--version", "check"], ("icm.cli",), tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, f"icm {__version__}\n", "['icm.cli']\n")


def test_check_links_loads_neither_pydantic_nor_gitpython(repo: Path) -> None:
    """Nor ``importlib.metadata`` (25 ms) for the parsers' versions in the
    cache's key."""
    commit(repo, {"AGENTS.md": "# h\n\n[a](a.md)\n", "a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    proc = loaded(["check-links", "--root", str(repo)],
                  ("pydantic", "git", "importlib.metadata"), repo)
    assert (proc.returncode, proc.stderr) == (0, "[]\n"), proc.stdout


@pytest.mark.parametrize("module, names", [
    ("markdown_it", ("markdown-it-py",)),
    ("pyromark", ("pyromark",)),
    ("typer", ("typer",))])
def test_a_version_read_from_the_install_is_importlib_s(module: str, names) -> None:
    """The cache keys' versions, read from the dist-info folder's name, are
    what ``importlib.metadata`` says."""
    from importlib.metadata import PackageNotFoundError, version

    def metadata(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return ""

    found = cache.installed_version(module, names)
    assert found is not None
    assert found == next(filter(None, map(metadata, names)), "")


def test_a_module_not_installed_has_no_version() -> None:
    assert cache.installed_version("icm_no_such_module", ("nope",)) == ""


def test_check_links_loads_no_other_check(repo: Path) -> None:
    """The registry imports a check when it runs (about 40 ms of start-up)."""
    commit(repo, {"AGENTS.md": "# h\n\n[a](a.md)\n", "a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    others = ("icm.checks.dupes", "icm.checks.agents", "icm.checks.positions",
              "icm.checks.stale", "icm.similarity", "icm.checks.links")
    proc = loaded(["check-links", "--root", str(repo)], others, repo)
    assert (proc.returncode, proc.stderr) == (0, "['icm.checks.links']\n"), proc.stdout


def test_typer_builds_only_the_command_named(repo: Path, monkeypatch, capsys) -> None:
    """A parser for every command was 8 ms of every run; help and an
    unknown name still see them all."""
    import typer.main

    from icm import cli

    commit(repo, {"AGENTS.md": "# h\n", "a.md": "# a\n"}, "2026-10-01T12:00:00+00:00")
    built: list = []
    real = typer.main.get_command_from_info

    def spy(command_info, **kwargs):
        built.append(command_info.name)
        return real(command_info, **kwargs)

    monkeypatch.setattr(typer.main, "get_command_from_info", spy)
    assert cli.main(["check-links", "--root", str(repo)]) == 0
    assert built == ["check-links"]
    built.clear()
    assert cli.main(["check-linkz"]) == 2
    assert built == [c.name for c in cli.app.registered_commands]
    assert capsys.readouterr().err == (
        "icm: unknown command 'check-linkz' (did you mean 'check-links'?)\n")


def test_a_version_is_read_only_from_one_dist_info(tmp_path: Path, monkeypatch) -> None:
    """An upgrade that left the old folder behind names two versions: the
    layout does not answer (``importlib.metadata`` does); a module alone
    (``.py``) reads its folder too."""
    (tmp_path / "icm_fake_pkg").mkdir()
    (tmp_path / "icm_fake_pkg" / "__init__.py").write_text("")
    (tmp_path / "icm_fake_mod.py").write_text("")
    (tmp_path / "Icm_Fake-2.0.1.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("icm-fake", "other")
    assert cache.installed_version("icm_fake_pkg", names) == "2.0.1"
    assert cache.installed_version("icm_fake_mod", names) == "2.0.1"
    (tmp_path / "icm_fake-1.0.dist-info").mkdir()
    assert cache.installed_version("icm_fake_pkg", names) is None


def test_a_warm_check_links_loads_no_pool_no_hash(repo: Path) -> None:
    """Every stamp matched: nothing to hash (hashlib), parse (the markdown
    parsers), fork (pickle) or write to a temporary file (tempfile)."""
    commit(repo, {"AGENTS.md": "# h\n\n[a](a.md)\n", "a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    mods = ("hashlib", "pickle", "tempfile", "markdown_it", "icm.extract")
    assert loaded(["check-links", "--root", str(repo)], mods, repo).returncode == 0
    later = time.time() + 60  # the cache written well after the files
    os.utime(repo / ".git" / "icm" / cache.FILE_NAME, (later, later))
    proc = loaded(["check-links", "--root", str(repo)], mods, repo)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "links ok\n", "[]\n")


def test_check_queue_with_nothing_added_elsewhere_loads_no_similarity(
        repo: Path) -> None:
    commit(repo, {"AGENTS.md": "# h\n", "queue/01_a.md": "# a\n"},
           "2026-10-01T12:00:00+00:00")
    proc = loaded(["check-queue", "--root", str(repo)], ("icm.similarity",), repo)
    assert (proc.returncode, proc.stderr) == (0, "[]\n"), proc.stdout
