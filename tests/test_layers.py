"""The package's layers, read from its source with ``ast`` (nothing is imported, nothing compiles).

Every import counts: at module level, inside a function (a lazy import is still an arrow) and under
``TYPE_CHECKING`` (a type is a dependency too).  The rules:

* no import cycle among compile_profile's modules;
* no module over ``MAX_LINES`` lines (the generated JSON Schemas are no modules);
* at most ``MAX_ENGINE_ENTRIES`` entries at engine/'s top, the rest in its sub-packages;
* the engine's sub-packages import only the ones below them (``ENGINE_LAYERS``);
* ``ProfileRun`` is plain data: profile_run imports no view, digest, store or adapter;
* the digest reads ``ProfileRun`` and imports nothing of the engine;
* the engine writes ``ProfileRun`` and imports nothing of the digest, the views, the store or the adapters.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kernel_side" / "compile_profile"
MAX_LINES = 600
MAX_ENGINE_ENTRIES = 12
# The engine's sub-packages, bottom first: each imports only those before it (and itself).
ENGINE_LAYERS = (
    "common",
    "cell",
    "compiler",
    "trace",
    "session",
    "distributed",
    "failure",
    "correctness",
    "timing",
    "kernels",
    "run",
)
ADAPTERS = ("magic", "cli", "server", "job", "launch", "run_views", "suites")
VIEWS_AND_UP = ("digest", "render", "store", *ADAPTERS)


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its ``__init__``)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "labextension" in parts or "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> Iterator[str]:
    """The package's modules ``name`` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            # ``from . import x`` imports the module x; ``from .m import f`` the module m
            targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]
        for target in targets:
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                yield target


GRAPH = {name: sorted(set(_imported(name, path))) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in GRAPH:
        if root in index:
            continue
        work = [(root, iter(GRAPH[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(GRAPH[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _cycle_path(component: list[str]) -> str:
    """One cycle through the component's first module, as ``a -> b -> a``."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    pending = [start]
    while pending:
        node = pending.pop(0)
        for nxt in GRAPH[node]:
            if nxt == start:
                return " -> ".join([*paths[node], start])
            if nxt in members and nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                pending.append(nxt)
    return ", ".join(component)


def _within(name: str, *packages: str) -> bool:
    return any(name == f"compile_profile.{p}" or name.startswith(f"compile_profile.{p}.") for p in packages)


def _arrows(source: tuple[str, ...], target: tuple[str, ...]) -> list[str]:
    return [
        f"{name} imports {imported}"
        for name, imports in sorted(GRAPH.items())
        if _within(name, *source)
        for imported in imports
        if _within(imported, *target)
    ]


def test_the_graph_reads_every_module_and_import():
    assert "compile_profile.profile_run" in MODULES and "compile_profile.engine" in MODULES
    assert "compile_profile.serialize" in GRAPH["compile_profile.profile_run.run"]


def test_no_module_imports_itself_back_through_others():
    cycles = [_cycle_path(c) for c in _cycles()]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_no_module_is_over_600_lines():
    lengths = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    over = {name: n for name, n in sorted(lengths.items()) if n > MAX_LINES}
    assert over == {}, f"modules over {MAX_LINES} lines: {over}"


def test_engine_holds_at_most_12_entries_at_its_top():
    entries = sorted(p.name for p in (PACKAGE / "engine").iterdir() if p.name != "__pycache__")
    assert len(entries) <= MAX_ENGINE_ENTRIES, f"{len(entries)} entries: {entries}"


def test_engine_sub_packages_import_only_those_below_them():
    engine = PACKAGE / "engine"
    packages = sorted(p.name for p in engine.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(ENGINE_LAYERS), "ENGINE_LAYERS names every sub-package of engine/ once"
    up = []
    for name, imports in sorted(GRAPH.items()):
        if not _within(name, "engine") or name.count(".") < 2:
            continue
        layer = ENGINE_LAYERS.index(name.split(".")[2])
        for imported in imports:
            if _within(imported, "engine") and imported.count(".") >= 2:
                if ENGINE_LAYERS.index(imported.split(".")[2]) > layer:
                    up.append(f"{name} imports {imported}")
    assert up == [], "arrows up the engine's layers:\n" + "\n".join(up)


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def test_every_engine_sub_package_says_its_contract_and_names_each_of_its_modules():
    engine = PACKAGE / "engine"
    for package in ENGINE_LAYERS:
        doc = _docstring(engine / package / "__init__.py")
        assert "Contract:" in doc, f"engine/{package}/__init__.py says what it holds and promises"
        entries = [p for p in (engine / package).iterdir() if p.name not in ("__init__.py", "__pycache__")]
        listed = {p.name for p in entries if p.suffix == ".py"} | {f"{p.name}/" for p in entries if p.is_dir()}
        missing = sorted(name for name in listed if f"  {name}" not in doc)
        assert missing == [], f"engine/{package}/__init__.py lists each module it holds: {missing} are not listed"


def test_the_engine_names_its_sub_packages_in_their_layers_order():
    doc = _docstring(PACKAGE / "engine" / "__init__.py")
    named = [line.split()[0].rstrip("/") for line in doc.splitlines() if line.startswith("  ") and "/" in line]
    assert named == list(ENGINE_LAYERS)


def test_profile_run_is_plain_data_that_imports_no_view():
    assert _arrows(("profile_run",), VIEWS_AND_UP) == []


def test_the_digest_imports_nothing_of_the_engine():
    assert _arrows(("digest",), ("engine",)) == []


def test_the_engine_imports_no_digest_view_store_or_adapter():
    assert _arrows(("engine",), VIEWS_AND_UP) == []
