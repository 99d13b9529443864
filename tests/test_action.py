"""The GitHub action runs nothing of the repository it checks.

On a pull request the workspace is the pull request's checkout. The action
(``action.yml``) must import nothing from it, start no program found in it,
leave no token in it and write through no symlink of it. The static rules
are one function, ``problems``, which the README's examples pass too
(``test_docs.py``); the real-process test runs the action's own scripts in
a hostile workspace.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

from tests.conftest import commit, git, git_env

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
BASH = shutil.which("bash") or "bash"
SHA = re.compile(r"[0-9a-f]{40}")
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$", re.M)
# A command that starts an interpreter: python, python3.12, a path or a
# variable naming one ("$py", "$ICM_PYTHON").
PYTHON = re.compile(r"(?i)(?:^|/|\$\{?)\w*py(?:thon)?[\d.]*(?:\.exe)?\}?$")
CONSOLE_SCRIPTS = re.compile(r"^(?:.*/)?(?:pip[\d.]*|icm)$")
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
            "!", "exec", "time", "command", "esac", "{", "}"}
SEPARATORS = {";", ";;", "&&", "||", "|", "&", "(", ")", "\n"}


def steps(doc: dict) -> Iterator[dict]:
    """The steps of an action (``runs.steps``) or of a workflow's jobs."""
    yield from (doc.get("runs") or {}).get("steps") or ()
    for job in (doc.get("jobs") or {}).values():
        yield from job.get("steps") or ()


def commands(script: str) -> Iterator[List[str]]:
    """The simple commands of a bash script, each as its words."""
    lexer = shlex.shlex(script.replace("\\\n", " "), posix=True,
                        punctuation_chars=True)
    lexer.whitespace = " \t\r"
    lexer.commenters = "#"
    words: List[str] = []
    for token in lexer:
        if token in SEPARATORS or set(token) <= set(";&|()<>\n"):
            if token in SEPARATORS and words:
                yield words
                words = []
            elif token not in SEPARATORS:
                words.append(token)
            continue
        if not words and token in KEYWORDS:
            continue
        words.append(token)
    if words:
        yield words


def problems(text: str, placeholder: Optional[str] = None) -> List[str]:
    """What in a workflow or action file breaks the action's trust rules:
    every ``uses:`` pinned to a commit with its tag in a comment, checkout
    with ``persist-credentials: false``, no expression pasted into a script,
    every Python started with ``-I`` from outside the workspace, no pip or
    icm console script. ``placeholder`` is a ``uses:`` a reader fills in."""
    found = []
    for ref, comment in USES.findall(text):
        if ref == placeholder or ref.startswith(("./", "docker://")):
            continue
        rev = ref.partition("@")[2]
        if not SHA.fullmatch(rev):
            found.append(f"{ref}: not pinned to a commit")
        elif not re.fullmatch(r"\s+# v\d+(\.\d+)*", comment):
            found.append(f"{ref}: no '# vN.N.N' comment naming the tag")
    for step in steps(yaml.safe_load(text)):
        name = step.get("name") or step.get("uses") or "a step"
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            if (step.get("with") or {}).get("persist-credentials") is not False:
                found.append(f"{name}: no 'persist-credentials: false'")
        script = step.get("run")
        if script is None:
            continue
        if "${{" in script:
            found.append(f"{name}: an expression pasted into the script")
        starts_python = False
        for words in commands(script):
            if "=" in words[0] and not words[0].startswith(("$", '"')):
                continue  # an assignment
            if CONSOLE_SCRIPTS.match(words[0]):
                found.append(f"{name}: runs {words[0]} (a console script: "
                             "no -I)")
            elif PYTHON.search(words[0]):
                starts_python = True
                if words[1:2] != ["-I"]:
                    found.append(f"{name}: runs {' '.join(words[:3])} "
                                 "without -I")
        where = str(step.get("working-directory", "${{ github.workspace }}"))
        if starts_python and "github.workspace" in where:
            found.append(f"{name}: runs Python in the workspace")
    return found


def test_the_action_keeps_every_trust_rule() -> None:
    assert problems(ACTION.read_text()) == []


def test_the_rules_catch_the_action_as_it_was() -> None:
    """The action before issue 22, trimmed: each hole is named."""
    old = """\
runs:
  using: composite
  steps:
    - uses: actions/checkout@v4
      with:
        fetch-depth: 0
    - uses: actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97
    - name: Install icm
      shell: bash
      run: python -m pip install "${{ github.action_path }}[fast]"
    - name: icm check
      shell: bash
      run: |
        set -f
        if [ "$ICM_FORMAT" = sarif ]; then
          icm check --format sarif > "$ICM_SARIF"
        else "$ICM_PYTHON" -m icm check; pip3 list; fi
"""
    assert problems(old) == [
        "actions/checkout@v4: not pinned to a commit",
        "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97: no "
        "'# vN.N.N' comment naming the tag",
        "actions/checkout@v4: no 'persist-credentials: false'",
        "Install icm: an expression pasted into the script",
        "Install icm: runs python -m pip without -I",
        "Install icm: runs Python in the workspace",
        "icm check: runs icm (a console script: no -I)",
        "icm check: runs $ICM_PYTHON -m icm without -I",
        "icm check: runs pip3 (a console script: no -I)",
        "icm check: runs Python in the workspace",
    ]


