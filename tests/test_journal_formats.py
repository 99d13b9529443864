"""Decision records as the journal (issue 24, item 7): MADR and adr-tools
(Nygard) trees through check-journal, positions, verify --dry-run and
new-journal, on real repositories. The records are small ones written for
these tests, shaped as each tool's template shapes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import SLOTS_OK, commit, python_lines, write

MADR_CFG = "journal_format = 'madr'\njournal_dir = 'docs/adr'\n"

MADR = {
    "icm.toml": MADR_CFG,
    "AGENTS.md": "# Handbook\n",
    # Not records: what MADR and log4brains keep beside them.
    "docs/adr/README.md": "# Decisions\n\nOne file per decision.\n",
    "docs/adr/index.md": "# Index\n",
    "docs/adr/adr-template.md": "# {short title}\n\n## Context and Problem "
                                "Statement\n",
    "docs/adr/0001-record-decisions-in-madr.md": """\
---
status: accepted
date: 2024-03-01
---

# Record decisions in MADR

## Context and Problem Statement

Decisions were lost in chat threads. Where should they be kept?

## Considered Options

* MADR files in the repository
* A wiki page
* Issue comments

## Decision Outcome

Chosen option: "MADR files in the repository", because they are reviewed
with the code they explain.

### Consequences

* Good, because `git log docs/adr` is the history of our decisions.
* Bad, because nobody reads `rm -rf docs` as a warning.
""",
    "docs/adr/0002-send-reports-with-cron.md": """\
---
status: "superseded by [ADR-0004](0004-send-reports-from-the-worker.md)"
date: 2024-03-04
---

# Send reports with cron

## Context and Problem Statement

Nightly reports must go out even when nobody is logged in.

## Considered Options

* A cron job on the web host
* Celery beat

## Decision Outcome

Chosen option: "A cron job on the web host", because it is already there.

## Pros and Cons of the Options

### A cron job on the web host

* Good, because nothing new to run

### Celery beat

* Bad, because it needs a broker we do not have
""",
    # MADR 2: a Status list item; the options only as Pros and Cons headings.
    "docs/adr/0003-keep-sessions-in-redis.md": """\
# Keep sessions in Redis

* Status: accepted
* Date: 2024-03-09

## Context and Problem Statement

Sessions vanish when a web process restarts.

## Decision Outcome

Chosen option: "Redis", because the cache cluster already runs it.

## Pros and Cons of the Options

### Redis

* Good, because it is already deployed

### Signed cookies

* Bad, because a session could not be revoked
""",
    "docs/adr/0004-send-reports-from-the-worker.md": """\
---
status: accepted
---

# Send reports from the worker

## Context and Problem Statement

The web host was replaced by containers that stop at night.

## Considered Options

* The job worker's scheduler
* A cron job on the web host

## Decision Outcome

Chosen option: "The job worker's scheduler", because the worker runs all
night.

### Consequences

* Bad, because a stuck worker stops reports: watch `worker --health`.

## Verify command

```sh
test -f docs/adr/0004-send-reports-from-the-worker.md
```
""",
    "docs/adr/0005-unclosed-front-matter.md": """\
---
status: superseded by ADR-0004

# Unclosed front matter

## Context and Problem Statement

The closing line was lost in a merge.

## Considered Options

* Keep it

## Decision Outcome

Chosen option: "Keep it", because it is only an example.
""",
    "docs/adr/notes.md": "# Loose notes\n",
}

NYGARD_CFG = "journal_format = 'nygard'\njournal_dir = 'doc/adr'\n"


def nygard(number: int, title: str, status: str, context: str = "It came up.",
           decision: str = "We will do it.", consequences: str = "It is done.",
           extra: str = "") -> str:
    """A record as adr-tools' template lays it out."""
    parts = [f"# {number}. {title}\n\nDate: 2024-02-0{number}\n\n## Status\n\n"
             f"{status}\n"]
    if context:
        parts.append(f"\n## Context\n\n{context}\n")
    parts.append(f"\n## Decision\n\n{decision}\n\n## Consequences\n\n"
                 f"{consequences}\n{extra}")
    return "".join(parts)


NYGARD = {
    "icm.toml": NYGARD_CFG,
    "AGENTS.md": "# Handbook\n",
    "doc/adr/0001-record-architecture-decisions.md": nygard(
        1, "Record architecture decisions", "Accepted",
        decision="We will keep Architecture Decision Records, as Michael "
                 "Nygard describes them."),
    # The spelling adr-tools wrote before 3.0.
    "doc/adr/0002-keep-sessions-in-memory.md": nygard(
        2, "Keep sessions in memory",
        "Superceded by [3. Keep sessions in Redis](0003-keep-sessions-in-redis.md)",
        decision="We will keep sessions in each web process's memory."),
    "doc/adr/0003-keep-sessions-in-redis.md": nygard(
        3, "Keep sessions in Redis", "Accepted\n\nSupersedes [2. Keep sessions in "
        "memory](0002-keep-sessions-in-memory.md)",
        decision="We will keep sessions in Redis, shared by every web process.",
        extra="\n## Alternatives considered\n\nSticky sessions on the load "
              "balancer: one restart still logs everyone out.\n\n"
              "## Verify command\n\n`test -d doc/adr`\n"),
    "doc/adr/0004-queue-outgoing-mail.md": nygard(
        4, "Queue outgoing mail", "Accepted\n\nSupersedes [9. Send mail inline]"
        "(0009-send-mail-inline.md)", context="",
        decision="We will queue outgoing mail.",
        consequences="Deploys must run `rm -rf tmp/mail` first."),
    # Says it supersedes 1, which does not say so itself: it counts.
    "doc/adr/0005-use-adr-tools.md": nygard(
        5, "Use adr-tools", "Accepted\n\nSupersedes [1. Record architecture "
        "decisions](0001-record-architecture-decisions.md)",
        decision="We will write records with adr-tools."),
}


def _tree(repo: Path, files) -> Path:
    write(repo, files)
    return repo


def test_madr_tree_through_check_journal(repo: Path, icm) -> None:
    """The decision is the Decision Outcome, the three MADR sections are the
    slots, records are NNNN-title.md; README, index and template are not
    records; front matter is not read as a heading."""
    _tree(repo, MADR)
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/adr/0003-keep-sessions-in-redis.md: missing slot 'Considered "
        "Options'\n"
        "docs/adr/0005-unclosed-front-matter.md: front matter opened on line 1 "
        "has no closing '---' within 100 lines (16 KiB); read as markdown\n"
        "docs/adr/notes.md: name does not match NNNN-title.md\n"
        "docs/adr/notes.md: missing slot 'Context and Problem Statement'\n"
        "docs/adr/notes.md: missing slot 'Considered Options'\n"
        "docs/adr/notes.md: missing slot 'Decision Outcome'\n"), "")
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "github")
    assert "::warning file=docs/adr/0005-unclosed-front-matter.md,line=1,title=icm" \
        " journal/front-matter::" in out
    assert "fix: rename to NNNN-title.md, e.g. 0006-my-change.md" in out


@pytest.mark.parametrize("name, page", [
    ("index.md", True), ("ADR_INDEX.md", True), ("decisions-index.md", True),
    ("0000-index.md", True), ("adr-index.MD", True), ("0012-search-index.md", False),
    ("0003-index-the-orders.md", False), ("indexes.md", False)])
def test_an_index_page_is_no_record(name: str, page: bool) -> None:
    from icm.model.journal import is_index

    assert is_index(name) is page


def test_a_records_index_page_is_not_checked(repo: Path, icm) -> None:
    """purple-axiom's ``docs/adr/ADR_INDEX.md`` was a bad name and two
    missing slots: the folder's index, as ``index.md`` is."""
    _tree(repo, {**MADR, "docs/adr/ADR_INDEX.md": "# ADR index\n\n| 1 | x |\n"})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and "ADR_INDEX" not in out and "docs/adr/notes.md" in out


@pytest.mark.parametrize("title, name", [
    ("Consequences / trade-offs", "Consequences"), ("Decision - chosen", "Decision"),
    ("Decision \u2014 what we do", "Decision"), ("Decision (proposed)", "Decision"),
    ("Decision: chosen", "Decision"), ("Decision:", "Decision:"),
    ("Decision -", "Decision -"), ("Decision Drivers", "Decision Drivers"),
    ("Context/Problem", "Context/Problem"),
    ("Risks / Consequences", "Risks / Consequences")])
def test_a_slot_heading_with_a_suffix(title: str, name: str) -> None:
    from icm.model.journal import heading_name

    assert heading_name(title, {"consequences", "decision", "context"}) == name


