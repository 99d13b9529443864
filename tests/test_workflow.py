"""Queue and journal workflow, init, the Makefile include and the hooks."""

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm.errors import UsageError
from icm.workflow.files import fill, template
from icm.workflow.init import ADOPTED, INCLUDE_LINE
from tests.conftest import commit, git, write

ROOT = Path(__file__).resolve().parent.parent
D1 = "2026-10-01T12:00:00+00:00"


# -- check-queue ---------------------------------------------------------------

def test_queue_ok_and_duplicates(repo: Path, icm) -> None:
    write(repo, {"queue/07_auto-detect-delimiter.md": "a", "queue/.gitkeep": "",
                 "queue/README.md": "about", "queue/08_x.md": "b"})
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")
    write(repo, {"queue/07_summary-to-stderr.md": "c", "queue/notes.md": "d"})
    assert icm("check-queue", "--root", str(repo)) == (1, (
        "queue: number 07 is used twice: queue/07_auto-detect-delimiter.md, "
        "queue/07_summary-to-stderr.md\n"
        "queue/notes.md: name does not match NN_slug.md\n"
        "queue: 2 problems (no base branch to compare with)\n"), "")


def test_queue_three_times(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "", "queue/07_b.md": "", "queue/007_c.md": ""})
    assert icm("check-queue", "--root", str(repo))[1] == (
        "queue: number 007 is used 3 times: queue/007_c.md, queue/07_a.md, "
        "queue/07_b.md\nqueue: 1 problem (no base branch to compare with)\n")


# -- new-queue -----------------------------------------------------------------

def test_new_queue_numbers_and_slug(repo: Path, icm) -> None:
    write(repo, {"queue/06_old.md": "x"})
    assert icm("new-queue", "Auto-detect the Délimiter!", "--root", str(repo)) == (
        0, "queue/07_auto-detect-the-délimiter.md\n", "")
    text = (repo / "queue/07_auto-detect-the-délimiter.md").read_text()
    assert text.startswith("# Auto-detect the Délimiter!\n")


def test_new_queue_counts_the_number_of_a_badly_named_item(repo: Path, icm) -> None:
    write(repo, {"queue/05_Fix the parser.md": "x"})
    assert icm("new-queue", "next", "--root", str(repo))[1] == "queue/06_next.md\n"


def test_new_queue_widens_past_99(repo: Path, icm) -> None:
    write(repo, {"queue/99_last.md": "x"})
    assert icm("new-queue", "next", "--root", str(repo))[1] == "queue/100_next.md\n"


def test_new_queue_rejects_empty_slug(repo: Path, icm) -> None:
    assert icm("new-queue", "!!! -- ...", "--root", str(repo)) == (
        2, "", "icm: the title needs at least one letter or digit (of any script) "
        "to name the file\n")


@pytest.mark.parametrize("title, name", [
    ("日本語のタイトル", "日本語のタイトル"), ("Исправить парсер", "исправить-парсер")])
def test_titles_in_other_scripts_go_through_the_workflow(repo: Path, icm, title: str,
                                                         name: str) -> None:
    assert icm("new-queue", title, "--root", str(repo)) == (
        0, f"queue/01_{name}.md\n", "")
    assert icm("check-queue", "--root", str(repo)) == (
        0, "queue ok (no base branch to compare with)\n", "")
    assert icm("new-journal", "01", "--date", "2026-11-29", "--root", str(repo)) == (
        0, f"journal/2026-11-29_{name}.md\nremoved queue/01_{name}.md\n", "")
    entry = (repo / f"journal/2026-11-29_{name}.md").read_text(encoding="utf-8")
    assert entry.startswith(f"# {title}\n")
    out = icm("check-journal", "--root", str(repo))[1]
    assert "name does not match" not in out and out.count("empty slot") == 4


def test_new_journal_finds_a_slug_typed_decomposed(repo: Path, icm) -> None:
    write(repo, {"queue/03_délimiter.md": "# Délimiter\n"})
    typed = unicodedata.normalize("NFD", "délimiter")
    assert icm("new-journal", typed, "--date", "2026-11-29", "--root",
               str(repo))[1].splitlines()[0] == "journal/2026-11-29_délimiter.md"


# -- numbers are never reused --------------------------------------------------

