"""A release bump moves no code (issue 24's trial, round 2): a commit whose
change to a folder's code is only the package's own version in its manifest
(``stale.MANIFESTS``), in history and in the work tree. A version anywhere
else (a dependency's range, ``__version__`` in code) is a change of code."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icm import registry
from icm.checks import stale as stale_mod
from tests.conftest import commit, git, write
from tests.test_stale import _git_processes
from tests.test_stale_pending import ICM, hooked_commit, install_hook

D1 = "2026-10-01T12:00:00+00:00"
D5 = "2026-10-05T12:00:00+00:00"
D9 = "2026-10-09T12:00:00+00:00"
D10 = "2026-10-10T12:00:00+00:00"

OK = "pkg/context.md: ok\n"
NOTE = "# pkg\n\nWhy the parser keeps\nthe raw rows.\n"


def stale(icm, root: Path, *extra: str):
    return icm("check-stale", "--root", str(root), *extra)


def moved(days: int) -> str:
    return (f"pkg/context.md: STALE - code in pkg moved {days} day"
            + "s" * (days != 1) + " after the note\n")


def package_json(version: str, dep: str = "^1.0.0", name: str = "rows") -> str:
    return json.dumps({"name": name, "version": version,
                       "dependencies": {"left-pad": dep}}, indent=2) + "\n"


def cargo_toml(version: str, dep: str = "1.0") -> str:
    return (f'[package]\nname = "rows"\nversion = "{version}"\n\n'
            f'[dependencies]\nserde = "{dep}"\n')


def pyproject(version: str, dep: str = ">=1") -> str:
    return (f'[project]\nname = "rows"\nversion = "{version}"\n'
            f'dependencies = ["attrs{dep}"]\n')


def poetry(version: str, dep: str = "^1") -> str:
    return (f'[tool.poetry]\nname = "rows"\nversion = "{version}"\n\n'
            f'[tool.poetry.dependencies]\nattrs = "{dep}"\n')


def workspace_cargo(version: str, dep: str = "1.0") -> str:
    return (f'[workspace]\nmembers = ["a"]\n\n[workspace.package]\n'
            f'version = "{version}"\n\n[workspace.dependencies]\nserde = "{dep}"\n')


def chart_yaml(version: str, dep: str = "1.0.0") -> str:
    """Helm's: the chart's own version and its app's, bumped together; a
    dependency's version is indented under ``dependencies:``."""
    return (f'apiVersion: v2\nname: rows\nversion: {version}\n'
            f'appVersion: "{version}"\ndependencies:\n  - name: valkey\n'
            f'    version: {dep}\n')


MANIFESTS = [("Chart.yaml", chart_yaml), ("package.json", package_json),
             ("Cargo.toml", cargo_toml),
             ("pyproject.toml", pyproject), ("pyproject.toml", poetry),
             ("Cargo.toml", workspace_cargo), ("deno.json", package_json),
             ("composer.json", package_json), ("jsr.json", package_json)]
IDS = [f"{name}-{make.__name__}" for name, make in MANIFESTS]


def adopted(repo: Path, name: str, make) -> None:
    """A note written with its code; then real code, then the note reread."""
    commit(repo, {"pkg/context.md": NOTE, f"pkg/{name}": make("0.9.0"),
                  "pkg/rows.py": "1"}, D1)


@pytest.mark.parametrize("name,make", MANIFESTS, ids=IDS)
def test_a_release_bump_alone_moves_no_code(repo: Path, icm, name, make) -> None:
    adopted(repo, name, make)
    commit(repo, {f"pkg/{name}": make("0.9.1")}, D5, "chore(release): 0.9.1")
    commit(repo, {f"pkg/{name}": make("0.10.0")}, D9, "chore(release): 0.10.0")
    assert stale(icm, repo) == (0, OK, "")
    write(repo, {f"pkg/{name}": make("0.10.1")})  # pending: `npm version`
    assert stale(icm, repo) == (0, OK, "")
    git(repo, "add", "-A")  # staged, as the release commit's hook sees it
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("name,make", MANIFESTS, ids=IDS)
def test_a_dependency_version_is_code(repo: Path, icm, name, make) -> None:
    """Only the package's own version: a range bump changes what is built."""
    adopted(repo, name, make)
    commit(repo, {f"pkg/{name}": make("0.9.0", "2.0.0")}, D9)
    assert stale(icm, repo) == (1, moved(8), "")


