"""What one seat — or a spectator — may see of a hand and of its events (Part C).

A seat sees its own concealed hand and everything public: rivers, melds (another seat's
concealed kong shows no faces), laid-out tiles, the indicator, laizi and pi, how many tiles are
left, hand sizes, running totals and every player's current multiplier with its factors.  It
never sees another seat's concealed tiles or the wall.  A spectator sees the public part only.
Once the hand is over every hand is shown (the ``end`` event reveals them anyway).

The multipliers are public: they are computed from the dealer, the melds (a concealed kong counts
×4 whatever its tile, so its hidden face changes nothing) and the tiles laid out, all of which
every seat sees.  :func:`as_streamed` adds them to the events that change them, and the tiles a
normal draw may still take (``live``: the wall minus the 海底 reserve) to the deal and each draw,
so a client shows the ruleset's numbers (the settlement's own code) and computes none itself.
"""

from __future__ import annotations

from typing import Any

import msgspec

from laizi.engine.events import (
    TILE,
    AnyEvent,
    Claim,
    ConcealedKong,
    Deal,
    Draw,
    KongPaid,
    Pass,
    Start,
    number,
)
from laizi.engine.game import legal_actions
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState
from laizi.engine.table_data import changes_counts, end_details, moqie, seat_counts
from laizi.tiles import format_tiles

__all__ = [
    "MULTIPLIER_EVENTS",
    "as_streamed",
    "live_multipliers",
    "seat_event",
    "seat_view",
    "view",
]

MULTIPLIER_EVENTS = frozenset({"deal", "chow", "pung", "kong", "concealed_kong", "lay_out", "end"})
"""Events after which a seat's multiplier may differ: the deal (the dealer), a meld, a tile laid
out, the end (the settlement's own multipliers); also a ``discard`` that lays a tile out and a
``draw`` from the back (it completes an added kong nobody robbed)."""


def view(state: HandState, seat: int | None = None) -> dict[str, Any]:
    """The JSON-ready view of ``seat`` (0–3), or of a spectator when ``seat`` is None."""
    specials = state.specials
    players = []
    for s, p in enumerate(state.players):
        melds = []
        for meld in p.melds:
            shown = meld.to_json()
            if meld.kind == "concealed_kong" and s != seat and state.phase != OVER:
                shown["tiles"] = None  # 暗杠 lies face down
            melds.append(shown)
        players.append(
            {
                "seat": s,
                "hand_size": p.size(),
                "melds": melds,
                "laid_out": [TILE[t] for t in p.laid_out],
                "discards": [TILE[t] for t in p.river],
                "claimed": list(p.claimed),
                "moqie": list(p.from_draw),  # 摸切: indices of discards of the tile just drawn
                "openings": p.openings,
                "declared_ready": p.declared_ready,
                "opened": p.openings,
                "kongs": sum(1 for m in p.melds if m.is_kong),
            }
        )
    multipliers = live_multipliers(state)
    if multipliers is not None:
        for entry, m in zip(players, multipliers, strict=True):
            entry["multiplier"] = m
    fans = state.ruleset.running_fans(state)
    if fans is not None:
        for entry, f in zip(players, fans, strict=True):
            entry["fans"] = f
    out: dict[str, Any] = {
        "seat": seat,
        "game": state.ruleset.game,
        "hand": state.hand_number,
        "dealer": state.dealer,
        "phase": state.phase,
        "turn": state.turn,
        # Who may claim a discard is private (it tells what they hold): only whose turn it is.
        "to_act": state.to_act() if state.phase in (TURN, FINAL) else [],
        "indicator": None if specials.indicator is None else TILE[specials.indicator],
        "laizi": None if specials.laizi is None else TILE[specials.laizi],
        "pi": [TILE[t] for t in specials.pi],
        "must_gang": [TILE[t] for t in sorted(specials.must_gang)],
        "tiles_left": state.wall_left,
        "live": max(state.live, 0),
        "scores": [number(x) for x in state.scores],
        "kong_payments": [number(x) for x in state.kong_paid],
        "commitment": state.commitment,
        "players": players,
    }
    if state.phase in (CLAIM, ROB) and state.claim_tile is not None:
        out["claim"] = {"tile": TILE[state.claim_tile], "from": state.claim_from}
    if seat is not None:
        own = state.players[seat]
        out["concealed"] = format_tiles(own.concealed())
        out["drawn"] = TILE[state.drawn] if state.drawn is not None and state.turn == seat else None
        out["legal"] = [a.to_json() for a in legal_actions(state, seat)]
    if state.phase == OVER and state.result is not None:
        result = state.result
        out["result"] = {
            "reason": result["reason"],
            "winner": result["winner"],
            "payments": [number(x) for x in result["payments"]],
            "hands": [format_tiles(p.concealed()) for p in state.players],
            "seed": None if state.seed is None else state.seed.hex(),
        }
    return out


def live_multipliers(state: HandState) -> list[dict[str, Any]] | None:
    """Every seat's multiplier with its factors now, or None in a game without multipliers.

    During the hand: the ruleset's standing multipliers (A7: openings, kongs, tiles laid out, the
    dealer's ×2).  Once a win is settled: the settlement's multipliers, the numbers that were paid
    (the dealer's ×2 then sits on each loser when the dealer won).
    """
    if state.phase == OVER and state.result is not None:
        settlement = state.result.get("settlement")
        if settlement is not None:
            paid = settlement.to_json().get("multipliers")
            if paid is not None:
                return list(paid)
    return state.ruleset.multipliers(state)