def test_new_queue_skips_the_number_a_finished_item_had(repo: Path, icm) -> None:
    """The issue's case: 04 became a journal entry, the next item is 05."""
    commit(repo, {"queue/03_low.md": "# Low\n", "queue/04_highest-one.md":
                  "# Highest one\n\nText.\n"}, D1)
    icm("new-journal", "04", "--date", "2026-11-29", "--root", str(repo))
    assert icm("new-queue", "next one", "--root", str(repo)) == (
        0, "queue/05_next-one.md\n", "")


@pytest.mark.parametrize("body", ["\nSome text.\n", ""])
def test_journal_carried_numbers_count_outside_git(tmp_path: Path, icm,
                                                   body: str) -> None:
    write(tmp_path, {"queue/04_x.md": f"# X\n{body}", "queue/02_y.md": "y"})
    assert icm("new-journal", "04", "--date", "2026-11-29", "--root",
               str(tmp_path))[0] == 0
    entry = (tmp_path / "journal/2026-11-29_x.md").read_text()
    assert "Carried over from `queue/04_x.md`" in entry
    assert icm("new-queue", "z", "--root", str(tmp_path)) == (
        0, "queue/05_z.md\n", "")


def test_numbers_from_git_history_on_any_ref_are_never_reused(repo: Path,
                                                              icm) -> None:
    commit(repo, {"queue/04_gone.md": "x", "queue/notes/40_nested.md": "x"}, D1)
    git(repo, "rm", "-q", "queue/04_gone.md")  # deleted by hand, no journal entry
    commit(repo, {}, D1)
    assert icm("new-queue", "a", "--root", str(repo))[1] == "queue/05_a.md\n"
    git(repo, "switch", "-q", "-c", "side")
    commit(repo, {"queue/09_elsewhere.md": "x"}, D1)
    git(repo, "mv", "queue/09_elsewhere.md", "queue/12_renamed.md")
    commit(repo, {}, D1)
    git(repo, "switch", "-q", "main")
    assert icm("new-queue", "b", "--root", str(repo))[1] == "queue/13_b.md\n"


def test_new_queue_concurrent_writers_get_distinct_numbers(repo: Path) -> None:
    (repo / "queue").mkdir()
    icm_bin = [sys.executable, "-m", "icm", "new-queue", "--root", str(repo)]
    procs = [subprocess.Popen([*icm_bin, f"writer {i}"], stdout=subprocess.PIPE,
                              text=True) for i in range(6)]
    outs = [p.communicate()[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    numbers = sorted(o.split("/")[1].split("_")[0] for o in outs)
    assert numbers == ["01", "02", "03", "04", "05", "06"]


# -- new-journal ---------------------------------------------------------------

QUEUE_ITEM = "# Auto-detect the delimiter\n\nSome exports use semicolons.\n"


@pytest.mark.parametrize("item", ["07", "7", "auto-detect-delimiter",
                                  "queue/07_auto-detect-delimiter.md",
                                  "07_auto-detect-delimiter.md"])
def test_new_journal_by_number_slug_path(repo: Path, icm, item: str) -> None:
    write(repo, {"queue/07_auto-detect-delimiter.md": QUEUE_ITEM,
                 "queue/08_other.md": "x"})
    assert icm("new-journal", item, "--date", "2026-11-29", "--root", str(repo)) == (
        0, "journal/2026-11-29_auto-detect-delimiter.md\n"
        "removed queue/07_auto-detect-delimiter.md\n", "")
    entry = (repo / "journal/2026-11-29_auto-detect-delimiter.md").read_text()
    assert entry.startswith("# Auto-detect the delimiter\n\nCarried over from "
                            "`queue/07_auto-detect-delimiter.md`:\n\nSome exports "
                            "use semicolons.\n\n## Decision\n")
    for slot in ("## Rejected alternative", "## Invariant", "## Verify command"):
        assert slot in entry
    assert not (repo / "queue/07_auto-detect-delimiter.md").exists()
    assert (repo / "queue/08_other.md").exists()


def test_new_journal_tracked_item_is_staged_as_a_move(repo: Path, icm) -> None:
    commit(repo, {"queue/07_a.md": QUEUE_ITEM}, D1)
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo)) == (
        0, "journal/2026-11-29_a.md\nremoved queue/07_a.md (staged in git as a "
        "move)\n", "")
    status = git(repo, "status", "--porcelain")
    assert status.splitlines() == ["A  journal/2026-11-29_a.md", "D  queue/07_a.md"]


