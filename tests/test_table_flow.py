"""The settlement that stays, away seats and the gentle clock, against a real ``laizi serve``."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import pytest

from tests.engine_helpers import deal_json
from tests.server_helpers import Client, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("flow") / "db.sqlite3"
    fast = ("--message-rate", "100000", "--message-burst", "100000")
    with ServerProcess(path, args=fast) as srv:
        yield srv


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


async def play_until(
    client: Client,
    rng: random.Random,
    done: Callable[[dict[str, Any]], bool],
    press: bool = False,
) -> dict[str, Any]:
    """Answer prompts at random until ``done(message)``; press Continue only if ``press``."""
    while True:
        message = await client.recv(30)
        if done(message):
            return message
        if message["type"] == "prompt":
            action = next((a for a in message["legal"] if a["type"] == "win"), None)
            action = action or rng.choice(message["legal"])
            await client.send({"type": "act", "prompt": message["id"], "action": action})
        elif press and message["type"] == "pause" and client.seat in message["waiting"]:
            await client.send({"type": "continue"})


def is_end(message: dict[str, Any]) -> bool:
    return message["type"] == "event" and message["event"]["type"] == "end"


def is_start(message: dict[str, Any]) -> bool:
    return message["type"] == "event" and message["event"]["type"] == "start"


FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}


def test_the_settlement_stays_until_the_person_presses_continue(server: ServerProcess) -> None:
    room = server.create_room(players=1, hands=2, settlement_seconds=30, **FAST)["code"]

    async def main() -> None:
        c = await Client.connect(server.ws)
        await c.join(room)
        await play_until(c, random.Random(1), is_end)
        pause = await c.expect("pause")
        assert pause["waiting"] == [0] and pause["total"] == 30 and pause["hand"] == 0
        assert 25 < pause["seconds"] <= 30
        # Long after the between-hands time (0 ms): still the settlement, no deal.
        with pytest.raises(asyncio.TimeoutError):
            await c.expect("event", timeout=2.0)
        await c.send({"type": "continue"})
        pressed = time.monotonic()
        last = await c.expect("pause")
        assert last["seconds"] == 0 and last["waiting"] == []
        await play_until(c, random.Random(2), is_start)
        assert time.monotonic() - pressed < 2.0  # the next deal right after the press

    run(main())


def test_the_next_deal_waits_for_every_person_then_comes_at_once(server: ServerProcess) -> None:
    room = server.create_room(players=2, hands=2, settlement_seconds=30, **FAST)["code"]

    async def main() -> None:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.join(room, seat=0)
        await b.join(room, seat=3)
        watcher = await Client.connect(server.ws)
        await watcher.join(room, spectate=True)
        await asyncio.gather(
            play_until(a, random.Random(3), is_end), play_until(b, random.Random(4), is_end)
        )
        assert (await a.expect("pause"))["waiting"] == [0, 3]
        assert (await watcher.expect("pause"))["waiting"] == [0, 3]  # spectators see it too
        await a.send({"type": "continue"})
        await a.send({"type": "continue"})  # a second press changes nothing
        assert (await b.expect("pause"))["waiting"] == [0, 3]
        assert (await b.expect("pause"))["waiting"] == [3]
        with pytest.raises(asyncio.TimeoutError):
            await b.expect("event", timeout=1.0)
        await b.send({"type": "continue"})
        pressed = time.monotonic()
        assert (await watcher.expect("pause", timeout=5))["waiting"] == [3]
        assert (await watcher.expect("pause", timeout=5))["waiting"] == []
        await play_until(b, random.Random(5), is_start)
        assert time.monotonic() - pressed < 2.0
        await watcher.send({"type": "continue"})
        error = await watcher.expect("error")
        assert error["code"] == "not_seated"

    run(main())


def test_nobody_presses_the_deal_comes_after_settlement_seconds(server: ServerProcess) -> None:
    room = server.create_room(players=1, hands=2, settlement_seconds=1.5, **FAST)["code"]

    async def main() -> None:
        c = await Client.connect(server.ws)
        await c.join(room)
        await play_until(c, random.Random(6), is_end)
        await c.expect("pause")
        ended = time.monotonic()
        await play_until(c, random.Random(7), is_start)
        waited = time.monotonic() - ended
        # 1.5 s from when the server sent the pause; it may reach us late on a loaded machine
        assert 0.8 <= waited < 6.0

    run(main())


def test_away_seat_is_played_at_once_and_taken_back(server: ServerProcess) -> None:
    room = server.create_room(
        players=2, hands=8, escape_grace_seconds=10, bot_delay_ms=30, between_hands_ms=0
    )["code"]

    async def main() -> None:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.join(room, seat=0)
        await b.join(room, seat=1)
        # Seat 1 must leave with nothing pending (a decision already asked keeps the player's own
        # clock): both play until seat 1 has decided and seat 0 is asked again; seat 0's decision
        # is held while seat 1 leaves — two seats decide in turn, so seat 1 has none then.
        held: dict[str, Any] | None = None
        b_acted, deadline = False, time.monotonic() + 30
        while held is None:
            assert time.monotonic() < deadline, "seat 0 was never asked after seat 1"
            for c in (b, a):
                while not c.queue.empty():
                    m = c.queue.get_nowait()
                    if m["type"] == "prompt" and c is a and b_acted:
                        held = m
                        break
                    if m["type"] == "prompt":
                        act = next((x for x in m["legal"] if x["type"] == "pass"), m["legal"][0])
                        await c.send({"type": "act", "prompt": m["id"], "action": act})
                        b_acted = b_acted or c is b
                    elif m["type"] == "pause" and c.seat in m["waiting"]:
                        await c.send({"type": "continue"})
            await asyncio.sleep(0.01)
        token = b.token
        await b.close()  # nothing pending: 托管 plays the seat's next decisions
        while not any(m["type"] == "away" for m in a.messages):  # seat 1 is away: now go on
            assert time.monotonic() < deadline, "seat 1 was never away"
            await asyncio.sleep(0.01)
        await a.send({"type": "act", "prompt": held["id"], "action": held["legal"][0]})
        a_task = asyncio.create_task(play_until(a, random.Random(8), lambda m: False, press=True))
        away_at = time.monotonic()
        # everyone is told at once, with the time to the escape
        await asyncio.sleep(0.5)
        away = [m for m in a.messages if m["type"] == "away"]
        assert away == [{"type": "away", "seat": 1, "escape_in": 10.0}]
        rooms = [m["room"] for m in a.messages if m["type"] == "room"]
        assert rooms[-1]["seats"][1]["auto"] is True and not rooms[-1]["seats"][1]["connected"]
        # 托管 plays seat 1: its decisions keep coming while it is away
        seen = len(a.messages)
        await asyncio.sleep(1.0)
        assert any(m["type"] == "event" and m["event"].get("seat") == 1 for m in a.messages[seen:])
        assert time.monotonic() - away_at < 10.0  # no escape yet
        b2 = await Client.connect(server.ws)
        await b2.join(room, token=token, last_seq=None)
        # the seat is the player's again: prompts come (托管, switched on by the disconnect, is off)
        prompt = await b2.expect("prompt", timeout=60)
        assert prompt["id"] >= 0
        autos = [m["on"] for m in b2.messages if m["type"] == "auto"]
        assert autos[-1] is False
        await asyncio.sleep(0.2)
        assert any(m == {"type": "back", "seat": 1} for m in a.messages)
        a_task.cancel()

    run(main())
    info = json.loads(server.get(f"/api/rooms/{room}")[1])
    assert info["seats"][1]["connected"] is True


def test_escape_only_after_the_grace(server: ServerProcess) -> None:
    room = server.create_room(
        players=2, hands=64, escape_grace_seconds=1.5, bot_delay_ms=20, between_hands_ms=0
    )["code"]

    async def main() -> float:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.join(room, seat=0)
        await b.join(room, seat=2)
        await b.expect("event")
        await b.close()
        gone = time.monotonic()
        end = await play_until(
            a,
            random.Random(9),
            lambda m: m["type"] == "event" and m["event"]["type"] == "abandon",
            press=True,
        )
        assert end["event"]["seat"] == 2
        return time.monotonic() - gone

    assert 1.3 <= run(main()) < 10


def test_the_time_bank_is_full_at_every_deal(server: ServerProcess) -> None:
    room = server.create_room(
        players=1, hands=2, action_seconds=0.5, bank_seconds=7, settlement_seconds=0, **FAST
    )
    plain = server.create_room(players=1)

    async def main() -> list[float]:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        banks = []
        first = True
        while True:
            message = await c.recv(30)
            if is_start(message):
                first = True
            elif message["type"] == "prompt":
                if first:
                    banks.append(message["bank"])
                    first = False
                    await asyncio.sleep(
                        message["seconds"] + 0.5 if len(banks) == 1 else 0
                    )  # spend some bank in hand 0
                action = rng.choice(message["legal"])
                await c.send({"type": "act", "prompt": message["id"], "action": action})
            elif message["type"] == "event" and message["event"]["type"] == "match_end":
                return banks

    rng = random.Random(10)
    defaults = json.loads(server.get("/api/settings/schema")[1])["table"]["defaults"]
    assert (defaults["action_seconds"], defaults["bank_seconds"]) == (15, 60)
    assert (defaults["escape_grace_seconds"], defaults["settlement_seconds"]) == (120, 20)
    assert plain["table"]["action_seconds"] == 15 and plain["table"]["bank_seconds"] == 60
    banks = run(main())
    assert banks == [7, 7]  # a second of hand 0 went over its half second: full again


def test_streams_carry_counts_fans_the_end_and_spectators_the_clock(
    server: ServerProcess,
) -> None:
    room = server.create_room("baishan", players=1, hands=2, settlement_seconds=0, **FAST)
    code = room["code"]

    async def main() -> tuple[Client, Client]:
        c = await Client.connect(server.ws)
        await c.join(code)
        watcher = await Client.connect(server.ws)
        await watcher.join(code, spectate=True)
        await play_until(
            c,
            random.Random(11),
            lambda m: m["type"] == "event" and m["event"]["type"] == "match_end",
        )
        await asyncio.sleep(0.3)
        return c, watcher

    c, watcher = run(main())
    for client in (c, watcher):
        events = [m["event"] for m in client.messages if m["type"] == "event"]
        deals = [e for e in events if e["type"] == "deal"]
        assert deals and all(len(e["counts"]) == 4 for e in deals)
        for deal, start in zip(deals, [e for e in events if e["type"] == "start"], strict=True):
            dealer = start["dealer"]
            ids = [[f["id"] for f in seat] for seat in deal["fans"]]
            assert all("limen" in seat for seat in ids)  # nobody has opened yet
            assert [("zuozhuang" in seat) for seat in ids] == [s == dealer for s in range(4)]
            assert all(f["zh"] and f["en"] for seat in deal["fans"] for f in seat)
        for i, e in enumerate(events):
            if e["type"] in ("chow", "pung", "kong"):
                # the counts ride on the last event of the claim's batch (a kong's replacement
                # draw from the back comes in the same batch and carries them)
                shown = next(x for x in events[i:] if "counts" in x)
                assert shown["counts"][e["seat"]]["opened"] >= 1
        ends = [i for i, e in enumerate(events) if e["type"] == "end"]
        assert ends
        for at in ends:
            end = events[at]
            assert len(end["melds"]) == 4 and len(end["laid_out"]) == 4 and end["laizi"] is None
            if end["reason"] == "win":  # the win of this hand: the last one before its end
                win = [e for e in events[:at] if e["type"] == "win"][-1]
                assert end["how_won"]["tile"] == win["tile"]
                assert end["how_won"]["how"] == win["how"]
                assert end["how_won"]["last_tile"] is False
    clocks = [m for m in watcher.messages if m["type"] == "clock"]
    assert clocks and all(m["seat"] == 0 and m["seconds"] == 15 for m in clocks)
    assert not any(m["type"] == "clock" for m in c.messages)  # not to the seat itself
    assert not any(m["type"] == "hints" for m in watcher.messages)
    summary = json.loads(server.get(f"/api/rooms/{code}/summary")[1])
    info = json.loads(server.get(f"/api/rooms/{code}")[1])
    assert summary["status"] == "over" and len(summary["hands"]) == info["hands_played"]
    assert summary["totals"] == info["totals"]
    assert sum(Fraction(x) for x in summary["totals_exact"]) == 0
    for hand in summary["hands"]:
        status, body = server.get(hand["record"])
        assert status == 200
        end = json.loads(body.decode().splitlines()[-1])
        assert [Fraction(x) for x in hand["payments"]] == [
            Fraction(str(x)) for x in end["payments"]
        ]
    status, body = server.get("/api/rooms/ZZZZZZ/summary")
    assert status == 404 and json.loads(body)["code"] == "not_found"


def test_a_drawn_baishan_hand_says_its_kongs_were_paid() -> None:
    """荒庄: a drawn hand whose kongs were paid on the spot says so (its only money)."""
    from laizi.engine import make_ruleset
    from laizi.engine.table_data import end_details

    state, _ = deal_json(make_ruleset("baishan"), dealer=1, seed=bytes(32))
    state.result = {"reason": "drawn", "winner": None}
    assert "drawn_kongs_paid" not in end_details(state, [])
    state.kong_paid = (Fraction(-2), Fraction(6), Fraction(-2), Fraction(-2))
    details = end_details(state, [])
    assert details["drawn_kongs_paid"] is True and "how_won" not in details
    assert details["melds"] == [[], [], [], []] and details["laizi"] is None


def test_the_summary_and_records_hold_up_to_an_attacker(server: ServerProcess) -> None:
    """What an attacker would try on the read-only routes of a room: odd codes and hand
    numbers get a 404, never a 500; a live room's summary holds only its finished hands (the
    hand in play is not there, nor any hand's tiles); a burst of 60 concurrent summary requests
    is answered in full while a player's ping still comes back at once (the reads don't hold
    up the tables' event loop)."""
    import concurrent.futures
    import urllib.parse

    room = server.create_room(players=1, hands=3, bot_delay_ms=0, between_hands_ms=0)
    code = room["code"]
    for odd in ("Z" * 5000, "%2e%2e", "../../etc", "ZZZZZZ", "é", "1" * 17):
        for path in (f"/api/rooms/{odd}/summary", f"/api/rooms/{odd}/hands/0/notes"):
            status, body = server.get(path.replace("é", urllib.parse.quote("é")))
            assert status in (200, 404), (path[:40], status)
            if status == 200:  # notes of no room: none
                assert json.loads(body) == {"notes": []}
    for number in ("-1", "99999999999999999999999", "0x10", "00"):
        status, _ = server.get(f"/api/rooms/{code}/hands/{number}")
        assert status == 404

    def ended(c: Client) -> bool:
        return any(m["type"] == "event" and m["event"]["type"] == "end" for m in c.messages)

    async def main() -> float:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.join(code)
        while True:  # play until the first hand has ended and the second is dealt
            message = await c.recv(30)
            if message["type"] == "prompt":
                action = random.Random(1).choice(message["legal"])
                await c.send({"type": "act", "prompt": message["id"], "action": action})
            elif message["type"] == "pause" and c.seat in message["waiting"]:
                await c.send({"type": "continue"})
            elif message["type"] == "event" and message["event"]["type"] == "deal" and ended(c):
                break
        status, body = await loop.run_in_executor(None, server.get, f"/api/rooms/{code}/summary")
        live = json.loads(body)
        assert status == 200 and live["status"] == "playing"
        assert [h["number"] for h in live["hands"]] == [0]  # the hand in play is not shown
        assert set(live["hands"][0]) == {
            "number",
            "dealer",
            "reason",
            "winner",
            "payments",
            "record",
        }
        assert set(live["seats"][0]) == {"seat", "kind", "name"}  # no tiles, no tokens
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            burst = [
                loop.run_in_executor(pool, server.get, f"/api/rooms/{code}/summary")
                for _ in range(60)
            ]
            await asyncio.sleep(0.05)
            sent = loop.time()
            await c.send({"type": "ping"})
            await c.expect("pong", timeout=10)
            took = loop.time() - sent
            answers = await asyncio.gather(*burst)
        assert all(status == 200 for status, _ in answers)
        await c.close()
        return took

    assert run(main()) < 2.0
