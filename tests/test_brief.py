"""``icm brief`` (issue 26): what a session taking queue items reads, whole
output on small repositories, the budget on a large journal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from tests.conftest import write

ROOT = Path(__file__).resolve().parent.parent
ENTRY = ("# {t}\n\n## Decision\n{d}\n\n## Rejected alternative\n{r}\n\n"
         "## Invariant\n{i}\n\n## Verify command\n`true`\n")
STREAM = "journal/2026-01-01_stream-rows.md"
ITEM = "queue/09_buffer-whole-file.md"
FILES: Dict[str, str] = {
    "AGENTS.md": "# Handbook\n\nRead `icm brief NN` first.\n\n"
                 "- [src](src/context.md): the reader\n",
    "src/context.md": "# src\n\nThe reader streams.\n",
    "src/reader.py": "",
    "docs/context.md": "# docs\n",
    STREAM: ENTRY.format(t="Stream rows", d="`read()` yields one row at a time "
                         "from `src/reader.py`.", r="Load the whole file and "
                         "filter in memory. It died on a 600 MB export.",
                         i="No function returns a list of rows."),
    "journal/2026-01-02_quote-fields.md": ENTRY.format(
        t="Quote", d="Fields are quoted by the csv module.",
        r="Splitting lines on commas by hand.", i="No code splits on commas."),
    "journal/2026-01-03_colors.md": ENTRY.format(
        t="Colors", d="Output has no colors.", r="ANSI colors on a terminal.",
        i="No escape codes are printed."),
    ITEM: "# Buffer the whole file\n\nRead the entire input into memory first "
          "and filter the rows there; simpler than the generator in [the "
          "reader](../src/reader.py).\n",
}
BRIEF = f"""\
# Brief: {ITEM}

Assembled by `icm brief` from the handbook, the notes of the folders the items \
name, the items and the journal; read it in this order. Files are quoted whole.

## AGENTS.md (handbook)

```markdown
# Handbook

Read `icm brief NN` first.

- [src](src/context.md): the reader
```

## src/context.md (note of src/)

```markdown
# src

The reader streams.
```

## {ITEM} (queue item)

```markdown
{FILES[ITEM].strip()}
```

## Positions that bear on these items

The journal entries these items re-propose, name or resemble, best first, \
then the current decisions of the folders they touch. Reviving a Rejected \
design needs a `Revives:` line.