def test_new_journal_never_overwrites(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM, "journal/2026-11-29_a.md": "mine"})
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo)) == (
        2, "", "icm: 2026-11-29_a.md already exists; not overwriting it\n")
    assert (repo / "journal/2026-11-29_a.md").read_text() == "mine"
    assert (repo / "queue/07_a.md").read_text() == QUEUE_ITEM
    assert sorted(os.listdir(repo / "journal")) == ["2026-11-29_a.md"]


def test_new_journal_unknown_item_lists_the_queue(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "x", "queue/08_b.md": "y"})
    assert icm("new-journal", "09", "--root", str(repo)) == (
        2, "", "icm: no queue item matches '09' (queue/07_a.md, queue/08_b.md)\n")
    assert icm("new-journal", "x", "--date", "29-11-2026", "--root", str(repo)) == (
        2, "", "icm: --date must be YYYY-MM-DD, not '29-11-2026'\n")


def test_new_journal_failing_removal_changes_nothing(repo: Path, icm,
                                                     monkeypatch) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM})
    real_replace = os.replace

    def refuse(path, *a, **k):
        if str(path).endswith("07_a.md"):
            raise PermissionError(13, "Permission denied")
        return real_replace(path, *a, **k)

    monkeypatch.setattr(os, "replace", refuse)
    code, out, err = icm("new-journal", "07", "--date", "2026-11-29",
                         "--root", str(repo))
    assert (code, out) == (2, "")
    assert err == "icm: cannot remove queue/07_a.md: Permission denied; nothing " \
                  "was changed\n"
    assert (repo / "queue/07_a.md").exists()
    assert not (repo / "journal").exists()  # the folder made for it went too


def test_new_entry_fails_the_gate_until_written(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": QUEUE_ITEM})
    icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and out.count("empty slot") == 4


def test_new_journal_keeps_an_items_own_slots(repo: Path, icm) -> None:
    """An item that already holds slots keeps them, each heading once; the
    template adds only the slots it lacks (each slot twice once passed)."""
    item = ("# Parse dates\n\nIntro.\n\n## Decision\nWe parse ISO dates.\n\n"
            "## Rejected alternative\ndateutil: too lax.\n\n## Invariant\n"
            "Dates are ISO.\n\n## Verify command\n`true`\n")
    write(repo, {"queue/07_parse-dates.md": item,
                 "queue/08_half.md": "# Half\n\n## Decision\nDone by hand.\n"})
    icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))
    assert (repo / "journal/2026-11-29_parse-dates.md").read_text() == (
        "# Parse dates\n\nCarried over from `queue/07_parse-dates.md`:\n\n"
        + item.split("\n\n", 1)[1])
    icm("new-journal", "08", "--date", "2026-11-29", "--root", str(repo))
    half = (repo / "journal/2026-11-29_half.md").read_text()
    assert [ln for ln in half.splitlines() if ln.startswith("## ")] == [
        "## Decision", "## Rejected alternative", "## Invariant", "## Verify command"]
    assert half.startswith("# Half\n\nCarried over from `queue/08_half.md`:\n\n"
                           "## Decision\nDone by hand.\n\n## Rejected alternative\n")
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2026-11-29_half.md: empty slot 'Rejected alternative'\n"
        "journal/2026-11-29_half.md: empty slot 'Invariant'\n"
        "journal/2026-11-29_half.md: empty slot 'Verify command'\n"), "")


ADR = ("slots = ['Context and Problem Statement', 'Considered Options', "
       "'Decision Outcome']\njournal_dir = 'docs/adr'\n")


