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
from typing import Any, Callable, Dict, List, Optional, Tuple

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


def _doc(path: Path) -> Dict[str, Any]:
    """A memo's parts: its head and answer (JSON lines) and its states, as
    (path, state text) pairs."""
    head, answer, states = path.read_bytes().partition(b"\n")[2].split(b"\n", 2)
    items = states.split(b"\0")[:-1]
    return {"head": json.loads(head), "answer": json.loads(answer),
            "inputs": [[items[i].decode(), items[i + 1].decode()]
                       for i in range(0, len(items), 2)]}


def _states(doc: Dict[str, Any]) -> bytes:
    return b"".join(f"{rel}\0{state}\0".encode() for rel, state in doc["inputs"])


def _write(path: Path, doc: Dict[str, Any], states: Optional[bytes] = None
           ) -> None:
    """``doc`` as a memo file, its CRC right (``states``: the states' bytes
    as given): only the checks of the parts can refuse it."""
    path.write_bytes(cache.framed(b"\n".join([
        json.dumps(doc["head"]).encode(), json.dumps(doc["answer"]).encode(),
        _states(doc) if states is None else states])))


def _forged(doc: Dict[str, Any]) -> Dict[str, Any]:
    """``doc`` answering otherwise: believed, it shows."""
    return {**doc, "answer": {**doc["answer"], "tail": ["forged"]}}


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
    by a list index (every place of every memo of example_repo was 920
    runs of icm check, half an hour)."""
    seen, out = set(), []
    for at in _places(doc):
        shape = tuple("*" if isinstance(k, int) else k for k in at)
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
    of any memo's head or answer is a miss, never a crash or another
    answer (a head refused, the answer is a forged one: believed, it shows)."""
    clean = _run(icm, tree)
    assert len(_memos(tree)) >= 5
    for path in _memos(tree):
        doc = _doc(path)
        for part in ("head", "answer"):
            for at in _layout(doc[part]):
                if part == "answer" and (len(at) > 1 and at[0] == "data"
                                         or "extra" in at):
                    continue  # a check's own json fields: any JSON is its answer
                here = _get(doc[part], at)
                for wrong in ({"x": 1}, [1.5], None, -1, "x", True):
                    if type(wrong) is type(here):
                        continue
                    was = doc if part == "answer" else _forged(doc)
                    _write(path, {**was, part: _put(doc[part], at, wrong)})
                    _age(tree)
                    assert _run(icm, tree) == clean, (path.name, part, at, wrong)
        _write(path, doc)


def _wrong_states(state: str) -> List[str]:
    """Texts a state is not: a part lost, one more, another number or
    form, a reason that is no JSON string."""
    if state.startswith("!"):
        return ["", "!", state[1:], state[:-1], state + " ", "!1", "!null",
                '!"' + state[2:-1] + 'x"', "1 2 3 4 5 6"]
    ints = state.split(" ")
    return ["", " ".join(ints[:-1]), state + " 1", state + " ", " " + state,
            " ".join([ints[0] + ".0", *ints[1:]]), " ".join(["x", *ints[1:]]),
            " ".join(["0" + ints[0], *ints[1:]]), "!" + json.dumps(state)]


def test_every_wrong_state_is_refused(tree: Path, icm) -> None:
    """A state that is not the text of the path's state now (any part lost,
    added or another form), a path git never wrote (not UTF-8), a path
    with no state: a miss, though the answer stored is a forged one."""
    clean = _run(icm, tree, "links")
    path = tree / ".git" / "icm" / "memo-links.json"
    doc = _doc(path)
    kinds = {state[0] == "!": i for i, (_, state) in reversed(
        list(enumerate(doc["inputs"])))}
    assert sorted(kinds) == [False, True]  # both forms: a stamp and a reason
    forged = _forged(doc)
    _write(path, forged)
    _age(tree)
    assert _run(icm, tree, "links") != clean  # believed: the test can fail
    for i in (*kinds.values(), len(doc["inputs"]) - 1):
        rel, state = doc["inputs"][i]
        for wrong in _wrong_states(state):
            inputs = [*forged["inputs"][:i], [rel, wrong], *forged["inputs"][i + 1:]]
            _write(path, {**forged, "inputs": inputs})
            _age(tree)
            assert _run(icm, tree, "links") == clean, (rel, state, wrong)
    whole = _states(forged)
    for states in (whole[:-1], whole + b"extra.md\0", whole + b"\xff\0" + b"1\0",
                   whole.replace(b"AGENTS.md\0", b"AGENTS.md\xff\0", 1),
                   whole.replace(b"AGENTS.md\0", b"\xed\xb3\xbf\0", 1)):
        _write(path, forged, states)
        _age(tree)
        assert _run(icm, tree, "links") == clean, states[-40:]


def test_an_old_memo_is_a_miss(tree: Path, icm, ran) -> None:
    """A memo of the layout before (one JSON document, every state a list)
    is not read: the check runs, and the memo is rewritten."""
    clean = _run(icm, tree, "links")
    path = tree / ".git" / "icm" / "memo-links.json"
    doc = _doc(path)
    old = {"key": doc["head"]["key"], "took": doc["head"]["took"],
           "inputs": {rel: json.loads(state[1:]) if state[0] == "!" else
                      [int(part) for part in state.split(" ")]
                      for rel, state in doc["inputs"]},
           "answer": doc["answer"]}
    path.write_bytes(cache.framed(json.dumps(old).encode()))
    _age(tree)
    ran.clear()
    assert _run(icm, tree, "links") == clean and ran == {"links": 1}
    assert _doc(path) != old and _doc(path)["answer"] == doc["answer"]


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


