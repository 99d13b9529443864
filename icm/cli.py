"""Thin typer layer: parse, call, render, exit. Heavy modules load lazily so
``icm --help`` imports neither gitpython nor markdown-it."""

from __future__ import annotations

import io
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import typer

from icm import usage
from icm.errors import UsageError
from icm.output import emit as _emit

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
        from icm.output import version

        raise typer.Exit(_guard(False, version))


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version,
                                       is_eager=True, help="Print the version.")
          ) -> None:
    """Keep a repository's agent-facing context healthy."""


# The options every check command accepts, so one ICM_FLAGS suits every make
# target; an option that does not apply to a check is accepted and ignored.
# Values are plain strings checked by icm.usage: typer's own validation
# words its errors in its validation library's terms.
RootOpt = typer.Option(None, "--root", metavar="DIR", help="Repository root "
                       "(default: found from the working directory).")
FormatOpt = typer.Option("text", "--format", metavar=usage.FORMAT_METAVAR,
                         help="Output format.")
# Commands that print a document, not findings: no github or sarif form.
DocFormatOpt = typer.Option("text", "--format", metavar="[text|json]",
                            help="Output format.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="Print problems and the "
                        "summary only: no ok lines, no bootmap table within budget.")
StrictOpt = typer.Option(False, "--strict", help="stale: treat unknown staleness "
                         "(never committed, shallow) as a failure.")
ShallowOpt = typer.Option(False, "--allow-shallow", help="stale: run on a shallow "
                          "clone; notes at the boundary are reported unknown.")
BudgetOpt = typer.Option(None, "--budget", metavar="N", help="bootmap: token "
                         "budget of the cold-boot set (overrides the config).")
PartialOpt = typer.Option(False, "--allow-partial", help="stale: run on a partial "
                          "clone; missing objects are never fetched.")
CommittedOpt = typer.Option(False, "--committed", help="stale: judge committed "
                            "history only, not staged or work-tree changes.")
VerboseOpt = typer.Option(False, "--verbose", "-v", help="bootmap: list the boot "
                          "files and the whole-tree cost.")
TokenizerOpt = typer.Option("bytes", "--tokenizer", metavar=usage.TOKENIZER_METAVAR,
                            help="bootmap: bytes/4, or an exact count (cl100k, "
                            "o200k: needs the tokens extra).")
JobsOpt = typer.Option(None, "--jobs", metavar="N", help="links: parser "
                       "processes (0: one per core).")
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


def _context(root: Optional[Path], options: Dict[str, object]) -> Any:
    from icm import config, context

    base = Path(root) if root is not None else context.find_root(_cwd())
    if root is not None and not base.is_dir():
        raise UsageError(f"--root {root}: not a folder")
    cfg = config.load(base)
    ctx = context.build(base.resolve(), cfg, options=options)
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


