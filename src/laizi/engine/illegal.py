"""Illegal actions: the exception, and a short reason why an action is not legal now."""

from __future__ import annotations

from laizi.engine.actions import ADDED_KONG, CHOW, CONCEALED_KONG, DISCARD, LAY_OUT, WIN, Action
from laizi.engine.events import TILE
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, HandState

__all__ = ["IllegalAction", "why_illegal"]


class IllegalAction(ValueError):
    """An action the state does not allow: ``reason`` says why, ``legal`` what was allowed."""

    def __init__(self, action: Action, reason: str, legal: list[Action]) -> None:
        self.action = action
        self.reason = reason
        self.legal = legal
        shown = ", ".join(a.notation() for a in legal) or "nothing"
        super().__init__(f"{action.notation()}: {reason}; legal: {shown}")


def why_illegal(state: HandState, action: Action) -> str:
    """A short reason an action is not legal now (for error messages)."""
    seat = action.seat
    if state.phase == OVER:
        return "the hand is over"
    acting = state.to_act()
    if seat not in acting:
        if state.phase in (CLAIM, ROB) and seat in state.decisions:
            return f"seat {seat} has already decided on this tile"
        if (
            state.phase == CLAIM
            and action.type == CHOW
            and not state.ruleset.chow_allowed(state.claim_from or 0, seat)
        ):
            return f"seat {seat} may chow only from the previous seat, not from seat " \
                f"{state.claim_from}"
        if state.phase in (CLAIM, ROB):
            return f"seat {seat} has no claim on {TILE[state.claim_tile or 0]}"
        return f"it is seat {state.turn}'s turn, not seat {seat}'s"
    player = state.players[seat]
    tile = action.tile
    if tile is not None and action.type in (DISCARD, LAY_OUT, CONCEALED_KONG, ADDED_KONG):
        if not player.counts[tile]:
            return f"seat {seat} holds no {TILE[tile]}"
        if action.type == LAY_OUT and not state.special_mask[tile]:
            return f"{TILE[tile]} is neither a must-gang tile nor the laizi"
        if action.type == CONCEALED_KONG and state.special_mask[tile]:
            return f"{TILE[tile]} can't be konged, only laid out"
        if action.type == CONCEALED_KONG:
            return f"seat {seat} holds {player.counts[tile]} {TILE[tile]}, not 4"
        if action.type == ADDED_KONG:
            return f"seat {seat} has no pung of {TILE[tile]}"
    if action.type == WIN:
        return "the rules do not allow this win"
    if action.type == CHOW and state.phase == CLAIM:
        discarder = state.claim_from if state.claim_from is not None else -1
        if not state.ruleset.chow_allowed(discarder, seat):
            return f"seat {seat} may chow only from the previous seat"
        return f"{action.notation()} is not a chow of {TILE[state.claim_tile or 0]} from the hand"
    if state.phase == FINAL:
        return "in the final round (海底) a seat may only win or pass"
    if state.phase in (CLAIM, ROB):
        return f"not a claim seat {seat} can make on {TILE[state.claim_tile or 0]}"
    return f"{action.type} is not possible now"
