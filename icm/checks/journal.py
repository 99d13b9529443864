"""The journal slot gate.

Every ``journal/*.md`` entry must carry each configured slot (default:
Decision, Rejected alternative, Invariant, Verify command) as a level-2
heading whose text is exactly the slot name, once, and each slot must have
content. Headings are found by a markdown parser, so ``## Invariant`` in a fence is
not a heading and a setext ``Invariant\\n---`` is; a heading inside a
blockquote or a list item is not a slot. Content is text a reader sees: a
comment, a ``[//]: # (todo)`` definition or a bare sub-heading is none. A
slot whose whole content is a placeholder (``placeholders``: looks good, TBD,
TODO, ...; case and punctuation ignored) states nothing, and the Verify
command slot must hold code (what ``icm verify`` runs). A ``Superseded-by:``
line must name an existing entry; a cycle of them is reported once. Entries
are named ``YYYY-MM-DD_slug.md``.

``journal_format = "madr"`` or ``"nygard"`` (adr-tools) judges decision
records instead: their required sections (``model.journal``'s layouts), a
``journal_pattern`` (``NNNN-title.md`` by default), and their statuses
(front matter ``status: superseded by ...``, ``## Status`` lines
``Superseded by [2. X](0002-x.md)`` and ``Supersedes [1. Y](0001-y.md)``)
in the same supersede graph. Records may sit in folders below the records
folder (``docs/decisions/superseded/architecture/``); a folder named as a
status (``superseded/``) is the status of a record stating none, and a
record stating another is warned about: its own line counts.
``journal_exempt`` may only shrink: an exempt entry that is now complete, or
no longer exists, is reported; exempt entries are not judged otherwise.

Bad::

    journal/2026-10-29_summary-line-to-stderr.md: missing slot 'Invariant'
    journal/2026-10-29_x.md: placeholder in slot 'Invariant': 'looks good'
    journal/2026-10-29_x.md: slot 'Decision' appears twice (lines 5, 20); keep one

Good: all four ``##`` sections present, each stating something, and the
Verify command in a fenced ``sh`` block or a code span.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, List, Optional, Sequence, Set, Tuple

from icm.context import Context, Unreadable
from icm.escape import inert
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model.changes import about
from icm.model.journal import (
    Entry,
    companion,
    entries,
    layout,
    numbered,
    parse_entry,
    placeholder,
    read,
    sharing,
    status_disagrees,
)
from icm.registry import JournalOptions

NAME = "journal"
# icm explain: why the rule matters, and how to silence it here
WHY = ("A summariser drops the constraint first: a gate gives each slot a heading, so "
       "an entry keeps its decision, what it rejected, the invariant and the command "
       "that re-tests it.")
SILENCE = ("journal_exempt excuses an entry (the list may only shrink); placeholders = "
           "[] turns that finding off; slots sets the sections")
RULES = Rules(NAME, {
    "missing-slot": Rule("a configured slot is not a level-2 heading of the entry"),
    "empty-slot": Rule("a slot's heading has nothing a reader sees under it"),
    "duplicate-slot": Rule("a slot's heading appears more than once"),
    "placeholder": Rule("a slot holds only a placeholder (looks good, TBD, ...)"),
    "no-command": Rule("the Verify command slot holds no code to run"),
    "bad-name": Rule("the entry's file name does not match journal_pattern "
                     "(YYYY-MM-DD_slug.md by default)"),
    "superseded-by-missing": Rule("a Superseded-by line names no journal entry",
                                  fix="name an existing journal entry"),
    "superseded-by-self": Rule("an entry's Superseded-by line names itself"),
    "superseded-by-cycle": Rule("Superseded-by lines form a cycle",
                                fix="the newest entry of the cycle is not "
                                "superseded: remove its Superseded-by line"),
    "superseded-fork": Rule("an entry is superseded by two entries",
                            Severity.WARNING, "keep the Superseded-by line of "
                            "the entry that replaced it"),
    "supersedes-missing": Rule("a Supersedes line names no journal entry",
                               fix="name an existing journal entry"),
    "front-matter": Rule("front matter without its closing '---' line (within "
                         "100 lines): its keys are read as markdown text",
                         Severity.WARNING, "close it with a line '---'"),
    "status-folder": Rule("a record states one status and sits in a folder "
                          "naming another (its own status counts)",
                          Severity.WARNING, "move the record to the folder of "
                          "its status, or correct its status line"),
    "exempt-complete": Rule("an entry on journal_exempt is now complete",
                            fix="delete this path from journal_exempt"),
    "exempt-missing": Rule("an entry on journal_exempt does not exist",
                           fix="delete this path from journal_exempt"),
    "unreadable": Rule("the entry cannot be read as UTF-8 text",
                       fix="save the file as UTF-8"),
    "skipped": Rule("the entry is over max_file_bytes and was not parsed",
                    Severity.WARNING, "raise max_file_bytes, or exclude the file"),
    "no-folder": Rule("journal_dir names a folder that does not exist yet",
                      Severity.INFO),
    "companion": Rule("a page sharing a record's number holds no section, "
                      "status or supersede line of a record: the record's "
                      "companion (its notes, an appendix), not read as one",
                      Severity.INFO),
})


def slot_problems(text: str, slots: Sequence[str],
                  placeholders: Sequence[str] = (), verify: Optional[str] = None,
                  path: str = "") -> List[Tuple[int, str, str, int]]:
    """(slot index, slot, kind, line) for one entry's text; kind is
    'missing', 'empty', 'placeholder', 'no-command' or 'duplicate'."""
    return _problems(parse_entry(text, path, slots, verify), slots, placeholders,
                     verify)


def _problems(entry: Entry, slots: Sequence[str], placeholders: Sequence[str],
              verify: Optional[str]) -> List[Tuple[int, str, str, int]]:
    problems = []
    for index, name in enumerate(slots):
        slot = entry.slots.get(name)
        if slot is None and name == "Status" and (entry.status_line
                                                  or entry.status_folder):
            continue  # "- **Status:** Accepted", front matter, its folder
        if slot is None:
            problems.append((index, name, "missing", 0))
        elif not slot.visible:
            problems.append((index, name, "empty", slot.line))
        elif placeholder(slot.visible, placeholders):
            problems.append((index, name, "placeholder", slot.line))
        elif name == verify and entry.command is None:
            problems.append((index, name, "no-command", slot.line))
        if name in entry.repeated:
            # Only the first heading's section is judged; a second one (the
            # template's empty copy under a carried slot) hid an empty slot.
            problems.append((index, name, "duplicate", entry.repeated[name][1]))
    return problems


def _message(kind: str, slot: str, text: str) -> Tuple[str, str]:
    """(message, fix) for one slot problem."""
    if kind == "missing":
        return f"missing slot '{slot}'", f"add a '## {slot}' section"
    if kind == "empty":
        return f"empty slot '{slot}'", f"write the {slot} under its heading"
    if kind == "duplicate":
        return (f"slot '{slot}' appears {text}; keep one",
                f"merge the sections under one '## {slot}' heading")
    if kind == "placeholder":
        shown = _shown(text)
        return (f"placeholder in slot '{slot}': '{shown}'",
                f"state the {slot}: a placeholder says nothing")
    return (f"no command in slot '{slot}'",
            "put a command that fails when the invariant breaks in a fenced "
            "sh block or a code span")


def _shown(text: str, limit: int = 60) -> str:
    text = inert(text)  # the renderers' escape: a target may hold anything
    return text if len(text) <= limit else text[:limit - 3] + "..."


def supersede_findings(links: Dict[str, Tuple[Tuple[str, int], ...]],
                       present: Set[str], files: AbstractSet[str]) -> List[Finding]:
    """The supersede graph kept honest: a target that does not exist (the
    orphan, "the worst defect"), an entry naming itself, a cycle (errors,
    each cycle once), and an entry superseded by two different entries (a
    fork, a warning)."""
    found: List[Finding] = []
    first = {p: ls[0][0] for p, ls in links.items() if ls}
    for path, lines in sorted(links.items()):
        targets = list(dict.fromkeys(t for t, _ in lines))
        if len(targets) > 1:
            found.append(RULES(
                "superseded-fork", path, f"superseded by {len(targets)} entries: "
                f"{', '.join(_shown(t) for t in targets)} (a fork: keep one)",
                line=lines[1][1]))
        target, line = lines[0] if lines else ("", 0)
        if not lines:
            continue
        if target == path:
            found.append(RULES("superseded-by-self", path,
                               "Superseded-by points at itself", line=line))
        elif target not in present:
            what = "is not a journal entry" if target in files else "does not exist"
            found.append(RULES("superseded-by-missing", path, "Superseded-by "
                               f"points at {_shown(target)}, which {what}",
                               line=line))
    for cycle in cycles(first):
        found.append(RULES(
            "superseded-by-cycle", cycle[0], "Superseded-by cycle: " + " -> ".join(
                _shown(c) for c in [*cycle, cycle[0]]), line=links[cycle[0]][0][1]))
    return found


def cycles(first: Dict[str, str]) -> List[List[str]]:
    """Every cycle of two or more entries in the graph ``entry -> the entry
    superseding it``, once each, from its smallest path. Each entry is walked
    once (a walk stops at an entry an earlier walk saw): linear, where
    following the chain from every entry was cubic on one long chain."""
    found: List[List[str]] = []
    walked: Dict[str, int] = {}  # entry -> number of the walk that reached it
    for number, start in enumerate(sorted(first)):
        walk: List[str] = []
        cur = start
        while cur in first and cur not in walked:
            walked[cur] = number
            walk.append(cur)
            cur = first[cur]
        if walked.get(cur) == number and cur in first:  # closed on this walk
            cycle = walk[walk.index(cur):]
            if len(cycle) > 1:
                low = cycle.index(min(cycle))
                found.append(cycle[low:] + cycle[:low])
    return found


def run(ctx: Context, options: JournalOptions) -> Report:
    cfg = ctx.config
    lay = layout(cfg)
    exempt = set(cfg.journal_exempt)
    found: List[Finding] = []
    present = set(entries(ctx))
    numbers = numbered(present, lay)
    shared = sharing(present, lay)
    links: Dict[str, Tuple[Tuple[str, int], ...]] = {}
    reverse: Dict[str, Tuple[Tuple[str, int], ...]] = {}
    for path in sorted(present):
        filename = path.rsplit("/", 1)[-1]
        if not lay.pattern.valid(filename):
            example = lay.pattern.make(ctx.now.date(), max([0, *numbers]) + 1,
                                       "my-change")
            found.append(RULES("bad-name", path,
                               f"name does not match {lay.pattern.text}", rank=-1,
                               fix=f"rename to {lay.pattern.text}, e.g. {example}"))
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(RULES("skipped" if exc.skipped else "unreadable", path,
                               cannot_read(exc.reason)))
            continue
        entry = read(text, path, cfg, numbers)
        if path in shared and companion(entry):
            found.append(RULES("companion", path, "no record: shares its number "
                               f"with {shared[path]} and holds none of a "
                               "record's sections (its companion)"))
            continue
        problems = _problems(entry, lay.slots, cfg.placeholders, lay.verify)
        if lay.format != "icm" and (entry.superseded_by or entry.status in
                                    ("superseded", "deprecated", "rejected")):
            # A record kept for history is read as written: nobody adds
            # sections to a withdrawn decision (its links are still checked).
            problems = [p for p in problems if p[2] != "missing"]
        if path in exempt:
            if not problems:
                found.append(RULES("exempt-complete", path, "exempt but complete, "
                                   "remove it from journal_exempt"))
            continue
        if entry.front:
            found.append(RULES("front-matter", path, entry.front, line=1))
        if status_disagrees(entry):
            found.append(RULES(
                "status-folder", path, f"status '{_shown(entry.status)}' but its "
                f"folder says '{entry.status_folder}' (the status line counts)",
                line=entry.status_line))
        links[path] = entry.supersede_lines
        reverse[path] = entry.supersedes
        for index, slot, kind, line in problems:
            shown = entry.slots[slot].visible if slot in entry.slots else ""
            if kind == "duplicate":
                at = entry.repeated[slot]
                times = "twice" if len(at) == 2 else f"{len(at)} times"
                shown = f"{times} (lines {', '.join(map(str, at))})"
            message, fix = _message(kind, slot, shown)
            code = f"{kind}-slot" if kind in ("missing", "empty", "duplicate") \
                else kind
            found.append(RULES(code, path, message, line=line, rank=index, fix=fix))
    for path in sorted(exempt - present):
        found.append(RULES("exempt-missing", path, "exempt but missing, remove "
                           "it from journal_exempt"))
    found += supersedes_findings(reverse, links, present, ctx.file_set)
    found += supersede_findings(links, present, ctx.file_set)
    # A configured folder that is not there may be a fresh project or a
    # misspelt name: "journal ok" would hide the second.
    missing = ctx.missing_folder("journal_dir")
    if missing:
        found.append(RULES("no-folder", ".", f"journal: no folder "
                           f"{cfg.journal_dir} yet (journal_dir)"))
    if options.changed_since is not None:
        found = about(found, ctx.changed(options.changed_since))
    return Report.of(NAME, found, ok=not missing, data={"entries": len(present)})


def supersedes_findings(reverse: Dict[str, Tuple[Tuple[str, int], ...]],
                        links: Dict[str, Tuple[Tuple[str, int], ...]],
                        present: Set[str], files: AbstractSet[str]) -> List[Finding]:
    """adr-tools' ``Supersedes`` lines: one naming no entry is an error; one
    naming an entry is that entry's ``Superseded-by`` edge where it has not
    said so itself (``links`` gains it, so forks and cycles count it)."""
    found: List[Finding] = []
    for path, lines in sorted(reverse.items()):
        for old, line in lines:
            if old == path:
                found.append(RULES("superseded-by-self", path,
                                   "Supersedes points at itself", line=line))
            elif old not in present:
                what = "is not a journal entry" if old in files \
                    else "does not exist"
                found.append(RULES("supersedes-missing", path, "Supersedes points "
                                   f"at {_shown(old)}, which {what}", line=line))
            elif old in links and path not in {t for t, _ in links[old]}:
                own = links[old]
                links[old] = own + ((path, own[0][1] if own else 1),)
    return found
