"""The online table with a real server process and real WebSocket clients (issue 7)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from laizi.engine import seat_event, verify
from tests.server_checks import (
    check_hand_stream,
    check_prompts,
    server_stream,
    split_hands,
    stream_events,
)
from tests.server_helpers import Client, ServerProcess, play, records

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_db_url: str):
    """One server for the module's tests, on SQLite and on PostgreSQL (tests/conftest.py)."""
    path = tmp_path_factory.mktemp("server") / "db.sqlite3"
    # The fuzz test sends hundreds of messages at once and the fast tables' scripted players
    # answer at once: the message rate limit (tests/test_limits.py) is raised for them.
    fast_clients = ("--message-rate", "100000", "--message-burst", "100000")
    with ServerProcess(path, db_url=module_db_url, args=fast_clients) as srv:
        yield srv


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


# -- HTTP ------------------------------------------------------------------------------------------
def test_healthz_index_and_room_page(server: ServerProcess) -> None:
    status, body = server.get("/healthz")
    assert status == 200 and json.loads(body)["ok"] is True
    status, body = server.get("/")
    assert status == 200 and b"laizi" in body
    room = server.create_room(players=2)
    assert len(room["code"]) == 6 and room["link"] == f"/r/{room['code']}"
    status, body = server.get(room["link"])
    assert status == 200 and room["code"].encode() in body
    status, body = server.get(f"/api/rooms/{room['code'].lower()}")
    assert status == 200 and json.loads(body)["status"] == "waiting"


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"rules": "no-such-preset"}, "preset"),
        ({"rules": {"preset": "wuhan-hongzhong-kaikou", "min_points": -5}}, "min_points"),
        ({"rules": {"preset": "wuhan-hongzhong-kaikou", "colour": 1}}, "colour"),
        ({"table": {"hands": 0}}, "table.hands"),
        ({"table": {"bot_level": "genius"}}, "table.bot_level"),
        ({"table": {"timer": 3}}, "timer"),
        ({"seats": 4}, "seats"),
        ([1, 2], "object"),
    ],
)
def test_bad_room_settings_are_refused_naming_the_field(
    server: ServerProcess, body: Any, names: str
) -> None:
    status, answer = server.post("/api/rooms", body)
    assert status == 400
    # a setting is named by its label in the texts and by its key in params.key
    assert names in answer["error"] or names in answer["params"].get("key", "")
    assert answer["message_zh"] and answer["message"] == answer["error"]


def test_rooms_take_overrides_and_table_settings_apart_from_the_rules_hash(
    server: ServerProcess,
) -> None:
    a = server.create_room({"preset": "wuhan-qipi-koukou", "min_points": 0}, hands=2)
    b = server.create_room({"preset": "wuhan-qipi-koukou", "min_points": 0}, hands=8)
    assert a["rules"]["min_points"] == 0 and a["table"]["hands"] == 2
    assert a["rules_hash"] == b["rules_hash"]


def test_unfinished_hand_has_no_record(server: ServerProcess) -> None:
    room = server.create_room(players=1)
    assert server.get(f"/api/rooms/{room['code']}/hands/0")[0] == 404


# -- a match --
def test_full_match_with_people_and_bots(server: ServerProcess) -> None:
    room = server.create_room(players=2, hands=3, **FAST)

    async def main() -> list[Client]:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        assert (await a.join(room["code"], name="Ann"))["seat"] == 0
        assert (await b.join(room["code"], seat=2, name="Bo"))["seat"] == 2
        await asyncio.gather(play(a, random.Random(1)), play(b, random.Random(2)))
        return [a, b]

    clients = run(main())
    hands = records(server, room["code"])
    assert len(hands) == 3 or hands[-1][-1]["reason"] == "abandon"
    for hand in hands:
        assert verify(hand).ok
    whole = [e for hand in hands for e in hand]
    assert verify(whole).ok, verify(whole).message
    totals = [0.0] * 4
    for hand in hands:
        for seat, amount in enumerate(hand[-1]["payments"]):
            totals[seat] += amount
    for client in clients:
        events = stream_events(client.messages)
        assert events[-1]["type"] == "match_end"
        assert events[-1]["totals"] == pytest.approx(totals)
        assert sum(events[-1]["totals"]) == pytest.approx(0)
        offset = 0
        for record, shown in zip(hands, split_hands(events), strict=True):
            check_hand_stream(record, shown, client.seat)
            check_prompts(record, client.messages, client.seat, offset)
            offset += len(shown)
    info = json.loads(server.get(f"/api/rooms/{room['code']}")[1])
    assert info["status"] == "over"
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "human", "bot"]
    assert info["seats"][0]["name"] == "Ann"
    assert info["totals"] == pytest.approx(totals)


