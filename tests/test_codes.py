"""Rule codes as editors and users meet them: ``--format concise`` for every
check, ``--select``/``--ignore`` on the command line and in the config,
``icm explain`` for every code, the problem matcher in docs/integrations.md
against real concise output, and every check's ok line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from icm import registry
from icm.model.handoff import FIELDS
from tests.conftest import commit, git, write

ROOT = Path(__file__).resolve().parent.parent
D1 = "2026-11-01T12:00:00+00:00"
D2 = "2026-11-05T12:00:00+00:00"
RULE = "Every reader of a file stops at 1 MiB and reports the rest as skipped."


def _every_check_fails(repo: Path) -> None:
    """One repository with each check's common codes."""
    record = "# h\n\n" + "".join(f"## {name}\nx\n\n" for name in FIELDS[:-1])
    commit(repo, {
        "icm.toml": "budget = 40\npositions_file = \"journal/POSITIONS.md\"\n",
        "AGENTS.md": "# H\n\n[x](missing.md) and [a](AGENTS.md#nowhere)\n\n"
                     f"- [s](src/context.md)\n\n{RULE}\n",
        "src/context.md": f"# src\n\n{RULE}\n", "src/a.py": "1\n",
        "docs/context.md": "# docs\n",
        "journal/2026-01-01_entry.md": "# E\n\n## Decision\nx\n",
        "queue/07_a.md": "a\n", "queue/07_b.md": "b\n", "queue/todo.md": "c\n",
        "handoff/2026-01-01_main.md": record,
        "Agents/s/AGENT.md": "# a\n"}, D1)
    commit(repo, {"src/a.py": "2\n"}, D2)


CONCISE = """\
journal/2026-01-01_entry.md:1:1: journal/missing-slot missing slot 'Rejected \
alternative'
journal/2026-01-01_entry.md:1:1: journal/missing-slot missing slot 'Invariant'
journal/2026-01-01_entry.md:1:1: journal/missing-slot missing slot 'Verify command'
AGENTS.md:3:1: links/missing-file broken link: AGENTS.md -> missing.md
AGENTS.md:3:1: links/missing-anchor broken link: AGENTS.md -> AGENTS.md#nowhere \
(no heading or anchor #nowhere)
docs/context.md:1:1: links/unindexed-note note missing from handbook index: \
docs/context.md
src/context.md:1:1: stale/stale STALE - code in src moved 4 days after the note
AGENTS.md:1:1: bootmap/over-budget cold-boot set over budget by 15 tokens; \
largest file: AGENTS.md (143 bytes)
queue/07_a.md:1:1: queue/duplicate-number queue: number 07 is used twice: \
queue/07_a.md, queue/07_b.md
queue/todo.md:1:1: queue/bad-name name does not match NN_slug.md
src/context.md:3:1: dupes/duplicate-rule duplicate rule: src/context.md:3 repeats \
AGENTS.md:7 (keep one home, link to it)
handoff/2026-01-01_main.md:1:1: handoff/missing-field missing field 'Size'
handoff/2026-01-01_main.md:1:1: handoff/no-marker no 'icm:handoff' marker naming \
the commit it was made at
Agents/s/AGENT.md:1:1: agents/no-policy no Link Policy: it must send the reader to \
POSITIONS.md first
Agents/s/ASSETS.md:1:1: agents/missing-file missing (optional)
Agents/s/CHATS.md:1:1: agents/missing-file missing (optional)
Agents/s/POSITIONS.md:1:1: agents/missing-file missing
Agents/s/PROGRESSION.md:1:1: agents/missing-file missing (optional)
Agents/s/TOOLS.md:1:1: agents/missing-file missing (optional)
journal/POSITIONS.md:1:1: positions/positions-missing positions file is missing \
(run: icm positions --write)
"""
SUMMARY = ("icm check: 8 of 9 checks failed (journal: 3 errors, links: 3 errors, "
           "stale: 1 error, bootmap: 1 error, queue: 2 errors, dupes: 1 warning, "
           "handoff: 2 errors, agents: 2 errors and 4 warnings, positions: 1 "
           "error)\n")


