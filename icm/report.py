"""Renderers: text (the seed's lines), json, github workflow commands.

Every renderer takes its stream as an argument and is otherwise pure.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Sequence, TextIO

from icm import __version__
from icm.finding import Report, Severity

FORMATS = ("text", "json", "github")

_RED, _GREEN, _YELLOW, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[0m"


def render(reports: Sequence[Report], fmt: str, out: TextIO, color: bool = False,
           root: str = "") -> None:
    if fmt == "json":
        render_json(reports, out, root)
    elif fmt == "github":
        render_github(reports, out)
    else:
        render_text(reports, out, color)


# -- escaping: every renderer passes repository text through these -----------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _byte_escape(m: "re.Match[str]") -> str:
    code = ord(m.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` as a stream can encode it: a file-name byte that is not UTF-8
    (held as a lone surrogate) becomes ``\\xNN``, as git and ls print it.
    Without this, ``print`` raises in a UTF-8 locale halfway through the
    output and a JSON document is cut off."""
    return _SURROGATE.sub(_byte_escape, text) if _SURROGATE.search(text) else text


def plain(value: Any) -> Any:
    """``printable`` applied to every string inside a json-able value."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# GitHub's runner reads a command from any stdout or stderr line that starts,
# after whitespace, with "::" (or the older "##["); in a command's data only
# %25, %0D and %0A are decoded, in its properties %3A and %2C as well. Other
# control characters are escaped too: they can redraw the log (ESC) and
# .NET splits lines on CR alone.
_GITHUB_DATA = re.compile("[%\x00-\x1f\x7f]")
_GITHUB_PROPERTY = re.compile("[%\x00-\x1f\x7f:,]")


def github_data(text: str) -> str:
    """Escape the data (message) part of a workflow command."""
    return _GITHUB_DATA.sub(lambda m: f"%{ord(m.group()):02X}", printable(text))


def github_property(text: str) -> str:
    """Escape a property value (``file=``, ``title=``) of a workflow command."""
    return _GITHUB_PROPERTY.sub(lambda m: f"%{ord(m.group()):02X}", printable(text))


def github_line(text: str) -> str:
    """A plain log line that the runner cannot read as a command: escaped
    like data, and a leading ``::`` or ``##`` (after whitespace) has its
    first character percent-escaped."""
    line = github_data(text)
    body = line.lstrip()
    if body.startswith(("::", "##")):
        cut = len(line) - len(body)
        line = f"{line[:cut]}%{ord(body[0]):02X}{body[1:]}"
    return line


_CONTROL = re.compile("[\x00-\x1f\x7f]")


def one_line(text: str) -> str:
    """``text`` on one line in every format: control characters (a newline
    in a folder name) as ``\\n``, ``\\r``, ``\\xNN``; for error messages."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], printable(text))


def escape_line(text: str, fmt: str) -> str:
    """One line icm writes outside a renderer (``--fix`` changes, errors),
    escaped for ``fmt``."""
    return github_line(text) if fmt == "github" else printable(text)


def render_text(reports: Sequence[Report], out: TextIO, color: bool = False) -> None:
    for report in reports:
        for line in report.head:
            out.write(printable(line) + "\n")
        for f in report.findings:
            line = printable(f.message)
            if color:
                tint = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW}.get(f.severity)
                line = f"{tint}{line}{_RESET}" if tint else line
            out.write(line + "\n")
        for line in map(printable, report.tail):
            if color and line.endswith(" ok"):
                line = f"{_GREEN}{line}{_RESET}"
            out.write(line + "\n")


def as_document(reports: Sequence[Report], root: str = "") -> Dict[str, Any]:
    """The json document: stable keys, documented in docs/output.md."""
    checks = []
    totals = {"error": 0, "warning": 0, "info": 0}
    for report in reports:
        for f in report.findings:
            totals[f.severity.value] += 1
        checks.append({
            "check": report.check,
            "ok": not report.failed,
            "findings": [f.as_dict() for f in report.findings],
            "lines": [*report.head, *report.tail],
            "data": report.data,
        })
    return {
        "icm": __version__,
        "schema": 1,
        "root": root,
        "ok": not any(r.failed for r in reports),
        "summary": {"errors": totals["error"], "warnings": totals["warning"],
                    "info": totals["info"]},
        "checks": checks,
    }


def render_json(reports: Sequence[Report], out: TextIO, root: str = "") -> None:
    # Built whole before the first byte is written: the document is complete
    # or absent, never cut off.
    text = json.dumps(plain(as_document(reports, root)), indent=2, ensure_ascii=False)
    out.write(text + "\n")


def render_github(reports: Sequence[Report], out: TextIO) -> None:
    """``::error file=PATH,line=N,title=icm CODE::MESSAGE`` per finding."""
    for report in reports:
        for f in report.findings:
            if f.severity is Severity.INFO:
                continue
            props = [f"file={github_property(f.path)}"]
            if f.line:
                props.append(f"line={f.line}")
            props.append(f"title={github_property(f'icm {f.check}/{f.code}')}")
            message = f.message + (f" (fix: {f.fix})" if f.fix else "")
            level = "error" if f.severity is Severity.ERROR else "warning"
            out.write(f"::{level} {','.join(props)}::{github_data(message)}\n")
        for line in (*report.head, *report.tail):
            out.write(github_line(line) + "\n")
