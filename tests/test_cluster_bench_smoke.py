"""CI's short run of the cluster benchmark (``--quick``): it runs, prints INTERFACES.md's keys,
fails over within the issue's 10 s, and counts no error."""

from typing import Any

import pytest
from benchmarks.cgroup_cpu import DEFAULT_ROOT, detect, writable

from tests.bench_helpers import run_bench
from tests.cluster_helpers import redis_server

__all__ = ["redis_server"]  # the fixture, for pytest


def run_quick(postgres_server: str, redis_server: str, *flags: str) -> dict[str, Any]:
    """``bench_cluster.py --json --quick FLAGS``: its figures."""
    return run_bench(
        "bench_cluster.py",
        "--quick",
        "--redis",
        redis_server,
        "--postgres",
        postgres_server,
        *flags,
    )


@pytest.mark.slow
def test_bench_cluster_quick(postgres_server: str, redis_server: str) -> None:
    figures = run_quick(postgres_server, redis_server)
    assert figures["cpu_quota"] is None
    assert {"tables_1", "tables_2", "failover_s", "errors"} <= set(figures)
    assert figures["errors"] == 0, figures
    # held tables are one of the steps tried (or none, on a machine too loaded for 50 ms)
    assert figures["tables_1"] in (0, 2, 4) and figures["tables_2"] in (0, 2, 4)
    assert [s["tables"] for s in figures["steps_1"]][:1] == [2]
    assert all(s["actions"] > 0 for s in figures["steps_1"] + figures["steps_2"])
    assert 0 < figures["failover_s"] <= 10.0


@pytest.mark.slow
@pytest.mark.skipif(not writable(), reason=f"no writable cgroup cpu hierarchy at {DEFAULT_ROOT}")
def test_bench_cluster_quick_capped(postgres_server: str, redis_server: str) -> None:
    """``--cpu-quota 0.4`` (issue 26): the servers start in their groups and play, the figures
    say the quota and the ratio, and no group is left behind."""
    figures = run_quick(postgres_server, redis_server, "--cpu-quota", "0.4")
    assert figures["cpu_quota"] == 0.4 and figures["errors"] == 0, figures
    held_1, held_2 = figures["tables_1"], figures["tables_2"]
    assert figures["tables_ratio"] == (round(held_2 / held_1, 2) if held_1 else None)
    for n in (1, 2):
        for step in figures[f"steps_{n}"]:
            assert step["actions"] > 0 and len(step["server_cpu"]) == n
            assert all(0 <= share <= 0.45 for share in step["server_cpu"]), step
    assert 0 < figures["failover_s"] <= 10.0
    assert not list(detect().path.glob("laizi-bench-*"))
