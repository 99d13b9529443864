"""Held-out evaluation of the dupes check and the re-invention warning.

    python bench/eval_heldout.py CHECKOUTS_DIR
        [--part tune|test|test2|test3|test4|test5] [--icm CMD] [--show]
        [--draft OWNER/NAME]

CHECKOUTS_DIR holds one work tree per repository of ``bench/labels/split.json``,
named ``owner+name`` and checked out at the commit the split pins (the
script refuses another commit). To make them (``fetch`` is the search
tool's; it leaves a bare copy in /work/.mirror)::

    fetch github:OWNER/NAME       # each repository of split.json
    D=/tmp/heldout; mkdir -p $D
    python - <<'EOF'
    import json, subprocess
    s = json.load(open("bench/labels/split.json"))
    for e in s["notes"] + [r for r in s["reinvent"] if r["repo"] != "icm"]:
        d = "/tmp/heldout/" + e["repo"].replace("/", "+")
        m = "/work/.mirror/" + e["repo"].replace("/", "+") + "/repo"
        subprocess.run(["git", "clone", "-q", "--no-checkout", m, d])
        subprocess.run(["git", "-C", d, "checkout", "-q", "--detach", e["commit"]])
    EOF
    python bench/eval_heldout.py $D                # the tuning part
    python bench/eval_heldout.py $D --part test    # once, for the figures

The split (with each repository's commit) and the labels are in
``bench/labels``; the ``icm`` record source is this repository's journal.

Nothing of theirs is written here: for each note repository the notes in
scope (``split.json``: files named ``note_name`` under ``scope``, minus
``exclude``, plus the handbook) are copied into a temporary git repository
with an ``icm.toml`` naming ``note_name`` and ``handbook``, and the
detector runs there as a user runs it: ``python -m icm check-dupes --format
json`` (``--icm`` swaps the command, e.g. another checkout's venv). Any
detector that prints icm's JSON findings (``code``, ``severity``,
``locations`` with ``path`` and ``line``, ``differences`` with ``kind``) is
measured the same way, so changing the detector changes nothing here. For
the re-invention warning each decision-record repository becomes a
temporary repository with one journal entry per record (Decision, the
record's rejected options as the Rejected alternative list, ``Superseded-by:``
and ``Revives:`` lines where the labels say so) and one queue item per case,
and ``python -m icm check-positions --format json`` runs there.

Labels (``bench/labels/dupes-NAME.json``, ``reinvent.json``) hold paths,
line spans and the labeller's own paraphrase, never the notes' text. A
**cluster** is one rule with all its homes (``lines`` spans); homes with
the same ``form`` are copies, different forms restate the rule, different
``value``s disagree (the cluster's ``differs`` names the class: number,
version, path, code span, negation, or wording for a disagreement only
words carry, "all state changes" against "flow state changes"). A
**parallel** group holds statements alike in form that are each about
their own subject (every package's own lint command): any two of them are
different rules, of the group's class. A reported pair of two homes of one
cluster is true; any other pair is false, with the class its ``findings``
label (today's detector's output, judged by hand) or its parallel group
names, else ``unlabelled`` (counted false: label it on the tuning part,
never on the test part). A note that is a symlink to another note is one
file (its locations count as the other's; a pair of the same line is a
false "symlinked note"); the workspace keeps the symlink, as the checkout
has it. Scores:

- copies: precision of ``duplicate-rule`` findings (true when the pair is
  one rule, restated or copied); recall over copy groups (homes of one
  cluster with one form and value): a group of k homes needs k - 1 links,
  found = k - its connected parts;
- diverged: precision of ``diverged-rule`` findings (and of those that are
  errors), by the kind the detector names; recall of disagreeing clusters
  by class (found when one diverged finding joins two homes that differ);
- restated rules: recall of clusters with two or more forms (found when
  any finding joins two of its homes), and of every cluster; precision of
  ``restated-rule`` findings (true when the pair is one rule), which count
  as no copy;
- re-invention: a warning on a queue item is true when the case re-proposes
  a rejected option or a superseded decision (label 1) and the warning
  names that record (or, for a superseded decision, its successor);
  precision over warnings on queue items, recall over label-1 cases;
  revived designs (rejected, later adopted) are label 0: they are current.

Baselines in the same tables: exact sentence (the same sentence, 4 words
or more, whitespace and list markers aside, in two files) and, for the
warning, a word-overlap finder (the share of a rejected option's content
words the proposal holds, top option per proposal, ``NAIVE_THRESHOLD``
chosen on the tuning part). ``--draft OWNER/NAME`` prints the detector's
findings on one repository that no label covers, as label skeletons.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "labels"
CLASSES = ("number", "version", "path", "code span", "negation", "wording")
FP_CLASSES = ("scope words", "alternation", "relative path", "parallel template",
              "per-package fact", "negation synonym", "other")
EXACT_MIN_WORDS = 4
# share of a rejected option's content words found in the proposal, chosen
# on the tuning part (best F1 there; see docs/benchmarks.md)
NAIVE_THRESHOLD = 0.25
_STOP = frozenset("""
a an the and or but if then so of to in on at by for with from as into is are
was were be been it its this that these those which who what when where how do
does not no use using we you they our their i all any each more most other some
such only own same than too very can will just should would could may might must
instead new one two also via per there here up out over under about after before
""".split())
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")


EXTRA_CONFIG: List[str] = []  # --config lines, in every workspace's icm.toml


class Refused(Exception):
    """A checkout, a label or the detector is not what the labels expect."""


# -- labels --------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    path: str
    start: int
    end: int

    def holds(self, path: str, line: int) -> bool:
        return path == self.path and self.start <= line <= self.end


@dataclass(frozen=True)
class Home:
    span: Span
    form: str
    value: Optional[str]


@dataclass
class Cluster:
    id: str
    differs: Optional[str]
    template: bool
    homes: List[Home]

    @property
    def restated(self) -> bool:
        return len({h.form for h in self.homes}) > 1

    @property
    def disagreeing(self) -> bool:
        return len({h.value for h in self.homes}) > 1


@dataclass
class Judged:
    """A labelled finding of today's detector: a pair and its verdict."""

    a: Span
    b: Span
    code: str
    verdict: bool
    fp_class: str


