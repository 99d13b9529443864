"""Exported agent sessions in the AGENTS layout, linted.

An exported session lives in ``Agents/<name>/`` (``agents_dirs``): ``AGENT.md``
(entry point and read order), ``POSITIONS.md`` (what is held, what was
overruled, what is open), ``PROGRESSION.md``, ``TOOLS.md``, ``ASSETS.md``,
``CHATS.md`` and ``chats/*.md``. The positions file is the one that carries
what a transcript lacks, so its schema is checked entry by entry::

    ### <the claim, one sentence that could be refuted>
    status: current | superseded-by → <id> | open
    confidence: high | medium | low (+ one clause of justification)
    source: user-ruling | agent-proposed
    evidence: <file:line, a quote, or a measurement>
    <if superseded: why it was overruled, in one line>

An entry's id is its heading's GitHub anchor (``#the-claim-...``), or its
``id:`` field when it has one. A ``superseded-by`` pointing at no id is an
orphan: "the worst defect in the file", always an error.

Bad::

    Agents/s/POSITIONS.md: 'Exports are redacted' is superseded by
    'export-verbatim', which no entry is (orphan: the worst defect)

Good: every superseded-by names the id of a current entry.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from icm.context import Context, Unreadable, compile_globs
from icm.finding import Finding, Report, Severity
from icm.registry import AgentsOptions

NAME = "agents"
REQUIRED = ("AGENT.md", "POSITIONS.md")
OPTIONAL = ("PROGRESSION.md", "TOOLS.md", "ASSETS.md", "CHATS.md")
SECTIONS = ("current", "superseded", "open")
_FIELD = re.compile(r"\s*(status|confidence|source|evidence|id|why)\s*:\s*(.*?)\s*\Z",
                    re.I)
_SUPERSEDED = re.compile(r"superseded-by\s*(?:→|->)\s*(\S.*)\Z", re.I)
_CONFIDENCE = re.compile(r"(high|medium|low)\b[\s,;:.()\-–—]*(.*)\Z", re.I)


@dataclass
class Position:
    claim: str
    line: int
    section: str  # current, superseded, open; "" outside them
    anchor: str
    fields: Dict[str, Tuple[int, str]] = field(default_factory=dict)
    prose: List[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.fields["id"][1] if "id" in self.fields else self.anchor

    @property
    def status(self) -> str:
        return self.fields.get("status", (0, ""))[1]

    def target(self) -> Optional[str]:
        m = _SUPERSEDED.match(self.status)
        return m.group(1).strip().lstrip("#") if m else None


def folders(ctx: Context, given: Sequence[str] = ()) -> List[str]:
    """The exported-session folders: given on the command line, else every
    folder matching ``agents_dirs`` (the shallowest match; its subfolders
    such as ``chats/`` belong to it)."""
    if given:
        return sorted({g.strip("/") for g in given})
    pattern = compile_globs(ctx.config.agents_dirs)
    if pattern is None:
        return []
    found: Set[str] = set()
    for path in ctx.files:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folder = "/".join(parts[:i])
            if pattern.match(folder):
                found.add(folder)
                break
    return sorted(found)


def _finding(path: str, message: str, code: str, line: int = 0,
             severity: Severity = Severity.ERROR, fix: str = "") -> Finding:
    return Finding(path=path, line=line, message=f"{path}: {message}", check=NAME,
                   code=code, severity=severity, detail=message, fix=fix)


def parse_positions(text: str) -> List[Position]:
    """Every ``###`` entry with its section, anchor and fields."""
    from icm import markdown

    anchors = {}
    slugger = markdown.Slugger()
    for head in markdown.headings(markdown.parse(text, inline=lambda _c: False)):
        anchors[head.line] = slugger.slug(head.text)
    found: List[Position] = []
    section = ""
    for sec in markdown.sections(text):
        if sec.level == 2:
            word = sec.title.split()[0].lower() if sec.title.split() else ""
            section = word if word in SECTIONS else ""
        elif sec.level <= 1:
            section = ""
        if sec.level != 3:
            continue
        pos = Position(sec.title, sec.line, section, anchors.get(sec.line, ""))
        for line, source in sec.lines:
            m = _FIELD.match(source)
            if m and m.group(1).lower() not in pos.fields:
                pos.fields[m.group(1).lower()] = (line, m.group(2))
            elif source.strip():
                pos.prose.append(source.strip())
        found.append(pos)
    return found


