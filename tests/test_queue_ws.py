"""The matchmaking queue over real WebSocket connections to a real ``laizi serve`` (issue 26,
items 1 and 8; docs/protocol.md "Matchmaking", docs/api.md ``GET /api/queue``).

* Four accounts queue ranked → each is offered the match, accepts, and is sent to one room,
  four distinct seats; they sit there and the room is ``ranked``.
* A guest queues casual → after the casual wait (1 s here) a table with three bots; the guest
  takes its kept seat with the ``token`` it was sent.
* A no-show goes back to the queue (the others keep their place); a second no-show bars them
  (``queue_cooldown``).
* A second tab shares the place and the messages; a guest's tab does with its queue key.
* A dropped connection keeps the place for the grace, then leaves the queue.
* Sitting down in a room leaves the queue; queueing while seated is ``at_table``.
* A match whose room can't be made puts its people back in the queue (none lost).
* The anti-collusion history is the database's ranked tables (friendly and casual ones don't
  count); the ``laizi serve`` flags default to the matchmaker's settings and are documented.
* Bad input — a flood, an unknown preset, kind or tier, a guest queueing ranked, an accept for
  a match that is gone — is a coded error in Chinese and English, and ``GET /api/queue`` shows
  nobody who should not be there.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from pathlib import Path

from laizi.rules import Settings
from laizi.server.accounts import Accounts
from laizi.server.matchmaking import MatchSettings
from laizi.server.queueing import load_history
from laizi.server.ratings import link_seat
from laizi.server.store import Store
from tests.queue_helpers import (
    HAN,
    PRESET,
    PROXY,
    account,
    coded,
    offered,
    queue_counts,
    run,
    sent_to_room,
    waiting,
)
from tests.server_helpers import (
    FAST_HASH,
    ServerProcess,
    Servers,
    connect,
    login_cookie,
)

TIER_NAMES = [
    {"id": "general", "zh": "一般", "en": "General"},
    {"id": "upper", "zh": "上级", "en": "Upper"},
    {"id": "expert", "zh": "特上", "en": "Expert"},
    {"id": "phoenix", "zh": "凤凰", "en": "Phoenix"},
]
"""``GET /api/queue``'s ``tiers``: every tier's id and its names (the lobby's words)."""


def test_four_accounts_queue_ranked_and_sit_at_one_ranked_room(serve: Servers) -> None:
    srv = serve(*PROXY)

    async def main() -> None:
        clients = [await account(srv, f"Ranked{i}", i) for i in range(4)]
        for c in clients:
            await c.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
            first = await c.expect("queued", 30)
            assert (first["preset"], first["kind"], first["tier"]) == (PRESET, "ranked", "general")
            assert "key" not in first  # an account's place is its account's
        offers = [await offered(c) for c in clients]
        match = offers[0]["match"]
        assert {o["match"] for o in offers} == {match}
        assert sorted(o["seat"] for o in offers) == [0, 1, 2, 3]
        assert all(o["people"] == 4 and 0 < o["deadline_s"] <= 10 for o in offers)
        assert waiting(srv) == 0  # offered: no longer waiting
        for c in clients:
            await c.send({"type": "accept", "match": match})
        sent = [await sent_to_room(c) for c in clients]
        room = sent[0]["room"]
        assert {m["room"] for m in sent} == {room}
        assert [m["seat"] for m in sent] == [o["seat"] for o in offers]
        assert all(m["kind"] == "ranked" and "token" not in m for m in sent)
        for c, m in zip(clients, sent, strict=True):
            joined = await c.join(room)
            assert joined["seat"] == m["seat"]
        status, body = srv.get(f"/api/rooms/{room}")
        assert status == 200 and json.loads(body)["kind"] == "ranked"
        assert waiting(srv) == 0
        # seated: queueing again is refused, and leaves nothing in the queue
        await coded(clients[0], {"type": "queue", "preset": PRESET, "kind": "casual"}, "at_table")
        assert waiting(srv) == 0

    run(main)


def test_a_casual_guest_gets_bots_after_the_wait_and_takes_its_seat(serve: Servers) -> None:
    srv = serve("--casual-wait-seconds", "1")

    async def main() -> None:
        guest = await connect(srv)
        start = time.monotonic()
        await guest.send({"type": "queue", "preset": "baishan", "kind": "casual"})
        first = await guest.expect("queued", 30)
        key = first["key"]
        assert first["position"] == 1 and len(key) >= 16
        assert queue_counts(srv)["queues"] == [
            {"preset": "baishan", "kind": "casual", "tier": "general", "waiting": 1}
        ]
        offer = await offered(guest)
        assert time.monotonic() - start >= 1.0  # not before the casual wait
        assert offer["people"] == 1 and offer["kind"] == "casual"
        await guest.send({"type": "accept", "match": offer["match"]})
        sent = await sent_to_room(guest)
        assert sent["token"] == key and sent["seat"] == offer["seat"]
        joined = await guest.join(sent["room"], token=key, name="Visitor")
        assert joined["seat"] == sent["seat"]
        status, body = srv.get(f"/api/rooms/{sent['room']}")
        info = json.loads(body)
        assert status == 200 and info["kind"] == "casual"
        kinds = [s["kind"] for s in info["seats"]]
        assert kinds.count("bot") == 3 and kinds[sent["seat"]] == "human"
        assert waiting(srv) == 0

    run(main)


def test_a_no_show_goes_back_and_a_second_one_bars_them(serve: Servers) -> None:
    srv = serve(*PROXY, "--accept-seconds", "4")

    async def main() -> None:
        clients = [await account(srv, f"Show{i}", i) for i in range(4)]
        for c in clients:
            await c.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
            await c.expect("queued", 30)
        absent, present = clients[0], clients[1:]
        for round_, outcome in ((1, "requeued"), (2, "barred")):
            match = (await offered(absent))["match"]
            for c in present:
                assert (await offered(c))["match"] == match
                await c.send({"type": "accept", "match": match})
                assert (await c.expect("accepted", 30))["match"] == match
            lapsed = await absent.expect("lapsed", 30)
            assert (lapsed["match"], lapsed["outcome"]) == (match, outcome), round_
            for c in present:
                kept = await c.expect("lapsed", 30)
                assert (kept["match"], kept["outcome"]) == (match, "kept")
        assert 290 <= lapsed["seconds"] <= 300
        # the three who accepted wait on; the no-show is out, and refused for now
        assert waiting(srv) == 3
        error = await coded(
            absent, {"type": "queue", "preset": PRESET, "kind": "ranked"}, "queue_cooldown"
        )
        assert 0 < error["params"]["seconds"] <= 300
        # an accept for the lapsed match is refused: it is gone
        await coded(absent, {"type": "accept", "match": match}, "match_gone")
        assert waiting(srv) == 3

    run(main, 120)


def test_a_second_tab_shares_the_place_and_the_messages(serve: Servers) -> None:
    srv = serve()

    async def main() -> None:
        cookie = login_cookie(srv, "TwoTabs")
        a, b = await connect(srv, cookie), await connect(srv, cookie)
        await a.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        assert (await a.expect("queued", 30))["position"] == 1
        await b.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        for tab in (a, b):  # the place is the account's: both tabs are told
            assert (await tab.expect("queued", 30))["position"] == 1
        assert waiting(srv) == 1
        await b.send({"type": "unqueue"})
        for tab in (a, b):
            assert (await tab.expect("unqueued", 30))["reason"] == "unqueue"
        assert waiting(srv) == 0
        # a guest's second tab shares the place by presenting its queue key
        g1, g2 = await connect(srv), await connect(srv)
        await g1.send({"type": "queue", "preset": PRESET, "kind": "casual"})
        key = (await g1.expect("queued", 30))["key"]
        await g2.send({"type": "queue", "preset": PRESET, "kind": "casual", "key": key})
        assert (await g2.expect("queued", 30))["key"] == key
        assert waiting(srv) == 1
        await g2.send({"type": "unqueue"})
        assert (await g1.expect("unqueued", 30))["reason"] == "unqueue"
        assert waiting(srv) == 0

    run(main)


def test_a_dropped_connection_keeps_the_place_for_the_grace(serve: Servers) -> None:
    srv = serve("--queue-grace-seconds", "4", "--ws-join-seconds", "2")

    async def main() -> None:
        cookie = login_cookie(srv, "Dropper")
        first = await connect(srv, cookie)
        await first.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        await first.expect("queued", 30)
        # queued past --ws-join-seconds: the connection is not closed for having no room
        await asyncio.sleep(3)
        await first.send({"type": "ping"})
        await first.expect("pong", 30)
        await first.close()
        assert waiting(srv) == 1  # kept for the grace
        again = await connect(srv, cookie)
        await again.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        back = await again.expect("queued", 30)
        assert back["position"] == 1 and back["waiting"] >= 3  # the same place, the wait kept
        await again.close()
        closed = time.monotonic()
        while waiting(srv) != 0:
            assert time.monotonic() - closed < 30, "never dropped"
            await asyncio.sleep(0.1)
        assert time.monotonic() - closed >= 3.9  # not before the grace

    run(main)


def test_sitting_down_in_a_room_leaves_the_queue(serve: Servers) -> None:
    srv = serve()

    async def main() -> None:
        cookie = login_cookie(srv, "Sitter")
        queued, seated = await connect(srv, cookie), await connect(srv, cookie)
        await queued.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        await queued.expect("queued", 30)
        room = srv.create_room(players=2)["code"]
        await seated.join(room)
        assert (await queued.expect("unqueued", 30))["reason"] == "seated"
        assert waiting(srv) == 0
        # the account is at a table: another tab may not queue either
        await coded(queued, {"type": "queue", "preset": PRESET, "kind": "casual"}, "at_table")
        assert waiting(srv) == 0

    run(main)


def test_bad_queue_input_is_a_coded_error_and_leaves_nobody_queued(serve: Servers) -> None:
    srv = serve()

    async def main() -> None:
        guest = await connect(srv)
        bad = {
            "account_required": {"preset": PRESET, "kind": "ranked"},
            "bad_preset": {"preset": "mahjong-soul", "kind": "casual"},
            "bad_kind": {"preset": PRESET, "kind": "friendly"},
            "bad_tier": {"preset": PRESET, "kind": "casual", "tier": "diamond"},
            "bad_message": {"preset": PRESET, "kind": "casual", "seat": 2},
        }
        for code, fields in bad.items():
            await coded(guest, {"type": "queue", **fields}, code)
            assert waiting(srv) == 0, code
        await coded(guest, {"type": "accept", "match": "m999"}, "match_gone")
        cookie = login_cookie(srv, "Climber")
        climber = await connect(srv, cookie)
        await coded(
            climber,
            {"type": "queue", "preset": PRESET, "kind": "ranked", "tier": "phoenix"},
            "tier_too_high",
        )
        await coded(climber, {"type": "accept", "match": "m1"}, "match_gone")
        assert waiting(srv) == 0
        # a flood: the message gate refuses what is beyond the bucket; one place at most
        flood = await connect(srv, cookie)
        for _ in range(40):
            await flood.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        await flood.expect("error", 30)
        refused = [m for m in flood.messages if m["type"] == "error"]
        assert refused and all(m["code"] == "rate_limited" for m in refused)
        assert HAN.search(refused[0]["message_zh"])
        assert queue_counts(srv)["queues"] == [
            {"preset": PRESET, "kind": "ranked", "tier": "general", "waiting": 1}
        ]

    run(main)


def test_get_api_queue_counts_per_preset_kind_and_tier(serve: Servers) -> None:
    srv: ServerProcess = serve()
    assert queue_counts(srv) == {"queues": [], "waiting": 0, "tiers": TIER_NAMES}

    async def main() -> None:
        guests = [await connect(srv) for _ in range(3)]
        wanted = [(PRESET, "casual"), ("baishan", "casual"), ("baishan", "casual")]
        for g, (preset, kind) in zip(guests, wanted, strict=True):
            await g.send({"type": "queue", "preset": preset, "kind": kind})
            await g.expect("queued", 30)
        ranked = await connect(srv, login_cookie(srv, "Counted"))
        await ranked.send({"type": "queue", "preset": "baishan", "kind": "ranked"})
        await ranked.expect("queued", 30)
        assert queue_counts(srv) == {
            "queues": [
                {"preset": "baishan", "kind": "casual", "tier": "general", "waiting": 2},
                {"preset": "baishan", "kind": "ranked", "tier": "general", "waiting": 1},
                {"preset": PRESET, "kind": "casual", "tier": "general", "waiting": 1},
            ],
            "waiting": 4,
            "tiers": TIER_NAMES,
        }

    run(main)


FAIL_FIRST_ROOM = """
from laizi.server.hub import Hub
_open = Hub.open_matched_room
_calls = []
def _failing(self, *args, **kwargs):
    _calls.append(1)
    if len(_calls) == 1:
        raise RuntimeError("planted: the database refused")
    return _open(self, *args, **kwargs)
Hub.open_matched_room = _failing
"""


def test_a_match_whose_room_cant_be_made_goes_back_to_the_queue(tmp_path: Path) -> None:
    args = ("--casual-wait-seconds", "1")
    with ServerProcess(tmp_path / "db.sqlite3", args=args, prelude=FAIL_FIRST_ROOM) as srv:

        async def main() -> None:
            guest = await connect(srv)
            await guest.send({"type": "queue", "preset": PRESET, "kind": "casual"})
            await guest.expect("queued", 30)
            first = await offered(guest)
            await guest.send({"type": "accept", "match": first["match"]})
            lapsed = await guest.expect("lapsed", 30)
            assert (lapsed["match"], lapsed["outcome"]) == (first["match"], "requeued")
            assert (await guest.expect("queued", 30))["position"] == 1
            second = await offered(guest)
            assert second["match"] != first["match"]
            await guest.send({"type": "accept", "match": second["match"]})
            sent = await sent_to_room(guest)
            assert (await guest.join(sent["room"], token=sent["token"]))["seat"] == sent["seat"]
            assert waiting(srv) == 0

        run(main)


def test_the_history_is_the_databases_ranked_tables(db_url: str) -> None:
    store = Store(db_url)
    try:
        service = Accounts(store.engine, hasher=FAST_HASH)
        ids = [service.register(f"Hist{i}", "hongzhong").id for i in range(6)]
        rules = Settings.from_json(PRESET).to_json()
        tables = [("ranked", ids[:4]), ("ranked", ids[:2] + ids[4:]), ("friendly", ids[2:])]
        for n, (kind, seated) in enumerate(tables):
            room = store.create_room(f"HIST{n}", rules, {}, kind)
            for seat, account_id in enumerate(seated):
                link_seat(store.engine, room, seat, account_id)
        history = load_history(store.engine)
        a, b, c, d, e, f = ids
        assert dict(history.recent_partners(a, 20)) == {b: 2, c: 1, d: 1, e: 1, f: 1}
        assert dict(history.recent_partners(a, 1)) == {b: 1, e: 1, f: 1}
        assert dict(history.recent_partners(c, 20)) == {a: 1, b: 1, d: 1}  # not the friendly
    finally:
        store.close()


def test_serve_flags_default_to_the_match_settings_and_are_documented() -> None:
    from laizi.cli.serve import serve

    settings = MatchSettings()
    flags = {
        "casual_wait_seconds": settings.casual_wait_s,
        "accept_seconds": settings.accept_s,
        "queue_grace_seconds": settings.disconnect_grace_s,
    }
    parameters = inspect.signature(serve).parameters
    docs = (Path(__file__).resolve().parent.parent / "docs" / "server.md").read_text()
    for name, value in flags.items():
        assert parameters[name].default.default == value, name
        assert parameters[name].default.help, name
        assert f"`--{name.replace('_', '-')}`" in docs, name