def test_a_suffixed_consequences_heading_is_the_slot(repo: Path, icm) -> None:
    """curie's "## Consequences / trade-offs" was a missing slot."""
    record = nygard(6, "Cache the reports", "Accepted").replace(
        "## Consequences", "## Consequences / trade-offs")
    _tree(repo, {**NYGARD, "doc/adr/0006-cache-the-reports.md": record})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and "0006" not in out


def test_nygard_tree_through_check_journal(repo: Path, icm) -> None:
    """adr-tools' four sections are the slots; its Superseded by (and the old
    Superceded by) and Supersedes links are the supersede graph."""
    _tree(repo, NYGARD)
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0004-queue-outgoing-mail.md: missing slot 'Context'\n"
        "doc/adr/0004-queue-outgoing-mail.md: Supersedes points at "
        "doc/adr/0009-send-mail-inline.md, which does not exist\n"), "")
    write(repo, {"doc/adr/0004-queue-outgoing-mail.md": nygard(
        4, "Queue outgoing mail", "Accepted", decision="We will queue mail.")})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")


def test_a_status_line_is_the_status_slot(repo: Path, icm) -> None:
    """Altinn's records (issue 24's trial) keep Nygard's sections with the
    status as a list item: each was "missing slot 'Status'". A record with
    no status anywhere still lacks it."""
    body = "\n\n## Context\n\nC.\n\n## Decision\n\nD.\n\n## Consequences\n\nQ.\n"
    write(repo, {"icm.toml": NYGARD_CFG,
                 "doc/adr/0001-a.md": "# ADR-0001: A\n\n- **Status:** Accepted" + body,
                 "doc/adr/0002-b.md": "# 2. B\n\nStatus: Proposed" + body,
                 "doc/adr/0003-c.md": "# 3. C" + body})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0003-c.md: missing slot 'Status'\n"), "")


def test_statuses_feed_the_supersede_graph(repo: Path, icm) -> None:
    """A status naming no record is the orphan; two records superseding one
    (its own line and another's Supersedes) is a fork; a cycle through a
    Supersedes line is one."""
    _tree(repo, NYGARD)
    write(repo, {
        "doc/adr/0004-queue-outgoing-mail.md": nygard(
            4, "Queue outgoing mail", "Superseded by [7. Gone](0007-gone.md)"),
        # 5 says it supersedes 1; 1 says 3 replaced it: a fork on 1.
        "doc/adr/0001-record-architecture-decisions.md": nygard(
            1, "Record architecture decisions",
            "Superseded by [3. Keep sessions in Redis]"
            "(0003-keep-sessions-in-redis.md)"),
        # 3 supersedes 2 and 2 names 6, which supersedes 3: a cycle 2 -> 3?
        "doc/adr/0006-back-to-memory.md": nygard(
            6, "Back to memory", "Accepted\n\nSupersedes [3. Keep sessions in "
            "Redis](0003-keep-sessions-in-redis.md)"),
        "doc/adr/0003-keep-sessions-in-redis.md": nygard(
            3, "Keep sessions in Redis", "Superseded by [2. Keep sessions in "
            "memory](0002-keep-sessions-in-memory.md)"),
    })
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0001-record-architecture-decisions.md: superseded by 2 entries: "
        "doc/adr/0003-keep-sessions-in-redis.md, doc/adr/0005-use-adr-tools.md (a "
        "fork: keep one)\n"
        "doc/adr/0002-keep-sessions-in-memory.md: Superseded-by cycle: "
        "doc/adr/0002-keep-sessions-in-memory.md -> "
        "doc/adr/0003-keep-sessions-in-redis.md -> "
        "doc/adr/0002-keep-sessions-in-memory.md\n"
        "doc/adr/0003-keep-sessions-in-redis.md: superseded by 2 entries: "
        "doc/adr/0002-keep-sessions-in-memory.md, doc/adr/0006-back-to-memory.md "
        "(a fork: keep one)\n"
        "doc/adr/0004-queue-outgoing-mail.md: Superseded-by points at "
        "doc/adr/0007-gone.md, which does not exist\n"), "")


def test_madr_positions(repo: Path, icm) -> None:
    """Superseded from front matter (a link and an ADR number), rejected from
    the options the outcome did not choose (or, with no option list, the Pros
    and Cons headings); newest first by number."""
    _tree(repo, MADR)
    del_files = ("docs/adr/notes.md", "docs/adr/0005-unclosed-front-matter.md")
    for rel in del_files:
        (repo / rel).unlink()
    link = "[docs/adr/{0}.md](docs/adr/{0}.md)".format
    worker = link("0004-send-reports-from-the-worker")
    assert icm("positions", "--root", str(repo)) == (0, (
        "Compiled by `icm positions`; do not edit. Read before proposing work: "
        "reviving a Rejected design needs a `Revives:` line.\n\n## Current\n\n"
        f"- {worker}: Chosen option: \"The job worker's scheduler\", because the "
        "worker runs all night.\n"
        f"- {link('0003-keep-sessions-in-redis')}: Chosen option: \"Redis\", "
        "because the cache cluster already runs it.\n"
        f"- {link('0001-record-decisions-in-madr')}: Chosen option: \"MADR files "
        "in the repository\", because they are reviewed with the code they "
        "explain.\n\n## Superseded\n\n"
        f"- {link('0002-send-reports-with-cron')}: Chosen option: \"A cron job on "
        f"the web host\", because it is already there. Replaced by {worker}: "
        "Chosen option: \"The job worker's scheduler\", because the worker runs "
        "all night.\n\n## Rejected\n\n"
        f"- A cron job on the web host. ({worker})\n"
        "- Signed cookies: Bad, because a session could not be revoked. "
        f"({link('0003-keep-sessions-in-redis')})\n"
        "- Celery beat: Bad, because it needs a broker we do not have. "
        f"({link('0002-send-reports-with-cron')})\n"
        f"- A wiki page. ({link('0001-record-decisions-in-madr')})\n"
        f"- Issue comments. ({link('0001-record-decisions-in-madr')})\n"), "")


def test_nygard_positions(repo: Path, icm) -> None:
    """Superseded by a record's own status line and by another's Supersedes;
    rejected from an Alternatives considered section."""
    _tree(repo, NYGARD)
    link = "[doc/adr/{0}.md](doc/adr/{0}.md)".format
    assert icm("positions", "--root", str(repo)) == (0, (
        "Compiled by `icm positions`; do not edit. Read before proposing work: "
        "reviving a Rejected design needs a `Revives:` line.\n\n## Current\n\n"
        f"- {link('0005-use-adr-tools')}: We will write records with adr-tools.\n"
        f"- {link('0004-queue-outgoing-mail')}: We will queue outgoing mail.\n"
        f"- {link('0003-keep-sessions-in-redis')}: We will keep sessions in "
        "Redis, shared by every web process.\n\n## Superseded\n\n"
        f"- {link('0002-keep-sessions-in-memory')}: We will keep sessions in each "
        f"web process's memory. Replaced by {link('0003-keep-sessions-in-redis')}"
        ": We will keep sessions in Redis, shared by every web process.\n"
        f"- {link('0001-record-architecture-decisions')}: We will keep "
        "Architecture Decision Records, as Michael Nygard describes them. "
        f"Replaced by {link('0005-use-adr-tools')}: We will write records with "
        "adr-tools.\n\n## Rejected\n\n"
        "- Sticky sessions on the load balancer: one restart still logs everyone "
        f"out. ({link('0003-keep-sessions-in-redis')})\n"), "")


CRON = nygard(6, "Send reports from cron", "Accepted",
              decision="We will send the weekly reports from cron.",
              extra="\n## Alternatives considered\n\nA Celery beat schedule for "
                    "the weekly reports: it needs a broker we do not run.\n")
BEAT = nygard(7, "Send reports from Celery beat", "Accepted",
              decision="We will send the weekly reports from a Celery beat "
                       "schedule, now that we run a broker.")
BEAT_WARNING = ("doc/adr/0007-send-reports-from-celery-beat.md: re-proposes what "
                "doc/adr/0006-send-reports-from-cron.md rejected: \"A Celery beat "
                "schedule for the weekly reports: it needs a broker we do not "
                "run\"\n")


@pytest.mark.parametrize("link", [
    # adr-tools' own link for it (adr new -l "Amends:Amended by"), in Status
    "## Status\n\nAccepted\n\nAmended by [7. Send reports from Celery beat]"
    "(0007-send-reports-from-celery-beat.md)\n",
    # a part superseded, as a bold paragraph under a Status line (curie's)
    "Status: Accepted\n\n**Deferral superseded by [ADR-0007]"
    "(0007-send-reports-from-celery-beat.md)**\n(added later): 0007 adopts the "
    "schedule; the rest holds.\n",
    "Status: Accepted\n\n**Partly superseded by ADR-0007**\n",
    # adr-tools' other link words for a change that keeps the record
    "## Status\n\nAccepted\n\nClarified by [7. Send reports from Celery beat]"
    "(0007-send-reports-from-celery-beat.md)\n"])
