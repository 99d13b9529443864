"""Journal entries: which files are entries, and the one parse of an entry
(slots, roles, the Verify command, status and supersede lines).

A journal is kept in one of three formats (``journal_format``): icm's own
four slots, MADR (``adr-template.md``: Context and Problem Statement,
Considered Options, Decision Outcome, ...) or Nygard's, which adr-tools
writes (Status, Context, Decision, Consequences). Each format maps its
headings to **roles** (``ROLES``: decision, rejected, invariant, verify,
context, status, ...); every reader asks an entry for a role
(``Entry.said``), never for the n-th slot, so MADR's Context is never
read as the decision and a Consequences code span is never a command.
"""

from __future__ import annotations

import functools
import posixpath
import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import date
from typing import (
    Any,
    Container,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
)
from urllib.parse import unquote

from icm.config import DEFAULT_SLOTS, Config
from icm.context import Context
from icm.lines import split
from icm.model.notes import PER_TOOL
from icm.paths import is_readme
from icm.slug import is_slug

ENTRY_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})_(.+)\.md\Z", re.DOTALL)


PATTERN = "YYYY-MM-DD_slug.md"


# Folders a record format's entries may sit in below the journal folder, by
# status, area, year, month (afterray's docs/decisions/<status>/<class>/);
# deeper files are no entries. icm's journal is the seed's journal/*.md.
RECORD_DEPTH = 4


def entries(ctx: Context) -> List[str]:
    """Markdown files inside the journal folder (a README, translated too:
    ``paths.is_readme``; ``positions_file``
    and the folder's own note aside; in an ADR folder also its index
    (``is_index``) and the templates, which MADR and log4brains keep beside
    the records). A
    record format's are also those up to ``RECORD_DEPTH`` folders down, each
    folder read as the top one is (its README, index and note no entry)."""
    prefix = ctx.config.journal_dir.rstrip("/") + "/"
    records = ctx.config.journal_format != "icm"
    found = []
    for f in ctx.under(prefix):
        name = f.rpartition("/")[2]
        if in_journal(f, ctx.config) and not is_readme(name) \
                and f != ctx.config.positions_file \
                and not (records and is_index(name)) \
                and not is_template(name) and name not in PER_TOOL \
                and not ctx.is_note(f):  # compiled from entries; notes
            found.append(f)
    return found


def in_journal(path: str, cfg: Config) -> bool:
    """Whether ``path`` is a Markdown file where ``cfg``'s journal keeps
    entries: its folder, or in a record format up to ``RECORD_DEPTH``
    folders below it."""
    prefix = cfg.journal_dir.rstrip("/") + "/"
    depth = RECORD_DEPTH if cfg.journal_format != "icm" else 0
    return path.startswith(prefix) and path.lower().endswith(".md") \
        and path.count("/", len(prefix)) <= depth


# The folder names that state a record's status (``proposed/``,
# ``superseded/``): adr-tools' and MADR's words, and ``active`` (afterray's).
STATUS_FOLDERS = frozenset(("proposed", "draft", "accepted", "active",
                            "rejected", "deprecated", "superseded",
                            "withdrawn"))


def folder_status(path: str, cfg: Config) -> str:
    """The status the folders a record sits in below the journal folder name
    (the nearest naming one; "" when none does, or in icm's format)."""
    prefix = cfg.journal_dir.rstrip("/") + "/"
    if cfg.journal_format == "icm" or not path.startswith(prefix):
        return ""
    folders = path[len(prefix):].split("/")[:-1]
    return next((f.lower() for f in reversed(folders)
                 if f.lower() in STATUS_FOLDERS), "")


# Words a template's name may hold beside "template": MADR's
# adr-template-bare-minimal.md, log4brains' template.md, adr-tools users'
# 0000-template.md. A record about templates (0012-use-jinja-templates.md,
# 0012-template-engine.md) holds other words: it is a record.
_TEMPLATE_WORDS = frozenset(("adr", "adrs", "madr", "nygard", "decision", "decisions",
                             "record", "records", "architecture", "bare",
                             "minimal", "full", "short", "long", "default"))


def is_template(name: str) -> bool:
    """A records folder's template, no record in any format: ``template``
    among its words, every other word a number of zeros or one of
    ``_TEMPLATE_WORDS``."""
    return _page_of(name, "template")


def is_index(name: str) -> bool:
    """A records folder's index page, no record: ``index.md``, and by the
    same words as a template's ``ADR_INDEX.md``, ``decisions-index.md``,
    ``0000-index.md`` (purple-axiom's index read as a misnamed record with
    two missing slots); ``0012-search-index.md`` is a record."""
    return _page_of(name, "index")


def _page_of(name: str, word: str) -> bool:
    """``word`` among the name's words, every other a number of zeros or
    one of ``_TEMPLATE_WORDS``."""
    low = name.lower()
    if not low.endswith(".md"):
        return False
    words = re.findall(r"[^\W_]+", low[:-len(".md")])
    return word in words and all(
        w == word or w in _TEMPLATE_WORDS or not w.strip("0") for w in words)


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
    # its top-level paragraphs as written (markup kept), a blank line
    # between two: what the positions view cuts sentences from
    source: str = ""


