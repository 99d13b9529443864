"""The catalogue of bad input (docs/robustness.md): each case gets one clear
line, the right exit code, no traceback, and nothing written or lost."""

import errno
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import SLOTS_OK, commit, git, git_env, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
HB = "# H\n"


def check(icm, root: Path, *args: str):
    code, out, err = icm(*(args or ("check",)), "--root", str(root))
    assert "Traceback" not in out + err
    return code, out, err


# -- files -----------------------------------------------------------------------

@pytest.mark.parametrize("data,reason", [
    (b"caf\xe9 [x](y.md)\n", "not valid UTF-8 (line 1, byte offset 3)"),
    ("# T\n".encode("utf-16"), "UTF-16 text; icm reads UTF-8 only"),
    (b"# T\n\x00\x01 [x](y.md)\n", "contains NUL bytes; not a text file"),
])
def test_undecodable_markdown(repo: Path, icm, data: bytes, reason: str) -> None:
    write(repo, {"AGENTS.md": HB, "doc.md": data,
                 "journal/2026-01-01_a.md": data})
    code, out, _ = check(icm, repo, "check-links")
    assert code == 1 and f"doc.md: cannot read: {reason}\n" in out
    code, out, _ = check(icm, repo, "check-journal")
    assert (code, out) == (1, f"journal/2026-01-01_a.md: cannot read: {reason}\n")


def test_huge_markdown_is_skipped_with_a_warning(repo: Path, icm) -> None:
    line = b"word " * 20 + b"[x](gone.md)\n"
    with open(repo / "big.md", "wb") as fh:
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            fh.write(line)
    write(repo, {"AGENTS.md": HB})
    size = os.path.getsize(repo / "big.md")
    code, out, _ = check(icm, repo, "check-links")
    assert code == 0
    assert out == (f"big.md: cannot read: {size} bytes is over max_file_bytes "
                   "(10000000); not parsed\nlinks: 1 problem (skipped file 1)\n")


def test_huge_note_is_counted_in_blocks(repo: Path, icm) -> None:
    block = b"ab " * 1000
    with open(repo / "context.md", "wb") as fh:
        for _ in range(20000):
            fh.write(block)
    write(repo, {"AGENTS.md": HB})
    code, out, _ = check(icm, repo, "bootmap")
    assert "20000000 words  context.md" in out and code == 1


def test_one_megabyte_line(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "doc.md": "x" * (1 << 20) + " [a](gone.md)\n"})
    assert check(icm, repo, "check-links")[:2] == (1, (
        "broken link: doc.md -> gone.md\nlinks: 1 problem (missing file 1)\n"))


def test_ten_thousand_headings(repo: Path, icm) -> None:
    text = "".join("## Same\n\ntext\n\n" for _ in range(10000))
    links = "[a](#same-9999) [b](#same-10000)\n"
    write(repo, {"AGENTS.md": HB, "doc.md": text + links})
    assert check(icm, repo, "check-links")[1] == (
        "broken link: doc.md -> #same-10000 (no heading or anchor #same-10000)\n"
        "links: 1 problem (missing anchor 1)\n")


def test_deep_nesting_does_not_recurse_out(repo: Path, icm) -> None:
    quotes = "> " * 5000 + "[a](gone.md)\n"
    lists = "".join("  " * i + "- item\n" for i in range(3000))
    write(repo, {"AGENTS.md": HB, "q.md": quotes, "l.md": lists + "[b](gone.md)\n",
                 "journal/2026-01-01_a.md": quotes + SLOTS_OK})
    code, _, err = check(icm, repo)
    assert code in (0, 1) and err == ""


def test_lone_cr_and_crlf_line_numbers(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "cr.md": b"a\r\r[x](gone.md)\r",
                 "crlf.md": b"a\r\n\r\n[x](gone.md)\r\n"})
    import json
    out = check(icm, repo, "check-links", "--format", "json")[1]
    found = [(f["path"], f["line"]) for f in json.loads(out)["checks"][0]["findings"]]
    assert found == [("cr.md", 3), ("crlf.md", 3)]


