"""The note conventions repositories already keep (issue 24): ``note_name``
lists and globs, import stubs, the index rule, and ``icm init`` adopting what
it finds, each on a real repository with pinned dates and whole outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.config import Config, validate
from icm.context import NoteNames
from icm.workflow.init import ADOPTED
from tests.conftest import commit, git, write

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

D1 = "2026-10-01T12:00:00+00:00"
D2 = "2026-10-02T12:00:00+00:00"
D3 = "2026-10-03T12:00:00+00:00"
PYPROJECT = "[project]\nname = 'shop'\n"
DEFAULTS_BLOCK = (
    "\n[tool.icm]\n"
    "# Every key is optional: one left out takes its default (icm's\n"
    "# docs/configuration.md). Two defaults, written out to be changed:\n"
    "budget = 1600\nexclude = []\n")
SET_BY_INIT = "# Set by icm init for what it found here:\n"


def names(note_name, handbook: str = "AGENTS.md", index=None) -> NoteNames:
    table = {"note_name": note_name, "handbook": handbook}
    if index is not None:
        table["index"] = index
    return NoteNames(validate(table, "icm.toml", "icm.toml"))


# -- note_name: names, globs, exclusions ---------------------------------------

@pytest.mark.parametrize("note_name,path,expected", [
    ("context.md", "context.md", True),  # the root's too, as it always was
    ("context.md", "a/b/context.md", True),
    ("context.md", "a/context.md.bak", False),
    (["AGENTS.md", "CLAUDE.md"], "a/CLAUDE.md", True),
    (["AGENTS.md", "CLAUDE.md"], "AGENTS.md", False),  # the handbook
    (["AGENTS.md", "CLAUDE.md"], "CLAUDE.md", True),
    (["AGENTS.md", "CLAUDE.md", "!CLAUDE.md"], "CLAUDE.md", False),
    (["AGENTS.md", "CLAUDE.md", "!CLAUDE.md"], "a/CLAUDE.md", True),
    (["**/README.md", "!README.md"], "README.md", False),
    (["**/README.md", "!README.md"], "a/README.md", True),
    (["**/README.md", "!README.md"], "a/b/README.md", True),
    (["**/README.md", "!README.md"], "a/README.md/x.md", False),  # a folder
    (["**/README.md", "!vendor/**"], "vendor/x/README.md", False),
    (["**/README.md", "!vendor"], "vendor/x/README.md", False),
    (["**/README.md", "!vendor"], "src/vendor/README.md", True),  # from the root
    (["*.notes.md"], "a/b/api.notes.md", True),
    (["*.notes.md"], "a/b/api.md", False),
    (["services/*/NOTES.md"], "services/api/NOTES.md", True),
    (["services/*/NOTES.md"], "services/api/v1/NOTES.md", False),
    (["services/*/NOTES.md"], "NOTES.md", False),
])
def test_what_a_note_is(note_name, path: str, expected: bool) -> None:
    assert names(note_name).is_note(path) is expected


_NAMES = ("AGENTS.md", "CLAUDE.md", "context.md", "README.md")
_PATHS = st.lists(st.sampled_from(("a", "b", "README.md", *_NAMES)), min_size=1,
                  max_size=4).map("/".join)


@given(st.lists(st.sampled_from((*_NAMES, *("!" + n for n in _NAMES))),
                min_size=1).filter(lambda es: any(e[0] != "!" for e in es)),
       st.lists(_PATHS, max_size=20))
def test_plain_names_are_matched_as_globs_would_be(entries, paths) -> None:
    """The set lookup for plain names answers as the matchers do."""
    fast = names(entries)
    slow = names(entries)
    slow.names = None
    assert fast.names is not None
    assert [fast.is_note(p) for p in paths] == [slow.is_note(p) for p in paths]


def test_the_handbook_is_never_a_note_whatever_matches_it() -> None:
    for note_name in ("README.md", ["**/README.md"], ["*.md"]):
        assert not names(note_name, handbook="README.md").is_note("README.md")
        assert names(note_name, handbook="README.md").is_note("a/README.md")


def test_every_check_asks_the_one_rule(repo: Path, icm) -> None:
    """A list with a glob and an exclusion, through stale, bootmap and links
    (unindexed notes): the root README.md is no note anywhere."""
    write(repo, {"icm.toml": 'note_name = ["**/README.md", "!README.md"]\n',
                 "AGENTS.md": "# H\n\n- [api](api/README.md)\n",
                 "README.md": "# Shop\n",
                 "api/README.md": "# api\n\nThin handlers.\n", "api/x.py": "1\n",
                 "web/ui/README.md": "# ui\n\nStores hold state.\n",
                 "web/ui/x.js": "1\n"})
    commit(repo, {}, D1)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "api/README.md: ok\nweb/ui/README.md: ok\n", "")
    assert icm("check-links", "--root", str(repo)) == (
        1, "note missing from handbook index: web/ui/README.md\n"
        "links: 1 problem (unindexed note 1)\n", "")
    assert icm("bootmap", "--root", str(repo)) == (0, (
        "background notes, by size:\n"
        "      5 words  web/ui/README.md\n"
        "      4 words  api/README.md\n"
        "cold-boot set: 53 bytes, about 13 tokens (budget 1600)\n"), "")


def test_no_notes_names_every_entry(repo: Path, icm) -> None:
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md", "!CLAUDE.md"]\n'})
    commit(repo, {}, D1)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "stale: no notes named AGENTS.md, CLAUDE.md yet (or set note_name)\n", "")


# -- import stubs --------------------------------------------------------------

STUB = "# Backend\n\n<!-- Claude Code reads the imported file -->\n@AGENTS.md\n"


@pytest.mark.parametrize("text,stub", [
    ("@AGENTS.md\n", True),
    (STUB, True),
    ("@AGENTS.md @../docs/style.md\n", True),
    ("See @AGENTS.md\n", False),  # a word of its own
    ("@AGENTS.md\n\nHandlers stay thin.\n", False),
    ("`@AGENTS.md`\n", False),  # code: no import
    ("@alice\n", False),  # a mention, not a file
    ("# Only a heading\n", False),
    ("<!-- " + "long " * 64 + "-->\n@AGENTS.md\n", False),  # a few lines, or not
])
def test_what_an_import_stub_is(repo: Path, text: str, stub: bool) -> None:
    from icm.context import build
    from icm.model.imports import stub_imports

    write(repo, {"b/CLAUDE.md": text, "b/AGENTS.md": "# b\n",
                 "docs/style.md": "# style\n"})
    ctx = build(repo, Config(note_name=("CLAUDE.md",)))
    assert bool(stub_imports(ctx, "b/CLAUDE.md")) is stub


def test_a_stub_is_sized_with_its_import(repo: Path, icm) -> None:
    """The largest note is the one an agent reads most of: a 5-word stub was
    sized as 5 words, and a smaller note was picked for the budget."""
    guide = "# Guide\n\n" + "Payments retry with backoff; never twice a charge.\n" * 8
    write(repo, {"icm.toml": 'note_name = ["CLAUDE.md", "context.md"]\n',
                 "AGENTS.md": "# H\n\n- [pay](pay/CLAUDE.md)\n"
                              "- [web](web/context.md)\n",
                 "pay/CLAUDE.md": "@GUIDE.md\n", "pay/GUIDE.md": guide,
                 "web/context.md": "# web\n\n" + "Stores hold state. " * 10 + "\n"})
    commit(repo, {}, D1)
    assert icm("bootmap", "-v", "--root", str(repo)) == (0, (
        "background notes, by size:\n"
        "     67 words  pay/CLAUDE.md (imports pay/GUIDE.md)\n"
        "     32 words  web/context.md\n"
        "cold-boot set: 479 bytes, about 119 tokens (budget 1600)\n"
        "cold-boot files:\n"
        "     52 bytes  AGENTS.md\n"
        "     10 bytes  pay/CLAUDE.md\n"
        "    417 bytes  pay/GUIDE.md  (imported by pay/CLAUDE.md)\n"
        "whole tree: 717 bytes, about 179 tokens, 1.5x the cold-boot set\n"), "")


def test_a_stub_is_judged_with_its_import(repo: Path, icm) -> None:
    """Claude Code's ``CLAUDE.md`` holds ``@AGENTS.md``: the note is the
    imported file, so rewriting it after the code moved is the fix, though
    the stub's own five bytes never change."""
    commit(repo, {"icm.toml": 'note_name = ["CLAUDE.md"]\n',
                  "api/CLAUDE.md": STUB, "api/AGENTS.md": "# api\n\nThin.\n",
                  "api/app.py": "v1\n", "web/CLAUDE.md": "# web\n\n@AGENTS.md "
                  "and stores hold state.\n", "web/AGENTS.md": "# web\n",
                  "web/app.js": "v1\n"}, D1)
    commit(repo, {"api/app.py": "v2\n", "web/app.js": "v2\n"}, D2)
    stale = ("api/CLAUDE.md: STALE - code in api moved 1 day after the note\n"
             "web/CLAUDE.md: STALE - code in web moved 1 day after the note\n")
    assert icm("check-stale", "--root", str(repo)) == (1, stale, "")
    write(repo, {"api/AGENTS.md": "# api\n\nThin; v2 adds retries.\n",
                 "web/AGENTS.md": "# web\n\nv2.\n"})
    assert icm("check-stale", "--root", str(repo)) == (1, (
        "api/CLAUDE.md: ok (pending)\n"
        "web/CLAUDE.md: STALE - code in web moved 1 day after the note\n"), "")
    commit(repo, {}, D3)
    # web's note has words of its own: its import is not the note
    assert icm("check-stale", "--root", str(repo)) == (1, (
        "api/CLAUDE.md: ok\n"
        "web/CLAUDE.md: STALE - code in web moved 1 day after the note\n"), "")
    assert icm("check-stale", "--committed", "--root", str(repo))[1] == (
        "api/CLAUDE.md: ok\n"
        "web/CLAUDE.md: STALE - code in web moved 1 day after the note\n")


