"""Flat memory (issue 27): the file list is one sorted tuple with a flag per
path, the history holds a hit per path of it, and the change logs keep only
the paths they were asked about. Each structure is held to the sets and
dicts it replaced."""

import json
import os
from pathlib import Path
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm import config, context
from icm import git as icm_git
from icm.context import FileList
from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"

# non-ASCII, and a byte git gave that is not UTF-8 (held as a surrogate)
NAMES = st.text(st.sampled_from(["a", "b", "/", ".", "é", "\udc80", "\udcff",
                                 "\U0001f600", "\x7f"]), min_size=1, max_size=4)


def by_bytes(paths):
    return sorted(paths, key=context.key_of)


@settings(max_examples=150, deadline=None)
@given(tracked=st.lists(NAMES), untracked=st.lists(NAMES), sparse=st.lists(NAMES),
       probes=st.lists(NAMES, max_size=8), step=st.sampled_from([1, 2, 3, 32]),
       chunk=st.sampled_from([1, 5, 1 << 20]))
def test_the_file_list_answers_as_the_three_sets_did(
        tracked: List[str], untracked: List[str], sparse: List[str],
        probes: List[str], step: int, chunk: int) -> None:
    """What ``context.build`` held before: ``files`` (sorted, on disk),
    ``tracked`` (sparse included) and ``file_set`` (everything), as
    frozensets. A path is in one list, or in the tracked and sparse lists
    (an unmerged skip-worktree entry); tracked paths repeat (stages)."""
    untracked = [p for p in untracked if p not in tracked and p not in sparse]
    was = context.STEP, context.CHUNK
    context.STEP, context.CHUNK = step, chunk  # blocks of any size
    try:
        _answers(tracked, untracked, sparse, probes)
    finally:
        context.STEP, context.CHUNK = was


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text())
def test_utf8_bytes_order_text_as_code_points_do(a: str, b: str) -> None:
    """The claim the file list's byte order rests on, for text that is
    UTF-8 (no surrogates); a byte git gave that is not UTF-8 is a
    surrogate in text, and sorts as that byte: git's order, not the
    text's (``"\\udc80" > "é"`` as text, ``b"\\x80" < b"\\xc3\\xa9"``)."""
    assert (a < b) == (a.encode() < b.encode())
    assert context.key_of("\udc80") < context.key_of("é") and "\udc80" > "é"


def _answers(tracked: List[str], untracked: List[str], sparse: List[str],
             probes: List[str]) -> None:
    listed = FileList.of(tracked, untracked, sparse)
    on_disk = by_bytes(set(tracked) | set(untracked))
    every = frozenset(on_disk) | frozenset(sparse)
    was_tracked = frozenset(tracked) | frozenset(sparse)
    assert tuple(listed.paths) == tuple(by_bytes(every)) == listed.paths[:]
    assert tuple(listed.on_disk) == tuple(on_disk) == listed.on_disk[:]
    assert [listed.paths[i] for i in range(-len(every), len(every))] == \
        by_bytes(every) * 2
    for rel in [*probes, *every, "\ud800", ""]:
        i = listed.index(rel)
        assert (listed.paths[i] == rel) if rel in every else i == -1
        assert (rel in listed.on_disk) == (rel in on_disk)
        if rel != "\ud800":  # what bisect_left gives on the decoded list
            got = listed.lower_bound(context.key_of(rel))
            assert got == sum(context.key_of(p) < context.key_of(rel)
                              for p in every)
    for suffix in ("a", "/b", "é", ".", "\udc80", "/a/"):
        assert list(listed.ending(suffix)) == \
            [p for p in by_bytes(every) if p.endswith(suffix)]
    for folder in ("a/", "b/", "/", "é/", "\udcff/"):
        assert [listed.paths[i] for i in listed.under(folder)] == \
            [p for p in by_bytes(every) if p.startswith(folder)]
    for view, want in ((listed.everything, every), (listed.tracked, was_tracked)):
        assert len(view) == len(want) and list(view) == by_bytes(want)
        assert view == want and want == view
        for probe in [*probes, *want]:
            assert (probe in view) == (probe in want)
        assert view | set(probes) == want | set(probes)
        assert view - set(probes) == want - set(probes)
        assert view.union(probes) == want.union(probes)
        assert view.difference(probes) == want.difference(probes)
        assert view.difference() == want
    assert 3 not in listed.tracked and None not in listed.everything
    assert frozenset(listed.flagged(context.TRACKED, 0)) == every - was_tracked