def test_leak_over_many_random_hands(server: ServerProcess) -> None:
    """Four people playing random legal actions: every message to every seat is checked."""
    rooms = [server.create_room(players=4, hands=5, **FAST) for _ in range(5)]

    async def table(code: str, seed: int) -> list[Client]:
        clients = [await Client.connect(server.ws) for _ in range(4)]
        for c in clients:
            await c.join(code)
        await asyncio.gather(
            *(play(c, random.Random(seed * 10 + i)) for i, c in enumerate(clients))
        )
        return clients

    async def main() -> list[list[Client]]:
        return await asyncio.gather(*(table(r["code"], i) for i, r in enumerate(rooms)))

    tables = run(main())
    hands_checked = prompts_checked = 0
    for room, clients in zip(rooms, tables, strict=True):
        hands = records(server, room["code"])
        for client in clients:
            events = stream_events(client.messages)
            offset = 0
            for record, shown in zip(hands, split_hands(events), strict=True):
                check_hand_stream(record, shown, client.seat)
                prompts_checked += check_prompts(record, client.messages, client.seat, offset)
                offset += len(shown)
                hands_checked += 1
    assert hands_checked >= 80  # 5 tables × 4 seats × (up to) 5 hands
    assert prompts_checked > 2000


def test_spectator_sees_only_the_public_view(server: ServerProcess) -> None:
    cookie = server.account_cookie(f"watcher{random.randrange(10**6)}")  # bots-only: an account
    room = server.create_room(
        players=0, hands=1, bot_delay_ms=20, between_hands_ms=0, cookie=cookie
    )

    async def main() -> Client:
        spectator = await Client.connect(server.ws)
        joined = await spectator.join(room["code"], spectate=True)
        assert joined["seat"] is None and joined["token"] is None
        snapshot = await spectator.expect("snapshot")
        if snapshot["view"] is not None:
            assert "concealed" not in snapshot["view"] and "legal" not in snapshot["view"]
        await spectator.send({"type": "act", "prompt": 0, "action": {"type": "pass"}})
        assert (await spectator.expect("error"))["code"] == "not_seated"
        while True:
            message = await spectator.recv(60)
            if message["type"] == "event" and message["event"]["type"] == "match_end":
                return spectator

    spectator = run(main())
    [record] = records(server, room["code"])
    events = stream_events(spectator.messages)
    # The spectator joined mid-hand: what it saw is the tail of the hand as a spectator sees it.
    assert events[-1]["type"] == "match_end"
    tail = events[:-1]
    public = [e for e in (seat_event(e, None) for e in server_stream(record)) if e is not None]
    assert [json.dumps(e, sort_keys=True) for e in tail] == [
        json.dumps(e, sort_keys=True) for e in public[len(public) - len(tail) :]
    ]
    for event in tail[:-1]:
        assert event.get("seed") is None and event["type"] not in ("claim", "pass")
        if event["type"] == "deal":
            assert event["hands"] == [None] * 4
        if event["type"] == "draw":
            assert "tile" not in event
    assert tail[-1]["type"] == "end" and tail[-1]["seed"] == record[-1]["seed"]