@dataclass(frozen=True)
class Option:
    """One rejected option: MADR's options not chosen, or an item (or
    ``###`` section) of a rejected section listing several, the chosen one
    left out."""

    line: int
    name: str  # its bold lead name (plain words), else its first paragraph
    reason: str = ""  # markdown: why it lost ("" when it does not say)


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
    # role -> the section holding it (``ROLES``; MADR's rejected: the options
    # not chosen, named by the Considered Options heading)
    roles: Dict[str, Slot] = field(default_factory=dict)
    status: str = ""  # its status, lower case ("accepted"); "" when none
    # entries it says it supersedes (adr-tools' "Supersedes [..](..)"), lines
    supersedes: Tuple[Tuple[str, int], ...] = ()
    front: str = ""  # why its front matter was read as markdown ("": it was not)
    status_line: int = 0  # the line its status was read from; 0 when none
    title: str = ""  # its first level-1 heading
    # each rejected option of a list of them (``Option``); () when the
    # rejected role is one design written as prose
    options: Tuple["Option", ...] = ()
    # the status its folder names (``folder_status``): its status when it
    # states none; when it states another, its own line wins (``read``)
    status_folder: str = ""
    # newer records its status area says revisit it without replacing it
    # (``Amended by X``, ``Clarified by X``, ``Deferral superseded by X``),
    # with their lines: a re-proposal there is a recorded reversal
    revisited_by: Tuple[Tuple[str, int], ...] = ()

    def said(self, role: str) -> str:
        """The visible text of the section holding ``role`` ("" without)."""
        slot = self.roles.get(role)
        return slot.visible if slot is not None else ""


# -- formats and roles ----------------------------------------------------------

FORMATS = ("icm", "madr", "nygard")
# What a reader may ask an entry for. "rejected" in MADR is computed: the
# Considered Options that the Decision Outcome did not choose.
ROLES = ("decision", "rejected", "invariant", "verify", "context", "status",
         "consequences", "options", "pros-cons", "confirmation")
_ICM_ROLES = ("decision", "rejected", "invariant")  # slots 1 to 3, by default
_ICM_NAMES = dict(zip(_ICM_ROLES, DEFAULT_SLOTS))
# Each format's headings by the role they hold, preferred first. The icm
# names mean the same in every format, so a MADR or adr-tools journal may
# add an Invariant and a Verify command section (and require them in slots).
_HEADINGS: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "madr": {
        "context": ("Context and Problem Statement",),
        "options": ("Considered Options",),
        "decision": ("Decision Outcome",),
        "rejected": ("Rejected alternative",),
        "pros-cons": ("Pros and Cons of the Options",),
        "consequences": ("Consequences", "Positive Consequences",
                         "Negative Consequences"),
        "confirmation": ("Confirmation", "Validation"),
        "invariant": ("Invariant",),
        "verify": ("Verify command",),
        "status": ("Status",),
    },
    "nygard": {
        "status": ("Status",),
        "context": ("Context", "Problem"),  # afterray's records: Problem
        "decision": ("Decision",),
        "consequences": ("Consequences",),
        "rejected": ("Rejected alternative", "Alternatives considered",
                     "Considered alternatives", "Alternatives"),
        "invariant": ("Invariant",),
        "verify": ("Verify command",),
    },
}
_REQUIRED = {
    "icm": DEFAULT_SLOTS,
    "madr": ("Context and Problem Statement", "Considered Options",
             "Decision Outcome"),
    "nygard": ("Status", "Context", "Decision", "Consequences"),
}


def required(fmt: str) -> Tuple[str, ...]:
    """The sections a format's records hold by default (``slots``)."""
    return _REQUIRED[fmt]


PATTERNS = {"icm": PATTERN, "madr": "NNNN-title.md", "nygard": "NNNN-title.md"}


class NamePattern:
    """A file-name rule (``journal_pattern``): ``YYYY``, ``MM`` and ``DD`` a
    date, a run of ``N`` a number of at least that many digits, ``slug``,
    ``title`` or ``*`` the part from the title; the rest literal."""

    _TOKEN = re.compile(r"YYYY|MM|DD|N+|slug|title|\*")

    def __init__(self, text: str) -> None:
        self.text = text
        parts: List[str] = []
        self.kinds: List[Tuple[str, int]] = []  # (kind, width) per group
        at = 0
        for m in self._TOKEN.finditer(text):
            parts.append(re.escape(text[at:m.start()]))
            tok, at = m.group(), m.end()
            if tok in ("YYYY", "MM", "DD"):
                parts.append(f"([0-9]{{{len(tok)}}})")
                self.kinds.append((tok, len(tok)))
            elif tok[0] == "N":
                parts.append(f"([0-9]{{{len(tok)},}})")
                self.kinds.append(("N", len(tok)))
            else:
                parts.append("(.+)")
                self.kinds.append(("*" if tok == "*" else "slug", 0))
        parts.append(re.escape(text[at:]))
        self.regex = re.compile("".join(parts) + r"\Z", re.DOTALL)
        self.numbered = any(kind == "N" for kind, _ in self.kinds)

    def _groups(self, name: str) -> Optional[Dict[str, str]]:
        m = self.regex.match(name)
        if not m:
            return None
        found: Dict[str, str] = {}
        for (kind, _width), value in zip(self.kinds, m.groups()):
            if kind in found and found[kind] != value:
                return None  # one token twice must say one thing
            found[kind] = value
        return found

    def valid(self, name: str) -> bool:
        found = self._groups(name)
        if found is None or ("slug" in found and not is_slug(found["slug"])):
            return False
        if "YYYY" in found or "MM" in found or "DD" in found:
            try:
                date(int(found.get("YYYY", "2000")), int(found.get("MM", "1")),
                     int(found.get("DD", "1")))
            except ValueError:
                return False
        return True

    @property
    def width(self) -> int:
        """Digits of its number, as written (0: not numbered)."""
        return max([0, *(w for kind, w in self.kinds if kind == "N")])

    def number(self, name: str) -> Optional[int]:
        found = self._groups(name) if self.numbered else None
        return int(found["N"]) if found and "N" in found else None

    def sequence(self, name: str) -> str:
        """What orders entries, older first: the date, then the number ("" for
        a name that does not match)."""
        if not self.valid(name):
            return ""
        found = self._groups(name) or {}
        day = "-".join(found[k] for k in ("YYYY", "MM", "DD") if k in found)
        return f"{day}|{int(found['N']):012d}" if "N" in found else day

    def make(self, day: date, number: int, slug: str) -> str:
        """The name for an entry of ``day``, numbered ``number``."""
        values = {"YYYY": f"{day.year:04d}", "MM": f"{day.month:02d}",
                  "DD": f"{day.day:02d}"}

        def one(m: "re.Match[str]") -> str:
            tok = m.group()
            if tok in values:
                return values[tok]
            return f"{number:0{len(tok)}d}" if tok[0] == "N" else slug
        return self._TOKEN.sub(one, self.text)