@pytest.mark.parametrize("claude, reported", [
    ("# api\n\nRun the API with make api.\n", ("api/AGENTS.md", "api/CLAUDE.md")),
    ("@AGENTS.md\n", ("api/AGENTS.md",)),  # a stub repeats its import's verdict
])
def test_every_note_of_a_folder_speaks_for_its_code(
        repo: Path, icm, claude: str, reported: Tuple[str, ...]) -> None:
    """An ``AGENTS.md`` beside a ``CLAUDE.md`` with words of its own (issue
    24's trial): only the note sorting last was given the folder's code, so
    the other was never judged, however old."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "api/AGENTS.md": "# api\n\nThin.\n", "api/CLAUDE.md": claude,
                 "api/app.py": "v1\n"})
    commit(repo, {}, D1)
    commit(repo, {"api/app.py": "v2\n"}, D2)
    lines = [f"{note}: STALE - code in api moved 1 day after the note"
             if note in reported else f"{note}: ok"
             for note in ("api/AGENTS.md", "api/CLAUDE.md")]
    assert icm("check-stale", "--root", str(repo)) == (1, "\n".join(lines) + "\n", "")


def test_a_symlinked_note_is_judged_with_its_target(repo: Path, icm) -> None:
    """``CLAUDE.md -> AGENTS.md`` in every folder (bunli's layout, issue 24's
    trial): the link's blob never changes, so all 13 links were STALE beside
    their fresh targets. A link is its target, as a stub is its import."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "api/AGENTS.md": "# api\n\nThin.\n", "api/app.py": "v1\n"})
    (repo / "api" / "CLAUDE.md").symlink_to("AGENTS.md")
    commit(repo, {}, D1)
    commit(repo, {"api/app.py": "v2\n"}, D2)
    # one file under two names: one verdict, on the name with the words
    stale = "api/AGENTS.md: STALE - code in api moved 1 day after the note\n"
    assert icm("check-stale", "--root", str(repo)) == (1, stale, "")
    commit(repo, {"api/AGENTS.md": "# api\n\nThin; v2 adds retries.\n"}, D3)
    assert icm("check-stale", "--root", str(repo)) == (0, "api/AGENTS.md: ok\n", "")


