"""Paths stay in the root (issue 10): every read and write goes through
``icm.paths``; real symlinks, FIFOs and device nodes, never mocks of them."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict

import pytest

from icm import config, paths
from tests.conftest import commit, git, write

D1 = "2026-10-01T12:00:00+00:00"
HB = "# H\n"
ITEM = "# A\n\nbody\n"


def snapshot(folder: Path) -> Dict[str, bytes]:
    """Every file below ``folder`` with its bytes (links not followed)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
        elif path.is_dir():
            out[rel + "/"] = b""
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.txt").write_text("ghp_SECRET\n")
    return folder


# -- the one function ----------------------------------------------------------

def test_resolve_refuses_every_way_out(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "root"
    (root / "inner").mkdir(parents=True)
    os.symlink(str(outside), root / "away")
    os.symlink("../elsewhere/secret.txt", root / "file-away")
    os.symlink("inner", root / "in")  # inside: followed
    os.symlink(str(root / "inner"), root / "in-abs")
    os.symlink(".git", root / "to-git")
    os.symlink(str(outside / "back"), root / "round-trip")
    os.symlink(str(root / "inner"), outside / "back")  # out and back in
    refused = {
        "away/x.md": "away/ is a symlink pointing outside the repository",
        "file-away": "symlink points outside the repository",
        "round-trip/x": "round-trip/ is a symlink pointing outside the repository",
        "to-git/config": "inside the git directory",
        ".git/config": "inside the git directory",
        "a/.GIT/config": "inside the git directory",
        "../x": "leaves the repository",
        "/etc/passwd": "absolute path; icm only uses paths inside the repository",
    }
    many = paths.Resolver(root, None)  # the per-run form Context uses
    for rel, reason in refused.items():
        for resolve in (lambda r: paths.resolve(root, r), many.resolve):
            with pytest.raises(paths.Refused) as info:
                resolve(rel)
            assert info.value.reason == reason, rel
    for rel in ("in/new/x.md", "in-abs/x.md", "inner/x.md", "in/x.md"):
        assert many.resolve(rel) == paths.resolve(root, rel)
        assert many.resolve(rel) == paths.resolve(root, rel)  # from its memo
    real = os.path.realpath(root)
    assert paths.resolve(root, "in/new/x.md") == f"{real}/inner/new/x.md"
    assert paths.resolve(root, "in-abs/x.md") == f"{real}/inner/x.md"
    assert paths.resolve(root, "./inner//x.md/") == f"{real}/inner/x.md"
    with pytest.raises(paths.Refused):
        paths.resolve(root, "inner/x", git_dir=root / "inner")



def test_resolver_takes_a_deep_missing_path_without_recursion(tmp_path: Path) -> None:
    """A link 1,500 folders deep (3 KB, a name a file can have) was a
    ``RecursionError`` (each folder built on its parent's by a call): the
    link check's internal error, exit 2, on a file a pull request adds.
    Below a missing folder nothing exists, so only the first missing one is
    kept: every folder of 1,000 such links, kept, was 900 MB."""
    write(tmp_path, {"a/x.md": "x"})
    many = paths.Resolver(tmp_path, None)
    real = os.path.realpath(tmp_path)
    for rel in ("a/" * 1500 + "x.md", "a/b/" + "c/" * 1500 + "x.md"):
        assert many.resolve(rel) == paths.resolve(tmp_path, rel) == f"{real}/{rel}"
    for i in range(50):
        many.resolve(f"z{i}/" + "a/" * 100 + "x.md")
    assert len(many.folders) <= 2 + 2 + 50

def test_open_regular_never_blocks_on_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # nobody writes: a blocking open would hang forever
    with pytest.raises(paths.Refused) as info:
        paths.open_regular(str(fifo))
    assert info.value.reason == "not a regular file"


# -- item 2: writes escape through symlinked folders ---------------------------

def test_new_queue_refuses_a_symlinked_queue_folder(repo: Path, icm,
                                                    outside: Path) -> None:
    write(repo, {"AGENTS.md": HB})
    os.symlink(str(outside), repo / "queue")
    before = snapshot(outside)
    assert icm("new-queue", "Do it", "--root", str(repo)) == (
        2, "", "icm: refusing to write queue: symlink points outside the "
        "repository; nothing was changed\n")
    assert snapshot(outside) == before


def test_new_journal_checks_everything_before_changing_anything(
        repo: Path, icm, outside: Path) -> None:
    write(repo, {"AGENTS.md": HB, "queue/07_a.md": ITEM})
    os.symlink(str(outside), repo / "journal")
    before, repo_before = snapshot(outside), snapshot(repo)
    assert icm("new-journal", "07", "--date", "2026-11-29", "--root",
               str(repo)) == (
        2, "", "icm: refusing to write journal: symlink points outside the "
        "repository; nothing was changed\n")
    assert snapshot(outside) == before
    assert snapshot(repo) == repo_before  # the queue item is still there


def test_new_journal_refuses_a_queue_item_behind_a_symlinked_folder(
        repo: Path, icm, outside: Path) -> None:
    (outside / "07_a.md").write_text(ITEM)
    commit(repo, {"AGENTS.md": HB, "queue/07_a.md": ITEM}, D1)
    (repo / "queue/07_a.md").unlink()
    (repo / "queue").rmdir()
    os.symlink(str(outside), repo / "queue")
    code, out, err = icm("new-journal", "07", "--date", "2026-11-29", "--root",
                         str(repo))
    assert (code, out) == (2, "")
    # new-journal locks the queue folder first, and that already refuses.
    assert err == ("icm: refusing to write queue: symlink points outside the "
                   "repository; nothing was changed\n")
    assert (outside / "07_a.md").read_text() == ITEM
    assert not (repo / "journal").exists()


def test_init_refuses_a_handbook_in_a_symlinked_folder(repo: Path, icm,
                                                       outside: Path) -> None:
    write(repo, {"icm.toml": "handbook = 'docs/AGENTS.md'\n"})
    os.symlink(str(outside), repo / "docs")
    before = snapshot(outside)
    assert icm("init", "--root", str(repo)) == (
        2, "", "icm: refusing to write docs: symlink points outside the "
        "repository; nothing was changed\n")
    assert snapshot(outside) == before
    assert sorted(os.listdir(repo)) == [".git", "docs", "icm.toml"]


def test_fix_refuses_a_handbook_in_a_symlinked_folder(repo: Path, icm,
                                                      outside: Path) -> None:
    (outside / "AGENTS.md").write_text(HB)
    write(repo, {"icm.toml": "handbook = 'docs/AGENTS.md'\n",
                 "src/context.md": "# src\n"})
    os.symlink(str(outside), repo / "docs")
    before = snapshot(outside)
    code, out, err = icm("check-links", "--fix", "--root", str(repo))
    assert (code, out) == (2, "")
    assert err == ("icm: docs/AGENTS.md: cannot read: docs/ is a symlink "
                   "pointing outside the repository; not followed\n")
    assert snapshot(outside) == before


# -- item 3: init never writes through a symlink out of the root ---------------

def test_init_leaves_a_pyproject_symlinked_outside_alone(repo: Path, icm,
                                                         outside: Path) -> None:
    os.symlink(str(outside / "secret.txt"), repo / "pyproject.toml")
    code, out, err = icm("init", "--root", str(repo))
    assert (code, out) == (2, "")
    assert err == ("icm: refusing to write pyproject.toml: symlink points "
                   "outside the repository; nothing was changed\n")
    assert (outside / "secret.txt").read_text() == "ghp_SECRET\n"
    assert os.readlink(repo / "pyproject.toml") == str(outside / "secret.txt")
    assert sorted(os.listdir(repo)) == [".git", "pyproject.toml"]


def test_init_writes_the_target_of_a_pyproject_link_inside(repo: Path,
                                                           icm) -> None:
    write(repo, {"conf/pyproject.toml": "[project]\nname = 'x'\n"})
    os.symlink("conf/pyproject.toml", repo / "pyproject.toml")
    code, out, _ = icm("init", "--root", str(repo))
    assert code == 0 and out.endswith("added [tool.icm] to pyproject.toml\n")
    assert os.readlink(repo / "pyproject.toml") == "conf/pyproject.toml"
    assert "[tool.icm]" in (repo / "conf/pyproject.toml").read_text()


# -- item 4: never read through a symlinked folder out of the root -------------

def test_tracked_note_behind_a_symlinked_folder_is_not_read(
        repo: Path, icm, outside: Path) -> None:
    (outside / "context.md").write_text("[x](ghp_SECRET)\n")
    commit(repo, {"AGENTS.md": "# H\n\n- [lib](lib/context.md)\n",
                  "lib/context.md": "# lib\n"}, D1)
    (repo / "lib/context.md").unlink()
    (repo / "lib").rmdir()
    os.symlink(str(outside), repo / "lib")
    code, out, err = icm("check", "--root", str(repo))
    assert code == 1 and "SECRET" not in out + err
    line = ("lib/context.md: cannot read: lib/ is a symlink pointing outside "
            "the repository; not followed")
    # one fact, said once for the run; stale, bootmap and dupes repeat it
    assert out.count(line) == 1 and out.endswith(", 3 repeated\n")
    for check in ("bootmap", "dupes"):
        assert icm("check", check, "--root", str(repo))[1].count(line) == 1


@pytest.mark.parametrize("folder_link", [True, False])
def test_note_symlinked_outside_is_reported_once_per_check(
        repo: Path, icm, outside: Path, folder_link: bool) -> None:
    (outside / "context.md").write_text("# out\n")
    write(repo, {"AGENTS.md": "# H\n\n- [sub](sub/context.md)\n"})
    if folder_link:  # tracked, then its folder became a link
        commit(repo, {"sub/context.md": "# sub\n"}, D1)
        (repo / "sub/context.md").unlink()
        (repo / "sub").rmdir()
        os.symlink(str(outside), repo / "sub")
    else:
        (repo / "sub").mkdir()
        os.symlink(str(outside / "context.md"), repo / "sub/context.md")
        git(repo, "add", "sub/context.md")
    out = icm("bootmap", "--root", str(repo))[1]
    assert out.count("sub/context.md: cannot read") == 1


# -- item 5: no configured path into .git --------------------------------------

@pytest.mark.parametrize("line,key", [
    ("handbook = '.git/config'", "handbook"),
    ("handbook = './.git/config'", "handbook"),
    ("journal_dir = 'a/.GIT'", "journal_dir"),
    ("queue_dir = '.git/hooks'", "queue_dir"),
    ("note_name = '.git'", "note_name"),
])
def test_configured_paths_never_point_into_git(repo: Path, icm, line: str,
                                               key: str) -> None:
    write(repo, {"icm.toml": line + "\n", "AGENTS.md": HB})
    config = (repo / ".git/config").read_bytes()
    code, out, err = icm("check-links", "--fix", "--root", str(repo))
    assert (code, out) == (2, "")
    assert err.startswith(f"icm: icm.toml: key '{key}' must be ")
    assert (repo / ".git/config").read_bytes() == config


def test_boot_globs_never_point_into_git(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "boot = ['AGENTS.md', '.git/config']\n",
                 "AGENTS.md": HB})
    assert icm("bootmap", "--root", str(repo)) == (
        2, "", "icm: icm.toml: key 'boot' must hold paths inside the "
        "repository, outside .git, not '.git/config'\n")


