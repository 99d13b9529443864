"""``icm verify``: real commands in real repositories, whole-output golden
lines (durations pinned through ``verify.CLOCK``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest

from icm import config, context
from icm.workflow import verify
from tests.conftest import commit, git, write

ROOT = Path(__file__).resolve().parent.parent
D1 = "2026-01-01T00:00:00+00:00"


def entry(command: str, title: str = "Entry", head: str = "") -> str:
    """A complete entry whose Verify command slot holds ``command`` as is."""
    return (f"# {title}\n{head}\n## Decision\nx\n\n## Rejected alternative\ny\n\n"
            f"## Invariant\nz\n\n## Verify command\n{command}\n")


def sh(script: str) -> str:
    return f"```sh\n{script}\n```"


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every duration reads 0.0 s, so verdict lines are exact."""
    monkeypatch.setattr(verify, "CLOCK", lambda: 0.0)


def run_verify(icm, repo: Path, *args: str):
    return icm("verify", "--root", str(repo), *args)


def gone(pid: int, within: float = 10.0) -> bool:
    """The process no longer runs (gone, or a zombie waiting for its reaper).
    A wait for a state, not a timing: it returns as soon as the state holds."""
    until = time.monotonic() + within
    while time.monotonic() < until:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "\nState:\tZ" in status:
            return True
        time.sleep(0.05)
    return False


def wait_for(path: Path, within: float = 20.0) -> str:
    until = time.monotonic() + within
    while time.monotonic() < until:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


# -- verdicts ------------------------------------------------------------------

def test_true_holds_false_is_broken(repo: Path, icm, pinned: None) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`true`"),
                 "journal/2026-01-02_b.md": entry(sh("echo checking\nfalse"))})
    assert run_verify(icm, repo) == (1, (
        "journal/2026-01-01_a.md: holds (0.0 s)\n"
        "journal/2026-01-02_b.md: BROKEN - verify command exited 1: checking\n"
        "verify: 1 hold, 1 broken, 0 timed out, 0 skipped, 0 not run\n"), "")


def test_all_hold_exits_zero(repo: Path, icm, pinned: None) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`test -d journal`")})
    assert run_verify(icm, repo) == (0, (
        "journal/2026-01-01_a.md: holds (0.0 s)\n"
        "verify: 1 hold, 0 broken, 0 timed out, 0 skipped, 0 not run\n"), "")


def test_duration_is_measured_and_shown_to_a_tenth(repo: Path, icm,
                                                   monkeypatch) -> None:
    ticks = iter([10.0, 10.44])
    monkeypatch.setattr(verify, "CLOCK", lambda: next(ticks))
    write(repo, {"journal/2026-01-01_a.md": entry("`true`")})
    assert run_verify(icm, repo)[1].splitlines()[0] == \
        "journal/2026-01-01_a.md: holds (0.4 s)"
    assert verify.seconds(12.25) == "12.2 s" and verify.seconds(0.05) == "0.1 s"


def test_broken_without_output_and_killed_by_a_signal(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`exit 4`"),
                 "journal/2026-01-02_b.md": entry(sh("echo bye\nkill -TERM $$"))})
    assert run_verify(icm, repo)[1].splitlines()[:2] == [
        "journal/2026-01-01_a.md: BROKEN - verify command exited 4",
        "journal/2026-01-02_b.md: BROKEN - verify command was killed by SIGTERM: bye",
    ]


def test_command_runs_from_the_root_with_the_users_environment(
        repo: Path, icm, monkeypatch, pinned: None) -> None:
    monkeypatch.setenv("ICM_TEST_MARK", "from-the-user")
    monkeypatch.chdir(repo / ".git")
    write(repo, {"journal/2026-01-01_a.md": entry(sh(
        'test "$(pwd)" = "$(git rev-parse --show-toplevel)"\n'
        'test "$ICM_TEST_MARK" = from-the-user'))})
    assert run_verify(icm, repo)[0] == 0


