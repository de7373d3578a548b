"""Read-only HTTP at a bounded cost (issue 24, item 1): the attacks of the issue — replays and
records fetched over and over, from one address and from many — replayed against a real
``laizi serve``.  A finished hand is rendered once and then served from the cache; an unfinished
one is never kept; each address has a GET bucket (429 ``rate_limited``); a full render pool says
503 ``busy``; and another table keeps its pace while the flood goes on."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from laizi.server.readonly import FILE_COST, HEAVY, HEAVY_COST, GetLimit, get_cost
from laizi.web.replay import frames
from laizi.web.routes import STATIC
from tests.limits_helpers import (
    MeasuredTable,
    address,
    assert_table_kept_up,
    fetch,
    http,
    run,
)


async def bots_match(port: int, hands: int, bot_delay_ms: int, source: str) -> str:
    """A bots-only match of ``hands`` hands (its maker registered from ``source``): its code."""
    name = f"maker {source}"
    status, headers, body = await http(
        port, "POST", "/api/register", {"name": name, "password": "hongzhong"}, source=source
    )
    assert status == 201, body
    table = {
        "players": 0,
        "hands": hands,
        "bot_delay_ms": bot_delay_ms,
        "between_hands_ms": 0,
        "settlement_seconds": 0,
    }
    cookie = headers["set-cookie"].split(";")[0]
    status, _, room = await http(
        port, "POST", "/api/rooms", {"table": table}, {"Cookie": cookie}, source=source
    )
    assert status == 201, room
    return str(room["code"])


async def until_over(port: int, code: str, source: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, info = await http(port, "GET", f"/api/rooms/{code}", source=source)
        assert status == 200, info
        if info["status"] not in ("waiting", "playing"):
            return
        await asyncio.sleep(0.3)
    raise AssertionError(f"room {code} still playing after {timeout} s")


async def cache_of(port: int) -> dict[str, int]:
    status, _, health = await http(port, "GET", "/healthz")
    assert status == 200
    found: dict[str, int] = health["replay_cache"]
    return found


def jsonl(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode().splitlines()]


def test_a_finished_hand_is_rendered_once_and_an_unfinished_one_never_kept(serve: Any) -> None:
    srv = serve()

    async def main() -> None:
        reader = address(2)
        status, _, _ = await http(srv.port, "GET", "/api/rooms/NOSUCH/hands/0/replay")
        assert status == 404  # (the render pool has started its worker)
        code = await bots_match(srv.port, 2, 100, address(1))
        # Hand 0 is being played: nothing to replay, no record yet — and nothing kept.
        status, _, body = await http(srv.port, "GET", f"/api/rooms/{code}/hands/0/replay")
        assert status == 404, body
        status, _, body = await http(srv.port, "GET", f"/api/matches/{code}/record")
        assert status == 404 and body["code"] == "no_record", body
        deadline = time.monotonic() + 120
        while status != 200 and time.monotonic() < deadline:
            await asyncio.sleep(0.3)
            status, _, _ = await http(
                srv.port, "GET", f"/api/rooms/{code}/hands/0/replay", source=reader
            )
        assert status == 200  # the 404 was not kept: the hand is shown once it is over
        status, _, during = await http(srv.port, "GET", f"/api/matches/{code}/record")
        assert status == 200
        await until_over(srv.port, code, reader)
        # The match is over: its record has both hands (the one kept while it played did not).
        status, headers, whole = await http(srv.port, "GET", f"/api/matches/{code}/record")
        assert status == 200 and "attachment" in headers["content-disposition"]
        events = jsonl(whole)
        assert [e["hand"] for e in events if e["type"] == "start"] == [0, 1]
        assert whole.startswith(during)

        before = await cache_of(srv.port)
        replays = [
            await http(srv.port, "GET", f"/api/rooms/{code}/hands/1/replay", source=reader)
            for _ in range(10)
        ]
        records = [
            await http(srv.port, "GET", f"/api/rooms/{code}/hands/1", source=reader)
            for _ in range(10)
        ]
        matches = [
            await http(srv.port, "GET", f"/api/matches/{code}/record", source=reader)
            for _ in range(5)
        ]
        after = await cache_of(srv.port)
        # Hand 1's replay and record rendered once each; the whole match's record at most once.
        assert after["renders"] - before["renders"] <= 3, (before, after)
        assert after["hits"] - before["hits"] >= 22, (before, after)
        assert after["bytes"] > 0 and after["entries"] >= 3
        # The same answers as the hand's record says, every time.
        assert all(r[0] == 200 and r[2] == replays[0][2] for r in replays)
        assert all(r[0] == 200 and r[2] == records[0][2] for r in records)
        assert all(m[0] == 200 and m[2] == whole for m in matches)
        record = jsonl(records[0][2])
        assert replays[0][2] == json.loads(json.dumps({"frames": frames(record)}))
        assert record[0]["type"] == "start" and record[0]["hand"] == 1
        assert whole.endswith(records[0][2])

    run(main(), 300)


def test_the_get_bucket_refills_and_forgets_full_buckets() -> None:
    now = [0.0]
    limit = GetLimit(None, rate=2.0, burst=10.0, clock=lambda: now[0])
    assert [limit.admit("a", HEAVY_COST) for _ in range(3)] == [0.0, 0.0, 2.5]
    assert limit.admit("b", 1.0) == 0.0  # another address has its own bucket
    now[0] = 2.5  # 5 tokens back: one replay
    assert limit.admit("a", HEAVY_COST) == 0.0 and limit.admit("a", 1.0) == 0.5
    now[0] = 100.0
    limit._sweep(now[0])
    assert limit.buckets == {}  # full again: nothing to remember
    assert HEAVY.match("/api/rooms/ABC/hands/3/replay") and HEAVY.match("/api/matches/A/record")
    assert HEAVY.match("/api/rooms/ABC/hands/3") and not HEAVY.match("/api/rooms/ABC")
    assert not HEAVY.match("/api/rooms/ABC/summary")
    assert not HEAVY.match("/api/rooms/ABC/hands/3/notes")


def test_one_address_flooding_gets_429_while_another_is_served(serve: Any) -> None:
    srv = serve("--get-rate", "1", "--get-burst", "10")

    async def main() -> None:
        flood = await asyncio.gather(
            *(http(srv.port, "GET", "/api/lobby", source=address(1)) for _ in range(40))
        )
        served = [r for r in flood if r[0] == 200]
        refused = [r for r in flood if r[0] == 429]
        assert 10 <= len(served) <= 14 and len(served) + len(refused) == 40, len(served)
        status, headers, body = refused[0]
        assert body["code"] == "rate_limited" and body["message_zh"] and body["message"]
        assert int(headers["retry-after"]) >= 1
        assert headers["x-content-type-options"] == "nosniff"  # behind the security headers
        # Another address reads at once; a replay costs 5 of its 10 tokens.
        assert (await http(srv.port, "GET", "/api/lobby", source=address(2)))[0] == 200
        heavy = [
            (await http(srv.port, "GET", "/api/rooms/NOSUCH/hands/0/replay", source=address(3)))[0]
            for _ in range(3)
        ]
        assert heavy == [404, 404, 429]
        # Only reading is limited here: the flooding address may still make a room.
        status, _, room = await http(
            srv.port, "POST", "/api/rooms", {"table": {"players": 2}}, source=address(1)
        )
        assert status == 201, room

    run(main())


LOBBY_READS = (
    "/api/settings/schema",
    "/api/queue",
    "/api/me",
    "/api/lobby",
    "/api/leaderboard/wuhan",
    "/api/bots/leaderboard?game=wuhan",
)
"""What the lobby reads besides its files (lobby.js, words.js)."""


def page_load() -> list[str]:
    """Every GET of a fresh visitor's lobby: the page, each file of the client, its reads."""
    files = sorted(p.name for p in STATIC.iterdir() if p.is_file() and p.name != "index.html")
    return ["/", *(f"/web/{name}" for name in files), *LOBBY_READS]


