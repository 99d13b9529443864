"""What check-stale's release-bump reading costs, at two sizes and seven shapes.

    python bench/run_releases.py [--notes 100 1000] [--commits 2000] [--runs 5]

For each size a repository is generated with ``git fast-import``: ``--notes``
folders, each a ``context.md``, an ``a.py`` and a ``package.json``, then
``--commits`` commits touching one to three code files at random (a real
change), then every ``a.py`` moves and every note changes a word, then one
of seven endings:

- ``bump``: one release commit bumps every ``package.json`` (each note is
  read back to its own commit: one log, one ``cat-file``; then the word
  check of the notes it cleared);
- ``bound``: ``WALK`` release commits (the walk reads its whole bound for
  every note: the worst case; every note stays STALE);
- ``real``: every ``a.py`` moves again, then a bump (the walk stops at the
  first commit that moved code, for every note: STALE).
- ``code``: every ``a.py`` moves again, nothing after (STALE by a real
  change: before issue 24's reformat rule no walk at all, now one log and
  one ``cat-file`` decide every note at its newest commit);
- ``reformat``: every ``a.py`` is re-laid (``gofmt``-style: a longer run of
  spaces; a blob of each folder's own), every note ok;
- ``reformat-real``: every ``a.py`` moves again, then is re-laid (STALE at
  the real change, the commit before the reformat);
- ``reformat-bound``: ``WALK`` re-layings of every ``a.py`` (the worst case:
  every note read to the bound, STALE).

An older icm on ``PYTHONPATH`` is timed under its stages' old names
(``_pending_bumps``, ``_releases``).

``check-stale`` runs in-process; the table gives the median CPU time (this
process and the git processes it waited for) of the whole check and of the
release stages alone (``_pending_bumps``, ``_releases``), their share, and
the git processes those stages start (``Context.blobs`` reads 1,024 blobs a
``cat-file``, so memory stays a batch's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from run_words import NOTE, imported, opening, table

from icm.checks import stale


def manifest(d: str, version: str, dep: str = "^1.0.0") -> str:
    return json.dumps({"name": d.replace("/", "-"), "version": version,
                       "dependencies": {"left-pad": dep}}, indent=2) + "\n"


def stream(notes: int, commits: int, ending: str, seed: int = 1) -> bytes:
    rng, folders, fast, head = opening(
        notes, seed, lambda d: {f"{d}/package.json": manifest(d, "1.0.0")})
    commit = fast.commit
    deps = {d: "^1.0.0" for d in folders}
    for n in range(commits):
        files = {}
        for d in rng.sample(folders, rng.randint(1, 3)):
            if rng.random() < 0.5:
                files[f"{d}/a.py"] = f"{n}\n"
            else:  # a dependency's range: a real change of the manifest
                deps[d] = f"^1.{n}.0"
                files[f"{d}/package.json"] = manifest(d, "1.0.0", deps[d])
        head = commit(files, head)
    head = commit({f"{d}/a.py": f"code moved in {d}\n" for d in folders}, head)
    head = commit({f"{d}/context.md": NOTE.format(d=d) + "Reread.\n"
                   for d in folders}, head)
    if ending in ("real", "code", "reformat-real"):
        head = commit({f"{d}/a.py": f"moved again in {d}\n" for d in folders},
                      head)
    if ending.startswith("reformat"):
        for n in range(stale.WALK if ending == "reformat-bound" else 1):
            laid = "moved  again" if ending == "reformat-real" else "code   moved"
            head = commit({f"{d}/a.py": f"{laid}{' ' * n} in {d}\n"
                           for d in folders}, head)  # a new blob each time
        return b"".join(fast.out)
    if ending == "code":
        return b"".join(fast.out)
    for n in range(stale.WALK if ending == "bound" else 1):
        head = commit({f"{d}/package.json": manifest(d, f"1.0.{n + 1}", deps[d])
                       for d in folders}, head)
    return b"".join(fast.out)


def build(root: Path, notes: int, commits: int, ending: str) -> None:
    imported(root, stream(notes, commits, ending))


RELEASE_STAGES = tuple(name for name in ("_pending_same", "_last_moving",
                                         "_pending_bumps", "_releases")
                       if hasattr(stale, name))


def main() -> None:
    table("release", ("bump", "bound", "real", "code", "reformat", "reformat-real",
                      "reformat-bound"), RELEASE_STAGES, build)


if __name__ == "__main__":
    sys.exit(main())
