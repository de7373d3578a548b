"""CI's short run of the collusion watch's benchmark: it runs, prints INTERFACES.md's keys, no
errors (the full run's figures: docs/fairplay.md)."""

from tests.bench_helpers import run_bench


def test_bench_fairplay_smoke() -> None:
    figures = run_bench("bench_fairplay.py", "--smoke")
    assert figures["errors"] == 0, figures["error_kinds"]
    for key in ("colluding_flagged", "honest_flagged"):
        assert 0 <= figures[key] <= 1, key
    assert figures["pairs_colluding"] == 1 and figures["pairs_honest"] >= 6
    assert figures["matches"] == 8 and figures["hands"] == figures["hands_read"] == 16
    assert figures["seconds"] > 0 and "load_average" in figures
