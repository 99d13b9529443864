"""The history pass's form (issue 16): no pathspec at the top level, the
pathspec under a subfolder, and the same facts from either form."""

from pathlib import Path
from typing import Dict, Tuple

import pytest

from icm import git as icm_git
from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"


def history(root: Path, mode: str,
            at_top: bool) -> Dict[bytes, Tuple[int, bytes, int]]:
    """The pass in the given form, parsed as icm parses it."""
    _, out, _ = icm_git.run(icm_git.history_command(mode, at_top), root)
    return icm_git._parse_history(iter([out]))


def busy_history(repo: Path) -> None:
    """Empty commits, a merge that changes a file itself, a merge that keeps
    the first parent's tree (its side branch is seen only by "all"), odd
    names, and files outside the subfolder ``sub``."""
    commit(repo, {"sub/context.md": "a", "sub/x.py": "1", "top.py": "t",
                  "sub/sp ace/ü\nnew": "n"}, D1)
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty", when=D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"sub/y.py": "side", "other.txt": "o"}, D5)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-s", "ours", "-m", "keep ours", "side",
        when=D5)
    git(repo, "checkout", "-q", "-b", "side2")
    commit(repo, {"sub/z.py": "2"}, D9)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side2")
    write(repo, {"sub/x.py": "changed in the merge only", "top.py": "t2"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "merge", when=D9)
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty", when=D9)


def test_top_level_takes_no_pathspec_and_a_subfolder_does(repo: Path) -> None:
    commit(repo, {"sub/x.py": "1"}, D1)
    assert icm_git.at_top_level(repo)
    assert not icm_git.at_top_level(repo / "sub")
    for mode in ("first-parent", "all"):
        assert "--" not in icm_git.history_command(mode, True)
        assert icm_git.history_command(mode, False)[-3:] == ["--relative", "--", "."]
    assert "--full-history" in icm_git.history_command("all", False)


@pytest.mark.parametrize("mode", ["first-parent", "all"])
def test_both_forms_give_the_same_facts(repo: Path, mode: str) -> None:
    busy_history(repo)
    top = history(repo, mode, True)
    # The pathspec form run from the top level is the old command: same facts.
    assert history(repo, mode, False) == top
    # From the subfolder: exactly the top level's facts under it, re-rooted.
    assert history(repo / "sub", mode, False) == {
        path[len(b"sub/"):]: seen for path, seen in top.items()
        if path.startswith(b"sub/")}
    pass_ = icm_git.HistoryPass(repo, mode)
    assert pass_.result() == top


def test_all_sees_a_side_branch_a_merge_dropped(repo: Path) -> None:
    busy_history(repo)
    commits = {"first-parent": history(repo, "first-parent", True),
               "all": history(repo, "all", True)}
    assert b"sub/y.py" not in commits["first-parent"]
    assert b"sub/y.py" in commits["all"]
    assert history(repo / "sub", "all", False)[b"y.py"] == commits["all"][b"sub/y.py"]


@pytest.mark.parametrize("mode", ["first-parent", "all"])
def test_both_forms_agree_on_a_branch_judged_against_its_base(repo: Path,
                                                              mode: str) -> None:
    """The branch's own commits (everything after the first commit here)
    under the pathspec too: the merge that kept its first parent's tree
    must not hide its side branch's ``sub/y.py`` (``--full-history``)."""
    busy_history(repo)
    base = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    top = icm_git.HistoryPass(repo, mode, base=base).result()
    assert b"sub/y.py" in top
    assert icm_git.HistoryPass(repo / "sub", mode, base=base).result() == {
        path[len(b"sub/"):]: seen for path, seen in top.items()
        if path.startswith(b"sub/")}
