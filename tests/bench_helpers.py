"""Running a benchmark as CI's smoke tests do: a short run, its ``--json`` figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def run_bench(script: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    """``python benchmarks/SCRIPT --json ARGS``: the figures of its last line (INTERFACES.md);
    ``CalledProcessError`` if it does not exit 0."""
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    figures: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return figures
