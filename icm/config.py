"""Load ``icm.toml`` or ``[tool.icm]`` from ``pyproject.toml``, strictly.

``icm.toml`` wins when both exist (as ``ruff.toml`` beats ``pyproject.toml``):
a dedicated file is the more deliberate statement. Every key is validated; an
unknown key or a wrong type is an error naming the file and the key.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from icm.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

CONFIG_FILES = ("icm.toml", "pyproject.toml")

DEFAULT_SLOTS = ("Decision", "Rejected alternative", "Invariant", "Verify command")


@dataclass(frozen=True)
class Config:
    handbook: str = "AGENTS.md"
    note_name: str = "context.md"
    journal_dir: str = "journal"
    queue_dir: str = "queue"
    slots: Tuple[str, ...] = DEFAULT_SLOTS
    journal_exempt: Tuple[str, ...] = ()
    budget: int = 1600
    boot: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    links_ignore: Tuple[str, ...] = ()
    stale_scope: str = "folder"
    stale_history: str = "first-parent"
    max_file_bytes: int = 10_000_000
    source: str = ""  # where it was read from, for messages; not a key


# key -> (kind, allowed values or None)
_SCHEMA: Dict[str, Tuple[str, Optional[Tuple[str, ...]]]] = {
    "handbook": ("path", None),
    "note_name": ("name", None),
    "journal_dir": ("path", None),
    "queue_dir": ("path", None),
    "slots": ("list", None),
    "journal_exempt": ("list", None),
    "budget": ("int", None),
    "boot": ("list", None),
    "exclude": ("list", None),
    "links_ignore": ("list", None),
    "stale_scope": ("enum", ("folder", "subtree")),
    "stale_history": ("enum", ("first-parent", "all")),
    "max_file_bytes": ("int", None),
}
KNOWN_KEYS = tuple(_SCHEMA)
assert set(KNOWN_KEYS) == {f.name for f in fields(Config)} - {"source"}


def find_config(root: Path) -> Optional[Path]:
    """Return the config file that applies at ``root``, if any."""
    icm_toml = root / "icm.toml"
    if icm_toml.is_file():
        return icm_toml
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and _has_tool_icm(pyproject):
        return pyproject
    return None


def _has_tool_icm(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    return "[tool.icm" in text or "tool.icm" in text


def load(root: Path) -> Config:
    """Read and validate the configuration that applies at ``root``."""
    path = find_config(root)
    if path is None:
        return Config()
    name = path.name
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        raise UsageError(f"{name}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{name}: not valid UTF-8") from None
    _check_cost(name, text)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{name}: invalid TOML: {exc}") from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise UsageError(f"{name}: invalid TOML: nested too deeply") from None
    if name == "pyproject.toml":
        table = doc.get("tool", {}).get("icm", {})
        where = "[tool.icm]"
    else:
        table = doc
        where = "icm.toml"
    if not isinstance(table, dict):
        raise UsageError(f"{name}: {where} must be a table")
    return validate(table, name, where)


# tomllib's time grows with the square of a dotted key's length
# (``x.x.x...``: 8,000 parts take 0.65 s, 500,000 would take an hour); dots
# per line squared bounds it, with a cap no real config comes near (about
# a second of parsing).
MAX_DOT_COST = 100_000_000


def _check_cost(name: str, text: str) -> None:
    cost = 0
    for number, line in enumerate(text.split("\n"), 1):
        dots = line.count(".")
        cost += dots * dots
        if cost > MAX_DOT_COST:
            raise UsageError(f"{name}: line {number}: too many dotted key parts "
                             "for a config file; not parsed")


def validate(table: Mapping[str, Any], name: str, where: str) -> Config:
    """Turn a parsed table into a Config, or raise UsageError naming the key."""
    values: Dict[str, Any] = {}
    for key, value in table.items():
        if key not in _SCHEMA:
            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UsageError(f"{name}: unknown key '{key}' in {where}{hint}")
        kind, allowed = _SCHEMA[key]
        values[key] = _check_value(key, value, kind, allowed, name, where)
    return Config(source=name, **values)


def _check_value(
    key: str,
    value: Any,
    kind: str,
    allowed: Optional[Tuple[str, ...]],
    name: str,
    where: str,
) -> Any:
    def bad(expected: str) -> UsageError:
        return UsageError(
            f"{name}: key '{key}' in {where} must be {expected}, "
            f"not {_describe(value)}"
        )

    if kind in ("path", "name"):
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string")
        if kind == "name" and ("/" in value or "\\" in value):
            raise bad("a file name without a folder")
        if kind == "path" and (value.startswith("/") or ".." in value.split("/")):
            raise bad("a path inside the repository")
        return value.strip("/") if kind == "path" else value
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
        return tuple(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        if value <= 0:
            raise bad("a positive integer")
        return value
    if kind == "enum":
        assert allowed is not None
        if value not in allowed:
            options = " or ".join(f"'{a}'" for a in allowed)
            raise bad(options)
        return value
    raise AssertionError(kind)  # pragma: no cover


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a float ({value})"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
