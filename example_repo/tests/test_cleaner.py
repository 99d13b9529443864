"""Tests for rowcleaner. Background: see tests/context.md."""

import inspect

from src.cleaner import clean, is_blank


def test_blank_rows_are_dropped():
    rows = [["a", "b"], ["", " "], [], ["c", ""]]
    assert list(clean(rows)) == [["a", "b"], ["c", ""]]


def test_is_blank():
    assert is_blank(["", "  "]) and not is_blank(["", "x"])


def test_clean_streams():
    assert inspect.isgeneratorfunction(clean)