@dataclass
class RepoLabels:
    repo: str
    commit: str
    clusters: List[Cluster]
    judged: List[Judged]
    notes: List[str]
    # statements alike in form, each about its own subject: any two are
    # different rules (class, spans)
    parallel: List[Tuple[str, List[Span]]] = field(default_factory=list)


def _span(obj: Dict[str, Any]) -> Span:
    start, end = obj["lines"]
    return Span(obj["path"], int(start), int(end))


def load_repo_labels(path: Path) -> RepoLabels:
    doc = json.loads(path.read_text(encoding="utf-8"))
    clusters = []
    for c in doc.get("clusters", []):
        homes = [Home(_span(h), str(h.get("form", "a")), h.get("value"))
                 for h in c["homes"]]
        if len(homes) < 2:
            raise Refused(f"{path.name}: cluster {c['id']} has fewer than two homes")
        differs = c.get("differs")
        if len({h.value for h in homes}) > 1 and differs not in CLASSES:
            raise Refused(f"{path.name}: cluster {c['id']} disagrees; 'differs' "
                          f"must be one of {', '.join(CLASSES)}")
        clusters.append(Cluster(c["id"], differs, bool(c.get("template")), homes))
    judged = []
    for f in doc.get("findings", []):
        cls = f.get("class", "")
        if not f["verdict"] and cls not in FP_CLASSES:
            raise Refused(f"{path.name}: false finding {f['a']} needs a class "
                          f"({', '.join(FP_CLASSES)})")
        judged.append(Judged(_span(f["a"]), _span(f["b"]), f["code"],
                             bool(f["verdict"]), cls))
    parallel = []
    for g in doc.get("parallel", []):
        if g["class"] not in FP_CLASSES:
            raise Refused(f"{path.name}: parallel group class {g['class']!r}")
        parallel.append((g["class"], [_span(h) for h in g["homes"]]))
    return RepoLabels(doc["repo"], doc["commit"], clusters, judged,
                      list(doc.get("notes", [])), parallel)


def label_file(repo: str) -> Path:
    return LABELS / f"dupes-{repo.split('/')[1]}.json"


# -- checkouts and workspaces --------------------------------------------------


