"""CI's short run of the engine benchmark: it runs and prints INTERFACES.md's keys."""

from laizi.rules import PRESETS
from tests.bench_helpers import run_bench


def test_bench_engine_smoke():
    figures = run_bench("bench_engine.py", "--hands", "4", "--repeat", "1")
    assert figures["random_hands_per_s"] > 0
    for preset in PRESETS:
        assert figures[f"random_hands_per_s_{preset}"] > 0
    assert figures["hands"] == 4 * len(PRESETS)