def test_new_journal_writes_the_configured_slots(repo: Path, icm) -> None:
    """A newcomer's trial: with three ADR slots the entry had the default four,
    and check-journal failed on icm's own output."""
    write(repo, {"pyproject.toml": f"[tool.icm]\n{ADR}"})
    icm("new-queue", "migrate adrs", "--root", str(repo))
    assert icm("new-journal", "01", "--date", "2026-11-29", "--root", str(repo)) == (
        0, "docs/adr/2026-11-29_migrate-adrs.md\nremoved queue/01_migrate-adrs.md\n",
        "")
    text = (repo / "docs/adr/2026-11-29_migrate-adrs.md").read_text()
    assert text.endswith("Done when:\n\n## Context and Problem Statement\n\n"
                         "## Considered Options\n\n## Decision Outcome\n")
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/adr/2026-11-29_migrate-adrs.md: empty slot 'Context and Problem "
        "Statement'\n"
        "docs/adr/2026-11-29_migrate-adrs.md: empty slot 'Considered Options'\n"
        "docs/adr/2026-11-29_migrate-adrs.md: empty slot 'Decision Outcome'\n"), "")
    # The default slots still get the template byte for byte.
    from icm.workflow.files import fill, template

    write(repo, {"pyproject.toml": "[tool.icm]\njournal_dir = 'docs/adr'\n",
                 "queue/02_b.md": "# B {carried}\n"})
    icm("new-journal", "02", "--date", "2026-11-29", "--root", str(repo))
    assert (repo / "docs/adr/2026-11-29_b.md").read_text() == fill(
        template("journal.md"), {"title": "B {carried}",
                                 "carried": "Carried over from `queue/02_b.md`.\n"})


def test_new_journal_slots_keep_their_hints_and_the_items_own(repo: Path,
                                                              icm) -> None:
    """Known slots keep the template's hint, the verify slot takes the Verify
    command's, in ``slots`` order; a slot the item holds is not added."""
    write(repo, {"icm.toml": "slots = ['Why', 'Invariant', 'Decision', 'Check']\n"
                             "verify_slot = 'Check'\n",
                 "queue/07_a.md": "# A\n\n## Decision\nMade.\n"})
    icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))
    assert (repo / "journal/2026-11-29_a.md").read_text() == (
        "# A\n\nCarried over from `queue/07_a.md`:\n\n## Decision\nMade.\n\n"
        "## Why\n\n"
        "## Invariant\n<!-- The constraint that now binds, in the present tense: "
        "\"no function in\nsrc/ returns a list of rows\". -->\n\n"
        "## Check\n<!-- A one-liner that fails when the invariant breaks, e.g.\n"
        "`pytest -q tests/test_cleaner.py -k streams`. -->\n")


def test_new_journal_carries_code_blocks_byte_for_byte(repo: Path, icm) -> None:
    """The item is deleted once the entry is made: a collapsed blank line in
    a code block, or an emptied example claim line, was lost for good. Only
    the claim line outside fences goes; every other line keeps its ending."""
    git(repo, "config", "user.name", "Ada")
    body = ("```python\nimport os\n\n\ndef f(): pass\n```\r\n\n"
            "~~~\nClaimed-by: Bob on feat, 2026-01-01\n~~~\n\n"
            "    indented code\n\n\n\nEnd.  \n")
    write(repo, {"queue/07_x.md": "# X\n\nClaimed-by: Ada on main, 2026-11-02\n\n"
                 + body + "\n\n"})
    icm("new-journal", "07", "--date", "2026-11-29", "--root", str(repo))
    assert (repo / "journal/2026-11-29_x.md").read_bytes().decode() == fill(
        template("journal.md"), {"title": "X", "carried": "Carried over from "
                                 f"`queue/07_x.md`:\n\n{body}"})


def test_new_journal_closes_a_fence_the_item_leaves_open(repo: Path, icm) -> None:
    """The slots added after an unclosed fence were code: 'missing slot' for
    all four, on icm's own output."""
    for name, item, closed in (
            ("08_f.md", "# F\n\n```sh\nmake\n", "```sh\nmake\n```\n"),
            ("09_g.md", "# G\n\n  ````\nmake\n```\n\n", "  ````\nmake\n```\n\n"
             "````\n"),
            ("10_h.md", "~~~\r\nx\r", "~~~\r\nx\r~~~\r\n")):
        write(repo, {f"queue/{name}": item})
        out = icm("new-journal", name[:2], "--date", "2026-11-29", "--root",
                  str(repo))[1]
        got = (repo / out.splitlines()[0]).read_bytes().decode()
        nl = "\r\n" if "\r" in item else "\n"
        assert got == fill(template("journal.md"), {
            "title": name[3].upper(),
            "carried": f"Carried over from `queue/{name}`:\n\n\0"}).replace(
                "\n", nl).replace("\0", closed)
    assert icm("check-journal", "--root", str(repo))[1].count("missing slot") == 0


# -- init ----------------------------------------------------------------------

