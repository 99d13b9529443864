"""Load ``icm.toml`` or ``[tool.icm]`` from ``pyproject.toml``, strictly.

``icm.toml`` wins when both exist (as ``ruff.toml`` beats ``pyproject.toml``):
a dedicated file is the more deliberate statement. Every key is validated; an
unknown key or a wrong type is an error naming the file and the key.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from icm import paths, registry
from icm.errors import UsageError
from icm.escape import inert

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

CONFIG_FILES = ("icm.toml", "pyproject.toml")

DEFAULT_SLOTS = ("Decision", "Rejected alternative", "Invariant", "Verify command")
DEFAULT_PLACEHOLDERS = ("looks good", "TBD", "TODO", "n/a", "none", "-",
                        "same as above")
# Files a tool writes, not a person: a commit of only these moves no code
# for check-stale. Dependency lockfiles, then test snapshots (docs/checks.md
# names the tool of each), then changelogs, which say what code did.
DEFAULT_STALE_IGNORE = (
    "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock",
    "bun.lock", "bun.lockb", "deno.lock", "uv.lock", "poetry.lock",
    "Pipfile.lock", "pdm.lock", "pixi.lock", "Cargo.lock", "go.sum",
    "go.work.sum", "composer.lock", "Gemfile.lock", "flake.lock", "mix.lock",
    "pubspec.lock", "Podfile.lock", "Package.resolved", "packages.lock.json",
    "gradle.lockfile",
    "**/__snapshots__/**", "*.snap", "*.ambr", "**/__Snapshots__/**",
    "*.verified.*", "**/__image_snapshots__/**", "**/*-snapshots/**",
    "**/cypress/snapshots/**", "**/backstop_data/bitmaps_reference/**",
    # changelogs in any format (a ``.md`` one is prose already)
    "CHANGELOG", "CHANGELOG.*", "CHANGES", "CHANGES.*", "HISTORY", "HISTORY.*",
    "NEWS", "NEWS.*",
    # what a file manager leaves in a folder (round 11: a folder's only
    # change was a deleted ``.DS_Store``)
    ".DS_Store", "Thumbs.db", "desktop.ini",
)
# Test files by each ecosystem's naming (Go, pytest, Jest/Vitest/Mocha,
# Playwright, Cypress, RSpec, ExUnit, Dart, JUnit, xUnit, XCTest, PHPUnit,
# GoogleTest) and test folders: with ``stale_tests = "ignore"`` a change to
# these alone moves no note's code, unless the note's code is all tests.
DEFAULT_STALE_TESTS = (
    "*_test.go", "test_*.py", "*_test.py", "conftest.py", "*.test.*",
    "*.spec.*", "*.e2e-spec.*", "*.cy.*", "*_spec.rb", "*_test.rb",
    "*_test.exs", "*_test.dart", "*Test.java", "*Tests.java", "*Test.kt",
    "*Tests.kt", "*Test.php", "*Tests.cs", "*Test.cs", "*Tests.swift",
    "*_test.cc", "*_test.cpp", "*_unittest.cc", "tests/", "test/", "Tests/",
    "__tests__/", "__mocks__/", "testdata/", "fixtures/", "__fixtures__/",
    "e2e/", "*.Tests/", "*.UnitTests/", "*.IntegrationTests/",
)

# The packages in folders of other people's code (GitHub linguist's
# vendored folders, the unambiguous ones): not the repository's own prose; a
# file in the folder itself is (``vendor/AGENTS.md`` on why it vendors). A
# ``linguist-vendored`` or ``linguist-generated`` attribute adds or removes.
DEFAULT_VENDORED = tuple(f"**/{d}/*/**" for d in (
    "vendor", "vendors", "Vendor", "third_party", "third-party", "thirdparty",
    "ThirdParty", "3rdparty", "3rd_party", "3rd-party", "node_modules",
    "bower_components"))


@dataclass(frozen=True)
class Config:
    handbook: str = "AGENTS.md"
    # names or globs; "!" excludes (``NoteNames`` in icm/context.py)
    note_name: Tuple[str, ...] = ("context.md",)
    # (note_name entry, "required" | "off"); "" is every note
    index: Tuple[Tuple[str, str], ...] = (("", "required"),)
    journal_dir: str = "journal"
    queue_dir: str = "queue"
    slots: Tuple[str, ...] = DEFAULT_SLOTS
    journal_exempt: Tuple[str, ...] = ()
    budget: int = 1600
    boot: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    links_ignore: Tuple[str, ...] = ()
    ignored_targets: str = "info"  # "error": a link into git-ignored paths fails
    vendored: Tuple[str, ...] = DEFAULT_VENDORED
    site_content: Tuple[str, ...] = ()  # docs sites' page folders (model/sites)
    stale_scope: str = "folder"
    stale_history: str = "first-parent"
    stale_ignore: Tuple[str, ...] = DEFAULT_STALE_IGNORE
    stale_ignore_extend: Tuple[str, ...] = ()
    stale_tests: str = "ignore"
    max_file_bytes: int = 10_000_000
    queue_refs: Tuple[str, ...] = ()
    agents_dirs: Tuple[str, ...] = ("Agents/*",)
    handoff_dir: str = "handoff"
    handoff_budget: int = 1500
    verify_slot: str = ""  # empty: the fourth slot
    verify_timeout: int = 60
    verify_skip: Tuple[Tuple[str, str], ...] = ()  # (entry path, reason)
    placeholders: Tuple[str, ...] = DEFAULT_PLACEHOLDERS
    dupes_min_words: int = 6
    dupes_similarity: float = 0.75
    dupes_copies: str = "warning"
    dupes_diverged: str = "warning"  # "error": diverged copies fail (unmeasured)
    dupes_ignore: Tuple[str, ...] = ()
    dupes_restated: str = "off"  # "info": report rules reworded in a second home
    dupes_siblings: str = "off"  # pairs of notes never read together: "info", "warning"
    positions_file: str = ""  # empty: no positions file is kept
    reinvent_similarity: float = 0.25  # bench/eval_heldout.py (tuning part)
    similarity: str = "lexical"  # "semantic": the icm[semantic] extra's model
    reinvent_semantic: float = 0.35  # the semantic score's (tuning part)
    journal_format: str = "icm"  # or "madr", "nygard" (adr-tools)
    # empty: the format's (model.journal.PATTERNS); a tuple: several names
    journal_pattern: Union[str, Tuple[str, ...]] = ""
    select: Tuple[str, ...] = ()  # rule codes reported (empty: every code)
    ignore: Tuple[str, ...] = ()  # rule codes not reported
    positions_budget: int = 0  # tokens of the positions view; 0: not bounded
    brief_budget: int = 0  # tokens of ``icm brief``; 0: ``budget`` plus a quarter
    source: str = ""  # where it was read from, for messages; not a key
    given: FrozenSet[str] = frozenset()  # the keys the file set; not a key

    @property
    def location(self) -> str:
        """The file (and table) for messages: ``pyproject.toml [tool.icm]``
        or ``icm.toml``."""
        pyproject = self.source == "pyproject.toml"
        return location(self.source, "[tool.icm]" if pyproject else self.source)

    @property
    def note_label(self) -> str:
        """``note_name`` for messages: its entries that name notes."""
        return ", ".join(n for n in self.note_name if not n.startswith("!"))


INDEX_MODES = ("required", "off")

# key -> (kind, allowed values or None)
_SCHEMA: Dict[str, Tuple[str, Optional[Tuple[str, ...]]]] = {
    "handbook": ("path", None),
    "note_name": ("names", None),
    "index": ("index", INDEX_MODES),
    "journal_dir": ("path", None),
    "queue_dir": ("path", None),
    "slots": ("list", None),
    "journal_exempt": ("paths", None),
    "budget": ("int", None),
    "boot": ("globs", None),
    "exclude": ("globs", None),
    "links_ignore": ("destinations", None),
    "ignored_targets": ("enum", ("info", "error")),
    "vendored": ("globs", None),
    "site_content": ("paths", None),
    "stale_scope": ("enum", ("folder", "subtree")),
    "stale_history": ("enum", ("first-parent", "all")),
    "stale_ignore": ("globs", None),
    "stale_ignore_extend": ("globs", None),
    "stale_tests": ("enum", ("code", "ignore")),
    "max_file_bytes": ("int", None),
    "queue_refs": ("list", None),
    "agents_dirs": ("globs", None),
    "handoff_dir": ("path", None),
    "handoff_budget": ("int", None),
    "verify_slot": ("string", None),
    "verify_timeout": ("int", None),
    "verify_skip": ("skip", None),
    "placeholders": ("list", None),
    "dupes_min_words": ("int", None),
    "dupes_similarity": ("fraction", None),
    "dupes_copies": ("enum", ("warning", "error")),
    "dupes_diverged": ("enum", ("warning", "error")),
    "dupes_ignore": ("globs", None),
    "dupes_restated": ("enum", ("off", "info")),
    "dupes_siblings": ("enum", ("off", "info", "warning")),
    "positions_file": ("path", None),
    "reinvent_similarity": ("fraction", None),
    "similarity": ("enum", ("lexical", "semantic")),
    "reinvent_semantic": ("fraction", None),
    "journal_format": ("enum", ("icm", "madr", "nygard")),
    "journal_pattern": ("pattern", None),
    "select": ("codes", None),
    "ignore": ("codes", None),
    "positions_budget": ("int", None),
    "brief_budget": ("int", None),
}
KNOWN_KEYS = tuple(_SCHEMA)
assert set(KNOWN_KEYS) == {f.name for f in fields(Config)} - {"source", "given"}
# Kinds naming files or folders of the root: ``paths.confine`` holds every
# value inside it, or the config is refused. ``destinations`` (links_ignore)
# are link text, never opened: ignoring ``../sibling/**`` links is a use.
PATH_KINDS = ("path", "name", "names", "paths", "globs", "skip")
PATH_KEYS = tuple(k for k, (kind, _) in _SCHEMA.items() if kind in PATH_KINDS)
# Keys naming a folder icm lists or writes into: a file there is a mistake.
FOLDER_KEYS = ("journal_dir", "queue_dir", "handoff_dir")


def find_config(root: Path) -> Optional[Path]:
    """Return the config file that applies at ``root``, if any."""
    icm_toml = root / "icm.toml"
    if os.path.lexists(icm_toml):
        return icm_toml
    pyproject = root / "pyproject.toml"
    if os.path.lexists(pyproject) and _has_tool_icm(root):
        return pyproject
    return None


def _has_tool_icm(root: Path) -> bool:
    """Whether ``pyproject.toml`` configures icm. A file that cannot be read
    or parsed counts when it mentions icm at all, so ``load`` reports it."""
    try:
        text = read_text(root, "pyproject.toml")
    except UsageError:
        return False
    if "icm" not in text:
        return False
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True
    return tool_icm(doc) is not None


def tool_icm(doc: Mapping[str, Any]) -> Optional[Any]:
    """The ``[tool.icm]`` value of a parsed pyproject.toml, however spelled
    (``[ tool.icm ]``, dotted keys); None when absent; UsageError when
    ``tool`` is not a table."""
    tool = doc.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise UsageError(f"pyproject.toml: 'tool' must be a table, not "
                         f"{_describe(tool)}")
    return tool.get("icm")


def read_text(root: Path, rel: str) -> str:
    """A configuration file's text, read through ``paths`` (inside the root,
    a regular file) and decoded; UsageError naming the file otherwise."""
    try:
        fd = paths.open_regular(paths.resolve(root, rel))
        with open(fd, "rb") as fh:
            raw = fh.read()
    except paths.Refused as exc:
        raise UsageError(f"{rel}: cannot read: {exc.reason}") from None
    except OSError as exc:
        raise UsageError(f"{rel}: cannot read: {exc.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{rel}: not valid UTF-8") from None


def parse(root: Path, rel: str) -> Dict[str, Any]:
    """A TOML file of the root, parsed; UsageError naming it otherwise. Its
    cost is capped first: tomllib is quadratic in long dotted keys."""
    text = read_text(root, rel)
    _check_cost(rel, text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(toml_error(rel, text, exc)) from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise UsageError(f"{rel}: invalid TOML: nested too deeply") from None


_AT_LINE = re.compile(r"(.*) \((?:at line ([0-9]+), column [0-9]+|at end of "
                      r"document)\)", re.DOTALL)
_SHOWN_KEY = 60  # characters of a key quoted back


def toml_error(rel: str, text: str, exc: Exception) -> str:
    """tomllib's complaint, naming the file; a key set twice (tomllib says
    only "Cannot overwrite a value") is named from its line, found in one
    linear pass and escaped, as the line may hold anything."""
    message = str(exc)
    m = _AT_LINE.fullmatch(message)
    if not m or m.group(1) != "Cannot overwrite a value":
        return f"{rel}: invalid TOML: {message}"
    number = int(m.group(2)) if m.group(2) else text.count("\n") + 1
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if not start:
            return f"{rel}: invalid TOML: {message}"
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    key = line.partition("=")[0].strip() if "=" in line else ""
    if not key:  # a [table] header over a key already set
        return f"{rel}: invalid TOML at line {number}: a value is set twice"
    if len(key) > _SHOWN_KEY:
        key = key[:_SHOWN_KEY] + "..."
    return f"{rel}: invalid TOML at line {number}: key '{inert(key)}' given twice"


def load(root: Path) -> Config:
    """Read and validate the configuration that applies at ``root``."""
    path = find_config(root)
    if path is None:
        return Config()
    name = path.name
    doc = parse(root, name)
    if name == "pyproject.toml":
        table = tool_icm(doc) or {}
        where = "[tool.icm]"
    else:
        table = doc
        where = "icm.toml"
        tool = doc.get("tool")
        if isinstance(tool, dict) and "icm" in tool:
            raise UsageError("icm.toml: has a [tool.icm] table; keys go at the top "
                             "level of icm.toml (delete the [tool.icm] line)")
    if not isinstance(table, dict):
        raise UsageError(f"{name}: {where} must be a table")
    cfg = validate(table, name, where)
    for key in FOLDER_KEYS:
        if key in cfg.given and _is_file(root, getattr(cfg, key)):
            raise UsageError(f"{cfg.location}: key '{key}' must name a folder, "
                             f"got '{getattr(cfg, key)}' (a file)")
    return cfg


def _is_file(root: Path, rel: str) -> bool:
    """Whether ``rel`` (resolved inside the root) is a regular file; a path
    the writers would refuse is theirs to report."""
    try:
        return os.path.isfile(paths.resolve(root, rel))
    except paths.Refused:
        return False


# tomllib's time grows with the square of a dotted key's length
# (``x.x.x...``: 8,000 parts take 0.65 s, 500,000 would take an hour); dots
# per line squared bounds it, with a cap no real config comes near (about
# a second of parsing).
MAX_DOT_COST = 100_000_000


def dotted_cost(text: str, cap: int = MAX_DOT_COST) -> int:
    """The line where tomllib's cost (quadratic in a line's dotted key
    parts) passes ``cap``; 0 when it stays under."""
    cost = 0
    for number, line in enumerate(text.split("\n"), 1):
        dots = line.count(".")
        cost += dots * dots
        if cost > cap:
            return number
    return 0


def _check_cost(name: str, text: str) -> None:
    number = dotted_cost(text)
    if number:
        raise UsageError(f"{name}: line {number}: too many dotted key parts "
                         "for a config file; not parsed")


def validate(table: Mapping[str, Any], name: str, where: str) -> Config:
    """Turn a parsed table into a Config, or raise UsageError naming the key."""
    values: Dict[str, Any] = {}
    at = location(name, where)
    for key, value in table.items():
        if key not in _SCHEMA:
            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UsageError(f"{at}: unknown key '{key}'{hint}")
        kind, allowed = _SCHEMA[key]
        values[key] = _check_value(key, value, kind, allowed, name, where)
        for text in _names(key, values[key]):
            if _CONTROL.search(text):
                raise UsageError(f"{at}: key '{key}' must hold no control "
                                 f"character, got {text!r}")
    cfg = Config(source=name, given=frozenset(values), **values)
    # In MADR and adr-tools journals the verify section is optional unless
    # slots requires it: verify_slot may name a heading slots does not.
    if cfg.verify_slot and cfg.verify_slot not in cfg.slots \
            and cfg.journal_format == "icm":
        raise UsageError(f"{at}: key 'verify_slot' must name one of the "
                         f"slots, got '{cfg.verify_slot}'")
    _check_index(cfg, at)
    if cfg.queue_dir == cfg.journal_dir:
        # Each folder's files would be read as the other's kind.
        key, other = (("journal_dir", "queue_dir") if "queue_dir" not in values
                      else ("queue_dir", "journal_dir"))
        raise UsageError(f"{at}: key '{key}' must name a folder other than "
                         f"{other}'s, got '{cfg.queue_dir}'")
    return cfg


# What no path, glob, ref or heading holds: the OS refuses a NUL in a path
# with an exception (a crash), git a control character in a ref, and a slot
# is a one-line heading, so each is a mistake in the config.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_FREE_TEXT = ("placeholders",)  # compared with prose: any text may be meant


def _names(key: str, value: Any) -> Tuple[str, ...]:
    """The paths, globs, refs or headings a checked value holds (a skip's
    paths, not its reasons)."""
    if key in _FREE_TEXT:
        return ()
    if isinstance(value, str):
        return (value,)
    if key == "verify_skip":
        return tuple(path for path, _reason in value)
    if key == "index":
        return tuple(entry for entry, _mode in value)
    return value if isinstance(value, tuple) else ()


def location(name: str, where: str) -> str:
    """"pyproject.toml [tool.icm]", or "icm.toml" (not the name twice)."""
    return name if where == name else f"{name} {where}"


def _check_slots(value: Any, bad: Any, at: str) -> None:
    """Slots are headings an entry must hold: at least one, each named once
    (a repeated slot cannot be met: one heading per slot)."""
    if not value:
        raise bad("a non-empty list of strings")
    seen = set()
    for slot in value:
        if not slot.strip():
            raise bad("a list of non-empty slot names", right_type=True)
        if slot in seen:
            raise UsageError(f"{at}: key 'slots' names {slot!r} twice")
        seen.add(slot)


def _check_value(
    key: str,
    value: Any,
    kind: str,
    allowed: Optional[Tuple[str, ...]],
    name: str,
    where: str,
) -> Any:
    def bad(expected: str, right_type: bool = False) -> UsageError:
        # A value of the wrong type is described ("got a string ('x')"); one
        # of the right type but out of range is shown as it is ("got -5").
        got = repr(value) if right_type else _describe(value)
        return UsageError(f"{location(name, where)}: key '{key}' must be "
                          f"{expected}, got {got}")

    if kind in ("path", "name"):
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string", isinstance(value, str))
        if kind == "name" and ("/" in value or "\\" in value):
            raise bad("a file name without a folder", right_type=True)
        try:
            norm = paths.confine(value)
        except paths.Refused as exc:
            raise bad("a path outside the git directory" if "git" in exc.reason
                      else "a path inside the repository", right_type=True) from None
        if not norm:
            raise bad("a path below the repository root", right_type=True)
        return norm
    if kind == "string":
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string")
        return value
    if kind == "skip":
        return _skip_list(value, bad, name, where)
    if kind == "names":
        return _note_names(value, bad, location(name, where))
    if kind == "index":
        return _index(value, bad)
    if kind == "pattern":
        return _pattern(value, bad)
    if kind == "codes":  # CHECK or CHECK/CODE, as --select takes them
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
        return tuple(registry.selector(v, f"{location(name, where)}: key "
                                          f"'{key}'") for v in value)
    if kind in ("list", "paths", "globs", "destinations"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
        if key == "slots":
            _check_slots(value, bad, location(name, where))
        if kind == "paths":  # compared with the file set: the normal form
            return tuple(_confined(key, v, location(name, where)) for v in value)
        if kind == "globs":  # matched as written (normpath would fold ``**/..``)
            for glob in value:
                _confined(key, glob, location(name, where), glob=True)
        return tuple(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        if value <= 0:
            raise bad("a positive integer", right_type=True)
        return value
    if kind == "fraction":
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0 < value <= 1:
            raise bad("a number above 0 and at most 1")
        return float(value)
    if kind == "enum":
        assert allowed is not None
        if value not in allowed:
            options = " or ".join(f"'{a}'" for a in allowed)
            raise bad(options, isinstance(value, str))
        return value
    raise AssertionError(kind)  # pragma: no cover


def _note_names(value: Any, bad: Any, at: str) -> Tuple[str, ...]:
    """``note_name``: a name, or a list of names and globs (``!`` before one
    excludes what it matches), each held inside the root like ``exclude``."""
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list) or not entries \
            or not all(isinstance(v, str) for v in entries):
        raise bad("a file name, or a non-empty list of names and globs")
    for entry in entries:
        pattern = entry[1:] if entry.startswith("!") else entry
        try:
            if not pattern.strip() or pattern.strip() != pattern:
                raise paths.Refused("empty")
            paths.confine(pattern)
        except paths.Refused:
            raise UsageError(f"{at}: key 'note_name' must be names or globs of "
                             "files inside the repository, outside .git, not "
                             f"{entry!r}") from None
    if all(entry.startswith("!") for entry in entries):
        raise bad("a list naming at least one note (not only '!' entries)",
                  right_type=True)
    return tuple(entries)


def _index(value: Any, bad: Any) -> Tuple[Tuple[str, str], ...]:
    """``index``: one mode for every note, or a table of note_name entry =
    mode (entries left out are required)."""
    expected = ("'required' or 'off', or a table of note_name entry = "
                "'required' or 'off'")
    if isinstance(value, str):
        if value not in INDEX_MODES:
            raise bad(expected, right_type=True)
        return (("", value),)
    if not isinstance(value, dict) or not all(
            isinstance(v, str) and v in INDEX_MODES for v in value.values()):
        raise bad(expected)
    return tuple(value.items())


def _check_index(cfg: Config, at: str) -> None:
    """A table's keys are note_name entries (a typo would quietly keep the
    rule on for the notes it meant)."""
    for entry, _mode in cfg.index:
        if entry and (entry not in cfg.note_name or entry.startswith("!")):
            raise UsageError(f"{at}: key 'index' names {entry!r}, which is not "
                             f"an entry of note_name ({cfg.note_label})")

def _pattern(value: Any, bad: Any) -> Any:
    """``journal_pattern``: a file name ending ``.md`` with a place for the
    title (``slug``, ``title`` or ``*``), or a list of them (a folder that
    changed its naming: ``["NNNN-*.md", "ADR-NNNN.md"]``): the first names
    new entries, so it needs the title's place; the others need a number or
    a date. Its tokens are ``model.journal.NamePattern``'s."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        first, *rest = value
        for other in rest:
            if "/" in other or "\\" in other or not other.lower().endswith(".md") \
                    or not any(t in other for t in ("N", "YYYY", "slug", "title",
                                                    "*")):
                raise bad("file names ending .md; after the first, each with a "
                          "number (NNNN), a date or the title's place",
                          right_type=True)
        return (_pattern(first, bad), *rest) if rest else _pattern(first, bad)
    if not isinstance(value, str) or not value.strip():
        raise bad("a non-empty string, or a list of them", isinstance(value, str))
    if "/" in value or "\\" in value or not value.lower().endswith(".md") \
            or not any(t in value for t in ("slug", "title", "*")):
        raise bad("a file name ending .md, with slug, title or * where the "
                  "title goes (e.g. 'NNNN-title.md')", right_type=True)
    return value


