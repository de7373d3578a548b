"""A cluster whose Redis restarted without its data (issue 30, item 3), and where new rooms go
(item 4): failover still works afterwards, the processes still trust each other, nothing fails
on the stale connections, and a process that just started does not get every new room."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from tests.cluster_helpers import (
    FAST_TABLE,
    Cluster,
    Node,
    OwnRedis,
    Player,
    check_table,
    create_room,
    get,
    own_redis,
    pg_url,
    redis_server,
)
from tests.limits_helpers import http, messages_of, ws_connect

__all__ = ["own_redis", "pg_url", "redis_server"]  # the fixtures, for pytest

FAILOVER_S = 10.0
"""The issue's bound: from the owner's death to its players' first event from the new owner."""


def news_seen(cluster: Cluster, node: Node) -> int:
    return int(cluster.health(node)["cluster"].get("news", 0))


@pytest.mark.slow
def test_a_redis_restarted_empty_keeps_failover_the_secret_and_requests_working(
    tmp_path: Path, pg_url: str, own_redis: OwnRedis
) -> None:
    """Mid-hand, Redis restarts without its data: the first requests after it succeed (no
    ``503 busy`` from stale pooled connections, no ``404`` for a room between owners), every
    process hears the ``news`` channel again, a kill -9 of an owner then has its rooms played
    on by another process within 10 s, nothing lost, and a process started afterwards is
    trusted by the others (its forwarded client gets one ``welcome``, not two)."""
    with Cluster(tmp_path, pg_url, own_redis.url, 2) as cluster:
        ports = [n.port for n in cluster.nodes]
        table = {**FAST_TABLE, "players": 1, "hands": 4, "bot_delay_ms": 60}
        codes = [create_room(ports[i % 2], **table)["code"] for i in range(6)]
        owners = {code: cluster.owner_port(code) for code in codes}
        assert sorted(list(owners.values()).count(p) for p in ports) == [3, 3]
        players = [
            Player(code, ports[i % 2 :] + ports[: i % 2], seed=i, delay=0.15)
            for i, code in enumerate(codes)
        ]
        late = Node(tmp_path / "late.db", db_url=pg_url, args=cluster.nodes[0].args)
        while late.port in ports:
            late.port = ports[0] + 1000 if ports[0] < 60000 else ports[0] - 1000
        cluster.nodes.append(late)  # killed with the others at the end
        cluster.dead.add(2)  # not started yet

        async def run() -> tuple[float, list[str]]:
            deadline = time.monotonic() + 300
            tasks = [asyncio.create_task(p.run(deadline)) for p in players]
            while not all(p.last_seq is not None and p.last_seq > 12 for p in players):
                await asyncio.sleep(0.1)
                assert time.monotonic() < deadline
            assert not any(p.done for p in players)

            own_redis.restart_empty()
            # The first requests on every process meet the stale pooled connections (a burst
            # takes every idle one out of the pool).
            asked = [
                http(port, "GET", f"/api/rooms/{code}") for port in ports for code in codes * 2
            ]
            asked += [
                http(port, "POST", "/api/rooms", {"rules": "wuhan-hongzhong-kaikou"})
                for port in ports
            ]
            answers = await asyncio.gather(*asked)
            assert [a[0] for a in answers] == [200] * (len(asked) - 2) + [201, 201], answers
            # Every process hears the news channel again.
            before = [news_seen(cluster, n) for n in cluster.nodes[:2]]
            r = cluster.redis()
            heard = time.monotonic() + 30
            while True:
                r.publish(cluster.prefix + "news", "hello")
                seen = [news_seen(cluster, n) for n in cluster.nodes[:2]]
                if all(a > b for a, b in zip(seen, before, strict=True)):
                    break
                assert time.monotonic() < heard, "a process no longer hears the news"
                await asyncio.sleep(0.2)

            # What the processes keep in Redis is there again: the rooms that need an owner,
            # their makers' counts, the lobby.
            while not (
                r.smembers(cluster.prefix + "rooms") >= set(codes)
                and set(r.hkeys(cluster.prefix + "quota:room")) >= set(codes)
                and sum(r.hlen(k) for k in r.keys(cluster.prefix + "lobby:*")) >= len(codes)
            ):
                assert time.monotonic() < heard, "the processes did not register again"
                await asyncio.sleep(0.2)

            # Later, an owner dies: its rooms are found and played on within the bound.
            killed = time.monotonic()
            cluster.kill9(0)
            victims = [p for p in players if owners[p.code] == ports[0]]
            while not all(p.back and p.back[-1] > killed for p in victims):
                await asyncio.sleep(0.1)
                assert time.monotonic() < killed + 60, "rooms left without an owner"

            # A process started after the loss agrees on the secret: its forwarded client is
            # welcomed once (by it), not a second time by the owner.
            await asyncio.to_thread(late.start)
            cluster.dead.discard(2)
            ws = await ws_connect(f"ws://127.0.0.1:{late.port}/ws")
            await ws.send(json.dumps({"type": "join", "room": codes[0], "spectate": True}))
            kinds: list[str] = []
            while "snapshot" not in kinds:
                raw = await asyncio.wait_for(ws.recv(), 30)
                kinds += [m["type"] for m in messages_of(raw)]
            await ws.close()
            await asyncio.gather(*tasks)
            return killed, kinds

        killed, kinds = asyncio.run(run())
        assert kinds.count("welcome") == 1, kinds
        victims = [code for code in codes if owners[code] == ports[0]]
        assert len(victims) == 3
        for p in players:
            if p.code in victims:
                back = min(t for t in p.back if t > killed)
                assert back - killed <= FAILOVER_S, (p.code, p.back, killed)
        for code in codes:
            check_table(ports[1], code, [p for p in players if p.code == code])