# -- issue 22, item 4: every configured path stays in the root ----------------------

OUTSIDE_PATHS = ("/etc/passwd", "../../outside.md", "C:/x")
# Keys holding strings that name no file or folder of the root, and why: the
# test below fails when a new key is neither confined nor listed here.
NOT_PATHS = {
    "slots": "headings", "placeholders": "prose", "verify_slot": "a heading",
    "queue_refs": "git refs, passed as data after --end-of-options",
    "links_ignore": "link text, never opened: ignoring '../sibling/**' is a use",
    "index": "modes keyed by note_name entries, which note_name confines",
    "journal_pattern": "a file-name rule, matched against names in journal_dir",
    "select": "rule codes", "ignore": "rule codes",
}


def _toml(key: str, path: str) -> str:
    """``key = <a value of its kind holding path>`` (JSON strings are TOML's)."""
    kind = config._SCHEMA[key][0]
    text = json.dumps(path)
    if kind in ("path", "name"):
        return f"{key} = {text}\n"
    if kind == "skip":
        return f"[{key}]\n{text} = 'a reason'\n"
    return f"{key} = [{text}]\n"


def test_every_key_naming_a_path_is_confined() -> None:
    """From the schema, so a new key cannot slip past the test below: every
    key whose value is text is either confined or a reviewed non-path."""
    textual = {key for key, (kind, _) in config._SCHEMA.items()
               if kind not in ("int", "fraction", "enum")}
    assert set(config.PATH_KEYS) <= textual
    assert textual - set(config.PATH_KEYS) == set(NOT_PATHS)


