"""``--changed-since REF`` (issue 27): links, journal and dupes report only
what differs between REF and the work tree (committed since, staged,
unstaged, untracked), and links also the files that link into it."""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm import cache
from icm.model import links
from tests.conftest import commit, git, write

Answer = Tuple[int, str, str]
RULE = "Every reader of a file stops at {} and reports the rest as skipped."
GOOD = ("# Entry\n\n## Decision\nRows.\n\n## Rejected alternative\nColumns.\n\n"
        "## Invariant\nRows hold.\n\n## Verify command\n`true`\n")
BASE = {
    "icm.toml": 'dupes_siblings = "warning"\n',  # b and c: sibling notes
    "AGENTS.md": "# Handbook\n\n## Index of notes\n\n- [a](a/context.md)\n"
                 "- [b](b/context.md)\n- [c](c/context.md)\n",
    "a/context.md": "# a\n\nSee [b](../b/context.md#usage), [gone](../gone.md).\n",
    "b/context.md": "# b\n\n## Usage\n\n" + RULE.format("1 MiB") + "\n",
    "c/context.md": "# c\n\nSee [the folder](../d) and [B](../B/context.md).\n\n"
                    + RULE.format("2 MiB") + "\n",
    "d/x.md": "# x\n",
    "old.md": "# Old\n\n[broken](nowhere.md)\n",
    "journal/2026-01-01_old.md": "# Old\n\n## Decision\nTBD\n",
    "journal/2026-01-02_fine.md": GOOD,
}


@pytest.fixture
def based(repo: Path) -> Path:
    """Base history with findings of its own (old.md's broken link, c's
    diverged rule, a bad old entry), and the branch ``base`` at it."""
    commit(repo, BASE, "2026-01-03T00:00:00+00:00")
    git(repo, "branch", "base")
    return repo


def _run(icm: Callable[..., Answer], repo: Path, *args: str) -> Answer:
    return icm("check", *args, "--root", str(repo), "--format", "concise")


def _paths(icm: Callable[..., Answer], repo: Path, *args: str) -> Set[str]:
    code, out, _ = icm("check", *args, "--root", str(repo), "--format", "json")
    return {(f["check"], f["path"], f["line"]) for report in
            json.loads(out)["checks"] for f in report["findings"]}


def test_a_deleted_note_is_checked_through_the_files_linking_to_it(
        based: Path, icm) -> None:
    """b/context.md deleted in a commit, a new untracked file: the files
    that link to b (the handbook, a, and c in other letters) are checked,
    the new file too; old.md's broken link, untouched since base, is not."""
    git(based, "rm", "-q", "b/context.md")
    git(based, "commit", "-q", "-m", "drop b", when="2026-01-04T00:00:00+00:00")
    (based / "new.md").write_text("# New\n\n[x](missing.md)\n", encoding="utf-8")
    assert _run(icm, based, "links", "--changed-since", "base") == (1, (
        "AGENTS.md:6:1: links/missing-file broken link: AGENTS.md -> "
        "b/context.md\n"
        "a/context.md:3:1: links/missing-file broken link: a/context.md -> "
        "../b/context.md#usage\n"
        "a/context.md:3:1: links/missing-file broken link: a/context.md -> "
        "../gone.md\n"
        "c/context.md:3:1: links/missing-file broken link: c/context.md -> "
        "../B/context.md\n"
        "new.md:3:1: links/missing-file broken link: new.md -> missing.md\n"),
        "")
    whole = _paths(icm, based, "links")
    narrowed = _paths(icm, based, "links", "--changed-since", "base")
    assert narrowed < whole
    assert {f for f in whole if f[1] in ("AGENTS.md", "a/context.md",
                                         "c/context.md", "new.md")} == narrowed


def test_a_link_to_a_folder_or_in_another_case_counts(based: Path, icm) -> None:
    """c links to the folder d: deleting d/x.md (staged, not committed)
    puts c among the files checked, and only c."""
    git(based, "rm", "-q", "d/x.md")
    assert _run(icm, based, "links", "--changed-since", "HEAD") == (1, (
        "c/context.md:3:1: links/missing-file broken link: c/context.md -> "
        "../d\n"
        "c/context.md:3:1: links/case-mismatch broken link: c/context.md -> "
        "../B/context.md (exists as b/context.md)\n"), "")


