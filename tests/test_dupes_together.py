"""check-dupes: which notes are read together (issue 24's fresh trial: 55 of
59 dupes findings sat between sibling notes no agent loads at once), and a
copied section as one finding."""

import json
from pathlib import Path

import pytest

from icm.baseline import identity
from icm.model.notes import read_together
from tests.conftest import write

RULE = "Every reader of a file stops at 1 MiB and reports the rest as skipped."
AGENTS = 'note_name = "AGENTS.md"\n'


def dupes(icm, repo: Path, *args: str):
    return icm("check-dupes", "--root", str(repo), *args)


def note(title: str, *said: str) -> str:
    return f"# {title}\n\n" + "\n\n".join(said) + "\n"


@pytest.mark.parametrize("a,b,together", [
    ("a/AGENTS.md", "b/AGENTS.md", False),
    ("a/AGENTS.md", "ab/AGENTS.md", False),  # a prefix of a name is no folder
    ("a/AGENTS.md", "a/b/AGENTS.md", True),
    ("a/b/c/AGENTS.md", "a/AGENTS.md", True),
    ("AGENTS.md", "x/y/AGENTS.md", True),  # the root's note is read everywhere
    ("a/AGENTS.md", "a/context.md", True),  # one folder's two notes
    ("a/AGENTS.md", "a/CLAUDE.md", False),  # ... for two tools: mirrors
    ("AGENTS.md", "x/GEMINI.md", False),  # a Gemini session reads GEMINI.md
    ("a/x/AGENTS.md", "a/y/AGENTS.md", False),
])
def test_a_note_is_read_with_its_folder_and_ancestors_notes(
        a: str, b: str, together: bool) -> None:
    assert read_together(a, b) is together
    assert read_together(b, a) is together
    assert read_together(a, b, always={b}) and read_together(a, b, always={a})
    assert read_together(a, b, named=frozenset({(b, a)}))


def test_a_sibling_copy_is_silent_by_default_and_shown_on_request(
        repo: Path, icm) -> None:
    tree = {"icm.toml": AGENTS, "AGENTS.md": "# H\n",
            "a/AGENTS.md": note("a", RULE), "b/AGENTS.md": note("b", RULE),
            "c/AGENTS.md": note("c", RULE.replace("1 MiB", "64 KiB"))}
    write(repo, tree)
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    lines = ("duplicate rule: b/AGENTS.md:3 repeats a/AGENTS.md:3 "
             "(keep one home, link to it)\n"
             "diverged rule: c/AGENTS.md:3 and a/AGENTS.md:3 disagree: "
             "'64 KiB' vs '1 MiB'\n")
    for shown in ("info", "warning"):
        write(repo, {"icm.toml": f'{AGENTS}dupes_siblings = "{shown}"\n'})
        assert dupes(icm, repo) == (0, lines, "")  # a diverged error no more
        code, out, _ = dupes(icm, repo, "--format", "json")
        (check,) = json.loads(out)["checks"]
        assert [(f["code"], f["severity"], f["read_together"])
                for f in check["findings"]] == [
            ("duplicate-rule", shown, False), ("diverged-rule", shown, False)]
    write(repo, {"icm.toml": f'{AGENTS}dupes_siblings = "error"\n'})
    code, out, err = dupes(icm, repo)
    assert (code, out) == (2, "") and "dupes_siblings" in err


