"""Issue 9, bugs 3 to 6: outside git, root discovery, checks that find
nothing, and a handbook that shares the notes' name."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
ROOT = Path(__file__).resolve().parent.parent

HB = "# H\n\n- [src](src/context.md)\n"

# -- bug 3: outside git, icm check runs every check that can run -------------


def test_check_outside_git_runs_the_other_checks(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": HB, "src/context.md": "why",
                     "journal/2026-01-01_a.md": "# A\n\n## Decision\nx\n"})
    code, out, err = icm("check", "--root", str(tmp_path))
    assert (code, err) == (1, "")
    assert out == (
        "journal/2026-01-01_a.md: missing slot 'Rejected alternative'\n"
        "journal/2026-01-01_a.md: missing slot 'Invariant'\n"
        "journal/2026-01-01_a.md: missing slot 'Verify command'\n"
        "links ok\n"
        "stale: not a git repository; staleness not checked\n"
        "background notes, by size:\n"
        "      1 words  src/context.md\n"
        "cold-boot set: 32 bytes, about 8 tokens (budget 1600)\n"
        "queue ok (no base branch to compare with)\n"
        "dupes ok\n"
        "handoff: no records in handoff yet (handoff_dir)\n"
        "agents: no exported sessions in Agents/* (agents_dirs)\n"
        "positions ok\n"
        "icm check: 1 of 9 checks failed (journal: 3 errors)\n")


def test_check_outside_git_clean_is_exit_0(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": HB, "src/context.md": "why"})
    code, out, err = icm("check", "--root", str(tmp_path), "--format", "json")
    assert (code, err) == (0, "")
    stale = [c for c in json.loads(out)["checks"] if c["check"] == "stale"][0]
    assert stale["ok"] is True
    assert [(f["code"], f["severity"], f["text"]) for f in stale["findings"]] == [
        ("not-applicable", "info",
         "stale: not a git repository; staleness not checked")]


def test_check_stale_alone_outside_git_is_exit_2(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": HB, "src/context.md": "why"})
    assert icm("check-stale", "--root", str(tmp_path)) == (
        2, "", f"icm: {tmp_path} is not inside a git repository (check-stale reads "
               "git history)\n")


def test_check_without_git_installed_is_still_an_error(repo: Path, icm,
                                                       monkeypatch) -> None:
    # Not "not a repository": git is missing, and that must not pass quietly.
    commit(repo, {"AGENTS.md": HB, "src/context.md": "why"}, D1)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert icm("check", "--root", str(repo)) == (
        2, "", "icm: git is not installed or not on PATH\n")


# -- bug 4: root discovery ---------------------------------------------------


def test_config_beats_a_nested_handbook_named_note(repo: Path, icm,
                                                   monkeypatch) -> None:
    # asynkron/OpenAgent: notes are AGENTS.md, the config is at the top.
    commit(repo, {"icm.toml": 'note_name = "AGENTS.md"\nhandbook = "README.md"\n',
                  "README.md": "# R\n\n- [py](python/AGENTS.md)\n",
                  "python/AGENTS.md": "why", "python/x.py": "1"}, D1)
    commit(repo, {"python/x.py": "2"}, D9)
    monkeypatch.chdir(repo / "python")
    assert icm("check-stale") == (
        1, "python/AGENTS.md: STALE - code in python moved 8 days after the "
           "note\n", "")


def test_git_top_level_beats_a_nested_handbook(repo: Path, icm,
                                               monkeypatch) -> None:
    commit(repo, {"AGENTS.md": HB, "src/context.md": "why", "src/x.py": "1",
                  "pkg/AGENTS.md": "a package's own handbook", "pkg/y.py": "1"}, D1)
    monkeypatch.chdir(repo / "pkg")
    assert icm("check-stale") == (0, "src/context.md: ok\n", "")


def test_nearest_config_inside_the_repository_wins(repo: Path, icm,
                                                   monkeypatch) -> None:
    commit(repo, {"AGENTS.md": HB, "src/context.md": "why", "src/x.py": "1",
                  "sub/icm.toml": "", "sub/AGENTS.md": "# S\n",
                  "sub/lib/context.md": "w", "sub/lib/z.py": "1"}, D1)
    monkeypatch.chdir(repo / "sub" / "lib")
    assert icm("check-stale") == (0, "lib/context.md: ok\n", "")


def test_config_above_the_repository_is_not_used(tmp_path: Path, icm,
                                                 monkeypatch) -> None:
    write(tmp_path, {"icm.toml": 'note_name = "NOTE.md"\n'})
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    commit(inner, {"src/context.md": "why", "src/x.py": "1"}, D1)
    monkeypatch.chdir(inner / "src")
    assert icm("check-stale") == (0, "src/context.md: ok\n", "")


def test_handbook_marker_outside_git(tmp_path: Path, icm, monkeypatch) -> None:
    write(tmp_path, {"AGENTS.md": "# H\n", "journal/2026-01-01_a.md": "# A\n"})
    deep = tmp_path / "journal"
    monkeypatch.chdir(deep)
    code, out, _ = icm("check-journal")
    assert code == 1 and out.startswith("journal/2026-01-01_a.md: missing slot")


# -- bug 5: a check that finds nothing to check says so ----------------------


def test_empty_repository_says_what_was_not_found(repo: Path, icm) -> None:
    commit(repo, {"README.md": "# R\n", "x.py": "1"}, D1)
    assert icm("check", "--root", str(repo)) == (0, (
        "journal ok\n"
        "links: no handbook AGENTS.md and no notes named context.md (set "
        "handbook, note_name)\n"
        "links ok\n"
        "stale: no notes named context.md yet (or set note_name)\n"
        "background notes, by size:\n"
        "cold-boot set: 0 bytes, about 0 tokens (budget 1600)\n"
        "bootmap: no notes named context.md yet (or set note_name)\n"
        "queue ok (no base branch to compare with)\n"
        "dupes ok\n"
        "handoff: no records in handoff yet (handoff_dir)\n"
        "agents: no exported sessions in Agents/* (agents_dirs)\n"
        "positions ok\n"
        "icm check: all 9 checks passed\n"), "")


def test_a_configured_folder_not_made_yet_says_so(repo: Path, icm) -> None:
    """A fresh project, or a misspelt journal_dir: one info line each, never a
    failure; a default folder not made yet stays "ok" (above)."""
    commit(repo, {"icm.toml": "journal_dir = 'docs/adrs'\nqueue_dir = 'todo'\n",
                  "docs/adr/2026-01-01_a.md": "# A\n"}, D1)
    assert icm("check-journal", "--root", str(repo)) == (
        0, "journal: no folder docs/adrs yet (journal_dir)\n", "")
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue: no folder todo yet (queue_dir)\n", "")
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "json")
    finding = json.loads(out)["checks"][0]["findings"][0]
    assert (code, finding["code"], finding["severity"]) == (0, "no-folder", "info")
    (repo / "docs/adrs").mkdir()  # empty: git lists nothing, the disk has it
    (repo / "todo").mkdir()
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")


def test_no_notes_with_another_note_name(repo: Path, icm) -> None:
    commit(repo, {"icm.toml": 'note_name = "NOTES.md"\n', "src/context.md": "w",
                  "src/x.py": "1"}, D1)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "stale: no notes named NOTES.md yet (or set note_name)\n", "")


def test_no_notes_in_a_repository_without_commits(repo: Path, icm) -> None:
    write(repo, {"x.py": "1"})
    assert icm("check-stale", "--root", str(repo)) == (
        0, "stale: no notes named context.md yet (or set note_name)\n", "")


def test_nothing_found_is_info_in_json(repo: Path, icm) -> None:
    commit(repo, {"x.py": "1"}, D1)
    code, out, _ = icm("check-stale", "--root", str(repo), "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["ok"] is True
    assert doc["summary"] == {"errors": 0, "warnings": 0, "info": 1}
    assert doc["checks"][0]["findings"][0]["code"] == "no-notes"
    assert doc["checks"][0]["data"] == {"stale": 0, "unknown": 0, "ok": 0}


def test_a_handbook_alone_is_a_normal_run(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n"}, D1)
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


# -- bug 6: the handbook is not a folder note --------------------------------

CLAUDE = 'handbook = "CLAUDE.md"\nnote_name = "CLAUDE.md"\n'


def test_root_handbook_sharing_the_note_name_is_not_a_note(repo: Path, icm) -> None:
    # humanlayer/humanlayer: the handbook and the notes are all CLAUDE.md.
    commit(repo, {"icm.toml": CLAUDE, "CLAUDE.md": "# H\n\n- [a](app/CLAUDE.md)\n",
                  "setup.py": "1", "app/CLAUDE.md": "why", "app/main.py": "1"}, D1)
    commit(repo, {"setup.py": "2"}, D9)
    assert icm("check-stale", "--root", str(repo)) == (0, "app/CLAUDE.md: ok\n", "")
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")
    out = icm("bootmap", "--root", str(repo))[1]
    assert out.splitlines()[:2] == ["background notes, by size:",
                                    "      1 words  app/CLAUDE.md"]


def test_handbook_in_a_folder_is_not_an_unindexed_note(repo: Path, icm) -> None:
    commit(repo, {"icm.toml": 'handbook = "docs/CLAUDE.md"\nnote_name = '
                  '"CLAUDE.md"\n', "docs/CLAUDE.md": "# H\n\n- [a](../app/CLAUDE.md)\n",
                  "app/CLAUDE.md": "why"}, D1)
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


def test_root_context_note_beside_the_handbook_is_a_note(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n", "context.md": "why", "setup.py": "1"}, D1)
    commit(repo, {"setup.py": "2"}, D9)
    assert icm("check-stale", "--root", str(repo)) == (
        1, "context.md: STALE - code in . moved 8 days after the note\n", "")


# -- this repository runs its own hook ---------------------------------------


def _yaml(path: Path):
    yaml = pytest.importorskip("yaml")  # pre-commit's own dependency
    return yaml.safe_load(path.read_text())


def test_own_pre_commit_config_uses_the_icm_check_hook() -> None:
    manifest = {h["id"]: h for h in _yaml(ROOT / ".pre-commit-hooks.yaml")}
    config = _yaml(ROOT / ".pre-commit-config.yaml")
    hooks = [h for r in config["repos"] for h in r["hooks"]]
    mine = [h for h in hooks if h["id"] == "icm-check"]
    assert len(mine) == 1
    for key in ("entry", "pass_filenames", "always_run"):
        assert mine[0][key] == manifest["icm-check"][key], key
    assert mine[0]["language"] == "system"
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config",
                           str(ROOT / ".pre-commit-config.yaml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_folder_with_its_own_config_is_its_own_root(repo: Path, icm) -> None:
    """A monorepo's projects: the top-level run claimed every nested note as
    unindexed and judged their code (newcomer round 2); each project is its
    own root, found from inside it."""
    commit(repo, {"AGENTS.md": "# Top\n\n- [tools](tools/context.md)\n",
                  "tools/context.md": "# tools\n", "tools/t.py": "1\n",
                  "services/api/icm.toml": "",
                  "services/api/AGENTS.md": "# API\n\n- [src](src/context.md)\n",
                  "services/api/src/context.md": "# src\n",
                  "services/api/src/a.py": "1\n",
                  "services/web/pyproject.toml": "[tool.icm]\n",
                  "services/web/AGENTS.md": "# Web\n",
                  "services/web/src/context.md": "# web src\n",
                  "services/other/pyproject.toml": "[project]\nname = 'x'\n",
                  "services/other/context.md": "# other\n"}, D1)
    code, out, _ = icm("check-links", "--root", str(repo))
    assert (code, out) == (1, "note missing from handbook index: "
                              "services/other/context.md\n"
                              "links: 1 problem (unindexed note 1)\n")
    assert icm("check-stale", "--root", str(repo))[1] == (
        "services/other/context.md: ok\ntools/context.md: ok\n")
    assert icm("check-links", "--root", str(repo / "services/api")) == (
        0, "links ok\n", "")
    assert icm("check-links", "--root", str(repo / "services/web"))[1] == (
        "note missing from handbook index: src/context.md\n"
        "links: 1 problem (unindexed note 1)\n")
