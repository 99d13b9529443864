"""A reformatting commit moves no code (issue 24): a change to a code file
that leaves its tokens as they were (``stale.code_digest``: its words; for a
file whose indentation is syntax, each line's indentation and words) is no
change of code, in history and in the work tree, as a release bump is not.
A re-indent of Python or YAML is a change; so is any changed word."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm.checks import stale as stale_mod
from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
D3 = "2026-10-03T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"

OK = "pkg/context.md: ok\n"
PENDING = ("pkg/context.md: STALE - code in pkg changed (uncommitted) after the "
           "note\n")
NOTE = "# pkg\n\nWhy the parser keeps\nthe raw rows.\n"

GO = ("package rows\n\ntype Row struct {\n\tID int // the key\n"
      "\tName string // shown\n}\n")
GOFMT = ("package rows\n\ntype Row struct {\n\tID   int    // the key\n"
         "\tName string // shown\n}\n")
JS = "export function rows(a, b) { return keep(a, b, { raw: true }); }\n"
PRETTIER = ("export function rows(a, b) {\n  return keep(a, b, {\n"
            "    raw: true\n  });\n}\n")
PY = "def rows(a):\n    if a:\n        return a\n    return []\n"
PY_REINDENTED = "def rows(a):\n    if a:\n        return a\n        return []\n"
YAML = "jobs:\n  test:\n    runs-on: ubuntu\n  lint:\n    runs-on: alpine\n"
YAML_REINDENTED = YAML.replace("  lint", "    lint")


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def moved(days: int, folder: str = "pkg") -> str:
    return (f"{folder}/context.md: STALE - code in {folder} moved {days} day"
            + "s" * (days != 1) + " after the note\n")


def noted(repo: Path, path: str, text: str) -> None:
    commit(repo, {"pkg/context.md": NOTE, f"pkg/{path}": text}, D1)


@pytest.mark.parametrize("path,before,after", [
    ("rows.go", GO, GOFMT),  # gofmt realigns a struct and its comment column
    ("rows.js", JS, PRETTIER),  # prettier re-wraps a call
    ("rows.c", "int x = 1;   \n\n\nint y;\t\n", "int x = 1;\n\nint y;\n"),
    ("rows.rs", "fn a() {}\nfn b() {}\n", "fn a() {}\r\nfn b() {}\r\n"),  # CRLF
    ("rows.py", PY, PY.replace("\n", "  \r\n").replace("n a", "n   a") + "\n\n"),
    ("ci.yml", YAML, YAML.replace("runs-on: ", "runs-on:   ") + "\n"),
], ids=["gofmt", "prettier", "trailing-whitespace", "crlf", "python-spacing",
        "yaml-spacing"])
def test_a_reformat_moves_no_code(repo: Path, icm, path, before, after) -> None:
    noted(repo, path, before)
    commit(repo, {f"pkg/{path}": after}, D9, "style: format")
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("path,before,after", [
    ("rows.go", GO, GO.replace("// the key", "// the id")),
    ("rows.js", JS, JS.replace("keep(a, b", "keep(ab")),  # words merged
    ("rows.py", PY, PY_REINDENTED),  # a return moved into the block
    ("ci.yml", YAML, YAML_REINDENTED),  # a job moved under another
    ("Makefile", "all:\n\tcc rows.c\n", "all:\n    cc rows.c\n"),  # no recipe
    ("rows.bin", "\0raw rows", "\0raw  rows"),  # binary: any change
], ids=["word", "merged-words", "python-reindent", "yaml-reindent",
        "makefile-tab", "binary"])
def test_a_change_of_tokens_is_code(repo: Path, icm, path, before, after) -> None:
    noted(repo, path, before)
    commit(repo, {f"pkg/{path}": after}, D9)
    assert stale(icm, repo) == (1, moved(8), "")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    write(repo, {f"pkg/{path}": after})
    assert stale(icm, repo) == (1, PENDING, "")


def test_the_commit_before_the_reformat_decides(repo: Path, icm) -> None:
    """Code moved, then the tree was formatted: STALE with the real change's
    days, the seed's line."""
    noted(repo, "rows.go", GO)
    commit(repo, {"pkg/rows.go": GO.replace("Name", "Title")}, D3)
    commit(repo, {"pkg/rows.go": GOFMT.replace("Name", "Title")}, D9)
    assert stale(icm, repo) == (1, moved(2), "")


def test_a_real_change_after_a_reformat_decides(repo: Path, icm) -> None:
    noted(repo, "rows.go", GO)
    commit(repo, {"pkg/rows.go": GOFMT}, D3)
    assert stale(icm, repo) == (0, OK, "")
    commit(repo, {"pkg/rows.go": GOFMT.replace("Name", "Title")}, D9)
    assert stale(icm, repo) == (1, moved(8), "")


def test_a_reformat_after_a_reviewed_note_is_ok_and_a_wordless_one_not(
        repo: Path, icm) -> None:
    noted(repo, "rows.js", JS)
    commit(repo, {"pkg/rows.js": JS.replace("true", "false")}, D3)
    commit(repo, {"pkg/context.md": NOTE + "\n"}, D5)  # an empty line: no review
    commit(repo, {"pkg/rows.js": PRETTIER.replace("true", "false")}, D9)
    assert stale(icm, repo) == (1, moved(4), "")
    commit(repo, {"pkg/context.md": NOTE + "\nRows stay raw.\n"},
           "2026-10-10T12:00:00+00:00")
    commit(repo, {"pkg/rows.js": JS.replace("true", "false")},
           "2026-10-12T12:00:00+00:00")
    assert stale(icm, repo) == (0, OK, "")


