"""``icm new-journal ITEM``: turn a queue item into a dated journal entry;
``icm new-journal --title TITLE``: write an entry without one.

The entry is created complete (the four slots, the item's title and text
carried in) before the queue item is removed, both in one
``all_or_nothing``: a signal or a failure leaves the item or the finished
entry, one of them. SIGKILL between the two leaves both, never neither. A
tracked item's removal is staged together with the new entry, as ``git mv``
would.

The entry takes the configured format's template (``journal_format``) and
file-name rule (``journal_pattern``): a numbered rule (``NNNN-title.md``)
gives the next number, found under the journal folder's lock as
``new-queue`` finds its own, so two writers at once get two numbers.
In a record journal the template is the newest record's own form
(``_style``): its title's number form, status and date lines, sections in
its order; the shipped template only when there is no record yet.
``--supersedes ENTRY`` marks ENTRY superseded in the format's way (icm:
a ``Superseded-by:`` line; adr-tools: its Status becomes ``Superseded by
[N. Title](NNNN-title.md)`` and the new one says ``Supersedes``; MADR: its
``status:``) in the same ``all_or_nothing``: both files or neither.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import ContextManager, Dict, List, Optional, Sequence, Tuple
from urllib.parse import quote

from icm import git
from icm.config import DEFAULT_SLOTS
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.lines import ending, fenced, join, split, to_lf
from icm.model.journal import (
    Entry,
    Layout,
    entries,
    front_matter,
    layout,
    names_nothing,
    numbered,
    parse_entry,
)
from icm.model.queue import claim_of
from icm.slug import slugify
from icm.workflow.claims import me, without_claim
from icm.workflow.files import (
    all_or_nothing,
    fill,
    journal_locked,
    queue_locked,
    template,
)
from icm.workflow.queue import CARRIED, find_item, item_bytes, item_slug, still_there

TEMPLATES = {"icm": "journal.md", "madr": "madr.md", "nygard": "nygard.md"}
STATUS = {"icm": "", "madr": "accepted", "nygard": "Accepted"}


def split_title(text: str, fallback: str,
                newline: str = "\n") -> Tuple[str, str]:
    """The item's first ``#`` heading as the title, and the rest of its text
    byte for byte, each line with its own ending (a carried code block
    lost a blank line once), blank lines at either end left out. A fence
    the text leaves open is closed on a line of its own, or it swallowed
    the slots added after it; the last line takes ``newline``."""
    parts = split(text)
    if parts[-1] == ("", "") and len(parts) > 1:
        parts.pop()  # the empty "line" after a final break
    title = fallback
    for i, (row, _end) in enumerate(parts):
        m = re.match(r"#\s+(.+?)\s*#*\s*$", row)
        if m:
            title = m.group(1)
            del parts[i]
        if m or row.strip():
            break
    flags, fence = fenced([row for row, _end in parts])
    start, stop = 0, len(parts)
    while start < stop and not parts[start][0].strip(" \t"):
        start += 1
    while stop > start and not flags[stop - 1] and not parts[stop - 1][0].strip(
            " \t"):
        stop -= 1
    body = parts[start:stop]
    if body:
        row, end = body[-1]
        # No break, or a lone CR an LF after it would join into one CRLF.
        body[-1] = (row, newline if not end or end + newline == "\r\n" else end)
        if fence:
            body.append((fence, newline))
    return title, join(body)


def entry_text(text: str, slots: Sequence[str], present: Sequence[str],
               verify: Optional[str], values: Dict[str, str]) -> str:
    """The journal template with one ``## `` section per configured slot the
    item does not already hold (it keeps its own: one heading per slot), in
    ``slots`` order. A slot the template has keeps its hint; the verify slot
    takes the Verify command's; any other slot is a bare heading. Only the
    part above the slots is filled: a slot name is never a placeholder."""
    head: List[str] = []
    hints: Dict[str, List[str]] = {}
    rows = head
    for row in text.split("\n"):
        if row.startswith("## "):
            rows = hints.setdefault(row[3:].strip(), [])
        else:
            rows.append(row)
    default = DEFAULT_SLOTS[3]
    parts = []
    for slot in slots:
        if slot in present:
            continue
        hint = hints.get(slot, hints.get(default, []) if slot == verify else [])
        parts.append("\n".join([f"## {slot}", *hint]).rstrip("\n"))
    top = fill("\n".join(head), values)
    return f"{top}\n" + "\n\n".join(parts) + "\n" if parts else top


def record_text(text: str, slots: Sequence[str], present: Sequence[str],
                verify: Optional[str], values: Dict[str, str]) -> str:
    """A MADR or Nygard template filled: its own ``## `` sections in its
    order (but those the item already holds), then each configured slot it
    lacks, with the icm template's hint for Invariant and Verify command.
    Headings are never filled: a slot name is never a placeholder."""
    head, own = _sections(text)
    hints = dict(_sections(template("journal.md"))[1])
    parts = []
    for heading, rows in own:
        if heading not in present:
            parts.append("\n".join([f"## {heading}", fill("\n".join(rows), values)
                                    ]).rstrip("\n"))
    have = {heading for heading, _rows in own}
    for slot in slots:
        if slot in have or slot in present:
            continue
        hint = hints.get(slot, hints.get(DEFAULT_SLOTS[3], []) if slot == verify
                         else [])
        parts.append("\n".join([f"## {slot}", *hint]).rstrip("\n"))
    top = fill("\n".join(head), values)
    return f"{top}\n" + "\n\n".join(parts) + "\n" if parts else top


def _sections(text: str) -> Tuple[List[str], List[Tuple[str, List[str]]]]:
    """A template's rows above its first ``## `` heading, and each ``## ``
    section's heading and rows."""
    head: List[str] = []
    found: List[Tuple[str, List[str]]] = []
    rows = head
    for row in text.split("\n"):
        if row.startswith("## "):
            found.append((row[3:].strip(), []))
            rows = found[-1][1]
        else:
            rows.append(row)
    return head, found