# -- reconnect --
def test_reconnect_mid_hand_gets_missed_events_and_the_prompt(server: ServerProcess) -> None:
    # 托管 plays the away seat at once: bots that take their time keep the match going past
    # the half second the player is away.
    room = server.create_room(players=2, hands=2, bot_delay_ms=50, between_hands_ms=0)

    async def main() -> tuple[Client, list[dict[str, Any]]]:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.join(room["code"], seat=0)
        await b.join(room["code"], seat=1)
        a_task = asyncio.create_task(play(a, random.Random(5)))
        rng = random.Random(6)
        acted = 0

        def stop(client: Client, message: dict[str, Any]) -> bool:
            nonlocal acted
            if message["type"] == "event" and message["event"].get("seat") == 1:
                acted += message["event"]["type"] in ("discard", "pass", "claim", "lay_out")
            return acted >= 4

        await play(b, rng, stop)
        before = list(b.messages)
        token, last = b.token, b.last_seq
        await b.close()
        await asyncio.sleep(0.5)  # the others play on, up to seat 1's next decision
        b2 = await Client.connect(server.ws)
        assert (await b2.join(room["code"], token=token, last_seq=last))["seat"] == 1
        caught_up = []
        while True:  # the missed events, then our prompt (or the end of the match)
            message = await b2.recv()
            caught_up.append(message)
            assert message["type"] != "snapshot"
            if message["type"] == "prompt":
                action = rng.choice(message["legal"])
                await b2.send({"type": "act", "prompt": message["id"], "action": action})
                break
            if message["type"] == "event" and message["event"]["type"] == "match_end":
                break
        missed = [m["seq"] for m in caught_up if m["type"] == "event"]
        assert missed == list(range(last + 1, last + 1 + len(missed)))
        await b2.send({"type": "resync", "last_seq": None})
        snapshot = await b2.expect("snapshot")
        assert snapshot["view"]["seat"] == 1 and snapshot["view"]["concealed"]
        await play(b2, rng)
        await a_task
        return b2, before

    b2, before = run(main())
    assert any(m["type"] == "prompt" for m in b2.messages)
    hands = records(server, room["code"])
    events = stream_events(before + [m for m in b2.messages if m["type"] == "event"])
    for record, shown in zip(hands, split_hands(events), strict=True):
        check_hand_stream(record, shown, 1)


def test_grace_period_then_the_escape_rule(server: ServerProcess) -> None:
    room = server.create_room(
        players=1, hands=64, escape_grace_seconds=0.3, bot_delay_ms=5, between_hands_ms=0
    )

    async def main() -> None:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        await c.expect("prompt")
        await c.close()
        await asyncio.sleep(1.5)

    run(main())
    # 托管 plays the away seat at once (the bots here take no time: hands may end meanwhile);
    # the escape comes with the grace's end and ends the match.
    hands = records(server, room["code"])
    end = hands[-1][-1]
    assert end["reason"] == "abandon" and end["seat"] == 0
    assert all(hand[-1]["reason"] != "abandon" for hand in hands[:-1])
    info = json.loads(server.get(f"/api/rooms/{room['code']}")[1])
    assert info["status"] == "over"
    assert info["totals"][0] < 0 and sum(info["totals"]) == pytest.approx(0)
    assert info["totals"][1] == info["totals"][2] == info["totals"][3] == -info["totals"][0] / 3


def test_leave_is_abandon_with_the_escape_penalty(server: ServerProcess) -> None:
    room = server.create_room(players=1, hands=4, **FAST)

    async def main() -> Client:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        await c.expect("prompt")
        await c.send({"type": "leave"})
        await c.expect("left")
        return c

    c = run(main())
    events = stream_events(c.messages)
    assert [e["type"] for e in events[-3:]] == ["abandon", "end", "match_end"]
    assert events[-1]["escaped"] == 0
    assert verify(records(server, room["code"])[0]).ok


# -- timers --
def test_timeout_plays_the_safe_default_and_auto_play_until_the_player_acts(
    server: ServerProcess,
) -> None:
    room = server.create_room(
        players=1,
        hands=3,
        action_seconds=0.3,
        bank_seconds=0.2,
        bot_delay_ms=20,
        between_hands_ms=0,
        settlement_seconds=0,  # no settlement to wait on (its pause is tested elsewhere)
    )

    async def main() -> Client:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        prompt = await c.expect("prompt")
        assert prompt["seconds"] == 0.3 and prompt["bank"] == 0.2
        asked = loop.time()
        assert (await c.expect("auto", timeout=5))["on"] is True
        waited = loop.time() - asked
        assert 0.4 < waited < 3
        while True:  # our seat's default decision
            message = await c.recv()
            if message["type"] == "event" and message["event"].get("seat") == 0:
                assert message["event"]["type"] in ("discard", "pass", "lay_out")
                break
        # On auto-play the server decides for us: no prompts, the hand goes on.
        await asyncio.sleep(0.3)
        assert not any(m["type"] == "prompt" for m in list(c.queue._queue))  # type: ignore[attr-defined]
        await c.send({"type": "auto", "on": False})
        assert (await c.expect("auto"))["on"] is False
        while True:  # our next decision (a hand that ended meanwhile waits for our 继续)
            prompt = await c.recv(30)
            if prompt["type"] == "pause" and c.seat in prompt["waiting"]:
                await c.send({"type": "continue"})
            elif prompt["type"] == "prompt":
                break
        # The bank was spent by the time-out; a new deal since then fills it again.
        timed_out = next(i for i, m in enumerate(c.messages) if m["type"] == "auto" and m["on"])
        dealt = any(
            m["type"] == "event" and m["event"]["type"] == "start" for m in c.messages[timed_out:]
        )
        assert prompt["bank"] == (0.2 if dealt else 0)
        await c.send({"type": "act", "prompt": prompt["id"], "action": prompt["legal"][0]})
        await play(c, random.Random(3), late=True)  # 0.3 s to answer: a loaded machine is late
        return c

    c = run(main())
    assert stream_events(c.messages)[-1]["type"] == "match_end"


