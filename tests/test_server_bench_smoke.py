"""CI's short run of the server load benchmark: it runs, prints INTERFACES.md's keys, no errors."""

from tests.bench_helpers import run_bench


def test_bench_server_smoke():
    figures = run_bench(
        "bench_server.py", "--tables", "4", "--seconds", "3", "--warmup", "1", timeout=120
    )
    assert figures["tables"] == 4
    assert figures["errors"] == 0, figures["error_kinds"]
    assert figures["actions_per_s"] > 0
    assert 0 < figures["p50_ms"] <= figures["p99_ms"]
    assert figures["hint_ms_p99"] is not None and figures["hint_ms_p99"] > 0
