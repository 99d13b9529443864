"""check-stale certifies something (issue 24, items 3 and 4): what counts as
code (``stale_ignore``), and a note changes only when a word of it does,
in the work tree and in history; ``icm review`` is the review. The last
tests run the gate through a real ``pre-commit``."""

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm.checks import stale as stale_mod
from icm.config import DEFAULT_STALE_IGNORE
from tests.conftest import commit, git, write
from tests.test_stale import _git_processes
from tests.test_stale_pending import ICM, STALE_HOOK, hooked_commit, install_hook

D1 = "2026-10-01T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
D10 = "2026-10-10T12:00:00+00:00"

OK = "src/context.md: ok\n"
SEED_STALE = "src/context.md: STALE - code in src moved 8 days after the note\n"
WORDLESS = "src/context.md: STALE - code in src moved, and no word of the note " \
           "changed since\n"
PENDING_STALE = "src/context.md: STALE - code in src changed (uncommitted) after " \
                "the note\n"
NOTE = "# src\n\nWhy the cleaner keeps\nthe raw rows.\n"


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def fresh(repo: Path) -> None:
    commit(repo, {"src/context.md": NOTE, "src/x.py": "1"}, D1)


# -- what counts as code ---------------------------------------------------------

@pytest.mark.parametrize("path", [
    "src/package-lock.json", "src/yarn.lock", "src/pnpm-lock.yaml", "src/uv.lock",
    "src/poetry.lock", "src/Cargo.lock", "src/go.sum", "src/Gemfile.lock",
    "src/flake.lock", "src/bun.lockb"])
def test_a_lockfile_only_commit_moves_no_code(repo: Path, icm, path: str) -> None:
    fresh(repo)
    commit(repo, {path: "v1"}, D5)
    commit(repo, {path: "v2"}, D9)  # a dependabot bump, alone
    assert stale(icm, repo) == (0, OK, "")
    write(repo, {path: "v3"})  # pending, too
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("path", [
    "src/__snapshots__/cleaner.test.js.snap",  # Jest, Vitest
    "src/tests/snapshots/cleaner__rows.snap",  # insta
    "src/tests/__snapshots__/test_rows.ambr",  # syrupy
    "src/e2e/home.spec.ts-snapshots/home-chromium-linux.png",  # Playwright
    "src/__image_snapshots__/home-snap.png",  # jest-image-snapshot
    "src/Tests/__Snapshots__/HomeTests/home.1.png",  # swift-snapshot-testing
    "src/Rows.verified.txt",  # Verify (.NET)
])
def test_a_snapshot_only_commit_moves_no_code(repo: Path, icm, path: str) -> None:
    """Snapshots sit in subfolders: the note covers them with subtree scope
    (the folder scope would leave them to no note at all)."""
    commit(repo, {"icm.toml": "stale_scope = 'subtree'\n"}, D1)
    fresh(repo)
    commit(repo, {path: b"\x89PNG v1"}, D5)
    commit(repo, {path: b"\x89PNG v2"}, D9)
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("name", [".DS_Store", "Thumbs.db", "desktop.ini"])
def test_a_file_managers_litter_moves_no_code(repo: Path, icm, name: str) -> None:
    """Round 11: a folder's only change was a deleted ``.DS_Store``."""
    commit(repo, {"src/context.md": NOTE, "src/x.py": "1", f"src/{name}": b"\0\1"},
           D1)
    commit(repo, {f"src/{name}": b"\0\2"}, D5)
    (repo / "src" / name).unlink()
    commit(repo, {}, D9)  # deleted, alone
    assert stale(icm, repo) == (0, OK, "")


def test_a_commit_with_a_lockfile_and_code_moves_code(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"src/package-lock.json": "v2", "src/x.py": "2"}, D9)
    assert stale(icm, repo) == (1, SEED_STALE, "")


def test_code_older_than_a_newer_lockfile_still_decides(repo: Path, icm) -> None:
    """The newest commit of the folder is a lockfile bump: the code's own
    newest commit is still set against the note."""
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D5)
    commit(repo, {"src/yarn.lock": "v2"}, D9)
    assert stale(icm, repo) == (
        1, "src/context.md: STALE - code in src moved 4 days after the note\n", "")


