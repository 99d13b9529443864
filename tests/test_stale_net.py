"""Net of every commit since the note, code that holds its tokens moved none
(issue 24, round 6: blueprint's crates where a workspace-hack dependency was
added and dropped again around release bumps). Each commit of such a history
changes a token; HEAD's code holds what it held at the note's commit."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from icm.checks import stale as stale_mod
from tests.conftest import commit, git
from tests.test_stale import _git_processes
from tests.test_stale_releases import (
    D1,
    D5,
    D9,
    D10,
    NOTE,
    OK,
    cargo_toml,
    moved,
    stale,
)

HACK = 'workspace-hack = "0.1"\n'


def crate(repo: Path) -> None:
    commit(repo, {"pkg/context.md": NOTE, "pkg/Cargo.toml": cargo_toml("0.1.0"),
                  "pkg/lib.rs": "fn rows() {}\n"}, D1)


def test_a_dependency_added_and_dropped_moves_no_code(repo: Path, icm) -> None:
    crate(repo)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1") + HACK}, D5)
    assert stale(icm, repo) == (1, moved(4), "")
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.2.0")}, D9)
    assert stale(icm, repo) == (0, OK, "")


def test_code_changed_and_changed_back_moves_none(repo: Path, icm) -> None:
    """A file edited and reverted, one added and removed: the net is none."""
    crate(repo)
    commit(repo, {"pkg/lib.rs": "fn rows() { todo!() }\n", "pkg/tmp.rs": "x"}, D5)
    git(repo, "rm", "-q", "pkg/tmp.rs")
    commit(repo, {"pkg/lib.rs": "fn rows() {}\n"}, D9)
    assert stale(icm, repo) == (0, OK, "")


def test_a_net_change_of_code_is_stale_with_its_commit_date(repo: Path,
                                                           icm) -> None:
    """The dependency stays: the newest commit that moved a token decides."""
    crate(repo)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.0") + HACK}, D5)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1") + HACK}, D9)
    assert stale(icm, repo) == (1, moved(4), "")


def test_a_file_deleted_since_moves_code(repo: Path, icm) -> None:
    crate(repo)
    commit(repo, {"pkg/old.rs": "fn old() {}\n"}, D1)
    commit(repo, {"pkg/context.md": NOTE + "\nOld rows.\n"}, D1)
    git(repo, "rm", "-q", "pkg/old.rs")
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1")}, D5)
    assert stale(icm, repo) == (1, moved(4), "")


def test_a_nested_notes_code_is_its_own(repo: Path, icm) -> None:
    """Code under a subfolder's note moves that note, never the parent's:
    the parent's own code (its manifest) changed only its version."""
    crate(repo)
    commit(repo, {"pkg/src/context.md": "# src\n\nRows.\n",
                  "pkg/src/a.rs": "fn a() {}\n"}, D1)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1") + HACK,
                  "pkg/src/a.rs": "fn a() { b() }\n"}, D5)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.2")}, D9)
    assert stale(icm, repo) == (
        1, "pkg/context.md: ok\npkg/src/context.md: STALE - code in pkg/src "
        "moved 4 days after the note\n", "")


def test_a_wordless_note_change_keeps_its_verdict(repo: Path, icm) -> None:
    """Net of the note's last commit nothing moved, but that commit changed
    no word: the code it came after decides, as for a release bump."""
    crate(repo)
    commit(repo, {"pkg/lib.rs": "fn rows() -> u8 { 0 }\n"}, D5)
    commit(repo, {"pkg/context.md": NOTE + "\n"}, D9)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1") + HACK}, D10)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.2")}, D10)
    assert stale(icm, repo)[0] == 1


def test_against_a_base_both_ends_must_hold(repo: Path, icm) -> None:
    """A branch behind its base: HEAD's code is the note's, the base's is
    not, and a rebase lays the branch on the base."""
    crate(repo)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "idle")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.1.1") + HACK}, D5)
    git(repo, "checkout", "-q", "idle")
    assert stale(icm, repo, "--base", "main") == (1, moved(4), "")
    assert stale(icm, repo) == (0, OK, "")