def test_nothing_changed_reports_nothing(based: Path, icm) -> None:
    assert _run(icm, based, "links", "journal", "dupes", "--changed-since",
                "base") == (0, "icm check: all 3 checks passed\n", "")


def test_journal_and_dupes_report_the_changed_files(based: Path, icm) -> None:
    """A new bad entry is reported, the old bad one is not; a rule copied
    into a changed note (either side of the pair) is."""
    whole = _paths(icm, based, "journal", "dupes")
    assert ("journal", "journal/2026-01-01_old.md", 0) in {
        (c, p, 0) for c, p, _ in whole}
    (based / "journal/2026-01-05_new.md").write_text("# New\n\n## Decision\nTBD\n",
                                                    encoding="utf-8")
    (based / "b/context.md").write_text("# b\n\n## Usage\n\n" + RULE.format(
        "3 MiB") + "\n", encoding="utf-8")
    narrowed = _paths(icm, based, "journal", "dupes", "--changed-since", "base")
    assert {p for _, p, _ in narrowed} >= {"journal/2026-01-05_new.md"}
    assert "journal/2026-01-01_old.md" not in {p for _, p, _ in narrowed}
    dupes = {p for c, p, _ in narrowed if c == "dupes"}
    assert dupes and dupes <= {"b/context.md", "c/context.md"}
    assert narrowed <= _paths(icm, based, "journal", "dupes")