# -- bad input --
BAD_MESSAGES = [
    ("not json at all", "bad_json"),
    ("{", "bad_json"),
    ("[]", "bad_message"),
    ("42", "bad_message"),
    ('{"type": "teleport"}', "bad_message"),
    ('{"no_type": 1}', "bad_message"),
    ('{"type": "join"}', "bad_message"),
    ('{"type": "join", "room": 7}', "bad_message"),
    ('{"type": "join", "room": "X", "v": 99}', "bad_version"),
    ('{"type": "join", "room": "NOSUCH"}', "no_room"),
    ('{"type": "act", "prompt": "x", "action": {"type": "pass"}}', "bad_message"),
    ('{"type": "act", "prompt": 1, "action": {"type": "pass"}}', "not_joined"),
    ('{"type": "ping", "extra": 1}', "bad_message"),
    ('{"type": "auto", "on": "yes"}', "bad_message"),
    ("x" * 5000, "too_large"),
    ('{"type": "ping", "pad": "' + "y" * 5000 + '"}', "too_large"),
]


def test_malformed_and_oversized_messages_get_an_error_and_the_connection_stays(
    server: ServerProcess,
) -> None:
    async def main() -> None:
        c = await Client.connect(server.ws)
        assert (await c.recv())["type"] == "welcome"
        for text, code in BAD_MESSAGES:
            await c.send(text)
            error = await c.recv()
            assert error["type"] == "error" and error["code"] == code, (text[:40], error)
            assert error["message"]
            await c.send({"type": "ping"})
            assert (await c.recv())["type"] == "pong"
        await c.ws.send(b"\x00\xff binary")
        assert (await c.recv())["code"] == "bad_json"
        # Beyond 64 KiB the WebSocket layer itself refuses the frame and closes (1009).
        huge = await Client.connect(server.ws)
        await huge.send("z" * 100_000)
        await asyncio.wait_for(huge.task, 10)
        assert huge.ws.close_code == 1009
        await c.send({"type": "ping"})
        assert (await c.recv())["type"] == "pong"

    run(main())


def test_out_of_turn_stale_and_illegal_actions_are_refused(server: ServerProcess) -> None:
    room = server.create_room(players=2, hands=1, **FAST)

    async def main() -> None:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.join(room["code"], seat=0)
        await b.join(room["code"], seat=1)
        prompt = await a.expect("prompt")  # seat 0 deals first
        await b.send(
            {"type": "act", "prompt": prompt["id"], "action": {"type": "discard", "tile": "1m"}}
        )
        assert (await b.expect("error"))["code"] in ("not_your_turn", "stale_prompt")
        await a.send({"type": "act", "prompt": prompt["id"] + 1, "action": prompt["legal"][0]})
        assert (await a.expect("error"))["code"] == "stale_prompt"
        await a.send({"type": "act", "prompt": prompt["id"], "action": {"type": "pung"}})
        error = await a.expect("error")
        assert error["code"] == "illegal" and "legal:" in error["message"]
        await a.send(
            {"type": "act", "prompt": prompt["id"], "action": {"type": "discard", "tile": "9q"}}
        )
        assert (await a.expect("error"))["code"] == "bad_action"
        await a.send({"type": "join", "room": room["code"]})
        assert (await a.expect("error"))["code"] == "already_joined"
        c = await Client.connect(server.ws)
        await c.send({"type": "join", "room": room["code"]})
        assert (await c.expect("error"))["code"] == "room_full"
        # Still usable: the pending prompt is answered normally.
        await a.send({"type": "act", "prompt": prompt["id"], "action": prompt["legal"][0]})
        event = await a.expect("event")
        while event["event"].get("seat") != 0:
            event = await a.expect("event")
        assert event["event"]["type"] in ("discard", "lay_out", "concealed_kong", "win")

    run(main())


