"""Adopt icm on a copy of a repository, as a new user would (issue 24).

    python bench/adoption_trial.py PATH [--icm CMD] [--out FILE] [--keep]

Clones the checkout (or bare repository) at PATH into a temporary folder,
history and all, since the staleness rules read it; a folder that is not a
git repository is copied and committed once. There it runs `icm init`, then
`icm check --format json`, and prints every finding grouped by check and
code, with a count per check (the `ok` lines and other info findings are
counted apart: they ask nothing of anyone). Then it installs the hook the
way docs/adopting.md says (the `icm-check` hook, whose entry is `icm
check`, here as a plain `.git/hooks/pre-commit`: the pre-commit framework
would run the same command on the same index) and commits what init wrote,
reporting whether the hook passed; when it did not, it runs `icm baseline`
(the other way to green docs/adopting.md gives) and commits again.

`--icm CMD` runs another icm, split into words (e.g. an older one:
`--icm "env PYTHONPATH=/tmp/icm-before python -m icm"`). `--out FILE`
writes the findings as JSON for labelling (bench/labels/adoption.json).
Nothing of the repository under trial is executed but git, and nothing is
written outside the temporary folder except `--out`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Sequence

# The commit a trial makes is dated now: the trial asks what a user who
# adopts icm today would see. Identity is fixed so no user config is needed.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "icm trial",
    "GIT_AUTHOR_EMAIL": "trial@example.invalid",
    "GIT_COMMITTER_NAME": "icm trial",
    "GIT_COMMITTER_EMAIL": "trial@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, check=True)


def copy_in(source: Path, dest: Path) -> str:
    """Bring PATH in as a fresh repository at DEST; say how."""
    is_repo = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "--git-dir"],
        capture_output=True, text=True).returncode == 0
    if is_repo:
        try:
            # --no-local: a real copy, so nothing here can reach the source.
            git("clone", "-q", "--no-local", "--", str(source), str(dest),
                cwd=dest.parent)
            return "cloned with history"
        except subprocess.CalledProcessError:
            shutil.rmtree(dest, ignore_errors=True)
        return clone_partial(source, dest)
    shutil.copytree(source, dest, symlinks=True,
                    ignore=shutil.ignore_patterns(".git"))
    git("init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "--no-verify", "-m", "import", cwd=dest)
    return "copied (no history: one commit)"


def clone_partial(source: Path, dest: Path) -> str:
    """A snapshot whose largest blobs are absent (the search tool's fetch):
    copy the objects as they are, check out every file that is there, and
    mark the absent ones skip-worktree, so the index still matches HEAD and
    no commit deletes them."""
    git("clone", "-q", "--local", "--no-checkout", "--", str(source),
        str(dest), cwd=dest.parent)
    git("read-tree", "HEAD", cwd=dest)
    entries = [ln.split("\t", 1) for ln in git(
        "ls-files", "-s", "-z", cwd=dest).stdout.split("\0") if ln]
    blobs = "\n".join(meta.split()[1] for meta, _ in entries) + "\n"
    env = {**os.environ, **GIT_ENV}
    states = subprocess.run(["git", "cat-file", "--batch-check"], cwd=dest,
                            env=env, input=blobs, text=True,
                            capture_output=True, check=True).stdout
    absent = [path for (_, path), state in zip(entries, states.splitlines())
              if state.endswith(" missing")]
    if absent:
        subprocess.run(["git", "update-index", "--skip-worktree", "-z",
                        "--stdin"], cwd=dest, env=env, check=True,
                       input="\0".join(absent) + "\0", text=True)
    git("checkout-index", "-a", cwd=dest)
    return (f"cloned with history; {len(absent)} absent blobs left out "
            "(skip-worktree)")


def run_icm(icm: Sequence[str], args: Sequence[str],
            cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*icm, *args], cwd=cwd, text=True,
                          capture_output=True,
                          env={**os.environ, **GIT_ENV})
    if proc.returncode not in (0, 1):
        sys.exit(f"icm {' '.join(args)} exited {proc.returncode}:\n"
                 f"{proc.stderr}")
    return proc


def findings(report: Dict[str, Any]) -> List[Dict[str, Any]]:
    out = []
    for check in report["checks"]:
        for f in check["findings"]:
            out.append({k: f.get(k) for k in
                        ("check", "code", "severity", "path", "line",
                         "message")})
    return out


def print_grouped(found: List[Dict[str, Any]]) -> None:
    asks = [f for f in found if f["severity"] != "info"]
    info = collections.Counter(f["check"] for f in found
                               if f["severity"] == "info")
    by_check: Dict[str, List[Dict[str, Any]]] = collections.defaultdict(list)
    for f in asks:
        by_check[f["check"]].append(f)
    for check, items in by_check.items():
        print(f"== {check}: {len(items)}")
        codes = collections.Counter(f["code"] for f in items)
        for code, n in codes.most_common():
            print(f"  -- {check}/{code}: {n}")
            for f in items:
                if f["code"] == code:
                    where = f["path"] + (f":{f['line']}" if f["line"] else "")
                    print(f"     {where}: {f['message']}")
    print(f"findings: {len(asks)} ("
          + ", ".join(f"{c} {n}" for c, n in collections.Counter(
              f["check"] for f in asks).most_common())
          + f"); info lines: {sum(info.values())}")


def install_hook(repo: Path, icm: Sequence[str]) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    # The hook's own exit code is kept: on a snapshot with absent blobs git
    # cannot write the tree after a passing hook, and that is no verdict.
    hook.write_text("#!/bin/sh\n" + " ".join(
        shlex.quote(w) for w in (*icm, "check")) + "\nrc=$?\n"
        'echo $rc > "$(git rev-parse --git-dir)/icm-trial-hook"\nexit $rc\n')
    hook.chmod(0o755)


def first_commit(repo: Path) -> Dict[str, Any]:
    git("add", "-A", cwd=repo)
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", "commit", "-q", "-m", "Adopt icm"],
                          cwd=repo, env=env, text=True, capture_output=True)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    summary = next((ln for ln in reversed(lines)
                    if ln.startswith("icm check:")), lines[-1:] or [""])
    mark = repo / ".git" / "icm-trial-hook"
    hook_rc = int(mark.read_text()) if mark.exists() else None
    if mark.exists():
        mark.unlink()
    passed = hook_rc == 0
    if passed and proc.returncode:
        summary = (summary if isinstance(summary, str) else summary[0]) + (
            "; git then could not write the tree (absent blobs)")
    return {"passed": passed,
            "summary": summary if isinstance(summary, str) else summary[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--icm", default="icm",
                    help="the icm to run, split into words (default: icm)")
    ap.add_argument("--out", type=Path, help="write the findings as JSON")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary copy and print its path")
    a = ap.parse_args()
    icm = shlex.split(a.icm)
    source = a.path.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="icm-adopt-"))
    try:
        name = source.parent.name if source.name == "repo" else source.name
        repo = tmp / name.removesuffix(".git")
        how = copy_in(source, repo)
        head = git("rev-parse", "HEAD", cwd=repo).stdout.strip()
        print(f"{source}: {how}, HEAD {head[:12]}")
        print("$ icm init")
        print(run_icm(icm, ["init"], repo).stdout, end="")
        check = run_icm(icm, ["check", "--format", "json"], repo)
        found = findings(json.loads(check.stdout))
        print(f"$ icm check --format json (exit {check.returncode})")
        print_grouped(found)
        install_hook(repo, icm)
        commit = first_commit(repo)
        print("first commit after adoption, hook installed: "
              + ("passed" if commit["passed"] else "refused")
              + f" ({commit['summary']})")
        if not commit["passed"]:
            # docs/adopting.md's other way to green: today's findings kept
            base = subprocess.run([*icm, "baseline"], cwd=repo, text=True,
                                  capture_output=True,
                                  env={**os.environ, **GIT_ENV})
            if base.returncode == 0:
                commit["after_baseline"] = first_commit(repo)
                print("after icm baseline: " + (
                    "passed" if commit["after_baseline"]["passed"] else
                    "refused") + f" ({commit['after_baseline']['summary']})")
            else:
                print("after icm baseline: not run (exit "
                      f"{base.returncode}: {base.stderr.strip()[:80]})")
        if a.out:
            a.out.write_text(json.dumps({
                "source": str(source), "commit": head, "icm": a.icm,
                "check_exit": check.returncode, "first_commit": commit,
                "findings": found}, indent=1) + "\n")
        if a.keep:
            print(f"kept: {repo}")
    finally:
        if not a.keep:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
