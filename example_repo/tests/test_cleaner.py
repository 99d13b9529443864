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


def test_no_function_returns_a_list_of_rows():
    """The invariant of journal/2026-10-26_read-input-as-a-stream.md, for
    every function in src/, not only clean()."""
    import ast
    import pathlib

    for path in pathlib.Path("src").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            returns = ast.unparse(node.returns) if node.returns else ""
            assert not returns.startswith(("List", "list")), (path, node.name)
            for ret in ast.walk(node):
                value = getattr(ret, "value", None) if isinstance(ret, ast.Return) \
                    else None
                assert not isinstance(value, (ast.List, ast.ListComp)), \
                    (path, node.name)
                assert "readlines" not in (ast.unparse(ret) if isinstance(
                    ret, ast.Call) else ""), (path, node.name)
