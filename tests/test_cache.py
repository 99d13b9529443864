"""The cache is untrusted data: whatever ``.git/icm`` holds, a run gives
the findings a run without it gives, and never crashes (issue 22, item 6).

Every test works on real cache files written by real runs over one small
repository with findings of each kind (broken links, anchors, case, an
unreadable file, a path that is not UTF-8, copies and diverged copies)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from icm import cache
from icm.checks import dupes
from icm.model import links
from tests.conftest import commit, git_env

BAD = os.fsdecode(b"n\xff.md")  # a name that is not UTF-8
RULE = "Every reader of a file stops at {} and reports the rest as skipped."
FILES = {
    "AGENTS.md": "# Handbook\n\n## Rules\n\n" + RULE.format("1 MiB") + "\n\n"
                 "See [gone](gone.md), [case](A/context.md), [anchor](a/context.md"
                 "#nowhere), [ref][r], <https://example.com/x> and "
                 '<a href="b/context.md#rules">b</a>.\n\n'
                 "[r]: b/context.md#missing\n\n[amp](a&amp;gone.md) and "
                 "[escaped](b\\_gone.md): hrefs that are not the raw text.\n\n"
                 "## Index of notes\n\n"
                 "- [a](a/context.md)\n- [b](b/context.md)\n"
                 "- [odd](n%FF.md#top)\n",
    "a/context.md": "# a\n\n## Rules\n\n- The parser must not follow symlinks "
                    "that leave the repository root.\n\n![d](../d.png \"t\")\n",
    "b/context.md": "# b\n\n## Rules\n\n" + RULE.format("64 KiB") + "\n\n"
                    "- The parser must not follow symlinks that leave the "
                    "repository root.\n",
    "c/context.md": "# c, not indexed\n\n[back](../AGENTS.md#rules)\n",
    "journal/2026-01-01_x.md": "# x\n\n## Decision\nd\n\n## Rejected alternative"
                               "\nr\n\n## Invariant\n" + RULE.format("2 MiB") +
                               "\n\n## Verify command\n`true`\n",
    BAD: "# odd\n\n[up](AGENTS.md#nothing)\n",
    "bad.md": b"caf\xe9 [x](y.md)\n",
    "d.png": "",
}
CHECKS = ("check-links", "check-dupes")
# Each example is a real run over a real repository: a third of the
# profile's examples (the "deep" profile still goes deep).
FEWER = settings(max_examples=max(10, settings.default.max_examples // 3))
NAMES = (cache.FILE_NAME, dupes.CACHE_FILE)
WRITTEN = (*NAMES, links.INTO_FILE)  # the link index (--changed-since)
Answers = List[Tuple[int, str, str]]


def _answer(icm: Callable[..., Tuple[int, str, str]], repo: Path,
            cmd: str) -> Tuple[int, str, str]:
    """Exit code and the whole JSON report (lines, codes, counts: text
    shows no line numbers) and stderr."""
    return icm(cmd, "--root", str(repo), "--format", "json")


def _answers(icm: Callable[..., Tuple[int, str, str]], repo: Path) -> Answers:
    return [_answer(icm, repo, cmd) for cmd in CHECKS]


def _ahead(path: Path) -> None:
    """The cache written well after the files: the stamp path (files not
    even read) is taken, so a planted entry is reached."""
    later = time.time() + 60
    os.utime(path, (later, later))


@pytest.fixture
def built(repo: Path, icm) -> Tuple[Path, Answers, Dict[str, bytes]]:
    """The repository, its answers with no cache, and the caches icm wrote."""
    commit(repo, FILES, "2026-01-01T00:00:00+00:00")
    clean = _answers(icm, repo)
    assert [a[0] for a in clean] == [1, 0], clean  # dupes: diverged warns
    assert _answers(icm, repo) == clean
    # the link index: only a narrowed run writes it (nothing changed here)
    assert icm("check-links", "--changed-since", "HEAD", "--root",
               str(repo))[0] == 0
    folder = repo / ".git" / "icm"
    return repo, clean, {name: (folder / name).read_bytes() for name in WRITTEN}


def _doc(data: bytes) -> Any:
    """The JSON document of a cache file (after its format and CRC line)."""
    return json.loads(data.partition(b"\n")[2])


def _framed(doc: Any) -> bytes:
    """``doc`` as icm writes a cache, its CRC right: what only a deliberate
    writer makes, so that the shape checks, not the CRC, refuse it."""
    return cache.framed(json.dumps(doc, ensure_ascii=False).encode(
        "utf-8", "backslashreplace"))


def _plant(repo: Path, caches: Dict[str, bytes], name: str, data: bytes) -> None:
    folder = repo / ".git" / "icm"
    for each, real in caches.items():
        (folder / each).write_bytes(data if each == name else real)
        _ahead(folder / each)


def test_icm_accepts_its_own_cache(built, icm, monkeypatch) -> None:
    """A warm run reads every answer from the cache (no file is parsed or
    split), the path that is not UTF-8 included: checks that refused icm's
    own entries would pass every other test here, slowly."""
    repo, clean, caches = built
    doc = _doc(caches[cache.FILE_NAME])
    assert BAD in doc["entries"]

    original = links._parse_path

    def parse(job: Any) -> Any:
        assert job[1] == "bad.md", f"parsed {job[1]} again"  # unreadable: read
        return original(job)  # again, so the reason is always reported

    def split(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("split again")

    monkeypatch.setattr(links, "_parse_path", parse)
    monkeypatch.setattr(dupes.similarity, "statements", split)
    _plant(repo, caches, "", b"")
    assert _answers(icm, repo) == clean
    for name in NAMES:  # restored in CI: every stamp new, hits by content
        (repo / ".git" / "icm" / name).write_bytes(caches[name])
    assert _answers(icm, repo) == clean


def _mangled(real: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=300),
        st.integers(0, len(real)).map(lambda n: real[:n]),
        st.tuples(st.integers(0, len(real) - 1), st.integers(0, 255)).map(
            lambda f: real[:f[0]] + bytes([f[1]]) + real[f[0] + 1:]),
        st.tuples(st.integers(0, len(real)), st.binary(min_size=1, max_size=8)).map(
            lambda f: real[:f[0]] + f[1] + real[f[0]:]))


def test_any_bytes_give_the_answers_of_no_cache(built, icm) -> None:
    repo, clean, caches = built

    # a byte changed inside a string still parses, to the right shape: only
    # the CRC tells (this one made the link read "gome.md", and look broken)
    inside = caches[cache.FILE_NAME].replace(b'"gone.md"', b'"gome.md"', 1)

    @FEWER
    @example((cache.FILE_NAME, inside))
    @given(st.sampled_from(NAMES).flatmap(
        lambda name: st.tuples(st.just(name), _mangled(caches[name]))))
    def check(planted: Tuple[str, bytes]) -> None:
        _plant(repo, caches, *planted)
        i = NAMES.index(planted[0])
        assert _answer(icm, repo, CHECKS[i]) == clean[i]

    check()


def _nodes(node: Any, at: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
    """The path to every value in a JSON document (dict keys are no value)."""
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _nodes(value, (*at, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _nodes(value, (*at, i))
    return found


OTHERS = (None, True, 1.5, 7, "s", [], {})
BANNED = ("\x00", "\ud800", "\udbff", "\udc7f", "\udfff")


def _at(doc: Any, at: Tuple[Any, ...]) -> Any:
    for step in at:
        doc = doc[step]
    return doc


def _ways(node: Any) -> List[int]:
    """The ways ``_wrong`` can break ``node`` (0, another type, fits all)."""
    return [0] + [k for k, fits in ((1, type(node) is list), (2, type(node) is int),
                                    (3, type(node) is str),
                                    (4, type(node) is dict and bool(node)),
                                    (5, type(node) is list and bool(node)))
                  if fits]


def _wrong(doc: Any, at: Tuple[Any, ...], kind: int, pick: int) -> Any:
    """``doc`` with the value at ``at`` given a shape no reader accepts: 0, a
    value of another JSON type; 1, a list with a dict appended (no list icm
    writes holds one); 2, an int of -1 (where counts start at 0 or 1; a
    stamp of -1 only misses); 3, a string with a NUL or a surrogate no file
    holds; 4, a key renamed to hold one; 5, a list one longer, its last item
    twice (a column no longer as long as its row's others; anchors alone may
    repeat, and a repeated one changes nothing)."""
    parent, node = (_at(doc, at[:-1]), _at(doc, at)) if at else (None, doc)
    if kind == 0:
        others = [o for o in OTHERS if type(o) is not type(node)]
        new: Any = others[pick % len(others)]
    elif kind == 1:
        new = [*node, {}]
    elif kind == 2:
        new = -1
    elif kind == 3:
        new = node + BANNED[pick % len(BANNED)]
    elif kind == 5:
        new = [*node, node[-1]]
    else:
        keys = list(node)
        key = keys[pick % len(keys)]
        new = {(k + BANNED[pick % len(BANNED)] if k == key else k): v
               for k, v in node.items()}
    if parent is None:
        return new
    parent[at[-1]] = new
    return doc


def test_wrong_shapes_give_the_answers_of_no_cache(built, icm) -> None:
    """Structurally valid JSON, every digest and stamp real, one value
    anywhere given a wrong shape: the whole cache is refused."""
    repo, clean, caches = built
    places = {name: _nodes(_doc(caches[name])) for name in NAMES}

    @FEWER
    @given(st.sampled_from(NAMES), st.data(), st.integers(0, 99),
           st.integers(0, 99))
    def check(name: str, data: st.DataObject, how: int, pick: int) -> None:
        at = data.draw(st.sampled_from(places[name]))
        doc = _doc(caches[name])
        ways = _ways(_at(doc, at))
        _plant(repo, caches, name, _framed(_wrong(doc, at, ways[how % len(ways)],
                                                  pick)))
        i = NAMES.index(name)
        assert _answer(icm, repo, CHECKS[i]) == clean[i], (at, how, pick)

    check()


def _signature(at: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """Where a value sits in the layout: a file's path, a stamp's part and
    a column's item are one place each, whichever they are."""
    return tuple("*" if d == 1 or d >= 4 or (d == 3 and at[2] == 2) else step
                 for d, step in enumerate(at))


