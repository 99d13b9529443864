"""A note a tool stamps into every folder (issue 24, round 5's trial: Pommel
writes one ``CLAUDE.md`` per crate, the crate's name in it) says nothing of
the folder's code: its code moving is no STALE. Only the same text, each
folder's own name and path masked, in three notes or more; notes of one
shape with facts of their own are judged as ever."""

from pathlib import Path
from typing import Dict

from icm.model.notes import STAMPED
from tests.conftest import commit

D1 = "2026-10-01T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"

STAMP = """# {name}

This sub-project ({name}) uses Searcher for code search.
Run `pm search` from `crates/{name}` before grep.
"""
CRATES = ("core", "client", "ssr")


def stamped_tree(text: str, crates=CRATES) -> Dict[str, str]:
    files = {}
    for name in crates:
        files[f"crates/{name}/context.md"] = text.format(name=name)
        files[f"crates/{name}/lib.rs"] = "fn a() {}"
    return files


def moved(crates=CRATES) -> Dict[str, str]:
    return {f"crates/{name}/lib.rs": "fn b() {}" for name in crates}


def stale(icm, root: Path):
    return icm("check-stale", "--root", str(root))


def line(name: str, others: int) -> str:
    return (f"crates/{name}/context.md: ok - the same text as {others} other notes "
            "(a stamped note: says nothing of its folder's code)\n")


def seed_stale(name: str) -> str:
    return f"crates/{name}/context.md: STALE - code in crates/{name} moved 8 days " \
        "after the note\n"


def test_three_stamped_notes_whose_code_moved_are_not_stale(repo: Path,
                                                            icm) -> None:
    assert STAMPED == 3
    commit(repo, stamped_tree(STAMP), D1)
    commit(repo, moved(), D9)
    assert stale(icm, repo) == (0, "".join(line(n, 2) for n in sorted(CRATES)), "")


def test_a_stamped_note_whose_code_is_pending_is_not_stale(repo: Path, icm) -> None:
    commit(repo, stamped_tree(STAMP), D1)
    (repo / "crates/core/lib.rs").write_text("fn c() {}")
    assert stale(icm, repo) == (0, "crates/client/context.md: ok\n" + line(
        "core", 2) + "crates/ssr/context.md: ok\n", "")


def test_two_copies_only_are_still_judged(repo: Path, icm) -> None:
    commit(repo, stamped_tree(STAMP, CRATES[:2]), D1)
    commit(repo, moved(CRATES[:2]), D9)
    assert stale(icm, repo) == (1, seed_stale("client") + seed_stale("core"), "")


def test_notes_of_one_shape_with_their_own_facts_are_still_stale(repo: Path,
                                                                 icm) -> None:
    """nebula's per-crate notes: one heading, one form, each its own facts."""
    shape = "# {name}\n\nThe {name} crate keeps {fact}.\nRun `cargo test -p {name}`.\n"
    facts = {"core": "the event model", "client": "the HTTP retries",
             "ssr": "the render cache"}
    files = {}
    for name, fact in facts.items():
        files[f"crates/{name}/context.md"] = shape.format(name=name, fact=fact)
        files[f"crates/{name}/lib.rs"] = "fn a() {}"
    commit(repo, files, D1)
    commit(repo, moved(), D9)
    assert stale(icm, repo) == (
        1, "".join(seed_stale(n) for n in sorted(CRATES)), "")


def test_another_folders_name_is_a_fact_of_its_own(repo: Path, icm) -> None:
    """Only a note's own folder is masked: three notes naming one crate each
    (the same crate in none of them) are three texts."""
    files = stamped_tree(STAMP)
    files["crates/ssr/context.md"] = STAMP.format(name="core")
    commit(repo, files, D1)
    commit(repo, moved(), D9)
    assert stale(icm, repo) == (
        1, "".join(seed_stale(n) for n in sorted(CRATES)), "")


def test_a_stamped_note_edited_by_hand_is_judged_again(repo: Path, icm) -> None:
    crates = (*CRATES, "xtask")
    commit(repo, stamped_tree(STAMP, crates), D1)
    commit(repo, {"crates/xtask/context.md": STAMP.format(name="xtask")
                  + "The build script pins the toolchain.\n"}, D1)
    commit(repo, moved(crates), D9)
    assert stale(icm, repo) == (1, "".join(line(n, 2) for n in sorted(CRATES))
                                + seed_stale("xtask"), "")


def test_whitespace_and_the_folder_path_are_masked(repo: Path, icm) -> None:
    """Re-wrapped and re-indented, the folder's path in place of its name:
    still the one stamp."""
    files = stamped_tree(STAMP)
    files["crates/ssr/context.md"] = STAMP.format(name="ssr").replace(
        " uses Searcher", "\n  uses   Searcher").replace("(ssr)", "(crates/ssr)")
    commit(repo, files, D1)
    commit(repo, moved(), D9)
    assert stale(icm, repo) == (0, "".join(line(n, 2) for n in sorted(CRATES)), "")
