"""The one record every check emits, the rules that make them, and the
report a check returns. A finding says one thing once (``message``); each
renderer in ``icm/report.py`` decides its form."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Tuple


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Finding:
    """One thing a check says about one path.

    ``message`` is the statement without its place; the text line is
    ``PATH: message``, or ``message`` alone where the message names its
    place itself (``located``: the seed's ``broken link: A -> B``) or the
    finding is about the whole root (path ``.``). Ordering is by path, then
    line, then ``rank`` (a check's own order within a file, such as slot
    order), so sorted output is deterministic.
    """

    path: str
    line: int = 0  # 1-based; 0 means the finding is about the whole file
    rank: int = 0
    message: str = field(default="", compare=True)
    check: str = field(default="", compare=False)
    code: str = field(default="", compare=False)
    severity: Severity = field(default=Severity.ERROR, compare=False)
    fix: str = field(default="", compare=False)
    located: bool = field(default=False, compare=False)
    col: int = field(default=0, compare=False)  # 1-based; 0: not known
    # check-specific json fields (dupes: both locations and texts)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # printed under the text line, indented (a dry run's script): the text
    # renderer escapes each line on its own, so no other text breaks a line
    lines: Tuple[str, ...] = field(default=(), compare=False)
    # what names the finding beside check, code and path where the message's
    # wording moves (stale's verdict): the baseline keys on it, not on words
    subject: str = field(default="", compare=False)

    @property
    def line_text(self) -> str:
        """The text format's line (the seed's contract), unescaped."""
        if self.located or self.path == ".":
            return self.message
        return f"{self.path}: {self.message}"

    @property
    def text(self) -> str:
        """``line_text`` with ``lines`` under it: the whole text."""
        return self.line_text + "".join(f"\n    {line}" for line in self.lines)


@dataclass(frozen=True)
class Rule:
    """One rule code of a check: what it catches (``icm explain``, SARIF),
    its severity and its fix when the same for every finding."""

    summary: str
    severity: Severity = Severity.ERROR
    fix: str = ""
    why: str = ""  # why it matters, where the check's WHY does not say it
    # its findings are about a whole file (a note, an item's name), with no
    # line: only ``ignore-file`` silences one, as ``icm explain`` says
    whole_file: bool = False


# Read only, never changed (a dict each was 1.5 MiB of stale's 25,000
# findings at 500k): a finding with extra fields has its own.
_NO_EXTRA: Mapping[str, Any] = {}


class Rules:
    """A check's rule codes, and the one way its findings are made: a code
    must be one of them, and its severity and fix are the rule's unless the
    finding says otherwise."""

    def __init__(self, check: str, rules: Mapping[str, Rule]) -> None:
        self.check = check
        self.rules = dict(rules)

    def __iter__(self) -> Any:
        return iter(self.rules.items())

    def __getitem__(self, code: str) -> Rule:
        return self.rules[code]

    def __call__(self, code: str, path: str, message: str, *, line: int = 0,
                 rank: int = 0, col: int = 0, located: bool = False,
                 severity: Optional[Severity] = None, fix: Optional[str] = None,
                 extra: Optional[Mapping[str, Any]] = None,
                 lines: Tuple[str, ...] = (), subject: str = "") -> Finding:
        rule = self.rules[code]  # KeyError: a code the table does not know
        if line and rule.whole_file:  # the table says no line: a mistake here
            raise ValueError(f"{self.check}/{code} names a whole file, not a line")
        if fix is None and code != "skipped":
            fix = read_fix(read_failure(message)) or None
        return Finding(path=path, line=line, rank=rank, message=message,
                       check=self.check, code=code,
                       severity=rule.severity if severity is None else severity,
                       fix=rule.fix if fix is None else fix, located=located,
                       col=col, extra=dict(extra) if extra else _NO_EXTRA,
                       lines=lines, subject=subject)


@dataclass(frozen=True)
class Report:
    """What one check returns: findings plus the lines it prints around them."""

    check: str
    findings: Tuple[Finding, ...]
    head: Tuple[str, ...] = ()  # printed before the findings (bootmap's table)
    tail: Tuple[str, ...] = ()  # printed after them (summaries, "journal ok")
    data: Dict[str, Any] = field(default_factory=dict)  # extra json fields
    # The tail for fewer findings (``keeping``): an ok line or a count said
    # of findings a suppression or the baseline holds back would be false.
    retail: Optional[Callable[[Tuple[Finding, ...]], Tuple[str, ...]]] = field(
        default=None, compare=False, repr=False)

    @classmethod
    def of(cls, check: str, findings: Iterable[Finding], ok: bool = True,
           head: Tuple[str, ...] = (), tail: Tuple[str, ...] = (),
           data: Optional[Dict[str, Any]] = None,
           retail: Optional[Callable[[Tuple[Finding, ...]], Tuple[str, ...]]]
           = None) -> "Report":
        """Findings sorted; ``CHECK ok`` after them when none is an error
        and ``ok`` (False: the check had nothing to judge). ``retail``, if
        given, makes the tail from the findings instead."""
        found = tuple(sorted(findings))
        make = retail or OkTail(check, tail, ok)
        return cls(check, found, head=head, tail=make(found),
                   data=dict(data or {}), retail=make)

    def keeping(self, findings: Iterable[Finding]) -> "Report":
        """This report with only ``findings`` (a subset), its tail made
        again for them."""
        kept = tuple(findings)
        tail = self.retail(kept) if self.retail is not None else self.tail
        return replace(self, findings=kept, tail=tail)

    @property
    def failed(self) -> bool:
        return failing(self.findings)


def failing(findings: Iterable[Finding]) -> bool:
    """Whether any of ``findings`` is an error (what fails a run)."""
    return any(f.severity is Severity.ERROR for f in findings)


@dataclass(frozen=True)
class OkTail:
    """``Report.of``'s tail: ``tail``, then ``CHECK ok`` when no finding
    left is an error and ``ok``. Data, not a closure, so a memoised report
    makes its tail again for what the baseline leaves (``engine``)."""

    check: str
    tail: Tuple[str, ...]
    ok: bool

    def __call__(self, found: Tuple[Finding, ...]) -> Tuple[str, ...]:
        return self.tail + ((f"{self.check} ok",) if self.ok and not failing(found)
                            else ())


CANNOT_READ = "cannot read: "


def cannot_read(reason: str) -> str:
    """The statement of a file a check cannot read, the same in each."""
    return CANNOT_READ + reason


def read_failure(message: str) -> str:
    """Why a finding's message says its file cannot be read (``cannot_read``,
    or stale's ``unknown - cannot read: ...``); "" for any other message."""
    head, sep, reason = message.partition(CANNOT_READ)
    return reason if sep and head in ("", "unknown - ") else ""


