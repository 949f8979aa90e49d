"""Imports run one way, down the floors, and no module imports itself in a circle.

The floors, bottom first; a module may import only from floors below its own (and from its own
package). Imports under ``if TYPE_CHECKING:`` are annotations, not imports at run time, and do not
count. A new package gets a floor here; a file goes on the floor of what it imports, not of who
first needed it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "citegraph"

FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "prompts", "once", "spacy_import", "cores"),
    ("models", "settings"),
    ("sentences", "embed", "store"),  # the ground-floor text, vector and storage services
    ("llm", "question"),  # model runtimes; the question of an ask, parsed once
    ("extract", "verify"),
    ("answer", "retrieve", "conversation"),  # conversation: a follow-up question read from the turns before it
    ("components",),  # makes the parts above from spec strings
    ("ingest", "export"),
    ("eval", "facade"),
    ("pipeline",),  # CiteGraph: the one object the edges call
    ("output",),
    ("serve", "integrations"),  # the HTTP edges, and the retrievers for LangChain and LlamaIndex
    ("cli", "demo", "citegraph"),  # the edges, and the package's own __init__
)
FLOOR = {unit: n for n, units in enumerate(FLOORS) for unit in units}


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _imports(tree: ast.AST, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for statement in child.orelse:
                    visit(statement)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:
                    full = f"{child.module}.{alias.name}"
                    found.add(full if full in modules else child.module)
            visit(child)

    visit(tree)
    return {name for name in found if name in modules}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(ast.parse(path.read_text(encoding="utf-8")), modules) - {name} for name, path in modules.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_package_has_a_floor() -> None:
    units = {_unit(m) for m in _modules()}
    assert units <= set(FLOOR), f"give these a floor in FLOORS: {sorted(units - set(FLOOR))}"


def test_imports_run_down_the_floors() -> None:
    climbing = _climbing(_graph())
    assert not climbing, "imports that climb (or cross a floor sideways):\n" + "\n".join(climbing)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            strong(module)
    return circles


def _climbing(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if _unit(source) != _unit(target) and FLOOR[_unit(target)] >= FLOOR[_unit(source)]
    )


def test_no_module_imports_itself_in_a_circle() -> None:
    circles = _circles(_graph())
    assert not circles, f"import circles: {circles}"


def test_the_checks_see_a_climb_and_a_circle() -> None:
    """The measure itself: a made-up climb and circle are found, an annotation-only import is not."""
    fake = {"citegraph.store.x": {"citegraph.pipeline"}, "citegraph.pipeline": {"citegraph.store.x"}, "citegraph.models": set()}
    assert _climbing(fake) == ["citegraph.store.x -> citegraph.pipeline"]
    assert _circles(fake) == [["citegraph.pipeline", "citegraph.store.x"]]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from citegraph.pipeline import CiteGraph\nimport citegraph.errors\n"
    )
    assert _imports(tree, _modules()) == {"citegraph.errors"}


LONG = 500  #: lines: a module longer than this says why in its docstring


def test_a_long_module_says_why_it_is_long() -> None:
    """The rooms stay a size a newcomer can read: a module over :data:`LONG` lines states its reason
    ("Why this file is long") in its docstring, or is divided."""
    unexplained = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > LONG and "Why this file is long" not in (ast.get_docstring(ast.parse(text)) or ""):
            unexplained.append(f"{name} ({len(text.splitlines())} lines)")
    assert not unexplained, f"divide these or say why they are long: {unexplained}"


def test_citegraph_the_one_object_the_edges_call_stays_under_200_lines() -> None:
    """``CiteGraph`` wires the parts and hands each call down; what grows in it belongs in a part."""
    tree = ast.parse((PACKAGE / "pipeline.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CiteGraph"]
    assert cls.end_lineno is not None and cls.end_lineno - cls.lineno + 1 <= 200
