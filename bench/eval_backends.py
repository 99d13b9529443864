"""Evaluate fast markdown parsers against icm's extraction (issue 16).

    python bench/eval_backends.py TREE [TREE ...] [--runs 3]

For every ``.md`` file of each tree (by path; nothing is copied), it times
icm's own extraction (``icm.extract.extract``: markdown-it-py, the
reference) and the bare parse of each candidate that is installed
(``markdown-it-pyrs``: markdown-it.rs, a tree with byte source maps;
``pyromark``: pulldown-cmark, events with byte ranges), counts the files a
candidate raised on (a Rust panic arrives as an exception), and compares
what both can say without icm's own rules: the (line, destination) of every
inline link, image and reference definition, and the (line, level) of every
heading. Destinations are compared percent-decoded, so encoding alone is
not a difference. This is the coarse screen that decides whether an
adapter is worth writing, not the parity test an adapter would need
(raw destinations, reference uses, HTML anchors, slugs).

Candidates are installed by hand (``pip install markdown-it-pyrs
pyromark``); neither is a dependency of icm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import unquote

from timing import quiet

from icm import extract

Facts = Counter  # of (what, line, value)


def md_files(tree: Path) -> List[Tuple[str, str]]:
    found = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            if name.endswith(".md"):
                path = Path(folder, name)
                try:
                    text = path.read_bytes().decode("utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                found.append((str(path.relative_to(tree)), text))
    return sorted(found)


def reference_facts(text: str) -> Facts:
    got: Facts = Counter()
    ex = extract.extract(text)
    for link in ex.links:
        if link.kind in ("link", "image", "definition"):
            got[(link.kind, link.line, unquote(link.raw))] += 1
    for head in ex.headings:
        got[("heading", head.line, str(head.level))] += 1
    return got


def _line_of(data: bytes) -> Callable[[int], int]:
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]

    def line(offset: int) -> int:
        lo, hi = 0, len(starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1
    return line


def pyrs_parser() -> Optional[Callable[[str], Any]]:
    try:
        from markdown_it_pyrs import MarkdownIt
    except ImportError:
        return None
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    return md.tree  # type: ignore[no-any-return]


def pyrs_facts(tree: Any, text: str) -> Facts:
    data = text.encode("utf-8")
    line = _line_of(data)
    got: Facts = Counter()
    todo = [tree]
    while todo:
        node = todo.pop()
        todo.extend(node.children)
        start = node.srcmap[0] if node.srcmap else 0
        if node.name in ("link", "image"):
            source = data[start:node.srcmap[1]] if node.srcmap else b""
            if source.endswith(b")"):  # inline; `[a][b]` and `[a]` are uses
                got[(node.name, line(start), unquote(node.meta.get("url", "")))] += 1
        elif node.name == "definition":
            got[("definition", line(start),
                 unquote(node.meta.get("destination", "")))] += 1
        elif node.name in ("heading", "lheading"):
            got[("heading", line(start), str(node.meta.get("level")))] += 1
    return got


def pyromark_parser() -> Optional[Callable[[str], Any]]:
    try:
        import pyromark
    except ImportError:
        return None

    def parse(text: str) -> Any:
        opts = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH
        return (list(pyromark.events_with_range(text, options=opts)),
                pyromark.reference_definitions(text, options=opts))
    return parse


def pyromark_facts(parsed: Any, text: str) -> Facts:
    events, defs = parsed
    line = _line_of(text.encode("utf-8"))
    got: Facts = Counter()
    for entry in defs.values():  # one per label: the first definition wins
        got[("definition", line(entry["span"]["start"]), unquote(entry["dest"]))] += 1
    for event, span in events:
        if not isinstance(event, dict) or "Start" not in event:
            continue
        start = event["Start"]
        if isinstance(start, dict):
            for kind in ("Link", "Image"):
                if kind in start and start[kind]["link_type"] == "Inline":
                    got[(kind.lower(), line(span["start"]),
                         unquote(start[kind]["dest_url"]))] += 1
            if "Heading" in start:
                got[("heading", line(span["start"]),
                     start["Heading"]["level"][1:])] += 1
    return got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    candidates: Dict[str, Tuple[Callable[[str], Any], Callable[[Any, str], Facts]]] = {}
    for name, make, facts in (("markdown-it-pyrs", pyrs_parser, pyrs_facts),
                              ("pyromark", pyromark_parser, pyromark_facts)):
        parse = make()
        if parse is not None:
            candidates[name] = (parse, facts)
    print("| tree | files | parser | parse, all files | vs icm's extraction | "
          "raised on | files differing | facts differing |")
    print("|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        files = md_files(tree.resolve())
        times = [_time(lambda files=files: [extract.extract(t) for _, t in files])
                 for _ in range(args.runs)]
        ref = statistics.median(times)
        print(f"| {tree.name} | {len(files)} | icm (markdown-it-py) | {ref:.2f} s | "
              "1.00x | - | - | - |", flush=True)
        expected = {rel: reference_facts(text) for rel, text in files}
        for name, (parse, facts) in candidates.items():
            raised: List[str] = []
            differing: List[str] = []
            facts_off = 0
            for rel, text in files:
                try:
                    got = facts(parse(text), text)
                except BaseException as exc:  # noqa: BLE001 - a panic is BaseException
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    raised.append(f"{rel}: {type(exc).__name__}")
                    continue
                off = (got - expected[rel]) + (expected[rel] - got)
                if off:
                    differing.append(rel)
                    facts_off += sum(off.values())
            t = statistics.median(
                _time(lambda parse=parse, files=files: [quiet(parse, x)
                                                        for _, x in files])
                for _ in range(args.runs))
            print(f"| {tree.name} | {len(files)} | {name} | {t:.2f} s | "
                  f"{t / ref:.2f}x | {len(raised)} | {len(differing)} | "
                  f"{facts_off} |", flush=True)
            for line in raised[:5] + differing[:5]:
                print(f"  {name}: {line}", flush=True)



def _time(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
