"""``icm verify``: run each journal entry's Verify command and say whether its
invariant still holds.

This is the one place icm runs a repository's own commands, so it is a
workflow command, never a check: ``icm check`` and the default pre-commit
hook never reach it. A command is only ever the code of the section whose
role is verify (``model.journal``): never a code span of another section.
Each command runs as ``sh -c SCRIPT`` from the root,
stdin closed, with the user's environment (the project's virtualenv first
on ``PATH``: ``command_env``), in a process group of its own;
past ``verify_timeout`` seconds (and on Ctrl-C) the whole group is killed,
so no background child outlives the run. Output (stdout and stderr
together) is kept as its last lines in bounded memory; undecodable bytes are
replaced.

Not run: entries on ``journal_exempt``, superseded entries, and entries
without code in the verify slot (in a MADR or adr-tools journal, one
without a verify section is only counted: it is optional there). Entries
on ``verify_skip`` run, but only a pass is news: it is reported so the
list can shrink.

``--since REV`` keeps the entries whose command or text names a path (a
file or folder, ``.`` for everything) changed since REV, the entries
changed themselves, and every entry whose command names no path of the
repository at all: such a command can be broken by any change.
"""

from __future__ import annotations

import os
import re
import secrets
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import (
    Any,
    Callable,
    Deque,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from icm import cache as cache_mod
from icm.context import Context, Unreadable, usable_cores
from icm.errors import UsageError
from icm.escape import inert
from icm.finding import Finding, Report, Rule, Rules, Severity, cannot_read
from icm.model import journal

NAME = "verify"
# icm explain: why the rule matters, and how to silence it here
WHY = ("An Invariant is only as good as the command that re-tests it: a command that "
       "fails is a decision that no longer holds.")
SILENCE = "verify_skip names an entry and why it is skipped (the list may only shrink)"
RULES = Rules(NAME, {
    "holds": Rule("the entry's Verify command exits 0", Severity.INFO),
    "broken": Rule("the entry's Verify command fails: its invariant no longer "
                   "holds", fix="the invariant no longer holds: fix the code, or "
                   "supersede the entry with one that states what is true now"),
    "timeout": Rule("the Verify command ran past verify_timeout",
                    fix="make the command faster or raise verify_timeout"),
    "no-command": Rule("the entry has no Verify command to run",
                       Severity.WARNING),
    "skipped": Rule("the entry is on verify_skip", Severity.INFO),
    "skipped-holds": Rule("an entry on verify_skip holds again",
                          fix="delete this path from verify_skip"),
    "skip-missing": Rule("an entry on verify_skip does not exist",
                         fix="delete this path from verify_skip"),
    "exempt": Rule("the entry is on journal_exempt; not run", Severity.INFO),
    "superseded": Rule("the entry is superseded; not run", Severity.INFO),
    "no-verify-section": Rule("the entry has no verify section, optional in "
                              "this journal_format; not run", Severity.INFO),
    "unreadable": Rule("the entry cannot be read as UTF-8 text"),
    "dry-run": Rule("what icm verify would run, and where", Severity.INFO),
})
TAIL_LINES = 20  # output lines kept per command
LINE_BYTES = 4096  # of each, the last bytes kept
CHUNK = 1 << 16
POLL = 0.1  # seconds between looks at a command whose output went quiet
CLOCK = time.monotonic  # what durations are measured with (tests pin it)


class Tail:
    """The last ``lines`` lines of a byte stream, each cut to its last
    ``width`` bytes: memory stays bounded whatever the command prints."""

    def __init__(self, lines: int = TAIL_LINES, width: int = LINE_BYTES) -> None:
        self.lines: Deque[bytes] = deque(maxlen=lines)
        self.width = width
        self.partial = bytearray()

    def feed(self, chunk: bytes) -> None:
        parts = chunk.split(b"\n")
        self.partial += parts[0]
        if len(parts) > 1:
            self.lines.append(bytes(self.partial[-self.width:]))
            keep = self.lines.maxlen or 1
            for part in parts[max(1, len(parts) - 1 - keep):-1]:
                self.lines.append(part[-self.width:])
            self.partial = bytearray(parts[-1])
        if len(self.partial) > self.width:
            del self.partial[:-self.width]

    def text(self) -> Tuple[str, ...]:
        found = list(self.lines) + ([bytes(self.partial)] if self.partial else [])
        keep = found[-(self.lines.maxlen or 1):]
        return tuple(b.decode("utf-8", "replace").rstrip("\r") for b in keep)


@dataclass(frozen=True)
class Outcome:
    exit_code: int  # negative: killed by that signal
    seconds: float
    tail: Tuple[str, ...]
    timed_out: bool


VENV_FOLDERS = (".venv", "venv")  # at the root, in this order


def project_bin(root: Optional[Path], env: Dict[str, str]) -> Optional[str]:
    """The project's environment: an activated virtualenv (``VIRTUAL_ENV``),
    else a ``.venv`` (or ``venv``) at the root; its ``bin`` folder."""
    active = env.get("VIRTUAL_ENV", "")
    candidates = [os.path.join(active, "bin")] if active else []
    if root is not None:
        candidates += [os.path.join(str(root), name, "bin") for name in VENV_FOLDERS]
    return next((os.path.abspath(c) for c in candidates if os.path.isdir(c)), None)


def command_env(root: Optional[Path] = None) -> Dict[str, str]:
    """The user's environment, with the project's virtualenv (``project_bin``)
    first on PATH, then the folder of the Python running icm: in a pipx or
    other isolated install icm's interpreter has no ``pytest``, so ``python
    -m pytest`` must name the project's; ``.venv/bin/icm verify`` run without
    activating the venv still gives that venv's ``pytest`` and ``icm``. This
    picks which interpreter ``python`` names, never what runs."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(sys.executable))
    first = [b for b in (project_bin(root, env), here) if b]
    parts = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p]
    lead = list(dict.fromkeys(first))
    if [os.path.abspath(p) for p in parts[:len(lead)]] != lead:
        env["PATH"] = os.pathsep.join([*lead, *parts])
    return env


def _exited(proc: "subprocess.Popen[bytes]") -> bool:
    """Whether the shell has exited, without reaping it: its pid stays the
    group's id until the group is killed."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - macOS before Python 3.13
        return proc.poll() is not None
    try:
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        return waitid(os.P_PID, proc.pid, flags) is not None
    except ChildProcessError:
        return True


def _kill(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:  # already gone
        pass


TOKEN_VAR = "ICM_VERIFY_RUN"


def _holds(pid: int, token: bytes) -> Optional[bool]:
    """Whether a process carries one command's token in its environment;
    None when it went away as it was read (gone, or a zombie: its environ
    reads empty), so the sweep cannot tell. The variable is a chain
    (``outer:inner``), so a nested ``icm verify`` killed by its outer run
    still leaves its commands findable."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            env = b"\0" + fh.read(1 << 20)
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:  # not ours to read
        return False
    if env == b"\0":
        return None
    key = b"\0" + TOKEN_VAR.encode() + b"="
    at = env.find(key)
    if at < 0:
        return False
    end = env.find(b"\0", at + 1)
    return token in env[at + len(key):end if end >= 0 else None].split(b":")


def _kill_strays(token: bytes) -> None:
    """Kill every process still carrying a command's token: what left its
    process group (``setsid``, a daemon) and outlived it. Linux only
    (``/proc``); elsewhere, and for a process that cleared its environment,
    the group is the reach.

    Each holder is stopped and killed with its whole process group the
    moment it is found (the kernel restarts a fork that a group signal
    lands in), newest pids first, and later sweeps read only pids not yet
    seen: a child forking a new pid every few milliseconds had moved on
    before a whole-``/proc`` sweep reached it. A pid gone as it is read
    calls for another sweep: a sweep that met only a hopper's exiting
    parent ended while its child ran on (1 run in 4)."""
    me, mine = os.getpid(), os.getpgrp()
    seen: Set[int] = set()
    for _ in range(100):
        try:
            names = os.listdir("/proc")
        except OSError:
            return
        fresh = sorted((int(n) for n in names if n.isdigit()), reverse=True)
        found = False
        for pid in fresh:
            if pid in seen or pid == me:
                continue
            seen.add(pid)
            held = _holds(pid, token)
            if held is None:
                # gone between the listing and the read: a hopper's parent
                # exits as its child forks, so sweep again (its child is new)
                found = True
            if not held:
                continue
            found = True
            try:
                os.kill(pid, signal.SIGSTOP)
                group = os.getpgid(pid)
                if group != mine:
                    os.killpg(group, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone meanwhile
                pass
        if not found:
            return


class Runner:
    """Runs scripts from ``root``, each in its own process group, and can kill
    every group still running at once (``stop``)."""

    def __init__(self, root: Path, timeout: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.root = root
        self.timeout = timeout
        self.clock = clock
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.groups: Dict[int, bytes] = {}  # group id -> its command's token

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            for group, token in self.groups.items():
                _kill(group)
                _kill_strays(token)

    def run(self, script: str) -> Optional[Outcome]:
        """Run one script; None when stopped before or while it ran."""
        if self.stopping.is_set():
            return None
        start, begun = self.clock(), time.monotonic()
        token = secrets.token_hex(8)
        env = command_env(self.root)
        outer = env.get(TOKEN_VAR, "")  # a Verify command running icm verify
        env[TOKEN_VAR] = f"{outer[-400:]}:{token}" if outer else token
        try:
            proc = subprocess.Popen(
                ["sh", "-c", script], cwd=str(self.root), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True, env=env)
        except OSError as exc:
            raise UsageError(f"cannot start sh: {exc.strerror or exc}") from None
        with self.lock:
            self.groups[proc.pid] = token.encode()
        tail = Tail()
        timed_out = False
        try:
            assert proc.stdout is not None
            fd = proc.stdout.fileno()
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                timed_out = self._follow(proc, sel, fd, tail, begun)
                end = self.clock()
                _kill(proc.pid)  # background children die with the shell
                self._drain(sel, fd, tail)
        finally:
            _kill(proc.pid)
            _kill_strays(token.encode())
            code = proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
            with self.lock:
                self.groups.pop(proc.pid, None)
        if self.stopping.is_set():
            return None
        return Outcome(code, end - start, tail.text(), timed_out)

    def _follow(self, proc: "subprocess.Popen[bytes]", sel: Any, fd: int,
                tail: Tail, begun: float) -> bool:
        """Read output until the shell exits; True when it ran past the
        timeout. A background child may hold the pipe open after the shell
        is done, so the shell's exit, not the pipe's end, ends the wait."""
        deadline = begun + self.timeout
        eof = False
        nap = 0.001  # after the pipe's end the exit follows at once: look soon
        while not self.stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            if eof:
                time.sleep(min(left, nap))
                nap = min(nap * 2, POLL / 5)
            elif sel.select(min(left, POLL)):
                chunk = os.read(fd, CHUNK)
                if chunk:
                    tail.feed(chunk)
                else:
                    eof = True
                    sel.unregister(fd)
            if _exited(proc):
                return False
        return False

    @staticmethod
    def _drain(sel: Any, fd: int, tail: Tail, limit: float = 1.0) -> None:
        """Read what the group wrote before it was killed (bounded: a process
        that left the group could hold the pipe open for ever)."""
        if not sel.get_map():
            return
        until = time.monotonic() + limit
        while time.monotonic() < until and sel.select(until - time.monotonic()):
            chunk = os.read(fd, CHUNK)
            if not chunk:
                return
            tail.feed(chunk)


# -- selection -----------------------------------------------------------------

_WORD = re.compile(r"[^\s`'\"()\[\]<>,;:=|&!*?{}$]+")


def _words(text: str) -> Set[str]:
    """Words that could name a path: ``./a/b/`` is ``a/b``, ``.`` the root."""
    found = set()
    for word in _WORD.findall(text):
        while word.startswith("./"):
            word = word[2:]
        word = word.rstrip("/")
        if word != ".":
            word = word.rstrip(".")
        if word:
            found.add(word)
    return found


def _with_folders(paths: Iterable[str]) -> Set[str]:
    """The paths, every folder above them, and ``.``."""
    out = {"."}
    for path in paths:
        out.add(path)
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            if path in out:
                break
            out.add(path)
    return out


def _since_keeps(path: str, text: str, script: str, changed: FrozenSet[str],
                 hit: Set[str], known: Set[str]) -> bool:
    """The ``--since`` rule (module docstring)."""
    if path in changed:
        return True
    named = _words(script)
    if not named & known:
        return True
    return bool((named | _words(text)) & hit)


def select(ctx: Context, wanted: Sequence[str]) -> List[str]:
    """The entries named by path, file name or prefix (``2026-11``); all
    when none are named."""
    every = sorted(journal.entries(ctx))
    if not wanted:
        return every
    chosen: Set[str] = set()
    for raw in wanted:
        rel = raw.replace("\\", "/")
        if os.path.isabs(raw) or os.path.exists(raw):
            rel = os.path.relpath(os.path.abspath(raw), ctx.root).replace(os.sep, "/")
        hits = [e for e in every if e == rel or e.startswith(rel)
                or e.rsplit("/", 1)[-1].startswith(rel)]
        if not hits:
            raise UsageError(f"no journal entry matches '{raw}'")
        chosen.update(hits)
    return sorted(chosen)


# -- the command ------------------------------------------------------------------

def seconds(value: float) -> str:
    return f"{value:.1f} s"


def _limit(value: float) -> str:
    return f"{value:g} s"


@dataclass(frozen=True)
class _Plan:
    path: str
    line: int
    script: str
    skip: Optional[str]  # the verify_skip reason, if listed


def _verdict(plan: _Plan, out: Outcome, timeout: float) -> Finding:
    last = next((line for line in reversed(out.tail) if line.strip()), "")
    # Command output and scripts come from the repository: shown escaped,
    # never passed to a terminal or CI log.
    shown = f": {inert(last.strip())}" if last else ""
    if plan.skip is not None:
        if out.exit_code == 0 and not out.timed_out:
            return RULES("skipped-holds", plan.path, f"skipped ({plan.skip}) but "
                         "holds, remove it from verify_skip", line=plan.line)
        return RULES("skipped", plan.path, f"skipped ({plan.skip})", line=plan.line)
    if out.timed_out:
        return RULES("timeout", plan.path, "TIMEOUT - verify command ran past "
                     f"{_limit(timeout)}", line=plan.line)
    if out.exit_code == 0:
        return RULES("holds", plan.path, f"holds ({seconds(out.seconds)})",
                     line=plan.line)
    if out.exit_code < 0:
        try:
            how = f"was killed by {signal.Signals(-out.exit_code).name}"
        except ValueError:
            how = f"was killed by signal {-out.exit_code}"
    else:
        how = f"exited {out.exit_code}"
    return RULES("broken", plan.path, f"BROKEN - verify command {how}{shown}",
                 line=plan.line)


def _jobs(jobs: int) -> int:
    return jobs if jobs > 0 else usable_cores()


def run(ctx: Context, wanted: Sequence[str] = (), since: Optional[str] = None,
        jobs: int = 0, dry_run: bool = False,
        clock: Optional[Callable[[], float]] = None) -> Report:
    """Verify the selected entries; a Report with one verdict per entry."""
    cfg = ctx.config
    lay = journal.layout(cfg)
    slot = lay.verify
    if slot is None:
        # Only a config can leave no fourth slot: name it and the key. A
        # fourth named for another role (Consequences) is no command.
        why = "slots has no fourth" if len(lay.slots) < 4 else \
            f"the fourth slot, '{lay.slots[3]}', is not the verify role"
        raise UsageError(f"{cfg.location}: no slot holds the Verify command: "
                         f"{why} and verify_slot is unset; set "
                         "verify_slot to the slot whose code icm verify runs")
    paths = select(ctx, wanted)
    skip = dict(cfg.verify_skip)
    exempt = set(cfg.journal_exempt)
    found: List[Finding] = []
    plans: List[_Plan] = []
    texts: Dict[str, str] = {}
    read: Dict[str, journal.Entry] = {}
    numbers = journal.numbered(journal.entries(ctx), lay)
    for path in paths:
        try:
            texts[path] = ctx.read_markdown(path)
        except Unreadable as exc:
            found.append(RULES("unreadable", path, cannot_read(exc.reason)))
            continue
        read[path] = journal.parse_entry(texts[path], path, lay.slots, slot, lay,
                                         numbers)
    replaced = journal.superseding(read)
    for path, entry in read.items():
        if path in exempt:
            found.append(RULES("exempt", path, "exempt, not run"))
        elif path in replaced:
            by, line = replaced[path]
            found.append(RULES("superseded", path, "superseded by "
                               f"{inert(by)}, not run", line=line))
        elif entry.command is None and not entry.verify_line \
                and slot not in lay.slots:
            found.append(RULES("no-verify-section", path, f"no '{slot}' section, "
                               "not run"))
        elif entry.command is None:
            why = "holds no code" if entry.verify_line else "is missing"
            found.append(RULES("no-command", path, "no verify command (the "
                               f"'{slot}' slot {why})", line=entry.verify_line,
                               fix=f"put the command in the '{slot}' slot, in a "
                               "fenced sh block"))
        else:
            plans.append(_Plan(path, entry.verify_line, entry.command, skip.get(path)))
    if not wanted:
        present = set(journal.entries(ctx))
        for path in sorted(set(skip) - present):
            found.append(RULES("skip-missing", path, "on verify_skip but missing, "
                               "remove it from verify_skip"))
    left_out = 0
    if since is not None:
        from icm import git  # only --since needs git facts beyond the file set

        changed = git.changed_since(ctx.root, since)
        hit = _with_folders(changed) if changed else set()
        known = _with_folders(ctx.files) | _with_folders(changed)
        kept = [p for p in plans if _since_keeps(p.path, texts[p.path], p.script,
                                                 changed, hit, known)]
        left_out = len(plans) - len(kept)
        plans = kept
    if dry_run:
        for plan in plans:
            listed = f" (on verify_skip: {plan.skip})" if plan.skip else ""
            # split at "\n" only, as sh does: a NEL or U+2028 is shown escaped
            text = plan.script.rstrip("\n")
            script = tuple(map(inert, text.split("\n"))) if text else ()
            found.append(RULES("dry-run", plan.path,
                               f"would run in {ctx.root}{listed}:", line=plan.line,
                               lines=script))
        return _report(found, [], left_out, since, dry_run=True)
    times = cache_mod.Cache(ctx.cache_dir, "verify times", cache_mod.seconds,
                            cache_mod.limit(len(plans), 0), name=TIMES_FILE)
    outcomes = _execute(ctx.root, _longest_first(plans, times), cfg.verify_timeout,
                        jobs, clock or CLOCK)
    for plan in plans:  # this run's times, each under its command's hash
        times.put(plan.path, cache_mod.digest(plan.script.encode()),
                  outcomes[plan.path].seconds, ())
    for path, entry in times.entries.items():  # entries not run this time stay
        times.used.setdefault(path, entry)
    times.save()
    results = []
    for plan in plans:
        out = outcomes[plan.path]
        found.append(_verdict(plan, out, cfg.verify_timeout))
        results.append({
            "path": plan.path, "command": plan.script,
            "exit_code": None if out.timed_out else out.exit_code,
            "timed_out": out.timed_out, "duration": round(out.seconds, 3),
            "output_tail": list(out.tail), "skipped": plan.skip,
        })
    return _report(found, results, left_out, since)


TIMES_FILE = "verify-times.json"


def _longest_first(plans: Sequence[_Plan], times: "cache_mod.Cache") -> List[_Plan]:
    """Plans in the order to start them: by the time each took last run,
    longest first (new or changed commands before all), so a long command
    does not start last and leave the other cores idle. Verdicts keep the
    journal's order."""
    def last(plan: _Plan) -> float:
        hit = times.entries.get(plan.path)
        if (isinstance(hit, list) and len(hit) == 3
                and hit[0] == cache_mod.digest(plan.script.encode())
                and isinstance(hit[1], (int, float))):
            return float(hit[1])
        return float("inf")
    return sorted(plans, key=last, reverse=True)


class _Terminated(BaseException):
    """SIGTERM (``timeout``, a CI runner cancelling, ``kill``) or SIGHUP (the
    terminal closed) arrived."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_ending(signum: int, frame: object) -> None:
    raise _Terminated(signum)


# Signals whose default action ends icm and would leave its commands running.
ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
               if hasattr(signal, name))


def _execute(root: Path, plans: Sequence[_Plan], timeout: float, jobs: int,
             clock: Callable[[], float]) -> Dict[str, Outcome]:
    """Run every plan, ``jobs`` at a time; on Ctrl-C kill every group, wait
    for the workers, and let KeyboardInterrupt go on (exit 130). SIGTERM and
    SIGHUP kill every group the same way, then icm dies of that signal: the
    default action alone left the commands running after icm was gone."""
    runner = Runner(root, timeout, clock)
    outcomes: Dict[str, Outcome] = {}
    if not plans:
        return outcomes
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, _on_ending) for sig in ENDING}
    try:
        return _run_all(runner, plans, jobs, outcomes)
    except _Terminated as ended:
        runner.stop()  # again: the signal may have cut a cleanup short
        signal.signal(ended.signum, signal.SIG_DFL)
        os.kill(os.getpid(), ended.signum)
        raise  # pragma: no cover - the signal ends the process first
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run_all(runner: "Runner", plans: Sequence[_Plan], jobs: int,
             outcomes: Dict[str, Outcome]) -> Dict[str, Outcome]:
    pool = ThreadPoolExecutor(max_workers=min(_jobs(jobs), len(plans)))
    try:
        futures: Dict[Future[Optional[Outcome]], str] = {
            pool.submit(runner.run, plan.script): plan.path for plan in plans}
        pending = set(futures)
        while pending:
            # A timeout keeps the main thread where Ctrl-C can reach it.
            done, pending = wait(pending, timeout=POLL * 5)
            for future in done:
                result = future.result()
                if result is not None:
                    outcomes[futures[future]] = result
    except BaseException:
        runner.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    if len(outcomes) != len(plans):  # a worker saw the stop before we did
        raise KeyboardInterrupt
    return outcomes


def _report(found: List[Finding], results: List[Dict[str, Any]], left_out: int,
            since: Optional[str], dry_run: bool = False) -> Report:
    findings = tuple(sorted(found))
    counts: Dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    if dry_run:
        n = counts.get("dry-run", 0)
        tail = f"verify: {n} command{'' if n == 1 else 's'} would run"
    else:
        not_run = sum(counts.get(c, 0) for c in ("exempt", "superseded", "no-command",
                                                 "no-verify-section"))
        skipped = counts.get("skipped", 0) + counts.get("skipped-holds", 0)
        tail = (f"verify: {counts.get('holds', 0)} hold, {counts.get('broken', 0)} "
                f"broken, {counts.get('timeout', 0)} timed out, "
                f"{skipped} skipped, {not_run} not run")
    if left_out:
        tail += f", {left_out} left out (nothing they name changed since {since})"
    return Report(NAME, findings, tail=(tail,), data={"entries": results})