@pytest.mark.parametrize("path", OUTSIDE_PATHS)
@pytest.mark.parametrize("key", config.PATH_KEYS)
def test_a_configured_path_outside_the_root_is_a_config_error(
        repo: Path, icm, key: str, path: str) -> None:
    """``journal_exempt = ['/etc/passwd']`` reached SARIF URIs and
    ``::error file=``. A path that leaves the root, on any system (a drive
    letter on Windows), is one line naming the file and the key, exit 2,
    nothing printed, for every format and for the commands that act on it."""
    write(repo, {"icm.toml": _toml(key, path), "AGENTS.md": HB,
                 "journal/2026-01-01_a.md": "# A\n"})
    for command in (("check", "--format", "text"), ("check", "--format", "github"),
                    ("check", "--format", "sarif"), ("verify", "--dry-run"),
                    ("check-links", "--fix")):
        code, out, err = icm(*command, "--root", str(repo))
        assert (code, out) == (2, ""), (command, err)
        assert err.startswith(f"icm: icm.toml: key '{key}' must "), err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert (repo / "AGENTS.md").read_text() == HB


def test_link_text_to_ignore_may_name_outside_the_root(repo: Path, icm) -> None:
    """``links_ignore`` matches what a link says, never a file icm opens: a
    link out of the root (a sibling checkout) is a thing to ignore. Nothing
    outside the root reaches any format's output."""
    write(repo, {"icm.toml": "links_ignore = " + json.dumps(
        [*OUTSIDE_PATHS, "../sibling/**"]) + "\n",
        "AGENTS.md": HB + "\n[a](/etc/passwd) [b](../../outside.md) "
                          "[c](../sibling/docs/x.md) [d](gone.md)\n"})
    code, out, err = icm("check-links", "--root", str(repo))
    assert (code, out, err) == (1, "broken link: AGENTS.md -> gone.md\n"
                                "links: 1 problem (missing file 1)\n", "")
    for fmt in ("github", "sarif"):
        code, out, err = icm("check", "--format", fmt, "--root", str(repo))
        assert (code, err) == (1, "")
        for path in (*OUTSIDE_PATHS, "sibling"):
            assert path not in out, (fmt, path)


