"""Property-based tests for the markdown layer (HYPOTHESIS_PROFILE=deep for a
long run)."""

from typing import List

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from icm import extract, lines, markdown
from icm.checks.journal import slot_problems
from icm.config import DEFAULT_SLOTS
from icm.model.journal import parse_entry

# Text made of the characters markdown cares about, so the examples hit
# links, headings, fences, HTML and escapes instead of plain prose.
PIECES = ["[", "]", "(", ")", "<", ">", "!", "#", "# ", "## ", "`", "```", "~~~",
          "*", "_", "\\", "\n", "\n\n", " ", "    ", "> ", "- ", "1. ", ":", "/",
          "a", "b.md", "#x", "http://e.x", '<a href="x.md">', "</a>", "<!--",
          "-->", "[r]: t.md", "|", "---", "===", "&amp;", "%20", "é", "日",
          "Decision", "Invariant", "\t", '"t"']
markdownish = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
any_text = st.one_of(markdownish, st.text(max_size=200))


def _vanilla() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"inline_definitions": True})
    md.enable(["table", "strikethrough"])
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    return md


VANILLA = _vanilla()


def _links(tokens: List[Token]) -> List[str]:
    """Every link/image destination in a token stream, sorted."""
    found = []
    for tok in tokens:
        for child in tok.children or []:
            if child.type == "link_open":
                found.append(str(child.attrs.get("href", "")))
            elif child.type == "image":
                found.append(str(child.attrs.get("src", "")))
    return sorted(found)


@given(any_text)
def test_extraction_never_raises(text: str) -> None:
    ext = extract.extract(text)
    assert all(link.line >= 1 for link in ext.links if link.kind != "definition")


@given(any_text)
def test_selective_inline_agrees_with_markdown_it(text: str) -> None:
    assert _links(markdown.parse(text)) == _links(VANILLA.parse(text))


@given(any_text)
def test_headings_agree_with_markdown_it(text: str) -> None:
    ours = [(h.level, h.line) for h in markdown.headings(markdown.parse(text))]
    theirs = [(int(t.tag[1]), t.map[0] + 1) for t in VANILLA.parse(text)
              if t.type == "heading_open"]
    assert ours == theirs


@given(markdownish)
def test_crlf_invariance(text: str) -> None:
    crlf = text.replace("\n", "\r\n")
    assert extract.extract(text) == extract.extract(crlf)
    assert slot_problems(text, DEFAULT_SLOTS) == slot_problems(crlf, DEFAULT_SLOTS)


@given(any_text)
def test_slot_detection_never_raises(text: str) -> None:
    for index, slot, kind, line in slot_problems(text, DEFAULT_SLOTS):
        assert DEFAULT_SLOTS[index] == slot and kind in ("missing", "empty")
        assert line >= 0


@given(markdownish)
def test_entry_parse_is_crlf_invariant(text: str) -> None:
    def parsed(t: str) -> tuple:
        entry = parse_entry(t, "journal/a.md", DEFAULT_SLOTS, "Verify command")
        return (entry.command, entry.verify_line, entry.superseded_by,
                {k: (v.line, v.visible) for k, v in entry.slots.items()})

    assert parsed(text) == parsed(text.replace("\n", "\r\n"))


@given(any_text, st.sampled_from(["Superseded-by: ", "## Verify command\n",
                                  "```console\n$ ", "    "]))
def test_entry_parse_never_raises(text: str, lead: str) -> None:
    entry = parse_entry(lead + text, "journal/a.md", DEFAULT_SLOTS,
                        "Verify command")
    assert entry.command is None or entry.command.strip()
    assert entry.superseded_by is None or not entry.superseded_by.startswith("/")


@given(st.text(max_size=80))
def test_slug_is_stable(text: str) -> None:
    once = markdown.slug(text)
    assert markdown.slug(once) == once
    assert once == once.lower()
    assert " " not in once


@given(st.lists(st.sampled_from(["a", "a-1", "A", "b", "a 1", "", "-"]), max_size=12))
def test_deduplicated_slugs_are_unique(texts: List[str]) -> None:
    slugger = markdown.Slugger()
    slugs = [slugger.slug(t) for t in texts]
    assert len(set(slugs)) == len(slugs)


# -- statement similarity -------------------------------------------------------

PROSE = ["must", "not", "never", "always", "the", "rule", "64", "1,000", "KiB",
         "`code`", "``a`b``", "src/x.md", "AGENTS.md", "http://e.x/y", "don't",
         "can't", "’", "'", ". ", ", ", "\r\n", "\ufeff", "İ", "ß", "<!-- icm: "
         "allow-duplicate -->", "<b>", "[t](u.md)", "**", "_"]
prose = st.lists(st.sampled_from(PIECES + PROSE), max_size=80).map("".join)
any_prose = st.one_of(prose, st.text(max_size=300))


@given(any_prose)
def test_statements_never_raise_and_lines_stay_in_the_file(text: str) -> None:
    from icm import similarity

    total = max(1, len(text.lstrip("\ufeff").replace("\r\n", "\n")
                       .replace("\r", "\n").split("\n")))
    for stmt in similarity.statements(text, "x.md"):
        assert 1 <= stmt.line <= total
        assert 1 <= stmt.line + stmt.text.count("\n") <= total


@given(any_prose)
def test_normalisation_agrees_with_itself(text: str) -> None:
    from icm import similarity

    toks = similarity.tokens(text)
    assert all(0 <= s < e <= len(text) for s, e in zip(toks.starts, toks.ends))
    assert similarity.skeleton(text)[0] == toks.skeleton()
    assert similarity.similarity(text, text) in (0.0, 1.0)
    assert similarity.differences(text, text) == ()


@given(any_prose, any_prose)
def test_index_never_raises(a: str, b: str) -> None:
    from icm import similarity

    stmts = [similarity.Statement("a.md", 1, a), similarity.Statement("b.md", 1, b)]
    for m in similarity.Index(stmts).pairs(0.5):
        assert m.line_a >= 1 and m.line_b >= 1 and 0.5 <= m.score <= 1.0


# Fences at the top level: no container ("> ", "- ", "1. ") or HTML line
# starts, where ``lines.fenced`` errs to the safe side on purpose.
FENCE_PIECES = ["```", "~~~", "````", "`", "~", " ", "   ", "\t", "a", "x`", "\n", "\r",
                "\r\n", "Claimed-by: A on b, 2026-01-01"]


@given(st.lists(st.sampled_from(FENCE_PIECES), max_size=40).map("".join))
@example("````\n```\nClaimed-by: A on b, 2026-01-01\n~~~~\n````")
def test_fenced_lines_agree_with_markdown_it(text: str) -> None:
    rows = [row for row, _end in lines.split(text)]
    theirs = [False] * len(rows)
    for tok in VANILLA.parse(text):
        if tok.type == "fence" and tok.map:
            for i in range(tok.map[0], min(tok.map[1], len(rows))):
                theirs[i] = True
    ours, open_fence = lines.fenced(rows)
    # markdown-it's map of an open fence leaves out the blank rows at the end
    # (no claim is blank): compare up to the last row with text.
    upto = max([i + 1 for i, row in enumerate(rows) if row.strip(" \t")] or [0])
    assert ours[:upto] == theirs[:upto]
    if open_fence:  # a line of the open fence closes it: the next is text
        closed = f"{text}\n{open_fence}\nz"
        last = len(lines.split(closed)) - 1
        assert all(tok.map[1] <= last for tok in VANILLA.parse(closed)
                   if tok.type == "fence" and tok.map)
