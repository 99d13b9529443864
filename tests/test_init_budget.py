"""``icm init`` on a repository whose cold-boot set is already over the
default budget (issue 24's trial: all three with notes were): it writes
``budget`` at today's size, rounded up to ``BUDGET_STEP``, so the first run
passes and the set cannot grow; a new repository keeps the default. Whole
outputs on real repositories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from icm.config import Config, validate
from icm.workflow import init as init_mod
from icm.workflow.files import template
from tests.conftest import commit, git, write

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

D1 = "2026-10-01T12:00:00+00:00"
PYPROJECT = "[project]\nname = 'shop'\n"
SET_BY_INIT = "# Set by icm init for what it found here:\n"
# 8,000 bytes of handbook: about 2,000 tokens with the note beside it
RULE = "Every rule of the shop is kept here, in words. "
HANDBOOK = "# Shop\n\n" + RULE * 170 + "\n"
ADOPTED = {"AGENTS.md": HANDBOOK, "api/AGENTS.md": "# api\n\nHandlers stay thin.\n",
           "api/app.py": "app = 1\n", "pyproject.toml": PYPROJECT}


def tokens(icm, repo: Path) -> dict:
    code, out, _ = icm("bootmap", "--root", str(repo), "--format", "json")
    return json.loads(out)["checks"][0]["data"]


def test_init_holds_an_adopted_boot_set_where_it_stands(repo: Path, icm) -> None:
    commit(repo, ADOPTED, D1)
    size = len(HANDBOOK) + len(ADOPTED["api/AGENTS.md"])
    assert size // 4 == 2006
    assert icm("init", "--root", str(repo)) == (0, (
        "left alone AGENTS.md (exists)\n"
        'note_name = ["AGENTS.md"]: 1 nested AGENTS.md found\n'
        'index = "off": AGENTS.md is loaded from the folder an agent works in, '
        "not from the handbook's index\n"
        "budget = 2100: the cold-boot set is about 2006 tokens today, over the "
        "1600 a new repository starts with; held there (rounded up to a "
        "hundred), so it cannot grow past that (lower it as the handbook "
        "shrinks)\n"
        "created journal/.gitkeep\ncreated queue/.gitkeep\ncreated Makefile\n"
        "added [tool.icm] to pyproject.toml\n" + init_mod.ADOPTED + "\n"), "")
    assert (repo / "pyproject.toml").read_text() == PYPROJECT + (
        "\n[tool.icm]\n"
        "# Every key is optional: one left out takes its default (icm's\n"
        "# docs/configuration.md). One default, written out to be changed:\n"
        "exclude = []\n" + SET_BY_INIT +
        'note_name = ["AGENTS.md"]\nindex = "off"\nbudget = 2100\n')
    git(repo, "add", "-A")
    code, out, _ = icm("check", "--root", str(repo))
    assert (code, out.splitlines()[-1]) == (0, "icm check: all 9 checks passed")
    assert "cold-boot set: 8026 bytes, about 2006 tokens (budget 2100)\n" in out


def test_the_held_budget_is_a_ratchet(repo: Path, icm) -> None:
    """A wording fix of the same size passes; a new section fails."""
    commit(repo, ADOPTED, D1)
    icm("init", "--root", str(repo))
    write(repo, {"AGENTS.md": HANDBOOK.replace("kept", "held")})
    assert icm("bootmap", "--root", str(repo))[0] == 0
    write(repo, {"AGENTS.md": HANDBOOK + "\n## Releases\n\n" + RULE * 8})
    code, out, _ = icm("bootmap", "--root", str(repo))
    assert code == 1 and out.splitlines()[-1] == (
        "cold-boot set over budget by 4 tokens; largest file: AGENTS.md "
        "(8389 bytes)")


def test_a_new_repository_keeps_the_default(repo: Path, icm) -> None:
    commit(repo, {"pyproject.toml": PYPROJECT}, D1)
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and "budget" not in out
    text = (repo / "pyproject.toml").read_text()
    assert "Two defaults, written out to be changed:\nbudget = 1600\n" in text
    assert tomllib.loads(text)["tool"]["icm"]["budget"] == Config.budget


def test_a_boot_set_under_the_default_is_not_pinned(repo: Path, icm) -> None:
    commit(repo, {**ADOPTED, "AGENTS.md": "# Shop\n\nRules.\n"}, D1)
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and "budget" not in out
    assert "budget = 1600\n" in (repo / "pyproject.toml").read_text()


def test_a_handbook_init_creates_is_counted(repo: Path, icm) -> None:
    """No handbook yet, a large nested note: init's template is in the set
    it measures, so the budget it writes holds the first check."""
    note = "# api\n\n" + RULE * 150 + "\n"
    commit(repo, {"api/CLAUDE.md": note, "api/app.py": "1\n"}, D1)
    code, out, _ = icm("init", "--root", str(repo))
    expected = (len(note) + len(template("AGENTS.md").encode())) // 4
    step = init_mod.BUDGET_STEP
    budget = -(-expected // step) * step
    assert code == 0 and f"budget = {budget}: the cold-boot set is about " \
        f"{expected} tokens today" in out
    git(repo, "add", "-A")
    data = tokens(icm, repo)
    assert (data["tokens"], data["budget"]) == (expected, budget)


def test_an_existing_config_is_told_not_edited(repo: Path, icm) -> None:
    commit(repo, {**ADOPTED, "icm.toml": 'note_name = ["AGENTS.md"]\n'
                  'index = "off"\n'}, D1)
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and (
        "not setting budget = 2100 (the cold-boot set is about 2006 tokens "
        "today, over the 1600 a new repository starts with; held there "
        "(rounded up to a hundred), so it cannot grow past that (lower it as "
        "the handbook shrinks)): set it in icm.toml\n") in out
    assert (repo / "icm.toml").read_text() == 'note_name = ["AGENTS.md"]\n' \
        'index = "off"\n'
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md"]\nbudget = 9000\n'})
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and "budget" not in out


def test_the_budget_goes_to_icm_toml_beside_a_root_note(repo: Path, icm) -> None:
    """Where a note speaks for pyproject.toml init writes icm.toml, the
    budget with the other keys it chose."""
    commit(repo, {**ADOPTED, "context.md": "# root\n", "web/context.md": "# web\n",
                  "web/app.js": "1\n"}, D1)
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0
    table = tomllib.loads((repo / "icm.toml").read_text())
    assert table["budget"] == 2100
    git(repo, "add", "-A")
    assert icm("bootmap", "--root", str(repo))[0] == 0


def test_init_comments_stay_true_with_a_held_budget(repo: Path, icm) -> None:
    """Every key under the defaults' comment is its default; every key under
    init's own differs from it (the budget moved there)."""
    commit(repo, ADOPTED, D1)
    icm("init", "--root", str(repo))
    text = (repo / "pyproject.toml").read_text()
    defaults, _, chosen = text.partition(SET_BY_INIT)
    table = tomllib.loads(text)["tool"]["icm"]
    default_keys = tomllib.loads(defaults)["tool"]["icm"]
    chosen_keys = tomllib.loads(chosen)
    assert set(default_keys) | set(chosen_keys) == set(table)
    assert "budget" in chosen_keys and "budget" not in default_keys
    cfg = validate(table, "pyproject.toml", "[tool.icm]")
    for key in default_keys:
        assert getattr(cfg, key) == getattr(Config(), key), key
    for key in chosen_keys:
        assert getattr(cfg, key) != getattr(Config(), key), key
