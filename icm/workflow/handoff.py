"""``icm handoff``: a structured handoff record assembled from the repository.

The receiving session needs a record, not a transcript. Every field but the
author's is read from state (git, the journal, the queue, ``icm check`` run
now) and labelled with its source; the author writes only the reason, the
open question and what was ruled out (``--ruled-out``, and the ``## Ruled
out`` section of an item claimed on the branch), which are quoted as
untrusted text: inside a code fence longer than any backtick run they hold,
so a heading or a field line in them is inert, with control characters
removed and the length capped. The record states its own size and fits
``handoff_budget``: the verbatim tail shrinks first, then the long lists,
each cut counted with a pointer to the rest; the author text is never cut
to fit.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from icm import engine, git, registry
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.escape import inert, inert_lines, printable, text_line
from icm.finding import Severity
from icm.model import journal as journal_check
from icm.model import queue as queue_check
from icm.model.handoff import RECORD_NAME, records, ruled_out
from icm.model.notes import code_by_note
from icm.report import plain
from icm.workflow.files import create_new, ensure_folder, template

AUTHOR_CAP = 2000  # characters of reason or question kept
TAIL_CAP = 800  # characters of one verbatim commit message kept
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BREAK = re.compile("\r\n?|[\u2028\u2029]")  # line breaks other than \n

# Cuts made, in order, while the record is over budget: the verbatim tail
# first, then the long lists; negative results last, author text never.
CUT_ORDER: Tuple[Tuple[str, int], ...] = (
    ("tail", 2), ("tail", 1), ("tail", 0),
    ("commits", 10), ("open", 10), ("changes", 10), ("notes", 10),
    ("commits", 5), ("open", 5), ("changes", 5), ("entries", 5), ("notes", 5),
    ("commits", 2), ("open", 2), ("changes", 2), ("entries", 2),
    ("negative", 5), ("negative", 2),
)
START_CAPS = {"tail": 3, "commits": 20, "open": 20, "changes": 20, "notes": 20,
              "entries": 20, "negative": 20}


def author_text(text: str) -> Tuple[str, int]:
    """Untrusted text made inert: line endings unified, control and bidi
    characters dropped, at most AUTHOR_CAP characters. Returns the text and
    how many characters were cut."""
    text = quotable(text).strip()
    cut = max(0, len(text) - AUTHOR_CAP)
    return text[:AUTHOR_CAP], cut


def quotable(text: str) -> str:
    """Text for a fence (author text, commit messages): every line break
    as ``\\n`` (CR and U+2028 too), control and bidi characters dropped,
    a byte that was not UTF-8 shown as ``\\xNN`` (as in file names)."""
    return _CONTROL.sub("", _BREAK.sub("\n", printable(text)))


def fenced(text: str, info: str = "text") -> str:
    """``text`` in a backtick fence longer than any backtick run inside it, so
    nothing in it can close the fence or act as markup."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


@dataclass
class State:
    """Everything the record says, gathered once; rendering only formats."""

    commit: str
    branch: Optional[str]
    who: str
    base: Optional[str]
    base_source: str
    merge_base: Optional[str]
    ahead_behind: Optional[Tuple[int, int]]
    signature: str
    changes: List[Tuple[str, str]]
    checks: List[Tuple[str, str]]
    notes: List[Tuple[str, str]]
    commits: List[Tuple[str, str]]
    commit_total: int
    entries: List[Tuple[str, str, str]]  # path, decision, rejected alternative
    finished: List[str]
    added: List[str]
    open_items: List[Tuple[str, str, str]]  # path, title, claim line
    tail: List[Tuple[str, str]]
    handbook: str
    journal_dir: str
    queue_dir: str
    note_paths: List[str]
    reason: str = ""
    question: str = ""
    cut_reason: int = 0
    cut_question: int = 0
    extras: Dict[str, Any] = field(default_factory=dict)
    # (where from: "--ruled-out" or the item or entry, author text, chars cut)
    ruled_out: List[Tuple[str, str, int]] = field(default_factory=list)

    @property
    def range(self) -> Optional[str]:
        return f"{self.merge_base[:12]}..{self.commit[:12]}" if self.merge_base \
            else None


