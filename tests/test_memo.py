"""The whole-check memo (``engine``, ``cache.Memo``): a warm run answers what
a run without it answers, whatever changed in between (issue 27).

Every test works on a real repository holding the example's journal, queue,
Agents folder and notes, plus findings of each memoised check (broken
links, a missing anchor, a link into an ignored folder, copies that differ,
a bad journal entry). A memo is aged by its mtime, as the per-file cache
tests age theirs, so a hit does not wait on the clock; each test then
compares the memoised answer with the answer of a run without memos."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm import cache, engine
from icm.finding import Finding, Report
from tests.conftest import commit, git

ROOT = Path(__file__).resolve().parent.parent
RULE = "Every reader of a file stops at {} and reports the rest as skipped."
FILES = {
    ".gitignore": "built/\n",
    "AGENTS.md": "# Handbook\n\n## Rules\n\n" + RULE.format("1 MiB") + "\n\n"
                 "See [gone](gone.md), [anchor](src/context.md#nowhere), "
                 "[built](built/out.md), [case](Docs/guide.md) and "
                 "[guide](docs/guide.md#usage).\n\n## Index of notes\n\n"
                 "- [src](src/context.md)\n- [tests](tests/context.md)\n",
    "docs/guide.md": "# Guide\n\n## Usage\n\nRead [the handbook](../AGENTS.md).\n",
    "docs/context.md": "# docs\n\n" + RULE.format("64 KiB") + "\n",
    "journal/2026-01-05_bad.md": "# Bad\n\n## Decision\nTBD\n",
}
Answer = Tuple[int, str, str]


@pytest.fixture
def tree(repo: Path, memo: None) -> Path:
    """The repository: the example plus findings, committed."""
    shutil.copytree(ROOT / "example_repo", repo, dirs_exist_ok=True)
    commit(repo, FILES, "2026-01-06T00:00:00+00:00")
    return repo


def _run(icm: Callable[..., Answer], repo: Path, *checks: str) -> Answer:
    return icm("check", *checks, "--root", str(repo), "--format", "json")


def _fresh(icm: Callable[..., Answer], repo: Path, *checks: str) -> Answer:
    """The answer with no memo read or written."""
    saved = engine.MEMOISED
    engine.MEMOISED = frozenset()
    try:
        return _run(icm, repo, *checks)
    finally:
        engine.MEMOISED = saved


def _memos(repo: Path) -> List[Path]:
    return sorted((repo / ".git" / "icm").glob("memo-*.json"))


def _age(repo: Path, seconds: float = 60) -> None:
    """Each memo written ``seconds`` after its files (before, when negative)."""
    later = time.time() + seconds
    for path in _memos(repo):
        os.utime(path, (later, later))


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> Dict[str, int]:
    """How often each memoised check's own ``run`` is called."""
    counts: Dict[str, int] = {}
    for name in engine.MEMOISED:
        module = importlib.import_module(f"icm.checks.{name}")
        original = module.run

        def run(ctx: Any, options: Any, _name: str = name,
                _original: Any = original) -> Any:
            counts[_name] = counts.get(_name, 0) + 1
            return _original(ctx, options)

        monkeypatch.setattr(module, "run", run)
    return counts


def test_a_warm_run_answers_from_the_memo(tree: Path, icm, ran) -> None:
    """Nothing changed: no memoised check runs, no per-file cache is
    opened, and the answer is the one a run without memos gives."""
    first = _run(icm, tree)
    assert first[0] == 1 and first == _fresh(icm, tree)
    assert [p.name for p in _memos(tree)] == sorted(
        f"memo-{name}.json" for name in engine.MEMOISED)
    _age(tree)
    ran.clear()
    opened: List[str] = []
    original = cache.Cache.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        opened.append(str(args))
        original(self, *args, **kwargs)

    cache.Cache.__init__ = counted  # type: ignore[method-assign]
    try:
        assert _run(icm, tree) == first
    finally:
        cache.Cache.__init__ = original  # type: ignore[method-assign]
    assert ran == {} and opened == []


