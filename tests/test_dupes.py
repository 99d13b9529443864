"""check-dupes: golden lines for copies and diverged copies, and the rules
that decide between them."""

import json
import os
import shutil
from functools import partial
from pathlib import Path
from typing import List, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm import similarity
from tests.conftest import python_lines, write

ROOT = Path(__file__).resolve().parent.parent

HANDBOOK = """# Handbook

## Rules

1. Read this file, then the note of the folder you work in.
2. Every reader of a file stops at 1 MiB and reports the rest as skipped.

## Index of notes

- [src](src/context.md): reading
- [tests](tests/context.md): tests
"""

SRC = """# src

## Limits

Every reader of a file stops at 1 MiB and reports the rest as skipped.

- The parser must not follow symlinks that leave the repository root.
"""


def dupes(icm, repo: Path, *args: str):
    return icm("check-dupes", "--root", str(repo), *args)


def test_copy_and_diverged_copies_warn_and_fail_on_request(repo: Path,
                                                           icm) -> None:
    """Severity follows confidence: no kind of divergence was right 9 times
    in 10 on held-out notes (docs/benchmarks.md, test3), so a diverged copy
    is a warning naming the difference unless dupes_diverged asks."""
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": SRC, "src/tests/context.md": (
        "# tests\n\n"
        "Every reader of a file stops at 64 KiB and reports the rest as skipped.\n\n"
        "- The parser must follow symlinks that leave the repository root.\n")})
    lines = (
        "duplicate rule: src/context.md:5 repeats AGENTS.md:6 "
        "(keep one home, link to it)\n"
        "diverged rule: src/tests/context.md:3 and AGENTS.md:6 disagree: "
        "'64 KiB' vs '1 MiB'\n"
        "diverged rule: src/tests/context.md:5 and src/context.md:7 disagree: "
        "'must' vs 'must not'\n")
    assert dupes(icm, repo) == (0, lines, "")
    write(repo, {"icm.toml": 'dupes_diverged = "error"\n'})
    assert dupes(icm, repo) == (1, lines, "")
    code, out, _ = dupes(icm, repo, "--format", "json")
    found = json.loads(out)["checks"][0]["findings"]
    assert [f["severity"] for f in found] == ["warning", "error", "error"]


def test_exact_copies_warn_by_default_and_fail_on_request(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": SRC})
    line = ("duplicate rule: src/context.md:5 repeats AGENTS.md:6 "
            "(keep one home, link to it)\n")
    assert dupes(icm, repo) == (0, line, "")
    write(repo, {"icm.toml": 'dupes_copies = "error"\n'})
    assert dupes(icm, repo) == (1, line, "")


def test_clean_tree_says_ok(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": "# src\n\nOther words "
                 "entirely, about how the cleaner streams its rows.\n"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


@pytest.mark.parametrize("home,copy,what", [
    ("Tests must not open a socket.", "Tests must open a socket.",
     "'must' vs 'must not'"),
    ("Tests must open a network socket.", "Tests mustn't open a network socket.",
     "'mustn't' vs 'must'"),
    ("Always run the whole suite offline.", "Never run the whole suite offline.",
     "'Never' vs 'Always'"),
    ("The cache lives in `.git/icm/` as one file.",
     "The cache lives in `.git/cache/` as one file.",
     "'`.git/cache/`' vs '`.git/icm/`'"),
    ("The index block lists every note under docs/notes.md today.",
     "The index block lists every note under docs/index.md today.",
     "'docs/index.md' vs 'docs/notes.md'"),
    ("Retry the push 3 times, then stop.", "Retry the push 5 times, then stop.",
     "'5 times' vs '3 times'"),
])
def test_only_a_number_path_code_or_negation_is_always_diverged(
        repo: Path, icm, home: str, copy: str, what: str) -> None:
    # At a similarity of 1.0 nothing but equal skeletons can match.
    write(repo, {"icm.toml": "dupes_similarity = 1.0\ndupes_min_words = 4\n",
                 "a/context.md": f"# a\n\n{home}\n",
                 "a/b/context.md": f"# b\n\n{copy}\n"})
    assert dupes(icm, repo) == (0, (
        f"diverged rule: a/b/context.md:3 and a/context.md:3 disagree: {what}\n"), "")


def test_rewording_alone_is_a_copy_not_a_divergence(repo: Path, icm) -> None:
    write(repo, {
        "a/context.md": "# a\n\nThe summary line goes to standard error, so a pipe "
                        "into an importer never sees it.\n",
        "a/b/context.md": "# b\n\nSo a pipe into an importer never sees it, the "
                        "summary line goes to **standard error**.\n"})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: a/b/context.md:3 repeats a/context.md:3 "
        "(keep one home, link to it)\n"), "")


@pytest.mark.parametrize("marked", [
    "<!-- icm: allow-duplicate -->\nEvery reader of a file stops at 1 MiB and "
    "reports the rest as skipped.\n",
    "- Every reader of a file stops at 1 MiB and reports the rest as skipped. "
    "<!-- icm: allow-duplicate -->\n",
])
def test_allow_marker_acknowledges_a_copy(repo: Path, icm, marked: str) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": f"# src\n\n{marked}"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_allow_marker_inside_a_code_span_does_not_count(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": (
        "# src\n\nEvery reader of a file stops at 1 MiB and reports the rest as "
        "skipped; `<!-- icm: allow-duplicate -->` is how to keep it.\n")})
    assert dupes(icm, repo)[1] == (
        "duplicate rule: src/context.md:3 repeats AGENTS.md:6 "
        "(keep one home, link to it)\n")


def test_dupes_ignore_skips_files(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": SRC,
                 "icm.toml": 'dupes_ignore = ["src/**"]\n'})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_short_statements_headings_and_code_are_not_compared(
        repo: Path, icm) -> None:
    same = ("# Why the parser is strict\n\n- Tests\n- Keep it offline always.\n\n"
            "```sh\nmake check && pytest -q tests/test_dupes.py -k copies\n```\n\n"
            "    indented code block with more than six words in it\n\n"
            "| a table cell with more than six words in it | b |\n|---|---|\n")
    write(repo, {"a/context.md": same, "a/b/context.md": same})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"icm.toml": "dupes_min_words = 4\n"})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: a/b/context.md:4 repeats a/context.md:4 "
        "(keep one home, link to it)\n"), "")


def test_repetition_inside_one_file_is_not_reported(repo: Path, icm) -> None:
    rule = "Every reader of a file stops at 1 MiB and reports the rest."
    write(repo, {"a/context.md": f"# a\n\n{rule}\n\n## Summary\n\n{rule}\n"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_crlf_and_bom_keep_lines(repo: Path, icm) -> None:
    text = ("# src\r\n\r\nIntro line.\r\n\r\nEvery reader of a file stops at 64 "
            "KiB and\r\nreports the rest as skipped.\r\n")
    write(repo, {"AGENTS.md": HANDBOOK,
                 "src/context.md": b"\xef\xbb\xbf" + text.encode()})
    assert dupes(icm, repo) == (0, (
        "diverged rule: src/context.md:5 and AGENTS.md:6 disagree: "
        "'64 KiB' vs '1 MiB'\n"), "")


def test_one_long_paragraph_reports_the_line_inside_it(repo: Path, icm) -> None:
    filler = " ".join(f"Sentence {n} says something else about word{n} here."
                      for n in range(30))
    lines = [filler[i:i + 70] for i in range(0, len(filler), 70)]
    body = "\n".join(lines[:10] + [
        "Every reader of a file stops at 64 KiB and reports the rest as",
        "skipped."] + lines[10:])
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": f"# src\n\n{body}\n"})
    assert dupes(icm, repo) == (0, (
        "diverged rule: src/context.md:13 and AGENTS.md:6 disagree: "
        "'64 KiB' vs '1 MiB'\n"), "")


def _entry(invariant: str) -> str:
    return ("# Entry\n\n## Decision\nEvery reader of a file stops at 8 KiB and "
            "reports the rest as skipped.\n\n## Rejected alternative\nNone.\n\n"
            f"## Invariant\n{invariant}\n\n## Verify command\n`true`\n")


def test_journal_invariants_may_be_restated_not_contradicted(
        repo: Path, icm) -> None:
    rule = "Every reader of a file stops at {} and reports the rest as skipped."
    write(repo, {"AGENTS.md": HANDBOOK,
                 "journal/2026-01-01_a.md": _entry(rule.format("1 MiB")),
                 "journal/2026-01-02_b.md": _entry(rule.format("1 MiB"))})
    # restated in two entries and the handbook; Decision sections not read
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"journal/2026-01-02_b.md": _entry(rule.format("2 MiB"))})
    assert dupes(icm, repo) == (0, (
        "diverged rule: journal/2026-01-02_b.md:10 and AGENTS.md:6 disagree: "
        "'2 MiB' vs '1 MiB'\n"), "")
    # a newer entry that states the handbook's version settles it
    write(repo, {"journal/2026-01-03_c.md": _entry(rule.format("1 MiB"))})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_json_has_both_locations_and_texts(repo: Path, icm) -> None:
    copy = "Every reader of a file stops at 64 KiB and reports the rest as skipped."
    write(repo, {"AGENTS.md": HANDBOOK, "tests/context.md": f"# t\n\n{copy}\n"})
    code, out, _ = dupes(icm, repo, "--format", "json")
    assert code == 0
    (check,) = json.loads(out)["checks"]
    assert check["data"] == {"files": 2, "statements": 3}
    assert check["findings"] == [{
        "check": "dupes", "code": "diverged-rule", "severity": "warning",
        "path": "tests/context.md", "line": 3, "col": None,
        "message": "diverged rule: tests/context.md:3 and AGENTS.md:6 disagree: "
                   "'64 KiB' vs '1 MiB'",
        "text": "diverged rule: tests/context.md:3 and AGENTS.md:6 disagree: "
                "'64 KiB' vs '1 MiB'",
        "fix": "decide which is true, keep it in one home and link to it",
        "locations": [
            {"path": "tests/context.md", "line": 3, "text": copy},
            {"path": "AGENTS.md", "line": 6, "text": copy.replace("64 KiB",
                                                                  "1 MiB")}],
        "similarity": 0.857,
        "differences": [{"kind": "number", "copy": "64 KiB", "home": "1 MiB"}],
        "read_together": True,
    }]