def test_init_empty_repository_then_check_passes(repo: Path, icm) -> None:
    write(repo, {"pyproject.toml": "[project]\nname = 'x'\n"})
    code, out, err = icm("init", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "created AGENTS.md", "created journal/.gitkeep", "created queue/.gitkeep",
        "created Makefile", "added [tool.icm] to pyproject.toml"]
    assert (repo / "pyproject.toml").read_text().startswith("[project]\nname = 'x'\n")
    commit(repo, {}, D1, "init")
    code, out, _ = icm("check", "--root", str(repo))
    assert code == 0, out
    assert icm("init", "--root", str(repo))[1].splitlines() == [
        "left alone AGENTS.md (exists)", "left alone journal/.gitkeep (exists)",
        "left alone queue/.gitkeep (exists)",
        "left alone Makefile (already includes icm's targets)",
        "left alone pyproject.toml (has [tool.icm])"]


def test_init_in_a_subfolder_makes_it_its_own_root(repo: Path, icm,
                                                 monkeypatch) -> None:
    """A newcomer's trial: init in services/api wrote no config, so every later
    run there checked the git top and missed the handbook init had made."""
    api = repo / "services/api"
    api.mkdir(parents=True)
    monkeypatch.chdir(api)
    top = os.path.realpath(repo)
    assert icm("init") == (0, (
        "created AGENTS.md\ncreated journal/.gitkeep\ncreated queue/.gitkeep\n"
        "created Makefile\n"
        f"created icm.toml (it makes this folder icm's root; without it icm run "
        f"here checks {top})\n"), "")
    assert (api / "icm.toml").read_text().startswith("# icm's settings.")
    assert icm("check-links") == (0, "links ok\n", "")
    assert icm("init")[1].splitlines() == [
        "left alone AGENTS.md (exists)", "left alone journal/.gitkeep (exists)",
        "left alone queue/.gitkeep (exists)",
        "left alone Makefile (already includes icm's targets)"]
    # At the top, or under a config of its own, nothing is added.
    icm("init", "--root", str(repo))
    assert not (repo / "icm.toml").exists()


def test_init_in_a_subfolder_adds_tool_icm_to_its_pyproject(repo: Path,
                                                            icm) -> None:
    api = repo / "services/api"
    write(api, {"pyproject.toml": "[project]\nname = 'api'\n"})
    code, out, err = icm("init", "--root", str(api))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == (
        "added [tool.icm] to pyproject.toml (it makes this folder icm's root; "
        f"without it icm run here checks {os.path.realpath(repo)})")
    assert not (api / "icm.toml").exists()
    from icm.context import find_root

    assert find_root(api / "journal") == api.resolve()


def test_init_keeps_existing_files(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "mine\n", "Makefile": "all:\n\techo hi\n"})
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out == ["left alone AGENTS.md (exists)", "created journal/.gitkeep",
                   "created queue/.gitkeep", "added icm's include line to Makefile"]
    assert (repo / "AGENTS.md").read_text() == "mine\n"
    assert (repo / "Makefile").read_text() == f"all:\n\techo hi\n\n{INCLUDE_LINE}\n"


def test_init_uses_a_lowercase_handbook_instead_of_adding_one(repo: Path,
                                                                icm) -> None:
    write(repo, {"agents.md": "# Ours\n\n- [a](a/context.md)\n",
                 "a/context.md": "x\n"})
    code, out, err = icm("init", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "using agents.md as the handbook (not creating AGENTS.md)",
        "created journal/.gitkeep", "created queue/.gitkeep", "created Makefile",
        "created icm.toml", ADOPTED]  # a/context.md: a tree with notes
    assert sorted(p.name for p in repo.glob("*.md")) == ["agents.md"]
    assert (repo / "icm.toml").read_text() == (
        "# icm's settings; every key is optional (icm's docs/configuration.md).\n"
        "# Set by icm init for what it found here:\n"
        'handbook = "agents.md"\n')
    assert icm("check-links", "--root", str(repo)) == (0, "links ok\n", "")


