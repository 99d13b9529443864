"""Renderers: text (the seed's lines), json, github workflow commands, SARIF,
and concise (``PATH:LINE:COL: CODE MESSAGE``, for editors).

Every renderer takes its stream as an argument and is otherwise pure.
"""

from __future__ import annotations

import json
import re
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Optional,
    Sequence,
    TextIO,
    Tuple,
)
from urllib.parse import quote

from icm import __version__
from icm.escape import displayed, inert, printable, text_line, uncommanded
from icm.finding import Finding, Report, Rule, Severity, Silenced

# (rule, why, how to silence it, where the docs say more) for CHECK/CODE, or
# None: ``icm explain``'s text, and SARIF's rules
Describe = Callable[[str, str], Optional[Tuple[Rule, str, str, str]]]

_RED, _GREEN, _YELLOW, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[0m"
_OK = re.compile(r"\S+ ok(?: \(.*\))?\Z")  # "journal ok", "queue ok (against main)"


def render(reports: Sequence[Report], fmt: str, out: TextIO, color: bool = False,
           root: str = "", quiet: bool = False, summary: bool = False,
           prefix: str = "", held: "Optional[Silenced]" = None,
           describe: Optional[Describe] = None) -> None:
    """``summary``: end the text and github formats with ``summary_line``
    (``icm check``). ``prefix``: the root's path below the git work tree's
    top (``git rev-parse --show-prefix``), which github and sarif paths
    start with, since both resolve them from the top. ``held``: what the
    baseline and suppressions held back (counted in the summary; its own
    findings after the checks'). ``describe``: the rules' text for SARIF."""
    extra = Report("baseline", held.findings) if held and held.findings else None
    shown_reports = [*reports, extra] if extra else list(reports)
    if fmt == "json":
        render_json(reports, out, root, held)
    elif fmt == "github":
        render_github(shown_reports, out, quiet, prefix)
        if summary:  # a plain log line, escaped: never a command
            out.write(github_line(summary_line(reports, held)) + "\n")
    elif fmt == "sarif":
        render_sarif(shown_reports, out, root, prefix, describe)
    elif fmt == "concise":
        render_concise(shown_reports, out)
        if summary:
            out.write(text_line(summary_line(reports, held)) + "\n")
    else:
        render_text(shown_reports, out, color, quiet)
        if summary:
            line = text_line(summary_line(reports, held))
            if color:
                tint = _RED if any(r.failed for r in reports) else _GREEN
                line = f"{tint}{line}{_RESET}"
            out.write(line + "\n")


# -- escaping: every renderer passes repository text through these -----------
# ``printable`` and ``inert`` live in ``icm.escape`` so that checks share them.


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
    return _GITHUB_DATA.sub(lambda m: f"%{ord(m.group()):02X}",
                            displayed(printable(text)))


def github_property(text: str) -> str:
    """Escape a property value (``file=``, ``title=``) of a workflow command."""
    return _GITHUB_PROPERTY.sub(lambda m: f"%{ord(m.group()):02X}",
                                displayed(printable(text)))


def github_line(text: str) -> str:
    """A plain log line that the runner cannot read as a command: escaped
    like data, and a leading ``::`` or ``##`` (after whitespace) has its
    first character percent-escaped."""
    return uncommanded(github_data(text), ("::", "##"), "%{:02X}")


def one_line(text: str) -> str:
    """``text`` on one line in every format (``inert``, a tab as ``\\t``
    too); for error messages."""
    return inert(text).replace("\t", "\\t")


def escape_line(text: str, fmt: str) -> str:
    """One line icm writes outside a renderer (``--fix`` changes, errors),
    escaped for ``fmt``."""
    return github_line(text) if fmt == "github" else text_line(text)


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


def summary_line(reports: Sequence[Report], held: "Optional[Silenced]" = None
                 ) -> str:
    """``icm check: 2 of 5 checks failed (journal: 2 errors, links: 1 error)``
    or ``icm check: all 5 checks passed``; warnings are named in both; what
    the baseline and suppressions held back follows (``, 3 baselined``)."""
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
    held_back = "".join(f", {n} {what}" for n, what in (
        (held.baselined, "baselined"), (held.suppressed, "suppressed"),
        (held.repeated, "repeated"))
        if n) if held else ""
    return f"icm check: {head}" + (f" ({', '.join(parts)})" if parts else "") \
        + held_back


def render_text(reports: Sequence[Report], out: TextIO, color: bool = False,
                quiet: bool = False) -> None:
    for report in reports:
        head, findings, tail = shown(report, quiet)
        for line in map(text_line, head):
            out.write(line + "\n")
        for f in findings:
            line = text_line(f.line_text)
            if color:
                tint = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW}.get(f.severity)
                line = f"{tint}{line}{_RESET}" if tint else line
            out.write(line + "".join(f"\n{text_line('    ' + more)}"
                                     for more in f.lines)
                      + "\n")
        for line in map(text_line, tail):
            if color and _OK.match(line):
                line = f"{_GREEN}{line}{_RESET}"
            out.write(line + "\n")


def concise_line(f: Finding) -> str:
    """``PATH:LINE:COL: CHECK/CODE MESSAGE``, as flake8 and ruff print
    theirs (1 where the line or column is not known), unescaped."""
    return f"{f.path}:{f.line or 1}:{f.col or 1}: {f.check}/{f.code} {f.message}"


def render_concise(reports: Sequence[Report], out: TextIO) -> None:
    """One line per error or warning, for editors' problem matchers: no ok
    lines, no tables, no information (as ``github``), escaped as text."""
    for report in reports:
        for f in report.findings:
            if f.severity is not Severity.INFO:
                out.write(text_line(concise_line(f)) + "\n")


