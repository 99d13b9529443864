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

import posixpath
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple
from urllib.parse import unquote

from icm.config import Config
from icm.context import Context, Unreadable
from icm.escape import inert
from icm.finding import Finding, Report, Rule, Rules, Severity
from icm.registry import NoOptions
from icm.slug import is_slug

NAME = "journal"
RULES = Rules(NAME, {
    "missing-slot": Rule("a configured slot is not a level-2 heading of the entry"),
    "empty-slot": Rule("a slot's heading has nothing a reader sees under it"),
    "duplicate-slot": Rule("a slot's heading appears more than once"),
    "placeholder": Rule("a slot holds only a placeholder (looks good, TBD, ...)"),
    "no-command": Rule("the Verify command slot holds no code to run"),
    "bad-name": Rule("the entry's file name does not match YYYY-MM-DD_slug.md"),
    "superseded-by-missing": Rule("a Superseded-by line names no journal entry",
                                  fix="name an existing journal entry"),
    "superseded-by-self": Rule("an entry's Superseded-by line names itself"),
    "superseded-by-cycle": Rule("Superseded-by lines form a cycle",
                                fix="the newest entry of the cycle is not "
                                "superseded: remove its Superseded-by line"),
    "superseded-fork": Rule("an entry is superseded by two entries",
                            Severity.WARNING, "keep the Superseded-by line of "
                            "the entry that replaced it"),
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
})
ENTRY_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})_(.+)\.md\Z", re.DOTALL)
PATTERN = "YYYY-MM-DD_slug.md"


def entries(ctx: Context) -> List[str]:
    """Markdown files directly inside the journal folder (README.md and
    ``positions_file`` aside)."""
    prefix = ctx.config.journal_dir.rstrip("/") + "/"
    return [
        f for f in ctx.files
        if f.startswith(prefix) and "/" not in f[len(prefix):]
        and f.lower().endswith(".md") and f[len(prefix):] != "README.md"
        and f != ctx.config.positions_file  # compiled from entries, not one
    ]


def valid_name(filename: str) -> bool:
    m = ENTRY_NAME.match(filename)
    if not m or not is_slug(m.group(4)):
        return False
    try:
        date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


SHELL_INFO = ("", "sh", "bash", "shell", "console")
_SUPERSEDED = "superseded-by:"


@dataclass(frozen=True)
class Slot:
    name: str
    line: int  # 1-based line of its heading
    visible: str  # the text a reader sees under it, whitespace collapsed


@dataclass(frozen=True)
class Entry:
    """What an entry says, as every command that reads entries needs it."""

    slots: Dict[str, Slot]  # the configured slots present (first heading wins)
    command: Optional[str]  # the Verify command as a script; None: no code
    verify_line: int  # line of the verify slot's heading; 0 when missing
    superseded_by: Optional[str]  # root-relative path it names, normalised
    superseded_line: int
    # every Superseded-by line (path, line): more than one target is a fork
    supersede_lines: Tuple[Tuple[str, int], ...] = ()
    # slots whose heading appears more than once, with every heading's line
    repeated: Dict[str, Tuple[int, ...]] = field(default_factory=dict)


def verify_slot(cfg: Config) -> Optional[str]:
    """The slot holding the Verify command: ``verify_slot``, else the fourth."""
    if cfg.verify_slot:
        return cfg.verify_slot
    return cfg.slots[3] if len(cfg.slots) >= 4 else None


def parse_entry(text: str, path: str, slots: Sequence[str],
                verify: Optional[str]) -> Entry:
    """Slots, Verify command and Superseded-by line of one entry.

    A slot is a top-level ``##`` heading named exactly as the slot; it runs to
    the next top-level heading of level 1 or 2, so its ``###`` sub-headings
    belong to it (their titles are not content, their bodies are). The
    command is the slot's first code block that is indented or fenced as
    ``sh``, ``bash``, ``shell``, ``console`` or nothing (in ``console``, the
    ``$ `` lines without their prompt), else its first code span.
    ``Superseded-by:`` counts on a line of its own before the first ``##``
    heading: a bare path is from the root, a link from the entry's folder.
    """
    from icm import markdown  # loaded on first use: keeps other commands light

    lines: Dict[str, int] = {}
    heads: Dict[str, List[int]] = {}
    seen: Dict[str, List[str]] = {}  # joined once at the end: linear
    codes: List[markdown.Code] = []
    superseded: Optional[str] = None
    superseded_line = 0
    every: List[Tuple[str, int]] = []
    current: Optional[str] = None
    seen_two = False
    for sec in markdown.sections(text):
        if sec.level and sec.level <= 2:
            current = None
        if sec.level == 2:
            seen_two = True
            if sec.title in slots:
                heads.setdefault(sec.title, []).append(sec.line)
            if sec.title in slots and sec.title not in lines:
                current = sec.title
                lines[current], seen[current] = sec.line, []
        if not seen_two:
            for line, source in sec.lines:
                source = source.strip()
                if source[:len(_SUPERSEDED)].lower() == _SUPERSEDED:
                    value = source[len(_SUPERSEDED):].strip()
                    every.append((target(value, path), line))
            if every and superseded is None:
                superseded, superseded_line = every[0]
        if current is not None:
            if sec.visible:
                seen[current].append(sec.visible)
            if current == verify:
                codes.extend(sec.code)
    found = {name: Slot(name, lines[name], " ".join(seen[name])) for name in lines}
    held = found.get(verify) if verify else None
    repeated = {name: tuple(at) for name, at in heads.items() if len(at) > 1}
    return Entry(found, command(codes), held.line if held else 0,
                 superseded, superseded_line, tuple(every), repeated)