def test_github_format_escapes(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "a,b/context.md": (
        "# t\n\nEvery reader of a file stops at 100% and reports the rest as "
        "skipped.\n")})
    code, out, _ = dupes(icm, repo, "--format", "github")
    assert (code, out) == (0, (
        "::warning file=a%2Cb/context.md,line=3,title=icm dupes/diverged-rule::"
        "diverged rule: a,b/context.md:3 and AGENTS.md:6 disagree: '100%25' vs "
        "'1 MiB' (fix: decide which is true, keep it in one home and link to "
        "it)\n"))


def test_unreadable_note_is_a_finding(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": b"\xff\xfe bad"})
    assert dupes(icm, repo) == (1, (
        "src/context.md: cannot read: UTF-16 text; icm reads UTF-8 only\n"), "")


def test_check_runs_dupes(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": SRC})
    out = icm("check", "--root", str(repo), "--allow-shallow")[1]
    assert ("duplicate rule: src/context.md:5 repeats AGENTS.md:6 "
            "(keep one home, link to it)\n") in out


@pytest.mark.parametrize("text,message", [
    ("dupes_similarity = 0\n", "must be a number above 0 and at most 1, "
     "got an integer (0)"),
    ("dupes_similarity = 1.5\n", "must be a number above 0 and at most 1, "
     "got a float (1.5)"),
    ("dupes_similarity = 'high'\n", "must be a number above 0 and at most 1, "
     "got a string ('high')"),
    ("dupes_copies = 'fatal'\n", "must be 'warning' or 'error', got 'fatal'"),
    ("dupes_min_words = 0\n", "must be a positive integer, got 0"),
    ("dupes_ignore = 'x'\n", "must be a list of strings, got a string ('x')"),
])
def test_config_is_strict(repo: Path, icm, text: str, message: str) -> None:
    write(repo, {"icm.toml": text})
    key = text.split(" ")[0]
    assert dupes(icm, repo) == (
        2, "", f"icm: icm.toml: key '{key}' {message}\n")


def _example(tmp_path: Path) -> Path:
    dest = tmp_path / "example"
    shutil.copytree(ROOT / "example_repo", dest)
    return dest


def test_example_repo_is_clean(tmp_path: Path, icm) -> None:
    assert dupes(icm, _example(tmp_path)) == (0, "dupes ok\n", "")


def test_example_repo_rule_copied_and_edited_is_diverged(
        tmp_path: Path, icm) -> None:
    """The seed's failure mode: a rule copied into a second note read with
    it (the handbook), then the copies diverge at the next change."""
    root = _example(tmp_path)
    src = (root / "src/context.md").read_text()
    start = src.index("`clean()` is a generator")
    rule = src[start:src.index("\n\n", start)]
    assert "600 MB" in rule
    with open(root / "AGENTS.md", "a") as fh:
        fh.write("\n" + rule.replace("600 MB", "6 GB") + "\n")
    home = (root / "AGENTS.md").read_text()
    line = home[:home.index("It died on")].count("\n") + 1
    at = src[:src.index("It died on")].count("\n") + 1
    assert dupes(icm, root) == (0, (
        f"diverged rule: src/context.md:{at} and AGENTS.md:{line} "
        "disagree: '600 MB' vs '6 GB'\n"), "")


# -- the similarity module, as the other features will call it -----------------


def test_index_pairs_and_nearest() -> None:
    from icm import similarity

    rule = "Every reader of a file stops at 1 MiB and reports the rest as skipped."
    stmts = (similarity.statements(f"# a\n\n{rule}\n\n- Unrelated words here "
                                   "about queue numbers and ownership.\n", "a.md")
             + similarity.statements(f"Intro.\n\n{rule.replace('1 MiB', '2 MiB')}\n",
                                     "b.md"))
    index = similarity.Index(stmts, min_words=6)
    assert len(index) == 3  # "Intro." is too short
    (m,) = index.pairs(0.75)
    assert (m.a.path, m.line_a, m.b.path, m.line_b) == ("a.md", 3, "b.md", 3)
    assert m.diverged and m.differences == (
        similarity.Difference("number", "1 MiB", "2 MiB"),)
    assert index.pairs(0.75, lambda a, b: False) == []
    best = index.nearest("Readers stop at 1 MiB and report the rest as skipped, "
                         "every file.", 0.5)
    assert [n.b.path for n in best] == ["a.md", "b.md"]
    assert not best[0].diverged and best[1].diverged
    assert best[0].score >= best[1].score
    assert index.nearest("Nothing alike at all in this one sentence.", 0.5) == []


def test_similarity_and_differences() -> None:
    from icm import similarity

    a = "Tests must not open a socket, ever, on any machine."
    assert similarity.similarity(a, a.upper()) == 1.0
    assert similarity.similarity(a, "Deploy the web frontend to staging first.") < 0.2
    assert similarity.differences(a, a.replace("must not", "must")) == (
        similarity.Difference("negation", "must not", "must"),)
    assert similarity.differences(a, a) == ()
    assert similarity.word_count("Don't read `a b c` from src/x.py, 64 KiB.") == 7


def test_cached_run_answers_the_same_and_sees_edits(repo: Path, icm) -> None:
    copy = "Every reader of a file stops at {} and reports the rest as skipped."
    write(repo, {"AGENTS.md": HANDBOOK,
                 "tests/context.md": f"# t\n\n{copy.format('1 MiB')}\n"})
    first = dupes(icm, repo)
    assert (repo / ".git/icm/dupes-cache.json").is_file()
    assert dupes(icm, repo) == first == (0, (
        "duplicate rule: tests/context.md:3 repeats AGENTS.md:6 "
        "(keep one home, link to it)\n"), "")
    write(repo, {"tests/context.md": f"# t\n\n{copy.format('2 MiB')}\n"})  # same size
    assert dupes(icm, repo) == (0, (
        "diverged rule: tests/context.md:3 and AGENTS.md:6 disagree: "
        "'2 MiB' vs '1 MiB'\n"), "")


def test_link_targets_are_not_compared(repo: Path, icm) -> None:
    # The same note linked from two folders: different relative paths, one rule.
    write(repo, {
        "a/context.md": "# a\n\nThe runtime contract is described in the "
                        "[core note](../core/context.md) and nowhere else.\n",
        "a/b/context.md": "# b\n\nThe runtime contract is described in the "
                          "[core note](../../core/context.md) and nowhere else.\n"})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: a/b/context.md:3 repeats a/context.md:3 "
        "(keep one home, link to it)\n"), "")


def test_a_rule_in_three_notes_is_two_findings_against_the_home(
        repo: Path, icm) -> None:
    rule = "Every reader of a file stops at 1 MiB and reports the rest as skipped."
    write(repo, {f"{d}/context.md": f"# {d}\n\n{rule}\n" for d in ("z", "m", "a")})
    write(repo, {"icm.toml": 'dupes_siblings = "warning"\n'})  # siblings, shown
    assert dupes(icm, repo) == (0, (
        "duplicate rule: m/context.md:3 repeats a/context.md:3 "
        "(keep one home, link to it)\n"
        "duplicate rule: z/context.md:3 repeats a/context.md:3 "
        "(keep one home, link to it)\n"), "")


def test_cached_run_never_loads_the_parser(repo: Path) -> None:
    import subprocess
    import sys

    write(repo, {"AGENTS.md": HANDBOOK, "src/context.md": SRC})
    code = ("import sys; from icm.cli import main; main(['check-dupes', '--root', "
            f"{str(repo)!r}]); print('icm.markdown' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True,
                           text=True, check=True).stdout for _ in range(2)]
    assert [r.splitlines()[-1] for r in runs] == ["True", "False"]