def test_concise_is_one_line_per_finding_for_every_check(repo: Path, icm) -> None:
    _every_check_fails(repo)
    assert icm("check", "--root", str(repo), "--format", "concise") == (
        1, CONCISE + SUMMARY, "")
    checks = {line.split(": ", 1)[1].split("/")[0] for line in CONCISE.splitlines()}
    assert checks == set(registry.NAMES)
    # Each alias prints its own lines, no summary; text stays the seed's.
    assert icm("check-queue", "--root", str(repo), "--format", "concise") == (1, (
        "queue/07_a.md:1:1: queue/duplicate-number queue: number 07 is used "
        "twice: queue/07_a.md, queue/07_b.md\n"
        "queue/todo.md:1:1: queue/bad-name name does not match NN_slug.md\n"), "")
    assert icm("check-links", "--root", str(repo))[1] == (
        "broken link: AGENTS.md -> missing.md\n"
        "broken link: AGENTS.md -> AGENTS.md#nowhere (no heading or anchor "
        "#nowhere)\nnote missing from handbook index: docs/context.md\n"
        "links: 3 problems (missing file 1, missing anchor 1, unindexed note 1)\n")


def _matcher() -> "re.Pattern[str]":
    text = (ROOT / "docs" / "integrations.md").read_text()
    block = re.search(r"```json\n(.*?)```", text.split("## Editors", 1)[1], re.S)
    assert block
    task = json.loads(block.group(1))["tasks"][0]
    assert task["command"] == "icm check --format concise"
    pattern = task["problemMatcher"]["pattern"]
    assert [pattern[k] for k in ("file", "line", "column", "code", "message")] \
        == [1, 2, 3, 4, 5]
    return re.compile(pattern["regexp"])


def test_the_documented_problem_matcher_reads_real_concise_output(
        repo: Path, icm) -> None:
    """Every finding the json holds, matched from its concise line by the
    docs' own regex; a colon and spaces in a path do not split it wrong."""
    _every_check_fails(repo)
    commit(repo, {"my docs/a:1:2: b.md": "[z](gone.md#x)\n"}, D2)
    matcher = _matcher()
    _code, out, _ = icm("check", "--root", str(repo), "--format", "concise")
    *lines, summary = out.splitlines()
    assert not matcher.match(summary)
    got = [matcher.match(line).groups() for line in lines]  # type: ignore[union-attr]
    doc = json.loads(icm("check", "--root", str(repo), "--format", "json")[1])
    want = [(f["path"], str(f["line"] or 1), str(f["col"] or 1),
             f"{f['check']}/{f['code']}", f["message"])
            for c in doc["checks"] for f in c["findings"] if f["severity"] != "info"]
    assert got == want and ("my docs/a:1:2: b.md", "1", "1", "links/missing-file",
                            "broken link: my docs/a:1:2: b.md -> gone.md#x") in got


def test_select_and_ignore_on_the_command_line(repo: Path, icm) -> None:
    _every_check_fails(repo)
    root = ("--root", str(repo), "--format", "concise")
    assert icm("check", *root, "--select", "links/missing-anchor") == (1, (
        "AGENTS.md:3:1: links/missing-anchor broken link: AGENTS.md -> "
        "AGENTS.md#nowhere (no heading or anchor #nowhere)\n"
        "icm check: 1 of 1 check failed (links: 1 error)\n"), "")
    code, out, _ = icm("check", *root, "--select", "queue,stale")
    assert out.endswith("icm check: 2 of 2 checks failed (stale: 1 error, queue: "
                        "2 errors)\n")
    code, out, _ = icm("check", *root, "--select", "queue", "--ignore",
                       "queue/bad-name")
    assert out.endswith("icm check: 1 of 1 check failed (queue: 1 error)\n")
    code, out, _ = icm("check", *root, "--ignore", "journal", "--ignore", "links",
                       "--ignore", "stale", "--ignore", "bootmap", "--ignore",
                       "queue", "--ignore", "handoff", "--ignore", "agents",
                       "--ignore", "positions")
    assert (code, out.splitlines()[-1]) == (
        0, "icm check: 1 check passed (dupes: 1 warning)")
    # The ok line and counts follow what is shown.
    text = ("--root", str(repo))
    assert icm("check-links", *text, "--ignore", "links/unindexed-note",
               "--ignore", "links/missing-anchor") == (1, (
                   "broken link: AGENTS.md -> missing.md\n"
                   "links: 1 problem (missing file 1)\n"), "")
    assert icm("check-links", *text, "--select", "links/unindexed-note",
               "--ignore", "links/unindexed-note") == (
        2, "", "icm: no code left to report: select and ignore (the config's, "
        "--select, --ignore) leave out every code of links\n")
    assert icm("check-queue", *text, "--ignore", "queue/bad-name,"
               "queue/duplicate-number") == (
                   0, "queue ok (no base branch to compare with)\n", "")