def test_stdin_is_closed(repo: Path, icm, pinned: None) -> None:
    # Reading stdin gets EOF at once; with an open stdin `cat` would wait
    # until the timeout and the verdict would be TIMEOUT.
    write(repo, {"icm.toml": "verify_timeout = 20\n",
                 "journal/2026-01-01_a.md": entry(sh("cat\necho got-eof\nexit 1"))})
    assert run_verify(icm, repo)[1].splitlines()[0] == \
        "journal/2026-01-01_a.md: BROKEN - verify command exited 1: got-eof"


def test_timeout_kills_the_whole_group(repo: Path, icm, pinned: None) -> None:
    script = "sleep 300 &\necho $! > bg.pid\nsleep 300"
    write(repo, {"icm.toml": "verify_timeout = 1\n",
                 "journal/2026-01-01_a.md": entry(sh(script))})
    assert run_verify(icm, repo) == (1, (
        "journal/2026-01-01_a.md: TIMEOUT - verify command ran past 1 s\n"
        "verify: 0 hold, 0 broken, 1 timed out, 0 skipped, 0 not run\n"), "")
    assert gone(int((repo / "bg.pid").read_text()))


def test_background_child_is_killed_when_the_shell_is_done(
        repo: Path, icm, pinned: None) -> None:
    # The child keeps the output pipe open: the shell's exit ends the wait.
    write(repo, {"icm.toml": "verify_timeout = 30\n",
                 "journal/2026-01-01_a.md": entry(sh("sleep 300 &\necho $! > bg.pid"))})
    assert run_verify(icm, repo)[:2] == (0, (
        "journal/2026-01-01_a.md: holds (0.0 s)\n"
        "verify: 1 hold, 0 broken, 0 timed out, 0 skipped, 0 not run\n"))
    assert gone(int((repo / "bg.pid").read_text()))


@pytest.mark.skipif(not (Path("/proc/self/environ").exists()
                         and shutil.which("setsid")),
                    reason="needs /proc and setsid (Linux)")
def test_a_child_that_left_the_group_is_killed_too(
        repo: Path, icm, pinned: None) -> None:
    """``setsid`` leaves the process group the command is killed by; the
    child still carries the command's token in its environment (hostile
    round: it outlived icm verify)."""
    write(repo, {"icm.toml": "verify_timeout = 30\n",
                 "journal/2026-01-01_a.md": entry(sh(
                     "setsid sh -c 'echo $$ > bg.pid; exec sleep 300' "
                     ">/dev/null 2>&1 &\n"
                     "while [ ! -s bg.pid ]; do sleep 0.05; done"))})
    assert run_verify(icm, repo)[0] == 0
    assert gone(int((repo / "bg.pid").read_text()))


