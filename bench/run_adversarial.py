"""Worst cases per parser stage: adversarial inputs at growing sizes.

Usage: python bench/run_adversarial.py [MAX_BYTES] [STAGE...]

Each case builds an input of about N bytes that attacks one stage (the
quadratic and exponential shapes found in issue 10 and CommonMark's
pathological list), runs the stage once at N/4, N/2 and N, and prints the
CPU seconds (``_cpu``) and the growth from N/2 to N (2.0 is linear). The table in
docs/robustness.md comes from ``python bench/run_adversarial.py 1048576``.
``tests/test_adversarial.py`` feeds the same inputs and asserts only that
each stage finishes (no timing in tests).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, List, Tuple

Case = Tuple[str, str, Callable[[int], Callable[[], object]]]


def _markdown(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(size: int) -> Callable[[], object]:
        from icm import extract

        text = text_of(size)
        return lambda: extract.extract(text)
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
    from icm.model import imports

    text = "@a\\ " * (size // 4)
    return lambda: list(imports._IMPORT.finditer(text))


def _bootmap_file(size: int) -> Callable[[], object]:
    from icm.model import imports

    text = "@a @b.md\n" * (size // 9)
    return lambda: imports.imports_in(text)


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
        from icm.model import positions

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


def _skeleton(text_of: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    """``similarity.skeleton``: its masking regex is ``tokens``'s too."""
    def build(size: int) -> Callable[[], object]:
        from icm import similarity

        text = text_of(size)
        return lambda: similarity.skeleton(text)
    return build