def test_fuzzed_messages_never_break_the_server(server: ServerProcess) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    room = server.create_room(players=1, hands=1, **FAST)
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )
    kinds = st.sampled_from(["join", "act", "auto", "leave", "resync", "ping", "x"])
    messages = st.one_of(
        st.text(max_size=200),
        json_values.map(json.dumps),
        st.builds(
            lambda k, d: json.dumps({"type": k, **(d if isinstance(d, dict) else {})}),
            kinds,
            st.dictionaries(
                st.sampled_from(
                    ["room", "prompt", "action", "on", "seat", "token", "last_seq", "v"]
                ),
                json_values,
                max_size=3,
            ),
        ),
    )
    sent: list[str] = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(messages, min_size=1, max_size=5))
    def collect(batch: list[str]) -> None:
        sent.extend(batch)

    collect()

    async def main() -> None:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        for text in sent:
            await c.send(text)
        await c.send({"type": "ping"})
        await c.expect("pong", timeout=30)
        other = await Client.connect(server.ws)
        await other.send({"type": "ping"})
        await other.expect("pong")

    run(main())
    assert server.get("/healthz")[0] == 200


# -- crash recovery --
def test_kill_9_mid_hand_and_restart_loses_nothing_accepted(tmp_path: Path, db_url: str) -> None:
    srv = ServerProcess(tmp_path / "db.sqlite3", db_url=db_url).start()
    try:
        room = srv.create_room(players=1, hands=2, **FAST)
        rng = random.Random(11)

        async def first() -> Client:
            c = await Client.connect(srv.ws)
            await c.join(room["code"])
            own = 0

            def stop(client: Client, message: dict[str, Any]) -> bool:
                nonlocal own
                if message["type"] == "event" and message["event"].get("seat") == 0:
                    own += message["event"]["type"] in ("discard", "pass", "claim", "lay_out")
                return own >= 6

            await play(c, rng, stop)
            return c

        c = run(first())
        srv.kill9()
        before = list(c.messages)
        srv.start()

        async def second() -> Client:
            c2 = await Client.connect(srv.ws)
            joined = await c2.join(room["code"], token=c.token, last_seq=c.last_seq)
            assert joined["seat"] == 0
            await play(c2, rng)
            return c2

        c2 = run(second())
        hands = records(srv, room["code"])
        assert len(hands) == 2 or hands[-1][-1]["reason"] == "abandon"
        events = stream_events(before + [m for m in c2.messages if m["type"] == "event"])
        offset = 0
        for record, shown in zip(hands, split_hands(events), strict=True):
            assert verify(record).ok
            check_hand_stream(record, shown, 0)
            offset += len(shown)
        assert verify([e for h in hands for e in h]).ok
    finally:
        srv.stop()