def test_fifty_megabytes_of_output_in_flat_memory(repo: Path) -> None:
    lines = "yes 0123456789 | head -c 52428800\necho\necho final\nexit 1"
    one_line = "head -c 52428800 /dev/zero | tr '\\0' x\nexit 1"
    write(repo, {"journal/2026-01-01_a.md": entry(sh(lines)),
                 "journal/2026-01-02_b.md": entry(sh(one_line))})
    ctx = context.build(repo, config.load(repo))
    tracemalloc.start()
    try:
        result = verify.run(ctx, jobs=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak  # the output is 100 MB in all
    messages = [f.line_text for f in result.findings]
    assert messages[0] == \
        "journal/2026-01-01_a.md: BROKEN - verify command exited 1: final"
    assert messages[1] == ("journal/2026-01-02_b.md: BROKEN - verify command "
                           "exited 1: " + "x" * verify.LINE_BYTES)
    tails = {e["path"]: e["output_tail"] for e in result.data["entries"]}
    assert tails["journal/2026-01-01_a.md"][-3:] == ["0123456789", "012345", "final"]
    assert len(tails["journal/2026-01-01_a.md"]) == verify.TAIL_LINES


def test_tail_keeps_last_lines_across_chunks() -> None:
    tail = verify.Tail(lines=3, width=5)
    for chunk in (b"one\ntw", b"o\nthree-long\nfo", b"ur\n", b"fi", b"ve"):
        tail.feed(chunk)
    assert tail.text() == ("-long", "four", "five")


def test_invalid_utf8_and_control_characters_are_replaced(repo: Path, icm) -> None:
    script = "printf 'bad \\377\\376 bytes\\n'\nprintf '\\033[31m::error::x\\n'\nexit 1"
    write(repo, {"journal/2026-01-01_a.md": entry(sh(script))})
    code, out, err = run_verify(icm, repo)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == ("journal/2026-01-01_a.md: BROKEN - verify "
                                   "command exited 1: \\x1b[31m::error::x")
    _, doc, _ = run_verify(icm, repo, "--format", "json")
    tail = json.loads(doc)["checks"][0]["data"]["entries"][0]["output_tail"]
    assert tail == ["bad \ufffd\ufffd bytes", "\x1b[31m::error::x"]


def test_parallel_runs_at_once(repo: Path, icm, monkeypatch, pinned: None) -> None:
    # Each command waits for the other's flag: only concurrent runs hold.
    # The wait's bound comes from the environment (which the commands get).
    def waits_for(mine: str, other: str) -> str:
        return sh(f"touch {mine}\ni=0\nwhile [ ! -e {other} ]; do\n  sleep 0.05\n"
                  '  i=$((i+1))\n  if [ $i -gt "$ICM_TEST_LIMIT" ]; then echo alone; '
                  "exit 1; fi\ndone")

    monkeypatch.setenv("ICM_TEST_LIMIT", "400")

    write(repo, {"journal/2026-01-01_a.md": entry(waits_for("a.flag", "b.flag")),
                 "journal/2026-01-02_b.md": entry(waits_for("b.flag", "a.flag"))})
    assert run_verify(icm, repo, "--jobs", "2")[:2] == (0, (
        "journal/2026-01-01_a.md: holds (0.0 s)\n"
        "journal/2026-01-02_b.md: holds (0.0 s)\n"
        "verify: 2 hold, 0 broken, 0 timed out, 0 skipped, 0 not run\n"))
    (repo / "a.flag").unlink()
    (repo / "b.flag").unlink()
    monkeypatch.setenv("ICM_TEST_LIMIT", "20")
    assert run_verify(icm, repo, "--jobs", "1")[1].splitlines()[0] == \
        "journal/2026-01-01_a.md: BROKEN - verify command exited 1: alone"


def _signalled_mid_run(repo: Path, sig: int) -> Tuple[int, str, str]:
    """A real ``icm verify`` of two commands, each with a background child,
    sent ``sig`` once both run; its exit, stdout and stderr, after checking
    that neither child outlived it."""
    write(repo, {"journal/2026-01-01_a.md": entry(sh(
        "sleep 300 &\necho $! > a.pid\nwait")),
        "journal/2026-01-02_b.md": entry(sh("sleep 300 &\necho $! > b.pid\nwait"))})
    proc = subprocess.Popen([sys.executable, "-m", "icm", "verify", "--jobs", "2",
                             "--root", str(repo)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        pids = [int(wait_for(repo / "a.pid")), int(wait_for(repo / "b.pid"))]
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert all(gone(pid) for pid in pids)
    return proc.returncode, out, err


def test_ctrl_c_kills_every_group_and_exits_130(repo: Path) -> None:
    assert _signalled_mid_run(repo, signal.SIGINT) == (130, "", "icm: interrupted\n")


def test_sigterm_kills_every_group_and_then_icm(repo: Path) -> None:
    """``timeout 40 icm verify`` (the before-stop hook) sends SIGTERM: its
    commands used to run on after icm had died."""
    assert _signalled_mid_run(repo, signal.SIGTERM) == (-signal.SIGTERM, "", "")


def test_sighup_kills_every_group_and_then_icm(repo: Path) -> None:
    """A closed terminal sends SIGHUP: icm died of it and its commands, each
    in a session of its own, ran on (hostile round 2)."""
    assert _signalled_mid_run(repo, signal.SIGHUP) == (-signal.SIGHUP, "", "")


@pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                    reason="needs /proc (Linux)")
def test_a_nested_verifys_commands_die_with_the_outer_run(
        repo: Path, tmp_path: Path) -> None:
    """An outer Verify command runs ``icm verify`` on another tree and times
    out: the outer run kills the inner icm, whose own commands (groups of
    their own, carrying only the inner token) ran on."""
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q")
    write(inner, {"journal/2026-01-01_a.md": entry(sh(
        "echo $$ > inner.pid\nexec sleep 300"))})
    write(repo, {"icm.toml": "verify_timeout = 3\n",
                 "journal/2026-01-01_a.md": entry(sh(
                     f"icm verify --root '{inner}'"))})
    done = subprocess.run([sys.executable, "-m", "icm", "verify", "--root",
                           str(repo)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.stdout.startswith("journal/2026-01-01_a.md: TIMEOUT")
    assert gone(int(wait_for(inner / "inner.pid")))


@pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                    reason="needs /proc (Linux)")
def test_a_child_that_forks_on_and_on_is_stopped_then_killed(
        repo: Path, icm, pinned: None) -> None:
    """A child that leaves its group and forks a new pid every few
    milliseconds outran a fixed number of sweeps."""
    hop = ("import os, time\nos.setsid()\n"
           "end = time.time() + 30\n"
           "while time.time() < end:\n"
           "    if os.fork():\n        os._exit(0)\n"
           "    open('hop.tmp', 'w').write(str(os.getpid()))\n"
           "    os.replace('hop.tmp', 'hop.pid')\n"
           "    time.sleep(0.002)\n")
    write(repo, {"hop.py": hop, "icm.toml": "verify_timeout = 30\n",
                 "journal/2026-01-01_a.md": entry(sh(
                     f"'{sys.executable}' hop.py >/dev/null 2>&1 &\n"
                     "while [ ! -s hop.pid ]; do sleep 0.05; done\nsleep 0.3"))})
    assert run_verify(icm, repo)[0] == 0
    last = (repo / "hop.pid").read_text()
    time.sleep(0.5)  # a live hopper writes a new pid every few ms
    assert (repo / "hop.pid").read_text() == last and gone(int(last))


# -- what runs ---------------------------------------------------------------------

def test_exempt_superseded_no_command_and_skip(repo: Path, icm, pinned: None) -> None:
    write(repo, {
        "icm.toml": "journal_exempt = ['journal/2026-01-01_old.md']\n"
                    "[verify_skip]\n"
                    "'journal/2026-01-04_gpu.md' = 'needs a GPU'\n"
                    "'journal/2026-01-05_net.md' = 'needs the network'\n"
                    "'journal/2026-01-09_gone.md' = 'was removed'\n",
        "journal/2026-01-01_old.md": "prose only\n`false`\n",
        "journal/2026-01-02_new.md": entry("`true`"),
        "journal/2026-01-03_was.md": entry(
            "`false`", head="Superseded-by: [new](2026-01-02_new.md)\n"),
        "journal/2026-01-04_gpu.md": entry("`false`"),
        "journal/2026-01-05_net.md": entry("`true`"),
        "journal/2026-01-06_prose.md": entry("Run the tests."),
        "journal/2026-01-07_python.md": entry("```python\nprint(1)\n```"),
    })
    assert run_verify(icm, repo) == (1, (
        "journal/2026-01-01_old.md: exempt, not run\n"
        "journal/2026-01-02_new.md: holds (0.0 s)\n"
        "journal/2026-01-03_was.md: superseded by journal/2026-01-02_new.md, "
        "not run\n"
        "journal/2026-01-04_gpu.md: skipped (needs a GPU)\n"
        "journal/2026-01-05_net.md: skipped (needs the network) but holds, remove "
        "it from verify_skip\n"
        "journal/2026-01-06_prose.md: no verify command (the 'Verify command' slot "
        "holds no code)\n"
        "journal/2026-01-07_python.md: no verify command (the 'Verify command' "
        "slot holds no code)\n"
        "journal/2026-01-09_gone.md: on verify_skip but missing, remove it from "
        "verify_skip\n"
        "verify: 1 hold, 0 broken, 0 timed out, 2 skipped, 4 not run\n"), "")


def test_skip_as_a_list_of_tables(repo: Path, icm, pinned: None) -> None:
    write(repo, {"icm.toml": "verify_skip = [{path = 'journal/2026-01-01_a.md', "
                             "reason = 'needs docker'}]\n",
                 "journal/2026-01-01_a.md": entry("`false`")})
    assert run_verify(icm, repo)[:2] == (0, (
        "journal/2026-01-01_a.md: skipped (needs docker)\n"
        "verify: 0 hold, 0 broken, 0 timed out, 1 skipped, 0 not run\n"))


def test_missing_verify_slot(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md": "# A\n\n## Decision\nx\n"})
    assert run_verify(icm, repo)[:2] == (0, (
        "journal/2026-01-01_a.md: no verify command (the 'Verify command' slot "
        "is missing)\n"
        "verify: 0 hold, 0 broken, 0 timed out, 0 skipped, 1 not run\n"))


def test_dry_run_prints_each_command_and_where(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry(sh("echo one\necho two")),
                 "journal/2026-01-02_b.md": entry("`touch ran`")})
    code, out, err = run_verify(icm, repo, "--dry-run")
    where = context.build(repo, config.load(repo)).root
    assert (code, err) == (0, "")
    assert out == (f"journal/2026-01-01_a.md: would run in {where}:\n"
                   "    echo one\n    echo two\n"
                   f"journal/2026-01-02_b.md: would run in {where}:\n"
                   "    touch ran\n"
                   "verify: 2 commands would run\n")
    assert not (repo / "ran").exists()
    assert run_verify(icm, repo, "--dry-run", "2026-01-02")[1].endswith(
        "verify: 1 command would run\n")


def test_dry_run_escapes_each_line_of_repository_text(repo: Path, icm) -> None:
    hostile = "journal/2026-01-02_b\n::error::x.md"
    write(repo, {"journal/2026-01-01_a.md": entry(sh(
                     "echo \x1b[2J\u202e\x85\n::error file=AGENTS.md::forged")),
                 hostile: entry("`true`")})
    code, out, err = run_verify(icm, repo, "--dry-run")
    where = context.build(repo, config.load(repo)).root
    assert (code, err) == (0, "")
    assert out == (f"journal/2026-01-01_a.md: would run in {where}:\n"
                   "    echo \\x1b[2J\\u202e\\x85\n"
                   "    \\x3a:error file=AGENTS.md::forged\n"  # GitHub reads
                   f"journal/2026-01-02_b\\n::error::x.md: would run in {where}:\n"
                   "    true\n"  # a command after whitespace (hostile round 2)
                   "verify: 2 commands would run\n")
    # json keeps its text whole: the script's lines under the message
    _, doc, _ = run_verify(icm, repo, "--dry-run", "--format", "json")
    (first, second) = json.loads(doc)["checks"][0]["findings"]
    assert first["text"] == (f"journal/2026-01-01_a.md: would run in {where}:\n"
                             "    echo \\x1b[2J\\u202e\\x85\n"
                             "    ::error file=AGENTS.md::forged")
    assert second["message"] == f"would run in {where}:"
    assert second["text"].endswith(f"would run in {where}:\n    true")


def test_entries_by_path_name_or_date_prefix(repo: Path, icm, pinned: None) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`true`"),
                 "journal/2026-02-01_b.md": entry("`true`"),
                 "journal/2026-02-02_c.md": entry("`true`")})

    def verified(*names: str) -> list:
        out = run_verify(icm, repo, *names)[1]
        return [line.split(":")[0] for line in out.splitlines()[:-1]]

    assert verified("2026-02") == ["journal/2026-02-01_b.md",
                                   "journal/2026-02-02_c.md"]
    assert verified("journal/2026-01-01_a.md", "2026-02-02_c.md") == [
        "journal/2026-01-01_a.md", "journal/2026-02-02_c.md"]
    assert run_verify(icm, repo, "2027") == (
        2, "", "icm: no journal entry matches '2027'\n")


def test_since_runs_entries_naming_changed_paths(repo: Path, icm,
                                                 pinned: None) -> None:
    commit(repo, {
        "src/a.py": "x = 1\n", "docs/b.txt": "y\n", "lib/c.py": "z\n",
        "journal/2026-01-01_src.md": entry("`grep -q x src/a.py`"),
        "journal/2026-01-02_docs.md": entry("`grep -q y docs/b.txt`"),
        "journal/2026-01-03_any.md": entry("`true`"),
        "journal/2026-01-04_folder.md": entry("`test -d ./src/`"),
        "journal/2026-01-05_prose.md": entry(
            "`grep -q z lib/c.py`").replace("z\n\n## Verify", "See src/a.py.\n\n"
                                                              "## Verify"),
    }, D1)
    write(repo, {"src/a.py": "x = 2\n"})
    assert run_verify(icm, repo, "--since", "HEAD") == (0, (
        "journal/2026-01-01_src.md: holds (0.0 s)\n"
        "journal/2026-01-03_any.md: holds (0.0 s)\n"
        "journal/2026-01-04_folder.md: holds (0.0 s)\n"
        "journal/2026-01-05_prose.md: holds (0.0 s)\n"
        "verify: 4 hold, 0 broken, 0 timed out, 0 skipped, 0 not run, 1 left out "
        "(nothing they name changed since HEAD)\n"), "")
    commit(repo, {}, D1)
    assert run_verify(icm, repo, "--since", "HEAD")[1].splitlines() == [
        "journal/2026-01-03_any.md: holds (0.0 s)",
        "verify: 1 hold, 0 broken, 0 timed out, 0 skipped, 0 not run, 4 left out "
        "(nothing they name changed since HEAD)"]
    assert run_verify(icm, repo, "--since", "nope")[0] == 2
    assert run_verify(icm, repo, "--since", "--output=x") == (
        2, "", "icm: --since --output=x: not a revision\n")


def test_json_carries_command_exit_code_duration_and_tail(
        repo: Path, icm, monkeypatch) -> None:
    ticks = iter([1.0, 1.25])
    monkeypatch.setattr(verify, "CLOCK", lambda: next(ticks))
    write(repo, {"journal/2026-01-01_a.md": entry(sh("echo a\necho b\nexit 2"))})
    code, out, _ = run_verify(icm, repo, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    check = doc["checks"][0]
    assert check["data"]["entries"] == [{
        "path": "journal/2026-01-01_a.md", "command": "echo a\necho b\nexit 2",
        "exit_code": 2, "timed_out": False, "duration": 0.25,
        "output_tail": ["a", "b"], "skipped": None}]
    assert check["findings"][0]["line"] == 12 and \
        check["findings"][0]["code"] == "broken"


def test_github_annotates_the_verify_line(repo: Path, icm, pinned: None) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`echo 'no, 100%'; exit 1`"),
                 "journal/2026-01-02_b.md": entry("`true`")})
    assert run_verify(icm, repo, "--format", "github")[:2] == (1, (
        "::error file=journal/2026-01-01_a.md,line=12,title=icm verify/broken::"
        "journal/2026-01-01_a.md: BROKEN - verify command exited 1: no, 100%25 "
        "(fix: the invariant no longer holds: fix the code, or supersede the "
        "entry with one that states what is true now)\n"
        "verify: 1 hold, 1 broken, 0 timed out, 0 skipped, 0 not run\n"))


