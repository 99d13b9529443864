"""Fuzz the event path where the trees rarely go: nested lists and quotes,
markers after odd indents and tabs, lazy lines (issue 27).

    python bench/fuzz_events.py SEED COUNT

Builds COUNT random documents of one to three blocks apart by a blank
line, each of two to seven lines (a marker, a list item or a quote, at an
indent from none to sixteen columns or one or two tabs, then fragments
with links, pipes, headings and definitions) and compares
``markdown_events.explain`` with ``markdown.extract_reference`` wherever
the event path answers. Prints the first document they part on and exits
1; else the counts answered and declined. Three parts it found are
``PARTED`` cases of ``tests/test_markdown_events.py``.
"""

from __future__ import annotations

import argparse
import random
import sys

from icm import markdown, markdown_events

MARKERS = ["*", "-", "+", "1.", "2)", "10.", "#", ">", "***", "* * *", "- - -",
           "---", "```", "<div>", "|", "~~~", "___"]
BODIES = ["W", "[a](b.md)", "x | y", "[c](d.md) e", "", "`c`", "<a href=\"h.md\">",
          "# h", "[x]: y", "**s**", "\t", "a\tb"]
INDENTS = [0, 0, 1, 2, 3, 4, 4, 5, 6, 8, 9, 12, 16]
GAPS = [1, 1, 2, 3, 4, 5, 6]


def document(rng: random.Random) -> str:
    """One to three blocks apart by a blank line: a lazy line the parsers
    read apart has its block read by the reference alone."""
    return "\n\n".join(_block(rng) for _ in range(rng.choice([1, 1, 2, 3])))


def _block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(2, 7)):
        roll = rng.random()
        if roll < 0.1:
            lines.append("")
            continue
        if roll < 0.2:
            lines.append(rng.choice(BODIES) + " text")
            continue
        lead = (" " * rng.choice(INDENTS) if rng.random() < 0.9
                else "\t" * rng.randint(1, 2))
        gap = " " * rng.choice(GAPS) if rng.random() < 0.95 else "\t"
        lines.append(lead + rng.choice(MARKERS) + gap + rng.choice(BODIES) + " "
                     + rng.choice(BODIES))
    return "\n".join(lines) + rng.choice(["", "\n"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("seed", type=int)
    parser.add_argument("count", type=int)
    args = parser.parse_args()
    if not markdown_events.available():
        print("pyromark is not installed", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    answered = declined = 0
    for _ in range(args.count):
        text = document(rng)
        got, _why = markdown_events.explain(text)
        if got is None:
            declined += 1
            continue
        answered += 1
        if got != markdown.extract_reference(text):
            print(f"parted: {text!r}")
            return 1
    print(f"{answered} answered, {declined} declined, none parted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