@pytest.mark.parametrize("copy,what", [
    ("Never commit the cache file to the repository.", "'Never commit' vs 'Commit'"),
    ("Do not commit the cache file to the repository.",
     "'Do not commit' vs 'Commit'"),
])
def test_a_negation_put_before_the_rule_is_diverged(
        repo: Path, icm, copy: str, what: str) -> None:
    write(repo, {"a/context.md": "# a\n\nCommit the cache file to the repository.\n",
                 "a/b/context.md": f"# b\n\n{copy}\n"})
    assert dupes(icm, repo) == (0, (
        f"diverged rule: a/b/context.md:3 and a/context.md:3 disagree: {what}\n"), "")


def test_a_negation_added_to_a_negated_rule_is_emphasis(repo: Path, icm) -> None:
    """llm-rp (round 8's fresh trees): "Never use locale-dependent formats
    (`x`)" against "... (no `x`)" was a diverged rule on the word "no". A
    negation put into a rule already negated before it flips nothing: a
    copy; put into a rule with none before it, it is still the finding."""
    write(repo, {"a/context.md": "# a\n\nNever use locale-dependent date "
                                 "formats (`toLocaleDateString()`).\n",
                 "a/b/context.md": "# b\n\nNever use locale-dependent date "
                                   "formats (no `toLocaleDateString()`).\n"})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: a/b/context.md:3 repeats a/context.md:3 (keep one "
        "home, link to it)\n"), "")
    assert similarity.differences(
        "Run the tests before merging.", "Do not run the tests before merging."
    ) == (similarity.Difference("negation", "Run", "Do not run"),)


# -- cost: every stage linear or capped (issue 22, item 9) ---------------------

SHAPES = {  # every word matches everywhere: difflib's worst (cubic) alignments
    "'a b c' vs 'a c b'": lambda n: ("a b c " * (n // 3), "a c b " * (n // 3)),
    "'a' vs 'a b'": lambda n: ("a " * n, "a b " * (n // 2)),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_aligning_two_statements_is_linear(shape: str) -> None:
    """1,000 words of 'a b c' against 'a c b' took difflib 6 s, 2,000 words
    46 s: past ``ALIGN_STEPS`` the patience alignment takes over, and the
    work (Python lines run) doubles with the words. The most a pair may
    run is fixed here, not derived from the budget, so raising the budget
    fails too (difflib inside it runs about 5 lines a step)."""
    from icm import similarity

    limit = 1_600_000
    work = {}
    for words in (500, 1000, 2000):
        a, b = SHAPES[shape](words)
        work[words] = python_lines(partial(similarity.differences, a, b), limit)
        assert similarity.differences(a, b) == ()
    assert work[2000] <= 2.5 * work[1000]


def test_a_long_copy_past_the_budget_still_diverges(repo: Path, icm) -> None:
    """What the patience alignment finds: the common start and end, then
    words each side holds once. The value between them is named."""
    body = ("Readers " + "a b c " * 300 + "stop at {} and " + "b c a " * 300
            + "report it.")
    write(repo, {"a/context.md": f"# a\n\n{body.format('64 KiB')}\n",
                 "a/b/context.md": f"# b\n\n{body.format('1 MiB')}\n"})
    assert dupes(icm, repo) == (0, (
        "diverged rule: a/b/context.md:3 and a/context.md:3 disagree: "
        "'1 MiB' vs '64 KiB'\n"), "")


def _prose() -> List[str]:
    """This repository's own notes and journal, as tokens: prose to test
    against (no third-party text is kept here)."""
    from icm import similarity

    paths = sorted([*ROOT.glob("journal/2026-*.md"), *ROOT.glob("**/context.md")])
    return [word for p in paths if ".venv" not in p.parts
            for word in similarity.tokens(p.read_text(encoding="utf-8")).values]


def test_prose_up_to_the_token_cap_is_aligned_by_difflib() -> None:
    """The budget is far above prose: a copy of ``MAX_TOKENS`` words with
    values changed and clauses moved gets difflib's own alignment, so no
    answer on real notes changed."""
    import random
    from difflib import SequenceMatcher

    from icm import similarity

    words, rnd, size = _prose(), random.Random(7), similarity.MAX_TOKENS
    assert len(words) > 4 * size
    for _ in range(6):
        at = rnd.randrange(len(words) - size)
        a = words[at:at + size]
        b = list(a)
        for _ in range(8):
            b[rnd.randrange(size)] = str(rnd.randrange(100))
        for _ in range(3):
            k = rnd.randrange(size - 20)
            b[k:k + 20] = b[k + 10:k + 20] + b[k:k + 10]
        assert similarity._opcodes(a, b) == SequenceMatcher(
            None, a, b, autojunk=False).get_opcodes()


_token_lists = st.lists(st.sampled_from("abcde"), max_size=40)


@given(_token_lists, _token_lists)
def test_alignments_tile_both_statements(a: List[str], b: List[str]) -> None:
    """Within the budget the opcodes are difflib's; past it (no steps at
    all), the patience alignment's cover both sides in order and pair only
    equal tokens."""
    from difflib import SequenceMatcher

    from icm import similarity

    assert similarity._opcodes(a, b) == SequenceMatcher(
        None, a, b, autojunk=False).get_opcodes()
    ops = similarity._opcodes(a, b, steps=0)
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j) and tag in ("equal", "replace", "delete", "insert")
        assert (tag == "equal") == (a[i1:i2] == b[j1:j2] and i2 > i1)
        assert (i2 > i1 or tag == "insert") and (j2 > j1 or tag == "delete")
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    if a == b and a:
        assert ops == [("equal", 0, len(a), 0, len(b))]


@pytest.mark.parametrize("text,kinds", [
    ("Use ```mermaid fences here", ["word"] * 4),  # no closing run of three
    ("Quote ``a` like that", ["word"] * 4),
    ("Quote ``a ` b`` and `c`", ["word", "code", "word", "code"]),
    ("see " + "x" * 300 + ".md", ["word"] * 3),  # no file name is that long
    ("see " + "x" * 200 + ".md", ["word", "path"]),
])
def test_code_spans_open_with_a_whole_run(text: str, kinds: List[str]) -> None:
    """A code span opens with a whole run of backticks and closes with a run
    as long (CommonMark); a path's ``.`` or ``/`` comes within 255
    characters. Trying every run from inside and every look-ahead to the
    end was quadratic (20,000 backticks: 17 s)."""
    from icm import similarity

    assert list(similarity.tokens(text).kinds) == kinds


# -- the candidate index as the queue asks it (issue 22, item 10) --------------

_gists = st.lists(st.sampled_from(
    ["parse", "dates", "export", "the", "to", "of", "stderr", "summary",
     "`x`", "src/a.py", "64", "not", "rows"]), max_size=8).map(" ".join)


@given(st.lists(_gists, max_size=12), _gists, st.sampled_from([0.25, 0.5, 0.75]))
def test_like_finds_what_similarity_scores(indexed: List[str], query: str,
                                           threshold: float) -> None:
    """Below the posting cap, ``like(..., min_shared=0)`` is every pair
    scoring at the threshold, as comparing each pair found them."""
    from icm import similarity

    index = similarity.Index(similarity.Statement(str(n), 1, t)
                             for n, t in enumerate(indexed))
    want = sorted(((-similarity.similarity(query, t), n) for n, t in
                   enumerate(indexed)
                   if similarity.similarity(query, t) >= threshold
                   or similarity.skeleton(query)[0] == similarity.skeleton(t)[0]
                   != ()))
    assert index.like(query, threshold, min_shared=0) == [
        (n, -neg) for neg, n in want]


# -- issue 25: what is not a disagreement, held-out classes --------------------

AGENTS_NOTES = {"icm.toml": 'note_name = "AGENTS.md"\n'}
LICENSE = ("Every {} source file starts with the two-line license header from "
           "`LICENSE.txt`.")


@pytest.mark.parametrize("home,copy", [
    (LICENSE.format("TS/TSX"), LICENSE.format("TS")),  # scope words
    (LICENSE.format("Node/Bun/Browser"), LICENSE.format("Node/Bun")),  # alternation
    ("Never hand-edit the generated schema files of this folder.",
     "Do not hand-edit the generated schema files of this folder."),  # synonyms
    ("Generated clients come from `fern/apis/**` and nobody edits them by hand.",
     "Generated clients come from `../fern/apis/**` and nobody edits them by "
     "hand."),  # one path, written from the root and from docs/
    ("Form inputs reuse `src/components/KeyInput.tsx` and never roll their own.",
     "Form inputs reuse `KeyInput.tsx` and never roll their own."),  # one file,
    # by its name and by its path (a fresh trial's local-mcp-gateway, round 3)
])
def test_a_copy_in_other_words_is_no_disagreement(repo: Path, icm, home: str,
                                                  copy: str) -> None:
    write(repo, {**AGENTS_NOTES, "AGENTS.md": f"# Handbook\n\n{home}\n",
                 "docs/AGENTS.md": f"# Docs\n\n{copy}\n"})
    code, out, err = dupes(icm, repo)
    assert (code, err) == (0, "") and out.startswith(
        "duplicate rule: docs/AGENTS.md:3 repeats AGENTS.md:3"), out


@pytest.mark.parametrize("heading,diverged", [
    ("Do Not", False), ("Don'ts", False), ("Avoid", False),
    ("Workflow", True),  # no heading to negate the item: a flipped rule
])
def test_an_item_of_a_do_not_list_is_negated_by_its_heading(
        repo: Path, icm, heading: str, diverged: bool) -> None:
    """riot-api-project (a fresh round 10 tree): "Edit `components/ui/`
    files manually" listed under "Do Not" says what "Never edit ..." says."""
    rule = "edit `components/ui/` files manually (use the shadcn CLI instead)"
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n",
                 "web/AGENTS.md": f"# Web\n\n## {heading}\n\n- {rule.capitalize()}\n",
                 "web/features/AGENTS.md": f"# Features\n\n- Never {rule}\n"})
    out = dupes(icm, repo)[1]
    said = "diverged rule:" if diverged else "duplicate rule:"
    assert out.startswith(f"{said} web/features/AGENTS.md:3 "), out
    # a word replaced ("Always" for "Never") is no item the heading negates
    write(repo, {"web/AGENTS.md": f"# Web\n\n## {heading}\n\n- Always {rule}\n"})
    assert dupes(icm, repo)[1].startswith(
        "diverged rule: web/features/AGENTS.md:3 "), heading


PLAYERS = ("Player handlers live in `{}` and import nothing from the other "
           "features.")


@pytest.mark.parametrize("folder,diverged", [
    ("backend/app/features", False),  # `players/` there is the root's path
    ("backend/app/other", True),  # `other/players/`: another folder
])
def test_a_path_named_by_its_tail_from_its_folder_is_one_path(
        repo: Path, icm, folder: str, diverged: bool) -> None:
    """The root's layout writes `features/players/` for the folder that
    `backend/app/features/`'s note calls `players/` (riot-api-project, a
    fresh round 10 tree: two diverged errors whose lines agree); the same
    short path in a folder it does not end is still a changed path."""
    write(repo, {**AGENTS_NOTES,
                 "AGENTS.md": f"# H\n\n{PLAYERS.format('features/players/')}\n",
                 f"{folder}/AGENTS.md": f"# F\n\n{PLAYERS.format('players/')}\n"})
    out = dupes(icm, repo)[1]
    said = "diverged rule:" if diverged else "duplicate rule:"
    assert out.startswith(f"{said} {folder}/AGENTS.md:3 "), out


@pytest.mark.parametrize("files", [
    {  # parallel template: each note's read-first line names its own README
        "AGENTS.md": "# H\n\n**Before writing any code**, you must read "
                     "[README.md](./README.md) for the rules of this folder.\n",
        "contrib/AGENTS.md": "# C\n\n**Before writing any code**, you must "
                             "read [README.md](./README.md) for the rules of "
                             "this folder.\n"},
    {  # per-package facts: each package's own alias target
        "AGENTS.md": "# H\n",
        "packages/graph/AGENTS.md": "# Graph\n\nThe `@/*` import alias maps to "
                                    "`packages/graph/src/*` in the tsconfig.\n",
        "packages/api/AGENTS.md": "# API\n\nThe `@/*` import alias maps to "
                                  "`packages/api/src/*` in the tsconfig.\n"},
    {  # per-package facts under parallel headings of the handbook
        "AGENTS.md": "# H\n\n## graph\n\nBuild this package with `pnpm --filter "
                     "graph build` before the tests run.\n",
        "packages/api/AGENTS.md": "# API\n\nBuild this package with `pnpm "
                                  "--filter api build` before the tests run.\n"},
    {  # mirrored steps: each note names the other's folder, not a value
        "AGENTS.md": "# H\n",
        "src/hooks/AGENTS.md": "# Hooks\n\nWhen this step changes, make the same "
                               "change in `skills/setup/SKILL.md` before you "
                               "commit.\n",
        "skills/AGENTS.md": "# Skills\n\nWhen this step changes, make the same "
                            "change in `src/hooks/setup.ts` before you commit.\n"},
])
def test_statements_about_their_own_subject_are_not_copies(repo: Path, icm,
                                                           files) -> None:
    write(repo, {**AGENTS_NOTES, **files})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_a_short_version_pin_that_differs_is_a_warning(repo: Path, icm) -> None:
    """Three words each, under dupes_min_words: compared all the same, and
    named; unmeasured on the tuning part, so not an error."""
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n\n- Node `^20.19.0` required\n",
                 "web/AGENTS.md": "# Web\n\n- Node `>=20.19.0` required\n",
                 "api/AGENTS.md": "# API\n\n- Node `^20.19.0` required\n"})
    assert dupes(icm, repo) == (0, (
        "diverged rule: web/AGENTS.md:3 and AGENTS.md:3 disagree: "
        "'`>=20.19.0`' vs '`^20.19.0`'\n"), "")
    code, out, _ = dupes(icm, repo, "--format", "json")
    found = json.loads(out)["checks"][0]["findings"]
    assert [(f["severity"], [d["kind"] for d in f["differences"]])
            for f in found] == [("warning", ["version"])]


