"""The boot map: what an agent must read before it can work, against a budget.

Lists every note by word count (as ``wc -w`` counts), then sums the cold-boot
set: the files in ``boot`` (globs), or by default the worst case of the
method's three reads (the handbook, the largest note, the largest queue
item) and the ``positions_file`` when one is kept, plus every file they
import with an ``@path`` line (as Claude Code
and Gemini CLI expand them at start: up to five hops, not inside code, each
real file once; an ``@/x`` the root's tsconfig or jsconfig ``paths`` maps to
a module is code, not an import, and one no config maps is unknown, an
info line). Tokens are bytes / 4, rounded down, unless a tokenizer is
asked for. Over budget fails. A note that is only an import stub (Claude
Code's ``CLAUDE.md`` holding ``@AGENTS.md``) is sized with what it imports,
for the table and for the largest note: that is what an agent reads there.

Bad::

    cold-boot set: 6431 bytes, about 1607 tokens (budget 1600)
    cold-boot set over budget by 7 tokens; largest file: AGENTS.md (3961 bytes)

Good::

    background notes, by size:
        247 words  src/context.md
        117 words  tests/context.md
    cold-boot set: 5122 bytes, about 1280 tokens (budget 1600)
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from icm.context import Context, Unreadable, compile_globs
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model.imports import STUB_MAX_WORDS, BootFile, follow, stub_imports
from icm.model.imports import size as _size
from icm.model.notes import mirrors
from icm.paths import is_readme
from icm.registry import BootmapOptions
from icm.tokens import token_counter

NAME = "bootmap"
# icm explain: why the rule matters, and how to silence it here
WHY = ("Every session pays for the cold-boot set before it starts; a budget turns "
       "handbook creep into a number in the build log.")
SILENCE = ("budget and boot in the config; better, move specifics out of the handbook "
           "into the notes of their folders")
RULES = Rules(NAME, {
    "over-budget": Rule("the cold-boot set is over its token budget",
                        fix="move specifics out of the handbook into folder "
                        "notes, or raise 'budget' on purpose"),
    "bad-import": Rule("an @path import names no file, or one outside the root",
                       fix="fix the path or remove the import"),
    "unknown-import": Rule("an @/path import names no file and may be a module "
                           "path alias no tsconfig or jsconfig maps",
                           Severity.INFO, "map the alias in compilerOptions.paths, "
                           "or fix the path"),
    "empty-boot": Rule("the 'boot' globs match no file",
                       fix="fix the 'boot' globs"),
    "unreadable": Rule("a boot file cannot be read"),
    "no-notes": Rule("no notes yet: only the handbook is sized", Severity.INFO),
})
def word_count(ctx: Context, rel: str, chunk: int = 1 << 20) -> int:
    """Whitespace-separated words, as ``wc -w`` counts them, read in 1 MiB
    blocks so a huge note never sits in memory whole."""
    from icm.context import read_file_blocks

    words = 0
    inside = False  # did the previous block end inside a word?
    for block in read_file_blocks(ctx.root, rel, chunk, ctx.git_dir):
        words += len(block.split())
        if inside and block[:1] and not block[:1].isspace():
            words -= 1  # a word cut in two by the block boundary
        inside = not block[-1:].isspace()
    return words


def default_boot(ctx: Context,
                 stubs: Optional[Dict[str, Tuple[str, ...]]] = None) -> List[str]:
    """The handbook, the positions file when one is kept, the largest note
    (a stub with what it imports: ``stubs``, note -> imported files) and the
    largest queue item."""
    picks = []
    for kept in (ctx.config.handbook, ctx.config.positions_file):
        if kept and kept in ctx.file_set:
            picks.append(kept)
    if stubs is None:
        stubs = {note: stub_imports(ctx, note) for note in ctx.notes()}

    def size(path: str) -> int:
        return _size(ctx, path) + sum(_size(ctx, p) for p in stubs.get(path, ()))

    linked = mirrors(ctx, ctx.notes())  # a link is its target: never the pick
    for group in ([n for n in ctx.notes() if n not in linked], queue_items(ctx)):
        if group:
            picks.append(max(group, key=lambda p: (size(p), p)))
    return picks


def queue_items(ctx: Context) -> List[str]:
    prefix = ctx.config.queue_dir.rstrip("/") + "/"
    return [f for f in ctx.under(prefix) if f.startswith(prefix)
            and "/" not in f[len(prefix):] and f.lower().endswith(".md")
            and not is_readme(f[len(prefix):])]


def _unreadable(rel: str, reason: str) -> Finding:
    return RULES("unreadable", rel, cannot_read(reason))


def collect(ctx: Context, listed: List[str]) -> Tuple[List[BootFile], List[Finding]]:
    """The boot set with imports followed (``model.imports.follow``), and
    what went wrong on the way as findings."""
    files, problems = follow(ctx, listed)
    findings = []
    for p in problems:
        if not p.line:
            findings.append(_unreadable(p.path, p.reason))
        elif p.unknown:
            findings.append(RULES(
                "unknown-import", p.path, f"unresolved import: {p.path} -> "
                f"@{p.target} (no such file; a path alias no tsconfig or "
                "jsconfig maps?)", line=p.line, located=True))
        elif p.reason:
            findings.append(RULES(
                "bad-import", p.path, f"broken import: {p.path} -> @{p.target} "
                f"({p.reason})", line=p.line, located=True,
                fix="import files inside the repository only"))
        else:
            findings.append(RULES(
                "bad-import", p.path, f"broken import: {p.path} -> @{p.target}",
                line=p.line, located=True))
    return files, findings


def run(ctx: Context, options: BootmapOptions) -> Report:
    cfg = ctx.config
    budget = options.budget or cfg.budget
    verbose = options.verbose
    count, approx = token_counter(options.tokenizer)
    head: List[str] = ["background notes, by size:"]
    sized = []
    findings: List[Finding] = []
    stubs: Dict[str, Tuple[str, ...]] = {}
    linked = mirrors(ctx, ctx.notes())
    for note in ctx.notes():
        if note in linked:
            stubs[note] = ()
            continue  # one text, listed once: under its target's name
        try:
            words = word_count(ctx, note)
        except Unreadable as exc:
            findings.append(_unreadable(note, exc.reason))
            continue
        stubs[note] = stub_imports(ctx, note) if words <= STUB_MAX_WORDS else ()
        for imported in stubs[note]:
            try:
                words += word_count(ctx, imported)
            except Unreadable:
                pass  # collect found it a regular file; a race is not a size
        sized.append((words, note))
    for words, note in sorted(sized, key=lambda wn: (-wn[0], wn[1])):
        with_imports = f" (imports {', '.join(stubs[note])})" if stubs[note] else ""
        head.append(f"{words:7d} words  {note}{with_imports}")
    if not ctx.notes():
        text = f"bootmap: no notes named {cfg.note_label} yet (or set note_name)"
        findings.append(RULES("no-notes", ".", text))
    if cfg.boot:
        pattern = compile_globs(cfg.boot)
        assert pattern is not None
        listed = [f for f in ctx.files if pattern.match(f)]
        if not listed:
            findings.append(RULES(
                "empty-boot", cfg.source or "config", "boot patterns match no "
                "file: " + ", ".join(cfg.boot), located=True))
    else:
        listed = default_boot(ctx, stubs)
    files, problems = collect(ctx, listed)
    findings.extend(p for p in problems if p not in findings)  # said once
    total = sum(f.size for f in files)
    tokens = sum(count(ctx.read_bytes(f.path)) for f in files) if not approx \
        else total // 4
    head.append(f"cold-boot set: {total} bytes, {approx}{tokens} tokens "
                f"(budget {budget})")
    if tokens > budget and files:
        largest = max(files, key=lambda f: (f.size, f.path))
        findings.append(RULES(
            "over-budget", largest.path, f"cold-boot set over budget by "
            f"{tokens - budget} tokens; largest file: {largest.path} "
            f"({largest.size} bytes)", located=True))
    tail: List[str] = []
    # The whole tree is the file set the boot set is drawn from (untracked
    # files included) plus any imported file outside it (an ignored one), so
    # the whole is never smaller than its part.
    whole = sum(_size(ctx, path) for path in ctx.file_set.union(
        b.path for b in files)) if verbose else 0
    if verbose:
        tail.append("cold-boot files:")
        for f in files:
            via = f"  (imported by {f.via})" if f.via else ""
            tail.append(f"{f.size:7d} bytes  {f.path}{via}")
        ratio = f", {whole / total:.1f}x the cold-boot set" if total else ""
        tail.append(f"whole tree: {whole} bytes, about {whole // 4} tokens{ratio}")
    data = {"notes": [{"path": p, "words": w, "imports": list(stubs[p])}
                      for w, p in sorted(sized, key=lambda wn: (-wn[0], wn[1]))],
            "boot": [{"path": f.path, "bytes": f.size, "imported_by": f.via or None}
                     for f in files],
            "bytes": total, "tokens": tokens, "budget": budget,
            "tokenizer": "bytes/4" if options.tokenizer == "bytes"
            else options.tokenizer,
            "whole_tree_bytes": whole if verbose else None}
    return Report(NAME, tuple(findings), head=tuple(head), tail=tuple(tail),
                  data=data)
