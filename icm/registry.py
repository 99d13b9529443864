"""The checks, as one tuple: each check's name, typed options, module and
help. The CLI's ``check`` command and its ``check-NAME`` aliases, the
Makefile include, the pre-commit hooks and the README's table are built
from ``ALL`` or tested against it; a new check is its module plus one line
here.

Kept light (no check is imported here): every start of the CLI builds its
commands from this module, and ``icm check-links`` loads only the links
check. A check's rule codes live in its module (``RULES``), next to the
code that emits them."""

from __future__ import annotations

import difflib
import importlib
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import (
    Any,
    Callable,
    Dict,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Type,
)

from icm import values
from icm.errors import UsageError
from icm.values import TOKENIZERS


@dataclass(frozen=True)
class Flag:
    """How one option appears on the command line. ``parse`` turns the
    string typed into the field's value (None: a boolean flag); it raises
    UsageError in icm's words."""

    names: Tuple[str, ...]
    help: str
    metavar: str = ""
    parse: Optional[Callable[[str], Any]] = None
    argument: bool = False  # positional (only the check-NAME alias takes it)


def flag(*names: str, help: str) -> Any:
    """A boolean option, off by default."""
    return field(default=False, metadata={"cli": Flag(names, help)})


def value(*names: str, help: str, metavar: str, parse: Callable[[str], Any],
          default: Any = None) -> Any:
    """An option taking a value, checked by ``parse``."""
    return field(default=default,
                 metadata={"cli": Flag(names, help, metavar, parse)})


def argument(metavar: str, help: str) -> Any:
    """Positional values (a tuple), for the check-NAME alias only."""
    return field(default=(), metadata={"cli": Flag((), help, metavar,
                                                   argument=True)})


