"""A change to test files alone moves no note's code (issue 24, round 5: five
of nine true STALE notes were moved by tests alone), in history and pending,
unless the note's code is all tests (a ``tests/`` folder's own note);
``stale_tests = "code"`` turns it off."""

from pathlib import Path

import pytest

from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"

NOTE = "# pkg\n\nWhy the parser keeps\nthe raw rows.\n"
OK = "pkg/context.md: ok\n"


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def moved(days: int, folder: str = "pkg") -> str:
    return (f"{folder}/context.md: STALE - code in {folder} moved {days} day"
            + "s" * (days != 1) + " after the note\n")


TESTS = ["pkg/rows_test.go", "pkg/test_rows.py", "pkg/rows_test.py",
         "pkg/conftest.py", "pkg/rows.test.ts", "pkg/rows.spec.js",
         "pkg/rows_spec.rb", "pkg/RowsTest.java", "pkg/RowsTests.cs"]


@pytest.mark.parametrize("path", TESTS)
def test_a_test_only_commit_moves_no_code(repo: Path, icm, path) -> None:
    commit(repo, {"pkg/context.md": NOTE, "pkg/rows.py": "1", path: "a"}, D1)
    commit(repo, {path: "a b"}, D5, "test: t.Parallel()")
    assert stale(icm, repo) == (0, OK, "")


def test_a_test_and_source_commit_is_stale(repo: Path, icm) -> None:
    commit(repo, {"pkg/context.md": NOTE, "pkg/rows.go": "1",
                  "pkg/rows_test.go": "a"}, D1)
    commit(repo, {"pkg/rows.go": "2", "pkg/rows_test.go": "a b"}, D5)
    assert stale(icm, repo) == (1, moved(4), "")


def test_the_days_are_the_newest_source_commits(repo: Path, icm) -> None:
    """A test-only commit after a source one: STALE from the source's date."""
    commit(repo, {"pkg/context.md": NOTE, "pkg/rows.go": "1",
                  "pkg/rows_test.go": "a"}, D1)
    commit(repo, {"pkg/rows.go": "2"}, D5)
    commit(repo, {"pkg/rows_test.go": "a b"}, D9)
    assert stale(icm, repo) == (1, moved(4), "")


def test_a_tests_folders_own_note_describes_tests(repo: Path, icm) -> None:
    """A note whose code is all tests keeps them as code."""
    commit(repo, {"tests/context.md": NOTE, "tests/test_rows.py": "a",
                  "tests/conftest.py": "b", "tests/yarn.lock": "c"}, D1)
    commit(repo, {"tests/test_rows.py": "a b"}, D5)
    assert stale(icm, repo) == (1, moved(4, "tests"), "")


def test_a_go_package_of_tests_only_keeps_them(repo: Path, icm) -> None:
    commit(repo, {"e2e_pkg/context.md": NOTE, "e2e_pkg/api_test.go": "a"}, D1)
    commit(repo, {"e2e_pkg/api_test.go": "a b"}, D5)
    assert stale(icm, repo) == (1, moved(4, "e2e_pkg"), "")


def test_pending_test_only_change_moves_no_code(repo: Path, icm) -> None:
    commit(repo, {"pkg/context.md": NOTE, "pkg/rows.go": "1",
                  "pkg/rows_test.go": "a"}, D1)
    write(repo, {"pkg/rows_test.go": "a b", "pkg/new_test.go": "c"})
    git(repo, "add", "pkg/new_test.go")
    assert stale(icm, repo) == (0, OK, "")
    write(repo, {"pkg/rows.go": "2"})
    assert stale(icm, repo) == (
        1, "pkg/context.md: STALE - code in pkg changed (uncommitted) after the "
        "note\n", "")


def test_a_test_folder_under_a_subtree_note(repo: Path, icm) -> None:
    commit(repo, {"icm.toml": 'stale_scope = "subtree"\n', "pkg/context.md": NOTE,
                  "pkg/rows.py": "1", "pkg/tests/helpers.py": "a",
                  "pkg/testdata/rows.csv": "x"}, D1)
    commit(repo, {"pkg/tests/helpers.py": "a b", "pkg/testdata/rows.csv": "y"},
           D5)
    assert stale(icm, repo) == (0, OK, "")


def test_stale_tests_code_turns_it_off(repo: Path, icm) -> None:
    commit(repo, {"icm.toml": 'stale_tests = "code"\n', "pkg/context.md": NOTE,
                  "pkg/rows.go": "1", "pkg/rows_test.go": "a"}, D1)
    commit(repo, {"pkg/rows_test.go": "a b"}, D5)
    assert stale(icm, repo) == (1, moved(4), "")
    write(repo, {"icm.toml": 'stale_tests = "ignore"\n'})
    assert stale(icm, repo) == (0, OK, "")


def test_a_deleted_test_file_stays_code(repo: Path, icm) -> None:
    """A folder keeps its newest deletion only: it may stand for a source
    file deleted before it."""
    commit(repo, {"pkg/context.md": NOTE, "pkg/rows.go": "1", "pkg/old.go": "2",
                  "pkg/rows_test.go": "a"}, D1)
    git(repo, "rm", "-q", "pkg/old.go")
    commit(repo, {}, D5, "drop old")
    git(repo, "rm", "-q", "pkg/rows_test.go")
    commit(repo, {}, D9, "drop a test")
    assert stale(icm, repo)[0] == 1


def test_stale_tests_is_validated(repo: Path, icm) -> None:
    commit(repo, {"icm.toml": 'stale_tests = "off"\n', "pkg/context.md": NOTE,
                  "pkg/rows.go": "1"}, D1)
    assert stale(icm, repo) == (2, "", "icm: icm.toml: key 'stale_tests' must be "
                                "'code' or 'ignore', got 'off'\n")
