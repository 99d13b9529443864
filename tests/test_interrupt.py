"""Ctrl-C during the parallel parse (issue 10, item 14): workers ignore
SIGINT, the parent kills and reaps them and the run ends with
``icm: interrupted`` and exit 130. ``bench/run_sigint.py`` sends SIGINT at
random moments hundreds of times; these tests pin one moment each."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from icm.checks import links
from tests.conftest import write


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