def test_a_bump_with_a_change_of_code_moves_it(repo: Path, icm) -> None:
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/package.json": package_json("0.9.1"), "pkg/rows.py": "2"},
           D9)
    assert stale(icm, repo) == (1, moved(8), "")


def test_code_before_a_bump_still_decides(repo: Path, icm) -> None:
    """The newest commit is a bump: the newest one that moved code decides,
    with its own date in the message."""
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/rows.py": "2"}, D5)
    commit(repo, {"pkg/package.json": package_json("0.9.1")}, D9)
    assert stale(icm, repo) == (1, moved(4), "")


def test_a_manifest_bump_beyond_the_version_is_code(repo: Path, icm) -> None:
    """A release commit that also renames the package (or adds a script)."""
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/package.json": package_json("0.9.0", name="rows2")}, D5)
    commit(repo, {"pkg/package.json": package_json("0.9.1", name="rows2")}, D9)
    assert stale(icm, repo) == (1, moved(4), "")


def test_reformatting_a_manifest_moves_no_code(repo: Path, icm) -> None:
    """The manifest's data is compared, not its text: the note's own rule
    (a change of words), for a file read as data."""
    adopted(repo, "package.json", package_json)
    data = json.loads(package_json("0.9.1"))
    commit(repo, {"pkg/package.json": json.dumps(dict(reversed(data.items())))},
           D9)
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("path,before,after", [
    ("pkg/__init__.py", '__version__ = "0.9.0"\n', '__version__ = "0.9.1"\n'),
    ("pkg/version.txt", "0.9.0\n", "0.9.1\n"),
    ("pkg/app.json", '{"version": "0.9.0"}', '{"version": "0.9.1"}'),
    ("pkg/setup.cfg", "[metadata]\nversion = 0.9.0\n", "[metadata]\nversion = 0.9.1\n"),
])
def test_a_version_outside_a_manifest_is_code(repo: Path, icm, path, before,
                                              after) -> None:
    """Decided: a version in code or in a file not named as a manifest moves
    code; a constant in code is what the code says."""
    commit(repo, {"pkg/context.md": NOTE, path: before}, D1)
    commit(repo, {path: after}, D9)
    assert stale(icm, repo) == (1, moved(8), "")


@pytest.mark.parametrize("broken", ['{"version": "0.9.1",', "[" * 5000 + "]" * 5000,
                                    b"\xff\xfe", '{"version": 1' + "0" * 5000 + "}"])
def test_a_manifest_that_cannot_be_read_is_code(repo: Path, icm, broken) -> None:
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/package.json": broken}, D9)
    assert stale(icm, repo) == (1, moved(8), "")
    write(repo, {"pkg/package.json": package_json("0.9.0")})  # and back, pending
    assert stale(icm, repo) == (
        1, "pkg/context.md: STALE - code in pkg changed (uncommitted) after the "
        "note\n", "")


def test_a_toml_manifest_past_its_cost_is_code(repo: Path, icm) -> None:
    adopted(repo, "Cargo.toml", cargo_toml)
    commit(repo, {"pkg/Cargo.toml": cargo_toml("0.9.1") + "a" + ".a" * 1500
                  + " = 1\n"}, D9)
    assert stale(icm, repo) == (1, moved(8), "")


def test_a_pending_bump_beside_pending_code_is_stale(repo: Path, icm) -> None:
    adopted(repo, "package.json", package_json)
    write(repo, {"pkg/package.json": package_json("0.9.1"), "pkg/rows.py": "2"})
    assert stale(icm, repo) == (
        1, "pkg/context.md: STALE - code in pkg changed (uncommitted) after the "
        "note\n", "")


def test_a_wordless_note_change_before_a_bump_stays_stale(repo: Path, icm) -> None:
    """Code moved, the note got an empty line, then a release: the note's
    last change of words is older than the code."""
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/rows.py": "2"}, D5)
    commit(repo, {"pkg/context.md": NOTE + "\n"}, D9)
    commit(repo, {"pkg/package.json": package_json("0.9.1")}, D10)
    assert stale(icm, repo)[0] == 1


def test_a_bump_after_a_reviewed_note_is_ok(repo: Path, icm) -> None:
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/rows.py": "2"}, D5)
    commit(repo, {"pkg/context.md": NOTE + "\nRows stay raw.\n"}, D9)
    commit(repo, {"pkg/package.json": package_json("0.9.1")}, D10)
    assert stale(icm, repo) == (0, OK, "")


