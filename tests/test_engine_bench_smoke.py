"""CI's short run of the engine benchmark: it runs and prints INTERFACES.md's keys."""

import json
import subprocess
import sys
from pathlib import Path

from laizi.rules import PRESETS

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench_engine.py"


def test_bench_engine_smoke():
    result = subprocess.run(
        [sys.executable, str(BENCH), "--json", "--hands", "4", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["random_hands_per_s"] > 0
    for preset in PRESETS:
        assert figures[f"random_hands_per_s_{preset}"] > 0
    assert figures["hands"] == 4 * len(PRESETS)
