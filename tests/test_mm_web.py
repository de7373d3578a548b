"""The server's side of the web client's matchmaking (issue 26, item 6).

* A ranked match's summary (``GET /api/rooms/CODE/summary``, what the settlement shows at the
  match's end) gives each account's strength points and rank before and after, and the change —
  exactly as booked (fractions as exact text); a friendly room's gives none.
* 再来一局: a seat of a finished friendly room sends ``again``; the server makes one new friendly
  room with the same rules and table settings and tells every seated person its code; a second
  ``again`` gets the same room; before the end it is ``not_over``, in a ranked room
  ``not_friendly`` (both coded, in Chinese and English).
* ``GET /api/queue`` names the tiers (the lobby's match card shows their names).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from fractions import Fraction
from typing import Any

import pytest

from laizi.rules import Settings
from laizi.server.accounts import Accounts
from laizi.server.ratings import Paid, add_payments, book_match, link_seat, no_payments
from laizi.server.store import Store
from laizi.server.summary import room_summary
from tests.server_helpers import (
    FAST_HASH,
    InProcessServer,
    connect,
    open_ranked_table,
    play,
    room_info,
)

PRESET = "wuhan-hongzhong-kaikou"
FAST = {"bot_delay_ms": 0, "between_hands_ms": 0, "settlement_seconds": 0, "hands": 1}
HAN = re.compile(r"[\u3400-\u9fff]")


@pytest.fixture
def store(db_url: str):
    store = Store(db_url)
    yield store
    store.close()


def _paid(*payments: list[Fraction]) -> Paid:
    paid = no_payments()
    for payment in payments:
        add_payments(paid, payment)
    return paid


def _ranked_room(store: Store, code: str, people: list[int]) -> int:
    room = store.create_room(code, Settings.from_json(PRESET).to_json(), {}, "ranked")
    for seat, account in enumerate(people):
        link_seat(store.engine, room, seat, account)
    return room


def test_a_ranked_summary_gives_each_accounts_points_and_rank_change_exactly(
    store: Store,
) -> None:
    """Fails on the old summary (no ``standings``)."""
    service = Accounts(store.engine, hasher=FAST_HASH)
    people = [service.register(name, "hongzhong").id for name in ("Ann", "Bo", "Cy", "Di")]
    first = _ranked_room(store, "RANK01", people)
    f = Fraction
    book_match(store.engine, first, "wuhan", _paid([f(150), f(-50), f(-50), f(-50)]), 1, 1.0)
    second = _ranked_room(store, "RANK02", people)
    # Ann pays Bo 700/3 (a third never rounds): Ann 150 → −250/3, Bo −50 → 550/3
    book_match(store.engine, second, "wuhan", _paid([f(-700, 3), f(700, 3), f(0), f(0)]), 1, 2.0)
    summary = room_summary(store, "RANK02")
    assert summary is not None and summary["kind"] == "ranked"
    white, one = {"zh": "白板", "en": "White Dragon"}, {"zh": "一万", "en": "1 Character"}
    two = {"zh": "二万", "en": "2 Characters"}
    assert summary["standings"] == [
        {
            "seat": 0,
            "account": "Ann",
            "points_before": "150",
            "points_after": "-250/3",
            "delta": "-700/3",
            "rank_before": one,
            "rank_after": white,
            "next_rank": {**one, "missing": "550/3"},  # from −250/3 up to 100
        },
        {
            "seat": 1,
            "account": "Bo",
            "points_before": "-50",
            "points_after": "550/3",
            "delta": "700/3",
            "rank_before": white,
            "rank_after": one,
            "next_rank": {**two, "missing": "50/3"},
        },
        {
            "seat": 2,
            "account": "Cy",
            "points_before": "-50",
            "points_after": "-50",
            "delta": "0",
            "rank_before": white,
            "rank_after": white,
            "next_rank": {**one, "missing": "150"},
        },
        {
            "seat": 3,
            "account": "Di",
            "points_before": "-50",
            "points_after": "-50",
            "delta": "0",
            "rank_before": white,
            "rank_after": white,
            "next_rank": {**one, "missing": "150"},
        },
    ]
    friendly = store.create_room("FRND01", Settings.from_json(PRESET).to_json(), {}, "friendly")
    link_seat(store.engine, friendly, 0, people[0])
    book_match(store.engine, friendly, "wuhan", _paid([f(9), f(-3), f(-3), f(-3)]), 1, 3.0)
    plain = room_summary(store, "FRND01")
    assert plain is not None and plain["kind"] == "friendly" and plain["standings"] == []


async def _coded(client: Any, message: dict[str, Any], code: str) -> None:
    await client.send(message)
    error = await client.expect("error", 30)
    assert error["code"] == code, error
    assert error["message"] and HAN.search(error["message_zh"]), error


def test_again_makes_one_new_friendly_room_with_the_same_settings_for_the_seated(
    db_url: str,
) -> None:
    """Fails on the old server (``again`` is ``bad_message``)."""
    with InProcessServer(db_url) as srv:
        room = srv.create_room(PRESET, players=2, **FAST)
        code = room["code"]

        async def main() -> None:
            ann, bo, watcher = await connect(srv), await connect(srv), await connect(srv)
            await ann.join(code, name="Ann", minor=2)
            await _coded(ann, {"type": "again"}, "not_over")
            await bo.join(code, name="Bo", minor=2)
            await watcher.join(code, spectate=True, minor=2)
            rng = random.Random(26)
            await asyncio.gather(play(ann, rng), play(bo, rng))
            await ann.send({"type": "again"})
            told = [await c.expect("again", 30) for c in (ann, bo)]
            assert told[0] == told[1]
            new = told[0]["room"]
            assert told[0] == {"type": "again", "room": new, "from": code, "seat": ann.seat}
            assert new != code
            await bo.send({"type": "again"})  # the same room, told to the asker only
            assert (await bo.expect("again", 30))["room"] == new
            await _coded(watcher, {"type": "again"}, "not_seated")
            assert not [m for m in watcher.messages if m["type"] == "again"]
            await ann.close()
            await bo.close()
            await watcher.close()

        asyncio.run(asyncio.wait_for(main(), 120))
        old, made = room_info(srv, code), room_info(srv, new_code(srv))
        assert made["kind"] == "friendly" and made["status"] == "waiting"
        assert made["rules"] == old["rules"] and made["table"] == old["table"]
        assert made["table"]["players"] == 2 and made["table"]["hands"] == 1


def new_code(srv: InProcessServer) -> str:
    """The one rematch the hub made (its ``again`` map)."""
    [made] = srv.call(lambda: list(srv.hub.again.values()))
    return str(made)


def test_a_ranked_room_has_no_rematch_but_queueing_again(db_url: str) -> None:
    with InProcessServer(db_url) as srv:
        code, cookies = open_ranked_table(srv, PRESET, ["Ann", "Bo", "Cy", "Di"], **FAST)

        async def main() -> None:
            ann = await connect(srv, cookies[0])
            await ann.join(code, minor=2)
            await _coded(ann, {"type": "again"}, "not_friendly")
            await ann.close()

        asyncio.run(asyncio.wait_for(main(), 60))


def test_get_api_queue_names_the_tiers(db_url: str) -> None:
    with InProcessServer(db_url) as srv:
        status, body = srv.get("/api/queue")
        assert status == 200
        tiers = json.loads(body)["tiers"]
        assert [(t["id"], t["zh"], t["en"]) for t in tiers] == [
            ("general", "一般", "General"),
            ("upper", "上级", "Upper"),
            ("expert", "特上", "Expert"),
            ("phoenix", "凤凰", "Phoenix"),
        ]