def _listed_whole(out: bytes):
    """The listing's parse before it was streamed (the oracle): the whole
    ``ls-files`` output split at once, the blob a bytearray cut back."""
    tracked, untracked, sparse, deleted = bytearray(b"\0"), [], [], set()
    last, ordered = b"", True
    for item in (i for i in out.split(b"\0") if i):
        tag, name = item[:1], item[2:]
        if tag == b"?":
            untracked.append(name.decode("utf-8", "surrogateescape"))
        elif tag == b"R" and name == last:
            del tracked[len(tracked) - len(name) - 1:]
            cut = tracked.rfind(b"\0", 0, len(tracked) - 1)
            last = bytes(tracked[cut + 1:-1]) if cut >= 0 else b""
        elif tag == b"R":
            deleted.add(name)
        elif tag == b"S":
            sparse.append(name.decode("utf-8", "surrogateescape"))
        elif name != last:
            ordered = ordered and name > last
            tracked += name + b"\0"
            last = name
    blob = bytes(tracked)
    if deleted or not ordered:
        kept = sorted(set(blob[1:-1].split(b"\0")) - deleted) if len(blob) > 1 \
            else []
        blob = b"\0" + b"".join(name + b"\0" for name in kept)
    return blob, untracked, sparse


# ls-files -t items: a tag, a space, a path (deleted after its entry, repeated
# as unmerged stages, out of order, or an R of another path)
_ITEMS = st.lists(st.tuples(st.sampled_from("HHHRS?"),
                            st.sampled_from(["a", "b", "a/b", "c", "é", "\udcff"])),
                  max_size=30)


@settings(max_examples=300, deadline=None)
@given(items=_ITEMS, ordered=st.booleans(), cuts=st.lists(st.integers(0, 400)))
def test_the_listing_read_in_blocks_is_the_whole_listings(items, ordered: bool,
                                                          cuts: List[int]) -> None:
    """``git.list_files`` parses ``ls-files`` as the pipe gives it: cut
    anywhere (inside a path, between its NUL and the next tag), the blob,
    untracked and sparse files are those the whole output's parse gave."""
    if ordered:  # git's order: sorted, an entry's R after it, stages together
        items = sorted(items, key=lambda i: (context.key_of(i[1]), i[0] == "R"))
    out = b"".join(f"{tag} {name}".encode("utf-8", "surrogateescape") + b"\0"
                   for tag, name in items)
    listing = icm_git._Listing()
    at = 0
    for cut in sorted(cuts):
        listing.add(out[at:max(at, cut)])
        at = max(at, cut)
    listing.add(out[at:])
    assert listing.result() == _listed_whole(out)


def test_a_stream_is_read_beside_a_full_stderr(repo: Path) -> None:
    """``git.streamed`` reads stdout and stderr together: git writing more
    to stderr than a pipe holds (an error per unmatched path, 140 KB) while
    stdout is open would wait forever on a reader of stdout alone; its
    failure is a UsageError, the blocks are all of stdout."""
    commit(repo, {f"f{i}.md": "x" for i in range(3)}, D1)
    asked = ["f1.md", *(f"none{i:04d}.md" for i in range(2000))]
    blocks: List[bytes] = []
    with pytest.raises(icm_git.UsageError, match="none0000.md"):
        icm_git.streamed(icm_git.command("ls-files", "-z", "--error-unmatch",
                                         paths=asked), repo, blocks.append, 7)
    assert b"".join(blocks) == b"f1.md\0" and max(map(len, blocks)) <= 7
    assert icm_git.streamed(icm_git.command("ls-files", "-z"), repo,
                            blocks.append) == ""


