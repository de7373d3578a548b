"""A graceful stop never hangs (issue 30 item 2): with a step that never ends, a SIGTERM'd
process of a cluster exits within ``--stop-timeout``, renews none of its leases from the start
of the stop, another process takes its rooms, and no player locked out meanwhile escapes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cluster_helpers import (
    FAST_TABLE,
    Cluster,
    Player,
    check_table,
    create_room,
    pg_url,
    redis_server,
)

__all__ = ["pg_url", "redis_server"]  # the fixtures, for pytest

STOP_S = 2.0
LEASE_MS = 3000

HANGS = {
    # an awaited step that never answers (Redis or a peer gone quiet): the deadlines end it
    "hand-over": (
        "import asyncio\n"
        "from laizi.server.cluster import node\n"
        "async def _never(self, codes, live):\n"
        "    await asyncio.Event().wait()\n"
        "node.Cluster._hand_over_all = _never\n"
    ),
    # a step that holds the event loop itself: the watchdog ends the process
    "blocked loop": (
        "import time\n"
        "from laizi.server import hub\n"
        "_flush = hub.Hub.flush\n"
        "def _flush_or_hang(self, wait=False, timeout=None):\n"
        "    if wait:\n"
        "        time.sleep(3600)\n"
        "    _flush(self, wait, timeout)\n"
        "hub.Hub.flush = _flush_or_hang\n"
    ),
}


@pytest.mark.parametrize("hang", sorted(HANGS))
def test_a_stop_with_a_hung_step_exits_in_time_and_its_rooms_are_taken(
    tmp_path: Path, pg_url: str, redis_server: str, hang: str
) -> None:
    flags = ("--stop-timeout", str(STOP_S), "--lease-ms", str(LEASE_MS))
    with Cluster(tmp_path, pg_url, redis_server, 2, flags) as cluster:
        a, b = cluster.nodes
        assert a.proc is not None
        a.proc.kill()  # started again with the hang planted
        a.proc.wait()
        a.prelude = HANGS[hang]
        a.start()
        # a short escape grace: a player locked out by the stop would escape within the test
        table = {**FAST_TABLE, "players": 1, "hands": 2, "bot_delay_ms": 60}
        table["escape_grace_seconds"] = 8
        code = create_room(a.port, **table)["code"]
        assert cluster.owner_port(code) == a.port
        player = Player(code, [a.port, b.port], seed=5, delay=0.1)

        async def run() -> tuple[float, float]:
            deadline = time.monotonic() + 180
            task = asyncio.create_task(player.run(deadline))
            while player.last_seq is None or player.last_seq < 15:
                await asyncio.sleep(0.05)
            assert a.proc is not None
            stopped = time.monotonic()
            a.proc.terminate()
            cluster.dead.add(0)
            while a.proc.poll() is None:
                assert time.monotonic() - stopped < STOP_S + 10, "the stop hung"
                await asyncio.sleep(0.05)
            exited = time.monotonic() - stopped
            await task
            return stopped, exited

        stopped, exited = asyncio.run(run())
        # the timeout, the watchdog's second, a loaded machine's margin
        assert exited < STOP_S + 1 + 3, exited
        assert player.back and player.back[0] - stopped < STOP_S + 1 + LEASE_MS / 1000 + 8
        assert cluster.owner_port(code) in (b.port, None)
        assert cluster.health(b)["cluster"]["taken"] == 1
        check_table(b.port, code, [player])
        [end] = [e for e in map(event_of, player.messages) if e.get("type") == "match_end"]
        assert end["escaped"] is None  # nobody was charged an escape for the restart


def event_of(message: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = message.get("event") or {}
    return event