_STATE = st.one_of(st.lists(st.integers(-2**63, 2**64), min_size=6, max_size=6),
                   st.text(max_size=8))
# a path as a file's name: text with no NUL (a surrogate: git's non-UTF-8 byte)
_PATH = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0")
                | st.sampled_from(["\udc80", "\udcff"]), max_size=6)


@settings(max_examples=200, deadline=None)
@given(inputs=st.dictionaries(_PATH, _STATE, max_size=8), batch=st.integers(1, 4),
       chunk=st.integers(1, 64), answer=st.dictionaries(st.text(max_size=3),
                                                         st.integers()))
def test_states_read_back_as_written_in_any_block(
        tmp_path_factory, inputs: Dict[str, Any], batch: int, chunk: int,
        answer: Dict[str, int]) -> None:
    """The states a memo writes (a batch at a time) read back (a chunk at a
    time) as the text of each state, each path as written, in order; the
    answer is given back when every state is the same now, and a path that
    is not UTF-8 (a surrogate) is a miss, as before."""
    folder = tmp_path_factory.mktemp("memo")
    body = b"".join(cache._memo_chunks({"key": "k", "took": 0}, answer, inputs,
                                       batch))
    head, answer_line, states = body.split(b"\n", 2)
    assert json.loads(head) == {"key": "k", "took": 0}
    assert json.loads(answer_line) == answer
    utf8 = all(not any("\ud800" <= c <= "\udfff" for c in rel) for rel in inputs)
    try:
        read = list(cache._entries(b"\n" + states, 1, chunk))
    except ValueError:
        assert not utf8
    else:
        assert utf8 and read == [(rel, cache.state_text(v))
                                 for rel, v in inputs.items()]
    memo = cache.Memo(folder, "x", "k", 1 << 20)
    memo.save(0, inputs, answer)
    memo = cache.Memo(folder, "x", "k", 1 << 20)
    memo.started_ns += 2**65  # no state is racy
    assert memo.reuse(lambda rel: inputs[rel]) == (answer if utf8 else None)


def _oracle(data: bytes, key: str, state: Callable[[str], Any]) -> Any:
    """What a memo file says, read whole, as the layout is documented: its
    answer if every part is right and every state is the state now, else
    None."""
    head, _, body = data.partition(b"\n")
    if head != cache.framed(body).partition(b"\n")[0] or body.count(b"\n") < 2:
        return None
    top, answer, states = body.split(b"\n", 2)

    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        doc = json.loads(top, parse_constant=refuse)
        said = json.loads(answer, parse_constant=refuse)
        items = states.split(b"\0")
        pairs = [(items[i].decode("utf-8"), items[i + 1])
                 for i in range(0, len(items) - 1, 2)]
    except ValueError:
        return None
    if not (type(doc) is dict and doc.keys() == {"key", "took"} and doc["key"] == key
            and type(doc["took"]) is int and doc["took"] >= 0) or \
            states and (states[-1:] != b"\0" or len(items) % 2 == 0):
        return None
    return said if all(cache.state_text(state(rel)) == was for rel, was in pairs) \
        else None


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_bytes_in_a_memo_are_a_miss_or_its_answer(tmp_path_factory,
                                                      data: st.DataObject) -> None:
    """A memo file of any bytes (one icm wrote, cut, a byte changed, bytes
    added, its CRC made right again or not): ``reuse`` gives what the
    layout read whole gives (``_oracle``), and raises nothing."""
    folder = tmp_path_factory.mktemp("memo")
    inputs = {"a.md": [1, 2, 3, 4, 5, 1], "b/c.md": "no such file", "": [0] * 6}
    key = cache.Memo(folder, "x", "k", 1 << 20).key
    real = cache.framed(b"".join(cache._memo_chunks(
        {"key": key, "took": 0}, {"ok": 1}, inputs)))
    at = data.draw(st.integers(0, len(real)))
    how = data.draw(st.sampled_from(["cut", "byte", "insert", "whole"]))
    if how == "cut":
        mangled = real[:at]
    elif how == "byte":
        mangled = real[:at] + bytes([data.draw(st.integers(0, 255))]) + real[at + 1:]
    elif how == "insert":
        mangled = real[:at] + data.draw(st.binary(min_size=1, max_size=6)) + real[at:]
    else:
        mangled = data.draw(st.binary(max_size=200))
    if data.draw(st.booleans()):  # a deliberate writer: the CRC right
        mangled = cache.framed(mangled.partition(b"\n")[2])
    (folder / "memo-x.json").write_bytes(mangled)
    memo = cache.Memo(folder, "x", "k", 1 << 20)
    memo.started_ns += 2**65  # no state is racy

    def state(rel: str) -> Any:
        return inputs.get(rel, "no such file")

    assert memo.reuse(state) == _oracle(mangled, key, state)
    if mangled == real:
        assert _oracle(mangled, key, state) == {"ok": 1}


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
        plain = engine.to_plain(report, spec.module)
        assert plain is not None, name
        back = engine.from_plain(json.loads(json.dumps(plain)), name, spec.module)
        assert back == report
        # and it makes its tail again for fewer findings, as the check's
        assert back is not None and back.keeping(()).tail == report.keeping(()).tail
    odd = Report("links", (Finding("a.md", extra={"pair": (1, 2)}),))
    assert engine.to_plain(odd) is None
    assert engine.to_plain(Report("links", (), data={1: "x"})) is None