def check_positions(path: str, text: str) -> List[Finding]:
    found: List[Finding] = []
    entries = parse_positions(text)

    def add(pos: Position, message: str, code: str,
            severity: Severity = Severity.ERROR, fix: str = "") -> None:
        found.append(_finding(path, f"'{_short(pos.claim)}' {message}", code,
                              pos.line, severity, fix))

    by_id: Dict[str, Position] = {}
    for pos in entries:
        if pos.id in by_id:
            add(pos, f"has the id '{pos.id}' of the entry on line "
                f"{by_id[pos.id].line}", "duplicate-id",
                fix="give one of them an explicit 'id:'")
        else:
            by_id[pos.id] = pos
    for pos in entries:
        status = pos.status
        target = pos.target()
        kind = "superseded" if target is not None else status.lower()
        if not status:
            add(pos, "has no status", "no-status",
                fix="add 'status: current', 'superseded-by → ID' or 'open'")
        elif kind not in SECTIONS or (kind == "superseded" and not target):
            add(pos, f"has status '{status}'; it must be current, superseded-by "
                "→ ID or open", "bad-status")
        if not pos.section:
            add(pos, "is outside the Current, Superseded and Open sections",
                "no-section")
        elif kind in SECTIONS and kind != pos.section:
            add(pos, f"has status {kind} but sits under {pos.section.title()}",
                "wrong-section", fix=f"move it under ## {kind.title()}")
        conf = pos.fields.get("confidence", (0, ""))[1]
        m = _CONFIDENCE.match(conf)
        if not conf:
            add(pos, "has no confidence", "no-confidence")
        elif not m:
            add(pos, f"has confidence '{conf}'; it must be high, medium or low",
                "bad-confidence")
        elif not m.group(2).strip(" .)"):
            add(pos, "gives its confidence no justification clause",
                "unjustified-confidence",
                fix="say why in one clause: 'high (measured twice)'")
        source = pos.fields.get("source", (0, ""))[1].lower()
        if source not in ("user-ruling", "agent-proposed"):
            add(pos, f"has source '{source}'; it must be user-ruling or "
                "agent-proposed" if source else "has no source", "bad-source")
        if not pos.fields.get("evidence", (0, ""))[1]:
            add(pos, "has no evidence", "no-evidence",
                fix="add 'evidence:' with a file:line, a quote or a measurement")
        if target is not None and not pos.prose and "why" not in pos.fields:
            add(pos, "is superseded without a line saying why", "no-why")
        if target is None:
            continue
        if target == pos.id:
            add(pos, "is superseded by itself", "self-superseded")
        elif target not in by_id:
            add(pos, f"is superseded by '{target}', which no entry is (orphan: "
                "the worst defect)", "orphan",
                fix="point superseded-by at the id of an existing entry")
        else:
            _chain(pos, by_id, add)
    return found


Add = Callable[..., None]


def _chain(pos: Position, by_id: Dict[str, Position], add: Add) -> None:
    """Follow superseded-by from ``pos``: a cycle is an error, a chain that
    does not end at once in a current entry is a warning."""
    seen = [pos.id]
    cur = pos
    while True:
        nxt_id = cur.target()
        if nxt_id is None or nxt_id not in by_id:
            break
        if nxt_id in seen:
            add(pos, "is in a superseded-by cycle: " + " → ".join(seen + [nxt_id]),
                "cycle")
            return
        seen.append(nxt_id)
        cur = by_id[nxt_id]
    target = by_id[pos.target() or ""]
    if target.target() is not None and len(seen) > 2:
        add(pos, f"is superseded by '{target.id}', which is itself superseded; "
            f"point at the current one ('{seen[-1]}')", "chain",
            Severity.WARNING)
    src = pos.fields.get("source", (0, ""))[1].lower()
    tsrc = target.fields.get("source", (0, ""))[1].lower()
    if src == "user-ruling" and tsrc == "agent-proposed":
        add(pos, f"is a user-ruling superseded by an agent-proposed entry "
            f"('{target.id}'); a user-ruling outranks an agent-proposed",
            "ruling-overruled", Severity.WARNING,
            fix="record the user's ruling that replaced it, or restore it")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_agent_md(path: str, text: str) -> List[Finding]:
    """The Link Policy must send the reader to POSITIONS.md first."""
    from icm import markdown

    policy = [s for s in markdown.sections(text)
              if re.search(r"link policy|read order", s.title, re.I)]
    if not policy:
        return [_finding(path, "no Link Policy: it must send the reader to "
                         "POSITIONS.md first", "no-policy",
                         fix="add '## Link Policy' naming POSITIONS.md before "
                         "CHATS.md and the episodes")]
    seen = policy[0].visible
    found: List[Finding] = []
    at = seen.find("POSITIONS.md")
    others = [(seen.find(n), n) for n in ("CHATS.md", "PROGRESSION.md", "chats/")
              if seen.find(n) >= 0]
    if at < 0:
        found.append(_finding(path, "Link Policy does not name POSITIONS.md",
                              "no-positions-first", policy[0].line))
    elif others and min(others)[0] < at:
        found.append(_finding(path, f"Link Policy names {min(others)[1]} before "
                              "POSITIONS.md; the reader must start at "
                              "POSITIONS.md", "reordered-policy", policy[0].line))
    if at >= 0 and not re.search(r"POSITIONS(\.md)? wins", seen):
        found.append(_finding(path, "Link Policy does not say that POSITIONS "
                              "wins when it and the transcript disagree",
                              "no-precedence", policy[0].line, Severity.WARNING))
    return found