# -- extraction ----------------------------------------------------------------------

def command_of(body: str) -> Optional[str]:
    from icm.config import DEFAULT_SLOTS
    from icm.model.journal import parse_entry

    return parse_entry(entry(body), "journal/x.md", DEFAULT_SLOTS,
                       "Verify command").command


@pytest.mark.parametrize("body, script", [
    ("`pytest -q`", "pytest -q"),
    ("Run `a` then:\n\n```sh\nb\nc\n```", "b\nc"),
    ("```bash\nb\n```", "b"),
    ("```shell\nb\n```", "b"),
    ("```\nb\n```", "b"),
    ("Text.\n\n    indented one\n    indented two\n", "indented one\nindented two"),
    ("```console\n$ make check \\\n  --quiet\nok\n$ echo done\ndone\n```",
     "make check \\\n  --quiet\necho done"),
    ("```console\nmake check\n```", "make check"),
    ("```python\nprint(1)\n```\n\n`fallback`", "fallback"),
    ("```SH title\nb\n```", "b"),
    ("### Detail\n\n```sh\nunder a sub-heading\n```", "under a sub-heading"),
    ("- item with `code` in a list", "code"),
    ("No code here.", None),
    ("```python\nprint(1)\n```", None),
    ("```sh\n```\n", None),
])
def test_command_extraction(body: str, script: Optional[str]) -> None:
    assert command_of(body) == script