def new_entry(ctx: Context, item: str, day: Optional[date] = None,
              force: bool = False, supersedes: Optional[str] = None) -> List[str]:
    """Write the entry; return its path and a line saying what became of the
    queue item (and of the entry it supersedes)."""
    source = find_item(ctx, item)
    was = item_bytes(ctx, source)
    # Under the queue's lock: two runs on one item give one entry and one error;
    # an item renumbered meanwhile is finished at its new name.
    with queue_locked(ctx) as folder:
        return _finish(ctx, still_there(ctx, source, folder, was), day, force,
                       supersedes)


def new_titled(ctx: Context, title: str, day: Optional[date] = None,
               supersedes: Optional[str] = None) -> List[str]:
    """Write an entry titled ``title`` without a queue item (``adr new``);
    return its path (and what became of the entry it supersedes)."""
    title = " ".join(title.split())
    slug = slugify(title)
    if not slug:
        raise UsageError("the title needs at least one letter or digit (of any "
                         "script) to name the file")
    return _place(ctx, slug, title, day, supersedes, None)


def _finish(ctx: Context, source: str, day: Optional[date], force: bool,
            supersedes: Optional[str] = None) -> List[str]:
    try:
        text = ctx.read_text(source)
    except Unreadable as exc:
        raise UsageError(f"{source}: cannot read: {exc.reason}") from None
    held = claim_of(text)
    if held and held[0] != me(ctx) and not force:
        raise UsageError(f"{source}: claimed by {held[0]} on {held[1]}, {held[2]}; "
                         "pass --force to finish it anyway")
    slug = item_slug(source)
    # A claim is about pending work; the finished entry does not carry it.
    newline = ending(text)  # the entry is written with the item's line ending
    title, body = split_title(without_claim(text),
                              slug.replace("-", " ").capitalize(), newline)
    return _place(ctx, slug, title, day, supersedes, (source, body, newline))


_Item = Tuple[str, str, str]  # the queue item's path, its body, its line ending


