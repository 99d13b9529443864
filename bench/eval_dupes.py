"""Measure the dupes detector on a labelled corpus built from real notes.

    python bench/eval_dupes.py PATH... [--cases 900] [--seed 1] [--scorer NAME]

Every markdown file under the PATHs is split into statements with
``icm.similarity.statements``; nothing read is written anywhere (fetched
notes are passed by path, never committed). From them the script builds
labelled cases, each a home statement in one synthetic note and a second
statement in another:

- copies (should be ``duplicate``): exact, markup changed (emphasis, case,
  line wrapping), words reordered (clauses swapped), sentence split into two
  list items, one content word in eight replaced (reworded);
- diverged (should be ``diverged``): a number changed, a negation flipped
  (``must``/``must not``, ``always``/``never``, ``is``/``is not``), a code
  span or a path changed, a number or a negation changed and the statement
  reworded as above;
- hard negatives (should be nothing): the real statement of another file
  sharing most vocabulary with the home, and the home with two in five of
  its content words (at least three) swapped for others (boilerplate in another sense).

All cases go into one ``Index`` (so candidate generation and posting caps
are measured too) and the script prints precision and recall of both kinds
for a sweep of thresholds. ``--scorer rapidfuzz`` swaps icm's score for
rapidfuzz's ``token_set_ratio`` (same candidates, same skeletons), the
comparison that decided against the dependency.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import (
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from icm import similarity  # noqa: E402
from icm.similarity import Statement  # noqa: E402

COPY_EDITS = ("exact", "markup", "reorder", "split", "reword")
DIVERGED_EDITS = ("number", "negation", "code", "number+reword",
                  "negation+reword")
# listed twice: as many negatives as positives of one kind
NEGATIVE_EDITS = ("neighbour", "template") * 2
THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(14)]

_FLIPS = [(r"\bmust not\b", "must"), (r"\bmust\b", "must not"),
          (r"\bnever\b", "always"), (r"\balways\b", "never"),
          (r"\bdo not\b", "do"), (r"\bdon't\b", "do"), (r"\bis not\b", "is"),
          (r"\bshould not\b", "should"), (r"\bshould\b", "should not"),
          (r"\bcan\b", "cannot"), (r"\bis\b", "is not"), (r"\bare\b", "are not")]


def load(paths: Sequence[str]) -> List[Statement]:
    """Statements of 6 to 80 words, one per distinct skeleton."""
    found: List[Statement] = []
    seen = set()
    for arg in paths:
        root = Path(arg)
        files = sorted(root.rglob("*.md")) if root.is_dir() else [root]
        for f in files:
            try:
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for s in similarity.statements(text, str(f)):
                toks = similarity.tokens(s.text)
                skel = toks.skeleton()
                if 6 <= len(toks) <= 80 and skel not in seen:
                    seen.add(skel)
                    found.append(s)
    return found


def edit(kind: str, text: str, rng: random.Random, pool: Sequence[str]
         ) -> Optional[str]:
    """The edited copy of ``text``, or None when the edit does not apply."""
    flat = " ".join(text.split())
    if kind.endswith("+reword"):
        changed = edit(kind[:-len("+reword")], text, rng, pool)
        return None if changed is None else edit("reword", changed, rng, pool)
    if kind == "reword":
        return _swap_words(flat, rng, pool, lambda n: max(1, n // 8))
    if kind == "exact":
        return text
    if kind == "markup":
        words = flat.split(" ")
        i = rng.randrange(len(words))
        if words[i].isalpha():
            words[i] = f"**{words[i]}**"
        out = " ".join(words)
        mid = len(out) // 2
        cut = out.find(" ", mid)
        out = out[:cut] + "\n" + out[cut + 1:] if cut > 0 else out
        return out[0].swapcase() + out[1:]
    if kind == "reorder":
        parts = re.split(r"(?<=[,;]) | and ", flat, maxsplit=1)
        if len(parts) == 2 and all(len(p.split()) >= 3 for p in parts):
            a, b = parts[0].rstrip(",;"), parts[1].rstrip(".")
            return f"{b[0].upper()}{b[1:]}, and {a[0].lower()}{a[1:]}."
        words = flat.split(" ")
        if len(words) < 8:
            return None
        i = rng.randrange(2, len(words) - 3)
        words[i], words[i + 1] = words[i + 1], words[i]
        return " ".join(words)
    if kind == "split":
        words = flat.split(" ")
        if len(words) < 14:
            return None
        cut = len(words) // 2
        return ("- " + " ".join(words[:cut]).rstrip(",;") + ".\n- "
                + " ".join(words[cut:]))
    if kind == "number":
        # numbers in prose: not inside a code span, a path or a link target
        nums = list(re.finditer(r"\b\d+\b", similarity._mask(flat)))
        if not nums:
            return None
        m = rng.choice(nums)
        new = str(int(m.group()) * 2 + 1)
        return flat[:m.start()] + new + flat[m.end():]
    if kind == "negation":
        for pattern, repl in _FLIPS:
            if re.search(pattern, flat):
                return re.sub(pattern, repl, flat, count=1)
        return None
    if kind == "code":
        spans = list(re.finditer(r"`([^`]+)`", flat))
        if not spans:
            return None
        m = rng.choice(spans)
        body = m.group(1)
        new = body[:-1] + ("x" if body[-1] != "x" else "y")
        return flat[:m.start()] + f"`{new}`" + flat[m.end():]
    if kind == "template":
        return _swap_words(flat, rng, pool, lambda n: max(3, n * 2 // 5))
    raise AssertionError(kind)


def _swap_words(flat: str, rng: random.Random, pool: Sequence[str],
                how_many: Callable[[int], int]) -> Optional[str]:
    """Replace ``how_many(content words)`` content words with words of other
    statements."""
    words = flat.split(" ")
    content = [i for i, w in enumerate(words)
               if w.isalpha() and w.lower() not in similarity.STOPWORDS
               and w.lower() != "cannot" and len(w) > 3]  # keep a flipped negation
    if len(content) < 4:
        return None
    vocab = [w for p in rng.sample(list(pool), min(50, len(pool)))
             for w in p.split() if w.isalpha() and len(w) > 3]
    for i in rng.sample(content, min(len(content), how_many(len(content)))):
        words[i] = rng.choice(vocab)
    return " ".join(words)


def neighbour(home: Statement, pool: Sequence[Statement],
              by_word: Dict[str, List[int]], used: Set[int]
              ) -> Optional[Statement]:
    """The pool statement from another file sharing the most content words."""
    words = set(similarity.tokens(home.text).values) - similarity.STOPWORDS
    counts: Counter[int] = Counter()
    for w in sorted(words):  # set order varies with the hash seed
        for j in by_word.get(w, ())[:200]:
            counts[j] += 1
    for j, _n in counts.most_common(10):
        cand = pool[j]
        if j not in used and cand.path != home.path and cand.text != home.text:
            return cand
    return None


def build(pool: List[Statement], cases: int, seed: int
          ) -> Tuple[List[Statement], List[Tuple[str, str, int, List[int]]]]:
    """(statements, labels); a label is (group, edit, home index, indices of
    the second statement's parts)."""
    rng = random.Random(seed)
    texts = [s.text for s in pool]
    by_word: Dict[str, List[int]] = {}
    for i, s in enumerate(pool):
        for w in set(similarity.tokens(s.text).values) - similarity.STOPWORDS:
            by_word.setdefault(w, []).append(i)
    stmts: List[Statement] = []
    labels: List[Tuple[str, str, int, List[int]]] = []
    kinds = ([("copy", k) for k in COPY_EDITS] + [("diverged", k) for k in
             DIVERGED_EDITS] + [("negative", k) for k in NEGATIVE_EDITS])
    order = list(range(len(pool)))
    rng.shuffle(order)
    n = 0
    used = set()  # a statement in two cases would blur both labels
    for home_i in order:
        if n >= cases:
            break
        if home_i in used:
            continue
        group, kind = kinds[n % len(kinds)]
        home = pool[home_i]
        if kind == "neighbour":
            other = neighbour(home, pool, by_word, used)
            second = other.text if other is not None else None
        else:
            second = edit(kind, home.text, rng, texts)
        if second is None:
            continue
        n += 1
        used.add(home_i)
        if kind == "neighbour" and other is not None:
            used.add(pool.index(other))
        hi = len(stmts)
        stmts.append(Statement(f"case{n}/home.md", 1, home.text))
        parts = (similarity.statements(second, f"case{n}/copy.md")
                 if kind == "split" else [Statement(f"case{n}/copy.md", 1, second)])
        idx = []
        for p in parts:
            idx.append(len(stmts))
            stmts.append(p)
        labels.append((group, kind, hi, idx))
    return stmts, labels


def evaluate(stmts: List[Statement], labels: List[Tuple[str, str, int, List[int]]],
             at: float, verbose: bool) -> None:
    index = similarity.Index(stmts)
    pos = {id(s): i for i, s in enumerate(stmts)}
    found = {}
    for m in index.pairs(min(THRESHOLDS), lambda a, b: a.path != b.path):
        found[(pos[id(m.a)], pos[id(m.b)])] = m
    labelled = {(h, p) for _g, _k, h, parts in labels for p in parts}
    stray = sum(1 for key in found if key not in labelled)
    print(f"statements {len(stmts)}, cases {len(labels)} "
          f"({Counter(g for g, *_ in labels)}), pairs outside the labels at "
          f"{min(THRESHOLDS)}: {stray}")
    print("| threshold | copies P | copies R | diverged P | diverged R |")
    print("|---|---|---|---|---|")
    for t in THRESHOLDS:
        tp = {"copy": 0, "diverged": 0}
        fp = {"copy": 0, "diverged": 0}
        fn = {"copy": 0, "diverged": 0}
        for group, _kind, h, parts in labels:
            hits = [found[(h, p)] for p in parts if (h, p) in found]
            hits = [m for m in hits if m.score >= t or m.score == 1.0]
            said = None
            if hits:
                said = "diverged" if any(m.diverged for m in hits) else "copy"
            if said is not None:
                if said == group:
                    tp[said] += 1
                else:
                    fp[said] += 1
            if group != "negative" and said != group:
                fn[group] += 1
        row = [f"{t:.2f}"]
        for g in ("copy", "diverged"):
            p = tp[g] / (tp[g] + fp[g]) if tp[g] + fp[g] else 1.0
            r = tp[g] / (tp[g] + fn[g]) if tp[g] + fn[g] else 1.0
            row += [f"{p:.3f}", f"{r:.3f}"]
        print("| " + " | ".join(row) + " |")
    miss: Counter[Tuple[str, Optional[str]]] = Counter()
    for group, kind, h, parts in labels:
        hits = [found[(h, p)] for p in parts if (h, p) in found]
        hits = [m for m in hits if m.score >= at or m.score == 1.0]
        said = (None if not hits else "diverged" if any(m.diverged for m in hits)
                else "copy")
        if said != (None if group == "negative" else group):
            miss[(kind, said)] += 1
            if verbose:
                print(f"{kind} -> {said}:\n  {stmts[h].text!r}\n  "
                      f"{' / '.join(stmts[p].text for p in parts)!r}")
    print(f"wrong at {at}, by edit and answer: {dict(miss)}")


def use_rapidfuzz(name: str) -> None:
    """Score with rapidfuzz over the same content words (a measurement aid:
    rapidfuzz is not a dependency of icm)."""
    from rapidfuzz import fuzz

    ratio = fuzz.token_set_ratio if name == "rapidfuzz" else fuzz.token_sort_ratio

    def score(words_a: FrozenSet[str], _ba: object, words_b: FrozenSet[str],
              _bb: object) -> float:
        return float(ratio(" ".join(sorted(words_a)), " ".join(sorted(words_b))))/100

    similarity._score = score  # type: ignore[assignment]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--cases", type=int, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--at", type=float, default=0.75,
                    help="threshold at which wrong answers are counted")
    ap.add_argument("--scorer", choices=("icm", "rapidfuzz", "rapidfuzz-sort"),
                    default="icm")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every wrong answer at --at")
    args = ap.parse_args(argv)
    if args.scorer != "icm":
        use_rapidfuzz(args.scorer)
    pool = load(args.paths)
    if len(pool) < 20:
        print(f"only {len(pool)} statements under {args.paths}", file=sys.stderr)
        return 2
    stmts, labels = build(pool, args.cases, args.seed)
    evaluate(stmts, labels, args.at, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