def test_short_numbers_in_prose_are_versions(repo: Path, icm) -> None:
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n\nRequires Node ^20.19.0\n",
                 "web/AGENTS.md": "# Web\n\nRequires Node >=20.19.0\n"})
    code, out, _ = dupes(icm, repo, "--format", "json")
    found = json.loads(out)["checks"][0]["findings"]
    assert [(f["message"], f["differences"][0]["kind"]) for f in found] == [
        ("diverged rule: web/AGENTS.md:3 and AGENTS.md:3 disagree: "
         "'>=20.19.0' vs '^20.19.0'", "version")]


TEMPLATE = """# {name}

- Keep code, docs and configured workflows aligned in {name}.
- Record outcomes in the shared telemetry and update the task queues.
- Follow the universal agent protocols defined in the root handbook.
- Every new feature comes with tests that use no mocks at all.
- Requests time out after {timeout} seconds unless a caller passes its own.
"""


def test_generated_notes_are_one_finding_and_a_drift_its_own(repo: Path,
                                                               icm) -> None:
    notes = {f"mod/{n}/AGENTS.md": TEMPLATE.format(name="this module", timeout=30)
             for n in ("a", "b", "c", "d")}
    notes["mod/d/AGENTS.md"] = TEMPLATE.format(name="this module", timeout=90)
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **notes})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")  # siblings: each read alone
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_siblings = "warning"\n'})
    assert dupes(icm, repo) == (0, (
        "mod/a/AGENTS.md: template copies: 4 notes share 5 statements with "
        "mod/a/AGENTS.md; 1 differ: mod/d/AGENTS.md:7\n"
        "diverged rule: mod/d/AGENTS.md:7 and mod/a/AGENTS.md:7 disagree: "
        "'90' vs '30'\n"), "")
    write(repo, {"icm.toml": AGENTS_NOTES["icm.toml"], "mod/AGENTS.md":
                 TEMPLATE.format(name="this module", timeout=30)})
    assert dupes(icm, repo) == (0, (  # a parent's template: read with each copy
        "mod/AGENTS.md: template copies: 5 notes share 5 statements with "
        "mod/AGENTS.md; 1 differ: mod/d/AGENTS.md:7\n"
        "diverged rule: mod/d/AGENTS.md:7 and mod/AGENTS.md:7 disagree: "
        "'90' vs '30'\n"), "")



def test_a_stamps_copies_read_together_are_one_group(repo: Path, icm) -> None:
    """calendsync (round 7's tuned trees): Pommel writes one note into each
    crate and example, the folder's name in it; only a crate and its
    example are read together, under the group's three notes, and they gave
    11 duplicate rules. Copies of one stamp (three notes or more of one
    text, own folder masked: stale's rule) are one group however few are
    read together; two notes of one text are no stamp."""
    folders = ("crates/core", "crates/core/examples/demo", "crates/client")
    notes = {f"{f}/AGENTS.md": TEMPLATE.format(name=f.rsplit("/", 1)[1],
                                               timeout=30) for f in folders}
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **notes})
    assert dupes(icm, repo) == (0, (
        "crates/core/AGENTS.md: template copies: 2 notes share 5 statements "
        "with crates/core/AGENTS.md; none differ\n"), "")
    (repo / "crates/client/AGENTS.md").unlink()
    code, out, _ = dupes(icm, repo)
    assert code == 0 and out.splitlines() == [
        "duplicate rule: crates/core/examples/demo/AGENTS.md:3-7 and "
        "crates/core/AGENTS.md:3-7 hold the same 5 rules (keep one home, link "
        "to it)"]