def gather(ctx: Context, reason: str, question: str, base: Optional[str],
           tail: int, ruled: Sequence[str] = ()) -> State:
    root = ctx.root
    if not ctx.in_git:
        raise UsageError(f"{root} is not inside a git repository; a handoff "
                         "records a branch's state")
    commit = git.head_commit(root)
    if commit is None:
        raise UsageError("the repository has no commits yet; commit something "
                         "before handing over")
    if base is not None:
        if git.commit_of(root, base) is None:
            raise UsageError(f"--base {base}: names no commit")
        base_source = "--base"
    else:
        base = git.default_base(root, dict(os.environ))
        base_source = ("default (ICM_BASE, GITHUB_BASE_REF, upstream, local "
                       "main ahead of origin/HEAD, origin/HEAD)")
    mb = git.merge_base(root, base, commit) if base else None
    name = git.config_value(root, "user.name") or "(user.name not set)"
    email = git.config_value(root, "user.email") or "(user.email not set)"

    changed: List[Tuple[str, str]] = []
    if mb:
        changed = git.diff_status(root, mb, commit, [])
    changes = git.worktree_status(root)

    checks, verdicts = _check_results(ctx)
    notes = _notes_touched(ctx, [p for _s, p in changed] + [p for _s, p in changes],
                           verdicts)
    commits = git.log_subjects(root, f"{mb}..{commit}", 50) if mb else []
    total = git.count_commits(root, mb, commit) if mb else 0

    qprefix = ctx.config.queue_dir.rstrip("/") + "/"
    new_entries = sorted(p for s, p in changed if s == "A"
                         and journal_check.in_journal(p, ctx.config)
                         and journal_check.valid_entry_name(p.rpartition("/")[2],
                                                            ctx.config))
    new_entries += sorted(p for s, p in changes if s.strip() in ("A", "??")
                          and journal_check.in_journal(p, ctx.config)
                          and p not in new_entries)
    entries = [(p, *_entry_lines(ctx, p)) for p in new_entries]
    finished = sorted(p for s, p in changed if s == "D" and p.startswith(qprefix))
    added = sorted(p for s, p in changed if s == "A" and p.startswith(qprefix))
    open_items = _open_items(ctx)
    tail_rows = [(sha, body[:TAIL_CAP] + ("\n[...]" if len(body) > TAIL_CAP else ""))
                 for sha, body in ((sha, quotable(body)) for sha, body
                                   in git.log_messages(root, commit, tail))]
    text_reason, cut_r = author_text(reason)
    text_question, cut_q = author_text(question)
    if not text_reason or not text_question:
        raise UsageError("--reason and --question must say something: they are "
                         "the only fields an author writes")
    said = [("--ruled-out", *author_text(text)) for text in ruled]
    if any(not text for _w, text, _c in said):
        raise UsageError("--ruled-out must say something: what was tried and "
                         "found not to work")
    branch = git.branch_name(root)
    said = _ruled_out(ctx, branch, new_entries) + said
    return State(
        commit=commit, branch=git.branch_name(root), who=f"{name} <{email}>",
        base=base, base_source=base_source, merge_base=mb,
        ahead_behind=git.ahead_behind(root, base, commit) if base else None,
        signature=git.signature_state(root, commit), changes=changes,
        checks=checks, notes=notes, commits=commits, commit_total=total,
        entries=entries, finished=finished, added=added, open_items=open_items,
        tail=tail_rows, handbook=ctx.config.handbook,
        journal_dir=ctx.config.journal_dir, queue_dir=ctx.config.queue_dir,
        note_paths=list(ctx.notes()), reason=text_reason, question=text_question,
        cut_reason=cut_r, cut_question=cut_q, ruled_out=said)


def _ruled_out(ctx: Context, branch: Optional[str],
               entries: Sequence[str]) -> List[Tuple[str, str, int]]:
    """The ``## Ruled out`` sections of the queue items claimed on
    ``branch`` and of the entries added on it (``new-journal`` keeps an
    item's sections), as author text: a session wrote them."""
    found = []
    claimed = []
    for path in sorted(queue_check.items(ctx)):
        try:
            text = ctx.read_markdown(path)
        except Unreadable:
            continue
        claim = queue_check.claim_of(text)
        if claim is not None and branch is not None and claim[1] == branch:
            claimed.append((path, text))
    for path in entries:
        try:
            claimed.append((path, ctx.read_markdown(path)))
        except Unreadable:
            continue
    for path, text in claimed:
        section = ruled_out(text)
        if section:
            found.append((path, *author_text(section)))
    return found


