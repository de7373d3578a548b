"""CI's short run of the hand benchmark: it runs, prints its keys, and agrees with `mahjong`."""

from tests.bench_helpers import run_bench


def test_bench_hand_smoke():
    figures = run_bench("bench_hand.py", "--hands", "400", "--repeat", "1")
    for key in ("complete_vs_mahjong_ratio", "complete_laizi_per_s", "waits_us", "shanten_us"):
        assert figures[key] > 0
    assert figures["disagreements_with_mahjong"] == 0
    assert figures["hands"] == 400