# What to do about a file that cannot be read, by its reason where saving
# it as UTF-8 (the rules' own hint) is not the fix: a dangling symlink read
# "save the file as UTF-8" (drap's four notes).
_READ_FIXES = (
    ("no such file", "point the symlink at a file that exists, or remove it"),
    ("Too many levels of symbolic links", "break the symlink loop"),
    ("outside the repository", "keep the file inside the repository: a "
                               "symlink out of the root is never followed"),
    ("permission denied", "make the file readable"),
    ("is a directory", "rename the folder: a name ending in .md is read as a file"),
    ("not a regular file", "make it a regular file"),
)


def read_fix(reason: str) -> str:
    """The hint for a file that cannot be read for ``reason``; "" where the
    rule's own hint holds (or ``reason`` is "")."""
    return next((fix for cause, fix in _READ_FIXES if reason and cause in reason), "")


@dataclass(frozen=True)
class Silenced:
    """What ``judge`` held back: the counts the summary names, and the
    baseline's own finding when entries match nothing."""

    baselined: int = 0
    suppressed: int = 0
    # a file another check of the run already said it cannot read
    repeated: int = 0
    file: str = ""  # FILE when a baseline was read
    # baseline entries that matched nothing: (check, code, path, message
    # with # for numbers), count
    unmatched: Tuple[Tuple[Tuple[str, str, str, str], int], ...] = ()
    findings: Tuple[Finding, ...] = ()