class NamePatterns:
    """``journal_pattern`` as one or more ``NamePattern``: a name is an
    entry's when any matches (the first that does gives its number and
    order); the first names new entries."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.each = [NamePattern(t) for t in texts]
        self.first = self.each[0]
        self.text = " or ".join(t for t in texts)
        self.numbered, self.width = self.first.numbered, self.first.width

    def _one(self, name: str) -> Optional[NamePattern]:
        return next((p for p in self.each if p.valid(name)), None)

    def valid(self, name: str) -> bool:
        return self._one(name) is not None

    def number(self, name: str) -> Optional[int]:
        one = self._one(name)
        return one.number(name) if one is not None else None

    def sequence(self, name: str) -> str:
        one = self._one(name)
        return one.sequence(name) if one is not None else ""

    def make(self, day: date, number: int, slug: str) -> str:
        return self.first.make(day, number, slug)


@dataclass(frozen=True)
class Layout:
    """What the configured format makes of an entry: the headings every
    entry must hold (``slots``), the headings holding each role, the verify
    heading and the file-name rule."""

    format: str
    slots: Tuple[str, ...]
    roles: Tuple[Tuple[str, Tuple[str, ...]], ...]  # role -> headings
    verify: Optional[str]
    pattern: NamePatterns

    def headings(self, role: str) -> Tuple[str, ...]:
        return dict(self.roles).get(role, ())


def layout(cfg: Config) -> Layout:
    """The layout of ``cfg``'s journal (``journal_format``, ``slots``,
    ``verify_slot``, ``journal_pattern``)."""
    slots = cfg.slots if "slots" in cfg.given or cfg.journal_format == "icm" \
        else _REQUIRED[cfg.journal_format]
    pattern = cfg.journal_pattern or PATTERNS[cfg.journal_format]
    return _layout(cfg.journal_format, tuple(slots), cfg.verify_slot,
                   (pattern,) if isinstance(pattern, str) else tuple(pattern))


# Every heading some format gives a role: in an icm journal such a slot takes
# that role by name (a Decision Outcome slot is the decision), never one by
# its place (a fourth slot named Consequences is no Verify command).
_KNOWN: Dict[str, str] = {h: role for fmt in ("nygard", "madr")
                          for role, hs in _HEADINGS[fmt].items() for h in hs}
_KNOWN.update({name: role for role, name in _ICM_NAMES.items()})


@functools.lru_cache(maxsize=16)
def _layout(fmt: str, slots: Tuple[str, ...], verify_slot: str,
            pattern: Tuple[str, ...]) -> Layout:
    if fmt == "icm":
        fourth = slots[3] if len(slots) >= 4 and slots[3] not in _KNOWN else None
        verify = verify_slot or (DEFAULT_SLOTS[3] if DEFAULT_SLOTS[3] in slots
                                 else fourth)
        roles: Dict[str, Tuple[str, ...]] = {}
        taken: Set[Optional[str]] = {verify}
        for n, role in enumerate(_ICM_ROLES):
            # By name first (any format's); a renamed slot keeps the role of
            # its place, as long as its name holds no other role.
            named = [s for s in slots if _KNOWN.get(s) == role and s not in taken]
            name = named[0] if named else slots[n] if len(slots) > n else ""
            if name and name not in taken and (named or name not in _KNOWN):
                roles[role] = (name,)
                taken.add(name)
        if verify:
            roles["verify"] = (verify,)
    else:
        verify = verify_slot or DEFAULT_SLOTS[3]
        roles = dict(_HEADINGS[fmt])
        roles["verify"] = (verify,)
    order = [r for r in ROLES if r in roles]
    return Layout(fmt, slots, tuple((r, roles[r]) for r in order), verify,
                  NamePatterns(pattern))


def format_of(text: str) -> Optional[str]:
    """The record format one entry's text is in: "madr" or "nygard" when it
    holds every section that format requires (front matter aside), else
    None; for ``icm init``, which picks ``journal_format`` from the records
    a repository has."""
    from icm import markdown

    wanted = {h.casefold() for fmt in ("madr", "nygard") for h in _REQUIRED[fmt]}
    heads = {heading_name(s.title, wanted)
             for s in markdown.sections(front_matter(text).text) if s.level == 2}
    return next((fmt for fmt in ("madr", "nygard")
                 if set(_REQUIRED[fmt]) <= heads), None)


def heading_name(title: str, names: Container[str]) -> str:
    """The name a heading holds: its title, or the words before a suffix in
    parentheses, after a colon, or after a slash or dash between spaces when
    those are one of ``names`` (casefolded): ``Decision (proposed)``,
    ``Decision: chosen`` and ``Consequences / trade-offs`` (curie's) are
    their slots, and ``Decision Drivers`` (MADR's) is not."""
    if title.casefold() in names:
        return title
    cut = min((i for i in (title.find(c) for c in _SUFFIX_OPENERS) if i > 0),
              default=-1)
    head = title[:cut].rstrip() if cut > 0 else ""
    # (the opener's own characters go: "Decision:" alone is not the Decision)
    said = title[cut + 1:].strip("()/-\u2013\u2014 ") if cut > 0 else ""
    return head if head and said and head.casefold() in names else title


_SUFFIX_OPENERS = ("(", ":", " / ", " - ", " \u2013 ", " \u2014 ")


def verify_slot(cfg: Config) -> Optional[str]:
    """The heading holding the Verify command: ``verify_slot``; else, in the
    icm format, a slot named Verify command or the fourth slot; in MADR and
    Nygard journals a ``Verify command`` section where an entry has one."""
    return layout(cfg).verify


def valid_entry_name(filename: str, cfg: Config) -> bool:
    """Whether ``filename`` follows the configured ``journal_pattern``."""
    return layout(cfg).pattern.valid(filename)


def numbered(paths: Iterable[str], lay: Layout) -> Dict[int, str]:
    """Entry paths by their number (the first by path where two share one),
    for status lines naming an entry as ``ADR-0005``."""
    found: Dict[int, str] = {}
    for path in sorted(paths):
        n = lay.pattern.number(path.rsplit("/", 1)[-1])
        if n is not None:
            found.setdefault(n, path)
    return found


def sharing(paths: Iterable[str], lay: Layout) -> Dict[str, str]:
    """Each record path whose number another record holds -> the first
    other one by path (``ADR-0015-implementation-notes.md`` ->
    ``ADR-0015-e2e-injectable-pty.md``); {} in icm's format."""
    if lay.format == "icm":
        return {}
    by: Dict[int, List[str]] = {}
    for path in sorted(paths):
        n = lay.pattern.number(path.rsplit("/", 1)[-1])
        if n is not None:
            by.setdefault(n, []).append(path)
    return {p: next(o for o in group if o != p)
            for group in by.values() if len(group) > 1 for p in group}


def companion(entry: Entry) -> bool:
    """A page beside a record (its notes, an appendix), no record: it holds
    no section heading, status or supersede line of one (prose under its
    title is no record's lead here). Asked only of a path that shares its
    number with another record (``sharing``)."""
    headed = [s for s in (*entry.slots.values(), *entry.roles.values())
              if s.name != _LEAD]
    return not (headed or entry.status_line or entry.supersede_lines
                or entry.supersedes)


def read(text: str, path: str, cfg: Config,
         numbers: Optional[Mapping[int, str]] = None) -> Entry:
    """The one parse of an entry under ``cfg``'s format: what every reader
    (the gate, positions, verify, dupes, handoff, brief) calls."""
    lay = layout(cfg)
    entry = parse_entry(text, path, lay.slots, lay.verify, lay, numbers)
    folder = folder_status(path, cfg)
    if not folder:
        return entry
    # The record's own words win over its folder's: they are what every
    # reader of the file sees; the check warns where the two disagree.
    return replace(entry, status=entry.status or folder, status_folder=folder)


# Words two status folders and status lines share a meaning by.
_SAME_STATUS = {"active": "accepted", "draft": "proposed"}


def status_disagrees(entry: Entry) -> bool:
    """A record stating one status in a folder naming another."""
    if not entry.status_folder or not entry.status_line:
        return False
    said, folder = (_SAME_STATUS.get(w, w) for w in (entry.status,
                                                       entry.status_folder))
    return said != folder


def superseding(read_entries: Mapping[str, Entry]) -> Dict[str, Tuple[str, int]]:
    """Each entry's replacement (path, line): its own status or
    ``Superseded-by`` line first, else an entry of ``read_entries`` saying it
    ``Supersedes`` it (adr-tools writes both; either counts)."""
    found: Dict[str, Tuple[str, int]] = {}
    for path, entry in sorted(read_entries.items()):
        for old, line in entry.supersedes:
            if old != path and old in read_entries:
                found.setdefault(old, (path, line))
    for path, entry in read_entries.items():
        if entry.superseded_by is not None:
            found[path] = (entry.superseded_by, entry.superseded_line)
    return found


# -- front matter and statuses ----------------------------------------------------

FRONT_LINES = 100  # a closing "---" further down is no front matter
FRONT_CHARS = 16384  # of which no more is scanned
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class Front:
    """An entry's front matter, as ``front_matter`` reads it."""

    text: str  # the entry with the front matter's lines emptied
    keys: Dict[str, Tuple[str, int]]  # simple top-level key -> (value, line)
    problem: str = ""  # why it was read as markdown ("" when read or none)
    end: int = 0  # the line of its closing ``---``; 0 without front matter


def front_matter(text: str) -> Front:
    """Front matter is YAML between a first line ``---`` and a line ``---``
    (or ``...``) within ``FRONT_LINES`` lines; only simple top-level
    ``key: value`` lines are read (nested values, lists and block scalars
    are skipped: no YAML parser). Left in place, markdown would read its
    closing ``---`` as a setext heading."""
    if not text.startswith("---"):
        return Front(text, {})
    parts = split(text[:FRONT_CHARS])
    if parts[0][0].rstrip(" \t") != "---" or not parts[0][1]:
        return Front(text, {})
    for n, (row, _end) in enumerate(parts[1:FRONT_LINES + 1], 1):
        whole = n < len(parts) - 1 or len(text) <= FRONT_CHARS
        if row.rstrip(" \t") in ("---", "...") and whole:
            keys: Dict[str, Tuple[str, int]] = {}
            for k, (line, _e) in enumerate(parts[1:n], 2):
                m = _KEY.match(line)
                if m and m.group(1).lower() not in keys:
                    keys[m.group(1).lower()] = (_unquote(m.group(2).strip()), k)
            used = sum(len(r) + len(e) for r, e in parts[:n + 1])
            blank = "".join(e for _r, e in parts[:n + 1])
            return Front(blank + text[used:], keys, "", n + 1)
    return Front(text, {}, "front matter opened on line 1 has no closing '---' "
                 f"within {FRONT_LINES} lines ({FRONT_CHARS // 1024} KiB); read as "
                 "markdown")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


_SUPERSEDED_BY = ("superseded by", "superceded by", "superseded-by")
_SUPERSEDES = ("supersedes", "supercedes")
_NUMBER_REF = re.compile(r"(?:[A-Za-z]+[-_ ]?)?#?0*([0-9]{1,9})\Z")


def _status(value: str) -> Tuple[str, str]:
    """(kind, rest) of one status value: kind is "superseded-by",
    "supersedes" or the status word itself, lower case."""
    text = value.strip().strip("*_").strip()
    low = text.lower()
    for prefix in _SUPERSEDED_BY:
        if low.startswith(prefix):
            return "superseded-by", text[len(prefix):].strip(" \t:")
    for prefix in _SUPERSEDES:
        if low.startswith(prefix):
            return "supersedes", text[len(prefix):].strip(" \t:")
    word = low.split()[0].strip(".,;:") if low.split() else ""
    return word, ""


# A link line's word for "no record" (a template's ``Superseded-by: N/A``)
_NOTHING = frozenset({"", "n/a", "na", "none", "nil", "null", "nothing", "no",
                      "tbd", "-", "--", "\u2013", "\u2014"})


def names_nothing(value: str) -> bool:
    """Whether a Superseded-by or Supersedes value names no record: empty,
    or a placeholder word, markup and a closing stop aside."""
    return value.strip().strip("*_`").strip().rstrip(".").casefold() in _NOTHING


def _status_target(value: str, path: str,
                   numbers: Optional[Mapping[int, str]]) -> str:
    """The entry a status value names: a link (from the entry's folder), a
    number (``ADR-0005``, ``0005``, ``#5``), a bare file name beside the
    entry, a ``./`` or ``../`` path from the entry's folder (afterray's), or
    a path from the root; as written when it names none."""
    value = value.strip().rstrip(".,;")
    if value.startswith("["):
        middle = value.find("](")
        close = value.find(")", middle + 2) if middle > 0 else -1
        if close > 0:
            return target(value[:close + 1], path)
    m = _NUMBER_REF.match(value)
    if m:
        return (numbers or {}).get(int(m.group(1)), value)
    if ("/" not in value and value.lower().endswith(".md")) or value.startswith(
            ("./", "../")):  # from the root, ../ would leave it
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), value))
    return target(value, path)


