"""Thin typer layer: parse, call, render, exit. Heavy modules load lazily so
``icm --help`` imports neither gitpython nor markdown-it."""

from __future__ import annotations

import enum
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import typer

from icm.errors import UsageError

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Keep a repository's agent-facing context healthy.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from icm import __version__

        typer.echo(f"icm {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version,
                                       is_eager=True, help="Print the version.")
          ) -> None:
    """Keep a repository's agent-facing context healthy."""


class Format(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"


RootOpt = typer.Option(None, "--root", help="Repository root (default: found "
                       "from the working directory).", file_okay=False)
FormatOpt = typer.Option(Format.text, "--format", help="Output format.")
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


def _context(root: Optional[Path], options: Dict[str, object]) -> Any:
    from icm import config, context

    base = Path(root) if root is not None else context.find_root(Path.cwd())
    if root is not None and not base.is_dir():
        raise UsageError(f"--root {root}: not a folder")
    cfg = config.load(base)
    return context.build(base.resolve(), cfg, options=options)


def _checks(names: Sequence[str], root: Optional[Path], fmt: Format, debug: bool,
            **options: object) -> None:
    def body() -> int:
        from icm import engine, report

        ctx = _context(root, options)
        reports = engine.run(ctx, names)
        report.render(reports, fmt.value, sys.stdout, color=_color(sys.stdout),
                      root=str(ctx.root))
        return 1 if any(r.failed for r in reports) else 0

    raise typer.Exit(_guard(debug, body))


StrictOpt = typer.Option(False, "--strict", help="Treat unknown staleness "
                         "(never committed, shallow) as a failure.")
ShallowOpt = typer.Option(False, "--allow-shallow", help="Run on a shallow clone; "
                          "notes at the boundary are reported unknown.")


BudgetOpt = typer.Option(None, "--budget", min=1, help="Token budget of the "
                         "cold-boot set (overrides the config).")


@app.command("check")
def check(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
          strict: bool = StrictOpt, allow_shallow: bool = ShallowOpt,
          budget: Optional[int] = BudgetOpt, debug: bool = DebugOpt) -> None:
    """Run every check; exit 1 if any finds a problem."""
    _checks((), root, fmt, debug, strict=strict, allow_shallow=allow_shallow,
            budget=budget)


@app.command("check-journal")
def check_journal(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
                  debug: bool = DebugOpt) -> None:
    """Every journal entry has the four slots, each with content."""
    _checks(("journal",), root, fmt, debug)


@app.command("check-links")
def check_links(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
                fix: bool = typer.Option(False, "--fix", help="Write missing "
                                         "notes into the handbook's index block."),
                jobs: int = typer.Option(0, "--jobs", min=0, help="Parser "
                                         "processes (0: one per core)."),
                debug: bool = DebugOpt) -> None:
    """Every relative link resolves; every note is linked from the handbook."""
    if fix:
        def body() -> int:
            from icm.report import escape_line
            from icm.workflow import index

            changes = index.fix(_context(root, {}))
            for line in changes:
                typer.echo(escape_line(line, fmt.value), err=fmt is not Format.text)
            return 0

        code = _guard(debug, body)
        if code:
            raise typer.Exit(code)
    _checks(("links",), root, fmt, debug, jobs=jobs)


@app.command("check-stale")
def check_stale(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
                strict: bool = StrictOpt, allow_shallow: bool = ShallowOpt,
                debug: bool = DebugOpt) -> None:
    """Flag notes whose folder's code was committed after them."""
    _checks(("stale",), root, fmt, debug, strict=strict, allow_shallow=allow_shallow)


@app.command("bootmap")
def bootmap(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
            budget: Optional[int] = BudgetOpt,
            verbose: bool = typer.Option(False, "--verbose", "-v", help="List the "
                                         "boot files and the whole-tree cost."),
            tokenizer: str = typer.Option("bytes", "--tokenizer", help="bytes "
                                          "(bytes/4), cl100k or o200k (needs the "
                                          "tokens extra)."),
            debug: bool = DebugOpt) -> None:
    """List notes by size and sum the cold-boot set against the budget."""
    _checks(("bootmap",), root, fmt, debug, budget=budget, verbose=verbose,
            tokenizer=tokenizer)


@app.command("check-queue")
def check_queue(root: Optional[Path] = RootOpt, fmt: Format = FormatOpt,
                debug: bool = DebugOpt) -> None:
    """Queue items are named NN_slug.md and no number is used twice."""
    _checks(("queue",), root, fmt, debug)


def _write(debug: bool, body: Callable[[], List[str]]) -> None:
    def run_body() -> int:
        from icm.report import printable

        for line in body():
            typer.echo(printable(line))
        return 0

    raise typer.Exit(_guard(debug, run_body))


@app.command("new-queue")
def new_queue(title: str = typer.Argument(..., help="The item's title."),
              root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Create queue/NN_slug.md with the next free number; print its path."""
    def body() -> List[str]:
        from icm.workflow import queue

        return [queue.new_item(_context(root, {}), title)]

    _write(debug, body)


@app.command("new-journal")
def new_journal(item: str = typer.Argument(..., help="Queue number (07), slug "
                                           "or path."),
                day: Optional[str] = typer.Option(None, "--date", metavar=
                                                  "YYYY-MM-DD", help="Entry date "
                                                  "(default: today)."),
                root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Turn a queue item into journal/DATE_slug.md; print its path."""
    def body() -> List[str]:
        from datetime import date

        from icm.workflow import journal

        when = None
        if day is not None:
            try:
                when = date.fromisoformat(day)
            except ValueError:
                raise UsageError(f"--date must be YYYY-MM-DD, not '{day}'") from None
        return [journal.new_entry(_context(root, {}), item, when)]

    _write(debug, body)


InitRootOpt = typer.Option(None, "--root", help="Folder to set up (default: "
                           "here).", file_okay=False)


@app.command("init")
def init(root: Optional[Path] = InitRootOpt,
         debug: bool = DebugOpt) -> None:
    """Scaffold handbook, journal/, queue/, Makefile and [tool.icm]; never
    overwrite."""
    def body() -> List[str]:
        from icm.workflow import init as init_mod

        return init_mod.init(_context(root or Path.cwd(), {}))

    _write(debug, body)


@app.command("makefile")
def makefile() -> None:
    """Print the path of icm's Makefile.inc, for: include $(shell icm makefile)."""
    from icm.workflow.files import template_dir

    typer.echo(str(template_dir() / "Makefile.inc"))
    raise typer.Exit(0)


def run() -> None:
    """Console-script entry point (``icm.__main__.run``)."""
    from icm import __main__ as entry

    entry.run()


def main(argv: Optional[List[str]] = None) -> int:
    """Run icm with ``argv``; return the exit code (never raises SystemExit).

    An interrupt anywhere (typer turns one outside a command body into a
    silent exit 130) ends with ``icm: interrupted`` and 130."""
    from icm.errors import INTERRUPTED, interrupted

    try:
        app(args=argv, prog_name="icm", standalone_mode=True)
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else (
            exc.code if isinstance(exc.code, int) else 1)
    except KeyboardInterrupt:
        code = INTERRUPTED
    return interrupted() if code == INTERRUPTED else code
