"""Which parser can carry a cold link check within 2x of lychee (issue 27).

    python bench/parse_candidates.py TREE [TREE ...] --lychee PATH [--runs 5]
        [--only icm pyromark]

Every tracked ``.md`` file of each tree is read into memory once; then, in
rounds (interleaved, so load spreads over all of them alike), each
candidate parses all of them in this one process and lychee checks the tree
as a command. Medians of CPU seconds (``process_time`` in-process; the
children's user + system time for lychee, all its threads), since the
machines are shared and wall time swings. A candidate whose module is not
installed is left out; install them by hand into the venv that runs this
(none is a dependency of icm but ``[fast]``'s).

The rows: the parse alone where that is all a wheel offers (comrak and
cmark-gfm bindings render HTML; pycmarkgfm walks cmark's nodes), and icm's
extraction (``Extract``: links with lines, definitions, anchors) where an
adapter exists, declined files parsed by markdown-it-py as in icm.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from timing import quiet

Parse = Callable[[str], Any]


def md_files(tree: Path) -> List[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=tree, check=True,
                            capture_output=True, text=True).stdout
    texts = []
    for name in listed.split("\0"):
        path = tree / name
        if name.endswith(".md") and path.is_file() and not path.is_symlink():
            try:
                texts.append(path.read_bytes().decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return texts


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def candidates() -> List[Tuple[str, str, Parse]]:
    """(name, what Python gets, parse one text) for each installed one."""
    found: List[Tuple[str, str, Parse]] = []
    mdit = _module("markdown_it")
    if mdit is not None:
        md = mdit.MarkdownIt("commonmark").enable(["table", "strikethrough"])
        found.append(("markdown-it-py tokens", "tokens, line maps", md.parse))
    icm_md = _module("icm.markdown")
    if icm_md is not None:
        found.append(("icm reference (markdown-it-py)", "Extract",
                      icm_md.extract_reference))
    pyrs = _module("markdown_it_pyrs")
    if pyrs is not None:
        tree = pyrs.MarkdownIt("commonmark").enable("table").enable("strikethrough")
        found.append(("markdown-it-pyrs tree", "node tree, byte maps", tree.tree))
    pm = _module("pyromark")
    if pm is not None:
        parser = pm.Markdown(options=pm.Options.ENABLE_TABLES
                             | pm.Options.ENABLE_STRIKETHROUGH)

        def every_event(text: str) -> int:
            count = 0
            for _ in parser.events_with_range(text, merge_text=True):
                count += 1
            return count

        found.append(("pyromark events_with_range", "events, byte ranges",
                      every_event))
    events = _module("icm.markdown_events")
    if icm_md is not None and events is not None and events.available():
        found.append(("icm events: pulldown-cmark + declines", "Extract",
                      _with_reference(events.extract, icm_md.extract_reference)))
    comrak = _module("comrak")
    if comrak is not None:
        if hasattr(comrak, "parse_document"):  # comrak-ext
            ext = comrak.ExtensionOptions(table=True, strikethrough=True)
            found.append(("comrak-ext parse_document", "node tree, line:column; "
                          "no definitions", lambda text: comrak.parse_document(
                              text, extension_options=ext)))
        else:  # comrak: HTML alone
            ext = comrak.ExtensionOptions()
            ext.table = True
            ext.strikethrough = True
            render = comrak.RenderOptions()
            render.sourcepos = True
            found.append(("comrak render, sourcepos", "HTML only",
                          lambda text: comrak.render_markdown(
                              text, extension_options=ext, render_options=render)))
    cmarkgfm = _module("cmarkgfm")
    if cmarkgfm is not None:
        opt = cmarkgfm.cmark.Options.CMARK_OPT_SOURCEPOS
        found.append(("cmarkgfm render, sourcepos", "HTML only",
                      lambda text: cmarkgfm.github_flavored_markdown_to_html(
                          text, options=opt)))
    pycmark = _module("pycmarkgfm")
    if pycmark is not None:
        lib = pycmark.cmark._cmark.lib

        def walk(text: str) -> int:
            count = 0
            with pycmark.parse_gfm(text) as doc:
                for _event, node in doc:
                    lib.cmark_node_get_start_line(node)
                    count += 1
            return count

        found.append(("pycmarkgfm nodes", "nodes, lines; no URLs or definitions",
                      walk))
    return found


def _with_reference(fast: Parse, reference: Parse) -> Parse:
    def parse(text: str) -> Any:
        got = fast(text)
        return got if got is not None else reference(text)
    return parse



def cpu_of(work: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def lychee_cpu(lychee: str, tree: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([lychee, "--offline", "--include-fragments", "--no-progress",
                    "--root-dir", str(tree), str(tree)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def versions(lychee: Optional[str]) -> str:
    names = ["markdown-it-py", "markdown-it-pyrs", "markdown-it-pyrs-abi3",
             "pyromark", "comrak", "comrak-ext", "cmarkgfm", "pycmarkgfm"]
    parts = [f"Python {sys.version.split()[0]}"]
    for name in names:
        try:
            parts.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    if lychee:
        parts.append(subprocess.run([lychee, "--version"], capture_output=True,
                                    text=True).stdout.strip())
    return ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lychee")
    parser.add_argument("--only", nargs="*", default=[],
                        help="candidates whose name holds one of these")
    args = parser.parse_args()
    found = [c for c in candidates()
             if not args.only or any(word in c[0] for word in args.only)]
    saved = os.dup(2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # panic messages
    trees = [(tree.resolve(), md_files(tree.resolve())) for tree in args.trees]
    samples: Dict[Tuple[str, str], List[float]] = {}
    for _ in range(args.runs):
        for tree, texts in trees:
            if args.lychee:
                samples.setdefault((tree.name, "lychee"), []).append(
                    lychee_cpu(args.lychee, tree))
            for name, _what, parse in found:
                samples.setdefault((tree.name, name), []).append(
                    cpu_of(lambda parse=parse, texts=texts: [quiet(parse, t)
                                                             for t in texts]))
    os.dup2(saved, 2)
    print(versions(args.lychee))
    print("\n| tree | md files | parser | gives Python | CPU, all files | "
          "/ lychee's whole run |\n|---|---|---|---|---|---|")
    for tree, texts in trees:
        peer = statistics.median(samples[(tree.name, "lychee")]) if args.lychee \
            else None
        if peer is not None:
            print(f"| {tree.name} | {len(texts)} | lychee (whole run) | - | "
                  f"{peer:.2f} s | 1.00x |")
        for name, what, _parse in found:
            cpu = statistics.median(samples[(tree.name, name)])
            ratio = f"{cpu / peer:.2f}x" if peer else "n/a"
            print(f"| {tree.name} | {len(texts)} | {name} | {what} | {cpu:.2f} s | "
                  f"{ratio} |", flush=True)


if __name__ == "__main__":
    main()