def test_a_bump_of_an_ignored_manifest_path_is_still_no_code(repo: Path,
                                                             icm) -> None:
    """Lockfiles beside the bump (a release's lockfile refresh) stay aside."""
    adopted(repo, "package.json", package_json)
    commit(repo, {"pkg/package.json": package_json("0.9.1"),
                  "pkg/package-lock.json": "v2", "pkg/CHANGELOG.md": "0.9.1"}, D9)
    assert stale(icm, repo) == (0, OK, "")


@pytest.mark.parametrize("path", ["pkg/CHANGELOG", "pkg/CHANGELOG.rst",
                                  "pkg/CHANGES.txt", "pkg/HISTORY.rst", "pkg/NEWS"])
def test_a_changelog_in_any_format_is_no_code(repo: Path, icm, path) -> None:
    """A release writes what the code did: a changelog is not code, as a
    `.md` one is prose; a file merely named like one is code."""
    adopted(repo, "package.json", package_json)
    commit(repo, {path: "0.9.1: rows stay raw\n",
                  "pkg/package.json": package_json("0.9.1")}, D9)
    assert stale(icm, repo) == (0, OK, "")
    write(repo, {path: "0.9.2\n"})
    assert stale(icm, repo) == (0, OK, "")
    commit(repo, {"pkg/news.py": "1"}, D10)
    assert stale(icm, repo) == (1, moved(9), "")


def test_the_walk_stops_at_its_bound(repo: Path, icm, monkeypatch) -> None:
    """Past ``WALK`` bumps the note keeps its verdict: the log is cut."""
    monkeypatch.setattr(stale_mod, "WALK", 3)
    monkeypatch.setattr(stale_mod, "NET_CAP", 0)  # the net change would clear it
    adopted(repo, "package.json", package_json)
    for i in range(1, 4):
        commit(repo, {"pkg/package.json": package_json(f"0.9.{i}")},
               f"2026-10-0{i + 1}T12:00:00+00:00")
    assert stale(icm, repo) == (1, moved(3), "")
    monkeypatch.setattr(stale_mod, "WALK", 4)
    assert stale(icm, repo) == (0, OK, "")


def test_a_release_through_a_base_and_a_merge(repo: Path, icm) -> None:
    """A branch that only bumps versions, judged with ``--base`` and after
    a merge commit: ok both ways."""
    adopted(repo, "package.json", package_json)
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "release")
    commit(repo, {"pkg/package.json": package_json("0.9.1")}, D5)
    assert stale(icm, repo, "--base", "main") == (0, OK, "")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"other.txt": "x"}, D9)
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "release", when=D10)
    assert stale(icm, repo) == (0, OK, "")


def test_releases_cost_a_fixed_number_of_git_processes(repo: Path, icm,
                                                       monkeypatch) -> None:
    """Only notes history left behind pay: one log and one ``cat-file`` for
    all of them, whatever their number (and the word check of those it
    clears, as of any ok note)."""
    counts = []
    for size in (1, 12):  # each note its own fact: one text in 3 is a stamp
        for i in range(size):
            commit(repo, {f"s{size}/f{i}/context.md": f"{NOTE}Row {i}.\n",
                          f"s{size}/f{i}/package.json": package_json("1.0.0"),
                          f"s{size}/f{i}/x.py": "1"}, D1)
        commit(repo, {f"s{size}/f{i}/package.json": package_json("1.0.1")
                      for i in range(size)}, D5)
        started = _git_processes(monkeypatch)
        code, out, _ = stale(icm, repo)
        monkeypatch.undo()
        assert (code, out.count(": ok\n")) == (0, out.count("\n"))
        counts.append(len(started))
    assert counts[0] == counts[1]
    commit(repo, {f"s{size}/f{i}/x.py": "2" for size in (1, 12)
                  for i in range(size)}, D9)
    started = _git_processes(monkeypatch)
    assert stale(icm, repo)[1].count("STALE") == 13
    monkeypatch.undo()
    # the walk and its cat-file (every STALE note asks whether a token moved),
    # HEAD's hash and the net diff-tree (its blobs the walk read): two
    # more; no word check of notes it cleared: one fewer (the ok run's word
    # check read no blob: each note was added by its deciding commit)
    assert not any("--no-walk=unsorted" in argv for argv in started)
    assert sum("diff-tree" in argv for argv in started) == 1
    assert len(started) == counts[0] + 1


