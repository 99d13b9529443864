"""Two writers, one tree: ``icm claim``, ``icm release`` and ``icm renumber``.

A claim is a line in the item itself, ``Claimed-by: NAME on BRANCH,
YYYY-MM-DD``, under its title: it travels with the branch, so ``check-queue
--against`` sees another writer's claim before the merge, with no server.
``renumber`` moves an item to a free number and rewrites every relative link
to it, preparing every new text before it changes anything and putting the
old texts back if a write fails.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from icm import git
from icm.checks import links
from icm.checks.queue import CLAIM, claim_of
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.workflow.files import create_new, entry, replace_atomic, target
from icm.workflow.journal import find_item
from icm.workflow.queue import locked, used_numbers


def _writer(ctx: Context) -> Tuple[str, str]:
    name = git.config_value(ctx.root, "user.name") if ctx.in_git else None
    if not name:
        raise UsageError("git user.name is not set; a claim names its writer "
                         "(git config user.name 'Your Name')")
    branch = git.branch_name(ctx.root) or "detached"
    return name, branch


def _read(ctx: Context, path: str) -> str:
    try:
        return ctx.read_text(path)
    except Unreadable as exc:
        raise UsageError(f"{path}: cannot read: {exc.reason}") from None


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def with_claim(text: str, line: str) -> str:
    """``text`` with its claim line set to ``line`` (under the title)."""
    nl = _newline(text)
    if CLAIM.search(text.replace("\r\n", "\n")):
        return CLAIM.sub(lambda _m: line, text.replace("\r\n", "\n"),
                         count=1).replace("\n", nl)
    lines = text.splitlines()
    at = 0
    for i, ln in enumerate(lines):
        if ln.strip():
            at = i + 1 if ln.startswith("# ") else i
            break
    new = lines[:at] + ([""] if at else []) + [line] + (
        [""] if at < len(lines) and lines[at].strip() else []) + lines[at:]
    return nl.join(new) + nl


def without_claim(text: str) -> str:
    nl = _newline(text)
    plain = text.replace("\r\n", "\n")
    plain = re.sub(r"(^|\n)Claimed-by: [^\n]*\n(\n(?=\S))?", r"\1", plain, count=1)
    return plain.replace("\n", nl)


def claim(ctx: Context, item: str, force: bool = False) -> str:
    path = find_item(ctx, item)
    name, branch = _writer(ctx)
    text = _read(ctx, path)
    held = claim_of(text)
    if held and held[0] != name and not force:
        raise UsageError(f"{path}: claimed by {held[0]} on {held[1]}, {held[2]}; "
                         "pass --force to take it over")
    line = f"Claimed-by: {name} on {branch}, {ctx.now.astimezone():%Y-%m-%d}"
    replace_atomic(ctx, path, with_claim(text, line).encode("utf-8"))
    return f"{path}: {line}"


def release(ctx: Context, item: str, force: bool = False) -> str:
    path = find_item(ctx, item)
    name, _branch = _writer(ctx)
    text = _read(ctx, path)
    held = claim_of(text)
    if held is None:
        raise UsageError(f"{path}: not claimed")
    if held[0] != name and not force:
        raise UsageError(f"{path}: claimed by {held[0]}, not by you; pass --force "
                         "to release it anyway")
    replace_atomic(ctx, path, without_claim(text).encode("utf-8"))
    return f"{path}: released"


def claimed_by_other(ctx: Context, path: str, text: str) -> Optional[str]:
    """Who else holds ``path``, or None when nobody or this writer does."""
    held = claim_of(text)
    if held is None:
        return None
    me = git.config_value(ctx.root, "user.name") if ctx.in_git else None
    return None if held[0] == me else f"{held[0]} on {held[1]}, {held[2]}"


def _linking(ctx: Context, old: str) -> Dict[str, List[Tuple[int, str]]]:
    """Files whose links resolve to ``old``: file -> [(line, raw destination)]."""
    corpus = links.extract_all(ctx, ctx.markdown_files())
    found: Dict[str, List[Tuple[int, str]]] = {}
    for source, (found_links, *_rest) in corpus.parsed.items():
        if source == old:
            continue
        for line, raw, href, _kind in found_links:
            target = links.resolve(source, href)
            if target is not None and target.path == old:
                found.setdefault(source, []).append((line, raw))
    return found


def renumber(ctx: Context, item: str, to: Optional[int]) -> List[str]:
    """Move ``item`` to number ``to`` (default: the next free one, as
    new-queue finds it) and rewrite every relative link to it; return what
    changed."""
    old = find_item(ctx, item)
    folder = target(ctx, ctx.config.queue_dir)
    with locked(folder):
        taken = used_numbers(ctx, folder)
        if to is None:
            to = max([0, *taken]) + 1
        elif to in taken:
            raise UsageError(f"number {to:02d} is already used; pick a free one or "
                             "leave out --to")
        name = old.rsplit("/", 1)[-1]
        new_name = re.sub(r"\A\d+", f"{to:02d}", name)
        new = f"{ctx.config.queue_dir}/{new_name}"
        plans: Dict[str, Tuple[str, str]] = {}  # file -> (old text, new text)
        for source, spots in sorted(_linking(ctx, old).items()):
            text = _read(ctx, source)  # BOM stripped; put back on write below
            lines = text.split("\n")
            by_line: Dict[int, List[str]] = {}
            for line, raw in spots:
                by_line.setdefault(line, []).append(raw)
            for line, raws in by_line.items():
                cur = lines[line - 1] if 0 < line <= len(lines) else ""
                # Longest first: 'x.md#a' before its prefix 'x.md'.
                for raw in sorted(set(raws), key=len, reverse=True):
                    if name not in raw or raw not in lines[line - 1]:
                        raise UsageError(f"{source}:{line}: cannot rewrite the "
                                         f"link '{raw}' to {old} in place; nothing "
                                         "was changed")
                    fixed = raw[::-1].replace(name[::-1], new_name[::-1], 1)[::-1]
                    cur = cur.replace(raw, fixed)
                lines[line - 1] = cur
            bom = "\ufeff" if ctx.read_bytes(source).startswith(
                b"\xef\xbb\xbf") else ""
            plans[source] = (bom + text, bom + "\n".join(lines))
        content = ctx.read_bytes(old)
        create_new(ctx, new, content)
        done: List[str] = []
        try:
            for source, (_before, after) in plans.items():
                replace_atomic(ctx, source, after.encode("utf-8"))
                done.append(source)
            os.unlink(entry(ctx, old))
        except BaseException:
            for source in done:  # put every rewritten file back
                replace_atomic(ctx, source, plans[source][0].encode("utf-8"))
            os.unlink(entry(ctx, new))
            raise
    if old in ctx.tracked:
        git.stage_move(ctx.root, old, new)
    return [f"{old} -> {new}"] + [f"{source}: link rewritten" for source in plans]
