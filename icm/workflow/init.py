"""``icm init``: scaffold an ICM repository without touching what exists.

Everything is checked before anything is created: every path is resolved
inside the root (``icm.paths``), every folder on the way is a folder, every
file that exists is a regular file, and the extended ``pyproject.toml`` still
parses. One refusal stops the command with nothing changed; the changes
are then made all or none (``files.all_or_nothing``: a signal halfway left
half a scaffold).

It reads what the repository already keeps (``detect``): nested
``AGENTS.md``, ``CLAUDE.md`` or ``GEMINI.md`` become ``note_name`` (with
``index = "off"``: agents load them by location), decision records in
``docs/adr`` or ``docs/decisions`` the journal, and it says each choice in
one line. It never edits a file a note speaks for: its edit would make that
note stale at once (``icm.toml``, its own, is not code). A cold-boot set
already over the default budget gets ``budget`` at today's size
(``_held_budget``): a ratchet, not a failure on day one.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import posixpath
import re
import stat
import sys
from pathlib import Path
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from icm import config as config_mod
from icm.config import Config
from icm.context import MARKDOWN_SUFFIXES, Context, Unreadable
from icm.errors import UsageError
from icm.lines import ending as line_ending
from icm.model.journal import RECORD_DEPTH, is_template, required
from icm.model.links import near_handbooks
from icm.model.notes import PER_TOOL, owner_of
from icm.workflow.files import (
    Changes,
    all_or_nothing,
    entry,
    replaceable,
    target,
    template,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

# Without icm on PATH a bare "include $(shell icm makefile)" ends in "No rule
# to make target 'check'"; the guard says what is missing instead.
INCLUDE_LINE = ("include $(or $(shell icm makefile 2>/dev/null),$(error icm is not "
                "installed or not on PATH: pip install /path/to/icm))")
PREFIX = "icm-"


PYPROJECT_SECTION = """
[tool.icm]
# Every key is optional: one left out takes its default (icm's
# docs/configuration.md). Two defaults, written out to be changed:
budget = 1600
exclude = []
"""
# The same when init chose the budget (it is then under CHOSEN).
PYPROJECT_SECTION_BUDGET_CHOSEN = """
[tool.icm]
# Every key is optional: one left out takes its default (icm's
# docs/configuration.md). One default, written out to be changed:
exclude = []
"""
# On adoption a boot set over the default budget is held where it stands:
# the budget is today's tokens rounded up to this (a wording fix passes, a
# new section of the handbook fails); the line init prints says "a hundred".
BUDGET_STEP = 100

# Written where no config would otherwise mark the folder as the root.
ICM_TOML = """# icm's settings. This file makes this folder icm's root: runs from here
# check it, not the repository around it. Every key is optional (see icm's
# README).
"""
# A new icm.toml's first line when it holds only what init chose.
ICM_TOML_HEAD = ("# icm's settings; every key is optional (icm's "
                 "docs/configuration.md).\n")
# Above the keys init chose: each differs from its default, and init's
# output gave the reason for each, one line per choice.
CHOSEN = "# Set by icm init for what it found here:\n"


_RULE = re.compile(r"([^:=#]*?)::?(?![:=])")


def make_targets() -> List[str]:
    """The target names Makefile.inc defines (read from it, so a target added
    there is known here)."""
    found = re.findall(r"^\$\(ICM_PREFIX\)([\w-]+):", template("Makefile.inc"),
                       re.MULTILINE)
    return list(dict.fromkeys(found))


def clashing_targets(makefile: str) -> List[str]:
    """icm's target names that a Makefile already defines as rules."""
    ours = set(make_targets())
    found = set()
    for line in makefile.splitlines():
        # A rule line: names, then ":" or "::" that is not an assignment
        # (":=", "::=") and no "=" or comment before it. Recipes start with a tab.
        m = _RULE.match(line)
        if m and not line.startswith("\t"):
            found.update(ours.intersection(m.group(1).split()))
    return sorted(found)


