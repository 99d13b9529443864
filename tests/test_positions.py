"""``icm positions``, ``--write`` and ``check-positions`` (issue 14, parts 1
and 2): the compiled view, its block kept current, and the re-invention
warning, each as whole output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import write

ROOT = Path(__file__).resolve().parent.parent
STREAM = "journal/2026-10-26_read-input-as-a-stream.md"
BUFFER = """# Buffer the whole file

Read the entire input into memory first and filter the rows there; simpler
than the generator.
"""
WARNING = (f'queue/09_buffer-whole-file.md: re-proposes what {STREAM} rejected: '
           '"load the whole file and filter in memory"\n')


def _example(tmp_path: Path) -> Path:
    dest = tmp_path / "example"
    shutil.copytree(ROOT / "example_repo", dest)
    return dest


def _entry(decision: str, rejected: str, invariant: str, head: str = "") -> str:
    return (f"# Entry\n{head}\n## Decision\n{decision}\n\n## Rejected alternative\n"
            f"{rejected}\n\n## Invariant\n{invariant}\n\n## Verify command\n"
            "`true`\n")


A = "journal/2026-01-01_use-the-csv-module.md"
B = "journal/2026-01-02_split-by-hand.md"
C = "journal/2026-01-03_stream-rows.md"
JOURNAL = {
    A: _entry("Parse rows with the csv module.",
              "Splitting lines on commas by hand: quoted fields break.",
              "No code splits a line on commas.", head="Superseded-by: " + B + "\n"),
    B: _entry("Split lines on commas by hand. The exports never quote.",
              "Keep the csv module.", "Rows are split by hand."),
    C: _entry("Stream rows from the reader one at a time.",
              "Load the whole file and filter in memory.",
              "No function returns a list of rows."),
    "queue/04_memory.md": "# Load the whole file\n\nFilter in memory: simpler.\n",
    "queue/05_split.md": "# Split lines on commas by hand\n\nQuoted fields are "
                         "rare.\n\nRevives: " + A + "\n",
}
MARKDOWN = f"""\
Compiled by `icm positions`; do not edit. Read before proposing work: reviving \
a Rejected design needs a `Revives:` line.

## Current

- [{C}]({C}): Stream rows from the reader one at a time. No function returns a \
list of rows.
- [{B}]({B}): Split lines on commas by hand. Rows are split by hand. (revives \
what [{A}]({A}) rejected)

## Superseded

- [{A}]({A}): Parse rows with the csv module. Replaced by [{B}]({B}): Split \
lines on commas by hand.

## Rejected