def test_a_bad_ref_or_no_git_is_one_line(based: Path, icm, tmp_path: Path
                                         ) -> None:
    code, out, err = _run(icm, based, "links", "--changed-since", "nope")
    assert (code, out) == (2, "") and err.startswith(
        "icm: --changed-since nope: ") and err.count("\n") == 1
    assert _run(icm, based, "links", "--changed-since", "--output=x") == (
        2, "", "icm: --changed-since --output=x: not a revision\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "AGENTS.md").write_text("# H\n", encoding="utf-8")
    assert _run(icm, plain, "journal", "--changed-since", "main") == (
        2, "", f"icm: --changed-since main: {plain.resolve()} is not a git "
        "repository\n")


# -- the link index: a narrowed run computes less, and answers the same -------

POOL = ("AGENTS.md", "a/context.md", "b/context.md", "c/x.md", "e.md")
AIMS = ("AGENTS.md", "a/context.md", "b/context.md", "c/x.md", "e.md", "a", "c",
        "B/context.md", "gone.md", "x.py", "f/new.md")
FRAGMENTS = ("", "#h1", "#h2", "#nothing")


@st.composite
def _text(draw: st.DrawFn, source: str) -> str:
    """A markdown file of ``source``: headings, and links to files of the
    pool, folders, other letter cases and paths that are not there."""
    parts = [f"# {draw(st.sampled_from(('H1', 'H2', 'T')))}\n"]
    for aim, frag in draw(st.lists(st.tuples(st.sampled_from(AIMS),
                                             st.sampled_from(FRAGMENTS)),
                                   max_size=4)):
        rel = posixpath.relpath(aim, posixpath.dirname(source) or ".")
        parts.append(f"[{aim}]({rel}{frag})\n")
    if draw(st.booleans()):
        parts.append("## H2\n")
    return "\n".join(parts)


@st.composite
def _edits(draw: st.DrawFn) -> Dict[str, Optional[str]]:
    """Files rewritten (text) or deleted (None); ``f/new.md`` may appear."""
    found: Dict[str, Optional[str]] = {}
    for path in (*POOL, "x.py", "f/new.md"):
        how = draw(st.sampled_from(("keep", "keep", "write", "delete")))
        if how == "write":
            found[path] = draw(_text(path)) if path.endswith(".md") else "1\n"
        elif how == "delete":
            found[path] = None
    return found


def _apply(root: Path, edits: Dict[str, Optional[str]]) -> None:
    for path, text in edits.items():
        if text is None:
            if (root / path).exists():
                (root / path).unlink()
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")


def _findings(icm: Callable[..., Answer], root: Path, *args: str) -> Answer:
    return icm("check-links", *args, "--root", str(root), "--format", "json")


def test_the_link_index_answers_as_the_whole_corpus(icm) -> None:
    """Random trees, indexed by a narrowed run (aged, so its entries are
    believed by stamp), then changed in a commit (entries the index holds
    go stale without being in the change) and in the work tree: a run
    narrowed through the index answers exactly what one without an index
    answers (every file parsed, every link resolved), which is the whole
    run's findings on the files changed or linking into a change."""

    @settings(max_examples=max(10, settings.default.max_examples // 3))
    @given(st.fixed_dictionaries({p: _text(p) for p in POOL}), _edits(), _edits())
    def check(start: Dict[str, str], committed: Dict[str, Optional[str]],
              pending: Dict[str, Optional[str]]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "repo"
            root.mkdir()
            git(root, "init", "-q")
            commit(root, {**start, "x.py": "0\n"}, "2026-01-03T00:00:00+00:00")
            assert _findings(icm, root, "--changed-since", "HEAD")[0] == 0
            index = root / ".git" / "icm" / links.INTO_FILE
            later = time.time() + 60
            os.utime(index, (later, later))
            _apply(root, committed)
            commit(root, {}, "2026-01-04T00:00:00+00:00")
            _apply(root, pending)
            narrowed = _findings(icm, root, "--changed-since", "HEAD")
            index.unlink()
            assert _findings(icm, root, "--changed-since", "HEAD") == narrowed
            whole = json.loads(_findings(icm, root)[1])["checks"][0]["findings"]
            kept = json.loads(narrowed[1])["checks"][0]["findings"]
            assert all(f in whole for f in kept)
            changed = set(git(root, "diff", "--name-only", "HEAD").split()) | set(
                git(root, "ls-files", "--others", "--exclude-standard").split())
            assert [f for f in whole if f["path"] in changed] == [
                f for f in kept if f["path"] in changed]

    check()


def test_a_narrowed_run_reads_the_files_it_checks(based: Path, icm,
                                                  monkeypatch) -> None:
    """Through the index, one changed file among many: only it and the
    handbook are parsed, and the link cache is not loaded."""
    from icm import extract

    write(based, {f"many/n{i}.md": f"# N{i}\n\n[a](../a/context.md)\n"
                  for i in range(60)})
    git(based, "add", "-A")
    git(based, "commit", "-q", "-m", "many", when="2026-01-04T00:00:00+00:00")
    assert _run(icm, based, "links", "--changed-since", "HEAD")[0] == 0
    for name in (links.INTO_FILE,):
        later = time.time() + 60
        os.utime(based / ".git" / "icm" / name, (later, later))
    (based / "many/n7.md").write_text("# N7\n\n[x](../nowhere.md)\n")
    parsed: List[int] = []
    real = extract.extract
    monkeypatch.setattr(extract, "extract", lambda text, **kw: parsed.append(1)
                        or real(text, **kw))
    loaded: List[str] = []
    read = cache.read_capped
    monkeypatch.setattr(cache, "read_capped", lambda path, cap: loaded.append(
        path.name) or read(path, cap))
    assert _run(icm, based, "links", "--changed-since", "HEAD") == (1, (
        "many/n7.md:3:1: links/missing-file broken link: many/n7.md -> "
        "../nowhere.md\n"), "")
    assert len(parsed) == 2 and loaded == [links.INTO_FILE]


def test_a_file_changed_since_the_index_was_written_is_read_again(
        based: Path, icm) -> None:
    """The index says old.md links nowhere near b; a commit then makes it
    link to b (not in the change against HEAD), and b goes in the work
    tree: old.md's new broken link is found, as a run without the index
    finds it."""
    assert _run(icm, based, "links", "--changed-since", "HEAD")[0] == 0
    index = based / ".git" / "icm" / links.INTO_FILE
    later = time.time() + 60
    os.utime(index, (later, later))
    commit(based, {"old.md": "# Old\n\n[b](b/context.md)\n"},
           "2026-01-04T00:00:00+00:00")
    (based / "b/context.md").unlink()
    want = _run(icm, based, "links", "--changed-since", "HEAD")
    assert "old.md:3:1: links/missing-file broken link: old.md -> " \
        "b/context.md\n" in want[1]
    index.unlink()
    assert _run(icm, based, "links", "--changed-since", "HEAD") == want
