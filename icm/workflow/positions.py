"""``icm positions --write``: put the compiled positions view into the
marked block of ``positions_file``.

Only the lines from ``<!-- icm:positions -->`` to
``<!-- /icm:positions -->`` are changed (the markers are found as the index
block's are: top-level HTML-comment blocks, two blocks or a lone marker
refused). A file without a block gets one at its end; a missing file is
created holding a title and the block. Writing twice changes nothing the
second time. The file keeps its line ending and byte-order mark.

Also which entries name a folder (``--folder``, and ``icm brief``'s
folders): the paths a text links to or names, found once here.
"""

from __future__ import annotations

import json
import posixpath
from typing import Dict, List, Optional, Sequence, Set

from icm import markdown
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.escape import inert_lines, text_line
from icm.lines import ending as line_ending
from icm.lines import spans as line_spans
from icm.model import positions
from icm.paths import Refused, clean
from icm.report import plain
from icm.workflow.files import all_or_nothing, queue_locked, replace_atomic

TITLE = "# Positions"


def write(ctx: Context) -> List[str]:
    """Write the block; return one line saying what happened. Under the queue
    lock: renumber rewrites the file's links to items."""
    target = ctx.config.positions_file
    if not target:
        raise UsageError("--write needs positions_file in the config (for example "
                         "positions_file = \"journal/POSITIONS.md\")")
    body = positions.block_text(positions.build(ctx), target,
                                ctx.config.positions_budget)
    with queue_locked(ctx):
        return _write(ctx, target, body)


def _write(ctx: Context, target: str, body: str) -> List[str]:
    try:
        raw = ctx.read_bytes(target)
        text = ctx.read_text(target)
    except Unreadable as exc:
        if not exc.reason.startswith("no such file"):
            raise UsageError(f"{target}: cannot read: {exc.reason}") from None
        folder = posixpath.dirname(target)
        block = "\n".join([positions.BLOCK_OPEN, body + positions.BLOCK_CLOSE])
        with all_or_nothing(ctx) as changes:
            if folder:
                changes.folder(folder)
            changes.create(target, f"{TITLE}\n\n{block}\n".encode("utf-8"))
        return [f"created {target}"]
    newline = line_ending(text)
    block = newline.join([positions.BLOCK_OPEN, *body.split("\n")[:-1],
                          positions.BLOCK_CLOSE])
    tokens = markdown.parse(text, inline=lambda _c: False)
    try:
        found = markdown.marked_block(tokens, positions.BLOCK_OPEN,
                                      positions.BLOCK_CLOSE, "positions", target)
    except markdown.MarkerError as exc:
        raise UsageError(str(exc)) from None
    if found:
        spans = line_spans(text)
        start, end = spans[found[0]][0], spans[found[1]][1]
        new_text = text[:start] + block + text[end:]
    else:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        new_text = f"{text}{sep}{newline if text else ''}{block}{newline}"
        again = markdown.parse(new_text, inline=lambda _c: False)
        if markdown.marked_block(again, positions.BLOCK_OPEN, positions.BLOCK_CLOSE,
                                 "positions", target) is None:
            raise UsageError(f"{target}: a block added at its end would sit inside "
                             f"a code block or a container; put {positions.BLOCK_OPEN}"
                             f" and {positions.BLOCK_CLOSE} where it belongs, then "
                             "run again; nothing was changed")
    if new_text == text:
        return [f"{target}: positions block is up to date"]
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    replace_atomic(ctx, target, bom + new_text.encode("utf-8"))
    return [f"updated {target}"]


# -- which entries touch a folder (``--folder``, ``icm brief``) ---------------


