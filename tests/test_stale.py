"""check-stale against real throw-away repositories with pinned dates."""

import subprocess
from pathlib import Path

import pytest

from icm.checks.stale import describe
from tests.conftest import commit, git, git_env, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def test_seed_lines(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "why", "src/cleaner.py": "v1",
                  "tests/context.md": "why", "tests/test_x.py": "t"}, D1)
    commit(repo, {"src/cleaner.py": "v2"}, D9)
    assert stale(icm, repo) == (1, "src/context.md: STALE - code in src moved 8 "
                                   "days after the note\ntests/context.md: ok\n", "")


def test_same_commit_is_ok_and_older_code_is_ok(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")
    commit(repo, {"src/context.md": "b"}, D9)
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")


def test_markdown_siblings_are_prose(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/README.md": "r", "src/notes.markdown": "n",
                  "src/page.mdx": "m"}, D9)
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\n")


@pytest.mark.parametrize("when,words", [
    ("2026-10-02T12:00:00+00:00", "1 day"),
    ("2026-10-03T11:59:59+00:00", "1 day"),
    ("2026-10-01T13:00:00+00:00", "1 hour"),
    ("2026-10-01T17:30:00+00:00", "5 hours"),
    ("2026-10-01T12:59:59+00:00", "less than an hour"),
    ("2026-10-01T12:00:01+00:00", "less than an hour"),
])
def test_wording(repo: Path, icm, when: str, words: str) -> None:
    commit(repo, {"context.md": "a", "x.py": "1"}, D1)
    commit(repo, {"x.py": "2"}, when)
    assert stale(icm, repo)[1] == f"context.md: STALE - code in . moved {words} " \
                                  "after the note\n"


def test_describe() -> None:
    assert [describe(s) for s in (0, 3599, 3600, 7200, 86399, 86400, 172800)] == [
        "less than an hour", "less than an hour", "1 hour", "2 hours", "23 hours",
        "1 day", "2 days"]


def test_subfolders_folder_and_subtree_scope(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1", "src/sub/y.py": "1",
                  "src/own/context.md": "o", "src/own/z.py": "1"}, D1)
    commit(repo, {"src/sub/y.py": "2"}, D9)
    assert stale(icm, repo)[1] == "src/context.md: ok\nsrc/own/context.md: ok\n"
    write(repo, {"icm.toml": "stale_scope = 'subtree'\n"})
    assert stale(icm, repo)[1] == ("src/context.md: STALE - code in src moved 8 days "
                                   "after the note\nsrc/own/context.md: ok\n")
    commit(repo, {"src/context.md": "b"}, D9)
    commit(repo, {"src/own/z.py": "2"}, "2026-10-10T12:00:00+00:00")
    assert stale(icm, repo)[1] == ("src/context.md: ok\nsrc/own/context.md: STALE - "
                                   "code in src/own moved 9 days after the note\n")


def test_unknown_never_committed_and_strict(repo: Path, icm) -> None:
    commit(repo, {"src/x.py": "1"}, D1)
    write(repo, {"src/context.md": "new"})  # untracked: not in any commit
    assert stale(icm, repo) == (0, "src/context.md: unknown - note never "
                                   "committed\n", "")
    assert stale(icm, repo, "--strict")[0] == 1


