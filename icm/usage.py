"""Parser errors in icm's own words: one ``icm: ...`` line that names the
option and what it accepts, never the wording of typer's parser; the
command class that shows arguments as ``TITLE``; shell completion."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any, Callable, List, Sequence

from typer.core import TyperCommand

from icm.values import ACCEPTS, SHELLS, choice, quote

_COMPLETE_VAR = "_ICM_COMPLETE"


def describe(exc: Any, args: Sequence[str]) -> str:
    """The one line for a parser error (``exc``: a ``typer.TyperException``).
    The parser's error kinds are told apart by what they carry, so that no
    private module of typer is imported."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "icm"
    option = getattr(exc, "option_name", None)
    if option is not None and hasattr(exc, "possibilities"):  # no such option
        known = [o for p in (ctx.command.params if ctx is not None else ())
                 for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]
        near = difflib.get_close_matches(option, known, n=1, cutoff=0.75)
        hint = f"did you mean {near[0]}?" if near else f"see '{command} --help'"
        return f"unknown option {quote(option)} for '{command}' ({hint})"
    message = exc.format_message()
    if option is not None:  # a flag given a value, or an option none
        if "does not take a value" in message:
            return f"{option} takes no value (it is a flag)"
        accepts = ACCEPTS.get(option)
        return f"{option} needs a value" + (f": {accepts}" if accepts else "")
    param = getattr(exc, "param", None)
    if hasattr(exc, "param_type") and param is not None and ctx is not None:
        name = param.metavar or (param.name or "").upper()
        accepts = f": {ACCEPTS[name]}" if name in ACCEPTS else ""
        line = " ".join([command, *ctx.command.collect_usage_pieces(ctx)])
        return f"{ctx.info_name} needs {name}{accepts} (usage: {line})"
    if ctx is not None and ctx.parent is None and message.startswith(
            "No such command"):
        return _unknown_command(ctx, args)
    extra = re.match(r"Got unexpected extra argument\S* \((.*)\)$", message)
    if extra:
        return f"unexpected argument {quote(extra.group(1))} for '{command}'"
    return f"{command}: {message[:1].lower()}{message[1:]}".replace("\n", " ")


def _unknown_command(ctx: Any, args: Sequence[str]) -> str:
    name = next((a for a in args if not a.startswith("-")), "")
    commands = list(getattr(ctx.command, "commands", {}))
    near = difflib.get_close_matches(name, commands, n=1)
    hint = f"did you mean '{near[0]}'?" if near else "commands: " + ", ".join(commands)
    return f"unknown command {quote(name)} ({hint})"


class Command(TyperCommand):
    """A command whose arguments read ``TITLE`` in its usage line and help,
    not typer's ``{TITLE}`` and ``TITLE <str>`` (``cls=`` is typer's way to
    shape a command)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.param_type_name == "argument" and param.metavar:
                param.display_type_rich = lambda ctx: None  # type: ignore

    def collect_usage_pieces(self, ctx: Any) -> List[str]:
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else
                p[1:-4] + "..." if p.startswith("{") and p.endswith("}...") else p
                for p in super().collect_usage_pieces(ctx)]


def completion_script(shell: str) -> str:
    """typer's completion script for ``shell``, calling back into ``icm``."""
    # typer.completion is public; these are the names its own
    # --show-completion runs (imported there, so mypy sees no export)
    from typer.completion import (  # type: ignore[attr-defined]
        get_completion_script,
    )

    choice("SHELL", shell, SHELLS)
    return get_completion_script(prog_name="icm", complete_var=_COMPLETE_VAR,
                                 shell=shell)


def prepare_completion() -> bool:
    """Register typer's shell classes when a completion script calls back;
    whether it does."""
    if not os.environ.get(_COMPLETE_VAR):
        return False
    from typer.completion import completion_init  # type: ignore[attr-defined]

    completion_init()
    return True


def plain_params(command: Any) -> None:
    """Coerce icm's parameters (str, bool, Path, List[str]; every value is
    checked in ``icm.values``) without pydantic. typer 0.29 builds a pydantic
    TypeAdapter per parameter on first use and offers no public way around
    it; importing pydantic for it is 80 ms of CPU, 0.14 -> 0.22 s for a
    warm ``check-links`` (journal 2026-12-01_one-registry). This is the one
    place icm reaches into typer's private modules; anything else keeps
    typer's own coercion, and a typer without this machinery is left as it
    is."""
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
