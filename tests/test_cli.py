"""Whole-output assertions for the CLI surface: formats, config errors, exits."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, entry, git, write

J = "journal/2026-01-01_a.md"


def test_json_document(repo: Path, icm) -> None:
    write(repo, {J: entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False and doc["schema"] == 1
    assert doc["summary"] == {"errors": 1, "warnings": 0, "info": 0}
    (check,) = doc["checks"]
    assert check["check"] == "journal" and check["ok"] is False
    assert check["findings"] == [{
        "check": "journal", "code": "missing-slot", "severity": "error",
        "path": J, "line": None, "col": None,
        "message": "missing slot 'Invariant'",
        "text": f"{J}: missing slot 'Invariant'",
        "fix": "add a '## Invariant' section",
    }]


def test_github_format(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a,b.md": entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "github")
    assert code == 1
    assert out.splitlines()[0].startswith(
        "::error file=journal/2026-01-01_a%2Cb.md,title=icm journal/bad-name::")
    assert out.splitlines()[1] + "\n" == (
        "::error file=journal/2026-01-01_a%2Cb.md,title=icm journal/missing-slot::"
        "journal/2026-01-01_a,b.md: missing slot 'Invariant' "
        "(fix: add a '## Invariant' section)\n")


def test_github_format_ok_prints_summary(repo: Path, icm) -> None:
    assert icm("check-journal", "--root", str(repo), "--format", "github") == (
        0, "journal ok\n", "")


def test_bad_format_is_usage_error(repo: Path, icm) -> None:
    code, out, err = icm("check-journal", "--root", str(repo), "--format", "xml")
    assert code == 2 and out == "" and "xml" in err


def test_unknown_command_is_usage_error(icm) -> None:
    code, _, err = icm("frobnicate")
    assert code == 2 and "frobnicate" in err


@pytest.mark.parametrize("name,text,message", [
    ("pyproject.toml", "[tool.icm]\nbudjet = 10\n",
     "icm: pyproject.toml [tool.icm]: unknown key 'budjet' (did you mean 'budget'?)\n"),
    ("icm.toml", "hanbook = 'X.md'\n",
     "icm: icm.toml: unknown key 'hanbook' (did you mean 'handbook'?)\n"),
    ("icm.toml", "zzz = 1\n", "icm: icm.toml: unknown key 'zzz'\n"),
    ("icm.toml", "[tool.icm]\nbudget = 10\n",
     "icm: icm.toml: has a [tool.icm] table; keys go at the top level of icm.toml "
     "(delete the [tool.icm] line)\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = '1600'\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be an integer, got a string "
     "('1600')\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = true\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be an integer, got a boolean "
     "(true)\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = 0\n",
     "icm: pyproject.toml [tool.icm]: key 'budget' must be a positive integer, "
     "got 0\n"),
    ("icm.toml", "budget = -5\n",
     "icm: icm.toml: key 'budget' must be a positive integer, got -5\n"),
    ("pyproject.toml", "[tool.icm]\nslots = 'Decision'\n",
     "icm: pyproject.toml [tool.icm]: key 'slots' must be a list of strings, got a "
     "string ('Decision')\n"),
    ("pyproject.toml", "[tool.icm]\nexclude = ['a', 1]\n",
     "icm: pyproject.toml [tool.icm]: key 'exclude' must be a list of strings, got a "
     "list holding an integer (1)\n"),
    ("icm.toml", "stale_scope = 'tree'\n",
     "icm: icm.toml: key 'stale_scope' must be 'folder' or 'subtree', got 'tree'\n"),
    ("icm.toml", "stale_history = 'everything'\n",
     "icm: icm.toml: key 'stale_history' must be 'first-parent' or 'all', got "
     "'everything'\n"),
    ("icm.toml", "stale_history = 3\n",
     "icm: icm.toml: key 'stale_history' must be 'first-parent' or 'all', got an "
     "integer (3)\n"),
    ("icm.toml", "note_name = []\n",
     "icm: icm.toml: key 'note_name' must be a file name, or a non-empty list of "
     "names and globs, got an empty list\n"),
    ("icm.toml", "note_name = ['!README.md']\n",
     "icm: icm.toml: key 'note_name' must be a list naming at least one note "
     "(not only '!' entries), got ['!README.md']\n"),
    ("icm.toml", "note_name = ['AGENTS.md', '!']\n",
     "icm: icm.toml: key 'note_name' must be names or globs of files inside the "
     "repository, outside .git, not '!'\n"),
    ("icm.toml", "note_name = ['a\\b.md']\n",
     "icm: icm.toml: key 'note_name' must be names or globs of files inside the "
     "repository, outside .git, not 'a\\\\b.md'\n"),
    ("icm.toml", "index = 'optional'\n",
     "icm: icm.toml: key 'index' must be 'required' or 'off', or a table of "
     "note_name entry = 'required' or 'off', got 'optional'\n"),
    ("icm.toml", "index = { 'context.md' = true }\n",
     "icm: icm.toml: key 'index' must be 'required' or 'off', or a table of "
     "note_name entry = 'required' or 'off', got a table\n"),
    ("icm.toml", "note_name = ['AGENTS.md', 'CLAUDE.md']\n"
     "index = { 'AGENT.md' = 'off' }\n",
     "icm: icm.toml: key 'index' names 'AGENT.md', which is not an entry of "
     "note_name (AGENTS.md, CLAUDE.md)\n"),
    ("icm.toml", "note_name = ['AGENTS.md', '!x/AGENTS.md']\n"
     "index = { '!x/AGENTS.md' = 'off' }\n",
     "icm: icm.toml: key 'index' names '!x/AGENTS.md', which is not an entry of "
     "note_name (AGENTS.md)\n"),
    ("icm.toml", "handbook = '../AGENTS.md'\n",
     "icm: icm.toml: key 'handbook' must be a path inside the repository, got "
     "'../AGENTS.md'\n"),
    ("icm.toml", "handbook = ' '\n",
     "icm: icm.toml: key 'handbook' must be a non-empty string, got ' '\n"),
    ("icm.toml", "verify_slot = 'Check'\n",
     "icm: icm.toml: key 'verify_slot' must name one of the slots, got 'Check'\n"),
    ("icm.toml", "verify_skip = ['journal/a.md']\n",
     "icm: icm.toml: key 'verify_skip' must be a table of path = reason, or a "
     "list of {path, reason} tables, got a list\n"),
    ("icm.toml", "verify_skip = [{path = 'journal/a.md'}]\n",
     "icm: icm.toml: key 'verify_skip' must be a list of {path, reason} tables, "
     "got a list holding a table\n"),
    ("icm.toml", "[verify_skip]\n'journal/a.md' = ''\n",
     "icm: icm.toml: key 'verify_skip' must be paths with a non-empty reason "
     "each, got a table\n"),
    ("icm.toml", "[verify_skip]\n'../a.md' = 'x'\n",
     "icm: icm.toml: key 'verify_skip' must hold paths inside the repository, "
     "outside .git, not '../a.md'\n"),
    ("icm.toml", "verify_timeout = 0\n",
     "icm: icm.toml: key 'verify_timeout' must be a positive integer, got 0\n"),
    ("pyproject.toml", "[tool.icm]\nbudget = 1\nhandbook = \n",
     "icm: pyproject.toml: invalid TOML: Invalid value (at line 3, column 12)\n"),
    # a newcomer's trial: every config error names the file, and these passed
    ("pyproject.toml", "[tool.icm]\nverify_slot = 'Nope'\n",
     "icm: pyproject.toml [tool.icm]: key 'verify_slot' must name one of the "
     "slots, got 'Nope'\n"),
    ("icm.toml", "slots = []\n",
     "icm: icm.toml: key 'slots' must be a non-empty list of strings, got an "
     "empty list\n"),
    ("pyproject.toml", "[tool.icm]\nslots = ['Decision', 'Decision']\n",
     "icm: pyproject.toml [tool.icm]: key 'slots' names 'Decision' twice\n"),
    ("icm.toml", "slots = ['Why', ' ']\n",
     "icm: icm.toml: key 'slots' must be a list of non-empty slot names, got "
     "['Why', ' ']\n"),
    ("icm.toml", "queue_dir = './journal/'\n",
     "icm: icm.toml: key 'queue_dir' must name a folder other than journal_dir's, "
     "got 'journal'\n"),
    ("icm.toml", "journal_dir = 'queue'\n",
     "icm: icm.toml: key 'journal_dir' must name a folder other than queue_dir's, "
     "got 'queue'\n"),
    ("icm.toml", "journal_dir = 'docs/adr'\nqueue_dir = 'docs//adr'\n",
     "icm: icm.toml: key 'queue_dir' must name a folder other than journal_dir's, "
     "got 'docs/adr'\n"),
    ("pyproject.toml", "[project]\nname = 'x'\n\n[tool.icm]\nbudget = 900\n"
     "exclude = []\n# more\nexclude = ['a']\n",
     "icm: pyproject.toml: invalid TOML at line 8: key 'exclude' given twice\n"),
    ("icm.toml", "budget = 9\n  budget=10",
     "icm: icm.toml: invalid TOML at line 2: key 'budget' given twice\n"),
    ("icm.toml", "[x]\ny = 1\n[x.y]\n",
     "icm: icm.toml: invalid TOML at line 3: a value is set twice\n"),
])
def test_config_errors(repo: Path, icm, name: str, text: str, message: str) -> None:
    write(repo, {name: text})
    assert icm("check", "--root", str(repo)) == (2, "", message)


@pytest.mark.parametrize("text,key,shown", [
    ('handbook = "\\u0000"', "handbook", "'\\x00'"),
    ('journal_dir = "./j\\u0000/"', "journal_dir", "'j\\x00'"),
    ('handoff_dir = "h\\n"', "handoff_dir", "'h\\n'"),
    ('positions_file = "p\\u001b.md"', "positions_file", "'p\\x1b.md'"),
    ('note_name = "c\\u0000.md"', "note_name", "'c\\x00.md'"),
    ('boot = ["a\\tb"]', "boot", "'a\\tb'"),
    ('exclude = ["x", "y\\u0085"]', "exclude", "'y\\x85'"),
    ('queue_refs = ["origin/\\u0000"]', "queue_refs", "'origin/\\x00'"),
    ('verify_skip = {"a\\u0000" = "r"}', "verify_skip", "'a\\x00'"),
    ('slots = ["Why\\u007f"]', "slots", "'Why\\x7f'"),
])
def test_a_control_character_in_a_path_is_a_config_error(
        repo: Path, icm, text: str, key: str, shown: str) -> None:
    """A NUL in a path-valued key was ``internal error: ValueError: embedded
    null byte`` (``check-links --fix`` on the handbook, every command on a
    folder key, ``new-queue`` on a ref) while ``check`` took some of them;
    no path, glob, ref or slot holds a control character, so each is one
    line naming the file and the key, for every command."""
    write(repo, {"pyproject.toml": f"[tool.icm]\n{text}\n", "AGENTS.md": "# H\n",
                 "a/context.md": "x\n"})
    message = (f"icm: pyproject.toml [tool.icm]: key '{key}' must hold no "
               f"control character, got {shown}\n")
    for command in (("check",), ("check-links", "--fix"), ("new-queue", "T")):
        assert icm(*command, "--root", str(repo)) == (2, "", message)
    assert (repo / "AGENTS.md").read_text() == "# H\n"


def test_a_key_given_twice_is_quoted_capped_and_escaped(repo: Path, icm) -> None:
    key = '"a\u202eb' + "k" * 10_000 + '"'
    write(repo, {"icm.toml": f"{key} = 1\n{key} = 2\n"})
    assert icm("check", "--root", str(repo)) == (
        2, "", "icm: icm.toml: invalid TOML at line 2: key '\"a\\u202eb"
        + "k" * 56 + "...' given twice\n")


def test_init_names_a_key_given_twice_in_pyproject(repo: Path, icm) -> None:
    write(repo, {"pyproject.toml": "[project]\nname = 'a'\nname = 'b'\n"})
    assert icm("init", "--root", str(repo)) == (
        2, "", "icm: pyproject.toml: invalid TOML at line 3: key 'name' given "
        "twice; nothing was changed\n")
    assert sorted(os.listdir(repo)) == [".git", "pyproject.toml"]


@pytest.mark.parametrize("key", ["journal_dir", "queue_dir", "handoff_dir"])
def test_a_folder_key_naming_a_file_is_an_error(repo: Path, icm, key: str) -> None:
    write(repo, {"icm.toml": f"{key} = 'docs/adr'\n", "docs/adr": "a file\n"})
    assert icm("check", "--root", str(repo)) == (
        2, "", f"icm: icm.toml: key '{key}' must name a folder, got 'docs/adr' "
        "(a file)\n")
    write(repo, {"pyproject.toml": f"[tool.icm]\n{key} = 'README.md'\n",
                 "README.md": "# R\n"})
    (repo / "icm.toml").unlink()
    assert icm("new-queue", "x", "--root", str(repo)) == (
        2, "", f"icm: pyproject.toml [tool.icm]: key '{key}' must name a folder, "
        "got 'README.md' (a file)\n")


def test_icm_toml_wins_over_pyproject(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "journal_dir = 'log'\n",
                 "pyproject.toml": "[tool.icm]\njournal_dir = 'other'\n",
                 "log/2026-01-01_a.md": entry("Decision")})
    assert icm("check-journal", "--root", str(repo))[1] == \
        "log/2026-01-01_a.md: missing slot 'Decision'\n"


def test_root_discovery_from_subfolder(repo: Path, icm, monkeypatch) -> None:
    write(repo, {"AGENTS.md": "# H\n", J: entry("Decision"), "src/deep/x.py": ""})
    monkeypatch.chdir(repo / "src" / "deep")
    assert icm("check-journal")[1] == f"{J}: missing slot 'Decision'\n"


def test_root_that_is_not_a_folder(tmp_path: Path, icm) -> None:
    code, out, err = icm("check", "--root", str(tmp_path / "nope"))
    assert code == 2 and out == ""
    assert err.count("\n") <= 3 and "Traceback" not in err


def test_internal_error_is_one_line(repo: Path, icm, monkeypatch) -> None:
    from icm.checks import journal

    def boom(ctx, options):
        raise RuntimeError("kaput")

    monkeypatch.setattr(journal, "run", boom)
    assert icm("check-journal", "--root", str(repo)) == (
        2, "", "icm: internal error: RuntimeError: kaput (rerun with --debug for "
               "the traceback)\n")


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"],
                                  ["completion", "bash"], ["chek"]])
def test_help_does_not_import_heavy_modules(argv) -> None:
    code = (f"import sys; from icm.cli import main; main({argv!r}); "
            "bad = [m for m in ('git', 'icm.markdown', 'icm.context', 'icm.git') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().endswith("[]")


def test_python_dash_m(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "icm", "check-journal", "--root",
                           str(repo)], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "journal ok\n")


def test_no_color_when_not_a_tty(repo: Path, icm) -> None:
    write(repo, {J: entry("Decision")})
    assert "\x1b[" not in icm("check-journal", "--root", str(repo))[1]


def test_version(icm) -> None:
    from icm import __version__

    assert icm("--version") == (0, f"icm {__version__}\n", "")


# -- pipes, the summary line, --quiet, shared options, progress, help ---------

def _journal_repo(repo: Path) -> Path:
    write(repo, {"AGENTS.md": "# H\n", J: entry("Invariant")})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "x", when="2026-01-01T00:00:00+00:00")
    return repo


def _icm_process(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "icm", *argv],
                          stdin=subprocess.DEVNULL, timeout=120, **kwargs)


def test_closed_pipe_ends_quietly_with_the_runs_exit_code(repo: Path) -> None:
    _journal_repo(repo)
    for argv, code in ((["check", "--format", "text"], 1),
                       (["check", "--format", "json"], 1),
                       (["check-queue"], 0), (["makefile"], 0), (["--version"], 0),
                       (["new-queue", "Piped away"], 0)):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone before icm writes a byte
        try:
            proc = _icm_process(*argv, stdout=write_end, stderr=subprocess.PIPE,
                                cwd=repo)
        finally:
            os.close(write_end)
        assert (proc.returncode, proc.stderr) == (code, b""), argv
    assert (repo / "queue" / "01_piped-away.md").is_file()


def test_head_reads_one_line(repo: Path) -> None:
    # More output than a pipe holds (64 KiB), so icm is still writing when
    # head exits.
    write(repo, {f"journal/2026-01-01_entry-{n:04d}.md": "# x\n" for n in range(800)})
    proc = subprocess.run(
        f"set -o pipefail; '{sys.executable}' -m icm check-journal --root '{repo}' "
        "| head -1", shell=True, executable="/bin/bash", capture_output=True,
        text=True, stdin=subprocess.DEVNULL)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1, "journal/2026-01-01_entry-0000.md: missing slot 'Decision'\n", "")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_full_disk_is_one_line(repo: Path) -> None:
    _journal_repo(repo)
    with open("/dev/full", "w") as full:
        proc = _icm_process("check", "--root", str(repo), stdout=full,
                            stderr=subprocess.PIPE)
    assert (proc.returncode, proc.stderr) == (
        2, b"icm: cannot write output: No space left on device\n")


def test_check_ends_with_a_summary_line(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "# H\n[gone](gone.md)\n", J: entry("Invariant",
                                                                  "Decision")})
    code, out, _ = icm("check", "--root", str(repo))
    assert code == 1
    assert out.splitlines()[-1] == (
        "icm check: 2 of 9 checks failed (journal: 2 errors, links: 1 error)")
    assert out.splitlines()[-2] == "positions ok"


def test_clean_check_summary_and_single_checks_print_none(repo: Path, icm) -> None:
    _journal_repo(repo)
    write(repo, {J: entry()})
    git(repo, "commit", "-qam", "fix", when="2026-01-02T00:00:00+00:00")
    assert icm("check", "--root", str(repo), "-q") == (
        0, "icm check: all 9 checks passed\n", "")
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    out = icm("bootmap", "--root", str(repo))[1]
    assert out == ("background notes, by size:\n"
                   "cold-boot set: 4 bytes, about 1 tokens (budget 1600)\n"
                   "bootmap: no notes named context.md yet (or set note_name)\n")


def test_quiet_prints_problems_and_the_summary_only(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n\n- [s](src/context.md)\n- [t](t/context.md)\n",
                  "src/context.md": "# s\n", "t/context.md": "# t\n",
                  "t/x.py": "", J: entry("Invariant")}, "2026-01-01T00:00:00+00:00")
    commit(repo, {"src/x.py": "1"}, "2026-01-05T00:00:00+00:00")
    assert icm("check", "--root", str(repo), "--quiet") == (1, (
        f"{J}: missing slot 'Invariant'\n"
        "src/context.md: STALE - code in src moved 4 days after the note\n"
        "icm check: 2 of 9 checks failed (journal: 1 error, stale: 1 error)\n"), "")
    assert icm("check-stale", "--root", str(repo), "-q") == (
        1, "src/context.md: STALE - code in src moved 4 days after the note\n", "")
    assert icm("bootmap", "--root", str(repo), "-q") == (0, "", "")
    assert icm("check-queue", "--root", str(repo), "-q", "--format", "github") == (
        0, "", "")
    assert icm("bootmap", "--root", str(repo), "-q", "--budget", "1") == (1, (
        "background notes, by size:\n"
        "      2 words  src/context.md\n"
        "      2 words  t/context.md\n"
        "cold-boot set: 51 bytes, about 12 tokens (budget 1)\n"
        "cold-boot set over budget by 11 tokens; largest file: AGENTS.md "
        "(47 bytes)\n"), "")


def test_check_takes_every_checks_options(repo: Path, icm) -> None:
    """``icm check [CHECK...]`` accepts the union, so one ICM_FLAGS suits
    every make target; each check reads its own."""
    _journal_repo(repo)
    shared = ["--root", str(repo), "--strict", "--allow-shallow", "--budget", "50",
              "-v", "--tokenizer", "bytes", "--jobs", "1", "-q", "--format", "text"]
    expected = {(): 1, ("journal",): 1, ("links",): 0, ("stale",): 0,
                ("bootmap",): 0, ("queue",): 0, ("links", "stale"): 0}
    for names, code in expected.items():
        result = icm("check", *names, *shared)
        assert result[0] == code and result[2] == "", (names, result)


def test_each_alias_takes_only_its_own_options(repo: Path, icm) -> None:
    """``icm check-journal --strict`` was silently accepted: every alias took
    every check's twelve options."""
    from icm import registry

    _journal_repo(repo)
    every = {cli.names[0] for spec in registry.ALL
             for _f, cli in registry.cli_fields(spec.options) if cli.names}
    for spec in registry.ALL:
        own = {cli.names[0] for _f, cli in registry.cli_fields(spec.options)
               if cli.names}
        text = icm(spec.command, "--help")[1]
        listed = {o for o in every if f"  {o}" in text or f", {o}" in text}
        assert listed == own, spec.command
        for option in sorted(every - own)[:1]:
            code, out, err = icm(spec.command, "--root", str(repo), option)
            assert (code, out) == (2, "") and err.startswith(
                f"icm: unknown option '{option}' for 'icm {spec.command}'"), err


