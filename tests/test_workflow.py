"""Queue and journal workflow, init, the Makefile include and the hooks."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, git, write

ROOT = Path(__file__).resolve().parent.parent
D1 = "2026-10-01T12:00:00+00:00"


# -- check-queue ---------------------------------------------------------------

def test_queue_ok_and_duplicates(repo: Path, icm) -> None:
    write(repo, {"queue/07_auto-detect-delimiter.md": "a", "queue/.gitkeep": "",
                 "queue/README.md": "about", "queue/08_x.md": "b"})
    assert icm("check-queue", "--root", str(repo)) == (0, "queue ok\n", "")
    write(repo, {"queue/07_summary-to-stderr.md": "c", "queue/notes.md": "d"})
    assert icm("check-queue", "--root", str(repo)) == (1, (
        "queue: number 07 is used twice: queue/07_auto-detect-delimiter.md, "
        "queue/07_summary-to-stderr.md\n"
        "queue/notes.md: name does not match NN_slug.md\n"), "")


def test_queue_three_times(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "", "queue/07_b.md": "", "queue/007_c.md": ""})
    assert icm("check-queue", "--root", str(repo))[1] == (
        "queue: number 007 is used 3 times: queue/007_c.md, queue/07_a.md, "
        "queue/07_b.md\n")


# -- new-queue -----------------------------------------------------------------

def test_new_queue_numbers_and_slug(repo: Path, icm) -> None:
    write(repo, {"queue/06_old.md": "x"})
    assert icm("new-queue", "Auto-detect the Délimiter!", "--root", str(repo)) == (
        0, "queue/07_auto-detect-the-delimiter.md\n", "")
    text = (repo / "queue/07_auto-detect-the-delimiter.md").read_text()
    assert text.startswith("# Auto-detect the Délimiter!\n")


def test_new_queue_widens_past_99(repo: Path, icm) -> None:
    write(repo, {"queue/99_last.md": "x"})
    assert icm("new-queue", "next", "--root", str(repo))[1] == "queue/100_next.md\n"


def test_new_queue_rejects_empty_slug(repo: Path, icm) -> None:
    assert icm("new-queue", "!!!", "--root", str(repo)) == (
        2, "", "icm: the title needs at least one letter or digit\n")


def test_new_queue_concurrent_writers_get_distinct_numbers(repo: Path) -> None:
    (repo / "queue").mkdir()
    icm_bin = [sys.executable, "-m", "icm", "new-queue", "--root", str(repo)]
    procs = [subprocess.Popen([*icm_bin, f"writer {i}"], stdout=subprocess.PIPE,
                              text=True) for i in range(6)]
    outs = [p.communicate()[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    numbers = sorted(o.split("/")[1].split("_")[0] for o in outs)
    assert numbers == ["01", "02", "03", "04", "05", "06"]


# -- new-journal ---------------------------------------------------------------

QUEUE_ITEM = "# Auto-detect the delimiter\n\nSome exports use semicolons.\n"


@pytest.mark.parametrize("item", ["07", "7", "auto-detect-delimiter",
                                  "queue/07_auto-detect-delimiter.md",
                                  "07_auto-detect-delimiter.md"])
def test_new_journal_by_number_slug_path(repo: Path, icm, item: str) -> None:
    write(repo, {"queue/07_auto-detect-delimiter.md": QUEUE_ITEM,
                 "queue/08_other.md": "x"})
    assert icm("new-journal", item, "--date", "2026-11-29", "--root", str(repo)) == (
        0, "journal/2026-11-29_auto-detect-delimiter.md\n", "")
    entry = (repo / "journal/2026-11-29_auto-detect-delimiter.md").read_text()
    assert entry.startswith("# Auto-detect the delimiter\n\nCarried over from "
                            "`queue/07_auto-detect-delimiter.md`:\n\nSome exports "
                            "use semicolons.\n\n## Decision\n")
    for slot in ("## Rejected alternative", "## Invariant", "## Verify command"):
        assert slot in entry
    assert not (repo / "queue/07_auto-detect-delimiter.md").exists()
    assert (repo / "queue/08_other.md").exists()


def test_new_journal_tracked_item_is_staged_as_a_move(repo: Path, icm) -> None:
    commit(repo, {"queue/07_a.md": QUEUE_ITEM}, D1)
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))[0] == 0
    status = git(repo, "status", "--porcelain")
    assert status.splitlines() == ["A  journal/2026-11-29_a.md", "D  queue/07_a.md"]


def test_new_journal_never_overwrites(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM, "journal/2026-11-29_a.md": "mine"})
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo)) == (
        2, "", "icm: 2026-11-29_a.md already exists; not overwriting it\n")
    assert (repo / "journal/2026-11-29_a.md").read_text() == "mine"
    assert (repo / "queue/07_a.md").read_text() == QUEUE_ITEM
    assert sorted(os.listdir(repo / "journal")) == ["2026-11-29_a.md"]


def test_new_journal_unknown_item_lists_the_queue(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "x", "queue/08_b.md": "y"})
    assert icm("new-journal", "09", "--root", str(repo)) == (
        2, "", "icm: no queue item matches '09' (queue/07_a.md, queue/08_b.md)\n")
    assert icm("new-journal", "x", "--date", "29-11-2026", "--root", str(repo)) == (
        2, "", "icm: --date must be YYYY-MM-DD, not '29-11-2026'\n")


def test_new_journal_failing_removal_changes_nothing(repo: Path, icm,
                                                     monkeypatch) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM})
    real_unlink = os.unlink

    def refuse(path, *a, **k):
        if str(path).endswith("07_a.md"):
            raise PermissionError(13, "Permission denied")
        return real_unlink(path, *a, **k)

    monkeypatch.setattr(os, "unlink", refuse)
    code, out, err = icm("new-journal", "07", "--date", "2026-11-29",
                         "--root", str(repo))
    assert (code, out) == (2, "")
    assert err == "icm: cannot remove queue/07_a.md: Permission denied; nothing " \
                  "was changed\n"
    assert (repo / "queue/07_a.md").exists()
    assert os.listdir(repo / "journal") == []


def test_new_entry_fails_the_gate_until_written(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM})
    icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and out.count("empty slot") == 4


# -- init ----------------------------------------------------------------------

def test_init_empty_repository_then_check_passes(repo: Path, icm) -> None:
    write(repo, {"pyproject.toml": "[project]\nname = 'x'\n"})
    code, out, err = icm("init", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "created AGENTS.md", "created journal/.gitkeep", "created queue/.gitkeep",
        "created Makefile", "added [tool.icm] to pyproject.toml"]
    assert (repo / "pyproject.toml").read_text().startswith("[project]\nname = 'x'\n")
    commit(repo, {}, D1, "init")
    code, out, _ = icm("check", "--root", str(repo))
    assert code == 0, out
    assert icm("init", "--root", str(repo))[1].splitlines() == [
        "left alone AGENTS.md (exists)", "left alone journal/.gitkeep (exists)",
        "left alone queue/.gitkeep (exists)",
        "left alone Makefile (already includes icm's targets)",
        "left alone pyproject.toml (has [tool.icm])"]


def test_init_keeps_existing_files(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "mine\n", "Makefile": "all:\n\techo hi\n"})
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out == ["left alone AGENTS.md (exists)", "created journal/.gitkeep",
                   "created queue/.gitkeep",
                   "left alone Makefile; add this line to it: include $(shell icm "
                   "makefile)"]
    assert (repo / "AGENTS.md").read_text() == "mine\n"
    assert (repo / "Makefile").read_text() == "all:\n\techo hi\n"


# -- Makefile.inc --------------------------------------------------------------

def test_makefile_prints_installed_path(icm) -> None:
    code, out, _ = icm("makefile")
    path = Path(out.strip())
    assert code == 0 and path.is_absolute() and path.name == "Makefile.inc"
    assert path.read_bytes() == (ROOT / "Makefile.inc").read_bytes()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_targets_through_the_include_line(repo: Path) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ['PATH']}")
    write(repo, {"Makefile": "include $(shell icm makefile)\n",
                 "AGENTS.md": "# H\n",
                 "journal/2026-10-29_summary-line-to-stderr.md":
                     "## Decision\nx\n\n## Rejected alternative\ny\n"})

    def make(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["make", "--no-print-directory", *args], cwd=repo,
                              env=env, capture_output=True, text=True)

    result = make("check-journal")
    assert result.returncode == 2
    seed = ("journal/2026-10-29_summary-line-to-stderr.md: missing slot 'Invariant'\n"
            "journal/2026-10-29_summary-line-to-stderr.md: missing slot "
            "'Verify command'\n")
    assert result.stdout == seed
    assert result.stderr.startswith("make: *** [")
    assert result.stderr.rstrip().endswith("check-journal] Error 1")
    assert make("new-queue", "TITLE=Summary to stderr").stdout == \
        "queue/01_summary-to-stderr.md\n"
    assert make("check-queue").stdout == "queue ok\n"
    assert make("new-journal", "ITEM=01").stdout.startswith("journal/")
    assert "budget 7" in make("bootmap", "BUDGET=7").stdout
    assert make("check-links").stdout == "links ok\n"
    assert make("check-stale").returncode == 0


# -- ecosystem -----------------------------------------------------------------

def test_pre_commit_manifest_is_valid_and_names_real_commands() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    from icm.cli import app

    hooks = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    commands = {c.name for c in app.registered_commands}
    ids = set()
    for hook in hooks:
        ids.add(hook["id"])
        program, command = hook["entry"].split()
        assert program == "icm" and command in commands
        assert hook["pass_filenames"] is False
    assert ids == {"icm-check", "icm-check-journal", "icm-check-links",
                   "icm-check-stale", "icm-check-queue", "icm-check-dupes",
                   "icm-bootmap"}


def test_action_checks_out_full_history_and_uses_github_format() -> None:
    text = (ROOT / "action.yml").read_text()
    assert "fetch-depth: 0" in text
    assert "icm check --format github" in text


def test_example_repo_verify_commands_pass() -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ['PATH']}")
    entries = sorted((ROOT / "example_repo" / "journal").glob("*.md"))
    assert len(entries) == 2
    for entry in entries:
        lines = entry.read_text().splitlines()
        command = lines[lines.index("## Verify command") + 1].strip("`")
        result = subprocess.run(["bash", "-c", command], cwd=ROOT / "example_repo",
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0, (entry.name, command, result.stdout)