@pytest.mark.parametrize("line,key,norm", [
    ("journal_exempt = ['./journal//2026-01-01_a.md']", "journal_exempt",
     "journal/2026-01-01_a.md"),
    ("[verify_skip]\n'journal/2026-01-01_a.md/' = 'r'", "verify_skip",
     "journal/2026-01-01_a.md"),
])
def test_configured_path_lists_are_normalised(repo: Path, line: str, key: str,
                                              norm: str) -> None:
    """A path is compared with the file set in its normal form, as the
    single-path keys are (``./journal/`` matched nothing)."""
    write(repo, {"icm.toml": line + "\n"})
    got = getattr(config.load(repo), key)
    assert (got[0][0] if key == "verify_skip" else got[0]) == norm


def test_resolve_refuses_a_name_no_file_can_have(tmp_path: Path) -> None:
    """A NUL reached ``os.lstat`` (ValueError, a crash of every reader); an
    unpaired surrogate reached the encoder. Both are refused before the OS
    is asked; ``%FF``'s surrogate escape is a name Linux keeps."""
    many = paths.Resolver(tmp_path, None)
    for rel, reason in (("a\0b.md", paths.NUL), ("a/\0/b", paths.NUL),
                        ("x\ud800.md", "a file name cannot hold an unpaired "
                                       "surrogate")):
        for resolve in (lambda r: paths.resolve(tmp_path, r), many.resolve):
            with pytest.raises(paths.Refused) as info:
                resolve(rel)
            assert info.value.reason == reason, rel
    kept = os.fsdecode(b"c\xffe.md")
    assert many.resolve(kept) == f"{os.path.realpath(tmp_path)}/{kept}"


def test_fix_skips_an_index_entry_no_file_can_have(repo: Path, icm) -> None:
    """``check-links --fix`` asked the disk whether ``a%00/context.md`` still
    exists: internal error. It names no note, so the entry goes."""
    write(repo, {"AGENTS.md": "# H\n\n## Index of notes\n\n<!-- icm:index -->\n"
                              "- [x](a%00/context.md)\n- [a](a/context.md)\n"
                              "<!-- /icm:index -->\n", "a/context.md": "# a\n"})
    assert icm("check-links", "--fix", "--root", str(repo)) == (
        0, "removed from AGENTS.md index: a\\x00/context.md\nlinks ok\n", "")
    assert "a%00" not in (repo / "AGENTS.md").read_text()


# -- item 8: only regular files are read ---------------------------------------

def _plant_fifos(root: Path) -> None:
    os.mkfifo(root / "lib/context.md")
    os.mkfifo(root / "journal/2026-01-01_x.md")