def _check_results(ctx: Context) -> Tuple[List[Tuple[str, str]], Dict[str, str]]:
    """(check, 'ok' or its finding counts) for every check, run now, and the
    staleness verdict per note. A check that cannot run here says why."""
    rows = []
    verdicts: Dict[str, str] = {}
    for spec in registry.ALL:
        if spec.name == "handoff":
            continue  # the record does not grade earlier records
        try:
            report = engine.run_one(ctx, spec)
        except UsageError as exc:
            rows.append((spec.name, f"not run: {exc}"))
            continue
        errors = sum(f.severity is Severity.ERROR for f in report.findings)
        warnings = sum(f.severity is Severity.WARNING for f in report.findings)
        if not errors and not warnings:
            rows.append((spec.name, "ok"))
        else:
            parts = [f"{errors} error" + ("s" if errors != 1 else "")] if errors \
                else []
            if warnings:
                parts.append(f"{warnings} warning" + ("s" if warnings != 1 else ""))
            rows.append((spec.name, ", ".join(parts)))
        if spec.name == "stale":
            verdicts = {f.path: f.message for f in report.findings}
    return rows, verdicts


def _notes_touched(ctx: Context, paths: Sequence[str],
                   verdicts: Dict[str, str]) -> List[Tuple[str, str]]:
    """Notes whose code changed on this branch or in the work tree, with the
    staleness verdict of the run above."""
    changed = set(paths)
    try:
        owned = code_by_note(ctx)
    except UsageError:
        return []
    rows = []
    for note, code in sorted(owned.items()):
        if note in changed or changed.intersection(code):
            rows.append((note, verdicts.get(note, "not judged")))
    return rows


def _entry_lines(ctx: Context, path: str) -> Tuple[str, str]:
    """The first sentence of an entry's Decision and Rejected alternative."""
    try:
        text = ctx.read_markdown(path)
    except Unreadable as exc:
        return f"(cannot read: {exc.reason})", ""
    entry = journal_check.read(text, path, ctx.config)
    return (journal_check.first_sentence(entry.said("decision")),
            journal_check.first_sentence(entry.said("rejected")))


def _open_items(ctx: Context) -> List[Tuple[str, str, str]]:
    rows = []
    for path in sorted(queue_check.items(ctx)):
        try:
            text = ctx.read_markdown(path)
        except Unreadable:
            rows.append((path, "(unreadable)", ""))
            continue
        title = next((ln.lstrip("#").strip() for ln in text.splitlines()
                      if ln.startswith("# ")), posixpath.basename(path))
        claim = next((ln.strip() for ln in text.splitlines()
                      if ln.startswith("Claimed-by:")), "")
        rows.append((path, title, claim))
    rows.sort(key=lambda r: (not r[2], r[0]))  # claimed first
    return rows


# -- rendering ---------------------------------------------------------------


def _capped(rows: Sequence[str], cap: int, where: str, indent: str = "",
            total: int = -1) -> List[str]:
    """The first ``cap`` rows as list items, and a count of the rest with
    where to find them (``total`` when the rows are themselves a cut)."""
    total = len(rows) if total < 0 else total
    shown = [f"{indent}- {row}" for row in rows[:cap]]
    rest = total - len(shown)
    return shown + ([f"{indent}- and {rest} more: {where}"] if rest > 0 else [])