def test_alias_help_whole(icm) -> None:
    assert icm("check-queue", "--help") == (0, """\
Usage: icm check-queue [OPTIONS]

  Check queue item names and that no number is used twice.

  With --against REF (or a known base), also against REF before merging.

Options:
  --against, --base REF           The branch this one merges into: compare the
                                  queue with REF before merging (default:
                                  ICM_BASE, GITHUB_BASE_REF, the upstream,
                                  local main ahead of origin/HEAD,
                                  origin/HEAD).
  --root DIR                      Repository root (default: found from the
                                  working directory).
  --format [text|json|github|sarif|concise]
                                  Output format.  [default: text]
  -q, --quiet                     Print problems and the summary only: no ok
                                  lines, no bootmap table within budget.
  --select CODE                   Report only these codes: a check (links) or
                                  CHECK/CODE (links/missing-anchor);
                                  repeatable.
  --ignore CODE                   Do not report these codes (repeatable).
  --debug                         Show tracebacks of internal errors.
  -h, --help                      Show this message and exit.
""", "")


def test_check_selects_and_skips(repo: Path, icm) -> None:
    _journal_repo(repo)
    root = ["--root", str(repo)]
    code, out, err = icm("check", "links", "stale", *root)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "links ok"
    assert out.splitlines()[-1] == "icm check: all 2 checks passed"
    assert "journal" not in out and "background notes" not in out
    code, out, _ = icm("check", "--skip", "journal", "--skip", "dupes", *root)
    assert code == 0 and out.splitlines()[-1] == "icm check: all 7 checks passed"
    # one check named is that check's alias, summary line and all
    assert icm("check", "links", *root) == icm("check-links", *root)
    assert icm("check", "linsk", *root) == (
        2, "", "icm: unknown check 'linsk' (did you mean 'links'?)\n")
    assert icm("check", "--skip", "nope", *root)[2] == (
        "icm: unknown check 'nope' (checks: journal, links, stale, bootmap, "
        "queue, dupes, handoff, agents, positions)\n")


