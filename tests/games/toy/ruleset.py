"""The toy game's ruleset and settlement: what the engine, the bots and ``laizi score`` ask."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi import hand as shapes
from laizi.i18n import Lang, pick
from laizi.numbers import number_text
from laizi.rules.ruleset import HandView, Ruleset, WinOffer
from laizi.rules.situation import (
    InputError,
    WinSituation,
    check_hand_size,
    check_seat,
    number_json,
)
from laizi.tiles import count_vector
from tests.games.toy.settings import ToySettings

__all__ = ["ToyRuleset", "ToySettlement", "score"]

FINAL_ROUND = 4
"""The last round (each seat draws once more and may only win) starts with 4 tiles left."""


@dataclass(frozen=True)
class ToySettlement:
    """A toy win: allowed when the hand is four melds and a pair; who pays what."""

    allowed: bool
    reason: str | None
    payments: tuple[Fraction, ...]
    wins: tuple[str, ...] = ("toy_win",)

    def to_json(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "reason": self.reason,
            "wins": list(self.wins),
            "payments": [number_json(p) for p in self.payments],
        }

    def explain(self, lang: Lang = "zh") -> str:
        head = pick(lang, "玩具麻将", "Toy mahjong")
        if not self.allowed:
            return head + pick(
                lang, "：不能胡（不是四组一对）", ": no win (not four melds and a pair)"
            )
        paid = " · ".join(
            pick(lang, f"{seat}家 {number_text(p)}", f"seat {seat} {number_text(p)}")
            for seat, p in enumerate(self.payments)
        )
        return f"{head}: {paid}"


def score(situation: WinSituation) -> ToySettlement:
    """The settlement: a self-draw costs each loser ``win_points`` units, a discard costs the
    discarder three times that; nobody pays more than the cap."""
    settings = situation.settings
    if not isinstance(settings, ToySettings):
        raise TypeError(f"not toy settings: game {settings.game!r}")
    winner = situation.players[situation.winner]
    counts = count_vector([*(winner.hand or ()), situation.winning_tile], limit=None)
    if not shapes.complete(counts):
        return ToySettlement(False, "not_complete", (Fraction(0),) * 4)
    unit, cap = settings.base, settings.cap * settings.base
    paid = [Fraction(0)] * 4
    for seat in range(4):
        if seat == situation.winner:
            continue
        if situation.win == "self_draw":
            paid[seat] = -min(settings.win_points * unit, cap)
        elif seat == situation.from_seat:
            paid[seat] = -min(3 * settings.win_points * unit, cap)
    paid[situation.winner] = -sum(paid, Fraction(0))
    return ToySettlement(True, None, tuple(paid))


class ToyRuleset(Ruleset):
    """The toy game: plain tiles, any complete hand wins, one winner from the discarder."""

    game = "toy"
    uses_indicator = False
    reserve = 0
    settings: ToySettings

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        return live <= FINAL_ROUND

    def win_offer(self, state: HandView, seat: int, tile: int, how: str) -> WinOffer | None:
        counts = state.players[seat].counts
        if how != "self_draw":
            counts = counts[:]
            counts[tile] += 1
        if not shapes.complete(counts):
            return None
        settlement = self.score(self.situation(state, seat, tile, how))
        return WinOffer(settlement, settlement.payments) if settlement.allowed else None

    def situation(self, state: HandView, seat: int, tile: int, how: str) -> WinSituation:
        return WinSituation(
            self.settings,
            state.dealer,
            None,
            seat,
            how,
            None if how == "self_draw" else state.claim_from,
            tile,
            how == "self_draw" and state.after_kong,
            state.phase == "final",
            self.scoring_hands(state, seat, tile, how),
        )

    def score(self, situation: WinSituation) -> ToySettlement:
        return score(situation)

    def check_situation(self, situation: WinSituation) -> None:
        """A toy hand that can have happened: no indicator, nothing laid out, the winner's
        13 tiles, a discard from another seat."""
        check_seat(situation.dealer, "dealer")
        winner = check_seat(situation.winner, "winner")
        if situation.indicator is not None:
            raise InputError("indicator", "the toy game turns no indicator: leave it out")
        if situation.win not in ("discard", "self_draw", "rob_kong"):
            raise InputError(
                "win", f"must be discard, self_draw or rob_kong, not {situation.win!r}"
            )
        if situation.win == "self_draw" and situation.from_seat is not None:
            raise InputError("from", "a self-drawn win comes from nobody; leave 'from' out")
        if situation.win != "self_draw" and (
            situation.from_seat is None or check_seat(situation.from_seat, "from") == winner
        ):
            raise InputError("from", "required: another seat, the one that lost the tile")
        for seat, player in enumerate(situation.players):
            field = f"players[{seat}]"
            if player.laid_out:
                raise InputError(f"{field}.laid_out", "the toy game lays out no tiles")
            for index, meld in enumerate(player.melds):
                self.check_meld_source(seat, meld, f"{field}.melds[{index}].from")
            check_hand_size(seat, player, winner, field)