def _place(ctx: Context, slug: str, title: str, day: Optional[date],
           supersedes: Optional[str], item: Optional[_Item]) -> List[str]:
    """Name, write and (with ``supersedes``) link the entry, all or nothing."""
    cfg = ctx.config
    lay = layout(cfg)
    day = day or ctx.now.astimezone().date()  # the user's today, not UTC's
    old = find_entry(ctx, supersedes) if supersedes is not None else None
    # A number, a name taken by a title or an entry to mark: another writer
    # of the journal must not act on what this one reads before it writes.
    guard: ContextManager[Optional[Path]] = journal_locked(ctx) \
        if lay.pattern.numbered or old is not None or item is None \
        else contextlib.nullcontext(None)
    with guard as folder:
        number = _next_number(lay, folder, entries(ctx)) if folder is not None \
            and lay.pattern.numbered else 0
        name = lay.pattern.make(day, number, slug)  # strftime drops year 1's zeros
        if not lay.pattern.valid(name):
            raise UsageError(f"cannot make a journal name from '{slug}'")
        rel = f"{cfg.journal_dir}/{name}"
        marked: Optional[str] = None
        link = ""
        style = _style(ctx, lay)
        if old is not None:
            label = style.label(title, number) if style else f"{number}. {title}"
            marked, link = _superseded(ctx, old, lay, rel, label, number)
        text = _entry(ctx, lay, title, number, day, item, link, style)
        # Every path is resolved before anything changes: a journal folder or
        # a queue folder symlinked out of the root refuses the whole command.
        with all_or_nothing(ctx) as changes:
            changes.folder(cfg.journal_dir)
            changes.create(rel, text.encode("utf-8"))
            if old is not None and marked is not None:
                changes.replace(old, marked.encode("utf-8"))
            if item is not None:
                changes.remove(item[0])
            changes.commit()
            said = [rel]
            if item is not None:
                said.append(_staged(ctx, item[0], rel))
            if old is not None:
                said.append(f"marked {old} superseded by {rel}")
            return said


def _staged(ctx: Context, source: str, rel: str) -> str:
    if source not in ctx.tracked:
        return f"removed {source}"
    try:
        git.stage_move(ctx.root, source, rel)
    except UsageError as exc:
        # The files are right; only the index could not follow.
        raise UsageError(f"wrote {rel} and removed {source}, but git could not "
                         f"stage the move: {exc}") from None
    return f"removed {source} (staged in git as a move)"


_NUMBERED = re.compile(r"#[ \t]+([^0-9\n{}]{0,20}?)([0-9]{1,9})"
                       r"([ \t]+[-:\u2013\u2014][ \t]+|[.:)]?[ \t]+)")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class _Style:
    """The form a record journal's newest record is written in: its template
    (title, status, date and section headings in its order), the zero
    padding of its title's number and its status word's case."""

    text: str
    width: int = 0
    upper: bool = True
    line: bool = False  # its status is a line (``**Status:** X``), no section
    none: str = ""  # its ``Supersedes:`` line's word for none (``N/A``)

    def label(self, title: str, number: int) -> str:
        """The new record's title as its own title row writes it."""
        row = self.text.split("\n")[self.text.split("\n").index("---", 1) + 1
                                     if self.text.startswith("---\n") else 0]
        return fill(row[2:], {"title": title,
                              "number": f"{number:0{self.width}d}"})