def test_a_note_copied_into_its_sibling_is_judged_once(repo: Path, icm) -> None:
    """Round 13's crates: a sync script copies each ``AGENTS.md`` into a
    ``CLAUDE.md`` beside it, so every STALE line came twice. A per-tool note
    holding its folder's other note byte for byte is that note under a
    second name (its words were reviewed when its twin's were): one verdict,
    on the first name. Once the copy's words part from its twin's, each is
    judged."""
    note = "# api\n\nThin.\n"
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "api/AGENTS.md": note, "api/CLAUDE.md": note, "api/app.py": "v1\n"})
    commit(repo, {}, D1)
    commit(repo, {"api/app.py": "v2\n"}, D2)
    stale = "api/AGENTS.md: STALE - code in api moved 1 day after the note\n"
    assert icm("check-stale", "--root", str(repo)) == (1, stale, "")
    commit(repo, {"api/CLAUDE.md": note + "Claude runs make api.\n"}, D3)
    assert icm("check-stale", "--root", str(repo)) == (
        1, stale + "api/CLAUDE.md: ok\n", "")


def test_a_pair_of_notes_of_two_sizes_is_never_read_as_copies(
        repo: Path, icm, monkeypatch) -> None:
    """Only notes of one size are read to find a copy: a warm run over
    folders of an ``AGENTS.md`` and a ``CLAUDE.md`` with words of their own
    reads neither, once per run (stale and its code owner share the set)."""
    from icm import context as context_mod

    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "api/AGENTS.md": "# api\n\nThin.\n",
                 "api/CLAUDE.md": "# api\n\nClaude: make api.\n",
                 "web/AGENTS.md": "# web\n", "web/CLAUDE.md": "# web\n",
                 "api/app.py": "v1\n", "web/app.py": "v1\n"})
    commit(repo, {}, D1)
    reads = []
    real = context_mod.Context.read_bytes

    def spy(self, rel: str, limit: int = 0) -> bytes:
        reads.append(rel)
        return real(self, rel, limit)

    monkeypatch.setattr(context_mod.Context, "read_bytes", spy)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "api/AGENTS.md: ok\napi/CLAUDE.md: ok\nweb/AGENTS.md: ok\n", "")
    assert sorted(reads) == ["web/AGENTS.md", "web/CLAUDE.md"]


def _linked(repo: Path, icm) -> None:
    """Issue 24's rika layout from ``icm init``: a handbook, ``CLAUDE.md ->
    AGENTS.md`` beside a package's note, its code committed a day after."""
    write(repo, {"AGENTS.md": "# H\n\nThe handbook.\n",
                 "packages/a/AGENTS.md": "# a\n\nThin.\n",
                 "packages/a/index.ts": "v1\n"})
    (repo / "packages" / "a" / "CLAUDE.md").symlink_to("AGENTS.md")
    commit(repo, {}, D1)
    commit(repo, {"packages/a/index.ts": "v2\n"}, D2)
    assert icm("init", "--root", str(repo))[0] == 0
    commit(repo, {}, D3, "adopt icm")


def test_a_symlinked_note_gets_one_verdict_in_history_and_pending(
        repo: Path, icm) -> None:
    """rika (issue 24's trial, 5 pairs): ``AGENTS.md: STALE`` and then
    ``CLAUDE.md: ok`` for the one file read under two names. Listed once,
    as ``bootmap`` and ``check-dupes`` list a mirror (``notes.mirrors``)."""
    _linked(repo, icm)
    assert 'note_name = ["AGENTS.md", "CLAUDE.md"]' in (repo / "icm.toml").read_text()
    moved = "packages/a/AGENTS.md: STALE - code in packages/a moved 1 day after"
    assert icm("check-stale", "--root", str(repo)) == (1, moved + " the note\n", "")
    code, out, _ = icm("check-stale", "--format", "json", "--root", str(repo))
    (check,) = json.loads(out)["checks"]
    assert (code, [f["text"] for f in check["findings"]], check["data"]) == (
        1, [moved + " the note"], {"stale": 1, "unknown": 0, "ok": 0})
    write(repo, {"packages/a/index.ts": "v3\n"})  # pending code
    assert icm("check-stale", "--root", str(repo)) == (1, (
        "packages/a/AGENTS.md: STALE - code in packages/a changed (uncommitted) "
        "after the note\n"), "")
    write(repo, {"packages/a/AGENTS.md": "# a\n\nThin; v3.\n"})  # pending note
    assert icm("check-stale", "--root", str(repo)) == (
        0, "packages/a/AGENTS.md: ok (pending)\n", "")


