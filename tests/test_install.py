"""The README's first command builds the compiled modules, and a build that can't says why.

mypyc's analysis reads laizi's sources and mypy's own standard-library stubs, nothing installed
(``setup.py``, docs/speed.md): a fresh virtual environment gets the compiled build from its
first ``pip install -e .``.  When mypyc fails anyway, ``_build_info.json`` keeps its error and
``laizi --version`` shows the first line.  (Kept apart from ``test_build.py``, which
``scripts/test.sh`` runs twice: these build from a copy of the repository, once is enough.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import laizi
from laizi import _native

ROOT = Path(__file__).resolve().parents[1]

# Loads setup.py under another name (its `setup()` runs only as the main module), runs the
# mypyc step of the build and writes the build record, as `pip install` would.
MYPYC_STEP = """
import runpy
from pathlib import Path
setup = runpy.run_path("setup.py", run_name="laizi_setup")
extensions, reason, error = setup["_extensions"]()
setup["write_build_info"](Path("src/laizi"), bool(extensions), reason, error, 0.0)
"""


def _repo_copy(tmp_path: Path) -> Path:
    """What a build reads — pyproject.toml, setup.py, README.md, the sources — without anything
    an earlier build left (compiled modules, ``build/``, the build record)."""
    copy = tmp_path / "laizi"
    copy.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(
        ROOT / "src",
        copy / "src",
        ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", "*__mypyc*", "_build_info.json", "*.egg-info"
        ),
    )
    return copy


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would pick the build or the sources."""
    drop = ("PYTHONPATH", "LAIZI_PURE", "LAIZI_BUILD", "VIRTUAL_ENV", "PIP_NO_BUILD_ISOLATION")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def test_a_failing_mypyc_records_its_error_and_version_shows_its_first_line(
    tmp_path: Path,
) -> None:
    copy = _repo_copy(tmp_path)
    wall = copy / "src" / "laizi" / "engine" / "wall.py"
    source = wall.read_text(encoding="utf-8")
    line = source.count("\n") + 2
    wall.write_text(source + '\nPLANTED: int = "not an int"\n', encoding="utf-8")
    step = subprocess.run(
        [sys.executable, "-c", MYPYC_STEP],
        cwd=copy,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert step.returncode == 0, step.stderr
    info = json.loads((copy / "src" / "laizi" / "_build_info.json").read_text(encoding="utf-8"))
    assert info["build"] == "pure"
    assert info["reason"] == "mypyc not usable"
    first = info["error"].splitlines()[0]
    assert first.startswith(f"src/laizi/engine/wall.py:{line}: error: Incompatible types")
    assert "laizi build: mypyc is not usable" in step.stderr
    version = subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", "--version"],
        env=_clean_env(PYTHONPATH=str(copy / "src")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0, version.stderr
    expected = f"laizi {laizi.__version__} — pure Python (mypyc not usable: {first})\n"
    assert version.stdout == expected


@pytest.mark.slow  # venv, dependencies, compile: ~70 s CPU (4 min wall at load 12 on 2 cores)
def test_the_readme_first_command_compiles_in_a_fresh_virtual_environment(
    tmp_path: Path,
) -> None:
    copy = _repo_copy(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = _clean_env()
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-e", "."],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert install.returncode == 0, install.stdout[-4000:] + install.stderr[-4000:]
    # Nothing else installed: none of the test extras the compiled laizi.env.table imports.
    absent = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import numpy"], env=env, capture_output=True
    )
    assert absent.returncode != 0
    version = subprocess.run(
        [str(venv / "bin" / "laizi"), "--version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0, version.stderr
    record = (copy / "src" / "laizi" / "_build_info.json").read_text(encoding="utf-8")
    assert version.stdout.startswith(f"laizi {laizi.__version__} — compiled (mypyc "), record
    info = json.loads(record)
    assert info["build"] == "compiled"
    assert sorted(info["sources"]) == sorted(_native.COMPILED_MODULES)