def test_a_stamp_is_read_no_further_than_its_digest(repo: Path, icm,
                                                   monkeypatch) -> None:
    """The stamp's digest refuses a text of 256 KiB or more, so its read
    stops there (max_file_bytes read 10 MB of a note, then refused it)."""
    from icm import context as context_mod
    from icm.model.notes import WORDS_CAP

    folders = ("crates/core", "crates/core/examples/demo", "crates/client")
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **{
        f"{f}/AGENTS.md": TEMPLATE.format(name=f.rsplit("/", 1)[1], timeout=30)
        for f in folders}})
    limits = []
    real = context_mod.Context.read_bytes

    def spy(self, rel: str, limit: int = 0) -> bytes:
        if rel.startswith("crates/"):
            limits.append(limit)
        return real(self, rel, limit)

    monkeypatch.setattr(context_mod.Context, "read_bytes", spy)
    assert dupes(icm, repo)[0] == 0
    assert limits.count(WORDS_CAP) == 3  # the stamp's reads; the parse's own
    # read of each note keeps max_file_bytes


SELF_SAID = """# {name}

Note: This file was automatically generated by the notes tool, and has not
yet been checked by hand.

**Version**: v0.1.0 | **Status**: Active | **Last Updated**: March 2026

This file provides guidance to coding agents when working in this module.

- No unit tests in this module (interfaces and data classes only).
- Handles internal processing and request orchestration for this namespace.
"""


def test_what_generated_notes_say_of_themselves_is_no_copy(repo: Path,
                                                           icm) -> None:
    """A provenance line, a ``**Version**:`` header and "this file"/"this
    module" descriptions, each note saying them of itself, are not a rule
    held twice (test2's ecchronos: 14 of its 15 false copies): neither
    single copies nor statements of a template group. An instruction about
    "this module" is the template's rule, held in every note."""
    notes = {f"mod/{n}/AGENTS.md": SELF_SAID.format(name=n) for n in "abcd"}
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **notes})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    rules = TEMPLATE.format(name="this module", timeout=30).split("\n", 1)[1]
    write(repo, {p: text + rules for p, text in notes.items()})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")  # siblings: each read alone
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_siblings = "warning"\n'})
    assert dupes(icm, repo) == (0, (
        "mod/a/AGENTS.md: template copies: 4 notes share 5 statements with "
        "mod/a/AGENTS.md; none differ\n"), "")


@pytest.mark.parametrize("text,said", [
    ("Note: This file was automatically generated by Claude.", True),
    ("There are no unit tests in this module (interfaces only).", True),
    ("**Generated:** 2026-01-12 **Commit:** f0e85dc **Branch:** main", True),
    ("**Version**: 1.0 | **Status**: Production Ready", True),
    ("Keep the docs of this module aligned with its code.", False),
    ("- **Error wrapping**: Always use `fmt.Errorf` with `%w`.", False),
    ("Pass the flag to this module when you run it.", False),
    ("This project uses pnpm workspaces for every package.", False),
    ("- **Classes**: No specific classes exported.", True),  # an empty slot
    ("- **Functions**: No specific public functions exported.", True),
    ("**Exports:** none", True),
    ("- **Dependencies**: No new runtime dependencies.", False),  # a rule
    ("- **Classes**: `Parser`, `Lexer` and `Token`.", False),
])
def test_self_said_is_a_description_of_its_own_note(text: str, said: bool) -> None:
    assert similarity.self_said(text) is said


@pytest.mark.parametrize("text,described", [
    ("- `ApiKeyInput.tsx` - Secure API key input with header configuration", True),
    ("- **McpRegistry**: In-memory registry of discovered MCP packages", True),
    ("- **[debug/](debug/AGENTS.md)** - Debug logging for MCP traffic", True),
    ("- **Purpose**: Debug logging for MCP traffic", True),
    ("`VITE_API_URL` \u2014 the backend's URL (default: `localhost:3001`)", True),
    ("- **`McpServer.ts`** - Abstract base class all servers must extend", False),
    ("- `gen.ts` - Never edit it by hand; regenerate it", False),  # a modal
    ("- `test` - Run the whole suite before you push", False),  # imperative
    ("- `pnpm test` - runs the whole suite", False),  # a command to run
    ("- **Router Context**: Wrap components using navigation in a router", False),
    ("- **Type safety**: Full TypeScript strict mode", False),  # no named code
    ("The parser in `src/parse.py` reads every note once.", False),
])
def test_describes_is_a_description_of_named_code(text: str, described: bool
                                                  ) -> None:
    assert similarity.describes(text) is described


NAMES = st.from_regex(r"[a-z][a-z0-9_-]{0,12}\.(py|ts|tsx|md)", fullmatch=True)


@given(NAMES, st.text(max_size=80), st.sampled_from(
    ["Never", "Always", "Do not", "Run", "Use", "Keep", "must", "should"]))
def test_a_value_that_instructs_is_no_description(name: str, value: str,
                                                  word: str) -> None:
    """Whatever else a value says, a modal or an imperative first word in
    it makes the line a rule about the thing (its copy stays a finding)."""
    assert not similarity.describes(f"- `{name}` - {word} {value}")
    assert not similarity.describes(f"- `{name}` - The file. {word} {value}")
    similarity.describes(f"- `{name}` - {value}")  # never raises


PARENT = """# apps

## Files

- `src/ApiKeyInput.tsx` - Secure API key input with header configuration
- `src/DebugLogViewer.tsx` - JSON viewer of the debug logs, 500 lines
- **TDD**: Write component tests before the implementation, always
- `src/codegen.ts` - Generated from the schema; never edit it by hand
"""

CHILD = """# src

- `ApiKeyInput.tsx` - Secure API key input with header configuration
- `DebugLogViewer.tsx` - JSON viewer of the debug logs, 500 lines
- **TDD**: Write component tests before the implementation, always
- `codegen.ts` - Generated from the schema; never edit it by hand
"""


def test_a_description_of_code_is_no_copy_and_an_instruction_is(repo: Path,
                                                                icm) -> None:
    """A component's one-line purpose in its folder's note and in the
    parent's file list is no rule in two homes (issue 24: 10 of 17 false
    copies on a fresh trial); a copied instruction, about a file or not,
    is still reported, and so is a description that disagrees."""
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n",
                 "apps/AGENTS.md": PARENT, "apps/src/AGENTS.md": CHILD})
    copies = ("duplicate rule: apps/src/AGENTS.md:5 repeats apps/AGENTS.md:7 "
              "(keep one home, link to it)\n"
              "duplicate rule: apps/src/AGENTS.md:6 repeats apps/AGENTS.md:8 "
              "(keep one home, link to it)\n")
    assert dupes(icm, repo) == (0, copies, "")
    write(repo, {"apps/src/AGENTS.md": CHILD.replace("500", "200")})
    assert dupes(icm, repo) == (0, (
        "diverged rule: apps/src/AGENTS.md:4 and apps/AGENTS.md:6 disagree: "
        "'200 lines' vs '500 lines'\n") + copies, "")


def test_empty_fields_of_generated_notes_are_no_copies(repo: Path, icm) -> None:
    """Each generated note's "**Classes**: No ... exported" is its own empty
    slot (test3: 24 of 26 false copies), in a parent's note or a sibling's;
    a field that says something is still a copy."""
    note = ("# {n}\n\n- **Classes**: No classes or public types exported.\n"
            "- **Functions**: No specific public functions exported.\n")
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_siblings = "warning"\n',
                 "AGENTS.md": "# H\n", "doc/AGENTS.md": note.format(n="doc"),
                 "doc/a/AGENTS.md": note.format(n="a"),
                 "doc/b/AGENTS.md": note.format(n="b")})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
                 "AGENTS.md": "# H\n\nEvery specific public function is exported "
                              "from the one `api.py` module of the tree.\n"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")  # no restatement either
    said = "- **Classes**: `Parser` reads every note of the tree once.\n"
    write(repo, {"doc/AGENTS.md": note.format(n="doc") + said,
                 "doc/a/AGENTS.md": note.format(n="a") + said})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: doc/a/AGENTS.md:5 repeats doc/AGENTS.md:5 "
        "(keep one home, link to it)\n"), "")


