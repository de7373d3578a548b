"""CI's short run of the environment benchmark: it runs and prints INTERFACES.md's keys."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench_env.py"


def test_bench_env_smoke():
    result = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--json",
            "--hands",
            "1",
            "--tables",
            "4",
            "--rounds",
            "10",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["env_steps_per_s"] > 0
    assert figures["batch_steps_per_s"] > 0
    assert figures["steps_per_hand"] > 10
    assert figures["hands_per_preset"] == 1
