"""What a table shows that a client cannot work out without the rules: per seat its 开口 and
杠 counts, a game's running fans (Baishan: 报听, 立门, 坐庄 …), whether a discard was the tile
just drawn (摸切: public at a real table, hidden in the events), and, at a hand's end, how it was
won and every seat's melds — added to the streamed copies of events (``as_streamed``), never
to the record (they follow from it)."""

from __future__ import annotations

from typing import Any

from laizi.engine.events import TILE
from laizi.engine.state import HandState

__all__ = ["COUNT_EVENTS", "STREAM_EXTRAS", "end_details", "moqie", "seat_counts"]

COUNT_EVENTS = frozenset({"deal", "chow", "pung", "kong", "concealed_kong", "end"})
"""Events after which a seat's 开口 / 杠 count (or a running fan) may differ; also a ``draw``
from the back (it completes an added kong) and a ``discard`` with ``declare_ready`` (报听)."""

STREAM_EXTRAS = (
    "multipliers",
    "live",
    "counts",
    "fans",
    "how_won",
    "melds",
    "laid_out",
    "laizi",
    "drawn_kongs_paid",
    "moqie",
)
"""Keys the streamed copies may carry and the record never does."""


def seat_counts(state: HandState) -> list[dict[str, int]]:
    """Per seat: ``opened`` (chows, pungs, exposed kongs: 开口) and ``kongs`` (every kong)."""
    return [
        {"opened": p.openings, "kongs": sum(1 for m in p.melds if m.is_kong)} for p in state.players
    ]


def moqie(state: HandState, seat: int) -> bool:
    """Whether ``seat``'s last discard was the tile it had just drawn (摸切): from a normal or a
    replacement draw (after a kong or a tile laid out), or the dealer's 14th tile; never right
    after a chow or pung (nothing drawn).  The engine names a discard by its kind, so a discard
    of the drawn tile's kind counts, as it does for a self-drawn win."""
    player = state.players[seat]
    return bool(player.river) and len(player.river) - 1 in player.from_draw


def changes_counts(event: dict[str, Any]) -> bool:
    kind = event["type"]
    if kind in COUNT_EVENTS:
        return True
    if kind == "discard":
        return bool(event.get("declare_ready"))
    return kind == "draw" and event.get("from") == "back"


def end_details(state: HandState, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What a settlement screen needs beyond the ``end`` event: ``how_won`` (``how``, ``tile``,
    ``from``, ``kong_bloom`` 杠上花, ``last_tile`` 海底), every seat's ``melds`` and
    ``laid_out``, the ``laizi`` tile, and for a drawn hand whose kongs were paid on the spot
    ``drawn_kongs_paid``."""
    out: dict[str, Any] = {
        "melds": [[m.to_json() for m in p.melds] for p in state.players],
        "laid_out": [[TILE[t] for t in p.laid_out] for p in state.players],
        "laizi": None if state.specials.laizi is None else TILE[state.specials.laizi],
    }
    result = state.result
    reason = None if result is None else result["reason"]
    win = next((e for e in events if e["type"] == "win"), None)
    if result is not None and reason == "win" and win is not None:
        situation = getattr(result["settlement"], "situation", None)
        how = win["how"]
        out["how_won"] = {
            "how": how,
            "tile": win["tile"],
            "from": win.get("from"),
            "kong_bloom": how == "self_draw" and bool(getattr(situation, "after_kong", False)),
            "last_tile": bool(getattr(situation, "haidi", False)),
        }
    elif reason == "drawn" and any(state.kong_paid):
        out["drawn_kongs_paid"] = True  # 荒庄: the kongs were paid, nothing else
    return out
