"""Which package imports which: read from the source (every import, also one inside a function).

The server mounts the web client, so ``laizi.server`` imports ``laizi.web``; the web client
never imports the server (what it needs from it — the settings schema — comes over HTTP).
"""

from __future__ import annotations

import ast
from pathlib import Path

import laizi

SRC = Path(laizi.__file__).resolve().parent


def imported(package: str) -> dict[str, set[str]]:
    """For each module of ``laizi.<package>``: the ``laizi.*`` modules it imports."""
    out: dict[str, set[str]] = {}
    for path in sorted((SRC / package).rglob("*.py")):
        module = ".".join(("laizi", *path.relative_to(SRC).with_suffix("").parts))
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against this module's package
                    parts = module.split(".")[: -node.level]
                    base = ".".join([*parts, node.module] if node.module else parts)
                else:
                    base = node.module or ""
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)
        out[module] = {name for name in found if name.split(".")[0] == "laizi"}
    return out


def imports_of(package: str, other: str) -> list[str]:
    """``module -> import`` lines of ``laizi.<package>`` that reach into ``laizi.<other>``."""
    prefix = f"laizi.{other}"
    return sorted(
        f"{module} -> {name}"
        for module, names in imported(package).items()
        for name in names
        if name == prefix or name.startswith(prefix + ".")
    )


def test_the_web_client_never_imports_the_server() -> None:
    assert imports_of("web", "server") == []


def test_the_server_imports_the_web_client_it_mounts() -> None:
    assert "laizi.server.app -> laizi.web" in imports_of("server", "web")


def test_the_walk_sees_nested_imports() -> None:
    """The checker itself: an import under ``if TYPE_CHECKING:`` (or in a function) counts."""
    assert "laizi.server.hub.Hub" in imported("server")["laizi.server.api"]
