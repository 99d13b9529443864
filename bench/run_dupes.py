"""Time the dupes check as the number of notes grows.

    python bench/run_dupes.py /tmp/bench/dupes --notes 1000 10000 --words 400

For each size, writes a tree of ``N`` notes of about ``words`` words each
(paragraphs, list items, a heading, a code block; words drawn from a
Zipf-distributed vocabulary; one note in fifty carries a copied or
diverged rule from another) as one git commit, then reports the median
in-process CPU time of ``dupes.run`` (the cost the check adds to ``icm
check``), cold (its cache deleted) and warm, the parts of a cold run
(reading and splitting, building the index, pairing), peak memory, and
warm ``icm check`` / ``icm check-dupes`` / ``icm check-queue`` wall time
(check-queue: start-up and the file list, nearly nothing else).
``--restated lexical|semantic`` times ``dupes.run`` with restated rules on
(``dupes_restated = "info"``), in process only.
Deterministic: the same arguments write the same trees.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_seconds  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "in", "ex",
             "pra", "sul", "ten", "co", "mar", "bi", "net", "qua", "fi", "zo"]
COMMON = ("the a to of and in is for that it must not be on with as when "
          "this are by each every never always run test file note").split()


def vocabulary(rng: random.Random, size: int) -> List[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return COMMON + sorted(words)


def sentence(rng: random.Random, vocab: List[str], weights: List[float]) -> str:
    words = rng.choices(vocab, weights, k=rng.randint(8, 22))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), str(rng.randint(1, 4096)))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(vocab)}()`")
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def note(rng: random.Random, vocab: List[str], weights: List[float],
         words: int) -> List[str]:
    """A note as a list of paragraphs (each a statement)."""
    out: List[str] = []
    count = 0
    while count < words:
        para = " ".join(sentence(rng, vocab, weights)
                        for _ in range(rng.randint(1, 3)))
        count += len(para.split())
        out.append(para)
    return out


def write_tree(root: Path, notes: int, words: int, seed: int) -> None:
    rng = random.Random(seed)
    vocab = vocabulary(rng, 6000)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    root.mkdir(parents=True)
    bodies = [note(rng, vocab, weights, words) for _ in range(notes)]
    for i, body in enumerate(bodies):
        if i and i % 50 == 0:  # plant a copy, or a diverged copy, of a rule
            src = bodies[rng.randrange(i)]
            rule = rng.choice(src)
            body.append(rule if rng.random() < 0.5 else rule + " 7")
    index = []
    for i, body in enumerate(bodies):
        folder = f"pkg{i // 100:03d}/mod{i:05d}"
        path = root / folder / "context.md"
        path.parent.mkdir(parents=True)
        parts = [f"# {folder}\n"]
        for n, para in enumerate(body):
            if n % 4 == 3:
                parts.append("\n".join(f"- {s}" for s in para.split(". ")))
            else:
                parts.append(para)
            if n == 2:
                parts.append("## Why\n\n```sh\nmake check\n```")
        path.write_text("\n\n".join(parts) + "\n")
        index.append(f"- [{folder}]({folder}/context.md)")
    (root / "AGENTS.md").write_text("# Handbook\n\n## Index of notes\n\n"
                                    + "\n".join(index) + "\n")
    (root / "icm.toml").write_text("budget = 100000000\n")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com",
           "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)


def in_process(root: Path, runs: int, restated: str = "off") -> None:
    import dataclasses

    from icm import config, context, similarity
    from icm.checks import dupes
    from icm.registry import DupesOptions

    cfg = config.load(root)
    if restated != "off":  # restated rules on, lexical or semantic
        cfg = dataclasses.replace(cfg, dupes_restated="info", similarity=restated)
    ctx = context.build(root, cfg)
    assert ctx.cache_dir is not None
    cache = ctx.cache_dir / dupes.CACHE_FILE
    cold, warm, parts = [], [], []
    report = None
    for _ in range(runs):
        cache.unlink(missing_ok=True)
        start = time.process_time()
        report = dupes.run(ctx, DupesOptions())
        cold.append(time.process_time() - start)
        start = time.process_time()
        dupes.run(ctx, DupesOptions())
        warm.append(time.process_time() - start)
        # the cold work in stages, for the breakdown
        t0 = time.process_time()
        stmts = []
        for _kind, path in dupes.sources(ctx):
            stmts += similarity.statements(ctx.read_markdown(path), path)
        t1 = time.process_time()
        index = similarity.Index(stmts, ctx.config.dupes_min_words)
        t2 = time.process_time()
        index.pairs(ctx.config.dupes_similarity)
        t3 = time.process_time()
        parts.append((t1 - t0, t2 - t1, t3 - t2))
    assert report is not None
    med = [statistics.median(p[i] for p in parts) for i in range(3)]
    print(f"  dupes.run CPU: cold {statistics.median(cold):.3f} s "
          f"(split {med[0]:.3f} s, index {med[1]:.3f} s, pairs {med[2]:.3f} s), "
          f"warm {statistics.median(warm):.3f} s; "
          f"{report.data['statements']} statements, "
          f"{len(report.findings)} findings")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--notes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--words", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--restated", choices=("off", "lexical", "semantic"),
                    default="off", help="time dupes.run with dupes_restated "
                    "= \"info\" (and this similarity); in process only")
    args = ap.parse_args(argv)
    icm = str(Path(sys.executable).with_name("icm"))
    for n in args.notes:
        root = Path(args.out) / f"notes{n}"
        if not root.exists():
            write_tree(root, n, args.words, args.seed)
        print(f"{n} notes of about {args.words} words ({root})")
        in_process(root, args.runs, args.restated)
        if args.restated != "off":
            continue
        for cmd in ("check", "check-dupes", "check-queue"):
            t = median_seconds(args.runs, [icm, cmd, "--root", str(root)])
            print(f"  icm {cmd}: {t:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:.0f} MiB")
    semantic_load(args.runs)
    return 0


def semantic_load(runs: int) -> None:
    """The semantic option's load (``similarity = "semantic"``): importing
    wordllama and reading its model, in a fresh interpreter each run, paid
    only when the key is set; skipped when the extra is not installed."""
    code = ("import time; t = time.perf_counter(); from icm import similarity; "
            "similarity.semantic_model(); print(time.perf_counter() - t)")
    times = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                              text=True)
        if done.returncode != 0:
            print("semantic option: not installed (pip install '.[semantic]')")
            return
        times.append(float(done.stdout))
    print(f"semantic option load (import and model): "
          f"{statistics.median(times):.2f} s")


if __name__ == "__main__":
    sys.exit(main())
