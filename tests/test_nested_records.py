"""Decision records nested below the records folder (issue 24, round 7's
afterray: ``docs/decisions/<status>/<class>/YYYY-MM-DD-slug.md``): init
finds them, every reader of the journal reads them, and a folder named as a
status is the status of a record stating none. The records are small ones
written for these tests, in that tree's shape."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

from icm.workflow.init import ADOPTED, record_shape
from tests.conftest import commit, write

D1 = "2026-10-01T12:00:00+00:00"
NYGARD = "journal_format = 'nygard'\njournal_dir = 'docs/decisions'\n"


def _record(title: str, status: str = "", by: str = "—",
            problem: str = "Problem") -> str:
    """A record shaped as afterray's: header lines under the title, an
    ``Anchors:`` list whose item runs on into the link lines (a lazy
    continuation), the context under ``Problem``."""
    head = f"Status: {status}\n" if status else ""
    return (f"# Decision: {title}\n\n{head}Area: store\nAnchors:\n- —\n"
            f"Supersedes: —\nSuperseded-by: {by}\n\n## {problem}\n\nP.\n\n"
            f"## Decision\n\nWe keep {title.lower()}.\n\n"
            "## Alternatives considered\n\n**Something else.** It lost.\n\n"
            "## Consequences\n\nC.\n")


def _tree() -> Dict[str, str]:
    return {
        "AGENTS.md": "# H\n",
        "docs/decisions/README.md": "# Decision records\n",
        "docs/decisions/context.md": "# How to write one\n",
        "docs/decisions/_template.md": _record("<title>", "proposed"),
        "docs/decisions/accepted/README.md": "# Accepted\n",
        "docs/decisions/accepted/architecture/index.md": "# Index\n",
        "docs/decisions/accepted/architecture/2026-08-20-one-owner.md":
            _record("One owner", "accepted"),
        "docs/decisions/accepted/product/2026-08-22-day-window.md":
            _record("Day window", "accepted"),
        # a bare file name beside it, and a path from its own folder
        "docs/decisions/superseded/architecture/2026-08-19-shared-owner.md":
            _record("Shared owner", "superseded", "2026-08-21-clamped-day.md"),
        "docs/decisions/superseded/architecture/2026-08-21-clamped-day.md":
            _record("Clamped day", "superseded",
                    "../../accepted/product/2026-08-22-day-window.md"),
        "docs/decisions/proposed/.gitkeep": "",
    }


def test_init_finds_records_nested_by_status_and_class(repo: Path, icm) -> None:
    """Round 7: afterray's 18 records two folders down were not found
    (init looked at one folder's own files), their dates were read as a
    number, and their Problem section was no context. Init writes the
    folder, the dated pattern and the slots the records hold."""
    commit(repo, _tree(), D1)
    assert icm("init", "--root", str(repo)) == (0, (
        "left alone AGENTS.md (exists)\n"
        'journal_dir = "docs/decisions", journal_format = "nygard", '
        'journal_pattern = "YYYY-MM-DD-*.md", slots = ["Status", "Problem", '
        '"Decision", "Consequences"]: 4 adr-tools records found in '
        "docs/decisions, in its folders accepted/, superseded/ (the context "
        "under Problem)\n"
        "created queue/.gitkeep\ncreated Makefile\ncreated icm.toml\n"
        + ADOPTED + "\n"), "")
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    code, out, _ = icm("positions", "--root", str(repo))
    base = "docs/decisions/"
    shown = [line.split("](", 1)[0].lstrip("- [").replace(base, "")
             for line in out.splitlines() if line.startswith(("- [", "## "))]
    # newest first by the name's date, whatever folder holds it
    assert code == 0 and shown == [
        "## Current",
        "accepted/product/2026-08-22-day-window.md",
        "accepted/architecture/2026-08-20-one-owner.md",
        "## Superseded",
        "superseded/architecture/2026-08-21-clamped-day.md",
        "superseded/architecture/2026-08-19-shared-owner.md",
        "## Rejected"]
    assert ("2026-08-19-shared-owner.md): We keep shared owner. Replaced by "
            f"[{base}superseded/architecture/2026-08-21-clamped-day.md]") in out


def test_a_folder_naming_a_status_is_the_status_of_a_record_stating_none(
        repo: Path, icm) -> None:
    """A record with no status line in ``superseded/`` is history (no
    missing section asked of it), and one in ``accepted/`` has its Status;
    the same record in a folder naming no status has none."""
    write(repo, {"icm.toml": NYGARD,
                 "docs/decisions/superseded/2026-08-19-a.md": _record(
                     "A", problem="Context").replace("## Consequences\n\nC.\n",
                                                     ""),
                 "docs/decisions/accepted/2026-08-20-b.md": _record(
                     "B", problem="Context")})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    write(repo, {"docs/decisions/area/2026-08-21-c.md": _record(
        "C", problem="Context")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/decisions/area/2026-08-21-c.md: missing slot 'Status'\n"), "")


def test_a_record_stating_another_status_than_its_folder_is_warned(
        repo: Path, icm) -> None:
    """Both said and they disagree: the record's own line counts (it is what
    a reader of the file sees), so this accepted record is judged whole,
    and the disagreement is a warning."""
    write(repo, {"icm.toml": NYGARD,
                 "docs/decisions/superseded/2026-08-19-a.md": _record(
                     "A", "Accepted", problem="Context").replace(
                         "## Consequences\n\nC.\n", ""),
                 "docs/decisions/active/2026-08-20-b.md": _record(
                     "B", "Accepted", problem="Context")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/decisions/superseded/2026-08-19-a.md: missing slot 'Consequences'\n"
        "docs/decisions/superseded/2026-08-19-a.md: status 'accepted' but its "
        "folder says 'superseded' (the status line counts)\n"), "")


def test_a_subfolders_readme_index_and_note_are_no_records(repo: Path,
                                                           icm) -> None:
    """Each folder below the records folder is read as that folder is: its
    README, index, note and template are no records and no finding; a stray
    file there is one, as at the top; a file deeper than the journal reads
    is none."""
    write(repo, {"icm.toml": NYGARD,
                 "docs/decisions/accepted/README.md": "# Accepted\n",
                 "docs/decisions/accepted/x/index.md": "# Index\n",
                 "docs/decisions/accepted/x/AGENTS.md": "# Note\n",
                 "docs/decisions/accepted/x/CLAUDE.md": "@AGENTS.md\n",
                 "docs/decisions/accepted/x/0000-template.md": "# T\n",
                 "docs/decisions/accepted/x/2026-08-20-b.md": _record(
                     "B", "accepted", problem="Context"),
                 "docs/decisions/a/b/c/d/e/2026-08-20-deep.md": "# Deep\n"})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    write(repo, {"docs/decisions/accepted/x/notes.md": "# Loose\n"})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and out.startswith(
        "docs/decisions/accepted/x/notes.md: name does not match NNNN-title.md\n")


def test_new_journal_numbers_past_nested_records(repo: Path, icm) -> None:
    """The next number is one above every record's, nested ones too (it
    listed the top folder only: a second 0003)."""
    record = _record("A", "accepted", problem="Context")
    commit(repo, {"icm.toml": NYGARD + "journal_pattern = 'NNNN-*.md'\n",
                  "docs/decisions/0001-a.md": record,
                  "docs/decisions/accepted/0003-c.md": record}, D1)
    code, out, _ = icm("new-journal", "--title", "Use queues", "--root", str(repo))
    assert code == 0 and "docs/decisions/0004-use-queues.md" in out


def test_a_dated_record_name_is_dated_not_numbered() -> None:
    assert [record_shape(n) for n in ("2026-08-20-bounded-shutdown.md",
                                      "2026_08_20_x.md", "2026-08-20.md",
                                      "2026-0820-x.md")] == [
        "YYYY-MM-DD-*.md", "YYYY_MM_DD_*.md", "YYYY-MM-DD.md", "NNNN-*.md"]
