"""Usage errors in icm's own words: one ``icm: ...`` line that names the option
and what it accepts, never the wording of typer's parser or its validation
library. Option values arrive as strings and are checked here."""

from __future__ import annotations

import calendar
import difflib
import os
import re
from datetime import date
from typing import Any, Dict, List, Optional, Sequence

import typer
from typer._click import exceptions as _click_exc
from typer.core import TyperCommand

from icm.errors import UsageError
from icm.report import FORMATS

ClickUsageError = _click_exc.UsageError
ClickAbort = typer.Abort

TOKENIZERS = ("bytes", "cl100k", "o200k")
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
FORMAT_METAVAR = "[" + "|".join(FORMATS) + "]"
TOKENIZER_METAVAR = "[" + "|".join(TOKENIZERS) + "]"

_COMPLETE_VAR = "_ICM_COMPLETE"


def _one_of(names: Sequence[str]) -> str:
    return "one of: " + ", ".join(names)


# What each option taking a value accepts, for "needs a value" messages.
ACCEPTS: Dict[str, str] = {
    "--format": _one_of(FORMATS),
    "--tokenizer": _one_of(TOKENIZERS),
    "--budget": "a positive integer",
    "--jobs": "a whole number, 0 for one per core",
    "--tail": "a whole number from 0 to 4",
    "--to": "a positive integer",
    "--root": "a folder",
    "--date": "a date as YYYY-MM-DD",
    "SHELL": _one_of(SHELLS),
}


def quote(text: str) -> str:
    """``'text'``, with control characters escaped as Python would."""
    return repr(text) if any(not c.isprintable() for c in text) or "'" in text \
        else f"'{text}'"


def choice(option: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise UsageError(f"{option} must be {_one_of(allowed)} (not {quote(value)})")
    return value


def number(option: str, value: Optional[str], minimum: int) -> Optional[int]:
    """A whole number of at least ``minimum`` (0 or 1), or None when absent."""
    if value is None:
        return None
    text = value.strip()
    if not re.fullmatch(r"[0-9]{1,9}", text) or int(text) < minimum:
        raise UsageError(f"{option} must be {ACCEPTS[option]} (not {quote(value)})")
    return int(text)


def check_options(fmt: str, options: Dict[str, object]) -> Dict[str, object]:
    """Validate the shared check options; return them converted."""
    choice("--format", fmt, FORMATS)
    opts = dict(options)
    if "budget" in opts:
        opts["budget"] = number("--budget", _str(opts["budget"]), 1)
    if "jobs" in opts:
        opts["jobs"] = number("--jobs", _str(opts["jobs"]), 0) or 0
    if "tokenizer" in opts:
        choice("--tokenizer", str(opts["tokenizer"]), TOKENIZERS)
    return opts


def _str(value: object) -> Optional[str]:
    return None if value is None else str(value)


def parse_date(option: str, value: str) -> date:
    """A calendar date from YYYY-MM-DD; say which part does not exist."""
    m = re.fullmatch(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", value)
    if not m:
        raise UsageError(f"{option} must be YYYY-MM-DD, not {quote(value)}")
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12:
        raise UsageError(f"{option} {value} does not exist: there is no month "
                         f"{m.group(2)}")
    if not year or not day:
        part = "year 0000" if not year else "day 00"
        raise UsageError(f"{option} {value} does not exist: there is no {part}")
    days = calendar.monthrange(year, month)[1]
    if day > days:
        raise UsageError(f"{option} {value} does not exist: "
                         f"{calendar.month_name[month]} {year} has {days} days")
    return date(year, month, day)


def describe(exc: ClickUsageError, args: Sequence[str]) -> Optional[str]:
    """The one line for a parser error (None: bare ``icm``, show the help)."""
    if isinstance(exc, _click_exc.NoArgsIsHelpError):
        return None
    ctx = exc.ctx
    command = ctx.command_path if ctx is not None else "icm"
    if isinstance(exc, _click_exc.NoSuchOption):
        known = [o for p in (ctx.command.params if ctx is not None else ())
                 for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]
        near = difflib.get_close_matches(exc.option_name, known, n=1, cutoff=0.75)
        hint = f"did you mean {near[0]}?" if near else f"see '{command} --help'"
        return f"unknown option {quote(exc.option_name)} for '{command}' ({hint})"
    if isinstance(exc, _click_exc.BadOptionUsage):
        name = exc.option_name
        if "does not take a value" in exc.message:
            return f"{name} takes no value (it is a flag)"
        accepts = ACCEPTS.get(name)
        return f"{name} needs a value" + (f": {accepts}" if accepts else "")
    if isinstance(exc, _click_exc.MissingParameter) and exc.param is not None \
            and ctx is not None:
        name = exc.param.metavar or (exc.param.name or "").upper()
        accepts = f": {ACCEPTS[name]}" if name in ACCEPTS else ""
        line = " ".join([command, *ctx.command.collect_usage_pieces(ctx)])
        return f"{ctx.info_name} needs {name}{accepts} (usage: {line})"
    if ctx is not None and ctx.parent is None and exc.message.startswith(
            "No such command"):
        return _unknown_command(ctx, args)
    extra = re.match(r"Got unexpected extra argument\S* \((.*)\)$", exc.message)
    if extra:
        return f"unexpected argument {quote(extra.group(1))} for '{command}'"
    text = exc.format_message()
    return f"{command}: {text[:1].lower()}{text[1:]}".replace("\n", " ")


def _unknown_command(ctx: Any, args: Sequence[str]) -> str:
    name = next((a for a in args if not a.startswith("-")), "")
    commands = list(getattr(ctx.command, "commands", {}))
    near = difflib.get_close_matches(name, commands, n=1)
    hint = f"did you mean '{near[0]}'?" if near else "commands: " + ", ".join(commands)
    return f"unknown command {quote(name)} ({hint})"


class Command(TyperCommand):
    """A command whose arguments read ``TITLE`` in its usage line and help,
    not typer's ``{TITLE}`` and ``TITLE <str>``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.param_type_name == "argument" and param.metavar:
                param.display_type_rich = lambda ctx: None  # type: ignore

    def collect_usage_pieces(self, ctx: Any) -> List[str]:
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p
                for p in super().collect_usage_pieces(ctx)]


def completion_script(shell: str) -> str:
    """typer's completion script for ``shell``, calling back into ``icm``."""
    from typer._completion_shared import get_completion_script

    choice("SHELL", shell, SHELLS)
    return get_completion_script(prog_name="icm", complete_var=_COMPLETE_VAR,
                                 shell=shell)


def prepare_completion() -> None:
    """Register typer's shell classes when a completion script calls back."""
    if os.environ.get(_COMPLETE_VAR):
        from typer._completion_classes import completion_init

        completion_init()
