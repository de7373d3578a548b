"""The Baishan ruleset (RULES.md Part B): the object the engine asks.

No indicator and no tiles laid out; the final round (分张) starts when 18 tiles are left, or 4
once a kong was made; 报听 on a single wait locks the hand; kongs are paid on the spot; one
winner per discard, first after the discarder (the preset's ``win_priority``); nobody robs a
kong.  The answers come from this folder (:mod:`.readings`, :mod:`.settle`, :mod:`.validate`);
the hand's shape is checked first (:mod:`laizi.hand`) so the settlement runs only when a win is
possible.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from laizi import hand as shapes
from laizi.rules.baishan.readings import declarable_discards
from laizi.rules.baishan.settings import BaishanSettings
from laizi.rules.baishan.settle import (
    FANS,
    BaishanSettlement,
    kong_payments,
    public_fans,
    score,
)
from laizi.rules.baishan.validate import check_situation
from laizi.rules.melds import Meld
from laizi.rules.ruleset import (
    HandView,
    PublicSeat,
    Ruleset,
    Settlement,
    SpecialTiles,
    WinOffer,
)
from laizi.rules.situation import InputError, WinSituation
from laizi.tiles import TERMINALS_AND_HONORS, format_tile

__all__ = ["BaishanRuleset"]

SPLIT_WITH_KONG = 4
SPLIT_WITHOUT_KONG = 18
"""分张 (Part B): "如果有杠，倒数第4张牌分张。如果没杠倒数第9叠分张" — 9 stacks of two."""

REFUSALS = {
    "no_terminal": ("断幺九：手里没有幺九或字牌，不能胡", "no terminal or honor: no win"),
    "no_triplet": ("没有刻子或杠，不能胡", "no triplet or kong: no win"),
}
"""The hints' names of the settlement's refusals (Part B), in Chinese and English; both depend
on the hand alone."""

COMMON_FANS = 2
"""About how many fans a common Baishan win counts (the value model's starting point)."""
MOST_FANS = 6
"""封顶 (Part B): a loser pays at most 2^6 times the unit."""


class BaishanRuleset(Ruleset):
    """白山麻将 (Part B)."""

    game = "baishan"
    uses_indicator = False
    reserve = 0
    kong_robbable = False  # Baishan has no robbing of kongs, 抢杠 (Part B)
    settings: BaishanSettings

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        """分张: each player draws one more tile, may win with it, discards nothing."""
        return live <= (SPLIT_WITH_KONG if kongs_made else SPLIT_WITHOUT_KONG)

    def declarable_discards(self, state: HandView, seat: int) -> Sequence[int]:
        """报听 on a single wait (夹, 边, 单调) or on terminals only (Part B)."""
        player = state.players[seat]
        return declarable_discards(player.counts, player.melds)

    def why_not_declarable(self, tile: int) -> tuple[str, str]:
        name = format_tile(tile)
        return (
            f"打出 {name} 后不是夹、边、单调或只胡幺九的听牌，不能报听",
            f"after discarding {name} the hand does not wait on a single tile kind (夹, 边, "
            "单调) or on terminals only: no 报听",
        )

    @classmethod
    def refusal_reasons(cls) -> dict[str, tuple[str, str]]:
        return {**REFUSALS, **super().refusal_reasons()}

    def refused_by_the_hand(self, reason: str) -> bool:
        return reason in REFUSALS

    @classmethod
    def wins_special_shapes(cls) -> bool:
        """Seven pairs and thirteen orphans (Part B)."""
        return True

    # --- the value model --------------------------------------------------------------------
    def loss_estimate(
        self,
        winner: PublicSeat,
        loser: PublicSeat,
        dealer: int,
        *,
        discarder: bool,
        multiplier: float,
    ) -> float:
        """2^(the winner's fans + the loser's), capped at 2^6 (Part B): a common win has about
        two fans; 点炮, 报听, 坐庄 (either seat) and 立门 (the loser never opened) add one each.
        ``multiplier`` / the loser's multiplier now is a claim's effect (losing 立门 halves it)."""
        fans = COMMON_FANS + (1 if discarder else 0) + (1 if winner.declared_ready else 0)
        fans += 1 if dealer in (loser.seat, winner.seat) else 0
        fans += 1 if loser.openings == 0 else 0
        unit = float(self.settings.base)
        loss: float = unit * 2 ** min(MOST_FANS, fans) * multiplier / max(1, loser.multiplier)
        return loss

    def claim_loss_factor(self, openings: int, kong: bool) -> float:
        """立门 (concealed) is a fan the seat also counts when it loses: the first claim halves
        what it pays (Part B)."""
        return 0.5 if openings == 0 else 1.0

    def shape_waits(
        self, counts: Sequence[int], melds: Sequence[Meld], specials: SpecialTiles
    ) -> list[int]:
        """Melds and a pair, and for a closed hand seven pairs and thirteen orphans (Part B)."""
        found = super().shape_waits(counts, melds, specials)
        if melds or sum(counts) != 13:
            return found
        extra = set(found)
        odd = [t for t in range(34) if counts[t] % 2]
        if len(odd) == 1 and counts[odd[0]] < 4:  # six pairs and a single: its pair
            extra.add(odd[0])
        if all(counts[t] == 0 for t in range(34) if t not in TERMINALS_AND_HONORS):
            for t in TERMINALS_AND_HONORS:
                grown = list(counts)
                grown[t] += 1
                if shapes.thirteen_orphans(grown):
                    extra.add(t)
        return sorted(extra)

    def running_fans(self, state: HandView) -> list[list[dict[str, Any]]]:
        """报听, 立门 (not opened), 坐庄 and the fans the exposed melds show (Part B)."""
        return [
            [
                {"id": f.name, "zh": FANS[f.name][0], "en": FANS[f.name][1], "fans": f.fans}
                for f in public_fans(p.melds, p.openings, p.declared_ready, seat == state.dealer)
            ]
            for seat, p in enumerate(state.players)
        ]

    def kong_payments(
        self, state: HandView, seat: int, kind: str, tile: int
    ) -> tuple[Fraction, ...]:
        return kong_payments(self.settings.base, state.dealer, seat, kind, tile)

    # --- wins -----------------------------------------------------------------------------
    def win_offer(self, state: HandView, seat: int, tile: int, how: str) -> WinOffer | None:
        if how == "rob_kong" and not self.kong_robbable:
            return None
        player = state.players[seat]
        counts = player.counts
        if how != "self_draw":
            counts = counts[:]
            counts[tile] += 1
        if not shapes.complete(counts) and (player.melds or not _special_shape(counts)):
            return None
        settlement = score(self.situation(state, seat, tile, how))
        if not settlement.allowed:
            return None
        # The kongs were paid on the spot (``kong_payments``): the engine adds them itself.
        return WinOffer(settlement, settlement.win_payments)

    def situation(self, state: HandView, seat: int, tile: int, how: str) -> WinSituation:
        """The :class:`~laizi.rules.situation.WinSituation` of ``seat`` winning now on ``tile``."""
        players = self.scoring_hands(state, seat, tile, how)
        discard = how == "discard"
        return WinSituation(
            self.settings,
            state.dealer,
            None,
            seat,
            how,
            state.claim_from if discard else None,
            tile,
            not discard and state.after_kong,  # 杠后开: won on a replacement draw
            False,
            players,
            discard and state.after_kong,  # 杠后点炮: the discard came right after a kong
        )

    def score(self, situation: WinSituation) -> BaishanSettlement:
        """The settlement of a claimed win, kong payments included (Part B)."""
        return score(situation)

    def win_payments(self, settlement: Settlement) -> tuple[Fraction, ...]:
        """The win's own payments: the kongs were paid on the spot (``kong_payments``)."""
        assert isinstance(settlement, BaishanSettlement)  # what :meth:`score` gives
        return tuple(settlement.win_payments)

    def check_situation(self, situation: WinSituation) -> None:
        if situation.win == "rob_kong" and not self.kong_robbable:
            raise InputError("win", "Baishan has no robbing of kongs (抢杠): discard or self_draw")
        check_situation(situation)

    # --- words ----------------------------------------------------------------------------
    @classmethod
    def big_wins(cls) -> tuple[str, ...]:
        """The shapes above the plain 平胡: 飘胡, 七对, 十三幺."""
        from laizi.rules.baishan.settle import SHAPE_ORDER

        return tuple(SHAPE_ORDER[1:])

    @classmethod
    def words(cls) -> dict[str, Any]:
        """The names in :mod:`.explain` (wins, fans, factors, refusal reasons …)."""
        from laizi.rules.baishan.explain import words

        return words()


def _special_shape(counts: list[int]) -> bool:
    """Seven pairs or thirteen orphans (a closed 14-tile hand), odd counts tested first."""
    if 1 in counts or 3 in counts:
        return sum(counts[t] for t in TERMINALS_AND_HONORS) == 14 and shapes.thirteen_orphans(
            counts
        )
    return shapes.seven_pairs(counts)
