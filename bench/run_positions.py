"""Size (and cost) of the positions view against the journal it compiles.

    python bench/run_positions.py [/tmp/bench/positions] [--entries 500]

Reports, for this repository, ``example_repo`` and a generated journal of
``--entries`` entries (written under the given folder, outside git): the
journal's bytes, the positions view's bytes (``icm positions``' markdown),
both as bytes/4 tokens, and the CPU time of compiling the view with the
re-invention comparison (``positions.build``) and of ``check-positions``.
The generated entries have slots of realistic length (a Decision of two or
three sentences, a Rejected alternative with its reason, an Invariant, a
Verify command), one in ten superseded by a later one, and 20 queue items.
Deterministic: the same arguments write the same journal.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from icm import config, context  # noqa: E402
from icm.checks import positions as check  # noqa: E402
from icm.model import journal, positions  # noqa: E402
from icm.registry import NoOptions  # noqa: E402

WORDS = ("parser cache note journal entry queue item branch commit link index "
         "handbook budget token file folder path symlink root reader writer "
         "lock number slug check finding report format output error warning "
         "history stale fresh clone shallow partial merge base ref tree blob "
         "statement rule copy similarity threshold decision invariant command "
         "process worker pool signal timeout memory stream row column").split()


SYLLABLES = "ka lo mi nu pe ra si to vu we xi yo za be co di fa gu".split()


def vocabulary(rng: random.Random, size: int = 4000) -> List[str]:
    """The domain's words, then made-up ones (a fifth of a sentence's words
    come from the domain's, the rest from the whole list)."""
    made = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
            for _ in range(size)}
    return WORDS + sorted(made)


def sentence(rng: random.Random, words: int) -> str:
    vocab = VOCAB
    picked = [rng.choice(WORDS) if rng.random() < 0.2
              else vocab[rng.randrange(len(vocab))] for _ in range(words)]
    return " ".join(picked).capitalize() + "."


VOCAB = vocabulary(random.Random(0))


def generate(folder: Path, entries: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "journal").mkdir(parents=True)
    (folder / "queue").mkdir()
    (folder / "icm.toml").write_text('positions_file = "journal/POSITIONS.md"\n')
    names: List[str] = []
    for n in range(entries):
        day = 1 + n // 28 % 28
        month = 1 + n // (28 * 28) % 12
        name = f"journal/20{20 + n // (28 * 28 * 12)}-{month:02d}-{day:02d}_e{n}.md"
        names.append(name)
    for n, name in enumerate(names):
        head = ""
        if n % 10 == 0 and n + 5 < len(names):
            head = f"Superseded-by: {names[n + 5]}\n"
        body = (f"# Entry {n}\n{head}\n## Decision\n"
                + " ".join(sentence(rng, rng.randint(10, 22)) for _ in range(3))
                + "\n\n## Rejected alternative\n"
                + " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(2))
                + "\n\n## Invariant\n" + sentence(rng, rng.randint(10, 20))
                + "\n\n## Verify command\n```sh\npytest -q tests/test_x.py\n```\n")
        (folder / name).write_text(body)
    for n in range(20):
        (folder / f"queue/{n:02d}_item-{n}.md").write_text(
            f"# Item {n}\n\n{sentence(rng, 14)} {sentence(rng, 12)}\n")


def measure(root: Path, label: str) -> None:
    cfg = config.load(root)
    ctx = context.build(root.resolve(), cfg)
    journal_bytes = sum((root / p).stat().st_size for p in journal.entries(ctx))
    start = time.process_time()
    view = positions.build(ctx)
    built = time.process_time() - start
    text = positions.block_text(view, cfg.positions_file) \
        if cfg.positions_file else positions.render_markdown(view)
    start = time.process_time()
    report = check.run(ctx, NoOptions())
    checked = time.process_time() - start
    size = len(text.encode("utf-8"))
    print(f"{label:28s} {len(journal.entries(ctx)):5d} {journal_bytes:9d} "
          f"{journal_bytes // 4:7d} {size:9d} {size // 4:7d} "
          f"{size / journal_bytes if journal_bytes else 0:6.2f} "
          f"{built * 1000:8.0f} {checked * 1000:8.0f} {len(report.findings):5d}")


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?", default="/tmp/bench/positions")
    parser.add_argument("--entries", type=int, default=500)
    args = parser.parse_args(argv)
    generate(Path(args.folder), args.entries)
    print(f"{'repository':28s} {'entr':>5s} {'journal B':>9s} {'tokens':>7s} "
          f"{'view B':>9s} {'tokens':>7s} {'ratio':>6s} {'build ms':>8s} "
          f"{'check ms':>8s} {'warn':>5s}")
    measure(ROOT, "icm (this repository)")
    measure(ROOT / "example_repo", "example_repo")
    measure(Path(args.folder), f"generated ({args.entries} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
