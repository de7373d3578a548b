"""The Wuhan ruleset (RULES.md Part A) as the engine sees it.

Every answer about tiles comes from ``laizi.rules`` (special tiles from the indicator) and every
answer about winning and money from ``laizi.scoring``; this class only connects them to the
engine's questions, and checks the hand's shape first (``laizi.hand``) so that the full
evaluation runs only when a win is possible at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from laizi import hand as hand_shapes
from laizi.engine.ruleset import Ruleset, Specials, WinOffer
from laizi.rules import Meld, Settings, special_tiles
from laizi.rules.wuhan import claim_order, next_dealer
from laizi.scoring import PlayerHand, WinSituation, escape_payments, score
from laizi.scoring import multipliers as current_multipliers

if TYPE_CHECKING:
    from laizi.engine.state import HandState, TableMeld

__all__ = ["WuhanRuleset"]

_HONOR_KIND = tuple(t >= 27 for t in range(34))
_TWO_FIVE_EIGHT_KIND = tuple(t < 27 and t % 9 in (1, 4, 7) for t in range(34))
_FINAL_ROUND = 4
"""A8: the 海底 round starts when the live wall is down to the reserve plus 4 tiles."""


class WuhanRuleset(Ruleset):
    """武汉麻将: 红中癞子杠, 红中发财杠, 七皮四赖 × 开口翻 / 口口翻, as the settings say."""

    game = "wuhan"
    uses_indicator = True

    def __init__(self, settings: Settings) -> None:
        if settings.game != "wuhan":
            raise ValueError(f"not Wuhan settings: game {settings.game!r}")
        self.settings = settings
        self.reserve = settings.haidi_reserve
        self._specials: dict[int, Specials] = {}

    def __repr__(self) -> str:
        return f"WuhanRuleset({self.settings!r})"

    # --- tiles ----------------------------------------------------------------------------
    def specials(self, indicator: int | None) -> Specials:
        """Indicator, laizi, pi and must-gang tiles (A2, A4), from ``laizi.rules``."""
        assert indicator is not None
        found = self._specials.get(indicator)
        if found is None:
            s = special_tiles(self.settings.variant, indicator)
            found = Specials(s.indicator, s.laizi, tuple(s.pi), frozenset(s.must_gang))
            self._specials[indicator] = found
        return found

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        return live <= _FINAL_ROUND

    # --- claims ---------------------------------------------------------------------------
    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        """一炮单响 (A6): first from the dealer (default) or from the discarder's next seat."""
        return claim_order(self.settings.win_priority, dealer, discarder)

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """坐庄 (A9): stays on a dealer win or a drawn hand, else the next seat."""
        return next_dealer(dealer, winner)

    def pass_win_locked(self) -> bool:
        return bool(self.settings.pass_win_locked)

    # --- wins -----------------------------------------------------------------------------
    def win_offer(self, state: HandState, seat: int, tile: int, how: str) -> WinOffer | None:
        player = state.players[seat]
        # Cheap refusals first (A6): never opened, or a must-gang tile held (A4).
        if not player.openings:
            return None
        counts = player.counts
        if how != "self_draw":
            counts = counts[:]
            counts[tile] += 1
        specials = state.specials
        for t in specials.must_gang:
            if counts[t]:
                return None
        if not hand_shapes.complete(counts, specials.laizi) and not self._any_shape(
            counts, player.melds, specials.laizi
        ):
            return None
        settlement = score(self.situation(state, seat, tile, how))
        if not settlement.allowed:
            return None
        return WinOffer(settlement, tuple(settlement.payments))  # type: ignore[arg-type]

    @staticmethod
    def _any_shape(counts: list[int], melds: list[TableMeld], laizi: int | None) -> bool:
        """风一色 / 将一色 take any shape at all (A6): all honors, or all 2/5/8 — a held laizi may
        stand for either (A3), so it is left out of the test."""
        for family in (_HONOR_KIND, _TWO_FIVE_EIGHT_KIND):
            if all(family[m.tiles[0]] for m in melds if m.kind != "chow") and all(
                family[t] or t == laizi for t in range(34) if counts[t]
            ) and not any(m.kind == "chow" for m in melds):
                return True
        return False

    def situation(self, state: HandState, seat: int, tile: int, how: str) -> WinSituation:
        """The ``laizi.scoring`` description of ``seat`` winning now with ``tile``."""
        players = []
        for s, p in enumerate(state.players):
            concealed = [t for t in range(34) for _ in range(p.counts[t])]
            if s == seat and how == "self_draw":
                concealed.remove(tile)
            players.append(
                PlayerHand(
                    tuple(concealed),
                    tuple(Meld(m.kind, m.tiles, m.from_seat) for m in p.melds),
                    tuple(p.laid_out),
                )
            )
        from_seat = None if how == "self_draw" else state.claim_from
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
            tuple(players),
        )

    # --- money ----------------------------------------------------------------------------
    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑 (A9): the escapee pays ``escape_penalty``, split equally among the other three."""
        return tuple(escape_payments(self.settings, seat))

    def multipliers(self, state: HandState) -> list[dict[str, Any]] | None:
        """Every seat's current multiplier with its factors (A7; 003 shows them on the table)."""
        players = tuple(
            PlayerHand(
                None,
                tuple(Meld(m.kind, m.tiles, m.from_seat) for m in p.melds),
                tuple(p.laid_out),
            )
            for p in state.players
        )
        assert state.specials.indicator is not None
        found = current_multipliers(self.settings, state.specials.indicator, players, state.dealer)
        return [m.to_json() for m in found]
