from pathlib import Path

from tests.conftest import SLOTS_OK, entry, write

J = "journal/2026-10-29_summary-line-to-stderr.md"


def test_seed_lines_byte_for_byte(repo: Path, icm) -> None:
    write(repo, {J: "# Summary\n\nCheerful prose.\n\n## Decision\nx\n\n"
                    "## Rejected alternative\ny\n"})
    code, out, err = icm("check-journal", "--root", str(repo))
    assert (code, err) == (1, "")
    assert out == (f"{J}: missing slot 'Invariant'\n"
                   f"{J}: missing slot 'Verify command'\n")


def test_ok(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-02_a.md": SLOTS_OK})
    assert icm("check-journal", "--root", str(repo)) == (0, "journal ok\n", "")


def test_files_sorted_and_slots_in_slot_order(repo: Path, icm) -> None:
    write(repo, {
        "journal/2026-02-01_b.md": entry("Verify command", "Decision"),
        "journal/2026-01-01_a.md": entry("Invariant"),
    })
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1
    assert out.splitlines() == [
        "journal/2026-01-01_a.md: missing slot 'Invariant'",
        "journal/2026-02-01_b.md: missing slot 'Decision'",
        "journal/2026-02-01_b.md: missing slot 'Verify command'",
    ]


def test_heading_in_fence_is_not_a_slot(repo: Path, icm) -> None:
    text = entry("Invariant", extra="\n```\n## Invariant\n```\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert (code, out) == (1, "journal/2026-01-01_a.md: missing slot 'Invariant'\n")


def test_setext_heading_counts(repo: Path, icm) -> None:
    text = entry("Invariant", extra="\nInvariant\n---------\nHolds.\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")


def test_level_three_and_near_names_do_not_count(repo: Path, icm) -> None:
    text = entry("Invariant", "Decision",
                 extra="\n### Invariant\nx\n\n## Decision:\ny\n\n## decision\nz\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    _, out, _ = icm("check-journal", "--root", str(repo))
    assert out.splitlines() == [
        "journal/2026-01-01_a.md: missing slot 'Decision'",
        "journal/2026-01-01_a.md: missing slot 'Invariant'",
    ]


def test_empty_slot(repo: Path, icm) -> None:
    text = ("## Decision\nx\n\n## Rejected alternative\n\n<!-- todo -->\n\n"
            "## Invariant\n### Detail\nholds\n\n## Verify command\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1
    assert out.splitlines() == [
        "journal/2026-01-01_a.md: empty slot 'Rejected alternative'",
        "journal/2026-01-01_a.md: empty slot 'Verify command'",
    ]


def test_bad_names(repo: Path, icm) -> None:
    write(repo, {"journal/notes.md": SLOTS_OK, "journal/2026-13-01_x.md": SLOTS_OK,
                 "journal/README.md": "about the journal", "journal/.gitkeep": ""})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1
    assert out.splitlines() == [
        "journal/2026-13-01_x.md: name does not match YYYY-MM-DD_slug.md",
        "journal/notes.md: name does not match YYYY-MM-DD_slug.md",
    ]


def test_exempt_ratchet(repo: Path, icm) -> None:
    write(repo, {
        "pyproject.toml": "[tool.icm]\njournal_exempt = [\n"
                          "  'journal/2026-01-01_old.md',\n"
                          "  'journal/2026-01-02_done.md',\n"
                          "  'journal/2026-01-03_gone.md',\n]\n",
        "journal/2026-01-01_old.md": "prose only\n",
        "journal/2026-01-02_done.md": SLOTS_OK,
    })
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1
    assert out.splitlines() == [
        "journal/2026-01-02_done.md: exempt but complete, remove it from "
        "journal_exempt",
        "journal/2026-01-03_gone.md: exempt but missing, remove it from "
        "journal_exempt",
    ]


def test_bom_and_crlf_accepted(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md":
                 b"\xef\xbb\xbf" + SLOTS_OK.replace("\n", "\r\n").encode()})
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")


def test_non_utf8_is_a_finding(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md": "## Decision\n".encode("utf-16")})
    code, out, err = icm("check-journal", "--root", str(repo))
    assert (code, err) == (1, "")
    assert out == "journal/2026-01-01_a.md: cannot read: UTF-16 text; icm reads " \
                  "UTF-8 only\n"
    write(repo, {"journal/2026-01-01_a.md": b"## Decision\ncaf\xe9\n"})
    assert icm("check-journal", "--root", str(repo))[1] == (
        "journal/2026-01-01_a.md: cannot read: not valid UTF-8 (line 2, byte "
        "offset 15)\n")


def test_custom_slots_and_dir(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "journal_dir = 'log'\nslots = ['Why', 'Check']\n",
                 "log/2026-01-01_a.md": "## Why\nx\n",
                 "journal/2026-01-01_b.md": "ignored\n"})
    assert icm("check-journal", "--root", str(repo))[:2] == (
        1, "log/2026-01-01_a.md: missing slot 'Check'\n")


def test_gitignored_and_excluded_entries_are_skipped(repo: Path, icm) -> None:
    write(repo, {".gitignore": "journal/2026-01-01_draft.md\n",
                 "journal/2026-01-01_draft.md": "draft\n",
                 "journal/2026-01-02_vendor.md": "x\n",
                 "icm.toml": "exclude = ['journal/*vendor*']\n"})
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")


def test_outside_git_walk(tmp_path: Path, icm) -> None:
    write(tmp_path, {"journal/2026-01-01_a.md": entry("Decision")})
    assert icm("check-journal", "--root", str(tmp_path))[:2] == (
        1, "journal/2026-01-01_a.md: missing slot 'Decision'\n")


# -- checkable slots (placeholders, no command) and Superseded-by ---------------

def _entry(invariant: str = "It holds.", verify: str = "`true`",
           head: str = "") -> str:
    return (f"# T\n{head}\n## Decision\nx\n\n## Rejected alternative\ny\n\n"
            f"## Invariant\n{invariant}\n\n## Verify command\n{verify}\n")


def test_placeholders_and_missing_command(repo: Path, icm) -> None:
    write(repo, {
        "journal/2026-01-01_a.md": _entry("looks good"),
        "journal/2026-01-02_b.md": _entry("Looks good!", verify="Ran it."),
        "journal/2026-01-03_c.md": _entry("**TBD**"),
        "journal/2026-01-04_d.md": _entry("N/A"),
        "journal/2026-01-05_e.md": _entry("Same as above."),
        "journal/2026-01-06_f.md": _entry("None", verify="`todo`"),
        "journal/2026-01-07_g.md": _entry("—"),
        "journal/2026-01-08_h.md": _entry(
            "None of the functions returns a list.",
            verify="```python\nassert True\n```"),
    })
    code, out, err = icm("check-journal", "--root", str(repo))
    assert (code, err) == (1, "")
    assert out == (
        "journal/2026-01-01_a.md: placeholder in slot 'Invariant': 'looks good'\n"
        "journal/2026-01-02_b.md: placeholder in slot 'Invariant': 'Looks good!'\n"
        "journal/2026-01-02_b.md: no command in slot 'Verify command'\n"
        "journal/2026-01-03_c.md: placeholder in slot 'Invariant': 'TBD'\n"
        "journal/2026-01-04_d.md: placeholder in slot 'Invariant': 'N/A'\n"
        "journal/2026-01-05_e.md: placeholder in slot 'Invariant': "
        "'Same as above.'\n"
        "journal/2026-01-06_f.md: placeholder in slot 'Invariant': 'None'\n"
        "journal/2026-01-06_f.md: placeholder in slot 'Verify command': 'todo'\n"
        "journal/2026-01-07_g.md: placeholder in slot 'Invariant': '—'\n"
        "journal/2026-01-08_h.md: no command in slot 'Verify command'\n")


def test_placeholders_are_configurable(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "placeholders = ['it works']\n",
                 "journal/2026-01-01_a.md": _entry("TBD"),
                 "journal/2026-01-02_b.md": _entry("It works.")})
    assert icm("check-journal", "--root", str(repo))[:2] == (1, (
        "journal/2026-01-02_b.md: placeholder in slot 'Invariant': 'It works.'\n"))
    write(repo, {"icm.toml": "placeholders = []\n"})
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")


def test_exempt_entries_are_not_judged(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "journal_exempt = ['journal/2026-01-01_a.md']\n",
                 "journal/2026-01-01_a.md": _entry("TBD", verify="prose",
                                                   head="Superseded-by: x.md\n")})
    assert icm("check-journal", "--root", str(repo))[:2] == (0, "journal ok\n")


def test_placeholder_findings_in_json_and_github(repo: Path, icm) -> None:
    write(repo, {"journal/2026-01-01_a.md": _entry("TODO")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "github")
    assert (code, out) == (1, (
        "::error file=journal/2026-01-01_a.md,line=9,title=icm journal/placeholder"
        "::journal/2026-01-01_a.md: placeholder in slot 'Invariant': 'TODO' "
        "(fix: state the Invariant: a placeholder says nothing)\n"))


def test_content_is_text_a_reader_sees(repo: Path, icm) -> None:
    text = ("## Decision\n[//]: # (todo)\n\n## Rejected alternative\n### Later\n\n"
            "## Invariant\n<!-- x -->\n[a]: b.md\n\n## Verify command\n`true`\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    assert icm("check-journal", "--root", str(repo))[1].splitlines() == [
        "journal/2026-01-01_a.md: empty slot 'Decision'",
        "journal/2026-01-01_a.md: empty slot 'Rejected alternative'",
        "journal/2026-01-01_a.md: empty slot 'Invariant'",
    ]


def test_slots_inside_blockquotes_and_lists_are_not_slots(repo: Path, icm) -> None:
    text = ("## Decision\nx\n\n> ## Rejected alternative\n> y\n\n"
            "- ## Invariant\n  z\n\n## Verify command\n`true`\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    assert icm("check-journal", "--root", str(repo))[1].splitlines() == [
        "journal/2026-01-01_a.md: missing slot 'Rejected alternative'",
        "journal/2026-01-01_a.md: missing slot 'Invariant'",
    ]


def test_superseded_by_must_name_an_entry(repo: Path, icm) -> None:
    write(repo, {
        "journal/2026-01-01_old.md": _entry(
            head="Superseded-by: journal/2026-01-03_new.md\n"),
        "journal/2026-01-02_link.md": _entry(
            head="Superseded-by: [the new one](2026-01-03_new.md)\n"),
        "journal/2026-01-03_new.md": _entry(),
        "journal/2026-01-04_typo.md": _entry(
            head="Superseded-by: journal/2026-01-03_neww.md\n"),
        "journal/2026-01-05_out.md": _entry(
            head="Superseded-by: [x](../README.md)\n"),
        "journal/2026-01-06_late.md": _entry() + "\nSuperseded-by: nowhere.md\n",
    })
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert (code, out) == (1, (
        "journal/2026-01-04_typo.md: Superseded-by points at "
        "journal/2026-01-03_neww.md, which does not exist\n"
        "journal/2026-01-05_out.md: Superseded-by points at README.md, which does "
        "not exist\n"))


def test_parse_entry_is_one_function_for_every_reader() -> None:
    from icm.config import DEFAULT_SLOTS
    from icm.model.journal import parse_entry

    parsed = parse_entry(_entry(head="Superseded-by: <journal/2026-01-03_new.md>\n"),
                         "journal/2026-01-01_a.md", DEFAULT_SLOTS, "Verify command")
    assert parsed.superseded_by == "journal/2026-01-03_new.md"
    assert parsed.superseded_line == 2
    assert parsed.command == "true" and parsed.verify_line == 13
    assert [s.name for s in parsed.slots.values()] == list(DEFAULT_SLOTS)
    assert parsed.slots["Invariant"].visible == "It holds."


def test_supersede_self_cycle_and_fork(repo: Path, icm) -> None:
    body = entry()
    write(repo, {
        "journal/2026-01-01_a.md": "# A\n\nSuperseded-by: journal/2026-01-02_b.md\n"
                                   + body.split("\n", 1)[1],
        "journal/2026-01-02_b.md": "# B\n\nSuperseded-by: journal/2026-01-01_a.md\n"
                                   + body.split("\n", 1)[1],
        "journal/2026-01-03_c.md": "# C\n\nSuperseded-by: journal/2026-01-03_c.md\n"
                                   + body.split("\n", 1)[1],
        "journal/2026-01-04_d.md": "# D\n\nSuperseded-by: journal/2026-01-05_e.md\n"
                                   "Superseded-by: journal/2026-01-06_f.md\n"
                                   + body.split("\n", 1)[1],
        "journal/2026-01-05_e.md": body, "journal/2026-01-06_f.md": body})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2026-01-01_a.md: Superseded-by cycle: journal/2026-01-01_a.md -> "
        "journal/2026-01-02_b.md -> journal/2026-01-01_a.md\n"
        "journal/2026-01-03_c.md: Superseded-by points at itself\n"
        "journal/2026-01-04_d.md: superseded by 2 entries: journal/2026-01-05_e.md, "
        "journal/2026-01-06_f.md (a fork: keep one)\n"), "")


