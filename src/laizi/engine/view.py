"""What one seat — or a spectator — may see of a hand and of its events (Part C).

A seat sees its own concealed hand and everything public: rivers, melds (another seat's
concealed kong shows no faces), laid-out tiles, the indicator, laizi and pi, how many tiles are
left, hand sizes, running totals and every player's current multiplier with its factors.  It
never sees another seat's concealed tiles or the wall.  A spectator sees the public part only.
Once the hand is over every hand is shown (the ``end`` event reveals them anyway).
"""

from __future__ import annotations

from typing import Any

from laizi.engine.events import TILE, number
from laizi.engine.game import legal_actions
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState
from laizi.tiles import format_tiles

__all__ = ["seat_event", "view"]


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
                "openings": p.openings,
                "declared_ready": p.declared_ready,
            }
        )
    multipliers = state.ruleset.multipliers(state)
    if multipliers is not None:
        for entry, m in zip(players, multipliers, strict=True):
            entry["multiplier"] = m
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
        out["drawn"] = (
            TILE[state.drawn] if state.drawn is not None and state.turn == seat else None
        )
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