def test_order_decides_not_the_committer_clock(repo: Path, icm) -> None:
    """A note fixed in a child commit whose clock is skewed earlier is fresh
    (it was STALE for ever, and blocked every later commit in the hook); code
    moved in a child commit dated before the note is STALE all the same."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    commit(repo, {"src/context.md": "b"}, "2026-10-05T12:00:00+00:00")  # skewed
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")
    commit(repo, {"src/x.py": "3"}, "2026-10-02T12:00:00+00:00")  # skewed too
    assert stale(icm, repo) == (
        1, "src/context.md: STALE - code in src moved after the note, in a commit "
           "dated 3 days before it\n", "")
    commit(repo, {"src/context.md": "c"}, "2026-10-02T12:00:00+00:00")  # same second
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\n")


def test_uncommitted_edits(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    write(repo, {"src/context.md": "edited"})
    assert stale(icm, repo)[1] == "src/context.md: ok (pending)\n"
    assert stale(icm, repo, "--committed")[1] == (
        "src/context.md: STALE - code in src moved 8 days after the note "
        "(uncommitted changes)\n")


def test_note_without_code_is_ok(repo: Path, icm) -> None:
    commit(repo, {"docs/context.md": "a", "docs/guide.md": "g"}, D1)
    assert stale(icm, repo)[1] == "docs/context.md: ok\n"


def merge_changing_code(repo: Path, on_main: dict, when: str) -> None:
    """A note and its code, a side branch, ``on_main`` committed on main the
    day before ``when``, then a merge of the side branch that changes
    ``src/x.py`` itself (a conflict resolution), committed at ``when``."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"other.txt": "o"}, "2026-10-02T12:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    commit(repo, on_main, "2026-10-03T12:00:00+00:00")
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side")
    write(repo, {"src/x.py": "changed in the merge"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "merge", when=when)


def test_file_changed_only_by_a_merge(repo: Path, icm) -> None:
    merge_changing_code(repo, {"unrelated.txt": "u"}, D9)
    assert stale(icm, repo)[1] == ("src/context.md: STALE - code in src moved 8 days "
                                   "after the note\n")


def test_a_change_made_and_undone_on_a_side_branch_never_arrived(
        repo: Path, icm) -> None:
    """A file's time is when a change to it arrived on this branch: side
    commits whose change the merge does not bring are not this branch's."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/x.py": "2"}, "2026-10-05T12:00:00+00:00")
    commit(repo, {"src/x.py": "1"}, "2026-10-06T12:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"src/context.md": "b"}, "2026-10-03T12:00:00+00:00")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side",
        when="2026-10-07T12:00:00+00:00")
    assert stale(icm, repo)[1] == "src/context.md: ok\n"


def test_rebased_commit_uses_committer_time(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, "2026-10-05T12:00:00+00:00")
    # Authored long before the note, but it arrived on this branch afterwards.
    commit(repo, {"src/x.py": "2"}, D9, author_date="2026-09-01T00:00:00+00:00")
    assert stale(icm, repo)[1] == ("src/context.md: STALE - code in src moved 4 days "
                                   "after the note\n")


def test_history_all_sees_side_branch_commits(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/x.py": "2"}, D9)
    git(repo, "checkout", "-q", "main")
    commit(repo, {"src/context.md": "b"}, "2026-10-10T12:00:00+00:00")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side",
        when="2026-10-11T12:00:00+00:00")
    assert stale(icm, repo)[1] == ("src/context.md: STALE - code in src moved 1 day "
                                   "after the note\n")
    write(repo, {"icm.toml": "stale_history = 'all'\n"})
    assert stale(icm, repo)[1] == "src/context.md: ok\n"


def test_history_all_follows_ancestry_before_dates(repo: Path, icm) -> None:
    """Hostile round 2: with "all", a note fixed on a branch dated in the past
    read as older than the code (log's date order), where first-parent
    history answered right. A descendant is newer than its ancestors;
    unrelated commits still go by date (test above)."""
    write(repo, {"icm.toml": "stale_history = 'all'\n"})
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, "2026-10-02T12:00:00+00:00")
    git(repo, "checkout", "-q", "-b", "fix")
    commit(repo, {"src/context.md": "c"}, "2020-01-01T12:00:00+00:00")  # skewed
    git(repo, "checkout", "-q", "main")
    commit(repo, {"other.txt": "o"}, "2026-10-05T12:00:00+00:00")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge fix", "fix",
        when="2026-10-06T12:00:00+00:00")
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\n")


def test_a_merges_own_change_is_seen_by_first_parent_history(repo: Path,
                                                             icm) -> None:
    """A conflict resolution (code changed in the merge commit itself): the
    default first-parent history sees it; "all" lists nothing for a merge
    (its combined diff cost 60% of the pass), as docs/configuration.md says."""
    merge_changing_code(repo, {"src/context.md": "b"}, "2026-10-04T12:00:00+00:00")
    assert stale(icm, repo)[:2] == (
        1, "src/context.md: STALE - code in src moved 1 day after the note\n")
    write(repo, {"icm.toml": "stale_history = 'all'\n"})
    assert stale(icm, repo)[:2] == (0, "src/context.md: ok\n")


def test_empty_repository(repo: Path, icm) -> None:
    write(repo, {"src/context.md": "a", "src/x.py": "1"})
    git(repo, "add", "-A")
    assert stale(icm, repo) == (0, "src/context.md: unknown - note never "
                                   "committed\n", "")


def test_detached_head(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    git(repo, "checkout", "-q", "--detach", "HEAD")
    assert stale(icm, repo)[0] == 1


def test_not_a_repository(tmp_path: Path, icm) -> None:
    write(tmp_path, {"context.md": "a"})
    code, out, err = stale(icm, tmp_path)
    assert (code, out) == (2, "")
    assert err == f"icm: {tmp_path} is not inside a git repository (check-stale " \
                  "reads git history)\n"


def test_git_missing(repo: Path, icm, monkeypatch) -> None:
    commit(repo, {"context.md": "a"}, D1)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert stale(icm, repo) == (2, "", "icm: git is not installed or not on PATH\n")


def test_root_as_subfolder(repo: Path, icm) -> None:
    commit(repo, {"example/src/context.md": "a", "example/src/x.py": "1",
                  "example/AGENTS.md": "h", "src/context.md": "outer"}, D1)
    commit(repo, {"example/src/x.py": "2"}, D9)
    assert stale(icm, repo / "example") == (
        1, "src/context.md: STALE - code in src moved 8 days after the note\n", "")


def test_odd_file_names(repo: Path, icm) -> None:
    odd = "sp ace/qu\"ote/ünï/new\nline"
    commit(repo, {f"{odd}/context.md": "a", f"{odd}/-dash 'x'.py": "1"}, D1)
    commit(repo, {f"{odd}/-dash 'x'.py": "2"}, D9)
    shown = odd.replace("\n", "\\n")  # a newline in a name is shown escaped
    assert stale(icm, repo)[1] == (f"{shown}/context.md: STALE - code in {shown} "
                                   "moved 8 days after the note\n")


def test_renames_are_not_followed(repo: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/old.py": "x" * 200}, D1)
    git(repo, "mv", "src/old.py", "src/new.py")
    git(repo, "commit", "-q", "-m", "rename", when=D9)
    assert stale(icm, repo)[1] == ("src/context.md: STALE - code in src moved 8 days "
                                   "after the note\n")


def _shallow_clone(repo: Path, tmp_path: Path) -> Path:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}",
                    str(clone)], check=True, env=git_env())
    return clone


def test_shallow_clone_refused_and_override(repo: Path, tmp_path: Path, icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1", "lib/context.md": "l",
                  "lib/y.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    clone = _shallow_clone(repo, tmp_path)
    code, out, err = stale(icm, clone)
    assert (code, out) == (2, "")
    assert err == ("icm: shallow clone: history is cut, so every note would look "
                   "fresh; fetch full history (actions/checkout 'fetch-depth: 0', or "
                   "'git fetch --unshallow'), or pass --allow-shallow\n")
    assert stale(icm, clone, "--allow-shallow") == (0, (
        "lib/context.md: unknown (shallow) - history before the shallow boundary "
        "is missing\nsrc/context.md: unknown (shallow) - history before the "
        "shallow boundary is missing\n"), "")


def test_hook_environment_is_scrubbed(repo: Path, icm, monkeypatch, tmp_path) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    assert stale(icm, repo)[0] == 1


# -- verdicts after the merge (issue 22, item 12) -----------------------------

D2 = "2026-10-02T12:00:00+00:00"
D3 = "2026-10-03T12:00:00+00:00"
D4 = "2026-10-04T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
NOTE, CODE = {"src/context.md": "b"}, {"src/x.py": "2"}
NOTE_THEN_CODE = ("src/context.md: STALE - code in src moved 1 day after the "
                  "note\n")


def pull_request(repo: Path, first: dict, second: dict) -> None:
    """main: a note and its code; branch ``pr``: ``first``, then ``second``;
    main moves on meanwhile (another file), so no merge is a fast-forward.
    HEAD ends on ``pr``."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, first, D2, "first")
    commit(repo, second, D3, "second")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"other.txt": "o"}, D4, "main moves on")
    git(repo, "checkout", "-q", "pr")


