"""CI's short runs of the collusion watch's benchmark: it runs, prints INTERFACES.md's keys, no
errors — seated by the stand-in and by the real server's ranked queue (the full run's figures:
docs/fairplay.md)."""

from tests.bench_helpers import run_bench


def test_bench_fairplay_smoke() -> None:
    figures = run_bench("bench_fairplay.py", "--smoke", "--seater", "stand-in")
    assert figures["errors"] == 0, figures["error_kinds"]
    for key in ("colluding_flagged", "honest_flagged"):
        assert 0 <= figures[key] <= 1, key
    assert figures["pairs_colluding"] == 1 and figures["pairs_honest"] >= 6
    assert figures["matches"] == 8 and figures["hands"] == figures["hands_read"] == 16
    assert figures["seconds"] > 0 and "load_average" in figures


def test_bench_fairplay_smoke_through_the_real_queue() -> None:
    figures = run_bench("bench_fairplay.py", "--smoke", "--seater", "queue")
    assert figures["seater"] == "queue"
    assert figures["errors"] == 0, figures["error_kinds"]
    assert figures["pairs_short"] == []  # the pair and the club sat together 3 times at least
    for key in ("colluding_flagged", "honest_flagged"):
        assert 0 <= figures[key] <= 1, key
    assert figures["pairs_colluding"] == 1 and figures["pairs_colluding_considered"] == 1
    assert figures["matches"] >= 3 and figures["hands"] == figures["hands_read"]
    assert figures["matches"] <= figures["hands"] <= 2 * figures["matches"]  # 2 hands at most
    assert figures["seat_seconds"] > 0 and "load_average" in figures
