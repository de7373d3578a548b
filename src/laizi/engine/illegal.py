"""Illegal actions: the exception, and a short reason why an action is not legal now.

>>> from laizi.engine import make_ruleset, new_hand
>>> state, _ = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), 0, seed=bytes(32))
>>> why_illegal(state, Action(2, "discard", 0))
"it is seat 0's turn, not seat 2's"
>>> why_illegal(state, Action(2, "discard", 0), "zh")
'现在轮到座位 0，不是座位 2'
"""

from __future__ import annotations

from laizi.engine.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DECLARE_READY,
    DISCARD,
    LAY_OUT,
    WIN,
    Action,
)
from laizi.engine.events import TILE
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState

__all__ = ["IllegalAction", "why_illegal"]


class IllegalAction(ValueError):
    """An action the state does not allow: ``reason`` says why, ``legal`` what was allowed."""

    def __init__(self, action: Action, reason: str, legal: list[Action]) -> None:
        self.action = action
        self.reason = reason
        self.legal = legal
        shown = ", ".join(a.notation() for a in legal) or "nothing"
        super().__init__(f"{action.notation()}: {reason}; legal: {shown}")


def why_illegal(state: HandState, action: Action, lang: str = "en") -> str:
    """A short reason an action is not legal now (for error messages), in ``en`` or ``zh``."""
    zh, en = _reason(state, action)
    return zh if lang == "zh" else en


def _reason(state: HandState, action: Action) -> tuple[str, str]:
    seat = action.seat
    if state.phase == OVER:
        return "本局已经结束", "the hand is over"
    claim = TILE[state.claim_tile] if state.claim_tile is not None else "?"
    if seat not in state.to_act():
        if state.phase in (CLAIM, ROB) and seat in state.decisions:
            return f"座位 {seat} 对这张牌已经表态", f"seat {seat} has already decided on this tile"
        if (
            state.phase == CLAIM
            and action.type == CHOW
            and not state.ruleset.chow_allowed(state.claim_from or 0, seat)
        ):
            return (
                f"座位 {seat} 只能吃上家的牌，不能吃座位 {state.claim_from} 的",
                f"seat {seat} may chow only from the previous seat, not from seat "
                f"{state.claim_from}",
            )
        if state.phase in (CLAIM, ROB) and action.type == WIN and seat != state.claim_from:
            why = state.ruleset.why_no_win(state, seat)
            return (
                f"座位 {seat} 不能和 {claim}（{why}）",
                f"seat {seat} may not win on {claim} ({why})",
            )
        if state.phase in (CLAIM, ROB):
            return f"座位 {seat} 对 {claim} 无牌可要", f"seat {seat} has no claim on {claim}"
        late = _late_win(state, seat) if action.type == WIN else None
        if late is not None:
            return late
        return (
            f"现在轮到座位 {state.turn}，不是座位 {seat}",
            f"it is seat {state.turn}'s turn, not seat {seat}'s",
        )
    found = _tile_reason(state, action)
    if found is not None:
        return found
    if action.type == WIN:
        if state.phase == TURN and state.drawn is None:
            return "吃碰之后只能打牌，不能自摸", "after a claim a seat discards: no tile was drawn"
        why = state.ruleset.why_no_win(state, seat)
        return f"规则不允许这样和牌（{why}）", f"the rules do not allow this win ({why})"
    if action.type == CHOW and state.phase == CLAIM:
        return (
            f"{action.notation()} 不是用手牌吃 {claim} 的顺子",
            f"{action.notation()} is not a chow of {claim} from the hand",
        )
    if state.phase == FINAL:
        return "海底时只能和牌或过", "in the final round (海底) a seat may only win or pass"
    if state.phase in (CLAIM, ROB):
        return (
            f"座位 {seat} 对 {claim} 不能这样要牌",
            f"not a claim seat {seat} can make on {claim}",
        )
    return f"现在不能 {action.type}", f"{action.type} is not possible now"


def _tile_reason(state: HandState, action: Action) -> tuple[str, str] | None:
    seat = action.seat
    tile = action.tile
    kinds = (DISCARD, LAY_OUT, CONCEALED_KONG, ADDED_KONG, DECLARE_READY)
    if tile is None or action.type not in kinds:
        return None
    name = TILE[tile]
    player = state.players[seat]
    held = player.counts[tile]
    if not held:
        return f"座位 {seat} 手里没有 {name}", f"seat {seat} holds no {name}"
    if state.ruleset.hand_locked(state, seat):
        drawn = "?" if state.drawn is None else TILE[state.drawn]
        return (
            f"座位 {seat} 已报听，牌已锁定：只能打出摸到的 {drawn}",
            f"seat {seat} declared ready: the hand is locked, it may only discard the tile it "
            f"drew ({drawn})",
        )
    if action.type == DECLARE_READY:
        return state.ruleset.why_not_declarable(tile)
    if action.type == LAY_OUT and not state.special_mask[tile]:
        return (
            f"{name} 既不是要杠的牌也不是癞子",
            f"{name} is neither a must-gang tile nor the laizi",
        )
    if action.type == CONCEALED_KONG and state.special_mask[tile]:
        return f"{name} 不能杠，只能亮出", f"{name} can't be konged, only laid out"
    if action.type == CONCEALED_KONG:
        return f"座位 {seat} 只有 {held} 张 {name}", f"seat {seat} holds {held} {name}, not 4"
    if action.type == ADDED_KONG:
        return f"座位 {seat} 没有 {name} 的碰", f"seat {seat} has no pung of {name}"
    return None


def _late_win(state: HandState, seat: int) -> tuple[str, str] | None:
    """A win claimed on the discard before the current draw: nobody asked ``seat`` because it
    had no claim; say why, as of that discard."""
    turn = state.turn
    discarder = (turn - 1) % 4
    river = state.players[discarder].river
    if (
        state.phase != TURN
        or state.drawn is None
        or state.after_kong
        or seat in (turn, discarder)
        or not river
        or len(river) - 1 in state.players[discarder].claimed
    ):
        return None
    tile = river[-1]
    probe = state.copy()  # the table as it was when the discard was on it
    probe.players[turn].counts[state.drawn] -= 1
    probe.front -= 1
    probe.phase, probe.claim_tile, probe.claim_from, probe.drawn = CLAIM, tile, discarder, None
    why = state.ruleset.why_no_win(probe, seat)
    name = TILE[tile]
    return (
        f"座位 {seat} 不能和座位 {discarder} 打的 {name}（{why}），座位 {turn} 已经摸牌",
        f"seat {seat} may not win on seat {discarder}'s {name} ({why}); seat {turn} has drawn "
        "since",
    )