def test_a_page_load_costs_about_ten_tokens_and_the_clients_files_a_twentieth() -> None:
    loads = page_load()
    assert len(loads) > 45  # the client has grown: at 1 token a file a load would be 50
    assert get_cost("/web/app.js") == FILE_COST == 0.05
    assert get_cost("/web/../api/matches/A/record") == FILE_COST  # a /web/ path is a file or 404
    assert get_cost("/api/lobby") == 1.0 and get_cost("/api/matches/A/record") == HEAVY_COST
    assert sum(get_cost(p) for p in loads) < 10


def test_ten_visitors_behind_one_address_load_the_lobby_at_once(serve: Any) -> None:
    """The default bucket (200 at once): ten page loads with every file at the same moment
    are all served — at a token a file they were refused from the fourth on."""
    srv = serve()

    async def main() -> None:
        statuses = []
        for _ in range(10):
            got = await asyncio.gather(
                *(fetch(srv.port, path, source=address(5)) for path in page_load())
            )
            statuses += [status for status, _ in got]
        assert 429 not in statuses
        assert set(statuses) == {200, 401}  # /api/me says 401 to a guest

    run(main())


def test_a_flood_of_the_clients_files_is_still_bounded(serve: Any) -> None:
    """A file costs a twentieth of a token: a bucket of 10 serves 200 of them, then 429."""
    srv = serve("--get-rate", "1", "--get-burst", "10")

    async def main() -> None:
        statuses = []
        for _ in range(6):  # 300 requests, 50 at a time
            got = await asyncio.gather(
                *(fetch(srv.port, "/web/app.js", source=address(6)) for _ in range(50))
            )
            statuses += [status for status, _ in got]
        served = statuses.count(200)
        assert 200 <= served <= 240 and statuses.count(429) == 300 - served, served
        # The cheap price buys nothing but a file: a way out of /web/ is no route, only 404.
        sneak = await fetch(srv.port, "/web/../api/matches/NOSUCH/record", source=address(7))
        assert sneak[0] == 404 and sneak[1] != "no_record", sneak

    run(main())