def test_a_list_of_code_spans_is_no_copy_of_a_rule_naming_spans(repo: Path,
                                                                icm) -> None:
    """A statement of nothing but code spans masks to nothing but masks: its
    one bigram was contained in any statement naming three spans in a row
    (similarity 1.0, test3's resource list against two rules)."""
    write(repo, {**AGENTS_NOTES,
                 "AGENTS.md": "# H\n\n`Alpha`, `Beta`, `Gamma`, `Delta`, "
                              "`Epsilon`, `Zeta`\n",
                 "web/AGENTS.md": "# Web\n\n1. Always use `ui-` components when "
                                  "available (e.g., `ui-button`, `ui-tag`, "
                                  "`ui-card`) rather than custom markup.\n"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    assert similarity.similarity("`a`, `b`, `c`", "`a`, `b`, `d`") == 1.0


def test_a_symlinked_note_is_one_file(repo: Path, icm) -> None:
    write(repo, {**AGENTS_NOTES, ".agents/AGENTS.md": HANDBOOK,
                 "src/context.md": "# src\n\nOther words entirely, about how "
                 "the cleaner streams its rows.\n"})
    os.symlink(".agents/AGENTS.md", repo / "AGENTS.md")
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_the_posting_cap_hides_no_pair_sharing_only_masked_values() -> None:
    """Each bigram the pair shares holds a masked code span and is held by
    more statements than the cap; the word triples around the spans are the
    pair's alone."""
    pair = [similarity.Statement("a.md", 1, "Run `lint` and `test` and `docs` "
                                 "before pushing"),
            similarity.Statement("b.md", 1, "Run `lint` and `test` and `docs` "
                                 "before merging")]
    crowd = []
    for n in range(similarity.POSTING_CAP + 1):
        w = "".join(chr(97 + int(d)) for d in f"{n:02d}")
        crowd += [similarity.Statement(f"c{n}.md", 1, f"Run `x` now {w}q1"),
                  similarity.Statement(f"d{n}.md", 1, f"{w}q2 `x` and {w}q3"),
                  similarity.Statement(f"e{n}.md", 1, f"{w}q4 and `x` {w}q5"),
                  similarity.Statement(f"f{n}.md", 1, f"{w}q6 `x` before {w}q7")]
    found = similarity.Index(pair + crowd).pairs(0.75)
    assert [(m.a.path, m.b.path) for m in found] == [("a.md", "b.md")]



def test_two_lists_alike_only_in_form_are_no_copy() -> None:
    """slsa-builder (round 8's fresh trees): the handbook's changelog
    categories and a workflow note's job permissions share only the list's
    glue ("`A`, `B`, or `C`") and were one rule three times. Lists sharing
    no word but their masked values and no code span are no pair; one code
    span or one word in common keeps the pair."""
    def found(a: str, b: str):
        stmts = [similarity.Statement("a.md", 1, a), similarity.Statement("b.md", 1, b)]
        return [(m.a.path, m.b.path) for m in similarity.Index(stmts).pairs(0.75)]

    categories = "Category: `Added`, `Changed`, `Removed`, `Fixed`, or `None`."
    assert found(categories, "No job gets `contents: write`, `packages: write`, "
                 "`attestations: write`, or `id-token: write` here.") == []
    assert found(categories, "No job gets `contents: write`, `packages: write`, "
                 "`Fixed`, or `id-token: write` here.") == [("a.md", "b.md")]
    assert found("Run `lint` and `test` and `docs` before pushing",
                 "Run `lint` and `test` and `docs` before merging") == [
        ("a.md", "b.md")]


_SEGMENT = st.sampled_from(["a", "b", "src", "docs", "x.md"])
_FOLDER = st.lists(_SEGMENT, max_size=3).map("/".join)


@given(_FOLDER, _FOLDER, _FOLDER, st.booleans())
def test_resolving_never_makes_two_targets_one(folder: str, here: str,
                                               there: str, dotted: bool) -> None:
    """A file written relative to two folders is one path; two ``./`` or
    ``../`` paths that resolve to different files are never the same."""
    import posixpath

    def written(target: str, folder: str) -> str:
        rel = posixpath.relpath(target, folder or ".")
        return rel if rel.startswith("../") or not dotted else "./" + rel

    target = posixpath.join(folder, "f.md")
    p, q = written(target, here), written(target, there)
    assert similarity.same_path(p, here, q, there)
    assert similarity.resolve(p, here) == target
    r = written(posixpath.join(folder, "g.md"), there)
    if p.startswith(("./", "../")) and r.startswith(("./", "../")):
        assert not similarity.same_path(p, here, r, there)
    assert not similarity.same_path("g.md", here, q, there)  # another name


def test_a_changed_path_naming_one_side_only_still_diverges(repo: Path, icm) -> None:
    """The mirror rule needs both values to name the other's folder: a copy
    in skills/ that points at another file of its own still disagrees."""
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n",
                 "src/hooks/AGENTS.md": "# Hooks\n\nWhen this step changes, make "
                 "the same change in `skills/setup/SKILL.md` before you commit.\n",
                 "skills/AGENTS.md": "# Skills\n\nWhen this step changes, make "
                 "the same change in `skills/setup/OLD.md` before you commit.\n"})
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_siblings = "warning"\n'})
    code, out, _ = dupes(icm, repo)
    assert code == 0 and out.startswith("diverged rule: src/hooks/AGENTS.md:3 and "
                                        "skills/AGENTS.md:3 disagree"), out


# -- restated rules (dupes_restated = "info") ----------------------------------

RESTATED = {
    "AGENTS.md": "# H\n\n- Run the whole test suite with coverage before you "
                 "push a branch.\n- Lint every changed file with the strict "
                 "profile before review.\n",
    "web/AGENTS.md": "# Web\n\n- Before pushing any branch, the complete suite "
                     "must pass under coverage.\n- Format the generated client "
                     "with prettier after every schema export.\n",
}


def test_a_reworded_rule_is_info_when_asked_for(repo: Path, icm) -> None:
    write(repo, {**RESTATED, "icm.toml": 'note_name = "AGENTS.md"\n'})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")  # off by default
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n'})
    code, out, err = dupes(icm, repo)
    assert (code, out, err) == (0, "restated rule: web/AGENTS.md:3 restates "
                                "AGENTS.md:3 (keep one home, link to it)\n", "")
    found = json.loads(dupes(icm, repo, "--format", "json")[1])["checks"][0][
        "findings"]
    assert [(f["code"], f["severity"], [x["line"] for x in f["locations"]])
            for f in found] == [("restated-rule", "info", [3, 3])]


def test_restated_rules_skip_copies_own_subjects_and_the_journal(repo: Path,
                                                                 icm) -> None:
    """A copy is reported once, as a copy; statements each about their own
    package, and a journal Invariant restating a note, are no restatement."""
    write(repo, {
        "icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
        "AGENTS.md": "# H\n\n- Every reader of a file stops at 1 MiB and "
                     "reports the rest as skipped.\n",
        "src/AGENTS.md": "# src\n\n- Every reader of a file stops at 1 MiB and "
                         "reports the rest as skipped.\n",
        "packages/graph/AGENTS.md": "# Graph\n\nThe `@/*` import alias maps to "
                                    "`packages/graph/src/*` in the tsconfig.\n",
        "packages/api/AGENTS.md": "# API\n\nIn the tsconfig the import alias "
                                  "`@/*` points at `packages/api/src/*`.\n",
        "journal/2026-01-01_limit.md": _entry(
            "A file reader halts at 1 MiB; what is left is reported skipped."),
    })
    code, out, _ = dupes(icm, repo)
    assert (code, out) == (0, "duplicate rule: src/AGENTS.md:3 repeats "
                           "AGENTS.md:3 (keep one home, link to it)\n"), out


def test_a_short_fact_naming_one_target_under_one_label_is_restated(
        repo: Path, icm) -> None:
    """Under dupes_min_words, and worded apart: "Postgres schema:" and one
    file, written from the root and from its package (test: 6 of langfuse's
    restated clusters were such list items). A command is its folder's: every
    SDK's own ``make lint`` (two sibling SDKs write it) is no restatement,
    nor a bare path alone."""
    write(repo, {
        "icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
        "AGENTS.md": "# H\n\n- Postgres schema: "
                     "`packages/shared/prisma/schema.prisma`\n"
                     "- Lint: `mise exec -- make lint`\n"
                     "- Details: `packages/shared/src/server/index.ts`\n",
        "packages/shared/AGENTS.md": "# Shared\n\n- Server exports: "
                                     "`src/server/index.ts`\n"
                                     "- The Postgres schema lives in "
                                     "`prisma/schema.prisma`\n",
        "sdk/go/AGENTS.md": "# Go\n\n- Lint: `mise exec -- make lint`\n"
                            "- See `src/server/index.ts`\n",
        "sdk/nodejs/AGENTS.md": "# Node\n\n- Lint: `mise exec -- make lint`\n"})
    assert dupes(icm, repo) == (0, (
        "restated rule: packages/shared/AGENTS.md:4 restates AGENTS.md:3 "
        "(keep one home, link to it)\n"), "")


def test_a_rare_written_term_is_one_fact_and_a_parallel_template_is_not(
        repo: Path, icm) -> None:
    """One path written alike from two folders (`docs/REFERENCE.md` from
    ``src/`` and ``src/agents/``: each folder resolves it apart) under a
    shared label is one fact (test: oh-my-claudecode's reference updates);
    one command in sibling packages' notes is each package's own (pulumi's
    `make lint_fix`), however rare."""
    write(repo, {
        "icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
        "AGENTS.md": "# H\n\n- Lint fix: `mise exec -- make lint_fix`\n",
        "src/AGENTS.md": "# src\n\n- Update `docs/REFERENCE.md` (Agents "
                         "section) with each new agent.\n",
        "src/agents/AGENTS.md": "# Agents\n\n- Update `docs/REFERENCE.md` "
                                "(Agents section, count)\n",
        "sdk/nodejs/AGENTS.md": "# Node\n\n- Lint fix: `mise exec -- make "
                                "lint_fix`\n",
        "sdk/python/AGENTS.md": "# Python\n\n- Lint fix: `mise exec -- make "
                                "lint_fix`\n"})
    assert dupes(icm, repo) == (0, (
        "restated rule: src/agents/AGENTS.md:3 restates src/AGENTS.md:3 "
        "(keep one home, link to it)\n"), "")