def _add_include(makefile: str, name: str) -> Tuple[str, str]:
    """The makefile's text with icm's include added, and the line to print."""
    clash = clashing_targets(makefile)
    sep = "" if makefile.endswith("\n") or not makefile else "\n"
    if not clash:
        return (makefile + sep + f"\n{INCLUDE_LINE}\n",
                f"added icm's include line to {name}")
    text = (makefile + sep + f"\n# icm's targets are prefixed: the {name} has its "
            f"own {clash[0]}.\nICM_PREFIX := {PREFIX}\n{INCLUDE_LINE}\n")
    return text, (f"added icm's include line to {name} with ICM_PREFIX := {PREFIX}"
                  f" (it has its own {', '.join(clash)}): make {PREFIX}check")


# The names GNU make reads, in its order: the first that exists is the one
# make uses, so that is the one to extend.
MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")


# The line to print, the change.
Step = Tuple[str, Optional[Callable[[Changes], None]]]


def _refuse(rel: str, why: str) -> UsageError:
    return UsageError(f"refusing to write {rel}: {why}; nothing was changed")


def _existing(ctx: Context, rel: str) -> Optional[Path]:
    """The real path of ``rel`` when something is there (a symlink inside the
    root followed), None when nothing is; refuse a folder on the way that is
    not a folder, and anything there that is not a regular file."""
    path = entry(ctx, rel)
    top = Path(os.path.realpath(ctx.root))
    for folder in path.parents:
        if folder == top or top not in folder.parents:
            break
        if os.path.lexists(folder) and not folder.is_dir():
            shown = posixpath.relpath(folder.as_posix(), top.as_posix())
            raise _refuse(rel, f"{shown} is not a folder")
    if not os.path.lexists(path):
        return None
    real = target(ctx, rel)
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        raise _refuse(rel, exc.strerror or "cannot be examined") from None
    if not stat.S_ISREG(mode):
        raise _refuse(rel, "it exists and is not a regular file")
    return real


def _read(ctx: Context, rel: str) -> bytes:
    try:
        return ctx.read_bytes(rel)
    except Unreadable as exc:
        raise UsageError(f"{rel}: cannot read: {exc.reason}; nothing was "
                         "changed") from None


def _new_file(ctx: Context, rel: str, text: str) -> Step:
    if _existing(ctx, rel) is not None:
        return f"left alone {rel} (exists)", None

    def make(changes: Changes) -> None:
        folder = posixpath.dirname(rel)
        if folder:
            changes.folder(folder)
        changes.create(rel, text.encode("utf-8"))

    return f"created {rel}", make


def _makefile(ctx: Context, owner: Callable[[str], Optional[str]]) -> Step:
    # The first name make reads is the one to extend.
    name = next((n for n in MAKEFILE_NAMES if _existing(ctx, n) is not None),
                "Makefile")
    note = owner(name)
    if _existing(ctx, name) is None:
        if note is not None:  # a new Makefile is new code of that folder
            return (f"made no {name} ({note} speaks for the code here; add "
                    f"icm's include line with your next change to it)", None)
        return _new_file(ctx, name,
                         f"# make check runs icm's checks.\n{INCLUDE_LINE}\n")
    raw = _read(ctx, name)
    text = raw.decode("utf-8", "surrogateescape")
    if "icm makefile" in text:
        return f"left alone {name} (already includes icm's targets)", None
    if note is not None:
        return (f"left alone {name} ({note} speaks for it; add icm's include "
                f"line with your next change to {note})", None)
    new_text, line = _add_include(text, name)
    replaceable(ctx, name)  # read-only, or a link out of the root: refuse now

    def extend(changes: Changes) -> None:
        changes.replace(name, new_text.encode("utf-8", "surrogateescape"))
    return line, extend