def test_a_record_revisited_by_a_newer_one_is_no_reproposal(
        repo: Path, icm, link: str) -> None:
    """A record whose status area says a newer record revisits it (Amended by,
    a part superseded by) has recorded the reversal: the newer one holding
    what it rejected is no warning, and the view says it revives it; the
    record itself stays current (only a part was replaced)."""
    cron = CRON.replace("## Status\n\nAccepted\n", link)
    _tree(repo, {**NYGARD, "doc/adr/0006-send-reports-from-cron.md": CRON,
                 "doc/adr/0007-send-reports-from-celery-beat.md": BEAT})
    assert icm("check-positions", "--root", str(repo)) == (0, BEAT_WARNING, "")
    write(repo, {"doc/adr/0006-send-reports-from-cron.md": cron})
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")
    code, out, _ = icm("positions", "--root", str(repo))
    assert code == 0 and (
        "- [doc/adr/0007-send-reports-from-celery-beat.md](doc/adr/0007-send-"
        "reports-from-celery-beat.md): We will send the weekly reports from a "
        "Celery beat schedule, now that we run a broker. (revives what "
        "[doc/adr/0006-send-reports-from-cron.md](doc/adr/0006-send-reports-"
        "from-cron.md) rejected)\n") in out
    current = out.split("## Superseded")[0]
    assert "[doc/adr/0006-send-reports-from-cron.md]" in current
    assert "Celery beat schedule for the weekly reports" not in \
        out.split("## Rejected")[1]


def test_revisits_chain_and_prose_names_none(repo: Path, icm) -> None:
    """Revisits chain (6 amended by 7, 7's mechanism superseded by 8: 8 may
    hold what 6 rejected); a wrapped line of prose saying another record
    "is now superseded by" one revisits nothing."""
    mid = nygard(7, "Batch the reports", "Accepted\n\nMechanism superseded by "
                 "[8. Send reports from Celery beat](0008-send-reports-from-"
                 "celery-beat.md)", decision="We will write each report in one query.")
    beat = BEAT.replace("# 7.", "# 8.").replace("2024-02-07", "2024-02-08")
    cron = CRON.replace("## Status\n\nAccepted\n", "## Status\n\nAccepted\n\n"
                        "Amended by [7. Batch the reports](0007-batch-the-"
                        "reports.md)\n")
    _tree(repo, {**NYGARD, "doc/adr/0006-send-reports-from-cron.md": cron,
                 "doc/adr/0007-batch-the-reports.md": mid,
                 "doc/adr/0008-send-reports-from-celery-beat.md": beat})
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")
    prose = CRON.replace("## Status\n\nAccepted\n", (
        "Status: Accepted\n\nThis record was drafted while 5 was open; it\n"
        "is now superseded by [ADR-0008](0008-send-reports-from-celery-beat.md)"
        " and the decision is unaffected.\n"))
    write(repo, {"doc/adr/0006-send-reports-from-cron.md": prose})
    assert icm("check-positions", "--root", str(repo)) == (0, BEAT_WARNING.replace(
        "0007-send-reports-from-celery-beat", "0008-send-reports-from-celery-beat"),
        "")


def test_a_newer_record_re_proposing_a_rejected_option_is_warned(repo: Path,
                                                                  icm) -> None:
    """Records are ordered by number: a later record choosing what an earlier
    one rejected is a re-proposal, as a later dated entry is."""
    _tree(repo, MADR)
    write(repo, {"docs/adr/0006-move-reports-to-celery-beat.md": """\
# Move reports to Celery beat

## Context and Problem Statement

The worker's scheduler drifts.

## Considered Options

* Celery beat

## Decision Outcome

Chosen option: "Celery beat", because it needs a broker we do not have.
"""})
    code, out, _ = icm("check-positions", "--root", str(repo))
    assert (code, out) == (0, (
        "docs/adr/0006-move-reports-to-celery-beat.md: re-proposes what "
        "docs/adr/0002-send-reports-with-cron.md rejected: \"celery beat\"\n"))


def _dry(icm, repo: Path):
    code, out, err = icm("verify", "--dry-run", "--root", str(repo))
    return code, out.replace(str(repo), "ROOT"), err


def test_verify_dry_run_offers_only_the_verify_role(repo: Path, icm) -> None:
    """MADR and adr-tools records carry code spans in Consequences (`rm -rf
    docs`, `rm -rf tmp/mail`): never offered; a record without a Verify
    command section is counted, not run, not a warning."""
    _tree(repo, MADR)
    assert _dry(icm, repo) == (0, (
        "docs/adr/0001-record-decisions-in-madr.md: no 'Verify command' section, "
        "not run\n"
        "docs/adr/0002-send-reports-with-cron.md: superseded by "
        "docs/adr/0004-send-reports-from-the-worker.md, not run\n"
        "docs/adr/0003-keep-sessions-in-redis.md: no 'Verify command' section, "
        "not run\n"
        "docs/adr/0004-send-reports-from-the-worker.md: would run in ROOT:\n"
        "    test -f docs/adr/0004-send-reports-from-the-worker.md\n"
        "docs/adr/0005-unclosed-front-matter.md: superseded by "
        "docs/adr/0004-send-reports-from-the-worker.md, not run\n"
        "docs/adr/notes.md: no 'Verify command' section, not run\n"
        "verify: 1 command would run\n"), "")


def test_verify_dry_run_on_an_adr_tools_tree(repo: Path, icm) -> None:
    _tree(repo, NYGARD)
    assert _dry(icm, repo) == (0, (
        "doc/adr/0001-record-architecture-decisions.md: superseded by "
        "doc/adr/0005-use-adr-tools.md, not run\n"
        "doc/adr/0002-keep-sessions-in-memory.md: superseded by "
        "doc/adr/0003-keep-sessions-in-redis.md, not run\n"
        "doc/adr/0003-keep-sessions-in-redis.md: would run in ROOT:\n"
        "    test -d doc/adr\n"
        "doc/adr/0004-queue-outgoing-mail.md: no 'Verify command' section, not "
        "run\n"
        "doc/adr/0005-use-adr-tools.md: no 'Verify command' section, not run\n"
        "verify: 1 command would run\n"), "")


def test_verify_slot_names_any_heading_in_a_record_journal(repo: Path,
                                                          icm) -> None:
    """MADR 4's Confirmation section may hold the command: verify_slot names
    it (a ### heading under Decision Outcome), and it need not be a slot."""
    _tree(repo, MADR)
    write(repo, {"icm.toml": MADR_CFG + "verify_slot = 'Confirmation'\nslots = "
                 "['Context and Problem Statement', 'Decision Outcome']\n",
                 "docs/adr/0001-record-decisions-in-madr.md":
                 MADR["docs/adr/0001-record-decisions-in-madr.md"]
                 + "\n### Confirmation\n\n```sh\ntest -d docs/adr\n```\n"})
    code, out, _ = _dry(icm, repo)
    assert code == 0 and out.splitlines()[:2] == [
        "docs/adr/0001-record-decisions-in-madr.md: would run in ROOT:",
        "    test -d docs/adr"]
    assert icm("check-journal", "--root", str(repo))[1].count("\n") == 4


def test_a_fourth_slot_named_consequences_is_no_verify_command(repo: Path,
                                                               icm) -> None:
    """The newcomer's trial: MADR's headings as the icm format's slots made
    Consequences the fourth slot, and --dry-run offered its code span as a
    shell command."""
    write(repo, {"icm.toml": "slots = ['Context and Problem Statement', "
                             "'Considered Options', 'Decision Outcome', "
                             "'Consequences']\n",
                 "journal/2026-01-01_a.md": "# A\n\n## Context and Problem "
                 "Statement\n\nx\n\n## Considered Options\n\n* y\n\n## Decision "
                 "Outcome\n\nChosen option: \"y\".\n\n## Consequences\n\n"
                 "`rm -rf build`\n"})
    assert _dry(icm, repo) == (2, "", (
        "icm: icm.toml: no slot holds the Verify command: the fourth slot, "
        "'Consequences', is not the verify role and verify_slot is unset; set "
        "verify_slot to the slot whose code icm verify runs\n"))
    assert icm("positions", "--root", str(repo))[1].splitlines()[4] == (
        "- [journal/2026-01-01_a.md](journal/2026-01-01_a.md): Chosen option: "
        "\"y\".")


# -- new-journal --title and --supersedes ----------------------------------------