def test_init_puts_the_handbook_key_into_a_new_tool_icm_table(repo: Path,
                                                              icm) -> None:
    write(repo, {"CLAUDE.md": "# Ours\n", "pyproject.toml": "[project]\n"})
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[0] == "using CLAUDE.md as the handbook (not creating AGENTS.md)"
    assert out[-1] == "added [tool.icm] to pyproject.toml"
    assert (repo / "pyproject.toml").read_text() == (
        "[project]\n\n[tool.icm]\n"
        "# Every key is optional: one left out takes its default (icm's\n"
        "# docs/configuration.md). Two defaults, written out to be changed:\n"
        "budget = 1600\nexclude = []\n"
        "# Set by icm init for what it found here:\n"
        'handbook = "CLAUDE.md"\n')
    assert not (repo / "AGENTS.md").exists()


def test_init_with_a_config_leaves_the_handbook_choice_to_the_user(repo: Path,
                                                                   icm) -> None:
    write(repo, {"agents.md": "# Ours\n", "icm.toml": "budget = 900\n"})
    out = icm("init", "--root", str(repo))[1].splitlines()
    assert out[0] == ("left alone agents.md; not creating AGENTS.md beside it: "
                      'set handbook = "agents.md" in icm.toml')
    assert not (repo / "AGENTS.md").exists()
    assert (repo / "icm.toml").read_text() == "budget = 900\n"


def _make_env() -> dict:
    """PATH with the virtual environment's bin/ first, so icm resolves."""
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                f"{os.environ['PATH']}")


def _make(repo: Path, *args: str, env: Optional[dict] = None
          ) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=repo,
                          env=env or _make_env(), capture_output=True, text=True)


needs_make = pytest.mark.skipif(shutil.which("make") is None,
                                reason="make is not installed")


@needs_make
def test_init_prefixes_targets_when_the_makefile_has_its_own_check(repo: Path,
                                                                   icm) -> None:
    own = ".PHONY: check\ncheck bootmap:\n\t@echo project check\n"
    write(repo, {"Makefile": own})
    assert icm("init", "--root", str(repo))[1].splitlines()[-1] == (
        "added icm's include line to Makefile with ICM_PREFIX := icm- (it has its "
        "own bootmap, check): make icm-check")
    assert (repo / "Makefile").read_text() == (
        f"{own}\n# icm's targets are prefixed: the Makefile has its own bootmap.\n"
        f"ICM_PREFIX := icm-\n{INCLUDE_LINE}\n")
    result = _make(repo, "check")
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "project check\n", "")  # no "overriding recipe" warning
    result = _make(repo, "icm-check-queue")
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "queue ok (no base branch to compare with)\n", "")


def test_init_extends_the_makefile_make_reads(repo: Path, icm) -> None:
    write(repo, {"makefile": "check:\n\ttrue\n"})
    assert icm("init", "--root", str(repo))[1].splitlines()[-1] == (
        "added icm's include line to makefile with ICM_PREFIX := icm- (it has its "
        "own check): make icm-check")
    assert os.listdir(repo).count("Makefile") == 0
    assert (repo / "makefile").read_text().endswith(f"ICM_PREFIX := icm-\n"
                                                    f"{INCLUDE_LINE}\n")


@needs_make
def test_make_new_journal_and_new_queue_say_how_to_call_them(repo: Path) -> None:
    write(repo, {"Makefile": f"{INCLUDE_LINE}\n"})
    inc = ROOT / "templates" / "Makefile.inc"
    for target, usage in (("new-journal", "ITEM=07 (a queue number, slug or path)"),
                          ("new-queue", 'TITLE="Auto-detect the delimiter"'),
                          ("review", "NOTE=src/context.md")):
        result = _make(repo, target)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.endswith(f"*** usage: make {target} {usage}.  Stop.\n")
        assert result.stderr.startswith(f"{inc.resolve()}:")
    assert not (repo / "queue").exists()


@needs_make
def test_make_passes_titles_through_untouched(repo: Path) -> None:
    write(repo, {"Makefile": f"{INCLUDE_LINE}\n"})
    title = "Fix `make` for $HOME, it's \"quoted\" $(x)"
    result = _make(repo, "new-queue", f"TITLE={title}")
    assert (result.returncode, result.stdout) == (
        0, "queue/01_fix-make-for-home-it-s-quoted-x.md\n")
    text = (repo / "queue/01_fix-make-for-home-it-s-quoted-x.md").read_text()
    assert text.startswith(f"# {title}\n")