@pytest.mark.skipif(not shutil.which("make"), reason="make is not installed")
def test_icm_flags_suit_every_make_target(repo: Path) -> None:
    write(repo, {"Makefile": "include $(shell icm makefile)\n", "AGENTS.md": "# H\n"})
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ['PATH']}")
    from icm import registry

    for target in ("check", *(spec.command for spec in registry.ALL)):
        proc = subprocess.run(["make", "--no-print-directory", target,
                               "ICM_FLAGS=--strict --jobs 1 --tokenizer bytes -v -q"],
                              cwd=repo, env=env, capture_output=True, text=True)
        assert (proc.returncode, proc.stderr) == (0, ""), target


def test_progress_only_on_a_terminal(repo: Path) -> None:
    import pty

    write(repo, {"AGENTS.md": "# H\n", "a.md": "[x](AGENTS.md)\n", "b.md": "b\n"})
    primary, secondary = pty.openpty()
    try:
        proc = _icm_process("check-links", "--root", str(repo),
                            stdout=subprocess.PIPE, stderr=secondary)
    finally:
        os.close(secondary)
    drawn = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # EIO: the terminal's other side is closed
            break
        if not chunk:
            break
        drawn += chunk
    os.close(primary)
    assert (proc.returncode, proc.stdout) == (0, b"links ok\n")
    lines = [f"icm: parsing {n}/3 markdown files" for n in (1, 2, 3)]
    assert drawn.decode() == "".join("\r" + line for line in lines) + \
        "\r" + " " * len(lines[-1]) + "\r"
    piped = _icm_process("check-links", "--root", str(repo), "--format", "json",
                         capture_output=True)
    assert piped.stderr == b""


