"""``icm new-journal --title`` writes a record the way the tree's records are
written (issue 24): the newest record's title number form, status form,
date line and section headings, not the shipped template. Found on
KoalaFacts/Purity, whose ``# 0035: Title`` records with a ``**Status:**``
line got ``# 35. Title`` and a ``## Status`` section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import write

PURITY_CFG = ("journal_format = 'nygard'\njournal_dir = 'docs/decisions'\n"
              "slots = ['Context', 'Decision', 'Consequences']\n")


def purity(number: int, title: str, status: str = "Accepted") -> str:
    return (f"# {number:04d}: {title}\n\n**Status:** {status}\n**Date:** "
            f"2024-05-{number:02d}\n\nSome prose of this record.\n\n## Context\n\n"
            "It came up.\n\n## Decision\n\nWe do it.\n\n## Consequences\n\n"
            "It is done.\n")


PURITY_NEW = """\
# 0035: Stream it

**Status:** Accepted
**Date:** 2026-11-29

## Context

<!-- The forces at play: what made a decision necessary now. -->

## Decision

<!-- What was decided, in the active voice: "We will ...". -->

## Consequences

<!-- What becomes easier or harder once it is done, good and bad. -->
"""

ADR_ID_CFG = ("journal_format = 'nygard'\nslots = ['Context', 'Decision']\n")
ADR_ID = ("# ADR-003 Use a queue\n\nStatus: accepted\n\n## Decision\n\nA queue.\n\n"
          "## Context\n\nMail blocks.\n\n## Alternatives\n\nThreads.\n")
ADR_ID_NEW = """\
# ADR-004 Stream it

Status: accepted

## Decision

<!-- What was decided, in the active voice: "We will ...". -->

## Context

<!-- The forces at play: what made a decision necessary now. -->

## Alternatives
"""

MADR_CFG = "journal_format = 'madr'\njournal_dir = 'docs/adr'\n"
MADR_OLD = ("---\nstatus: accepted\n---\n\n# Use a queue\n\n## Context and Problem "
            "Statement\n\nMail blocks.\n\n## Decision Drivers\n\n* speed\n\n"
            "## Considered Options\n\n* A queue\n* Threads\n\n## Decision Outcome"
            "\n\nChosen option: \"A queue\", because it is simple.\n")
MADR_NEW = """\
---
status: accepted
---

# Stream it

## Context and Problem Statement

<!-- The problem in two or three sentences; a question is fine. -->

## Decision Drivers

## Considered Options

<!-- One list item per option, the chosen one too: "* Option A". -->

## Decision Outcome

<!-- Chosen option: "Option A", because ... -->

### Consequences