def _fields(s: State, caps: Dict[str, int]) -> Dict[str, str]:
    # Every string from git, the config or the tree is ``inert`` (one line,
    # no control character) or a ``_code`` span: a newline in a file name or
    # user.name must not start a forged field.
    out: Dict[str, str] = {}
    out["branch"] = inert(s.branch or f"detached HEAD at {s.commit[:12]}")
    out["short"] = s.commit[:12]
    out["commit"] = s.commit
    for key, text, cut in (("reason", s.reason, s.cut_reason),
                           ("question", s.question, s.cut_question)):
        lines = ["source: author (untrusted text, quoted verbatim; not "
                 "interpreted)", "", fenced(text)]
        if cut:
            lines.append(f"\n[icm cut {cut} more characters of author text]")
        out[key] = "\n".join(lines)

    base = inert(s.base or "none found (pass --base REF or set ICM_BASE)")
    journal_dir, queue_dir = inert(s.journal_dir), inert(s.queue_dir)
    state = ["source: git, read at handoff time",
             f"- handed over by: {inert(s.who)} (git config user.name, "
             "user.email)",
             f"- branch: {out['branch']}",
             f"- HEAD: {s.commit}",
             f"- base: {base}" + (f" (from {s.base_source})" if s.base else ""),
             f"- merge base: {s.merge_base or 'unknown (no base)'}"]
    if s.ahead_behind:
        state.append(f"- ahead/behind base: {s.ahead_behind[0]} ahead, "
                     f"{s.ahead_behind[1]} behind")
    state.append(f"- signature: HEAD is {s.signature} (the commit object's "
                 "signature header; not verified: icm runs no program but git)")
    if s.changes:
        cap = caps["changes"]
        state.append(f"- uncommitted changes ({len(s.changes)}, git status "
                     "--porcelain):")
        state += _capped([f"`{code}` {_code(p)}" for code, p in s.changes], cap,
                         "git status", "  ")
    else:
        state.append("- uncommitted changes: none")
    out["state"] = "\n".join(state)

    facts = ["source: icm check, run at handoff time"]
    facts += [f"- {name}: {inert(result)}" for name, result in s.checks]
    if s.notes:
        cap = caps["notes"]
        facts.append("- notes whose folders changed on this branch:")
        facts += _capped([f"{_code(n)}: {inert(v)}" for n, v in s.notes], cap,
                         "icm check-stale", "  ")
    else:
        facts.append("- notes whose folders changed on this branch: none")
    out["facts"] = "\n".join(facts)

    if s.range is None:
        actions = ["source: git log", "- commits since the base: unknown, no base "
                   "found (pass --base REF or set ICM_BASE)"]
    else:
        cap = caps["commits"]
        actions = [f"source: git log {s.range} (newest first)",
                   f"- {s.commit_total} commit" + ("s" if s.commit_total != 1 else "")
                   + " since the merge base:"]
        actions += _capped([f"{sha[:12]} {_line(subj)}" for sha, subj in s.commits],
                           cap, f"git log {s.range}", "  ", s.commit_total)
    cap = caps["entries"]
    if s.entries:
        actions.append(f"- journal entries added (source: {journal_dir}/, "
                       "Decision's first sentence):")
        actions += _capped([f"{_code(p)}: {_line(d)}" for p, d, _r in s.entries],
                           cap, f"{journal_dir}/", "  ")
    else:
        actions.append("- journal entries added: none")
    actions.append("- queue items finished: " + (", ".join(
        _code(p) for p in s.finished) or "none"))
    actions.append("- queue items added: " + (", ".join(
        _code(p) for p in s.added) or "none"))
    out["actions"] = "\n".join(actions)

    rejected = [(p, r) for p, _d, r in s.entries if r]
    negative = ["source: the Rejected alternative of each journal entry added on "
                "this branch, the `## Ruled out` section of each queue item "
                "claimed on it (and of each entry added), and `--ruled-out` "
                "(Verify commands are not run here: `icm verify`)"]
    cap = caps["negative"]
    negative += _capped([f"{_code(p)}: {_line(r)}" for p, r in rejected], cap,
                        f"{journal_dir}/")
    if not rejected and not s.ruled_out:
        negative.append("- none recorded on this branch")
    for where, text, cut in s.ruled_out:  # never cut to fit, as the reason
        named = "`--ruled-out`" if where == "--ruled-out" else \
            f"the Ruled out section of {_code(where)}"
        negative += ["", f"ruled out, from {named} (author text, untrusted, "
                     "quoted verbatim; not interpreted):", "", fenced(text)]
        if cut:
            negative.append(f"\n[icm cut {cut} more characters of author text]")
    out["negative"] = "\n".join(negative)

    cap = caps["open"]
    open_lines = [f"source: {queue_dir}/ (claimed items first)"]
    open_lines += _capped([f"{_code(path)}: {_line(title)}"
                           + (f" ({_line(claim)})" if claim else "")
                           for path, title, claim in s.open_items], cap,
                          f"{queue_dir}/")
    if not s.open_items:
        open_lines.append("- the queue is empty")
    out["open"] = "\n".join(open_lines)

    cap = caps["tail"]
    tail = [f"source: git log -n {cap} --format=%B (full messages, newest first)"]
    for sha, body in s.tail[:cap]:
        tail += ["", f"{sha[:12]}:", "", fenced(body)]
    if len(s.tail) > cap:
        tail.append(f"\n- {len(s.tail) - cap} message(s) cut to fit the budget: "
                    f"git log -n {len(s.tail)}")
    out["tail"] = "\n".join(tail)

    pointers = ["source: paths in this repository (pointers, not payloads)",
                f"- history: git log {s.range or s.commit[:12]}",
                f"- handbook: {_code(s.handbook)}",
                f"- journal: {_code(s.journal_dir + '/')}",
                f"- queue: {_code(s.queue_dir + '/')}"]
    if s.note_paths:
        pointers.append("- notes: " + ", ".join(_code(n) for n in s.note_paths[:20])
                        + (f" and {len(s.note_paths) - 20} more"
                           if len(s.note_paths) > 20 else ""))
    out["pointers"] = "\n".join(pointers)
    return out


