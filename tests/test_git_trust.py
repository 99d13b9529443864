"""git runs nothing on icm's behalf, and no git setting changes an answer.

Every mechanism by which a repository (or an inherited environment) could
make a git call start a program is armed with a marker program that leaves
a file behind; the commands that run git must leave no marker. The marker
folder sits outside the repository, so no command can delete its evidence.
"""

import http.server
import json
import os
import stat
import subprocess
import threading
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from icm import git as icm_git
from tests.conftest import SLOTS_OK, commit, git, git_env, write

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
HB = "# H\n\n<!-- icm:index -->\n- [src](src/context.md)\n<!-- /icm:index -->\n"
QUEUE_ITEM = "# Auto-detect the delimiter\n\nSome exports use semicolons.\n"

HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
    "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
    "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive",
    "update", "proc-receive", "post-receive", "post-update",
    "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
    "sendemail-validate", "fsmonitor-watchman", "p4-changelist",
    "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
    "post-index-change",
)


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


def marker_program(markers: Path, name: str, passthrough: bool = False) -> str:
    """An executable that leaves ``markers/name`` (and copies stdin to stdout
    when it stands in for a filter); returns its absolute path."""
    path = markers.parent / "programs" / name
    path.parent.mkdir(exist_ok=True)
    body = "cat\n" if passthrough else "exit 1\n"
    path.write_text(f"#!/bin/sh\ntouch '{markers / name}'\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def left(markers: Path) -> List[str]:
    return sorted(os.listdir(markers))


def run_every_git_command(icm, repo: Path) -> None:
    """Each command that runs git, on a repository with a tracked queue item,
    a note, uncommitted code and a handbook missing an index line."""
    for argv in (("check",), ("check-stale",), ("check-links", "--fix"),
                 ("new-queue", "Another item"), ("init",),
                 ("new-journal", "07", "--date", "2026-11-29")):
        code, out, err = icm(*argv, "--root", str(repo))
        assert "Traceback" not in out + err and code in (0, 1), (argv, err)


def armed_repository(repo: Path) -> None:
    commit(repo, {"AGENTS.md": HB, "src/context.md": "why", "src/x.py": "1",
                  "lib/context.md": "l", "lib/y.py": "1",
                  "queue/07_auto-detect-delimiter.md": QUEUE_ITEM}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    write(repo, {"src/x.py": "3 uncommitted", "lib/context.md": "l2"})


def test_filters_never_run(repo: Path, markers: Path, icm) -> None:
    armed_repository(repo)
    names = ("evil", "a=b.c", "sp ace")
    attrs = "".join(f"*.{ext} filter={name.replace(' ', '[[:space:]]')}\n"
                    for ext, name in zip(("py", "md", "toml"), names))
    for name in names:
        for part in ("clean", "smudge", "process"):
            git(repo, "config", f"filter.{name}.{part}",
                marker_program(markers, f"{name}-{part}".replace(" ", "_"),
                               passthrough=part != "process"))
        git(repo, "config", f"filter.{name}.required", "true")
    write(repo, {".gitattributes": "* filter=evil\n" + attrs})
    os.utime(repo / "src" / "context.md", (1, 1))  # stat-dirty: git must look
    run_every_git_command(icm, repo)
    assert left(markers) == []
    # The move was staged, unfiltered, as one index change.
    staged = git(repo, "diff", "--cached", "--name-status", "--no-renames")
    assert "A\tjournal/2026-11-29_auto-detect-delimiter.md\n" in staged
    assert "D\tqueue/07_auto-detect-delimiter.md\n" in staged
    blob = git(repo, "-c", "filter.evil.smudge=", "-c", "filter.evil.clean=",
               "show", ":journal/2026-11-29_auto-detect-delimiter.md")
    assert blob.encode() == (repo / "journal" /
                             "2026-11-29_auto-detect-delimiter.md").read_bytes()


@pytest.mark.parametrize("where", ["git-dir", "hooks-path"])
def test_hooks_never_run(repo: Path, markers: Path, icm, where: str) -> None:
    armed_repository(repo)
    folder = repo / ".git" / "hooks"
    if where == "hooks-path":
        folder = markers.parent / "hooks"
        git(repo, "config", "core.hooksPath", str(folder))
    folder.mkdir(exist_ok=True)
    for hook in HOOKS:
        target = folder / hook
        target.write_text(f"#!/bin/sh\ntouch '{markers / hook}'\n")
        target.chmod(0o755)
    git(repo, "config", "core.fsmonitor", marker_program(markers, "fsmonitor"))
    git(repo, "config", "core.untrackedCache", "true")
    os.utime(repo / "lib" / "y.py", (1, 1))  # a refresh would rewrite the index
    run_every_git_command(icm, repo)
    assert left(markers) == []


def test_reading_never_writes_the_index(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": HB, "src/context.md": "why", "src/x.py": "1"}, D1)
    os.utime(repo / "src" / "context.md", (1, 1))  # stat-dirty, content equal
    index = repo / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    for argv in (("check",), ("check-stale",), ("check-links",), ("bootmap",)):
        code, out, err = icm(*argv, "--root", str(repo))
        assert "uncommitted" not in out and "Traceback" not in err
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


def test_editor_pager_and_external_diff_never_run(repo: Path, markers: Path,
                                                  icm) -> None:
    armed_repository(repo)
    for key in ("core.editor", "sequence.editor", "core.pager", "diff.external",
                "gpg.program", "core.sshCommand", "core.askPass",
                "credential.helper", "uploadpack.packObjectsHook"):
        git(repo, "config", key, marker_program(markers, key))
    git(repo, "config", "diff.evil.textconv", marker_program(markers, "textconv"))
    git(repo, "config", "diff.evil.command", marker_program(markers, "diffcmd"))
    git(repo, "config", "log.showSignature", "true")
    write(repo, {".gitattributes": "* diff=evil\n"})
    run_every_git_command(icm, repo)
    assert left(markers) == []


# -- partial clones: refused, and never fetched from ---------------------------


class _AskForPassword(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def auth_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AskForPassword)
    # shutdown() waits for serve_forever's next poll: 0.5 s by default, per test
    thread = threading.Thread(target=server.serve_forever, daemon=True,
                              kwargs={"poll_interval": 0.02})
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/repo.git"
    server.shutdown()
    server.server_close()


def partial_clone(repo: Path, tmp_path: Path) -> Path:
    """A ``--filter=tree:0`` clone: older commits' trees are missing, so a
    history pass would have to fetch them from the promisor remote."""
    commit(repo, {"src/context.md": "a", "src/x.py": "1", "lib/y.py": "1"}, D1)
    commit(repo, {"lib/y.py": "2"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    git(repo, "config", "uploadpack.allowFilter", "true")
    git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "-c", "protocol.file.allow=always", "clone", "-q",
        "--filter=tree:0", f"file://{repo}", str(clone))
    return clone


def arm_remote(clone: Path, markers: Path, how: str, url: str) -> None:
    if how == "ssh":
        git(clone, "config", "remote.origin.url", "ssh://example.invalid/repo.git")
        git(clone, "config", "core.sshCommand", marker_program(markers, "ssh"))
    elif how == "ext":
        git(clone, "config", "remote.origin.url",
            "ext::" + marker_program(markers, "ext"))
        git(clone, "config", "protocol.ext.allow", "always")
    elif how == "http":
        git(clone, "config", "remote.origin.url", url)
        git(clone, "config", "credential.helper",
            marker_program(markers, "credential"))
        git(clone, "config", "core.askPass", marker_program(markers, "askpass"))
    else:  # the local transport runs remote.<name>.uploadpack
        git(clone, "config", "remote.origin.uploadpack",
            marker_program(markers, "uploadpack"))
        git(clone, "config", "protocol.file.allow", "always")
    git(clone, "config", "protocol.allow", "always")


@pytest.mark.parametrize("how", ["ssh", "ext", "http", "file"])
def test_partial_clone_is_refused_and_never_fetches(
        repo: Path, tmp_path: Path, markers: Path, icm, auth_server: str,
        how: str) -> None:
    clone = partial_clone(repo, tmp_path)
    arm_remote(clone, markers, how, auth_server)
    hint = ("icm: partial clone: reading history would fetch missing objects "
            "from the promisor remote; make a full clone (actions/checkout "
            "without 'filter:'), or pass --allow-partial to read only what is "
            "present\n")
    for argv in (("check-stale",), ("check",)):
        assert icm(*argv, "--root", str(clone)) == (2, "", hint)
    assert icm("check-stale", "--allow-partial", "--root", str(clone)) == (
        2, "", "icm: partial clone: history needs objects this clone lacks, and "
               "icm never fetches; make a full clone, or one with "
               "--filter=blob:none (history needs no file contents)\n")
    assert left(markers) == []


def test_allow_partial_reads_a_blobless_clone(repo: Path, tmp_path: Path,
                                              icm) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    git(repo, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "blobless"
    git(tmp_path, "-c", "protocol.file.allow=always", "clone", "-q",
        "--filter=blob:none", f"file://{repo}", str(clone))
    assert icm("check-stale", "--allow-partial", "--root", str(clone)) == (
        1, "src/context.md: STALE - code in src moved 8 days after the note\n", "")


# -- which git runs, and in which environment --------------------------------


def test_git_in_a_relative_path_entry_is_never_run(
        repo: Path, markers: Path, icm, monkeypatch) -> None:
    armed_repository(repo)
    fake = marker_program(markers, "fake-git")
    for folder in (repo, repo / "src"):
        (folder / "git").write_bytes(Path(fake).read_bytes())
        (folder / "git").chmod(0o755)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PATH", os.pathsep.join(
        [".", "", "src", os.environ["PATH"]]))
    run_every_git_command(icm, repo)
    code, out, _ = icm("check-stale")
    assert code == 1 and "src/context.md: STALE" in out
    assert left(markers) == []


def test_gitpython_gets_the_scrubbed_environment(
        repo: Path, tmp_path: Path, icm, monkeypatch) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    commit(repo, {"src/x.py": "2"}, D9)
    empty = tmp_path / "objects"
    empty.mkdir()
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(empty))
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", str(empty))
    monkeypatch.setenv("GIT_COMMON_DIR", str(tmp_path))
    assert icm("check-stale", "--root", str(repo)) == (
        1, "src/context.md: STALE - code in src moved 8 days after the note\n", "")
    assert os.environ["GIT_OBJECT_DIRECTORY"] == str(empty)  # restored after


def test_every_git_process_gets_the_pinned_environment(
        repo: Path, tmp_path: Path, monkeypatch) -> None:
    """GitPython's own processes (``cat-file --batch-check``) are started
    with the clean environment: a wrapper ``git`` records what it got."""
    commit(repo, {"src/context.md": "a"}, D1)
    log = tmp_path / "env.log"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    real = icm_git.executable()
    wrapper.write_text(f"#!/bin/sh\necho \"$GIT_OBJECT_DIRECTORY|$GIT_CONFIG_COUNT|"
                       f"$GIT_ALLOW_PROTOCOL|$*\" >> '{log}'\nexec '{real}' \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path))
    repository = icm_git.Repository(repo)
    try:
        assert repository.has_commits()
    finally:
        repository.close()
    calls = log.read_text().splitlines()
    assert any("cat-file" in call for call in calls)
    count = str(len(icm_git.PINNED))
    assert all(call.startswith(f"|{count}||") for call in calls), calls


# -- settings that must not change an answer ----------------------------------


OUTPUT_SHAPING = {
    "log.showRoot": "false", "log.follow": "true", "diff.renames": "copies",
    "diff.noprefix": "true", "diff.relative": "true", "log.decorate": "full",
    "log.abbrevCommit": "true", "core.quotePath": "true",
    "diff.ignoreSubmodules": "all", "i18n.logOutputEncoding": "ISO-8859-1",
    "log.date": "relative", "format.pretty": "oneline", "log.showSignature": "true",
    "log.mailmap": "true", "color.ui": "always", "color.diff": "always",
    "diff.mnemonicPrefix": "true", "core.abbrev": "7", "log.graphColors": "red",
}


def test_log_settings_do_not_change_a_verdict(repo: Path, icm) -> None:
    # The note is only in the root commit: log.showRoot=false would hide it.
    commit(repo, {"src/context.md": "a", "src/x.py": "1", "src/é ü.py": "1"}, D1)
    commit(repo, {"src/é ü.py": "2"}, D9)
    for key, value in OUTPUT_SHAPING.items():
        git(repo, "config", key, value)
    assert icm("check-stale", "--root", str(repo)) == (
        1, "src/context.md: STALE - code in src moved 8 days after the note\n", "")


@pytest.mark.parametrize("ignore", ["gitmodules", "config"])
def test_submodule_bump_is_seen_when_ignored(repo: Path, tmp_path: Path, icm,
                                             ignore: str) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    commit(sub, {"lib.c": "1"}, D1)
    commit(repo, {"vendor/context.md": "why"}, D1)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(sub), "vendor/lib")
    git(repo, "commit", "-q", "-m", "add submodule", when=D1)
    if ignore == "gitmodules":
        git(repo, "config", "-f", ".gitmodules", "submodule.vendor/lib.ignore", "all")
        git(repo, "add", ".gitmodules")
        git(repo, "commit", "-q", "-m", "ignore", when=D1)
    commit(sub, {"lib.c": "2"}, D9)
    git(repo / "vendor" / "lib", "pull", "-q")
    git(repo, "commit", "-q", "-am", "bump", when=D9)
    if ignore == "config":
        git(repo, "config", "diff.ignoreSubmodules", "all")
    assert icm("check-stale", "--root", str(repo)) == (
        1, "vendor/context.md: STALE - code in vendor moved 8 days after the "
           "note\n", "")
    # An uncommitted bump counts as an uncommitted change of the folder too.
    commit(sub, {"lib.c": "3"}, D9)
    git(repo / "vendor" / "lib", "pull", "-q")
    assert "vendor/lib" in icm_git.pending_paths(repo)


def test_a_submodules_own_filter_never_runs(repo: Path, tmp_path: Path,
                                            markers: Path, icm) -> None:
    """A dirty check of a submodule is a ``git status`` inside it, under its
    own config (``.git/modules/NAME/config``), which no pinned setting
    reaches: every call that compares the work tree looks at its commit only."""
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    commit(sub, {".gitattributes": "*.txt filter=subf\n", "f.txt": "x\n"}, D1)
    commit(repo, {"AGENTS.md": HB, "vendor/context.md": "why",
                  "journal/2026-01-01_a.md": SLOTS_OK}, D1)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(sub), "vendor/lib")
    git(repo, "commit", "-q", "-m", "add submodule", when=D1)
    modules = repo / ".git" / "modules" / "vendor" / "lib" / "config"
    for part in ("clean", "smudge"):
        git(repo, "config", "-f", str(modules), f"filter.subf.{part}",
            marker_program(markers, f"sub-{part}", passthrough=True))
    git(repo, "config", "-f", str(modules), "core.fsmonitor",
        marker_program(markers, "sub-fsmonitor"))
    os.utime(repo / "vendor" / "lib" / "f.txt", (1, 1))  # stat-dirty: git looks
    for argv in (("verify", "--since", "HEAD", "--dry-run"), ("check",),
                 ("handoff", "--reason", "r", "--question", "q", "-o", "-")):
        code, out, err = icm(*argv, "--root", str(repo))
        assert "Traceback" not in out + err and code in (0, 1), (argv, err)
    assert left(markers) == []
    # A moved submodule is still a change since HEAD.
    commit(sub, {"f.txt": "y\n"}, D9)
    git(repo / "vendor" / "lib", "pull", "-q")  # runs the filters itself
    for name in left(markers):
        (markers / name).unlink()
    os.utime(repo / "vendor" / "lib" / "f.txt", (1, 1))
    assert icm_git.changed_since(repo, "HEAD") == frozenset({"vendor/lib"})
    assert left(markers) == []


# -- history git writes oddly ----------------------------------------------------


@pytest.mark.parametrize("committer", [
    "committer t <t@example.com>",
    "committer t <t@example.com> notadate +0000",
    "committer t <t@example.com> -5 +0000",
    None,
])
def test_commit_without_a_valid_date(repo: Path, icm, committer) -> None:
    commit(repo, {"src/context.md": "a", "src/x.py": "1"}, D1)
    write(repo, {"src/x.py": "2"})
    git(repo, "add", "-A")
    tree = git(repo, "write-tree").strip()
    parent = git(repo, "rev-parse", "HEAD").strip()
    lines = [f"tree {tree}", f"parent {parent}",
             "author t <t@example.com> 1790000000 +0000"]
    if committer:
        lines.append(committer)
    body = ("\n".join(lines) + "\n\nno date\n").encode()
    sha = subprocess.run(
        ["git", "hash-object", "-t", "commit", "--literally", "-w", "--stdin"],
        cwd=repo, input=body, env=git_env(), check=True,
        stdout=subprocess.PIPE).stdout.decode().strip()
    git(repo, "update-ref", "HEAD", sha)
    verdict = (f"src/context.md: unknown - commit {sha[:12]} has no valid "
               "committer date\n")
    assert icm("check-stale", "--root", str(repo)) == (0, verdict, "")
    assert icm("check-stale", "--strict", "--root", str(repo)) == (1, verdict, "")


# -- sparse checkouts -----------------------------------------------------------


def test_sparse_checkout_files_outside_the_cone(repo: Path, icm) -> None:
    handbook = ("# H\n\n<!-- icm:index -->\n- [a](a/context.md)\n"
                "- [b](b/context.md)\n<!-- /icm:index -->\n")
    commit(repo, {"AGENTS.md": handbook, "a/context.md": "see [b](../b/x.py)\n",
                  "a/x.py": "1", "b/context.md": "b", "b/x.py": "1",
                  "journal/2026-01-01_b.md": "no slots"}, D1)
    commit(repo, {"b/x.py": "2"}, D9)
    git(repo, "sparse-checkout", "set", "a")
    assert not (repo / "b").exists() and not (repo / "journal").exists()
    files: Dict[str, str] = {}
    for command in ("check-links", "check-journal", "check-stale", "bootmap"):
        code, out, err = icm(command, "--root", str(repo))
        files[command] = out
        assert err == "" and "cannot read" not in out, (command, out)
    assert files["check-links"] == "links ok\n"
    assert files["check-stale"] == "a/context.md: ok\n"
    assert icm("check-links", "--fix", "--root", str(repo))[0] == 0
    assert (repo / "AGENTS.md").read_text() == handbook


# -- repository text is data on every git command line ---------------------------

# The parameters of icm.git that only ever hold icm's own values. Any other
# parameter may carry text icm did not write (a ref from --base, ICM_BASE or
# queue_refs, a configured folder, a commit named in a record), so its
# function must be in GIT_CALLS below.
OWN_PARAMETERS = {"self", "root", "cwd", "mode", "at_top", "allow_partial", "limit",
                  "cap", "chunk", "check", "stdin", "filters", "partial", "seen",
                  "roots"}
# The mechanism itself, and a parser that runs nothing.
NOT_A_CALL = {"command", "run", "streamed", "unopened", "history_command",
              "own_commits_command", "changes_command"}  # argv builders

EVIL = ["--output={outside}/written", "-o", "-c", "--all", "--exec={program}",
        "--upload-pack={program}"]


def _answer(call, text: str):
    """The call's answer, or its refusal (a clean one: UsageError only)."""
    try:
        return call(text)
    except icm_git.UsageError as exc:
        return ("refused", str(exc))


# name -> (call with the option-shaped text x, what it must equal): "plain"
# means the same call with a ref named "plain" (the commit x names too).
def _calls(repo: Path, x: str):
    g = icm_git
    return {
        "commit_of": (lambda r: g.commit_of(repo, r), "plain"),
        "merge_base": (lambda r: (g.merge_base(repo, r, "HEAD"),
                                  g.merge_base(repo, "HEAD", r)), "plain"),
        "ahead_behind": (lambda r: (g.ahead_behind(repo, r, "HEAD"),
                                    g.ahead_behind(repo, "HEAD", r)), "plain"),
        "count_commits": (lambda r: (g.count_commits(repo, r),
                                     g.count_commits(repo, "HEAD~2", r)), "plain"),
        "signature_state": (lambda r: g.signature_state(repo, r), "plain"),
        "log_subjects": (lambda r: (g.log_subjects(repo, f"{r}..HEAD", 5),
                                    g.log_subjects(repo, r, 5)), "plain"),
        "log_messages": (lambda r: g.log_messages(repo, r, 5), "plain"),
        "diff_status": (lambda r: (g.diff_status(repo, r, "HEAD", []),
                                   g.diff_status(repo, "HEAD", r, ["src"])), "plain"),
        "tree_entries": (lambda r: g.tree_entries(repo, r, ["src"]), "plain"),
        "default_base": (lambda r: g.commit_of(repo, g.default_base(
            repo, {"ICM_BASE": r}) or "none"), "plain"),
        "base_facts": (lambda r: (g.base_facts(repo, {}, r)[::2], g.base_facts(
            repo, {"ICM_BASE": r})[::2]), "plain"),
        # origin/HEAD's target, named like an option: main is ahead of it
        # (checked out on ``plain``, so main is not the current branch).
        "base_facts origin": (lambda r: _on_branch(repo, "plain", lambda: _origin_at(
            repo, r, lambda: g.base_facts(repo, {})[1])), "main"),
        "commits_of": (lambda r: g.commits_of(repo, [r, "HEAD", r]), "plain"),
        # A revision that looks like an option is refused before git runs.
        "changed_since": (lambda r: g.changed_since(repo, r),
                          ("refused", f"--since {x}: not a revision")),
        # Paths: a folder named x, holding f.md (added by HEAD).
        "added_paths": (lambda _: g.added_paths(repo, x), [f"{x}/f.md"]),
        "diff_status folders": (lambda _: g.diff_status(repo, "HEAD~1", "HEAD", [x]),
                                [("A", f"{x}/f.md")]),
        "tree_entries folders": (lambda _: sorted(g.tree_entries(repo, "HEAD", [x])),
                                 [f"{x}/f.md"]),
        "index_entries": (lambda _: sorted(g.index_entries(repo, [x])),
                          [f"{x}/f.md"]),
        # Text icm never passes as an argument: config keys are icm's own,
        # blob ids and commits go to cat-file's standard input (commits only
        # when they are hashes).
        "config_value": (lambda _: g.config_value(repo, x), None),
        # Paths go to check-ignore's and check-attr's standard input.
        "ignored_paths": (lambda _: g.ignored_paths(repo, [f"{x}/f.md", x]),
                          frozenset()),
        "attributes": (lambda _: g.attributes(repo, [f"{x}/f.md"], ["a"]),
                       {f"{x}/f.md": {"a": "unspecified"}}),
        "read_blobs": (lambda _: g.read_blobs(repo, [x]), {}),
        "commit_positions": (lambda _: g.commit_positions(repo, [x]), {}),
        "stage_move": (lambda _: _moved(repo, x), ["D", f"{x}/f.md", "A", f"{x}/g.md"]),
        # Paths and commits go to git log's standard input, after "--" and
        # before it; a commit must be a hash, so x names none.
        "path_changes": (lambda _: [[p for p, _, _ in changes] for _, _, changes
                                    in g.path_changes(repo, "first-parent",
                                                      [f"{x}/f.md"])],
                         [[f"{x}/f.md"]]),
        "net_changes": (lambda _: [[p for p, _, _ in changes] for changes in
                                   g.net_changes(repo, [g.commit_of(repo, "HEAD~1")],
                                                 g.commit_of(repo, "HEAD"),
                                                 [x]).values()],
                        [[f"{x}/f.md"]]),
        "net_changes commits": (lambda r: g.net_changes(
            repo, [r, g.commit_of(repo, r) or "none"], g.commit_of(repo, "HEAD"),
            ["src"]), "plain"),
        "path_changes commits": (lambda _: list(g.path_changes(
            repo, "first-parent", ["src/a.py"], commits=[x])), []),
        "path_changes base": (lambda r: [sha for sha, _, _ in g.path_changes(
            repo, "first-parent", ["src/a.py"], base=g.commit_of(repo, r))],
            "plain"),
        # A root commit's tree (a commit git printed; here a ref like x)
        "root_tree": (lambda r: list(g.root_tree(repo, r.encode(), True)), "plain"),
        # The base as the stale check passes it: resolved to a commit first.
        "HistoryPass.__init__": (lambda r: sorted(g.HistoryPass(
            repo, "first-parent", base=g.commit_of(repo, r)).result().items()),
            "plain"),
    }


def _on_branch(repo: Path, branch: str, call):
    """``call()`` with HEAD on ``branch`` (no checkout: nothing reads the
    work tree), then back."""
    before = git(repo, "symbolic-ref", "HEAD").strip()
    git(repo, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    try:
        return call()
    finally:
        git(repo, "symbolic-ref", "HEAD", before)


def _origin_at(repo: Path, branch: str, call):
    """``call()`` with ``origin/HEAD`` pointing at ``branch``, then none."""
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", f"refs/heads/{branch}")
    try:
        return call()
    finally:
        git(repo, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD")


def _moved(repo: Path, x: str) -> List[str]:
    """``stage_move`` of x/f.md to x/g.md: what the index then says."""
    os.rename(repo / x / "f.md", repo / x / "g.md")
    icm_git.stage_move(repo, f"{x}/f.md", f"{x}/g.md")
    return git(repo, "diff", "--cached", "--no-renames", "--name-status",
               "-z").split("\0")[:-1]


def _evil_repository(repo: Path, x: str) -> None:
    commit(repo, {"AGENTS.md": "# H\n", "src/a.py": "0\n"}, D1, "zero")
    commit(repo, {"src/a.py": "1\n"}, D1, "one\n\nbody")
    git(repo, "update-ref", f"refs/heads/{x}", "HEAD")
    git(repo, "update-ref", "refs/heads/plain", "HEAD")
    commit(repo, {"src/a.py": "2\n", f"{x}/f.md": "f\n"}, D9, "two")


def test_every_function_taking_outside_text_is_called_with_an_option(
        repo: Path) -> None:
    """A function of icm.git with a parameter that may hold text icm did not
    write is listed in ``_calls`` (so fed option-shaped values) or is the
    argument builder itself; one added without a listing fails here."""
    import inspect

    taking = set()
    for name, member in vars(icm_git).items():
        if name.startswith("_") or getattr(member, "__module__", "") != "icm.git":
            continue
        functions = [(name, member)] if inspect.isfunction(member) else [
            (f"{name}.{m}", f) for m, f in vars(member).items()
            if inspect.isfunction(f)] if inspect.isclass(member) else []
        for qualified, function in functions:
            if set(inspect.signature(function).parameters) - OWN_PARAMETERS:
                taking.add(qualified)
    listed = {name.split()[0] for name in _calls(repo, "x")}
    assert taking - NOT_A_CALL == listed


@pytest.mark.parametrize("template", EVIL)
def test_option_shaped_text_reaches_git_only_as_data(
        repo: Path, tmp_path: Path, markers: Path, template: str) -> None:
    """A ref named ``--output=/path`` made ``git rev-list`` write that file
    (issue 22): every function taking outside text, given a ref, a folder or
    a key shaped like an option, answers as it does for a plain ref to the
    same commit (or refuses cleanly), and nothing is written or run."""
    outside = tmp_path / "outside"
    outside.mkdir()
    x = template.format(outside=outside, program=marker_program(markers, "ran"))
    _evil_repository(repo, x)
    for name, (call, want) in _calls(repo, x).items():
        got = _answer(call, x)
        expected = _answer(call, "plain") if want == "plain" else want
        assert got == expected, name
        assert os.listdir(outside) == [] and left(markers) == [], name
    assert icm_git.command("log", "-z", revs=[x], paths=[x]) == [
        "log", "-z", "--end-of-options", x, "--", x]


@pytest.mark.parametrize("template", EVIL)
def test_option_shaped_refs_through_the_cli(repo: Path, tmp_path: Path,
                                            markers: Path, icm, monkeypatch,
                                            template: str) -> None:
    """Every command that takes a ref from outside (``--base``, ``ICM_BASE``,
    ``--against``, ``queue_refs``, ``--since``) reads one named like an
    option as that ref, or refuses it in one line; nothing is written
    outside the repository and nothing runs."""
    outside = tmp_path / "outside"
    outside.mkdir()
    x = template.format(outside=outside, program=marker_program(markers, "ran"))
    _evil_repository(repo, x)
    commit(repo, {"queue/01_first.md": "# First\n",
                  "journal/2026-10-01_a.md": SLOTS_OK}, D9, "queue")
    mb = git(repo, "rev-parse", "plain").strip()
    root = ("--root", str(repo))
    record = ("handoff", *root, "--reason", "r", "--question", "q", "-o", "-")
    code, out, err = icm(*record, "--base", x)
    assert (code, err) == (0, "") and f"- base: {x} (from --base)\n" in out
    assert f"- merge base: {mb}\n" in out and "- 2 commits since" in out
    monkeypatch.setenv("ICM_BASE", x)
    code, out, err = icm(*record)
    assert (code, err) == (0, "") and f"- base: {x} (from default" in out
    assert f"- merge base: {mb}\n" in out
    said = (0, f"queue ok (against {x})\n", "")
    assert icm("check-queue", *root) == said
    monkeypatch.delenv("ICM_BASE")
    assert icm("check-queue", *root, "--against", x) == said
    assert icm("new-queue", *root, "--against", x, "Second") == (
        0, "queue/02_second.md\n", "")
    write(repo, {"icm.toml": f"queue_refs = [{json.dumps(x)}]\n"})
    assert icm("new-queue", *root, "Third") == (0, "queue/03_third.md\n", "")
    assert icm("verify", *root, "--since", x) == (
        2, "", f"icm: --since {x}: not a revision\n")
    assert os.listdir(outside) == [] and left(markers) == []
