"""The Wuhan ruleset (RULES.md Part A): the object the engine asks.

Its answers come from this folder: the special tiles (:mod:`.specials`), the readings of a win
(:mod:`.readings`), the settlement (:mod:`.settle`) and the input checks (:mod:`.validate`).  The
hand's shape is checked first (:mod:`laizi.hand`) so that the full settlement runs only when a
win is possible at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from laizi import hand as hand_shapes
from laizi.rules.ruleset import HandView, Ruleset, SpecialTiles, WinOffer
from laizi.rules.situation import WinSituation
from laizi.rules.wuhan.readings import holds_must_gang, shapeless_family
from laizi.rules.wuhan.settings import WuhanSettings
from laizi.rules.wuhan.settle import Settlement, current_multiplier, score
from laizi.rules.wuhan.specials import special_tiles
from laizi.rules.wuhan.validate import check_situation
from laizi.tiles import is_suited

if TYPE_CHECKING:
    from laizi.rules.melds import Meld
    from laizi.rules.ruleset import PublicSeat
    from laizi.rules.situation import Multiplier

__all__ = ["WuhanRuleset"]

FINAL_ROUND = 4
"""A8: the 海底 round starts when the live wall (the reserve left aside) is down to 4 tiles."""

REFUSALS = {
    "below_minimum": ("未达起胡点数", "below the table's minimum to win"),
    "two_laizi_small": ("手上两个或以上癞子，不能胡小胡", "two or more laizi: no small win"),
    "not_opened": ("没有开口，不能胡", "never opened: no win"),
    "holding_must_gang": (
        "手上有必须杠出的牌（红中/发财/癞子皮），不能胡",
        "holding a must-gang tile: no win",
    ),
}
"""The hints' names of the settlement's refusals (A3, A4, A6, A10), in Chinese and English."""
HINT_NAMES = {"holds_special": "holding_must_gang", "two_laizi": "two_laizi_small"}
"""The settlement's refusal ids that the hints name differently (the rest keep their id)."""
HAND_REFUSALS = frozenset({"not_opened", "holding_must_gang"})
"""Refusals that depend on the hand alone: never opened (A6), a must-gang tile held (A4)."""

CONTRACT_CHANCE = 0.3
"""How likely a third opening given to a seat showing one suit makes it a 清一色 (三句包)."""