def test_verify_slot_is_configurable(repo: Path, icm, pinned: None) -> None:
    write(repo, {"icm.toml": "slots = ['Why', 'Check']\nverify_slot = 'Check'\n",
                 "journal/2026-01-01_a.md": "## Why\nx\n\n## Check\n`true`\n"})
    assert run_verify(icm, repo)[:2] == (0, (
        "journal/2026-01-01_a.md: holds (0.0 s)\n"
        "verify: 1 hold, 0 broken, 0 timed out, 0 skipped, 0 not run\n"))
    write(repo, {"icm.toml": "slots = ['Why']\n"})
    assert run_verify(icm, repo) == (
        2, "", "icm: icm.toml: no slot holds the Verify command: slots has no "
        "fourth and verify_slot is unset; set verify_slot to the slot whose code "
        "icm verify runs\n")
    # A repository that does not use verify passes its checks all the same.
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")


# -- safety ----------------------------------------------------------------------------

def test_check_never_runs_verify_commands(repo: Path, icm) -> None:
    from icm import registry

    write(repo, {"AGENTS.md": "# H\n",
                 "journal/2026-01-01_a.md": entry("`touch ran-by-check`")})
    assert "verify" not in registry.BY_NAME
    icm("check", "--root", str(repo))
    icm("check-journal", "--root", str(repo))
    assert not (repo / "ran-by-check").exists()


