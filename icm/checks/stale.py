"""Staleness: the tree as it will be committed, against git history.

A note (``context.md``) is STALE when code in its folder changed after it.
Code is every tracked file in the note's folder (``stale_scope =
"subtree"``: and in subfolders without a note of their own) that is not
prose (``.md``, ``.markdown``, ``.mdx``); a submodule pointer counts as
code, since bumping it changes what the folder builds.

History: HEAD's first-parent history, merges diffed against their first
parent, renames not followed. The note is STALE when the newest commit
touching its code comes after the last commit touching the note in that
history; a commit touching both is ``ok`` (equal is not newer). "After" is
the log's order, never the committer clock: a note fixed in a child commit
whose date is skewed earlier is fresh. The days in the message are
committer times.

Against a base (``--base REF``, or ``ICM_BASE``; the GitHub Action sets
``ICM_BASE`` on pull requests), the history is the one the base will have
after "Rebase and merge": the base's, then the commits the branch adds
(``base..HEAD``, merges left out), each in its own place. On GitHub's merge
ref (``refs/pull/N/merge``, what a pull request's job checks out) HEAD's
first-parent history folds the whole pull request into its merge commit, so
a note changed in the first commit and its code in a later one was a tie,
``ok`` in CI and STALE on main after a rebase merge. The strategies: a merge
commit and a squash each fold the pull request into one commit on the base
(a note it changes anywhere ties with its code: ok); a rebase keeps every
commit, so their order decides. Judged per commit the verdict is the
strictest of the three: ok there is ok after any of them. Without a base,
HEAD's own history (the merge ref's fold, in CI).

Pending changes come first: a path whose index or work tree differs from
HEAD (modified, added, deleted, either side of a rename) changed *now*,
after every commit. A changed note is ``ok (pending)``, its code changed
too or not (both in one commit is a tie, and a tie is ok); changed code
under an unchanged note is STALE before the commit lands. So a pre-commit
hook refuses the code-only commit and passes the one that fixes the note,
instead of refusing the fix for what an earlier commit did. ``--committed``
judges history alone (CI on a clean checkout, where both agree).

A note never committed is ``unknown``, never fresh: there is no history to
set it against (``--strict`` makes unknown a failure). One in the commit
being made (added to the index, or a renamed note) is ``ok (pending)`` like
any changed note, so a new folder's first commit passes a ``--strict``
hook. A deciding commit with
a missing or malformed committer date is ``unknown`` too.

Bad (the third: a pull request that changed the note, then its code,
judged with ``ICM_BASE``)::

    src/context.md: STALE - code in src moved 8 days after the note
    src/context.md: STALE - code in src changed (uncommitted) after the note
    src/context.md: STALE - code in src moved 2 hours after the note

Good::

    tests/context.md: ok
    src/context.md: ok (pending)
"""

from __future__ import annotations

import posixpath
from typing import List, Optional, Tuple

from icm.context import (
    UNDATED,
    Context,
    branch_base,
    compile_globs,
)
from icm.errors import UsageError
from icm.finding import Finding, Report, Rule, Rules, Severity
from icm.model.notes import code_by_note
from icm.registry import StaleOptions

NAME = "stale"
# icm explain: why the rule matters, and how to silence it here
WHY = ("A note older than its folder's code describes code that moved on, and the next "
       "session trusts it anyway.")
SILENCE = "reread the note against the code and commit it (with the code)"
RULES = Rules(NAME, {
    "stale": Rule("a note's folder has code that changed after the note",
                  fix="reread the note against the code and correct it; git "
                  "records only a changed note, so if it is still true, say "
                  "what you checked"),
    "unknown": Rule("staleness cannot be judged (never committed, no date, "
                    "shallow): a warning, an error with --strict",
                    Severity.WARNING, "commit the note"),
    "ok": Rule("the note is not older than its code", Severity.INFO),
    "no-notes": Rule("no notes named note_name yet", Severity.INFO),
    "not-applicable": Rule("not a git repository: staleness not checked",
                           Severity.INFO),
})