@pytest.mark.parametrize("args,said", [
    (("--select", "linkz"), "--select: no check or code 'linkz' (did you mean "
     "'links'?)"),
    (("--ignore", "links/"), "--ignore: no check or code 'links/' (a check (links) "
     "or CHECK/CODE (links/missing-anchor); checks: journal, links, stale, "
     "bootmap, queue, dupes, handoff, agents, positions)"),
    (("--select", "links/missing-anchr"), "no code 'links/missing-anchr' (did you "
     "mean 'links/missing-anchor'?)"),
])
def test_an_unknown_code_is_one_line(repo: Path, icm, args, said) -> None:
    commit(repo, {"AGENTS.md": "# H\n"}, D1)
    assert icm("check", "--root", str(repo), *args) == (2, "", f"icm: {said}\n")


def test_select_and_ignore_in_the_config_and_the_layers(repo: Path, icm) -> None:
    _every_check_fails(repo)
    root = ("--root", str(repo), "--format", "concise")
    with open(repo / "icm.toml", "a") as fh:
        fh.write('select = ["links"]\nignore = ["links/missing-file", '
                 '"links/unindexed-note"]\n')
    only = ("AGENTS.md:3:1: links/missing-anchor broken link: AGENTS.md -> "
            "AGENTS.md#nowhere (no heading or anchor #nowhere)\n")
    assert icm("check", *root) == (
        1, only + "icm check: 1 of 1 check failed (links: 1 error)\n", "")
    # --select starts again: the config's ignore is the config's layer.
    code, out, _ = icm("check", *root, "--select", "links/missing-file")
    assert out.splitlines()[0].endswith("broken link: AGENTS.md -> missing.md")
    # --ignore takes away from what the config chose.
    assert icm("check", *root, "--ignore", "links") == (
        2, "", "icm: no code left to report: select and ignore (the config's, "
        "--select, --ignore) leave out every code of journal, links, stale, "
        "bootmap, queue, dupes, handoff, agents, positions\n")
    (repo / "icm.toml").write_text("select = ['linkz']\n")
    assert icm("check", *root) == (2, "", "icm: icm.toml: key 'select': no check "
                                   "or code 'linkz' (did you mean 'links'?)\n")
    (repo / "icm.toml").write_text("ignore = 'links'\n")
    assert icm("check", *root) == (2, "", "icm: icm.toml: key 'ignore' must be a "
                                   "list of strings, got a string ('links')\n")


def _codes():
    from icm.cli import _rules_of

    for check in (*registry.NAMES, "verify", "baseline"):
        for code, rule in _rules_of(check).RULES:
            yield check, code, rule