def _status_line(source: str) -> Optional[str]:
    """The value of a ``Status: ...`` line (``* Status:``, ``**Status:**``)."""
    text = source.strip().lstrip("*-+ \t")
    low = text.lower()
    for head in ("status:**", "status**:", "status:"):
        if low.startswith(head):
            return text[len(head):].strip()
    return None


# -- the parse -------------------------------------------------------------------


@dataclass
class _Sub:
    """A ``###`` section inside a part: its title and what it holds."""

    title: str
    line: int
    texts: List[str] = field(default_factory=list)
    lines: List[Tuple[int, str]] = field(default_factory=list)
    items: List[Tuple[int, str]] = field(default_factory=list)


class _Part:
    """One section of an entry as the parse collects it."""

    def __init__(self, title: str, line: int) -> None:
        self.title, self.line = title, line
        self.seen: List[str] = []  # joined once at the end: linear
        self.codes: List[Any] = []
        self.lines: List[Tuple[int, str]] = []
        self.items: List[Tuple[int, str]] = []
        self.own_items: List[Tuple[int, str]] = []  # above its first ###
        self.own_lines: List[Tuple[int, str]] = []  # its paragraphs there
        self.subs: List[_Sub] = []  # its level-3 sections

    def add(self, sec: Any, own: bool) -> None:
        if sec.visible:
            self.seen.append(sec.visible)
        if not own and self.subs:
            sub = self.subs[-1]
            sub.texts += [sec.visible] if sec.visible else []
            sub.lines += sec.lines
            sub.items += sec.items
        elif own and not self.subs:
            self.own_items.extend(sec.items)
            self.own_lines.extend(sec.lines)
        self.codes.extend(sec.code)
        self.lines.extend(sec.lines)
        self.items.extend(sec.items)

    def slot(self, name: Optional[str] = None) -> Slot:
        return Slot(name or self.title, self.line, " ".join(self.seen),
                    _paragraphs(self.lines))