def describe(seconds: int) -> str:
    """Whole days, rounded down; under a day hours; under an hour says so."""
    days, hours = seconds // 86400, seconds // 3600
    if days >= 1:
        return f"{days} day" + ("s" if days != 1 else "")
    if hours >= 1:
        return f"{hours} hour" + ("s" if hours != 1 else "")
    return "less than an hour"


def _info(code: str, text: str) -> Report:
    """A run that judged nothing says why, as one info line."""
    return Report(NAME, (RULES(code, ".", text),),
                  data={"stale": 0, "unknown": 0, "ok": 0})


def run(ctx: Context, options: StaleOptions) -> Report:
    strict, committed = options.strict, options.committed
    if not ctx.in_git:
        if options.history_optional and ctx.git_installed:
            return _info("not-applicable",
                         "stale: not a git repository; staleness not checked")
        ctx.history(options.allow_partial)  # raises why: no repository, no git
    if not ctx.notes():
        name = ctx.config.note_name
        return _info("no-notes", f"stale: no notes named {name} yet (or set note_name)")
    history = ctx.history(options.allow_partial, branch_base(ctx, options.against))
    if history.boundary and not options.allow_shallow:
        raise UsageError(
            "shallow clone: history is cut, so every note would look fresh; fetch "
            "full history (actions/checkout 'fetch-depth: 0', or 'git fetch "
            "--unshallow'), or pass --allow-shallow")
    pending = frozenset() if committed else history.pending
    excluded = compile_globs(ctx.config.exclude)
    if excluded is not None:
        pending = frozenset(p for p in pending if not excluded.match(p))
    findings: List[Finding] = []
    counts = {"stale": 0, "unknown": 0, "ok": 0}
    for note, code in sorted(code_by_note(ctx, ctx.tracked | pending).items()):
        folder = posixpath.dirname(note) or "."
        dirty = " (uncommitted changes)" if committed and note in history.pending \
            else ""
        note_last = history.last(note) if note in ctx.tracked else None
        newest: Optional[Tuple[int, str, int]] = None
        for path in code:
            hit = history.last(path)
            if hit is not None and (newest is None or newest[0] != UNDATED and (
                    hit[0] == UNDATED or hit[2] > newest[2])):  # undated sticks
                newest = hit
        undated = [c for c in (note_last, newest) if c and c[0] == UNDATED]
        if note in pending:  # in the commit being made, new or not
            verdict, code_name, sev = "ok (pending)", "ok", Severity.INFO
        elif note_last is None:
            verdict, code_name, sev = "unknown - note never committed", "unknown", \
                Severity.ERROR if strict else Severity.WARNING
        elif any(path in pending for path in code):
            verdict, code_name, sev = (
                f"STALE - code in {folder} changed (uncommitted) after the note",
                "stale", Severity.ERROR)
        elif undated:
            verdict, code_name, sev = (
                f"unknown - commit {undated[0][1][:12]} has no valid committer "
                "date", "unknown", Severity.ERROR if strict else Severity.WARNING)
        elif history.boundary and (note_last[1] in history.boundary or (
                newest is not None and newest[1] in history.boundary)):
            verdict, code_name, sev = (
                "unknown (shallow) - history before the shallow boundary is "
                "missing", "unknown", Severity.ERROR if strict else Severity.WARNING)
        elif newest is not None and newest[2] > note_last[2]:
            gap = newest[0] - note_last[0]
            when = f"moved {describe(gap)} after the note" if gap >= 0 else (
                f"moved after the note, in a commit dated {describe(-gap)} "
                "before it")
            verdict, code_name, sev = (
                f"STALE - code in {folder} {when}", "stale", Severity.ERROR)
        else:
            verdict, code_name, sev = "ok", "ok", Severity.INFO
        counts[code_name] += 1
        findings.append(RULES(code_name, note, f"{verdict}{dirty}", severity=sev))
    return Report(NAME, tuple(sorted(findings)), data=counts)