@pytest.mark.parametrize("check,code,rule", list(_codes()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_explain_says_every_code(icm, check: str, code: str, rule) -> None:
    code_, out, err = icm("explain", f"{check}/{code}")
    lines = out.splitlines()
    assert (code_, err) == (0, "")
    assert lines[0] == f"{check}/{code} ({rule.severity.value}): {rule.summary}"
    assert rule.summary and lines[1].startswith("why: ") and len(lines[1]) > 40
    (silence,) = [line for line in lines if line.startswith("silence: ")]
    if check in registry.NAMES:
        form = "ignore-file" if rule.whole_file else "ignore"
        assert f"<!-- icm: {form} {check}/{code} -->" in silence
    assert lines[-1].startswith("docs: docs/")
    assert (ROOT / lines[-1][6:].split("#")[0]).is_file()


def test_a_whole_file_finding_is_explained_as_ignore_file(repo: Path, icm) -> None:
    """A STALE note names no line, so ``ignore`` on its first line silences
    nothing and ``icm explain`` offers ``ignore-file`` (the docs' audit);
    a rule with lines keeps the line form."""
    assert "silence: <!-- icm: ignore-file stale/stale --> anywhere in the file " \
        "(its findings name no line); " in icm("explain", "stale/stale")[1]
    assert "silence: <!-- icm: ignore links/missing-file --> alone on the line " \
        "before, or ending the line" in icm("explain", "links/missing-file")[1]
    stale = "src/context.md: STALE - code in src moved 4 days after the note\n"
    commit(repo, {"src/context.md": "<!-- icm: ignore stale/stale -->\n# src\n",
                  "src/a.py": "1"}, D1)
    commit(repo, {"src/a.py": "2"}, D2)
    assert icm("check-stale", "--root", str(repo)) == (1, stale, "")
    commit(repo, {"src/context.md": "<!-- icm: ignore-file stale/stale -->\n# src\n"},
           D2)
    commit(repo, {"src/a.py": "3"}, "2026-11-09T12:00:00+00:00")
    assert icm("check-stale", "--root", str(repo)) == (0, "", "")


def test_a_whole_file_rule_takes_no_line() -> None:
    from icm.checks.stale import RULES

    with pytest.raises(ValueError, match="names a whole file"):
        RULES("stale", "src/context.md", "STALE", line=3)


def test_explain_finds_a_code_alone_a_check_and_near_misses(icm) -> None:
    assert icm("explain", "missing-anchor") == icm("explain",
                                                   "links/missing-anchor")
    code, out, _ = icm("explain", "queue")
    assert code == 0 and out.splitlines()[0].startswith("queue/bad-name (error): ")
    assert out.endswith("icm explain queue/CODE says more about one\n")
    assert icm("explain", "missing-anchr") == (
        2, "", "icm: no rule code 'missing-anchr' (did you mean "
        "'links/missing-anchor'?); icm explain CHECK lists a check's codes\n")


def test_sarif_rules_carry_the_explained_text(repo: Path, icm) -> None:
    _every_check_fails(repo)
    doc = json.loads(icm("check", "--root", str(repo), "--format", "sarif")[1])
    for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
        said = icm("explain", rule["id"])[1].rstrip("\n")
        assert rule["help"]["text"] == said
        assert rule["fullDescription"]["text"] == said.split("): ", 1)[1] \
            .split("\n")[0]


def test_every_check_says_ok_or_what_it_had_to_look_at(repo: Path, icm) -> None:
    git(repo, "config", "user.name", "t")
    git(repo, "config", "user.email", "t@example.com")
    root = ("--root", str(repo))
    assert icm("init", *root)[0] == 0
    assert icm("check-handoff", *root) == (
        0, "handoff: no records in handoff yet (handoff_dir)\n", "")
    assert icm("check-agents", *root) == (
        0, "agents: no exported sessions in Agents/* (agents_dirs)\n", "")
    assert icm("init", "--agents", "s", *root)[0] == 0
    commit(repo, {}, D1)
    assert icm("handoff", *root, "--reason", "r", "--question", "q")[0] == 0
    write(repo, {"src/context.md": "# src\n", "src/a.py": "1\n"})
    assert icm("check-links", *root, "--fix")[0] == 0
    commit(repo, {}, D2)
    code, out, _ = icm("check", *root)
    assert (code, [line for line in out.splitlines() if " ok" in line]) == (0, [
        "journal ok", "links ok", "src/context.md: ok",
        "queue ok (no base branch to compare with)", "dupes ok", "handoff ok",
        "agents ok", "positions ok"]), out
