"""Worst cases per parser stage: adversarial inputs at growing sizes.

Usage: python bench/run_adversarial.py [MAX_BYTES] [STAGE...]

Each case builds an input of about N bytes that attacks one stage (the
quadratic and exponential shapes found in issue 10 and CommonMark's
pathological list), runs the stage once at N/4, N/2 and N, and prints the
seconds and the growth from N/2 to N (2.0 is linear). The table in
docs/robustness.md comes from ``python bench/run_adversarial.py 1048576``.
``tests/test_adversarial.py`` feeds the same inputs and asserts only that
each stage finishes (no timing in tests).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

Case = Tuple[str, str, Callable[[int], Callable[[], object]]]


def _markdown(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm import markdown

        text = text_of(size)
        return lambda: markdown.extract(text)
    return build


def _html(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm import markdown

        text = text_of(size)
        return lambda: markdown._scan_html(text)
    return build


def _glob(pattern: str, name_of: Callable[[int], str]
          ) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm.context import compile_globs

        globs = compile_globs([pattern])
        assert globs is not None
        name = name_of(size)
        return lambda: globs.match(name)
    return build


def _slugs(size: int) -> Callable[[], object]:
    from icm import markdown

    texts = ["a"] * (size // 8) + [f"a-{i}" for i in range(size // 8)]

    def run() -> object:
        slugger = markdown.Slugger()
        return [slugger.slug(t) for t in texts]
    return run


def _imports(size: int) -> Callable[[], object]:
    from icm.checks import bootmap

    text = "@a\\ " * (size // 4)
    return lambda: list(bootmap._IMPORT.finditer(text))


def _bootmap_file(size: int) -> Callable[[], object]:
    from icm.checks import bootmap

    text = "@a @b.md\n" * (size // 9)
    return lambda: bootmap.imports_in(text)


def _journal(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm.checks import journal

        text = text_of(size)
        slots = ("Decision", "Rejected alternative", "Invariant", "Verify command")
        return lambda: journal.slot_problems(text, slots)
    return build


def _supersede(cycle: bool) -> Callable[[int], Callable[[], object]]:
    """N/150 entries (an entry's size), each superseded by the next; with
    ``cycle`` the last names the first. Following the chain from every entry
    was cubic: 2,000 entries took 16 s."""
    def build(size: int) -> Callable[[], object]:
        from icm.checks import journal

        paths = [f"journal/2026-01-01_entry-{i:07d}.md" for i in range(size // 150)]
        links = {p: ((q, 3),) for p, q in zip(paths, paths[1:])}
        links[paths[-1]] = ((paths[0], 3),) if cycle else ()
        present, files = set(paths), frozenset(paths)
        return lambda: journal.supersede_findings(links, present, files)
    return build


def _sentence(text_of: Callable[[int], str]
              ) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm import positions

        text = text_of(size)
        return lambda: positions.sentence(text)
    return build


def _toml(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm import config
        from icm.errors import UsageError

        folder = Path(tempfile.mkdtemp())
        (folder / "icm.toml").write_text(text_of(size))

        def run() -> object:
            try:
                return config.load(folder)
            except UsageError as exc:
                return str(exc)
        return run
    return build


CASES: List[Case] = [
    ("markdown parse", "'[' * N", _markdown(lambda n: "[" * n)),
    ("markdown parse", "'[a](' * N", _markdown(lambda n: "[a](" * (n // 4))),
    ("markdown parse", "'[' * N/2 + ']' * N/2", _markdown(
        lambda n: "[" * (n // 2) + "]" * (n // 2))),
    ("markdown parse", "'<' * N", _markdown(lambda n: "<" * n)),
    ("markdown parse", "'*a _' * N (emphasis)", _markdown(
        lambda n: "[ " + "*a _" * (n // 4))),
    ("markdown parse", "'> ' * N (nesting)", _markdown(lambda n: "> " * (n // 2))),
    # nesting that would crash markdown-it.rs (the [fast] parser) unscreened
    ("markdown parse", "'*a ' * N/2 + ' c*' * N/2 (nested emphasis)", _markdown(
        lambda n: "*a " * (n // 6) + "b" + " c*" * (n // 6))),
    ("markdown parse", "'![a' * N/2 + '](b)' * N/2 (nested images)", _markdown(
        lambda n: "![a" * (n // 7) + "](b)" * (n // 7))),
    ("markdown parse", "'<!-- a --> x ' * N (comments on one line)", _markdown(
        lambda n: "<!-- a --> x " * (n // 13))),
    ("markdown parse", "'<!--' * N (HTML block)", _markdown(
        lambda n: "<!--" * (n // 4))),
    ("markdown parse", "'<div>' + '<a href=' * N", _markdown(
        lambda n: "<div>\n" + "<a href=" * (n // 8))),
    ("raw-HTML scan", "'<a href=' * N", _html(lambda n: "<a href=" * (n // 8))),
    ("raw-HTML scan", "'<!--' * N", _html(lambda n: "<!--" * (n // 4))),
    ("raw-HTML scan", "'<a id=\"x\" ' * N", _html(lambda n: '<a id="x" ' * (n // 10))),
    ("raw-HTML scan", "'<script>' * N", _html(lambda n: "<script>" * (n // 8))),
    ("reference/heading slugs", "'# a' * N, '# a-i'", _slugs),
    ("reference/heading slugs", "'[a]: b' * N", _markdown(
        lambda n: "[a]: b\n" * (n // 7))),
    ("reference/heading slugs", "'# ' + '[' * N", _markdown(lambda n: "# " + "[" * n)),
    ("glob matching", "'**a' * 30 + '**b' vs 'a' * N + 'b'", _glob(
        "**a" * 30 + "**b", lambda n: "a" * n + "b")),
    ("glob matching", "'*a' * 30 + '*b' vs 'a' * N", _glob(
        "*a" * 30 + "*b", lambda n: "a" * n + "b")),
    ("@imports in bootmap", "'@a\\ ' * N (one text run)", _imports),
    ("@imports in bootmap", "'@a @b.md' lines", _bootmap_file),
    ("journal heading scan", "'## Decision' * N", _journal(
        lambda n: "## Decision\n\n" * (n // 13))),
    ("journal heading scan", "one heading of N code spans", _journal(
        lambda n: "## " + "`a" * (n // 2))),
    ("journal supersede chain", "N entries, each Superseded-by the next",
     _supersede(cycle=False)),
    ("journal supersede chain", "a cycle of N entries", _supersede(cycle=True)),
    ("first sentence (positions)", "'<!--' * N in a slot", _sentence(
        lambda n: "<!--" * (n // 4))),
    ("first sentence (positions)", "'```a' * N in a slot", _sentence(
        lambda n: "```a" * (n // 4))),
    ("TOML config", "'a = ' + '[' * N", _toml(lambda n: "a = " + "[" * n)),
    ("TOML config", "'x' + '.x' * N = 1", _toml(lambda n: "x" + ".x" * (n // 2)
                                                 + " = 1\n")),
    ("TOML config", "'k = 1' lines", _toml(
        lambda n: "".join(f"k{i} = {i}\n" for i in range(n // 12)))),
]


def main(argv: List[str]) -> int:
    size = int(argv[0]) if argv else 1 << 20
    stages = argv[1:]
    print(f"| stage | input | {size // 4} B | {size // 2} B | {size} B | growth |")
    print("|---|---|---|---|---|---|")
    for stage, label, build in CASES:
        if stages and not any(s in stage for s in stages):
            continue
        times = []
        for n in (size // 4, size // 2, size):
            run = build(n)
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        growth = times[2] / times[1] if times[1] > 0.001 else float("nan")
        print(f"| {stage} | `{label}` | {times[0]:.3f} s | {times[1]:.3f} s | "
              f"{times[2]:.3f} s | {growth:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