def test_past_pathspec_max_only_the_asked_changes_are_kept(
        repo: Path, monkeypatch) -> None:
    """A commit of many files listed every change when the log took no
    pathspec (a first commit of 500,000 files: 160 MiB); only the asked
    paths' come back, the same as under the pathspec."""
    commit(repo, {f"f{i}.py": "1" for i in range(30)}, D1)
    commit(repo, {"f3.py": "2", "f4.py": "2", "f5.py": "2"}, D5)
    asked = ["f3.py", "f7.py", "f29.py", "none.py"]
    under = [(sha, sorted(c[0] for c in changes)) for sha, _, changes in
             icm_git.path_changes(repo, "first-parent", asked)]
    assert [paths for _, paths in under] == [["f3.py"], ["f29.py", "f3.py", "f7.py"]]
    monkeypatch.setattr(icm_git, "PATHSPEC_MAX", 1)
    past = [(sha, sorted(c[0] for c in changes)) for sha, _, changes in
            icm_git.path_changes(repo, "first-parent", asked)]
    assert past == under


def test_the_history_holds_the_file_lists_paths_and_the_pending(repo: Path) -> None:
    """The history pass's hits are kept for the paths of the file set and the
    pending ones (a file deleted in the work tree), the same hits as the
    pass's whole answer; of the paths of neither (deleted in a commit, or
    excluded) only each folder's newest is held (``gone``: stale asks it)."""
    commit(repo, {"a/context.md": "n", "a/x.py": "1", "a/gone.py": "g",
                  "old.py": "o", "old2.py": "o", "skip/y.py": "1", "é/ü.py": "1"},
           D1)
    git(repo, "rm", "-q", "old2.py")  # older than old.py's deletion: not held
    commit(repo, {"a/x.py": "2", "skip/y.py": "2"}, D5)
    git(repo, "rm", "-q", "old.py")
    commit(repo, {"é/ü.py": "2"}, D9)
    (repo / "a" / "gone.py").unlink()  # pending: deleted, not committed
    write(repo, {"new.py": "untracked", "icm.toml": 'exclude = ["skip/"]\n'})
    ctx = context.build(repo, config.load(repo))
    history = ctx.history()
    every = icm_git.HistoryPass(repo, "first-parent").result()
    assert isinstance(every, dict)
    asked = {*ctx.file_set, *history.pending}
    assert "a/gone.py" in asked and "old.py" not in asked
    gone = set(history.times.gone_paths())
    assert gone == {"old.py", "skip/y.py"}
    for path, hit in every.items():
        rel = path.decode("utf-8", "surrogateescape")
        want = (hit[0], hit[1].decode("ascii"), hit[2]) if rel in asked | gone \
            else None
        assert history.last(rel) == want, rel
    assert history.last("new.py") is None and history.last("nowhere") is None
    assert history.times.slots.itemsize * len(history.times.slots) <= 4 * len(asked)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=4)
# paths git gave as bytes that are not UTF-8 hold surrogates
KEYS = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from(
    ["\udcff", "\udc80", "é", '"', "\\"]), max_size=6)


@settings(max_examples=100, deadline=None)
@given(entries=st.dictionaries(KEYS, JSON, max_size=8), batch=st.integers(1, 5),
       before=JSON, after=JSON)
def test_a_cache_streamed_in_chunks_is_the_whole_document(
        entries, batch: int, before, after) -> None:
    """The cache and memo files are written a batch of entries at a time; the
    bytes are those ``json.dumps`` of the whole document gave."""
    from icm import cache

    doc = {"key": before, "entries": entries, "answer": after}
    whole = json.dumps(doc, ensure_ascii=False, separators=(",", ":"),
                       allow_nan=False).encode("utf-8", "backslashreplace")
    assert b"".join(cache._chunks(doc, "entries", batch)) == whole


