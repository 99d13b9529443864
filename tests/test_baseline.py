"""``icm baseline`` and ``icm-baseline.json``, and inline suppressions, end
to end on real repositories: old findings pass and are counted, a line
shift keeps them, a new one fails, a fixed one is said once, the file only
shrinks; a hostile file is one line and exit 2."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import List

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm import baseline
from icm.checks.stale import RULES as STALE_RULES
from icm.errors import UsageError
from icm.finding import Finding
from tests.conftest import commit, python_lines, write

D1 = "2026-11-01T12:00:00+00:00"
D2 = "2026-11-20T12:00:00+00:00"
HB = "# H\n\nintro\n\n[x](missing.md)\n\n- [s](src/context.md)\n"
BROKEN = "broken link: AGENTS.md -> missing.md"


def _adopted(repo: Path) -> None:
    """A repository red on day one: a broken link and a stale note."""
    commit(repo, {"AGENTS.md": HB, "src/context.md": "# src\n",
                  "src/a.py": "1\n"}, D1)
    commit(repo, {"src/a.py": "2\n"}, D2)


def _check(icm, repo: Path, *more: str):
    return icm("check", "--root", str(repo), "-q", *more)


def test_old_findings_pass_a_shift_keeps_them_a_new_one_fails(repo: Path,
                                                              icm) -> None:
    _adopted(repo)
    code, out, _ = _check(icm, repo)
    assert code == 1 and out.endswith(
        "icm check: 2 of 9 checks failed (links: 1 error, stale: 1 error)\n")
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 2 findings\n", "")
    doc = json.loads((repo / "icm-baseline.json").read_text())
    assert doc == {"version": 1, "findings": [
        {"check": "links", "code": "missing-file", "path": "AGENTS.md",
         "message": BROKEN, "count": 1},
        {"check": "stale", "code": "stale", "path": "src/context.md",
         "message": "code in src", "count": 1}]}
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 2 baselined\n", "")
    # Lines above the link, and more code (another number of days): the same.
    commit(repo, {"AGENTS.md": "# H\n\nmore\n\nlines\n\n" + HB[4:],
                  "src/a.py": "3\n"}, "2026-11-29T12:00:00+00:00")
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 2 baselined\n", "")
    # A second broken link in the same file is new.
    write(repo, {"AGENTS.md": HB + "\n[y](gone.md)\n"})
    assert _check(icm, repo) == (1, (
        "broken link: AGENTS.md -> gone.md\n"
        "links: 1 problem (missing file 1)\n"
        "icm check: 1 of 9 checks failed (links: 1 error), 2 baselined\n"), "")
    # One copy is held, a second copy of the same finding fails.
    write(repo, {"AGENTS.md": HB + "\n[x](missing.md)\n"})
    assert _check(icm, repo)[1].startswith("broken link: AGENTS.md -> missing.md\n")


def test_a_fixed_finding_is_said_once_and_baseline_only_shrinks(repo: Path,
                                                                icm) -> None:
    _adopted(repo)
    icm("baseline", "--root", str(repo))
    before = (repo / "icm-baseline.json").read_bytes()
    write(repo, {"AGENTS.md": HB.replace("[x](missing.md)", "x")})
    said = ("icm-baseline.json: 1 entry matches no finding now (fixed?); run "
            "'icm baseline' to drop it\n")
    assert _check(icm, repo) == (
        0, said + "icm check: all 9 checks passed, 1 baselined\n", "")
    assert icm("check", "--root", str(repo), "--format", "concise")[1] == (
        "icm-baseline.json:1:1: baseline/unmatched " + said[19:] +
        "icm check: all 9 checks passed, 1 baselined\n")
    doc = json.loads(icm("check", "--root", str(repo), "--format", "json")[1])
    assert doc["baseline"] == {
        "file": "icm-baseline.json", "baselined": 1, "suppressed": 0,
        "repeated": 0, "unmatched": [{"check": "links", "code": "missing-file",
                       "path": "AGENTS.md", "message": BROKEN, "count": 1}]}
    # A run that does not judge links says nothing of its entries.
    assert icm("check-stale", "--root", str(repo)) == (0, "", "")
    # A new finding is not added without --grow; the fixed one is dropped.
    write(repo, {"AGENTS.md": HB.replace("missing.md", "other.md")})
    assert icm("baseline", "--root", str(repo)) == (1, (
        "wrote icm-baseline.json: 1 finding (1 dropped: fixed)\n"
        "icm-baseline.json: 1 new finding not added (fix it, or icm baseline "
        "--grow adds it)\n"), "")
    assert (repo / "icm-baseline.json").read_bytes() != before
    assert icm("baseline", "--root", str(repo)) == (1, (
        "left alone icm-baseline.json: 1 finding, none fixed\n"
        "icm-baseline.json: 1 new finding not added (fix it, or icm baseline "
        "--grow adds it)\n"), "")
    assert icm("baseline", "--root", str(repo), "--grow") == (
        0, "wrote icm-baseline.json: 2 findings (1 added)\n", "")
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 2 baselined\n", "")


def test_baseline_keeps_entries_a_selection_does_not_judge(repo: Path,
                                                           icm) -> None:
    _adopted(repo)
    icm("baseline", "--root", str(repo))
    write(repo, {"icm.toml": "ignore = ['stale']\n",
                 "AGENTS.md": HB.replace("[x](missing.md)", "x")})
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 1 finding (1 dropped: fixed)\n", "")
    assert [e["check"] for e in json.loads(
        (repo / "icm-baseline.json").read_text())["findings"]] == ["stale"]


def test_nothing_to_baseline_writes_nothing(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n"}, D1)
    assert icm("baseline", "--root", str(repo)) == (
        0, "no findings: icm-baseline.json not written\n", "")
    assert not (repo / "icm-baseline.json").exists()


def test_baseline_is_never_written_through_a_symlink(repo: Path, icm) -> None:
    _adopted(repo)
    icm("baseline", "--root", str(repo))
    os.rename(repo / "icm-baseline.json", repo / "kept.json")
    os.symlink("kept.json", repo / "icm-baseline.json")
    kept = (repo / "kept.json").read_bytes()
    write(repo, {"AGENTS.md": HB.replace("[x](missing.md)", "x")})
    assert icm("baseline", "--root", str(repo)) == (
        2, "", "icm: refusing to write icm-baseline.json: it is a symlink; "
        "nothing was changed\n")
    assert (repo / "kept.json").read_bytes() == kept


DEEP = "[" * 100_000 + "]" * 100_000
ENTRY = {"check": "links", "code": "missing-file", "path": "AGENTS.md",
         "message": BROKEN, "count": 1}


def _doc(**entry: object) -> str:
    return json.dumps({"version": 1, "findings": [dict(ENTRY, **entry)]})


@pytest.mark.parametrize("data,said", [
    (b"\x00" * 10, "cannot read: contains NUL bytes; not a text file"),
    (b'{"version": 1, "findings": ["\xff"]}',
     "cannot read: not valid UTF-8 (line 1, byte offset 29)"),
    ("\ufeff{}".encode("utf-16"), "cannot read: UTF-16 text; icm reads UTF-8 only"),
    (b"", "not valid JSON: Expecting value (line 1, column 1)"),
    (b"[1, 2", "not valid JSON: Expecting ',' delimiter (line 1, column 6)"),
    (DEEP.encode(), "not valid JSON: nested too deeply"),
    (b'{"version": 1, "version": 1}', 'not a baseline: key "version" given twice'),
    (b'{"version": NaN, "findings": []}', "not a baseline: NaN is not a JSON "
     "number"),
    (b'{"version": 1, "findings": [], "x": 1}', "not a baseline: expected an "
     "object with 'version' and 'findings' (run 'icm baseline' on a copy to see "
     "the form)"),
    (b"[]", "not a baseline: expected an object with 'version' and 'findings' "
     "(run 'icm baseline' on a copy to see the form)"),
    (b'{"version": "1", "findings": []}', 'version must be 1, got "1"'),
    (b'{"version": true, "findings": []}', "version must be 1, got true"),
    (b'{"version": 1, "findings": {}}', "'findings' must be an array, got an "
     "object"),
    (b'{"version": 1, "findings": [7]}', "findings[0]: must be an object with "
     "exactly 'check', 'code', 'path', 'message', 'count'"),
    (_doc(count="2").encode(), "findings[0]: 'count' must be a whole number "
     'from 1, got "2"'),
    (_doc(count=0).encode(), "findings[0]: 'count' must be a whole number from "
     "1, got 0"),
    (_doc(count=1.0).encode(), "findings[0]: 'count' must be a whole number "
     "from 1, got 1.0"),
    (_doc(count=10 ** 30).encode(), "findings[0]: 'count' must be a whole "
     "number from 1, got a number of 31 digits"),
    (_doc().replace('"count": 1', '"count": ' + "9" * 5000).encode(),
     "not a baseline: Exceeds the limit (4300 digits) for integer string "
     "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to "
     "increase the limit"),
    (_doc(path=None).encode(), "findings[0]: 'path' must be a non-empty string, "
     "got null"),
    (_doc(message=["x"]).encode(), "findings[0]: 'message' must be a non-empty "
     "string, got an array"),
    (_doc(check="linkz").encode(), 'findings[0]: \'check\' names no check: '
     '"linkz"'),
    (json.dumps({"version": 1, "findings": [ENTRY, ENTRY]}).encode(),
     "findings[1]: repeats an earlier entry (keep one, with the sum of their "
     "counts)"),
])
def test_a_hostile_baseline_is_one_line_and_exit_2(repo: Path, icm, data: bytes,
                                                   said: str) -> None:
    _adopted(repo)
    write(repo, {"icm-baseline.json": data})
    want = (2, "", f"icm: icm-baseline.json: {said}\n")
    assert _check(icm, repo) == want
    assert icm("check-links", "--root", str(repo)) == want
    assert icm("baseline", "--root", str(repo)) == want
    assert (repo / "icm-baseline.json").read_bytes() == data  # never overwritten


def test_an_oversized_or_outside_baseline_is_refused(repo: Path, icm,
                                                     tmp_path: Path) -> None:
    _adopted(repo)
    write(repo, {"icm.toml": "max_file_bytes = 100\n",
                 "icm-baseline.json": " " * 101})
    assert _check(icm, repo) == (2, "", "icm: icm-baseline.json: cannot read: "
                                 "101 bytes is over max_file_bytes (100); not "
                                 "parsed\n")
    (repo / "icm-baseline.json").unlink()
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"version": 1, "findings": [ENTRY]}))
    os.symlink(outside, repo / "icm-baseline.json")
    code, out, err = _check(icm, repo)
    assert (code, out) == (2, "") and err.startswith(
        "icm: icm-baseline.json: cannot read: ") and "outside" in err
    (repo / "icm-baseline.json").unlink()
    (repo / "icm-baseline.json").mkdir()
    assert _check(icm, repo) == (
        2, "", "icm: icm-baseline.json: cannot read: is a directory\n")


keys = st.tuples(st.sampled_from(["links", "stale", "dupes"]),
                 st.text(min_size=1, max_size=8),
                 st.text(min_size=1, max_size=12),  # surrogates: bytes not UTF-8
                 st.text(min_size=1, max_size=30))


@given(st.dictionaries(keys, st.integers(1, 10 ** 9), max_size=8))
def test_dump_reads_back_exactly(entries) -> None:
    """Whatever the paths and messages hold (a lone surrogate: a file-name
    byte that is not UTF-8), the file reads back as written, in ASCII."""
    data = baseline.dump(entries)
    assert data.isascii()
    assert baseline.parse(data.decode("ascii")) == entries
    assert baseline.dump(baseline.parse(data.decode("ascii"))) == data


@given(st.text(max_size=200))
def test_parse_refuses_in_one_line_or_reads(text: str) -> None:
    try:
        baseline.parse(text)
    except UsageError as exc:
        assert "\n" not in str(exc)


@given(st.lists(st.sampled_from(["`", "<!--", "-->", " icm:", " ignore",
                                 " ignore-file", " links", ",", "\n", "```",
                                 "x", " "]), max_size=40))
def test_markers_never_fail(parts) -> None:
    baseline.markers("".join(parts))


def test_a_file_with_no_marker_is_not_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run with findings reads each file that has one for markers; where
    the text holds no ``icm:`` there is nothing to find, so its lines are
    never split (PowerShell-Docs' 5,102 findings spent 0.4 s there)."""
    def refused(text: str) -> None:
        raise AssertionError("split")

    monkeypatch.setattr(baseline.lines_mod, "split", refused)
    assert baseline.markers("# A\n\n[x](gone.md) <!-- a comment -->\n" * 50) \
        == baseline.Markers()


