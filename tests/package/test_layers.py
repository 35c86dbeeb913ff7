"""The import graph of ferz/, computed from the code: no circle but the core's, no arrow upward.

Every `import` and `from ... import` in ferz/ counts, those inside functions too (a lazy import
is still a dependency); only imports under `if TYPE_CHECKING:` are left out, since they exist
for annotations alone. The layers, lowest first, are the ones docs/architecture.md draws.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "ferz"

#: each layer's modules (a name covers its submodules), lowest first: a module may import its
#: own layer and those below, never one above
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("ferz.core", "ferz.params")),
    ("variants", ("ferz.variants",)),
    (
        "library",
        (
            "ferz.board",
            "ferz.book",
            "ferz.cache",
            "ferz.data",
            "ferz.epd",
            "ferz.errors",
            "ferz.files",
            "ferz.notation",
            "ferz.perft",
            "ferz.pgn",
            "ferz.score",
            "ferz.svg",
            "ferz.syzygy",
            "ferz.tablebase",
            "ferz.textboard",
        ),
    ),
    ("engine", ("ferz.bench", "ferz.engine", "ferz.options", "ferz.policy", "ferz.timeman")),
    ("front ends", ("ferz.protocol",)),
    ("applications", ("ferz.analyse", "ferz.datagen", "ferz.match", "ferz.web")),
    ("commands", ("ferz.commands", "ferz.__main__")),
]

#: the one deliberate circle: Position's make/unmake calls the generator and the probes, which
#: take a Position (position.py imports them at its end)
CORE_CIRCLE = {"ferz.core.position", "ferz.core.movegen", "ferz.core.attacks", "ferz.core.endrules"}


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a module, skipping `if TYPE_CHECKING:` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for s in node.orelse for n in _runtime_imports_of(s))
            continue
        yield from _runtime_imports_of(node)


def _runtime_imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """This node's imports and its children's."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _runtime_imports(node)


def _targets(name: str, path: Path, node: ast.Import | ast.ImportFrom, modules) -> set[str]:
    """The ferz modules one import statement loads (a `from X import y` names X.y if it is a
    module, else X); Cython's `cython.cimports.ferz...` counts as `ferz...`."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        base = base.removeprefix("cython.cimports.")
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
            for alias in node.names
        ]
    return {n for n in names if n in modules and n != name}


def import_graph() -> dict[str, set[str]]:
    """Each ferz module with the ferz modules it imports."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = set()
        for node in _runtime_imports(tree):
            graph[name] |= _targets(name, path, node, modules)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str) -> int | None:
    """The layer index of a module (None for the package root, which holds only the version)."""
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The import graph, read once for the module's tests (about 2 s: every module parsed)."""
    return import_graph()


def test_the_graph_is_read_from_the_code(graph) -> None:
    assert "ferz.core.movegen" in graph["ferz.core.position"]
    assert "ferz.board" in graph["ferz.engine"]
    assert "ferz.match.engines" in graph["ferz.match.uci"]
    assert len(graph) > 100


def test_no_import_circle_but_the_cores(graph) -> None:
    assert circles(graph) == [CORE_CIRCLE]


def test_every_module_has_a_layer(graph) -> None:
    homeless = [m for m in graph if m != "ferz" and layer_of(m) is None]
    assert homeless == [], "add these modules to a layer in LAYERS (and docs/architecture.md)"


def test_no_import_runs_upward(graph) -> None:
    upward = []
    for module, targets in graph.items():
        for target in targets:
            here, there = layer_of(module), layer_of(target)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} ({LAYERS[here][0]}) -> {target} ({LAYERS[there][0]})")
    assert sorted(upward) == []


def test_the_search_does_not_read_variant_definitions(graph) -> None:
    core = [m for m in graph if m.startswith("ferz.core")]
    assert [(m, t) for m in core for t in graph[m] if t.startswith("ferz.variants")] == []


def test_the_docs_draw_these_layers() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name, _ in LAYERS:
        assert f"**{name}**" in text, f"docs/architecture.md does not name the {name} layer"
