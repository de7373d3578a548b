"""A cluster of real ``laizi serve --redis`` processes (issue 16): failover after ``kill -9``, the
stale owner fenced at the database, the limits shared across processes.

Every test starts its processes on 127.0.0.1 with a fresh PostgreSQL database and its own key
prefix on the run's Redis (``tests/cluster_helpers.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import time
from pathlib import Path

import pytest
import websockets

from tests.cluster_helpers import (
    FAST_TABLE,
    Cluster,
    Player,
    check_table,
    create_room,
    events_of,
    pg_url,
    redis_server,
)
from tests.limits_helpers import address, http, messages_of, ws_connect

__all__ = ["pg_url", "redis_server"]  # the fixtures, for pytest

FAILOVER_S = 10.0
"""The issue's bound: from a process's death to the players' first event from the new owner."""


@pytest.mark.slow
def test_kill_9_of_one_of_three_processes_mid_hand_loses_nothing(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """30 tables on 3 processes; one is killed (SIGKILL) mid-hand: every table finishes its
    match on the other two, within 10 s of the death, with nothing lost or repeated."""
    with Cluster(tmp_path, pg_url, redis_server, 3) as cluster:
        ports = [n.port for n in cluster.nodes]
        table = {**FAST_TABLE, "players": 1, "hands": 2, "bot_delay_ms": 60}
        codes = [create_room(ports[i % 3], **table)["code"] for i in range(30)]
        owners = {code: cluster.owner_port(code) for code in codes}
        # placed on the least-loaded process: ten each
        assert sorted(list(owners.values()).count(p) for p in ports) == [10, 10, 10]
        players = [
            Player(code, ports[i % 3 :] + ports[: i % 3], seed=i, delay=0.15)
            for i, code in enumerate(codes)
        ]
        watchers = [
            Player(code, ports[::-1], seed=100 + i, spectate=True)
            for i, code in enumerate(codes[:6])
        ]

        async def run() -> float:
            deadline = time.monotonic() + 240
            # the spectators are there before the match starts (they see it all)
            tasks = [asyncio.create_task(w.run(deadline)) for w in watchers]
            while not all(w.last_seq is not None for w in watchers):
                await asyncio.sleep(0.05)
                assert time.monotonic() < deadline
            tasks += [asyncio.create_task(p.run(deadline)) for p in players]
            # mid-hand: every table has dealt and played a little
            while not all(p.last_seq is not None and p.last_seq > 12 for p in players):
                await asyncio.sleep(0.1)
                assert time.monotonic() < deadline
            assert not any(p.done for p in players)
            killed = time.monotonic()
            cluster.kill9(1)
            await asyncio.gather(*tasks)
            return killed

        killed = asyncio.run(run())
        victims = [code for code in codes if owners[code] == ports[1]]
        assert len(victims) == 10
        live = cluster.live()
        port = live[0].port
        for code in codes:
            viewers = [p for p in players + watchers if p.code == code]
            check_table(port, code, viewers)
            stored = events_of(pg_url, code)
            if code in victims:
                # written by two owners: the first's events all come before the second's
                epochs = [e for _, _, e in stored]
                assert epochs == sorted(epochs) and epochs[0] == 1 and epochs[-1] >= 2
        # Every player of a killed process's table was back within the bound.
        for p in players:
            if p.code in victims:
                assert p.reconnects >= 1
                assert p.back and p.back[0] - killed <= FAILOVER_S, (p.code, p.back[:1], killed)
        # each killed room was taken over (on a machine loaded to a standstill a late heartbeat
        # may let a room change hands once more: safe, the fence sees to that)
        took = sum(cluster.health(n)["cluster"]["taken"] for n in live)
        assert took >= len(victims)
        # the match is over everywhere: no room is left to own, nothing counts against anyone
        r = cluster.redis()
        assert r.scard(cluster.prefix + "rooms") == 0
        assert r.hlen(cluster.prefix + "quota:room") == 0


# -- fencing ---------------------------------------------------------------------------------------
def test_the_database_refuses_an_owner_whose_epoch_moved_on(pg_url: str) -> None:
    """The fence is in PostgreSQL, whatever Redis says: once another process has claimed the
    room, the old owner's commit writes nothing of it (and is told); a claim waits for an old
    owner's transaction in flight, so the new owner's log holds what that one committed."""
    import threading

    from laizi.server.cluster.fence import Fenced, FencedStore

    # (a long lease: the claim may wait that long for the row lock on a loaded machine)
    old, new = FencedStore(pg_url, 60_000), FencedStore(pg_url, 60_000)
    lost: list[set[int]] = []
    old.on_lost = lost.append
    try:
        room = old.create_room("FENCE1", "wuhan-hongzhong-kaikou", {})
        assert old.epochs[room] == 1
        hand = old.start_hand(room, 0, 0, b"\x01" * 32, [{"type": "start"}])
        old.append(hand, 1, [{"type": "deal"}], False)
        # A commit in flight holds the room's row: the claim waits for it.
        with old.engine.connect() as c, c.begin():
            assert old.lost(c, [room]) == set()
            claimed: list[int] = []
            thread = threading.Thread(target=lambda: claimed.append(new.claim(room)))
            thread.start()
            time.sleep(0.5)
            assert claimed == []  # still waiting for the row lock
            old._write_staged(c)
        thread.join(10)
        assert claimed == [2]
        assert [len(h.events) for h in new.hands(room)] == [2]  # the old owner's commit is there
        # Now the old owner may write nothing of the room.
        old.append(hand, 2, [{"type": "draw"}], False)
        old.stage_seat(room, 0, 1.0, True, True)
        old.commit()
        assert lost == [{room}] and old.fenced >= 1
        old.set_status(room, "over")
        # Another room the old owner still owns: its staged rows survive the refused new hand.
        mine = old.create_room("FENCE2", "wuhan-hongzhong-kaikou", {})
        other = old.start_hand(mine, 0, 0, b"\x03" * 32, [{"type": "start"}])
        old.append(other, 1, [{"type": "deal"}], False)
        with pytest.raises(Fenced):
            old.start_hand(room, 1, 0, b"\x02" * 32, [{"type": "start"}])
        old.commit()
        assert [epoch for _, _, epoch in events_of(pg_url, "FENCE2")] == [1, 1]
        new.append(hand, 2, [{"type": "discard"}], False)
        new.commit()
        assert [e["type"] for e in new.hands(room)[0].events] == ["start", "deal", "discard"]
        assert [epoch for _, _, epoch in events_of(pg_url, "FENCE1")] == [1, 1, 2]
        assert new.rooms(("waiting",), "FENCE1")[0].status == "waiting"
    finally:
        old.close()
        new.close()


@pytest.mark.slow
def test_an_owner_stopped_past_its_lease_never_writes_again(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """SIGSTOP the owner past its lease: the other process takes the room and play goes on
    there.  Then Redis is made to say the old owner still holds the lease, and SIGCONT: its
    heartbeat believes it, but the database refuses its writes — it drops the room and writes
    nothing: every event it stored comes before the new owners'."""
    lease = ("--lease-ms", "1500")
    with Cluster(tmp_path, pg_url, redis_server, 2, lease) as cluster:
        a, b = cluster.nodes
        node_a = cluster.health(a)["cluster"]["node"]
        # a prompt left pending at the old owner times out at once when it wakes (a write)
        table = {**FAST_TABLE, "players": 1, "hands": 2, "bot_delay_ms": 80}
        table |= {"action_seconds": 1, "bank_seconds": 0}
        code = create_room(a.port, **table)["code"]
        assert cluster.owner_port(code) == a.port
        player = Player(code, [b.port], seed=7, delay=0.1)  # through b: relayed to a
        r = cluster.redis()

        async def run() -> None:
            deadline = time.monotonic() + 120
            task = asyncio.create_task(player.run(deadline))
            while player.last_seq is None or player.last_seq < 15:
                await asyncio.sleep(0.05)
            assert a.proc is not None
            a.proc.send_signal(signal.SIGSTOP)
            try:
                while cluster.owner_port(code) != b.port:
                    await asyncio.sleep(0.1)
                    assert time.monotonic() < deadline, "the room was not taken over"
                seq = player.last_seq
                while player.last_seq == seq:  # play goes on at b
                    await asyncio.sleep(0.05)
                    # (a stop that caught a in the middle of a write leaves its transaction open,
                    # and b's takeover waits on it: without a deadline this loop never ended)
                    assert time.monotonic() < deadline, "play did not go on at the new owner"
                # Redis now says otherwise: the stopped process holds the lease again.
                r.set(f"{cluster.prefix}lease:{code}", node_a, px=1500)
            finally:
                a.proc.send_signal(signal.SIGCONT)
            while cluster.health(a)["cluster"]["fenced"] == 0:
                await asyncio.sleep(0.1)
                assert time.monotonic() < deadline, "the old owner never tried to write"
            await task

        asyncio.run(run())
        check_table(b.port, code, [player])
        stored = events_of(pg_url, code)
        epochs = [epoch for _, _, epoch in stored]
        assert epochs == sorted(epochs) and epochs[0] == 1 and epochs[-1] >= 2
        health = cluster.health(a)
        assert health["cluster"]["fenced"] >= 1 and health["cluster"]["lost"] >= 1


# -- the limits, shared ----------------------------------------------------------------------------
@pytest.mark.slow
def test_the_limits_hold_across_three_processes(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """Per address and per account, counted in Redis: 5 wrong passwords spread over 3
    processes lock the (account, address) pair everywhere (another address still logs in);
    connections, rooms and the abuse cool-down of one address count on every process; the
    lobby lists the rooms of every process."""
    flags = ("--connections-per-address", "4", "--rooms-per-address", "3")
    flags += ("--message-abuse", "3")
    with Cluster(tmp_path, pg_url, redis_server, 3, flags) as cluster:
        ports = [n.port for n in cluster.nodes]

        async def run() -> None:
            ann = {"name": "ann", "password": "right password"}
            wrong = {"name": "ann", "password": "wrong password"}
            status, _, _ = await http(ports[0], "POST", "/api/register", ann)
            assert status == 201
            attacker = address(5)
            for i in range(5):  # one wrong password after another, each on the next process
                status, _, body = await http(
                    ports[i % 3], "POST", "/api/login", wrong, source=attacker
                )
                assert (status, body["code"]) == (401, "bad_login"), body
            for port in ports:  # now locked on every process, even with the right password
                status, headers, body = await http(port, "POST", "/api/login", ann, source=attacker)
                assert (status, body["code"]) == (429, "login_locked"), body
                assert 890 <= int(headers["retry-after"]) <= 900
            status, _, body = await http(ports[2], "POST", "/api/login", ann, source=address(6))
            assert status == 200 and body["name"] == "ann"  # the owner, elsewhere, gets in

            # Connections of one address: 4 in all, wherever they are.
            url = [f"ws://127.0.0.1:{p}/ws" for p in ports]
            source = address(7)
            open_ = [await ws_connect(url[i % 3], source) for i in range(4)]
            for ws in open_:
                assert messages_of(await ws.recv())[0]["type"] == "welcome"
            fifth = await ws_connect(url[1], source)
            refused = messages_of(await fifth.recv())[0]
            assert refused["code"] == "too_many_connections"
            await open_[0].close()
            deadline = time.monotonic() + 10
            while True:  # the count goes down with the close (a moment later)
                ws = await ws_connect(url[2], source)
                first = messages_of(await ws.recv())[0]
                if first["type"] == "welcome":
                    break
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)
            for other in [*open_[1:], ws]:
                await other.close()

            # Rooms of one address: 3 in all, made through any process.
            maker = address(8)
            table = {"rules": "wuhan-hongzhong-kaikou", "table": {"players": 1}}
            codes = []
            for port in ports:
                status, _, body = await http(port, "POST", "/api/rooms", table, source=maker)
                assert status == 201, body
                codes.append(body["code"])
            status, _, body = await http(ports[0], "POST", "/api/rooms", table, source=maker)
            assert (status, body["code"]) == (429, "too_many_rooms")
            assert len({cluster.owner_port(c) for c in codes}) == 3  # one on each process
            for port in ports:  # the lobby of every process shows them all
                status, _, body = await http(port, "GET", "/api/lobby")
                assert sorted(r["code"] for r in body["rooms"]) == sorted(codes)

            # An abusive connection on one process: its address cools down on all of them.
            abuser = address(9)
            ws = await ws_connect(url[0], abuser)
            for _ in range(4):
                await ws.send("x" * 5000)
            seen: list[str] = []
            with contextlib.suppress(websockets.ConnectionClosed):
                async for raw in ws:
                    seen += [m.get("code", m["type"]) for m in messages_of(raw)]
            assert "abuse" in seen
            deadline = time.monotonic() + 10
            while True:
                ws = await ws_connect(url[2], abuser)
                first = messages_of(await ws.recv())[0]
                await ws.close()
                if first.get("code") == "cooling_down":
                    break
                assert time.monotonic() < deadline

        asyncio.run(run())


@pytest.mark.slow
def test_sigterm_hands_the_rooms_over_without_waiting_for_the_lease(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """A graceful stop deletes its leases and tells the others: with a 60 s lease, the room is
    played on by the other process within a few seconds, nothing lost."""
    with Cluster(tmp_path, pg_url, redis_server, 2, ("--lease-ms", "60000")) as cluster:
        a, b = cluster.nodes
        table = {**FAST_TABLE, "players": 1, "hands": 2, "bot_delay_ms": 60}
        code = create_room(a.port, **table)["code"]
        assert cluster.owner_port(code) == a.port
        player = Player(code, [a.port, b.port], seed=3, delay=0.1)

        async def run() -> float:
            deadline = time.monotonic() + 120
            task = asyncio.create_task(player.run(deadline))
            while player.last_seq is None or player.last_seq < 15:
                await asyncio.sleep(0.05)
            assert a.proc is not None
            stopped = time.monotonic()
            a.proc.terminate()
            cluster.dead.add(0)
            await task
            return stopped

        stopped = asyncio.run(run())
        assert a.proc is not None and a.proc.wait(10) in (0, -signal.SIGTERM)  # uvicorn's way
        assert player.back and player.back[0] - stopped < 10.0  # not the 60 s of the lease
        assert cluster.owner_port(code) in (b.port, None)
        assert cluster.health(b)["cluster"]["taken"] == 1
        check_table(b.port, code, [player])


# -- the command line ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--redis", "redis://127.0.0.1:1/0"], 2, "needs a PostgreSQL --db"),
        (["--redis", "http://x", "--db", "postgresql://u@h/d"], 2, "redis://"),
        (
            ["--redis", "redis://127.0.0.1:1/0", "--db", "postgresql://u@h/d", "--host", "0.0.0.0"],
            2,
            "--advertise",
        ),
        (
            ["--redis", "redis://127.0.0.1:1/0", "--db", "postgresql://u@h/d", "--lease-ms", "5"],
            2,
            "--lease-ms",
        ),
        (["--redis", "redis://127.0.0.1:1/0", "--db", "postgresql://u@h/d"], 1, "--redis"),
    ],
)
def test_serve_refuses_a_cluster_it_cannot_join(args: list[str], code: int, says: str) -> None:
    """Bad cluster flags are a clear message and an exit status, never a traceback (nobody
    listens on port 1: Redis does not answer)."""
    from typer.testing import CliRunner

    from laizi.cli import app

    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == code, result.output
    assert says in result.output
    assert "Traceback" not in result.output


# -- the shared windows, against a real Redis -----------------------------------------------------
class _Loop:
    """What the shared limits need of a cluster: an event loop of its own (in a thread, as the
    server's), a Redis client on it and the key prefix."""

    def __init__(self, url: str) -> None:
        import threading

        import redis.asyncio as aioredis

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.redis = aioredis.from_url(url, decode_responses=True)
        self.prefix = "u" + secrets.token_hex(4) + ":"

    def key(self, name: str) -> str:
        return self.prefix + name

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.redis.aclose(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def test_the_shared_login_windows_follow_one_process_rules(redis_server: str) -> None:
    """The Redis scripts keep LoginGuard's and RateLimiter's rules: the pair lock after 5
    failures, the per-account slow-down after 10 (an address that tried waits, a new one does
    not), the sliding window of tries per address."""
    from laizi.server.cluster.shared import SharedLoginGuard, SharedRateLimiter
    from laizi.server.login_guard import LoginRefused

    shared = _Loop(redis_server)
    try:
        guard = SharedLoginGuard(shared, window=900)
        for _ in range(5):
            guard.admit("ann", "10.0.0.1")
            guard.failed("ann", "10.0.0.1")
        with pytest.raises(LoginRefused) as locked:
            guard.admit("ann", "10.0.0.1")
        assert locked.value.code == "login_locked" and 899 <= locked.value.retry_after <= 900
        guard.admit("ann", "10.0.0.2")  # another address is not locked out
        guard.succeeded("ann", "10.0.0.2")
        for i in range(10):  # ten addresses fail once each at bob: the slow-down begins
            guard.admit("bob", f"10.0.1.{i}")
            guard.failed("bob", f"10.0.1.{i}")
        with pytest.raises(LoginRefused) as slowed:
            guard.admit("bob", "10.0.1.9")
        assert (slowed.value.code, slowed.value.retry_after) == ("login_slowed", 1)
        guard.admit("bob", "10.0.2.1")  # a fresh address gets its try at once
        time.sleep(1.1)
        guard.admit("bob", "10.0.1.9")  # after the wait, its try
        tries = SharedRateLimiter(shared, "login", limit=3, window=60)
        assert [tries.hit("10.0.0.9") for _ in range(3)] == [None, None, None]
        wait = tries.hit("10.0.0.9")
        assert wait is not None and 59 <= wait <= 60
        assert tries.retry_after("10.0.0.8") is None
        tries.clear("10.0.0.9")
        assert tries.hit("10.0.0.9") is None
    finally:
        shared.close()
