"""Module path aliases of TypeScript and JavaScript (``@/components/x`` for
``src/components/x``): ``compilerOptions.paths`` of the root's
``tsconfig*.json`` and ``jsconfig*.json``, read as data (JSON with comments
and trailing commas, each file capped, a few files), never by running a
compiler. A note's ``@/...`` is then a module the tree has, one it lacks,
or an alias no config maps (unknown, not broken)."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from icm.context import Context, Unreadable, decode

MAX_CONFIG_BYTES = 256 * 1024
MAX_CONFIGS = 16
_CONFIG = re.compile(r"[jt]sconfig[\w.-]*\.json")
_JSONC = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?(?:\*/|\Z)|,(?=\s*[]}])',
                    re.S)


@dataclass(frozen=True)
class Alias:
    pattern: str  # "@/*", or an exact specifier
    targets: Tuple[str, ...]  # root-relative, "*" kept
    config: str  # the file that maps it


def strip_jsonc(text: str) -> str:
    """JSON from JSON with comments: comments and trailing commas out,
    strings untouched (one left-to-right scan: linear)."""
    return _JSONC.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else "", text)


def load(ctx: Context) -> Tuple[Alias, ...]:
    """The aliases of the root's configs that start with ``@`` (as an
    import does), longest pattern first (the one the compiler picks); a
    config that cannot be read maps nothing."""
    names = sorted(f for f in ctx.file_set if "/" not in f and _CONFIG.fullmatch(f))
    found: List[Alias] = []
    for name in names[:MAX_CONFIGS]:
        try:
            data: Any = json.loads(strip_jsonc(decode(
                name, ctx.read_bytes(name, MAX_CONFIG_BYTES))))
        except (Unreadable, ValueError, RecursionError):
            continue
        options = data.get("compilerOptions") if isinstance(data, dict) else None
        if not isinstance(options, dict) or not isinstance(options.get("paths"), dict):
            continue
        base = options.get("baseUrl")
        base = base if isinstance(base, str) else "."
        for pattern, targets in options["paths"].items():
            if not pattern.startswith("@") or not isinstance(targets, list):
                continue  # "*" or "~/*": no note's @path reads as it
            found.append(Alias(pattern, tuple(
                posixpath.normpath(posixpath.join(base, t)).lstrip("/")
                for t in targets if isinstance(t, str)), name))
    return tuple(sorted(found, key=lambda a: (-len(a.pattern), a.pattern, a.config)))


def match(aliases: Tuple[Alias, ...], spec: str) -> Optional[Tuple[Alias, List[str]]]:
    """The alias that maps ``spec`` and the paths it names, or None."""
    for alias in aliases:
        head, star, tail = alias.pattern.partition("*")
        if not star:
            if spec == alias.pattern:
                return alias, list(alias.targets)
        elif spec.startswith(head) and spec.endswith(tail) \
                and len(spec) >= len(head) + len(tail):
            middle = spec[len(head):len(spec) - len(tail)]
            return alias, [t.replace("*", middle, 1) for t in alias.targets]
    return None


def module_exists(ctx: Context, path: str) -> bool:
    """Whether ``path`` names a module the file set has: a file, one with
    extensions (``x.ts``, ``x.d.ts``; ``ai.*`` read as ``ai.``: cogni's
    ``@/contracts/ai.*``), or a folder (its index or package)."""
    path = path.rstrip("/.*")
    if not path or path.startswith("../") or path == "..":
        return False
    return path in ctx.file_set or any(
        next(ctx.under(path + end), None) is not None for end in (".", "/"))
