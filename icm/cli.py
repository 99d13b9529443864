"""The command line: one typer app. ``icm check [CHECK...]`` and its
``check-NAME`` aliases are built from ``icm.registry``; the writers follow.
A command parses, calls, renders and exits; heavy modules load inside
commands, so ``icm --help`` imports neither gitpython nor markdown-it."""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import typer

from icm import registry, usage, values
from icm.errors import UsageError
from icm.output import Progress
from icm.output import emit as _emit
from icm.registry import Spec

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Keep a repository's agent-facing context healthy.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from icm.output import version

        raise typer.Exit(_guard(False, version))


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version,
                                       is_eager=True, help="Print the version.")
          ) -> None:
    """Keep a repository's agent-facing context healthy."""


# Values are plain strings checked by icm.usage: typer's own validation
# words its errors in its validation library's terms.
RootOpt = typer.Option(None, "--root", metavar="DIR", help="Repository root "
                       "(default: found from the working directory).")
FormatOpt = typer.Option("text", "--format", metavar=values.FORMAT_METAVAR,
                         help="Output format.")
# Commands that print a document, not findings: no github or sarif form.
DocFormatOpt = typer.Option("text", "--format", metavar="[text|json]",
                            help="Output format.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="Print problems and the "
                        "summary only: no ok lines, no bootmap table within budget.")
DebugOpt = typer.Option(False, "--debug", help="Show tracebacks of internal errors.")


def _color(stream: Any) -> bool:
    return (not os.environ.get("NO_COLOR")) and hasattr(stream, "isatty") \
        and stream.isatty()


def _guard(debug: bool, body: Callable[[], int]) -> int:
    """Turn every failure into one line on stderr and an exit code."""
    try:
        return body()
    except UsageError as exc:
        from icm.report import one_line

        typer.echo(f"icm: {one_line(str(exc))}", err=True)
        return 2
    except KeyboardInterrupt:
        return 130  # main() says it, for this and every other interrupt
    except Exception as exc:  # noqa: BLE001 - the one place that catches all
        if debug:
            traceback.print_exc()
        else:
            from icm.report import one_line

            typer.echo(f"icm: internal error: {type(exc).__name__}: "
                       f"{one_line(str(exc))} (rerun with --debug for the "
                       "traceback)", err=True)
        return 2


def _print(text: str) -> int:
    _emit(text)
    return 0


def _context(root: Optional[Path], progress: Any = None) -> Any:
    from icm import config, context

    base = Path(root) if root is not None else context.find_root(_cwd())
    if root is not None and not base.is_dir():
        raise UsageError(f"--root {root}: not a folder")
    cfg = config.load(base)
    ctx = context.build(base.resolve(), cfg, progress=progress)
    for folder in ctx.unopened:  # its files are in no check: say so, once
        from icm.report import one_line

        typer.echo(f"icm: warning: cannot list {one_line(folder)}; its files are "
                   "not checked", err=True)
    return ctx


def _cwd() -> Path:
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise UsageError("the working directory no longer exists; cd into the "
                         "repository, or pass --root") from None


# -- icm check [CHECK...] and its aliases, from the registry ---------------