def _style(ctx: Context, lay: Layout) -> Optional[_Style]:
    """The newest record's form as a template (adr-tools keeps a template
    file; a tree's records are its template), or None: an icm journal, no
    record, or one that cannot be read. Read with the readers every command
    uses (``front_matter``, ``parse_entry``); one record, so linear."""
    if lay.format == "icm":
        return None
    every = sorted(entries(ctx))
    numbers = numbered(every, lay)
    # the newest by its name's date or number, then path (nested records:
    # the last path is the last folder's)
    path = numbers[max(numbers)] if numbers else max(every, key=lambda p: (
        lay.pattern.sequence(p.rpartition("/")[2]), p)) if every else None
    if path is None:
        return None
    try:
        text = to_lf(ctx.read_markdown(path))
    except Unreadable:
        return None
    from icm import markdown

    entry = parse_entry(text, path, lay.slots, lay.verify, lay, numbers)
    fm = front_matter(text)
    rows = text.split("\n")
    flags, _open = fenced(rows)
    secs = markdown.sections(fm.text)
    first = next((s.line for s in secs if s.level == 1), 0)
    heads = [s for s in secs if s.level == 2 and s.line > first]
    if not first:
        return None
    head: List[str] = []
    upper = True
    if "status" in fm.keys:
        keys = sorted((k for k in ("status", "date") if k in fm.keys),
                      key=lambda k: fm.keys[k][1])
        head = ["---", *(f"{k}: {{{k}}}" for k in keys), "---", ""]
        upper = fm.keys["status"][0].strip("\"' ")[:1].isupper()
    width, title_row = 0, "# {title}"
    m = _NUMBERED.match(rows[first - 1])
    # "# 7. T" in 0017-t.md is a numbered title; "# 2024 plans" is one only
    # where its number is the file's
    if m and (m.group(1) or m.group(3).strip() or int(m.group(2))
              == lay.pattern.number(path.rsplit("/", 1)[-1])):
        width = len(m.group(2)) if m.group(2).startswith("0") else 0
        title_row = f"# {m.group(1)}{{number}}{m.group(3)}{{title}}"
    head += [title_row, ""]
    stop = heads[0].line if heads else len(rows) + 1
    in_head = first < entry.status_line < stop  # not front matter, no section
    marked = _status_to(text, entry, "{status}", None).split("\n") \
        if in_head else rows
    none = ""
    for i in range(first, stop - 1):
        row = rows[i]
        if flags[i] or "{" in row:  # the record's text is never a placeholder
            continue
        said = _link_row(row)
        if said is not None and names_nothing(said[1]):
            # a link line saying none (``Supersedes: N/A``): the new record's
            # own, its Supersedes value the link when there is one
            if said[0] == "supersedes:":
                none = said[1].strip()
                row = _link_row_to(row, "{supersedes}")
        elif marked[i] != row:  # the status line, its value a placeholder
            upper = row[len(marked[i].split("{status}")[0]):][:1].isupper()
            row = marked[i]
        elif "date" in row.lower() and _DATE.search(row):
            row = _DATE.sub("{date}", row, count=1)
        elif row.strip():
            continue  # prose: this record's, not the next one's
        if row.strip() or head[-1].strip():
            head.append(row)
    if head[-1].strip():
        head.append("")
    own = dict(_sections(template(TEMPLATES[lay.format]))[1])
    status_heads = {h.casefold() for h in lay.headings("status")}
    parts = []
    for sec in heads:
        name = sec.title
        body = own.get(name, [""])
        if name.casefold() in status_heads and not in_head:
            body = ["", "{status}", ""]
        parts.append("\n".join([f"## {name}", *body]).rstrip("\n"))
    return _Style("\n".join([*head, "{carried}", *"\n\n".join(parts).split(
        "\n")]) + "\n", width, upper, in_head, none)


_LINK_KEYS = ("supersedes:", "superseded-by:")


def _link_row(row: str) -> Optional[Tuple[str, str]]:
    """(key, value) of a ``Supersedes:`` or ``Superseded-by:`` line (a list
    item or bold key too), or None."""
    bare = row.strip().lstrip("*-+ _").lower()
    for key in _LINK_KEYS:
        if bare.startswith(key) or bare.replace("**", "").startswith(key):
            value = row[row.find(":") + 1:].strip().lstrip("*_").strip()
            return key, value
    return None


def _link_row_to(row: str, value: str) -> str:
    """``row`` (a ``_link_row``) saying ``value``: its key, markup and
    trailing spaces (a Markdown line break) kept."""
    k = row.find(":") + 1
    while row[k:k + 1] in ("*", "_"):
        k += 1
    return row[:k] + " " + value + row[len(row.rstrip()):]


