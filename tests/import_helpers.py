"""What an import statement names: shared by the layer tests and the import-circle test."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """``root/laizi/server/room/__init__.py`` → ``laizi.server.room``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: Path, root: Path) -> str:
    """The package a module's relative imports start from (a package's ``__init__`` is its own)."""
    name = module_name(path, root)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def import_targets(node: ast.Import | ast.ImportFrom, package: str) -> set[str]:
    """Every dotted name an import statement written in ``package`` reaches, relative imports
    resolved: ``from .claims import ClaimWindow`` in ``laizi.server.room`` →
    ``{"laizi.server.room.claims", "laizi.server.room.claims.ClaimWindow"}``."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return {base, *(f"{base}.{alias.name}" for alias in node.names)}