KEYS = {cache.FILE_NAME: (links.cache_key, links.cached_parse),
        dupes.CACHE_FILE: (dupes.cache_key, dupes.cached_statements),
        links.INTO_FILE: (links.into_key, links.cached_into)}


@pytest.mark.parametrize("name", WRITTEN)
def test_every_wrong_shape_in_every_place_is_refused(built, name: str) -> None:
    """Each place of the layout, each way ``_wrong`` breaks it: the cache is
    refused whole (the property test above samples these; this one visits
    every one, so a check dropped for one place fails here)."""
    repo, _clean, caches = built
    folder = repo / ".git" / "icm"
    key, check = KEYS[name]
    places: Dict[Tuple[Any, ...], Tuple[Any, ...]] = {}
    for at in _nodes(_doc(caches[name])):
        places.setdefault(_signature(at), at)
    assert len(places) > (10 if name == links.INTO_FILE else 12)  # its layout
    (folder / name).write_bytes(caches[name])
    assert cache.Cache(folder, key(), check, 1 << 30, name).entries
    for sig, at in places.items():
        for way in _ways(_at(_doc(caches[name]), at)):
            if ((sig[-2:] == (2, "*") and way == 2) or sig == ("entries",)
                    or (name == cache.FILE_NAME and sig[-2:] == (1, 4)
                        and way == 5)
                    or (name == dupes.CACHE_FILE and sig[-3:] == (1, 6, "*")
                        and way == 5)
                    or (name == links.INTO_FILE and sig[-2:] == (1, 1)
                        and way == 5)):
                continue  # a stamp of -1 or a path with a NUL only misses;
                # anchors may repeat, and a statement's headings are a path
                # of any length (the property tests run those)
            for pick in range(len(BANNED) if way == 3 else 1):
                (folder / name).write_bytes(_framed(_wrong(_doc(caches[name]), at,
                                                           way, pick)))
                assert cache.Cache(folder, key(), check, 1 << 30,
                                   name).entries == {}, (sig, way, pick)