ICM_ENTRY = """\
# Stream the input

## Decision
<!-- What was decided and built, in a few sentences. -->

## Rejected alternative
<!-- What else was considered, and why it lost. The next session will
propose it again unless this says why not. -->

## Invariant
<!-- The constraint that now binds, in the present tense: "no function in
src/ returns a list of rows". -->

## Verify command
<!-- A one-liner that fails when the invariant breaks, e.g.
`pytest -q tests/test_cleaner.py -k streams`. -->
"""

NYGARD_ENTRY = """\
# 1. Stream the input

Date: 2026-11-29

## Status

Accepted

## Context

<!-- The forces at play: what made a decision necessary now. -->

## Decision

<!-- What was decided, in the active voice: "We will ...". -->

## Consequences

<!-- What becomes easier or harder once it is done, good and bad. -->
"""

MADR_ENTRY = """\
---
status: accepted
date: 2026-11-29
---

# Stream the input

## Context and Problem Statement

<!-- The problem in two or three sentences; a question is fine. -->

## Considered Options

<!-- One list item per option, the chosen one too: "* Option A". -->

## Decision Outcome

<!-- Chosen option: "Option A", because ... -->

### Consequences

<!-- "* Good, because ..." and "* Bad, because ..." -->

## Pros and Cons of the Options

<!-- A "### Option" heading per option, with its good and bad points. -->
"""


@pytest.mark.parametrize("fmt, rel, text", [
    ("icm", "journal/2026-11-29_stream-the-input.md", ICM_ENTRY),
    ("nygard", "journal/0001-stream-the-input.md", NYGARD_ENTRY),
    ("madr", "journal/0001-stream-the-input.md", MADR_ENTRY),
])
def test_new_journal_title_writes_the_formats_template(repo: Path, icm, fmt: str,
                                                       rel: str, text: str) -> None:
    """No queue item: ``adr new``'s equivalent, in the configured format and
    file-name rule; the entry fails the gate until it is written."""
    write(repo, {"icm.toml": f"journal_format = '{fmt}'\n", "AGENTS.md": "# H\n"})
    assert icm("new-journal", "--title", "Stream  the input", "--date",
               "2026-11-29", "--root", str(repo)) == (0, f"{rel}\n", "")
    assert (repo / rel).read_text() == text
    assert icm("check-journal", "--root", str(repo))[0] == 1
    assert sorted(os.listdir(repo)) == [".git", "AGENTS.md", "icm.toml", "journal"]


def test_new_journal_title_adds_the_configured_slots(repo: Path, icm) -> None:
    """A record journal that requires an Invariant and a Verify command gets
    them after the template's sections, with icm's hints."""
    write(repo, {"icm.toml": NYGARD_CFG + "slots = ['Status', 'Context', "
                 "'Decision', 'Consequences', 'Invariant', 'Verify command']\n"})
    assert icm("new-journal", "--title", "X", "--date", "2026-11-29", "--root",
               str(repo))[1] == "doc/adr/0001-x.md\n"
    assert (repo / "doc/adr/0001-x.md").read_text().endswith(
        "## Consequences\n\n<!-- What becomes easier or harder once it is done, "
        "good and bad. -->\n\n## Invariant\n<!-- The constraint that now binds, "
        "in the present tense: \"no function in\nsrc/ returns a list of rows\". "
        "-->\n\n## Verify command\n<!-- A one-liner that fails when the invariant "
        "breaks, e.g.\n`pytest -q tests/test_cleaner.py -k streams`. -->\n")


def test_new_journal_numbers_past_the_highest(repo: Path, icm) -> None:
    """The next number is one above the highest in the folder (gaps are not
    filled: a number once used is named in other records)."""
    _tree(repo, NYGARD)
    (repo / "doc/adr/0002-keep-sessions-in-memory.md").unlink()
    write(repo, {"doc/adr/0017-late.md": nygard(7, "Late", "Accepted")})
    assert icm("new-journal", "--title", "Next one", "--root", str(repo)) == (
        0, "doc/adr/0018-next-one.md\n", "")
    assert (repo / "doc/adr/0018-next-one.md").read_text().startswith(
        "# 18. Next one\n")
    assert icm("new-journal", "--title", "!!", "--root", str(repo)) == (
        2, "", "icm: the title needs at least one letter or digit (of any script) "
        "to name the file\n")


def test_new_journal_from_an_item_in_a_record_journal(repo: Path, icm) -> None:
    """A queue item becomes the next numbered record, its text carried over."""
    write(repo, {"icm.toml": NYGARD_CFG, "doc/adr/0001-a.md": nygard(
        1, "A", "Accepted"), "queue/07_use-a-queue.md": "# Use a queue\n\nMail "
        "blocks requests.\n"})
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root",
               str(repo)) == (0, "doc/adr/0002-use-a-queue.md\nremoved "
                              "queue/07_use-a-queue.md\n", "")
    assert (repo / "doc/adr/0002-use-a-queue.md").read_text().startswith(
        "# 2. Use a queue\n\nDate: 2026-11-29\n\nCarried over from "
        "`queue/07_use-a-queue.md`:\n\nMail blocks requests.\n\n## Status\n\n"
        "Accepted\n\n## Context\n")


def _blocked(proc: "subprocess.Popen[str]") -> bool:
    from tests.test_two_writers import _blocked_or_ended

    return _blocked_or_ended(proc)


@pytest.mark.skipif(not os.path.exists("/proc/locks"),
                    reason="needs Linux's /proc/locks")
