"""Which build runs: the compiled hot modules, or their pure-Python sources (docs/speed.md).

The hot modules (:data:`COMPILED_MODULES`) are plain, typed Python — the one source of truth.
``pip install`` compiles them with mypyc when a C compiler is there (``setup.py``) and records,
in ``_build_info.json`` next to this file, the SHA-256 of each source it compiled.  At import,
:class:`PureFinder` (installed by ``laizi/__init__.py``) decides per module:

* ``LAIZI_PURE=1`` in the environment: the ``.py`` sources, always;
* if the source of *any* compiled module changed since the build (an editable install, then a
  merge or an edit): the ``.py`` sources of all of them, with one :class:`StaleBuildWarning` —
  stale compiled code never runs.  All or none, because mypyc compiles the modules into one
  shared library whose native classes and calls bind them to each other;
* otherwise Python's own import, which prefers the compiled extension next to the source.

:func:`build` answers ``compiled`` or ``pure`` (``laizi --version``, the benchmarks): compiled
only when every hot module actually loaded is the compiled one.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "COMPILED_MODULES",
    "PureFinder",
    "StaleBuildWarning",
    "build",
    "build_info",
    "install",
    "source_hash",
]

COMPILED_MODULES = (
    "laizi.hand",
    "laizi.engine.actions",
    "laizi.engine.state",
    "laizi.engine.wall",
    "laizi.engine.game",
    "laizi.env.table",
)
"""The modules ``setup.py`` compiles (each from its own ``.py``; nothing else is compiled)."""

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_INFO = PACKAGE_DIR / "_build_info.json"


class StaleBuildWarning(RuntimeWarning):
    """A compiled module is older than its source: the source runs instead."""


def source_path(module: str) -> Path:
    """The ``.py`` file of one of laizi's modules."""
    parts = module.split(".")[1:]
    return PACKAGE_DIR.joinpath(*parts[:-1], parts[-1] + ".py")


def source_hash(path: Path) -> str:
    """SHA-256 (hex) of a source file's bytes — what the build records."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_info() -> dict[str, Any]:
    """The record ``setup.py`` wrote (``{}`` for a checkout that was never built)."""
    try:
        info = json.loads(BUILD_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def _pure_forced() -> bool:
    return os.environ.get("LAIZI_PURE", "").strip() not in ("", "0")


class PureFinder:
    """A meta-path finder that hands out the ``.py`` sources of the compiled modules when it
    must (forced, or a stale build); otherwise it leaves the import to Python."""

    def __init__(self, modules: Sequence[str] = COMPILED_MODULES) -> None:
        self.modules = frozenset(modules)
        self.stale: list[str] = []
        """Compiled modules whose source changed since the build (then all run from source)."""
        self._decided: bool | None = None

    def use_sources(self) -> bool:
        """Whether the compiled modules are bypassed (decided once per process)."""
        if _pure_forced():
            return True
        if self._decided is None:
            recorded = build_info().get("sources", {})
            compiled = [m for m in sorted(self.modules) if _has_extension(source_path(m))]
            self.stale = [m for m in compiled if recorded.get(m) != source_hash(source_path(m))]
            if self.stale:
                warnings.warn(
                    f"laizi: the compiled {', '.join(self.stale)} "
                    f"{'was' if len(self.stale) == 1 else 'were'} built from another version "
                    "of the source; running the pure-Python sources instead (rebuild with "
                    "`pip install -e .`, or set LAIZI_PURE=1 to silence this)",
                    StaleBuildWarning,
                    stacklevel=3,
                )
            self._decided = bool(self.stale)
        return self._decided

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.modules:
            return None
        source = source_path(fullname)
        if not source.is_file() or not self.use_sources():
            return None
        loader = importlib.machinery.SourceFileLoader(fullname, str(source))
        return importlib.util.spec_from_file_location(fullname, source, loader=loader)


def _has_extension(source: Path) -> bool:
    stem = source.stem
    return any(
        (source.parent / (stem + suffix)).is_file()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


_FINDER: PureFinder | None = None


def install() -> PureFinder:
    """Put the finder first on ``sys.meta_path`` (once)."""
    global _FINDER
    if _FINDER is None:
        _FINDER = PureFinder()
        sys.meta_path.insert(0, _FINDER)
    return _FINDER


def is_compiled(module: ModuleType) -> bool:
    """Whether a loaded module is a compiled extension."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def build() -> str:
    """``compiled`` when every hot module runs (or will run) compiled, else ``pure``."""
    if install().use_sources():
        return "pure"
    for name in COMPILED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            if not is_compiled(module):
                return "pure"
        elif not _has_extension(source_path(name)):
            return "pure"
    return "compiled"


def _first_line(text: object) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


def describe() -> str:
    """One line for ``laizi --version``: the build and, when compiled, by what; when pure, why
    (with the first line of the error a failed build recorded)."""
    which = build()
    if which == "pure":
        info = build_info()
        why = "LAIZI_PURE=1" if _pure_forced() else info.get("reason") or "not compiled"
        if _FINDER is not None and _FINDER.stale and not _pure_forced():
            why = "stale build: " + ", ".join(_FINDER.stale)
        elif not _pure_forced() and (error := _first_line(info.get("error"))):
            why += f": {error}"  # mypyc's first error, or the C compiler's
        return f"pure Python ({why})"
    info = build_info()
    return f"compiled ({info.get('compiler', 'unknown compiler')}, {len(COMPILED_MODULES)} modules)"