def test_a_note_linked_to_another_folders_note_speaks_for_its_own(
        repo: Path, icm) -> None:
    """``b/CLAUDE.md -> ../a/AGENTS.md`` is the only note of ``b``: it speaks
    for ``b``'s code, judged with the file it reads."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "a/AGENTS.md": "# a\n\nShared.\n", "a/x.py": "v1\n",
                 "b/y.py": "v1\n"})
    (repo / "b").mkdir(exist_ok=True)
    (repo / "b" / "CLAUDE.md").symlink_to("../a/AGENTS.md")
    commit(repo, {}, D1)
    commit(repo, {"b/y.py": "v2\n"}, D2)
    assert icm("check-stale", "--root", str(repo)) == (1, (
        "a/AGENTS.md: ok\n"
        "b/CLAUDE.md: STALE - code in b moved 1 day after the note\n"), "")
    commit(repo, {"a/AGENTS.md": "# a\n\nShared; b has y.\n"}, D3)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "a/AGENTS.md: ok\nb/CLAUDE.md: ok\n", "")


@pytest.mark.parametrize("target, reason", [
    ("GONE.md", "no such file (dangling symlink?)"),
    ("CLAUDE.md", "Too many levels of symbolic links"),
    ("../../outside.md",
     "symlink points outside the repository; not followed"),
])
def test_a_dangling_symlinked_note_is_one_clear_line(
        repo: Path, icm, target: str, reason: str) -> None:
    """A note linked to a file that is gone (or to itself, or out of the
    root) has no words to judge: one ``unknown`` line saying so, never
    STALE or ok for the link's own history."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "api/AGENTS.md": "# api\n\nThin.\n", "api/app.py": "v1\n",
                 "web/w.py": "v1\n", "../outside.md": "# out\n"})
    (repo / "web" / "CLAUDE.md").symlink_to(target)
    commit(repo, {}, D1)
    commit(repo, {"web/w.py": "v2\n", "api/app.py": "v2\n"}, D2)
    unknown = f"web/CLAUDE.md: unknown - cannot read: {reason}"
    assert icm("check-stale", "--root", str(repo)) == (1, (
        "api/AGENTS.md: STALE - code in api moved 1 day after the note\n"
        f"{unknown}\n"), "")
    commit(repo, {"api/AGENTS.md": "# api\n\nThin; v2.\n"}, D3)
    assert icm("check-stale", "--root", str(repo)) == (
        0, "api/AGENTS.md: ok\n" + unknown + "\n", "")
    assert icm("check-stale", "--strict", "--root", str(repo))[0] == 1


def test_a_symlinked_note_is_one_note_to_size_and_count(repo: Path, icm) -> None:
    """``CLAUDE.md -> AGENTS.md`` (upbrr, sim_atlas: a fresh trial): bootmap
    listed each text twice and named the link, which sorts last, as the
    file to trim; init counted the links as notes of their own."""
    write(repo, {"AGENTS.md": "# H\n", "api/AGENTS.md": "# api\n\n" + "word " * 90,
                 "web/AGENTS.md": "# web\n\nThin.\n", "api/app.py": "1\n"})
    for folder in ("api", "web"):
        (repo / folder / "CLAUDE.md").symlink_to("AGENTS.md")
    commit(repo, {}, D1)
    assert icm("init", "--root", str(repo))[1].splitlines()[1] == (
        'note_name = ["AGENTS.md", "CLAUDE.md"]: 2 nested AGENTS.md, 2 CLAUDE.md '
        "(2 symlinks) found")
    code, out, _err = icm("bootmap", "--budget", "10", "--root", str(repo))
    assert code == 1
    assert out.splitlines()[:3] == ["background notes, by size:",
                                    "     92 words  api/AGENTS.md",
                                    "      3 words  web/AGENTS.md"]
    assert "largest file: api/AGENTS.md (" in out


# -- the index rule ------------------------------------------------------------

HANDBOOK = "# H\n\nThe API's note: `api/AGENTS.md`.\n"


def test_index_off_asks_for_no_index_and_fix_adds_none(repo: Path, icm) -> None:
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md"]\nindex = "off"\n',
                 "AGENTS.md": "# H\n", "api/AGENTS.md": "# api\n",
                 "web/AGENTS.md": "# web\n"})
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")
    assert icm("check-links", "--fix", "--root", str(repo)) == (0, "links ok\n", "")
    assert (repo / "AGENTS.md").read_text() == "# H\n"


def test_index_off_needs_no_handbook(repo: Path, icm) -> None:
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md"]\nindex = "off"\n'
                 'handbook = "HANDBOOK.md"\n', "api/AGENTS.md": "# api\n"})
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