def test_cache_saved_by_a_pull_request_never_reaches_a_push() -> None:
    """GitHub scopes caches by branch; the key scopes them by event too, so
    no cache service can hand a push run what a pull_request run saved."""
    doc = yaml.safe_load(ACTION.read_text())
    (restore,) = [s for s in steps(doc) if "cache/restore@" in s.get("uses", "")]
    (save,) = [s for s in steps(doc) if "cache/save@" in s.get("uses", "")]
    key = "icm-${{ runner.os }}-${{ github.event_name }}-${{ github.sha }}"
    assert restore["with"]["key"] == save["with"]["key"] == key
    prefixes = restore["with"]["restore-keys"].strip().splitlines()
    for event in ("push", "pull_request", "pull_request_target", "schedule"):
        saved = key.replace("${{ github.event_name }}", event)
        for reader in ("push", "pull_request"):
            hits = [p for p in prefixes
                    if saved.startswith(p.replace("${{ github.event_name }}",
                                                  reader))]
            assert bool(hits) == (event in (reader, "push")), (event, reader)


# -- the action's scripts, run for real in a hostile workspace ----------------

MODULES = ("pip", "venv", "ensurepip", "setuptools", "icm", "typer",
           "markdown_it", "git")
PROGRAMS = ("git", "python", "python3", "pip", "pip3", "icm", "uname",
            "lsb_release", "rm", "cat")


def plant(ws: Path, markers: Path) -> Dict[str, str]:
    """Every way a workspace could run code in the job, each writing a
    marker named after itself; the environment a careless job might have
    (its PATH and PYTHONPATH into the workspace, a user site there)."""
    def mark(name: str) -> str:
        path = markers / name.replace("/", "-").replace(" ", "-")
        return f"open({str(path)!r}, 'w').close()\n"

    files: Dict[str, str] = {}
    for module in MODULES:
        files[f"{module}/__init__.py"] = mark(f"{module}/__init__.py")
        files[f"{module}/__main__.py"] = mark(f"{module}/__main__.py")
    for module in ("sitecustomize", "usercustomize", "evil_backend"):
        files[f"{module}.py"] = mark(f"{module}.py")
    files["workspace.pth"] = "import os; " + mark("workspace.pth")
    files["setup.py"] = mark("setup.py")
    files["pyproject.toml"] = ('[build-system]\nrequires = []\n'
                               'build-backend = "evil_backend"\n'
                               'backend-path = ["."]\n')
    files["pip.conf"] = f"[global]\nlog = {markers / 'pip.conf'}\n"
    user_site = sysconfig.get_path("purelib", f"{os.name}_user",
                                   {"userbase": str(ws / ".user")})
    rel_site = Path(user_site).relative_to(ws)
    files[f"{rel_site}/usercustomize.py"] = mark("user site usercustomize.py")
    files[f"{rel_site}/user.pth"] = "import os; " + mark("user site .pth")
    for program in PROGRAMS:
        files[f"bin/{program}"] = f"#!/bin/sh\n: > '{markers}/bin-{program}'\n"
    files["AGENTS.md"] = "# H\n[x](gone.md)\n"
    commit(ws, files, "2026-11-01T12:00:00+00:00")
    for program in PROGRAMS:
        (ws / "bin" / program).chmod(0o755)
    return {"PATH": f"{ws / 'bin'}:bin:.::{os.environ['PATH']}",
            "PYTHONPATH": str(ws), "PYTHONUSERBASE": str(ws / ".user")}


def copy_action(dest: Path) -> Path:
    """The action's folder as the runner would download it: the files git
    has, without this checkout's venv, caches and build output."""
    names = git(ROOT, "ls-files", "-z", "--cached", "--others",
                "--exclude-standard").split("\0")
    for name in filter(None, names):
        source, target = ROOT / name, dest / name
        if not source.is_symlink() and not source.is_file():
            continue  # deleted in the work tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            target.write_bytes(source.read_bytes())
    return dest