def test_identity_keeps_names_and_drops_moving_numbers() -> None:
    assert baseline.identity(
        "duplicate rule: src/context.md:12 repeats AGENTS.md:30 (keep one home)"
    ) == "duplicate rule: src/context.md:# repeats AGENTS.md:# (keep one home)"
    assert baseline.identity("queue: number 07 is used twice: queue/07_a.md, "
                             "queue/07_b.md") == (
        "queue: number # is used twice: queue/07_a.md, queue/07_b.md")
    assert baseline.identity("made at 1a3e64c, 12 commits ago; v2 and 0.75") == \
        "made at 1a3e64c, # commits ago; v2 and 0.75"


# -- inline suppressions -------------------------------------------------------


def test_one_syntax_silences_every_check_and_is_counted(repo: Path, icm) -> None:
    _adopted(repo)
    write(repo, {"AGENTS.md": (
        "# H\n\n<!-- icm: ignore links/missing-file -->\n[x](missing.md)\n\n"
        "[y](gone.md) <!-- icm: ignore links -->\n\n"
        "```markdown\n<!-- icm: ignore links -->\n```\n[z](fenced.md)\n\n"
        "Quoted: `<!-- icm: ignore links -->`\n[w](quoted.md)\n\n"
        "- [s](src/context.md)\n"),
        "src/context.md": "# src\n\n<!-- icm: ignore-file stale/stale -->\n"})
    commit(repo, {}, D2)
    assert _check(icm, repo) == (1, (
        "broken link: AGENTS.md -> fenced.md\n"
        "broken link: AGENTS.md -> quoted.md\n"
        "links: 2 problems (missing file 2)\n"
        "icm check: 1 of 9 checks failed (links: 2 errors), 2 suppressed\n"), "")
    # The note's own edit made it fresh; more code makes it stale again.
    commit(repo, {"src/a.py": "4\n"}, "2026-11-29T12:00:00+00:00")
    assert _check(icm, repo)[1].endswith(", 3 suppressed\n")
    code, out, _ = icm("check-stale", "--root", str(repo))
    assert (code, out) == (0, "")
    # A suppressed finding is not baselined: it is silenced already.
    icm("baseline", "--root", str(repo))
    assert {e["path"] for e in json.loads(
        (repo / "icm-baseline.json").read_text())["findings"]} == {"AGENTS.md"}