@pytest.mark.parametrize("home,copy", [
    ("AGENTS.md", "a/AGENTS.md"),  # the handbook
    ("a/AGENTS.md", "a/b/AGENTS.md"),  # an ancestor's note
    ("a/AGENTS.md", "a/context.md"),  # one folder's two notes, both worded
    ("a/AGENTS.md", "a/CLAUDE.md"),  # ... for two tools, one naming the other
    ("AGENTS.md", "x/GEMINI.md"),  # the handbook, with no GEMINI.md beside it
    ("docs/rules.md", "z/AGENTS.md"),  # in the boot set
    ("x/AGENTS.md", "z/AGENTS.md"),  # named by the copy, as a code span
])
def test_notes_read_together_are_still_compared(repo: Path, icm, home: str,
                                                copy: str) -> None:
    named = "a/AGENTS.md" if copy == "a/CLAUDE.md" else "x/AGENTS.md"
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md", '
                 '"GEMINI.md", "context.md", "docs/rules.md"]\n'
                 'boot = ["docs/rules.md"]\n',
                 "AGENTS.md": "# H\n", home: note("home", RULE),
                 copy: note("copy", f"`{named}` rules still apply.", RULE)})
    code, out, _ = dupes(icm, repo, "--format", "json")
    (check,) = json.loads(out)["checks"]
    assert [(f["message"], f["severity"], f["read_together"])
            for f in check["findings"]] == [
        (f"duplicate rule: {copy}:5 repeats {home}:3 (keep one home, link to it)",
         "warning", True)]


def test_a_home_read_with_the_copy_comes_before_a_sibling(repo: Path,
                                                          icm) -> None:
    write(repo, {"icm.toml": f'{AGENTS}dupes_siblings = "info"\n',
                 "AGENTS.md": "# H\n", "x/AGENTS.md": note("x", RULE),
                 "y/AGENTS.md": note("y", RULE), "y/z/AGENTS.md": note("z", RULE)})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: y/AGENTS.md:3 repeats x/AGENTS.md:3 "
        "(keep one home, link to it)\n"
        "duplicate rule: y/z/AGENTS.md:3 repeats y/AGENTS.md:3 "
        "(keep one home, link to it)\n"), "")
    code, out, _ = dupes(icm, repo, "--format", "json")
    assert [(f["path"], f["severity"]) for f in
            json.loads(out)["checks"][0]["findings"]] == [
        ("y/AGENTS.md", "info"), ("y/z/AGENTS.md", "warning")]


def test_a_restated_rule_between_siblings_is_left_out(repo: Path, icm) -> None:
    tree = {"icm.toml": f'{AGENTS}dupes_restated = "info"\n', "AGENTS.md": "# H\n",
            "api/AGENTS.md": "# Api\n\n- Run the whole test suite with coverage "
                             "before you push a branch.\n",
            "web/AGENTS.md": "# Web\n\n- Before pushing any branch, the complete "
                             "suite must pass under coverage.\n"}
    write(repo, tree)
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"icm.toml": tree["icm.toml"] + 'dupes_siblings = "info"\n'})
    assert dupes(icm, repo) == (0, "restated rule: web/AGENTS.md:3 restates "
                                "api/AGENTS.md:3 (keep one home, link to it)\n", "")


# -- a copied section is one finding -------------------------------------------

GUIDE = [
    "Type hints go on every public function, and mypy runs in strict mode.",
    "Docstrings use the imperative mood and fit on one line of 3 clauses.",
    "Imports are sorted by ruff, standard library first, then third parties.",
    "A test builds real temporary folders instead of mocking the file system.",
    "Logging goes through the package logger; print is for the command line.",
]


def test_a_copied_section_is_one_finding_naming_both_ranges(repo: Path,
                                                            icm) -> None:
    copy = list(GUIDE)
    copy[1] = copy[1].replace("3", "5")
    write(repo, {"icm.toml": AGENTS, "AGENTS.md": note("H", "Intro words.", *GUIDE),
                 "pkg/AGENTS.md": note("pkg", "## Guide", *copy, "Our own rule "
                                       "about nothing the handbook says at all.")})
    assert dupes(icm, repo) == (0, (  # a diverged copy warns
        "duplicate rule: pkg/AGENTS.md:5-13 and AGENTS.md:5-13 hold the same 4 "
        "rules (keep one home, link to it)\n"
        "diverged rule: pkg/AGENTS.md:7 and AGENTS.md:7 disagree: '5' vs '3'\n"),
        "")
    code, out, _ = dupes(icm, repo, "--format", "json")
    section = json.loads(out)["checks"][0]["findings"][0]
    assert section["section"] == {
        "copy": {"path": "pkg/AGENTS.md", "start": 5, "end": 13},
        "home": {"path": "AGENTS.md", "start": 5, "end": 13}}
    assert [[(x["path"], x["line"]) for x in s["locations"]]
            for s in section["statements"]] == [
        [("pkg/AGENTS.md", n), ("AGENTS.md", n)] for n in (5, 9, 11, 13)]
    assert section["differ"] == ["pkg/AGENTS.md:7"]
    assert section["read_together"] is True


