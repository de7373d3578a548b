"""CI's short run of the hand benchmark: it runs, prints its keys, and agrees with `mahjong`."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench_hand.py"


def test_bench_hand_smoke():
    result = subprocess.run(
        [sys.executable, str(BENCH), "--json", "--hands", "400", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(result.stdout.splitlines()[-1])
    for key in ("complete_vs_mahjong_ratio", "complete_laizi_per_s", "waits_us", "shanten_us"):
        assert figures[key] > 0
    assert figures["disagreements_with_mahjong"] == 0
    assert figures["hands"] == 400
