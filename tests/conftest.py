"""Shared fixtures: throw-away repositories with pinned dates, and the CLI."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import Callable, Dict, Iterable, List, Optional, Tuple, Union

import pytest

Content = Union[str, bytes]


def write(root: Path, files: Dict[str, Content]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))


def git_env(when: Optional[str] = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    return env


def git(root: Path, *args: str, when: Optional[str] = None,
        author_date: Optional[str] = None) -> str:
    env = git_env(when)
    if author_date:
        env["GIT_AUTHOR_DATE"] = author_date
    out = subprocess.run(["git", "-c", "init.defaultBranch=main", *args],
                         cwd=root, env=env, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return out.stdout.decode()


def commit(root: Path, files: Dict[str, Content], when: str,
           message: str = "change", author_date: Optional[str] = None) -> None:
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message, when=when,
        author_date=author_date)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository; git config isolated from the user's."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    return root


@pytest.fixture
def icm(capsys: pytest.CaptureFixture[str]):
    """Call icm's main() and return (exit code, stdout, stderr)."""

    from icm.cli import main  # here, not at the top: a run that never calls it

    def call(*argv: str) -> Tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return call


SLOTS_OK = """# Title

## Decision
We did it.

## Rejected alternative
Not that.

## Invariant
It holds.

## Verify command
`true`
"""


def entry(*skip: str, extra: str = "") -> str:
    """A journal entry with every slot except those named in ``skip``."""
    parts = ["# Entry\n"]
    for slot in ("Decision", "Rejected alternative", "Invariant", "Verify command"):
        if slot not in skip:
            body = "`true`" if slot == "Verify command" else "Some text."
            parts.append(f"\n## {slot}\n{body}\n")
    return "".join(parts) + extra


def lines(text: str) -> Iterable[str]:
    return text.splitlines()


class TooMuchWork(AssertionError):
    pass


def python_lines(call: Callable[[], object], limit: int = 10 ** 8) -> int:
    """How many Python lines ``call`` runs: a count of work that no load on
    the machine changes (tests never time). Past ``limit`` it stops ``call``
    with ``TooMuchWork``, so the old quadratic code fails at once, never
    hangs."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., object]:
        nonlocal count
        if event == "line":
            count += 1
            if count > limit:
                raise TooMuchWork(f"over {limit} lines")
        return trace

    before = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(before)
    return count


def _hypothesis_not_rewritten() -> None:
    """pytest marks every module of a plugin's distribution for assertion
    rewriting, all of hypothesis included: where bytecode is not written
    (PYTHONDONTWRITEBYTECODE) that is half a second of every run, each
    Verify command's too, spent on asserts inside hypothesis."""
    try:  # pytest's own module: if it moves, runs are slower, never broken
        from _pytest.assertion.rewrite import AssertionRewritingHook
    except ImportError:  # pragma: no cover - depends on pytest's version
        return
    for hook in sys.meta_path:
        if isinstance(hook, AssertionRewritingHook):
            getattr(hook, "_must_rewrite", set()).discard("hypothesis")


_hypothesis_not_rewritten()


def _load_hypothesis_profiles() -> None:
    """Property-based tests: bounded by default, deeper on request."""
    try:
        from hypothesis import settings
    except ImportError:  # pragma: no cover - hypothesis is in the test extra
        return
    settings.register_profile("default", max_examples=60, deadline=None)
    settings.register_profile("deep", max_examples=3000, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Load the profiles before the first module that uses hypothesis is
    imported, and only then: importing hypothesis is a third of pytest's
    start-up, paid by each Verify command that selects no property test."""
    if not _PROFILES and isinstance(collector, pytest.Module) \
            and b"hypothesis" in collector.path.read_bytes():
        _PROFILES.append(True)
        _load_hypothesis_profiles()


_PROFILES: List[bool] = []  # loaded once per run


@pytest.fixture(autouse=True)
def _no_memo(request: pytest.FixtureRequest,
             monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process runs answer without the whole-check memo (``engine``),
    unless a test asks for it (``memo``): whether one hits depends on the
    clock (a file younger than a second is never trusted), and a test that
    counts parses or plants a per-file cache must not depend on the clock.
    ``tests/test_memo.py`` holds the memo to the answers without it."""
    if "memo" not in request.fixturenames:
        from icm import engine

        monkeypatch.setattr(engine, "MEMOISED", frozenset())


@pytest.fixture
def memo() -> None:
    """The whole-check memo stays on (see ``_no_memo``)."""


@pytest.fixture(autouse=True)
def _both_markdown_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document any test extracts is a differential case: where the
    fast backend (pulldown-cmark) answers, its answer must equal the
    reference's (markdown-it-py), or the test fails."""
    from icm import extract, markdown, markdown_events

    if not markdown_events.available():
        return

    def checked(text: str, headings: bool = True) -> Optional[markdown.Extract]:
        got = markdown_events.extract(text, headings)
        if got is not None:
            want = markdown.extract_reference(text)
            if not headings:
                want = dataclasses.replace(want, headings=())
            assert got == want, f"backends differ on {text[:200]!r}"
        return got

    monkeypatch.setattr(extract, "_fast", checked)


def pytest_configure(config: pytest.Config) -> None:
    """Each run its own temporary root: ``icm verify`` runs two pytest
    processes at once, and pytest's shared ``pytest-of-USER`` numbering
    races (one run's ``pytest-current`` link vanished under another's:
    FileNotFoundError in a Verify command)."""
    import shutil
    import tempfile

    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        own = tempfile.mkdtemp(prefix="icm-pytest-")
        config.option.basetemp = own
        config.add_cleanup(lambda: shutil.rmtree(own, ignore_errors=True))
