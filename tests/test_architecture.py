"""The layers of ``icm/`` and the arrows between them (docs/architecture.md).

Every import is read from the source with ``ast``, function-level imports
included: a lazy import is still an arrow, and a cycle through one is still
a cycle (``checks/handoff.py`` imported the writer that ran every check)."""

import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "icm"

# What each layer may import, by module (``checks`` stands for every module
# of icm/checks/). Modules not named are the base: small leaves every layer
# may use, which import only other base modules.
LAYERS: Dict[str, Set[str]] = {
    "__main__": {"cli"},
    "cli": {"*"},
    "usage": set(),
    "workflow": {"model", "engine", "context", "registry", "report", "config",
                 "git", "markdown", "extract", "cache", "similarity", "baseline"},
    "engine": {"registry", "context", "checks", "baseline", "cache"},
    # the baseline and inline suppressions filter a run's findings
    "baseline": {"registry", "context", "config", "markdown"},
    "checks": {"model", "context", "registry", "config", "cache", "similarity",
               "markdown"},
    "model": {"context", "config", "markdown", "extract", "similarity", "cache",
              "model"},
    "context": {"config", "git"},
    "registry": set(),
    "report": set(),
    "config": {"registry"},  # rule codes in select/ignore
    "similarity": {"markdown", "cache"},  # cache: paused_gc
    # the parsers: ``extract`` chooses, above both; neither imports it back
    "extract": {"markdown", "markdown_events"},
    "markdown": set(),
    "markdown_events": {"markdown"},
    "cache": set(),
    "git": set(),
}
BASE = {"errors", "escape", "lines", "slug", "paths", "values", "finding",
        "output", "tokens", "__init__", "templates"}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"] or ["__init__"]
    return ".".join(parts)


def imports(path: Path) -> Set[str]:
    """The icm modules ``path`` imports, anywhere in its body."""
    found: Set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "icm" or not name.startswith("icm."):
                continue
            target = name[len("icm."):]
            while target and not (PACKAGE / (target.replace(".", "/") + ".py")
                                  ).exists() and not (
                    PACKAGE / target.replace(".", "/") / "__init__.py").exists():
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    return found


def graph() -> Dict[str, Set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports(path) - {name} for name, path in modules.items()}


def layer(module: str) -> str:
    head = module.split(".")[0]
    return head if head in ("checks", "workflow", "model") else module


def test_no_import_cycles() -> None:
    edges = graph()
    state: Dict[str, int] = {}
    cycles: List[List[str]] = []

    def visit(node: str, path: List[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path
                              else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_every_arrow_is_allowed() -> None:
    wrong = []
    for module, targets in graph().items():
        allowed = LAYERS.get(layer(module), set())
        if "*" in allowed:
            continue
        for target in targets:
            if target.split(".")[0] in BASE or layer(target) == layer(module) \
                    and layer(module) in ("workflow", "model"):
                continue
            if target in allowed or layer(target) in allowed:
                continue
            wrong.append(f"{module} -> {target}")
    assert sorted(wrong) == []


def test_checks_never_import_writers_the_cli_or_the_renderers() -> None:
    for module, targets in graph().items():
        if layer(module) == "checks":
            assert not {t for t in targets if layer(t) in (
                "workflow", "cli", "report", "usage", "engine")}, module


def test_base_modules_import_only_base_modules() -> None:
    for module, targets in graph().items():
        if module.split(".")[0] in BASE:
            assert {t.split(".")[0] for t in targets} <= BASE, module