def test_markdown_named_directory(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": "[d](dir.md)\n", "dir.md/inner.txt": "x",
                     "journal/2026-01-01_x.md/inner.txt": "x"})
    assert check(icm, tmp_path, "check-links")[:2] == (0, "links ok\n")
    assert check(icm, tmp_path, "check-journal")[:2] == (0, "journal ok\n")


def test_unreadable_file(repo: Path, icm, monkeypatch) -> None:
    write(repo, {"AGENTS.md": HB, "secret.md": "[x](y.md)\n"})
    real_open = os.open

    def guarded(path, *args, **kwargs):
        if str(path).endswith("secret.md"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    assert check(icm, repo, "check-links")[1] == (
        "secret.md: cannot read: permission denied\n"
        "links: 1 problem (unreadable file 1)\n")


def test_dangling_symlink_loop_and_escape(repo: Path, tmp_path: Path, icm) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n[x](nope.md)\n")
    write(repo, {"AGENTS.md": HB})
    os.symlink("missing.md", repo / "dangling.md")
    os.symlink("loop2.md", repo / "loop1.md")
    os.symlink("loop1.md", repo / "loop2.md")
    os.symlink(str(outside), repo / "escape.md")
    out = check(icm, repo, "check-links")[1].splitlines()
    assert out == [
        "dangling.md: cannot read: no such file (dangling symlink?)",
        "escape.md: cannot read: symlink points outside the repository; not "
        "followed",
        "loop1.md: cannot read: Too many levels of symbolic links",
        "loop2.md: cannot read: Too many levels of symbolic links",
        "links: 4 problems (unreadable file 4)",
    ]
    # each hint names what to do about its cause, not "save as UTF-8"
    (repo / "bad.md").write_bytes(b"caf\xe9\n")
    doc = json.loads(icm("check-links", "--root", str(repo), "--format", "json")[1])
    assert {f["path"]: f["fix"] for f in doc["checks"][0]["findings"]} == {
        "bad.md": "save the file as UTF-8",
        "dangling.md": "point the symlink at a file that exists, or remove it",
        "escape.md": "keep the file inside the repository: a symlink out of the "
                     "root is never followed",
        "loop1.md": "break the symlink loop", "loop2.md": "break the symlink loop"}


def test_symlinked_folder_outside_is_not_walked(tmp_path: Path, icm) -> None:
    root = tmp_path / "root"
    write(tmp_path, {"elsewhere/bad.md": "[x](gone.md)\n", "root/AGENTS.md": HB})
    os.symlink(str(tmp_path / "elsewhere"), root / "linked")
    assert check(icm, root, "check-links")[:2] == (0, "links ok\n")


# -- names -----------------------------------------------------------------------

ODD = ["sp ace", "qu'o\"te", "ünïcødé", "-leading-dash", "back\\slash", "new\nline"]


@pytest.mark.parametrize("name", ODD)
def test_odd_names_everywhere(repo: Path, icm, name: str) -> None:
    from urllib.parse import quote

    note = f"{name}/context.md"
    commit(repo, {
        "AGENTS.md": f"# H\n\n- [n](<{quote(note)}>)\n",
        note: "why\n", f"{name}/code {name}.py": "x",
        "journal/2026-01-01_odd.md": SLOTS_OK,
    }, D1)
    code, out, err = check(icm, repo)
    assert err == ""
    shown = note.replace("\n", "\\n")  # text output shows a newline escaped
    assert "journal ok\nlinks ok\n" in out and f"{shown}: ok\n" in out


# -- repository states -------------------------------------------------------------

def _diverged(repo: Path) -> None:
    """main and side both change src/x.py after the note: they conflict."""
    commit(repo, {"AGENTS.md": HB, "src/context.md": "a", "src/x.py": "1"}, D1)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/x.py": "side"}, D9)
    git(repo, "checkout", "-q", "main")
    commit(repo, {"src/x.py": "main"}, D9)


def test_merge_in_progress(repo: Path, icm) -> None:
    _diverged(repo)
    proc = subprocess.run(["git", "merge", "side"], cwd=repo, env=git_env(),
                          capture_output=True)
    assert proc.returncode != 0  # conflicted: the merge is in progress
    code, out, err = check(icm, repo)
    assert err == "" and code == 1
    # The conflicted code file is pending: the merge commit will change it.
    assert "src/context.md: STALE - code in src changed (uncommitted) after the " \
           "note\n" in out
    code, out, err = check(icm, repo, "check", "--committed")
    assert err == "" and code == 1
    assert "src/context.md: STALE - code in src moved 8 days after the note " \
           "(uncommitted changes)\n" not in out  # the note itself is untouched
    assert "src/context.md: STALE - code in src moved 8 days after the note\n" in out


def test_rebase_in_progress(repo: Path, icm) -> None:
    _diverged(repo)
    git(repo, "checkout", "-q", "side")
    proc = subprocess.run(["git", "rebase", "main"], cwd=repo, env=git_env(),
                          capture_output=True)
    assert proc.returncode != 0
    code, _, err = check(icm, repo)
    assert err == "" and code == 1


def test_submodule_pointer_counts_as_code(repo: Path, tmp_path: Path, icm) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    commit(sub, {"lib.c": "1"}, D1)
    commit(repo, {"AGENTS.md": "# H\n\n- [v](vendor/context.md)\n",
                  "vendor/context.md": "why"}, D1)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(sub), "vendor/lib")
    git(repo, "commit", "-q", "-m", "add submodule", when=D9)
    code, out, err = check(icm, repo)
    assert err == "" and code == 1
    assert "vendor/context.md: STALE - code in vendor moved 8 days after the " \
           "note\n" in out