def git_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="eval", GIT_AUTHOR_EMAIL="eval@example.invalid",
               GIT_COMMITTER_NAME="eval", GIT_COMMITTER_EMAIL="eval@example.invalid",
               GIT_AUTHOR_DATE="2026-12-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-12-01T00:00:00Z")
    return env


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True,
                          text=True, env=git_env())
    if done.returncode != 0:
        raise Refused(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


def checkout(checkouts: Path, repo: str, commit: str) -> Path:
    where = checkouts / repo.replace("/", "+")
    if not where.is_dir():
        raise Refused(f"{where}: no checkout of {repo} (see the docstring)")
    head = git(where, "rev-parse", "HEAD").strip()
    if head != commit:
        raise Refused(f"{where}: at {head[:12]}, the labels are of {commit[:12]}")
    return where


def note_paths(where: Path, entry: Dict[str, Any]) -> List[str]:
    """The notes in scope and the handbook, as tracked at the commit."""
    files = git(where, "ls-files", "-z").split("\0")
    name, scope = entry["note_name"], entry.get("scope") or [""]
    found = [f for f in files if f.rsplit("/", 1)[-1] == name
             and any(f.startswith(s) for s in scope)
             and not any(f.startswith(x) for x in entry.get("exclude", []))
             and not (where / f).is_symlink()]
    if entry["handbook"] in files and entry["handbook"] not in found:
        found.append(entry["handbook"])
    return sorted(found)


def aliases(where: Path, paths: Sequence[str]) -> Dict[str, str]:
    """Notes that are symlinks to another note in ``paths``: one file, two
    names (langfuse's handbook is a link to ``.agents/AGENTS.md``)."""
    found = {}
    for p in paths:
        if (where / p).is_symlink():
            real = os.path.relpath(os.path.realpath(where / p),
                                   os.path.realpath(where))
            if real in paths and real != p:
                found[p] = real.replace(os.sep, "/")
    return found


def make_repo(ws: Path, files: Dict[str, bytes], config: str,
              links: Optional[Dict[str, str]] = None) -> None:
    """A git repository of ``files``; ``links`` (path -> path) become
    relative symlinks, as in the checkout, so the detector meets them."""
    for rel, data in files.items():
        target = ws / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if links and rel in links:
            os.symlink(os.path.relpath(links[rel], os.path.dirname(rel) or "."),
                       target)
        else:
            target.write_bytes(data)
    (ws / "icm.toml").write_text(config + "".join(f"{line}\n" for line in
                                                  EXTRA_CONFIG), encoding="utf-8")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "held-out workspace")


def run_icm(icm: Sequence[str], ws: Path, check: str) -> List[Dict[str, Any]]:
    """The findings of one check, from its ``--format json`` document."""
    done = subprocess.run([*icm, check, "--format", "json", "--root", str(ws)],
                          capture_output=True, text=True, cwd=str(ws))
    if done.returncode not in (0, 1):
        raise Refused(f"{' '.join(icm)} {check} exited {done.returncode}: "
                      f"{done.stderr.strip()[-400:]}")
    doc = json.loads(done.stdout)
    return [f for c in doc["checks"] for f in c["findings"]]


# -- findings ------------------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    code: str
    severity: str
    locations: Tuple[Tuple[str, int], ...]  # the copy first, then its home(s)
    kinds: Tuple[str, ...]  # kinds of the differences named, in order

    @property
    def diverged(self) -> bool:
        return self.code.startswith("diverged")

    def pairs(self) -> List[Tuple[Tuple[str, int], Tuple[str, int]]]:
        first = self.locations[0]
        return [(first, other) for other in self.locations[1:]]


def reported(raw: Iterable[Dict[str, Any]]) -> List[Reported]:
    out = []
    for f in raw:
        for held in f.get("statements", ()):  # a template group: its pairs
            locs = tuple((str(x["path"]), int(x["line"]))
                         for x in held.get("locations", ()))
            if len(locs) > 1:
                out.append(Reported("duplicate-rule", str(f["severity"]), locs, ()))
        locs = tuple((str(x["path"]), int(x["line"])) for x in f.get("locations", ()))
        if len(locs) < 2:
            continue  # not a pair (an unreadable file, a summary)
        kinds = tuple(str(d.get("kind", "")) for d in f.get("differences", ()))
        out.append(Reported(str(f["code"]), str(f["severity"]), locs, kinds))
    return out


def exact_sentences(ws: Path, paths: Sequence[str], handbook: str) -> List[Reported]:
    """The exact-sentence baseline: a sentence of ``EXACT_MIN_WORDS`` words or
    more found again in another file, reported against its first home."""
    order = sorted(paths, key=lambda p: (p != handbook, p.count("/"), p))
    homes: Dict[str, Tuple[str, int]] = {}
    found = []
    for path in order:
        seen: Set[str] = set()
        for line, sentence in sentences((ws / path).read_text(encoding="utf-8")):
            if sentence in seen:
                continue
            seen.add(sentence)
            home = homes.setdefault(sentence, (path, line))
            if home[0] != path:
                found.append(Reported("duplicate-rule", "warning",
                                      ((path, line), home), ()))
    return found


