"""Ctrl-C during the parallel parse (issue 10, item 14): workers ignore
SIGINT, the parent kills and reaps them and the run ends with
``icm: interrupted`` and exit 130. ``bench/run_sigint.py`` sends SIGINT at
random moments hundreds of times; these tests pin one moment each."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icm.model import links
from tests.conftest import git, write


@pytest.fixture(autouse=True)
def _sigint_raises():
    """pytest started in the background of a non-interactive shell inherits
    SIGINT ignored; the parent here would then sleep out each worker's wait
    (the suite hung for an hour)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _tree(repo: Path) -> None:
    write(repo, {"AGENTS.md": "# H\n",
                 **{f"n{i}.md": f"[a](n{i + 1}.md)\n" for i in range(60)}})


def test_interrupt_in_the_parallel_parse(repo: Path, icm, monkeypatch,
                                         tmp_path: Path) -> None:
    parent = os.getpid()
    pids = tmp_path / "pids"
    original = links._parse_path

    def parse(job):
        if os.getpid() != parent:  # a worker: take a Ctrl-C, then wait
            os.kill(os.getpid(), signal.SIGINT)  # ignored by workers
            with open(pids, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            os.kill(parent, signal.SIGINT)
            time.sleep(120)
        return original(job)

    monkeypatch.setattr(links, "_parse_path", parse)
    _tree(repo)
    assert icm("check-links", "--root", str(repo), "--jobs", "2") == (
        130, "", "icm: interrupted\n")
    workers = {int(p) for p in pids.read_text().split()}
    assert workers  # they survived their own SIGINT
    for pid in workers:  # killed and reaped: not even a zombie is left
        with pytest.raises((ProcessLookupError, ChildProcessError)):
            os.waitpid(pid, os.WNOHANG)
            os.kill(pid, 0)


def test_a_second_interrupt_cannot_cut_the_reaping_short(
        repo: Path, icm, monkeypatch, tmp_path: Path) -> None:
    """A second Ctrl-C pending as the reaping starts (a user pressing twice;
    every worker's SIGINT here) raised again inside ``_reap`` before any
    kill, and a worker slept on: one run in twenty under load."""
    parent = os.getpid()
    pids = tmp_path / "pids"
    original, reap = links._parse_path, links._reap

    def parse(job):
        if os.getpid() != parent:
            with open(pids, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            os.kill(parent, signal.SIGINT)
            time.sleep(120)
        return original(job)

    def reap_after_a_second_interrupt(live):
        os.kill(parent, signal.SIGINT)  # pending as the reaping starts
        time.sleep(0.05)
        reap(live)

    monkeypatch.setattr(links, "_parse_path", parse)
    monkeypatch.setattr(links, "_reap", reap_after_a_second_interrupt)
    _tree(repo)
    assert icm("check-links", "--root", str(repo), "--jobs", "2") == (
        130, "", "icm: interrupted\n")
    for pid in {int(p) for p in pids.read_text().split()}:
        with pytest.raises((ProcessLookupError, ChildProcessError)):
            os.waitpid(pid, os.WNOHANG)
            os.kill(pid, 0)


def test_a_dying_worker_costs_only_time(repo: Path, icm, monkeypatch) -> None:
    parent = os.getpid()
    original = links._parse_path

    def parse(job):
        if os.getpid() != parent and job[1] == "n7.md":
            os._exit(9)  # killed, out of memory...
        return original(job)

    _tree(repo)
    serial = icm("check-links", "--root", str(repo), "--jobs", "1")
    (repo / ".git" / "icm" / "links-cache.json").unlink()
    monkeypatch.setattr(links, "_parse_path", parse)
    assert icm("check-links", "--root", str(repo), "--jobs", "2") == serial


def test_interrupt_outside_the_guard_is_said_too(repo: Path, icm,
                                                 monkeypatch) -> None:
    """typer turns a KeyboardInterrupt outside ``_guard`` into a silent 130."""
    from icm import cli

    def guard(debug, body):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_guard", guard)
    assert icm("check-queue", "--root", str(repo)) == (130, "", "icm: interrupted\n")


# -- writers: all or nothing under every signal that ends a run ----------------
#
# Real processes, real signals, no hook in icm: the test stops the writer
# (SIGSTOP) again and again, looks at the tree while it is stopped, and
# sends the signal when the tree shows the moment wanted; SIGCONT then lets
# the writer meet it. Once a change is under way the writer is stopped
# after every step it takes (a syscall or so), so what the tree held when
# the signal landed is known: a signal mid-write is proven, not hoped for.

ENDING = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]


class _Writer:
    """One ``python -m icm`` process, waited for by pid (stopping and
    continuing need ``waitpid``'s own reports)."""

    def __init__(self, args, tmp: Path) -> None:
        self.out, self.err = tmp / "out", tmp / "err"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "icm", *args],
                                         stdout=out, stderr=err)
        self.code = None

    def stopped(self) -> bool:
        """Stop it; False (its exit code kept) when it had ended."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        _, status = os.waitpid(self.proc.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            return True
        self.code = self.proc.returncode = os.waitstatus_to_exitcode(status)
        return False

    def resume(self, sig=None) -> None:
        if sig is not None:
            os.kill(self.proc.pid, sig)  # pending until it runs again
        os.kill(self.proc.pid, signal.SIGCONT)

    def wait(self):
        if self.code is None:
            _, status = os.waitpid(self.proc.pid, 0)
            self.code = self.proc.returncode = os.waitstatus_to_exitcode(status)
        return self.code, self.out.read_text(), self.err.read_text()


def _signal_when(writer: _Writer, warm, ready, sig):
    """Send ``sig`` when ``ready()`` says something of the stopped writer;
    return that (None: the writer ended first). Until ``warm()`` holds it
    runs half a millisecond at a time, then one step at a time. With
    ``sig`` None it is left stopped there."""
    crawl = False
    while writer.stopped():
        crawl = crawl or bool(warm())
        seen = ready() if crawl else None
        if seen is not None:
            if sig is not None:
                writer.resume(sig)
            return seen
        writer.resume()
        if not crawl:
            time.sleep(0.0005)
    return None


def _ended_by(sig, code: int, err: str) -> bool:
    if sig == signal.SIGINT:
        return (code, err) == (130, "icm: interrupted\n")
    return (code, err) == (-sig, "")


def _snapshot(root: Path) -> dict:
    """Every folder and file under ``root`` but ``.git``, files with bytes."""
    found = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not (top == str(root) and d == ".git")]
        rel = os.path.relpath(top, root)
        found[rel + "/"] = b""
        for name in files:
            found[os.path.join(rel, name)] = Path(top, name).read_bytes()
    return found


def _names(root: Path) -> set:
    return {os.path.join(top, n) for top, dirs, files in os.walk(root)
            for n in dirs + files}


def _temporary(root: Path) -> list:
    return sorted(p.name for p in root.rglob(".icm-*"))


LINKING = 300


def _renumber_repo(root: Path) -> None:
    for folder in ("queue", "docs"):
        shutil.rmtree(root / folder, ignore_errors=True)
    git(root, "config", "user.name", "Ada")
    write(root, {"AGENTS.md": "# H\n", "queue/01_x.md": "# X\n",
                 **{f"docs/d{i:03d}.md": f"# D{i}\n\nSee [x](../queue/01_x.md).\n"
                    for i in range(LINKING)}})


def _links(root: Path) -> dict:
    """How many docs link each number."""
    texts = [p.read_text() for p in (root / "docs").glob("d*.md")]
    return {n: sum(f"queue/{n}_x.md" in t for t in texts) for n in ("01", "02")}


def _renaming(root: Path):
    """True once renumber puts its texts in place (the new item first)."""
    return lambda: (root / "queue/02_x.md").exists()


RENUMBER = ["renumber", "01", "--to", "2", "--root"]


@pytest.mark.parametrize("sig", ENDING, ids=lambda s: s.name)
def test_renumber_is_all_or_nothing_under_every_ending_signal(
        repo: Path, tmp_path: Path, sig) -> None:
    """SIGTERM and SIGHUP split 300 links between 01 and 02 (3 of 3 runs);
    SIGINT between a write and its bookkeeping did too. The signal lands
    with some links rewritten and some not: every one goes back."""
    rng = random.Random(sig)
    last = repo / "docs" / f"d{LINKING - 1:03d}.md"
    seen = None
    for _ in range(5):  # the writer may outrun the test past the last link
        _renumber_repo(repo)
        at = repo / "docs" / f"d{rng.randrange(LINKING - 20):03d}.md"
        writer = _Writer([*RENUMBER, str(repo)], tmp_path)

        def midway(at: Path = at):  # the files up to ``at`` rewritten, not all
            if "02_x" in at.read_text() and "02_x" not in last.read_text():
                return _links(repo)
            return None

        seen = _signal_when(writer, _renaming(repo), midway, sig)
        code, _out, err = writer.wait()
        if seen is not None:
            break
    assert seen is not None and 0 < seen["02"] < LINKING, seen  # mid-write
    assert _ended_by(sig, code, err), (code, err)
    assert sorted(os.listdir(repo / "queue")) == ["01_x.md"]
    assert _links(repo) == {"01": LINKING, "02": 0}
    assert _temporary(repo) == []


@pytest.mark.parametrize("sig", ENDING, ids=lambda s: s.name)
def test_renumber_at_a_random_moment_is_all_or_nothing(repo: Path, tmp_path: Path,
                                                      sig) -> None:
    """The same at a moment drawn over a whole run, start-up, the long
    writing of new texts and the end included: every link on one number,
    and that item alone."""
    _renumber_repo(repo)
    writer = _Writer([*RENUMBER, str(repo)], tmp_path)
    time.sleep(random.Random(sig).uniform(0, 1.5))
    if writer.stopped():
        writer.resume(sig)
    code, _out, err = writer.wait()
    left = sorted(os.listdir(repo / "queue"))
    assert left in (["01_x.md"], ["02_x.md"]), left
    assert _links(repo)[left[0][:2]] == LINKING, (left, _links(repo))
    assert code == 0 or _ended_by(sig, code, err), (code, err)
    assert _temporary(repo) == []


def test_sigkill_mid_renumber_leaves_every_text_whole(repo: Path,
                                                     tmp_path: Path) -> None:
    """SIGKILL cannot be held. Landing in the renames at the end, it leaves
    the links split, but each file holds its old bytes or its new ones, the
    item is kept (the new one is made first, the old removed last), and
    every replaced text is kept aside in a hidden ``.icm-`` file."""
    _renumber_repo(repo)
    before = _snapshot(repo)
    writer = _Writer([*RENUMBER, str(repo)], tmp_path)
    first = repo / "docs/d000.md"
    assert _signal_when(writer, _renaming(repo),
                        lambda: "02_x" in first.read_text() or None, signal.SIGKILL)
    assert writer.wait()[0] == -signal.SIGKILL
    after = _snapshot(repo)
    assert (repo / "queue/01_x.md").read_text() == "# X\n"
    assert (repo / "queue/02_x.md").read_text() == "# X\n"
    old = {rel: data for rel, data in before.items() if rel.startswith("docs/d")}
    assert all(after[rel] in (data, data.replace(b"01_x", b"02_x"))
               for rel, data in old.items())
    replaced = {rel for rel, data in old.items() if after[rel] != data}
    aside = [data for rel, data in after.items() if "/.icm-" in rel]
    assert replaced and all(before[rel] in aside for rel in replaced)


def _claimed(text: str) -> str:
    from datetime import datetime

    return text.replace("# A\n\n", f"# A\n\nClaimed-by: Ada on main, "
                        f"{datetime.now().astimezone():%Y-%m-%d}\n\n", 1)


BIG = ("x" * 200 + "\n") * 500  # texts with some length: writes take a while
ITEM = "# A\n\n" + BIG
POSITIONS = '[tool.icm]\npositions_file = "journal/POSITIONS.md"\n'
ENTRY = ("# A\n\n## Decision\nUse x.\n\n## Rejected alternative\nNot y.\n\n"
         "## Invariant\nz.\n\n## Verify command\n```sh\ntrue\n```\n")
RECORD = "# 1. A\n\n## Status\n\nAccepted\n\n## Context\n\n" + BIG
# Every command that writes: the tree it starts from, its arguments.
WRITERS = {
    "new-journal": ({"queue/07_a.md": ITEM}, ["new-journal", "07", "--date",
                                              "2026-11-29"]),
    # a record journal: the next number, and the old record marked with it
    "new-journal-title": ({"icm.toml": "journal_format = 'nygard'\n",
                           "journal/0001-a.md": RECORD},
                          ["new-journal", "--title", "B", "--date", "2026-11-29"]),
    "new-journal-supersedes": ({"icm.toml": "journal_format = 'nygard'\n",
                                "journal/0001-a.md": RECORD},
                               ["new-journal", "--title", "B", "--supersedes", "1",
                                "--date", "2026-11-29"]),
    "init": ({}, ["init"]),
    "init-agents": ({"AGENTS.md": "# H\n"}, ["init", "--agents", "bot"]),
    "claim": ({"queue/07_a.md": ITEM}, ["claim", "07"]),
    "release": ({"queue/07_a.md": _claimed(ITEM)}, ["release", "07"]),
    "new-queue": ({"queue/07_a.md": ITEM}, ["new-queue", "Next thing"]),
    "fix": ({"AGENTS.md": "# H\n\n" + BIG,
             **{f"n{i}/context.md": "# N\n" for i in range(20)}},
            ["check-links", "--fix"]),
    "review": ({f"n{i}/context.md": "# N\n\n" + BIG for i in range(20)},
               ["review", "--date", "2026-12-01",
                *(f"n{i}/context.md" for i in range(20))]),
    "positions": ({"pyproject.toml": POSITIONS, "AGENTS.md": "# H\n",
                   "journal/POSITIONS.md": "# Positions\n\n" + BIG,
                   "journal/2026-11-01_a.md": ENTRY}, ["positions", "--write"]),
}


def _writer_repo(root: Path, files) -> None:
    shutil.rmtree(root)
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Ada")
    write(root, files)


def _signal_after(writer: _Writer, repo: Path, rng: random.Random, sig):
    """``_signal_when`` a random number of steps after the writer's first
    change to the tree shows."""
    names = _names(repo)
    steps = iter(range(rng.randrange(40), -1, -1))
    return _signal_when(writer, lambda: _names(repo) != names,
                        lambda: _snapshot(repo) if not next(steps) else None, sig)


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_every_writer_is_all_or_nothing_under_every_ending_signal(
        repo: Path, tmp_path: Path, icm, name: str) -> None:
    """Each command that writes, signalled a random number of steps after
    its first change shows (a temporary file): the tree ends as it began or
    as a whole run leaves it, never between, with no temporary file left
    (SIGTERM left one, and half a scaffold)."""
    files, args = WRITERS[name]
    _writer_repo(repo, files)
    assert icm(*args, "--root", str(repo))[0] == 0  # what a whole run leaves
    done = _snapshot(repo)
    for sig in ENDING:
        _writer_repo(repo, files)
        start = _snapshot(repo)
        writer = _Writer([*args, "--root", str(repo)], tmp_path)
        seen = _signal_after(writer, repo, random.Random(f"{name}{sig}"), sig)
        code, _out, err = writer.wait()
        end = _snapshot(repo)
        assert end in (start, done), (sig, sorted(set(end) ^ set(start)))
        if seen is None or end == done and code == 0 and sig == signal.SIGINT:
            continue  # it ended first, or a Ctrl-C after the answer is ignored
        assert _ended_by(sig, code, err), (sig, code, err)
        if not _holds(seen, done):  # signalled mid-write: all was put back
            assert end == start, sig


def _holds(seen: dict, done: dict) -> bool:
    """True when the tree ``seen`` already holds every text a whole run
    leaves and nothing else but temporaries and set-aside copies: past
    the commit point a signal no longer undoes anything (a CI run once
    signalled a writer there, between its last change and the drops)."""
    return (all(seen.get(rel) == data for rel, data in done.items())
            and all(rel in done or "/.icm-" in rel for rel in seen))
