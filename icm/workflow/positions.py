"""``icm positions --write``: put the compiled positions view into the
marked block of ``positions_file``.

Only the lines from ``<!-- icm:positions -->`` to
``<!-- /icm:positions -->`` are changed (the markers are found as the index
block's are: top-level HTML-comment blocks, two blocks or a lone marker
refused). A file without a block gets one at its end; a missing file is
created holding a title and the block. Writing twice changes nothing the
second time. The file keeps its line ending and byte-order mark.
"""

from __future__ import annotations

import json
import posixpath
from typing import List

from icm import markdown
from icm.context import Context, Unreadable
from icm.errors import UsageError
from icm.escape import inert_lines, text_line
from icm.lines import ending as line_ending
from icm.lines import spans as line_spans
from icm.model import positions
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
    body = positions.block_text(positions.build(ctx), target)
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


def command(ctx: Context, fmt: str, write_file: bool) -> str:
    """What ``icm positions`` prints: the view (markdown or json), or what
    ``--write`` did. Repository text leaves inert."""
    if write_file:
        return "".join(text_line(line) + "\n" for line in write(ctx))
    view = positions.build(ctx)
    if fmt == "json":
        return json.dumps(plain(positions.as_json(view)), indent=2,
                          ensure_ascii=False) + "\n"
    target = ctx.config.positions_file
    return inert_lines(positions.block_text(view, target) if target
                       else positions.render_markdown(view))