def _run_checks(specs: Sequence[Spec], given: Dict[str, Any], root: Optional[Path],
                fmt: str, quiet: bool, select: Optional[List[str]] = None,
                ignore: Optional[List[str]] = None) -> int:
    """Run ``specs`` and render them; more than one ends with the summary.
    Only the codes selected are reported; suppressed and baselined findings
    are counted, not shown (``icm.baseline``)."""
    from icm import baseline, engine, report

    values.choice("--format", fmt, values.FORMATS)
    parsed = _parsed(specs, given)
    if parsed.get("fix"):
        _fix_index(root, fmt)
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        ctx = _context(root, progress)
        chosen = registry.Selection.of((ctx.config.select, ctx.config.ignore),
                                       (select or (), ignore or ()))
        run = [spec for spec in specs if chosen.runs(spec.name)]
        if not run:  # a run that reports nothing would pass: a mistake
            raise UsageError("no code left to report: select and ignore (the "
                             "config's, --select, --ignore) leave out every "
                             "code of " + ", ".join(s.name for s in specs))
        chosen.check(run)
        recorded = baseline.load(ctx)  # a bad file is exit 2 before any work
        reports, held = baseline.judge(ctx, engine.run(ctx, run, parsed), chosen,
                                       recorded)
    finally:
        if progress is not None:
            progress.close()
    buf = io.StringIO()
    report.render(reports, fmt, buf, color=_color(sys.stdout), root=str(ctx.root),
                  quiet=quiet, summary=len(specs) > 1, prefix=ctx.prefix,
                  held=held, describe=_describe)
    _emit(buf.getvalue())
    return 1 if any(r.failed for r in reports) else 0


def _fix_index(root: Optional[Path], fmt: str) -> None:
    """``--fix``: write missing notes into the handbook's index, then check."""
    from icm.report import escape_line
    from icm.workflow import index

    for line in index.fix(_context(root)):
        typer.echo(escape_line(line, fmt), err=fmt != "text")


def _parsed(specs: Sequence[Spec], given: Dict[str, Any]) -> Dict[str, Any]:
    """The options' values as their fields' types (``Flag.parse`` of each
    string given; a default stays as the field has it)."""
    values: Dict[str, Any] = {}
    for spec in specs:
        for f, cli in registry.cli_fields(spec.options):
            if f.name not in given:
                continue
            raw = given[f.name]
            if cli.argument:
                values[f.name] = tuple(raw or ())
            elif cli.parse is not None and isinstance(raw, str):
                values[f.name] = cli.parse(raw)
            elif raw is not None:
                values[f.name] = raw
    return values


def _parameters(specs: Sequence[Spec], alias: bool) -> List[inspect.Parameter]:
    """typer parameters for the options of ``specs``, each option once."""
    params: Dict[str, inspect.Parameter] = {}
    for spec in specs:
        for f, cli in registry.cli_fields(spec.options):
            if f.name in params or (cli.argument and not alias):
                continue
            if cli.argument:
                default = typer.Argument(None, metavar=cli.metavar, help=cli.help,
                                         show_default=False)
                kind: Any = Optional[List[str]]
            elif cli.parse is None:
                default = typer.Option(False, *cli.names, help=cli.help)
                kind = bool
            else:
                shown = registry.default(f)
                default = typer.Option(None if shown is None else str(shown),
                                       *cli.names, metavar=cli.metavar,
                                       help=cli.help, show_default=False)
                kind = Optional[str]
            params[f.name] = inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                annotation=kind)
    return list(params.values())


_SHARED = [
    inspect.Parameter("root", inspect.Parameter.KEYWORD_ONLY, default=RootOpt,
                      annotation=Optional[Path]),
    inspect.Parameter("fmt", inspect.Parameter.KEYWORD_ONLY, default=FormatOpt,
                      annotation=str),
    inspect.Parameter("quiet", inspect.Parameter.KEYWORD_ONLY, default=QuietOpt,
                      annotation=bool),
    inspect.Parameter("select", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(
        None, "--select", metavar="CODE", help="Report only these codes: a check "
        "(links) or CHECK/CODE (links/missing-anchor); repeatable."),
        annotation=Optional[List[str]]),
    inspect.Parameter("ignore", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(
        None, "--ignore", metavar="CODE", help="Do not report these codes "
        "(repeatable)."), annotation=Optional[List[str]]),
    inspect.Parameter("debug", inspect.Parameter.KEYWORD_ONLY, default=DebugOpt,
                      annotation=bool),
]


