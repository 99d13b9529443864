"""Golden tests for the link and index lint."""

import json
import os
import time
from pathlib import Path
from typing import List

import pytest

from icm import markdown
from icm.model.links import resolve
from tests.conftest import commit, git, python_lines, write

HB = "# Handbook\n\n- [src](src/context.md)\n"


def run(icm, repo: Path, *extra: str):
    return icm("check-links", "--root", str(repo), *extra)


def out_lines(icm, repo: Path, *extra: str):
    code, out, err = run(icm, repo, *extra)
    assert err == ""
    return code, out.splitlines()


def test_seed_broken_link_lines(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "README.md": "See [notes](src/context.md).\n"})
    code, out, err = run(icm, repo)
    assert (code, err) == (1, "")
    assert out == ("broken link: AGENTS.md -> src/context.md\n"
                   "broken link: README.md -> src/context.md\n"
                   "links: 2 problems (missing file 2)\n")


def test_seed_unindexed_note_line(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "src/context.md": "x\n",
                 "docs/context.md": "y\n"})
    assert out_lines(icm, repo) == (1, [
        "note missing from handbook index: docs/context.md",
        "links: 1 problem (unindexed note 1)"])


def test_ok(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "src/context.md": "x\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


@pytest.mark.parametrize("markdown_text", [
    "[a](target.md)",
    "[a][r]\n\n[r]: target.md",
    "[a][]\n\n[a]: target.md",
    "[a]\n\n[a]: target.md",
    "![img](target.md)",
    "![img][r]\n\n[r]: target.md",
    '<a href="target.md">x</a>',
    '<div>\n<img src="target.md">\n</div>',
    "[a](<target.md>)",
    '[a](target.md "title")',
    "[a](./target.md)",
    "[a](/target.md)",
    "[a](target.md?plain=1)",
])
def test_every_link_kind_fine_and_broken(repo: Path, icm, markdown_text: str) -> None:
    write(repo, {"doc.md": markdown_text + "\n", "target.md": "# T\n"})
    assert run(icm, repo) == (0, "links ok\n", "")
    os.remove(repo / "target.md")
    code, out, _ = run(icm, repo)
    assert code == 1
    assert out.splitlines()[0].startswith("broken link: doc.md -> ")
    assert out.splitlines()[-1] == "links: 1 problem (missing file 1)"


def test_definition_broken_even_when_unused_and_reported_once(repo: Path, icm) -> None:
    write(repo, {"doc.md": "[a][r] and [b][r]\n\n[r]: gone.md\n[unused]: gone2.md\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: doc.md -> gone.md",
        "broken link: doc.md -> gone2.md",
        "links: 2 problems (missing file 2)"])


def test_lines_and_sorting(repo: Path, icm) -> None:
    write(repo, {"b.md": "x\n\n[a](one.md) [b](two.md)\nline\n[c](three.md)\n",
                 "a.md": "para with\nsoft break [x](four.md)\n"})
    code, out, _ = run(icm, repo, "--format", "json")
    found = [(f["path"], f["line"], f["message"])
             for f in json.loads(out)["checks"][0]["findings"]]
    assert found == [
        ("a.md", 2, "broken link: a.md -> four.md"),
        ("b.md", 3, "broken link: b.md -> one.md"),
        ("b.md", 3, "broken link: b.md -> two.md"),
        ("b.md", 5, "broken link: b.md -> three.md"),
    ]


def test_code_is_never_a_link(repo: Path, icm) -> None:
    write(repo, {"doc.md": "`[a](gone.md)`\n\n```\n[a](gone.md)\n```\n\n"
                           "    [a](gone.md)\n\n<!-- [a](gone.md) -->\n\n"
                           "\\[a\\](gone.md)\n\n[t](my file.md)\n"})
    # No link found, no handbook, no notes: the check says it had nothing.
    assert run(icm, repo) == (0, "links: no handbook AGENTS.md and no notes named "
                                 "context.md (set handbook, note_name)\nlinks ok\n",
                              "")


def test_external_links_skipped(repo: Path, icm) -> None:
    write(repo, {"doc.md": "[a](https://example.com/x) [b](mailto:a@b.c) "
                           "[c](//cdn.example.com/x) <https://x.y/z> [d](ftp://h/f)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_percent_encoding_angle_brackets_and_escapes(repo: Path, icm) -> None:
    write(repo, {"my file.md": "x", "a_b.md": "x", "doc.md":
                 "[a](my%20file.md) [b](<my file.md>) [c](a\\_b.md)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")
    write(repo, {"doc.md": "[a](my%20fil.md)\n"})
    assert out_lines(icm, repo)[1][0] == "broken link: doc.md -> my%20fil.md"


def test_case_mismatch(repo: Path, icm) -> None:
    write(repo, {"docs/guide.md": "x", "README.md": "[g](docs/Guide.md)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: README.md -> docs/Guide.md (exists as docs/guide.md)",
        "links: 1 problem (case mismatch 1)"])


def test_a_path_on_one_machine_names_the_file_it_meant(repo: Path, icm) -> None:
    """Round 11's relayfile: links to ``/Users/<name>/.../repo/docs/x.md``
    work for their author alone; the reason says so and names the tree's
    file with the longest tail of the path (two parts at least: a lone
    ``main.go`` could be any project's)."""
    write(repo, {"docs/contract.md": "x", "main.go": "x", "notes.md":
                 "[c](/Users/me/src/repo/docs/contract.md) "
                 "[m](/home/me/other/main.go) [g](/Users/me/gone.md)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: notes.md -> /Users/me/src/repo/docs/contract.md "
        "(a path on one machine; the tree has docs/contract.md)",
        "broken link: notes.md -> /home/me/other/main.go (a path on one machine)",
        "broken link: notes.md -> /Users/me/gone.md (a path on one machine)",
        "links: 3 problems (missing file 3)"])
    write(repo, {"Users/me/gone.md": "x"})  # a folder of that name: a file
    assert out_lines(icm, repo)[1][2:] == ["links: 2 problems (missing file 2)"]




def test_a_relative_link_into_a_tmp_folder_is_no_machine_path(repo: Path,
                                                              icm) -> None:
    """Only a link from the machine's root (``/Users/...``) names a machine's
    folders: ``tmp/notes.md``, or ``../home/index.md`` from ``site/``, names
    the tree's own ``tmp/`` and ``home/`` (a site's home page), and said
    "a path on one machine" of them."""
    write(repo, {"docs/x.md": "x", "README.md": "[t](tmp/docs/x.md)\n",
                 "site/a.md": "[h](../home/index.md)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: README.md -> tmp/docs/x.md",
        "broken link: site/a.md -> ../home/index.md",
        "links: 2 problems (missing file 2)"])

def test_a_deep_path_on_one_machine_costs_a_few_lookups(repo: Path) -> None:
    """A machine's own prefix is a few folders (``/Users/me/src/repo/``):
    the tails tried start in its first parts, so a link of 2,000 parts
    costs what one of 200 does. Every tail was looked up and kept (the
    tree's lookups are kept a run): 1,000 links of 900 parts, a 2 MB
    file, held 900 MB."""
    from icm import config, context
    from icm.checks import links
    from icm.model.links import Tree

    commit(repo, {"a/x.md": "x", "docs/contract.md": "x"}, "2026-01-01T00:00:00")
    tree = Tree(context.build(repo, config.Config()))

    def work(parts: int) -> int:
        return python_lines(lambda: links._on_one_machine(
            "Users/" + "a/" * parts + "x.md", tree))

    assert work(2000) == work(200)
    assert links._on_one_machine("Users/me/src/repo/docs/contract.md", tree) == (
        "a path on one machine; the tree has docs/contract.md")


def test_a_link_1500_folders_deep_is_a_broken_link(repo: Path, icm) -> None:
    """The resolver built each folder on its parent's by a call: a link of
    1,500 folders (3 KB) was a ``RecursionError``, exit 2."""
    deep = "a/" * 1500 + "x.md"
    write(repo, {"a/y.md": "x", "notes.md": f"[d]({deep})\n"})
    assert out_lines(icm, repo) == (1, [f"broken link: notes.md -> {deep}",
                                        "links: 1 problem (missing file 1)"])

def test_outside_root_even_when_it_exists(tmp_path: Path, icm) -> None:
    root = tmp_path / "inner"
    write(tmp_path, {"outside.md": "x", "inner/doc.md": "[o](../outside.md)\n"})
    git(root, "init", "-q")
    assert out_lines(icm, root) == (1, [
        "broken link: doc.md -> ../outside.md (outside the repository root)",
        "links: 1 problem (outside the root 1)"])


def test_folder_targets(repo: Path, icm) -> None:
    write(repo, {"docs/README.md": "# Setup\n", "doc.md":
                 "[d](docs) [e](docs/) [f](docs#setup) [g](docs/#setup)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")
    write(repo, {"doc.md": "[f](docs#nope)\n"})
    assert out_lines(icm, repo)[1][0] == (
        "broken link: doc.md -> docs#nope (no heading or anchor #nope in "
        "docs/README.md)")


def test_no_extension_guessing(repo: Path, icm) -> None:
    write(repo, {"target.md": "x", "doc.md": "[t](target)\n"})
    assert out_lines(icm, repo)[1][0] == "broken link: doc.md -> target"


def test_fragments_same_and_other_file(repo: Path, icm) -> None:
    write(repo, {
        "other.md": "# Hello, World!\n## Hello, World!\n## a-1\n",
        "doc.md": "# Intro `code` *em*\n\n[s](#intro-code-em) [t](#top) "
                  "[o](other.md#hello-world) [p](other.md#hello-world-1) "
                  "[q](other.md#a-1) [r](other.md#HELLO-WORLD) [u](#)\n",
    })
    assert run(icm, repo) == (0, "links ok\n", "")
    write(repo, {"doc.md": "# Intro\n\n[s](#intr) [o](other.md#hello-world-2)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: doc.md -> #intr (no heading or anchor #intr)",
        "broken link: doc.md -> other.md#hello-world-2 (no heading or anchor "
        "#hello-world-2 in other.md)",
        "links: 2 problems (missing anchor 2)"])


def test_duplicate_slugs_against_every_slug_seen() -> None:
    s = markdown.Slugger()
    assert [s.slug(t) for t in ("a", "a", "a-1")] == ["a", "a-1", "a-1-1"]


@pytest.mark.parametrize("heading,expected", [
    ("Hello, World!", "hello-world"),
    ("Über Straße", "über-straße"),
    ("日本語 テスト", "日本語-テスト"),
    ("🎉 Party", "-party"),
    ("snake_case and-dash", "snake_case-and-dash"),
    ("C++ & Rust?", "c--rust"),
    ("  spaced  out ", "--spaced--out-"),
    ("Version 1.2.3", "version-123"),
])
def test_github_slug_cases(heading: str, expected: str) -> None:
    assert markdown.slug(heading) == expected


def test_explicit_anchors_and_custom_ids(repo: Path, icm) -> None:
    write(repo, {"doc.md": '<a name="here"></a>\n\n<span id="there">t</span>\n\n'
                           "# Title {#custom}\n\n[a](#here) [b](#there) "
                           "[c](#title-custom)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")
    write(repo, {"doc.md": "# Title {#custom}\n\n[c](#custom)\n"})
    assert out_lines(icm, repo)[0] == 1


def test_percent_encoded_fragment(repo: Path, icm) -> None:
    write(repo, {"doc.md": "# Über\n\n[a](#%C3%BCber)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_line_fragments_on_code_files(repo: Path, icm) -> None:
    write(repo, {"x.py": "pass\n", "doc.md": "[a](x.py#L10) [b](x.py#L1-L2)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_gitignored_files_skipped_but_exist_as_targets(repo: Path, icm) -> None:
    write(repo, {".gitignore": "build/\n", "build/bad.md": "[x](gone.md)\n",
                 "build/out.md": "# Out\n", "doc.md": "[o](build/out.md#out)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_exclude_and_links_ignore(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "exclude = ['vendor/**']\n"
                             "links_ignore = ['generated/**', '*.gen.md']\n",
                 "vendor/x.md": "[x](gone.md)\n",
                 "doc.md": "[a](generated/api.md) [b](docs/x.gen.md)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_non_utf8_markdown_is_reported(repo: Path, icm) -> None:
    write(repo, {"bad.md": b"caf\xe9\n"})
    assert out_lines(icm, repo) == (1, [
        "bad.md: cannot read: not valid UTF-8 (line 1, byte offset 3)",
        "links: 1 problem (unreadable file 1)"])


def test_index_rules(repo: Path, icm) -> None:
    """A note named by path, in a code span (``d``) or as plain text
    (``e``), is indexed as a linked one is: an agent follows either (issue
    24: the handbook named three of four nested notes as code spans). A
    link to the folder only (``c``) names no note."""
    write(repo, {
        "AGENTS.md": "# H\n\n- [a](./a/context.md#why)\n- [b][b]\n"
                     "- [folder only](c/)\n- `d/context.md`\n- e/context.md\n\n"
                     "[b]: b/context.md\n",
        "a/context.md": "# Why\n", "b/context.md": "x", "c/context.md": "x",
        "d/context.md": "x", "e/context.md": "[f](../f/context.md)",
        "f/context.md": "x", "context.md": "root note needs no index",
    })
    assert out_lines(icm, repo) == (1, [
        "note missing from handbook index: c/context.md",
        "note missing from handbook index: f/context.md",
        "links: 2 problems (unindexed note 2)"])


def test_gone_note_is_reported_once(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "- [a](a/context.md)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: AGENTS.md -> a/context.md",
        "links: 1 problem (missing file 1)"])


def test_missing_handbook(repo: Path, icm) -> None:
    write(repo, {"a/context.md": "x"})
    assert out_lines(icm, repo) == (1, [
        "handbook not found: AGENTS.md",
        "note missing from handbook index: a/context.md",
        "links: 2 problems (unindexed note 1, missing handbook 1)"])


@pytest.mark.parametrize("present, config, hint", [
    ("agents.md", "", 'found agents.md; set handbook = "agents.md"'),
    ("CLAUDE.md", "", 'found CLAUDE.md; set handbook = "CLAUDE.md"'),
    ("Claude.md", "", 'found Claude.md; set handbook = "Claude.md"'),
    ("docs/Guide.md", 'handbook = "docs/guide.md"\n',
     'found docs/Guide.md; set handbook = "docs/Guide.md"'),
])
def test_missing_handbook_names_the_near_miss(repo: Path, icm, present: str,
                                              config: str, hint: str) -> None:
    write(repo, {present: "# Handbook\n", "a/context.md": "x",
                 **({"icm.toml": config} if config else {})})
    handbook = "docs/guide.md" if config else "AGENTS.md"
    code, lines = out_lines(icm, repo)
    assert code == 1 and f"handbook not found: {handbook} ({hint})" in lines


def test_missing_custom_handbook_ignores_other_names(repo: Path, icm) -> None:
    write(repo, {"CLAUDE.md": "x", "a/context.md": "x",
                 "icm.toml": 'handbook = "HANDBOOK.md"\n'})
    assert out_lines(icm, repo)[1][0] == "handbook not found: HANDBOOK.md"


def test_cache_is_used_and_safe(repo: Path, icm) -> None:
    write(repo, {"doc.md": "[a](gone.md)\n"})
    first = run(icm, repo)
    cache = repo / ".git" / "icm" / "links-cache.json"
    assert cache.is_file()
    assert run(icm, repo) == first
    cache.write_bytes(b"\x00garbage")
    assert run(icm, repo) == first
    write(repo, {"doc.md": "[a](doc.md)\n"})
    assert run(icm, repo) == (0, "links ok\n", "")


def test_cache_sees_cp_p_and_chmod(repo: Path, icm, tmp_path: Path) -> None:
    """Same size, mtime kept (``cp -p`` onto the file): the old answer must
    not come back from the cache; chmod changes the stamp too."""
    import shutil

    from icm import cache

    write(repo, {"doc.md": "[a](gone.md)\n"})
    old = 1_600_000_000
    os.utime(repo / "doc.md", (old, old))
    assert run(icm, repo)[0] == 1
    fixed = tmp_path / "fixed.md"
    fixed.write_text("[a](doc.md) \n")  # the same size
    os.utime(fixed, (old, old))
    shutil.copy2(fixed, repo / "doc.md")  # cp -p: same inode, size and mtime
    assert run(icm, repo) == (0, "links ok\n", "")
    before = cache.stamp(os.stat(repo / "doc.md"))
    os.chmod(repo / "doc.md", 0o600)
    assert cache.stamp(os.stat(repo / "doc.md")) != before


def test_cache_rechecks_readability(repo: Path, icm, monkeypatch) -> None:
    """Losing read access changes no stamp (a user leaves a group): a cached
    answer must not hide it. Simulated: the suite runs as root."""
    from icm import context as context_mod

    write(repo, {"doc.md": "[a](doc.md)\n"})
    old = 1_600_000_000
    os.utime(repo / "doc.md", (old, old))
    assert run(icm, repo) == (0, "links ok\n", "")
    cache = repo / ".git" / "icm" / "links-cache.json"
    later = time.time() + 60  # written well after the file changed: trusted
    os.utime(cache, (later, later))
    real_read = context_mod.Context.read_bytes

    def read(self, rel, limit=0):
        if rel == "doc.md":
            raise context_mod.Unreadable(rel, "permission denied")
        return real_read(self, rel, limit)

    monkeypatch.setattr(context_mod.Context, "read_bytes", read)
    monkeypatch.setattr(os, "access", lambda path, mode: not str(path).endswith(
        "doc.md"))
    assert run(icm, repo) == (1, "doc.md: cannot read: permission denied\n"
                                 "links: 1 problem (unreadable file 1)\n", "")


def test_parallel_matches_serial(repo: Path, icm) -> None:
    files = {f"d{i}/n{i}.md": f"# H{i}\n[a](../d{(i + 1) % 60}/n{(i + 1) % 60}.md#h"
                              f"{(i + 1) % 60}) [b](gone{i % 3}.md)\n"
             for i in range(60)}
    write(repo, files)
    serial = run(icm, repo, "--jobs", "1")
    (repo / ".git" / "icm" / "links-cache.json").unlink()
    parallel = run(icm, repo, "--jobs", "2")
    assert serial == parallel and serial[0] == 1
    assert serial[1].splitlines()[-1] == "links: 60 problems (missing file 60)"


def test_parallel_with_unreadable_and_oversized_files(repo: Path, icm) -> None:
    files = {f"n{i}.md": "[a](gone.md)\n" for i in range(60)}
    files.update({"bad.md": b"caf\xe9\n", "big.md": "x" * 200,
                  "icm.toml": "max_file_bytes = 100\n"})
    write(repo, files)
    code, out, err = run(icm, repo, "--jobs", "2")
    assert (code, err) == (1, "")
    assert out.splitlines()[-1] == (
        "links: 62 problems (missing file 60, unreadable file 1, skipped file 1)")


_WAIT = {"last": "", "marker": ""}


def _waiting_parse(job):
    """links._parse_path, except that the last file's worker (forked, so it
    sees _WAIT) waits until the parent has reported progress."""
    from icm.model import links

    if job[1] == _WAIT["last"]:
        for _ in range(600):
            if os.path.exists(_WAIT["marker"]):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no progress before the last file")
    return links._PARSE(job)


def test_parallel_progress_moves_before_the_last_file_is_parsed(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parse that reports only once every file is done never gets there."""
    from icm import config, context
    from icm.model import links

    files = [f"n{i:02d}.md" for i in range(60)]
    write(repo, {f: "[a](gone.md)\n" for f in files})
    marker = repo.parent / "progress-seen"
    monkeypatch.setitem(_WAIT, "last", files[-1])
    monkeypatch.setitem(_WAIT, "marker", str(marker))
    monkeypatch.setattr(links, "_PARSE", links._parse_path, raising=False)
    monkeypatch.setattr(links, "_parse_path", _waiting_parse)
    seen = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        marker.touch()

    ctx = context.build(repo, config.load(repo), progress=progress)
    corpus = links.extract_all(ctx, files, jobs=2)
    assert len(corpus.parsed) == 60
    # The fork pool reports per worker, as each one's answers arrive.
    assert seen == [(30, 60), (60, 60)]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no affinity")
def test_default_jobs_are_the_cores_this_process_may_use(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A container or ``taskset`` narrows the affinity, not os.cpu_count():
    one usable core parses in-process, whatever the machine has."""
    from icm import config, context
    from icm.model import links

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert context.usable_cores() == 1

    def no_pool(*args: object) -> None:
        raise AssertionError("forked a pool on one usable core")

    monkeypatch.setattr(links, "_parse_parallel", no_pool)
    files = [f"n{i:02d}.md" for i in range(60)]
    write(repo, {f: "[a](gone.md)\n" for f in files})
    ctx = context.build(repo, config.load(repo))
    assert len(links.extract_all(ctx, files).parsed) == 60
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert context.usable_cores() == 3
    monkeypatch.delattr(os, "sched_getaffinity")
    assert context.usable_cores() == 64


def test_broken_links_into_one_folder_list_it_once(repo: Path, icm,
                                                  monkeypatch) -> None:
    """The disk is asked once a target and a folder is listed once a run:
    a tree's broken links name the same folders again and again."""
    write(repo, {".gitignore": "build/\n", **{f"build/out{i}.md": "# Out\n"
                                              for i in range(10)},
                 "doc.md": "".join(f"[x](build/out{i % 10}.md) [y](gone{i % 3}.md) "
                                   for i in range(30)) + "\n"})
    listed = []
    real_listdir = os.listdir

    def listdir(path):  # counts, and answers as the disk does
        listed.append(os.path.basename(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    code, out, _ = run(icm, repo)
    assert (code, out.splitlines()[-1]) == (1, "links: 30 problems (missing file 30)")
    assert listed.count("build") == 1


def test_resolve() -> None:
    assert resolve("a/b.md", "../c.md#x").path == "c.md"
    assert resolve("a/b.md", "/c.md").path == "c.md"
    assert resolve("a/b.md", "#x").path == "a/b.md"
    assert resolve("a/b.md", "https://x") is None
    assert resolve("b.md", "../../c.md").problem == "outside-root"


FIX_HB = "# Handbook\r\n\r\nIntro with [src](src/context.md).\r\n"


def test_fix_creates_block_and_is_idempotent(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": b"\xef\xbb\xbf" + FIX_HB.encode(),
                 "src/context.md": "x", "docs/api/context.md": "x",
                 "b/context.md": "x"})
    code, out, err = run(icm, repo, "--fix")
    assert (code, err) == (0, "")
    assert out == ("added to AGENTS.md index: b/context.md\n"
                   "added to AGENTS.md index: docs/api/context.md\n"
                   "links ok\n")
    data = (repo / "AGENTS.md").read_bytes()
    assert data == (b"\xef\xbb\xbf" + FIX_HB.encode() +
                    b"\r\n## Index of notes\r\n\r\n"
                    b"<!-- icm:index -->\r\n- [b](b/context.md)\r\n"
                    b"- [docs/api](docs/api/context.md)\r\n<!-- /icm:index -->\r\n")
    assert run(icm, repo, "--fix") == (0, "links ok\n", "")
    assert (repo / "AGENTS.md").read_bytes() == data


def test_fix_updates_block_and_leaves_the_rest_byte_identical(repo: Path, icm) -> None:
    head = "# H\n\ntext  with trailing spaces  \n\n"
    tail = "\n## After\n\nmore text, no final newline"
    block = ("<!-- icm:index -->\n- [a](a/context.md): kept description\n"
             "- [gone](gone/context.md)\n<!-- /icm:index -->")
    write(repo, {"AGENTS.md": head + block + tail, "a/context.md": "x",
                 "c/context.md": "x"})
    code, out, _ = run(icm, repo, "--fix")
    assert out.splitlines() == ["removed from AGENTS.md index: gone/context.md",
                                "added to AGENTS.md index: c/context.md", "links ok"]
    assert (repo / "AGENTS.md").read_text() == (
        head + "<!-- icm:index -->\n- [a](a/context.md): kept description\n"
        "- [c](c/context.md)\n<!-- /icm:index -->" + tail)


def test_fix_handbook_in_subfolder_and_missing_handbook(repo: Path, icm) -> None:
    write(repo, {"icm.toml": "handbook = 'docs/HANDBOOK.md'\n",
                 "docs/HANDBOOK.md": "# H\n", "src/context.md": "x"})
    assert run(icm, repo, "--fix")[0] == 0
    assert "- [src](../src/context.md)" in (repo / "docs/HANDBOOK.md").read_text()
    os.remove(repo / "docs/HANDBOOK.md")
    assert run(icm, repo, "--fix") == (
        2, "", "icm: handbook docs/HANDBOOK.md does not exist (create it, or run "
               "'icm init')\n")


def test_tracked_file_deleted_from_the_work_tree_is_gone(repo: Path, icm) -> None:
    from tests.conftest import commit

    commit(repo, {"doc.md": "[t](target.md)\n", "target.md": "x"},
           "2026-10-01T12:00:00+00:00")
    os.remove(repo / "target.md")
    assert out_lines(icm, repo) == (1, ["broken link: doc.md -> target.md",
                                        "links: 1 problem (missing file 1)"])


def test_markdown_inside_html_block_after_a_blank_line(repo: Path, icm) -> None:
    write(repo, {"doc.md": "<div>\n[raw](gone1.md)\n\n[md](gone2.md)\n\n</div>\n"})
    assert out_lines(icm, repo) == (1, ["broken link: doc.md -> gone2.md",
                                        "links: 1 problem (missing file 1)"])


@pytest.mark.parametrize("text,line", [
    ("> " * 150 + "[a](gone.md)\n", 1),
    ("".join("  " * i + "- a\n" for i in range(60)) + "[b](gone.md)\n", 50),
])
def test_nesting_beyond_the_limit_is_reported_not_silent(repo: Path, icm, text: str,
                                                         line: int) -> None:
    write(repo, {"deep.md": text,
                 "ok.md": "".join("  " * i + "- x\n" for i in range(30))
                 + "  " * 30 + "- [c](gone.md)\n"})
    assert run(icm, repo) == (1, (
        f"deep.md: nested deeper than 100 levels at line {line}; links inside are "
        "not checked\nbroken link: ok.md -> gone.md\n"
        "links: 2 problems (missing file 1, too deeply nested 1)\n"), "")


# -- issue 22, item 5: a destination no file can have is a finding ----------------

LONG = "a" * 5000


def test_destinations_no_file_can_have_are_findings(repo: Path, icm) -> None:
    """``%00`` decoded to a NUL reached ``os.stat``: ``internal error``, exit
    2, every other finding hidden. A NUL or a name over NAME_MAX is
    ``bad-path`` on that link; ``%FF`` is a name Linux keeps (found when the
    file is there, missing otherwise)."""
    write(repo, {"AGENTS.md": f"# H\n\n[n](a%00b.md) [f](c%ffd.md) [l]({LONG}.md)\n"
                              "[e](c%ffe.md) [x](x.md#%00) [p](a/%00/b.md)\n"
                              "[g](gone.md)\n", "x.md": "# X\n"})
    (repo / os.fsdecode(b"c\xffe.md")).write_bytes(b"here\n")
    assert run(icm, repo) == (1, (
        "broken link: AGENTS.md -> a%00b.md (a file name cannot hold a NUL byte)\n"
        "broken link: AGENTS.md -> c%ffd.md\n"
        f"broken link: AGENTS.md -> {LONG}.md (a file name cannot be longer than "
        "255 bytes)\n"
        "broken link: AGENTS.md -> x.md#%00 (no heading or anchor #\\x00 in x.md)\n"
        "broken link: AGENTS.md -> a/%00/b.md (a file name cannot hold a NUL "
        "byte)\n"
        "broken link: AGENTS.md -> gone.md\n"
        "links: 6 problems (missing file 2, missing anchor 1, impossible path "
        "3)\n"), "")


def test_an_impossible_destination_hides_nothing_in_any_format(repo: Path,
                                                               icm) -> None:
    """The crash emptied the SARIF file: now every finding is in each format,
    the link's as ``links/bad-path``; bootmap refuses an import of an
    over-long name without asking the disk."""
    commit(repo, {"AGENTS.md": f"# H\n\n[n](a%00b.md) [g](gone.md)\n\n@{LONG}.md\n"
                               f"[p](b/{'c/' * 2100}d.md)\n",
                  "icm.toml": "budget = 100000\n"},
           "2026-10-01T12:00:00+00:00")
    code, out, err = icm("check", "--format", "sarif", "--root", str(repo))
    assert (code, err) == (1, "")
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"].get(
        "region", {}).get("startLine", 0), r["message"]["text"].replace(LONG, "L")
        .replace("c/" * 2100, "C")) for r in json.loads(out)["runs"][0]["results"]
    ] == [
        ("links/bad-path", 3, "broken link: AGENTS.md -> a%00b.md (a file name "
         "cannot hold a NUL byte) (fix: fix the destination's percent-encoding "
         "or length)"),
        ("links/missing-file", 3, "broken link: AGENTS.md -> gone.md (fix: fix "
         "the path or restore the file)"),
        ("links/bad-path", 6, "broken link: AGENTS.md -> b/Cd.md (a path cannot "
         "be longer than 4096 bytes) (fix: fix the destination's "
         "percent-encoding or length)"),
        ("stale/no-notes", 0, "stale: no notes named context.md yet (or set "
         "note_name)"),
        ("bootmap/no-notes", 0, "bootmap: no notes named context.md yet (or set "
         "note_name)"),
        ("bootmap/bad-import", 5, "broken import: AGENTS.md -> @L.md (a file name "
         "cannot be longer than 255 bytes) (fix: import files inside the "
         "repository only)"),
        ("handoff/no-records", 0, "handoff: no records in handoff yet "
         "(handoff_dir)"),
        ("agents/no-sessions", 0, "agents: no exported sessions in Agents/* "
         "(agents_dirs)"),
    ]
    code, out, err = icm("check", "--format", "github", "--root", str(repo))
    assert (code, err) == (1, "")
    assert [line.split("::")[1] for line in out.splitlines()
            if line.startswith("::error")] == [
        f"error file=AGENTS.md,line={n},title=icm {rule}" for n, rule in (
            (3, "links/bad-path"), (3, "links/missing-file"),
            (6, "links/bad-path"), (5, "bootmap/bad-import"))]


try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None

if given is not None:
    # Pieces of a destination: any text a UTF-8 file holds (a NUL byte makes
    # the file unreadable, another case), any percent-encoded bytes, and the
    # characters that shape a path or a link.
    _PIECE = st.one_of(
        st.text(st.characters(exclude_characters="\0", exclude_categories=("Cs",)),
                max_size=6),
        st.binary(min_size=1, max_size=4).map(
            lambda b: "".join(f"%{c:02X}" for c in b)),
        st.sampled_from(["/", "..", ".", "#", "?", "%", "%0", "\\", " ", "<", ">",
                         "(", ")", "a" * 300, "b/" * 2100, "%00", "%ff"]))
    _FORMAT = st.sampled_from(["text", "json", "github", "sarif"])

    @given(st.lists(_PIECE, max_size=8).map("".join), st.booleans(), _FORMAT)
    def test_no_destination_crashes_a_check(dest: str, angled: bool,
                                            fmt: str) -> None:
        """Whatever a destination holds (in a link, an import, a
        Superseded-by), ``icm check`` ends 0 or 1 and the finding written
        before it is still reported."""
        import contextlib
        import io
        import shutil
        import tempfile

        from icm.cli import main

        written = f"<{dest}>" if angled else dest
        base = Path(tempfile.mkdtemp())
        try:
            write(base, {
                "AGENTS.md": f"# H\n\n[g](gone.md)\n\n[x]({written})\n\n@{dest}\n",
                "journal/2026-01-01_a.md": "# A\n\n[g](gone.md)\n\nSuperseded-by: "
                                           f"[x]({written})\n"})
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["check", "--format", fmt, "--root", str(base)])
        finally:
            shutil.rmtree(base)
        assert code == 1, err.getvalue()
        assert "internal error" not in err.getvalue()
        text = out.getvalue()
        if fmt in ("json", "sarif"):
            json.loads(text)
        for source in ("AGENTS.md", "journal/2026-01-01_a.md"):
            shown = source if fmt != "github" else source
            assert f"broken link: {shown} -> gone.md" in text, (fmt, text[:500])


def test_links_from_one_folder_are_judged_once_each_naming_its_own_file(
        repo: Path, icm) -> None:
    """A link is resolved and judged once per folder and destination; a
    fragment alone (``#x``, ``?q#x``) names its own file, so it is judged
    per file, and a missed anchor names the target unless it is the
    link's own file."""
    write(repo, {
        "a/README.md": "# A\n\n[own](README.md#gone) [self](#b) [q](?v#gone)\n",
        "a/b.md": "# B\n\n[r](README.md#gone) [self](#b) [q](?v#gone)\n",
        "a/c.md": "# C\n\n[r](README.md#gone) [self](#b) [ok](README.md#a)\n"})
    assert out_lines(icm, repo) == (1, [
        "broken link: a/README.md -> README.md#gone (no heading or anchor #gone)",
        "broken link: a/README.md -> #b (no heading or anchor #b)",
        "broken link: a/README.md -> ?v#gone (no heading or anchor #gone)",
        "broken link: a/b.md -> README.md#gone (no heading or anchor #gone in "
        "a/README.md)",
        "broken link: a/b.md -> ?v#gone (no heading or anchor #gone)",
        "broken link: a/c.md -> README.md#gone (no heading or anchor #gone in "
        "a/README.md)",
        "broken link: a/c.md -> #b (no heading or anchor #b)",
        "links: 7 problems (missing anchor 7)"])


def test_a_target_is_looked_up_in_the_file_set_once_a_run(
        repo: Path, icm, monkeypatch) -> None:
    """Each lookup in the file set searches its blob: a target named by
    many links, from many folders, is looked up once a run (two a link
    was a tenth of PowerShell-Docs' check around the parse)."""
    from icm import context

    write(repo, {f"d{i}/n.md": "[t](../t.md) [u](../t.md#t) [v](../t.md)\n"
                 for i in range(20)})
    write(repo, {"t.md": "# T\n"})
    asked: List[str] = []
    index = context.FileList.index

    def counted(self, rel: str) -> int:
        asked.append(rel)
        return index(self, rel)

    monkeypatch.setattr(context.FileList, "index", counted)
    assert run(icm, repo) == (0, "links ok\n", "")
    assert asked.count("t.md") == 1
