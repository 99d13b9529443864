"""Slugs from titles in any script (``icm/slug.py``)."""

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.model.journal import valid_name
from icm.model.queue import number
from icm.slug import MAX_BYTES, MAX_CHARS, is_slug, slugify


@pytest.mark.parametrize("title, slug", [
    ("Auto-detect the Délimiter!", "auto-detect-the-délimiter"),
    ("日本語のタイトル", "日本語のタイトル"),
    ("Исправить парсер", "исправить-парсер"),
    ("हिन्दी शीर्षक", "हिन्दी-शीर्षक"),  # vowel signs stay with their letters
    ("ＦＵＬＬ width ①", "full-width-1"),  # NFKC folds compatibility forms
    ("../etc/passwd", "etc-passwd"),
    (".hidden\u202efile", "hidden-file"),  # no dot first, no bidi control
    ("!!! ---", ""),
])
def test_slugify_keeps_letters_of_every_script(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_long_titles_are_bounded_in_characters_and_bytes() -> None:
    assert slugify("a" * 500) == "a" * MAX_CHARS
    cjk = slugify("日" * 500)
    assert len(cjk.encode("utf-8")) <= MAX_BYTES and cjk == "日" * 40


titles = st.one_of(
    st.text(max_size=120),
    st.lists(st.sampled_from(["日本", "語", "и", "Ж", "ि", "्", " ", "-", ".", "/",
                              "_", "é", "e\u0301", "ǅ", "ß", "İ", "①", "ﬁ", "\u202e",
                              "\x00", "a", "Z", "9", "٣"]), max_size=80).map("".join))


@given(titles)
def test_any_title_gives_a_safe_stable_slug_or_none(title: str) -> None:
    slug = slugify(title)
    assert slug == slugify(title)  # deterministic
    if not slug:
        return
    assert slugify(slug) == slug  # stable: a slug is its own slug
    assert is_slug(slug)
    assert "/" not in slug and "\\" not in slug and "\x00" not in slug
    assert not slug.startswith((".", "-")) and not slug.endswith("-")
    assert len(slug) <= MAX_CHARS and len(slug.encode("utf-8")) <= MAX_BYTES
    # What new-queue and new-journal would name, the checks accept.
    assert number(f"queue/07_{slug}.md") == 7
    assert valid_name(f"2026-11-29_{slug}.md")


@given(titles)
def test_slug_names_are_creatable_files(title: str) -> None:
    slug = slugify(title)
    if not slug:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"2026-11-29_{slug}.md"
        path.write_text("x", encoding="utf-8")
        assert os.listdir(folder) == [path.name]


def test_is_slug_accepts_hand_typed_ascii_names() -> None:
    assert is_slug("v1.2_notes-draft")
    assert not is_slug("-x") and not is_slug(".x") and not is_slug("a/b")
    assert not is_slug("")