# What a check accepts: any text but a NUL or a surrogate
_TEXT = st.text(st.characters(blacklist_categories=("Cs",),
                              blacklist_characters="\x00%"), max_size=12)


@st.composite
def _forged_links(draw: st.DrawFn) -> List[Any]:
    n = draw(st.integers(0, 4))
    return [draw(st.lists(st.integers(1, 2**62), min_size=n, max_size=n)),
            draw(st.lists(_TEXT, min_size=n, max_size=n)),
            draw(st.dictionaries(st.integers(0, n - 1).map(str), _TEXT)) if n else {},
            draw(st.lists(_TEXT, min_size=n, max_size=n)),
            draw(st.lists(_TEXT, max_size=3)), draw(st.integers(0, 2**62))]


@st.composite
def _forged_statements(draw: st.DrawFn, kind: int) -> List[Any]:
    n = draw(st.integers(0, 4))
    return [kind, draw(st.lists(st.integers(1, 2**62), min_size=n, max_size=n)),
            draw(st.lists(_TEXT, min_size=n, max_size=n)),
            draw(st.lists(st.booleans(), min_size=n, max_size=n)),
            draw(st.lists(_TEXT, min_size=n, max_size=n)),
            draw(st.lists(st.integers(0, 2**62), min_size=n, max_size=n)),
            draw(st.lists(st.lists(_TEXT, max_size=2), min_size=n, max_size=n))]