def test_two_writers_at_once_get_two_numbers(repo: Path) -> None:
    """Both start while the test holds the journal folder's lock: each waits
    for it, then each takes the next number (without the lock both read 0001
    and one failed, or wrote over nothing but lost its number)."""
    import fcntl

    write(repo, {"icm.toml": NYGARD_CFG, "doc/adr/0001-a.md": nygard(
        1, "A", "Accepted")})
    fd = os.open(repo / "doc/adr", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        procs = [subprocess.Popen([sys.executable, "-m", "icm", "new-journal",
                                   "--title", f"Writer {n}", "--root", str(repo)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for n in (1, 2)]
        waited = [_blocked(p) for p in procs]
    finally:
        os.close(fd)
    outs = [p.communicate() for p in procs]
    assert waited == [True, True], outs
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sorted(out[:len("doc/adr/0002")] for out, _err in outs) == [
        "doc/adr/0002", "doc/adr/0003"]
    assert sorted(os.listdir(repo / "doc/adr")) == [
        "0001-a.md", *sorted(out.strip().rsplit("/", 1)[1] for out, _ in outs)]


SUPERSEDED = {
    "icm": ("journal/2026-11-01_stream.md", "# Stream\n\nWe stream.\n\n"
            "## Decision\nx\n", "# Stream\n\nSuperseded-by: "
            "journal/2026-11-29_buffer-it.md\n\nWe stream.\n\n## Decision\nx\n",
            "journal/2026-11-29_buffer-it.md"),
    "nygard": ("doc/adr/0001-stream.md", nygard(1, "Stream", "Accepted"),
               nygard(1, "Stream", "Superseded by [2. Buffer it]"
                      "(0002-buffer-it.md)"), "doc/adr/0002-buffer-it.md"),
    "madr": ("docs/adr/0001-stream.md", "---\nstatus: accepted\n---\n\n# Stream\n",
             "---\nstatus: superseded by [ADR-0002](0002-buffer-it.md)\n---\n\n"
             "# Stream\n", "docs/adr/0002-buffer-it.md"),
}
FOLDERS = {"icm": "", "nygard": "journal_dir = 'doc/adr'\n",
           "madr": "journal_dir = 'docs/adr'\n"}


@pytest.mark.parametrize("fmt", sorted(SUPERSEDED))
def test_supersedes_marks_the_old_entry_in_the_formats_way(repo: Path, icm,
                                                           fmt: str) -> None:
    """``adr new -s 1``: the old entry says what replaced it, in the format's
    own way, and the supersede graph and positions read it back."""
    old, before, after, new = SUPERSEDED[fmt]
    write(repo, {"icm.toml": f"journal_format = '{fmt}'\n{FOLDERS[fmt]}",
                 old: before})
    assert icm("new-journal", "--title", "Buffer it", "--supersedes", "1" if fmt
               != "icm" else "2026-11-01", "--date", "2026-11-29", "--root",
               str(repo)) == (0, f"{new}\nmarked {old} superseded by {new}\n", "")
    assert (repo / old).read_text() == after
    code, out, _ = icm("positions", "--format", "json", "--root", str(repo))
    import json

    assert [(s["entry"], s["superseded_by"]) for s in json.loads(out)[
        "superseded"]] == [(old, new)]
    if fmt == "nygard":
        assert "\n## Status\n\nAccepted\n\nSupersedes [1. Stream](0001-stream.md)" \
            "\n\n## Context\n" in (repo / new).read_text()


@pytest.mark.parametrize("status, after", [
    # MADR 2's list item keeps its key and markup
    ("* **Status:** proposed\n", "* **Status:** superseded by [ADR-0002]"
     "(0002-b.md)\n"),
    # front matter without a status gets one
    ("---\ndate: 2024-01-01\n---\n", "---\nstatus: superseded by [ADR-0002]"
     "(0002-b.md)\ndate: 2024-01-01\n---\n"),
    # no status anywhere: front matter is added
    ("", "---\nstatus: superseded by [ADR-0002](0002-b.md)\n---\n\n"),
])
def test_madr_statuses_are_rewritten_where_they_are(repo: Path, icm, status: str,
                                                    after: str) -> None:
    body = "# A\n\n## Context and Problem Statement\n\nx\n"
    old = f"{status}{body}" if status.startswith("-") or not status else \
        f"# A\n\n{status}\n## Context and Problem Statement\n\nx\n"
    want = f"{after}{body}" if not status.startswith("*") else \
        f"# A\n\n{after}\n## Context and Problem Statement\n\nx\n"
    write(repo, {"icm.toml": "journal_format = 'madr'\n", "journal/0001-a.md": old})
    assert icm("new-journal", "--title", "B", "--supersedes", "0001", "--root",
               str(repo))[0] == 0
    assert (repo / "journal/0001-a.md").read_text() == want


def test_nygard_record_without_a_status_gets_one(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "journal_format = 'nygard'\n",
                 "journal/0001-a.md": "# 1. A\r\n\r\n## Context\r\n\r\nx\r\n"})
    assert icm("new-journal", "--title", "B", "--supersedes", "1", "--root",
               str(repo))[0] == 0
    assert (repo / "journal/0001-a.md").read_bytes() == (
        b"# 1. A\r\n\r\n## Status\r\n\r\nSuperseded by [2. B](0002-b.md)\r\n\r\n"
        b"## Context\r\n\r\nx\r\n")


def test_supersedes_is_both_files_or_neither(repo: Path, icm) -> None:
    """The old entry cannot be written (read-only): the new one is not made
    either. One already superseded, or a name matching none or two, is
    refused before anything is written."""
    old, before, _after, new = SUPERSEDED["nygard"]
    write(repo, {"icm.toml": NYGARD_CFG, old: before,
                 "doc/adr/0003-stream-more.md": nygard(3, "Stream more",
                                                       "Accepted")})
    (repo / old).chmod(0o444)
    assert icm("new-journal", "--title", "Buffer it", "--supersedes", "1",
               "--root", str(repo)) == (
        2, "", f"icm: refusing to write {old}: the file is read-only; nothing was "
        "changed\n")
    (repo / old).chmod(0o644)
    assert sorted(os.listdir(repo / "doc/adr")) == ["0001-stream.md",
                                                    "0003-stream-more.md"]
    assert (repo / old).read_text() == before
    for wanted, message in (
            ("9", "--supersedes 9: no journal entry matches"),
            ("doc/adr/000", "--supersedes doc/adr/000: matches several journal "
             "entries: doc/adr/0001-stream.md, doc/adr/0003-stream-more.md")):
        assert icm("new-journal", "--title", "B", "--supersedes", wanted,
                   "--root", str(repo)) == (2, "", f"icm: {message}\n")
    assert icm("new-journal", "--title", "B", "--supersedes", "1", "--root",
               str(repo))[0] == 0
    assert icm("new-journal", "--title", "C", "--supersedes", "1", "--root",
               str(repo)) == (2, "", f"icm: {old} is already superseded by "
                              "doc/adr/0004-b.md; nothing was changed\n")
    assert sorted(os.listdir(repo / "doc/adr")) == [
        "0001-stream.md", "0003-stream-more.md", "0004-b.md"]


# -- configuration -----------------------------------------------------------------

def test_journal_pattern_is_the_file_name_rule(repo: Path, icm) -> None:
    write(repo, {"icm.toml": NYGARD_CFG + "journal_pattern = 'ADR-NNN-*.md'\n",
                 "doc/adr/ADR-001-a.md": nygard(1, "A", "Accepted"),
                 "doc/adr/0002-b.md": nygard(2, "B", "Accepted")})
    assert icm("check-journal", "--root", str(repo)) == (
        1, "doc/adr/0002-b.md: name does not match ADR-NNN-*.md\n", "")
    assert icm("new-journal", "--title", "Use Rust", "--root", str(repo)) == (
        0, "doc/adr/ADR-002-use-rust.md\n", "")


def test_journal_patterns_name_a_folder_that_changed_its_naming(
        repo: Path, icm) -> None:
    """Portarium's records (issue 24's trial) are ``0031-title.md`` and
    ``ADR-0080.md``: any pattern of the list names an entry, its number
    orders it, and the first names new ones."""
    write(repo, {"icm.toml": NYGARD_CFG + "journal_pattern = ['NNNN-*.md', "
                 "'ADR-NNNN.md']\n",
                 "doc/adr/0001-a.md": nygard(1, "A", "Accepted"),
                 "doc/adr/ADR-0002.md": nygard(2, "B", "Accepted"),
                 "doc/adr/ADR-3-c.md": nygard(3, "C", "Accepted")})
    assert icm("check-journal", "--root", str(repo)) == (
        1, "doc/adr/ADR-3-c.md: name does not match NNNN-*.md or ADR-NNNN.md\n",
        "")
    (repo / "doc/adr/ADR-3-c.md").unlink()
    assert icm("new-journal", "--title", "Use Rust", "--root", str(repo)) == (
        0, "doc/adr/0003-use-rust.md\n", "")


@pytest.mark.parametrize("line, message", [
    ("journal_format = 'adr'", "key 'journal_format' must be 'icm' or 'madr' or "
     "'nygard', got 'adr'"),
    ("journal_pattern = 'NNNN.md'", "key 'journal_pattern' must be a file name "
     "ending .md, with slug, title or * where the title goes (e.g. "
     "'NNNN-title.md'), got 'NNNN.md'"),
    ("journal_pattern = 'adr/NNNN-title.md'", "key 'journal_pattern' must be a "
     "file name ending .md, with slug, title or * where the title goes (e.g. "
     "'NNNN-title.md'), got 'adr/NNNN-title.md'"),
    ("journal_pattern = 3", "key 'journal_pattern' must be a non-empty string, "
     "or a list of them, got an integer (3)"),
    ("journal_pattern = ['NNNN-*.md', 'adr/NNNN.md']", "key 'journal_pattern' "
     "must be file names ending .md; after the first, each with a number (NNNN), "
     "a date or the title's place, got ['NNNN-*.md', 'adr/NNNN.md']"),
    ("journal_pattern = ['ADR-NNNN.md', 'NNNN-*.md']", "key 'journal_pattern' "
     "must be a file name ending .md, with slug, title or * where the title goes "
     "(e.g. 'NNNN-title.md'), got ['ADR-NNNN.md', 'NNNN-*.md']"),
    ("verify_slot = 'Check'", "key 'verify_slot' must name one of the slots, got "
     "'Check'"),
])
def test_format_keys_are_checked(repo: Path, icm, line: str, message: str) -> None:
    write(repo, {"icm.toml": f"{line}\n"})
    assert icm("check-journal", "--root", str(repo)) == (2, "",
                                                          f"icm: icm.toml: {message}\n")


# -- front matter ------------------------------------------------------------------

def _record(front: str) -> str:
    return (f"{front}# A\n\n## Context and Problem Statement\n\nx\n\n"
            "## Considered Options\n\n* y\n\n## Decision Outcome\n\n"
            "Chosen option: \"y\".\n")


def test_front_matter_edges(repo: Path, icm) -> None:
    """Closed late (past 100 lines), a line longer than what is scanned, and
    bytes that are not UTF-8: each one line, nothing else lost."""
    huge = "---\n" + "".join(f"k{i}: v\n" for i in range(150)) + "---\n"
    wide = "---\nnote: " + "x" * 20000 + "\n---\n"
    write(repo, {"icm.toml": "journal_format = 'madr'\n",
                 "journal/0001-late.md": _record(huge),
                 "journal/0002-wide.md": _record(wide),
                 "journal/0003-bytes.md": b"---\nstatus: caf\xe9\n---\n",
                 "journal/0004-fine.md": _record("---\nstatus: accepted\n---\n")})
    read = "front matter opened on line 1 has no closing '---' within 100 lines " \
        "(16 KiB); read as markdown"
    assert icm("check-journal", "--root", str(repo)) == (1, (
        f"journal/0001-late.md: {read}\n"
        f"journal/0002-wide.md: {read}\n"
        "journal/0003-bytes.md: cannot read: not valid UTF-8 (line 2, byte offset "
        "15)\n"), "")


@given(st.text(alphabet="-abk: \n\r.\"'", max_size=80))
def test_front_matter_keeps_every_line(text: str) -> None:
    """Whatever the text, the parser sees as many lines, each break kept:
    every line number it gives is the file's."""
    from icm.lines import split
    from icm.model.journal import front_matter

    fm = front_matter(text)
    assert [e for _r, e in split(fm.text)] == [e for _r, e in split(text)]
    assert fm.text == text or (fm.end and not fm.problem)


def test_front_matter_costs_the_same_at_any_length() -> None:
    """Only the first 100 lines (16 KiB) are looked at: an unclosed front
    matter of 2,000 lines costs what one of 200,000 does."""
    from icm.model.journal import front_matter

    def cost(n: int) -> int:
        import gc

        text = "---\n" + "key: value\n" * n
        gc.disable()  # a collection may run Python callbacks mid-count
        try:
            return python_lines(lambda: front_matter(text))
        finally:
            gc.enable()

    cost(10)  # first calls pay for imports and caches
    assert cost(200_000) == cost(2_000)


def test_option_names_are_compared_on_their_first_characters() -> None:
    """The regexes that strip an option's markup see its first 300
    characters: a megabyte of ``[`` after them changes nothing (and costs
    nothing: a link pattern tried from every ``[`` is quadratic)."""
    from icm.model.journal import NAME_CHARS, _plain, chosen_option

    head = "Use a queue " + "x" * (NAME_CHARS - 12)
    assert _plain(head + "[" * 10**6) == _plain(head) == head.casefold()
    assert chosen_option("Chosen option: " + head + " " * 10**6 + "x") == \
        chosen_option("Chosen option: " + head)


@given(st.dates(), st.integers(0, 10**6),
       st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True),
       st.sampled_from(["YYYY-MM-DD_slug.md", "NNNN-title.md", "ADR-NNN-*.md",
                        "YYYY-NNN_slug.md"]))
def test_a_made_name_reads_back(day, number: int, slug: str, pattern: str) -> None:
    from icm.model.journal import NamePattern

    rule = NamePattern(pattern)
    name = rule.make(day, number, slug)
    assert rule.valid(name) or day.year < 1
    if rule.numbered:
        assert rule.number(name) == number


# -- the other readers ask for roles ----------------------------------------------

def test_dupes_reads_only_the_invariant_role(repo: Path, icm) -> None:
    """A record's Consequences restating a note is no finding; its Invariant
    disagreeing with the note is (the role, not a heading by place)."""
    rule = "Sessions expire after 30 minutes without a request in every service."
    write(repo, {"icm.toml": "journal_format = 'nygard'\n",
                 "AGENTS.md": f"# H\n\n{rule}\n",
                 "journal/0001-a.md": nygard(1, "A", "Accepted",
                                             consequences=rule.replace("30", "60"))})
    assert icm("check-dupes", "--root", str(repo)) == (0, "dupes ok\n", "")
    write(repo, {"journal/0001-a.md": nygard(
        1, "A", "Accepted", extra=f"\n## Invariant\n\n{rule.replace('30', '60')}\n")})
    code, out, _ = icm("check-dupes", "--root", str(repo))
    assert (code, out) == (0, "diverged rule: journal/0001-a.md:23 and AGENTS.md:3 "
                           "disagree: '60' vs '30'\n")


def test_handoff_names_the_decision_and_rejected_roles(repo: Path) -> None:
    from icm import config, context
    from icm.workflow.handoff import _entry_lines

    write(repo, {"icm.toml": MADR_CFG,
                 **{k: v for k, v in MADR.items() if k.startswith("docs/adr/0002")}})
    ctx = context.build(repo.resolve(), config.load(repo))
    assert _entry_lines(ctx, "docs/adr/0002-send-reports-with-cron.md") == (
        'Chosen option: "A cron job on the web host", because it is already there.',
        "Celery beat.")


def test_a_records_format_can_be_told_from_its_text() -> None:
    """What ``icm init`` may ask to pick ``journal_format``."""
    from icm.model.journal import format_of

    assert [format_of(MADR[f"docs/adr/{name}.md"]) for name in (
        "0001-record-decisions-in-madr", "0003-keep-sessions-in-redis")] == [
        "madr", None]  # 0003 lacks Considered Options
    assert format_of(NYGARD["doc/adr/0002-keep-sessions-in-memory.md"]) == "nygard"
    assert format_of("# A\n\n## Decision\nx\n") is None


def test_madr_options_named_as_a_reader_names_them(repo: Path, icm) -> None:
    """A bold-named option is listed by its name, its wrapped description
    its reason (lines joined, not escaped); an outcome naming its choice in
    bold or by a few words of one option (``**monorepo**`` for "One monorepo
    ...") still finds it; words two options hold choose neither, so nothing
    is listed."""
    write(repo, {
        "icm.toml": MADR_CFG, "AGENTS.md": "# Handbook\n",
        "docs/adr/0001-place-the-agent.md": """\
# Place the agent

## Considered Options

* **A — Server-side agent**: the loop runs in the backend and reads
  its keys from the environment.
* **B — Client-side agent**: the loop moves into the browser, which
  calls the model itself.

## Decision Outcome

Chosen option: **A — Server-side agent**, because no key leaves the host.
""",
        "docs/adr/0002-one-repository.md": """\
# One repository

## Considered Options

* One monorepo holding all four packages
* A repository per package

## Decision Outcome

Chosen option: **monorepo**, because the packages change together.
""",
        "docs/adr/0003-a-cache.md": """\
# A cache

## Considered Options

* A cache in each process
* A cache shared by every process

## Decision Outcome

Chosen option: **a cache**, because reads repeat.
""",
    })
    link = "[docs/adr/{0}.md](docs/adr/{0}.md)".format
    code, out, err = icm("positions", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.split("## Rejected\n\n", 1)[1] == (
        f"- A repository per package. ({link('0002-one-repository')})\n"
        "- B — Client-side agent: the loop moves into the browser, which calls "
        f"the model itself. ({link('0001-place-the-agent')})\n")


def test_a_record_whose_decision_is_its_lead_prose(repo: Path, icm) -> None:
    """An early record writes its context and decision as prose under its
    title, its status as a list: the lead holds both slots, its first
    sentence is the position, an opening "Supersedes ..." paragraph is a
    status, not the decision. A superseded record is read as written (no
    section is asked of it); an accepted one with neither lead nor sections
    still is; icm's own entries never read a lead as a slot."""
    write(repo, {
        "icm.toml": NYGARD_CFG, "AGENTS.md": "# Handbook\n",
        "doc/adr/0001-keep-sessions-in-memory.md": """\
# 1. Keep sessions in memory

- **Status:** Superseded by [2](0002-keep-sessions-in-redis.md)

## What we tried

Memory, until the second web process came.
""",
        "doc/adr/0002-keep-sessions-in-redis.md": """\
# 2. Keep sessions in Redis

- **Status:** Accepted
- **Date:** 2024-02-02

Supersedes [1](0001-keep-sessions-in-memory.md), and amends
nothing else.

Sessions live in Redis, shared by every web process. Two processes
lost logins.

## Consequences

Redis must be up before the web tier.
""",
        "doc/adr/0003-queue-mail.md": """\
# 3. Queue mail

- **Status:** Accepted

## Consequences

Mail waits for the worker.
""",
    })
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0003-queue-mail.md: missing slot 'Context'\n"
        "doc/adr/0003-queue-mail.md: missing slot 'Decision'\n"), "")
    code, out, err = icm("positions", "--root", str(repo))
    link = "[doc/adr/{0}.md](doc/adr/{0}.md)".format
    assert (code, err) == (0, "")
    assert f"- {link('0002-keep-sessions-in-redis')}: Sessions live in Redis, " \
        "shared by every web process.\n" in out
    write(repo, {"icm.toml": "", "journal/2024-02-02_redis.md": (
        "# Redis\n\nSessions live in Redis.\n\n## Invariant\n\nOne store.\n\n"
        "## Verify command\n\n```sh\ntrue\n```\n")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2024-02-02_redis.md: missing slot 'Decision'\n"
        "journal/2024-02-02_redis.md: missing slot 'Rejected alternative'\n"), "")