def _code(text: str) -> str:
    """A path or name as an inline code span that nothing in it can break:
    ``inert`` first (a newline in a file name is shown as ``\\n``)."""
    text = inert(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _line(text: str) -> str:
    """Repository text (subjects, titles, sentences) on one inert line."""
    text = " ".join(_CONTROL.sub(" ", printable(text)).split())
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def render(s: State, budget: int) -> Tuple[str, Dict[str, int], List[str]]:
    """The record as markdown within ``budget`` tokens (bytes / 4) where the
    cut order allows; returns the text, the caps used and the cuts made."""
    caps = dict(START_CAPS)
    caps["tail"] = min(caps["tail"], len(s.tail))
    cuts: List[str] = []
    layout = template("handoff.md")
    steps = iter(CUT_ORDER)
    sizes = {"tail": len(s.tail), "commits": len(s.commits), "open":
             len(s.open_items), "changes": len(s.changes), "notes": len(s.notes),
             "entries": len(s.entries),
             "negative": sum(1 for _p, _d, r in s.entries if r)}
    while True:
        text = _fill(layout, _fields(s, caps), s, budget, cuts)
        if len(text.encode("utf-8")) // 4 <= budget:
            return text, caps, cuts
        for key, value in steps:
            if min(caps[key], sizes[key]) > value:  # a cut that shows
                caps[key] = value
                cuts.append(f"{key} to {value}")
                break
        else:
            return text, caps, cuts


def _fill(layout: str, values: Dict[str, str], s: State, budget: int,
          cuts: Sequence[str]) -> str:
    """Substitute ``{name}`` once (values are never rescanned, so author text
    holding ``{reason}`` stays literal); the size line is solved to a fixed
    point since its own digits count."""
    size_line = ""
    for _ in range(5):
        filled = dict(values, size=size_line)

        def value(m: "re.Match[str]", v: Dict[str, str] = filled) -> str:
            return v.get(m.group(1), m.group(0))

        text = re.sub(r"\{(\w+)\}", value, layout)
        n = len(text.encode("utf-8"))
        fits = "within" if n // 4 <= budget else "OVER"
        new = (f"source: this file. {n} bytes, about {n // 4} tokens "
               f"(bytes / 4; {fits} the budget of {budget})")
        if cuts:
            new += "; cut to fit: " + ", ".join(cuts)
        if new == size_line:
            return text
        size_line = new
    return text


def as_json(s: State, budget: int) -> Dict[str, Any]:
    text, caps, cuts = render(s, budget)
    n = len(text.encode("utf-8"))
    return {
        "reason": {"source": "author", "text": s.reason, "cut": s.cut_reason},
        "question": {"source": "author", "text": s.question, "cut": s.cut_question},
        "state": {"source": "git", "who": s.who, "branch": s.branch,
                  "commit": s.commit, "base": s.base, "merge_base": s.merge_base,
                  "ahead": s.ahead_behind[0] if s.ahead_behind else None,
                  "behind": s.ahead_behind[1] if s.ahead_behind else None,
                  "signature": s.signature,
                  "uncommitted": [{"status": c, "path": p} for c, p in s.changes]},
        "facts": {"source": "icm check",
                  "checks": {name: result for name, result in s.checks},
                  "notes": [{"path": p, "verdict": v} for p, v in s.notes]},
        "actions": {"source": f"git log {s.range}" if s.range else None,
                    "commits_total": s.commit_total,
                    "commits": [{"commit": c, "subject": t}
                                for c, t in s.commits[:caps["commits"]]],
                    "journal_added": [{"path": p, "decision": d}
                                      for p, d, _r in s.entries],
                    "queue_finished": s.finished, "queue_added": s.added},
        "negative": [{"path": p, "rejected": r} for p, _d, r in s.entries if r],
        "ruled_out": [{"source": "author", "from": where, "text": text,
                       "cut": cut} for where, text, cut in s.ruled_out],
        "open": [{"path": p, "title": t, "claim": c or None}
                 for p, t, c in s.open_items],
        "tail": [{"commit": c, "message": m} for c, m in s.tail[:caps["tail"]]],
        "pointers": {"history": f"git log {s.range or s.commit}",
                     "handbook": s.handbook, "journal": s.journal_dir,
                     "queue": s.queue_dir, "notes": s.note_paths},
        "size": {"bytes": n, "tokens": n // 4, "budget": budget, "cuts": cuts},
    }


# -- writing and reading records ----------------------------------------------


def _slug(branch: str, commit: str) -> str:
    """The branch's part of a record's file name."""
    name = branch or f"detached-{commit[:7]}"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return slug[:60] or "branch"


def _title(branch: str, commit: str) -> str:
    """How a record for this branch begins (the template's first line)."""
    return f"# Handoff: {inert(branch or f'detached HEAD at {commit[:12]}')} at "


def _branch_slug(s: State) -> str:
    return _slug(s.branch or "", s.commit)


def write(ctx: Context, s: State, text: str) -> str:
    """Create ``handoff_dir/DATE_branch.md`` (``-2``, ``-3``... when a record
    of that day exists); never overwrite. Returns the root-relative path."""
    folder_rel = ctx.config.handoff_dir
    folder = ensure_folder(ctx, folder_rel)
    stem = f"{ctx.now.astimezone():%Y-%m-%d}_{_branch_slug(s)}"
    for n in range(1, 1000):
        name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
        if not os.path.lexists(folder / name):
            try:
                create_new(ctx, f"{folder_rel}/{name}", text.encode("utf-8"))
            except UsageError:
                if os.path.lexists(folder / name):
                    continue  # another writer took the name first
                raise
            return f"{folder_rel}/{name}"
    raise UsageError(f"{folder_rel}/: 999 records for {stem}; remove old ones")


def newest(ctx: Context) -> str:
    """The newest record for the current branch, as text. A name does not
    say whose it is: ``fix-123.md`` is branch ``fix-123``'s first record or
    ``fix``'s 123rd (and ``a/b`` and ``a-b`` share a slug), so a candidate
    is taken only when its first line names this branch."""
    branch = git.branch_name(ctx.root) or ""
    commit = git.head_commit(ctx.root) or ""
    slug, title = _slug(branch, commit), _title(branch, commit)
    found = []
    for path in records(ctx):
        m = RECORD_NAME.match(path.rsplit("/", 1)[-1])
        if not m:
            continue
        rest = m.group(2)
        tail = rest[len(slug) + 1:] if rest.startswith(slug + "-") else ""
        if rest == slug or tail.isdigit():
            found.append((m.group(1), int(tail) if tail.isdigit() else 1, path))
    for _day, _n, path in sorted(found, reverse=True):
        try:
            text = ctx.read_text(path)
        except Unreadable as exc:
            raise UsageError(f"{path}: cannot read: {exc.reason}") from None
        if text.startswith(title):
            return text
    name = branch or f"detached-{commit[:7]}"
    raise UsageError(f"no handoff record for {name} in "
                     f"{ctx.config.handoff_dir}/ (make one: icm handoff "
                     "--reason ... --question ...)")


def out_rel(ctx: Context, output: str) -> str:
    """The root-relative path ``-o PATH`` names; one outside the root is
    refused (the write itself resolves it again, every component)."""
    path = os.path.abspath(output)
    root = os.path.abspath(ctx.root)
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        raise UsageError(f"-o {output}: outside the repository; icm writes only "
                         "inside the root")
    return rel.replace(os.sep, "/")


def command(ctx: Context, reason: Optional[str], question: Optional[str],
            base: Optional[str], tail: int, output: Optional[str], fmt: str,
            show: bool, ruled: Sequence[str] = ()) -> str:
    """What ``icm handoff`` prints: the record (``-o -``, json, ``--show``)
    or the path it was written to. Repository text leaves inert."""
    if show:  # a file in the repository: anyone may have written it
        return inert_lines(newest(ctx))
    if reason is None or question is None:
        raise UsageError("handoff needs --reason and --question: they are the "
                         "only fields an author writes")
    state = gather(ctx, reason, question, base, tail, ruled)
    budget = ctx.config.handoff_budget
    if fmt == "json":
        text = json.dumps(plain(as_json(state, budget)), indent=2,
                          ensure_ascii=False) + "\n"
    else:
        text = render(state, budget)[0]
    if output == "-" or (output is None and fmt == "json"):
        return text if fmt == "json" else inert_lines(text)
    if output is not None:
        rel = out_rel(ctx, output)
        create_new(ctx, rel, text.encode("utf-8"))
        return text_line(rel) + "\n"
    return text_line(write(ctx, state, text)) + "\n"
