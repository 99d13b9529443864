"""Journal entries: which files are entries, and the one parse of an entry
(slots, the Verify command, Superseded-by lines)."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import unquote

from icm.config import Config
from icm.context import Context
from icm.slug import is_slug

ENTRY_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})_(.+)\.md\Z", re.DOTALL)


PATTERN = "YYYY-MM-DD_slug.md"


def entries(ctx: Context) -> List[str]:
    """Markdown files directly inside the journal folder (README.md and
    ``positions_file`` aside)."""
    prefix = ctx.config.journal_dir.rstrip("/") + "/"
    return [
        f for f in ctx.files
        if f.startswith(prefix) and "/" not in f[len(prefix):]
        and f.lower().endswith(".md") and f[len(prefix):] != "README.md"
        and f != ctx.config.positions_file  # compiled from entries, not one
    ]


def valid_name(filename: str) -> bool:
    m = ENTRY_NAME.match(filename)
    if not m or not is_slug(m.group(4)):
        return False
    try:
        date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


SHELL_INFO = ("", "sh", "bash", "shell", "console")


_SUPERSEDED = "superseded-by:"


@dataclass(frozen=True)
class Slot:
    name: str
    line: int  # 1-based line of its heading
    visible: str  # the text a reader sees under it, whitespace collapsed
    # its top-level paragraphs as written (markup kept), a blank line
    # between two: what the positions view cuts sentences from
    source: str = ""


@dataclass(frozen=True)
class Entry:
    """What an entry says, as every command that reads entries needs it."""

    slots: Dict[str, Slot]  # the configured slots present (first heading wins)
    command: Optional[str]  # the Verify command as a script; None: no code
    verify_line: int  # line of the verify slot's heading; 0 when missing
    superseded_by: Optional[str]  # root-relative path it names, normalised
    superseded_line: int
    # every Superseded-by line (path, line): more than one target is a fork
    supersede_lines: Tuple[Tuple[str, int], ...] = ()
    # slots whose heading appears more than once, with every heading's line
    repeated: Dict[str, Tuple[int, ...]] = field(default_factory=dict)


def verify_slot(cfg: Config) -> Optional[str]:
    """The slot holding the Verify command: ``verify_slot``, else the fourth."""
    if cfg.verify_slot:
        return cfg.verify_slot
    return cfg.slots[3] if len(cfg.slots) >= 4 else None


def parse_entry(text: str, path: str, slots: Sequence[str],
                verify: Optional[str]) -> Entry:
    """Slots, Verify command and Superseded-by line of one entry.

    A slot is a top-level ``##`` heading named exactly as the slot; it runs to
    the next top-level heading of level 1 or 2, so its ``###`` sub-headings
    belong to it (their titles are not content, their bodies are). The
    command is the slot's first code block that is indented or fenced as
    ``sh``, ``bash``, ``shell``, ``console`` or nothing (in ``console``, the
    ``$ `` lines without their prompt), else its first code span.
    ``Superseded-by:`` counts on a line of its own before the first ``##``
    heading: a bare path is from the root, a link from the entry's folder.
    """
    from icm import markdown  # loaded on first use: keeps other commands light

    lines: Dict[str, int] = {}
    heads: Dict[str, List[int]] = {}
    seen: Dict[str, List[str]] = {}  # joined once at the end: linear
    written: Dict[str, List[Tuple[int, str]]] = {}
    codes: List[markdown.Code] = []
    superseded: Optional[str] = None
    superseded_line = 0
    every: List[Tuple[str, int]] = []
    current: Optional[str] = None
    seen_two = False
    for sec in markdown.sections(text):
        if sec.level and sec.level <= 2:
            current = None
        if sec.level == 2:
            seen_two = True
            if sec.title in slots:
                heads.setdefault(sec.title, []).append(sec.line)
            if sec.title in slots and sec.title not in lines:
                current = sec.title
                lines[current], seen[current] = sec.line, []
                written[current] = []
        if not seen_two:
            for line, source in sec.lines:
                source = source.strip()
                if source[:len(_SUPERSEDED)].lower() == _SUPERSEDED:
                    value = source[len(_SUPERSEDED):].strip()
                    every.append((target(value, path), line))
            if every and superseded is None:
                superseded, superseded_line = every[0]
        if current is not None:
            if sec.visible:
                seen[current].append(sec.visible)
            written[current].extend(sec.lines)
            if current == verify:
                codes.extend(sec.code)
    found = {name: Slot(name, lines[name], " ".join(seen[name]),
                        _paragraphs(written[name])) for name in lines}
    held = found.get(verify) if verify else None
    repeated = {name: tuple(at) for name, at in heads.items() if len(at) > 1}
    return Entry(found, command(codes), held.line if held else 0,
                 superseded, superseded_line, tuple(every), repeated)


def _paragraphs(rows: Sequence[Tuple[int, str]]) -> str:
    """Source lines of top-level paragraphs as text: a gap in their line
    numbers is a paragraph break."""
    out: List[str] = []
    last = -1
    for line, source in rows:
        if out and line != last + 1:
            out.append("")
        out.append(source)
        last = line
    return "\n".join(out)


def command(codes: Sequence[Any]) -> Optional[str]:
    """The script a Verify slot's code holds (see ``parse_entry``)."""
    for code in codes:
        if code.info is not None and code.info in SHELL_INFO:
            script = _console(code.text) if code.info == "console" else code.text
            if script.strip():
                return script.rstrip("\n")
    for code in codes:
        if code.info is None and code.text.strip():
            return str(code.text.strip())
    return None