def test_a_release_commit_passes_the_hook(repo: Path, tmp_path: Path) -> None:
    """Through a real pre-commit hook: a changesets-style release (versions,
    a changelog) is taken; a code change beside it is refused."""
    hook = ("repos:\n- repo: local\n  hooks:\n  - id: icm-check-stale\n"
            f"    name: icm check-stale\n    entry: {ICM} check-stale\n"
            "    language: system\n    pass_filenames: false\n"
            "    always_run: true\n")
    commit(repo, {".pre-commit-config.yaml": hook, "pkg/context.md": NOTE,
                  "pkg/package.json": package_json("0.9.0"), "pkg/rows.py": "1"},
           D1)
    env = install_hook(repo, tmp_path)
    write(repo, {"pkg/package.json": package_json("0.9.1"),
                 "pkg/CHANGELOG.md": "## 0.9.1\n"})
    git(repo, "add", "-A")
    assert hooked_commit(repo, env).returncode == 0
    write(repo, {"pkg/package.json": package_json("0.9.2"), "pkg/rows.py": "2"})
    git(repo, "add", "-A")
    refused = hooked_commit(repo, env)
    assert refused.returncode == 1 and "STALE - code in pkg changed" in \
        refused.stdout + refused.stderr


versions = st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}", fullmatch=True)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10),
                    st.text(max_size=5))
data = st.dictionaries(st.text(min_size=1, max_size=5).filter(
    lambda k: k != "version"), st.one_of(scalars, st.lists(scalars, max_size=3)),
    max_size=5)


@settings(max_examples=200, deadline=None)
@given(data, versions, versions, st.booleans())
def test_only_the_version_is_set_aside(doc, old, new, indent) -> None:
    """The digest of a package.json ignores its own version and its layout,
    and sees every other change (a key's value, its type)."""
    def text(d):
        return json.dumps(d, indent=2 if indent else None).encode()
    a = stale_mod.manifest_digest("package.json", text({**doc, "version": old}))
    b = stale_mod.manifest_digest("package.json", text({"version": new, **doc}))
    assert a is not None and a == b
    for key in doc:  # every string generated is at most 5 characters
        other = {**doc, key: "changed"}
        assert stale_mod.manifest_digest(
            "package.json", text({**other, "version": old})) != a


def test_a_value_keeps_its_type() -> None:
    digest = stale_mod.manifest_digest
    assert digest("package.json", b'{"private": true}') != digest(
        "package.json", b'{"private": 1}')


def test_no_file_but_a_manifest_has_a_digest() -> None:
    assert stale_mod.manifest_digest("pkg/rows.json", b'{"version": "1"}') is None
    assert stale_mod.manifest_digest("pkg/package.json", None) is None
    big = b'{"a": "' + b"x" * stale_mod.WORDS_CAP + b'"}'
    assert stale_mod.manifest_digest("package.json", big) is None


def test_docs_name_the_manifests() -> None:
    checks = Path(__file__).parent.parent / "docs" / "checks.md"
    text = checks.read_text()
    for name in stale_mod.MANIFESTS:
        assert f"`{name}`" in text
    assert "release bump" in (stale_mod.__doc__ or "")
    assert "bump of a manifest's own version" in registry.BY_NAME["stale"].help
    assert "release bump" in stale_mod.RULES["stale"].summary


def test_a_pending_manifest_is_read_only_where_it_would_stale_a_note(
        repo: Path, icm, monkeypatch) -> None:
    """No ``ls-tree`` for a manifest no note speaks for, or one whose note
    changes words in the same commit; one for a manifest under a note
    that does not."""
    def trees() -> int:
        started = _git_processes(monkeypatch)
        found = stale(icm, repo)
        monkeypatch.undo()
        return found, sum("ls-tree" in argv for argv in started)

    adopted(repo, "package.json", package_json)
    commit(repo, {"other/package.json": package_json("1.0.0")}, D5)
    assert trees() == ((0, OK, ""), 0)
    write(repo, {"other/package.json": package_json("2.0.0", "9"),
                 "pkg/package.json": package_json("0.9.0", "9"),
                 "pkg/context.md": NOTE + "\nA new dependency.\n"})
    # the pending note's own words only
    assert trees() == ((0, "pkg/context.md: ok (pending)\n", ""), 1)
    write(repo, {"pkg/context.md": NOTE})
    assert trees() == ((1, "pkg/context.md: STALE - code in pkg changed "
                        "(uncommitted) after the note\n", ""), 1)