def _command(params: List[inspect.Parameter],
             body: Callable[..., int]) -> Callable[..., None]:
    """A typer command function with ``params``: typer reads the signature,
    the function hands the values to ``body`` and exits with its code."""
    def command(**values: Any) -> None:
        debug = bool(values.get("debug"))
        raise typer.Exit(_guard(debug, lambda: body(**values)))

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def _check(checks: Optional[List[str]], skip: Optional[List[str]],
           root: Optional[Path], fmt: str, quiet: bool, debug: bool,
           select: Optional[List[str]], ignore: Optional[List[str]],
           **given: Any) -> int:
    return _run_checks(registry.select(checks or (), skip or ()), given, root, fmt,
                       quiet, select, ignore)


app.command("check", cls=usage.Command, help="Run the checks, all or those named.\n\n"
            "The run ends with a one-line summary. CHECK is one of: "
            + ", ".join(registry.NAMES) + ". Every check's options are "
            "accepted; each check reads its own.")(_command([
                inspect.Parameter("checks", inspect.Parameter.KEYWORD_ONLY,
                                  default=typer.Argument(
                                      None, metavar="CHECK", show_default=False,
                                      help="Checks to run (default: all)."),
                                  annotation=Optional[List[str]]),
                inspect.Parameter("skip", inspect.Parameter.KEYWORD_ONLY,
                                  default=typer.Option(
                                      None, "--skip", metavar="CHECK",
                                      help="Leave this check out (repeatable)."),
                                  annotation=Optional[List[str]]),
                *_SHARED, *_parameters(registry.ALL, alias=False)], _check))


def _alias(spec: Spec) -> None:
    """``icm check-NAME``: ``icm check NAME`` with only that check's options."""
    def body(root: Optional[Path], fmt: str, quiet: bool, debug: bool,
             select: Optional[List[str]], ignore: Optional[List[str]],
             **given: Any) -> int:
        return _run_checks((spec,), given, root, fmt, quiet, select, ignore)

    app.command(spec.command, cls=usage.Command,
                help=spec.summary + (f"\n\n{spec.help}" if spec.help else ""))(
        _command([*_parameters((spec,), alias=True), *_SHARED], body))


for _spec in registry.ALL:
    _alias(_spec)


def _rules_of(check: str) -> Any:
    """The module holding ``check``'s RULES: a check's, verify's or the
    baseline's; None for no such name."""
    if check in registry.BY_NAME:
        return registry.BY_NAME[check].module
    if check in ("verify", "baseline"):
        import importlib

        return importlib.import_module("icm.workflow.verify" if check == "verify"
                                       else "icm.baseline")
    return None


def _describe(check: str, code: str) -> Any:
    """(rule, why, how to silence, docs) of CHECK/CODE, or None
    (``report.Describe``). A check's codes are silenced the one way
    (``baseline.silencing``) and its own; verify's and the baseline's, their
    own only."""
    module = _rules_of(check)
    rules = getattr(module, "RULES", None)
    if rules is None or code not in rules.rules:
        return None
    own = getattr(module, "SILENCE", "")
    if check in registry.BY_NAME:
        from icm.baseline import silencing

        return (rules[code], module.WHY,
                silencing(check, code, own, rules[code].whole_file),
                f"docs/checks.md#{check}")
    docs = "docs/verify.md" if check == "verify" else "docs/output.md#baseline"
    return rules[code], module.WHY, own, docs


@app.command("explain", cls=usage.Command)
def explain(code: str = typer.Argument(..., metavar="CODE", help="CHECK/CODE "
                                       "(links/missing-anchor), a code alone "
                                       "when one check has it, or a check "
                                       "(its codes)."),
            debug: bool = DebugOpt) -> None:
    """Say what a rule code means and how to silence it."""
    def body() -> int:
        from icm.escape import text_line
        from icm.report import explain_lines

        said = [explain_lines(c, k, *_describe(c, k))
                for c, k in _explained(code)]
        more = f"{code}/CODE" if code in (*registry.NAMES, "verify", "baseline") \
            else "CHECK/CODE"
        text = said[0] if len(said) == 1 else [block[0] for block in said] + [
            f"icm explain {more} says more about one"]
        return _print("".join(text_line(line) + "\n" for line in text))

    raise typer.Exit(_guard(debug, body))


