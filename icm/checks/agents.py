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
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model.agents import OPTIONAL, REQUIRED
from icm.registry import AgentsOptions

NAME = "agents"
# icm explain: why the rule matters, and how to silence it here
WHY = ("An exported session is read cold by another agent: POSITIONS.md carries what a "
       "transcript lacks, so its schema and links must hold.")
SILENCE = "agents_dirs chooses the folders"
RULES = Rules(NAME, {
    "missing-file": Rule("a file of the AGENTS layout is missing (AGENT.md and "
                         "POSITIONS.md are required)",
                         fix="icm init --agents NAME scaffolds it"),
    "no-folder": Rule("a folder given on the command line holds no session"),
    "unreadable": Rule("a session file cannot be read as UTF-8 text"),
    "no-policy": Rule("AGENT.md has no Link Policy",
                      fix="add '## Link Policy' naming POSITIONS.md before "
                      "CHATS.md and the episodes"),
    "no-positions-first": Rule("the Link Policy does not name POSITIONS.md"),
    "reordered-policy": Rule("the Link Policy sends the reader elsewhere before "
                             "POSITIONS.md"),
    "no-precedence": Rule("the Link Policy does not say POSITIONS wins",
                          Severity.WARNING),
    "duplicate-id": Rule("two entries share one id",
                         fix="give one of them an explicit 'id:'"),
    "no-status": Rule("an entry has no status",
                      fix="add 'status: current', 'superseded-by → ID' or 'open'"),
    "bad-status": Rule("an entry's status is not current, superseded-by → ID or "
                       "open"),
    "no-section": Rule("an entry is outside the three sections"),
    "wrong-section": Rule("an entry sits under another status's section"),
    "no-confidence": Rule("an entry has no confidence"),
    "bad-confidence": Rule("an entry's confidence is not high, medium or low"),
    "unjustified-confidence": Rule("an entry's confidence says not why",
                                   fix="say why in one clause: 'high (measured "
                                   "twice)'"),
    "bad-source": Rule("an entry's source is not user-ruling or agent-proposed"),
    "no-evidence": Rule("an entry has no evidence",
                        fix="add 'evidence:' with a file:line, a quote or a "
                        "measurement"),
    "no-why": Rule("an entry is superseded without a line saying why"),
    "self-superseded": Rule("an entry is superseded by itself"),
    "orphan": Rule("an entry is superseded by an id no entry has",
                   fix="point superseded-by at the id of an existing entry"),
    "cycle": Rule("superseded-by ids form a cycle"),
    "chain": Rule("an entry is superseded by one that is superseded itself",
                  Severity.WARNING),
    "ruling-overruled": Rule("a user-ruling is superseded by an agent-proposed "
                             "entry", Severity.WARNING, "record the user's ruling "
                             "that replaced it, or restore it"),
    "dangling": Rule("a CHATS.md index link or ASSETS.md pointer points at "
                     "nothing"),
    "unindexed-episode": Rule("an episode in chats/ is not linked from CHATS.md",
                              fix="add a link to it in CHATS.md"),
    "no-sessions": Rule("no exported session folder: nothing to check",
                        Severity.INFO),
})
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

    def add(pos: Position, message: str, code: str, fix: Optional[str] = None
            ) -> None:
        found.append(RULES(code, path, f"'{_short(pos.claim)}' {message}",
                           line=pos.line, fix=fix))

    by_id: Dict[str, Position] = {}
    for pos in entries:
        if pos.id in by_id:
            add(pos, f"has the id '{pos.id}' of the entry on line "
                f"{by_id[pos.id].line}", "duplicate-id")
        else:
            by_id[pos.id] = pos
    for pos in entries:
        status = pos.status
        target = pos.target()
        kind = "superseded" if target is not None else status.lower()
        if not status:
            add(pos, "has no status", "no-status")
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
                "unjustified-confidence")
        source = pos.fields.get("source", (0, ""))[1].lower()
        if source not in ("user-ruling", "agent-proposed"):
            add(pos, f"has source '{source}'; it must be user-ruling or "
                "agent-proposed" if source else "has no source", "bad-source")
        if not pos.fields.get("evidence", (0, ""))[1]:
            add(pos, "has no evidence", "no-evidence")
        if target is not None and not pos.prose and "why" not in pos.fields:
            add(pos, "is superseded without a line saying why", "no-why")
        if target is None:
            continue
        if target == pos.id:
            add(pos, "is superseded by itself", "self-superseded")
        elif target not in by_id:
            add(pos, f"is superseded by '{target}', which no entry is (orphan: "
                "the worst defect)", "orphan")
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
            f"point at the current one ('{seen[-1]}')", "chain")
    src = pos.fields.get("source", (0, ""))[1].lower()
    tsrc = target.fields.get("source", (0, ""))[1].lower()
    if src == "user-ruling" and tsrc == "agent-proposed":
        add(pos, f"is a user-ruling superseded by an agent-proposed entry "
            f"('{target.id}'); a user-ruling outranks an agent-proposed",
            "ruling-overruled")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_agent_md(path: str, text: str) -> List[Finding]:
    """The Link Policy must send the reader to POSITIONS.md first."""
    from icm import markdown

    policy = [s for s in markdown.sections(text)
              if re.search(r"link policy|read order", s.title, re.I)]
    if not policy:
        return [RULES("no-policy", path, "no Link Policy: it must send the reader "
                      "to POSITIONS.md first")]
    seen = policy[0].visible
    found: List[Finding] = []
    at = seen.find("POSITIONS.md")
    others = [(seen.find(n), n) for n in ("CHATS.md", "PROGRESSION.md", "chats/")
              if seen.find(n) >= 0]
    if at < 0:
        found.append(RULES("no-positions-first", path, "Link Policy does not "
                           "name POSITIONS.md", line=policy[0].line))
    elif others and min(others)[0] < at:
        found.append(RULES("reordered-policy", path, f"Link Policy names "
                           f"{min(others)[1]} before POSITIONS.md; the reader "
                           "must start at POSITIONS.md", line=policy[0].line))
    if at >= 0 and not re.search(r"POSITIONS(\.md)? wins", seen):
        found.append(RULES("no-precedence", path, "Link Policy does not say "
                           "that POSITIONS wins when it and the transcript "
                           "disagree", line=policy[0].line))
    return found


