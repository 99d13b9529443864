"""Two writers, one tree: ``icm claim``, ``icm release`` and ``icm renumber``.

A claim is a line in the item itself, ``Claimed-by: NAME on BRANCH,
YYYY-MM-DD``, under its title: it travels with the branch, so ``check-queue
--against`` sees another writer's claim before the merge, with no server.
``renumber`` moves an item to a free number and rewrites every relative link
to it, preparing every new text before it changes anything, then making
the changes all or none (``files.all_or_nothing``: a failure or a signal
puts the old texts back). Each command reads and writes under the queue
lock, reading the item again there: a claim raced another claim, or was
written to an item renumber had already copied.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from icm import git, lines
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.escape import inert
from icm.model import links
from icm.model.queue import claim_at, claim_of
from icm.workflow.files import all_or_nothing, queue_locked, replace_atomic
from icm.workflow.queue import find_item, item_bytes, still_there, used_numbers

# Unicode spaces git allows in a branch name (U+00A0): the claim's branch is
# one word, or the line is no claim at all.
_SPACE = re.compile(r"\s")


def _writer(ctx: Context) -> Tuple[str, str]:
    """This writer's name and branch as the claim line holds them, so
    ``claim_of`` reads the same name back: ``inert`` (a newline in
    user.name planted a slot heading or another writer's claim line; a byte
    that is not UTF-8 stopped the write)."""
    name = me(ctx)
    if not name:
        raise UsageError("git user.name is not set; a claim names its writer "
                         "(git config user.name 'Your Name')")
    branch = inert(git.branch_name(ctx.root) or "detached")
    return name, _SPACE.sub(lambda m: f"\\u{ord(m.group()):04x}", branch)


def me(ctx: Context) -> Optional[str]:
    """git user.name as a claim line names this writer, or None."""
    name = git.config_value(ctx.root, "user.name") if ctx.in_git else None
    return inert(name) if name else None


def _read(ctx: Context, path: str) -> str:
    try:
        return ctx.read_text(path)
    except Unreadable as exc:
        raise UsageError(f"{path}: cannot read: {exc.reason}") from None


def _bom(ctx: Context, path: str) -> str:
    """The BOM ``read_text`` stripped, to put back on write."""
    return "\ufeff" if ctx.read_bytes(path).startswith(b"\xef\xbb\xbf") else ""


def with_claim(text: str, line: str) -> str:
    """``text`` with its claim line set to ``line`` (under the title). Every
    other line keeps its own ending; an added line takes the file's."""
    parts = lines.split(text)
    i = claim_at([content for content, _end in parts])
    if i >= 0:
        parts[i] = (line, parts[i][1])
        return lines.join(parts)
    nl = lines.ending(text)
    at = 0
    for i, (content, _end) in enumerate(parts):
        if content.strip():
            at = i + 1 if content.startswith("# ") else i
            break
    # A title with no line break gets one; the claim, now last, gets none, so
    # release can tell this text from the same with a final break.
    last = "" if at and not parts[at - 1][1] else None
    if last is not None:
        parts[at - 1] = (parts[at - 1][0], nl)
    gap_after = at < len(parts) and bool(parts[at][0].strip())
    # A lone CR right before an empty LF line reads back as one CRLF: the
    # added lines take a CR-ended title's ending, and never end in a lone CR
    # before an empty LF line.
    if at and parts[at - 1][1] == "\r":
        nl = "\r"
    # Right under a title with text just below it, a blank line before the
    # text: with a blank line above too, "# T\nb" and "# T\n\nb" would be
    # claimed alike, and release could not give back both.
    title_on_text = gap_after and parts[at - 1][0].strip() != ""
    new = ([("", nl)] if at and not title_on_text else []) + [(line, nl)] + (
        [("", nl)] if gap_after else [])
    if nl == "\r" and at < len(parts) and parts[at] == ("", "\n"):
        new[-1] = (new[-1][0], "\r\n")
    if last is not None:
        new[-1] = (line, last)
    return lines.join(parts[:at] + new + parts[at:])


def without_claim(text: str) -> str:
    """``text`` without its claim line; endings kept. A claim ``with_claim``
    added goes with exactly what it added (release gives back the very
    bytes claim was given); any other claim line goes with the blank line
    after it, when one already separates the title from the body."""
    parts = lines.split(text)
    i = claim_at([content for content, _end in parts])
    if i < 0:
        return text
    for before in _unclaimed(parts, i):
        if with_claim(before, parts[i][0]) == text:
            return before
    del parts[i]
    after = parts[i + 1][0] if i + 1 < len(parts) else ""
    if i + 1 < len(parts) and parts[i][0] == "" and parts[i][1] \
            and after[:1] and not after[:1].isspace():
        del parts[i]
    elif i and parts[i - 1][1] == "\r" and parts[i:i + 1] == [("", "\n")]:
        del parts[i]  # "a\r" + "\n" would read back as one CRLF line
    return lines.join(parts)


def _unclaimed(parts: List[Tuple[str, str]], i: int) -> Iterator[str]:
    """Each text ``with_claim`` may have made ``parts`` from, claim line
    ``i``: it adds a blank line before and after, and a break to a title
    that had none. At most six: release stays linear."""
    blank_before = i > 0 and parts[i - 1][0] == ""
    blank_after = i + 1 < len(parts) and parts[i + 1][0] == "" and parts[i + 1][1]
    for cut_before in (True, False) if blank_before else (False,):
        for cut_after in (True, False) if blank_after else (False,):
            kept = parts[:i - cut_before] + parts[i + 1 + cut_after:]
            yield lines.join(kept)
            if cut_before and not parts[i][1] and i >= 2 and not cut_after:
                title = i - 2
                yield lines.join(kept[:title] + [(kept[title][0], "")]
                                 + kept[title + 1:])