def _pyproject(ctx: Context, handbook_key: str, away: Optional[Path],
               speaks: Optional[str] = None) -> Optional[Step]:
    """The config step: ``[tool.icm]`` added to a pyproject.toml, or a new
    ``icm.toml`` when a key must be set (``handbook_key``: the chosen keys'
    lines) or the folder would not be found as the root (``away``: the root
    found instead), or when a note speaks for pyproject.toml (``speaks``):
    an edit there is code, icm.toml is not."""
    rel = "pyproject.toml"
    if ctx.config.source == "icm.toml":
        return None  # a [tool.icm] beside it is never read: icm.toml wins
    why = (f" (it makes this folder icm's root; without it icm run here "
           f"checks {away})") if away is not None else ""
    chosen = CHOSEN + handbook_key if handbook_key else ""
    if _existing(ctx, rel) is None or speaks is not None:
        if away is not None:
            line, make = _new_file(ctx, "icm.toml", ICM_TOML + chosen)
            return line + why, make
        if handbook_key:
            line, make = _new_file(ctx, "icm.toml", ICM_TOML_HEAD + chosen)
            if speaks is not None and make is not None:
                line += (f" (not [tool.icm]: {speaks} speaks for pyproject.toml, "
                         "and icm.toml is not code)")
            return line, make
        if speaks is not None:
            return f"left alone pyproject.toml ({speaks} speaks for it)", None
        return None
    raw = _read(ctx, rel)
    try:
        text = raw.decode("utf-8-sig")
        doc = tomllib.loads(text)
    except UnicodeDecodeError:
        raise UsageError(f"{rel}: not valid UTF-8; nothing was changed") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{config_mod.toml_error(rel, text, exc)}; nothing was "
                         "changed") from None
    if config_mod.tool_icm(doc) is not None:
        return "left alone pyproject.toml (has [tool.icm])", None
    newline = line_ending(text)
    sep = "" if not text or text.endswith(("\n", "\r")) else newline
    section = PYPROJECT_SECTION_BUDGET_CHOSEN if re.search(
        r"^budget = ", handbook_key, re.MULTILINE) else PYPROJECT_SECTION
    added = (sep + (section + chosen).replace("\n", newline)).encode("utf-8")
    try:
        config_mod.tool_icm(tomllib.loads((raw + added).decode("utf-8-sig")))
    except tomllib.TOMLDecodeError:
        # `tool = {...}` inline: a [tool.icm] header after it is invalid TOML.
        raise UsageError(f"cannot add [tool.icm] to {rel} without breaking it; "
                         "add the table by hand; nothing was changed") from None
    replaceable(ctx, rel)  # read-only, or a link out of the root: refuse now

    def extend(changes: Changes) -> None:
        changes.replace(rel, raw + added)

    return "added [tool.icm] to pyproject.toml" + why, extend


def _found_instead(ctx: Context, makes_marker: bool) -> Optional[Path]:
    """The root that discovery would find from this folder once init has run,
    when it is not this folder: a subfolder of a git repository without a
    config of its own is checked from the top."""
    from icm.context import find_root

    found = find_root(ctx.root)
    if found == ctx.root:
        return None
    if not ctx.in_git and makes_marker and config_mod.find_config(found) is None:
        return None  # outside git, the AGENTS.md init makes here is found first
    return found