def test_index_per_entry(repo: Path, icm) -> None:
    """Nested AGENTS.md load by location; context.md notes are found through
    the index, and ``--fix`` adds only those."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "context.md"]\n'
                 'index = { "AGENTS.md" = "off" }\n',
                 "AGENTS.md": "# H\n", "api/AGENTS.md": "# api\n",
                 "api/context.md": "# api\n", "web/context.md": "# web\n"})
    assert icm("check-links", "--root", str(repo)) == (1, (
        "note missing from handbook index: api/context.md\n"
        "note missing from handbook index: web/context.md\n"
        "links: 2 problems (unindexed note 2)\n"), "")
    assert icm("check-links", "--fix", "--root", str(repo)) == (0, (
        "added to AGENTS.md index: api/context.md\n"
        "added to AGENTS.md index: web/context.md\n"
        "links ok\n"), "")


def test_a_note_named_as_a_code_span_is_indexed_and_fix_leaves_it(repo: Path,
                                                                   icm) -> None:
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\n', "AGENTS.md": HANDBOOK,
                 "api/AGENTS.md": "# api\n", "web/AGENTS.md": "# web\n",
                 "docs/AGENTS.md": "# docs\n"})
    assert icm("check-links", "--root", str(repo)) == (1, (
        "note missing from handbook index: docs/AGENTS.md\n"
        "note missing from handbook index: web/AGENTS.md\n"
        "links: 2 problems (unindexed note 2)\n"), "")
    assert icm("check-links", "--fix", "--root", str(repo))[1].splitlines()[:2] == [
        "added to AGENTS.md index: docs/AGENTS.md",
        "added to AGENTS.md index: web/AGENTS.md"]
    assert "api" not in (repo / "AGENTS.md").read_text().partition("icm:index")[2]


def test_a_path_is_named_from_the_handbook_folder_or_the_root() -> None:
    from icm.checks.links import named_notes

    text = ("See api/AGENTS.md, (web/AGENTS.md). `./ops/AGENTS.md`; "
            "../lib/AGENTS.md and api/AGENTS.mdx and `x/AGENTS.md/`\n")
    notes = ["api/AGENTS.md", "web/AGENTS.md", "ops/AGENTS.md",
             "docs/lib/AGENTS.md", "lib/AGENTS.md", "x/AGENTS.md"]
    assert named_notes("AGENTS.md", text, notes) == {
        "api/AGENTS.md", "web/AGENTS.md", "ops/AGENTS.md"}
    assert named_notes("docs/sub/AGENTS.md", text, notes) == {
        "api/AGENTS.md", "web/AGENTS.md", "ops/AGENTS.md", "docs/lib/AGENTS.md"}


# -- icm init adopts what it finds ---------------------------------------------

NESTED = {
    "AGENTS.md": "# Shop\n\nRules for every session. The API's note: "
                 "`api/AGENTS.md`.\n",
    "api/AGENTS.md": "# api\n\nHandlers stay thin: logic lives in services.\n",
    "api/app.py": "app = 1\n",
    "web/AGENTS.md": "# web\n\nState lives in stores, never in components.\n",
    "web/app.js": "let app\n",
    "web/ui/AGENTS.md": "# ui\n\nEvery widget takes a theme.\n",
    "web/ui/button.js": "let b\n",
    "pyproject.toml": PYPROJECT,
}


def walkthrough(heading: str) -> str:
    """The section of docs/adopting.md under ``heading``: its transcripts
    are these tests' outputs."""
    doc = (Path(__file__).parent.parent / "docs/adopting.md").read_text()
    return doc.partition(f"\n## {heading}\n")[2].partition("\n## ")[0]


def test_init_adopts_nested_agents_md_and_the_first_commit_passes(repo: Path,
                                                                  icm) -> None:
    """Five nested AGENTS.md and init kept ``note_name = "context.md"``,
    said "no notes named context.md yet", and check-links --fix did
    nothing. Now it writes what it found; the pre-commit view (everything
    staged) of the first commit passes."""
    commit(repo, NESTED, D1)
    said = ("left alone AGENTS.md (exists)\n"
            'note_name = ["AGENTS.md"]: 3 nested AGENTS.md found\n'
            'index = "off": AGENTS.md is loaded from the folder an agent works '
            "in, not from the handbook's index\n"
            "created journal/.gitkeep\ncreated queue/.gitkeep\n"
            "created Makefile\nadded [tool.icm] to pyproject.toml\n"
            + ADOPTED + "\n")
    assert icm("init", "--root", str(repo)) == (0, said, "")
    written = (DEFAULTS_BLOCK + SET_BY_INIT
               + 'note_name = ["AGENTS.md"]\nindex = "off"\n')
    assert (repo / "pyproject.toml").read_text() == PYPROJECT + written
    doc = walkthrough("Nested AGENTS.md, from `icm init` to a green first commit")
    assert f"$ icm init\n{said}```" in doc and f"```toml{written}```" in doc
    git(repo, "add", "-A")
    checked = (
        "journal ok\nlinks ok\n"
        "api/AGENTS.md: ok\nweb/AGENTS.md: ok\nweb/ui/AGENTS.md: ok\n"
        "background notes, by size:\n"
        "      9 words  api/AGENTS.md\n"
        "      9 words  web/AGENTS.md\n"
        "      7 words  web/ui/AGENTS.md\n"
        "cold-boot set: 118 bytes, about 29 tokens (budget 1600)\n"
        "queue ok (no base branch to compare with)\ndupes ok\n"
        "handoff: no records in handoff yet (handoff_dir)\n"
        "agents: no exported sessions in Agents/* (agents_dirs)\n"
        "positions ok\nicm check: all 9 checks passed\n")
    assert icm("check", "--root", str(repo)) == (0, checked, "")
    assert f"$ git add -A && icm check\n{checked}```" in doc
    commit(repo, {}, D2, "adopt icm")
    assert icm("check", "--committed", "--root", str(repo)) == (0, checked, "")


