"""The Baishan ruleset (RULES.md Part B) as the engine sees it.

No indicator and no tiles laid out; the final round (分张) starts when 18 tiles are left, or 4
once a kong was made; 报听 on a single wait locks the hand; kongs are paid on the spot; one
winner per discard, first after the discarder.  The answers come from the room's rules object
(:class:`laizi.rules.BaishanRules`) and the settlement from :mod:`laizi.scoring.baishan`; this
class checks the hand's shape first (:mod:`laizi.hand`) so the settlement runs only when a win
is possible.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from laizi import hand as shapes
from laizi.engine.ruleset import Ruleset, WinOffer
from laizi.rules import BaishanRules, Settings, ruleset
from laizi.rules.baishan import TERMINALS_AND_HONORS
from laizi.scoring import WinSituation

if TYPE_CHECKING:
    from laizi.engine.state import HandState

__all__ = ["BaishanRuleset"]

_SPLIT_WITH_KONG = 4
_SPLIT_WITHOUT_KONG = 18
"""分张 (Part B): "如果有杠，倒数第4张牌分张。如果没杠倒数第9叠分张" — 9 stacks of two."""


class BaishanRuleset(Ruleset):
    """白山麻将 (Part B)."""

    game = "baishan"
    uses_indicator = False
    reserve = 0

    def __init__(self, settings: Settings) -> None:
        if settings.game != "baishan":
            raise ValueError(f"not Baishan settings: game {settings.game!r}")
        self.settings = settings
        rules = ruleset(settings)
        assert isinstance(rules, BaishanRules)
        self.rules = rules

    def __repr__(self) -> str:
        return f"BaishanRuleset({self.settings!r})"

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        """分张: each player draws one more tile, may win with it, discards nothing."""
        return live <= (_SPLIT_WITH_KONG if kongs_made else _SPLIT_WITHOUT_KONG)

    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        """One winner per discard: the first in turn order after the discarder (Part B)."""
        return self.rules.claim_order(dealer, discarder)

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        return self.rules.next_dealer(dealer, winner)

    def declarable_discards(self, state: HandState, seat: int) -> Sequence[int]:
        """报听 on a single wait (夹, 边, 单调) or on terminals only (Part B)."""
        player = state.players[seat]
        return self.rules.declarable_discards(player.counts, player.melds)

    def kong_payments(
        self, state: HandState, seat: int, kind: str, tile: int
    ) -> tuple[Fraction, ...]:
        return self.rules.kong_payments(state.dealer, seat, kind, tile)

    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑: 64 × the room base, a third to each other seat (Part B)."""
        return tuple(self.rules.escape_payments(seat))

    # --- wins -----------------------------------------------------------------------------
    def win_offer(self, state: HandState, seat: int, tile: int, how: str) -> WinOffer | None:
        if how == "rob_kong":
            return None  # Baishan robs no kongs
        player = state.players[seat]
        counts = player.counts
        if how != "self_draw":
            counts = counts[:]
            counts[tile] += 1
        if not shapes.complete(counts) and (player.melds or not _special_shape(counts)):
            return None
        settlement = self.rules.score(self.situation(state, seat, tile, how))
        if not settlement.allowed:
            return None
        # The kongs were paid on the spot (``kong_payments``): the engine adds them itself.
        return WinOffer(settlement, settlement.win_payments)

    def why_no_win(self, state: HandState, seat: int) -> str:
        """The settlement's refusal reason: ``not_complete``, ``no_terminal``, ``no_triplet``."""
        if state.phase == "claim" and state.claim_tile is not None:
            tile, how = state.claim_tile, "discard"
        elif state.drawn is not None and state.turn == seat:
            tile, how = state.drawn, "self_draw"
        else:
            return "no_winning_tile"
        try:
            return self.rules.score(self.situation(state, seat, tile, how)).reason or "not_allowed"
        except ValueError:
            return "not_complete"

    def situation(self, state: HandState, seat: int, tile: int, how: str) -> WinSituation:
        """The ``laizi.scoring`` description of ``seat`` winning now with ``tile``."""
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


def _special_shape(counts: list[int]) -> bool:
    """Seven pairs or thirteen orphans (a closed 14-tile hand), odd counts tested first."""
    if 1 in counts or 3 in counts:
        return sum(counts[t] for t in TERMINALS_AND_HONORS) == 14 and shapes.thirteen_orphans(
            counts
        )
    return shapes.seven_pairs(counts)