def claim(ctx: Context, item: str, force: bool = False) -> str:
    found = find_item(ctx, item)
    name, branch = _writer(ctx)
    was = item_bytes(ctx, found)
    with queue_locked(ctx) as folder:
        path = still_there(ctx, found, folder, was)
        text = _read(ctx, path)
        held = claim_of(text)
        if held and held[0] != name and not force:
            raise UsageError(f"{path}: claimed by {held[0]} on {held[1]}, "
                             f"{held[2]}; pass --force to take it over")
        line = f"Claimed-by: {name} on {branch}, {ctx.now.astimezone():%Y-%m-%d}"
        new = _bom(ctx, path) + with_claim(text, line)
        replace_atomic(ctx, path, new.encode("utf-8"))
    return f"{path}: {line}"


def release(ctx: Context, item: str, force: bool = False) -> str:
    found = find_item(ctx, item)
    name, _branch = _writer(ctx)
    was = item_bytes(ctx, found)
    with queue_locked(ctx) as folder:
        path = still_there(ctx, found, folder, was)
        text = _read(ctx, path)
        held = claim_of(text)
        if held is None:
            raise UsageError(f"{path}: not claimed")
        if held[0] != name and not force:
            raise UsageError(f"{path}: claimed by {held[0]}, not by you; pass "
                             "--force to release it anyway")
        new = _bom(ctx, path) + without_claim(text)
        replace_atomic(ctx, path, new.encode("utf-8"))
    return f"{path}: released"


def claimed_by_other(ctx: Context, path: str, text: str) -> Optional[str]:
    """Who else holds ``path``, or None when nobody or this writer does."""
    held = claim_of(text)
    if held is None:
        return None
    return None if held[0] == me(ctx) else f"{held[0]} on {held[1]}, {held[2]}"


def _linking(ctx: Context, old: str) -> Dict[str, List[Tuple[int, str]]]:
    """Files whose links resolve to ``old``: file -> [(line, raw destination)].
    ``old`` itself too (its links to itself broke with the move), but not
    its bare ``#anchor`` links, which need no change."""
    corpus = links.extract_all(ctx, ctx.markdown_files())
    found: Dict[str, List[Tuple[int, str]]] = {}
    for source, (found_links, *_rest) in corpus.parsed.items():
        for line, raw, href, _kind in found_links:
            if source == old and not href.split("#", 1)[0].split("?", 1)[0]:
                continue
            target = links.resolve(source, href)
            if target is not None and target.path == old:
                found.setdefault(source, []).append((line, raw))
    return found


def renumber(ctx: Context, item: str, to: Optional[int],
             against: Optional[str] = None) -> List[str]:
    """Move ``item`` to number ``to`` (default: the next free one, as
    new-queue finds it) and rewrite every relative link to it; return what
    changed."""
    found = find_item(ctx, item)
    with queue_locked(ctx) as folder:
        # Not followed: a second renumber of one item would move it twice.
        old = still_there(ctx, found, folder, None)
        taken = used_numbers(ctx, folder, against)
        if to is None:
            to = max([0, *taken]) + 1
        elif to in taken:
            raise UsageError(f"number {to:02d} is already used; pick a free one or "
                             "leave out --to")
        name = old.rsplit("/", 1)[-1]
        new_name = re.sub(r"\A\d+", f"{to:02d}", name)
        new = f"{ctx.config.queue_dir}/{new_name}"
        plans: Dict[str, str] = {}  # file -> new text
        for source, spots in sorted(_linking(ctx, old).items()):
            text = _read(ctx, source)  # BOM stripped; put back on write below
            # The parser's own line rule (a lone CR ends a line), endings kept.
            parts = lines.split(text)
            by_line: Dict[int, List[str]] = {}
            for line, raw in spots:
                by_line.setdefault(line, []).append(raw)
            for line, raws in sorted(by_line.items()):
                cur = parts[line - 1][0] if 0 < line <= len(parts) else ""
                # Longest first: 'x.md#a' before its prefix 'x.md'.
                for raw in sorted(set(raws), key=len, reverse=True):
                    where = f"{source}:{line}: cannot rewrite the link '{raw}' to " \
                        f"{old} in place"
                    if name not in raw or raw not in cur:
                        raise UsageError(f"{where}; nothing was changed")
                    if cur.count(raw) != raws.count(raw):
                        # The same text outside the link (a code span): which
                        # one is the link cannot be told from the line.
                        raise UsageError(f"{where}: the line holds it outside "
                                         "the link too; nothing was changed")
                    fixed = raw[::-1].replace(name[::-1], new_name[::-1], 1)[::-1]
                    cur = cur.replace(raw, fixed)
                parts[line - 1] = (cur, parts[line - 1][1])
            plans[source] = _bom(ctx, source) + lines.join(parts)
        # The item's own links to itself are rewritten in the new file.
        own = plans.pop(old, None)
        content = own.encode("utf-8") if own else ctx.read_bytes(old)
        with all_or_nothing(ctx) as changes:
            changes.create(new, content)
            for source, after in plans.items():
                changes.replace(source, after.encode("utf-8"))
            changes.remove(old)
            changes.commit()
            if old in ctx.tracked:
                git.stage_move(ctx.root, old, new)
    return [f"{old} -> {new}"] + [f"{source}: link rewritten" for source in
                                  sorted([*plans, *([new] if own else [])])]