def _align(size: int) -> Callable[[], object]:
    """Two statements of N bytes, N/2 words (tokens past ``MAX_TOKENS`` are
    not compared): the same three words in two orders, so every word matches
    everywhere and difflib's alignment was cubic."""
    from icm import similarity

    a, b = "a b c " * (size // 6), "a c b " * (size // 6)
    return lambda: similarity.differences(a, b)


def _dupes_pairs(size: int) -> Callable[[], object]:
    """N bytes of statement pairs of 2,000 words (12 KB each): a shared
    opening to make them candidates, then the words of ``_align``."""
    from icm import similarity

    stmts = []
    for i in range(max(1, size // 24_000)):
        head = f"p{i} q{i} r{i} s{i} "
        stmts += [similarity.Statement(f"n{i}/a.md", 1, head + "a b c " * 665),
                  similarity.Statement(f"n{i}/b.md", 1, head + "a c b " * 665)]
    return lambda: similarity.Index(stmts).pairs(0.75, lambda x, y: x.path != y.path)



def _form_pairs(size: int) -> Callable[[], object]:
    """Two lists alike only in form (``Index._form_alike``: one content word
    each, the glue of their code spans shared), each ending in N/2 backticks:
    its code-span scan, tried from inside a run, was quadratic (32,000
    backticks a side: 9 s)."""
    from icm import similarity

    run = "`" * (size // 2)
    stmts = [similarity.Statement("AGENTS.md", 1,
                                  "Alpha: `a`, `b`, `c`, `d`, `e`, `f`, or `g` " + run),
             similarity.Statement("x/context.md", 3,
                                  "Gamma: `p`, `q`, `r`, `t`, `u`, `v`, or `w` " + run)]
    return lambda: similarity.Index(stmts, 6).pairs(0.75)

_WORDS = [f"{c}{v}{d}" for c in "bcdfghklmnprstvz" for v in "aeiou"
          for d in "bdgklmnprst"]


def _queue_against(size: int) -> Callable[[], object]:
    """``check-queue --against main`` where each side added N/600 items (a
    title and a sentence of about 300 bytes each); one in ten of feat's
    rewords one of main's, which is same work twice. Built with ``git
    fast-import`` (not timed); the check's whole run is."""
    from icm import config, context
    from icm.checks import queue
    from icm.registry import QueueOptions

    per_side = max(2, size // 600)
    rnd = random.Random(per_side)
    root = Path(tempfile.mkdtemp()) / "repo"
    theirs = [rnd.sample(_WORDS, 30) for _ in range(per_side)]
    mine = [rnd.sample(_WORDS, 30) for _ in range(per_side)]
    for n in range(0, per_side, 10):
        mine[n] = theirs[n][:27] + rnd.sample(_WORDS, 3)

    def item(words: List[str]) -> bytes:
        return (f"# {' '.join(words[:4])}\n\n{' '.join(words[4:])}.\n").encode()

    def put(path: str, raw: bytes) -> bytes:
        return b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(raw), raw)

    def commit(ref: str, changes: List[bytes]) -> bytes:
        return (b"commit %s\ncommitter B <b@x> 1700000000 +0000\ndata 1\nc\n"
                % ref.encode() + b"".join(changes) + b"\n")

    data = commit("refs/heads/main", [put("AGENTS.md", b"# H\n")])
    data += b"reset refs/heads/feat\nfrom refs/heads/main\n\n"
    data += commit("refs/heads/main", [
        put(f"queue/{2 * n + 1:05d}_theirs-{n}.md", item(w))
        for n, w in enumerate(theirs)])
    data += commit("refs/heads/feat", [
        put(f"queue/{2 * n + 2:05d}_mine-{n}.md", item(w))
        for n, w in enumerate(mine)])
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, check=True,
                   input=data, env=env)
    subprocess.run(["git", "checkout", "-q", "feat"], cwd=root, check=True, env=env)

    def run() -> object:
        ctx = context.build(root, config.load(root))
        report = queue.run(ctx, QueueOptions(against="main"))
        assert sum(f.code == "same-work" for f in report.findings) == len(
            range(0, per_side, 10)), report.findings
        return report
    run()  # untimed: the first run loads git's modules
    return run


_LAZY_BLOCK = ("*    W\n    *   C\n    *   U\n        *   S\n            *   T\n"
               "    *   R [b](b.md)\n*   O\n\n# h\n\n")

CASES: List[Case] = [
    ("markdown parse", "'[' * N", _markdown(lambda n: "[" * n)),
    ("markdown parse", "'[a](' * N", _markdown(lambda n: "[a](" * (n // 4))),
    ("markdown parse", "'[' * N/2 + ']' * N/2", _markdown(
        lambda n: "[" * (n // 2) + "]" * (n // 2))),
    ("markdown parse", "'<' * N", _markdown(lambda n: "<" * n)),
    ("markdown parse", "'*a _' * N (emphasis)", _markdown(
        lambda n: "[ " + "*a _" * (n // 4))),
    ("markdown parse", "'> ' * N (nesting)", _markdown(lambda n: "> " * (n // 2))),
    # blocks of a parted lazy line, each read by the reference, between headings
    ("markdown parse", "parted lazy-line blocks and headings * N", _markdown(
        lambda n: _LAZY_BLOCK * (n // len(_LAZY_BLOCK)))),
    # nesting that crashed markdown-it.rs (the [fast] parser before issue 27)
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
    ("markdown parse", "'```' + ' \\t' * N (a fence's whitespace)", _markdown(
        lambda n: "```" + " \t" * (n // 2) + "x\n")),
    ("markdown parse", "'>a\\n' + ' \\t' * N (a quote's next lead)", _markdown(
        lambda n: ">a\n" + " \t" * (n // 2) + "x\n")),
    ("markdown parse", "(' ' * 400 + '> a\\n') * N (quote markers)", _markdown(
        lambda n: (" " * 400 + "> a\n") * (n // 404))),
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
    ("first sentence (positions)", "'`a [b](c) **d ' * N, no stop", _sentence(
        lambda n: "`a [b](c) **d " * (n // 14))),
    ("first sentence (positions)", "'[' * N, one paragraph", _sentence(
        lambda n: "[" * n)),
    ("TOML config", "'a = ' + '[' * N", _toml(lambda n: "a = " + "[" * n)),
    ("TOML config", "'x' + '.x' * N = 1", _toml(lambda n: "x" + ".x" * (n // 2)
                                                 + " = 1\n")),
    ("TOML config", "'k = 1' lines", _toml(
        lambda n: "".join(f"k{i} = {i}\n" for i in range(n // 12)))),
    ("statement skeleton", "'`' * N (a run of backticks)", _skeleton(
        lambda n: "`" * n)),
    ("statement skeleton", "'a:' * N + ' a/b'", _skeleton(
        lambda n: "a:" * (n // 2) + " a/b")),
    ("statement skeleton", "'+a.a' * N + ' a/b'", _skeleton(
        lambda n: "+a.a" * (n // 4) + " a/b")),
    ("statement alignment", "'a b c' vs 'a c b', N/2 words each", _align),
    ("dupes pairs", "pairs of 2,000-word 'a b c' / 'a c b' statements",
     _dupes_pairs),
    ("dupes pairs", "two lists alike in form, each ending in N/2 backticks",
     _form_pairs),
    ("queue --against", "N/600 items added on each side", _queue_against),
]


def _cpu() -> float:
    """CPU seconds of this process and the children it waited for (git):
    the machine is shared, and wall time swung 3x with its load."""
    now = os.times()
    return now.user + now.system + now.children_user + now.children_system


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
            start = _cpu()
            run()
            times.append(_cpu() - start)
        growth = times[2] / times[1] if times[1] > 0.001 else float("nan")
        print(f"| {stage} | `{label}` | {times[0]:.3f} s | {times[1]:.3f} s | "
              f"{times[2]:.3f} s | {growth:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