- **most re-invented**, re-proposed 1x: Load the whole file and filter in \
memory. ([{C}]({C}))
- Keep the csv module. ([{B}]({B}))
"""


def test_markdown_view(repo: Path, icm) -> None:
    """Current newest first, Superseded with what replaced it and why,
    Rejected ranked by re-proposals. B, superseding A, holds again what A
    rejected: a revived design is current (B's line says so), not dead
    (queue item 05's Revives: is a proposal: it counts, revives nothing)."""
    write(repo, JOURNAL)
    assert icm("positions", "--root", str(repo)) == (0, MARKDOWN, "")


def test_check_warns_only_on_the_unacknowledged(repo: Path, icm) -> None:
    write(repo, JOURNAL)
    assert icm("check-positions", "--root", str(repo)) == (0, (
        f'queue/04_memory.md: re-proposes what {C} rejected: "load the whole '
        'file and filter in memory"\n'), "")


def test_json_view(repo: Path, icm) -> None:
    write(repo, JOURNAL)
    code, out, err = icm("positions", "--root", str(repo), "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["current"] == [
        {"entry": C, "decision": "Stream rows from the reader one at a time.",
         "invariant": "No function returns a list of rows.", "revives": []},
        {"entry": B, "decision": "Split lines on commas by hand.",
         "invariant": "Rows are split by hand.", "revives": [A]}]
    assert doc["superseded"] == [
        {"entry": A, "decision": "Parse rows with the csv module.",
         "superseded_by": B, "why": "Split lines on commas by hand.",
         "newest": B}]
    assert [(r["entry"], r["reproposed"], r["most_reinvented"], r["revived_by"],
             [(p["path"], p["acknowledged"]) for p in r["reproposals"]])
            for r in doc["rejected"]] == [
        (C, 1, True, [], [("queue/04_memory.md", False)]),
        (B, 0, False, [], []),
        # every design A rejected is held again: no longer dead, so no
        # proposal re-proposes it (B's and item 05's are revivals)
        (A, 0, False, [B], [])]


def test_only_a_newer_entry_re_proposes(repo: Path, icm) -> None:
    """An entry dated before the rejecting one, or the same day, is not a
    re-proposal; one dated after it is, until an entry revives the design."""
    write(repo, {
        C: JOURNAL[C],
        "journal/2026-01-02_earlier.md": _entry(
            "Load the whole file and filter it in memory.", "Nothing else.",
            "Fits."),
        "journal/2026-01-04_later.md": _entry(
            "Load the whole file and filter it in memory again.", "Streaming.",
            "Fits."),
    })
    assert icm("check-positions", "--root", str(repo)) == (0, (
        f'journal/2026-01-04_later.md: re-proposes what {C} rejected: "load '
        'the whole file and filter in memory"\n'), "")
    # a newer entry reviving the design makes it current: no warning at all
    write(repo, {"journal/2026-01-05_revived.md": _entry(
        "Load the whole file and filter in memory.", "Streaming.", "Fits.",
        head="Revives: [the stream entry](2026-01-03_stream-rows.md)\n")})
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


def test_example_is_clean_and_a_re_proposal_is_caught(tmp_path: Path,
                                                      icm) -> None:
    root = _example(tmp_path)
    assert icm("check-positions", "--root", str(root)) == (0, "positions ok\n", "")
    write(root, {"queue/09_buffer-whole-file.md": BUFFER})
    assert icm("check-positions", "--root", str(root)) == (0, WARNING, "")
    code, out, _ = icm("check", "--root", str(root), "--format", "json")
    found = [f for c in json.loads(out)["checks"] for f in c["findings"]
             if f["check"] == "positions"]
    assert [(f["code"], f["severity"], f["line"], f["rejected_by"])
            for f in found] == [("re-proposed", "warning", 1, STREAM)]


def test_example_revival_acknowledged(tmp_path: Path, icm) -> None:
    root = _example(tmp_path)
    write(root, {"queue/09_buffer-whole-file.md": BUFFER + f"\nRevives: {STREAM}\n"})
    assert icm("check-positions", "--root", str(root)) == (0, "positions ok\n", "")
    out = icm("positions", "--root", str(root))[1]
    assert ("re-proposed 1x: Load the whole file and filter in memory. "
            f"([{STREAM}]({STREAM}))\n") in out


def test_example_differs_from_is_no_reproposal(tmp_path: Path, icm) -> None:
    """A reader who compared the item with the rejection and found another
    proposal (the newcomer's case: the opposite of what was rejected) says
    so once: no warning, and no count in the ranking, as Revives: would."""
    root = _example(tmp_path)
    opposite = ("# Never buffer the whole file\n\nLoad rows lazily; filter the "
                "whole file in memory never.\n")
    write(root, {"queue/09_lazy.md": opposite})
    assert icm("check-positions", "--root", str(root))[1].startswith(
        f"queue/09_lazy.md: re-proposes what {STREAM} rejected")
    write(root, {"queue/09_lazy.md": opposite + f"\nDiffers-from: {STREAM}\n"})
    assert icm("check-positions", "--root", str(root)) == (0, "positions ok\n", "")
    out = icm("positions", "--root", str(root))[1]
    assert (f"\n- Load the whole file and filter in memory. ([{STREAM}]({STREAM}))"
            "\n") in out  # not counted: no "re-proposed 1x"


POSITIONS = "journal/POSITIONS.md"
CONFIG = {"pyproject.toml": '[tool.icm]\npositions_file = "journal/POSITIONS.md"\n'}
STALE = ("journal/POSITIONS.md: positions block is out of date (run: icm "
         "positions --write)\n")


def test_write_round_trip_and_stale_block(repo: Path, icm) -> None:
    write(repo, {**CONFIG, B: JOURNAL[B]})
    assert icm("positions", "--root", str(repo), "--write") == (
        0, f"created {POSITIONS}\n", "")
    first = (repo / POSITIONS).read_bytes()
    block = icm("positions", "--root", str(repo))[1]
    assert first.decode() == (
        "# Positions\n\n<!-- icm:positions -->\n" + block.replace("journal/", "")
        + "<!-- /icm:positions -->\n")
    assert icm("positions", "--root", str(repo), "--write") == (
        0, f"{POSITIONS}: positions block is up to date\n", "")
    assert (repo / POSITIONS).read_bytes() == first
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")

    write(repo, {C: JOURNAL[C]})
    assert icm("check-positions", "--root", str(repo)) == (1, STALE, "")
    assert icm("positions", "--root", str(repo), "--write") == (
        0, f"updated {POSITIONS}\n", "")
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


def test_write_keeps_text_outside_the_block(repo: Path, icm) -> None:
    outside = ("# Our positions\r\n\r\nPeople wrote this.\r\n\r\n"
               "<!-- icm:positions -->\r\nold\r\n<!-- /icm:positions -->\r\n"
               "\r\nAnd this.\r\n")
    write(repo, {**CONFIG, B: JOURNAL[B], POSITIONS: outside})
    assert icm("check-positions", "--root", str(repo)) == (1, STALE, "")
    assert icm("positions", "--root", str(repo), "--write") == (
        0, f"updated {POSITIONS}\n", "")
    text = (repo / POSITIONS).read_bytes().decode()
    assert text.startswith("# Our positions\r\n\r\nPeople wrote this.\r\n\r\n"
                           "<!-- icm:positions -->\r\nCompiled by")
    assert text.endswith("<!-- /icm:positions -->\r\n\r\nAnd this.\r\n")
    assert "\n" not in text.replace("\r\n", "")
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


def test_file_without_block_gets_one_at_its_end(repo: Path, icm) -> None:
    write(repo, {**CONFIG, B: JOURNAL[B], POSITIONS: "# Mine\n"})
    assert icm("check-positions", "--root", str(repo)) == (1, (
        "journal/POSITIONS.md: no positions block (run: icm positions --write)\n"),
        "")
    icm("positions", "--root", str(repo), "--write")
    assert (repo / POSITIONS).read_text().startswith(
        "# Mine\n\n<!-- icm:positions -->\nCompiled by")
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


def test_missing_file_and_bad_markers(repo: Path, icm) -> None:
    write(repo, {**CONFIG, B: JOURNAL[B]})
    assert icm("check-positions", "--root", str(repo)) == (1, (
        "journal/POSITIONS.md: positions file is missing (run: icm positions "
        "--write)\n"), "")
    write(repo, {POSITIONS: "<!-- icm:positions -->\n\ntext\n"})
    message = ("journal/POSITIONS.md:1: <!-- icm:positions --> has no "
               "<!-- /icm:positions --> after it; add the end marker or remove "
               "this one")
    assert icm("check-positions", "--root", str(repo)) == (1, message + "\n", "")
    assert icm("positions", "--root", str(repo), "--write") == (
        2, "", f"icm: {message}\n")


def test_write_needs_the_config_key(repo: Path, icm) -> None:
    write(repo, {B: JOURNAL[B]})
    assert icm("positions", "--root", str(repo), "--write") == (2, "", (
        'icm: --write needs positions_file in the config (for example '
        'positions_file = "journal/POSITIONS.md")\n'))
    assert icm("positions", "--root", str(repo), "--format", "sarif")[0] == 2


def test_bootmap_counts_the_positions_file(repo: Path, icm) -> None:
    write(repo, {**CONFIG, "AGENTS.md": "# H\n", B: JOURNAL[B]})
    icm("positions", "--root", str(repo), "--write")
    size = (repo / POSITIONS).stat().st_size
    code, out, _ = icm("bootmap", "--root", str(repo), "--verbose")
    assert f"{size:7d} bytes  journal/POSITIONS.md\n" in out
    assert f"cold-boot set: {size + 4} bytes" in out


@given(st.lists(st.sampled_from(["# Title", "Prose.", "", "- a list", "```",
                                 "<!-- note -->", "> quote"]), max_size=8))
def test_write_twice_changes_nothing_the_second_time(tmp_path_factory,
                                                     before) -> None:
    from icm.cli import main

    root = tmp_path_factory.mktemp("w")
    text = "\n".join(before) + ("\n" if before else "")
    write(root, {**CONFIG, B: JOURNAL[B], POSITIONS: text})
    if main(["positions", "--root", str(root), "--write"]) == 2:
        # the end of the file is inside a fence: refused, nothing changed
        assert (root / POSITIONS).read_text() == text
        return
    once = (root / POSITIONS).read_bytes()
    assert once.decode().startswith(text)  # nothing before the block moved
    assert main(["positions", "--root", str(root), "--write"]) == 0
    assert (root / POSITIONS).read_bytes() == once
    assert main(["check-positions", "--root", str(root), "-q"]) == 0


def test_nothing_to_compare_is_no_re_proposal(repo: Path, icm) -> None:
    """An alternative and an item made only of negations and stop words
    have equal (empty) skeletons: that is no re-proposal."""
    write(repo, {"journal/2026-01-01_a.md": _entry("Do it.", "Never.", "It holds."),
                 "queue/01_x.md": "Not this.\n", "queue/02_y.md": ""})
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


def test_orphan_is_named_not_linked(repo: Path, icm) -> None:
    """A Superseded-by naming no entry (the journal check's orphan error)
    is shown as text, so check-links does not report it a second time."""
    gone = "journal/2026-01-09_gone.md"
    write(repo, {A: JOURNAL[A].replace(B, gone)})
    out = icm("positions", "--root", str(repo))[1]
    assert (f"- [{A}]({A}): Parse rows with the csv module. Replaced by {gone} "
            "(missing)\n") in out


@given(st.lists(st.sampled_from(["<!--", "-->", "```", "a", " ", ".", "b. "]),
                max_size=16))
def test_cut_spans_is_the_old_regex_in_one_pass(parts) -> None:
    """``first_sentence`` drops comments and fences as its regexes did
    (``<!--.*?-->``, then three backticks to three backticks), linearly."""
    import re

    from icm.model.journal import _cut_spans

    text = "".join(parts)
    old = re.sub(r"```.*?```", " ", re.sub(r"<!--.*?-->", " ", text, flags=re.S),
                 flags=re.S)
    assert _cut_spans(_cut_spans(text, "<!--", "-->"), "```", "```") == old


def test_no_text_can_forge_a_line_of_the_view(repo: Path, icm) -> None:
    """A percent-encoded Superseded-by target decodes to newlines and ESC;
    slot text holds ESC and a bidi override: every one is shown escaped on
    its own line of the view, on stdout and in the written file."""
    forged = "b%0A%23%23%20Current%0A-%20Forged%1B%5B2J.md"
    entry = "journal/2026-11-01_a.md"
    write(repo, {entry: _entry("d\x1b[31m.", "r\u202e.", "i.",
                               head=f"\nSuperseded-by: [b]({forged})\n")})
    shown = "journal/b\\n## Current\\n- Forged\\x1b\\[2J.md (missing)"
    view = ("Compiled by `icm positions`; do not edit. Read before proposing "
            "work: reviving a Rejected design needs a `Revives:` line.\n\n"
            "## Current\n\n(none)\n\n## Superseded\n\n"
            "- [{e}]({e}): d\\x1b\\[31m. Replaced by " + shown + "\n\n"
            "## Rejected\n\n- r\\u202e. ([{e}]({e}))\n")
    assert icm("positions", "--root", str(repo)) == (
        0, view.format(e=entry), "")
    write(repo, CONFIG)
    assert icm("positions", "--root", str(repo), "--write") == (
        0, f"created {POSITIONS}\n", "")
    name = entry.split("/")[1]
    assert (repo / POSITIONS).read_text() == (
        "# Positions\n\n<!-- icm:positions -->\n" + view.format(e=name)
        + "<!-- /icm:positions -->\n")
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


# -- issue 25: every dead design ranked; a revived one is current --------------

X = "journal/2026-02-01_keep-rows-on-disk.md"
Y = "journal/2026-02-09_cache-rows-in-redis.md"


def test_every_rejected_alternative_is_ranked(repo: Path, icm) -> None:
    """The third of three Rejected alternatives is what the item proposes."""
    write(repo, {X: _entry("Keep the rows in files on disk.",
                           "- Store every row in a Postgres table.\n"
                           "- Send rows to a message broker.\n"
                           "- Cache the rows in a Redis server between runs.",
                           "Rows live on disk."),
                 "queue/01_redis.md": "# Cache rows in Redis\n\nA Redis server "
                                      "between runs would keep the rows warm.\n"})
    assert icm("check-positions", "--root", str(repo)) == (0, (
        f'queue/01_redis.md: re-proposes what {X} rejected: "cache the rows in '
        'a Redis server between runs"\n'), "")


def test_a_revived_design_is_current(repo: Path, icm) -> None:
    """Y revives what X rejected: the view lists Y's Decision as held and X's
    alternative no longer as Rejected, and proposing it warns of nothing."""
    files = {X: _entry("Keep the rows in files on disk.",
                       "- Cache the rows in a Redis server between runs.",
                       "Rows live on disk."),
             "queue/01_redis.md": "# Cache rows in Redis\n\nA Redis server "
                                  "between runs would keep the rows warm.\n"}
    write(repo, files)
    code, out, _ = icm("check-positions", "--root", str(repo))
    assert "re-proposes" in out  # dead until revived
    write(repo, {Y: _entry("Cache the rows in a Redis server between runs: "
                           "the disk is too slow now.", "Keep them on disk.",
                           "Rows are cached.", head=f"Revives: {X}\n")})
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")
    code, out, _ = icm("positions", "--root", str(repo))
    assert out.split("## Current\n\n", 1)[1].split("\n")[0] == (
        f"- [{Y}]({Y}): Cache the rows in a Redis server between runs: the disk "
        f"is too slow now. Rows are cached. (revives what [{X}]({X}) rejected)")
    assert out.split("## Rejected\n\n", 1)[1] == (
        f"- Keep them on disk. ([{Y}]({Y}))\n")


def test_a_superseded_decision_re_proposed_names_both_entries(repo: Path,
                                                              icm) -> None:
    write(repo, {X: _entry("Keep the rows in files on disk.", "Nothing else.",
                           "Rows live on disk.", head=f"Superseded-by: {Y}\n"),
                 Y: _entry("Cache the rows in Redis between runs.", "Files.",
                           "Rows are cached."),
                 "queue/01_disk.md": "# Keep the rows on disk\n\nFiles on disk "
                                     "are simpler than a cache.\n"})
    assert icm("check-positions", "--root", str(repo)) == (0, (
        f'queue/01_disk.md: re-proposes what {X} decided and {Y} superseded: '
        '"keep the rows in files on disk"\n'), "")


def test_the_semantic_option_without_its_extra_is_one_line(repo: Path, icm,
                                                           monkeypatch) -> None:
    """Without wordllama importable, ``similarity = "semantic"`` is exit 2
    and one line; the lexical default never imports it."""
    import sys

    from icm import similarity

    write(repo, {**JOURNAL, "icm.toml": 'similarity = "semantic"\n'})
    monkeypatch.setitem(sys.modules, "wordllama", None)  # an import fails
    monkeypatch.setattr(similarity, "_MODEL", [])
    code, out, err = icm("check-positions", "--root", str(repo))
    assert (code, out) == (2, "") and err.startswith(
        "icm: similarity = \"semantic\" needs the semantic extra (pip install "
        "'icm-hygiene[semantic]'): ModuleNotFoundError") and err.count("\n") == 1
    write(repo, {"icm.toml": ""})
    monkeypatch.delitem(sys.modules, "wordllama")
    assert icm("check-positions", "--root", str(repo))[0] == 0
    assert "wordllama" not in sys.modules


# -- issue 26: cuts that keep markup, chains, revivals, a bounded view ----------

EXPAND = "journal/2026-02-01_expand.md"


def test_a_decision_keeps_its_code_spans_and_links(repo: Path, icm) -> None:
    """The issue's case: the visible text's cut made `_expand rewrites..` of
    `` `_expand` rewrites `..` to `-` `` (the fact gone); the view now cuts
    at the sentence's end, outside code, and keeps the markup. A link is
    written from the root, so it reads the same from positions_file."""
    write(repo, {EXPAND: _entry(
        "`_expand` rewrites `..` to `-` in each name; see [the note](../icm/"
        "context.md#names), e.g. `a..b`. It runs once.",
        "Refusing `..` outright. Names from git hold it.",
        "A name holding `..` is stored with `-` (1.5 s at 10,000 names).")})
    out = icm("positions", "--root", str(repo))[1]
    assert (f"- [{EXPAND}]({EXPAND}): `_expand` rewrites `..` to `-` in each "
            "name; see [the note](/icm/context.md#names), e.g. `a..b`. A name "
            "holding `..` is stored with `-` (1.5 s at 10,000 names).\n") in out
    assert "- Refusing `..` outright. ([" in out
    doc = json.loads(icm("positions", "--root", str(repo), "--format", "json")[1])
    assert doc["current"][0]["decision"].startswith("`_expand` rewrites `..`")


_PARTS = st.sampled_from([
    "word", "two words", "1.5", "3.", "e.g.", "x.", "Stop.", "Why?", " ", "  ",
    "\n", "`a.b`", "`x. y`", "``a ` b``", "`", "[a link. here](x/y.md)",
    "[ref][r]", "**bold. still**", "*em.*", "_u_", "<b>", "&amp;", "\\*",
    "<https://e.com/a.b>", "![alt. text](p.png)", "snake_case"])


@given(st.lists(_PARTS, max_size=24), st.integers(1, 3),
       st.sampled_from([30, 100, 600]))
def test_a_cut_never_ends_inside_code_or_a_link(parts, count, limit) -> None:
    """Whatever the text: every code span and link of the cut is one of the
    source's, whole; no backtick is left outside a code span; a cut is a
    prefix of the whole paragraph's rendering (plus ``...``)."""
    from icm import markdown
    from icm.model.positions import sentence

    text = "".join(parts)
    cut = sentence(text, limit, "journal/e.md", count)
    whole = sentence(text, 10**6, "journal/e.md", 10**6)

    def spans(src: str):
        toks = markdown.inline_tokens(src)
        codes = [t.content for t in toks if t.type == "code_inline"]
        labels, depth, label = [], 0, []
        for t in toks:
            if t.type == "link_open":
                depth, label = depth + 1, []
            elif t.type == "link_close":
                depth -= 1
                labels.append("".join(label))
            elif depth:
                label.append(t.content)
        loose = [t.content for t in toks if t.type == "text" and "`" in t.content]
        return codes, labels, loose

    codes, labels, loose = spans(cut)
    source = spans(text.strip().split("\n\n", 1)[0].strip())
    assert not loose, cut
    assert all(c in source[0] for c in codes), (cut, text)
    assert all(label in source[1] for label in labels), (cut, text)
    assert whole.startswith(cut[:-3] if cut.endswith("...") else cut)


def _chain() -> dict:
    a, b, c = ("journal/2026-03-0%d_%s.md" % (n, s) for n, s in
               ((1, "first"), (2, "second"), (3, "third")))
    return {
        a: _entry("Keep rows in a list.", "Streaming.", "Lists.",
                  head=f"Superseded-by: {b}\n"),
        b: _entry("Keep rows in a deque.", "Lists.", "Deques.",
                  head=f"Superseded-by: {c}\n"),
        c: _entry("Stream rows one at a time.", "Deques.", "One row."),
    }


def test_a_chain_shows_what_holds_now(repo: Path, icm) -> None:
    write(repo, _chain())
    out = icm("positions", "--root", str(repo))[1]
    a, b, c = sorted(_chain())
    assert (f"- [{a}]({a}): Keep rows in a list. Replaced by [{b}]({b}), now by "
            f"[{c}]({c}): Stream rows one at a time.\n") in out
    assert f"- [{b}]({b}): Keep rows in a deque. Replaced by [{c}]({c}): " \
        "Stream rows one at a time.\n" in out
    doc = json.loads(icm("positions", "--root", str(repo), "--format", "json")[1])
    assert [(o["entry"], o["newest"]) for o in doc["superseded"]] == [(b, c), (a, c)]


def test_a_revived_design_is_current_not_dead(repo: Path, icm) -> None:
    """An entry saying ``Revives:`` holds the design again: its line says so
    and the design leaves Rejected; a queue item's Revives: is only a
    proposal, so the design stays dead until an entry holds it."""
    later = "journal/2026-02-01_buffer-again.md"
    write(repo, {C: JOURNAL[C], "queue/04_memory.md":
                 JOURNAL["queue/04_memory.md"] + f"\nRevives: {C}\n"})
    out = icm("positions", "--root", str(repo))[1]
    assert "re-proposed 1x: Load the whole file and filter in memory." in out
    write(repo, {later: _entry("Buffer the whole file: inputs are small now.",
                               "Streaming.", "Inputs fit.",
                               head=f"Revives: {C}\n")})
    out = icm("positions", "--root", str(repo))[1]
    assert (f"- [{later}]({later}): Buffer the whole file: inputs are small now. "
            f"Inputs fit. (revives what [{C}]({C}) rejected)\n") in out
    assert "Load the whole file" not in out
    assert icm("check-positions", "--root", str(repo)) == (0, "positions ok\n", "")


BOUNDED = f"""\
Compiled by `icm positions`; do not edit. Read before proposing work: reviving \
a Rejected design needs a `Revives:` line.

## Current

- [{C}]({C}): Stream rows from the reader one at a time. No function returns a \
list of rows.

## Superseded

- [{A}]({A}): Parse rows with the csv module. Replaced by [{B}]({B}): Split \
lines on commas by hand.

## Rejected

- **most re-invented**, re-proposed 1x: Load the whole file and filter in \
memory. ([{C}]({C}))

... 2 more positions not shown (budget 200 tokens)
"""


def test_budget_cuts_each_section_from_the_bottom(repo: Path, icm) -> None:
    """Sections take turns, each keeping its first lines; the last line
    counts the cut, and the whole fits."""
    write(repo, JOURNAL)
    assert icm("positions", "--root", str(repo), "--budget", "200") == (
        0, BOUNDED, "")
    assert len(BOUNDED.encode()) // 4 <= 200
    assert icm("positions", "--root", str(repo), "--budget", "0") == (
        0, MARKDOWN, "")
    tiny = icm("positions", "--root", str(repo), "--budget", "1")[1]
    assert tiny.count("(none shown)") == 3
    assert tiny.endswith("\n... 5 more positions not shown (budget 1 tokens)\n")


def test_folder_shows_the_entries_naming_it(repo: Path, icm) -> None:
    write(repo, {**JOURNAL, "src/reader.py": "", "src/context.md": "# src\n",
                 "tests/test_reader.py": "",
                 C: JOURNAL[C].replace("`true`", "`pytest tests/test_reader.py`"),
                 B: JOURNAL[B].replace("by hand. The", "by hand in `src/reader.py`."
                                       " The")})
    out = icm("positions", "--root", str(repo), "--folder", "src")[1]
    assert out == (
        "Compiled by `icm positions`; do not edit. Read before proposing work: "
        "reviving a Rejected design needs a `Revives:` line.\n\n## Current\n\n"
        f"- [{B}]({B}): Split lines on commas by hand in `src/reader.py`. Rows "
        f"are split by hand. (revives what [{A}]({A}) rejected)\n\n"
        "## Superseded\n\n(none)\n\n## Rejected\n\n"
        f"- Keep the csv module. ([{B}]({B}))\n")
    assert f"[{C}]" in icm("positions", "--root", str(repo), "--folder",
                          "tests/")[1]
    assert icm("positions", "--root", str(repo), "--folder", "../up") == (
        2, "", "icm: --folder ../up: leaves the repository\n")
    assert icm("positions", "--root", str(repo), "--write", "--budget", "9") == (
        2, "", "icm: --write writes the view the config sets (positions_budget); "
        "--budget and --folder are for reading it\n")


def test_positions_budget_bounds_the_committed_block(repo: Path, icm) -> None:
    """``positions_budget`` bounds what --write puts in the file and what
    check-positions expects there, so the boot set stays flat."""
    write(repo, {"pyproject.toml": CONFIG["pyproject.toml"]
                 + "positions_budget = 200\n", **JOURNAL})
    assert icm("positions", "--root", str(repo), "--write")[0] == 0
    out = icm("positions", "--root", str(repo))[1]  # the block, as written
    assert (repo / POSITIONS).read_text() == (
        "# Positions\n\n<!-- icm:positions -->\n" + out
        + "<!-- /icm:positions -->\n")
    assert out.endswith("\n... 1 more positions not shown (budget 200 tokens)\n")
    assert len(out.encode()) // 4 <= 200
    assert icm("check-positions", "--root", str(repo)) == (0, (
        'queue/04_memory.md: re-proposes what {} rejected: "load the whole file '
        'and filter in memory"\n').format(C), "")
    write(repo, {"pyproject.toml": CONFIG["pyproject.toml"]})
    assert icm("check-positions", "--root", str(repo))[1].startswith(STALE)