<!-- "* Good, because ..." and "* Bad, because ..." -->
"""

LINKS_CFG = "journal_format = 'nygard'\njournal_dir = 'docs/adr'\n"


def linked(number: int, title: str, status: str = "Accepted", sup: str = "N/A",
           by: str = "N/A") -> str:
    """A record with its status and links as header lines ending in a
    Markdown line break, ``N/A`` until they name one (round 5's .NET tree)."""
    return (f"# {number:04d}: {title}\n\nStatus: {status}  \nDate: 2024-01-0"
            f"{number}  \nSupersedes: {sup}  \nSuperseded-by: {by}\n\n## Context\n"
            "\nC.\n\n## Decision\n\nD.\n\n## Consequences\n\nQ.\n")


LINKS_NEW = (
    "# 0003: Stream it\n\nStatus: Accepted  \nDate: 2026-11-29  \n"
    "Supersedes: N/A  \nSuperseded-by: N/A\n\n## Context\n\n<!-- The forces at "
    "play: what made a decision necessary now. -->\n\n## Decision\n\n<!-- What "
    "was decided, in the active voice: \"We will ...\". -->\n\n## Consequences"
    "\n\n<!-- What becomes easier or harder once it is done, good and bad. -->\n")

FORMS = {
    "links": (LINKS_CFG, {"docs/adr/0001-a.md": linked(1, "A"),
                          "docs/adr/0002-b.md": linked(2, "B")},
              "docs/adr/0003-stream-it.md", LINKS_NEW),
    "purity": (PURITY_CFG, {"docs/decisions/0033-a.md": purity(33, "A"),
                            "docs/decisions/0034-b.md": purity(34, "B")},
               "docs/decisions/0035-stream-it.md", PURITY_NEW),
    "adr-id": (ADR_ID_CFG, {"journal/0003-use-a-queue.md": ADR_ID},
               "journal/0004-stream-it.md", ADR_ID_NEW),
    "madr": (MADR_CFG, {"docs/adr/0001-use-a-queue.md": MADR_OLD},
             "docs/adr/0002-stream-it.md", MADR_NEW),
}


def _filled(text: str) -> str:
    """The record as its author finishes it: every section says something."""
    out = []
    for row in text.split("\n"):
        out.append("Written." if row.startswith("<!--") else row)
        if row.startswith("## Decision Outcome"):
            out.append("\nChosen option: \"Streaming\", because it is small.")
        if row.startswith("## Considered Options"):
            out.append("\n* Streaming\n* Buffering")
    return "\n".join(out)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_new_journal_writes_the_trees_own_form(repo: Path, icm, form: str) -> None:
    """The title's number form and padding, the status form (a bold line, a
    plain line, front matter), the date line where records carry one, and
    the records' sections in their order; prose of the old record is not
    carried. Finished, the record passes check-journal."""
    cfg, records, rel, want = FORMS[form]
    write(repo, {"icm.toml": cfg, "AGENTS.md": "# H\n", **records})
    assert icm("new-journal", "--title", "Stream it", "--date", "2026-11-29",
               "--root", str(repo)) == (0, f"{rel}\n", "")
    assert (repo / rel).read_text() == want
    (repo / rel).write_text(_filled(want))
    code, out, err = icm("check-journal", "--root", str(repo))
    assert (code, err) == (0, ""), out


def test_supersedes_rewrites_a_status_line_in_its_form(repo: Path, icm) -> None:
    """``--supersedes`` in the ``**Status:**`` form: the old record's line says
    what replaced it, named as the tree names records; the new record gets
    no paragraph under its status line; positions reads the graph."""
    cfg, records, rel, _want = FORMS["purity"]
    write(repo, {"icm.toml": cfg, "AGENTS.md": "# H\n", **records})
    old = "docs/decisions/0034-b.md"
    assert icm("new-journal", "--title", "Stream it", "--supersedes", "34",
               "--date", "2026-11-29", "--root", str(repo)) == (
        0, f"{rel}\nmarked {old} superseded by {rel}\n", "")
    assert (repo / old).read_text() == purity(34, "B").replace(
        "Accepted", "Superseded by [0035: Stream it](0035-stream-it.md)")
    assert (repo / rel).read_text() == PURITY_NEW
    out = icm("positions", "--format", "json", "--root", str(repo))[1]
    assert [(s["entry"], s["superseded_by"]) for s in json.loads(out)[
        "superseded"]] == [(old, rel)]


def test_supersedes_in_a_learned_nygard_section_form(repo: Path, icm) -> None:
    """adr-tools' own form, zero-padded (``# 0007. T``): the link names the
    new record as its title row does, and the new one says Supersedes."""
    rec = ("# 0007. Old\n\n## Status\n\nAccepted\n\n## Context\n\nx\n\n"
           "## Decision\n\ny\n\n## Consequences\n\nz\n")
    write(repo, {"icm.toml": "journal_format = 'nygard'\n",
                 "journal/0007-old.md": rec})
    assert icm("new-journal", "--title", "New", "--supersedes", "7", "--root",
               str(repo))[0] == 0
    assert (repo / "journal/0007-old.md").read_text() == rec.replace(
        "Accepted", "Superseded by [0008. New](0008-new.md)")
    assert (repo / "journal/0008-new.md").read_text().startswith(
        "# 0008. New\n\n## Status\n\nAccepted\n\nSupersedes [0007. Old]"
        "(0007-old.md)\n\n## Context\n")


@pytest.mark.parametrize("old, new", [
    ("# 7. Old", "# 8. New"),
    ("# 0007: Old", "# 0008: New"),
    ("# ADR-007 Old", "# ADR-008 New"),
    ("# ADR 0007 - Old", "# ADR 0008 - New"),
    ("# 0007 Old", "# 0008 New"),  # a bare number: the file's own
    ("# 2024 plans", "# New"),  # a number that is not the file's: a title
    ("# {title} 7. Old", "# New"),  # the record's braces are no placeholder
])
def test_title_number_forms(repo: Path, icm, old: str, new: str) -> None:
    rec = (f"{old}\n\nStatus: Accepted {{carried}}\nDate: 2024-01-01 {{title}}\n\n"
           "## Status\n\nAccepted\n\n## Context\n\nx\n\n## Decision\n\ny\n\n"
           "## Consequences\n\nz\n")
    write(repo, {"icm.toml": "journal_format = 'nygard'\n",
                 "journal/0007-old.md": rec})
    assert icm("new-journal", "--title", "New", "--root", str(repo)) == (
        0, "journal/0008-new.md\n", "")
    assert (repo / "journal/0008-new.md").read_text().startswith(
        f"{new}\n\n## Status\n\nAccepted\n\n## Context\n")


def test_supersedes_fills_the_link_lines_the_tree_keeps(repo: Path, icm) -> None:
    """A tree whose records carry ``Supersedes: N/A`` and ``Superseded-by:
    N/A`` lines (round 5): the old record's status and its Superseded-by
    line name the new one, each keeping its line break; the new record's
    Supersedes line names the old one; no empty Status section is added
    beside a status line, so the finished record passes."""
    cfg, records, rel, _want = FORMS["links"]
    write(repo, {"icm.toml": cfg, "AGENTS.md": "# H\n", **records})
    old = "docs/adr/0002-b.md"
    assert icm("new-journal", "--title", "Stream it", "--supersedes", "2",
               "--date", "2026-11-29", "--root", str(repo)) == (
        0, f"{rel}\nmarked {old} superseded by {rel}\n", "")
    by = "[0003: Stream it](0003-stream-it.md)"
    assert (repo / old).read_text() == linked(2, "B", f"Superseded by {by}", by=by)
    assert (repo / rel).read_text() == LINKS_NEW.replace(
        "Supersedes: N/A", "Supersedes: [0002: B](0002-b.md)")
    (repo / rel).write_text(_filled((repo / rel).read_text()))
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    out = icm("positions", "--format", "json", "--root", str(repo))[1]
    assert [(s["entry"], s["superseded_by"]) for s in json.loads(out)[
        "superseded"]] == [(old, rel)]