def _entry(ctx: Context, lay: Layout, title: str, number: int, day: date,
           item: Optional[_Item], link: str,
           style: Optional[_Style] = None) -> str:
    """The new entry's text: the format's template (or the tree's own form,
    ``_style``), the item's text carried."""
    slots = lay.slots
    status = STATUS[lay.format]
    if style is not None:
        status = status[:1].upper() + status[1:] if style.upper else status.lower()
    rowed = style is not None and "{supersedes}" in style.text
    if link and lay.format == "nygard" and not (style and style.line) \
            and not rowed:
        status += f"\n\nSupersedes {link}"  # a status line takes no paragraph
    values = {"title": title, "number": f"{number:0{style.width if style else 0}d}",
              "date": day.isoformat(), "status": status}
    if rowed and style is not None:
        values["supersedes"] = link or style.none
    if style is not None and style.line:  # the status line is the Status slot
        held = {h.casefold() for h in lay.headings("status")}
        slots = tuple(s for s in slots if s.casefold() not in held)
    text = style.text if style is not None else template(TEMPLATES[lay.format])
    fmt = entry_text if lay.format == "icm" else record_text
    if item is None:
        rows = text.split("\n")
        text = "\n".join(r for r in rows if r.strip() != "{carried}")
        return fmt(text, slots, [], lay.verify, values)
    source, body, newline = item
    # The line is written even for an item with no text: it is how the
    # number stays used once the queue file is gone.
    said = CARRIED.format(source=source)
    # The body goes in as it is, its own endings kept: the rest of the entry
    # is made with LF and takes the item's ending, around a mark longer than
    # any run of NULs elsewhere in it.
    mark = "\0" * (1 + title.count("\0") + "".join(slots).count("\0"))
    values["carried"] = f"{said}:\n\n{mark}" if body else f"{said}.\n"
    # Slots the item already holds are its own: the template's empty copies
    # would make each slot twice (and the gate judged only the first).
    present = list(parse_entry(to_lf(body), source, slots, None).slots)
    text = fmt(text, slots, present, lay.verify, values)
    return body.join(piece.replace("\n", newline) for piece in text.split(mark))


def _next_number(lay: Layout, folder: Path, known: Sequence[str]) -> int:
    """One above the highest number of the journal folder's names, listed
    under the lock (another writer may have made one since the context),
    and of ``known`` entries (records nested below it)."""
    found = [lay.pattern.number(n) for n in os.listdir(folder)]
    found += [lay.pattern.number(p.rpartition("/")[2]) for p in known]
    return max([0, *(n for n in found if n is not None)]) + 1