def _links(ctx: Context, folder: str, names: Sequence[str]
           ) -> Dict[str, List[Tuple[int, str, Optional[str]]]]:
    """(line, destination, resolved local path or None when external) of the
    links in each named file of ``folder``, with the link checker's own
    extractor and resolution."""
    from icm.checks import links

    paths = [f"{folder}/{n}" for n in names if f"{folder}/{n}" in ctx.file_set]
    corpus = links.extract_all(ctx, paths)
    out: Dict[str, List[Tuple[int, str, Optional[str]]]] = {}
    for path, (found, *_rest) in corpus.parsed.items():
        rows = []
        for line, raw, href, _kind in found:
            target = links.resolve(path, href)
            rows.append((line, raw, None if target is None or target.problem
                         else target.path))
        out[path] = rows
    return out


def check_folder(ctx: Context, folder: str) -> List[Finding]:
    from icm.checks import links

    found: List[Finding] = []
    for name in (*REQUIRED, *OPTIONAL):
        path = f"{folder}/{name}"
        if path not in ctx.file_set:
            optional = name in OPTIONAL
            found.append(_finding(
                path, "missing" + (" (optional)" if optional else ""),
                "missing-file", severity=Severity.WARNING if optional
                else Severity.ERROR, fix="icm init --agents NAME scaffolds it"))
            continue
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(_finding(path, f"cannot read: {exc.reason}", "unreadable"))
            continue
        if name == "AGENT.md":
            found += check_agent_md(path, text)
        elif name == "POSITIONS.md":
            found += check_positions(path, text)
    tree = links.Tree(ctx)
    linked = _links(ctx, folder, ("CHATS.md", "ASSETS.md"))
    indexed: Set[str] = set()
    for path, rows in sorted(linked.items()):
        for line, raw, target in rows:
            if target is None:
                continue  # external: never fetched
            if not tree.kind(target):
                what = "index link" if path.endswith("CHATS.md") else "pointer"
                found.append(_finding(path, f"{what} '{raw}' points at nothing",
                                      "dangling", line))
            elif path.endswith("CHATS.md"):
                indexed.add(target)
    if f"{folder}/CHATS.md" in ctx.file_set:
        prefix = f"{folder}/chats/"
        for episode in ctx.files:
            if episode.startswith(prefix) and episode.endswith(".md") \
                    and episode not in indexed:
                found.append(_finding(episode, f"not indexed in {folder}/CHATS.md",
                                      "unindexed-episode",
                                      fix="add a link to it in CHATS.md"))
    return found


def run(ctx: Context, options: AgentsOptions) -> Report:
    dirs = folders(ctx, options.dirs)
    found: List[Finding] = []
    for folder in dirs:
        if not any(f.startswith(folder + "/") for f in ctx.files) and \
                options.dirs:
            found.append(_finding(folder, "no such exported-session folder",
                                  "no-folder"))
            continue
        found += check_folder(ctx, folder)
    findings = tuple(sorted(found))
    failed = any(f.severity is Severity.ERROR for f in findings)
    tail = ("agents ok",) if dirs and not failed else ()
    return Report(NAME, findings, tail=tail,
                  data={"folders": dirs, "positions": sum(
                      1 for f in dirs if posixpath.join(f, "POSITIONS.md")
                      in ctx.file_set)})