def test_verify_hook_is_opt_in_and_separate() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = {h["id"]: h for h in
             clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert hooks["icm-verify"]["entry"] == "icm verify"
    assert "verify" not in hooks["icm-check"]["entry"]
    guide = (ROOT / "docs" / "verify.md").read_text()
    assert "never part of `icm check`" in guide


# -- the example repository --------------------------------------------------------

def _example(tmp_path: Path) -> Path:
    target = tmp_path / "example"
    shutil.copytree(ROOT / "example_repo", target)
    git(target, "init", "-q")
    git(target, "add", "-A")
    return target


def _path_env() -> Dict[str, str]:
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                f"{os.environ['PATH']}")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_example_repo_holds_then_breaks(tmp_path: Path) -> None:
    example = _example(tmp_path)

    def make_verify() -> subprocess.CompletedProcess:
        return subprocess.run(["make", "--no-print-directory", "verify"],
                              cwd=example, env=_path_env(), capture_output=True,
                              text=True)

    result = make_verify()
    assert result.returncode == 0, result.stdout + result.stderr
    holds = [line.split(":")[0] for line in result.stdout.splitlines()
             if line.endswith(" s)") and ": holds (" in line]
    # every entry not superseded (the journal grew for issue 26's brief)
    superseded = {line.split(":")[0] for line in result.stdout.splitlines()
                  if ": superseded by " in line}
    entries = sorted(f"journal/{p.name}" for p in (example / "journal").glob("2*"))
    assert holds == [e for e in entries if e not in superseded]
    assert holds[:2] == ["journal/2026-10-19_crlf-blank-rows.md",
                         "journal/2026-10-26_read-input-as-a-stream.md"]
    assert len(superseded) == 3
    cleaner = example / "src" / "cleaner.py"
    text = cleaner.read_text()
    # Break the seed's invariant: clean() now returns a list of rows.
    broken = text.replace(
        "    for row in rows:\n        if not is_blank(row):\n            yield row\n",
        "    return [row for row in rows if not is_blank(row)]\n")
    assert broken != text
    cleaner.write_text(broken)
    result = make_verify()
    assert result.returncode == 2  # make's own code for a failed recipe
    assert result.stdout.splitlines()[1].startswith(
        "journal/2026-10-26_read-input-as-a-stream.md: BROKEN - verify command "
        "exited 1: ")