def test_init_adopts_claude_md_stubs_in_every_folder(repo: Path, icm) -> None:
    """Claude Code's layout: an AGENTS.md and a ``CLAUDE.md`` holding
    ``@AGENTS.md`` in every folder. The root's stub is the handbook's other
    name, read at start: no folder's note."""
    files = dict(NESTED, **{"CLAUDE.md": "@AGENTS.md\n",
                            "api/CLAUDE.md": "@AGENTS.md\n",
                            "web/CLAUDE.md": "# web\n\n@AGENTS.md\n",
                            "web/ui/CLAUDE.md": "@AGENTS.md\n"})
    commit(repo, files, D1)
    said = ("left alone AGENTS.md (exists)\n"
            'note_name = ["AGENTS.md", "CLAUDE.md", "!CLAUDE.md"]: 3 nested '
            "AGENTS.md, 3 CLAUDE.md (3 import stubs) found; the root CLAUDE.md "
            "is read at start, as the handbook is\n"
            'index = "off": AGENTS.md and CLAUDE.md are loaded from the folder '
            "an agent works in, not from the handbook's index\n"
            "created journal/.gitkeep\ncreated queue/.gitkeep\n"
            "created Makefile\nadded [tool.icm] to pyproject.toml\n"
            + ADOPTED + "\n")
    assert icm("init", "--root", str(repo)) == (0, said, "")
    assert (repo / "pyproject.toml").read_text() == (
        PYPROJECT + DEFAULTS_BLOCK + SET_BY_INIT
        + 'note_name = ["AGENTS.md", "CLAUDE.md", "!CLAUDE.md"]\nindex = "off"\n')
    git(repo, "add", "-A")
    code, checked, err = icm("check", "--root", str(repo))
    assert f"$ icm init\n{said}$ git add -A && icm check\n{checked}```" in \
        walkthrough("CLAUDE.md stubs, from `icm init` to a green first commit")
    assert (code, checked, err) == (0, (
        "journal ok\nlinks ok\n"
        "api/AGENTS.md: ok\napi/CLAUDE.md: ok\nweb/AGENTS.md: ok\n"
        "web/CLAUDE.md: ok\nweb/ui/AGENTS.md: ok\nweb/ui/CLAUDE.md: ok\n"
        "background notes, by size:\n"
        "     12 words  web/CLAUDE.md (imports web/AGENTS.md)\n"
        "     10 words  api/CLAUDE.md (imports api/AGENTS.md)\n"
        "      9 words  api/AGENTS.md\n"
        "      9 words  web/AGENTS.md\n"
        "      8 words  web/ui/CLAUDE.md (imports web/ui/AGENTS.md)\n"
        "      7 words  web/ui/AGENTS.md\n"
        "cold-boot set: 135 bytes, about 33 tokens (budget 1600)\n"
        "queue ok (no base branch to compare with)\ndupes ok\n"
        "handoff: no records in handoff yet (handoff_dir)\n"
        "agents: no exported sessions in Agents/* (agents_dirs)\n"
        "positions ok\nicm check: all 9 checks passed\n"), "")


def test_init_keeps_the_index_for_context_md_beside_nested_agents_md(
        repo: Path, icm) -> None:
    commit(repo, dict(NESTED, **{"web/context.md": "# web\n\nWhy stores.\n"}), D1)
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[1:3] == [
        'note_name = ["AGENTS.md", "context.md"]: 3 nested AGENTS.md, '
        "1 context.md found",
        'index = { "AGENTS.md" = "off" }: AGENTS.md is loaded from the folder '
        "an agent works in, not from the handbook's index; context.md notes "
        "stay indexed"]
    assert icm("check-links", "--root", str(repo))[1] == (
        "note missing from handbook index: web/context.md\n"
        "links: 1 problem (unindexed note 1)\n")


def test_init_takes_no_context_md_beside_no_code_for_a_note(repo: Path,
                                                             icm) -> None:
    """llm-rp (round 8's fresh trees) keeps a context.md per plan in
    docs/plans/NNN/, beside no code: init took them for ICM notes, and 7
    were "missing from handbook index", one a diverged rule. A context.md
    counts where its folder, or one below it, holds code."""
    plans = {f"docs/plans/00{n}.plan/context.md": f"# Plan {n}\n\nWhat it is.\n"
             for n in (1, 2)}
    commit(repo, dict(NESTED, **plans), D1)
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[1:3] == [
        'note_name = ["AGENTS.md"]: 3 nested AGENTS.md found',
        'index = "off": AGENTS.md is loaded from the folder an agent works in, '
        "not from the handbook's index"]
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")
    commit(repo, {"pyproject.toml": PYPROJECT,
                  "docs/plans/001.plan/diagram.py": "x = 1\n"}, D1)
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[1] == ('note_name = ["AGENTS.md", "context.md"]: 3 nested '
                      "AGENTS.md, 1 context.md found")