def folders_of(ctx: Context) -> Set[str]:
    """Every folder holding a file of the file set ("" for the root)."""
    found: Set[str] = set()
    for path in ctx.file_set:
        folder = posixpath.dirname(path)
        while folder not in found:
            found.add(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return found


def named_paths(ctx: Context, path: str, text: str, folders: Set[str],
                names: Optional[Dict[str, List[str]]] = None) -> List[str]:
    """Files and folders of the root that ``text`` (the file ``path``)
    links to or names, in order, each once: links resolved as check-links
    resolves them, then paths written in prose or code spans (each word of
    a command: ``pytest tests/test_x.py``), from the root or from the
    file's folder, or the end of one file's path (``names``, from
    ``file_names``). A name that is no file or folder here (``csv.Sniffer``)
    is none."""
    from icm import similarity
    from icm.extract import extract
    from icm.model import links

    found: Dict[str, None] = {}
    for link in extract(text).links:
        target = links.resolve(path, link.href)
        if target is not None and not target.problem and target.path and (
                target.path in ctx.file_set or target.path in folders):
            found.setdefault(target.path)
    toks = similarity.tokens(text)
    here = posixpath.dirname(path)
    for value, kind in zip(toks.values, toks.kinds):
        if kind not in (similarity.PATH, similarity.CODE):
            continue
        for word in value.split():
            word = word.strip("`'\"").rstrip(".,;:)")
            if "/" not in word and "." not in word:
                continue
            rel = _existing(ctx, word, here, folders, names or {})
            if rel:
                found.setdefault(rel)
    return list(found)


def file_names(ctx: Context) -> Dict[str, List[str]]:
    """The files of the file set by file name."""
    found: Dict[str, List[str]] = {}
    for p in sorted(ctx.file_set):
        found.setdefault(posixpath.basename(p), []).append(p)
    return found


def _existing(ctx: Context, word: str, here: str, folders: Set[str],
              names: Dict[str, List[str]]) -> str:
    """The root-relative file or folder ``word`` names ("" for none): from
    the root, from ``here``, else the one file whose path ends in it
    (``model/queue.py``, ``files.py``)."""
    for base in ("", here):
        try:
            rel = clean(posixpath.join(base, word.lstrip("/")))
        except Refused:
            return ""
        if rel and (rel in ctx.file_set or rel in folders):
            return rel
    ends = [p for p in names.get(posixpath.basename(word), ())
            if p == word or p.endswith("/" + word)]
    return ends[0] if len(ends) == 1 else ""


def touched(paths: Sequence[str], folders: Set[str]) -> List[str]:
    """The folders ``paths`` are (folders) or sit in (files), root aside."""
    out: Dict[str, None] = {}
    for p in paths:
        folder = p if p in folders else posixpath.dirname(p)
        if folder:
            out.setdefault(folder)
    return list(out)


def touching(ctx: Context, entries: Sequence[str], wanted: Sequence[str],
             below: bool) -> Set[str]:
    """The entries that name a path in a ``wanted`` folder (or, ``below``,
    in one under it). Only an entry whose text holds a folder's name, or
    the name of a file only one file has in one, is parsed for its paths."""
    if not wanted:
        return set()
    folders, names = folders_of(ctx), file_names(ctx)

    def inside(folder: str) -> bool:
        return any(folder == w or (below and folder.startswith(w + "/"))
                   for w in wanted)

    hints = list(wanted) + [n for n, ps in names.items()
                            if any(inside(posixpath.dirname(p)) for p in ps)]
    hit: Set[str] = set()
    for path in entries:
        try:
            text = ctx.read_markdown(path)
        except Unreadable:
            continue
        if not any(h in text for h in hints):
            continue
        named = named_paths(ctx, path, text, folders, names)
        if any(inside(folder) for folder in touched(named, folders)):
            hit.add(path)
    return hit


def folder_view(ctx: Context, view: positions.Positions,
                folder: str) -> positions.Positions:
    """``icm positions --folder DIR``: the entries naming a path in ``DIR``
    or below it."""
    try:
        rel = clean(folder.strip().rstrip("/"))
    except Refused as exc:
        raise UsageError(f"--folder {folder}: {exc.reason}") from None
    every = [h.path for h in view.current] + [o.path for o in view.superseded] \
        + [d.path for d in view.rejected]
    wanted = [rel] if rel else []
    return positions.only(view, touching(ctx, sorted(set(every)), wanted,
                                         below=True) if rel else set(every))


def command(ctx: Context, fmt: str, write_file: bool, budget: Optional[int],
            folder: Optional[str]) -> str:
    """What ``icm positions`` prints: the view (markdown or json; of one
    ``folder``, within ``budget`` tokens, else ``positions_budget``), or
    what ``--write`` did. Repository text leaves inert."""
    if write_file:
        if budget is not None or folder is not None:
            raise UsageError("--write writes the view the config sets "
                             "(positions_budget); --budget and --folder are for "
                             "reading it")
        return "".join(text_line(line) + "\n" for line in write(ctx))
    view = positions.build(ctx)
    if folder is not None:
        view = folder_view(ctx, view, folder)
    if fmt == "json":
        return json.dumps(plain(positions.as_json(view)), indent=2,
                          ensure_ascii=False) + "\n"
    shown = ctx.config.positions_budget if budget is None else budget
    target = ctx.config.positions_file
    return inert_lines(positions.block_text(view, target, shown) if target
                       else positions.render_markdown(view, "", shown))
