"""Usage errors: one ``icm: ...`` line on stderr, exit 2, in icm's words."""

from pathlib import Path

import pytest

from tests.conftest import write

COMMANDS = ("check, check-journal, check-links, check-stale, bootmap, check-queue, "
            "check-dupes, check-handoff, check-agents, check-positions, explain, "
            "new-queue, new-journal, init, baseline, handoff, claim, release, "
            "renumber, makefile, completion, verify, positions, brief, review")


@pytest.mark.parametrize("argv,message", [
    (["check", "--bogus"],
     "unknown option '--bogus' for 'icm check' (see 'icm check --help')"),
    (["check", "--stirct"],
     "unknown option '--stirct' for 'icm check' (did you mean --strict?)"),
    (["chek"], "unknown command 'chek' (did you mean 'check'?)"),
    (["frobnicate"], f"unknown command 'frobnicate' (commands: {COMMANDS})"),
    (["check", "--format", "xml"],
     "--format must be one of: text, json, github, sarif, concise (not 'xml')"),
    (["check-journal", "--format"],
     "--format needs a value: one of: text, json, github, sarif, concise"),
    (["bootmap", "--budget", "x"], "--budget must be a positive integer (not 'x')"),
    (["bootmap", "--budget", "0"], "--budget must be a positive integer (not '0')"),
    (["check", "--budget", "-3"], "--budget must be a positive integer (not '-3')"),
    (["check-links", "--jobs", "two"],
     "--jobs must be a whole number, 0 for one per core (not 'two')"),
    (["bootmap", "--tokenizer", "gpt2"],
     "--tokenizer must be one of: bytes, cl100k, o200k (not 'gpt2')"),
    (["new-queue"], "new-queue needs TITLE (usage: icm new-queue [OPTIONS] TITLE)"),
    (["new-journal"], "new-journal needs ITEM or --title TITLE (usage: icm "
     "new-journal [OPTIONS] [ITEM])"),
    (["new-journal", "07", "--title", "X"],
     "new-journal takes ITEM or --title TITLE, not both"),
    (["new-journal", "07", "--date", "2026-13-01"],
     "--date 2026-13-01 does not exist: there is no month 13"),
    (["new-journal", "07", "--date", "2026-02-29"],
     "--date 2026-02-29 does not exist: February 2026 has 28 days"),
    (["new-journal", "07", "--date", "2026-11-00"],
     "--date 2026-11-00 does not exist: there is no day 00"),
    (["new-journal", "07", "--date", "0000-01-01"],
     "--date 0000-01-01 does not exist: there is no year 0000"),
    (["new-journal", "07", "--date", "29-11-2026"],
     "--date must be YYYY-MM-DD, not '29-11-2026'"),
    (["check", "--strict=yes"], "--strict takes no value (it is a flag)"),
    (["check-journal", "extra"], "unexpected argument 'extra' for 'icm "
     "check-journal'"),
    (["check-journal", "--strict"], "unknown option '--strict' for 'icm "
     "check-journal' (see 'icm check-journal --help')"),
    (["check", "--bo\x1bgus"],
     "unknown option '--bo\\x1bgus' for 'icm check' (see 'icm check --help')"),
    (["completion"], "completion needs SHELL: one of: bash, zsh, fish, powershell, "
                     "pwsh (usage: icm completion [OPTIONS] SHELL)"),
    (["completion", "tcsh"],
     "SHELL must be one of: bash, zsh, fish, powershell, pwsh (not 'tcsh')"),
])
def test_usage_error_is_one_line(repo: Path, icm, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(repo)
    assert icm(*argv) == (2, "", f"icm: {message}\n")


@pytest.mark.parametrize("argv", [
    ["check", "--format", "xml"], ["bootmap", "--budget", "x"],
    ["bootmap", "--budget", "0"], ["new-queue"], ["chek"]])
def test_no_parser_or_validation_wording_leaks(repo: Path, icm, monkeypatch,
                                               argv) -> None:
    monkeypatch.chdir(repo)
    err = icm(*argv)[2]
    for leak in ("Usage:", "Try ", "Error:", "Value error", "Input should",
                 "is not one of", "{", "<int"):
        assert leak not in err


def test_bare_icm_shows_help(icm) -> None:
    code, out, err = icm()
    assert (code, out) == (2, "")
    assert err.startswith("Usage: icm [OPTIONS] COMMAND [ARGS]...\n")
    assert "\nCommands:\n  check " in err


def test_a_valid_date_still_works(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "# A\n"})
    assert icm("new-journal", "07", "--date", "2028-02-29", "--root", str(repo)) \
        == (0, "journal/2028-02-29_a.md\nremoved queue/07_a.md\n", "")
