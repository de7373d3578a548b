"""CI's short run of the server load benchmark: it runs, prints INTERFACES.md's keys, no errors."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench_server.py"


def test_bench_server_smoke():
    result = subprocess.run(
        [sys.executable, str(BENCH), "--json", "--tables", "4", "--seconds", "3", "--warmup", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["tables"] == 4
    assert figures["errors"] == 0, figures["error_kinds"]
    assert figures["actions_per_s"] > 0
    assert 0 < figures["p50_ms"] <= figures["p99_ms"]
    assert figures["hint_ms_p99"] is not None and figures["hint_ms_p99"] > 0