@needs_make
def test_include_line_says_icm_is_missing(repo: Path, tmp_path: Path) -> None:
    write(repo, {"Makefile": f"{INCLUDE_LINE}\n"})
    only_make = tmp_path / "bin"
    only_make.mkdir()
    os.symlink(str(shutil.which("make")), only_make / "make")
    result = _make(repo, "check", env=dict(os.environ, PATH=str(only_make)))
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", "Makefile:1: *** icm is not installed or not on PATH: pip install "
        "/path/to/icm.  Stop.\n")


# -- Makefile.inc --------------------------------------------------------------

def test_makefile_prints_installed_path(icm) -> None:
    code, out, _ = icm("makefile")
    path = Path(out.strip())
    assert code == 0 and path.is_absolute() and path.name == "Makefile.inc"
    assert path.read_bytes() == (ROOT / "Makefile.inc").read_bytes()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_targets_through_the_include_line(repo: Path) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ['PATH']}")
    write(repo, {"Makefile": "include $(shell icm makefile)\n",
                 "AGENTS.md": "# H\n",
                 "journal/2026-10-29_summary-line-to-stderr.md":
                     "## Decision\nx\n\n## Rejected alternative\ny\n"})

    def make(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["make", "--no-print-directory", *args], cwd=repo,
                              env=env, capture_output=True, text=True)

    result = make("check-journal")
    assert result.returncode == 2
    seed = ("journal/2026-10-29_summary-line-to-stderr.md: missing slot 'Invariant'\n"
            "journal/2026-10-29_summary-line-to-stderr.md: missing slot "
            "'Verify command'\n")
    assert result.stdout == seed
    assert result.stderr.startswith("make: *** [")
    assert result.stderr.rstrip().endswith("check-journal] Error 1")
    assert make("new-queue", "TITLE=Summary to stderr").stdout == \
        "queue/01_summary-to-stderr.md\n"
    assert make("check-queue").stdout == "queue ok (no base branch to compare with)\n"
    assert make("new-journal", "ITEM=01").stdout.startswith("journal/")
    assert "budget 7" in make("bootmap", "BUDGET=7").stdout
    assert make("check-links").stdout == "links ok\n"
    assert make("check-stale").returncode == 0
    assert make("check-positions").stdout == "positions ok\n"
    write(repo, {"icm.toml": 'positions_file = "journal/POSITIONS.md"\n'})
    assert make("positions").stdout == "created journal/POSITIONS.md\n"
    write(repo, {"my notes/context.md": "# Mine\n"})
    assert make("review", "NOTE=my notes/context.md").stdout.startswith(
        "my notes/context.md: reviewed ")


# -- ecosystem -----------------------------------------------------------------

def test_pre_commit_manifest_is_valid_and_names_real_commands() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    from icm.cli import app

    hooks = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    commands = {c.name for c in app.registered_commands}
    ids = set()
    for hook in hooks:
        ids.add(hook["id"])
        program, command = hook["entry"].split()
        assert program == "icm" and command in commands
        assert hook["pass_filenames"] is False
    from icm import registry

    assert ids == {"icm-check", "icm-verify",
                   *(f"icm-{spec.command}" for spec in registry.ALL)}


def test_makefile_has_a_target_per_check() -> None:
    """Make targets existed for 7 of 9 checks: the include is held to the
    registry, each target running ``icm check NAME``."""
    from icm import registry

    text = (ROOT / "templates" / "Makefile.inc").read_text()
    for spec in registry.ALL:
        assert f"$(ICM_PREFIX){spec.command}:\n\t@$(ICM) check {spec.name} " \
            "$(ICM_FLAGS)" in text, spec.command