@pytest.mark.parametrize("preset", ["wuhan-qipi-koukou", "wuhan-facai-kaikou", "baishan"])
def test_every_game_the_engine_knows_plays_and_verifies_with_the_cli(
    server: ServerProcess, preset: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from tests.server_helpers import SRC

    room = server.create_room(preset, players=1, hands=2, bot_level="random", **FAST)

    async def main() -> Client:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        await play(c, random.Random(preset))
        return c

    c = run(main())
    hands = records(server, room["code"])
    assert hands and hands[0][0]["rules"]["preset"] == preset
    offset = 0
    for record, shown in zip(hands, split_hands(stream_events(c.messages)), strict=True):
        check_hand_stream(record, shown, 0)
        check_prompts(record, c.messages, 0, offset)
        offset += len(shown)
    path = tmp_path / "match.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for h in hands for e in h))
    done = subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", "verify", str(path)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


@pytest.mark.parametrize(
    "url",
    [
        "nosuch://x",
        "sqlite:////nonexistent/dir/laizi.sqlite3",
        "postgresql://laizi@127.0.0.1:1/laizi",  # nobody listens there
    ],
)
def test_serve_with_a_bad_database_url_is_a_clear_error(url: str) -> None:
    import subprocess
    import sys

    from tests.server_helpers import SRC

    done = subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", "serve", "--db", url],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"laizi: --db {url}: ")
    assert "Traceback" not in done.stderr


def test_a_graceful_restart_plays_nothing_for_the_people_it_disconnects(
    tmp_path: Path, db_url: str
) -> None:
    """SIGTERM while a person's decision is pending: the server halts the tables before it
    closes the connections, so the disconnect is not taken for the player leaving (no 托管, no
    escape clock).  After the restart the same decision is still the player's, not on auto."""
    srv = ServerProcess(tmp_path / "db.sqlite3", db_url=db_url).start()
    try:
        room = srv.create_room(
            players=1, hands=2, action_seconds=60, bank_seconds=0, bot_delay_ms=0
        )

        async def first() -> tuple[Client, dict[str, Any]]:
            c = await Client.connect(srv.ws)
            await c.join(room["code"])
            prompt = await c.expect("prompt")
            await asyncio.sleep(0.2)  # the hints and everything else of this turn arrive
            return c, prompt

        c, before = run(first())
        srv.stop()  # SIGTERM: the graceful shutdown
        assert srv.proc is not None and srv.proc.returncode in (0, -15)  # not killed (-9)
        srv.start()

        async def second() -> None:
            c2 = await Client.connect(srv.ws)
            await c2.join(room["code"], token=c.token, last_seq=c.last_seq)
            prompt = await c2.expect("prompt", timeout=10)
            assert prompt["legal"] == before["legal"] and prompt["phase"] == before["phase"]
            autos = [m["on"] for m in c2.messages if m["type"] == "auto"]
            assert autos == [False]  # the player's own seat, not 托管
            caught_up = [m for m in c2.messages if m["type"] == "event"]
            assert not [m for m in caught_up if m["event"].get("seat") == c.seat]
            action = prompt["legal"][0]
            await c2.send({"type": "act", "prompt": prompt["id"], "action": action})
            await play(c2, random.Random(5))

        run(second())
        for record in records(srv, room["code"]):
            assert verify(record).ok
    finally:
        srv.stop()


def test_a_restart_keeps_the_time_bank_and_auto_play(tmp_path: Path, db_url: str) -> None:
    srv = ServerProcess(tmp_path / "db.sqlite3", db_url=db_url).start()
    try:
        room = srv.create_room(
            players=1,
            hands=3,
            action_seconds=0.3,
            bank_seconds=0.2,
            bot_delay_ms=20,
            between_hands_ms=0,
        )

        async def first() -> Client:
            c = await Client.connect(srv.ws)
            await c.join(room["code"])
            await c.expect("prompt")
            assert (await c.expect("auto", timeout=5))["on"] is True  # timed out: 托管
            return c

        c = run(first())
        srv.kill9()
        srv.start()

        async def second() -> None:
            c2 = await Client.connect(srv.ws)
            await c2.join(room["code"], token=c.token, last_seq=c.last_seq)
            await asyncio.sleep(1.0)
            # Still on auto-play after the restart: the server decides, no prompt comes.
            assert not any(m["type"] == "prompt" for m in c2.messages)
            await c2.send({"type": "auto", "on": False})
            prompt = await c2.expect("prompt", timeout=30)
            dealt = any(
                m["type"] == "event" and m["event"]["type"] == "start"
                for m in c2.messages[: c2.messages.index(prompt)]
            )
            # The bank spent before the crash stays spent within the hand; a new deal fills it.
            assert prompt["bank"] == (0.2 if dealt else 0)
            await play(c2, random.Random(4))

        run(second())
        for record in records(srv, room["code"]):
            assert verify(record).ok
    finally:
        srv.stop()


@pytest.mark.parametrize("preset", ["wuhan-hongzhong-kaikou", "baishan"])
def test_a_table_of_learned_bots_plays_its_match(server: ServerProcess, preset: str) -> None:
    """The lobby's 神经网络 / Neural network level: the shipped model of the game plays."""
    fast = {"bot_delay_ms": 0, "between_hands_ms": 0, "claim_window_ms": 0, "hands": 1}
    cookie = server.account_cookie(f"netfan{preset[:2]}")  # a bots-only room needs an account
    room = server.create_room(preset, cookie=cookie, players=0, bot_level="learned", **fast)
    assert room["table"]["bot_level"] == "learned"
    deadline = time.monotonic() + 60
    info = room
    while time.monotonic() < deadline and info["status"] != "over":
        time.sleep(0.1)
        info = json.loads(server.get(f"/api/rooms/{room['code']}")[1])
    assert info["status"] == "over" and sum(info["totals"]) == 0
    (hand,) = records(server, room["code"])
    assert hand[-1]["type"] == "end" and verify(hand).ok