def test_fifos_are_findings_outside_git(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": "# H\n\n- [lib](lib/context.md)\n",
                     "journal/.keep": ""})
    (tmp_path / "lib").mkdir()
    _plant_fifos(tmp_path)
    reason = "cannot read: not a regular file"
    out = ""
    for command in ("check-journal", "check-links", "bootmap"):
        code, more, _ = icm(command, "--root", str(tmp_path))
        assert code == 1, command
        out += more
    assert f"journal/2026-01-01_x.md: {reason}" in out
    assert out.count(f"lib/context.md: {reason}") == 2  # links, bootmap


def test_tracked_file_replaced_by_a_fifo(repo: Path, icm) -> None:
    commit(repo, {"AGENTS.md": "# H\n\n- [lib](lib/context.md)\n",
                  "lib/context.md": "# lib\n"}, D1)
    (repo / "lib/context.md").unlink()
    os.mkfifo(repo / "lib/context.md")
    code, out, _ = icm("check-links", "--root", str(repo))
    assert (code, out) == (1, "lib/context.md: cannot read: not a regular file\n"
                              "links: 1 problem (unreadable file 1)\n")


def test_device_node_is_never_read(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": HB})
    try:
        os.mknod(tmp_path / "zero.md", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except (PermissionError, OSError):
        pytest.skip("creating a device node needs privileges here")
    code, out, _ = icm("check-links", "--root", str(tmp_path))
    assert (code, out) == (1, "zero.md: cannot read: not a regular file\n"
                              "links: 1 problem (unreadable file 1)\n")


def test_symlink_to_a_device_outside_is_not_followed(tmp_path: Path, icm) -> None:
    write(tmp_path, {"AGENTS.md": HB})
    os.symlink("/dev/zero", tmp_path / "zero.md")
    code, out, _ = icm("check-links", "--root", str(tmp_path))
    assert (code, out) == (1, "zero.md: cannot read: symlink points outside the "
                              "repository; not followed\n"
                              "links: 1 problem (unreadable file 1)\n")


@pytest.mark.parametrize("name", ["icm.toml", "pyproject.toml"])
def test_fifo_config_is_one_line(tmp_path: Path, icm, name: str) -> None:
    write(tmp_path, {"AGENTS.md": HB})
    os.mkfifo(tmp_path / name)
    code, out, err = icm("check-journal", "--root", str(tmp_path))
    if name == "icm.toml":
        assert (code, out, err) == (
            2, "", "icm: icm.toml: cannot read: not a regular file\n")
    else:  # a pyproject.toml that cannot be read configures nothing
        assert (code, out, err) == (0, "journal ok\n", "")


# -- items 10 and 13: --fix keeps links and permissions ------------------------

def test_fix_writes_the_target_of_a_symlinked_handbook(repo: Path, icm) -> None:
    write(repo, {"CLAUDE.md": HB, "src/context.md": "# src\n"})
    os.symlink("CLAUDE.md", repo / "AGENTS.md")
    code, out, _ = icm("check-links", "--fix", "--root", str(repo))
    assert code == 0 and out.startswith("added to AGENTS.md index: src/context.md\n")
    assert os.readlink(repo / "AGENTS.md") == "CLAUDE.md"
    assert "[src](src/context.md)" in (repo / "CLAUDE.md").read_text()


def test_fix_respects_a_read_only_handbook(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "src/context.md": "# src\n"})
    os.chmod(repo / "AGENTS.md", 0o444)
    assert icm("check-links", "--fix", "--root", str(repo)) == (
        2, "", "icm: refusing to write AGENTS.md: the file is read-only; nothing "
        "was changed\n")
    assert (repo / "AGENTS.md").read_text() == HB
    assert stat.S_IMODE(os.stat(repo / "AGENTS.md").st_mode) == 0o444


def test_fix_keeps_a_lone_cr_handbook_lone_cr(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "# H\r\rText.\r", "src/context.md": "# src\n"})
    icm("check-links", "--fix", "--root", str(repo))
    text = (repo / "AGENTS.md").read_bytes()
    assert b"\n" not in text and b"[src](src/context.md)" in text
    assert text.startswith(b"# H\r\rText.\r\r## Index of notes\r\r<!-- icm:index -->\r")


# -- item 12: init reads pyproject.toml as TOML --------------------------------

