"""A scripted set of played matches for the tests of a player's statistics and profile
(tests/test_playerstats.py, tests/test_web_progress.py): their hands as the database keeps them,
booked as a finished match is."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from laizi.rules import Settings
from laizi.server.ratings import book_stored, link_seat
from laizi.server.store import Store
from tests.server_helpers import store_hands

WUHAN = "wuhan-hongzhong-kaikou"


def _win(seat: int, how: str, source: int | None = None) -> dict[str, Any]:
    return {"type": "win", "seat": seat, "how": how, "tile": "5m", "from": source}


def _end(winner: int | None, payments: list[Any], wins: list[str], **extra: Any) -> dict[str, Any]:
    settlement = {"allowed": True, "reason": None, "wins": wins, "payments": payments}
    reason = "drawn" if winner is None else "win"
    return {
        "type": "end",
        "reason": reason,
        "winner": winner,
        "payments": payments,
        "settlement": settlement if winner is not None else None,
        **extra,
    }


def script_matches(store: Store, ann: int, bo: int) -> None:
    """Three booked matches of Ann and Bo: a ranked and a casual Wuhan match, a friendly Baishan
    one (the browser tests of the profile read them too)."""
    # ranked: Ann at seat 0, Bo at seat 2
    room = store.create_room("RANKD1", Settings.from_json(WUHAN).to_json(), {}, "ranked")
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 2, bo)
    store_hands(
        store,
        room,
        [
            [_win(0, "self_draw"), _end(0, [60, -20, -20, -20], ["qingyise", "pengpenghu"])],
            [_win(2, "discard", 0), _end(2, [-10, 0, 10, 0], ["pinghu"])],
            [_end(None, [0, 0, 0, 0], [])],
        ],
    )
    book_stored(store.engine, room)
    # casual: Ann at seat 1; she wins on seat 3's discard, then seat 0 robs her kong
    room = store.create_room("CASUL1", Settings.from_json(WUHAN).to_json(), {}, "casual")
    link_seat(store.engine, room, 1, ann)
    exact = ["0", "100/3", "0", "-100/3"]
    store_hands(
        store,
        room,
        [
            [
                _win(1, "discard", 3),
                _end(
                    1, [float(x) for x in map(Fraction, exact)], ["qingyise"], payments_exact=exact
                ),
            ],
            [_win(0, "rob_kong", 1), _end(0, [8, -8, 0, 0], ["qiangganghu"])],
        ],
    )
    book_stored(store.engine, room)
    # friendly Baishan: Ann at seat 3 wins 飘胡
    room = store.create_room("FRIEND", Settings.from_json("baishan").to_json(), {}, "friendly")
    link_seat(store.engine, room, 3, ann)
    store_hands(store, room, [[_win(3, "self_draw"), _end(3, [-16, -16, -16, 48], ["piaohu"])]])
    book_stored(store.engine, room)