class _Progress:
    """``icm: parsing N/M markdown files`` on a terminal's stderr, redrawn in
    place and wiped when the run ends; checks only call it."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        if done != total and done % max(1, total // 100):
            return
        text = f"icm: parsing {done}/{total} markdown files"
        self.stream.write("\r" + text)
        self.stream.flush()
        self.shown = len(text)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()


def _checks(names: Sequence[str], root: Optional[Path], fmt: str, debug: bool,
            quiet: bool = False, **options: object) -> None:
    """Run the named checks (all when empty) and render them; the run of every
    check ends with one summary line."""
    def body() -> int:
        from icm import engine, report

        opts = usage.check_options(fmt, options)
        progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
        if progress is not None:
            opts["progress"] = progress
        try:
            ctx = _context(root, opts)
            reports = engine.run(ctx, names)
        finally:
            if progress is not None:
                progress.close()
        buf = io.StringIO()
        report.render(reports, fmt, buf, color=_color(sys.stdout),
                      root=str(ctx.root), quiet=quiet, summary=not names,
                      prefix=ctx.prefix)
        _emit(buf.getvalue())
        return 1 if any(r.failed for r in reports) else 0

    raise typer.Exit(_guard(debug, body))


# Every check command takes the shared options, so ICM_FLAGS is safe for every
# make target; one that does not apply to that check is accepted and ignored.
AgainstOpt = typer.Option(None, "--against", "--base", metavar="REF", help="The "
                          "branch this one merges into. queue: compare with REF "
                          "(default: ICM_BASE, GITHUB_BASE_REF, the upstream, "
                          "origin/HEAD); stale: judge this branch's commits on "
                          "top of REF (default: ICM_BASE).")


@app.command("check")
def check(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
          quiet: bool = QuietOpt, strict: bool = StrictOpt,
          allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
          committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
          verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
          jobs: Optional[str] = JobsOpt, against: Optional[str] = AgainstOpt,
          debug: bool = DebugOpt) -> None:
    """Run every check and end with a one-line summary."""
    # Outside git, staleness is one info line and the other checks still run.
    _checks((), root, fmt, debug, quiet, strict=strict, allow_shallow=allow_shallow,
            allow_partial=allow_partial, committed=committed, budget=budget,
            verbose=verbose, tokenizer=tokenizer, jobs=jobs, against=against,
            history_optional=True)


def _one(name: str, root: Optional[Path], fmt: str, quiet: bool, strict: bool,
         allow_shallow: bool, allow_partial: bool, committed: bool,
         budget: Optional[str], verbose: bool, tokenizer: str, jobs: Optional[str],
         debug: bool, **extra: object) -> None:
    _checks((name,), root, fmt, debug, quiet, strict=strict,
            allow_shallow=allow_shallow, allow_partial=allow_partial,
            committed=committed, budget=budget, verbose=verbose,
            tokenizer=tokenizer, jobs=jobs, **extra)


@app.command("check-journal")
def check_journal(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                  quiet: bool = QuietOpt, strict: bool = StrictOpt,
                  allow_shallow: bool = ShallowOpt,
                  allow_partial: bool = PartialOpt, committed: bool = CommittedOpt,
                  budget: Optional[str] = BudgetOpt, verbose: bool = VerboseOpt,
                  tokenizer: str = TokenizerOpt, jobs: Optional[str] = JobsOpt,
                  debug: bool = DebugOpt) -> None:
    """Check that every journal entry has its four slots.

    Each slot is a level-2 heading with content under it."""
    _one("journal", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


@app.command("check-links")
def check_links(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                fix: bool = typer.Option(False, "--fix", help="Write missing "
                                         "notes into the handbook's index block."),
                quiet: bool = QuietOpt, strict: bool = StrictOpt,
                allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
                committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
                verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
                jobs: Optional[str] = JobsOpt, debug: bool = DebugOpt) -> None:
    """Check relative links and the handbook's index of notes.

    Every relative link resolves; every note is linked from the handbook."""
    if fix:
        def body() -> int:
            from icm.report import escape_line
            from icm.workflow import index

            usage.check_options(fmt, {})
            changes = index.fix(_context(root, {}))
            for line in changes:
                typer.echo(escape_line(line, fmt), err=fmt != "text")
            return 0

        code = _guard(debug, body)
        if code:
            raise typer.Exit(code)
    _one("links", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


@app.command("check-stale")
def check_stale(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                quiet: bool = QuietOpt, strict: bool = StrictOpt,
                allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
                committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
                verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
                jobs: Optional[str] = JobsOpt, against: Optional[str] = AgainstOpt,
                debug: bool = DebugOpt) -> None:
    """Flag notes older than the code in their folder.

    A note is stale when its folder's code changed after it: in a commit, or
    staged or in the work tree (--committed: in history only)."""
    _one("stale", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug, against=against)


@app.command("bootmap")
def bootmap(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
            quiet: bool = QuietOpt, strict: bool = StrictOpt,
            allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
            committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
            verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
            jobs: Optional[str] = JobsOpt, debug: bool = DebugOpt) -> None:
    """List notes by size; sum the boot set against the budget."""
    _one("bootmap", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


@app.command("check-queue")
def check_queue(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                quiet: bool = QuietOpt, strict: bool = StrictOpt,
                allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
                committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
                verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
                jobs: Optional[str] = JobsOpt, against: Optional[str] = AgainstOpt,
                debug: bool = DebugOpt) -> None:
    """Check queue item names and that no number is used twice.

    With --against REF (or a known base), also against REF before merging."""
    _one("queue", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug, against=against)


def _write(debug: bool, body: Callable[[], List[str]]) -> None:
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

        return [queue.new_item(_context(root, {"against": against}), title)]

    _write(debug, body)


@app.command("new-journal", cls=usage.Command)
def new_journal(item: str = typer.Argument(..., metavar="ITEM", help="Queue "
                                           "number (07), slug or path."),
                day: Optional[str] = typer.Option(None, "--date", metavar=
                                                  "YYYY-MM-DD", help="Entry date "
                                                  "(default: today)."),
                force: bool = typer.Option(False, "--force", help="Finish an "
                                           "item another writer has claimed."),
                root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Turn a queue item into a journal entry; print its path."""
    def body() -> List[str]:
        from icm.workflow import journal

        when = usage.parse_date("--date", day) if day is not None else None
        return journal.new_entry(_context(root, {}), item, when, force)

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

            return agents_mod.scaffold(_context(root or _cwd(), {}), agents)
        return init_mod.init(_context(root or _cwd(), {}))

    _write(debug, body)


