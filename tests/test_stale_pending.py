"""check-stale judges the tree as it will be committed (issue 9, bug 1).

Staged and work-tree changes count as changed now; ``--committed`` judges
history alone. The last tests run the gate through a real ``pre-commit``.
"""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, git, git_env, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
D10 = "2026-10-10T12:00:00+00:00"

SEED_STALE = "src/context.md: STALE - code in src moved 8 days after the note"
PENDING_STALE = "src/context.md: STALE - code in src changed (uncommitted) after " \
                "the note\n"


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def fresh(repo: Path) -> None:
    """A note and its code committed together: ok in history."""
    commit(repo, {"src/context.md": "why", "src/x.py": "1", "src/y.py": "1",
                  "tests/context.md": "why", "tests/test_x.py": "t"}, D1)


def stale_in_history(repo: Path) -> None:
    """The state that deadlocked the gate: code committed after the note."""
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D9)


def test_committed_history_keeps_the_seed_lines(repo: Path, icm) -> None:
    stale_in_history(repo)
    expected = (1, f"{SEED_STALE}\ntests/context.md: ok\n", "")
    assert stale(icm, repo) == expected
    assert stale(icm, repo, "--committed") == expected


def test_staged_note_is_fresh(repo: Path, icm) -> None:
    stale_in_history(repo)
    write(repo, {"src/context.md": "why, reread after x.py v2"})
    git(repo, "add", "src/context.md")
    assert stale(icm, repo) == (
        0, "src/context.md: ok (pending)\ntests/context.md: ok\n", "")
    assert stale(icm, repo, "--committed") == (
        1, f"{SEED_STALE} (uncommitted changes)\ntests/context.md: ok\n", "")


def test_staged_code_without_its_note_is_stale(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2"})
    git(repo, "add", "src/x.py")
    assert stale(icm, repo) == (1, PENDING_STALE + "tests/context.md: ok\n", "")
    assert stale(icm, repo, "--committed") == (
        0, "src/context.md: ok\ntests/context.md: ok\n", "")


def test_note_and_code_staged_together_is_a_tie(repo: Path, icm) -> None:
    stale_in_history(repo)
    write(repo, {"src/context.md": "new why", "src/x.py": "3"})
    git(repo, "add", "-A")
    assert stale(icm, repo) == (
        0, "src/context.md: ok (pending)\ntests/context.md: ok\n", "")


def test_unstaged_changes_count_too(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2"})  # edited, not staged
    assert stale(icm, repo)[:2] == (1, PENDING_STALE + "tests/context.md: ok\n")
    write(repo, {"src/context.md": "edited too"})  # neither staged
    assert stale(icm, repo)[:2] == (
        0, "src/context.md: ok (pending)\ntests/context.md: ok\n")


def test_untracked_code_is_not_pending(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/new.py": "not added"})  # a commit leaves it out
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\ntests/context.md: ok\n")


def test_staged_change_undone_in_the_work_tree_still_counts(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2"})
    git(repo, "add", "src/x.py")
    write(repo, {"src/x.py": "1"})  # work tree back at HEAD; the index is not
    assert stale(icm, repo)[:2] == (1, PENDING_STALE + "tests/context.md: ok\n")


@pytest.mark.parametrize("how", ["git rm", "rm"])
def test_deleted_code_file(repo: Path, icm, how: str) -> None:
    fresh(repo)
    if how == "git rm":
        git(repo, "rm", "-q", "src/y.py")
    else:
        (repo / "src" / "y.py").unlink()
    assert stale(icm, repo)[:2] == (1, PENDING_STALE + "tests/context.md: ok\n")


def test_excluded_paths_are_not_pending(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"icm.toml": "exclude = ['src/y.py']\n"}, D1)
    git(repo, "rm", "-q", "src/y.py")
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\ntests/context.md: ok\n")


def test_note_renamed_in_the_index_is_in_the_commit_being_made(repo: Path,
                                                              icm) -> None:
    # Renames are not followed, but the note at its new path is in the
    # commit being made with its code: ok (pending), --strict or not; the
    # same tree committed has no history to set it against before that.
    fresh(repo)
    git(repo, "mv", "src", "lib")
    expected = (0, "lib/context.md: ok (pending)\ntests/context.md: ok\n", "")
    assert stale(icm, repo) == expected
    assert stale(icm, repo, "--strict") == expected
    assert stale(icm, repo, "--committed")[1] == (
        "lib/context.md: unknown - note never committed (uncommitted changes)\n"
        "tests/context.md: ok\n")


def test_staged_new_note_passes_a_strict_hook(repo: Path, icm) -> None:
    """A new folder's first commit with its note: the note is in the commit
    being made, so --strict in the pre-commit hook lets it through (it was
    unknown, an error under --strict: no commit could ever add a note)."""
    fresh(repo)
    write(repo, {"new/context.md": "first note", "new/z.py": "1"})
    git(repo, "add", "-A")
    assert stale(icm, repo, "--strict") == (
        0, "new/context.md: ok (pending)\nsrc/context.md: ok\ntests/context.md: ok\n",
        "")
    commit(repo, {}, D9)
    assert stale(icm, repo, "--strict")[:2] == (
        0, "new/context.md: ok\nsrc/context.md: ok\ntests/context.md: ok\n")


def test_untracked_never_committed_note_is_unknown(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"new/context.md": "first note"})  # not added: not in the commit
    assert stale(icm, repo)[1] == ("new/context.md: unknown - note never committed\n"
                                   "src/context.md: ok\ntests/context.md: ok\n")
    assert stale(icm, repo, "--strict")[0] == 1


def test_subtree_scope_sees_pending_code_below(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"icm.toml": "stale_scope = 'subtree'\n", "src/sub/z.py": "1",
                  "src/context.md": "covers sub/"}, D9)
    write(repo, {"src/sub/z.py": "2"})
    assert stale(icm, repo)[:2] == (1, PENDING_STALE + "tests/context.md: ok\n")


def test_root_as_subfolder_reads_only_its_own_changes(repo: Path, icm) -> None:
    commit(repo, {"example/src/context.md": "a", "example/src/x.py": "1",
                  "src/context.md": "outer", "src/x.py": "1"}, D1)
    write(repo, {"src/x.py": "2"})  # outside the root: not its business
    assert stale(icm, repo / "example")[:2] == (0, "src/context.md: ok\n")
    write(repo, {"example/src/x.py": "2"})
    assert stale(icm, repo / "example")[:2] == (1, PENDING_STALE)


def test_json_codes_and_counts(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2", "tests/context.md": "edited",
                 "tests/test_x.py": "u"})
    code, out, _ = icm("check-stale", "--root", str(repo), "--format", "json")
    doc = json.loads(out)["checks"][0]
    assert code == 1 and doc["data"] == {"stale": 1, "unknown": 0, "ok": 1}
    assert [(f["path"], f["code"], f["severity"], f["message"])
            for f in doc["findings"]] == [
        ("src/context.md", "stale", "error",
         "STALE - code in src changed (uncommitted) after the note"),
        ("tests/context.md", "ok", "info", "ok (pending)")]


