"""Every git fact icm needs; the only module that imports gitpython.

Raw ``git`` runs where streaming speed matters (the history pass, file lists);
GitPython gives the repository handle for the facts that are not hot. Every
git process, GitPython's included, starts from ``environment(cwd)``: inherited
``GIT_*`` variables scrubbed (a hook's ``GIT_DIR`` or ``GIT_OBJECT_DIRECTORY``
never points icm at another repository) and every setting that could start a
program, reach the network or change what icm parses pinned.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import selectors
import shutil
import subprocess
from pathlib import Path
from typing import (
    IO,
    Callable,
    Counter,
    Dict,
    FrozenSet,
    Generator,
    Iterator,
    List,
    NamedTuple,
    NewType,
    Optional,
    Protocol,
    Sequence,
    Set,
    Tuple,
)

from icm.errors import UsageError

# Keep config-file choices a user set on purpose; drop everything that
# relocates the repository, its index or its object store, and every other
# GIT_* knob (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS...).
_KEEP = {"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"}

# Settings pinned on every git call. They travel as GIT_CONFIG_COUNT pairs in
# the environment (command-line precedence, and no '=' splitting of keys), so
# GitPython's processes get them too.
PINNED: Tuple[Tuple[str, str], ...] = (
    # Nothing may start a program: hooks (an index write runs
    # post-index-change), fsmonitor, credential helpers, askpass, gc.
    ("core.hooksPath", os.devnull),  # <devnull>/<hook> is never a file
    ("core.fsmonitor", "false"),
    ("credential.helper", ""),  # an empty value clears the helper list
    ("core.askPass", ""),
    ("protocol.allow", "never"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    # Nothing may change what icm parses.
    ("core.quotePath", "false"),
    ("color.ui", "false"),
    ("log.showRoot", "true"),
    ("log.follow", "false"),
    ("log.showSignature", "false"),
    ("log.decorate", "false"),
    ("log.abbrevCommit", "false"),
    ("log.mailmap", "false"),
    ("log.date", "default"),
    ("format.pretty", "medium"),
    ("i18n.logOutputEncoding", "UTF-8"),
    ("diff.renames", "false"),
    ("diff.noprefix", "false"),
    ("diff.relative", "false"),
    ("diff.ignoreSubmodules", "none"),
)

# Fixed variables: no prompt, no lazy fetch from a promisor remote (git
# 2.44+; older git is stopped by GIT_ALLOW_PROTOCOL), no transport at all (an
# empty allow list beats every protocol.<name>.allow), no editor (":" is
# git's "do nothing"), no optional index refresh.
FIXED_ENV = {
    "LC_ALL": "C",
    "LANGUAGE": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_ALLOW_PROTOCOL": "",
    "GIT_ASKPASS": "",
    "GIT_EDITOR": ":",
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_OPTIONAL_LOCKS": "0",
}

BASE = ("--no-pager", "--literal-pathspecs")

# Diffs read no converted content and run no external diff program.
DIFF_SAFETY = ("--no-textconv", "--no-ext-diff", "--ignore-submodules=none")
# A call that compares the work tree looks at a submodule's commit only: its
# dirty check is a ``git status`` inside the submodule, under the
# submodule's own config (filters, fsmonitor), which no pinned setting
# reaches (git drops GIT_CONFIG_COUNT for it). A moved submodule still counts.
WORKTREE_SUBMODULES = "--ignore-submodules=dirty"

PARTIAL_HINT = (
    "partial clone: reading history would fetch missing objects from the "
    "promisor remote; make a full clone (actions/checkout without 'filter:'), "
    "or pass --allow-partial to read only what is present")
PARTIAL_MISSING = (
    "partial clone: history needs objects this clone lacks, and icm never "
    "fetches; make a full clone, or one with --filter=blob:none (history "
    "needs no file contents)")


def _search_path() -> str:
    """PATH without empty or relative entries: '.' in PATH must never find a
    ``git`` inside the repository."""
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(p for p in entries if p and os.path.isabs(p))


_resolved: Dict[str, Optional[str]] = {}


def executable() -> Optional[str]:
    """Absolute path of ``git``, resolved once per PATH value."""
    search = _search_path()
    if search not in _resolved:
        found = shutil.which("git", path=search)
        _resolved[search] = os.path.abspath(found) if found else None
    return _resolved[search]


def available() -> bool:
    return executable() is not None


def clean_env() -> Dict[str, str]:
    """The environment without inherited GIT_* variables, with a safe PATH
    and the fixed variables above (no repository-specific settings)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") or k in _KEEP}
    env["PATH"] = _search_path()
    env.update(FIXED_ENV)
    return env


def _with_config(env: Dict[str, str], pairs: Sequence[Tuple[str, str]]) -> None:
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value


class Setup:
    """What the repository's configuration says that icm must neutralise or
    refuse: filter drivers (names come from config, so they can be listed)
    and whether this is a partial clone."""

    def __init__(self, filters: Tuple[str, ...], partial: bool) -> None:
        self.filters = filters
        self.partial = partial


_SETUP_KEYS = (r"^(filter\..+\.(clean|smudge|process)|extensions\.partialclone"
               r"|remote\..+\.promisor)$")


def setup(cwd: Path) -> Setup:
    """One ``git config`` read: the filter drivers and promisor remotes."""
    exe = executable()
    if exe is None:
        raise UsageError("git is not installed or not on PATH")
    proc = subprocess.run(
        [exe, *BASE, "config", "-z", "--get-regexp", _SETUP_KEYS], cwd=str(cwd),
        env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL)
    filters = set()
    partial = False
    for item in proc.stdout.split(b"\0"):
        key, _, value = item.decode("utf-8", "surrogateescape").partition("\n")
        if key.startswith("filter."):
            filters.add(key[len("filter."):key.rindex(".")])
        elif key == "extensions.partialclone" or (
                key.endswith(".promisor") and value.lower() in ("true", "yes",
                                                                "on", "1", "")):
            partial = True
    return Setup(tuple(sorted(filters)), partial)


def environment(filters: Sequence[str] = (), roots: bool = True) -> Dict[str, str]:
    """The whole environment for a git process: clean, the pinned settings,
    and each named filter driver emptied (git then reads and hashes content
    as it is; ``required`` off so none fails). Not ``roots``: a log prints
    no root commit's diff (``root_tree`` reads it)."""
    env = clean_env()
    pairs = [(k, "false" if k == "log.showRoot" and not roots else v)
             for k, v in PINNED]
    for name in filters:
        pairs += [(f"filter.{name}.{part}", "") for part in
                  ("clean", "smudge", "process")]
        pairs.append((f"filter.{name}.required", "false"))
    _with_config(env, pairs)
    return env


def _explain(stderr: str, cwd: Path) -> str:
    text = stderr.strip()
    if "dubious ownership" in text:
        return (f"git refuses {cwd}: dubious ownership; if you trust it, run "
                f"'git config --global --add safe.directory {cwd}'")
    if "not a git repository" in text:
        return f"{cwd} is not inside a git repository"
    first = text.splitlines()[0] if text else "git failed"
    return first


# (Object-only commands never read the work tree either.)
_NO_CONVERSION = frozenset({"rev-parse", "ls-files", "log", "config", "symbolic-ref",
                            "merge-base", "rev-list", "ls-tree", "cat-file",
                            "diff-tree", "for-each-ref", "check-ignore",
                            "check-attr"})


# A git command line built by ``command``: ``run`` takes no other, so no text
# icm did not write can reach git where it would be read as an option.
Argv = NewType("Argv", List[str])


