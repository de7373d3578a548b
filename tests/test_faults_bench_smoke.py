"""CI's short run of the fault benchmark (``bench_faults.py --quick``, issue 30): a real cluster
(PostgreSQL, Redis, three processes, nginx) faulted five times mid-hand — kill -9, SIGTERM, a
real PostgreSQL stopped for 3 s and started again, Redis restarted empty then an owner killed,
a rolling restart — prints INTERFACES.md's keys and meets the issue's goals: recovery within
10 s (5 s after the database returns), nothing lost, stuck, duplicated, unverified or escaped,
no error.  This run is also the suite's test of a real PostgreSQL outage (tests/test_db_outage.py
injects the failures in-process); the other faults have tests of their own as well.

The counting the benchmark relies on (a viewer's sequence numbers against the stored record)
is checked here on its own, without a cluster."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from laizi.engine import seat_event
from tests.bench_helpers import run_bench
from tests.cluster_helpers import Player, StreamCheck, compare_stream
from tests.engine_helpers import play_match
from tests.nginx_helpers import nginx_binary
from tests.server_checks import server_stream

KEYS = {
    "kill9_recovery_s",
    "sigterm_exit_s_max",
    "pg_recovery_s",
    "pg_lost_events",
    "pg_stuck_tables",
    "redis_loss_orphan_s",
    "rolling_escapes",
    "duplicated_events",
    "unverified_records",
    "errors",
}


def _need(found: bool, what: str) -> None:
    if not found:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{what} is not installed")
        pytest.skip(f"{what} is not installed")


@pytest.mark.slow
def test_bench_faults_quick() -> None:
    _need(shutil.which("redis-server") is not None, "redis-server")
    _need(nginx_binary(install=True) is not None, "nginx")
    initdb = shutil.which("initdb") or next(Path("/usr/lib/postgresql").glob("*/bin/initdb"), None)
    _need(initdb is not None, "PostgreSQL (its server binaries)")
    try:
        figures = run_bench("bench_faults.py", "--quick", timeout=1200)
    except subprocess.CalledProcessError as error:
        raise AssertionError(error.stderr[-3000:]) from None
    assert set(figures) >= KEYS, figures
    for zero in (
        "pg_lost_events",
        "pg_stuck_tables",
        "rolling_escapes",
        "duplicated_events",
        "unverified_records",
        "errors",
    ):
        if figures[zero] != 0:  # the whole report (pytest would shorten the dict): each phase
            pytest.fail(f"{zero} = {figures[zero]}:\n{json.dumps(figures, indent=1)}")
    assert 0 < figures["kill9_recovery_s"] <= 10.0, figures
    assert 0 < figures["sigterm_exit_s_max"] <= 10.0, figures
    assert 0 <= figures["pg_recovery_s"] <= 5.0, figures
    assert 0 < figures["redis_loss_orphan_s"] <= 10.0, figures
    phases = figures["phases"]
    assert list(phases) == ["kill9", "sigterm", "postgres", "redis", "rolling"]
    assert len(phases["rolling"]["exit_s"]) == 3  # every process restarted once
    assert phases["postgres"]["outage_s"] >= 3.0
    assert phases["postgres"]["events_in_outage"] == 0  # nothing sent that was not written
    assert all(p["lost"] == 0 and p["wrong"] == 0 for p in phases.values()), phases


def _stream(seat: int | None, hands: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    shown = [seat_event(e, seat) for hand in hands for e in server_stream(hand)]
    return [e for e in shown if e is not None] + [{"type": "match_end", "totals": []}]


def _hands() -> list[list[dict[str, Any]]]:
    _, record, _ = play_match(2, 7)
    starts = [i for i, e in enumerate(record) if e["type"] == "start"]
    return [record[a:b] for a, b in zip(starts, [*starts[1:], len(record)], strict=True)]


def test_a_viewer_s_missing_repeated_and_wrong_numbers_are_counted() -> None:
    hands = _hands()
    stream = _stream(2, hands)
    player = Player("ROOM01", [], seed=1, seat=2)
    numbered = [{"type": "event", "seq": n + 1, "event": e} for n, e in enumerate(stream)]
    player.messages = [{"type": "joined", "token": "t", "seat": 2}]
    player.messages += numbered[:4] + numbered[6:12]  # 5 and 6 never came
    player.messages += numbered[9:12]  # a resync sends 10-12 again: the same events
    player.messages += [{**numbered[19], "event": stream[20]}]  # 20 carries 21's event
    player.messages += numbered[20:]
    player.messages += [{"type": "event", "seq": len(stream) + 1, "event": stream[-2]}]  # extra
    seen = compare_stream(player, hands)
    # 13-19 never came either
    assert (seen.expected, seen.lost, seen.wrong) == (len(stream), 2 + 7, 2)
    player.messages = [{"type": "joined", "token": "t", "seat": 2}, *numbered]
    assert compare_stream(player, hands) == StreamCheck(len(stream), 0, 0)
    player.messages = numbered[:-1]  # the match's end never came
    assert compare_stream(player, hands).lost == 1


def test_a_spectator_who_came_late_is_counted_from_its_snapshot() -> None:
    hands = _hands()
    stream = _stream(None, hands)
    assert stream != _stream(2, hands)  # a seat sees its own tiles, a spectator does not
    watcher = Player("ROOM01", [], seed=1, spectate=True)
    snapshot = {"type": "snapshot", "seq": 30, "room": {}, "view": None}
    events = [{"type": "event", "seq": n + 1, "event": e} for n, e in enumerate(stream)]
    watcher.messages = [snapshot, *events[30:]]
    assert compare_stream(watcher, hands) == StreamCheck(len(stream) - 30, 0, 0)
    rng = random.Random(3)
    dropped = sorted(rng.sample(range(30, len(stream)), 5))
    watcher.messages = [snapshot] + [
        m for i, m in enumerate(events) if i >= 30 and i not in dropped
    ]
    assert compare_stream(watcher, hands).lost == 5