def test_no_shell_is_one_line(repo: Path, icm, monkeypatch) -> None:
    write(repo, {"journal/2026-01-01_a.md": entry("`true`")})
    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    assert run_verify(icm, repo) == (
        2, "", "icm: cannot start sh: No such file or directory\n")


def test_sarif_annotates_the_verify_line(repo: Path, icm, pinned: None) -> None:
    write(repo, {"journal/2026-01-02_b.md": entry(sh("false"))})
    code, out, err = icm("verify", "--root", str(repo), "--format", "sarif")
    assert (code, err) == (1, "")
    results = json.loads(out)["runs"][0]["results"]
    assert [(r["ruleId"], r["level"],
             r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in results] == [("verify/broken", "error",
                                   "journal/2026-01-02_b.md")]
    line = results[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    text = (repo / "journal/2026-01-02_b.md").read_text().splitlines()
    assert text[line - 1] == "## Verify command"


def test_commands_see_the_python_that_runs_icm_first(repo: Path) -> None:
    """``.venv/bin/icm verify`` without an activated venv: a Verify command
    calling ``python`` gets the interpreter icm runs in."""
    here = os.path.dirname(os.path.abspath(sys.executable))
    write(repo, {"journal/2026-01-01_a.md": entry(sh(
        f'test "$(dirname "$(command -v python3)")" = "{here}"'))})
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = "/usr/bin:/bin"
    proc = subprocess.run([sys.executable, "-m", "icm", "verify", "--root",
                           str(repo)], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "journal/2026-01-01_a.md: holds" in proc.stdout


def _marker_python(folder: Path, name: str) -> None:
    """A fake virtualenv: ``bin/python`` only says which one it is."""
    write(folder, {"bin/python": f"#!/bin/sh\necho {name}\n"})
    (folder / "bin/python").chmod(0o755)


@pytest.mark.parametrize("venvs, active, want", [
    ((".venv", "venv"), False, ".venv"),  # .venv before venv
    (("venv",), False, "venv"),
    ((".venv",), True, "active"),  # an activated venv before the root's
    ((), False, "icm"),  # neither: the Python running icm
])
def test_commands_run_in_the_projects_environment(repo: Path, tmp_path: Path,
                                                  venvs, active: bool,
                                                  want: str) -> None:
    """In a pipx install icm's own interpreter has no pytest: ``python -m
    pytest`` must name the project's (an activated venv, else a .venv or
    venv at the root), then icm's, then the rest of PATH."""
    for name in venvs:
        _marker_python(repo / name, name)
    _marker_python(tmp_path / "active", "active")
    here = os.path.dirname(os.path.abspath(sys.executable))
    expect = f'test "$(command -v python)" = "{here}/python"' if want == "icm" \
        else f'test "$(python)" = "{want}"'
    write(repo, {"journal/2026-01-01_a.md": entry(sh(expect))})
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = "/usr/bin:/bin"
    if active:
        env["VIRTUAL_ENV"] = str(tmp_path / "active")
    proc = subprocess.run([sys.executable, "-m", "icm", "verify", "--root",
                           str(repo)], env=env, capture_output=True, text=True)
    assert "journal/2026-01-01_a.md: holds" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 0


def test_the_longest_command_of_the_last_run_starts_first(repo: Path, icm) -> None:
    """Verdicts keep the journal's order; starts follow the last run's times,
    longest first, so a long entry late in the journal does not start last."""
    write(repo, {"journal/2026-01-01_a.md": entry(sh("echo a >> started")),
                 "journal/2026-01-02_b.md": entry(sh("echo b >> started\nsleep 0.5"))})
    first = run_verify(icm, repo, "--jobs", "1")
    assert (repo / "started").read_text() == "a\nb\n"  # no times yet: as written
    second = run_verify(icm, repo, "--jobs", "1")
    assert (repo / "started").read_text() == "a\nb\nb\na\n"
    assert [line.split(":")[0] for line in second[1].splitlines()[:2]] == \
        [line.split(":")[0] for line in first[1].splitlines()[:2]] == [
            "journal/2026-01-01_a.md", "journal/2026-01-02_b.md"]
    # a changed command has no time: it starts first again
    write(repo, {"journal/2026-01-01_a.md": entry(sh("echo a >> started\ntrue"))})
    run_verify(icm, repo, "--jobs", "1")
    assert (repo / "started").read_text().endswith("a\nb\n")