def test_allow_duplicate_is_an_alias_of_ignore_dupes(repo: Path, icm) -> None:
    rule = "Every reader of a file stops at 1 MiB and reports the rest as skipped."
    write(repo, {"AGENTS.md": f"# H\n\n{rule}\n",
                 "a/context.md": f"# a\n\n{rule}\n",
                 "b/context.md": f"# b\n\n<!-- icm: ignore dupes -->\n{rule}\n"})
    code, out, _ = icm("check-dupes", "--root", str(repo))
    assert out == ("duplicate rule: a/context.md:3 repeats AGENTS.md:3 (keep one "
                   "home, link to it)\n")
    marks = baseline.markers("<!-- icm: allow-duplicate -->\ntext\n")
    assert marks.lines == {2: frozenset({"dupes"})}


def test_a_suppression_needs_a_code(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "# H\n\n<!-- icm: ignore -->\n[x](missing.md)\n"})
    assert icm("check-links", "--root", str(repo))[0] == 1


def test_judging_is_linear_in_findings_and_files(repo: Path) -> None:
    """Each file's suppressions are read once, each finding looked up once:
    four times the findings (and files) is about four times the work."""
    from icm import config, context, registry
    from icm.finding import Report, Rule, Rules

    rules = Rules("links", {"missing-file": Rule("x")})

    def work(n: int) -> int:
        write(repo, {f"d{n}/{i}.md": "<!-- icm: ignore links/nope -->\ntext\n"
                     for i in range(n // 10)})
        ctx = context.build(repo, config.Config())
        found = tuple(rules("missing-file", f"d{n}/{i % (n // 10)}.md",
                            f"broken link: -> x{i}.md", line=i + 1, located=True)
                      for i in range(n))
        held = baseline.counted(found[::2])
        chosen = registry.Selection()
        return python_lines(lambda: baseline.judge(ctx, [Report.of("links", found)],
                                                   chosen, held))

    small, large = work(500), work(2000)
    assert large < 5 * small, (small, large)


# -- what identifies a finding, not its wording (issue 24's adoption trial) ----


def _entries(repo: Path):
    return json.loads((repo / "icm-baseline.json").read_text())["findings"]


def test_a_whitespace_edit_keeps_a_stale_note_baselined(repo: Path, icm) -> None:
    """The trial's sequence: baselined as ``moved less than an hour after the
    note``, the note's whitespace-only edit committed (no review) turns the
    verdict into ``no word of the note changed since``: the same finding."""
    commit(repo, {"AGENTS.md": "# H\n\n- [core](packages/core/context.md)\n",
                  "packages/core/context.md": "# core\n",
                  "packages/core/a.py": "1\n"}, "2026-11-01T12:00:00+00:00")
    commit(repo, {"packages/core/a.py": "2\n"}, "2026-11-01T12:30:00+00:00")
    assert _check(icm, repo)[1].startswith(
        "packages/core/context.md: STALE - code in packages/core moved less "
        "than an hour after the note\n")
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 1 finding\n", "")
    assert _entries(repo) == [
        {"check": "stale", "code": "stale", "path": "packages/core/context.md",
         "message": "code in packages/core", "count": 1}]
    commit(repo, {"packages/core/context.md": "# core\n\n"},
           "2026-11-01T13:00:00+00:00", "ws")
    (repo / "icm-baseline.json").rename(repo / "aside.json")
    assert icm("check-stale", "--root", str(repo))[1] == (
        "packages/core/context.md: STALE - code in packages/core moved, and no "
        "word of the note changed since\n")
    (repo / "aside.json").rename(repo / "icm-baseline.json")
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 1 baselined\n", "")
    # Days growing between runs, in another wording again: the same finding.
    commit(repo, {"packages/core/a.py": "3\n"}, "2026-11-20T12:00:00+00:00")
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 1 baselined\n", "")
    assert icm("baseline", "--root", str(repo)) == (
        0, "left alone icm-baseline.json: 1 finding, none fixed\n", "")


def test_an_old_format_baseline_still_holds_and_is_rewritten(repo: Path,
                                                              icm) -> None:
    """A file written before subjects keys stale by its message's words; it
    still holds the note's finding in any wording, and ``icm baseline``
    writes the entry in today's form, adding nothing."""
    _adopted(repo)
    old = {"version": 1, "findings": [
        {"check": "links", "code": "missing-file", "path": "AGENTS.md",
         "message": BROKEN, "count": 1},
        {"check": "stale", "code": "stale", "path": "src/context.md",
         "message": "STALE - code in src moved less than an hour after the "
         "note", "count": 1}]}
    (repo / "icm-baseline.json").write_text(json.dumps(old))
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 2 baselined\n", "")
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 2 findings\n", "")
    assert _entries(repo)[1]["message"] == "code in src"
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 2 baselined\n", "")
    # A note's entry holds that note's finding only.
    commit(repo, {"lib/context.md": "# lib\n", "lib/a.py": "1\n"}, D1)
    commit(repo, {"lib/a.py": "2\n"}, D2)
    assert _check(icm, repo)[0] == 1


def test_a_budget_finding_stays_baselined_as_its_tokens_grow(repo: Path,
                                                             icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n\n" + "word " * 300 + "\n",
                  "icm.toml": "budget = 100\n"}, D1)
    assert _check(icm, repo) == (1, (
        "background notes, by size:\n"
        "cold-boot set: 1506 bytes, about 376 tokens (budget 100)\n"
        "cold-boot set over budget by 276 tokens; largest file: AGENTS.md "
        "(1506 bytes)\n"
        "icm check: 1 of 9 checks failed (bootmap: 1 error)\n"), "")
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 1 finding\n", "")
    commit(repo, {"AGENTS.md": "# H\n\n" + "word " * 900 + "\n"}, D2)
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 1 baselined\n", "")



@given(st.dictionaries(st.text(min_size=1, max_size=12),
                       st.tuples(st.text(max_size=30), st.text(max_size=30)),
                       max_size=6))
def test_old_entries_of_a_subject_adopt_exactly(notes) -> None:
    """Entries keyed by a message's words (before subjects) hold the same
    notes' findings in any wording, move to today's keys adding nothing,
    and a baseline in today's form is its own adoption."""
    found = [stale_finding(path, new)
             for path, (_old, new) in notes.items()]
    old = {("stale", "stale", path, baseline.identity(said)): 1
           for path, (said, _new) in notes.items()}
    left, take = baseline.taker(old)
    assert all(take(f) is not None for f in found) and not any(left.values())
    assert baseline.adopt(old, found) == baseline.counted(found)
    assert baseline.adopt(baseline.counted(found), found) == \
        baseline.counted(found)


def stale_finding(path: str, message: str) -> Finding:
    return STALE_RULES("stale", path, message or "STALE", subject=f"code in {path}")


def test_without_a_baseline_no_key_is_made_and_only_a_marked_file_decoded(
        repo: Path, icm, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run with no baseline takes nothing, so no finding's key (two
    regular expressions over its message) is made; of the files with
    findings, only one whose bytes hold ``icm:`` is decoded for markers
    (PowerShell-Docs: 5,102 findings in 1,667 files, 70 ms and 30 ms)."""
    write(repo, {"AGENTS.md": "# H\n\n[x](gone.md)\n",
                 "a.md": "[y](gone.md)\n",
                 "b.md": "<!-- icm: ignore links -->\n[z](gone.md)\n"})
    keys: List[str] = []
    read: List[str] = []
    identity, markers = baseline.identity, baseline.markers
    monkeypatch.setattr(baseline, "identity",
                        lambda message: keys.append(message) or identity(message))
    monkeypatch.setattr(baseline, "markers",
                        lambda text: read.append(text) or markers(text))
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: AGENTS.md -> gone.md\nbroken link: a.md -> gone.md\n"
        "links: 2 problems (missing file 2)\n"), "")
    assert (keys, read) == ([], ["<!-- icm: ignore links -->\n[z](gone.md)\n"])


def test_a_file_no_check_can_read_is_said_once(repo: Path, icm) -> None:
    """A dangling symlinked note is one fact: run together, the first check
    (registry order) says it and the summary counts the other checks'
    repeats (drap: four links, sixteen lines); run alone, a check says it;
    a baseline holds it under one check for all, and an older baseline's
    entry for a repeat is taken, not reported unmatched."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "AGENTS.md": "# H\n\nRules.\n", "src/AGENTS.md": "# src\n",
                 "src/a.py": "1\n"})
    (repo / "src" / "CLAUDE.md").symlink_to("src/AGENTS.md")  # from the root
    commit(repo, {}, D1)
    said = "src/CLAUDE.md: cannot read: no such file (dangling symlink?)\n"
    assert _check(icm, repo) == (1, said + "links: 1 problem (unreadable file "
                                 "1)\nicm check: 1 of 9 checks failed "
                                 "(links: 1 error), 3 repeated\n", "")
    doc = json.loads(icm("check", "--root", str(repo), "--format", "json")[1])
    assert [(f["check"], f["code"]) for c in doc["checks"]
            for f in c["findings"] if f["path"] == "src/CLAUDE.md"] == [
        ("links", "unreadable")]
    assert doc["baseline"]["repeated"] == 3
    # Without links' code, the next check says it.
    assert _check(icm, repo, "--ignore", "links/unreadable") == (
        0, "src/CLAUDE.md: unknown - cannot read: no such file (dangling "
        "symlink?)\nicm check: all 9 checks passed (stale: 1 warning), "
        "2 repeated\n", "")
    # Alone, a check says it.
    assert icm("check", "dupes", "--root", str(repo), "-q") == (
        1, said, "")
    assert icm("baseline", "--root", str(repo)) == (
        0, "wrote icm-baseline.json: 1 finding\n", "")
    assert [e["check"] for e in _entries(repo)] == ["links"]
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 1 baselined, 3 repeated\n", "")
    assert icm("check", "dupes", "bootmap", "--root", str(repo), "-q") == (
        0, "icm check: all 2 checks passed, 1 baselined, 1 repeated\n", "")
    # A baseline written when each check kept its own line still holds.
    old = {"version": 1, "findings": [
        {"check": check, "code": code, "path": "src/CLAUDE.md",
         "message": prefix + said[15:-1], "count": 1}
        for check, code, prefix in (("links", "unreadable", ""),
                                    ("stale", "unknown", "unknown - "),
                                    ("bootmap", "unreadable", ""),
                                    ("dupes", "unreadable", ""))]}
    (repo / "icm-baseline.json").write_text(json.dumps(old))
    assert _check(icm, repo) == (
        0, "icm check: all 9 checks passed, 1 baselined, 3 repeated\n", "")


def test_a_memoised_report_tails_what_the_baseline_leaves(repo: Path, icm,
                                                          memo: None) -> None:
    """A warm run reuses the memo's report; its tail is made again for the
    findings the baseline leaves, as a cold run's: it said ``links: 1
    problem`` over no finding, and no ``journal ok``."""
    write(repo, {"icm.toml": 'note_name = ["AGENTS.md", "CLAUDE.md"]\n'
                             'index = "off"\n',
                 "AGENTS.md": "# H\n\nRules.\n",
                 "journal/2026-11-01_x.md": "# x\n\n## Decision\nRows.\n"})
    (repo / "CLAUDE.md").symlink_to("gone.md")
    commit(repo, {}, D1)
    icm("baseline", "--root", str(repo))
    for _run in ("cold", "warm"):
        assert icm("check", "links", "journal", "--root", str(repo)) == (0, (
            "journal ok\nlinks ok\n"
            "icm check: all 2 checks passed, 4 baselined\n"), "")
        memos = sorted((repo / ".git" / "icm").glob("memo-*.json"))
        later = time.time() + 60  # aged: only the states can refuse it
        for path in memos:
            os.utime(path, (later, later))
    assert {"memo-journal.json", "memo-links.json"} <= {p.name for p in memos}