@pytest.mark.slow
def test_a_freshly_started_process_does_not_get_every_new_room(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """Finished rooms stay in their process's memory for a while: they are not load.  One
    process plays 6 tables to their end; a second one starts; of 6 new tables each gets some
    (counting the finished rooms, the new process got all of them)."""
    with Cluster(tmp_path, pg_url, redis_server, 2) as cluster:
        first, fresh = cluster.nodes
        fresh.proc.kill()  # type: ignore[union-attr]
        fresh.proc.wait()  # type: ignore[union-attr]
        table = {**FAST_TABLE, "players": 1, "hands": 1}
        codes = [create_room(first.port, **table)["code"] for _ in range(6)]
        assert {cluster.owner_port(c) for c in codes} == {first.port}
        players = [Player(code, [first.port], seed=i) for i, code in enumerate(codes)]

        async def play() -> None:
            deadline = time.monotonic() + 180
            await asyncio.gather(*(p.run(deadline) for p in players))

        asyncio.run(play())
        for code in codes:  # over, and still held in the first process's memory
            status, body = get(first.port, f"/api/rooms/{code}")
            assert status == 200 and json.loads(body)["status"] == "over", body
        fresh.start()
        new = [create_room(first.port, players=1)["code"] for _ in range(6)]
        placed = [cluster.owner_port(c) for c in new]
        assert placed.count(first.port) >= 2 and placed.count(fresh.port) >= 2, placed
        for code in codes:
            check_table(first.port, code, [p for p in players if p.code == code])


def test_the_secret_an_older_version_made_in_redis_is_kept_in_the_database(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """During a rolling upgrade the older processes show each other the secret they made in
    Redis: the first newer process copies it into PostgreSQL, so old and new trust each other."""
    import psycopg

    cluster = Cluster(tmp_path, pg_url, redis_server, 1)
    cluster.redis().set(cluster.prefix + "secret", "an older version's secret")
    with cluster:
        with psycopg.connect(pg_url) as c:
            rows = c.execute("SELECT name, value FROM cluster_settings").fetchall()
        assert rows == [(cluster.prefix + "secret", "an older version's secret")]