def parse_entry(text: str, path: str, slots: Sequence[str],
                verify: Optional[str], lay: Optional[Layout] = None,
                numbers: Optional[Mapping[int, str]] = None) -> Entry:
    """Slots, roles, Verify command and supersede lines of one entry.

    A slot is a top-level ``##`` heading named as the slot (a suffix aside:
    ``heading_name``); it runs to the next top-level heading of level 1 or 2,
    so its ``###`` sub-headings belong to it (their titles are not content,
    their bodies are). A role (``lay``; without one, icm's) is held by the
    first of its headings found at level 2, then at level 3 (MADR's ``###
    Consequences``), exact names before any letter case. The command is the
    verify role's first code block that is indented or fenced as ``sh``,
    ``bash``, ``shell``, ``console`` or nothing (in ``console``, the ``$ ``
    lines without their prompt), else its first code span: no other section's
    code is ever one. ``Superseded-by:`` counts on a line of its own before
    the first ``##`` heading: a bare path is from the root, a link from the
    entry's folder (in a record format, read as a status's: ``_status_target``).
    So do statuses: a front matter ``status:``, a ``Status:`` line (or list
    item) before the first ``##`` heading, and the lines of the status role's
    section, ``Superseded by X`` or ``Supersedes X`` (see ``_status_target``).
    """
    from icm import markdown  # loaded on first use: keeps other commands light

    if lay is None:
        lay = _layout("icm", tuple(slots), verify or "", (PATTERN,))
    fm = front_matter(text)
    body, keys, front = fm.text, fm.keys, fm.problem
    wanted = {h.casefold() for _r, hs in lay.roles for h in hs}
    wanted.update(h.casefold() for h in slots)
    heads: Dict[str, List[int]] = {}
    parts: Dict[Tuple[int, str], _Part] = {}
    opened: List[Optional[_Part]] = [None, None]  # the level-2 and level-3 part
    every: List[Tuple[str, int]] = []
    statuses: List[Tuple[str, int]] = []  # (value, line) before the first ##
    seen_two = False
    title = ""
    lead: List[Tuple[int, str]] = []  # top-level paragraphs before the first ##
    for sec in markdown.sections(body):
        if sec.level == 1 and not title:
            title = sec.title
        if sec.level and sec.level <= 2:
            opened = [None, None]
        elif sec.level == 3:
            opened[1] = None
        name = heading_name(sec.title, wanted)  # "Decision (proposed)" too
        if sec.level == 2:
            seen_two = True
            if name in slots:
                heads.setdefault(name, []).append(sec.line)
        if sec.level in (2, 3) and name.casefold() in wanted \
                and (sec.level, name) not in parts:
            part = _Part(name, sec.line)
            parts[(sec.level, name)] = part
            opened[sec.level - 2] = part
        if sec.level == 3 and opened[0] is not None:
            opened[0].subs.append(_Sub(sec.title, sec.line))
        if not seen_two:
            # an item's every line: afterray's "Anchors:" list item ("- —")
            # took its "Superseded-by:" line as a lazy continuation
            rows = [(line + k, part) for line, text in sec.items
                    for k, part in enumerate(text.split("\n"))]
            for line, source in [*sec.lines, *rows]:
                source = source.strip()
                if source[:len(_SUPERSEDED)].lower() == _SUPERSEDED:
                    value = source[len(_SUPERSEDED):].strip()
                    if not names_nothing(value):  # a record's: as its status
                        every.append((target(value, path) if lay.format == "icm"
                                      else _status_target(value, path, numbers),
                                      line))
                status = _status_line(source.split("\n", 1)[0])
                if status is not None:
                    statuses.append((status, line))
            said_lines = {line for _value, line in statuses}
            lead += [(ln, src) for ln, src in sec.lines if ln not in said_lines]
        for n, into in enumerate(opened):
            if into is not None:
                into.add(sec, own=(n == 0 and sec.level == 2) or n == 1)
    found = {name: parts[(2, name)].slot() for name in slots if (2, name) in parts}
    roles = {role: held_by for role, heads_ in lay.roles
             for held_by in [_find(parts, heads_, slots)] if held_by is not None}
    said = {role: part.slot() for role, part in roles.items()}
    if lay.format != "icm" and lead:
        _lead_holds(lead, lay, slots, found, said)
    options: Tuple[Option, ...] = ()
    if lay.format == "madr" and "rejected" not in said:
        rejected = _not_chosen(roles.get("options"), roles.get("decision"),
                               roles.get("pros-cons"))
        if rejected is not None:
            said["rejected"], options = rejected
    elif "rejected" in roles:
        options = _listed(roles["rejected"], roles.get("decision"))
    if "status" in keys:
        statuses.insert(0, (keys["status"][0], keys["status"][1]))
    held = roles.get("status")
    if held is not None:
        statuses += [(v, line) for line, v in [*held.lines, *held.items]]
    word, supersedes, word_line = "", [], 0
    # a lead paragraph's first line (a wrapped line's "is now superseded by"
    # is prose about another record), or a line of the status section
    opening = [(ln, src) for i, (ln, src) in enumerate(lead)
               if i == 0 or lead[i - 1][0] != ln - 1]
    revisited = [(_status_target(m.group(1), path, numbers), line)
                 for line, source in [*opening, *statuses_lines(held)]
                 for m in [_REVISITED.match(source)] if m is not None]
    for value, line in statuses:
        kind, rest = _status(value.split("\n", 1)[0])
        if kind == "supersedes" and not names_nothing(rest):
            supersedes.append((_status_target(rest, path, numbers), line))
            continue
        if kind == "superseded-by" and not names_nothing(rest):
            every.append((_status_target(rest, path, numbers), line))
            kind = "superseded"
        if kind and not word:
            word, word_line = kind, line
    every.sort(key=lambda tl: tl[1])
    superseded, superseded_line = every[0] if every else (None, 0)
    codes = roles["verify"].codes if "verify" in roles else []
    verify_line = roles["verify"].line if "verify" in roles else 0
    repeated = {name: tuple(at) for name, at in heads.items() if len(at) > 1}
    return Entry(found, command(codes), verify_line, superseded, superseded_line,
                 tuple(every), repeated, said, word, tuple(supersedes), front,
                 word_line, title, options,
                 revisited_by=tuple((t, ln) for t, ln in revisited
                                    if t != path and not names_nothing(t)))


