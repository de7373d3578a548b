"""No import circle in ``src/laizi``: the modules' top-level imports form no cycle.

An edge ``a → b`` is an import that runs when ``a`` is imported: a statement at the module's top
level (in a class body, a ``try`` or an ``if`` too), but not one inside a function (it runs on a
call) nor one under ``if TYPE_CHECKING:`` (it never runs).  ``from p import x`` is an edge to
``p`` and, when ``p.x`` is a module, to ``p.x`` as well.  Only modules of the package count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.import_helpers import import_targets, module_name, package_of

SRC = Path(__file__).resolve().parent.parent / "src"


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_at_import(
    body: list[ast.stmt], deferred: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements among ``body`` that run when the module is imported — and with
    ``deferred``, every other one too: in a function (it runs when called) or under
    ``TYPE_CHECKING`` (the type checker follows it)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif deferred and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _run_at_import(node.body, deferred)
        elif isinstance(node, ast.If):
            if deferred or not _type_checking(node.test):
                yield from _run_at_import(node.body, deferred)
            yield from _run_at_import(node.orelse, deferred)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _run_at_import(block, deferred)
            for handler in node.handlers:
                yield from _run_at_import(handler.body, deferred)
        elif isinstance(node, ast.With | ast.AsyncWith | ast.For | ast.While | ast.ClassDef):
            yield from _run_at_import(node.body, deferred)


def import_graph(root: Path, package: str = "laizi", deferred: bool = False) -> dict[str, set[str]]:
    """Each module of ``package`` under ``root`` → the package's modules it imports at load
    (with ``deferred``: or in one of its functions, or for the type checker)."""
    paths = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        here = package_of(path, root)
        targets: set[str] = set()
        for node in _run_at_import(ast.parse(path.read_text("utf-8")).body, deferred):
            targets |= import_targets(node, here)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_in_the_package() -> None:
    found = cycles(import_graph(SRC))
    assert found == [], "import circles (modules importing each other at load):\n" + "\n".join(
        " ↔ ".join(c) for c in found
    )


def test_no_import_circle_in_the_server() -> None:
    """The server and the cluster do not dodge a circle with an import inside a function or
    under ``TYPE_CHECKING`` either: each module's dependencies run one way (the room's parts
    included; a type a module needs of a later one is a Protocol it declares)."""
    graph = import_graph(SRC, deferred=True)
    server = {m: {t for t in ts if t.startswith("laizi.server")} for m, ts in graph.items()}
    found = [c for c in cycles(server) if c[0].startswith("laizi.server")]
    assert found == [], "import circles in the server (every import counts):\n" + (
        "\n".join(" ↔ ".join(c) for c in found)
    )


def plant(root: Path, modules: dict[str, str]) -> Path:
    """A package ``laizi`` under ``root``: module path (``sub/b``) → its text; every folder gets
    an empty ``__init__.py``."""
    for name, text in {"__init__": "", **modules}.items():
        path = root / "laizi" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    return root


def test_the_graph_sees_top_level_imports_only(tmp_path: Path) -> None:
    a = (
        "from typing import TYPE_CHECKING\n"
        "from laizi.sub import b\n"
        "if TYPE_CHECKING:\n    from laizi import c\n"
        "def f():\n    from laizi import d\n"
        "try:\n    from . import e\nexcept ImportError:\n    pass\n"
    )
    leaf = "import os\n"
    plant(tmp_path, {"a": a, "sub/b": leaf, "c": leaf, "d": leaf, "e": leaf})
    graph = import_graph(tmp_path)
    assert graph["laizi.a"] == {"laizi", "laizi.sub", "laizi.sub.b", "laizi.e"}
    assert cycles(graph) == []
    every = {"laizi", "laizi.sub", "laizi.sub.b", "laizi.c", "laizi.d", "laizi.e"}
    assert import_graph(tmp_path, deferred=True)["laizi.a"] == every


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    modules = {
        "x": "from laizi.y import f\n",
        "y": "from laizi import z\ndef f(): pass\n",
        "z": "import laizi.x\n",
        "w": "from laizi.x import f\n",  # leads into the circle, not part of it
    }
    assert cycles(import_graph(plant(tmp_path, modules))) == [["laizi.x", "laizi.y", "laizi.z"]]


def test_a_circle_through_a_function_or_a_type_is_found(tmp_path: Path) -> None:
    modules = {
        "x": "import laizi.y\n",
        "y": "def f():\n    from laizi import x\n",
        "z": "import typing\nif typing.TYPE_CHECKING:\n    import laizi.w\n",
        "w": "from laizi import z\n",
    }
    plant(tmp_path, modules)
    assert cycles(import_graph(tmp_path)) == []
    found = cycles(import_graph(tmp_path, deferred=True))
    assert found == [["laizi.w", "laizi.z"], ["laizi.x", "laizi.y"]]


def test_a_cycle_planted_in_the_real_package_is_found() -> None:
    graph = import_graph(SRC)
    graph["laizi.server.protocol"] = graph["laizi.server.protocol"] | {"laizi.server.hub"}
    assert any("laizi.server.protocol" in c and "laizi.server.hub" in c for c in cycles(graph))
