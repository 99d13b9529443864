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

from icm import report
from tests.conftest import write

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
    assert (code, err) == (2, "icm: handbook no\\n::error::x.md does not exist "
                              "(create it, or run 'icm init')\n")


def test_github_line_and_data_escaping() -> None:
    assert report.github_line(" ::error::x") == " %3A:error::x"
    assert report.github_line("##[group]x") == "%23#[group]x"
    assert report.github_line("a\nb\r%") == "a%0Ab%0D%25"
    assert report.github_line("\x1b[31m") == "%1B[31m"
    assert report.github_property("a:b,c") == "a%3Ab%2Cc"
    assert report.github_data("a:b,c\n") == "a:b,c%0A"


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