class WuhanRuleset(Ruleset):
    """武汉麻将: 红中癞子杠, 红中发财杠, 七皮四赖 × 开口翻 / 口口翻, as the settings say."""

    game = "wuhan"
    uses_indicator = True
    settings: WuhanSettings

    def __init__(self, settings: WuhanSettings) -> None:
        super().__init__(settings)
        self.reserve = settings.haidi_reserve
        self._multiplier_memo: dict[tuple[object, ...], Multiplier] = {}

    # --- tiles ----------------------------------------------------------------------------
    def specials(self, indicator: int | None) -> SpecialTiles:
        """Indicator, laizi, pi and must-gang tiles (A2, A4), and what is laid out (A3, A4)."""
        assert indicator is not None
        return special_tiles(self.settings.variant, indicator)

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        return live <= FINAL_ROUND

    # --- claims ---------------------------------------------------------------------------
    def pass_win_locked(self) -> bool:
        """过胡 (A6): as the room's ``pass_win_locked`` says."""
        return bool(self.settings.pass_win_locked)

    # --- wins -----------------------------------------------------------------------------
    @classmethod
    def refusal_reasons(cls) -> dict[str, tuple[str, str]]:
        return {**REFUSALS, **super().refusal_reasons()}

    def hint_reason(self, reason: str) -> str:
        return HINT_NAMES.get(reason, reason)

    def refused_by_the_hand(self, reason: str) -> bool:
        return reason in HAND_REFUSALS

    @classmethod
    def has_wild_tiles(cls) -> bool:
        """The laizi (A3)."""
        return True

    def win_offer(self, state: HandView, seat: int, tile: int, how: str) -> WinOffer | None:
        player = state.players[seat]
        # Cheap refusals first (A6): never opened, or a must-gang tile held (A4).
        if not player.openings:
            return None
        counts = player.counts
        if how != "self_draw":
            counts = counts[:]
            counts[tile] += 1
        specials = state.specials
        if holds_must_gang(counts, specials.must_gang):
            return None
        if not hand_shapes.complete(counts, specials.laizi) and not shapeless_family(
            counts, player.melds, specials.laizi
        ):
            return None
        settlement = score(self.situation(state, seat, tile, how))
        if not settlement.allowed:
            return None
        return WinOffer(settlement, tuple(settlement.payments))

    def shape_waits(
        self, counts: Sequence[int], melds: Sequence[Meld], specials: SpecialTiles
    ) -> list[int]:
        """The common shapes, and 乱风 / 乱将 (A6): a hand of one family takes any tile of it."""
        found = set(super().shape_waits(counts, melds, specials))
        if not shapeless_family(counts, melds, specials.laizi):
            return sorted(found)  # a tile more never makes a hand of one family
        for kind in range(34):
            if kind not in found and counts[kind] < 4:
                grown = list(counts)
                grown[kind] += 1
                if shapeless_family(grown, melds, specials.laizi):
                    found.add(kind)
        return sorted(found)

    def situation(self, state: HandView, seat: int, tile: int, how: str) -> WinSituation:
        """The :class:`~laizi.rules.situation.WinSituation` of ``seat`` winning now on ``tile``."""
        players = self.scoring_hands(state, seat, tile, how)
        from_seat = None if how == "self_draw" else state.claim_from
        assert state.specials.indicator is not None
        return WinSituation(
            self.settings,
            state.dealer,
            state.specials.indicator,
            seat,
            how,
            from_seat,
            tile,
            how == "self_draw" and state.after_kong,
            state.phase == "final",
            players,
        )

    def score(self, situation: WinSituation) -> Settlement:
        """The settlement of a claimed win (A7–A10); ``.allowed`` is the win check."""
        return score(situation)

    def check_situation(self, situation: WinSituation) -> None:
        check_situation(situation)

    # --- the value model --------------------------------------------------------------------
    def must_open_to_win(self) -> bool:
        """A6: a hand that never opened (开口) does not win."""
        return True

    def loss_estimate(
        self,
        winner: PublicSeat,
        loser: PublicSeat,
        dealer: int,
        *,
        discarder: bool,
        multiplier: float,
    ) -> float:
        """A7: the unit × the winner's multiplier × the loser's × 2 from the discarder, × 1.5 for
        a common win's own factors; at most the cap (A9)."""
        factor = 2.0 if discarder else 1.0
        raw = float(self.settings.base) * winner.multiplier * multiplier * factor * 1.5
        return min(raw, float(self.settings.cap * self.settings.base))

    def deal_in_loss(
        self,
        winner: PublicSeat,
        loser: PublicSeat,
        dealer: int,
        tile: int,
        *,
        ready: bool,
        threat: float,
        chance: float,
    ) -> float:
        """The discard's loss with the contracts (A9): feeding a 全求人 (the winner holds one
        tile) while not ready pays for all three losers; so may a third opening given to a seat
        whose melds show one suit (三句包, :data:`CONTRACT_CHANCE`)."""
        cost = super().deal_in_loss(
            winner, loser, dealer, tile, ready=ready, threat=threat, chance=chance
        )
        if winner.hand_size == 1 and not ready:
            cost *= 3
        if winner.openings == 2 and is_suited(tile) and winner.meld_suits == {tile // 9}:
            loss = self.loss_estimate(
                winner, loser, dealer, discarder=False, multiplier=loser.multiplier
            )
            cost += CONTRACT_CHANCE * threat * 3 * loss
        return cost

    def claim_loss_factor(self, openings: int, kong: bool) -> float:
        """A7: the first opening doubles a seat's multiplier (口口翻: every one), and an exposed
        kong doubles it again."""
        factor = 1.0
        if self.settings.mode == "koukou" or openings == 0:
            factor *= 2.0
        if kong:
            factor *= 2.0
        return factor

    # --- money ----------------------------------------------------------------------------
    def seat_multiplier(
        self, specials: SpecialTiles, melds: Sequence[Meld], laid_out: Sequence[int], dealer: bool
    ) -> Multiplier:
        """A seat's multiplier during play with its factors (A7; shown on the table).

        Memoised: the standing factors depend only on the kinds of the melds (not their tiles
        or order), on which laid-out tiles are laizi, pi or other, and on the dealer.
        """
        key = (
            specials.laizi,
            specials.pi,
            dealer,
            tuple(sorted(m.kind for m in melds)),
            tuple(sorted(laid_out)),
        )
        found = self._multiplier_memo.get(key)
        if found is None:
            found = current_multiplier(self.settings, specials, melds, laid_out, dealer=dealer)
            if len(self._multiplier_memo) > 50_000:
                self._multiplier_memo.clear()
            self._multiplier_memo[key] = found
        return found

    # --- words ----------------------------------------------------------------------------
    @classmethod
    def big_wins(cls) -> tuple[str, ...]:
        """The big wins 大胡 of RULES.md A6 (base 10 each)."""
        from laizi.rules.wuhan.readings import BIG_WINS

        return tuple(BIG_WINS)

    @classmethod
    def words(cls) -> dict[str, Any]:
        """The names in :mod:`.explain` (wins, fans, factors, refusal reasons …)."""
        from laizi.rules.wuhan.explain import words

        return words()