def test_init_with_a_config_says_what_to_set_and_leaves_it(repo: Path,
                                                            icm) -> None:
    commit(repo, dict(NESTED, **{"icm.toml": "budget = 900\n"}), D1)
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[1:3] == [
        'not setting note_name = ["AGENTS.md"] (3 nested AGENTS.md found): set '
        "it in icm.toml",
        'not setting index = "off" (AGENTS.md is loaded from the folder an agent '
        "works in, not from the handbook's index): set it in icm.toml"]
    assert (repo / "icm.toml").read_text() == "budget = 900\n"
    assert (repo / "pyproject.toml").read_text() == PYPROJECT  # icm.toml wins
    (repo / "icm.toml").write_text('budget = 900\nnote_name = "AGENTS.md"\n')
    assert icm("init", "--root", str(repo))[1].splitlines()[1:3] == [
        'not setting index = "off" (AGENTS.md is loaded from the folder an agent '
        "works in, not from the handbook's index): set it in icm.toml",
        "left alone journal/.gitkeep (exists)"]  # a given key is the user's


def test_init_comments_are_true(repo: Path, icm) -> None:
    """"these are the defaults" sat above a non-default handbook key. Every
    key under the defaults' comment is its default; every key under init's
    own differs from it."""
    commit(repo, dict(NESTED, **{"CLAUDE.md": "# Shop\n"}), D1)
    (repo / "AGENTS.md").unlink()
    icm("init", "--root", str(repo))
    text = (repo / "pyproject.toml").read_text()
    assert "CLAUDE.md" in text
    defaults, _, chosen = text.partition(SET_BY_INIT)
    table = tomllib.loads(text)["tool"]["icm"]
    default_keys = tomllib.loads(defaults)["tool"]["icm"]
    chosen_keys = tomllib.loads(chosen)
    assert set(default_keys) | set(chosen_keys) == set(table)
    assert "defaults, written out" in defaults and chosen_keys
    cfg = validate(table, "pyproject.toml", "[tool.icm]")
    for key in default_keys:
        assert getattr(cfg, key) == getattr(Config(), key), key
    for key in chosen_keys:
        assert getattr(cfg, key) != getattr(Config(), key), key


# -- init's own edits make no note stale ---------------------------------------

def test_init_never_edits_code_a_note_speaks_for(repo: Path, icm) -> None:
    """A root README.md note (note_name covering it) went STALE at once:
    init added [tool.icm] to pyproject.toml, though icm.toml held the config
    and wins, and its include line to the Makefile."""
    commit(repo, {"icm.toml": 'note_name = ["**/README.md"]\nindex = "off"\n',
                  "README.md": "# Shop\n", "pyproject.toml": PYPROJECT,
                  "Makefile": "all:\n\ttrue\n", "api/README.md": "# api\n",
                  "api/app.py": "1\n"}, D1)
    assert icm("init", "--root", str(repo)) == (0, (
        "created AGENTS.md\ncreated journal/.gitkeep\ncreated queue/.gitkeep\n"
        "left alone Makefile (README.md speaks for it; add icm's include line "
        "with your next change to README.md)\n"), "")
    assert (repo / "pyproject.toml").read_text() == PYPROJECT
    git(repo, "add", "-A")
    assert icm("check-stale", "--root", str(repo)) == (
        0, "README.md: ok\napi/README.md: ok\n", "")


def test_init_writes_icm_toml_where_a_note_speaks_for_pyproject(repo: Path,
                                                                icm) -> None:
    commit(repo, {"CLAUDE.md": "# H\n", "context.md": "# Why the root\n",
                  "pyproject.toml": PYPROJECT}, D1)
    assert icm("init", "--root", str(repo)) == (0, (
        "using CLAUDE.md as the handbook (not creating AGENTS.md)\n"
        "created journal/.gitkeep\ncreated queue/.gitkeep\n"
        "made no Makefile (context.md speaks for the code here; add icm's "
        "include line with your next change to it)\n"
        "created icm.toml (not [tool.icm]: context.md speaks for pyproject.toml, "
        "and icm.toml is not code)\n" + ADOPTED + "\n"), "")
    assert (repo / "icm.toml").read_text() == (
        "# icm's settings; every key is optional (icm's docs/configuration.md).\n"
        + SET_BY_INIT + 'handbook = "CLAUDE.md"\n')
    git(repo, "add", "-A")
    assert icm("check-stale", "--root", str(repo)) == (0, "context.md: ok\n", "")


def test_icm_files_are_not_code(repo: Path, icm) -> None:
    """icm's settings and records never date a note: the config, the
    baseline, the journal's and queue's .gitkeep; a queue/ package's own code
    does."""
    commit(repo, {"icm.toml": "stale_scope = 'subtree'\n", "AGENTS.md": "# H\n",
                  "context.md": "# root\n", "app.py": "1\n"}, D1)
    commit(repo, {"icm.toml": "stale_scope = 'subtree'\nbudget = 900\n",
                  "icm-baseline.json": '{"version": 1, "findings": []}\n',
                  "journal/.gitkeep": "",
                  "queue/.gitkeep": ""}, D2)
    assert icm("check-stale", "--root", str(repo)) == (0, "context.md: ok\n", "")
    commit(repo, {"queue/worker.py": "1\n"}, D3)
    assert icm("check-stale", "--root", str(repo)) == (
        1, "context.md: STALE - code in . moved 2 days after the note\n", "")


# -- decision records: the journal keys another branch adds --------------------