def test_copies_out_of_order_or_too_few_stay_one_a_line(repo: Path,
                                                       icm) -> None:
    write(repo, {"icm.toml": AGENTS, "AGENTS.md": note("H", *GUIDE),
                 "a/AGENTS.md": note("a", GUIDE[0], GUIDE[2], GUIDE[1]),
                 "b/AGENTS.md": note("b", GUIDE[0], "A rule of b's own, said "
                                     "nowhere else in this tree.", GUIDE[1],
                                     GUIDE[2])})
    assert dupes(icm, repo) == (0, "".join(
        f"duplicate rule: {copy} repeats {home} (keep one home, link to it)\n"
        for copy, home in [
            ("a/AGENTS.md:3", "AGENTS.md:3"), ("a/AGENTS.md:5", "AGENTS.md:7"),
            ("a/AGENTS.md:7", "AGENTS.md:5"), ("b/AGENTS.md:3", "AGENTS.md:3"),
            ("b/AGENTS.md:7", "AGENTS.md:5"), ("b/AGENTS.md:9", "AGENTS.md:7")]),
        "")


def test_a_section_keeps_its_baseline_key_when_lines_move() -> None:
    said = "duplicate rule: b/AGENTS.md:{}-{} and a/AGENTS.md:10-52 hold the same"
    assert identity(said.format(8, 50)) == identity(said.format(9, 51))
    assert identity(said.format(8, 50)).count("#") == 4


# -- one folder's notes for two tools are mirrors --------------------------------

TOOLS = 'note_name = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]\n'
OTHER = "Integration tests run against a real database, never a mocked driver."


def test_per_tool_copies_in_one_folder_are_mirrors(repo: Path, icm) -> None:
    """A folder's AGENTS.md, CLAUDE.md and GEMINI.md copying each other (Tres's
    root) are read by three tools, never two at once; a nested GEMINI.md is
    read with the root's GEMINI.md, not with the AGENTS.md handbook."""
    both = note("Rules", RULE, OTHER)
    write(repo, {"icm.toml": TOOLS, "AGENTS.md": both, "CLAUDE.md": both,
                 "GEMINI.md": note("Gemini", OTHER),
                 "src/AGENTS.md": note("src", OTHER),
                 "src/CLAUDE.md": note("src", OTHER),
                 "web/GEMINI.md": note("web", RULE)})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: src/AGENTS.md:3 repeats AGENTS.md:5 "
        "(keep one home, link to it)\n"
        "duplicate rule: src/CLAUDE.md:3 repeats CLAUDE.md:5 "
        "(keep one home, link to it)\n"), "")


def test_per_tool_notes_that_disagree_are_a_drift(repo: Path, icm) -> None:
    changed = RULE.replace("1 MiB", "64 KiB")
    write(repo, {"icm.toml": TOOLS, "AGENTS.md": note("Rules", OTHER, RULE),
                 "CLAUDE.md": note("Rules", OTHER, changed)})
    line = ("mirror drift: CLAUDE.md:5 and AGENTS.md:5, one folder's notes for "
            "two tools, disagree: '64 KiB' vs '1 MiB'")
    assert dupes(icm, repo) == (0, line + "\n", "")
    assert dupes(icm, repo, "--format", "concise") == (
        0, f"CLAUDE.md:5:1: dupes/mirror-drift {line}\n", "")
    code, out, _ = dupes(icm, repo, "--format", "json")
    (found,) = json.loads(out)["checks"][0]["findings"]
    assert {k: found[k] for k in ("code", "severity", "path", "line",
                                  "read_together", "differences")} == {
        "code": "mirror-drift", "severity": "warning", "path": "CLAUDE.md",
        "line": 5, "read_together": False,
        "differences": [{"kind": "number", "copy": "64 KiB", "home": "1 MiB"}]}