def command(codes: Sequence[Any]) -> Optional[str]:
    """The script a Verify slot's code holds (see ``parse_entry``)."""
    for code in codes:
        if code.info is not None and code.info in SHELL_INFO:
            script = _console(code.text) if code.info == "console" else code.text
            if script.strip():
                return script.rstrip("\n")
    for code in codes:
        if code.info is None and code.text.strip():
            return str(code.text.strip())
    return None


def _console(text: str) -> str:
    """The commands of a console transcript: ``$ `` lines and their
    backslash continuations; a block without prompts is all commands."""
    lines = text.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return text
    kept: List[str] = []
    going = False
    for line in lines:
        if line.startswith("$ "):
            kept.append(line[2:])
        elif going:
            kept.append(line)
        else:
            continue
        going = line.endswith("\\")
    return "\n".join(kept)


def target(value: str, path: str) -> str:
    """The root-relative path a Superseded-by (or Revives) value names (by hand:
    a regex here backtracks quadratically on a long hostile line)."""
    middle = value.find("](")
    if value.startswith("[") and value.endswith(")") and middle > 0:
        inner = value[middle + 2:-1].strip()
        if inner.startswith("<") and ">" in inner:
            dest = inner[1:inner.index(">")]
        else:
            dest = inner.split()[0] if inner.split() else ""
        dest = unquote(dest.split("#", 1)[0])
        base = "" if dest.startswith("/") else posixpath.dirname(path)
        value = posixpath.join(base, dest.lstrip("/"))
    elif value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    return posixpath.normpath(value.lstrip("/")) if value else ""


def first_sentence(section: str, limit: int = 300) -> str:
    """The first sentence of a slot's prose, markup and comments removed,
    cut to ``limit`` characters (``...`` marks a cut)."""
    text = _cut_spans(_cut_spans(section, "<!--", "-->"), "```", "```")
    text = " ".join(text.replace("`", "").replace("**", "").split())
    m = re.match(r"(.+?[.!?])(?:\s|$)", text)
    sentence = m.group(1) if m else text
    return sentence[:limit] + ("..." if len(sentence) > limit else "")


def _cut_spans(text: str, start: str, end: str) -> str:
    """Each ``start ... end`` span (leftmost, shortest) as one space. One
    forward pass: ``re.sub(r"<!--.*?-->")`` rescanned the rest of the text
    from every unclosed ``<!--`` (quadratic); check-positions runs this."""
    out: List[str] = []
    at = 0
    while True:
        begin = text.find(start, at)
        if begin < 0:
            break
        close = text.find(end, begin + len(start))
        if close < 0:
            break  # unclosed: every later start is unclosed too
        out += [text[at:begin], " "]
        at = close + len(end)
    out.append(text[at:])
    return "".join(out)


def placeholder(visible: str, placeholders: Sequence[str]) -> bool:
    """The whole content is one of ``placeholders``, ignoring case,
    punctuation and spacing."""
    return _bare(visible) in {_bare(p) for p in placeholders}


def _bare(text: str) -> str:
    kept = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch
                   for ch in text.lower())
    return " ".join(kept.split())


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
                       present: Set[str], files: FrozenSet[str]) -> List[Finding]:
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


def run(ctx: Context, options: NoOptions) -> Report:
    cfg = ctx.config
    exempt = set(cfg.journal_exempt)
    found: List[Finding] = []
    present = set(entries(ctx))
    links: Dict[str, Tuple[Tuple[str, int], ...]] = {}
    for path in sorted(present):
        filename = path.rsplit("/", 1)[-1]
        if not valid_name(filename):
            found.append(RULES("bad-name", path, f"name does not match {PATTERN}",
                               rank=-1, fix=f"rename to {PATTERN}, e.g. "
                               f"{ctx.now:%Y-%m-%d}_my-change.md"))
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(RULES("skipped" if exc.skipped else "unreadable", path,
                               f"cannot read: {exc.reason}"))
            continue
        verify = verify_slot(cfg)
        entry = parse_entry(text, path, cfg.slots, verify)
        problems = _problems(entry, cfg.slots, cfg.placeholders, verify)
        if path in exempt:
            if not problems:
                found.append(RULES("exempt-complete", path, "exempt but complete, "
                                   "remove it from journal_exempt"))
            continue
        links[path] = entry.supersede_lines
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
    found += supersede_findings(links, present, ctx.file_set)
    # A configured folder that is not there may be a fresh project or a
    # misspelt name: "journal ok" would hide the second.
    missing = ctx.missing_folder("journal_dir")
    if missing:
        found.append(RULES("no-folder", ".", f"journal: no folder "
                           f"{cfg.journal_dir} yet (journal_dir)"))
    return Report.of(NAME, found, ok=not missing, data={"entries": len(present)})