def _skip_list(value: Any, bad: Any, name: str, where: str
               ) -> Tuple[Tuple[str, str], ...]:
    """``verify_skip``: a table of path -> reason, or a list of
    ``{path, reason}`` tables; a reason is required."""
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
        if any(set(v) != {"path", "reason"} for v in value):
            raise bad("a list of {path, reason} tables")
        pairs = [(v["path"], v["reason"]) for v in value]
    else:
        raise bad("a table of path = reason, or a list of {path, reason} tables")
    out = []
    for path, reason in pairs:
        if not isinstance(path, str) or not isinstance(reason, str) \
                or not path.strip() or not reason.strip():
            raise bad("paths with a non-empty reason each")
        out.append((_confined("verify_skip", path, location(name, where)),
                    reason.strip()))
    return tuple(out)


def _confined(key: str, value: str, at: str, glob: bool = False) -> str:
    """One path (or glob) of a list-valued key in its normal form; UsageError
    naming the key when it leaves the root, names ``.git`` or (a path, not a
    glob) the root itself."""
    try:
        norm = paths.confine(value)
    except paths.Refused:
        pass
    else:
        if norm or glob:
            return norm
    raise UsageError(f"{at}: key '{key}' must hold paths inside the repository, "
                     f"outside .git, not {value!r}")


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a float ({value})"
    if isinstance(value, list):
        odd = [v for v in value if not isinstance(v, str)]
        if odd:
            return f"a list holding {_describe(odd[0])}"
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
