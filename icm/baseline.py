"""What a run holds back, and says it held: findings an inline suppression
silences, and the findings ``icm-baseline.json`` records.

Beside the engine, not in it: the checks find everything, and this filters
what they found (``judge``) for ``icm check``; ``icm baseline``, the writer,
is ``icm/workflow/baseline.py``. Both use one identity of a finding
(``key``): its check, code and path, and its ``subject`` where the check
names one (stale: the note's folder; its verdict's words move, as with a
whitespace-only commit), else its message with the numbers that move (line
numbers, days, token counts) written ``#``, so a line shift or another day
keeps a finding baselined, while a new broken link in the same file is a
new finding. An entry written before subjects (a stale message's words)
still holds its note's finding; ``icm baseline`` writes it anew. Like
PHPStan's baseline a key carries a ``count``: a third copy of a finding
baselined twice fails. A key's entry whose finding is gone is one warning
(``baseline/unmatched``): the file only shrinks, and the commit that fixes
a finding is never refused for it.

Inline: ``<!-- icm: ignore CODE[, CODE] -->`` alone on a line silences those
codes on the next line; at the end of a line, on that line;
``<!-- icm: ignore-file CODE -->`` in the whole file. A CODE is a check
(``links``) or one of its codes (``links/missing-anchor``), as ``--select``
takes them. ``<!-- icm: allow-duplicate -->`` is ``ignore dupes``. Fenced
code holds examples, never a suppression. Only errors and warnings are
silenced: information fails nothing, and a clean run reads no file more.

The baseline is repository text: read through ``icm.paths``, at most
``max_file_bytes``, validated key by key; a bad file is one line and exit 2.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Set,
    Tuple,
)

from icm import lines as lines_mod
from icm import registry
from icm.context import MARKDOWN_SUFFIXES, Context, Unreadable, decode, read_file
from icm.errors import UsageError
from icm.finding import Finding, Report, Rule, Rules, Severity, Silenced, read_failure

FILE = "icm-baseline.json"
VERSION = 1
NAME = "baseline"
WHY = ("A gate adopted on an old repository is red on day one; a baseline "
       "lets today's findings stand while every new one fails, and shows "
       "what has been fixed since, so the file only shrinks.")
SILENCE = "icm baseline drops the entries that match nothing; nothing else does"
RULES = Rules(NAME, {
    "unmatched": Rule("baseline entries match no finding any more (fixed, or "
                      "changed)", Severity.WARNING,
                      fix="icm baseline (drops them; adds nothing)"),
})
ENTRY_KEYS = ("check", "code", "path", "message", "count")
MAX_COUNT = 10 ** 9

# Numbers standing alone (``:12``, ``lines 5, 20``, ``8 days``, ``740
# tokens``) move with every edit; a number inside a name (``queue/07_a.md``,
# ``1a3e64c``, ``v2``) does not, and names the thing.
_NUMBER = re.compile(r"(?<![\w./-])[0-9]+(?![\w/-]|\.[0-9])")
# A line range after a path (``a/AGENTS.md:10-52``, a copied section) moves
# with every edit as a line does.
_RANGE = re.compile(r"(?<=[\w.]:)[0-9]+-[0-9]+(?![\w/-]|\.[0-9])")

Key = Tuple[str, str, str, str]  # check, code, path, message with # for numbers


def identity(message: str) -> str:
    """``message`` with its moving numbers written ``#``."""
    return _NUMBER.sub("#", _RANGE.sub("#-#", message))


def key(f: Finding) -> Key:
    return (f.check, f.code, f.path, f.subject or identity(f.message))