def sentences(text: str) -> List[Tuple[int, str]]:
    """(line, sentence) of a markdown text's prose: fences, headings, table
    rows and comments left out, list markers and quote marks dropped,
    whitespace collapsed."""
    blocks: List[List[Tuple[int, str]]] = [[]]
    fence = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if fence:
            if line.startswith(fence):
                fence = ""
            continue
        m = re.match(r"(`{3,}|~{3,})", line)
        if m:
            fence = m.group(1)
            blocks.append([])
            continue
        if not line or line.startswith(("#", "|", "<!--")):
            blocks.append([])
            continue
        item = re.match(r"(?:>\s*)*(?:[-*+]|\d+[.)])\s+", line)
        if item:
            blocks.append([])
            line = line[item.end():]
        blocks[-1].append((n, line.lstrip("> ")))
    out = []
    for block in blocks:
        if not block:
            continue
        text_, starts = "", []
        for n, line in block:
            starts.append((len(text_), n))
            text_ += line + " "
        for m in re.finditer(r"\S.*?(?:[.!?](?=\s)|$)", text_.strip() + " "):
            said = " ".join(m.group().split())
            if len(said.split()) >= EXACT_MIN_WORDS:
                line = max(n for at, n in starts if at <= m.start())
                out.append((line, said))
    return out


# -- judging -------------------------------------------------------------------


def homes_at(labels: RepoLabels, loc: Tuple[str, int]
             ) -> List[Tuple[Cluster, Home]]:
    return [(c, h) for c in labels.clusters for h in c.homes
            if h.span.holds(*loc)]


def relation(labels: RepoLabels, a: Tuple[str, int], b: Tuple[str, int]
             ) -> Set[str]:
    """What the labels say two located statements are: any of copy,
    restated, diverged (one rule), or empty (no common cluster)."""
    found = set()
    for c, x in homes_at(labels, a):
        for c2, y in homes_at(labels, b):
            if c is c2 and x is not y:
                found.add("diverged" if x.value != y.value else
                          "copy" if x.form == y.form else "restated")
    return found


def fp_class(labels: RepoLabels, a: Tuple[str, int], b: Tuple[str, int]) -> str:
    """The class of a false pair: from a judged finding, else from a
    parallel group holding both, else ``unlabelled``."""
    for j in labels.judged:
        if not j.verdict and ((j.a.holds(*a) and j.b.holds(*b))
                              or (j.a.holds(*b) and j.b.holds(*a))):
            return j.fp_class
    for cls, spans in labels.parallel:
        if any(s.holds(*a) for s in spans) and any(s.holds(*b) for s in spans):
            return cls
    return "unlabelled"


@dataclass
class Tally:
    """Counts of one detector on one part, summed over repositories."""

    copies: int = 0
    copies_true: int = 0
    copy_units: int = 0
    copy_found: int = 0
    diverged: Counter = field(default_factory=Counter)  # kind -> reported
    diverged_true: Counter = field(default_factory=Counter)
    errors: int = 0
    errors_true: int = 0
    drift: Counter = field(default_factory=Counter)  # class -> clusters
    drift_found: Counter = field(default_factory=Counter)
    restated: int = 0
    restated_found: int = 0
    reworded: int = 0  # restated-rule findings (a finder of reworded rules)
    reworded_true: int = 0
    rules: int = 0
    rules_found: int = 0
    false_classes: Counter = field(default_factory=Counter)  # (code, class)
    template_findings: int = 0
    unlabelled: List[str] = field(default_factory=list)
    wrong: List[str] = field(default_factory=list)  # every false pair (--show)


