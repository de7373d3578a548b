"""Build laizi: the hot modules compiled when a C compiler is there, pure Python when not.

Everything else about the package is in ``pyproject.toml``.  The modules listed in
``laizi._native.COMPILED_MODULES`` are compiled from their own ``.py`` source (one source of
truth; docs/speed.md says why and how).  Settings, read at build time:

``LAIZI_BUILD``     ``auto`` (default): compile, and fall back to pure Python with a warning if
                    the compiler or the compiling package is missing or fails; ``pure``: never
                    compile; ``compiled``: fail the build unless everything compiles.

The build writes ``laizi/_build_info.json``: the build (``compiled`` / ``pure``), the compiler,
and the SHA-256 of every source it compiled, so that a source edited later is never shadowed
by its stale compiled module (``laizi._native`` checks at import).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"


def _compiled_modules() -> tuple[str, ...]:
    """``COMPILED_MODULES`` of ``laizi/_native.py``, read without importing the package."""
    tree = ast.parse((SRC / "laizi" / "_native.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise SystemExit("src/laizi/_native.py has no COMPILED_MODULES")


MODULES = _compiled_modules()
MODE = os.environ.get("LAIZI_BUILD", "auto").strip().lower() or "auto"
if MODE not in ("auto", "pure", "compiled"):
    raise SystemExit(f"LAIZI_BUILD: auto, pure or compiled, not {MODE!r}")


def _source(module: str) -> Path:
    return SRC.joinpath(*module.split(".")).with_suffix(".py")


def _warn(message: str) -> None:
    print(f"laizi build: {message}", file=sys.stderr)


# mypy's analysis for the build reads laizi's sources and the standard library's stubs that ship
# with mypy, and nothing installed: not the build environment, and not the environment laizi is
# being installed into (mypy reads that one's site-packages otherwise: in a fresh environment a
# first `pip install` found no numpy and built pure Python, a second one, after the test extras,
# compiled).  The third-party modules the analysis reaches (numpy in laizi.env.table; gymnasium
# and pettingzoo through laizi.env) are `Any` to it, whatever is installed; pyproject's mypy
# settings apply otherwise (the sections for modules not analysed here are unused).
MYPY_FLAGS = ("--no-warn-unused-configs", "--no-site-packages", "--ignore-missing-imports")


def _extensions() -> tuple[list[Any], str]:
    """The extension modules to build, or none and why."""
    if MODE == "pure":
        return [], "LAIZI_BUILD=pure"
    paths = [str(_source(m).relative_to(ROOT)) for m in MODULES]
    try:
        from mypyc.build import mypycify

        return mypycify([*MYPY_FLAGS, *paths], opt_level="3"), ""
    except (Exception, SystemExit) as error:  # any failure: build pure (unless told otherwise)
        if MODE == "compiled":
            raise
        _warn(f"mypyc is not usable ({error}); building pure Python")
        return [], "mypyc not usable"


EXTENSIONS, WHY_PURE = _extensions()


def _compiler_version() -> str:
    import mypy.version

    return f"mypyc {mypy.version.__version__}"


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to pure Python and records what it built."""

    def run(self) -> None:
        started = time.perf_counter()
        built = False
        reason = WHY_PURE
        if self.extensions:
            try:
                super().run()
                built = True
            except (Exception, SystemExit) as error:  # no compiler, a compile error …
                if MODE == "compiled":
                    raise
                _warn(f"compiling failed ({error}); building pure Python")
                reason = "no working C compiler"
        if not built:
            self._remove_compiled()
        self._write_info(built, reason, time.perf_counter() - started)

    def _package_dir(self) -> Path:
        return (SRC if self.inplace else Path(self.build_lib)) / "laizi"

    def _remove_compiled(self) -> None:
        """A pure build keeps no compiled module, also none an earlier build left in place."""
        base = self._package_dir().parent
        for module in MODULES:
            stem = base.joinpath(*module.split("."))
            for suffix in EXTENSION_SUFFIXES:
                stem.with_name(stem.name + suffix).unlink(missing_ok=True)
        for path in base.glob("*__mypyc*"):
            path.unlink(missing_ok=True)

    def _write_info(self, built: bool, reason: str, seconds: float) -> None:
        info: dict[str, Any] = {"build": "compiled" if built else "pure"}
        if built:
            info["compiler"] = _compiler_version()
            info["sources"] = {
                m: hashlib.sha256(_source(m).read_bytes()).hexdigest() for m in MODULES
            }
            info["seconds"] = round(seconds, 1)
        else:
            info["reason"] = reason or "nothing compiled"
        target = self._package_dir() / "_build_info.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")

    def get_outputs(self) -> list[str]:
        return [path for path in super().get_outputs() if Path(path).exists()]


class LaiziDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True  # build_ext always runs: it records the build, compiled or pure


setup(
    ext_modules=EXTENSIONS,
    cmdclass={"build_ext": OptionalBuildExt},
    distclass=LaiziDistribution,
)