def test_a_folder_role_restated_in_its_own_note_is_found(repo: Path,
                                                         icm) -> None:
    """A parent's entry naming a folder and that folder's own note say one
    thing in two wordings, under the lexical threshold (0.28 here; prefect's,
    lancedb's and codemod's folder roles scored 0.2-0.3): a pair naming the
    other's folder is held to ``RESTATED_ROLE``. The same two statements
    with no folder named stay unpaired."""
    role = ("# src\n\n- `utilities/`: cross-cutting helpers for async code "
            "and schema hydration.\n")
    own = ("# Utilities\n\nGeneral-purpose helpers and cross-cutting tools "
           "used by the SDK and its server.\n")
    write(repo, {
        "icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
        "AGENTS.md": "# H\n\n- Read the note of the folder you work in.\n",
        "src/AGENTS.md": role, "src/utilities/AGENTS.md": own})
    assert dupes(icm, repo) == (0, (
        "restated rule: src/utilities/AGENTS.md:3 restates src/AGENTS.md:3 "
        "(keep one home, link to it)\n"), "")
    write(repo, {"src/AGENTS.md": role.replace("`utilities/`", "Helpers")})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


@given(st.text(alphabet="ab/._- `Z:", max_size=60),
       st.sampled_from(["AGENTS.md", "x/AGENTS.md", "x/y/z/AGENTS.md"]))
def test_written_terms_are_folder_free_and_never_rooted(text: str,
                                                        path: str) -> None:
    """What a statement writes is the same from every folder (that is what
    a target is not), lower case, at least four characters, never led by
    ``./`` or ``/``."""
    terms = similarity.written(similarity.Statement(path, 1, text))
    assert terms == similarity.written(similarity.Statement("q/AGENTS.md", 1, text))
    for term in terms:
        assert term == term.lower() and len(term) >= 4
        assert not term.startswith(("./", "/"))


def test_the_semantic_option_ranks_restated_candidates(repo: Path, icm,
                                                       monkeypatch) -> None:
    """With ``similarity = "semantic"`` the model's cosine lifts a pair the
    lexical score leaves under its threshold, and candidates still come from
    shared words (an embedder scoring every pair alike finds no other)."""
    class Unit(tuple):  # a unit vector, without numpy (an extra's package)
        def __matmul__(self, other):
            return sum(a * b for a, b in zip(self, other))

    def embed(texts):  # the "same meaning" for every text: cosine 1.0
        return [Unit((0.6, 0.8)) for _ in texts]

    near = {"AGENTS.md": "# H\n\n- Ship the nightly archive to the mirror "
                         "after tagging a release candidate.\n",
            "ops/AGENTS.md": "# Ops\n\n- Once a candidate tag exists, upload the "
                             "archive so downstream readers fetch it.\n",
            "docs/AGENTS.md": "# Docs\n\n- Headings use sentence case and "
                              "never end with punctuation marks.\n"}
    write(repo, {**near, "icm.toml": 'note_name = "AGENTS.md"\n'
                 'dupes_restated = "info"\n'})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")  # lexical: under 0.3
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n'
                 'similarity = "semantic"\n'})
    monkeypatch.setattr(similarity, "_MODEL", [embed])
    assert dupes(icm, repo) == (0, "restated rule: ops/AGENTS.md:3 restates "
                                "AGENTS.md:3 (keep one home, link to it)\n", "")


def test_neighbours_pair_each_text_with_its_best_match() -> None:
    texts = ["Run the whole test suite with coverage before you push a branch.",
             "Before pushing any branch, the complete suite must pass under "
             "coverage.",
             "The suite runs with coverage on every branch push, no exceptions.",
             "Format the generated client with prettier after each export."]
    ranker = similarity.Ranker(texts)
    found = ranker.neighbours(0.3, lambda i, j: True)
    assert [(i, j) for i, j, _ in found] == [(0, 1), (0, 2)]
    assert ranker.neighbours(0.3, lambda i, j: 0 not in (i, j)) == [
        (1, 2, pytest.approx(found[0][2], abs=1.0))]
    assert ranker.neighbours(0.3, lambda i, j: True, cap=1) == []


# -- restated inside one note (RESTATED_WITHIN) --------------------------------

WITHIN = ("# Site\n\n## Link checking\n\nRun `npm run lint:links` to build the "
          "site and check every page for broken links.\n\n## Before a pull "
          "request\n\n- [ ] Check for broken links: `npm run lint:links` "
          "passes.\n")


def test_a_rule_restated_in_another_section_of_its_note_is_found(
        repo: Path, icm) -> None:
    """test4's labels hold every rule stated twice: half its restated
    clusters sit in two sections of one note (a checklist repeating the
    sections above it); the old finder paired only two notes."""
    write(repo, {"icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
                 "AGENTS.md": WITHIN})
    assert dupes(icm, repo) == (0, "restated rule: AGENTS.md:9 restates "
                                "AGENTS.md:5 (keep one home, link to it)\n", "")
    found = json.loads(dupes(icm, repo, "--format", "json")[1])["checks"][0][
        "findings"]
    assert [f["fix"] for f in found] == ["if both say one rule, keep one"]


def test_one_section_steps_and_a_folder_named_throughout_are_no_restatement(
        repo: Path, icm) -> None:
    """The false classes of test4's within-note pairs: list items of one
    section sharing a command prefix (`npm run lint` and `npm run lint:fix`,
    each its own step), lines of different sections that share only a
    folder the whole note names (`docs/`): a term many lines hold says no
    rule, and a long summary sharing one term and one word with a line
    (under ``RESTATED_WITHIN_FLOOR``)."""
    write(repo, {
        "icm.toml": 'note_name = "AGENTS.md"\ndupes_restated = "info"\n',
        "AGENTS.md": "# Site\n\n## Checks\n\n- Run `npm run lint` to check the "
                     "site for ESLint issues before review.\n- Run `npm run "
                     "lint:fix` to fix the site's ESLint issues before review."
                     "\n\n## Layout\n\nAll site pages live under `docs/` and "
                     "build with the site generator.\n\n## Styles\n\nSite "
                     "styles live in `docs/` beside the pages they shape.\n\n"
                     "## Assets\n\nImages for the site go into `docs/` next to "
                     "each page.\n\n## Deploy\n\nThe site deploys from `docs/` "
                     "on every push to main.\n\n## About\n\nThe toolkit is a "
                     "modular coding workspace enabling many agent workflows "
                     "with dozens of top-level modules under `src/kit/` and one "
                     "shared runner.\n\n## Layout of the code\n\nLocated in "
                     "`src/kit/`, these modules provide the primary "
                     "capabilities.\n"})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")


def test_copies_that_each_point_at_one_home_are_no_second_home(repo: Path,
                                                                 icm) -> None:
    """Two sibling notes each summing up a rule in one line that sends the
    reader to its home ("see `cmd/AGENTS.md` -> Testing", round 5's trial:
    noise, each copy names where the rule lives); the same line naming no
    home is still a copy, and a pointer line that disagrees is still
    diverged."""
    line = ("New tests inject the runner and capture output in buffers; the old "
            "mocks package is deprecated{see}.\n")
    see = " (see `cmd/AGENTS.md` -> Testing)"
    files = {"icm.toml": 'note_name = "AGENTS.md"\ndupes_siblings = "warning"\n',
             "AGENTS.md": "# H\n",
             "cmd/AGENTS.md": "# Cmd\n\n## Testing\n\nEach command takes its "
                              "runner as an argument, and tests pass a fake.\n",
             "internal/AGENTS.md": "# Internal\n\n" + line.format(see=see),
             "test/AGENTS.md": "# Test\n\n" + line.format(see=see)}
    write(repo, files)
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"test/AGENTS.md": "# Test\n\n" + line.format(see="")})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: test/AGENTS.md:3 repeats internal/AGENTS.md:3 "
        "(keep one home, link to it)\n"), "")
    write(repo, {"internal/AGENTS.md": "# Internal\n\n" + line.format(see="")})
    assert dupes(icm, repo)[1].startswith("duplicate rule: ")
    write(repo, {"internal/AGENTS.md": "# Internal\n\n" + line.replace(
        "deprecated", "not deprecated").format(see=see),
        "test/AGENTS.md": "# Test\n\n" + line.format(see=see)})
    assert dupes(icm, repo)[1].startswith("diverged rule: ")