def test_help_lists_full_sentences_and_readable_metavars(icm) -> None:
    code, out, _ = icm("--help")
    commands = out.split("Commands:\n", 1)[1].splitlines()
    assert code == 0 and len(commands) >= 11
    for row in commands:
        name, text = row.split(None, 1)
        assert text.endswith(".") and "..." not in text and len(row) <= 78, row
    sub = icm("bootmap", "--help")[1] + icm("new-queue", "--help")[1]
    for metavar in ("--tokenizer [bytes|cl100k|o200k]", "--budget N", "--root DIR",
                    "--format [text|json|github|sarif|concise]",
                    "Usage: icm new-queue [OPTIONS] TITLE\n",
                    "Arguments:\n  TITLE  The item's title.  [required]\n"):
        assert metavar in sub
    assert "{" not in sub and "<int" not in sub and "<str>" not in sub


def test_completion_script_and_callback() -> None:
    out = _icm_process("completion", "bash", capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.endswith("complete -o default -F _icm_completion icm\n")
    assert "_ICM_COMPLETE=complete_bash" in out.stdout
    env = dict(os.environ, _ICM_COMPLETE="complete_bash", COMP_WORDS="icm check-j",
               COMP_CWORD="1")
    words = _icm_process(capture_output=True, text=True, env=env)
    assert (words.returncode, words.stdout.split()) == (0, ["check-journal"])