@pytest.mark.parametrize("text", [
    "[project]\nname = 'x'\n\n[ tool.icm ]\nbudget = 1\n",
    "tool.icm.budget = 1\n[project]\nname = 'x'\n",
    "[tool]\nicm = { budget = 1 }\n",
])
def test_init_sees_tool_icm_however_spelled(repo: Path, icm, text: str) -> None:
    write(repo, {"pyproject.toml": text})
    out = icm("init", "--root", str(repo))[1]
    assert out.endswith("left alone pyproject.toml (has [tool.icm])\n")
    assert (repo / "pyproject.toml").read_text() == text


def test_init_keeps_crlf_in_pyproject(repo: Path, icm) -> None:
    write(repo, {"pyproject.toml": b"[project]\r\nname = 'x'\r\n"})
    assert icm("init", "--root", str(repo))[0] == 0
    data = (repo / "pyproject.toml").read_bytes()
    assert b"[tool.icm]\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_init_never_breaks_an_inline_tool_table(repo: Path, icm) -> None:
    text = "tool = { black = { line-length = 88 } }\n"
    write(repo, {"pyproject.toml": text})
    assert icm("init", "--root", str(repo)) == (
        2, "", "icm: cannot add [tool.icm] to pyproject.toml without breaking it; "
        "add the table by hand; nothing was changed\n")
    assert sorted(os.listdir(repo)) == [".git", "pyproject.toml"]
    assert (repo / "pyproject.toml").read_text() == text


# -- item 16: one line, and init checks before it creates ----------------------

def test_tool_that_is_not_a_table_is_a_config_error(repo: Path, icm) -> None:
    write(repo, {"pyproject.toml": "tool = 'icm'\n", "AGENTS.md": HB})
    assert icm("check-journal", "--root", str(repo)) == (
        2, "", "icm: pyproject.toml: 'tool' must be a table, not a string "
        "('icm')\n")


@pytest.mark.parametrize("make,message", [
    (lambda r: (r / "journal").write_text("a file\n"),
     "icm: refusing to write journal/.gitkeep: journal is not a folder; nothing "
     "was changed\n"),
    (lambda r: (r / "Makefile").mkdir(),
     "icm: refusing to write Makefile: it exists and is not a regular file; "
     "nothing was changed\n"),
    (lambda r: os.mkfifo(r / "Makefile"),
     "icm: refusing to write Makefile: it exists and is not a regular file; "
     "nothing was changed\n"),
])
def test_init_checks_everything_before_creating_anything(repo: Path, icm, make,
                                                         message: str) -> None:
    make(repo)
    before = snapshot(repo)
    assert icm("init", "--root", str(repo)) == (2, "", message)
    assert snapshot(repo) == before


def test_undecodable_title_is_one_line(repo: Path, icm) -> None:
    # what Python makes of argv bytes that are not UTF-8
    assert icm("new-queue", "Fix caf\udce9", "--root", str(repo)) == (
        2, "", "icm: the title is not valid UTF-8 text (check the terminal's "
        "encoding); nothing was changed\n")
    assert not (repo / "queue").exists()


def test_deleted_working_directory_is_one_line(tmp_path: Path, icm,
                                               monkeypatch) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for argv in (["check"], ["init"]):
        assert icm(*argv) == (2, "", "icm: the working directory no longer "
                              "exists; cd into the repository, or pass --root\n")


# -- item 19: configured paths are normalised ----------------------------------

@pytest.mark.parametrize("value", ["./journal", "journal/", "journal//",
                                   "./journal/./"])
def test_journal_dir_spellings_all_check_the_journal(repo: Path, icm,
                                                     value: str) -> None:
    write(repo, {"icm.toml": f"journal_dir = '{value}'\n",
                 "journal/2026-01-01_a.md": "# A\n"})
    code, out, _ = icm("check-journal", "--root", str(repo))
    assert code == 1 and "journal/2026-01-01_a.md: missing slot" in out


@pytest.mark.parametrize("value", ["./queue", "queue/"])
def test_queue_dir_spellings_all_check_the_queue(repo: Path, icm,
                                                 value: str) -> None:
    write(repo, {"icm.toml": f"queue_dir = '{value}'\n",
                 "queue/07_a.md": ITEM, "queue/07_b.md": ITEM})
    code, out, _ = icm("check-queue", "--root", str(repo))
    assert code == 1 and "07" in out
    assert icm("new-queue", "Next", "--root", str(repo))[1] == "queue/08_next.md\n"


# -- item 23: folders that cannot be listed are reported -----------------------