def test_forged_entries_change_answers_but_never_crash(built, icm) -> None:
    """A well-formed entry under a file's real hash is believed (the limit
    the module docstring states): any such cache still gives exit 0 or 1,
    no traceback, no stderr. (``%`` is left out: ``%00`` in a file's own
    link is item 5's, with or without a cache.)"""
    repo, clean, caches = built
    folder = repo / ".git" / "icm"
    docs = {name: _doc(caches[name]) for name in NAMES}

    @FEWER
    @given(st.data())
    def check(data: st.DataObject) -> None:
        for name, doc in docs.items():
            forged = json.loads(json.dumps(doc))
            for rel, hit in forged["entries"].items():
                hit[1] = data.draw(_forged_links() if name == cache.FILE_NAME
                                   else _forged_statements(hit[1][0]), label=rel)
            (folder / name).write_bytes(_framed(forged))
            _ahead(folder / name)
            key, check = KEYS[name]  # believed, or this tests nothing
            assert cache.Cache(folder, key(), check, 1 << 30, name).entries == \
                forged["entries"]
        for code, _out, err in _answers(icm, repo):
            assert code in (0, 1) and err == ""

    check()


def test_a_forged_entry_is_believed(built, icm) -> None:
    """What holds and what does not, shown: one entry rewritten under the
    handbook's real hash hides its broken links. Only a writer of the git
    directory can do this (``test_a_symlinked_cache_folder_is_refused``:
    nor through a link), and that writer can change the files too."""
    repo, clean, caches = built
    doc = _doc(caches[cache.FILE_NAME])
    doc["entries"]["AGENTS.md"][1] = [[], [], {}, [], [], 0]
    _plant(repo, caches, cache.FILE_NAME, _framed(doc))
    assert _answers(icm, repo)[0] != clean[0]