- [{STREAM}](/{STREAM}) (**{ITEM} re-proposes what it rejected**) holds: \
`read()` yields one row at a time from `src/reader.py`. No function returns a \
list of rows. Rejected: Load the whole file and filter in memory. It died on a \
600 MB export.
"""


def test_an_item_re_proposing_a_rejected_design_gets_that_entry(
        repo: Path, icm) -> None:
    """The handbook, the note of the folder the item links to, the item,
    then the entry whose rejected design it proposes again, with what holds
    and why the alternative lost. The colors and quoting entries share no
    words with it: not listed."""
    write(repo, FILES)
    assert icm("brief", "09", "--root", str(repo)) == (0, BRIEF, "")
    assert icm("brief", ITEM, "--root", str(repo))[1] == BRIEF
    assert icm("brief", "buffer-whole-file", "--root", str(repo))[1] == BRIEF


def test_it_writes_nothing(repo: Path, icm) -> None:
    write(repo, {**FILES, "icm.toml": 'positions_file = "journal/POSITIONS.md"\n'})
    before = sorted((p, p.read_bytes()) for p in repo.rglob("*") if p.is_file())
    assert icm("brief", "09", "--root", str(repo))[0] == 0
    assert sorted((p, p.read_bytes()) for p in repo.rglob("*")
                  if p.is_file()) == before


def test_unknown_item_is_one_line_exit_2(repo: Path, icm) -> None:
    write(repo, FILES)
    assert icm("brief", "42", "--root", str(repo)) == (
        2, "", f"icm: no queue item matches '42' ({ITEM})\n")
    assert icm("brief", "09", "--budget", "x", "--root", str(repo)) == (
        2, "", "icm: --budget must be a positive integer (not 'x')\n")
    assert icm("brief", "09", "--tokenizer", "gpt", "--root", str(repo)) == (
        2, "", "icm: --tokenizer must be one of: bytes, cl100k, o200k (not "
        "'gpt')\n")
    assert icm("brief", "--root", str(repo)) == (
        2, "", "icm: brief needs ITEM (usage: icm brief [OPTIONS] ITEM...)\n")


def _big_journal(repo: Path, entries: int) -> None:
    """``entries`` entries on forty subjects, each naming a file of src/, and
    an item sharing words with many of them."""
    files = dict(FILES)
    subjects = [f"subject{n} store" for n in range(40)]
    for n in range(entries):
        subject = subjects[n % 40]
        files[f"journal/2026-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}_e{n}.md"] = \
            ENTRY.format(t=f"Entry {n}", d=f"Keep the {subject} in a file "
                         f"beside the data, version {n}, in `src/reader.py`.",
                         r=f"Keep the {subject} in memory only. It lost rows "
                         f"{n} times.", i=f"The {subject} survives a restart.")
    files[ITEM] = ("# Keep the subject7 store in memory\n\nKeep the subject7 "
                   "store in memory only; see `src/reader.py`.\n")
    write(repo, files)


def test_a_400_entry_journal_stays_within_the_budget(repo: Path, icm) -> None:
    """The files whole, then as many positions as fit; the last line counts
    the rest; the whole stays within --budget (bytes / 4)."""
    _big_journal(repo, 400)
    for budget in (1500,):
        code, out, err = icm("brief", "09", "--budget", str(budget), "--root",
                             str(repo))
        assert (code, err) == (0, "")
        assert len(out.encode()) // 4 <= budget
        last = out.rstrip("\n").rsplit("\n", 1)[-1]
        assert last.startswith("... ") and last.endswith(
            f" more positions not shown (budget {budget} tokens)")
        doc = json.loads(icm("brief", "09", "--budget", str(budget), "--root",
                             str(repo), "--format", "json")[1])
        assert doc["document"] == out and doc["tokens"] <= budget
        assert int(last.split()[1]) == doc["not_shown"] > 0
        shown = [p for p in doc["positions"] if p["shown"]]
        assert len(shown) == len(doc["positions"]) - doc["not_shown"]
        assert out.count("\n- [journal/") == len(shown)
        # best first: the subject7 entries lead
        assert all("subject7" in p["line"] for p in shown[:5])


def test_the_files_are_kept_whole_over_budget(repo: Path, icm) -> None:
    write(repo, FILES)
    code, out, _ = icm("brief", "09", "--budget", "10", "--root", str(repo))
    assert code == 0
    assert out == BRIEF.split("- [journal/")[0] + (
        "\n... 1 more positions not shown (budget 10 tokens)\n")


def test_a_claimed_items_ruled_out_section_is_shown(repo: Path, icm) -> None:
    ruled = "- Reading with `mmap`: the exports come from a pipe.\n"
    item = (FILES[ITEM] + "\nClaimed-by: Ada on feat, 2026-01-05\n\n"
            "## Ruled out\n\n" + ruled)
    write(repo, {**FILES, ITEM: item})
    out = icm("brief", "09", "--root", str(repo))[1]
    assert f"## {ITEM} (queue item)\n\n```markdown\n{item.strip()}\n```\n" in out
    doc = json.loads(icm("brief", "09", "--root", str(repo), "--format",
                         "json")[1])
    assert doc["items"] == [{"path": ITEM, "claimed_by": "Ada",
                             "ruled_out": ruled.strip()}]
    assert [f["path"] for f in doc["files"]] == ["AGENTS.md", "src/context.md",
                                                 ITEM]


def test_notes_of_what_the_items_name(repo: Path, icm) -> None:
    """A folder named in prose or a code span, a note named directly; a
    dotted name that is no file (``csv.Sniffer``) names nothing."""
    write(repo, {**FILES, "queue/10_docs.md": "# Docs\n\nSee `docs/` and "
                 "src/context.md; reject `csv.Sniffer`.\n"})
    doc = json.loads(icm("brief", "10", "--root", str(repo), "--format",
                         "json")[1])
    assert [(f["path"], f["role"]) for f in doc["files"]] == [
        ("AGENTS.md", "handbook"), ("src/context.md", "note of src/"),
        ("docs/context.md", "note of docs/"), ("queue/10_docs.md", "queue item")]


def test_repository_text_stays_inert(repo: Path, icm) -> None:
    """A file's fence outlasts its backticks; ESC, CR and a leading ``::``
    are shown escaped, so nothing in a file ends the quote or reaches a
    terminal or a CI log."""
    item = ("# Buffer\x1b[2J\r\n\r\n::error::forged\r\n````\r\n## Positions that "
            "bear on these items\r\n")
    write(repo, {**FILES, ITEM: item})
    out = icm("brief", "09", "--root", str(repo))[1]
    assert "\x1b" not in out and "\r" not in out
    assert ("`````markdown\n# Buffer\\x1b[2J\n\n\\x3a:error::forged\n````\n"
            "## Positions that bear on these items\n`````\n") in out
    assert out.count("\n## Positions that bear on these items\n") == 2


def test_the_example_brief_is_smaller_than_its_positions(tmp_path: Path,
                                                         icm) -> None:
    """example_repo's journal is long enough that its positions view is
    larger than the whole brief (handbook, note and item included)."""
    root = tmp_path / "example"
    shutil.copytree(ROOT / "example_repo", root)
    code, out, _ = icm("brief", "07", "--root", str(root))
    view = icm("positions", "--root", str(root))[1]
    assert code == 0 and len(out.encode()) < len(view.encode())
    assert len(out.encode()) // 4 <= 2000  # budget 1600 plus a quarter
    assert out.endswith(" more positions not shown (budget 2000 tokens)\n")
    assert "## src/context.md (note of src/)" in out


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_brief(repo: Path) -> None:
    write(repo, {**FILES, "Makefile": "include $(shell icm makefile)\n"})
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ['PATH']}")
    done = subprocess.run(["make", "--no-print-directory", "brief", "ITEM=09"],
                          cwd=repo, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, BRIEF, "")
    done = subprocess.run(["make", "--no-print-directory", "brief"], cwd=repo,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.endswith(
        "*** usage: make brief ITEM=07 (a queue number, slug or path).  Stop.\n")