def statuses_lines(held: Optional["_Part"]) -> List[Tuple[int, str]]:
    """The lines of the status role's section (none without one)."""
    return [] if held is None else [*held.lines, *held.items]


# A link that revisits a record and does not replace it: adr-tools' own
# link words for it (``adr new -l "Amends:Amended by"``), or a supersession
# of one named part (curie's "**Deferral superseded by [ADR-0078](...)**");
# the first link or record number after "by" is the newer record.
_REVISITED = re.compile(
    r"[ \t>*_+-]*(?:(?:amended|clarified|extended|refined)|"
    r"[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*){0,2} superseded) by:?[ \t]+"
    r"\**(\[[^\]\n]*\]\([^)\s]*\)|[A-Za-z]*[-_ ]?#?[0-9]{1,9}\b)", re.IGNORECASE)


# adr-tools' link words: a paragraph opening with one is a status, not prose
_LINKS = ("supersedes", "superseded", "superseded-by", "amends", "amended",
          "clarifies", "clarified")


_LEAD = "(lead)"  # the name of the slot a record's lead prose holds
_LABEL = re.compile(r"[*_]*\w[\w ]{0,30}?[*_]*:")  # "Date:", "**Technical Story:**"


def _linking(source: str) -> bool:
    """A lead paragraph that is a status or a field (adr-tools' ``Date:``),
    not prose: it opens with a link word or a short label and a colon."""
    first = source.strip().lstrip("*_ ").split(" ", 1)[0].rstrip(":*_").lower()
    label = _LABEL.match(source.strip())
    return first in _LINKS or label is not None and \
        label.group().strip("*_: ").lower() not in ("context", "decision")