def test_supersede_cycle_is_reported_once_from_its_first_entry(repo: Path,
                                                                icm) -> None:
    """Each entry of a cycle once named every entry of it: N lines of N paths.
    An entry leading into the cycle is not part of it."""
    rest = entry().split("\n", 1)[1]

    def superseded_by(name: str) -> str:
        return f"# X\n\nSuperseded-by: journal/{name}\n" + rest

    write(repo, {
        "journal/2026-01-01_lead.md": superseded_by("2026-01-03_c.md"),
        "journal/2026-01-02_b.md": superseded_by("2026-01-04_a.md"),
        "journal/2026-01-03_c.md": superseded_by("2026-01-02_b.md"),
        "journal/2026-01-04_a.md": superseded_by("2026-01-03_c.md"),
    })
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2026-01-02_b.md: Superseded-by cycle: journal/2026-01-02_b.md -> "
        "journal/2026-01-04_a.md -> journal/2026-01-03_c.md -> "
        "journal/2026-01-02_b.md\n"), "")


def test_supersede_graph_output_is_linear() -> None:
    """A chain is no finding and a cycle of N entries one finding naming N + 1
    paths (the timing is ``bench/run_adversarial.py``'s supersede cases)."""
    from icm.checks.journal import cycles, supersede_findings

    paths = [f"journal/2026-01-01_e{i:04d}.md" for i in range(500)]
    chain = {p: ((q, 3),) for p, q in zip(paths, paths[1:])}
    chain[paths[-1]] = ()
    assert supersede_findings(chain, set(paths), frozenset(paths)) == []
    ring = dict(chain, **{paths[-1]: ((paths[0], 3),)})
    found = supersede_findings(ring, set(paths), frozenset(paths))
    assert [(f.path, f.line, f.code) for f in found] == [
        (paths[0], 3, "superseded-by-cycle")]
    assert found[0].line_text.count("journal/") == 502
    # Two cycles and a self-loop: each cycle once, rotated to its smallest path.
    assert cycles({"a": "b", "b": "a", "c": "c", "d": "f", "e": "d",
                   "f": "e", "g": "e"}) == [["a", "b"], ["d", "f", "e"]]


def test_a_slot_heading_twice_is_a_finding(repo: Path, icm) -> None:
    """The first heading's section is judged; the template's empty copy
    after it used to pass unseen."""
    text = entry(extra="\n## Decision\n<!-- What was decided. -->\n\n"
                 "## Invariant\nAgain.\n\n## Invariant\n")
    write(repo, {"journal/2026-01-01_a.md": text})
    assert icm("check-journal", "--root", str(repo)) == (1, (
        "journal/2026-01-01_a.md: slot 'Decision' appears twice (lines 3, 15); "
        "keep one\n"
        "journal/2026-01-01_a.md: slot 'Invariant' appears 3 times (lines 9, 18, "
        "21); keep one\n"), "")
    code, out, _ = icm("check-journal", "--format", "json", "--root", str(repo))
    assert code == 1 and '"code": "duplicate-slot"' in out