def explain_lines(check: str, code: str, rule: Rule, why: str,
                  silence: str, docs: str) -> List[str]:
    """What ``icm explain CHECK/CODE`` prints (and SARIF's rule help)."""
    said = [f"{check}/{code} ({rule.severity.value}): {rule.summary}",
            f"why: {rule.why or why}"]
    if rule.fix:
        said.append(f"fix: {rule.fix}")
    return said + [f"silence: {silence}", f"docs: {docs}"]


def finding_json(f: Finding) -> Dict[str, Any]:
    """One finding in the json document (its keys are documented)."""
    doc = {
        "check": f.check,
        "code": f.code,
        "severity": f.severity.value,
        "path": f.path,
        "line": f.line or None,
        "col": f.col or None,
        "message": f.message,
        "text": f.text,
        "fix": f.fix or None,
    }
    for key, value in f.extra.items():
        doc.setdefault(key, value)
    return doc


def as_document(reports: Sequence[Report], root: str = "",
                held: "Optional[Silenced]" = None) -> Dict[str, Any]:
    """The json document: stable keys, documented in docs/output.md."""
    checks = []
    totals = {"error": 0, "warning": 0, "info": 0}
    for report in reports:
        for f in report.findings:
            totals[f.severity.value] += 1
        checks.append({
            "check": report.check,
            "ok": not report.failed,
            "findings": [finding_json(f) for f in report.findings],
            "lines": [*report.head, *report.tail],
            "data": report.data,
        })
    doc: Dict[str, Any] = {
        "icm": __version__,
        "schema": 1,
        "root": root,
        "ok": not any(r.failed for r in reports),
        "summary": {"errors": totals["error"], "warnings": totals["warning"],
                    "info": totals["info"]},
        "checks": checks,
    }
    if held is not None:
        doc["baseline"] = {
            "file": held.file or None, "baselined": held.baselined,
            "suppressed": held.suppressed, "repeated": held.repeated,
            "unmatched": [{"check": k[0], "code": k[1], "path": k[2],
                           "message": k[3], "count": n} for k, n in held.unmatched]}
    return doc


def render_json(reports: Sequence[Report], out: TextIO, root: str = "",
                held: "Optional[Silenced]" = None) -> None:
    # Built whole before the first byte is written: the document is complete
    # or absent, never cut off.
    text = json.dumps(plain(as_document(reports, root, held)), indent=2,
                      ensure_ascii=False)
    out.write(text + "\n")


def from_top(prefix: str, path: str) -> str:
    """A root-relative path as GitHub resolves it, from the work tree's top
    (the root itself, ``.``, is the prefix's folder)."""
    if not prefix:
        return path
    return prefix.rstrip("/") if path == "." else prefix + path


def render_github(reports: Sequence[Report], out: TextIO,
                  quiet: bool = False, prefix: str = "") -> None:
    """``::error file=PATH,line=N,title=icm CODE::MESSAGE`` per finding;
    PATH from the work tree's top (GitHub resolves it from there)."""
    for report in reports:
        head, findings, tail = shown(report, quiet)
        for f in findings:
            if f.severity is Severity.INFO:
                continue
            props = [f"file={github_property(from_top(prefix, f.path))}"]
            if f.line:
                props.append(f"line={f.line}")
            props.append(f"title={github_property(f'icm {f.check}/{f.code}')}")
            message = f.text + (f" (fix: {f.fix})" if f.fix else "")
            level = "error" if f.severity is Severity.ERROR else "warning"
            out.write(f"::{level} {','.join(props)}::{github_data(message)}\n")
        for line in (*head, *tail):
            out.write(github_line(line) + "\n")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning",
                Severity.INFO: "note"}


def _rule_id(f: Finding) -> str:
    return f"{f.check}/{f.code}"


def as_sarif(reports: Sequence[Report], root: str = "",
             prefix: str = "", describe: Optional[Describe] = None
             ) -> Dict[str, Any]:
    """One SARIF 2.1.0 run: a rule per finding code, a result per finding.

    A stale note's ``ok`` verdict is a line of the text contract, not a
    result: code scanning would list every healthy note as an alert.
    ``%SRCROOT%`` is the work tree's top (code scanning resolves a location
    from the checkout), so each uri starts with the root's ``prefix``."""
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
            known = describe(f.check, f.code) if describe else None
            if known is not None:
                rules[rule]["fullDescription"] = {"text": known[0].summary}
                rules[rule]["help"] = {"text": "\n".join(
                    explain_lines(f.check, f.code, *known))}
            elif f.fix:
                rules[rule]["help"] = {"text": f.fix}
        location: Dict[str, Any] = {"artifactLocation": {
            "uri": quote(from_top(prefix, f.path), safe="/",
                         errors="surrogateescape"),
            "uriBaseId": "%SRCROOT%"}}
        if f.line:
            location["region"] = {"startLine": f.line}
        message = f.text + (f" (fix: {f.fix})" if f.fix else "")
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
        top = root.replace("\\", "/").rstrip("/")
        for _ in filter(None, prefix.split("/")):  # up to the work tree's top
            top = top.rsplit("/", 1)[0]
        base = quote(top, safe="/:", errors="surrogateescape") + "/"
        run["originalUriBaseIds"] = {"%SRCROOT%": {
            "uri": ("file://" if base.startswith("/") else "file:///") + base}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(reports: Sequence[Report], out: TextIO, root: str = "",
                 prefix: str = "", describe: Optional[Describe] = None) -> None:
    # Built whole first, like json: complete or absent, never cut off.
    text = json.dumps(plain(as_sarif(reports, root, prefix, describe)), indent=2,
                      ensure_ascii=False)
    out.write(text + "\n")
