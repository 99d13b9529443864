"""A generated project for ``icm brief``: a journal with supersede chains,
revived designs and distractors sharing vocabulary, and queue items each
labelled with the entry it bears on.

    python bench/gen_brief.py /tmp/bench/brief --entries 500 --items 120

The project has twelve folders, each with a note, eight subjects per folder
and eight aspects per subject (storage, limits, errors, ordering,
concurrency, format, naming, start-up): a topic is a subject's aspect. A
design is a verb, the subject and a mechanism drawn from the aspect's pool,
so the same mechanism serves many subjects and each subject has many
aspects: distractors share words with every design. An entry decides one
design of a topic and rejects another, with a reason; a later entry on the
topic may supersede it (deciding a new design, or reviving one an earlier
entry rejected, with ``Revives:``), so chains form.

Each queue item restates one design in other words (half the words the
thesaurus below knows swapped, the subject called by another name half of
the time), with a context sentence, and names a file of the folder half of
the time. Its label is the
entry the generator built it from, written to ``labels.json``:

- ``rejected``: an entry's Rejected alternative proposed again (label: that
  entry);
- ``superseded``: an overruled decision proposed again (label: the entry
  that held it);
- ``revived``: a revived design proposed again (label: the current entry
  reviving it);
- ``current``: a change to what a current entry holds (label: that entry).

The labels come from the construction, never from icm's scores.
Deterministic: the same arguments write the same project.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

FOLDERS: Dict[str, List[str]] = {
    "src/parser": ["tokenizer", "grammar", "syntax tree", "error recovery",
                   "line numbers", "unicode input", "comment handling",
                   "escape sequences"],
    "src/cache": ["cache key", "eviction", "invalidation", "warm start",
                  "cache size", "cache file", "hit counters", "stale entries"],
    "src/storage": ["write path", "fsync calls", "compaction", "snapshots",
                    "index file", "checksums", "file lock", "recovery log"],
    "src/net": ["retries", "timeouts", "connection pool", "proxy settings",
                "certificates", "backoff", "keepalive", "name lookup"],
    "src/auth": ["access tokens", "sessions", "password hashing", "key rotation",
                 "permissions", "audit log", "login throttle",
                 "service accounts"],
    "src/export": ["csv output", "json output", "export stream", "compression",
                   "column order", "text encoding", "large exports",
                   "partial files"],
    "src/sched": ["job queue", "priorities", "cron parsing", "worker count",
                  "job timeout", "missed runs", "clock skew", "job retries"],
    "src/report": ["summary line", "html report", "terminal colors",
                   "progress bar", "exit codes", "warning list", "verbosity",
                   "log format"],
    "src/cli": ["argument parsing", "config file", "environment variables",
                "subcommands", "help text", "shell completion", "default values",
                "dry runs"],
    "src/plugins": ["plugin loading", "entry points", "plugin sandbox",
                    "plugin versions", "hooks", "plugin discovery",
                    "plugin isolation", "plugin registry"],
    "tests": ["fixtures", "temporary repositories", "network access",
              "flaky tests", "golden files", "property tests", "slow tests",
              "coverage"],
    "docs": ["reference pages", "examples", "changelog", "tutorial", "api docs",
             "diagrams", "translations", "versioned docs"],
}

ASPECTS: Dict[str, Tuple[List[str], List[str]]] = {
    "storage": (["store", "keep", "persist"], [
        "in a sqlite database beside the data",
        "as one json file per record",
        "in memory only, lost when the process exits",
        "in a single append-only log file",
        "in the user's home directory",
        "in a temporary folder cleaned at start",
        "inside the repository under a hidden folder",
        "on a shared network folder",
        "in the system keychain",
        "as compressed chunks of a fixed size"]),
    "limits": (["cap", "limit", "bound"], [
        "with a fixed limit read from the config file",
        "with no limit at all",
        "with a limit scaled to the free memory",
        "at one thousand items and refuse the rest",
        "with a soft limit that only prints a warning",
        "with a quota for each user",
        "with a limit that doubles whenever it is reached",
        "by the number of processor cores",
        "at a size the caller passes in",
        "with a limit measured in bytes rather than items"]),
    "errors": (["handle failures of", "recover from errors in"], [
        "by retrying three times with a fixed delay",
        "by failing the whole run on the first error",
        "by logging the error and carrying on",
        "by retrying with exponential backoff and jitter",
        "by raising an exception to the caller",
        "by returning a partial result with a warning",
        "by rolling back every change made so far",
        "by asking the user on the terminal what to do",
        "by writing a crash report and exiting",
        "by skipping the bad record and counting it"]),
    "ordering": (["order", "sort", "process"], [
        "by the time of last use",
        "in the order the requests arrived",
        "by name in alphabetical order",
        "by size with the largest first",
        "in random order on every run",
        "grouped by owner then by date",
        "by priority with ties broken by age",
        "by a weight the user configures",
        "newest first, dropping the oldest",
        "by the hash of the key"]),
    "concurrency": (["update", "guard", "run"], [
        "under one global lock held around every change",
        "with a separate lock for each file",
        "on a pool of worker threads",
        "in a separate process for each job",
        "with optimistic retries when a conflict is seen",
        "single threaded in the main event loop",
        "with an advisory file lock on disk",
        "through a message queue between the workers",
        "with a read-write lock that favours readers",
        "by copying the data before every change"]),
    "format": (["write", "encode", "save"], [
        "as plain text with one record per line",
        "as json with a schema version field",
        "as a binary format with a magic header",
        "as csv with a header row",
        "as yaml so people can edit it by hand",
        "as toml next to the project file",
        "as protocol buffers with generated classes",
        "as a gzip compressed json stream",
        "as markdown tables for the reader",
        "as one line of key=value pairs"]),
    "naming": (["name", "label"], [
        "after a hash of the content",
        "after the date and a counter",
        "with a name the user gives on the command line",
        "after the source file it came from",
        "with a random unique identifier",
        "after the host and the process id",
        "with a short slug of the title",
        "after the version of the program",
        "with the owner's login as a prefix",
        "by position, one, two, three"]),
    "start-up": (["load", "prepare", "initialise"], [
        "eagerly when the program starts",
        "lazily the first time it is needed",
        "from scratch at every start",
        "from the last snapshot on disk",
        "in a background thread after start",
        "after a corruption check at start",
        "from a file the installer writes",
        "only when a flag asks for it",
        "from the network on first use",
        "once per machine and shared by every user"]),
}

REASONS = [
    "It was twice as slow on the large inputs users have.",
    "It lost data when the process was killed halfway.",
    "Two users on one machine overwrote each other's work.",
    "It made the tests depend on the clock.",
    "It broke on Windows, where paths and locks differ.",
    "It needed a new dependency for a small gain.",
    "It hid errors that users then found in production.",
    "Its memory grew with the input until the machine swapped.",
    "It was impossible to test without the network.",
    "It confused every new contributor who read it.",
    "It made start-up three seconds slower.",
    "It could not be undone once written.",
]

CONTEXTS = [
    "Users report trouble with the {subject} on large projects.",
    "While fixing a bug I looked again at the {subject}.",
    "The {subject} comes up in nearly every support thread.",
    "A contributor asked how the {subject} should work.",
    "Profiling shows the {subject} near the top.",
    "The {subject} is the last piece before the release.",
]

THESAURUS: Dict[str, List[str]] = {
    "store": ["save", "put"], "keep": ["hold", "retain"], "persist": ["save"],
    "sqlite": ["SQLite"], "database": ["db", "datastore"],
    "beside": ["next to", "alongside"], "data": ["contents"],
    "json": ["JSON"], "file": ["document"], "record": ["entry", "item"],
    "memory": ["RAM"], "lost": ["gone"], "process": ["program"],
    "exits": ["quits", "ends"], "single": ["one"], "append-only": ["growing"],
    "log": ["journal"], "home": ["personal"], "directory": ["folder"],
    "temporary": ["scratch"], "folder": ["directory"], "cleaned": ["wiped"],
    "start": ["launch", "startup"], "repository": ["repo"],
    "hidden": ["dot"], "shared": ["common"], "network": ["remote"],
    "keychain": ["credential store"], "compressed": ["zipped"],
    "chunks": ["blocks", "pieces"], "fixed": ["constant", "set"],
    "limit": ["ceiling", "maximum"], "config": ["settings"],
    "scaled": ["sized"], "free": ["available"], "thousand": ["1000"],
    "items": ["entries"], "refuse": ["reject", "drop"], "soft": ["gentle"],
    "prints": ["shows", "emits"], "warning": ["notice"], "quota": ["allowance"],
    "user": ["person", "account"], "doubles": ["grows twofold"],
    "reached": ["hit"], "number": ["count"], "processor": ["CPU"],
    "cores": ["threads"], "size": ["length"], "caller": ["client"],
    "passes": ["gives", "hands"], "measured": ["counted"], "bytes": ["octets"],
    "retrying": ["trying again", "repeating"], "delay": ["pause", "wait"],
    "failing": ["aborting"], "whole": ["entire"], "run": ["execution"],
    "error": ["failure", "fault"], "logging": ["recording", "noting"],
    "carrying": ["going"], "exponential": ["growing"], "backoff": ["waits"],
    "jitter": ["randomness"], "raising": ["throwing"], "exception": ["error"],
    "returning": ["giving back"], "partial": ["incomplete"],
    "result": ["answer", "output"], "rolling": ["winding"],
    "change": ["edit", "modification"], "asking": ["prompting"],
    "terminal": ["console"], "crash": ["failure"], "report": ["dump"],
    "exiting": ["quitting"], "skipping": ["ignoring", "passing over"],
    "bad": ["broken", "invalid"], "counting": ["tallying"],
    "time": ["moment"], "last": ["most recent"], "use": ["access"],
    "order": ["sequence"], "requests": ["calls"], "arrived": ["came in"],
    "name": ["title"], "alphabetical": ["lexical"], "largest": ["biggest"],
    "random": ["arbitrary", "shuffled"], "grouped": ["bucketed"],
    "owner": ["author"], "date": ["day"], "priority": ["importance"],
    "ties": ["draws"], "broken": ["settled"], "age": ["how old"],
    "weight": ["score"], "configures": ["sets"], "newest": ["latest"],
    "dropping": ["discarding"], "oldest": ["earliest"], "hash": ["digest"],
    "key": ["identifier"], "global": ["process-wide"], "lock": ["mutex"],
    "held": ["taken"], "separate": ["distinct", "own"], "pool": ["set"],
    "worker": ["helper", "background"], "threads": ["threads of work"],
    "job": ["task"], "optimistic": ["hopeful"], "conflict": ["clash"],
    "seen": ["detected"], "threaded": ["threaded only"],
    "event": ["main"], "loop": ["cycle"], "advisory": ["cooperative"],
    "disk": ["storage"], "message": ["work"], "queue": ["channel"],
    "workers": ["helpers"], "favours": ["prefers"], "readers": ["reads"],
    "copying": ["duplicating"], "plain": ["simple"], "text": ["prose"],
    "line": ["row"], "schema": ["format"], "version": ["revision"],
    "field": ["entry"], "binary": ["packed"], "magic": ["marker"],
    "header": ["heading"], "csv": ["CSV"], "row": ["line"],
    "yaml": ["YAML"], "edit": ["change"], "hand": ["manually"],
    "toml": ["TOML"], "project": ["package"], "protocol": ["proto"],
    "buffers": ["messages"], "generated": ["compiled"], "classes": ["types"],
    "gzip": ["gzipped"], "stream": ["feed"], "markdown": ["Markdown"],
    "tables": ["grids"], "reader": ["audience"], "pairs": ["entries"],
    "content": ["contents", "bytes"], "counter": ["sequence number"],
    "command": ["cli"], "source": ["original"], "unique": ["distinct"],
    "identifier": ["id"], "host": ["machine"], "slug": ["short name"],
    "title": ["heading"], "program": ["tool"], "login": ["username"],
    "prefix": ["leading part"], "position": ["place"],
    "eagerly": ["up front", "immediately"], "lazily": ["on demand"],
    "needed": ["required"], "scratch": ["nothing"], "snapshot": ["checkpoint"],
    "background": ["side"], "corruption": ["integrity"], "check": ["test"],
    "installer": ["setup script"], "flag": ["option", "switch"],
    "machine": ["computer"], "every": ["each"],
}

# What a person proposing work may call a subject instead (half the time).
SUBJECTS: Dict[str, str] = {
    "tokenizer": "lexer", "grammar": "parse rules", "syntax tree": "ast",
    "error recovery": "resync after parse errors", "line numbers": "source lines",
    "unicode input": "non-ascii text", "comment handling": "comments",
    "escape sequences": "backslash escapes", "cache key": "cache identifier",
    "eviction": "dropping cached items", "invalidation": "cache busting",
    "warm start": "preloading", "cache size": "how big the cache gets",
    "cache file": "on-disk cache", "hit counters": "cache statistics",
    "stale entries": "outdated cache items", "write path": "saving code",
    "fsync calls": "flushes to disk", "compaction": "garbage collection of "
    "old segments", "snapshots": "point-in-time copies", "index file": "lookup "
    "table", "checksums": "integrity hashes", "file lock": "lockfile",
    "recovery log": "write-ahead log", "retries": "repeated attempts",
    "timeouts": "deadlines", "connection pool": "reused sockets",
    "proxy settings": "http proxy", "certificates": "tls trust",
    "backoff": "wait between attempts", "keepalive": "idle connections",
    "name lookup": "dns resolution", "access tokens": "bearer credentials",
    "sessions": "logged-in state", "password hashing": "stored passwords",
    "key rotation": "replacing signing keys", "permissions": "access rights",
    "audit log": "security trail", "login throttle": "sign-in rate limit",
    "service accounts": "machine users", "csv output": "comma separated export",
    "json output": "machine-readable export", "export stream": "streamed export",
    "compression": "zipping exports", "column order": "field order",
    "text encoding": "charset", "large exports": "big downloads",
    "partial files": "half-written exports", "job queue": "pending tasks",
    "priorities": "urgency levels", "cron parsing": "schedule expressions",
    "worker count": "how many workers", "job timeout": "task deadline",
    "missed runs": "skipped schedules", "clock skew": "wrong system time",
    "job retries": "re-running failed tasks", "summary line": "final tally",
    "html report": "web report", "terminal colors": "ansi colours",
    "progress bar": "progress display", "exit codes": "return status",
    "warning list": "collected warnings", "verbosity": "how chatty output is",
    "log format": "log lines", "argument parsing": "command-line options",
    "config file": "settings file", "environment variables": "env vars",
    "subcommands": "verbs of the cli", "help text": "usage message",
    "shell completion": "tab completion", "default values": "fallback settings",
    "dry runs": "preview mode", "plugin loading": "importing extensions",
    "entry points": "extension hooks in packaging", "plugin sandbox":
    "extension jail", "plugin versions": "extension compatibility", "hooks":
    "callbacks", "plugin discovery": "finding extensions", "plugin isolation":
    "keeping extensions apart", "plugin registry": "list of extensions",
    "fixtures": "test setup", "temporary repositories": "throwaway repos",
    "network access": "sockets in tests", "flaky tests": "intermittent "
    "failures", "golden files": "expected output files", "property tests":
    "generated test cases", "slow tests": "long-running tests", "coverage":
    "lines exercised", "reference pages": "manual pages", "examples": "samples",
    "changelog": "release notes", "tutorial": "getting-started guide",
    "api docs": "docstrings site", "diagrams": "pictures", "translations":
    "localised docs", "versioned docs": "docs per release",
}

FILES = ["core.py", "io.py", "state.py", "api.py", "util.py", "model.py"]


@dataclass
class Entry:
    path: str
    topic: Tuple[str, str, str]  # folder, subject, aspect
    decision: str
    rejected: str
    reason: str
    file: str
    superseded_by: str = ""
    supersedes: str = ""
    revives: str = ""
    decision_design: int = 0
    rejected_design: int = 0
    extra: List[str] = field(default_factory=list)


def design(topic: Tuple[str, str, str], n: int, rng_verb: int) -> str:
    _folder, subject, aspect = topic
    verbs, mechanisms = ASPECTS[aspect]
    verb = verbs[rng_verb % len(verbs)]
    return f"{verb.capitalize()} the {subject} {mechanisms[n]}."


def paraphrase(rng: random.Random, text: str, rate: float = 0.5) -> str:
    """Half the words the thesaurus knows swapped for another word."""
    out = []
    for word in text.rstrip(".").split():
        bare = word.lower().strip(",")
        if bare in THESAURUS and rng.random() < rate:
            swap = rng.choice(THESAURUS[bare])
            out.append(swap + ("," if word.endswith(",") else ""))
        else:
            out.append(word)
    said = " ".join(out)
    return said[0].lower() + said[1:]


def slug(text: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return "-".join(words[:7]) or "entry"


def generate(folder: Path, entries: int, items: int = 100,
             seed: int = 7) -> Dict[str, Dict[str, str]]:
    """Write the project; return the labels (item -> kind and entry)."""
    rng = random.Random(seed)
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "journal").mkdir(parents=True)
    (folder / "queue").mkdir()
    topics = [(f, s, a) for f, subjects in FOLDERS.items() for s in subjects
              for a in ASPECTS]
    rng.shuffle(topics)
    current: Dict[Tuple[str, str, str], Entry] = {}
    made: List[Entry] = []
    # a working set of topics, so topics come back (chains) while new ones start
    active: List[Tuple[str, str, str]] = []
    fresh = iter(topics)
    for n in range(entries):
        if not active or (rng.random() < 0.45 and len(active) < len(topics)):
            topic = next(fresh, None) or rng.choice(topics)
            active.append(topic)
        else:
            topic = rng.choice(active)
        day = f"{2020 + n // 336:04d}-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}"
        file = f"{topic[0]}/{rng.choice(FILES)}"
        old = current.get(topic)
        mechanisms = len(ASPECTS[topic[2]][1])
        verb = rng.randrange(3)
        revives = ""
        if old is None:
            chosen, rejected = rng.sample(range(mechanisms), 2)
        else:
            # revive a design an earlier entry of the topic rejected, or a new one
            earlier = [e for e in made if e.topic == topic
                       and e.rejected_design != old.decision_design]
            if earlier and rng.random() < 0.3:
                back = rng.choice(earlier)
                chosen, revives = back.rejected_design, back.path
            else:
                used = {e.decision_design for e in made if e.topic == topic}
                left = [m for m in range(mechanisms) if m not in used] or \
                    list(range(mechanisms))
                chosen = rng.choice(left)
            rejected = old.decision_design
            if rejected == chosen:
                rejected = (chosen + 1) % mechanisms
        title = f"{topic[1]} {topic[2]}".capitalize()
        path = f"journal/{day}_{slug(title)}-{n}.md"
        entry = Entry(path, topic, design(topic, chosen, verb),
                      design(topic, rejected, verb + 1), rng.choice(REASONS),
                      file, revives=revives, decision_design=chosen,
                      rejected_design=rejected)
        if old is not None:
            old.superseded_by = path
            entry.supersedes = old.path
        current[topic] = entry
        made.append(entry)
    for e in made:
        _write_entry(folder, e)
    _write_notes(folder)
    labels = _items(rng, folder, made, current, items)
    (folder / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    return labels


def _write_entry(root: Path, e: Entry) -> None:
    folder, subject, aspect = e.topic
    head = f"Superseded-by: {e.superseded_by}\n" if e.superseded_by else ""
    head += f"Revives: {e.revives}\n" if e.revives else ""
    slug_ = e.path.rsplit("_", 1)[-1][:-3]
    text = (f"# {subject.capitalize()} {aspect}\n{head}\n## Decision\n"
            f"{e.decision} The code is in `{e.file}`.\n\n"
            f"## Rejected alternative\n{e.rejected} {e.reason}\n\n"
            f"## Invariant\nThe {subject} in `{folder}/` follows this decision; "
            f"the {aspect} tests hold it.\n\n"
            f"## Verify command\n```sh\npytest -q tests/test_{slug_.replace('-', '_')}"
            ".py\n```\n")
    (root / e.path).write_text(text)


def _write_notes(root: Path) -> None:
    index = []
    for folder, subjects in FOLDERS.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in FILES:
            (root / folder / name).write_text(f'"""{folder}/{name}."""\n')
        note = (f"# {folder}/: background\n\n"
                f"This folder holds the {', '.join(subjects[:-1])} and "
                f"{subjects[-1]}. Each file names this note in its header.\n\n"
                "## Constraints with no local evidence\n"
                "- Nothing here reads the network at import time.\n"
                "- Every public function has a test in `tests/`.\n"
                "- Errors are reported once, at the top, with the file and "
                "line.\n\n## Decisions and what they replaced\n"
                "The journal holds each decision and what it rejected; "
                "`icm brief` lists the ones an item bears on.\n")
        (root / folder / "context.md").write_text(note)
        index.append(f"- [{folder}]({folder}/context.md): the "
                     f"{subjects[0]}, {subjects[1]} and the rest")
    handbook = ("# ledger: handbook\n\nledger keeps accounts for small shops. "
                "This handbook holds the rules and the index of notes; reasons "
                "live beside the code.\n\n## Rules\n\n"
                "1. Start a session with `icm brief NN` for the queue item you "
                "take.\n2. Read the note of the folder you change before you "
                "change it.\n3. Finished work ends as a journal entry with its "
                "four slots.\n4. `icm check` passes before every commit.\n\n"
                "## Index of notes\n\n" + "\n".join(index) + "\n")
    (root / "AGENTS.md").write_text(handbook)


def _items(rng: random.Random, root: Path, made: List[Entry],
           current: Dict[Tuple[str, str, str], Entry],
           count: int) -> Dict[str, Dict[str, str]]:
    revived = {e.revives for e in made if e.revives}
    rejected = [e for e in made if e.path not in revived]  # still dead
    superseded = [e for e in made if e.superseded_by]
    revivals = [e for e in made if e.revives and not e.superseded_by]
    holding = list(current.values())
    labels: Dict[str, Dict[str, str]] = {}
    for n in range(count):
        roll = rng.random()
        target: Optional[Entry]
        if roll < 0.5 or not (superseded or revivals):
            kind, target = "rejected", rng.choice(rejected)
            said = target.rejected
        elif roll < 0.7 and superseded:
            kind, target = "superseded", rng.choice(superseded)
            said = target.decision
        elif roll < 0.8 and revivals:
            kind, target = "revived", rng.choice(revivals)
            said = target.decision
        else:
            kind, target = "current", rng.choice(holding)
            said = target.decision
        subject = target.topic[1]
        called = SUBJECTS[subject] if rng.random() < 0.5 else subject
        said = said.replace(f" {subject} ", f" {called} ")
        subject = called
        proposal = paraphrase(rng, said)
        where = f" The change goes in `{target.topic[0]}/{rng.choice(FILES)}`." \
            if rng.random() < 0.5 else ""
        title = paraphrase(rng, said).split(" by ")[0].split(" with ")[0]
        text = (f"# {title[0].upper() + title[1:]}\n\n"
                f"{rng.choice(CONTEXTS).format(subject=subject)} I propose we "
                f"{proposal}.{where}\n\nDone when the tests for the {subject} "
                "pass.\n")
        path = f"queue/{n + 1:03d}_{slug(title)}.md"
        (root / path).write_text(text)
        labels[path] = {"kind": kind, "entry": target.path}
    return labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    labels = generate(args.folder, args.entries, args.items, args.seed)
    kinds: Dict[str, int] = {}
    for label in labels.values():
        kinds[label["kind"]] = kinds.get(label["kind"], 0) + 1
    print(f"{args.folder}: {args.entries} entries, {len(labels)} items {kinds}")


if __name__ == "__main__":
    main()