def test_a_full_render_pool_answers_503_busy(serve: Any) -> None:
    srv = serve("--replay-workers", "1", "--replay-queue", "0")

    async def main() -> None:
        code = await bots_match(srv.port, 4, 0, address(1))
        await until_over(srv.port, code, address(1))
        paths = [f"/api/rooms/{code}/hands/{n}/replay" for n in range(4)]
        paths += [f"/api/rooms/{code}/hands/{n}" for n in range(4)]
        answers = await asyncio.gather(
            *(http(srv.port, "GET", p, source=address(10 + i)) for i, p in enumerate(paths))
        )
        busy = [a for a in answers if a[0] == 503]
        assert busy and all(a[0] in (200, 503) for a in answers), [a[0] for a in answers]
        _, headers, body = busy[0]
        assert body["code"] == "busy" and headers["retry-after"] == "1"
        assert "busy" in body["message"] and "忙" in body["message_zh"]
        # The pool takes one job at a time: one by one, each is served.
        for i, path in enumerate(paths):
            assert (await http(srv.port, "GET", path, source=address(30 + i)))[0] == 200
        assert (await cache_of(srv.port))["busy"] >= len(busy)

    run(main(), 300)


def test_a_replay_flood_does_not_stall_another_table(serve: Any) -> None:
    """8 readers from one address and 64 from as many addresses fetch replays and records as
    fast as they are answered (before: each replay rendered on the event loop, every time)."""
    srv = serve()

    async def main() -> None:
        code = await bots_match(srv.port, 3, 0, address(1))
        await until_over(srv.port, code, address(1))
        paths = [f"/api/matches/{code}/record"]
        paths += [f"/api/rooms/{code}/hands/{n}/replay" for n in range(3)]
        table = MeasuredTable(srv.port)
        await table.start()
        await asyncio.sleep(1.0)
        stop = asyncio.Event()
        statuses: dict[int, int] = {}

        async def reader(n: int, source: str) -> None:
            while not stop.is_set():
                status, _ = await fetch(srv.port, paths[n % len(paths)], source)
                statuses[status] = statuses.get(status, 0) + 1
                n += 1

        table.measuring = True
        readers = [asyncio.create_task(reader(n, address(50))) for n in range(8)]
        readers += [asyncio.create_task(reader(n, address(100 + n))) for n in range(64)]
        await asyncio.sleep(6)
        in_time = len(table.latencies)
        # On a loaded machine the measured table may need longer for its ten samples.
        deadline = time.monotonic() + 60
        while len(table.latencies) < 10 and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        table.measuring = False
        stop.set()
        await asyncio.gather(*readers)
        await table.close()
        assert not table.errors and len(table.latencies) >= 10
        assert_table_kept_up(table.latencies)
        # Its pace (before: 10 moves in over 6 s, p99 5.2 s, load average 12; now 60–70).
        assert in_time >= 20, in_time
        # The readers were served, and the one address told to slow down.
        assert statuses.get(200, 0) >= 40 and statuses.get(429, 0) >= 1, statuses
        assert set(statuses) <= {200, 429, 503}, statuses

    run(main(), 300)