def _rchar() -> int:
    """Bytes this process has read with read(2) so far."""
    with open("/proc/self/io") as io:
        return int(next(line for line in io if line.startswith("rchar:")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="Linux only")
def test_a_huge_sparse_cache_is_never_read(built, icm) -> None:
    """512 MB of holes where the caches go: refused from ``fstat`` alone
    (the marshal code read it all, then failed)."""
    repo, clean, caches = built
    for name in NAMES:
        with open(repo / ".git" / "icm" / name, "wb") as fh:
            fh.truncate(512 << 20)
    before = _rchar()
    assert _answers(icm, repo) == clean
    # the repository's own files are a few KB; reading as much as the limit
    # allows (over 1 MiB here) would be refused after the read, not before
    assert _rchar() - before < cache.BASE_BYTES // 4


MARSHAL_LIST_OF_2_29 = b"[\x00\x00\x00\x20"  # TYPE_LIST, 2**29 items, no items


def test_a_file_declaring_a_huge_count_costs_nothing(built, icm) -> None:
    """The old attack: 5 bytes made marshal allocate 4 GiB for a list and
    crash with MemoryError ("internal error", exit 2) under a 1 GiB address
    space limit, in real processes as CI runs them."""
    repo, clean, caches = built

    def one_gib() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    for name in NAMES:
        (repo / ".git" / "icm" / name).write_bytes(MARSHAL_LIST_OF_2_29)
    for cmd, want in zip(CHECKS, clean):
        got = subprocess.run(
            [sys.executable, "-m", "icm", cmd, "--root", str(repo), "--format",
             "json"],
            capture_output=True, text=True, preexec_fn=one_gib, cwd=repo,
            env=git_env())
        assert (got.returncode, got.stdout, got.stderr) == want


def test_a_symlinked_cache_folder_is_refused(built, icm, tmp_path: Path) -> None:
    """``.git/icm`` pointing elsewhere: nothing there is read (its forged
    cache would hide the broken links) and nothing is written there (the
    marshal code wrote its cache through the link)."""
    repo, clean, caches = built
    doc = _doc(caches[cache.FILE_NAME])
    doc["entries"]["AGENTS.md"][1] = [[], [], {}, [], [], 0]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / cache.FILE_NAME).write_bytes(_framed(doc))
    _ahead(outside / cache.FILE_NAME)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    folder = repo / ".git" / "icm"
    for path in folder.iterdir():  # the caches, and any memo a run left
        path.unlink()
    folder.rmdir()
    folder.symlink_to(outside)
    assert _answers(icm, repo) == clean
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before
    assert folder.is_symlink()


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder", "dangling"])
def test_a_cache_that_is_no_regular_file_is_refused(built, icm, tmp_path: Path,
                                                    kind: str) -> None:
    """A symlinked cache file is not read (its target is a forged cache) and
    is replaced by a file of icm's, its target untouched; a FIFO does not
    hang; a folder or a dangling link is only a miss."""
    repo, clean, caches = built
    doc = _doc(caches[cache.FILE_NAME])
    doc["entries"]["AGENTS.md"][1] = [[], [], {}, [], [], 0]
    target = tmp_path / "forged.json"
    target.write_bytes(_framed(doc))
    _ahead(target)
    path = repo / ".git" / "icm" / cache.FILE_NAME
    path.unlink()
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "missing.json")
    assert _answers(icm, repo) == clean
    assert target.read_bytes() == _framed(doc)
    assert not (tmp_path / "missing.json").exists()
    if kind != "folder":
        assert not path.is_symlink() and path.is_file()  # rewritten, safely


def test_a_refused_cache_is_rewritten_whole(built, icm) -> None:
    repo, clean, caches = built
    _plant(repo, caches, cache.FILE_NAME, cache.framed(b'{"key": 3}'))
    assert _answers(icm, repo) == clean
    assert (repo / ".git" / "icm" / cache.FILE_NAME).read_bytes() == \
        caches[cache.FILE_NAME]


