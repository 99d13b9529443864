"""Links into git-ignored paths, and other people's files (issue 24)."""

import json
import os
from pathlib import Path

from tests.conftest import write

HB = "# Handbook\n"
IGNORES = "/templ/\nbuild\n*.log\n"
PAGE = ("# Life\n\n"
        "[prd](../../templ/prd.md)\n"
        "[gone](gone.md)\n"
        "[site](../../build/index.html)\n"
        "[folder](../../templ/)\n"
        "[log](../../run.log)\n")


def run(icm, repo: Path, *extra: str):
    return icm("check-links", "--root", str(repo), *extra)


def test_a_link_into_an_ignored_path_is_information(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, ".gitignore": IGNORES,
                 "docs/life/README.md": PAGE})
    assert run(icm, repo) == (1, (
        "link into a git-ignored path: docs/life/README.md -> ../../templ/prd.md\n"
        "broken link: docs/life/README.md -> gone.md\n"
        "link into a git-ignored path: docs/life/README.md -> "
        "../../build/index.html\n"
        "link into a git-ignored path: docs/life/README.md -> ../../templ/\n"
        "link into a git-ignored path: docs/life/README.md -> ../../run.log\n"
        "links: 1 problem (missing file 1)\n"), "")


def test_only_ignored_targets_pass_and_json_names_them(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, ".gitignore": IGNORES,
                 "docs/life/README.md": PAGE.replace("[gone](gone.md)\n", "")})
    code, out, err = run(icm, repo, "--format", "json")
    assert (code, err) == (0, "")
    found = json.loads(out)["checks"][0]["findings"]
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [
        ("ignored-target", "info", 3), ("ignored-target", "info", 4),
        ("ignored-target", "info", 5), ("ignored-target", "info", 6)]


def test_error_setting_keeps_the_broken_link_line(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, ".gitignore": IGNORES,
                 "icm.toml": 'ignored_targets = "error"\n',
                 "docs/life/README.md": "[prd](../../templ/prd.md)\n"})
    assert run(icm, repo) == (1, (
        "broken link: docs/life/README.md -> ../../templ/prd.md\n"
        "links: 1 problem (missing file 1)\n"), "")


def test_a_path_git_refuses_leaves_the_links_broken(repo: Path, icm,
                                                    tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, repo / "lnk")
    write(repo, {"AGENTS.md": HB, ".gitignore": IGNORES,
                 "a.md": "[x](lnk/x.md)\n[prd](templ/prd.md)\n"})
    code, out, err = run(icm, repo)
    assert (code, err) == (1, "")
    assert out.splitlines()[-1] == "links: 2 problems (missing file 2)"


def test_outside_git_an_ignore_file_is_only_a_file(tmp_path: Path, icm) -> None:
    root = tmp_path / "plain"
    write(root, {"AGENTS.md": HB, ".gitignore": IGNORES,
                 "a.md": "[prd](templ/prd.md)\n"})
    assert run(icm, root) == (1, "broken link: a.md -> templ/prd.md\n"
                              "links: 1 problem (missing file 1)\n", "")


VENDORED = {
    "AGENTS.md": HB + "\n- [katex](public/vendor/katex/README.md)\n",
    "public/vendor/katex/README.md": "# KaTeX\n[c](CONTRIBUTING.md)\n",
    "vendor/pkg/context.md": "[x](missing.md)\n",
    "node_modules/m/README.md": "[y](gone.md)\n",
}


def test_vendored_folders_are_not_checked(repo: Path, icm) -> None:
    write(repo, VENDORED)
    assert run(icm, repo) == (0, "links ok\n", "")


def test_vendored_setting_replaces_the_folders(repo: Path, icm) -> None:
    write(repo, {**VENDORED, "icm.toml": "vendored = []\n"})
    assert run(icm, repo) == (1, (
        "broken link: node_modules/m/README.md -> gone.md\n"
        "broken link: public/vendor/katex/README.md -> CONTRIBUTING.md\n"
        "broken link: vendor/pkg/context.md -> missing.md\n"
        "note missing from handbook index: vendor/pkg/context.md\n"
        "links: 4 problems (missing file 3, unindexed note 1)\n"), "")


