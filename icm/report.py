"""Renderers: text (the seed's lines), json, github workflow commands, SARIF.

Every renderer takes its stream as an argument and is otherwise pure.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Sequence, TextIO, Tuple
from urllib.parse import quote

from icm import __version__
from icm.finding import Finding, Report, Severity

FORMATS = ("text", "json", "github", "sarif")

_RED, _GREEN, _YELLOW, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[0m"


def render(reports: Sequence[Report], fmt: str, out: TextIO, color: bool = False,
           root: str = "", quiet: bool = False, summary: bool = False) -> None:
    """``summary``: end the text format with ``summary_line`` (``icm check``)."""
    if fmt == "json":
        render_json(reports, out, root)
    elif fmt == "github":
        render_github(reports, out, quiet)
    elif fmt == "sarif":
        render_sarif(reports, out, root)
    else:
        render_text(reports, out, color, quiet)
        if summary:
            line = summary_line(reports)
            if color:
                tint = _RED if any(r.failed for r in reports) else _GREEN
                line = f"{tint}{line}{_RESET}"
            out.write(line + "\n")


Shown = Tuple[Tuple[str, ...], Tuple[Finding, ...], Tuple[str, ...]]


def shown(report: Report, quiet: bool = False) -> Shown:
    """(head, findings, tail) to print. Quiet keeps errors and warnings with
    the lines around them, and drops a check with neither entirely (its
    ``ok`` lines, bootmap's table within budget)."""
    if not quiet:
        return report.head, report.findings, report.tail
    problems = tuple(f for f in report.findings if f.severity is not Severity.INFO)
    if not problems:
        return (), (), ()
    return report.head, problems, report.tail


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def summary_line(reports: Sequence[Report]) -> str:
    """``icm check: 2 of 5 checks failed (journal: 2 errors, links: 1 error)``
    or ``icm check: all 5 checks passed``; warnings are named in both."""
    parts: List[str] = []
    for report in reports:
        errors = sum(f.severity is Severity.ERROR for f in report.findings)
        warnings = sum(f.severity is Severity.WARNING for f in report.findings)
        said = [_count(n, noun) for n, noun in ((errors, "error"),
                                               (warnings, "warning")) if n]
        if said:
            parts.append(f"{report.check}: {' and '.join(said)}")
    failed = sum(r.failed for r in reports)
    total = _count(len(reports), "check")
    head = f"{failed} of {total} failed" if failed else (
        f"all {total} passed" if len(reports) > 1 else f"{total} passed")
    return f"icm check: {head}" + (f" ({', '.join(parts)})" if parts else "")


def render_text(reports: Sequence[Report], out: TextIO, color: bool = False,
                quiet: bool = False) -> None:
    for report in reports:
        head, findings, tail = shown(report, quiet)
        for line in head:
            out.write(line + "\n")
        for f in findings:
            line = f.message
            if color:
                tint = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW}.get(f.severity)
                line = f"{tint}{line}{_RESET}" if tint else line
            out.write(line + "\n")
        for line in tail:
            if color and line.endswith(" ok"):
                line = f"{_GREEN}{line}{_RESET}"
            out.write(line + "\n")


def as_document(reports: Sequence[Report], root: str = "") -> Dict[str, Any]:
    """The json document: stable keys, documented in the README."""
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


def render_github(reports: Sequence[Report], out: TextIO,
                  quiet: bool = False) -> None:
    """``::error file=PATH,line=N,title=icm CODE::MESSAGE`` per finding."""
    for report in reports:
        head, findings, tail = shown(report, quiet)
        for f in findings:
            if f.severity is Severity.INFO:
                continue
            props = [f"file={_escape_property(f.path)}"]
            if f.line:
                props.append(f"line={f.line}")
            props.append(f"title={_escape_property(f'icm {f.check}/{f.code}')}")
            message = f.message + (f" (fix: {f.fix})" if f.fix else "")
            level = "error" if f.severity is Severity.ERROR else "warning"
            out.write(f"::{level} {','.join(props)}::{_escape_data(message)}\n")
        for line in (*head, *tail):
            out.write(line + "\n")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning",
                Severity.INFO: "note"}


def _rule_id(f: Finding) -> str:
    return f"{f.check}/{f.code}"


def as_sarif(reports: Sequence[Report], root: str = "") -> Dict[str, Any]:
    """One SARIF 2.1.0 run: a rule per finding code, a result per finding.

    A stale note's ``ok`` verdict is a line of the text contract, not a
    result: code scanning would list every healthy note as an alert."""
    findings = [f for r in reports for f in r.findings if f.code != "ok"]
    rules: Dict[str, Dict[str, Any]] = {}
    index: Dict[str, int] = {}
    results = []
    for f in findings:
        rule = _rule_id(f)
        if rule not in rules:
            index[rule] = len(rules)
            rules[rule] = {
                "id": rule,
                "name": "".join(w.capitalize() for w in
                                f"{f.check}-{f.code}".split("-")),
                "shortDescription": {"text": f"{f.check}: "
                                     f"{f.code.replace('-', ' ')}"},
                "defaultConfiguration": {"level": _SARIF_LEVEL[f.severity]},
            }
            if f.fix:
                rules[rule]["help"] = {"text": f.fix}
        location: Dict[str, Any] = {"artifactLocation": {
            "uri": quote(f.path, safe="/"), "uriBaseId": "%SRCROOT%"}}
        if f.line:
            location["region"] = {"startLine": f.line}
        message = f.message + (f" (fix: {f.fix})" if f.fix else "")
        results.append({
            "ruleId": rule,
            "ruleIndex": index[rule],
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": message},
            "locations": [{"physicalLocation": location}],
        })
    run: Dict[str, Any] = {
        "tool": {"driver": {"name": "icm", "version": __version__,
                            "rules": list(rules.values())}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if root:
        base = quote(root.replace("\\", "/").rstrip("/"), safe="/:") + "/"
        run["originalUriBaseIds"] = {"%SRCROOT%": {
            "uri": ("file://" if base.startswith("/") else "file:///") + base}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(reports: Sequence[Report], out: TextIO, root: str = "") -> None:
    json.dump(as_sarif(reports, root), out, indent=2, ensure_ascii=False)
    out.write("\n")