def merge_ref(repo: Path) -> None:
    """HEAD as GitHub builds ``refs/pull/N/merge``: a merge commit of the
    pull request's head into the base's tip, checked out detached."""
    git(repo, "checkout", "-q", "--detach", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge pr into main", "pr", when=D5)


def merged(repo: Path, strategy: str) -> None:
    """Merge ``pr`` into main as GitHub's button would, HEAD on main."""
    git(repo, "checkout", "-q", "main")
    if strategy == "rebase":  # replayed on main, each commit kept
        git(repo, "rebase", "-q", "--committer-date-is-author-date", "main", "pr",
            when=D5)
        git(repo, "checkout", "-q", "main")
        git(repo, "merge", "-q", "--ff-only", "pr")
    elif strategy == "squash":
        git(repo, "merge", "-q", "--squash", "pr")
        git(repo, "commit", "-q", "-m", "pr (#1)", when=D5)
    else:
        git(repo, "merge", "-q", "--no-ff", "-m", "Merge pr", "pr", when=D5)


@pytest.mark.parametrize("strategy,want", [
    ("merge", (0, "src/context.md: ok\n", "")),
    ("squash", (0, "src/context.md: ok\n", "")),
    ("rebase", (1, NOTE_THEN_CODE, "")),
])
def test_ci_on_the_merge_ref_gives_the_strictest_verdict_after_merging(
        repo: Path, icm, monkeypatch, strategy: str, want: tuple) -> None:
    """A pull request that changes the note, then its code: the merge ref's
    first-parent history folds both into one commit (a tie, ok), where
    "Rebase and merge" leaves main STALE. With the base known, CI judges
    the commits in their own order: the verdict of the strictest merge."""
    pull_request(repo, NOTE, CODE)
    merge_ref(repo)
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")  # the fold
    assert stale(icm, repo, "--base", "main") == (1, NOTE_THEN_CODE, "")
    monkeypatch.setenv("ICM_BASE", "main")
    assert stale(icm, repo) == (1, NOTE_THEN_CODE, "")
    assert NOTE_THEN_CODE in icm("check", "--root", str(repo))[1]
    monkeypatch.delenv("ICM_BASE")
    merged(repo, strategy)
    assert stale(icm, repo) == want


@pytest.mark.parametrize("strategy", ["merge", "squash", "rebase"])
def test_code_then_note_is_ok_in_ci_and_after_every_merge(
        repo: Path, icm, strategy: str) -> None:
    pull_request(repo, CODE, NOTE)
    merge_ref(repo)
    assert stale(icm, repo, "--base", "main") == (0, "src/context.md: ok\n", "")
    merged(repo, strategy)
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")


def test_a_merge_of_the_base_into_the_branch_is_not_the_branchs_change(
        repo: Path, icm) -> None:
    """The branch merges main (which changed the code) after fixing the
    note: a rebase drops that merge and replays the note on main's code, so
    the note is fresh; the merge's first-parent diff would date main's code
    change at the merge, after the note."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, NOTE, D2, "note")
    git(repo, "checkout", "-q", "main")
    commit(repo, CODE, D3, "code on main")
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge main", "main", when=D4)
    assert stale(icm, repo)[:2] == (1, NOTE_THEN_CODE.replace("1 day", "2 days"))
    assert stale(icm, repo, "--base", "main") == (0, "src/context.md: ok\n", "")
    merged(repo, "rebase")
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")


def test_a_branch_behind_its_base(repo: Path, icm) -> None:
    """The base's commits since the fork come before the branch's, as a
    rebase puts them: the note fixed on the branch is newer than code main
    changed later by the clock; and the base's commits are not the
    branch's (a symmetric range would put main's code on top)."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, NOTE, D2, "note")
    git(repo, "checkout", "-q", "main")
    commit(repo, CODE, D3, "code on main")
    git(repo, "checkout", "-q", "pr")
    assert stale(icm, repo, "--base", "main") == (0, "src/context.md: ok\n", "")
    merged(repo, "rebase")
    assert stale(icm, repo) == (0, "src/context.md: ok\n", "")
    # A branch with nothing of its own is judged as its base reads.
    git(repo, "checkout", "-q", "-b", "late", "HEAD~2")
    commit(repo, {"src/x.py": "3"}, D5, "more code on main")
    git(repo, "checkout", "-q", "-b", "idle", "HEAD~1")
    assert stale(icm, repo, "--base", "late") == (
        1, "src/context.md: STALE - code in src moved 4 days after the note\n",
        "")