def test_linguist_attributes_add_and_remove(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB,
                 ".gitattributes": "* text=auto\n"
                                   "docs/gen/** linguist-generated\n"
                                   "api.md linguist-vendored=true\n"
                                   "third_party/own/** -linguist-vendored\n",
                 "docs/gen/ref.md": "[a](gone.md)\n",
                 "api.md": "[b](gone.md)\n",
                 "third_party/own/notes.md": "[c](gone.md)\n",
                 "third_party/lib/README.md": "[d](gone.md)\n"})
    assert run(icm, repo) == (1, (
        "broken link: third_party/own/notes.md -> gone.md\n"
        "links: 1 problem (missing file 1)\n"), "")


def test_one_git_process_per_question_at_any_size(repo: Path, icm,
                                                  monkeypatch) -> None:
    """One ``check-ignore`` whatever the missing targets (none when none is
    missing), one ``check-attr`` whatever the markdown files (none when no
    ``.gitattributes`` names linguist)."""
    from tests.test_stale import _git_processes

    def asked(files: dict) -> list:
        write(repo, files)
        started = _git_processes(monkeypatch)
        run(icm, repo)
        monkeypatch.undo()
        return sorted(w for a in started for w in a
                      if w in ("check-ignore", "check-attr"))

    both = ["check-attr", "check-ignore"]
    write(repo, {"AGENTS.md": HB, ".gitignore": IGNORES})
    assert asked({"a.md": "[a](a.md)\n"}) == []
    assert asked({".gitattributes": "x linguist-generated\n",
                  "b.md": "[p](templ/p.md)\n"}) == both
    assert asked({f"d{i}.md": f"[p](templ/{i}.md) [g](gone{i}.md)\n"
                  for i in range(30)}) == both


def test_a_vendored_folders_own_note_is_a_note(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "vendor/context.md": "why we vendor\n",
                 "vendor/lib/context.md": "theirs\n"})
    assert run(icm, repo) == (1, (
        "note missing from handbook index: vendor/context.md\n"
        "links: 1 problem (unindexed note 1)\n"), "")


def test_only_the_trees_rules_count_and_a_warm_run_sees_them_change(
        repo: Path, icm, memo: None) -> None:
    """This clone's own excludes (``info/exclude``) are not the
    repository's: a clone and CI would call the link broken. The memo of a
    warm run holds the ``.gitignore`` files: an edit to one is seen."""
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("local.md\n")
    write(repo, {"AGENTS.md": HB, ".gitignore": "/templ/\n",
                 "a.md": "[l](local.md)\n[p](templ/p.md)\n"})
    from tests.test_memo import _age, _memos

    seen = ("link into a git-ignored path: a.md -> templ/p.md\n")
    for _ in range(2):
        assert run(icm, repo) == (1, "broken link: a.md -> local.md\n" + seen
                                  + "links: 1 problem (missing file 1)\n", "")
        _age(repo)
    assert [p.name for p in _memos(repo)] == ["memo-links.json"]
    write(repo, {".gitignore": "other/\n"})
    assert run(icm, repo) == (1, "broken link: a.md -> local.md\n"
                              "broken link: a.md -> templ/p.md\n"
                              "links: 2 problems (missing file 2)\n", "")