# -- a slot heading with a suffix ------------------------------------------------

SUFFIXED = {
    "icm.toml": NYGARD_CFG,
    "doc/adr/0001-cache-reports.md": nygard(
        1, "Cache reports", "Accepted", decision="We will cache reports.",
        extra="\n## Verify command: the cache folder\n\n`test -d doc/adr`\n",
    ).replace("## Decision\n", "## Decision (proposed)\n"),
    "doc/adr/0002-queue-reports.md": nygard(
        2, "Queue reports", "Accepted", decision="We will queue reports.",
    ).replace("## Decision\n", "## Decision: chosen\n"),
    # MADR's Decision Drivers is another section: no Decision here
    "doc/adr/0003-drivers-only.md": nygard(
        3, "Drivers only", "Accepted", decision="Reports must be fast.",
    ).replace("## Decision\n", "## Decision Drivers\n"),
}


def test_a_slot_heading_with_a_suffix_is_the_slot(repo: Path, icm) -> None:
    """``## Decision (proposed)`` and ``## Decision: chosen`` were no Decision
    in an adr-tools record; ``## Decision Drivers`` stays another section."""
    _tree(repo, SUFFIXED)
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0003-drivers-only.md: missing slot 'Decision'\n"), "")
    link = "[doc/adr/{0}.md](doc/adr/{0}.md)".format
    assert icm("positions", "--root", str(repo)) == (0, (
        "Compiled by `icm positions`; do not edit. Read before proposing work: "
        "reviving a Rejected design needs a `Revives:` line.\n\n## Current\n\n"
        f"- {link('0003-drivers-only')}: (no Decision)\n"
        f"- {link('0002-queue-reports')}: We will queue reports.\n"
        f"- {link('0001-cache-reports')}: We will cache reports.\n\n"
        "## Superseded\n\n(none)\n\n## Rejected\n\n(none)\n"), "")
    assert _dry(icm, repo) == (0, (
        "doc/adr/0001-cache-reports.md: would run in ROOT:\n"
        "    test -d doc/adr\n"
        "doc/adr/0002-queue-reports.md: no 'Verify command' section, not run\n"
        "doc/adr/0003-drivers-only.md: no 'Verify command' section, not run\n"
        "verify: 1 command would run\n"), "")