def _positive(option: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        return values.number(option, text, 1) or 0
    return parse


def _whole(option: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        return values.number(option, text, 0) or 0
    return parse


def _tokenizer(text: str) -> str:
    return values.choice("--tokenizer", text, TOKENIZERS)


def _ref(text: str) -> str:
    return text


# -- each check's options: what its run() reads, typed --------------------


@dataclass(frozen=True)
class NoOptions:
    pass


def changed_since() -> Any:
    """The one ``--changed-since`` field, shared by the checks it narrows."""
    return value("--changed-since", help="Check only what changed since REF "
                 "(committed, staged or not; a pull request's base): those "
                 "files, and for links the files linking into them.",
                 metavar="REF", parse=_ref)


@dataclass(frozen=True)
class JournalOptions:
    changed_since: Optional[str] = changed_since()


@dataclass(frozen=True)
class DupesOptions:
    changed_since: Optional[str] = changed_since()


@dataclass(frozen=True)
class LinksOptions:
    fix: bool = flag("--fix", help="Write missing notes into the handbook's "
                     "index block first.")
    jobs: int = value("--jobs", help="Parser processes (0: one per core).",
                      metavar="N", parse=_whole("--jobs"), default=0)
    changed_since: Optional[str] = changed_since()


@dataclass(frozen=True)
class StaleOptions:
    strict: bool = flag("--strict", help="Treat unknown staleness (never "
                        "committed, shallow) as a failure.")
    allow_shallow: bool = flag("--allow-shallow", help="Run on a shallow clone; "
                               "notes at the boundary are reported unknown.")
    allow_partial: bool = flag("--allow-partial", help="Run on a partial clone; "
                               "missing objects are never fetched.")
    committed: bool = flag("--committed", help="Judge committed history only, "
                           "not staged or work-tree changes.")
    against: Optional[str] = value(
        "--against", "--base", help="The branch this one merges into: judge "
        "this branch's commits one by one on top of REF, as after 'Rebase and "
        "merge' (default: ICM_BASE).", metavar="REF", parse=_ref)
    # Set by the engine, not an option: run with other checks, a root
    # outside git is one info line instead of exit 2.
    history_optional: bool = False


@dataclass(frozen=True)
class BootmapOptions:
    budget: Optional[int] = value("--budget", help="Token budget of the "
                                  "cold-boot set (overrides the config).",
                                  metavar="N", parse=_positive("--budget"))
    verbose: bool = flag("--verbose", "-v", help="List the boot files and the "
                         "whole-tree cost.")
    tokenizer: str = value("--tokenizer", help="bytes/4, or an exact count "
                           "(cl100k, o200k: needs the tokens extra).",
                           metavar="[" + "|".join(TOKENIZERS) + "]",
                           parse=_tokenizer, default="bytes")


@dataclass(frozen=True)
class QueueOptions:
    against: Optional[str] = value(
        "--against", "--base", help="The branch this one merges into: compare "
        "the queue with REF before merging (default: ICM_BASE, GITHUB_BASE_REF, "
        "the upstream, local main ahead of origin/HEAD, origin/HEAD).",
        metavar="REF", parse=_ref)


@dataclass(frozen=True)
class AgentsOptions:
    dirs: Tuple[str, ...] = argument("DIR", help="Exported-session folders "
                                     "(default: agents_dirs, Agents/*).")


class Check(Protocol):
    """What a check module provides (``icm/checks/NAME.py``)."""

    NAME: str

    def run(self, ctx: Any, options: Any) -> Any: ...


@dataclass(frozen=True)
class Spec:
    """One check: ``icm check NAME`` and its ``icm ALIAS`` command."""

    name: str
    options: Type[Any]
    summary: str  # the command's first help line
    help: str = ""  # the rest of its help
    alias: str = ""  # default: check-NAME

    @property
    def command(self) -> str:
        return self.alias or f"check-{self.name}"

    @property
    def module(self) -> Check:
        """The check's module, imported on first use."""
        loaded: Check = importlib.import_module(f"icm.checks.{self.name}")
        return loaded


# Registry order: the order ``icm check`` runs and prints them.
ALL: Tuple[Spec, ...] = (
    Spec("journal", JournalOptions, "Check that every journal entry has its slots.",
         "Each slot is a level-2 heading with content under it."),
    Spec("links", LinksOptions, "Check relative links and the handbook's "
         "index of notes.", "Every relative link resolves; every note is "
         "linked from the handbook."),
    Spec("stale", StaleOptions, "Flag notes older than the code in their folder.",
         "A note is stale when its folder's code changed after it: in a "
         "commit, or staged or in the work tree (--committed: in history "
         "only). Lockfiles, snapshots, changelogs, a release's bump of "
         "a manifest's own version and a reformat that changes no token are no "
         "change of code."),
    Spec("bootmap", BootmapOptions, "List notes by size; sum the boot set "
         "against the budget.", alias="bootmap"),
    Spec("queue", QueueOptions, "Check queue item names and that no number is "
         "used twice.", "With --against REF (or a known base), also against "
         "REF before merging."),
    Spec("dupes", DupesOptions, "Find rules copied between notes, and copies that "
         "differ.", "One fact, one home: reads the handbook, every note and "
         "the journal's Invariant sections."),
    Spec("handoff", NoOptions, "Check handoff records: fields present, commit "
         "known.", "Every field is present and the commit the record was made "
         "at exists; an outdated record says how many commits old it is."),
    Spec("agents", AgentsOptions, "Check exported agent sessions in the AGENTS "
         "layout.", "Every file present, a Link Policy that starts at "
         "POSITIONS.md, and a POSITIONS.md whose entries follow the schema and "
         "whose superseded-by links resolve."),
    Spec("positions", NoOptions, "Check the positions block; warn on "
         "re-proposed designs.", "A queue item or newer entry proposing a "
         "Rejected alternative is a warning unless it says Revives: <entry>."),
)

BY_NAME: Dict[str, Spec] = {spec.name: spec for spec in ALL}
NAMES: Tuple[str, ...] = tuple(BY_NAME)


def cli_fields(options: Type[Any]) -> Tuple[Tuple[Field[Any], Flag], ...]:
    """The fields of an options class that are command-line options."""
    return tuple((f, f.metadata["cli"]) for f in fields(options)
                 if "cli" in f.metadata)


def select(names: Sequence[str], skip: Sequence[str] = ()) -> Tuple[Spec, ...]:
    """The checks ``names`` picks (all when empty), minus ``skip``, in
    registry order; UsageError naming an unknown check."""
    for name in (*names, *skip):
        if name not in BY_NAME:
            near = difflib.get_close_matches(name, NAMES, n=1)
            hint = f"did you mean '{near[0]}'?" if near else \
                "checks: " + ", ".join(NAMES)
            raise UsageError(f"unknown check {values.quote(name)} ({hint})")
    chosen = set(names or NAMES) - set(skip)
    return tuple(spec for spec in ALL if spec.name in chosen)


def options_for(spec: Spec, given: Mapping[str, Any], **extra: Any) -> Any:
    """``spec``'s options from the values the command line gave (by field
    name; a value for another check's field is not this check's)."""
    known = {f.name for f in fields(spec.options)}
    values = {k: v for k, v in {**given, **extra}.items() if k in known}
    return spec.options(**values)


def default(f: "Field[Any]") -> Any:
    return f.default if f.default is not MISSING else None


# -- rule codes: which a run reports (--select, --ignore, select, ignore) --


def matches(selector: str, check: str, code: str) -> bool:
    """Whether ``selector`` names ``check/code``: the check itself
    (``links``), or the one code (``links/missing-anchor``)."""
    return selector == check or selector == f"{check}/{code}"


def _level(selectors: Sequence[str], check: str, code: str) -> int:
    """How closely ``selectors`` name ``check/code``: 2 the code, 1 its
    check, 0 not at all."""
    best = 0
    for s in selectors:
        if s == f"{check}/{code}":
            return 2
        if s == check:
            best = 1
    return best


def selector(text: str, where: str) -> str:
    """A selector as typed, checked against the checks' names (the code
    part is checked where the check's module is loaded: ``Selection.check``);
    UsageError naming ``where`` (``--select``, a config key) otherwise."""
    name, _, code = text.partition("/")
    if name in BY_NAME and (not _ or code):
        return text
    near = difflib.get_close_matches(name, NAMES, n=1)
    hint = f"did you mean '{near[0]}'?" if near and name not in BY_NAME else \
        "a check (links) or CHECK/CODE (links/missing-anchor); checks: " \
        + ", ".join(NAMES)
    raise UsageError(f"{where}: no check or code {values.quote(text)} ({hint})")


@dataclass(frozen=True)
class Selection:
    """Which rule codes a run reports, in two layers as ruff has them: the
    config's ``select`` (default: every code) minus its ``ignore``, then the
    command line's: ``--select`` starts again from what it names, and
    ``--ignore`` takes away. Within a layer the closer name wins
    (``select = ["links"]`` with ``ignore = ["links/missing-anchor"]``), and
    an ignore wins a tie."""

    layers: Tuple[Tuple[Tuple[str, ...], Tuple[str, ...]], ...] = ()

    @classmethod
    def of(cls, config: Tuple[Tuple[str, ...], Tuple[str, ...]],
           given: Tuple[Sequence[str], Sequence[str]]) -> "Selection":
        """From the config's (select, ignore) and the command line's, each
        value split at commas too (``--select links,dupes``)."""
        def split(items: Sequence[str]) -> Tuple[str, ...]:
            return tuple(part.strip() for item in items
                         for part in item.split(",") if part.strip())

        cli = (tuple(selector(s, "--select") for s in split(given[0])),
               tuple(selector(s, "--ignore") for s in split(given[1])))
        layers = tuple(layer for layer in (config, cli) if layer[0] or layer[1])
        return cls(layers)

    def wants(self, check: str, code: str) -> bool:
        on = True
        for select, ignore in self.layers:
            if select:
                on = _level(select, check, code) > _level(ignore, check, code)
            elif _level(ignore, check, code):
                on = False
        return on

    def runs(self, check: str) -> bool:
        """Whether any code of ``check`` can be wanted (without loading it:
        a code no selector names, and each one a selector names)."""
        named = {s.partition("/")[2] for layer in self.layers for side in layer
                 for s in side if s.partition("/")[0] == check}
        return any(self.wants(check, code) for code in named | {""})

    def check(self, specs: Sequence[Spec]) -> None:
        """UsageError for a ``CHECK/CODE`` whose check runs and has no such
        code (its module is loaded anyway)."""
        for select, ignore in self.layers:
            for s in (*select, *ignore):
                name, _, code = s.partition("/")
                spec = BY_NAME[name]
                if code and spec in specs:
                    known = [c for c, _rule in spec.module.RULES]  # type: ignore[attr-defined]
                    if code not in known:
                        near = difflib.get_close_matches(code, known, n=1)
                        hint = f"did you mean '{name}/{near[0]}'?" if near \
                            else f"{name}'s codes: " + ", ".join(known)
                        raise UsageError(f"no code {values.quote(s)} ({hint})")
