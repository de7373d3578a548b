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
    # the server's own histograms (GET /metrics): its loop ticked and its writer committed
    assert figures["loop_lag_p99_ms"] is not None and figures["loop_lag_p99_ms"] >= 0
    assert figures["commit_p99_ms"] is not None and figures["commit_p99_ms"] > 0
    assert figures["tables_at_50ms"] is None  # stepping up is asked for with --step-up


def test_bench_server_step_up_smoke():
    """``--step-up`` runs 1 then 2 tables (or stops at the first over 50 ms): ``tables_at_50ms``
    is the last count of the unbroken run of steps that held p99 ≤ 50 ms with no error."""
    figures = run_bench(
        "bench_server.py",
        *("--tables", "1", "--seconds", "2", "--warmup", "1"),
        *("--step-up", "--step-from", "1", "--step-by", "1", "--step-max", "2"),
        timeout=180,
    )
    steps = figures["steps"]
    assert [step["tables"] for step in steps] == [1, 2][: len(steps)] and steps
    held = [s["p99_ms"] is not None and s["p99_ms"] <= 50 and not s["errors"] for s in steps]
    passed = held.index(False) if False in held else len(held)
    assert figures["tables_at_50ms"] == (steps[passed - 1]["tables"] if passed else None)
    assert len(steps) == 2 or not held[-1]  # it stops at the first step that does not hold
    assert all(s["commit_p99_ms"] is not None and s["commit_p99_ms"] > 0 for s in steps)