def test_a_file_changed_after_the_run_began_is_never_trusted(tree: Path, icm,
                                                             ran) -> None:
    """A memo older than its inputs (as if they changed while the check
    ran, after it read them) is not believed, though every stamp matches."""
    first = _run(icm, tree)
    _age(tree, -60)
    ran.clear()
    assert _run(icm, tree) == first
    assert ran == {name: 1 for name in engine.MEMOISED}


def test_other_code_is_another_key(tree: Path, icm, ran, monkeypatch) -> None:
    first = _run(icm, tree)
    _age(tree)
    monkeypatch.setattr(engine, "_CODE", ["an edited check"])
    ran.clear()
    assert _run(icm, tree) == first
    assert ran == {name: 1 for name in engine.MEMOISED}


def test_a_check_that_asks_git_keeps_no_memo(tree: Path, icm,
                                             monkeypatch) -> None:
    """A memoised check that came to read a git fact (its answer then
    depends on history, which no path's state shows) is not memoised."""
    module = importlib.import_module("icm.checks.links")
    original = module.run

    def run(ctx: Any, options: Any) -> Any:
        ctx.commit_positions([])
        return original(ctx, options)

    monkeypatch.setattr(module, "run", run)
    _run(icm, tree, "links")
    assert _memos(tree) == []


