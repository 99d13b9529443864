"""Nothing from the repository shapes CI output (issue 10, items 6 and 15):
every byte of repository text that reaches ``--format github`` is escaped,
head and tail lines included; names that are not UTF-8 are printed escaped
in every format, and the JSON document is always whole."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

from icm import escape, report
from tests.conftest import SLOTS_OK, write

HOSTILE = [
    "x\n::error file=a.md::pwned",
    "::stop-commands::tok",
    "  ::warning::indented",
    "##[error]old syntax",
    "pct%0A%25",
    "cr\rname",
    "co:lon,comma",
]

_COMMAND = re.compile(r"::(error|warning) (file=[^:,]*)(,line=\d+)?,"
                      r"(title=[^:,]*)::(.*)\Z")


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")]
                                                if prop else [])
    for code, char in pairs + [("%25", "%")]:
        text = text.replace(code, char)
    return text


def _hostile_repo(repo: Path) -> None:
    files: Dict[str, str] = {"AGENTS.md": "# H\n"}
    for name in HOSTILE:
        files[f"{name}/context.md"] = f"# {name}\n\n[gone](gone{name}.md)\n"
    write(repo, files)


def test_github_format_escapes_every_position(repo: Path, icm) -> None:
    _hostile_repo(repo)
    code, out, err = icm("check", "--root", str(repo), "--format", "github")
    assert code == 1 and "\r" not in out
    _, doc_text, _ = icm("check", "--root", str(repo), "--format", "json")
    doc = json.loads(doc_text)
    expected = [f for check in doc["checks"] for f in check["findings"]
                if f["severity"] != "info"]
    commands: List[re.Match[str]] = []
    for line in out.split("\n")[:-1]:
        body = line.lstrip()
        if body.startswith("::"):
            m = _COMMAND.match(line)
            assert m is not None, line  # only icm's own, well-formed commands
            commands.append(m)
        else:
            assert not body.startswith("##"), line
    assert len(commands) == len(expected) > len(HOSTILE)
    for m, finding in zip(commands, expected):
        assert _unescape(m.group(2)[len("file="):], True) == finding["path"]
        fix = f" (fix: {finding['fix']})" if finding["fix"] else ""
        assert _unescape(m.group(5), False) == finding["text"] + fix
    # the bootmap head lines name every hostile folder, escaped
    heads = [line for line in out.split("\n") if " words  " in line]
    for name in HOSTILE:
        note = report.github_data(f"{name}/context.md")
        assert any(re.fullmatch(rf" *\d+ words  {re.escape(note)}", line)
                   for line in heads), name


def test_fix_lines_and_errors_are_escaped_for_github(repo: Path, icm) -> None:
    _hostile_repo(repo)
    code, _, err = icm("check-links", "--fix", "--root", str(repo), "--format",
                       "github")
    assert code == 1 and "Traceback" not in err
    assert "\r" not in err
    for line in err.split("\n"):
        assert not line.lstrip().startswith(("::", "##")), line
    write(repo, {"icm.toml": 'handbook = "no\\n::error::x.md"\n'})
    code, _, err = icm("check-links", "--fix", "--root", str(repo), "--format",
                       "github")
    assert (code, err) == (2, "icm: icm.toml: key 'handbook' must hold no "
                              "control character, got 'no\\n::error::x.md'\n")


def test_github_line_and_data_escaping() -> None:
    assert report.github_line(" ::error::x") == " %3A:error::x"
    assert report.github_line("##[group]x") == "%23#[group]x"
    assert report.github_line("a\nb\r%") == "a%0Ab%0D%25"
    assert report.github_line("\x1b[31m") == "%1B[31m"
    assert report.github_property("a:b,c") == "a%3Ab%2Cc"
    assert report.github_data("a:b,c\n") == "a:b,c%0A"
    # what the runner leaves to the display: shown as text shows it
    assert report.github_data("a\u202eb\x85c\u2028d\u2066") == \
        "a\\u202eb\\x85c\\u2028d\\u2066"
    assert report.github_property("x\u202e.md") == "x\\u202e.md"


def test_json_is_one_document_whatever_the_names(repo: Path, icm) -> None:
    _hostile_repo(repo)
    code, out, _ = icm("check", "--root", str(repo), "--format", "json")
    doc = json.loads(out)
    paths = {f["path"] for c in doc["checks"] for f in c["findings"]}
    assert {f"{name}/context.md" for name in HOSTILE} <= paths


BAD = os.fsdecode(b"bad\xff")


def _run(root: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONIOENCODING", "PYTHONUTF8") and not k.startswith("LC_")}
    env["LC_ALL"] = "C.UTF-8"  # a real UTF-8 locale: stdout encodes strictly
    return subprocess.run([sys.executable, "-m", "icm", "check", "--root", str(root),
                           "--format", fmt], env=env, capture_output=True,
                          encoding="utf-8", errors="strict")


def test_undecodable_names_are_escaped_in_every_format(repo: Path) -> None:
    write(repo, {"AGENTS.md": "# H\n", f"{BAD}/context.md": "[a](gone.md)\n"})
    text = _run(repo, "text")
    assert "Traceback" not in text.stderr and text.returncode == 1
    assert "broken link: bad\\xff/context.md -> gone.md\n" in text.stdout
    assert "   1 words  bad\\xff/context.md\n" in text.stdout
    doc = _run(repo, "json")
    assert doc.returncode == 1 and doc.stderr == ""
    paths = {f["path"] for c in json.loads(doc.stdout)["checks"]
             for f in c["findings"]}
    assert "bad\\xff/context.md" in paths
    github = _run(repo, "github")
    assert github.returncode == 1 and github.stderr == ""
    assert "::error file=bad\\xff/context.md,line=1,title=icm links/missing-file::" \
        in github.stdout


def test_printable() -> None:
    assert report.printable("ok") == "ok"
    assert report.printable(BAD) == "bad\\xff"
    assert report.plain({BAD: [BAD, 1]}) == {"bad\\xff": ["bad\\xff", 1]}
    assert report.one_line(f"a\nb\t{BAD}") == "a\\nb\\tbad\\xff"


# -- the text format (the default) ---------------------------------------------

# A newline, a forged workflow command, ESC, CR, a C1 control (NEL), a line
# separator, a bidi override, DEL; the tab is harmless and kept.
TEXT_HOSTILE = "x\n::error title=pwned::forged\x1b[2J\r\x85\u2028\u202e\x7f\tt"
SHOWN = "x\\n::error title=pwned::forged\\x1b[2J\\r\\x85\\u2028\\u202e\\x7f\tt"
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069]")


def _inert_text(out: str) -> None:
    for line in out.split("\n"):
        assert not _UNSAFE.search(line), repr(line)
        assert not line.lstrip().startswith(("::", "##[")), line


def test_text_format_escapes_every_repository_name(repo: Path, icm) -> None:
    fields = "".join(f"## {name}\nx\n\n" for name in (
        "Reason", "Open question", "Identity and state", "Confirmed facts",
        "Actions taken", "Negative results", "Open work", "Verbatim tail",
        "Where the rest lives", "Size"))
    write(repo, {"AGENTS.md": "# H\n", f"queue/07_{TEXT_HOSTILE}.md": "# q\n",
                 f"journal/2026-01-01_{TEXT_HOSTILE}.md": SLOTS_OK,
                 f"handoff/2026-01-01_{TEXT_HOSTILE}.md": f"# h\n\n{fields}",
                 f"Agents/{TEXT_HOSTILE}/AGENT.md": "# a\n",
                 f"::warning::{TEXT_HOSTILE}/context.md": "# n\n"})
    assert icm("check-queue", "--root", str(repo)) == (
        1, f"queue/07_{SHOWN}.md: name does not match NN_slug.md\n"
           "queue: 1 problem (no base branch to compare with)\n", "")
    assert icm("check-journal", "--root", str(repo)) == (
        1, f"journal/2026-01-01_{SHOWN}.md: name does not match "
           "YYYY-MM-DD_slug.md\n", "")
    assert icm("check-handoff", "--root", str(repo)) == (
        1, f"handoff/2026-01-01_{SHOWN}.md: no 'icm:handoff' marker naming the "
           "commit it was made at\n", "")
    assert icm("check-agents", "--root", str(repo)) == (1, "".join(
        f"Agents/{SHOWN}/{rest}\n" for rest in (
            "AGENT.md: no Link Policy: it must send the reader to POSITIONS.md "
            "first", "ASSETS.md: missing (optional)",
            "CHATS.md: missing (optional)", "POSITIONS.md: missing",
            "PROGRESSION.md: missing (optional)", "TOOLS.md: missing (optional)")),
        "")
    # a line that starts with a name starts with an escape, never with "::"
    assert icm("check-stale", "--root", str(repo)) == (
        0, f"\\x3a:warning::{SHOWN}/context.md: unknown - note never committed\n",
        "")
    code, out, err = icm("check", "--root", str(repo))
    assert (code, err) == (1, "")
    _inert_text(out)
    assert f"      2 words  ::warning::{SHOWN}/context.md\n" in out
    assert out.endswith("icm check: 5 of 9 checks failed (journal: 1 error, "
                        "links: 1 error, stale: 1 warning, queue: 1 error, "
                        "handoff: 1 error, agents: 2 errors and 4 warnings)\n")
    # concise lines start with the name: escaped the same, one line each
    code, out, err = icm("check", "--root", str(repo), "--format", "concise")
    assert (code, err) == (1, "")
    _inert_text(out)
    assert f"\\x3a:warning::{SHOWN}/context.md:1:1: stale/unknown unknown - " \
        "note never committed\n" in out
    assert len(out.splitlines()) == 12  # 11 findings and the summary


def test_text_format_quotes_content_inertly(repo: Path, icm) -> None:
    # a Superseded-by target and a --fix line quote repository text
    write(repo, {"AGENTS.md": "# H\n\n<!-- icm:index -->\n<!-- /icm:index -->\n",
                 "n\x1b]0;t\x07/context.md": "# n\n",
                 "journal/2026-01-01_a.md": "# E\n\nSuperseded-by: "
                 "<b\x1b[2J\u202e.md>\n" + SLOTS_OK.split("\n", 1)[1]})
    assert icm("check-journal", "--root", str(repo)) == (
        1, "journal/2026-01-01_a.md: Superseded-by points at "
           "b\\x1b[2J\\u202e.md, which does not exist\n", "")
    code, out, err = icm("check-links", "--fix", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out == ("added to AGENTS.md index: n\\x1b]0;t\\x07/context.md\n"
                   "links ok\n")


def test_inert_escapes_controls_and_keeps_ordinary_text() -> None:
    ordinary = "broken link: a.md -> b é 日本 👨\u200d👩 \u00a0tab\there"
    assert escape.inert(ordinary) == ordinary
    assert escape.inert("\x00\x1b\n\r\x7f\x80\x9f\u2028\u2029\u202a\u202e"
                        "\u2066\u2069" + BAD) == (
        "\\x00\\x1b\\n\\r\\x7f\\x80\\x9f\\u2028\\u2029\\u202a\\u202e\\u2066"
        "\\u2069bad\\xff")
    assert escape.inert_lines("# a\n- b\x1b\n") == "# a\n- b\\x1b\n"
    assert escape.text_line("  ::error::x") == "  \\x3a:error::x"
    assert escape.text_line("##[error]x") == "\\x23#[error]x"
    assert escape.text_line("## Current") == "## Current"
    assert report.one_line("a\tb\u202e") == "a\\tb\\u202e"