def init(ctx: Context) -> List[str]:
    """Create what is missing; return one line per file created or left.
    Every step is planned (and refused) before the first change."""
    cfg = ctx.config
    steps: List[Step] = []
    chosen: Dict[str, Any] = {}
    missing = _existing(ctx, cfg.handbook) is None
    near = near_handbooks(ctx) if missing else []
    makes_marker = False
    if not near:
        steps.append(_new_file(ctx, cfg.handbook, template("AGENTS.md")))
        makes_marker = cfg.handbook == "AGENTS.md"
    elif cfg.source:
        # A config exists and names another handbook: editing it was rejected
        # (it is the user's file); a second handbook would split the method.
        steps.append((f"left alone {near[0]}; not creating {cfg.handbook} beside "
                      f'it: set handbook = "{near[0]}" in {cfg.source}', None))
    else:
        chosen["handbook"] = near[0]
        steps.append((f"using {near[0]} as the handbook (not creating "
                      f"{cfg.handbook})", None))
    for choice in detect(ctx, chosen.get("handbook", cfg.handbook)):
        if not cfg.source:
            chosen.update(choice.keys)
            steps.append((choice.line(), None))
        elif not cfg.given & set(choice.keys):  # the user's file: say, not edit
            steps.append((choice.line(f"not setting {{}} ({{}}): set "
                                      f"{'it' if len(choice.keys) < 2 else 'them'}"
                                      f" in {cfg.source}"), None))
    # The config as it will read, to
    # know which notes will speak for the files init would touch.
    new_cfg = config_mod.validate(chosen, "icm.toml", "icm.toml") if chosen \
        else cfg
    held = _held_budget(ctx, new_cfg, missing and not near)
    if held is not None:
        if not cfg.source:
            chosen.update(held.keys)
            steps.append((held.line(), None))
        elif "budget" not in cfg.given:
            steps.append((held.line(f"not setting {{}} ({{}}): set it in "
                                    f"{cfg.source}"), None))
    owner = owner_of(dataclasses.replace(ctx, config=new_cfg, _memo={}))
    journal_dir = new_cfg.journal_dir
    if "journal_dir" not in chosen:  # an adopted folder has its records
        steps.append(_new_file(ctx, f"{journal_dir}/.gitkeep", ""))
    steps += [
        _new_file(ctx, f"{new_cfg.queue_dir}/.gitkeep", ""),
        _makefile(ctx, owner),
    ]
    keys = "".join(f"{key} = {toml_value(value)}\n" for key, value in chosen.items())
    speaks = None if cfg.source else owner("pyproject.toml")
    last = _pyproject(ctx, keys, _found_instead(ctx, makes_marker), speaks)
    if last is not None:
        steps.append(last)
    if not cfg.source and ({"note_name", "journal_dir"} & set(chosen)
                           or ctx.notes()):
        steps.append((ADOPTED, None))  # a tree with notes has findings on day one
    with all_or_nothing(ctx) as changes:
        for _line, change in steps:
            if change is not None:
                change(changes)
    return [line for line, _ in steps]