def test_a_subfolder_root_judges_the_branch_alike(repo: Path, icm) -> None:
    commit(repo, {"app/AGENTS.md": "h", "app/src/context.md": "a",
                  "app/src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, {"app/src/context.md": "b"}, D2, "first")
    commit(repo, {"app/src/x.py": "2"}, D3, "second")
    merge_ref(repo)
    assert stale(icm, repo / "app") == (0, "src/context.md: ok\n", "")
    assert stale(icm, repo / "app", "--base", "main") == (1, NOTE_THEN_CODE, "")


@pytest.mark.parametrize("ref", ["nope", "--output=x", "-o", "main:src"])
def test_a_base_that_names_no_commit_is_one_line_and_exit_2(
        repo: Path, icm, monkeypatch, ref: str) -> None:
    """As ``--against REF`` is for the queue: a named base that is not
    there (not fetched, misspelt) stops the run, never a quiet fall back
    to the merge ref's fold; an option-shaped name is data."""
    pull_request(repo, NOTE, CODE)
    assert stale(icm, repo, f"--base={ref}") == (
        2, "", f"icm: --base/--against {ref}: names no commit\n")
    assert icm("check", f"--against={ref}", "--root", str(repo)) == (
        2, "", f"icm: --base/--against {ref}: names no commit\n")
    monkeypatch.setenv("ICM_BASE", ref)
    want = (2, "", f"icm: ICM_BASE {ref}: names no commit (fetch it, or unset "
            "ICM_BASE)\n")
    assert stale(icm, repo) == want
    assert icm("check", "--root", str(repo)) == want
    assert sorted(p.name for p in repo.iterdir()) == [".git", "src"]
    monkeypatch.setenv("ICM_BASE", "")  # the action's value off pull requests
    assert stale(icm, repo) == (1, NOTE_THEN_CODE, "")


def _git_processes(monkeypatch) -> list:
    """The argv of every process icm starts from here on (GitPython's own
    are its business: no history there)."""
    started: list = []
    real = subprocess.Popen

    class Recorded(real):  # type: ignore[misc, valid-type]
        def __init__(self, args, *rest, **kwargs):
            started.append(list(args))
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    return started


def test_the_pass_is_one_git_process_per_fact(repo: Path, icm,
                                              monkeypatch) -> None:
    """With a base: one log of the branch's own commits, one of the base's,
    whatever the size of either; without one, the one log of HEAD. The
    words of the deciding commits are one more log (``--no-walk``) and one
    ``cat-file``, at either size (a note added by its deciding commit has
    no blob to read: each size also rewords one)."""
    commit(repo, {"g0/context.md": "0", "g0/x.py": "0"}, D1)
    counts = []
    for size in (1, 12):
        commit(repo, {f"f{size}/context.md": "a", f"f{size}/x.py": "1"}, D1)
        git(repo, "checkout", "-q", "-B", "pr")
        for i in range(size):
            commit(repo, {f"g{i}/x.py": str(size), f"g{i}/context.md": str(size)},
                   D2)
        git(repo, "checkout", "-q", "-B", "base", "HEAD~1")
        git(repo, "checkout", "-q", "pr")
        started = _git_processes(monkeypatch)
        assert stale(icm, repo, "--base", "base")[0] == 0
        logs = [argv[argv.index("log"):] for argv in started if "log" in argv]
        assert [argv[1] for argv in logs] == ["--topo-order", "--first-parent",
                                              "--no-walk=unsorted"]
        counts.append(len(started))
        started.clear()
        assert stale(icm, repo)[0] == 0
        assert [argv[argv.index("log") + 1] for argv in started
                if "log" in argv] == ["--first-parent", "--no-walk=unsorted"]
        monkeypatch.undo()
    assert counts[0] == counts[1]