def test_mirrors_naming_each_its_own_file_agree(repo: Path, icm) -> None:
    """Each tool's copy pointing at its own file (round 11's modulith: the
    CLAUDE.md copy links `../CLAUDE.md`, the AGENTS.md copy `../AGENTS.md`,
    4 of 4 drifts noise) is no drift; another path there still is."""
    said = "Follow the module rules in `../{}` before adding any endpoint."
    write(repo, {"icm.toml": TOOLS, "AGENTS.md": note("H"),
                 "m/AGENTS.md": note("m", OTHER, said.format("AGENTS.md")),
                 "m/CLAUDE.md": note("m", OTHER, said.format("CLAUDE.md"))})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"m/CLAUDE.md": note("m", OTHER, said.format("RULES.md"))})
    assert dupes(icm, repo) == (0, (
        "mirror drift: m/CLAUDE.md:5 and m/AGENTS.md:5, one folder's notes for "
        "two tools, disagree: '`../RULES.md`' vs '`../AGENTS.md`'\n"), "")


def test_a_stub_or_a_symlink_still_brings_the_handbook_in(repo: Path,
                                                          icm) -> None:
    """A CLAUDE.md importing or linking to the AGENTS.md beside it is no
    note of its own: Claude reads the handbook through it, so a nested
    CLAUDE.md's copy of the handbook is still a copy."""
    write(repo, {"icm.toml": TOOLS, "AGENTS.md": note("Rules", RULE),
                 "CLAUDE.md": "@AGENTS.md\n", "x/CLAUDE.md": note("x", RULE),
                 "y/AGENTS.md": note("y", OTHER),
                 "y/CLAUDE.md": note("y", "Read @AGENTS.md first.", OTHER)})
    lines = ("duplicate rule: x/CLAUDE.md:3 repeats AGENTS.md:3 "
             "(keep one home, link to it)\n"
             "duplicate rule: y/CLAUDE.md:5 repeats y/AGENTS.md:3 "
             "(keep one home, link to it)\n")
    assert dupes(icm, repo) == (0, lines, "")
    (repo / "CLAUDE.md").unlink()
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    assert dupes(icm, repo) == (0, lines, "")


@pytest.mark.parametrize("root_claude", [
    note("Claude", "Claude Code runs the formatter before it offers a commit."),
    "@AGENTS.md\n",  # a stub: Claude reads the handbook through it
    "",  # a symlink to the handbook: its text
])
def test_a_root_tool_file_init_leaves_out_still_keeps_its_tool_apart(
        repo: Path, icm, root_claude: str) -> None:
    """Purity's tree (issue 24): init writes ``!CLAUDE.md`` and ``!GEMINI.md``
    for the root ones, read at start as the handbook is; a Gemini session
    still reads the root GEMINI.md and not the AGENTS.md handbook, so a
    nested GEMINI.md's copy of the handbook is none. Codex reads both
    AGENTS.md files, and Claude reads the handbook through a stub."""
    nested = note("core", "The core package is the only one with no deps.", RULE)
    write(repo, {"AGENTS.md": note("Rules", RULE, OTHER),
                 "CLAUDE.md": root_claude,
                 "GEMINI.md": note("Gemini", "Gemini reads the style guide first."),
                 **{f"packages/core/{name}": nested
                    for name in ("AGENTS.md", "CLAUDE.md", "GEMINI.md")}})
    if not root_claude:
        (repo / "CLAUDE.md").unlink()
        (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    assert icm("init", "--root", str(repo))[0] == 0
    assert 'note_name = ["AGENTS.md", "CLAUDE.md", "GEMINI.md", "!CLAUDE.md", ' \
        '"!GEMINI.md"]\n' in (repo / "icm.toml").read_text()
    claude = "" if root_claude.startswith("#") else (
        "duplicate rule: packages/core/CLAUDE.md:5 repeats AGENTS.md:3 "
        "(keep one home, link to it)\n")
    assert dupes(icm, repo) == (0, (
        "duplicate rule: packages/core/AGENTS.md:5 repeats AGENTS.md:3 "
        f"(keep one home, link to it)\n{claude}"), "")
