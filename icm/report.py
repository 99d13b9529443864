"""Renderers: text (the seed's lines), json, github workflow commands.

Every renderer takes its stream as an argument and is otherwise pure.
"""

from __future__ import annotations

import json
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


def render_text(reports: Sequence[Report], out: TextIO, color: bool = False) -> None:
    for report in reports:
        for line in report.head:
            out.write(line + "\n")
        for f in report.findings:
            line = f.message
            if color:
                tint = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW}.get(f.severity)
                line = f"{tint}{line}{_RESET}" if tint else line
            out.write(line + "\n")
        for line in report.tail:
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
    json.dump(as_document(reports, root), out, indent=2, ensure_ascii=False)
    out.write("\n")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(reports: Sequence[Report], out: TextIO) -> None:
    """``::error file=PATH,line=N,title=icm CODE::MESSAGE`` per finding."""
    for report in reports:
        for f in report.findings:
            if f.severity is Severity.INFO:
                continue
            props = [f"file={_escape_property(f.path)}"]
            if f.line:
                props.append(f"line={f.line}")
            props.append(f"title={_escape_property(f'icm {f.check}/{f.code}')}")
            message = f.message + (f" (fix: {f.fix})" if f.fix else "")
            level = "error" if f.severity is Severity.ERROR else "warning"
            out.write(f"::{level} {','.join(props)}::{_escape_data(message)}\n")
        for line in (*report.head, *report.tail):
            out.write(line + "\n")