MADR = ("# Use Postgres\n\n## Context and Problem Statement\n\nWe need a store.\n\n"
        "## Considered Options\n\n* Postgres\n* Mongo\n\n## Decision Outcome\n\n"
        'Chosen option: "Postgres".\n')
NYGARD = ("# 1. Record architecture decisions\n\nDate: 2026-01-01\n\n## Status\n\n"
          "Accepted\n\n## Context\n\nWe need records.\n\n## Decision\n\nWe keep "
          "them.\n\n## Consequences\n\nA folder of them.\n")


# Altinn's form (issue 24's trial): the status a list item, not a section;
# init found no records, and with the keys set every record lacked 'Status'.
NYGARD_LINE = ("# ADR-0001: Record architecture decisions\n\n- **Status:** Accepted\n"
               "- **Date:** 2026-01-01\n\n## Context\n\nWe need records.\n\n"
               "## Decision\n\nWe keep them.\n\n## Consequences\n\nA folder.\n")


@pytest.mark.parametrize("folder,text,kind,shown", [
    ("docs/adr", MADR, "madr", "MADR"),
    ("docs/decisions", NYGARD, "nygard", "adr-tools"),
    ("docs/adr", NYGARD_LINE, "nygard", "adr-tools"),
    # Portarium's place (issue 24's trial): a records folder anywhere
    ("docs/internal/adr", NYGARD, "nygard", "adr-tools"),
])
def test_init_reads_decision_records_as_the_journal(
        repo: Path, icm, folder: str, text: str, kind: str, shown: str) -> None:
    """The records are the journal: journal_dir with the format and the
    pattern (journal_dir alone would fail every record's name)."""
    commit(repo, {"AGENTS.md": "# H\n", f"{folder}/0001-use-postgres.md": text,
                  f"{folder}/0002-use-redis.md": text,
                  f"{folder}/README.md": "# Decisions\n"}, D1)
    assert icm("init", "--root", str(repo)) == (0, (
        "left alone AGENTS.md (exists)\n"
        f'journal_dir = "{folder}", journal_format = "{kind}", journal_pattern = '
        f'"NNNN-*.md": 2 {shown} records found in {folder}\n'
        "created queue/.gitkeep\ncreated Makefile\ncreated icm.toml\n"
        + ADOPTED + "\n"), "")
    assert icm("check-journal", "--root", str(repo))[0] == 0
    assert (repo / "icm.toml").read_text() == (
        "# icm's settings; every key is optional (icm's docs/configuration.md).\n"
        + SET_BY_INIT + f'journal_dir = "{folder}"\njournal_format = "{kind}"\n'
        'journal_pattern = "NNNN-*.md"\n')


def test_init_names_every_naming_a_records_folder_keeps(repo: Path, icm) -> None:
    """Portarium's records folder (issue 24's trial) holds ``0031-title.md``,
    ``ADR-0080-title.md`` and ``ADR-0080.md``: one pattern failed 61 names.
    Init writes each shape two records follow, a titled one first (it names
    new records); a lone stray stays a finding."""
    record = NYGARD
    commit(repo, {"AGENTS.md": "# H\n", "docs/adr/0001-a.md": record,
                  "docs/adr/0002-b.md": record, "docs/adr/ADR-0003.md": record,
                  "docs/adr/ADR-0004.md": record, "docs/adr/ADR-0005-e.md": record,
                  "docs/adr/ADR-0006-f.md": record, "docs/adr/ADR-0007-g.md": record,
                  "docs/adr/RFC-100.md": record}, D1)
    out = icm("init", "--root", str(repo))[1].splitlines()[1]
    assert out == (
        'journal_dir = "docs/adr", journal_format = "nygard", journal_pattern = '
        '["ADR-NNNN-*.md", "NNNN-*.md", "ADR-NNNN.md"]: 8 adr-tools records found '
        "in docs/adr")
    assert icm("check-journal", "--root", str(repo)) == (
        1, "docs/adr/RFC-100.md: name does not match ADR-NNNN-*.md or NNNN-*.md "
        "or ADR-NNNN.md\n", "")


def test_record_shapes() -> None:
    from icm.workflow.init import record_patterns, record_shape

    assert [record_shape(n) for n in ("0031-a-b.md", "ADR-0080.md", "adr_12345_x.md",
                                      "v2.md", "README.md", "DN-0001.md")] == [
        "NNNN-*.md", "ADR-NNNN.md", "adr_NNNNN_*.md", None, None, None]
    # only title-less records: the first pattern gains the title's place
    assert record_patterns(["ADR-001.md", "ADR-002.md"]) == (
        "ADR-NNN-*.md", "ADR-NNN.md")
    assert record_patterns(["0001-a.md"]) == ("NNNN-*.md",)


def test_init_adopts_nested_gemini_md(repo: Path, icm) -> None:
    commit(repo, {"GEMINI.md": "# H\n", "api/GEMINI.md": "# api\n",
                  "api/x.py": "1\n"}, D1)
    assert icm("init", "--root", str(repo))[1].splitlines()[:3] == [
        "created AGENTS.md",  # GEMINI.md is not adopted as the handbook (yet)
        'note_name = ["GEMINI.md", "!GEMINI.md"]: 1 nested GEMINI.md found; the '
        "root GEMINI.md is read at start, as the handbook is",
        'index = "off": GEMINI.md is loaded from the folder an agent works in, '
        "not from the handbook's index"]
    git(repo, "add", "-A")
    assert icm("check-stale", "--root", str(repo)) == (0, "api/GEMINI.md: ok\n", "")