def test_git_worktree(repo: Path, tmp_path: Path, icm) -> None:
    commit(repo, {"AGENTS.md": HB, "src/context.md": "a", "src/x.py": "1",
                  "doc.md": "[a](gone.md)\n"}, D1)
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    code, out, err = check(icm, worktree)
    assert err == "" and code == 1 and "broken link: doc.md -> gone.md\n" in out
    assert (repo / ".git" / "worktrees" / "wt" / "icm").is_dir()


def test_bare_repository(tmp_path: Path, icm) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert check(icm, bare) == (2, "", f"icm: {bare} is inside a bare repository "
                                       "or a .git folder; icm needs a work tree\n")


def test_inherited_git_variables(repo: Path, tmp_path: Path, icm, monkeypatch) -> None:
    commit(repo, {"AGENTS.md": HB, "doc.md": "[a](gone.md)\n"}, D1)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    code, out, _ = check(icm, repo, "check-links")
    assert (code, out) == (1, "broken link: doc.md -> gone.md\n"
                              "links: 1 problem (missing file 1)\n")


def test_git_missing_from_path(repo: Path, icm, monkeypatch) -> None:
    write(repo, {"AGENTS.md": HB, "doc.md": "[a](gone.md)\n"})
    monkeypatch.setenv("PATH", "/nonexistent")
    assert check(icm, repo, "check-links")[0] == 1  # falls back to a walk
    assert check(icm, repo, "check-stale") == (
        2, "", "icm: git is not installed or not on PATH\n")


# -- configuration ------------------------------------------------------------------

def test_exclude_everything(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "exclude = ['**']\n", "doc.md": "[a](gone.md)\n",
                 "journal/x.md": "bad"})
    code, out, _ = check(icm, repo)
    assert code == 0 and "journal ok\nlinks: no handbook AGENTS.md and no notes " \
        "named context.md (set handbook, note_name)\nlinks ok\n" in out


@pytest.mark.parametrize("flag", ["0", "-5"])
def test_budget_zero_or_negative_on_the_command_line(repo: Path, icm, flag) -> None:
    code, out, err = icm("bootmap", "--root", str(repo), "--budget", flag)
    assert code == 2 and out == "" and "--budget" in err