def find_entry(ctx: Context, wanted: str) -> str:
    """The one entry ``wanted`` names: its number (``2``, ``0002``), path, file
    name, or a prefix of either."""
    lay = layout(ctx.config)
    every = sorted(entries(ctx))
    raw = wanted.strip().replace("\\", "/")
    if raw.isdigit() and lay.pattern.numbered:
        hits = [e for e in every if lay.pattern.number(e.rsplit("/", 1)[-1])
                == int(raw)]
    else:
        rel = raw
        if os.path.isabs(raw) or os.path.exists(raw):
            rel = os.path.relpath(os.path.abspath(raw), ctx.root).replace(os.sep, "/")
        hits = [e for e in every if rel in (e, e.rsplit("/", 1)[-1])] or [
            e for e in every if e.startswith(rel) or e.rsplit("/", 1)[-1]
            .startswith(rel)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise UsageError(f"--supersedes {wanted}: no journal entry matches")
    raise UsageError(f"--supersedes {wanted}: matches several journal entries: "
                     f"{', '.join(hits)}")


def _link_text(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _superseded(ctx: Context, old: str, lay: Layout, rel: str, label: str,
                number: int) -> Tuple[str, str]:
    """The old entry's text marked superseded by ``rel``, in the format's way,
    and the link to the old entry the new one carries (adr-tools' form)."""
    try:
        text = ctx.read_markdown(old)
    except Unreadable as exc:
        raise UsageError(f"{old}: cannot read: {exc.reason}; nothing was "
                         "changed") from None
    entry = parse_entry(text, old, lay.slots, lay.verify, lay,
                        numbered(entries(ctx), lay))
    if entry.superseded_by is not None:
        raise UsageError(f"{old} is already superseded by {entry.superseded_by}; "
                         "nothing was changed")
    new_name = rel.rsplit("/", 1)[-1]
    dest = quote(_relative(rel, old), safe="/")
    back = quote(_relative(old, rel), safe="/")
    if lay.format == "icm":
        return _after_title(text, entry, f"Superseded-by: {rel}"), ""
    if lay.format == "nygard":
        line = f"Superseded by [{_link_text(label)}]({dest})"
        marked = _by_row(_status_to(text, entry, line, "## Status"),
                         f"[{_link_text(label)}]({dest})")
        label = entry.title or old.rsplit("/", 1)[-1]
        return marked, f"[{_link_text(label)}]({back})"
    number_text = f"{number:0{lay.pattern.width}d}" if lay.pattern.width else \
        new_name[:-3]
    return _by_row(_status_to(text, entry, f"superseded by "
                              f"[ADR-{number_text}]({dest})", None),
                   f"[ADR-{number_text}]({dest})"), ""


def _by_row(text: str, link: str) -> str:
    """``text`` with its ``Superseded-by:`` line above the first ``##``
    saying ``link``, where it said none (``N/A``: the tree's template's);
    unchanged without one."""
    parts = split(text)
    flags, _open = fenced([row for row, _end in parts])
    for i, (row, end) in enumerate(parts):
        if flags[i]:
            continue
        if row.startswith("## "):
            break
        said = _link_row(row)
        if said is not None and said[0] == "superseded-by:" \
                and names_nothing(said[1]):
            parts[i] = (_link_row_to(row, link), end)
            return join(parts)
    return text


def _relative(path: str, start_file: str) -> str:
    """``path`` relative to the folder of ``start_file`` (a link's form)."""
    return posixpath.relpath(path, posixpath.dirname(start_file) or ".")


def _after_title(text: str, entry: Entry, line: str) -> str:
    """``line`` as a paragraph of its own under the title (icm's
    ``Superseded-by:``), after any front matter."""
    parts = split(text)
    nl = ending(text)
    start = front_matter(text).end
    flags, _open = fenced([row for row, _end in parts])
    at = next((i + 1 for i, (row, _e) in enumerate(parts) if i >= start
               and not flags[i] and re.match(r" {0,3}#(?:[ \t]|$)", row)), start)
    if at and not parts[at - 1][1]:
        parts[at - 1] = (parts[at - 1][0], nl)
    new = [("", nl), (line, nl)] if at else [(line, nl)]
    if at >= len(parts) or parts[at][0].strip():
        new.append(("", nl))
    return join(parts[:at] + new + parts[at:])


def _status_to(text: str, entry: Entry, value: str, section: Optional[str]) -> str:
    """The entry with its status saying ``value``: the line it was read from
    rewritten (a ``status:`` key or ``Status:`` line keeps its key); else, in
    a Nygard record (``section``), a line added to its Status section or a
    Status section before the first ``##``; else a front matter ``status:``."""
    parts = split(text)
    nl = ending(text)
    if entry.status_line:
        i = entry.status_line - 1
        row = parts[i][0]
        trail = row[len(row.rstrip()):]  # two spaces: a Markdown line break
        row = row.rstrip()
        low = row.lower()
        key = low.find("status")
        colon = row.find(":", key) if key >= 0 else -1
        if colon >= 0 and not row[key + 6:colon].strip("*_ \t"):
            k = colon + 1
            while row[k:k + 1] in ("*", "_"):
                k += 1
            parts[i] = (row[:k] + " " + value + trail, parts[i][1])
        else:
            indent = row[:len(row) - len(row.lstrip())]
            parts[i] = (indent + value[:1].upper() + value[1:] + trail,
                        parts[i][1])
        return join(parts)
    if section is not None:
        status = entry.roles.get("status")
        line = value[:1].upper() + value[1:]
        if status is not None:
            at = status.line  # after its heading
            return join(parts[:at] + [("", nl), (line, nl)] + parts[at:])
        first = next((i for i, (row, _e) in enumerate(parts)
                      if row.startswith("## ")), len(parts))
        block = [(section, nl), ("", nl), (line, nl), ("", nl)]
        if first == len(parts) and parts[-1] == ("", ""):
            first -= 1
        return join(parts[:first] + block + parts[first:])
    end = front_matter(text).end
    if end:
        return join(parts[:1] + [(f"status: {value}", nl)] + parts[1:])
    return join([("---", nl), (f"status: {value}", nl), ("---", nl), ("", nl)]
                + parts)