def _lead_holds(lead: Sequence[Tuple[int, str]], lay: Layout,
                slots: Sequence[str], found: Dict[str, Slot],
                said: Dict[str, Slot]) -> None:
    """A record written with its context and decision as prose under its
    title (an early adr-tools record; a Y-statement) holds the roles no
    heading holds: the lead is their slot, for the gate and for positions."""
    kept: List[Tuple[int, str]] = []
    start = 0
    for i, (line, _source) in enumerate(lead):
        if i + 1 == len(lead) or lead[i + 1][0] != line + 1:  # a paragraph ends
            if not _linking(lead[start][1]):
                kept += lead[start:i + 1]
            start = i + 1
    if not kept:
        return
    text = _paragraphs(kept)
    slot = Slot(_LEAD, kept[0][0], " ".join(text.split()), text)
    for role, headings in lay.roles:
        if role not in ("context", "decision") or role in said:
            continue
        said[role] = slot
        names = {h.casefold() for h in headings}
        for name in slots:
            if name not in found and name.casefold() in names:
                found[name] = slot


def _find(parts: Mapping[Tuple[int, str], _Part], headings: Sequence[str],
          slots: Sequence[str]) -> Optional[_Part]:
    """The part holding the first of ``headings`` present: level 2 before 3,
    the exact name before another letter case. A required slot's heading
    holds its role only as the gate finds it: exact, at level 2."""
    for level in (2, 3):
        for name in headings:
            if (level, name) in parts and (level == 2 or name not in slots):
                return parts[(level, name)]
        folded = {h.casefold() for h in headings if h not in slots}
        near = [p for (lv, t), p in parts.items() if lv == level
                and t.casefold() in folded and t not in slots]
        if near:
            return min(near, key=lambda p: p.line)
    return None


_CHOSEN = "chosen option"
NAME_CHARS = 300  # of an option or a chosen name compared: regexes stay linear
_QUOTES = "\"'\u201c\u201d\u2018\u2019`*_"


def _plain(text: str) -> str:
    """An option's words for comparison: markup, comments and quotes gone,
    lower case, spacing collapsed, no final stop."""
    text = _cut_spans(text[:NAME_CHARS], "<!--", "-->")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(" " if ch in _QUOTES else ch for ch in text)
    return " ".join(text.casefold().split()).rstrip(".,;:")


def chosen_option(decision: str) -> str:
    """The option a MADR Decision Outcome names: ``Chosen option: "X",
    because ...`` gives X ("" when the outcome does not say)."""
    for line in decision.split("\n"):
        head = line.strip().lstrip("*_ ")
        if head[:len(_CHOSEN)].lower() != _CHOSEN:
            continue
        rest = head[len(_CHOSEN):NAME_CHARS].lstrip("*_ :").strip()
        bold = _BOLD.match(head[len(_CHOSEN):NAME_CHARS].lstrip(" :"))
        if bold is not None:  # Chosen option: **X** because ...
            return bold.group(2).strip()
        if rest[:1] in "\"\u201c'" and rest:
            close = {"\u201c": "\u201d"}.get(rest[0], rest[0])
            end = rest.find(close, 1)
            return rest[1:end] if end > 0 else rest[1:]
        return re.split(r",|\s+because\b", rest, maxsplit=1)[0].strip()
    return ""