def _links(ctx: Context, folder: str, names: Sequence[str]
           ) -> Dict[str, List[Tuple[int, str, Optional[str]]]]:
    """(line, destination, resolved local path or None when external) of the
    links in each named file of ``folder``, with the link checker's own
    extractor and resolution."""
    from icm.model import links

    paths = [f"{folder}/{n}" for n in names if f"{folder}/{n}" in ctx.file_set]
    corpus = links.extract_all(ctx, paths, save=False)  # the cache is links'
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
    from icm.model import links

    found: List[Finding] = []
    for name in (*REQUIRED, *OPTIONAL):
        path = f"{folder}/{name}"
        if path not in ctx.file_set:
            optional = name in OPTIONAL
            found.append(RULES("missing-file", path, "missing" + (
                " (optional)" if optional else ""),
                severity=Severity.WARNING if optional else None))
            continue
        try:
            text = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(RULES("unreadable", path, cannot_read(exc.reason)))
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
                found.append(RULES("dangling", path, f"{what} '{raw}' points at "
                                   "nothing", line=line))
            elif path.endswith("CHATS.md"):
                indexed.add(target)
    if f"{folder}/CHATS.md" in ctx.file_set:
        prefix = f"{folder}/chats/"
        for episode in ctx.files:
            if episode.startswith(prefix) and episode.endswith(".md") \
                    and episode not in indexed:
                found.append(RULES("unindexed-episode", episode,
                                   f"not indexed in {folder}/CHATS.md"))
    return found


def run(ctx: Context, options: AgentsOptions) -> Report:
    dirs = folders(ctx, options.dirs)
    found: List[Finding] = []
    for folder in dirs:
        if not any(f.startswith(folder + "/") for f in ctx.files) and \
                options.dirs:
            found.append(RULES("no-folder", folder, "no such exported-session "
                               "folder"))
            continue
        found += check_folder(ctx, folder)
    if not dirs:  # said, not a bare "agents ok" over nothing read
        found.append(RULES("no-sessions", ".", "agents: no exported sessions "
                           f"in {', '.join(ctx.config.agents_dirs) or '-'} "
                           "(agents_dirs)"))
    return Report.of(NAME, found, ok=bool(dirs),
                     data={"folders": dirs, "positions": sum(
                      1 for f in dirs if posixpath.join(f, "POSITIONS.md")
                      in ctx.file_set)})
