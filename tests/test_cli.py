"""Whole-output assertions for the CLI surface: formats, config errors, exits."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import entry, write

J = "journal/2026-01-01_a.md"


def test_json_document(repo: Path, icm) -> None:
    write(repo, {J: entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False and doc["schema"] == 1
    assert doc["summary"] == {"errors": 1, "warnings": 0, "info": 0}
    (check,) = doc["checks"]
    assert check["check"] == "journal" and check["ok"] is False
    assert check["findings"] == [{
        "check": "journal", "code": "missing-slot", "severity": "error",
        "path": J, "line": None, "message": "missing slot 'Invariant'",
        "text": f"{J}: missing slot 'Invariant'",
        "fix": "add a '## Invariant' section",
    }]


def test_github_format(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a,b.md": entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "github")
    assert code == 1
    assert out.splitlines()[0].startswith(
        "::error file=journal/2026-01-01_a%2Cb.md,title=icm journal/bad-name::")
    assert out.splitlines()[1] + "\n" == (
        "::error file=journal/2026-01-01_a%2Cb.md,title=icm journal/missing-slot::"
        "journal/2026-01-01_a,b.md: missing slot 'Invariant' "
        "(fix: add a '## Invariant' section)\n")


def test_github_format_ok_prints_summary(repo: Path, icm) -> None:
    assert icm("check-journal", "--root", str(repo), "--format", "github") == (
        0, "journal ok\n", "")


def test_bad_format_is_usage_error(repo: Path, icm) -> None:
    code, out, err = icm("check-journal", "--root", str(repo), "--format", "xml")
    assert code == 2 and out == "" and "xml" in err


def test_unknown_command_is_usage_error(icm) -> None:
    code, _, err = icm("frobnicate")
    assert code == 2 and "frobnicate" in err


@pytest.mark.parametrize("name,text,message", [
    ("pyproject.toml", "[tool.icm]\nbudjet = 10\n",
     "icm: pyproject.toml [tool.icm]: unknown key 'budjet' (did you mean 'budget'?)\n"),
    ("icm.toml", "hanbook = 'X.md'\n",
     "icm: icm.toml: unknown key 'hanbook' (did you mean 'handbook'?)\n"),
    ("icm.toml", "zzz = 1\n", "icm: icm.toml: unknown key 'zzz'\n"),
    ("icm.toml", "[tool.icm]\nbudget = 10\n",
     "icm: icm.toml: has a [tool.icm] table; keys go at the top level of icm.toml "
     "(delete the [tool.icm] line)\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = '1600'\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be an integer, got a string "
     "('1600')\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = true\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be an integer, got a boolean "
     "(true)\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = 0\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be a positive integer, "
     "got 0\n"),
    ("icm.toml", "budget = -5\n",
     "icm: icm.toml: key 'budget' must be a positive integer, got -5\n"),
    ("pyproject.toml", "[tool.icm]\nslots = 'Decision'\n",
     "icm: pyproject.toml [tool.icm]: key 'slots' must be a list of strings, got a "
     "string ('Decision')\n"),
    ("pyproject.toml", "[tool.icm]\nexclude = ['a', 1]\n",
     "icm: pyproject.toml [tool.icm]: key 'exclude' must be a list of strings, got a "
     "list holding an integer (1)\n"),
    ("icm.toml", "stale_scope = 'tree'\n",
     "icm: icm.toml: key 'stale_scope' must be 'folder' or 'subtree', got 'tree'\n"),
    ("icm.toml", "stale_history = 'everything'\n",
     "icm: icm.toml: key 'stale_history' must be 'first-parent' or 'all', got "
     "'everything'\n"),
    ("icm.toml", "stale_history = 3\n",
     "icm: icm.toml: key 'stale_history' must be 'first-parent' or 'all', got an "
     "integer (3)\n"),
    ("icm.toml", "note_name = 'a/b.md'\n",
     "icm: icm.toml: key 'note_name' must be a file name without a folder, got "
     "'a/b.md'\n"),
    ("icm.toml", "handbook = '../AGENTS.md'\n",
     "icm: icm.toml: key 'handbook' must be a path inside the repository, got "
     "'../AGENTS.md'\n"),
    ("icm.toml", "handbook = ' '\n",
     "icm: icm.toml: key 'handbook' must be a non-empty string, got ' '\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = 1\nhandbook = \n",
     "icm: pyproject.toml: invalid TOML: Invalid value (at line 3, column 12)\n"),
])
def test_config_errors(repo: Path, icm, name: str, text: str, message: str) -> None:
    write(repo, {name: text})
    assert icm("check", "--root", str(repo)) == (2, "", message)


def test_icm_toml_wins_over_pyproject(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "journal_dir = 'log'\n",
                 "pyproject.toml": "[tool.icm]\njournal_dir = 'other'\n",
                 "log/2026-01-01_a.md": entry("Decision")})
    assert icm("check-journal", "--root", str(repo))[1] == \
        "log/2026-01-01_a.md: missing slot 'Decision'\n"


def test_root_discovery_from_subfolder(repo: Path, icm, monkeypatch) -> None:
    write(repo, {"AGENTS.md": "# H\n", J: entry("Decision"), "src/deep/x.py": ""})
    monkeypatch.chdir(repo / "src" / "deep")
    assert icm("check-journal")[1] == f"{J}: missing slot 'Decision'\n"


def test_root_that_is_not_a_folder(tmp_path: Path, icm) -> None:
    code, out, err = icm("check", "--root", str(tmp_path / "nope"))
    assert code == 2 and out == ""
    assert err.count("\n") <= 3 and "Traceback" not in err


def test_internal_error_is_one_line(repo: Path, icm, monkeypatch) -> None:
    from icm.checks import journal

    def boom(ctx):
        raise RuntimeError("kaput")

    monkeypatch.setattr(journal, "run", boom)
    assert icm("check-journal", "--root", str(repo)) == (
        2, "", "icm: internal error: RuntimeError: kaput (rerun with --debug for "
               "the traceback)\n")


def test_help_does_not_import_heavy_modules() -> None:
    code = ("import sys; from icm.cli import main; main(['--help']); "
            "bad = [m for m in ('git', 'icm.markdown', 'icm.context', 'icm.git') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().endswith("[]")


def test_python_dash_m(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "icm", "check-journal", "--root",
                           str(repo)], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "journal ok\n")


def test_no_color_when_not_a_tty(repo: Path, icm) -> None:
    write(repo, {J: entry("Decision")})
    assert "\x1b[" not in icm("check-journal", "--root", str(repo))[1]


def test_version(icm) -> None:
    from icm import __version__

    assert icm("--version") == (0, f"icm {__version__}\n", "")
