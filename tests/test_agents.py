"""check-agents: the example session passes; a copy broken once per rule
fails with that rule's line, golden."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import write

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "example_repo" / "Agents" / "streaming-session"
S = "Agents/s"
P = f"{S}/POSITIONS.md"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    shutil.copytree(EXAMPLE, root / S)
    write(root, {"src/cleaner.py": "x\n",
                 "journal/2026-10-26_read-input-as-a-stream.md": "x\n",
                 "queue/07_auto-detect-delimiter.md": "x\n"})
    return root


def _edit(root: Path, rel: str, change: Callable[[str], str]) -> None:
    path = root / rel
    path.write_text(change(path.read_text()))


def test_example_session_passes(icm) -> None:
    assert icm("check-agents", "--root", str(ROOT / "example_repo")) == (
        0, "agents ok\n", "")


def test_scaffold_passes_and_never_overwrites(tmp_path: Path, icm) -> None:
    code, out, _ = icm("init", "--agents", "demo", "--root", str(tmp_path))
    assert code == 0 and out.splitlines()[0] == "created Agents/demo/AGENT.md"
    assert icm("check-agents", "--root", str(tmp_path)) == (0, "agents ok\n", "")
    assert icm("init", "--agents", "demo", "--root", str(tmp_path)) == (
        2, "", "icm: Agents/demo/ already exists; not overwriting it\n")
    assert icm("init", "--agents", "../x", "--root", str(tmp_path))[2] == (
        "icm: --agents '../x': use letters, digits, '.', '_' and '-' (a folder "
        "name, not a path)\n")


BREAKS = [
    # (file, old, new, expected line)
    (P, "status: superseded-by → stream-input", "status: superseded-by → gone",
     f"{P}: 'Load the whole file and filter the rows in memory' is superseded "
     "by 'gone', which no entry is (orphan: the worst defect)"),
    (P, "status: superseded-by → stream-input",
     "status: superseded-by → load-the-whole-file-and-filter-the-rows-in-memory",
     f"{P}: 'Load the whole file and filter the rows in memory' is superseded "
     "by itself"),
    (P, "status: superseded-by → stream-input", "status: retired",
     f"{P}: 'Load the whole file and filter the rows in memory' has status "
     "'retired'; it must be current, superseded-by → ID or open"),
    (P, "confidence: low (only two exports were looked at)", "confidence: low",
     f"{P}: 'The delimiter can be detected from the first 64 KiB' gives its "
     "confidence no justification clause"),
    (P, "confidence: low (only two exports were looked at)",
     "confidence: certain (always)",
     f"{P}: 'The delimiter can be detected from the first 64 KiB' has "
     "confidence 'certain (always)'; it must be high, medium or low"),
    (P, "source: user-ruling", "source: the user",
     f"{P}: 'rowcleaner reads its input as a stream and never holds th...' "
     "has source 'the user'; it must be user-ruling or agent-proposed"),
    (P, "evidence: ../../queue/07_auto-detect-delimiter.md\n", "",
     f"{P}: 'The delimiter can be detected from the first 64 KiB' has no "
     "evidence"),
    (P, "Overruled: a 600 MB export does not fit, and the fixtures hid it.\n", "",
     f"{P}: 'Load the whole file and filter the rows in memory' is superseded "
     "without a line saying why"),
    (P, "status: open", "status: current",
     f"{P}: 'The delimiter can be detected from the first 64 KiB' has status "
     "current but sits under Open"),
    (P, "id: stream-input\n", "id: stream-input\n\n### Twice\nid: stream-input\n"
     "status: current\nconfidence: high (x)\nsource: user-ruling\nevidence: y\n",
     f"{P}: 'Twice' has the id 'stream-input' of the entry on line 5"),
    ("Agents/s/AGENT.md", "## Link Policy", "## Notes",
     "Agents/s/AGENT.md: no Link Policy: it must send the reader to "
     "POSITIONS.md first"),
    ("Agents/s/AGENT.md", "Start at POSITIONS.md. It states what is",
     "Start at CHATS.md, then POSITIONS.md. It states what is",
     "Agents/s/AGENT.md: Link Policy names CHATS.md before POSITIONS.md; the "
     "reader must start at POSITIONS.md"),
    ("Agents/s/CHATS.md", "- [002](chats/002.md): the ruling, and the rewrite\n",
     "", "Agents/s/chats/002.md: not indexed in Agents/s/CHATS.md"),
    ("Agents/s/CHATS.md", "(chats/002.md)", "(chats/003.md)",
     "Agents/s/CHATS.md: index link 'chats/003.md' points at nothing"),
    ("Agents/s/ASSETS.md", "(../../src/cleaner.py)", "(../../src/reader.py)",
     "Agents/s/ASSETS.md: pointer '../../src/reader.py' points at nothing"),
]


@pytest.mark.parametrize("rel,old,new,line", BREAKS)
def test_each_rule_broken_once(session: Path, icm, rel: str, old: str, new: str,
                               line: str) -> None:
    _edit(session, rel, lambda t: t.replace(old, new, 1))
    code, out, err = icm("check-agents", "--root", str(session))
    assert (code, err) == (1, ""), out
    assert line in out.splitlines(), out


def test_cycle_chain_and_overruled_ruling(session: Path, icm) -> None:
    _edit(session, P, lambda t: t.replace("## Open", """### A
id: a
status: superseded-by → b
confidence: high (x)
source: user-ruling
evidence: e
why: replaced

### B
id: b
status: superseded-by → stream-input
confidence: high (x)
source: agent-proposed
evidence: e
why: replaced

### C
id: c
status: superseded-by → d
confidence: high (x)
source: agent-proposed
evidence: e
why: x

### D
id: d
status: superseded-by → c
confidence: high (x)
source: agent-proposed
evidence: e
why: x

## Open"""))
    code, out, _ = icm("check-agents", "--root", str(session))
    assert code == 1
    assert out.splitlines() == [
        f"{P}: 'A' is a user-ruling superseded by an agent-proposed entry ('b'); "
        "a user-ruling outranks an agent-proposed",
        f"{P}: 'A' is superseded by 'b', which is itself superseded; point at "
        "the current one ('stream-input')",
        f"{P}: 'C' is in a superseded-by cycle: c → d → c",
        f"{P}: 'D' is in a superseded-by cycle: d → c → d",
    ]


def test_missing_files_and_folders(session: Path, icm) -> None:
    (session / S / "TOOLS.md").unlink()
    assert icm("check-agents", "--root", str(session)) == (
        0, "Agents/s/TOOLS.md: missing (optional)\nagents ok\n", "")
    (session / P).unlink()
    assert icm("check-agents", "--root", str(session)) == (1, (
        "Agents/s/POSITIONS.md: missing\n"
        "Agents/s/TOOLS.md: missing (optional)\n"), "")
    assert icm("check-agents", "Agents/none", "--root", str(session)) == (
        1, "Agents/none: no such exported-session folder\n", "")


def test_no_sessions_says_so(tmp_path: Path, icm) -> None:
    """One info line, never a bare "agents ok" over nothing read."""
    assert icm("check-agents", "--root", str(tmp_path)) == (
        0, "agents: no exported sessions in Agents/* (agents_dirs)\n", "")
    assert icm("check-agents", "--root", str(tmp_path), "-q") == (0, "", "")