def _explained(text: str) -> List[Any]:
    """The (check, code) pairs ``icm explain TEXT`` names; UsageError with a
    near miss otherwise."""
    import difflib

    every = [(c, k) for c in (*registry.NAMES, "verify", "baseline")
             for k, _rule in _rules_of(c).RULES]
    check, _, code = text.partition("/")
    found = [(c, k) for c, k in every
             if (c, k) == (check, code) or (not _ and (c == text or k == text))]
    if found:
        return found
    names = [f"{c}/{k}" for c, k in every] + [*registry.NAMES, "verify", "baseline"]
    near = difflib.get_close_matches(text, names, n=1)
    hint = f" (did you mean '{near[0]}'?)" if near else ""
    raise UsageError(f"no rule code {values.quote(text)}{hint}; icm explain CHECK "
                     "lists a check's codes")


# -- commands that write -----------------------------------------------------


def _write(debug: bool, body: Callable[[], List[str]]) -> None:
    """Run a writer; print the paths it names, one line each."""
    def run_body() -> int:
        from icm.escape import text_line

        return _print("".join(text_line(line) + "\n" for line in body()))

    raise typer.Exit(_guard(debug, run_body))


@app.command("new-queue", cls=usage.Command)
def new_queue(title: str = typer.Argument(..., metavar="TITLE",
                                          help="The item's title."),
              against: Optional[str] = typer.Option(
                  None, "--against", metavar="REF", help="Also skip numbers "
                  "used on REF (default: queue_refs, else the upstream and "
                  "origin/HEAD)."),
              root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Create the next numbered queue item; print its path."""
    def body() -> List[str]:
        from icm.workflow import queue

        return [queue.new_item(_context(root), title, against)]

    _write(debug, body)


@app.command("new-journal", cls=usage.Command)
def new_journal(item: Optional[str] = typer.Argument(None, metavar="[ITEM]",
                                                     help="Queue number (07), "
                                                     "slug or path."),
                day: Optional[str] = typer.Option(None, "--date", metavar=
                                                  "YYYY-MM-DD", help="Entry date "
                                                  "(default: today)."),
                force: bool = typer.Option(False, "--force", help="Finish an "
                                           "item another writer has claimed."),
                title: Optional[str] = typer.Option(None, "--title", metavar=
                                                    "TITLE", help="Write an "
                                                    "entry without a queue item."),
                supersedes: Optional[str] = typer.Option(
                    None, "--supersedes", metavar="ENTRY", help="Mark ENTRY (a "
                    "number, name or path) superseded by the new one."),
                root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Write a journal entry from a queue item or a title."""
    def body() -> List[str]:
        from icm.workflow import journal

        if item is None and title is None:
            raise UsageError("new-journal needs ITEM or --title TITLE (usage: "
                             "icm new-journal [OPTIONS] [ITEM])")
        if item is not None and title is not None:
            raise UsageError("new-journal takes ITEM or --title TITLE, not both")
        when = values.parse_date("--date", day) if day is not None else None
        if title is not None:
            return journal.new_titled(_context(root), title, when, supersedes)
        assert item is not None
        return journal.new_entry(_context(root), item, when, force, supersedes)

    _write(debug, body)


InitRootOpt = typer.Option(None, "--root", metavar="DIR", help="Folder to set "
                           "up (default: here).")


@app.command("init")
def init(root: Optional[Path] = InitRootOpt,
         agents: Optional[str] = typer.Option(None, "--agents", metavar="NAME",
                                              help="Scaffold only Agents/NAME/, "
                                              "an exported session in the "
                                              "AGENTS layout."),
         debug: bool = DebugOpt) -> None:
    """Set up handbook, journal/, queue/, Makefile and config.

    Never overwrites a file."""
    def body() -> List[str]:
        from icm.workflow import init as init_mod

        if agents is not None:
            from icm.workflow import agents as agents_mod

            return agents_mod.scaffold(_context(root or _cwd()), agents)
        return init_mod.init(_context(root or _cwd()))

    _write(debug, body)


@app.command("baseline", cls=usage.Command)
def baseline(grow: bool = typer.Option(False, "--grow", help="Also add findings "
                                       "the baseline does not hold yet."),
             root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Record today's findings so that only new ones fail.

    They go into icm-baseline.json; icm check counts them (3 baselined) and
    fails on any other. A baseline there already only shrinks: entries
    whose finding is gone are dropped, and a new finding is added only with
    --grow."""
    def body() -> int:
        from icm.escape import text_line
        from icm.workflow import baseline as mod

        said, code = mod.write(_context(root), grow)
        _print("".join(text_line(line) + "\n" for line in said))
        return code

    raise typer.Exit(_guard(debug, body))


RuledOutOpt = typer.Option(None, "--ruled-out", metavar="TEXT", help="Something "
                           "this work found does not work (author text; "
                           "repeatable).")


@app.command("handoff")
def handoff(reason: Optional[str] = typer.Option(None, "--reason", metavar="TEXT",
                                                  help="Why the work changes "
                                                  "hands (author text)."),
            question: Optional[str] = typer.Option(None, "--question", metavar="TEXT",
                                                    help="What "
                                                    "the receiver must determine "
                                                    "(author text)."),
            base: Optional[str] = typer.Option(None, "--base", metavar="REF",
                                               help="The branch this work will "
                                               "merge into (default: ICM_BASE, "
                                               "GITHUB_BASE_REF, the upstream)."),
            output: Optional[str] = typer.Option(None, "--output", "-o",
                                                 metavar="PATH", help="Write here "
                                                 "('-': stdout) instead of "
                                                 "handoff/DATE_BRANCH.md."),
            tail: str = typer.Option("3", "--tail", metavar="N", help="Full "
                                     "messages of the last N commits (0-4)."),
            show: bool = typer.Option(False, "--show", help="Print the newest "
                                      "record for the current branch."),
            ruled_out: Optional[List[str]] = RuledOutOpt,
            root: Optional[Path] = RootOpt, fmt: str = DocFormatOpt,
            debug: bool = DebugOpt) -> None:
    """Write a handoff record built from the repository's state.

    Only --reason, --question and --ruled-out are author text; everything
    else is read from git, the journal, the queue and the checks."""
    def body() -> int:
        from icm.workflow import handoff as mod

        values.choice("--format", fmt, ("text", "json"))
        lines = values.number("--tail", tail, 0)
        if lines is None or lines > 4:
            raise UsageError(f"--tail must be {values.ACCEPTS['--tail']} (not "
                             f"{values.quote(tail)})")
        return _print(mod.command(_context(root), reason, question, base, lines,
                                  output, fmt, show, ruled_out or ()))

    raise typer.Exit(_guard(debug, body))


ItemArg = typer.Argument(..., metavar="ITEM", help="Queue number (07), slug or "
                        "path.")
ForceOpt = typer.Option(False, "--force", help="Act on another writer's claim.")


@app.command("claim", cls=usage.Command)
def claim(item: str = ItemArg, force: bool = ForceOpt,
          root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Claim a queue item for yourself (a Claimed-by line).

    The line travels with the branch, so check-queue --against sees it."""
    def body() -> List[str]:
        from icm.workflow import claims

        return [claims.claim(_context(root), item, force)]

    _write(debug, body)


@app.command("release", cls=usage.Command)
def release(item: str = ItemArg, force: bool = ForceOpt,
            root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Remove your claim line from a queue item."""
    def body() -> List[str]:
        from icm.workflow import claims

        return [claims.release(_context(root), item, force)]

    _write(debug, body)


@app.command("renumber", cls=usage.Command)
def renumber(item: str = ItemArg,
             to: Optional[str] = typer.Option(None, "--to", metavar="N",
                                              help="The new number (default: "
                                              "the next free one)."),
             against: Optional[str] = typer.Option(
                 None, "--against", metavar="REF", help="Also skip numbers used "
                 "on REF."),
             root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Move a queue item to a free number; fix links to it."""
    def body() -> List[str]:
        from icm.workflow import claims

        number = values.number("--to", to, 1)
        return claims.renumber(_context(root), item, number, against)

    _write(debug, body)


@app.command("makefile")
def makefile() -> None:
    """Print the path of Makefile.inc for make's include line.

    Use it as: include $(shell icm makefile)"""
    from icm.workflow.files import template_dir

    raise typer.Exit(_guard(False, lambda: _print(
        f"{template_dir() / 'Makefile.inc'}\n")))


@app.command("completion", cls=usage.Command)
def completion(shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh, "
                                           "fish, powershell or pwsh.")
               ) -> None:
    """Print a shell completion script to load or save.

    bash: eval "$(icm completion bash)"; it prints, and writes nothing."""
    raise typer.Exit(_guard(False, lambda: _print(
        usage.completion_script(shell) + "\n")))


EntriesArg = typer.Argument(None, metavar="ENTRY", show_default=False,
                            help="Entries by path, "
                            "file name or date prefix (default: all).")


@app.command("verify")
def verify(entries: Optional[List[str]] = EntriesArg,
           jobs: Optional[str] = typer.Option(None, "--jobs", metavar="N",
                                              help="Commands run at once (0: one "
                                              "per core)."),
           since: Optional[str] = typer.Option(None, "--since", metavar="REV",
                                               help="Only entries naming a path "
                                               "changed since REV, or naming no "
                                               "path."),
           dry_run: bool = typer.Option(False, "--dry-run", help="Print each "
                                        "command and where it would run."),
           root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
           quiet: bool = typer.Option(False, "--quiet", "-q", help="Print "
                                      "failures and the summary only; nothing "
                                      "when every command holds."),
           debug: bool = DebugOpt) -> None:
    """Run each journal entry's Verify command.

    It runs the repository's code: opt-in, never part of icm check."""
    def body() -> int:
        import io

        from icm import report
        from icm.workflow import verify as verify_mod

        values.choice("--format", fmt, values.FORMATS)
        workers = values.number("--jobs", jobs, 0) or 0
        ctx = _context(root)
        result = verify_mod.run(ctx, entries or (), since, workers, dry_run)
        buf = io.StringIO()
        report.render([result], fmt, buf, color=_color(sys.stdout),
                      root=str(ctx.root), quiet=quiet, prefix=ctx.prefix,
                      describe=_describe)
        _emit(buf.getvalue())
        return 1 if result.failed else 0

    raise typer.Exit(_guard(debug, body))


@app.command("positions")
def positions(write: bool = typer.Option(False, "--write", help="Write the view "
                                         "into positions_file's marked block."),
              budget: Optional[str] = typer.Option(
                  None, "--budget", metavar="N", help="Tokens (bytes / 4) the "
                  "markdown may take (default: positions_budget; 0: all)."),
              folder: Optional[str] = typer.Option(
                  None, "--folder", metavar="DIR", help="Only the entries "
                  "naming a path in DIR or below it."),
              root: Optional[Path] = RootOpt, fmt: str = DocFormatOpt,
              debug: bool = DebugOpt) -> None:
    """Compile the journal into its positions view.

    What is held, what was overruled, which designs are dead: markdown on
    stdout (or json); --write keeps positions_file current."""
    def body() -> int:
        from icm.workflow import positions as mod

        values.choice("--format", fmt, ("text", "json"))
        return _print(mod.command(_context(root), fmt, write,
                                  values.number("--budget", budget, 0), folder))

    raise typer.Exit(_guard(debug, body))


ItemsArg = typer.Argument(..., metavar="ITEM", help="Queue numbers (07), "
                          "slugs or paths.")


@app.command("brief", cls=usage.Command)
def brief(items: List[str] = ItemsArg,
          budget: Optional[str] = typer.Option(
              None, "--budget", metavar="N", help="Tokens the whole brief may "
              "take (default: brief_budget)."),
          tokenizer: str = typer.Option("bytes", "--tokenizer",
                                        metavar="[bytes|cl100k|o200k]",
                                        help="How tokens are counted."),
          root: Optional[Path] = RootOpt, fmt: str = DocFormatOpt,
          debug: bool = DebugOpt) -> None:
    """Print what a session taking ITEM reads first.

    The handbook, the notes of the folders the items name, the items, then
    the journal's positions that bear on them, best first. It writes
    nothing."""
    def body() -> int:
        from icm.escape import inert_lines
        from icm.workflow import brief as mod

        values.choice("--format", fmt, ("text", "json"))
        values.choice("--tokenizer", tokenizer, values.TOKENIZERS)
        text = mod.command(_context(root), items, values.number("--budget",
                                                                budget, 1),
                           tokenizer, fmt)
        return _print(text if fmt == "json" else inert_lines(text))

    raise typer.Exit(_guard(debug, body))


NotesArg = typer.Argument(..., metavar="NOTE", help="Notes read against their "
                         "code and still true.")


@app.command("review", cls=usage.Command)
def review(notes: List[str] = NotesArg,
           day: Optional[str] = typer.Option(None, "--date", metavar="YYYY-MM-DD",
                                             help="The review's date (default: "
                                             "today, UTC)."),
           root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Record that a note still holds: its reviewed line.

    Writes or updates <!-- icm: reviewed DATE --> in each note, a change of
    words check-stale counts (a whitespace change is no review)."""
    def body() -> List[str]:
        from icm.workflow import review as mod

        when = values.parse_date("--date", day) if day is not None else None
        return mod.review(_context(root), notes, when)

    _write(debug, body)


def _app_for(args: Sequence[str]) -> typer.Typer:
    """The app with only the command ``args`` start with: typer builds a
    parser for every command it is given (8 ms for all of icm's, on every
    run). Help, ``--version`` or a name it lacks get the whole app: their
    answers list the commands."""
    named = [c for c in app.registered_commands if args and c.name == args[0]]
    if not named:
        return app
    one = copy.copy(app)
    one.registered_commands = named
    return one


def main(argv: Optional[List[str]] = None) -> int:
    """Run icm with ``argv``; return the exit code (never raises SystemExit).

    An interrupt anywhere ends with ``icm: interrupted`` and 130."""
    from icm.errors import INTERRUPTED, interrupted

    args = sys.argv[1:] if argv is None else list(argv)
    completing = usage.prepare_completion()
    command = typer.main.get_command(app if completing else _app_for(args))
    usage.plain_params(command)
    try:
        if not args and not completing:  # bare ``icm``: help on stderr, exit 2
            with contextlib.redirect_stdout(sys.stderr):
                command(args=["--help"], prog_name="icm", standalone_mode=False)
            return 2
        result = command(args=args, prog_name="icm", standalone_mode=False)
    except SystemExit as exc:  # shell completion and typer's pipe handling
        code = exc.code
        if code is None:
            return 0
        code = code if isinstance(code, int) else 1
        return interrupted() if code == INTERRUPTED else code
    except typer.TyperException as exc:  # the parser's errors
        typer.echo(f"icm: {usage.describe(exc, args)}", err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        return interrupted()
    code = result if isinstance(result, int) else 0
    return interrupted() if code == INTERRUPTED else code
