"""Slugs: the part of a queue or journal file name that comes from a title.

A slug keeps letters and digits of every script (``日本語のタイトル``,
``исправить-парсер``), lower-cased after NFKC normalisation; every other run
of characters becomes one ``-``. Transliteration was rejected: it needs a
table per script (a dependency) and still loses Japanese. The checks accept
exactly what ``slugify`` makes, so a name icm wrote never fails its own check.
"""

from __future__ import annotations

import unicodedata

MAX_CHARS = 60
# Bytes, not characters, bound a file name: 60 CJK characters are 180 bytes,
# and "2026-11-29_" + slug + ".md" must stay well under 255.
MAX_BYTES = 120


def _kept(ch: str, previous_kept: bool) -> bool:
    cat = unicodedata.category(ch)
    # A combining mark (Devanagari vowel signs, Thai tones) belongs to the
    # letter before it; alone it would start a name with an invisible glyph.
    return cat[0] in "LN" or (cat[0] == "M" and previous_kept)


def slugify(title: str) -> str:
    """``Auto-detect the delimiter`` -> ``auto-detect-the-delimiter``;
    empty when the title has no letter or digit."""
    slug = title
    # Cutting to length or dropping a lone mark can leave text that NFKC
    # changes again; a second pass settles it, so slugify(slug) == slug.
    for _ in range(3):
        again = _one_pass(slug)
        if again == slug:
            break
        slug = again
    return slug


def _one_pass(title: str) -> str:
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", title).lower())
    out = []
    kept = False
    for ch in text:
        keep = _kept(ch, kept)
        if keep:
            out.append(ch)
        elif kept:
            out.append("-")
        kept = keep
    slug = "".join(out).strip("-")[:MAX_CHARS]
    while len(slug.encode("utf-8")) > MAX_BYTES:
        slug = slug[:-1]
    return slug.strip("-")


def is_slug(text: str) -> bool:
    """A letter or digit first, then letters, digits, marks, ``.``, ``_``, ``-``
    (what slugify makes, plus the ASCII names people type by hand)."""
    if not text or not _kept(text[0], False):
        return False
    return all(_kept(ch, True) or ch in "._-" for ch in text)