@pytest.mark.parametrize("key,value", [("queue_dir", "'/tmp/q'"),
                                       ("journal_dir", "'../j'")])
def test_dirs_cannot_leave_the_root(repo: Path, icm, key: str, value: str) -> None:
    write(repo, {"icm.toml": f"{key} = {value}\n"})
    code, _, err = icm("new-queue", "x", "--root", str(repo))
    assert code == 2 and "must be a path inside the repository" in err


# -- workflow commands -----------------------------------------------------------

QUEUE = {"queue/07_a.md": "# A\n\nbody\n"}


def _untouched(repo: Path) -> None:
    assert (repo / "queue/07_a.md").read_text() == "# A\n\nbody\n"
    leftovers = [p for p in repo.rglob("*") if p.name.startswith(".icm-")]
    assert leftovers == []
    assert list(repo.glob("journal/*.md")) == []


def test_read_only_journal_folder(repo: Path, icm, monkeypatch) -> None:
    write(repo, QUEUE)
    (repo / "journal").mkdir()

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert icm("new-journal", "07", "--root", str(repo)) == (
        2, "", f"icm: cannot write in {repo / 'journal'}: permission denied\n")
    _untouched(repo)


def test_disk_full_halfway(repo: Path, icm, monkeypatch) -> None:
    write(repo, QUEUE)
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen",
                        lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    assert icm("new-journal", "07", "--root", str(repo)) == (
        2, "", f"icm: cannot write in {repo / 'journal'}: No space left on device\n")
    _untouched(repo)


def test_new_journal_interrupted_changes_nothing(repo: Path, icm,
                                                 monkeypatch) -> None:
    write(repo, QUEUE)
    real_replace = os.replace

    def interrupted(path, *a, **k):
        if str(path).endswith("07_a.md"):
            raise KeyboardInterrupt
        return real_replace(path, *a, **k)

    monkeypatch.setattr(os, "replace", interrupted)
    code, out, err = icm("new-journal", "07", "--date", "2026-11-29",
                         "--root", str(repo))
    assert (code, err) == (130, "icm: interrupted\n")
    _untouched(repo)  # the complete entry made first is gone again


def test_new_journal_path_outside_the_root(repo: Path, icm) -> None:
    write(repo, QUEUE)
    code, _, err = icm("new-journal", "../../etc/passwd", "--root", str(repo))
    assert code == 2 and err.startswith("icm: no queue item matches")


# -- error paths -----------------------------------------------------------------

def test_dubious_ownership_is_explained_with_its_fix() -> None:
    from icm import git as icm_git

    err = ("fatal: detected dubious ownership in repository at '/srv/r'\n"
           "To add an exception for this directory, call:\n")
    assert icm_git._explain(err, Path("/srv/r")) == (
        "git refuses /srv/r: dubious ownership; if you trust it, run "
        "'git config --global --add safe.directory /srv/r'")


def test_unwritable_cache_only_costs_speed(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "doc.md": "[a](gone.md)\n"})
    (repo / ".git" / "icm").write_text("a file where the cache folder goes")
    first = check(icm, repo, "check-links")
    assert first == check(icm, repo, "check-links")
    assert first[0] == 1


def test_new_journal_staging_failure_says_what_happened(repo: Path, icm,
                                                        monkeypatch) -> None:
    from icm import git as icm_git
    from icm.errors import UsageError

    commit(repo, QUEUE, D1)

    def refuse(*_args: object) -> None:
        raise UsageError("index.lock exists")

    monkeypatch.setattr(icm_git, "stage_move", refuse)
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo)) == (
        2, "", "icm: wrote journal/2026-11-29_a.md and removed queue/07_a.md, but "
               "git could not stage the move: index.lock exists\n")
    assert (repo / "journal/2026-11-29_a.md").is_file()
    assert not (repo / "queue/07_a.md").exists()