def test_madr_and_icm_slots_take_a_suffix_but_not_another_section(
        repo: Path, icm) -> None:
    madr = MADR["docs/adr/0001-record-decisions-in-madr.md"]
    write(repo, {
        "icm.toml": MADR_CFG, "AGENTS.md": "# Handbook\n",
        "docs/adr/0001-a.md": madr.replace(
            "## Decision Outcome\n", "## Decision Drivers\n\n* Reviews.\n\n"
            "## Decision Outcome (accepted)\n"),
        "docs/adr/0002-b.md": madr.replace("## Decision Outcome\n",
                                           "## Decision Drivers\n"),
        "journal/2026-01-01_a.md": SLOTS_OK.replace(
            "## Decision\n", "## Decision (proposed)\n"),
        "journal/2026-01-02_b.md": SLOTS_OK.replace(
            "## Decision\n", "## Decision Drivers\n")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/adr/0002-b.md: missing slot 'Decision Outcome'\n"), "")
    write(repo, {"icm.toml": ""})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2026-01-02_b.md: missing slot 'Decision'\n"), "")


def _header_record(number: int, title: str, supersedes: str, by: str) -> str:
    """A record with its links as header lines under the title (the form of
    issue 24's round-5 .NET repository: ``Superseded-by: N/A`` until one is)."""
    return (f"# {number:04d}: {title}\n\nStatus: Accepted\nDate: 2024-01-0{number}\n"
            f"Supersedes: {supersedes}\nSuperseded-by: {by}\n\n## Context\n\nC.\n\n"
            "## Decision\n\nD.\n\n## Consequences\n\nQ.\n")


@pytest.mark.parametrize("nothing", ["N/A", "n/a", "None", "-", "—", "", "*N/A*",
                                     "`none`", "TBD", "N/A."])
def test_a_link_line_saying_none_names_no_record(repo: Path, icm,
                                                   nothing: str) -> None:
    """``Superseded-by: N/A`` (and an empty one) was read as a link to a
    record named ``N/A``: four errors on a tree with nothing wrong. A real
    target on the same line form still counts, and a missing one is still
    reported."""
    write(repo, {"icm.toml": "journal_format = 'nygard'\n"
                             "journal_dir = 'docs/decisions'\n",
                 "docs/decisions/0001-layers.md": _header_record(
                     1, "Layers", nothing, nothing),
                 "docs/decisions/0002-agents.md": _header_record(
                     2, "Agents", nothing, nothing)})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    write(repo, {"docs/decisions/0002-agents.md": _header_record(
        2, "Agents", nothing, "[7](0007-gone.md)")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "docs/decisions/0002-agents.md: Superseded-by points at "
        "docs/decisions/0007-gone.md, which does not exist\n"), "")


def test_a_records_folders_own_note_is_no_record(repo: Path, icm) -> None:
    """The records folder's ``AGENTS.md`` (how to write a record) was judged
    as a record: a bad name and every slot missing. A folder note of any
    tool, or the configured note name, is the folder's note; another stray
    file still is reported."""
    write(repo, {"icm.toml": "journal_format = 'nygard'\n"
                             "journal_dir = 'docs/decisions'\n",
                 "docs/decisions/AGENTS.md": "# How we write records\n\nOne a file.\n",
                 "docs/decisions/CLAUDE.md": "@AGENTS.md\n",
                 "docs/decisions/0001-layers.md": _header_record(
                     1, "Layers", "N/A", "N/A")})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    write(repo, {"docs/decisions/notes.md": "# Loose\n"})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and out.startswith(
        "docs/decisions/notes.md: name does not match NNNN-title.md\n")


# Round 5's .NET records (issue 24): an adr-tools record with an
# "Alternatives Considered" list, one option per item, its reason after a dash.
LISTED = """\
# 0004: Replace the container

Status: Accepted

## Context

C.

## Decision

We will use the built-in container.

## Consequences

Q.

## Alternatives Considered

- **Keep the old container** – would keep decorators but add complexity
- **The built-in container (chosen)** – what we do
- **Another container** – was considered but rejected for the same reasons
"""
HEADED = """\
# 0005: Store events

Status: Accepted

## Context

C.

## Decision

We will store events in Postgres.

## Consequences

Q.

## Alternatives Considered

### Kafka

Too much to run for a team of two.

### Files on disk

* Bad, because two writers would clash
"""


def test_each_listed_alternative_is_its_own_rejected_item(repo: Path,
                                                          icm) -> None:
    """A rejected section listing options (list items, or ``###`` sections)
    gives one Rejected line each, with its own reason; the option marked
    chosen is none; prose (a list of reasons under it too) stays one design
    (one list was one entry: "Continue using Autofac – ... Use a different
    DI container – ..."). A re-proposal counts for the option it matches;
    JSON lists each; the brief of an item names every option."""
    reasons = LISTED.split("## Alternatives")[0].replace("0004: Replace", "0008: "
                                                        "Keep") + (
        "## Alternatives Considered\n\nA queue per tenant, because:\n\n"
        "- each needs a broker\n- nobody would run them\n")
    write(repo, {**NYGARD, "doc/adr/0006-replace-the-container.md": LISTED,
                 "doc/adr/0007-store-events.md": HEADED,
                 "doc/adr/0008-keep-the-container.md": reasons,
                 "queue/01_store-events.md": "# Store events in Kafka\n\n"
                 "See doc/adr/0007-store-events.md.\n"})
    link = "[doc/adr/{0}.md](doc/adr/{0}.md)".format
    code, out, err = icm("positions", "--root", str(repo))
    assert (code, err) == (0, "")
    assert out.split("## Rejected\n\n", 1)[1] == (
        "- **most re-invented**, re-proposed 1x: Kafka: Too much to run for a "
        f"team of two. ({link('0007-store-events')})\n"
        f"- A queue per tenant, because: ({link('0008-keep-the-container')})\n"
        "- Files on disk: Bad, because two writers would clash. "
        f"({link('0007-store-events')})\n"
        "- Keep the old container: would keep decorators but add complexity. "
        f"({link('0006-replace-the-container')})\n"
        "- Another container: was considered but rejected for the same reasons. "
        f"({link('0006-replace-the-container')})\n"
        "- Sticky sessions on the load balancer: one restart still logs everyone "
        f"out. ({link('0003-keep-sessions-in-redis')})\n")
    code, out, _ = icm("positions", "--format", "json", "--root", str(repo))
    assert [(d["entry"][8:12], d["alternative"], d["reproposed"],
             d["most_reinvented"]) for d in json.loads(out)["rejected"]] == [
        ("0007", "Kafka", 1, True),
        ("0008", "A queue per tenant, because: each needs a broker nobody "
                 "would run them.", 0, False),
        ("0007", "Files on disk", 0, False),
        ("0006", "Keep the old container", 0, False),
        ("0006", "Another container", 0, False),
        ("0003", "Sticky sessions on the load balancer: one restart still logs "
                 "everyone out.", 0, False)]
    code, out, _ = icm("brief", "01", "--root", str(repo))
    assert code == 0 and ("Rejected: Kafka: Too much to run for a team of two. "
                          "Files on disk: Bad, because two writers would "
                          "clash.") in out


@pytest.mark.parametrize("name, template", [
    ("0000-template.md", True), ("template.md", True), ("TEMPLATE.md", True),
    ("adr-template.md", True), ("adr-template-bare-minimal.md", True),
    ("ADR-0000-template.md", True), ("_template.md", True),
    ("0012-use-jinja-templates.md", False), ("0012-template-engine.md", False),
    ("2026-01-01_template.md", False), ("template.txt", False)])
def test_a_template_is_named_as_one(name: str, template: bool) -> None:
    from icm.model.journal import is_template

    assert is_template(name) is template


def test_a_records_folders_template_is_no_record(repo: Path, icm) -> None:
    """``0000-template.md`` was counted by init ("5 records found" for 4) and
    its Option A and B listed as rejected; a record about templates is
    still one."""
    template = _header_record(0, "Title", "N/A", "N/A") + (
        "\n## Alternatives Considered\n\n- **Option A** – why not\n"
        "- **Option B** – why not\n")
    commit(repo, {"AGENTS.md": "# H\n",
                  "docs/decisions/0000-template.md": template,
                  "docs/decisions/0001-layers.md": _header_record(
                      1, "Layers", "N/A", "N/A"),
                  "docs/decisions/0002-use-jinja-templates.md": _header_record(
                      2, "Templates", "N/A", "N/A")}, "2026-10-01T12:00:00+00:00")
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and out.splitlines()[1] == (
        'journal_dir = "docs/decisions", journal_format = "nygard", '
        'journal_pattern = "NNNN-*.md": 2 adr-tools records found in '
        "docs/decisions")
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    code, out, _ = icm("positions", "--root", str(repo))
    assert "Option A" not in out and out.count("docs/decisions/0002-use-jinja-"
                                               "templates.md](") == 1



def test_init_passes_over_a_records_folder_no_config_can_name(repo: Path,
                                                             icm) -> None:
    """adr-tools records in a folder named with a backslash: init made it
    `journal_dir`, refused its own `icm.toml` and set up nothing (exit 2);
    it takes the next records folder, here none: icm's journal."""
    commit(repo, {"AGENTS.md": "# H\n", **{
        f"x\\y/adr/000{n}-t.md": nygard(n, "T", "Accepted") for n in (1, 2, 3)}},
        "2026-10-01T12:00:00+00:00")
    code, out, err = icm("init", "--root", str(repo))
    assert (code, err) == (0, "") and "journal_dir" not in out
    assert (repo / "journal").is_dir()

def test_init_takes_records_as_the_journal_only_when_most_are_in_a_format(
        repo: Path, icm) -> None:
    """taidon (round 9's fresh trees): 3 of its 85 records hold adr-tools'
    sections, the rest the folder's own form ("Decision Record N" with
    bullet fields); init read all 85 as adr-tools records, 238 missing
    slots. A format is taken when more than half the records hold it;
    else init says so in one line and keeps icm's journal."""
    own = ("# ADR {n}: Choice {n}\n\nStatus: Accepted\n\n## Decision Record 1\n\n"
           "- Question: which?\n- Decision: this one.\n")
    files = {"AGENTS.md": "# H\n",
             "docs/adr/0001-first.md": _header_record(1, "First", "N/A", "N/A")}
    files.update({f"docs/adr/000{n}-choice-{n}.md": own.format(n=n)
                  for n in (2, 3)})
    commit(repo, files, "2026-10-01T12:00:00+00:00")
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and out.splitlines()[1] == (
        "3 records in docs/adr, 1 in adr-tools' sections: in a form of their "
        "own, not taken as the journal (journal_format reads MADR and "
        "adr-tools)")
    assert not any("journal_dir" in f.read_text() for f in repo.glob("*.toml"))
    assert (repo / "journal").is_dir()  # icm's journal, the records left as they are
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")
    write(repo, {"docs/adr/0001-first.md": own.format(n=1)})  # none in a format
    for made in repo.glob("*.toml"):
        made.unlink()
    assert icm("init", "--root", str(repo))[1].splitlines()[1] == (
        "3 records in docs/adr, none in MADR's or adr-tools' sections: in a "
        "form of their own, not taken as the journal (journal_format reads "
        "MADR and adr-tools)")
    commit(repo, {"docs/adr/0001-first.md": _header_record(1, "First", "N/A",
                                                           "N/A")},
           "2026-10-01T18:00:00+00:00")
    commit(repo, {"docs/adr/0004-fourth.md": _header_record(4, "Four", "N/A",
                                                            "N/A"),
                  "docs/adr/0005-fifth.md": _header_record(5, "Five", "N/A",
                                                           "N/A")},
           "2026-10-02T12:00:00+00:00")
    for made in repo.glob("*.toml"):
        made.unlink()
    code, out, _ = icm("init", "--root", str(repo))
    assert out.splitlines()[1] == (
        'journal_dir = "docs/adr", journal_format = "nygard", journal_pattern '
        '= "NNNN-*.md": 5 adr-tools records found in docs/adr')


def test_a_translated_readme_is_no_record_and_no_item(repo: Path, icm) -> None:
    """slsa-builder (round 8's fresh trees) keeps docs/decisions/README.ko.md
    beside README.md: a bad name and a missing slot. A README translated
    (README.ko.md, README.zh-CN.md, README_ja.md) is the folder's README,
    in a records folder, the journal and the queue alike."""
    readme = "# Records\n\nOne file per decision.\n"
    write(repo, {"icm.toml": NYGARD_CFG,
                 "doc/adr/0001-a.md": nygard(1, "A", "Accepted"),
                 "doc/adr/README.md": readme, "doc/adr/README.ko.md": readme,
                 "doc/adr/README.zh-CN.md": readme,
                 "queue/README_ja.md": readme})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")
    assert icm("check-queue", "--root", str(repo))[:2] == (
        0, "queue ok (no base branch to compare with)\n")
    write(repo, {"doc/adr/README.draft.md": readme})
    assert icm("check-journal", "--root", str(repo))[1].splitlines()[0] == (
        "doc/adr/README.draft.md: name does not match NNNN-title.md")


@pytest.mark.parametrize("name, readme", [
    ("README.md", True), ("readme.md", True), ("README.ko.md", True),
    ("README_ja.md", True), ("README.zh-CN.md", True), ("README.pt-BR.md", True),
    ("README.zh-Hans.md", True), ("readme-fix.md", False), ("README-old.md", False),
    ("README.draft.md", False), ("READMEs.md", False)])
def test_what_names_a_readme(name: str, readme: bool) -> None:
    """A language is two letters: three read an item named readme-fix.md
    in queue/ as the folder's README, never checked (the audit)."""
    from icm.paths import is_readme

    assert is_readme(name) is readme


def test_a_page_sharing_a_records_number_is_its_companion(repo: Path,
                                                          icm) -> None:
    """TauTerm keeps ADR-0015-implementation-notes.md beside its record
    0015 (round 7's tuned repositories): four "missing slot" errors on a
    page nobody would give a record's sections. A page sharing a record's
    number with none of a record's sections is an info line, in no view;
    one with a record's section, or a number of its own, is a record (its
    prose under the title its context and decision, as before)."""
    notes = "# ADR-0015 notes\n\nHow the fake backend is wired.\n"
    write(repo, {"icm.toml": NYGARD_CFG,
                 "doc/adr/0015-injectable-pty.md": nygard(
                     5, "Injectable PTY", "Accepted", decision="We fake the PTY."),
                 "doc/adr/0015-implementation-notes.md": notes,
                 "doc/adr/0016-loose-page.md": notes})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0015-implementation-notes.md: no record: shares its number "
        "with doc/adr/0015-injectable-pty.md and holds none of a record's "
        "sections (its companion)\n"
        "doc/adr/0016-loose-page.md: missing slot 'Status'\n"
        "doc/adr/0016-loose-page.md: missing slot 'Consequences'\n"), "")
    code, out, _ = icm("positions", "--root", str(repo))
    assert code == 0 and "implementation-notes" not in out \
        and "0015-injectable-pty.md" in out
    write(repo, {"doc/adr/0015-implementation-notes.md":
                 notes + "\n## Decision\n\nWe fake it twice.\n",
                 "doc/adr/0016-loose-page.md": nygard(6, "L", "Accepted")})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "doc/adr/0015-implementation-notes.md: missing slot 'Status'\n"
        "doc/adr/0015-implementation-notes.md: missing slot 'Consequences'\n"),
        "")