def test_an_interrupted_write_leaves_the_old_cache_and_no_temporary(
        built, icm, monkeypatch) -> None:
    """Ctrl-C (or any signal turned into an exception) as the new cache is
    renamed into place: the old file is whole, no ``.tmp-`` file is left."""
    repo, clean, caches = built
    folder = repo / ".git" / "icm"
    (repo / "a" / "context.md").write_text("# a\n\n[new](gone2.md)\n")

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.os, "replace", interrupted)
    code, out, err = icm("check-links", "--root", str(repo))
    assert (code, out, err) == (130, "", "icm: interrupted\n")
    assert sorted(p.name for p in folder.iterdir()) == sorted(WRITTEN)
    assert (folder / cache.FILE_NAME).read_bytes() == caches[cache.FILE_NAME]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats()
                     | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=6)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=4),
                     max_leaves=12)


@given(st.lists(_JSON, max_size=4), st.dictionaries(st.text(max_size=3), _JSON,
                                                  max_size=4))
def test_every_check_answers_any_values_with_a_bool(values: List[Any],
                                                   entries: Dict[str, Any]) -> None:
    """The checks decide, they never raise: a TypeError inside one would be
    a crash as soon as the broad guard in ``Cache`` is narrowed."""
    for check in (links.cached_parse, dupes.cached_statements, cache.seconds):
        assert check(values) in (True, False)
        assert cache._valid(entries, check) in (True, False)


def test_verify_times_refuse_what_no_clock_measures(tmp_path: Path) -> None:
    """Durations are finite, non-negative numbers; NaN and Infinity are not
    JSON icm writes, and 1e999 reads as infinity."""
    for value, kept in (("1.5", True), ("2", True), ('"1"', False), ("true", False),
                        ("-1.0", False), ("1e999", False), ("NaN", False),
                        ("Infinity", False), ("1" * 400, True)):
        (tmp_path / "t.json").write_bytes(cache.framed(
            f'{{"key": "{cache.__version__}|t", '
            f'"entries": {{"j.md": ["{"0" * 32}", {value}, []]}}}}'.encode()))
        store = cache.Cache(tmp_path, "t", cache.seconds, 1 << 20, "t.json")
        assert bool(store.entries) is kept, value


@given(st.text(max_size=80))
def test_a_skeleton_joined_by_spaces_reads_back_whole(text: str) -> None:
    """The dupes cache keeps a skeleton as one string: no word of one holds
    a space, or a warm run would compare other words than a cold one."""
    skel, _words = dupes.similarity.skeleton(text)
    assert dupes._split(" ".join(skel)) == skel


@pytest.mark.parametrize("which", [(cache, "markdown_it_version"),
                                   (cache, "fast_parser_version")])
def test_another_parser_is_a_miss(built, icm, monkeypatch, which: Any) -> None:
    """Either parser's version is in the link cache's key (and icm's own):
    entries another parser wrote are not believed, every file is parsed."""
    repo, clean, caches = built
    parsed: List[str] = []
    original = links._parse_path

    def parse(job: Any) -> Any:
        parsed.append(job[1])
        return original(job)

    monkeypatch.setattr(links, "_parse_path", parse)
    monkeypatch.setattr(*which, lambda: "9.9.9")
    _plant(repo, caches, "", b"")
    assert _answer(icm, repo, "check-links") == clean[0]
    assert len(parsed) == len(_doc(caches[cache.FILE_NAME])["entries"]) + 1  # bad.md


def test_the_marshal_file_it_replaced_is_removed(built, icm) -> None:
    """A restored CI cache still holds the old format's files: saved again
    on every run, never read. The first write of each cache removes its."""
    repo, clean, caches = built
    folder = repo / ".git" / "icm"
    for name in NAMES:
        (folder / name.replace(".json", ".marshal")).write_bytes(MARSHAL_LIST_OF_2_29)
        (folder / name).write_bytes(b"")  # a miss: each cache is written again
    assert _answers(icm, repo) == clean
    assert sorted(p.name for p in folder.iterdir()) == sorted(WRITTEN)
