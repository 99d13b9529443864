"""Globs (``exclude``, ``links_ignore``, ``boot``) run as an automaton, never a
backtracking regex (issue 10, item 7); hypothesis holds the automaton to the
regex translation it replaced, on inputs small enough for that regex."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from icm.context import Glob, compile_globs


def _old_regex(pattern: str) -> str:
    """The translation icm used before (exponential on ``**a**a**b``); kept
    here as the oracle."""
    pattern = pattern.strip()
    pattern = pattern.lstrip("/") if pattern.startswith("/") else pattern
    anywhere = "/" not in pattern.rstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    prefix = "(?:.*/)?" if anywhere else ""
    return f"(?:{prefix}{''.join(out)}(?:/.*)?)\\Z"


@given(st.text("ab/*?", max_size=10).filter(lambda p: p.strip()),
       st.text("ab/", max_size=12))
def test_glob_agrees_with_the_regex_it_replaced(pattern: str, name: str) -> None:
    expected = re.match(_old_regex(pattern), name) is not None
    assert Glob(pattern).match(name) is expected


def test_glob_examples() -> None:
    globs = compile_globs(["*.png", "build/", "docs/**/draft-?.md", "a/top.md"])
    assert globs is not None
    assert globs.match("a/b/x.png") and not globs.match("a/b/x.png.txt")
    assert globs.match("build/x/y") and globs.match("x/build/y")
    assert globs.match("docs/a/b/draft-1.md") and globs.match("docs/draft-2.md")
    assert not globs.match("docs/draft-10.md")
    assert globs.match("a/top.md") and not globs.match("b/a/top.md")
    assert compile_globs(["", "  "]) is None
    # a name holding a newline is still a name
    assert Glob("**").match("a\nb/c") and Glob("*").match("a\nb")


def test_adversarial_glob_finishes() -> None:
    """Exponential for the old regex; one pass for the automaton."""
    pattern = "**a" * 30 + "**b"
    name = "a" * (1 << 20)
    assert not Glob(pattern).match(name)
    assert Glob(pattern).match(name + "b")
    assert not Glob("*a" * 30 + "*b").match(name)
