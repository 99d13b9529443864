"""Handoff records read back: a receiver must know whether to trust one.

Every record in ``handoff_dir`` (made by ``icm handoff``) must carry each
field as a ``##`` heading exactly once, found by the markdown parser (a
heading inside the quoted author text is not one; a second one was forged),
and the marker naming the commit it was made at. A commit this repository
does not have is a warning, not an error: a squash merge or a rebase drops
it, and main would fail for ever in every fresh clone. A record made before
the branch's newest commit says how far behind it is (info: an old record
is not a defect, but the receiver should know). With no record at all it
says so in one info line; ``handoff ok`` means records were read.

Bad::

    handoff/2026-11-29_main.md: missing field 'Open question'

Said, not failed::

    handoff/2026-11-29_main.md: made at 1a3e64c, 12 commits ago
"""

from __future__ import annotations

from typing import List, Tuple

from icm.context import Context, Unreadable
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model.handoff import FIELDS, MARKER, records
from icm.registry import NoOptions

NAME = "handoff"
# icm explain: why the rule matters, and how to silence it here
WHY = ("A receiver must know whether to trust a record: each field present, made at a "
       "commit this branch has.")
SILENCE = "delete a record once handed over; icm handoff writes a new one"
NEW = "make a new record with 'icm handoff'"
RULES = Rules(NAME, {
    "missing-field": Rule("a handoff record lacks one of its fields", fix=NEW,
                          whole_file=True),
    "duplicate-field": Rule("a field heading appears twice (a forged copy)",
                            fix=NEW),
    "no-marker": Rule("no marker names the commit the record was made at",
                      fix=NEW, whole_file=True),
    "unknown-commit": Rule("the record's commit is not in this repository",
                           Severity.WARNING, "a squash merge or a rebase drops "
                           "that commit (or its branch is not fetched): delete "
                           "the record once handed over, or make a new one "
                           "with 'icm handoff'", whole_file=True),
    "off-branch": Rule("the record's commit is not in this branch's history",
                       Severity.INFO),
    "outdated": Rule("commits were made since the record", Severity.INFO,
                     "make a new record with 'icm handoff' before handing over"),
    "unreadable": Rule("a record cannot be read as UTF-8 text"),
    "no-records": Rule("no handoff records yet: nothing to check",
                       Severity.INFO),
})


def run(ctx: Context, options: NoOptions) -> Report:
    from icm import markdown

    found: List[Finding] = []
    paths = sorted(records(ctx))
    made_at: List[Tuple[str, str]] = []  # (record, the commit its marker names)
    for path in paths:
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(RULES("unreadable", path, cannot_read(exc.reason)))
            continue
        fields = [s for s in markdown.sections(text) if s.level == 2]
        titles = [s.title for s in fields]
        for name in FIELDS:
            if name not in titles:
                found.append(RULES("missing-field", path, f"missing field '{name}'"))
            elif titles.count(name) > 1:  # a forged copy: which one is the record's?
                second = [s.line for s in fields if s.title == name][1]
                found.append(RULES("duplicate-field", path,
                                   f"field '{name}' appears twice", line=second))
        # Only the preamble before the first field counts: a marker quoted in
        # author text must not vouch for the record.
        first = fields[0].line if fields else 0
        preamble = "\n".join(text.splitlines()[:first - 1]) if first else text
        marks = list(MARKER.finditer(preamble))
        if len(marks) != 1:
            found.append(RULES("no-marker", path, "no 'icm:handoff' marker "
                               "naming the commit it was made at"))
            continue
        made_at.append((path, marks[0].group(1)))
    # One pass over the history for every record (one per record took 50
    # records 4.2 s on 3,000 commits).
    positions = ctx.commit_positions(commit for _path, commit in made_at)
    for path, commit in made_at:
        position = positions.get(commit)
        if position is None:
            found.append(RULES("unknown-commit", path, f"made at {commit[:7]}, "
                               "which this repository does not have"))
        elif not position[0]:
            found.append(RULES("off-branch", path, f"made at {commit[:7]}, which "
                               "is not in this branch's history"))
        elif position[1]:
            n = position[1]
            found.append(RULES("outdated", path, f"made at {commit[:7]}, {n} "
                               f"commit{'s' if n != 1 else ''} ago"))
    if not paths:  # said, not a bare "handoff ok" over nothing read
        found.append(RULES("no-records", ".", f"handoff: no records in "
                           f"{ctx.config.handoff_dir} yet (handoff_dir)"))
    return Report.of(NAME, found, ok=bool(paths), data={"records": len(paths)})