def test_a_repository_wide_format_turns_nothing_red(repo: Path, icm) -> None:
    """One formatter run over every folder: every note stays ok."""
    folders = [f"m{i}" for i in range(5)]
    commit(repo, {**{f"{d}/context.md": NOTE for d in folders},
                  **{f"{d}/rows.go": GO for d in folders},
                  **{f"{d}/rows.py": PY for d in folders}}, D1)
    commit(repo, {**{f"{d}/rows.go": GOFMT for d in folders},
                  **{f"{d}/rows.py": PY.replace("\n", "   \n") for d in folders}},
           D9, "chore: gofmt and trailing whitespace")
    assert stale(icm, repo) == (0, "".join(f"{d}/context.md: ok\n"
                                           for d in folders), "")
    code, out, _ = stale(icm, repo, "--format", "json")
    assert code == 0 and json.loads(out)["checks"][0]["data"] == {
        "stale": 0, "unknown": 0, "ok": 5}


def test_a_pending_reformat_moves_no_code(repo: Path, icm) -> None:
    """The work tree and the index as the hook sees them; a staged change of
    tokens undone in the work tree is still in the commit."""
    noted(repo, "rows.go", GO)
    write(repo, {"pkg/rows.go": GOFMT})
    assert stale(icm, repo) == (0, OK, "")
    git(repo, "add", "-A")
    assert stale(icm, repo) == (0, OK, "")
    write(repo, {"pkg/rows.go": GOFMT.replace("Name", "Title")})
    assert stale(icm, repo) == (1, PENDING, "")
    git(repo, "add", "-A")
    write(repo, {"pkg/rows.go": GOFMT})
    assert stale(icm, repo) == (1, PENDING, "")
    write(repo, {"pkg/rows.go": PY})
    git(repo, "add", "-A")
    write(repo, {"pkg/rows.go": GO})
    assert stale(icm, repo) == (1, PENDING, "")


def test_the_walk_stops_at_its_bound(repo: Path, icm, monkeypatch) -> None:
    """Past ``WALK`` reformats the note keeps its verdict: the log is cut."""
    monkeypatch.setattr(stale_mod, "WALK", 3)
    monkeypatch.setattr(stale_mod, "NET_CAP", 0)  # the net change would clear it
    noted(repo, "rows.go", GO)
    for i in range(1, 4):
        commit(repo, {"pkg/rows.go": (GO, GOFMT)[i % 2] + "\n" * i},
               f"2026-10-0{i + 1}T12:00:00+00:00")
    assert stale(icm, repo) == (1, moved(3), "")
    monkeypatch.setattr(stale_mod, "WALK", 4)
    assert stale(icm, repo) == (0, OK, "")


def test_a_reformat_beside_a_change_of_code_moves_it(repo: Path, icm) -> None:
    noted(repo, "rows.go", GO)
    commit(repo, {"pkg/rows.go": GOFMT, "pkg/keys.go": "package rows\n"}, D9)
    assert stale(icm, repo) == (1, moved(8), "")


def test_the_table_names_indentation_files() -> None:
    for path in ("a/b.py", "b.pyi", "ci.yaml", "x.yml", "Makefile", "a.mk",
                 "v.haml", "v.pug", "a.coffee", "a.nim", "a.sass", "A.PY"):
        assert stale_mod.indented(path), path
    for path in ("a.go", "a.js", "a.ts", "a.c", "a.rs", "a.json", "py", "a.py.txt"):
        assert not stale_mod.indented(path), path


WORD = st.text(st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs"),
                             blacklist_characters="\ufeff"), min_size=1,
               max_size=6)
SPACE = st.text(st.sampled_from(" \t\r\n\x0b\x0c"), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=12), st.data())
def test_whitespace_is_no_token_and_every_word_is(words, data) -> None:
    """A whitespace-insensitive file's fingerprint is the same under any
    whitespace edit and changes with any edit of a word."""
    def laid(ws):
        return "".join(w + s for w, s in zip(words, ws)).encode()

    one = [data.draw(SPACE) for _ in words]
    two = [data.draw(SPACE) for _ in words]
    lead = data.draw(st.sampled_from(["", " ", "\n\n", "\t"]))
    base = stale_mod.code_digest("rows.go", laid(one))
    assert base is not None
    assert stale_mod.code_digest("rows.go", lead.encode() + laid(two)) == base
    i = data.draw(st.integers(0, len(words) - 1))
    edit = data.draw(WORD.filter(lambda w: w != words[i]))
    changed = [*words[:i], edit, *words[i + 1:]]
    text = "".join(w + s for w, s in zip(changed, one)).encode()
    assert stale_mod.code_digest("rows.go", text) != base


LINE = st.lists(WORD, min_size=1, max_size=4)
INDENT = st.sampled_from(["", "  ", "    ", "\t"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(INDENT, LINE), min_size=1, max_size=8), st.data())
def test_an_indented_file_keeps_its_indentation(lines, data) -> None:
    """In a file whose indentation is syntax, runs of spaces inside a line,
    trailing whitespace, blank lines and line endings are no token; a
    line's indentation is."""
    def laid(rows, gap, end):
        return "".join(lead + gap.join(words) + end for lead, words in rows).encode()

    base = stale_mod.code_digest("rows.py", laid(lines, " ", "\n"))
    gap = data.draw(st.sampled_from(["  ", "\t", " \t "]))
    end = data.draw(st.sampled_from(["\r\n", "  \n", "\n\n", "\n \n"]))
    assert stale_mod.code_digest("rows.py", laid(lines, gap, end)) == base
    i = data.draw(st.integers(0, len(lines) - 1))
    lead, words = lines[i]
    moved = [*lines[:i], (lead + " ", words), *lines[i + 1:]]
    assert stale_mod.code_digest("rows.py", laid(moved, " ", "\n")) != base
