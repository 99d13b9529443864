"""What changed under a note does not set the STALE finding's severity.

Issue 24's labels (``bench/stale_classes.py``): actionable and noise
STALE notes fall alike in every class of change (files added only, files
the note names modified, files it does not name modified), so no class is
reported below the seed's error: each case here is the seed's line byte
for byte, in history and pending, with code ``stale/stale``."""

import json
from pathlib import Path

import pytest

from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
NOTE = "`cleaner.py` holds `Cleaner`; see [the parser](parse.py).\n"
CODE = {"src/context.md": NOTE, "src/cleaner.py": "class Cleaner: pass\n",
        "src/parse.py": "def parse(): pass\n", "src/other.py": "x = 1\n"}
CHANGES = {
    "added-only": {"src/new.py": "y = 2\n"},
    "named-changed": {"src/parse.py": "def parse(text): pass\n"},
    "named-gone": {"src/parse.py": None},
    "span-gone": {"src/cleaner.py": "class Scrubber: pass\n"},
    "unnamed-changed": {"src/other.py": "x = 3\n"},
}
HISTORY = "src/context.md: STALE - code in src moved 8 days after the note\n"
PENDING = "src/context.md: STALE - code in src changed (uncommitted) after the note\n"


def _change(root: Path, kind: str) -> None:
    for rel, text in CHANGES[kind].items():
        if text is None:
            (root / rel).unlink()
        else:
            write(root, {rel: text})
    git(root, "add", "-A")  # what the commit being made holds


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_every_kind_of_change_is_the_seeds_stale_error(repo: Path, icm,
                                                       kind: str) -> None:
    commit(repo, CODE, D1)
    _change(repo, kind)
    assert icm("check-stale", "--root", str(repo)) == (1, PENDING, "")
    commit(repo, {}, D9)
    assert icm("check-stale", "--root", str(repo)) == (1, HISTORY, "")
    assert icm("check-stale", "--root", str(repo), "--format", "concise") == (
        1, "src/context.md:1:1: stale/stale " + HISTORY.split(": ", 1)[1], "")
    code, out, _ = icm("check-stale", "--root", str(repo), "--format", "json")
    found = json.loads(out)["checks"][0]["findings"]
    assert (code, [(f["code"], f["severity"], f["text"]) for f in found]) == (
        1, [("stale", "error", HISTORY.rstrip("\n"))])
    code, out, _ = icm("check-stale", "--root", str(repo), "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert (code, [(r["ruleId"], r["level"]) for r in results]) == (
        1, [("stale/stale", "error")])


def test_a_deleted_file_is_a_change_of_its_folders_code_once_committed(
        repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/a.py": "1", "src/old/b.py": "2",
                  "src/README.md": "r", "src/yarn.lock": "l", "vendor/v.py": "v",
                  "sub/icm.toml": "", "sub/c.py": "3", "context.md": "root",
                  "icm.toml": 'stale_scope = "subtree"\nexclude = ["vendor"]\n'},
           D1)
    # prose, a lockfile, an excluded path and a nested root's file: no code
    for gone in ("src/README.md", "src/yarn.lock", "vendor/v.py", "sub/c.py"):
        (repo / gone).unlink()
    commit(repo, {}, D9)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "context.md: ok\nsrc/context.md: ok\n", "")
    (repo / "src/old/b.py").unlink()  # a subfolder with no note of its own
    commit(repo, {}, "2026-10-10T12:00:00+00:00")
    assert icm("check-stale", "--root", str(repo)) == (
        1, "context.md: ok\nsrc/context.md: STALE - code in src moved 9 days "
        "after the note\n", "")
    commit(repo, {"src/context.md": "b"}, "2026-10-11T12:00:00+00:00")
    assert icm("check-stale", "--root", str(repo))[:2] == (
        0, "context.md: ok\nsrc/context.md: ok\n")


def test_a_later_deleted_page_hides_no_deleted_code(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/a.py": "1", "src/b.py": "2",
                  "src/guide.md": "g"}, D1)
    (repo / "src/a.py").unlink()
    commit(repo, {}, D9)
    (repo / "src/guide.md").unlink()  # the folder's newest deletion: prose
    commit(repo, {}, "2026-10-10T12:00:00+00:00")
    assert icm("check-stale", "--root", str(repo)) == (
        1, "src/context.md: STALE - code in src moved 8 days after the note\n", "")


def test_all_history_counts_no_file_a_side_branch_added_and_removed(
        repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/a.py": "1",
                  "icm.toml": 'stale_history = "all"\n'}, D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/x.py": "x"}, D9)
    (repo / "src/x.py").unlink()
    commit(repo, {}, D9)  # undone before the merge: never arrived
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side", when=D9)
    assert icm("check-stale", "--root", str(repo)) == (0, "src/context.md: ok\n", "")