def test_stale_ignore_replaces_the_defaults(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"icm.toml": "stale_ignore = ['*.gen.py']\n", "src/yarn.lock": "1",
                  "src/context.md": NOTE + "\nGenerated code aside.\n"}, D5)
    commit(repo, {"src/rows.gen.py": "2"}, D9)
    assert stale(icm, repo) == (0, OK, "")
    commit(repo, {"src/yarn.lock": "2"}, D10)  # no longer a default
    assert stale(icm, repo) == (
        1, "src/context.md: STALE - code in src moved 5 days after the note\n", "")


def test_stale_ignore_extend_keeps_the_defaults(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"icm.toml": "stale_ignore_extend = ['*.gen.py']\n",
                  "src/context.md": NOTE + "\nGenerated code aside.\n"}, D5)
    commit(repo, {"src/rows.gen.py": "2", "src/yarn.lock": "2"}, D9)
    assert stale(icm, repo) == (0, OK, "")


def test_an_empty_stale_ignore_makes_every_file_code(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"icm.toml": "stale_ignore = []\n",
                  "src/context.md": NOTE + "\nEvery file is code.\n"}, D5)
    commit(repo, {"src/yarn.lock": "2"}, D9)
    assert stale(icm, repo) == (
        1, "src/context.md: STALE - code in src moved 4 days after the note\n", "")


def test_stale_ignore_is_validated_like_every_glob(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"icm.toml": "stale_ignore_extend = ['../x/**']\n"})
    assert stale(icm, repo) == (
        2, "", "icm: icm.toml: key 'stale_ignore_extend' must hold paths inside "
        "the repository, outside .git, not '../x/**'\n")


def test_the_defaults_name_what_the_issue_names() -> None:
    named = {"package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb",
             "uv.lock", "poetry.lock", "Pipfile.lock", "Cargo.lock", "go.sum",
             "composer.lock", "Gemfile.lock", "flake.lock", "**/__snapshots__/**",
             "*.snap"}
    assert named <= set(DEFAULT_STALE_IGNORE)


