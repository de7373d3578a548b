"""CI's short run of the matchmaking benchmark: a real server, people arriving 8 a second for
5 s through the real queue; it runs, prints INTERFACES.md's keys, no errors, tables made (the
full run's figures: docs/server.md, "Matchmaking")."""

from tests.bench_helpers import run_bench


def test_bench_matchmaking_smoke() -> None:
    figures = run_bench(
        "bench_matchmaking.py", "--rate", "8", "--seconds", "5", "--drain", "30", timeout=240
    )
    assert figures["errors"] == 0, figures["error_kinds"]
    assert 0 < figures["matched"] <= figures["players"]
    assert figures["matched"] % 4 == 0 and figures["tables"] == figures["matched"] // 4
    assert 0 < figures["match_p50_s"] <= figures["match_p95_s"] <= figures["match_max_s"]
    assert 0 <= figures["rating_spread_p95"] <= figures["rating_spread_max"]
    assert sum(figures["tiers"].values()) == figures["players"]
    assert figures["server_cpu"] is not None and "load_average" in figures