def test_a_cache_over_its_limit_leaves_no_file(tmp_path: Path) -> None:
    """Streamed, the size is known only as it is written: past the limit the
    write stops and nothing is left, neither the file nor its temporary."""
    from icm import cache

    store = cache.Cache(tmp_path, "k", lambda values: True, 400)
    store.put("a.md", "0" * cache.DIGEST_CHARS, ["x" * 300], (1, 2, 3, 4, 5))
    store.save()
    assert os.listdir(tmp_path) == [] and store.used == {}  # spent, let go
    store = cache.Cache(tmp_path, "k", lambda values: True, 400)
    store.put("b.md", "0" * cache.DIGEST_CHARS, ["y"], (1, 2, 3, 4, 5))
    store.save()
    assert os.listdir(tmp_path) == [cache.FILE_NAME]
    again = cache.Cache(tmp_path, "k", lambda values: True, 400)
    assert again.entries == {"b.md": ["0" * cache.DIGEST_CHARS, ["y"],
                                      [1, 2, 3, 4, 5]]}


def _unrelated_roots(repo: Path) -> None:
    """``busy_history``, an unrelated history merged in (a second root,
    seen by "all"), a path with a non-UTF-8 byte in the first root."""
    from tests.test_history_form import busy_history

    busy_history(repo)
    git(repo, "checkout", "-q", "--orphan", "other")
    git(repo, "rm", "-rfq", ".")
    commit(repo, {"sub/x.py": "other root", "sub/o.py": "o",
                  "sub/\udcff.py".encode("utf-8", "surrogateescape").decode(
                      "utf-8", "surrogateescape"): "b"}, D1)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--allow-unrelated-histories", "-s",
        "ours", "-m", "unrelated", "other", when=D9)


@pytest.mark.parametrize("mode", ["first-parent", "all"])
def test_a_root_commit_read_apart_gives_the_logs_facts(repo: Path, mode: str) -> None:
    """Past ``ROOTS_APART`` paths a root commit's diff is read by ``ls-tree``
    (git's log held 193 MiB for a first commit of 500,000 files): the
    history pass's hits and the change logs' changes are those the log
    gives, from the top and from a subfolder, with a base or none."""
    _unrelated_roots(repo)
    base = git(repo, "rev-list", "--max-parents=0", "--first-parent",
               "HEAD").strip()
    roots = git(repo, "rev-list", "--max-parents=0", "HEAD").split()
    for where in (repo, repo / "sub"):
        for start in (None, base):
            whole = icm_git.HistoryPass(where, mode, base=start).result()
            assert icm_git.HistoryPass(where, mode, base=start,
                                       apart=True).result() == whole
        names = sorted(p.decode("utf-8", "surrogateescape") for p in whole)
        for paths in (names[:2], names):
            for commits in ((), roots):
                for start in (None, base):
                    logs = [list(icm_git.path_changes(
                        where, mode, paths, start, commits, apart=apart))
                        for apart in (False, True)]
                    assert logs[0] == logs[1] and logs[0]


def test_a_commits_hit_is_one_object_whatever_the_paths_asked(repo: Path) -> None:
    """Stale asks the history of every code path: each commit's hit is made
    once (a tuple and a hash per path asked were 150 bytes each), the
    triple the pass gives; a note's code holds no list of other paths
    until one comes (``PathList``), and the notes are found once."""
    commit(repo, {"a/context.md": "n", "a/x.py": "1", "a/y.py": "1"}, D1)
    commit(repo, {"a/y.py": "2"}, D5)
    ctx = context.build(repo, config.load(repo))
    history = ctx.history()
    first, again, other = (history.last(p) for p in ("a/x.py", "a/context.md",
                                                     "a/y.py"))
    assert first is again and first == (int(git(
        repo, "log", "-1", "--format=%ct", "HEAD~1").strip()),
        git(repo, "rev-parse", "HEAD~1").strip(), -1)
    assert other is not None and other[1] == git(repo, "rev-parse", "HEAD").strip()
    code = context.PathList(ctx.file_list)
    code.append("a/x.py", ctx.file_list.index("a/x.py"))
    assert code._others == () and not hasattr(code, "__dict__")
    code.append("gone.py")
    assert list(code) == ["a/x.py", "gone.py"] and code[-1] == "gone.py"
    assert ctx.notes() is ctx.notes() == ("a/context.md",)