def test_docs_name_every_default_and_the_bound() -> None:
    """docs/checks.md names each default glob and the walk's bound."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "checks.md"
            ).read_text().replace("\n", " ")
    section = text.split("## stale", 1)[1].split("## bootmap", 1)[0]
    missing = [g for g in DEFAULT_STALE_IGNORE if f"`{g}`" not in section
               and f"{g}`" not in section and f"`{g}" not in section]
    assert missing == []
    assert f"the note's last {stale_mod.WALK} changes altered no word" in section
    assert f"{stale_mod.WORDS_CAP // 1024} KiB" in section


# -- whitespace is no review -----------------------------------------------------

REWRAPPED = "# src\n\nWhy the cleaner\nkeeps the raw rows.\n"


@pytest.mark.parametrize("edit", [
    NOTE + "\n",  # an appended empty line
    NOTE.replace("\n", "\r\n"),  # line endings
    REWRAPPED,  # re-wrapping
    "\ufeff" + NOTE.replace("Why", "  Why\t"),  # a BOM, indentation
], ids=["empty-line", "crlf", "rewrap", "bom-indent"])
def test_a_wordless_note_edit_is_no_review(repo: Path, icm, edit: str) -> None:
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D9)
    write(repo, {"src/context.md": edit})
    assert stale(icm, repo) == (1, SEED_STALE, "")  # in the work tree
    git(repo, "add", "-A")
    assert stale(icm, repo) == (1, SEED_STALE, "")  # staged
    commit(repo, {}, D10)
    assert stale(icm, repo) == (1, WORDLESS, "")  # committed


def test_a_wordless_note_edit_with_the_code_is_no_review(repo: Path, icm) -> None:
    fresh(repo)
    write(repo, {"src/x.py": "2", "src/context.md": REWRAPPED})
    assert stale(icm, repo) == (1, PENDING_STALE, "")
    commit(repo, {}, D9)
    assert stale(icm, repo) == (1, WORDLESS, "")


def test_a_changed_word_is_a_review(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D9)
    write(repo, {"src/context.md": NOTE.replace("raw", "raw, typed")})
    assert stale(icm, repo) == (0, "src/context.md: ok (pending)\n", "")
    commit(repo, {}, D10)
    assert stale(icm, repo) == (0, OK, "")


def test_a_review_marker_alone_is_a_review(repo: Path, icm) -> None:
    """The review in history: a commit whose only change is the marker line
    makes the note ok, and a wordless edit after it keeps it ok."""
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D9)
    assert icm("review", "--root", str(repo), "--date", "2026-10-10",
               "src/context.md") == (
        0, "src/context.md: reviewed 2026-10-10\n", "")
    assert git(repo, "diff", "--stat").strip().endswith("2 insertions(+)")
    assert stale(icm, repo) == (0, "src/context.md: ok (pending)\n", "")
    commit(repo, {}, D10)
    assert stale(icm, repo) == (0, OK, "")
    commit(repo, {"src/context.md": (repo / "src/context.md").read_text() + "\n"},
           D10)
    assert stale(icm, repo) == (0, OK, "")  # walked back to the marker


def test_the_walk_finds_a_word_change_after_the_code(repo: Path, icm) -> None:
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D5)
    commit(repo, {"src/context.md": NOTE + "\nTyped rows too.\n"}, D9)
    commit(repo, {"src/context.md": NOTE + "\nTyped rows\ntoo.\n"}, D9)
    commit(repo, {"src/context.md": NOTE + "\nTyped rows\ntoo.\n\n"}, D10)
    assert stale(icm, repo) == (0, OK, "")


def test_the_walk_stops_at_its_bound(repo: Path, icm, monkeypatch) -> None:
    """Past ``WALK`` wordless changes the note is unknown (a warning; an
    error with --strict): the walk never reads the whole history."""
    monkeypatch.setattr(stale_mod, "WALK", 3)
    fresh(repo)
    commit(repo, {"src/x.py": "2"}, D5)
    for n in range(1, 4):
        commit(repo, {"src/context.md": NOTE + "\n" * n}, D9)
    bound = "src/context.md: unknown - the note's last 3 changes altered no word\n"
    assert stale(icm, repo) == (0, bound, "")
    assert stale(icm, repo, "--strict") == (1, bound, "")
    monkeypatch.setattr(stale_mod, "WALK", 4)  # one more reaches the code
    assert stale(icm, repo) == (1, WORDLESS, "")


def test_the_fix_hint_names_icm_review(repo: Path, icm) -> None:
    """The hint says what to read: the commits since the note, or the
    uncommitted changes, where the verdict compared them; where a walk
    over wordless note commits decided, the code (no range holds it)."""
    import json

    def hint() -> str:
        code, out, _ = stale(icm, repo, "--format", "json")
        (finding,) = json.loads(out)["checks"][0]["findings"]
        assert code == 1
        return finding["fix"]

    fresh(repo)
    since = git(repo, "rev-parse", "--short=12", "HEAD").strip()
    commit(repo, {"src/x.py": "2"}, D9)
    assert hint() == (
        f"reread the note against what changed since it (`git log --stat {since}.. "
        "-- src`) and correct it; if it is still true, run `icm review "
        "src/context.md` (a whitespace change is no review)")
    code, out, _ = stale(icm, repo, "--format", "github")
    assert code == 1 and "run `icm review src/context.md`" in out
    commit(repo, {"src/context.md": NOTE + "Still true.\n"}, D10)
    write(repo, {"src/x.py": "3"})
    assert hint() == (
        "reread the note against the uncommitted changes (`git status -- src`) "
        "and correct it; if it is still true, run `icm review src/context.md` (a "
        "whitespace change is no review)")
    commit(repo, {"src/x.py": "3"}, D10)
    commit(repo, {"src/context.md": NOTE + "Still true.\n\n"}, D10)
    assert hint() == (
        "reread the note against the code and correct it; if it is still true, "
        "run `icm review src/context.md` (a whitespace change is no review)")


def test_the_hint_quotes_a_folder_git_would_read_as_magic(repo: Path, icm) -> None:
    import json

    commit(repo, {":x/context.md": NOTE, ":x/a.py": "1"}, D1)
    commit(repo, {":x/a.py": "2"}, D9)
    code, out, _ = stale(icm, repo, "--format", "json")
    (finding,) = json.loads(out)["checks"][0]["findings"]
    assert code == 1 and "-- ./:x`)" in finding["fix"]
    assert "`icm review :x/context.md`" in finding["fix"]


def test_words_across_a_merge_and_with_a_base(repo: Path, icm) -> None:
    """A review made on a side branch and merged is a review (first-parent
    history diffs the merge against its first parent); a branch that only
    re-wraps its note after changing code is STALE against its base."""
    fresh(repo)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/context.md": NOTE + "\nReviewed on a side branch.\n"}, D9)
    git(repo, "checkout", "-q", "main")
    commit(repo, {"src/x.py": "2"}, D5)
    git(repo, "merge", "-q", "--no-edit", "side", when=D10)
    assert stale(icm, repo) == (0, OK, "")
    git(repo, "checkout", "-q", "-b", "pr")
    commit(repo, {"src/x.py": "3"}, D10)
    commit(repo, {"src/context.md": (repo / "src/context.md").read_text()
                  .replace("\n", "\r\n")}, D10)
    assert stale(icm, repo, "--base", "main") == (1, WORDLESS, "")


def test_words_under_a_subfolder_root(repo: Path, icm) -> None:
    commit(repo, {"example/src/context.md": NOTE, "example/src/x.py": "1"}, D1)
    commit(repo, {"example/src/x.py": "2"}, D9)
    write(repo, {"example/src/context.md": REWRAPPED})
    assert stale(icm, repo / "example") == (1, SEED_STALE, "")
    commit(repo, {}, D10)
    assert stale(icm, repo / "example") == (1, WORDLESS, "")


@pytest.mark.parametrize("root", ["", "example"])
def test_past_pathspec_max_the_log_takes_no_paths(repo: Path, icm, monkeypatch,
                                                  root: str) -> None:
    """Past ``git.PATHSPEC_MAX`` paths the logs read every change (git's
    matching costs paths x entries) and the check keeps what it asked for:
    the same verdicts, at the top and under a subfolder root."""
    from icm import git as icm_git

    monkeypatch.setattr(icm_git, "PATHSPEC_MAX", 0)
    at = f"{root}/" if root else ""
    commit(repo, {f"{at}src/context.md": NOTE, f"{at}src/x.py": "1",
                  f"{at}lib/context.md": NOTE, f"{at}lib/y.py": "1",
                  "outside/z.py": "1"}, D1)
    commit(repo, {f"{at}src/x.py": "2", f"{at}lib/y.py": "2"}, D5)
    commit(repo, {f"{at}src/context.md": REWRAPPED,
                  f"{at}lib/context.md": NOTE + "\nReread.\n", "outside/z.py": "2"},
           D9)
    commit(repo, {f"{at}lib/context.md": NOTE + "\nReread.\n\n"}, D10)
    assert stale(icm, repo / root) == (
        1, "lib/context.md: ok\n" + WORDLESS, "")
    write(repo, {f"{at}lib/context.md": NOTE + "\nReread.\n", f"{at}lib/y.py": "3",
                 f"{at}src/context.md": NOTE + "\nReread.\n"})  # pending
    assert stale(icm, repo / root) == (
        1, "lib/context.md: STALE - code in lib changed (uncommitted) after the "
        "note\nsrc/context.md: ok (pending)\n", "")


def test_the_words_cost_a_fixed_number_of_git_processes(repo: Path, icm,
                                                        monkeypatch) -> None:
    """One ``--no-walk`` log and one ``cat-file`` for every deciding commit,
    one walk log and one ``cat-file`` for every wordless one, whatever the
    number of notes: never one process per note."""
    counts = []
    for size in (1, 12):  # each note its own fact: one text in 3 is a stamp
        for i in range(size):
            commit(repo, {f"s{size}/f{i}/context.md": f"{NOTE}Row {i}.\n",
                          f"s{size}/f{i}/x.py": "1"}, D1)
        commit(repo, {**{f"s{size}/f{i}/x.py": "2" for i in range(size)}}, D5)
        commit(repo, {**{f"s{size}/f{i}/context.md": f"{REWRAPPED}Row {i}.\n"
                         for i in range(size)}}, D9)
        started = _git_processes(monkeypatch)
        code, out, _ = stale(icm, repo)
        monkeypatch.undo()
        assert code == 1 and out.count("no word of the note changed") == \
            out.count("\n") == 1 + 12 * (size > 1)
        counts.append(len(started))
    assert counts[0] == counts[1]


# -- through a real pre-commit ------------------------------------------------

def _precommit_repo(repo: Path, tmp_path: Path) -> dict:
    """A repository whose pre-commit hook is icm check-stale (as
    ``tests/test_stale_pending.py`` sets it up), its note fresh."""
    commit(repo, {".pre-commit-config.yaml": STALE_HOOK, "src/context.md": NOTE,
                  "src/x.py": "1"}, D1)
    return install_hook(repo, tmp_path)


def test_precommit_takes_a_review_and_refuses_an_empty_line(
        repo: Path, tmp_path: Path) -> None:
    env = _precommit_repo(repo, tmp_path)
    head = git(repo, "rev-parse", "HEAD")
    write(repo, {"src/x.py": "2"})
    git(repo, "add", "src/x.py")
    refused = hooked_commit(repo, env)  # code only
    assert refused.returncode == 1 and PENDING_STALE in refused.stderr
    with open(repo / "src" / "context.md", "a") as fh:
        fh.write("\n")
    git(repo, "add", "src/context.md")
    refused = hooked_commit(repo, env)  # code and an appended empty line
    assert refused.returncode == 1 and PENDING_STALE in refused.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    reviewed = subprocess.run([str(ICM), "review", "--date", "2026-10-10",
                               "src/context.md"], cwd=repo, env=env,
                              capture_output=True, text=True)
    assert (reviewed.returncode, reviewed.stdout) == (
        0, "src/context.md: reviewed 2026-10-10\n")
    git(repo, "add", "src/context.md")
    done = hooked_commit(repo, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "rev-parse", "HEAD") != head
    assert git(repo, "show", "--format=", "--stat", "HEAD").count("|") == 2


# -- the rule against an oracle ---------------------------------------------------


EVENTS = st.lists(st.tuples(st.sampled_from([None, "word", "space"]), st.booleans())
                  .filter(lambda e: e != (None, False)), max_size=5)


@settings(max_examples=20)
@given(EVENTS)
def test_ok_exactly_when_a_word_changed_at_or_after_the_code(tmp_path_factory,
                                                             events) -> None:
    """Random histories of note edits (a word, or whitespace only) and code
    commits: the note is ok exactly when its last change of words is no
    older than the code's last commit (a commit holding both is a tie)."""
    from icm.cli import main

    root = tmp_path_factory.mktemp("oracle")
    git(root, "init", "-q")
    words, blank = ["why"], 0
    commit(root, {"src/context.md": "why\n", "src/x.py": "0"}, D1)
    last_word = last_code = 0
    for i, (note, code) in enumerate(events, 1):
        if note == "word":
            words.append(f"w{i}")
            last_word = i
        elif note == "space":
            blank = (blank + 1) % 3
        files = {"src/context.md": " ".join(words) + "\n" * (1 + blank)} \
            if note else {}
        commit(root, {**files, **({"src/x.py": str(i)} if code else {})}, D5)
        last_code = i if code else last_code
    assert main(["check-stale", "--root", str(root)]) == \
        (0 if last_word >= last_code else 1)


def test_what_cannot_be_compared_counts_as_changed(repo: Path, icm,
                                                   monkeypatch) -> None:
    """A note over ``WORDS_CAP`` (its blob read cut) and a path holding a
    newline (it cannot go through git's stdin) are judged as before words:
    any change of the note is one."""
    from icm.model import notes as notes_mod

    for mod in (stale_mod, notes_mod):  # the cut read, the digest's cap
        monkeypatch.setattr(mod, "WORDS_CAP", 16)
    odd = "odd\nname/context.md"
    commit(repo, {"src/context.md": NOTE, "src/x.py": "1", odd: NOTE,
                  "odd\nname/y.py": "1"}, D1)
    commit(repo, {"src/x.py": "2", "odd\nname/y.py": "2"}, D5)
    commit(repo, {"src/context.md": REWRAPPED, odd: REWRAPPED}, D9)
    shown = "odd\\nname/context.md"  # the text format escapes the newline
    assert stale(icm, repo)[:2] == (0, f"{shown}: ok\n{OK}")
    for mod in (stale_mod, notes_mod):
        monkeypatch.setattr(mod, "WORDS_CAP", 1 << 18)
    assert stale(icm, repo)[:2] == (1, f"{shown}: ok\n{WORDLESS}")