def _edit(rel: str, text: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return change


def _same(rel: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        (repo / rel).write_bytes((repo / rel).read_bytes())
    return change


def _remove(rel: str) -> Callable[[Path], None]:
    return lambda repo: (repo / rel).unlink()


def _rename(old: str, new: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        (repo / new).parent.mkdir(parents=True, exist_ok=True)
        (repo / old).rename(repo / new)
    return change


def _symlink(rel: str, target: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        path = repo / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(target)
    return change


def _staged(change: Callable[[Path], None]) -> Callable[[Path], None]:
    def both(repo: Path) -> None:
        change(repo)
        git(repo, "add", "-A")
    return both


CHANGES: Dict[str, Callable[[Path], None]] = {
    "a note edited": _edit("src/context.md", "# src\n\nNew text, no links.\n"),
    "a note rewritten unchanged": _same("src/context.md"),
    "a link target deleted": _remove("docs/guide.md"),
    "a link target created": _edit("gone.md", "# Gone no more\n"),
    "an ignored link target created": _edit("built/out.md", "# Built\n"),
    "an ignored link target's folder created": lambda repo: (repo / "built").mkdir(),
    "a heading a link points at renamed": _edit("docs/guide.md",
                                                "# Guide\n\n## Use\n"),
    "an anchor added": _edit("src/context.md", "# src\n\n## Nowhere\n"),
    "a target in another letter case": _rename("docs/guide.md", "Docs/guide.md"),
    "a note added": _edit("lib/context.md", "# lib\n\n" + RULE.format("2 MiB")),
    "a note added and staged": _staged(_edit("lib/context.md", "# lib\n")),
    "a copy made to agree": _edit("docs/context.md",
                                  "# docs\n\n" + RULE.format("1 MiB") + "\n"),
    "a note replaced by a symlink to another": _symlink("docs/context.md",
                                                        "../tests/context.md"),
    "a folder replaced by a symlink": _symlink("docs", "src"),
    "a note made undecodable": lambda repo: (repo / "tests/context.md")
    .write_bytes(b"caf\xe9\n"),
    "a note made unreadable": lambda repo: os.chmod(repo / "tests/context.md", 0),
    "a note grown past the size limit": _edit(
        "icm.toml", "max_file_bytes = 100\nbudget = 1600\n"),
    "the budget lowered": _edit("pyproject.toml", "[tool.icm]\nbudget = 10\n"),
    "a journal entry completed": _edit(
        "journal/2026-01-05_bad.md", "# Bad\n\n## Decision\nUse rows.\n\n"
        "## Rejected alternative\nColumns.\n\n## Invariant\nRows hold.\n\n"
        "## Verify command\n`true`\n"),
    "a journal entry misnamed": _rename("journal/2026-01-05_bad.md",
                                        "journal/bad.md"),
    "a queue item re-proposing a rejected design": _edit(
        "queue/08_whole.md", "# Load the whole file and filter in memory\n\n"
        "Load the whole file into memory and filter the rows there.\n"),
    "a session file deleted": _remove("Agents/streaming-session/TOOLS.md"),
    "the positions list edited": _edit(
        "Agents/streaming-session/POSITIONS.md", "# Positions\n\n### x\n"),
    "a boot import added": _edit(
        "AGENTS.md", (ROOT / "example_repo" / "AGENTS.md").read_text(
            encoding="utf-8") + "\n@docs/missing.md\n"),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_warm_run_after_a_change_answers_as_a_cold_one(tree: Path, icm,
                                                         name: str) -> None:
    """Each change that can move an answer of a memoised check: after it, a
    run with the memo (aged: only the states can refuse it) gives exactly
    the answer of a run with none."""
    _run(icm, tree)
    _age(tree)
    CHANGES[name](tree)
    assert _run(icm, tree) == _fresh(icm, tree)
    _age(tree)  # and the memo that run wrote answers for the new tree
    assert _run(icm, tree) == _fresh(icm, tree)


PATHS = ["AGENTS.md", "a/context.md", "b/context.md", "a/x.md", "b/y.md",
         "b/sub/context.md"]
TARGETS = PATHS + ["missing.md", "a", "b/sub", "built/z.md", "../out.md"]


@st.composite
def _documents(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["link", "heading", "rule", "import"]))
        if kind == "link":
            target = draw(st.sampled_from(TARGETS))
            frag = draw(st.sampled_from(["", "#one", "#two", "#Top"]))
            parts.append(f"See [it](/{target}{frag}).")
        elif kind == "heading":
            parts.append("## " + draw(st.sampled_from(["One", "Two", "Three"])))
        elif kind == "rule":
            parts.append(RULE.format(draw(st.sampled_from(["1 MiB", "2 MiB"]))))
        else:
            parts.append("@" + draw(st.sampled_from(TARGETS)))
    return "# T\n\n" + "\n\n".join(parts) + "\n"


_STEP = st.tuples(st.sampled_from(PATHS + ["built/z.md"]),
                  st.one_of(st.none(), _documents()))


def test_any_edits_leave_warm_and_cold_answers_equal(tmp_path_factory, icm,
                                                     memo: None) -> None:
    """Random trees of links, anchors, imports and rules, then random
    writes and deletions (tracked, untracked or ignored files): after every
    step the memoised answer of links, dupes and bootmap is the cold one."""
    checks = ("links", "dupes", "bootmap")

    @settings(max_examples=8, deadline=None)
    @given(start=st.dictionaries(st.sampled_from(PATHS), _documents(), min_size=1),
           steps=st.lists(_STEP, min_size=1, max_size=3))
    def check(start: Dict[str, str], steps: List[Any]) -> None:
        repo = tmp_path_factory.mktemp("memo") / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        commit(repo, {".gitignore": "built/\n", **start},
               "2026-01-06T00:00:00+00:00")
        _run(icm, repo, *checks)
        for rel, text in steps:
            _age(repo)
            path = repo / rel
            if text is None:
                if path.exists():
                    path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            assert _run(icm, repo, *checks) == _fresh(icm, repo, *checks)

    check()


def _doc(path: Path) -> Any:
    return json.loads(path.read_bytes().partition(b"\n")[2])


def _write(path: Path, doc: Any) -> None:
    path.write_bytes(cache.framed(json.dumps(doc).encode("utf-8")))


def _places(value: Any, at: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
    """Every place in a JSON value, as key paths."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _places(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _places(v, at + (i,))
    return found


def _layout(doc: Any) -> List[Tuple[Any, ...]]:
    """One place of each layout: the first of the places that differ only
    by a list index or by the path naming an input (every place of every
    memo of example_repo was 920 runs of icm check, half an hour)."""
    seen, out = set(), []
    for at in _places(doc):
        shape = tuple("*" if isinstance(k, int) or i and at[i - 1] == "inputs"
                      else k for i, k in enumerate(at))
        if shape not in seen:
            seen.add(shape)
            out.append(at)
    return out


def _get(doc: Any, at: Tuple[Any, ...]) -> Any:
    for k in at:
        doc = doc[k]
    return doc


def _put(doc: Any, at: Tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    if not at:
        return value
    holder = copy
    for k in at[:-1]:
        holder = holder[k]
    holder[at[-1]] = value
    return copy


def test_every_wrong_shape_in_every_place_is_refused(tree: Path, icm) -> None:
    """The memo is untrusted data: any value of another type at any place
    of any memo's layout is a miss, never a crash or another answer."""
    clean = _run(icm, tree)
    assert len(_memos(tree)) >= 5
    for path in _memos(tree):
        doc = _doc(path)
        for at in _layout(doc):
            if at and at[0] == "answer" and len(at) > 2 and at[1] == "data":
                continue  # a check's own json fields: any JSON is its answer
            if at and at[0] == "answer" and "extra" in at:
                continue
            here = _get(doc, at)
            for wrong in ({"x": 1}, [1.5], None, -1, "x", True):
                if type(wrong) is type(here) or isinstance(here, bool) and (
                        at[-1:] == (5,)):  # readable: 1 or 0, an int either way
                    continue
                _write(path, _put(doc, at, wrong))
                _age(tree)
                assert _run(icm, tree) == clean, (path.name, at, wrong)
        _write(path, doc)


def test_a_path_no_file_can_have_is_refused(tree: Path, icm) -> None:
    """A touched path holding a NUL or a surrogate (none that git lists or
    a decoded file holds) makes the memo a miss before anything is stat."""
    clean = _run(icm, tree)
    path = tree / ".git" / "icm" / "memo-links.json"
    doc = _doc(path)
    for name in ("a\0b", "\udcff"):
        _write(path, {**doc, "inputs": {**doc["inputs"], name: "missing"}})
        _age(tree)
        assert _run(icm, tree) == clean


def test_a_forged_answer_is_believed(tree: Path, icm) -> None:
    """What holds and what does not, shown: a memo rewritten with another
    answer under the states of this very checkout is believed. Only a
    writer of the git directory can do this, who can change the files
    too; a memo restored into a fresh checkout (CI) matches no state."""
    clean = _run(icm, tree)
    path = tree / ".git" / "icm" / "memo-links.json"
    doc = _doc(path)
    doc["answer"]["findings"] = []
    _write(path, doc)
    _age(tree)
    assert _run(icm, tree) != clean


def test_a_restored_memo_matches_no_fresh_checkout(tree: Path, icm, ran,
                                                   tmp_path: Path) -> None:
    """CI restores ``.git/icm`` into a new clone: every file has a new
    inode and change time, so every memo is a miss there."""
    first = _run(icm, tree)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(tree), str(clone))
    for rel in ("built",):
        shutil.rmtree(clone / rel, ignore_errors=True)
    shutil.copytree(tree / ".git" / "icm", clone / ".git" / "icm")
    _age(clone)
    ran.clear()
    assert _run(icm, clone)[0] == first[0]
    assert ran == {name: 1 for name in engine.MEMOISED}


def test_a_report_round_trips_exactly(tree: Path) -> None:
    """What the memo stores is what the check said: every memoised check's
    report on the tree comes back equal, and a value JSON would change (a
    tuple) is not stored at all."""
    from icm import config, context, registry

    ctx = context.build(tree, config.load(tree))
    for name in sorted(engine.MEMOISED):
        spec = registry.BY_NAME[name]
        report = spec.module.run(ctx, spec.options())
        plain = engine.to_plain(report)
        assert plain is not None, name
        assert engine.from_plain(json.loads(json.dumps(plain)), name) == report
    odd = Report("links", (Finding("a.md", extra={"pair": (1, 2)}),))
    assert engine.to_plain(odd) is None
    assert engine.to_plain(Report("links", (), data={1: "x"})) is None