def test_action_checks_out_full_history_and_runs_each_format(repo: Path) -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "").partition("@")[0] for s in steps]
    assert steps[uses.index("actions/checkout")]["with"]["fetch-depth"] == 0
    assert action["inputs"]["format"]["default"] == "github"
    (step,) = [s for s in steps if s.get("name") == "icm check"]
    # icm's cache is restored before the check and saved after it, findings
    # or not, under one key and path (where context.build puts the cache)
    restore = steps[uses.index("actions/cache/restore")]
    save = steps[uses.index("actions/cache/save")]
    assert uses.index("actions/cache/restore") < steps.index(step) \
        < uses.index("actions/cache/save")
    assert save["if"].startswith("always() && ")
    assert restore["with"]["path"] == save["with"]["path"] == ".git/icm"
    assert restore["with"]["key"] == save["with"]["key"]
    from icm import config, context
    cache_dir = context.build(repo, config.load(repo)).cache_dir
    assert cache_dir is not None
    assert cache_dir.resolve() == (repo / ".git" / "icm").resolve()
    guide = (ROOT / "docs" / "integrations.md").read_text()
    for name in action["inputs"]:
        assert f"{name}: " in guide.split("```yaml", 1)[1]
    write(repo, {"AGENTS.md": "# H\n[x](gone.md)\n"})
    # the venv the install step makes: this one (tests/test_action.py
    # runs the install itself)
    env = dict(os.environ, ICM_VENV=sys.prefix, GITHUB_WORKSPACE=str(repo),
               ICM_ROOT=str(repo), ICM_ARGS="--strict -q",
               ICM_SARIF=str(repo.parent / "out.sarif"))

    def run(fmt: str, args: str = "--strict -q") -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", step["run"]], cwd=repo, text=True,
                              env=dict(env, ICM_FORMAT=fmt, ICM_ARGS=args),
                              capture_output=True)

    # args are split into words but never globbed
    assert run("text", "*").stderr == (
        "icm: unknown check '*' (checks: journal, links, stale, bootmap, queue, "
        "dupes, handoff, agents, positions)\n")

    github = run("github")
    assert github.returncode == 1
    assert github.stdout.startswith("::error file=AGENTS.md,line=2,title=icm "
                                    "links/missing-file::")
    sarif = run("sarif")
    assert (sarif.returncode, sarif.stdout) == (1, "")
    doc = json.loads((repo.parent / "out.sarif").read_text())
    assert doc["runs"][0]["results"][0]["ruleId"] == "links/missing-file"



# -- all_or_nothing: a failure at any step changes nothing -----------------------

_STEPS = st.lists(st.tuples(st.sampled_from(["create", "sub", "replace", "remove"]),
                            st.integers(0, 3)),
                  min_size=1, max_size=5, unique_by=lambda op: op[1])


def _tree_of(root: Path) -> dict:
    found = {}
    for top, _dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        found[rel + "/"] = b""
        found.update({os.path.normpath(os.path.join(rel, n)):
                      Path(top, n).read_bytes() for n in files})
    return found


@settings(max_examples=60, deadline=None)
@given(steps=_STEPS, fail_at=st.integers(0, 40))
def test_changes_failing_at_any_step_change_nothing(steps, fail_at: int) -> None:
    """Whatever the changes and wherever one system call fails (a temporary
    file's sync, a link, a rename, the put-back's first try aside), the
    tree is as it began, or, when nothing failed, as the changes make it."""
    import errno
    import tempfile
    from unittest import mock

    from icm import config, context
    from icm.workflow.files import all_or_nothing

    root = Path(tempfile.mkdtemp())
    try:
        for kind, i in steps:
            if kind in ("replace", "remove"):
                (root / f"f{i}").write_bytes(b"old %d" % i)
        start = _tree_of(root)
        done = dict(start)
        for kind, i in steps:
            rel = f"sub/f{i}" if kind == "sub" else f"f{i}"
            if kind == "remove":
                del done[rel]
            else:
                done[rel] = b"new %d" % i
            if kind == "sub":
                done["sub/"] = b""
        calls = [0]

        def failing(real):
            def call(*args, **kwargs):
                calls[0] += 1
                if calls[0] == fail_at:
                    raise OSError(errno.EIO, "Input/output error")
                return real(*args, **kwargs)
            return call

        ctx = context.build(root, config.load(root))
        with mock.patch.object(os, "fsync", failing(os.fsync)), \
                mock.patch.object(os, "link", failing(os.link)), \
                mock.patch.object(os, "replace", failing(os.replace)):
            try:
                with all_or_nothing(ctx) as changes:
                    for kind, i in steps:
                        if kind == "sub":
                            changes.folder("sub")
                            changes.create(f"sub/f{i}", b"new %d" % i)
                        elif kind == "create":
                            changes.create(f"f{i}", b"new %d" % i)
                        elif kind == "replace":
                            changes.replace(f"f{i}", b"new %d" % i)
                        else:
                            changes.remove(f"f{i}")
                failed = False
            except UsageError as exc:
                failed = True
                assert "Input/output error" in str(exc)
        assert _tree_of(root) == (start if failed else done)
    finally:
        shutil.rmtree(root)