def offline(venv: Path) -> Dict[str, str]:
    """pip with no index: the venv the action makes is seeded with a .pth
    showing it this environment's packages, so every requirement is found
    installed and icm's wheel is built with this setuptools."""
    scheme = "venv" if "venv" in sysconfig.get_scheme_names() else (
        "nt" if os.name == "nt" else "posix_prefix")
    site = Path(sysconfig.get_path("purelib", scheme,
                                   {"base": str(venv), "platbase": str(venv)}))
    site.mkdir(parents=True)
    here = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_offline.pth").write_text("".join(f"{p}\n" for p in sorted(here)))
    return {"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
            "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


class Runner:
    """Runs an action step's ``run:`` as the runner does: the script in a
    file, ``bash --noprofile --norc -eo pipefail``, the step's ``env:`` with
    its expressions evaluated (an unknown expression fails the test)."""

    def __init__(self, tmp: Path, ws: Path, env: Dict[str, str],
                 values: Dict[str, str]) -> None:
        self.tmp, self.ws, self.values = tmp, ws, values
        self.env = {k: v for k, v in git_env().items()
                    if not k.startswith(("PIP_", "PYTHON", "ICM_"))}
        self.env.update(env, GITHUB_WORKSPACE=str(ws),
                        GITHUB_ACTION_PATH=values["github.action_path"],
                        RUNNER_TEMP=values["runner.temp"])
        self.doc = yaml.safe_load(ACTION.read_text())

    def expand(self, text: str) -> str:
        return re.sub(r"\$\{\{\s*(.*?)\s*\}\}",
                      lambda m: self.values[m.group(1)], text)

    def run(self, name: str, **values: str) -> subprocess.CompletedProcess:
        self.values.update(values)
        (step,) = [s for s in steps(self.doc) if s.get("name") == name]
        script = self.tmp / "step.sh"
        script.write_text(self.expand(step["run"]))
        env = dict(self.env, **{k: self.expand(v)
                                for k, v in step.get("env", {}).items()})
        # the workspace as the working directory: the harsher case than
        # the step's own (the static rules hold that one)
        return subprocess.run([BASH, "--noprofile", "--norc", "-eo",
                               "pipefail", str(script)], cwd=self.ws, env=env,
                              capture_output=True, text=True)


def test_a_hostile_workspace_runs_nothing(repo: Path, tmp_path: Path) -> None:
    markers, temp, outside = (tmp_path / d for d in ("markers", "temp", "out"))
    for folder in (markers, temp, outside):
        folder.mkdir()
    hostile_env = plant(repo, markers)
    values = {"github.action_path": str(copy_action(tmp_path / "action")),
              "runner.temp": str(temp),
              "steps.python.outputs.python-path": sys.executable,
              "github.base_ref && format('origin/{0}', github.base_ref) || ''": "",
              "inputs.root": ".", "inputs.args": "", "inputs.format": "github",
              "inputs.sarif-file": "icm.sarif"}
    runner = Runner(tmp_path, repo, dict(hostile_env, **offline(temp / "icm-venv")),
                    values)

    def fired() -> List[str]:
        return sorted(p.name for p in markers.iterdir())

    install = runner.run("Install icm")
    assert fired() == []
    assert install.returncode == 0, install.stderr

    github = runner.run("icm check")
    assert fired() == []
    assert (github.returncode, github.stderr) == (1, "")
    assert github.stdout == (
        "journal ok\n"
        "::error file=AGENTS.md,line=2,title=icm links/missing-file::broken "
        "link: AGENTS.md -> gone.md (fix: fix the path or restore the file)\n"
        "links: 1 problem (missing file 1)\n"
        "background notes, by size:\n"
        "cold-boot set: 17 bytes, about 4 tokens (budget 1600)\n"
        "queue ok (no base branch to compare with)\ndupes ok\npositions ok\n"
        "icm check: 1 of 9 checks failed (links: 1 error)\n")

    # the checkout's icm.sarif is a symlink to a file outside: the link is
    # replaced, the file it pointed at is untouched
    victim = outside / "victim"
    victim.write_text("keep\n")
    (repo / "icm.sarif").symlink_to(victim)
    sarif = runner.run("icm check", **{"inputs.format": "sarif"})
    assert fired() == []
    assert (sarif.returncode, sarif.stdout) == (1, ""), sarif.stderr
    assert victim.read_text() == "keep\n"
    assert not (repo / "icm.sarif").is_symlink()
    assert '"ruleId": "links/missing-file"' in (repo / "icm.sarif").read_text()

    # a symlinked folder on the way is refused, nothing written beyond it
    (repo / "out").symlink_to(outside, target_is_directory=True)
    refused = runner.run("icm check", **{"inputs.format": "sarif",
                                         "inputs.sarif-file": "out/icm.sarif"})
    assert fired() == []
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2, "", "icm: sarif-file: out is a symlink; not writing through it\n")
    assert sorted(p.name for p in outside.iterdir()) == ["victim"]