@pytest.mark.parametrize("apart", [False, True])
@pytest.mark.parametrize("pathspec_max", [64, 1])
def test_every_added_files_old_id_is_one_string(repo: Path, monkeypatch,
                                                apart: bool, pathspec_max: int
                                                ) -> None:
    """An added file's change comes from no blob: the zero id, one string for
    all of them (one each was 2.2 MiB of a first commit's 24,500 asked
    paths), read apart or from the log, under a pathspec or past it; the
    changes are the log's, blob ids included."""
    monkeypatch.setattr(icm_git, "PATHSPEC_MAX", pathspec_max)
    commit(repo, {"a.py": "1", "b/c.py": "1", "d.py": "1"}, D1)
    commit(repo, {"a.py": "2", "e.py": "1"}, D5)
    asked = ["a.py", "b/c.py", "e.py"]
    got = [(sha, sorted(changes)) for sha, _, changes in
           icm_git.path_changes(repo, "first-parent", asked, apart=apart)]

    def blob(rev: str, path: str) -> str:
        return git(repo, "rev-parse", f"{rev}:{path}").strip()

    zero = "0" * 40
    head, first = (git(repo, "rev-parse", r).strip() for r in ("HEAD", "HEAD~1"))
    assert got == [
        (head, [("a.py", blob("HEAD~1", "a.py"), blob("HEAD", "a.py")),
                ("e.py", zero, blob("HEAD", "e.py"))]),
        (first, [("a.py", zero, blob("HEAD~1", "a.py")),
                 ("b/c.py", zero, blob("HEAD~1", "b/c.py"))])]
    assert len({id(old) for _, changes in got for _, old, _ in changes
                if old == zero}) == 1


@pytest.mark.parametrize("apart", [False, True])
@pytest.mark.parametrize("pathspec_max", [64, 1])
def test_edits_are_the_changes_with_a_blob_on_both_sides(
        repo: Path, monkeypatch, apart: bool, pathspec_max: int) -> None:
    """``edits``: the log's changes less adds and deletions, a root's adds
    never read (no ``ls-tree``: the word check held 24,500 at 500k)."""
    monkeypatch.setattr(icm_git, "PATHSPEC_MAX", pathspec_max)
    commit(repo, {"a.py": "1", "b/c.py": "1", "d.py": "1"}, D1)
    git(repo, "rm", "-q", "d.py")
    commit(repo, {"a.py": "2", "e.py": "1"}, D5)
    asked = ["a.py", "b/c.py", "d.py", "e.py"]
    whole = [(sha, [c for c in changes if c[1].strip("0") and c[2].strip("0")])
             for sha, _, changes in
             icm_git.path_changes(repo, "first-parent", asked, apart=apart)]

    def no_tree(*args: object, **kwargs: object) -> None:
        raise AssertionError("a root's adds were read")

    monkeypatch.setattr(icm_git, "root_tree", no_tree)
    got = [(sha, changes) for sha, _, changes in icm_git.path_changes(
        repo, "first-parent", asked, apart=apart, edits=True)]
    assert got == whole and [len(c) for _, c in got] == [1, 0]


def test_net_changes_read_no_index_and_answer_as_diff_tree(
        repo: Path, monkeypatch) -> None:
    """``diff-tree`` loads the index though it compares trees (131 MiB at
    500,000 files): it is run on an empty one (a name no file has), and its
    answer is the one with the index, a staged change beside it too."""
    commit(repo, {"a/x.py": "1", "a/y.py": "1", "b/z.py": "1"}, D1)
    commit(repo, {"a/x.py": "2", "b/z.py": "2", "a/w.py": "1"}, D5)
    write(repo, {"a/y.py": "staged"})
    git(repo, "add", "a/y.py")
    first, head = (git(repo, "rev-parse", r).strip() for r in ("HEAD~1", "HEAD"))
    seen = []
    real = icm_git.subprocess.run

    def spy(argv, **kwargs):
        seen.append((argv, kwargs["env"].get("GIT_INDEX_FILE")))
        return real(argv, **kwargs)

    monkeypatch.setattr(icm_git.subprocess, "run", spy)
    got = icm_git.net_changes(repo, [first], head, ["."])
    (argv, index), = [s for s in seen if "diff-tree" in s[0]]
    assert index is not None and not os.path.exists(index)
    out = git(repo, "diff-tree", "-r", "--raw", "--no-abbrev", head, first)
    want = sorted((line.split("\t")[1], *line.split()[2:4])
                  for line in out.splitlines())
    assert sorted(got[first]) == want and len(want) == 3