def _not_chosen(options: Optional[_Part], decision: Optional[_Part],
                pros: Optional[_Part]) -> Optional[Tuple[Slot, Tuple[Option, ...]]]:
    """MADR's rejected alternatives: the Considered Options (or the Pros and
    Cons sub-headings) the Decision Outcome did not choose, as one slot
    ("A; B.") and one ``Option`` each, its reason its Pros and Cons "Bad"
    lines. None when the outcome names no option of the list."""
    if decision is None:
        return None
    listed = list(options.items) if options is not None else []
    if not listed and pros is not None:
        listed = [(sub.line, sub.title) for sub in pros.subs]
    chosen = _plain(chosen_option("\n".join(s for _l, s in decision.lines)))
    names = [(line, name, _plain(name)) for line, name in listed]
    names = [(ln, n, p) for ln, n, p in names if any(ch.isalnum() for ch in p)]
    if not chosen:
        return None
    picked = [p for _l, _n, p in names if _same(p, chosen)] or \
        [p for _l, _n, p in names if _within(chosen, p)][:2]
    if len(picked) != 1 and not any(_same(p, chosen) for _l, _n, p in names):
        return None  # no option, or two, hold the chosen words: cannot tell
    rest = [(line, n, p) for line, n, p in names if p not in picked]
    if not rest:
        return None
    where = options if options is not None and options.items else pros
    assert where is not None
    said = "; ".join(_option_name(n) for _l, n, _p in rest)
    subs = [(_plain(sub.title), sub) for sub in pros.subs] if pros else []
    found = []
    for line, name, plain in rest:
        sub = next((sb for title, sb in subs if _same(title, plain)), None)
        bad = [src for _l, src in sub.items
               if src.lstrip("*_ ").lower().startswith("bad")] if sub else []
        found.append(Option(line, _option_name(name), "; ".join(
            " ".join(b.split()) for b in bad) or _after_name(name)))
    return (Slot(where.title, where.line, said if said.endswith(".") else said + "."),
            tuple(found))


# An option marked as the one taken: "**A. OS keyring (chosen)**" (seen in
# "Options Considered" lists); "(not chosen)" is no mark.
_TAKEN = re.compile(r"\(\s*(?:chosen|selected|accepted|adopted)\s*\)|\u2705",
                    re.I)
_SEPARATORS = " \t:\u2013\u2014-,."


def _listed(part: _Part, decision: Optional[_Part]) -> Tuple[Option, ...]:
    """The options a rejected section lists, one each: its ``###`` sections
    when it has two or more, else its top-level list items when two or
    more (beside a paragraph, only when each has a bold name); () for
    prose (one design and its reasons). The chosen one is left
    out: marked so (``_TAKEN``) or named by a ``Chosen option:`` line."""
    if len(part.subs) >= 2:
        listed = [(sub.line, sub.title, _paragraphs(sub.lines) or "; ".join(
            " ".join(src.split()) for _l, src in sub.items), sub.title)
            for sub in part.subs]
    elif len(part.own_items) >= 2 and (not part.own_lines or all(
            _BOLD.match(src.lstrip()) for _l, src in part.own_items)):
        # beside prose, only named options are options: "X, because:" and
        # a list of reasons is one design
        listed = [(line, _option_name(src), _after_name(src),
                   src.split("\n", 1)[0]) if _BOLD.match(src.lstrip())
                  else (line, " ".join(src.split()), "", src.split("\n", 1)[0])
                  for line, src in part.own_items]
    else:
        return ()
    chosen = _plain(chosen_option("\n".join(
        s for _l, s in decision.lines))) if decision is not None else ""
    return tuple(Option(line, name, reason) for line, name, reason, head in listed
                 if not _TAKEN.search(head[:NAME_CHARS])
                 and not (chosen and _same(_plain(name), chosen)))


def _after_name(source: str) -> str:
    """What an option says after its bold lead name (``**A** – why``: "why");
    "" without a bold name."""
    text = _cut_spans(source[:NAME_CHARS * 4], "<!--", "-->").strip()
    lead = _BOLD.match(text)
    if lead is None:
        return ""
    return " ".join(text[lead.end():].lstrip(_SEPARATORS).split())


_BOLD = re.compile(r"(\*\*|__)(.+?)\1")


def _option_name(source: str) -> str:
    """An option as a reader names it: its leading bold name alone (``**A —
    Server-side**: because ...`` gives "A — Server-side"), else its first
    paragraph with its lines joined; comments, code ticks and emphasis gone,
    a link as its text."""
    text = _cut_spans(source[:NAME_CHARS], "<!--", "-->").strip()
    lead = _BOLD.match(text)
    if lead is not None:
        text = lead.group(2)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = _BOLD.sub(r"\2", text).replace("`", "")
    return " ".join(text.split())


def _words(text: str) -> List[str]:
    return re.findall(r"[^\W_]+", text)


def _within(chosen: str, option: str) -> bool:
    """The chosen name's words run unbroken inside the option's (MADR's
    ``Chosen option: **monorepo**`` for "Single monorepo containing ...")."""
    short, long_ = _words(chosen), _words(option)
    n = len(short)
    return n > 0 and any(long_[i:i + n] == short
                         for i in range(len(long_) - n + 1))


def _same(option: str, chosen: str) -> bool:
    """One option's plain words and the chosen one's name the same option
    (one may go on: "Postgres" chooses "Postgres, the relational one")."""
    short, long_ = sorted((option, chosen), key=len)
    return long_ == short or long_.startswith(short + " ") or \
        long_.startswith(short + ",")


def _paragraphs(rows: Sequence[Tuple[int, str]]) -> str:
    """Source lines of top-level paragraphs as text: a gap in their line
    numbers is a paragraph break."""
    out: List[str] = []
    last = -1
    for line, source in rows:
        if out and line != last + 1:
            out.append("")
        out.append(source)
        last = line
    return "\n".join(out)


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