def _console(text: str) -> str:
    """The commands of a console transcript: ``$ `` lines and their
    backslash continuations; a block without prompts is all commands."""
    lines = text.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return text
    kept: List[str] = []
    going = False
    for line in lines:
        if line.startswith("$ "):
            kept.append(line[2:])
        elif going:
            kept.append(line)
        else:
            continue
        going = line.endswith("\\")
    return "\n".join(kept)


def target(value: str, path: str) -> str:
    """The root-relative path a Superseded-by (or Revives) value names (by hand:
    a regex here backtracks quadratically on a long hostile line)."""
    middle = value.find("](")
    if value.startswith("[") and value.endswith(")") and middle > 0:
        inner = value[middle + 2:-1].strip()
        if inner.startswith("<") and ">" in inner:
            dest = inner[1:inner.index(">")]
        else:
            dest = inner.split()[0] if inner.split() else ""
        dest = unquote(dest.split("#", 1)[0])
        base = "" if dest.startswith("/") else posixpath.dirname(path)
        value = posixpath.join(base, dest.lstrip("/"))
    elif value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    return posixpath.normpath(value.lstrip("/")) if value else ""


def first_sentence(section: str, limit: int = 300) -> str:
    """The first sentence of a slot's prose, markup and comments removed,
    cut to ``limit`` characters (``...`` marks a cut)."""
    text = _cut_spans(_cut_spans(section, "<!--", "-->"), "```", "```")
    text = " ".join(text.replace("`", "").replace("**", "").split())
    m = re.match(r"(.+?[.!?])(?:\s|$)", text)
    sentence = m.group(1) if m else text
    return sentence[:limit] + ("..." if len(sentence) > limit else "")


def _cut_spans(text: str, start: str, end: str) -> str:
    """Each ``start ... end`` span (leftmost, shortest) as one space. One
    forward pass: ``re.sub(r"<!--.*?-->")`` rescanned the rest of the text
    from every unclosed ``<!--`` (quadratic); check-positions runs this."""
    out: List[str] = []
    at = 0
    while True:
        begin = text.find(start, at)
        if begin < 0:
            break
        close = text.find(end, begin + len(start))
        if close < 0:
            break  # unclosed: every later start is unclosed too
        out += [text[at:begin], " "]
        at = close + len(end)
    out.append(text[at:])
    return "".join(out)


def placeholder(visible: str, placeholders: Sequence[str]) -> bool:
    """The whole content is one of ``placeholders``, ignoring case,
    punctuation and spacing."""
    return _bare(visible) in {_bare(p) for p in placeholders}


def _bare(text: str) -> str:
    kept = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch
                   for ch in text.lower())
    return " ".join(kept.split())