def score(labels: RepoLabels, found: Sequence[Reported], tally: Tally,
          alias: Optional[Dict[str, str]] = None) -> None:
    """Add one repository's findings to ``tally``; a location in a symlinked
    note counts as the same line of the note it links to."""
    alias = alias or {}
    links: List[Tuple[Cluster, Home, Home, bool]] = []  # (cluster, x, y, diverged)
    for f in found:
        for (pa, la), (pb, lb) in f.pairs():
            a, b = (alias.get(pa, pa), la), (alias.get(pb, pb), lb)
            if a == b:  # one file under two names
                kind = f.kinds[0] if f.kinds else "?"
                if f.diverged:
                    tally.diverged[kind] += 1
                    tally.errors += f.severity == "error"
                elif f.code == "restated-rule":
                    tally.reworded += 1
                else:
                    tally.copies += 1
                tally.false_classes[(f.code, "symlinked note")] += 1
                continue
            rel = relation(labels, a, b)
            if f.diverged:
                kind = f.kinds[0] if f.kinds else "?"
                tally.diverged[kind] += 1
                ok = "diverged" in rel
                tally.diverged_true[kind] += ok
                if f.severity == "error":
                    tally.errors += 1
                    tally.errors_true += ok
            elif f.code == "restated-rule":
                tally.reworded += 1
                ok = bool(rel)
                tally.reworded_true += ok
            else:
                tally.copies += 1
                ok = bool(rel)
                tally.copies_true += ok
            if not ok:
                cls = fp_class(labels, a, b)
                if rel and cls == "unlabelled":
                    cls = "same rule, no disagreement"
                tally.false_classes[(f.code, cls)] += 1
                tally.wrong.append(f"{labels.repo}: {f.code} {f.severity} ({cls}) "
                                   f"{a[0]}:{a[1]} ~ {b[0]}:{b[1]}")
                if cls == "unlabelled":
                    tally.unlabelled.append(f"{labels.repo}: {f.code} "
                                            f"{a[0]}:{a[1]} ~ {b[0]}:{b[1]}")
            for c, x in homes_at(labels, a):
                for c2, y in homes_at(labels, b):
                    if c is c2 and x is not y:
                        links.append((c, x, y, f.diverged))
                        tally.template_findings += c.template
    for c in labels.clusters:
        mine = [(x, y, d) for c2, x, y, d in links if c2 is c]
        tally.rules += 1
        tally.rules_found += bool(mine)
        if c.restated:
            tally.restated += 1
            tally.restated_found += bool(mine)
        if c.disagreeing:
            cls = c.differs or "?"
            tally.drift[cls] += 1
            tally.drift_found[cls] += any(d and x.value != y.value
                                          for x, y, d in mine)
        groups: Dict[Tuple[str, Optional[str]], List[Home]] = defaultdict(list)
        for h in c.homes:
            groups[(h.form, h.value)].append(h)
        for members in groups.values():
            if len(members) < 2:
                continue
            tally.copy_units += len(members) - 1
            edges = [(x, y) for x, y, d in mine if not d]
            tally.copy_found += len(members) - parts(members, edges)