def command(name: str, *options: str, revs: Sequence[str] = (),
            paths: Optional[Sequence[str]] = None) -> Argv:
    """``git NAME`` with icm's own ``options``, then ``--end-of-options`` and
    ``revs`` (revisions, ranges, config keys: any text icm did not write),
    then ``--`` and ``paths`` when given (``[]`` too: nothing after ``--`` is
    a revision). A ref named ``--output=/x`` is a ref, never an option: git
    (2.24+) reads nothing after ``--end-of-options`` as one, and every
    subcommand icm runs takes it after its own flags (``rev-parse`` too)."""
    argv = [name, *options]
    if revs:
        argv += ["--end-of-options", *revs]
    if paths is not None:
        argv += ["--", *paths]
    return Argv(argv)


def run(args: Argv, cwd: Path, check: bool = True,
        stdin: Optional[bytes] = None, literal: bool = True,
        index: bool = True) -> Tuple[int, bytes, str]:
    """Run git with fixed options; raise UsageError on failure when ``check``.
    Not ``literal``: without ``--literal-pathspecs`` (``check-ignore``
    refuses it; its caller keeps out the ``:`` that starts magic). Not
    ``index``: git reads an empty index (``GIT_INDEX_FILE`` names no file),
    for a command that compares objects only yet loads it (``diff-tree``:
    131 MiB at 500,000 files, 19 without)."""
    exe = executable()
    if exe is None:
        raise UsageError("git is not installed or not on PATH")
    # Only these never convert work-tree content (ls-files without -m, log
    # without a work tree); any other command first lists the filter drivers
    # to empty them.
    filters = () if args[0] in _NO_CONVERSION else setup(cwd).filters
    env = environment(filters)
    with contextlib.ExitStack() as stack:
        if not index:  # a name in a new folder: no file is there
            import tempfile

            empty = stack.enter_context(tempfile.TemporaryDirectory())
            env["GIT_INDEX_FILE"] = os.path.join(empty, "index")
        proc = subprocess.run(
            [exe, *(BASE if literal else BASE[:1]), *args], cwd=str(cwd), env=env,
            input=stdin or b"", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = proc.stderr.decode("utf-8", "replace")
    if check and proc.returncode != 0:
        raise UsageError(_explain(err, cwd))
    return proc.returncode, proc.stdout, err


def _rev_parse(cwd: Path, *what: str) -> Optional[List[str]]:
    """``git rev-parse`` answers, one line per flag; None outside a work
    tree."""
    if not available():
        return None
    code, out, err = run(command("rev-parse", *what), cwd, check=False)
    if code != 0:
        if "dubious ownership" in err:
            raise UsageError(_explain(err, cwd))
        if "must be run in a work tree" in err:
            raise UsageError(f"{cwd} is inside a bare repository or a .git "
                             "folder; icm needs a work tree")
        return None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    return lines if len(lines) == len(what) else None


def toplevel(cwd: Path) -> Optional[Path]:
    """The work tree's top level containing ``cwd``, or None outside git."""
    found = _rev_parse(cwd, "--show-toplevel")
    return Path(found[0]) if found else None


def locate(cwd: Path) -> Optional[Tuple[Path, str]]:
    """This work tree's own git directory (each worktree of a repository has
    its own: caches live there) and ``cwd``'s path below the top level
    (``sub/``, ``""`` at the top), or None outside a work tree. One call
    answers "is this git?", "where do caches go?" and "where do paths that
    GitHub resolves from the top start?"."""
    found = _rev_parse(cwd, "--show-toplevel", "--absolute-git-dir",
                       "--show-prefix")
    return (Path(found[1]), found[2]) if found else None


def list_files(root: Path
               ) -> Tuple[bytes, List[str], List[str], List[str]]:
    """Tracked files on disk (as ``context.FileList``'s blob: a NUL before
    each path and after the last, sorted as bytes, each once),
    untracked-but-not-ignored files, tracked files a sparse checkout keeps
    off the disk (all root-relative), and the folders git could not open
    (``dir/: reason``).

    One ``ls-files`` call; ``-t`` tags tell them apart: files deleted from
    the work tree (tag ``R``) are left out without a stat per file, and
    skip-worktree files (tag ``S``) come back on their own. Paths come back
    relative to ``root`` because git runs there. Read as git prints it
    (``streamed``): the listing and the blob were never whole at once (14
    MB each at 500,000 files).
    """
    listing = _Listing()
    err = streamed(command("ls-files", "-z", "-t", "--cached", "--deleted",
                           "--others", "--exclude-standard"), root, listing.add)
    blob, untracked, sparse = listing.result()
    return blob, untracked, sparse, unopened(err)


def ignored_paths(root: Path, paths: Sequence[str]) -> FrozenSet[str]:
    """Which of ``paths`` (files that do not exist) a ``.gitignore`` of the
    tree ignores: one ``check-ignore --no-index -v``, the paths on stdin. A
    match of this clone's own rules (``info/exclude``, ``core.excludesFile``)
    is none: a clone and CI would disagree. A batch git refuses (a path
    beyond a symbolic link) answers none: they stay broken links."""
    paths = [p for p in paths if not p.startswith(":")]  # ":(glob)" is magic
    if not paths:
        return frozenset()
    data = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    code, out, _ = run(command("check-ignore", "--no-index", "-v", "-z",
                               "--stdin"), root, check=False, stdin=data,
                       literal=False)
    if code != 0:  # 1: none is ignored; 128: refused
        return frozenset()
    items = out.split(b"\0")
    found = set()
    for i in range(0, len(items) - 3, 4):
        source, _, pattern, path = items[i:i + 4]
        if pattern.startswith(b"!") or source.startswith((b"/", b".git/")) \
                or source.rsplit(b"/", 1)[-1] != b".gitignore":
            continue
        found.add(path.decode("utf-8", "surrogateescape"))
    return frozenset(found)


def attributes(root: Path, paths: Sequence[str], names: Sequence[str]
               ) -> Dict[str, Dict[str, str]]:
    """``names``' values (``set``, ``unset``, ``unspecified`` or a value) for
    each of ``paths``: one ``check-attr``, the paths on stdin."""
    if not paths:
        return {}
    data = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    code, out, _ = run(command("check-attr", "-z", "--stdin", *names), root,
                       check=False, stdin=data)
    items = out.split(b"\0") if code == 0 else []
    found: Dict[str, Dict[str, str]] = {}
    for i in range(0, len(items) - 2, 3):
        path, name, value = (x.decode("utf-8", "surrogateescape")
                             for x in items[i:i + 3])
        found.setdefault(path, {})[name] = value
    return found


class _Listing:
    """``ls-files -z -t`` output parsed block by block (``add``). The index
    lists paths in order, an unmerged one once per stage, a deleted one
    (``R``) right after its entry: the blob is written as they come, the
    last path held back until the next (an ``R`` may take it back), into a
    ``BytesIO``, whose ``getvalue`` hands over its buffer uncopied."""

    def __init__(self) -> None:
        self.out = io.BytesIO(b"\0")
        self.out.seek(1)
        self.untracked: List[str] = []
        self.sparse: List[str] = []
        self.deleted: Set[bytes] = set()
        self.held: List[bytes] = []  # paths not yet written
        self.written = b""  # the last path written
        self.ordered = True
        self.rest = b""

    def add(self, block: bytes) -> None:
        items = (self.rest + block).split(b"\0")
        self.rest = items.pop()
        held = self.held
        for item in items:
            if not item:
                continue
            tag, name = item[:1], item[2:]
            last = held[-1] if held else self.written
            if tag == b"?":
                self.untracked.append(name.decode("utf-8", "surrogateescape"))
            elif tag == b"R" and name == last and held:  # gone from the work
                held.pop()  # tree: it follows its entry
            elif tag == b"R":
                self.deleted.add(name)
            elif tag == b"S":  # skip-worktree: in the index, not on disk
                self.sparse.append(name.decode("utf-8", "surrogateescape"))
            elif name != last:
                self.ordered = self.ordered and name > last
                held.append(name)
        if len(held) > 1:
            self.out.write(b"\0".join(held[:-1]))
            self.out.write(b"\0")
            self.written = held[-2]
            del held[:-1]

    def result(self) -> Tuple[bytes, List[str], List[str]]:
        self.add(b"\0")
        for name in self.held:
            self.out.write(name + b"\0")
        blob = self.out.getvalue()
        self.out.close()
        if self.deleted or not self.ordered:
            kept = sorted({name for name in blob[1:-1].split(b"\0")}
                          - self.deleted) if len(blob) > 1 else []
            blob = b"\0" + b"".join(name + b"\0" for name in kept)
        return blob, self.untracked, self.sparse


def streamed(args: Argv, cwd: Path, use: Callable[[bytes], None],
             chunk: int = 1 << 16) -> str:
    """Run git as ``run`` does, handing its output to ``use`` as the pipe
    gives it (``chunk`` bytes at most a block), never whole; its stderr
    (read alongside: a full stderr pipe would stop git), UsageError when
    it fails."""
    if os.name == "nt":  # pragma: no cover - select takes sockets only there
        _, out, text = run(args, cwd)
        use(out)
        return text
    exe = executable()
    if exe is None:
        raise UsageError("git is not installed or not on PATH")
    filters = () if args[0] in _NO_CONVERSION else setup(cwd).filters
    err = bytearray()
    with subprocess.Popen([exe, *BASE, *args], cwd=str(cwd),
                          env=environment(filters), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        done = False
        try:
            with selectors.DefaultSelector() as ready:
                ready.register(proc.stdout, selectors.EVENT_READ, use)
                ready.register(proc.stderr, selectors.EVENT_READ, err.extend)
                while ready.get_map():
                    for key, _ in ready.select():
                        block = os.read(key.fd, chunk)
                        if block:
                            key.data(block)
                        else:
                            ready.unregister(key.fileobj)
            done = True
        finally:
            if not done:  # ``use`` failed, or an interrupt: git stops too
                proc.kill()
    text = err.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise UsageError(_explain(text, cwd))
    return text


_UNOPENED = re.compile(r"warning: could not open directory '(.*)': (.+)")


def unopened(stderr: str) -> List[str]:
    """``dir/: reason`` for each folder git warned it could not open (its
    files are missing from the listing; LC_ALL=C keeps the wording fixed)."""
    return [f"{m.group(1)}: {m.group(2).lower()}"
            for m in map(_UNOPENED.match, stderr.splitlines()) if m]


def added_paths(root: Path, folder: str) -> List[str]:
    """Every path under ``folder`` that a commit on any ref ever added,
    root-relative: one ``git log --all`` pass, renames seen as additions.
    Empty in a repository without commits."""
    _, out, _ = run(command("log", "--all", "--no-renames", "--diff-filter=A",
                            "--name-only", "-z", "--format=", "--relative",
                            paths=[folder]), root)
    return [p.lstrip(b"\n").decode("utf-8", "surrogateescape")
            for p in out.split(b"\0") if p.strip(b"\n")]


def stage_move(root: Path, old: str, new: str) -> None:
    """Record in the index that ``old`` became ``new`` (both already on disk).

    The new file is hashed with ``--no-filters`` (no clean filter can run)
    and both changes go into the index in one ``update-index`` write, so the
    index never holds half a move.
    """
    _, out, _ = run(command("hash-object", "-w", "--no-filters", paths=[new]),
                    root)
    oid = out.decode("ascii").strip()
    zero = "0" * len(oid)
    entries = f"0 {zero}\t{old}\x00100644 {oid}\t{new}\x00"
    run(command("update-index", "-z", "--index-info"), root,
        stdin=entries.encode("utf-8", "surrogateescape"))


# -- history (check-stale) ---------------------------------------------------


@contextlib.contextmanager
def _isolated(env: Dict[str, str]) -> Iterator[None]:
    """Run GitPython with ``env`` as the whole process environment.

    GitPython reads ``GIT_DIR``, ``GIT_WORK_TREE`` and
    ``GIT_OBJECT_DIRECTORY`` from ``os.environ`` in-process and copies
    ``os.environ`` into every git it starts (its ``cat-file --batch``
    processes too); it has no way to drop a variable, so the process
    environment itself is swapped while it works.
    """
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


_gitpython_exe: List[str] = []


class Repository:
    """The facts check-stale needs about the repository holding ``root``,
    read through GitPython's handle (no history walk here). Its processes
    get the pinned environment but no emptied filters: use it for object
    reads only, and ``run`` for anything touching the work tree."""

    def __init__(self, root: Path) -> None:
        exe = executable()
        if exe is None:
            raise UsageError("git is not installed or not on PATH")
        # Resolve the top level with raw git first: it reports dubious
        # ownership and "not a repository" in git's own words.
        if toplevel(root) is None:
            raise UsageError(f"{root} is not inside a git repository "
                             "(check-stale reads git history)")
        self.env = environment()
        # Its import-time refresh runs this git, never one found through PATH.
        self.env.update(GIT_PYTHON_REFRESH="quiet", GIT_PYTHON_GIT_EXECUTABLE=exe)
        with _isolated(self.env):
            import git as gitpython  # the only import of gitpython in icm

            if _gitpython_exe != [exe]:
                gitpython.refresh(exe)
                _gitpython_exe[:] = [exe]
            try:
                self.repo = gitpython.Repo(str(root), search_parent_directories=True)
            except gitpython.exc.InvalidGitRepositoryError:
                raise UsageError(f"{root} is not inside a git repository") from None
            except gitpython.exc.NoSuchPathError:
                raise UsageError(f"{root} does not exist") from None
        self.root = root
        self.common_dir = Path(self.repo.common_dir)

    def has_commits(self) -> bool:
        with _isolated(self.env):
            return bool(self.repo.head.is_valid())

    def close(self) -> None:
        """Stop GitPython's ``cat-file`` processes."""
        self.repo.close()

    def shallow_boundary(self) -> FrozenSet[str]:
        """Commits whose parents this clone lacks; empty when not shallow."""
        path = self.common_dir / "shallow"
        try:
            text = path.read_text(encoding="ascii")
        except OSError:
            return frozenset()
        return frozenset(line.strip() for line in text.splitlines() if line.strip())


HISTORY_ARGS = {
    # A file's time is when its change arrived on this branch: merges are
    # diffed against their first parent so merge-only changes are seen.
    "first-parent": ("--first-parent", "--diff-merges=first-parent"),
    # Every commit, children before parents, otherwise by date (the default
    # order is by date alone: a note fixed on a branch dated in the past
    # read as older than the code; unrelated lines have only dates). A
    # merge lists nothing here: its combined diff (what it changed itself)
    # cost 60% of the pass on git/git, and a first-parent diff would date
    # a side branch's work at its merge, which "all" exists not to do.
    "all": ("--date-order",),
}


# what ``_parse_history`` and ``_parse_changes`` read (no parents: a root)
HISTORY_FORMAT = "--format=%x00/%H %ct %P"


def history_command(mode: str, at_top: bool, start: Optional[str] = None
                    ) -> Argv:
    """The one ``git log`` pass, run from the root, of HEAD's history or
    ``start``'s (a commit, never an option: ``--end-of-options``); ``at_top``:
    the root is the work tree's top level.

    At the top level it takes no pathspec: ``-- .`` matches everything there
    yet makes git diff every commit twice (once to prune the walk, once to
    print), a third of the pass on git/git. Under a subfolder the pathspec is
    the cheapest form (git skips every other tree), and ``--relative`` makes
    paths root-relative. ``--full-history`` keeps "all" meaning every commit
    in both forms: without it a pathspec prunes a side branch at a merge
    that kept the first parent's tree.
    """
    where = [] if at_top else [*(["--full-history"] if mode == "all" else []),
                               "--relative"]
    return command("log", *HISTORY_ARGS[mode], "--no-renames", "--name-only", "-z",
                   *DIFF_SAFETY, HISTORY_FORMAT, *where,
                   revs=[start] if start else [], paths=None if at_top else ["."])


def own_commits_command(base: str, at_top: bool) -> Argv:
    """The commits HEAD adds to ``base`` (a commit), in the pass's form:
    newest first in topological order (children before parents, so read
    backwards it is the order "Rebase and merge" replays them), merges left
    out as a rebase leaves them (a merge of the base into the branch would
    date the base's work at the merge; the merge ref's own commit folds the
    whole pull request). ``--full-history`` under a pathspec: a merge that
    kept one side's tree must not hide the other side's commits.
    """
    where = [] if at_top else ["--full-history", "--relative"]
    return command("log", "--topo-order", "--no-merges", "--no-renames",
                   "--name-only", "-z", *DIFF_SAFETY, HISTORY_FORMAT, *where,
                   revs=["HEAD", f"^{base}"], paths=None if at_top else ["."])


def at_top_level(root: Path) -> bool:
    """Whether ``root`` is its work tree's top level, in git's own words
    (an empty ``--show-prefix``): symlinked or differently spelled paths
    cannot mislead it."""
    code, out, _ = run(command("rev-parse", "--show-prefix"), root, check=False)
    return code == 0 and not out.strip(b"\n")


# The time of a commit whose committer date is missing or malformed (git
# prints an empty %ct): every comparison with it is unknown.
UNDATED = -1


class HistoryPass:
    """The one ``git log`` pass, started at once and parsed on ``result()``,
    so the other git facts are gathered while it runs on the other core.
    With a ``base`` (a commit id) it is two passes at once, one git process
    per fact: the commits HEAD adds to the base (``own_commits_command``),
    then the base's history, read as one log in that order, as the base
    will read after "Rebase and merge".

    git writes into an anonymous temporary file, not a pipe: its stdio
    flushes a pipe in 4 KiB writes, and the context switches made the pass a
    third slower than the same command writing to a file. The file is read
    back in 1 MiB blocks, so memory stays flat whatever the history's size.

    A partial clone is refused unless ``allow_partial``: a missing tree
    would be fetched from the promisor remote. The environment already
    forbids any fetch, so the pass starts first and is stopped if the
    configuration read meanwhile says "partial".
    """

    def __init__(self, root: Path, mode: str, allow_partial: bool = False,
                 base: Optional[str] = None, apart: bool = False) -> None:
        exe = executable()
        self.apart = apart  # root commits' paths from ``root_tree``
        if exe is None:
            raise UsageError("git is not installed or not on PATH")
        self.root = root
        at_top = at_top_level(root)
        commands = [history_command(mode, at_top)] if base is None else [
            own_commits_command(base, at_top), history_command(mode, at_top, base)]
        self.runs: List[Tuple["subprocess.Popen[bytes]", IO[bytes], IO[bytes]]] = []
        import tempfile  # on first use, as below: check-links needs none

        try:
            for command in commands:
                out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
                self.runs.append((subprocess.Popen(
                    [exe, *BASE, *command], cwd=str(root),
                    env=environment(roots=not apart), stdout=out, stderr=err,
                    stdin=subprocess.DEVNULL), out, err))
            partial = setup(root).partial
        except BaseException:
            self.discard()
            raise
        if partial and not allow_partial:
            self.discard()
            raise UsageError(PARTIAL_HINT)

    def discard(self) -> None:
        """Stop the pass (its answer is not wanted) and free its files."""
        for proc, out, err in self.runs:
            proc.kill()  # nothing, once git has been waited for
            proc.wait()
            out.close()
            err.close()

    def result(self, chunk: int = 1 << 20, seen: Optional[_Hits] = None) -> _Hits:
        """For every path under the root in the history, (committer time,
        commit, place) of the newest commit touching it: the place is the
        commit's rank in the log, newest 0 then -1, -2 (only commits that
        touch something count), so "newer" never trusts a clock; the time
        is ``UNDATED`` when that commit's date is missing or malformed. Paths are bytes
        relative to the root, exactly as git wrote them (``-z``: no
        quoting). ``seen``: where the hits go (its ``setdefault``; a dict
        by default), as they are read."""
        try:
            for proc, _, err in self.runs:
                if proc.wait() != 0:
                    err.seek(0)
                    text = err.read().decode("utf-8", "replace")
                    if "lazy fetching disabled" in text:
                        raise UsageError(PARTIAL_MISSING)
                    raise UsageError(_explain(text, self.root))
            return _parse_history(_blocks([out for _, out, _ in self.runs], chunk),
                                  seen, functools.partial(root_tree, self.root)
                                  if self.apart else None)
        finally:
            self.discard()  # a pass still running when the other failed ends


def _blocks(files: Sequence[IO[bytes]], chunk: int) -> Iterator[bytes]:
    """The files' bytes in blocks, as one log: a NUL after each ends its last
    token, so the places run on from one file into the next."""
    for fh in files:
        fh.seek(0)
        while True:
            block = fh.read(chunk)
            if not block:
                break
            yield block
        yield b"\0"


# (committer time, commit, place in the log): the newest commit of a path
Hit = Tuple[int, bytes, int]


class _Hits(Protocol):
    """Where the history pass puts each path's newest hit: a dict, or a
    store keeping only the paths it is asked about (``context.HitStore``)."""

    def setdefault(self, path: bytes, hit: Hit, /) -> Hit: ...


def _header(token: bytes) -> Tuple[bytes, int, bool]:
    """A log header's commit, committer time and whether it is a root (no
    parents: ``HISTORY_FORMAT``)."""
    sha, _, rest = token[1:].partition(b" ")
    when, _, parents = rest.partition(b" ")
    return sha, int(when) if when.isdigit() else UNDATED, not parents.strip()


# A root commit's tree entries (``root_tree``): its sha, names only or not.
RootTree = Callable[[bytes, bool], Iterator[bytes]]


def root_tree(root: Path, sha: bytes, names: bool, chunk: int = 1 << 16
              ) -> Iterator[bytes]:
    """The entries under ``root`` of a root commit's tree (``ls-tree -r``:
    ``mode type id<TAB>path``, or paths alone with ``names``): what a log
    lists as that commit's diff against the empty tree, streamed. git's log
    holds a commit's whole diff before printing it: 193 MiB for a first
    commit of 500,000 files, where ``ls-tree`` peaks at 56 (the history
    pass and the change logs print no root diff: ``environment``)."""
    exe = executable()
    if exe is None:
        raise UsageError("git is not installed or not on PATH")
    args = command("ls-tree", "-r", "-z", *(["--name-only"] if names else []),
                   revs=[sha.decode("ascii")])
    with subprocess.Popen([exe, *BASE, *args], cwd=str(root), env=environment(),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as proc:
        out = proc.stdout
        assert out is not None
        finished = False
        try:
            rest = b""
            for block in iter(functools.partial(out.read, chunk), b""):
                tokens = (rest + block).split(b"\0")
                rest = tokens.pop()
                yield from tokens
            finished = True
        finally:
            if not finished:
                proc.kill()
            _, err = proc.communicate()
        if proc.returncode != 0:
            raise UsageError(_explain(err.decode("utf-8", "replace"), root))


def _parse_history(blocks: Iterator[bytes], seen: Optional[_Hits] = None,
                   tree: Optional[RootTree] = None) -> _Hits:
    """The pass's output: ``\\0/SHA CT PARENTS`` per commit, then a newline
    and its paths, each NUL-terminated. A header starts with ``/``, which no
    git path does, so no file name can pass for one. ``tree``: where a root
    commit's paths come from (the log printed none), read at its place."""
    if seen is None:
        every: Dict[bytes, Hit] = {}
        seen = every
    current: Optional[Tuple[int, bytes, int]] = None
    ct, sha = UNDATED, b""
    order = 0  # the log's order, newest 0, then -1, -2...: only commits with names
    first_name = False
    rest = b""
    setdefault = seen.setdefault
    for block in blocks:
        tokens = (rest + block).split(b"\0")
        rest = tokens.pop()
        for token in tokens:
            if not token:
                continue
            if token[0] == 0x2F:  # "/": a header
                sha, ct, is_root = _header(token)
                current = None
                first_name = True
                if is_root and tree is not None:
                    for name in tree(sha, True):
                        if current is None:
                            current = (ct, sha, order)
                            order -= 1
                        setdefault(name, current)
                continue
            if first_name:
                token = token[1:]  # the newline git puts before the names
                first_name = False
            if current is None:
                current = (ct, sha, order)
                order -= 1
            setdefault(token, current)  # newest first: keep the first seen
    return seen


def _status(root: Path, untracked: bool) -> List[Tuple[str, str]]:
    """(two-letter porcelain status, root-relative path) of every change
    under ``root``; renames as delete plus add. ``git status`` with optional
    locks off refreshes stat data in memory only, where ``git diff`` would
    rewrite the index (and run its hooks)."""
    _, prefix, _ = run(command("rev-parse", "--show-prefix"), root)
    strip = len(prefix.rstrip(b"\n"))
    _, out, _ = run(command("status", "--porcelain=v1", "-z", "--no-renames",
                            f"--untracked-files={'all' if untracked else 'no'}",
                            WORKTREE_SUBMODULES, paths=["."]), root)
    return [(item[:2].decode("ascii", "replace"),
             item[3 + strip:].decode("utf-8", "surrogateescape"))
            for item in out.split(b"\0") if len(item) > 3]


def pending_paths(root: Path) -> FrozenSet[str]:
    """Paths under ``root`` that differ from HEAD in the index or in the work
    tree: what the next commit changes, or could. Modified, added, deleted
    and both sides of a rename count; untracked files do not (a commit
    leaves them out), nor does a file added and then deleted again. A
    submodule counts when its commit moves, not when it is dirty."""
    return frozenset(path for code, path in _status(root, untracked=False)
                     if code != "AD")


# -- a path's changes and their blobs (check-stale's words) ------------------

# One change of one path: (path, blob before, blob after); an all-zero id is
# no blob (the path was added, or deleted).
PathChange = Tuple[str, str, str]
# (commit, committer time, its changes), newest first; closing it ends git.
Changes = Generator[Tuple[str, int, List[PathChange]], None, None]


def changes_command(mode: str, commits: bool) -> Argv:
    """A log of the history pass's commits (``history_command``) that change
    the paths given on stdin, with each change's blob ids (``--raw``). The
    revisions and paths come on stdin (``--stdin``: revisions, a ``--`` line,
    paths), so no repository text is on the command line and no number of
    notes outgrows it. ``commits``: only the commits named, each against its
    first parent (``--no-walk``; a merge as first-parent history sees it)."""
    walk = ("--no-walk=unsorted", "--diff-merges=first-parent") if commits else (
        *HISTORY_ARGS[mode], *(["--full-history"] if mode == "all" else []))
    return command("log", *walk, "--stdin", "--no-renames", "--raw", "--no-abbrev",
                   "-z", *DIFF_SAFETY, HISTORY_FORMAT, "--relative")


def own_changes_command() -> Argv:
    """``own_commits_command``'s commits in ``changes_command``'s form."""
    return command("log", "--topo-order", "--no-merges", "--full-history", "--stdin",
                   "--no-renames", "--raw", "--no-abbrev", "-z", *DIFF_SAFETY,
                   HISTORY_FORMAT, "--relative")


# Past this many listed paths a root commit's diff is read by ``root_tree``
# (git's log held it whole: 193 MiB at 500,000 files); under it the log
# prints it, one process fewer.
ROOTS_APART = 20_000

# Past this many paths the log takes none and its changes are filtered here:
# git matches every tree entry against every path, so 2,000 paths made a
# walk of 2,000 commits 50x slower than the same log without them.
PATHSPEC_MAX = 64


def path_changes(root: Path, mode: str, paths: Sequence[str],
                 base: Optional[str] = None, commits: Sequence[str] = (),
                 chunk: int = 1 << 16, apart: bool = False,
                 edits: bool = False) -> Changes:
    """(commit, committer time, its changes of ``paths``) for each commit of
    the history pass (``mode``; with ``base``, the commits HEAD adds to it,
    then the base's history: ``HistoryPass``'s order) that changes one of
    ``paths``, newest first, read as git writes them; with ``commits``, only
    those. With more than ``PATHSPEC_MAX`` paths git lists every change and
    only those of ``paths`` are kept, as they are read (a first commit of
    500,000 files was a list of 500,000 changes: 160 MiB). Stop reading when
    the answer is known: closing the iterator ends git. A path holding a newline
    cannot go through stdin: it is asked for only past ``PATHSPEC_MAX``.
    ``base`` and ``commits`` are hashes (a revision on stdin may not look
    like an option): other text names nothing here. ``apart``: a root
    commit's changes come from ``root_tree``. ``edits``: only changes with
    a blob on both sides (a root's adds not read: 24,500 held at 500k)."""
    wanted = [p for p in paths if "\n" not in p]
    named = [c for c in commits if _HASH.fullmatch(c)]
    if not wanted or (commits and not named) or (
            base is not None and not _HASH.fullmatch(base)):
        return
    keep: Optional[FrozenSet[bytes]] = None
    # one set of the asked paths' bytes (two were 3.4 MiB at 500k)
    over = len(wanted) > PATHSPEC_MAX  # every change, filtered as it is read
    asked = frozenset(p.encode("utf-8", "surrogateescape")
                      for p in (paths if over else wanted))
    if over:
        wanted = []  # under a subfolder, --relative keeps its changes only
        keep = asked
    spec = "--\n" + "".join(f"{p}\n" for p in wanted)
    if commits:
        logs = [(changes_command(mode, True), "".join(f"{c}\n" for c in named))]
    elif base is None:
        logs = [(changes_command(mode, False), "HEAD\n")]
    else:
        logs = [(own_changes_command(), f"HEAD\n^{base}\n"),
                (changes_command(mode, False), f"{base}\n")]
    for args, revs in logs:
        yield from _changes(root, args, (revs + spec).encode("utf-8",
                                                            "surrogateescape"),
                            chunk, keep, asked if apart else None, edits)


def _changes(root: Path, args: Argv, stdin: bytes, chunk: int,
             keep: Optional[FrozenSet[bytes]] = None,
             asked: Optional[FrozenSet[bytes]] = None,
             edits: bool = False) -> Changes:
    exe = executable()
    if exe is None:
        raise UsageError("git is not installed or not on PATH")
    import tempfile

    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as err:
        given.write(stdin)
        given.seek(0)
        proc = subprocess.Popen([exe, *BASE, *args], cwd=str(root),
                                env=environment(roots=asked is None), stdin=given,
                                stdout=subprocess.PIPE, stderr=err)
        out = proc.stdout
        assert out is not None
        finished = False
        try:
            yield from _parse_changes(iter(functools.partial(out.read, chunk), b""),
                                      keep, None if asked is None or edits else
                                      functools.partial(root_tree, root), asked,
                                      edits)
            finished = True
        finally:
            if not finished:  # the caller has its answer
                proc.kill()
            out.close()
            code = proc.wait()
        if code != 0:
            err.seek(0)
            text = err.read().decode("utf-8", "replace")
            if "lazy fetching disabled" in text:
                raise UsageError(PARTIAL_MISSING)
            raise UsageError(_explain(text, root))


_ZERO = b"0" * 40
_ZERO_ID = _ZERO.decode("ascii")  # one string for every added file's old id


def _parse_changes(blocks: Iterator[bytes],
                   keep: Optional[FrozenSet[bytes]] = None,
                   tree: Optional[RootTree] = None,
                   asked: Optional[FrozenSet[bytes]] = None,
                   edits: bool = False) -> Changes:
    """``changes_command``'s output: ``\\0/SHA CT PARENTS`` per commit, then
    for each change a ``:`` record (a newline before the first) and its
    path, each NUL-terminated. A header starts with ``/`` and a record with
    ``:``; a path comes only after a record, so no file name passes for
    either. With ``keep``, only changes of those paths are kept. A root
    commit's changes come from ``tree``, those of the ``asked`` paths (the
    log printed none). ``edits``: no change adding or deleting a path."""
    sha, ct = "", UNDATED
    found: List[PathChange] = []
    record: Optional[List[bytes]] = None
    rest = b""
    for block in blocks:
        tokens = (rest + block).split(b"\0")
        rest = tokens.pop()
        for token in tokens:
            if record is not None:
                if (keep is None or token in keep) and not (edits and not (
                        record[2].strip(b"0") and record[3].strip(b"0"))):
                    old = record[2]
                    found.append((token.decode("utf-8", "surrogateescape"),
                                  _ZERO_ID if old == _ZERO else old.decode("ascii"),
                                  record[3].decode("ascii")))
                record = None
            elif token.startswith(b"/"):
                if sha:
                    yield sha, ct, found
                head, ct, is_root = _header(token)
                sha, found = head.decode("ascii"), []
                if is_root and tree is not None:
                    found = _added(tree(head, False), asked or frozenset())
            elif token.lstrip(b"\n").startswith(b":"):
                fields = token.lstrip(b"\n").split(b" ")
                record = fields if len(fields) >= 5 else None
    if sha:
        yield sha, ct, found


def _added(entries: Iterator[bytes], asked: FrozenSet[bytes]) -> List[PathChange]:
    """A root tree's entries among ``asked`` as changes from no blob, all
    sharing one zero id (SHA-1's; one each was 2.2 MiB of a 24,500-path
    root)."""
    found = []
    for entry in entries:
        meta, _, path = entry.partition(b"\t")
        if path in asked:
            oid = meta.rpartition(b" ")[2].decode("ascii")
            zero = _ZERO_ID if len(oid) == 40 else "0" * len(oid)
            found.append((path.decode("utf-8", "surrogateescape"), zero, oid))
    return found


# -- branch state (handoff, check-handoff) -----------------------------------


def _text(out: bytes) -> str:
    return out.decode("utf-8", "surrogateescape").strip()


def head_commit(root: Path) -> Optional[str]:
    """HEAD's full hash, or None in a repository with no commits."""
    code, out, _ = run(command("rev-parse", "-q", "--verify", "HEAD^{commit}"), root,
                       check=False)
    return _text(out) if code == 0 and out.strip() else None


def head_facts(root: Path) -> Tuple[bool, FrozenSet[str]]:
    """Whether HEAD names a commit, and the commits a shallow clone lacks
    the parents of (its ``shallow`` file; empty when not shallow): one
    ``rev-parse``, where GitPython's handle cost five processes and 35 ms
    of imports on every ``icm check``. UsageError outside a work tree."""
    if not available():
        raise UsageError("git is not installed or not on PATH")
    code, out, err = run(command("rev-parse", "--show-toplevel", "--git-common-dir",
                                 "-q", "--verify", revs=["HEAD^{commit}"]), root,
                         check=False)
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 2:
        if "dubious ownership" in err:
            raise UsageError(_explain(err, root))
        if "must be run in a work tree" in err:
            raise UsageError(f"{root} is inside a bare repository or a .git "
                             "folder; icm needs a work tree")
        raise UsageError(f"{root} is not inside a git repository "
                         "(check-stale reads git history)")
    shallow = root / lines[1] / "shallow"  # relative to root, or absolute
    try:
        text = shallow.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        text = ""
    return (code == 0 and len(lines) == 3,
            frozenset(line.strip() for line in text.splitlines() if line.strip()))


def branch_name(root: Path) -> Optional[str]:
    """The checked-out branch's short name, or None on a detached HEAD."""
    code, out, _ = run(command("symbolic-ref", "-q", "--short", "HEAD"), root,
                       check=False)
    return _text(out) if code == 0 and out.strip() else None


def config_value(root: Path, key: str) -> Optional[str]:
    code, out, _ = run(command("config", "--get", revs=[key]), root, check=False)
    return _text(out) if code == 0 else None


def commit_of(root: Path, ref: str) -> Optional[str]:
    """The commit ``ref`` names, or None when it names none."""
    code, out, _ = run(command("rev-parse", "-q", "--verify",
                               revs=[f"{ref}^{{commit}}"]), root, check=False)
    return _text(out) if code == 0 and out.strip() else None


def upstream(root: Path) -> Optional[str]:
    """The current branch's upstream (``origin/main``), if it has one."""
    code, out, _ = run(command("rev-parse", "-q", "--abbrev-ref",
                               "--symbolic-full-name", "@{upstream}"), root,
                       check=False)
    return _text(out) if code == 0 and out.strip() else None


def origin_default(root: Path) -> Optional[str]:
    """``origin``'s default branch (``origin/HEAD``'s target), if known."""
    code, out, _ = run(command("symbolic-ref", "-q", "--short",
                               "refs/remotes/origin/HEAD"), root, check=False)
    return _text(out) if code == 0 and out.strip() else None


def default_base(root: Path, env: Dict[str, str]) -> Optional[str]:
    """The ref this branch will merge into, where it is known (``base_facts``
    without a ref: its name); None when none names a commit."""
    return base_facts(root, env)[1]


def commits_of(root: Path, revs: Sequence[str]) -> List[Optional[str]]:
    """The commit each of ``revs`` names (``REV^{commit}``, as ``commit_of``),
    None where it names none: one ``cat-file --batch-check`` whatever their
    number. The names go in on stdin, one a line (data: nothing there is an
    option), so one holding a newline names nothing and is not asked. git
    stops at a name it cannot even look up (``@{upstream}`` with none): that
    one names nothing, and the names after it are asked again."""
    pending = [rev for rev in revs if rev and "\n" not in rev]
    found: Dict[str, Optional[str]] = {}
    while pending:
        code, out, _ = run(command("cat-file",
                                   "--batch-check=%(objectname) %(objecttype)"),
                           root, check=False,
                           stdin="".join(f"{rev}^{{commit}}\n" for rev in pending
                                         ).encode("utf-8", "surrogateescape"))
        lines = out.decode("utf-8", "surrogateescape").split("\n")[:-1]
        for rev, line in zip(pending, lines):
            oid, _, kind = line.rpartition(" ")  # "<name> missing" names none
            found[rev] = oid if kind == "commit" and _HASH.fullmatch(oid) else None
        if code == 0 or len(lines) >= len(pending):
            break
        pending = pending[len(lines) + 1:]  # past the name git stopped at
    return [found.get(rev) for rev in revs]


# One ``for-each-ref`` line per local branch and ``origin/HEAD``: the names
# and commits the base guess needs (which branch is checked out, its
# upstream, where ``origin/HEAD`` points), never their history.
_REF_FORMAT = ("%(refname)%00%(HEAD)%00%(objecttype)%00%(objectname)%00"
               "%(*objecttype)%00%(*objectname)%00%(symref:short)%00"
               "%(upstream)%00%(upstream:short)")


def base_facts(root: Path, env: Dict[str, str], ref: Optional[str] = None
               ) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """(HEAD's commit, the base's name, the base's commit), each None when
    unknown. With ``ref``, that name and the commit it names. Without, the
    ref this branch will merge into, where it is known: ``ICM_BASE``, then
    ``GITHUB_BASE_REF`` as ``origin/<it>``, then the current branch's
    upstream, then local ``main`` (else ``master``) when it is not the
    branch checked out and holds a commit touching the root that
    ``origin/HEAD`` lacks (merges made here and not pushed yet: a stale
    ``origin/HEAD`` said ``queue ok`` beside a 07 on local main), then
    ``origin/HEAD``'s target; none without a commit on HEAD.

    One git process per fact, not per guess (there were eleven): the
    environment's names and HEAD in one ``cat-file``, asked first and alone
    (CI names its base); the local branches and ``origin/HEAD`` in one
    ``for-each-ref``, with their commits; a remote upstream's commit, a
    detached HEAD's, and the count of local main's own commits only when
    the guess reaches them."""
    if ref is not None:
        asked = commits_of(root, ["HEAD", ref])
        return asked[0], ref, asked[1]
    named = [env.get("ICM_BASE", "")]
    if env.get("GITHUB_BASE_REF"):
        named.append(f"origin/{env['GITHUB_BASE_REF']}")
    head: Optional[str] = None
    if any(named):
        head, *found = commits_of(root, ["HEAD", *named])
        for name, commit in zip(named, found):
            if head and name and commit:
                return head, name, commit
        if head is None:
            return None, None, None
    refs = _local_refs(root)
    head = head or refs.head or commits_of(root, ["HEAD"])[0]
    if head is None:
        return None, None, None
    if refs.upstream:
        commit = refs.commits.get(refs.upstream) or commits_of(
            root, [refs.upstream])[0]
        if commit:
            return head, refs.upstream_short, commit
    origin = refs.commits.get("refs/remotes/origin/HEAD") if refs.origin else None
    for local in ("main", "master"):
        commit = refs.commits.get(f"refs/heads/{local}")
        if commit is None:
            continue
        if local != refs.current and (
                origin is None or count_commits(root, origin, commit)):
            return head, local, commit
        break
    return (head, refs.origin, origin) if origin else (head, None, None)


class _Refs(NamedTuple):
    head: Optional[str]  # the checked-out branch's commit (None: detached)
    current: str  # that branch's short name ("" when detached)
    upstream: str  # its upstream's full name ("" when none)
    upstream_short: str
    origin: str  # ``origin/HEAD``'s target, short ("" when unset)
    commits: Dict[str, str]  # full ref name -> commit, for those listed


def _local_refs(root: Path) -> _Refs:
    """``_REF_FORMAT`` of every local branch and of ``origin/HEAD``, in one
    ``for-each-ref``: its patterns are icm's own, its output linear in the
    local branches. A ref to a tag counts as the tag's commit."""
    _, out, _ = run(command("for-each-ref", f"--format={_REF_FORMAT}",
                            revs=["refs/heads/", "refs/remotes/origin/HEAD"]),
                    root, check=False)
    head: Optional[str] = None
    current = upstream = upstream_short = origin = ""
    commits: Dict[str, str] = {}
    for line in out.decode("utf-8", "surrogateescape").split("\n"):
        fields = line.split("\0")
        if len(fields) != 9:
            continue
        name, mark, kind, oid, peeled_kind, peeled, target, up, up_short = fields
        commit = oid if kind == "commit" else peeled if peeled_kind == "commit" \
            else ""
        if commit and _HASH.fullmatch(commit):
            commits[name] = commit
        if name == "refs/remotes/origin/HEAD":
            origin = target
        elif mark == "*":
            head = commits.get(name)
            current, upstream, upstream_short = name[len("refs/heads/"):], up, up_short
    return _Refs(head, current, upstream, upstream_short, origin, commits)


def merge_base(root: Path, a: str, b: str) -> Optional[str]:
    code, out, _ = run(command("merge-base", revs=[a, b]), root, check=False)
    return _text(out) if code == 0 and out.strip() else None


def ahead_behind(root: Path, base: str, head: str) -> Tuple[int, int]:
    """Commits on ``head`` not on ``base``, and on ``base`` not on ``head``,
    that touch ``root`` (as ``count_commits``: a handoff made in a monorepo's
    project said "2 ahead" beside "1 commit since the merge base")."""
    _, out, _ = run(command("rev-list", "--left-right", "--count",
                            revs=[f"{base}...{head}"], paths=["."]), root)
    behind, ahead = (int(n) for n in _text(out).split())
    return ahead, behind


def count_commits(root: Path, since: str, head: str = "HEAD") -> int:
    """Commits in ``since..head`` that touch ``root`` (a subfolder of a larger
    repository counts its own commits, not its neighbours')."""
    _, out, _ = run(command("rev-list", "--count", revs=[f"{since}..{head}"],
                            paths=["."]), root)
    return int(_text(out) or 0)


_HASH = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def commit_positions(root: Path, commits: Sequence[str]
                     ) -> Dict[str, Tuple[bool, int]]:
    """Where each of ``commits`` (full hashes) stands against HEAD: (is an
    ancestor of HEAD, commits touching ``root`` that HEAD reaches and it
    does not, 0 off HEAD's history). Ones the repository lacks, or that
    name no commit, are left out.

    Four git processes whatever their number (four per commit made 50
    records on 3,000 commits 4.2 s): HEAD; one ``cat-file --batch-check``;
    one ``rev-list --parents`` walk of HEAD's graph; one ``rev-list HEAD
    -- .``, the commits touching the root as ``git log -- .`` shows them.
    Each commit's bit goes from child to parent in topological order, so a
    commit's mask says which of ``commits`` reach it; a count is the
    touching commits whose mask lacks that bit.
    """
    wanted = sorted({c for c in commits if _HASH.fullmatch(c)})
    head = head_commit(root) if wanted else None
    if head is None:
        return {}
    _, out, _ = run(command("cat-file", "--batch-check=%(objectname) %(objecttype)"),
                    root, stdin="".join(f"{c}^{{commit}}\n" for c in wanted).encode())
    bits: Dict[bytes, int] = {}  # commit -> the bits of the hashes naming it
    present = 0
    for i, line in enumerate(out.splitlines()):
        oid, _, kind = line.partition(b" ")
        if kind == b"commit":
            bits[oid] = bits.get(oid, 0) | 1 << i
            present |= 1 << i
    if not present:
        return {}
    _, graph, _ = run(command("rev-list", "--topo-order", "--parents",
                              revs=[head]), root)
    _, touching, _ = run(command("rev-list", revs=[head], paths=["."]), root)
    touches = frozenset(touching.split())
    reached: Counter[int] = Counter()  # mask -> touching commits with it
    pending: Dict[bytes, int] = {}
    seen = 0
    for line in graph.splitlines():
        oid, *parents = line.split()
        own = bits.get(oid, 0)
        seen |= own
        mask = pending.pop(oid, 0) | own
        if mask:
            for parent in parents:
                pending[parent] = pending.get(parent, 0) | mask
        if oid in touches:
            reached[mask] += 1
    since = [len(touches)] * len(wanted)
    for mask, n in reached.items():
        while mask:
            low = mask & -mask
            since[low.bit_length() - 1] -= n
            mask ^= low
    return {c: (True, since[i]) if seen >> i & 1 else (False, 0)
            for i, c in enumerate(wanted) if present >> i & 1}


def signature_state(root: Path, commit: str) -> str:
    """'signed' when the commit object carries a signature header, else
    'unsigned'. Read from the raw object: verifying it would start gpg, and
    icm runs no program but git."""
    _, out, _ = run(command("cat-file", revs=["commit", commit]), root)
    header = out.split(b"\n\n", 1)[0]
    signed = any(line.startswith((b"gpgsig ", b"gpgsig-sha256 "))
                 for line in header.split(b"\n"))
    return "signed" if signed else "unsigned"


def _records(out: bytes) -> Iterator[Tuple[str, str]]:
    """(hash, text) of each record of ``git log -z --format=%H%n...``. A NUL
    ends a record, and no message can hold one (git prints a message up to
    its first NUL), so no message can start, end or hide a record: split
    at ``\x1e``, one made a second ``## Size`` field and a fake commit."""
    for rec in out.split(b"\0"):
        sha, newline, text = rec.partition(b"\n")
        if newline:
            yield (sha.decode("ascii", "replace"),
                   text.decode("utf-8", "surrogateescape"))


def log_subjects(root: Path, rev_range: str, limit: int) -> List[Tuple[str, str]]:
    """(hash, subject) of the newest ``limit`` commits of ``rev_range`` that
    touch ``root``; bytes that are not UTF-8 kept (surrogateescape)."""
    _, out, _ = run(command("log", f"-n{limit}", "-z", "--format=%H%n%s",
                            revs=[rev_range], paths=["."]), root)
    return list(_records(out))


def log_messages(root: Path, rev: str, limit: int) -> List[Tuple[str, str]]:
    """(hash, full message) of the newest ``limit`` commits reachable from
    ``rev`` that touch ``root``; bytes that are not UTF-8 kept."""
    if limit <= 0:
        return []
    _, out, _ = run(command("log", f"-n{limit}", "-z", "--format=%H%n%B",
                            revs=[rev], paths=["."]), root)
    return [(sha, body.rstrip("\n")) for sha, body in _records(out)]


def diff_status(root: Path, a: str, b: str, folders: Sequence[str]
                ) -> List[Tuple[str, str]]:
    """(status letter, root-relative path) of files that differ between two
    commits, renames as delete plus add, limited to ``folders`` (all when
    empty)."""
    args = ["diff", "--no-renames", "--no-ext-diff", "--no-textconv",
            "--ignore-submodules=none", "--name-status", "-z", "--relative"]
    _, out, _ = run(command(*args, revs=[a, b], paths=folders or ["."]), root)
    parts = [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0")]
    return [(parts[i][:1], parts[i + 1]) for i in range(0, len(parts) - 1, 2)
            if parts[i]]


def net_changes(root: Path, commits: Sequence[str], head: str,
                folders: Sequence[str]) -> Dict[str, List[PathChange]]:
    """For each of ``commits``, (root-relative path, its blob there, its blob
    in ``head``) of each file under ``folders`` that differs: the net change
    to ``head``, whatever came between (one ``diff-tree --stdin`` for all; a
    rename is a delete and an add, a missing side all zeros). A commit with
    no change is absent. Only hashes are asked."""
    named = [c for c in commits if _HASH.fullmatch(c)]
    if not named or not _HASH.fullmatch(head):  # stdin takes hashes only
        return {}
    args = command("diff-tree", "--stdin", "-r", "--no-renames", "--raw",
                   "--no-abbrev", "-z", *DIFF_SAFETY, "--relative",
                   paths=folders or ["."])
    _, out, _ = run(args, root, stdin="".join(f"{c} {head}\n" for c in named)
                    .encode("ascii"), index=False)
    found: Dict[str, List[PathChange]] = {}
    changes: List[PathChange] = []
    record: Optional[List[bytes]] = None
    for token in out.split(b"\0"):
        if record is not None:  # a path: whatever its bytes, after a record
            changes.append((token.decode("utf-8", "surrogateescape"),
                            record[2].decode("ascii"), record[3].decode("ascii")))
            record = None
        elif token.lstrip(b"\n").startswith(b":"):
            fields = token.lstrip(b"\n").split(b" ")
            record = fields if len(fields) >= 5 else None
        elif _HASH.fullmatch(token.strip().decode("ascii", "replace")):
            changes = found.setdefault(token.strip().decode("ascii"), [])
    return found


def worktree_status(root: Path) -> List[Tuple[str, str]]:
    """(two-letter porcelain status, path) for every uncommitted change under
    ``root``, root-relative; untracked files as ``??``."""
    return _status(root, untracked=True)


# -- another ref's tree (check-queue --against, renumber) ---------------------


def tree_entries(root: Path, rev: str, folders: Sequence[str]) -> Dict[str, str]:
    """root-relative path -> blob id of the files under ``folders`` in
    ``rev``'s tree, read without checking anything out (one ``ls-tree``)."""
    _, out, _ = run(command("ls-tree", "-r", "-z", revs=[rev], paths=folders),
                    root)
    return _listed(out, lambda parts: parts[2] if parts[1] == b"blob" else None)


def index_entries(root: Path, paths: Sequence[str]) -> Dict[str, str]:
    """root-relative path -> blob id of each of ``paths`` in the index at
    stage 0 (one ``ls-files --stage``): what the next commit holds."""
    _, out, _ = run(command("ls-files", "--stage", "-z", paths=paths), root)
    return _listed(out, lambda parts: parts[1] if parts[2] == b"0" else None)


def _listed(out: bytes, blob: Callable[[List[bytes]], Optional[bytes]]
            ) -> Dict[str, str]:
    """path -> blob id of ``ls-tree``/``ls-files --stage`` records
    (``META\tPATH``, NUL-ended; three fields of meta), the id ``blob``
    picks from the fields (None: the record is left out)."""
    found: Dict[str, str] = {}
    for item in out.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        parts = meta.split()
        oid = blob(parts) if len(parts) == 3 else None
        if oid is not None:
            found[name.decode("utf-8", "surrogateescape")] = oid.decode()
    return found


def read_blobs(root: Path, oids: Sequence[str], cap: int = 1 << 16
               ) -> Dict[str, bytes]:
    """The first ``cap`` bytes of each blob, raw (no filters, no textconv), in
    one ``cat-file --batch`` call; the rest of a large blob is skipped, never
    held. The ids go in through a file, so git never blocks on a full pipe."""
    wanted = sorted(set(oids))
    found: Dict[str, bytes] = {}
    if not wanted:
        return found
    import tempfile

    with tempfile.TemporaryFile() as ids:
        ids.write("".join(f"{oid}\n" for oid in wanted).encode("ascii"))
        ids.seek(0)
        exe = executable()
        if exe is None:
            raise UsageError("git is not installed or not on PATH")
        # Raw blobs: plain --batch applies no filter and no textconv.
        proc = subprocess.Popen(
            [exe, *BASE, "cat-file", "--batch"], cwd=str(root), env=environment(),
            stdin=ids, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        out = proc.stdout
        try:
            for oid in wanted:
                header = out.readline(200).split()
                if len(header) != 3 or header[1] != b"blob":
                    continue  # "<oid> missing", or not a blob
                size = int(header[2])
                found[oid] = out.read(min(size, cap))
                left = size - min(size, cap) + 1  # the rest and git's newline
                while left > 0:
                    chunk = out.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    left -= len(chunk)
        finally:
            out.close()
            proc.wait()
    return found
    return frozenset(found)


def changed_since(root: Path, rev: str, option: str = "--since"
                  ) -> FrozenSet[str]:
    """Paths under ``root`` that differ between ``rev`` and the work tree
    (committed since, staged or not; both names of a rename), one call;
    ``option`` names the flag in a UsageError."""
    if rev.startswith("-"):
        raise UsageError(f"{option} {rev}: not a revision")
    code, out, err = run(command("diff", "--name-only", "-z", "--no-renames",
                                 "--relative", "--no-ext-diff", "--no-textconv",
                                 WORKTREE_SUBMODULES, revs=[rev], paths=["."]),
                         root, check=False)
    if code != 0:
        raise UsageError(f"{option} {rev}: {_explain(err, root)}")
    return frozenset(p.decode("utf-8", "surrogateescape")
                     for p in out.split(b"\0") if p)