def _changes_multipliers(event: dict[str, Any]) -> bool:
    kind = event["type"]
    if kind in MULTIPLIER_EVENTS:
        return True
    if kind == "discard":
        return bool(event.get("lay_out"))
    return kind == "draw" and event.get("from") == "back"


def as_streamed(state: HandState, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` (one decision's, just applied to ``state``) as a table streams them: the last
    one that may change a multiplier carries ``multipliers`` (every seat's, as
    :func:`live_multipliers` gives them; none in a game without multipliers), the last ``deal`` or
    ``draw`` carries ``live`` (tiles a normal draw may still take, as in the view), a
    ``discard`` (not one laying a tile out) carries ``moqie``: whether it was the tile just drawn.

    The record itself never carries them (they follow from it); copies of those events do.

    >>> from laizi.engine import make_ruleset, new_hand
    >>> from laizi.engine.events import encode_all
    >>> state, first = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), dealer=2, seed=bytes(32))
    >>> record = encode_all(first)
    >>> shown = as_streamed(state, record)
    >>> [e["type"] for e in shown], [m["total"] for m in shown[-1]["multipliers"]]
    (['start', 'deal'], [1, 1, 2, 1])
    >>> shown[-1]["live"], "multipliers" in record[-1] or "live" in record[-1]
    (72, False)
    """
    last_change = last_draw = last_count = end = None
    for i, event in enumerate(events):
        if _changes_multipliers(event):
            last_change = i
        if event["type"] in ("deal", "draw"):
            last_draw = i
        if changes_counts(event):
            last_count = i
        if event["type"] == "end":
            end = i
    extra: dict[int, dict[str, Any]] = {}
    if last_change is not None:
        multipliers = live_multipliers(state)
        if multipliers is not None:
            extra[last_change] = {"multipliers": multipliers}
    if last_draw is not None:
        extra.setdefault(last_draw, {})["live"] = max(state.live, 0)
    if last_count is not None:  # 开口 / 杠 counts and running fans (engine/table_data.py)
        extra.setdefault(last_count, {})["counts"] = seat_counts(state)
        fans = state.ruleset.running_fans(state)
        if fans is not None:
            extra[last_count]["fans"] = fans
    if end is not None:
        extra.setdefault(end, {}).update(end_details(state, events))
    for i, event in enumerate(events):
        if event["type"] == "discard" and not event.get("lay_out"):
            # 摸切 (engine/table_data.py): a decision discards at most once, its tile is the
            # seat's last in the river.
            extra.setdefault(i, {})["moqie"] = moqie(state, event["seat"])
    if not extra:
        return events
    return [{**e, **extra[i]} if i in extra else e for i, e in enumerate(events)]


def seat_event(event: dict[str, Any], seat: int | None = None) -> dict[str, Any] | None:
    """What ``seat`` (None: a spectator) may be told of one event, or None for nothing at all.

    Another seat's drawn tile, its starting hand and its concealed kong's tile (also in the
    ``kong_paid`` event that follows it) are hidden; so
    are the decisions in a claim window (``claim``, ``pass``: they tell what a seat holds) —
    the claim that wins shows as its own event.  The wall of a scripted record is never shown.
    The ``end`` event reveals everything anyway.
    """
    kind = event["type"]
    own = event.get("seat") == seat and seat is not None
    if kind in ("claim", "pass") and not own:
        return None
    if kind == "start" and "wall" in event:
        return {k: v for k, v in event.items() if k != "wall"}
    if kind == "deal":
        hands = [h if s == seat else None for s, h in enumerate(event["hands"])]
        return {**event, "hands": hands}
    if kind in ("draw", "concealed_kong") and not own:
        return {k: v for k, v in event.items() if k != "tile"}
    if kind == "kong_paid" and event.get("kind") == "concealed_kong" and not own:
        # the payment is public, the concealed kong's tile is not (its amount may still tell a
        # 大杠 of 1m/1p/1s: paying on the spot makes that public, as at a real table)
        return {k: v for k, v in event.items() if k != "tile"}
    return event


def _changed(event: AnyEvent, **fields: Any) -> AnyEvent:
    """A copy of ``event`` with these fields changed (typed here: the compiled build's analysis
    sees msgspec as ``Any``)."""
    copy: AnyEvent = msgspec.structs.replace(event, **fields)
    return copy


def seat_view(event: AnyEvent, seat: int | None = None) -> AnyEvent | None:
    """:func:`seat_event` on a typed event (what the engine returns): the same hiding, read
    through the event's fields; ``encode`` of the answer is ``seat_event`` of the record line.

    >>> seat_view(Draw(seat=1, tile="5m", from_="front"), 2)
    Draw(seat=1, tile=None, from_='front', final=False)
    """
    if isinstance(event, (Claim, Pass)):
        return event if event.seat == seat else None
    if isinstance(event, Start):
        return event if event.wall is None else _changed(event, wall=None)
    if isinstance(event, Deal):
        return _changed(event, hands=[h if s == seat else None for s, h in enumerate(event.hands)])
    if isinstance(event, (Draw, ConcealedKong)) and event.seat != seat:
        return _changed(event, tile=None)
    if isinstance(event, KongPaid) and event.kind == "concealed_kong" and event.seat != seat:
        return _changed(event, tile=None)  # the payment is public, the tile not
    return event