def taker(entries: Mapping[Key, int]
          ) -> Tuple[Dict[Key, int], Callable[[Finding], Optional[Key]]]:
    """What is left of ``entries``, and the one match of a finding to an
    entry, which it takes (at most each count): its key, or for a finding
    with a ``subject`` (one per check, code and path) an entry of the same
    check, code and path, as written before subjects (its message's words)."""
    left = dict(entries)
    loose: Dict[Tuple[str, str, str], List[Key]] = {}
    unread: Dict[str, List[Key]] = {}  # a file's cannot-read entries, any check
    for k in entries:
        loose.setdefault(k[:3], []).append(k)
        if read_failure(k[3]):
            unread.setdefault(k[2], []).append(k)

    def take(f: Finding) -> Optional[Key]:
        if not entries:  # no baseline: no key to make (5,102 findings: 70 ms)
            return None
        k = key(f)
        if not left.get(k) and f.subject:
            k = next((o for o in loose.get(k[:3], ()) if left.get(o)), k)
        if not left.get(k) and read_failure(f.message):
            # run alone, a check meets the file the run of all baselined
            # under the first check that could not read it
            k = next((o for o in unread.get(f.path, ()) if left.get(o)), k)
        if not left.get(k):
            return None
        left[k] -= 1
        return k

    return left, take


def adopt(entries: Mapping[Key, int], findings: Iterable[Finding]
          ) -> Dict[Key, int]:
    """``entries`` with each one ``findings`` match under an older key
    (``taker``) written under the finding's key now."""
    _left, take = taker(entries)
    moved: Counter[Key] = Counter()
    for f in findings:
        k = take(f) if f.severity is not Severity.INFO else None
        if k is not None and k != key(f):
            moved[k] -= 1
            moved[key(f)] += 1
    out = Counter(entries)
    out.update(moved)
    return {k: n for k, n in out.items() if n > 0}


def counted(findings: Iterable[Finding]) -> Dict[Key, int]:
    """How many of each key the errors and warnings hold (information never
    fails, so it is never baselined)."""
    return dict(Counter(key(f) for f in findings
                        if f.severity is not Severity.INFO))


# -- the file ----------------------------------------------------------------


def load(ctx: Context) -> Optional[Dict[Key, int]]:
    """The baseline at the root (None when there is none); UsageError naming
    the file for anything but a valid one."""
    if not os.path.lexists(ctx.root / FILE):
        return None
    try:
        data = read_file(ctx.root, FILE, ctx.config.max_file_bytes, ctx.git_dir)
        text = decode(FILE, data)
    except Unreadable as exc:
        raise UsageError(f"{FILE}: cannot read: {exc.reason}") from None
    return parse(text)