def test_check_takes_committed(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2"})
    assert PENDING_STALE in icm("check", "--root", str(repo))[1]
    out = icm("check", "--root", str(repo), "--committed")[1]
    assert "src/context.md: ok\n" in out and "STALE" not in out


# -- through a real pre-commit ----------------------------------------------

ICM = Path(sys.executable).parent / "icm"


# The pre-commit config a user writes to run icm check-stale as the hook.
STALE_HOOK = ("repos:\n- repo: local\n  hooks:\n  - id: icm-check-stale\n"
              "    name: icm check-stale\n"
              f"    entry: {shlex.quote(str(ICM))} check-stale\n"
              "    language: system\n    pass_filenames: false\n"
              "    always_run: true\n")


def _precommit_repo(repo: Path, tmp_path: Path) -> dict:
    """A repository whose pre-commit hook is icm check-stale, as a user sets
    it up; returns the environment to run git and pre-commit in."""
    commit(repo, {".pre-commit-config.yaml": STALE_HOOK, "src/context.md": "why",
                  "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)  # the note is STALE in history now
    return install_hook(repo, tmp_path)


def install_hook(repo: Path, tmp_path: Path) -> dict:
    """``pre-commit install`` in ``repo`` with its own home; the environment
    to run git and pre-commit in (dates pinned at D10)."""
    env = git_env(D10)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("PRE_COMMIT", None)
    run = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo,
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return env


def hooked_commit(repo: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "commit", "-m", "change"], cwd=repo, env=env,
                          capture_output=True, text=True)


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_precommit_passes_the_commit_that_fixes_the_note(repo: Path,
                                                         tmp_path: Path) -> None:
    env = _precommit_repo(repo, tmp_path)
    write(repo, {"src/context.md": "why, reread after x.py v2"})
    git(repo, "add", "src/context.md")
    before = _head(repo)
    done = hooked_commit(repo, env)
    assert done.returncode == 0, done.stdout + done.stderr
    # git hands a hook's output to stderr
    assert done.stderr.startswith("icm check-stale..") and "Passed" in done.stderr
    assert _head(repo) != before


def test_precommit_refuses_a_code_only_commit(repo: Path, tmp_path: Path) -> None:
    env = _precommit_repo(repo, tmp_path)
    write(repo, {"src/context.md": "fixed"})
    git(repo, "add", "-A")
    assert hooked_commit(repo, env).returncode == 0
    write(repo, {"src/x.py": "3"})
    git(repo, "add", "src/x.py")
    before = _head(repo)
    refused = hooked_commit(repo, env)
    assert refused.returncode == 1
    assert refused.stderr.startswith("icm check-stale..")
    assert "Failed\n- hook id: icm-check-stale\n- exit code: 1\n\n" + \
        PENDING_STALE in refused.stderr
    assert _head(repo) == before


def test_precommit_run_sees_the_index_not_the_work_tree(repo: Path,
                                                        tmp_path: Path) -> None:
    env = _precommit_repo(repo, tmp_path)
    write(repo, {"src/x.py": "3"})
    git(repo, "add", "src/x.py")
    write(repo, {"src/context.md": "edited, not staged"})
    # icm alone sees the work tree: the note changed too.
    alone = subprocess.run([str(ICM), "check-stale"], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert (alone.returncode, alone.stdout) == (0, "src/context.md: ok (pending)\n")
    # pre-commit stashes the unstaged note edit: the hook sees the commit.
    hook = subprocess.run([sys.executable, "-m", "pre_commit", "run",
                           "icm-check-stale"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert hook.returncode == 1 and PENDING_STALE in hook.stdout
    assert (repo / "src" / "context.md").read_text() == "edited, not staged"
    git(repo, "add", "src/context.md")
    hook = subprocess.run([sys.executable, "-m", "pre_commit", "run",
                           "icm-check-stale"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert hook.returncode == 0, hook.stdout