def test_past_the_cap_a_note_keeps_its_verdict(repo: Path, icm,
                                                monkeypatch) -> None:
    """Only the ``NET_CAP`` newest note commits are read: the older note
    stays STALE, the newer one is cleared, in one diff-tree."""
    monkeypatch.setattr(stale_mod, "NET_CAP", 1)
    for name, when in (("a", D1), ("b", D5)):
        commit(repo, {f"{name}/context.md": NOTE,
                      f"{name}/Cargo.toml": cargo_toml("0.1.0")}, when)
    commit(repo, {f"{n}/Cargo.toml": cargo_toml("0.1.0") + HACK for n in "ab"},
           D9)
    commit(repo, {f"{n}/Cargo.toml": cargo_toml("0.1.1") for n in "ab"}, D10)
    started = _git_processes(monkeypatch)
    assert stale(icm, repo) == (
        1, "a/context.md: STALE - code in a moved 9 days after the note\n"
        "b/context.md: ok\n", "")
    assert sum("diff-tree" in argv for argv in started) == 1


def test_net_changes_reads_every_commit_in_one_process(repo: Path) -> None:
    from icm import git as git_mod

    commit(repo, {"a/x.rs": "1", "b/y.rs": "1"}, D1)
    first = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"a/x.rs": "2"}, D5)
    second = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"b/y.rs": "2", "c/z.rs": "1"}, D9)
    head = git(repo, "rev-parse", "HEAD").strip()
    found = git_mod.net_changes(repo, [first, second, "HEAD~1"], head, ["a", "b"])
    assert sorted(found) == [first, second]
    assert [c[0] for c in found[first]] == ["a/x.rs", "b/y.rs"]
    assert [c[0] for c in found[second]] == ["b/y.rs"]
    assert found[second][0][1] != found[second][0][2]


def test_net_changes_keeps_odd_names(repo: Path) -> None:
    """A name that looks like a hash, or holds a newline or a colon, is a
    path: it comes after its record."""
    from icm import git as git_mod

    odd = ["0" * 40, "a\nb.rs", ":x 1.rs"]
    commit(repo, {name: "1" for name in odd}, D1)
    first = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {name: "2" for name in odd}, D5)
    head = git(repo, "rev-parse", "HEAD").strip()
    found = git_mod.net_changes(repo, [first], head, ["."])
    assert sorted(c[0] for c in found[first]) == sorted(odd)


EVENTS = st.lists(st.tuples(st.sampled_from([None, "word", "space"]),
                            st.sampled_from([None, "0", "1", "2"])), max_size=6)


@settings(max_examples=20, deadline=None)
@given(EVENTS)
def test_ok_exactly_when_words_follow_the_code_or_it_came_back(tmp_path_factory,
                                                               events) -> None:
    """Random histories of note edits (a word, or whitespace only) and code
    that may return to a value it had: ok exactly when the note's last change
    of words is no older than the code's last change, or when that change is
    the note's last commit and the code holds at HEAD what it held there."""
    from icm.cli import main

    root = tmp_path_factory.mktemp("net")
    git(root, "init", "-q")
    words, blank, value = ["why"], 0, "0"
    commit(root, {"src/context.md": "why\n", "src/x.py": "0"}, D1)
    last_word = last_note = last_code = 0
    held = {0: "0"}  # the code's value after each commit
    for i, (note, code) in enumerate(events, 1):
        if note == "word":
            words.append(f"w{i}")
            last_word = last_note = i
        elif note == "space":
            blank = (blank + 1) % 3
            last_note = i
        files = {"src/context.md": " ".join(words) + "\n" * (1 + blank)} \
            if note else {}
        if code is not None and code != value:
            value, last_code, files["src/x.py"] = code, i, code
        held[i] = value
        commit(root, files, D5)
    ok = last_word >= last_code or (
        last_note == last_word and held[last_note] == value)
    assert main(["check-stale", "--root", str(root)]) == (0 if ok else 1)