def parse(text: str) -> Dict[Key, int]:
    """A baseline document's entries; UsageError naming the first fault."""
    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    def pairs(items: List[Tuple[str, Any]]) -> Dict[str, Any]:
        doc: Dict[str, Any] = {}
        for name, value in items:
            if name in doc:
                raise ValueError(f"key {json.dumps(name)} given twice")
            doc[name] = value
        return doc

    try:
        doc = json.loads(text, object_pairs_hook=pairs,
                         parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{FILE}: not valid JSON: {exc.msg} (line {exc.lineno}, "
                         f"column {exc.colno})") from None
    except RecursionError:
        raise UsageError(f"{FILE}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # a duplicate key, NaN, a 5,000-digit number
        raise UsageError(f"{FILE}: not a baseline: {exc}") from None
    if not isinstance(doc, dict) or set(doc) != {"version", "findings"}:
        raise UsageError(f"{FILE}: not a baseline: expected an object with "
                         "'version' and 'findings' (run 'icm baseline' on a "
                         "copy to see the form)")
    if type(doc["version"]) is not int or doc["version"] != VERSION:
        raise UsageError(f"{FILE}: version must be {VERSION}, got "
                         f"{_shown(doc['version'])}")
    entries = doc["findings"]
    if not isinstance(entries, list):
        raise UsageError(f"{FILE}: 'findings' must be an array, got "
                         f"{_kind(entries)}")
    found: Dict[Key, int] = {}
    for n, entry in enumerate(entries):
        at = f"{FILE}: findings[{n}]"
        if not isinstance(entry, dict) or set(entry) != set(ENTRY_KEYS):
            raise UsageError(f"{at}: must be an object with exactly "
                             + ", ".join(f"'{k}'" for k in ENTRY_KEYS))
        for name in ENTRY_KEYS[:4]:
            if not isinstance(entry[name], str) or not entry[name]:
                raise UsageError(f"{at}: '{name}' must be a non-empty string, "
                                 f"got {_kind(entry[name])}")
        if entry["check"] not in registry.BY_NAME:
            raise UsageError(f"{at}: 'check' names no check: "
                             f"{_shown(entry['check'])}")
        count = entry["count"]
        if type(count) is not int or not 1 <= count <= MAX_COUNT:
            raise UsageError(f"{at}: 'count' must be a whole number from 1, got "
                             f"{_shown(count)}")
        k = (entry["check"], entry["code"], entry["path"], entry["message"])
        if k in found:
            raise UsageError(f"{at}: repeats an earlier entry (keep one, with "
                             "the sum of their counts)")
        found[k] = count
    return found


def _kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {str: "a string", int: "a number", float: "a number",
            list: "an array", dict: "an object"}.get(type(value), "a value")


def _shown(value: Any) -> str:
    """A scalar as JSON (short), anything else by its kind."""
    if isinstance(value, (bool, int, float)) or value is None:
        text = json.dumps(value)
        return text if len(text) <= 20 else "a number of " \
            f"{len(text)} digits"
    if isinstance(value, str) and len(value) <= 60:
        return json.dumps(value)
    return _kind(value)


def dump(entries: Mapping[Key, int]) -> bytes:
    """The file for ``entries``: sorted by path, one object per key, ASCII
    (a file name's non-UTF-8 byte survives as its escape), LF, newline at
    the end, so two runs on the same findings write the same bytes."""
    doc = {"version": VERSION, "findings": [
        dict(zip(ENTRY_KEYS, (*k, n)))
        for k, n in sorted(entries.items(), key=lambda kv: (kv[0][2], kv[0]))]}
    return (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")


# -- inline suppressions -----------------------------------------------------


@dataclass(frozen=True)
class Markers:
    """A file's suppressions: selectors by the line they silence, and those
    for the whole file."""

    lines: Mapping[int, FrozenSet[str]] = field(default_factory=dict)
    whole: FrozenSet[str] = frozenset()

    def silence(self, f: Finding) -> bool:
        chosen = self.whole | self.lines.get(f.line, frozenset()) if f.line \
            else self.whole
        return any(registry.matches(s, f.check, f.code) for s in chosen)


ALIASES = {"allow-duplicate": ("ignore", "dupes")}


def markers(text: str) -> Markers:
    """The suppressions in ``text``: one pass over its lines; a comment
    counts alone on its line (for the next) or ending one (for that one),
    never in fenced code, so one quoted in prose or a code span is none."""
    if "icm:" not in text:  # no marker: the lines need not be split (a run
        return Markers()  # with findings in most files spent 0.4 s here)
    rows = [row for row, _end in lines_mod.split(text)]
    fenced, _open = lines_mod.fenced(rows)
    by_line: Dict[int, Set[str]] = {}
    whole: Set[str] = set()
    for number, (row, in_fence) in enumerate(zip(rows, fenced), 1):
        if in_fence or "icm:" not in row:
            continue
        body = row.rstrip()
        start = body.rfind("<!--")
        if start < 0 or not body.endswith("-->") or start + 4 > len(body) - 3:
            continue
        words = body[start + 4:-3].split(None, 2)
        if not words or words[0] != "icm:" or len(words) < 2:
            continue
        kind, codes = ALIASES.get(words[1], (words[1], words[2] if
                                             len(words) > 2 else ""))
        chosen = {c for c in re.split(r"[\s,]+", codes) if c}
        if kind == "ignore-file":
            whole |= chosen
        elif kind == "ignore":
            target = number + 1 if not body[:start].strip() else number
            by_line.setdefault(target, set()).update(chosen)
    return Markers({n: frozenset(s) for n, s in by_line.items()},
                   frozenset(whole))


def silencing(check: str, code: str, own: str = "", whole_file: bool = False
              ) -> str:
    """How a check's finding is silenced: the one syntax (its file-wide form
    for a rule whose findings name no line), then the check's own settings
    (``own``)."""
    where = (f"<!-- icm: ignore-file {check}/{code} --> anywhere in the file "
             "(its findings name no line)" if whole_file else
             f"<!-- icm: ignore {check}/{code} --> alone on the line before, or "
             "ending the line (ignore-file: the whole file)")
    return (f"{where}; ignore = [\"{check}/{code}\"] in the config; or icm "
            "baseline" + (f"; {own}" if own else ""))


# -- judging a run -----------------------------------------------------------


def judge(ctx: Context, reports: Iterable[Report], chosen: registry.Selection,
          baseline: Optional[Mapping[Key, int]] = None
          ) -> Tuple[List[Report], Silenced]:
    """``reports`` without the findings ``chosen`` leaves out, the errors
    and warnings a suppression silences and those ``baseline`` holds (each
    key at most its count, in order); each report's tail made again for
    what it keeps. Only a file with an error or warning is read for
    suppressions: a clean run reads nothing more."""
    left, take = taker(baseline or {})
    files: Dict[str, Markers] = {}
    held = {"baselined": 0, "suppressed": 0, "repeated": 0}
    judged: List[Report] = []
    ran: Set[str] = set()
    unread: Set[str] = set()  # files a check of this run could not read
    for report in reports:
        ran.add(report.check)
        kept: List[Finding] = []
        for f in report.findings:
            if not chosen.wants(f.check, f.code):
                continue
            if f.severity is Severity.INFO:  # never fails: no file is read
                kept.append(f)
                continue
            if read_failure(f.message):
                # one fact, said once: the first check (registry order)
                # that could not read the file; a repeat takes its own
                # baseline entry, if an older baseline holds one
                if f.path in unread:
                    held["repeated"] += 1
                    take(f)
                    continue
                unread.add(f.path)
            if _marks(ctx, f.path, files).silence(f):
                held["suppressed"] += 1
                continue
            if take(f) is not None:
                held["baselined"] += 1
                continue
            kept.append(f)
        judged.append(report.keeping(kept) if len(kept) < len(report.findings)
                      else report)
    unmatched = tuple((k, n) for k, n in sorted(left.items())
                      if n and k[0] in ran and chosen.wants(k[0], k[1]))
    found: Tuple[Finding, ...] = ()
    if unmatched:
        total = sum(n for _k, n in unmatched)
        noun = "entry matches" if total == 1 else "entries match"
        found = (RULES("unmatched", FILE, f"{total} {noun} no finding now "
                       "(fixed?); run 'icm baseline' to drop "
                       f"{'it' if total == 1 else 'them'}"),)
    return judged, Silenced(held["baselined"], held["suppressed"],
                            held["repeated"],
                            FILE if baseline is not None else "", unmatched,
                            found)


def _marks(ctx: Context, path: str, files: Dict[str, Markers]) -> Markers:
    """``path``'s suppressions, read once (none for the root's own findings,
    a file that is not markdown, or one that cannot be read)."""
    if path not in files:
        files[path] = Markers()
        if path in ctx.file_set and path.lower().endswith(MARKDOWN_SUFFIXES):
            try:
                data = ctx.read_bytes(path, ctx.config.max_file_bytes)
                if b"icm:" in data:  # else no marker: the text is not decoded
                    files[path] = markers(decode(path, data))
            except Unreadable:
                pass
    return files[path]
