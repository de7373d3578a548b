"""Build laizi: the hot modules compiled when a C compiler is there, pure Python when not.

Everything else about the package is in ``pyproject.toml``.  The modules listed in
``laizi._native.COMPILED_MODULES`` are compiled from their own ``.py`` source (one source of
truth; docs/speed.md says why and how).  Settings, read at build time:

``LAIZI_BUILD``     ``auto`` (default): compile, and fall back to pure Python with a warning if
                    the compiler or the compiling package is missing or fails; ``pure``: never
                    compile; ``compiled``: fail the build unless everything compiles.

The build writes ``laizi/_build_info.json``: the build (``compiled`` / ``pure``), the compiler,
and the SHA-256 of every source it compiled, so that a source edited later is never shadowed
by its stale compiled module (``laizi._native`` checks at import); for a pure build, why, with
mypyc's or the C compiler's error (``laizi --version`` shows its first line).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import json
import os
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any, TextIO

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


class _Tee(io.TextIOBase):
    """Writes to two streams (mypyc's messages: to the terminal and to the build record)."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def _extensions() -> tuple[list[Any], str, str]:
    """The extension modules to build, or none, why, and mypyc's error."""
    if MODE == "pure":
        return [], "LAIZI_BUILD=pure", ""
    paths = [str(_source(m).relative_to(ROOT)) for m in MODULES]
    messages = io.StringIO()
    try:
        from mypyc.build import mypycify

        # mypyc prints its type errors, then exits: they are kept for the build record.
        with contextlib.redirect_stdout(_Tee(sys.stdout, messages)):
            return mypycify([*MYPY_FLAGS, *paths], opt_level="3"), "", ""
    except (Exception, SystemExit) as error:  # any failure: build pure (unless told otherwise)
        if MODE == "compiled":
            raise
        text = messages.getvalue().strip()
        if not text or not isinstance(error, SystemExit):
            text = "\n".join(filter(None, (text, f"{type(error).__name__}: {error}")))
        _warn(f"mypyc is not usable ({text.splitlines()[0]}); building pure Python")
        return [], "mypyc not usable", text


def _compiler_version() -> str:
    import mypy.version

    return f"mypyc {mypy.version.__version__}"


def write_build_info(
    package_dir: Path, built: bool, reason: str, error: str, seconds: float
) -> None:
    """Write ``_build_info.json``: what was built, and for a pure build why (with mypyc's or the
    compiler's error, whose first line ``laizi --version`` shows)."""
    info: dict[str, Any] = {"build": "compiled" if built else "pure"}
    if built:
        info["compiler"] = _compiler_version()
        info["sources"] = {m: hashlib.sha256(_source(m).read_bytes()).hexdigest() for m in MODULES}
        info["seconds"] = round(seconds, 1)
    else:
        info["reason"] = reason or "nothing compiled"
        if error:
            info["error"] = error
    target = package_dir / "_build_info.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to pure Python and records what it built."""

    inplace: int  # build_ext's option (`--inplace`, and editable installs)

    def run(self) -> None:
        started = time.perf_counter()
        built = False
        reason, error_text = WHY_PURE, MYPYC_ERROR
        inplace = self.inplace  # setuptools clears it while building, and leaves it so on a failure
        if self.extensions:
            try:
                super().run()
                built = True
            except (Exception, SystemExit) as error:  # no compiler, a compile error …
                if MODE == "compiled":
                    raise
                _warn(f"compiling failed ({error}); building pure Python")
                reason, error_text = "no working C compiler", f"{type(error).__name__}: {error}"
            self.inplace = inplace
        if not built:
            self._remove_compiled()
        seconds = time.perf_counter() - started
        write_build_info(self._package_dir(), built, reason, error_text, seconds)

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

    def get_outputs(self) -> list[str]:
        return [path for path in super().get_outputs() if Path(path).exists()]


class LaiziDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True  # build_ext always runs: it records the build, compiled or pure


if __name__ == "__main__":  # setuptools runs this file as the main module; tests/test_build.py
    # loads it under another name to call `_extensions` and `write_build_info` on a planted error.
    EXTENSIONS, WHY_PURE, MYPYC_ERROR = _extensions()
    setup(
        ext_modules=EXTENSIONS,
        cmdclass={"build_ext": OptionalBuildExt},
        distclass=LaiziDistribution,
    )