FORM = """# {name} notes

> Scope: this folder only. Keep it under {cap} lines. Do not restate the handbook.

## Metadata

- **Last reviewed:** 2026-0{month}-1{day}
- **Exports:** `{name}_open()`, `{name}_close()` and the `{Name}Error` type

## Change protocol

- Update this file when the **{name} exports** or their public types change
{rule}"""
RULE = "- Every reader of a file stops at 1 MiB and reports the rest as skipped.\n"


def form(name: str, n: int, cap: int = 150, rule: str = "") -> str:
    return FORM.format(name=name, Name=name.title(), cap=cap, month=n % 9 + 1,
                       day=n % 10, rule=rule)


def test_a_form_filled_per_note_is_no_rule_and_its_fixed_line_one_finding(
        repo: Path, icm) -> None:
    """Notes made from one form (round 6's cogni-template: 190 of 223
    findings): each note's own review date, exports and "update when"
    line fill the same place in every note, no copies and no disagreement;
    the form's fixed line is one finding per home, and a drift from it
    and a rule two of the notes write are still found."""
    names = ("api", "db", "jobs", "mail", "web")
    notes = {f"src/{x}/AGENTS.md": form(x, n) for n, x in enumerate(names)}
    notes["src/AGENTS.md"] = form("src", 7, rule=RULE)
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **notes})
    fixed = ("src/AGENTS.md: template copies: 6 notes share 1 statements with "
             "src/AGENTS.md; none differ\n")
    assert dupes(icm, repo) == (0, fixed, "")
    write(repo, {"src/db/AGENTS.md": form("db", 1, rule=RULE),
                 "src/web/AGENTS.md": form("web", 4, cap=300)})
    assert dupes(icm, repo) == (0, (
        "src/AGENTS.md: template copies: 5 notes share 1 statements with "
        "src/AGENTS.md; none differ\n"
        "duplicate rule: src/db/AGENTS.md:13 repeats src/AGENTS.md:13 "
        "(keep one home, link to it)\n"
        "diverged rule: src/web/AGENTS.md:3 and src/AGENTS.md:3 disagree: "
        "'300 lines' vs '150 lines'\n"), "")


def test_a_fixed_line_written_from_each_folder_is_the_form_s(repo: Path,
                                                             icm) -> None:
    """A form's fixed line holds its paths as each note's folder reads them
    (codomyrmex's "Project root: ../../README.md" one level deeper): the
    same line, one group finding."""
    # (worded as a rule: the same line as a bare navigation link is a
    # label's value said twice, no copy at all)
    line = "- **Project root**: read {up}README.md first, the project's handbook\n"
    notes = {f"mod/{x}/AGENTS.md": f"# {x}\n\n" + line.format(up="../../")
             for x in "abcd"}
    notes.update({f"mod/{x}/y/AGENTS.md": f"# {x}\n\n" + line.format(
        up="../../../") for x in "ab"})
    notes["mod/AGENTS.md"] = "# mod\n\n" + line.format(up="../")
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n", **notes})
    assert dupes(icm, repo) == (0, (
        "mod/AGENTS.md: template copies: 7 notes share 1 statements with "
        "mod/AGENTS.md; none differ\n"), "")


CRATE = """# {name}

- Depends on `blueprint-std` (with the `std` feature) for filesystem primitives.
- Never open one database path from two processes at once; it corrupts the file.
- All public items of `{crate}` are re-exported at the crate root for users.
"""


def test_a_crate_note_and_its_src_note_describe_one_code(repo: Path,
                                                         icm) -> None:
    """A crate's note and its ``src/`` note both describe the crate (round
    6's blueprint: 14 false copies): a description in both is no second
    home, a crate named as a module (``foo_bar``, ``foo-bar``) no
    disagreement; an instruction in both is still a copy, and the root's
    ``src/`` note is read against the handbook as before."""
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n",
                 "crates/db/AGENTS.md": CRATE.format(name="db", crate="local-db"),
                 "crates/db/src/AGENTS.md": CRATE.format(name="src",
                                                          crate="local_db")})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: crates/db/src/AGENTS.md:4 repeats crates/db/AGENTS.md:4 "
        "(keep one home, link to it)\n"), "")
    shutil.rmtree(repo / "crates")
    write(repo, {"AGENTS.md": CRATE.format(name="H", crate="local-db"),
                 "src/AGENTS.md": CRATE.format(name="src", crate="local-db")})
    assert dupes(icm, repo) == (0, (
        "duplicate rule: src/AGENTS.md:3-5 and AGENTS.md:3-5 hold the same 3 "
        "rules (keep one home, link to it)\n"), "")


@pytest.mark.parametrize("x,y,same", [
    ("foo-bar", "foo_bar", True),
    ("api.rs", "api", True),
    ("#[auto_impl(&, Arc)]", "auto_impl", True),
    ("Stream", "Stream<Item = Result<JobCall, BoxError>>", True),
    ("init_cache", "init_cache()", True),
    ("foo.py", "foo.rs", False),  # two files
    ("make test", "make lint", False),
    ("src/api.rs", "src/api", False),  # paths are same_path's
    ("pnpm", "npm", False),
])
def test_same_name_sets_spelling_aside_never_a_value(x: str, y: str,
                                                     same: bool) -> None:
    assert similarity.same_name(x, y) is same


@pytest.mark.parametrize("text,instructs", [
    ("Depends on `blueprint-std` for filesystem and sync primitives.", False),
    ("Requires Foundry (`forge`) to be installed on the build system.", False),
    ("Used by the manager and other crates needing persistent state.", False),
    ("Run `cargo test -p x` before you open a pull request.", True),
    ("Never hand-edit the generated bindings.", True),
    ("The parser must not follow symlinks out of the root.", True),
])
def test_instructs_is_a_rule_s_mood(text: str, instructs: bool) -> None:
    assert similarity.instructs(text) is instructs


@given(st.text(max_size=30), st.text(max_size=30))
def test_same_name_is_symmetric_and_names_itself(x: str, y: str) -> None:
    assert similarity.same_name(x, y) is similarity.same_name(y, x)
    assert similarity.same_name(x, x) is bool(x)


@pytest.mark.parametrize("text,headings,rule", [
    ("Infrastructure that the features depend on: database, cache, logging.",
     ("Layout",), False),
    ("Next.js 15 + React 19 (App Router)", ("Tech Stack",), False),
    ("**Profile**: A named collection of servers behind one endpoint", (), False),
    ("Every reader of a file stops at 1 MiB.", ("Limits",), True),  # a kind
    ("Generated clients come from `api/` and nobody edits them.", (), True),
    ("Final architecture docs go to `docs/architecture/`", ("Project Rules",), True),
    ("`Object.freeze()` in stores - breaks validation", ("ANTI-PATTERNS",), True),
    ("Record outcomes in the shared telemetry.", (), True),  # an imperative
    ("The cache is rebuilt on a miss.", ("Invariant",), True),  # a journal slot
])
def test_holds_rule_reads_a_rule_however_worded(text: str, headings: Tuple[str, ...],
                                                 rule: bool) -> None:
    statement = similarity.Statement("a/AGENTS.md", 3, text, headings=headings)
    assert similarity.holds_rule(statement) is rule


def test_a_fact_said_in_a_parent_and_a_child_is_no_second_home(repo: Path,
                                                              icm) -> None:
    """A label's value (what a folder is) in the parent's layout and the
    folder's own note is a fact said twice, no rule with two homes (the
    trials' labels: 7 of 7 such copies noise); the same line under a
    heading naming rules, or holding of a whole kind, is a rule and still
    a copy, and so is a sentence with no label ("Imports are sorted by
    ruff")."""
    fact = ("- **Core**: shared infrastructure that the features depend on "
            "(database, cache, logging).\n")
    write(repo, {**AGENTS_NOTES, "AGENTS.md": "# H\n",
                 "app/AGENTS.md": "# App\n\n## Layout\n\n" + fact,
                 "app/core/AGENTS.md": "# Core\n\n## Overview\n\n" + fact})
    assert dupes(icm, repo) == (0, "dupes ok\n", "")
    write(repo, {"app/core/AGENTS.md": "# Core\n\n## Conventions\n\n" + fact})
    copy = ("duplicate rule: app/core/AGENTS.md:5 repeats app/AGENTS.md:5 "
            "(keep one home, link to it)\n")
    assert dupes(icm, repo) == (0, copy, "")
    every = fact.replace("the features", "every feature")
    write(repo, {"app/AGENTS.md": "# App\n\n## Layout\n\n" + every,
                 "app/core/AGENTS.md": "# Core\n\n## Overview\n\n" + every})
    assert dupes(icm, repo) == (0, copy, "")
    plain = "- Imports are sorted by ruff, standard library first, then the rest.\n"
    write(repo, {"app/AGENTS.md": "# App\n\n## Layout\n\n" + plain,
                 "app/core/AGENTS.md": "# Core\n\n## Overview\n\n" + plain})
    assert dupes(icm, repo) == (0, copy, "")