def test_unlistable_folder_outside_git_is_a_warning(tmp_path: Path, icm,
                                                    monkeypatch) -> None:
    write(tmp_path, {"AGENTS.md": HB, "locked/a.md": "[x](gone.md)\n"})
    real_scandir = os.scandir

    def refuse(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)  # root ignores chmod 000
    assert icm("check-links", "--root", str(tmp_path)) == (
        0, "links ok\n", "icm: warning: cannot list locked/: permission denied; "
        "its files are not checked\n")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="runs git as another user, which needs root")
def test_unlistable_folder_in_git_is_read_from_gits_warning() -> None:
    """git's own warning, from a real git run as an unprivileged user (chmod
    binds there; root ignores it), is what ``git.unopened`` parses."""
    from icm import git as icm_git

    base = Path(tempfile.mkdtemp())
    try:
        os.chmod(base, 0o755)
        root = base / "repo"
        write(root, {"AGENTS.md": HB, "locked/a.md": "[x](gone.md)\n"})
        git(root, "init", "-q")
        subprocess.run(["chown", "-R", "65534:65534", str(root)], check=True)
        os.chmod(root / "locked", 0o000)
        env = icm_git.clean_env()
        env.update(HOME=str(base), GIT_CONFIG_NOSYSTEM="1",
                   GIT_CONFIG_GLOBAL=os.devnull)
        proc = subprocess.run(
            ["git", *icm_git.BASE, "ls-files", "-z", "-t", "--cached", "--others",
             "--exclude-standard"], cwd=root, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, user=65534, group=65534, text=True)
        assert proc.returncode == 0 and "a.md" not in proc.stdout
        assert icm_git.unopened(proc.stderr) == ["locked/: permission denied"]
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


# -- item 25: dates, templating ------------------------------------------------