AgentDirsArg = typer.Argument(None, metavar="DIR", help="Exported-session "
                              "folders (default: agents_dirs, Agents/*).")


@app.command("check-dupes")
def check_dupes(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                quiet: bool = QuietOpt, strict: bool = StrictOpt,
                allow_shallow: bool = ShallowOpt, allow_partial: bool = PartialOpt,
                committed: bool = CommittedOpt, budget: Optional[str] = BudgetOpt,
                verbose: bool = VerboseOpt, tokenizer: str = TokenizerOpt,
                jobs: Optional[str] = JobsOpt, debug: bool = DebugOpt) -> None:
    """Find rules copied between notes, and copies that differ.

    One fact, one home: reads the handbook, every note and the journal's
    Invariant sections."""
    _one("dupes", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


@app.command("check-agents")
def check_agents(dirs: Optional[List[str]] = AgentDirsArg,
                 root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                 quiet: bool = QuietOpt, strict: bool = StrictOpt,
                 allow_shallow: bool = ShallowOpt,
                 allow_partial: bool = PartialOpt, committed: bool = CommittedOpt,
                 budget: Optional[str] = BudgetOpt, verbose: bool = VerboseOpt,
                 tokenizer: str = TokenizerOpt, jobs: Optional[str] = JobsOpt,
                 debug: bool = DebugOpt) -> None:
    """Check exported agent sessions in the AGENTS layout.

    Every file present, a Link Policy that starts at POSITIONS.md, and a
    POSITIONS.md whose entries follow the schema and whose superseded-by
    links resolve."""
    _one("agents", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug,
         agents_dirs=tuple(dirs or ()))


@app.command("check-handoff")
def check_handoff(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                  quiet: bool = QuietOpt, strict: bool = StrictOpt,
                  allow_shallow: bool = ShallowOpt,
                  allow_partial: bool = PartialOpt, committed: bool = CommittedOpt,
                  budget: Optional[str] = BudgetOpt, verbose: bool = VerboseOpt,
                  tokenizer: str = TokenizerOpt, jobs: Optional[str] = JobsOpt,
                  debug: bool = DebugOpt) -> None:
    """Check handoff records: fields present, commit known.

    Every field is present and the commit the record was made at exists; an
    outdated record says how many commits old it is."""
    _one("handoff", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


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
            root: Optional[Path] = RootOpt, fmt: str = DocFormatOpt,
            debug: bool = DebugOpt) -> None:
    """Write a handoff record built from the repository's state.

    Only --reason and --question are author text; everything else is read
    from git, the journal, the queue and the checks."""
    def body() -> int:
        import json

        from icm.escape import inert_lines, text_line
        from icm.report import plain
        from icm.workflow import handoff as mod
        from icm.workflow.files import create_new

        usage.choice("--format", fmt, ("text", "json"))
        lines = usage.number("--tail", tail, 0)
        if lines is None or lines > 4:
            raise UsageError(f"--tail must be {usage.ACCEPTS['--tail']} (not "
                             f"{usage.quote(tail)})")
        ctx = _context(root, {})
        if show:  # a file in the repository: anyone may have written it
            return _print(inert_lines(mod.newest(ctx)))
        if reason is None or question is None:
            raise UsageError("handoff needs --reason and --question: they are the "
                             "only fields an author writes")
        state = mod.gather(ctx, reason, question, base, lines)
        budget = ctx.config.handoff_budget
        if fmt == "json":
            text = json.dumps(plain(mod.as_json(state, budget)), indent=2,
                              ensure_ascii=False) + "\n"
        else:
            text = mod.render(state, budget)[0]
        if output == "-" or (output is None and fmt == "json"):
            return _print(text if fmt == "json" else inert_lines(text))
        if output is not None:
            rel = mod.out_rel(ctx, output)
            create_new(ctx, rel, text.encode("utf-8"))
            return _print(text_line(rel) + "\n")
        return _print(text_line(mod.write(ctx, state, text)) + "\n")

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

        return [claims.claim(_context(root, {}), item, force)]

    _write(debug, body)


@app.command("release", cls=usage.Command)
def release(item: str = ItemArg, force: bool = ForceOpt,
            root: Optional[Path] = RootOpt, debug: bool = DebugOpt) -> None:
    """Remove your claim line from a queue item."""
    def body() -> List[str]:
        from icm.workflow import claims

        return [claims.release(_context(root, {}), item, force)]

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

        number = usage.number("--to", to, 1)
        return claims.renumber(_context(root, {"against": against}), item, number)

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

        usage.check_options(fmt, {})
        workers = usage.number("--jobs", jobs, 0) or 0
        ctx = _context(root, {})
        result = verify_mod.run(ctx, entries or (), since, workers, dry_run)
        buf = io.StringIO()
        report.render([result], fmt, buf, color=_color(sys.stdout),
                      root=str(ctx.root), quiet=quiet, prefix=ctx.prefix)
        _emit(buf.getvalue())
        return 1 if result.failed else 0

    raise typer.Exit(_guard(debug, body))


@app.command("positions")
def positions(write: bool = typer.Option(False, "--write", help="Write the view "
                                         "into positions_file's marked block."),
              root: Optional[Path] = RootOpt, fmt: str = DocFormatOpt,
              debug: bool = DebugOpt) -> None:
    """Compile the journal into its positions view.

    What is held, what was overruled, which designs are dead: markdown on
    stdout (or json); --write keeps positions_file current."""
    def body() -> int:
        import json

        from icm import positions as mod
        from icm.escape import inert_lines, text_line
        from icm.report import plain

        usage.choice("--format", fmt, ("text", "json"))
        ctx = _context(root, {})
        if write:
            from icm.workflow import positions as writer

            return _print("".join(text_line(line) + "\n"
                                  for line in writer.write(ctx)))
        view = mod.build(ctx)
        if fmt == "json":
            return _print(json.dumps(plain(mod.as_json(view)), indent=2,
                                     ensure_ascii=False) + "\n")
        target = ctx.config.positions_file
        return _print(inert_lines(mod.block_text(view, target) if target
                                  else mod.render_markdown(view)))

    raise typer.Exit(_guard(debug, body))


@app.command("check-positions")
def check_positions(root: Optional[Path] = RootOpt, fmt: str = FormatOpt,
                    quiet: bool = QuietOpt, strict: bool = StrictOpt,
                    allow_shallow: bool = ShallowOpt,
                    allow_partial: bool = PartialOpt,
                    committed: bool = CommittedOpt,
                    budget: Optional[str] = BudgetOpt, verbose: bool = VerboseOpt,
                    tokenizer: str = TokenizerOpt, jobs: Optional[str] = JobsOpt,
                    debug: bool = DebugOpt) -> None:
    """Check the positions block; warn on re-proposed designs.

    A queue item or newer entry proposing a Rejected alternative is a
    warning unless it says Revives: <entry>."""
    _one("positions", root, fmt, quiet, strict, allow_shallow, allow_partial,
         committed, budget, verbose, tokenizer, jobs, debug)


def run() -> None:
    """Console-script entry point (``icm.__main__.run``)."""
    from icm import __main__ as entry

    entry.run()


def _plain_params(command: Any) -> None:
    """Coerce icm's parameters (str, bool, Path, List[str]; every value is
    checked in ``usage``) without pydantic. typer 0.29 builds a pydantic
    TypeAdapter per parameter on first use, and importing pydantic for it was
    a third of a warm ``check-links``. Anything else keeps typer's own
    coercion; a typer without this machinery is left as it is."""
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_path
    except ImportError:
        return

    class Plain(RuntimeParam):
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            kind = self.annotation
            if kind is str and isinstance(value, str):
                return value
            if kind is bool and isinstance(value, bool):
                return value
            if kind is Path and isinstance(value, (str, Path)):
                # typer's own checks (readable, exists...), handed a Path so
                # that they need no pydantic to make one.
                return coerce_cli_path(Path(value), self.parameter_info,
                                       path_type=Path, param=param, ctx=ctx)
            if kind == List[str] and isinstance(value, (list, tuple)) and all(
                    isinstance(item, str) for item in value):
                return list(value)
            return build_runtime_param(param.type_descriptor).coerce(value, param, ctx)

    plain = (str, bool, Path, List[str])

    def mark(param: Any) -> None:
        descriptor = param.type_descriptor
        if (descriptor.file_annotation is None and descriptor.annotation in plain
                and param._runtime_param is None):
            param._runtime_param = Plain(annotation=descriptor.annotation,
                                         parameter_info=descriptor.parameter_info)

    def marked_help(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def get_help_option(ctx: Any) -> Any:  # made on first use, then kept
            option = original(ctx)
            if option is not None:
                mark(option)
            return option
        return get_help_option

    try:
        for sub in [command, *getattr(command, "commands", {}).values()]:
            for param in sub.params:
                mark(param)
            sub.get_help_option = marked_help(sub.get_help_option)
    except (AttributeError, TypeError):  # another typer: its own coercion
        return


def main(argv: Optional[List[str]] = None) -> int:
    """Run icm with ``argv``; return the exit code (never raises SystemExit).

    An interrupt anywhere ends with ``icm: interrupted`` and 130."""
    from icm.errors import INTERRUPTED, interrupted

    args = sys.argv[1:] if argv is None else list(argv)
    usage.prepare_completion()
    try:
        command = typer.main.get_command(app)
        _plain_params(command)
        result = command(args=args, prog_name="icm", standalone_mode=False)
    except SystemExit as exc:  # shell completion and typer's pipe handling
        code = exc.code
        if code is None:
            return 0
        code = code if isinstance(code, int) else 1
        return interrupted() if code == INTERRUPTED else code
    except usage.ClickUsageError as exc:
        message = usage.describe(exc, args)
        if message is None:  # bare ``icm``: the help, as click shows it
            exc.show()
        else:
            typer.echo(f"icm: {message}", err=True)
        return 2
    except (usage.ClickAbort, KeyboardInterrupt):
        return interrupted()
    code = result if isinstance(result, int) else 0
    return interrupted() if code == INTERRUPTED else code