def test_a_warm_run_sees_the_attributes_change(repo: Path, icm, memo: None
                                               ) -> None:
    """The ``.gitattributes`` files are inputs of every memo that asked
    whether a file is vendored: an edit to one is seen."""
    from tests.test_memo import _age, _memos

    write(repo, {"AGENTS.md": HB, ".gitattributes": "x.md linguist-generated\n",
                 "api.md": "[b](gone.md)\n"})
    broken = (1, "broken link: api.md -> gone.md\n"
                 "links: 1 problem (missing file 1)\n", "")
    for _ in range(2):
        assert run(icm, repo) == broken
        _age(repo)
    assert [p.name for p in _memos(repo)] == ["memo-links.json"]
    write(repo, {".gitattributes": "api.md linguist-generated\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_every_memo_that_asked_holds_the_attributes(repo: Path, icm,
                                                    memo: None) -> None:
    """Links asks first and reads ``.gitattributes``; bootmap, asking the
    same ``Context`` after it, holds them too."""
    from tests.test_memo import _age, _fresh, _run

    big = "# Lib\n\n" + "word " * 400 + "\n"
    write(repo, {"AGENTS.md": HB + "\n- [lib](lib/context.md)\n",
                 ".gitattributes": "x.md linguist-vendored\n",
                 "lib/context.md": big, "app/context.md": "# App\n\nsmall\n"})
    first = _run(icm, repo, "links", "bootmap")
    _age(repo)
    assert _run(icm, repo, "links", "bootmap") == first
    _age(repo)
    write(repo, {".gitattributes": "lib/** linguist-vendored\n"})
    after = _run(icm, repo, "links", "bootmap")
    assert after == _fresh(icm, repo, "links", "bootmap") and after != first


HOMED = ("---\nname: go-docs\nlicense: MIT\nmetadata:\n  author: someone\n"
         "  openclaw:\n    homepage: https://github.com/someone/skills\n---\n\n"
         "# Go docs\n\n[ref](references/gone.md)\n")
OWN = "---\nname: ours\ndescription: Ours.\n---\n\n# Ours\n\n[ref](gone.md)\n"


def test_copied_skill_bundles_are_vendored(repo: Path, icm) -> None:
    """Round 5's trial: skills copied into ``.opencode/skills/`` by hand (10
    link findings, all upstream's to fix). A bundle is copied when its
    ``SKILL.md`` in a tool's dot folder names the home it came from, or when
    the root ``skills-lock.json`` (the ``skills`` installer's) lists it with
    a source; the bundle's every file goes. A skill naming no home is the
    repository's own, so is one in a top-level ``skills/`` (the upstream's
    place), and ``-linguist-vendored`` keeps a copy checked."""
    write(repo, {"AGENTS.md": HB,
                 ".opencode/skills/go-docs/SKILL.md": HOMED,
                 ".opencode/skills/go-docs/references/a.md": "[t](../gone.md)\n",
                 ".opencode/skills/ours/SKILL.md": OWN,
                 "skills/go-docs/SKILL.md": HOMED,
                 "skills-lock.json": '{"version": 1, "skills": {"kamae": '
                                     '{"source": "someone/kamae"}, "bare": {}}}\n',
                 ".agents/skills/kamae/SKILL.md": OWN,
                 ".agents/skills/kamae/rules.md": "[r](../../rules/x.md)\n",
                 ".agents/skills/bare/SKILL.md": OWN})
    assert run(icm, repo) == (1, (
        "broken link: .agents/skills/bare/SKILL.md -> gone.md\n"
        "broken link: .opencode/skills/ours/SKILL.md -> gone.md\n"
        "broken link: skills/go-docs/SKILL.md -> references/gone.md\n"
        "links: 3 problems (missing file 3)\n"), "")
    write(repo, {".gitattributes": ".opencode/skills/go-docs/** "
                                   "-linguist-vendored\n"})
    assert run(icm, repo)[1].splitlines()[1:3] == [
        "broken link: .opencode/skills/go-docs/SKILL.md -> references/gone.md",
        "broken link: .opencode/skills/go-docs/references/a.md -> ../gone.md"]


def test_a_note_named_file_in_a_skill_is_no_folder_note(repo: Path, icm) -> None:
    """Round 7's trial: a skill copied by hand (its ``SKILL.md`` names no
    home) kept other repositories' ``AGENTS.md`` under
    ``references/examples/`` (18 duplicate rules, a STALE line, unindexed
    notes). A skill is loaded by name, not by the folder an agent works in:
    a note-named file in its folder, at any depth, is no folder's note. A
    folder beside it, and one whose ``SKILL.md`` sits deeper, keep theirs."""
    write(repo, {"AGENTS.md": HB, "icm.toml": 'note_name = "AGENTS.md"\n',
                 ".cursor/skills/agents/SKILL.md": OWN.replace("[ref](gone.md)\n", ""),
                 ".cursor/skills/agents/references/examples/web/AGENTS.md": "# W\n",
                 ".cursor/skills/agents/AGENTS.md": "# S\n",
                 ".cursor/skills/AGENTS.md": "# Skills\n",
                 "tools/AGENTS.md": "# T\n",
                 "tools/deep/x/SKILL.md": OWN.replace("[ref](gone.md)\n", "")})
    assert icm("check-links", "--root", str(repo)) == (1, (
        "note missing from handbook index: .cursor/skills/AGENTS.md\n"
        "note missing from handbook index: tools/AGENTS.md\n"
        "links: 2 problems (unindexed note 2)\n"), "")


def test_a_skills_samples_are_written_for_another_tree(repo: Path, icm) -> None:
    """Round 7's copied skill kept sample notes of other repositories in
    ``references/examples/`` (``internal-web-AGENTS.md`` standing for
    ``internal/web/AGENTS.md``): 10 broken links and 2 files of broken
    links, all written for the repository each sample describes. A missing
    target in a skill's ``examples``/``samples``/``assets`` folder is an
    info line; the skill's own ``SKILL.md`` and references keep theirs, and
    so does an ordinary ``examples/`` folder outside any skill."""
    skill = ".cursor/skills/agents/"
    write(repo, {"AGENTS.md": HB, "icm.toml": 'note_name = "AGENTS.md"\n',
                 skill + "SKILL.md": OWN,
                 skill + "references/guide.md": "[g](../scripts/gone.py)\n",
                 skill + "references/examples/ldap/internal-AGENTS.md":
                     "[up](../AGENTS.md) [api](../docs/api.md)\n",
                 skill + "assets/root.md": "[d](docs/README.md)\n",
                 skill + "Examples/x.md": "[e](y.md)\n",
                 "examples/demo/README.md": "[m](missing.md)\n"})
    why = " (a skill's sample, written for the repository it describes)\n"
    assert icm("check-links", "--root", str(repo)) == (1, (
        "placeholder link: .cursor/skills/agents/Examples/x.md -> y.md" + why
        + "broken link: .cursor/skills/agents/SKILL.md -> gone.md\n"
        "placeholder link: .cursor/skills/agents/assets/root.md -> "
        "docs/README.md" + why
        + "placeholder link: .cursor/skills/agents/references/examples/ldap/"
        "internal-AGENTS.md -> ../AGENTS.md" + why
        + "placeholder link: .cursor/skills/agents/references/examples/ldap/"
        "internal-AGENTS.md -> ../docs/api.md" + why
        + "broken link: .cursor/skills/agents/references/guide.md -> "
        "../scripts/gone.py\n"
        "broken link: examples/demo/README.md -> missing.md\n"
        "links: 3 problems (missing file 3)\n"), "")


def test_a_test_pages_links_are_its_data(repo: Path, icm) -> None:
    """Round 13's mdk: a markdown parser's golden input (``tests/golden/
    kitchen_sink.md`` beside its expected JSON) links ``/img.png`` and a
    reference definition as data to parse: 2 broken links, both noise. A
    missing target in a file under a test-data folder (``testdata``,
    ``fixtures``, ``golden``, ``__snapshots__``, ...) is an info line; a
    test's own README beside the tests, and a folder merely named like one
    (``goldenrod``), keep theirs."""
    write(repo, {"AGENTS.md": HB, "icm.toml": 'note_name = "AGENTS.md"\n',
                 "crates/md/tests/golden/kitchen_sink.md": "![i](/img.png)\n",
                 "pkg/testdata/input.md": "[x](gone.md)\n",
                 "web/__snapshots__/page.md": "[y](nowhere.md)\n",
                 "crates/md/tests/README.md": "[how](missing.md)\n",
                 "goldenrod/notes.md": "[z](absent.md)\n"})
    why = " (test data: a page a test reads, not one readers follow)\n"
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: crates/md/tests/README.md -> missing.md\n"
        "placeholder link: crates/md/tests/golden/kitchen_sink.md -> /img.png"
        + why + "broken link: goldenrod/notes.md -> absent.md\n"
        "placeholder link: pkg/testdata/input.md -> gone.md" + why
        + "placeholder link: web/__snapshots__/page.md -> nowhere.md" + why
        + "links: 2 problems (missing file 2)\n"), "")