def _held_budget(ctx: Context, cfg: Config, new_handbook: bool
                 ) -> Optional[Choice]:
    """``budget`` at today's cold-boot set, rounded up to ``BUDGET_STEP``,
    when that set is over the default: a repository adopted with a larger
    handbook is held where it stands (a ratchet), not failed on day one. The
    set is the one bootmap sums under the config init writes, with the
    handbook init would create counted at its template's size."""
    from icm import engine, registry

    default = Config.budget
    board = dataclasses.replace(ctx, config=cfg, cache_dir=None, _memo={})
    try:
        data = engine.run_one(board, registry.BY_NAME["bootmap"]).data
    except (UsageError, Unreadable):
        return None  # the check will say why
    size = int(data["bytes"]) + (len(template("AGENTS.md").encode("utf-8"))
                                 if new_handbook else 0)
    tokens = size // 4
    if tokens <= default:
        return None
    budget = -(-tokens // BUDGET_STEP) * BUDGET_STEP
    return Choice({"budget": budget},
                  f"the cold-boot set is about {tokens} tokens today, over the "
                  f"{default} a new repository starts with; held there "
                  "(rounded up to a hundred), so it cannot grow past that "
                  "(lower it as the handbook shrinks)")


# Names agents load from the folder they work in: a tree of them is the
# repository's notes.
LOCATION_LOADED = PER_TOOL
# Folders decision records are kept in (MADR's and adr-tools' homes).
RECORD_DIRS = ("docs/adr", "docs/decisions")
# A folder of these names anywhere holds records too (Portarium keeps 119 in
# docs/internal/adr): asked after RECORD_DIRS, the shallowest first.
RECORD_FOLDER_NAMES = frozenset(("adr", "adrs", "decisions", "decision-records",
                                 "architecture-decisions"))
# A record's name: a short prefix (``ADR-``), a number, maybe its title;
# or a date first (afterray's ``2026-08-20-bounded-shutdown.md``: its 2026
# was read as the record's number).
_RECORD = re.compile(r"([A-Za-z]{1,10}[-_])?([0-9]{3,})([-_][^/]+)?\.md")
_DATED = re.compile(r"[0-9]{4}([-_])[0-9]{2}\1[0-9]{2}([-_][^/]+)?\.md")
RECORD_PATTERN = "NNNN-*.md"
# init's last line on a tree it adopts (issue 24: "init offers it as the last
# step"): every trial's first commit was refused until a baseline held the
# findings nobody would fix that day
ADOPTED = ("then: icm check; what you will not fix now, icm baseline holds "
           "(new findings still fail, and the file only shrinks)")


def record_shape(name: str) -> Optional[str]:
    """The ``journal_pattern`` a record's file name follows (``0031-a.md``:
    ``NNNN-*.md``; ``ADR-0080.md``: ``ADR-NNNN.md``), or None. A prefix
    holding ``N`` is none: the pattern would read it as a number; a dated
    one is ``YYYY-MM-DD-*.md``."""
    d = _DATED.fullmatch(name)
    if d is not None:
        sep, rest = d.group(1), d.group(2)
        return f"YYYY{sep}MM{sep}DD{rest[0] + '*' if rest else ''}.md"
    m = _RECORD.fullmatch(name)
    if m is None or "N" in (m.group(1) or ""):
        return None
    rest = m.group(3)
    return (f"{m.group(1) or ''}{'N' * len(m.group(2))}"
            f"{rest[0] + '*' if rest else ''}.md")


def record_patterns(names: Sequence[str]) -> Tuple[str, ...]:
    """The shapes records in one folder follow, those with the title's place
    first, the commonest first; a shape held by one record of many is a
    stray, not a naming (the gate names it)."""
    counts = collections.Counter(filter(None, map(record_shape, names)))
    kept = [p for p, n in counts.items() if n > 1 or len(counts) == 1]
    kept.sort(key=lambda p: ("*" not in p, -counts[p], p))
    if kept and "*" not in kept[0]:  # the first names new entries: a title
        kept.insert(0, kept[0][:-len(".md")] + "-*.md")
    return tuple(kept)


def toml_value(value: Any) -> str:
    """A string, list of strings or table of strings as TOML (JSON's string
    escapes are TOML's)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}"
                                for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json.dumps(v) for v in value) + "]"
    return json.dumps(value)


@dataclasses.dataclass(frozen=True)
class Choice:
    """Keys init sets together (none: only a remark) and what it found."""

    keys: Dict[str, Any]
    reason: str

    def line(self, form: str = "{}: {}") -> str:
        assigned = ", ".join(f"{k} = {toml_value(v)}" for k, v in self.keys.items())
        return form.format(assigned, self.reason) if self.keys else self.reason


def detect(ctx: Context, handbook: str) -> List[Choice]:
    """The choices what the tree holds calls for, in the order said."""
    return [c for c in (*_detect_notes(ctx, handbook), _detect_records(ctx),
                        _detect_sites(ctx)) if c]


def _detect_sites(ctx: Context) -> Optional[Choice]:
    """Docs sites' page folders (``model.sites``): their links are routes."""
    from icm.model.sites import (
        config_reader,
        docusaurus_folders,
        folders_with_pages,
        mkdocs_folders,
    )

    read = config_reader(ctx)
    found = sorted(f for f in {*folders_with_pages(ctx.files),
                               *docusaurus_folders(ctx.files, read),
                               *mkdocs_folders(ctx.files, read)}
                   if _takes({"site_content": [f]}))
    if not found:
        return None
    noun = "docs site" if len(found) == 1 else "docs sites"
    return Choice({"site_content": list(found)},
                  f"{len(found)} {noun} found: links in their pages are the "
                  "site's routes")


def _takes(keys: Dict[str, Any]) -> bool:
    """Whether the config takes these keys: a folder named with a control
    character or a backslash is none it can name (init wrote one, refused
    its own ``icm.toml`` and set up nothing)."""
    try:
        config_mod.validate(keys, "icm.toml", "")
    except UsageError:
        return False
    return True


def _detect_notes(ctx: Context, handbook: str) -> Tuple[Optional[Choice], ...]:
    from icm.model.imports import stub_imports  # its reading of a stub
    from icm.model.notes import link_target

    default = Config.note_name[0]
    counts = {name: 0 for name in (*LOCATION_LOADED, default)}
    stubs, links = dict(counts), dict(counts)
    coded: Optional[Set[str]] = None
    for path in ctx.files:
        folder, _, name = path.rpartition("/")
        if folder and name == default:
            # A context.md beside no code is a document (llm-rp's one per
            # plan in docs/plans/NNN/: 8 findings, none a note's), not ICM's
            # note: only where the folder, or one below it, holds code.
            coded = _code_folders(ctx) if coded is None else coded
            if folder not in coded:
                continue
        if folder and name in counts:
            counts[name] += 1
            if name != default and link_target(ctx, path) != path:
                links[name] += 1  # a symlink: its target's words, not its own
            elif name != default and stub_imports(ctx, path):
                stubs[name] += 1
    names = [name for name, n in counts.items() if n]
    if not names or names == [default]:
        return ()
    # A root CLAUDE.md beside an AGENTS.md handbook is read at start, as the
    # handbook is: no folder's note.
    root = [name for name in names if name in LOCATION_LOADED
            and name != handbook and name in ctx.file_set]
    def kinds(name: str) -> str:
        said = [f"{n} {what}{'s' if n > 1 else ''}" for n, what in (
            (stubs[name], "import stub"), (links[name], "symlink")) if n]
        return f" ({', '.join(said)})" if said else ""

    parts = [f"{counts[name]} {'nested ' if i == 0 else ''}{name}{kinds(name)}"
             for i, name in enumerate(names)]
    found = f"{', '.join(parts)} found"
    if root:
        found += (f"; the root {' and '.join(root)} "
                  f"{'is' if len(root) == 1 else 'are'} read at start, as the "
                  "handbook is")
    names_choice = Choice({"note_name": names + [f"!{name}" for name in root]},
                          found)
    off = [name for name in names if name in LOCATION_LOADED]
    loaded = (f"{' and '.join(off)} {'is' if len(off) == 1 else 'are'} loaded "
              "from the folder an agent works in, not from the handbook's index")
    if default in names:
        return names_choice, Choice({"index": {name: "off" for name in off}},
                                    f"{loaded}; {default} notes stay indexed")
    return names_choice, Choice({"index": "off"}, loaded)


def _code_folders(ctx: Context) -> Set[str]:
    """Every folder holding a file other than markdown, at any depth below
    it (one pass over the files)."""
    found: Set[str] = set()
    for path in ctx.files:
        if path.lower().endswith(MARKDOWN_SUFFIXES):
            continue
        folder = path.rpartition("/")[0]
        while folder and folder not in found:
            found.add(folder)
            folder = folder.rpartition("/")[0]
    return found


def _record_folders(files: Iterable[str]) -> List[str]:
    """``RECORD_DIRS``, then every other folder named as records are
    (``RECORD_FOLDER_NAMES``), shallowest first: one pass over the files,
    each file's folders looked at up to ``RECORD_DEPTH`` above it (records
    nested by status hold no file directly)."""
    found: Set[str] = set()
    for folder in {f.rpartition("/")[0] for f in files}:
        for _ in range(RECORD_DEPTH + 1):
            if not folder or folder in found:
                break
            found.add(folder)
            folder = folder.rpartition("/")[0]
    named = sorted((d for d in found if d not in RECORD_DIRS
                    and d.rpartition("/")[2] in RECORD_FOLDER_NAMES),
                   key=lambda d: (d.count("/"), d))
    return [*RECORD_DIRS, *named]


def _records_in(ctx: Context, folder: str) -> List[str]:
    """The files below ``folder`` named as records, as deep as the journal
    reads them (``RECORD_DEPTH``), templates aside."""
    prefix = folder + "/"
    found = []
    for f in ctx.under(prefix):
        rest = f[len(prefix):]
        name = rest.rpartition("/")[2]
        if rest.count("/") <= RECORD_DEPTH and record_shape(name) is not None \
                and not is_template(name):
            found.append(f)
    return found


def _detect_records(ctx: Context) -> Optional[Choice]:
    """Decision records in a records folder as the journal, when the journal
    folder holds no entry: MADR (``Decision Outcome``) or adr-tools'
    (``Status`` and ``Consequences``) by their headings, in more than half
    of its records (taidon: 3 of 86 in adr-tools' sections, the rest in
    the folder's own form, were 238 missing slots); a folder of records in
    another form is a remark; one the config cannot name (``_takes``) is
    passed over. Records whose context is under ``Problem`` (afterray's)
    get it as the slot."""
    from icm import markdown

    prefix = ctx.config.journal_dir.rstrip("/") + "/"
    if any(f.startswith(prefix) and f.endswith(".md") for f in ctx.files):
        return None
    remark: Optional[Choice] = None
    for folder in _record_folders(ctx.files):
        records = _records_in(ctx, folder)
        if not records:
            continue
        patterns = record_patterns([f.rpartition("/")[2] for f in records])
        votes = {"madr": 0, "nygard": 0}
        problem = 0  # Nygard records whose context is a Problem section
        for record in records:
            try:
                titles = {s.title for s in markdown.sections(
                    ctx.read_markdown(record))}
            except Unreadable:
                continue
            if {"Decision Outcome", "Considered Options"} & titles:
                votes["madr"] += 1
            elif {"Status", "Consequences"} <= titles or {
                    "Decision", "Consequences"} <= titles and (
                    "Context" in titles or "Problem" in titles):
                # Nygard's sections; the status may be a "Status:" line
                votes["nygard"] += 1
                problem += "Problem" in titles and "Context" not in titles
        kind = max(votes, key=lambda k: votes[k])
        shown = {"madr": "MADR", "nygard": "adr-tools"}[kind]
        if votes[kind] * 2 <= len(records):
            owner = {"madr": "MADR's", "nygard": "adr-tools'"}[kind]
            held = f"{votes[kind]} in {owner}" if votes[kind] else \
                "none in MADR's or adr-tools'"  # not "0 in MADR's" (the audit)
            remark = remark or Choice({}, (
                f"{len(records)} records in {folder}, {held} sections: in a "
                "form of their own, not taken as the journal (journal_format "
                "reads MADR and adr-tools)"))
            continue
        count = f"{len(records)} {shown} records found in {folder}"
        nested = sorted({f[len(folder) + 1:].partition("/")[0] + "/"
                         for f in records if "/" in f[len(folder) + 1:]})
        if nested:
            count += f", in its folders {', '.join(nested)}"
        keys: Dict[str, Any] = {
            "journal_dir": folder, "journal_format": kind,
            "journal_pattern": patterns[0] if len(patterns) == 1
            else list(patterns)}
        if kind == "nygard" and problem * 2 > votes[kind]:
            keys["slots"] = [s if s != "Context" else "Problem"
                             for s in required("nygard")]
            count += " (the context under Problem)"
        if not _takes(keys):
            continue  # a folder no config can name: the next one
        return Choice(keys, count)
    return remark
