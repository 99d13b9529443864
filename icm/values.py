"""Option values in icm's own words: each arrives as a string and is
checked here, so an error names the option and what it accepts, never the
wording of typer's parser or its validation library. No typer import: the
registry's option parsers use these too."""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Dict, Optional, Sequence

from icm.errors import UsageError

FORMATS = ("text", "json", "github", "sarif", "concise")
TOKENIZERS = ("bytes", "cl100k", "o200k")
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
FORMAT_METAVAR = "[" + "|".join(FORMATS) + "]"


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


