"""The one record every check emits, and the report a check returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Tuple


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Finding:
    """One thing a check says about one path.

    ``message`` is the complete text-format line (the seed's contract);
    ``detail`` is the same statement without the path, for json and github.
    Ordering is by path, then line, then ``rank`` (a check's own order within a
    file, such as slot order), so sorted output is deterministic.
    """

    path: str
    line: int = 0  # 1-based; 0 means the finding is about the whole file
    rank: int = 0
    message: str = field(default="", compare=True)
    check: str = field(default="", compare=False)
    code: str = field(default="", compare=False)
    severity: Severity = field(default=Severity.ERROR, compare=False)
    detail: str = field(default="", compare=False)
    fix: str = field(default="", compare=False)
    # check-specific json fields (dupes: both locations and texts)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # printed under ``message``, indented (a dry run's script): the text
    # renderer escapes each line on its own, so no other text breaks a line
    lines: Tuple[str, ...] = field(default=(), compare=False)

    @property
    def text(self) -> str:
        """``message`` with ``lines`` under it: the whole text."""
        return self.message + "".join(f"\n    {line}" for line in self.lines)

    def as_dict(self) -> Dict[str, Any]:
        doc = {
            "check": self.check,
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line or None,
            "message": self.detail or self.message,
            "text": self.text,
            "fix": self.fix or None,
        }
        for key, value in self.extra.items():
            doc.setdefault(key, value)
        return doc


@dataclass(frozen=True)
class Report:
    """What one check returns: findings plus the lines it prints around them."""

    check: str
    findings: Tuple[Finding, ...]
    head: Tuple[str, ...] = ()  # printed before the findings (bootmap's table)
    tail: Tuple[str, ...] = ()  # printed after them (summaries, "journal ok")
    data: Dict[str, Any] = field(default_factory=dict)  # extra json fields

    @property
    def failed(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)