def parts(members: Sequence[Home], edges: Sequence[Tuple[Home, Home]]) -> int:
    """Connected parts of ``members`` joined by ``edges`` (union-find)."""
    parent = {id(h): id(h) for h in members}

    def top(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for x, y in edges:
        if id(x) in parent and id(y) in parent:
            parent[top(id(x))] = top(id(y))
    return len({top(id(h)) for h in members})


def check_labels(labels: RepoLabels, notes: Sequence[str], ws: Path) -> List[str]:
    """Problems with one repository's labels (printed; the run goes on)."""
    problems = []
    if labels.notes and sorted(labels.notes) != sorted(notes):
        problems.append(f"{labels.repo}: the notes in scope differ from the labels'")
    sizes = {p: len((ws / p).read_text(encoding="utf-8").splitlines()) for p in notes}
    spans = [h.span for c in labels.clusters for h in c.homes]
    spans += [s for j in labels.judged for s in (j.a, j.b)]
    spans += [s for _cls, group in labels.parallel for s in group]
    for s in spans:
        if s.path not in sizes or not 1 <= s.start <= s.end <= sizes[s.path]:
            problems.append(f"{labels.repo}: span {s.path}:{s.start}-{s.end} "
                            "is outside the notes")
    for j in labels.judged:
        rel = relation(labels, (j.a.path, j.a.start), (j.b.path, j.b.start))
        want = "diverged" in rel if j.code.startswith("diverged") else bool(rel)
        if j.verdict != want:
            problems.append(f"{labels.repo}: finding {j.a.path}:{j.a.start} ~ "
                            f"{j.b.path}:{j.b.start} is labelled {j.verdict} but "
                            f"its clusters say {sorted(rel) or 'different rules'}")
    return problems


# -- the dupes part ------------------------------------------------------------


def dupes_part(checkouts: Path, split: Dict[str, Any], part: str,
               icm: Sequence[str], draft: str
               ) -> Tuple[Dict[str, Tally], List[Dict[str, Any]]]:
    """Score today's detector and the baseline on every note repository of
    ``part`` (or print the draft of one); return the tallies and per-repository
    label counts."""
    tallies = {"icm": Tally(), "exact": Tally()}
    sizes = []
    for entry in split["notes"]:
        if (entry["repo"] != draft) if draft else (entry["part"] != part):
            continue
        where = checkout(checkouts, entry["repo"], entry["commit"])
        notes = note_paths(where, entry)
        path = label_file(entry["repo"])
        labels = (load_repo_labels(path) if path.exists() else
                  RepoLabels(entry["repo"], entry["commit"], [], [], []))
        with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
            ws = Path(tmp)
            links = aliases(where, notes)
            make_repo(ws, {p: (where / p).read_bytes() for p in notes},
                      f'handbook = "{entry["handbook"]}"\n'
                      f'note_name = "{entry["note_name"]}"\n', links)
            for problem in check_labels(labels, notes, ws):
                print(f"label problem: {problem}", file=sys.stderr)
            found = reported(run_icm(icm, ws, "check-dupes"))
            if entry["repo"] == draft:
                print_draft(labels, found, ws, links)
                continue
            score(labels, found, tallies["icm"], links)
            score(labels, exact_sentences(ws, notes, entry["handbook"]),
                  tallies["exact"], links)
        sizes.append({
            "repo": entry["repo"], "files": len(notes),
            "clusters": len(labels.clusters),
            "restated": sum(c.restated for c in labels.clusters),
            "drifts": sum(c.disagreeing for c in labels.clusters),
            "homes": sum(len(c.homes) for c in labels.clusters),
            "parallel": len(labels.parallel), "judged": len(labels.judged),
            "found": len(found)})
    return tallies, sizes


def print_draft(labels: RepoLabels, found: Sequence[Reported], ws: Path,
                alias: Dict[str, str]) -> None:
    """Label skeletons for findings no label covers (spans: the statement
    holding the line, as icm splits it; check them by hand)."""
    sys.path.insert(0, str(ROOT))
    from icm import similarity

    spans: Dict[str, List[Tuple[int, int]]] = {}

    def span(path: str, line: int) -> Dict[str, Any]:
        if path not in spans:
            text = (ws / path).read_text(encoding="utf-8")
            spans[path] = [(s.line, s.line + s.text.count("\n"))
                           for s in similarity.statements(text, path)]
        hit = next(((a, b) for a, b in spans[path] if a <= line <= b), (line, line))
        return {"path": path, "lines": list(hit)}

    out = []
    for f in found:
        for (pa, la), (pb, lb) in f.pairs():
            a, b = (alias.get(pa, pa), la), (alias.get(pb, pb), lb)
            if a == b or relation(labels, a, b) or (
                    fp_class(labels, a, b) != "unlabelled"):
                continue
            out.append({"a": span(*a), "b": span(*b), "code": f.code,
                        "verdict": None, "class": "", "why": ""})
    print(json.dumps(out, indent=1))


# -- the re-invention part -----------------------------------------------------


@dataclass
class Record:
    id: str
    repo: str
    decision: str
    rejected: List[str]
    superseded_by: Optional[str]
    revives: Optional[str]


@dataclass
class Case:
    id: str
    record: str
    label: int
    kind: str  # reproposal, distractor, revived
    proposal: str
    target: Any  # index of the rejected option, "decision" (superseded), None


def load_reinvent(path: Path) -> Tuple[List[Record], List[Case]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    records = [Record(r["id"], r["repo"], r["decision"], list(r["rejected"]),
                      r.get("superseded_by"), r.get("revives"))
               for r in doc["records"]]
    cases = [Case(c["id"], c["record"], int(c["label"]), c["kind"], c["proposal"],
                  c.get("target")) for c in doc["cases"]]
    known = {r.id for r in records}
    for c in cases:
        if c.record not in known:
            raise Refused(f"{path.name}: case {c.id} names no record {c.record}")
        if (c.kind == "reproposal") != (c.label == 1):
            raise Refused(f"{path.name}: case {c.id}: only a reproposal is label 1")
    return records, cases


def entry_name(n: int, record: Record) -> str:
    day = 1 + n % 28
    return (f"journal/{2020 + n // 336}-{1 + n // 28 % 12:02d}-{day:02d}_"
            f"{record.id}.md")


def journal_files(records: Sequence[Record]) -> Dict[str, str]:
    """One entry per record, dated in record order (``entry_name``)."""
    names = {r.id: entry_name(n, r) for n, r in enumerate(records)}
    files = {}
    for r in records:
        head = f"# {r.id}\n\n"
        if r.superseded_by:
            head += f"Superseded-by: {names[r.superseded_by]}\n\n"
        if r.revives:
            head += f"Revives: {names[r.revives]}\n\n"
        rejected = "\n".join(f"- {o}" for o in r.rejected)  # may be empty
        files[names[r.id]] = (
            f"{head}## Decision\n{r.decision}\n\n## Rejected alternative\n"
            f"{rejected}\n\n## Invariant\nThe decision holds.\n\n"
            "## Verify command\n```sh\ntrue\n```\n")
    return files


def queue_files(cases: Sequence[Case]) -> Dict[str, str]:
    files = {}
    for n, c in enumerate(cases, 1):
        title, _, rest = c.proposal.partition(". ")
        files[f"queue/{n:03d}_{c.id}.md"] = f"# {title.rstrip('.')}\n\n{rest}\n"
    return files


def words(text: str) -> Set[str]:
    return {w.strip(".-") for w in _WORD.findall(text.lower())} - _STOP - {""}


def naive_warnings(records: Sequence[Record], cases: Sequence[Case],
                   threshold: float) -> List[Tuple[str, str]]:
    """(case id, record id) of the word-overlap finder's warnings: the dead
    design (a rejected option, a superseded decision) with the largest
    share of its content words in the proposal."""
    options = [(r.id, words(o)) for r in records for o in r.rejected]
    options += [(r.id, words(r.decision)) for r in records if r.superseded_by]
    out = []
    for c in cases:
        said = words(c.proposal)
        best = max(((len(said & w) / len(w), rid) for rid, w in options if w),
                   default=(0.0, ""))
        if best[0] >= threshold:
            out.append((c.id, best[1]))
    return out


@dataclass
class WarnTally:
    cases: int = 0
    positives: int = 0
    warnings: int = 0
    true: int = 0
    found: Set[str] = field(default_factory=set)
    revived: int = 0
    revived_warned: int = 0
    entry_warnings: int = 0


def score_warnings(records: Sequence[Record], cases: Sequence[Case],
                   warned: Sequence[Tuple[str, str]], tally: WarnTally) -> None:
    """A warning is true when it names the record whose design the case
    re-proposes (for a superseded decision, that record or its successor)."""
    by_id = {c.id: c for c in cases}
    successor = {r.id: r.superseded_by for r in records if r.superseded_by}
    tally.cases += len(cases)
    tally.positives += sum(c.label for c in cases)
    tally.revived += sum(c.kind == "revived" for c in cases)
    revived_hit = set()
    for case_id, record in warned:
        c = by_id[case_id]
        tally.warnings += 1
        if c.label == 1 and (record == c.record or (
                c.target == "decision" and record == successor.get(c.record))):
            tally.true += 1
            tally.found.add(c.id)
        if c.kind == "revived":
            revived_hit.add(c.id)
    tally.revived_warned += len(revived_hit)


def reinvent_part(checkouts: Path, split: Dict[str, Any], part: str,
                  icm: Sequence[str], naive: float) -> Dict[str, WarnTally]:
    path = LABELS / "reinvent.json"
    tallies = {"icm": WarnTally(), "naive": WarnTally()}
    if not path.exists():
        return tallies
    records, cases = load_reinvent(path)
    for entry in split["reinvent"]:
        if entry["part"] != part:
            continue
        if entry["repo"] != "icm":  # this repository's own journal
            checkout(checkouts, entry["repo"], entry["commit"])  # as labelled
        mine = [r for r in records if r.repo == entry["repo"]]
        ids = {r.id for r in mine}
        todo = [c for c in cases if c.record in ids]
        files = journal_files(mine)
        entries = {name: r.id for name, r in zip(files, mine)}
        items = queue_files(todo)
        owner = {name: c.id for name, c in zip(items, todo)}
        with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
            ws = Path(tmp)
            make_repo(ws, {k: v.encode() for k, v in {**files, **items}.items()},
                      'journal_dir = "journal"\nqueue_dir = "queue"\n')
            warned = []
            for f in run_icm(icm, ws, "check-positions"):
                if f.get("code") != "re-proposed":
                    continue
                target = entries.get(str(f.get("rejected_by", "")), "")
                if f["path"] in owner:
                    warned.append((owner[f["path"]], target))
                else:
                    tallies["icm"].entry_warnings += 1
        score_warnings(mine, todo, warned, tallies["icm"])
        score_warnings(mine, todo, naive_warnings(mine, todo, naive),
                       tallies["naive"])
    return tallies


# -- the report ----------------------------------------------------------------


def ratio(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "n/a"


def render(part: str, dupes: Dict[str, Tally], sizes: Sequence[Dict[str, Any]],
           warn: Dict[str, WarnTally], naive: float, show: bool) -> str:
    names = {"icm": "today's `check-dupes`", "exact": "exact sentence"}
    out = [f"### {part} part", "",
           "| repository | files | clusters (restated, drifts) | homes | "
           "parallel groups | judged findings | today's findings |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for z in sizes:
        out.append(f"| {z['repo']} | {z['files']} | {z['clusters']} "
                   f"({z['restated']}, {z['drifts']}) | {z['homes']} | "
                   f"{z['parallel']} | {z['judged']} | {z['found']} |")
    out += ["", "| detector | copies P | copies R | diverged P | diverged errors P "
            "| diverged R | restated-rule clusters R | all clusters R | restated P |",
            "|---|---|---|---|---|---|---|---|---|"]
    for key, t in dupes.items():
        drift = sum(t.drift.values())
        diverged = ratio(sum(t.diverged_true.values()), sum(t.diverged.values()))
        out.append(f"| {names[key]} | {ratio(t.copies_true, t.copies)} | "
                   f"{ratio(t.copy_found, t.copy_units)} | {diverged} | "
                   f"{ratio(t.errors_true, t.errors)} | "
                   f"{ratio(sum(t.drift_found.values()), drift)} | "
                   f"{ratio(t.restated_found, t.restated)} | "
                   f"{ratio(t.rules_found, t.rules)} | "
                   f"{ratio(t.reworded_true, t.reworded)} |")
    t = dupes["icm"]
    out += ["", "Diverged copies by class, today's `check-dupes` (recall over the "
            "labelled drifts of each class; precision over its diverged findings "
            "by the kind of difference they name first):", "",
            "| labelled class | drifts found | | reported kind | diverged P |",
            "|---|---|---|---|---|"]
    classes = [c for c in CLASSES if t.drift[c]]
    kinds = sorted(t.diverged)
    for n in range(max(len(classes), len(kinds), 1)):
        cls = classes[n] if n < len(classes) else ""
        left = ratio(t.drift_found[cls], t.drift[cls]) if cls else ""
        kind = kinds[n] if n < len(kinds) else ""
        right = ratio(t.diverged_true[kind], t.diverged[kind]) if kind else ""
        out.append(f"| {cls} | {left} | | {kind} | {right} |")
    out += ["", "False findings by class:", "",
            "| detector | finding | class | count |", "|---|---|---|---:|"]
    for key, tt in dupes.items():
        for (code, cls), n in sorted(tt.false_classes.items()):
            out.append(f"| {names[key]} | {code} | {cls} | {n} |")
    out += ["", f"Pairs reported between homes of generated templates "
            f"(today's): {t.template_findings}."]
    wnames = {"icm": "today's re-invention warning",
              "naive": f"word overlap >= {naive}"}
    out += ["", "| finder | cases (re-proposals) | warnings | P | R | revived "
            "designs warned |", "|---|---|---|---|---|---|"]
    for key, w in warn.items():
        out.append(f"| {wnames[key]} | {w.cases} ({w.positives}) | {w.warnings} | "
                   f"{ratio(w.true, w.warnings)} | {ratio(len(w.found), w.positives)}"
                   f" | {ratio(w.revived_warned, w.revived)} |")
    out += ["", f"Warnings on the generated journal entries themselves (not "
            f"scored): {warn['icm'].entry_warnings}."]
    if show:
        out += ["", "Unlabelled findings:"] + [f"- {u}" for key in dupes
                                                for u in dupes[key].unlabelled]
        out += ["", "False findings (icm):"] + [f"- {u}" for u in t.wrong]
    return "\n".join(out) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkouts", type=Path)
    ap.add_argument("--part", default="tune", choices=(
        "tune", "test", "test2", "test3", "test4", "test5"))
    ap.add_argument("--icm", nargs="+", default=[sys.executable, "-m", "icm"],
                    help="the command that runs icm (default: this Python's)")
    ap.add_argument("--naive", type=float, default=NAIVE_THRESHOLD,
                    help="threshold of the word-overlap finder")
    ap.add_argument("--show", action="store_true",
                    help="list unlabelled and false findings")
    ap.add_argument("--config", action="append", default=[], metavar="LINE",
                    help="an icm.toml line added to every workspace "
                    "(e.g. 'similarity = \"semantic\"'), to measure an option")
    ap.add_argument("--draft", default="", metavar="OWNER/NAME",
                    help="print label skeletons for one repository's findings")
    args = ap.parse_args(argv)
    if args.part != "tune" and not args.draft:
        print("eval_heldout: the test part reports; never tune on it",
              file=sys.stderr)
    split = json.loads((LABELS / "split.json").read_text(encoding="utf-8"))
    EXTRA_CONFIG.extend(args.config)
    try:
        dupes, sizes = dupes_part(args.checkouts, split, args.part, args.icm,
                                  args.draft)
        if args.draft:
            return 0
        warn = reinvent_part(args.checkouts, split, args.part, args.icm, args.naive)
    except Refused as exc:
        print(f"eval_heldout: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render(args.part, dupes, sizes, warn, args.naive, args.show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