def test_new_journal_uses_the_local_date(repo: Path, icm, monkeypatch) -> None:
    import time

    utc = datetime.now(timezone.utc)
    # A zone whose date differs from UTC's right now: +14 h late in the UTC
    # day, -12 h early in it.
    zone = "Etc/GMT-14" if utc.hour >= 12 else "Etc/GMT+12"
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        write(repo, {"queue/07_a.md": ITEM})
        local = datetime.now().astimezone().date()
        assert local != datetime.now(timezone.utc).date() or utc.hour in (11, 12)
        code, out, _ = icm("new-journal", "07", "--root", str(repo))
        assert (code, out) == (
            0, f"journal/{local.isoformat()}_a.md\nremoved queue/07_a.md\n")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_placeholders_in_a_title_are_not_expanded(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": "# Use {carried} and {title}\n\nbody\n"})
    code, out, _ = icm("new-journal", "07", "--date", "2026-11-29", "--root",
                       str(repo))
    assert code == 0
    text = (repo / "journal/2026-11-29_a.md").read_text()
    assert text.startswith("# Use {carried} and {title}\n\nCarried over from "
                           "`queue/07_a.md`:\n\nbody\n")
    assert text.count("Carried over") == 1


def test_date_in_year_one_is_written_as_written(repo: Path, icm) -> None:
    write(repo, {"queue/07_a.md": ITEM})
    assert icm("new-journal", "07", "--date", "0001-01-01", "--root",
               str(repo)) == (
        0, "journal/0001-01-01_a.md\nremoved queue/07_a.md\n", "")


# -- the resolver against the operating system ------------------------------------

def _tree(root: Path, outside: Path) -> None:
    (root / "a/b").mkdir(parents=True)
    (root / "a/b/f.md").write_text("x")
    (root / ".git").mkdir()
    os.symlink("a", root / "to-a")
    os.symlink("b/f.md", root / "a/to-f")
    os.symlink("../..", root / "a/b/up2")  # back to the root
    os.symlink("../../..", root / "a/b/up3")  # one above it
    os.symlink(str(outside), root / "out")


try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None


def _outcome(resolve, rel: str):
    try:
        return "ok", resolve(rel)
    except paths.Refused as exc:
        return "refused", exc.reason
    except OSError as exc:  # a file where a folder should be: the OS says so
        return "oserror", exc.errno


if given is not None:
    PART = st.sampled_from(["a", "b", "f.md", "to-a", "to-f", "up2", "up3", "out",
                            ".git", "..", ".", "", "new"])

    @given(st.lists(st.lists(PART, min_size=1, max_size=6).map("/".join),
                    min_size=1, max_size=4))
    def test_resolve_agrees_with_the_os_or_refuses(rels) -> None:
        base = Path(tempfile.mkdtemp())
        try:
            root, outside = base / "root", base / "outside"
            root.mkdir()
            outside.mkdir()
            _tree(root, outside)
            top = os.path.realpath(root)
            many = paths.Resolver(root, None)  # one per run, memo shared
            for rel in rels:
                kind, got = _outcome(lambda r: paths.resolve(root, r), rel)
                # The per-run resolver gives the same answer, reason included.
                assert _outcome(many.resolve, rel) == (kind, got), rel
                if kind != "ok":
                    continue
                assert got == top or got.startswith(top + "/")
                assert ".git" not in Path(got).relative_to(top).parts
                if os.path.exists(got):  # the OS agrees on what it names
                    assert os.path.realpath(root / paths.clean(rel)) == got
        finally:
            subprocess.run(["rm", "-rf", str(base)], check=False)


# -- the class, not the instance: no module touches the disk on its own ------------

# Raw file-system calls each module may make, and why; anything else must go
# through icm.paths (reads: Context.read_*/real/stat; writes: workflow.files).
RAW_ALLOWED = {
    "paths.py": {"os.open", "os.fstat", "os.stat", "os.lstat", "os.readlink",
                 "os.close", "open"},  # the one place that resolves and opens
    "context.py": {"open", "os.stat", "os.walk", "os.fstat"},  # fds/paths from
    "config.py": {"open"},  # paths.open_regular's descriptor
    "workflow/files.py": {"tempfile.mkstemp", "os.fdopen", "os.fsync", "os.chmod",
                          "os.unlink", "os.link", "os.open", "os.stat", "os.replace",
                          "os.access", ".stat", ".mkdir", "os.close", ".rmdir"},
    "workflow/queue.py": {"os.listdir"},  # ensure_folder's
    "workflow/journal.py": {"os.listdir"},  # journal_locked's, under its lock
    "workflow/init.py": {"os.stat"},  # on files.target() results
    "model/links.py": {"os.listdir", "os.access",  # of Context.real results
                        "os.close", "os.fdopen"},  # the fork pool's own pipes
    # icm's own cache, inside the git directory, by a descriptor of its folder
    "cache.py": {"os.open", "os.mkdir", "os.close", "os.fstat", "open",
                 "os.replace", "os.unlink",
                 "os.listdir"},  # the parsers' install folder: their versions
    "git.py": {".read_text"},  # git's own shallow file, in the git directory
    "output.py": {"os.open", "os.close"},  # /dev/null over stdout after a closed pipe
    "markdown_events.py": {"os.open", "os.close"},  # /dev/null over fd 2 for a panic
    # /proc/*/environ: the sweep for a Verify command's processes that left
    # its group (setsid); the OS's process table, no repository path
    "workflow/verify.py": {"open", "os.listdir"},
    # a memo's states: os.stat and os.access of Context.real results; the
    # code stamp: os.walk and os.stat of icm's own modules, not the root's
    "engine.py": {"os.stat", "os.access", "os.walk"},
}
RAW_CALLS = {"open", "os.open", "os.fdopen", "os.stat", "os.lstat", "os.fstat",
             "os.readlink", "os.listdir", "os.scandir", "os.walk", "os.unlink",
             "os.remove", "os.link", "os.symlink", "os.replace", "os.rename",
             "os.mkdir", "os.makedirs", "os.chmod", "os.access", "os.fsync",
             "os.close", "tempfile.mkstemp", "shutil.copy", "shutil.copyfile",
             "shutil.move", "shutil.rmtree"}
PATH_METHODS = {".read_text", ".read_bytes", ".write_text", ".write_bytes",
                ".open", ".mkdir", ".unlink", ".rename", ".touch", ".stat",
                ".iterdir", ".rglob", ".glob", ".rmdir", ".symlink_to"}


def _raw_calls(source: str) -> set:
    import ast

    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id == "open":
            found.add("open")
        elif isinstance(fn, ast.Attribute):
            if isinstance(fn.value, ast.Name) and \
                    f"{fn.value.id}.{fn.attr}" in RAW_CALLS:
                found.add(f"{fn.value.id}.{fn.attr}")
            elif f".{fn.attr}" in PATH_METHODS and not (
                    isinstance(fn.value, ast.Name) and fn.value.id in ("ctx", "self")):
                found.add(f".{fn.attr}")
    return found


def test_every_read_and_write_goes_through_paths() -> None:
    package = Path(__file__).resolve().parent.parent / "icm"
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        extra = _raw_calls(path.read_text()) - RAW_ALLOWED.get(rel, set())
        assert not extra, (f"icm/{rel} touches files directly with {sorted(extra)}: "
                           "go through icm.paths (Context.read_*/real/stat, "
                           "workflow.files), or add it here with the reason")