def test_the_resolvers_folder_cache_shares_one_mark_for_plain_folders(
        tmp_path: Path) -> None:
    """A folder whose real path is the root's joined with it (nearly all)
    is kept as one shared mark, not a string of its own (2.5 MiB at 25,000
    folders); a linked one keeps its real path; every answer, first or
    from the cache, is the one ``paths.resolve`` gives."""
    from icm import paths

    write(tmp_path, {"a/b/x.py": "1", "a/y.py": "1", "c/z.py": "1"})
    os.symlink("a/b", tmp_path / "l")
    rels = ["a/b/x.py", "a/y.py", "c/z.py", "l/x.py", "a/b/new.py", "m/n/o.py"]
    many = paths.Resolver(tmp_path, None)
    for rel in rels + rels:
        assert many.resolve(rel) == paths.resolve(tmp_path, rel), rel
    real = os.path.realpath(tmp_path)
    assert many.folders == {"a": paths._PLAIN, "a/b": paths._PLAIN,
                            "c": paths._PLAIN, "l": os.path.join(real, "a/b"),
                            "m": paths._PLAIN}  # below a missing one: none
    assert all(v is paths._PLAIN for k, v in many.folders.items() if k != "l")


def _wordless_as_before(ctx: context.Context, deciding) -> set:
    """``stale._wordless_commits`` as it was: every change held, added and
    deleted files' blobs read too."""
    from icm.checks import stale

    found = {}
    for sha, _, changes in ctx.path_changes(sorted(deciding),
                                            commits=sorted(set(deciding.values()))):
        for change in changes:
            if deciding.get(change[0]) == sha:
                found[change[0]] = change
    digests = stale._digests(ctx, [o for _, old, new in found.values()
                                   for o in (old, new)])
    return {n for n, (_, old, new) in found.items()
            if not stale._changed(digests, old, new)}


@pytest.mark.parametrize("pathspec_max", [64, 1])
def test_wordless_commits_holding_no_added_file_answer_as_before(
        repo: Path, monkeypatch, pathspec_max: int) -> None:
    """The word check holds no change of a file added or deleted (no blob on
    one side: a change of words, never read); its answer is the one that
    held and read them all, for notes added, reworded, rewrapped, deleted
    and re-added, each at its own commit and all at the first."""
    from icm.checks import stale

    monkeypatch.setattr(icm_git, "PATHSPEC_MAX", pathspec_max)
    commit(repo, {"a/context.md": "one two", "b/context.md": "x y",
                  "c/context.md": "p q", "d/context.md": "k"}, D1)
    commit(repo, {"a/context.md": "one\ntwo", "b/context.md": "x z",
                  "e/context.md": "new"}, D5)
    git(repo, "rm", "-q", "d/context.md")
    commit(repo, {"c/context.md": "p  q\n"}, D9)
    commit(repo, {"d/context.md": "k"}, "2026-10-10T12:00:00+00:00")
    ctx = context.build(repo, config.load(repo))
    notes = ["a/context.md", "b/context.md", "c/context.md", "d/context.md",
             "e/context.md"]
    revs = git(repo, "rev-list", "HEAD").split()
    first, words, deleted, readded = revs[3], revs[2], revs[1], revs[0]
    for picks in ([first] * 5, [words, words, deleted, readded, words],
                  [words, first, deleted, deleted, first]):
        deciding = dict(zip(notes, picks))
        assert stale._wordless_commits(ctx, deciding) == _wordless_as_before(
            ctx, deciding), picks
    assert stale._wordless_commits(ctx, {"a/context.md": words,
                                         "c/context.md": deleted}) == {
        "a/context.md", "c/context.md"}  # rewrapped only
