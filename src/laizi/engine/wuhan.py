"""The Wuhan ruleset (RULES.md Part A) as the engine sees it.

Every rule answer comes from the room's rules object, ``laizi.rules.ruleset(settings)`` (special
tiles, what may be laid out or claimed, the claim order, the dealer rule, escapes, the
settlement through ``laizi.scoring``); this class only connects it to the engine's questions,
and checks the hand's shape first (``laizi.hand``) so that the full settlement runs only when a
win is possible at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from laizi import hand as hand_shapes
from laizi.engine.ruleset import Ruleset, Specials, WinOffer
from laizi.rules import HandRules, Meld, Settings, WuhanRules, ruleset
from laizi.scoring import WinSituation

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
        rules = ruleset(settings)
        assert isinstance(rules, WuhanRules)
        self.rules = rules
        self.reserve = settings.haidi_reserve
        self._hands: dict[int, tuple[Specials, HandRules]] = {}

    def __repr__(self) -> str:
        return f"WuhanRuleset({self.settings!r})"

    # --- tiles ----------------------------------------------------------------------------
    def specials(self, indicator: int | None) -> Specials:
        """Indicator, laizi, pi and must-gang tiles (A2, A4), and what is laid out (A3, A4)."""
        assert indicator is not None
        return self._hand(indicator)[0]

    def _hand(self, indicator: int) -> tuple[Specials, HandRules]:
        found = self._hands.get(indicator)
        if found is None:
            rules = self.rules.hand_rules(indicator)
            s = rules.special
            lay_out = frozenset(t for t in range(34) if rules.may_lay_out(t))
            assert not any(rules.may_claim(t) for t in lay_out)
            specials = Specials(s.indicator, s.laizi, tuple(s.pi), frozenset(s.must_gang), lay_out)
            found = self._hands[indicator] = (specials, rules)
        return found

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        return live <= _FINAL_ROUND

    # --- claims ---------------------------------------------------------------------------
    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        """一炮单响 (A6): first from the dealer (default) or from the discarder's next seat."""
        return self.rules.claim_order(dealer, discarder)

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """坐庄 (A9): stays on a dealer win or a drawn hand, else the next seat."""
        return self.rules.next_dealer(dealer, winner)

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
        settlement = self.rules.score(self.situation(state, seat, tile, how))
        if not settlement.allowed:
            return None
        return WinOffer(settlement, tuple(settlement.payments))

    def why_no_win(self, state: HandState, seat: int) -> str:
        """The settlement's refusal reason (``holds_special``, ``not_opened``, …, A6/A10)."""
        if state.phase in ("claim", "rob") and state.claim_tile is not None:
            tile, how = state.claim_tile, "discard" if state.phase == "claim" else "rob_kong"
            if state.players[seat].win_locked:
                return "pass_win_locked"
        elif state.drawn is not None and state.turn == seat:
            tile, how = state.drawn, "self_draw"
        else:
            return "no_winning_tile"
        try:
            return self.rules.score(self.situation(state, seat, tile, how)).reason or "not_allowed"
        except ValueError:  # a hand scoring can't read (e.g. the wrong size) is simply no win
            return "not_complete"

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

    # --- money ----------------------------------------------------------------------------
    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑 (A9): the escapee pays ``escape_penalty``, split equally among the other three."""
        return tuple(self.rules.escape_payments(seat))

    def multipliers(self, state: HandState) -> list[dict[str, Any]] | None:
        """Every seat's current multiplier with its factors (A7; 003 shows them on the table)."""
        assert state.specials.indicator is not None
        rules = self._hand(state.specials.indicator)[1]
        return [
            rules.current_multiplier(
                tuple(Meld(m.kind, m.tiles, m.from_seat) for m in p.melds),
                tuple(p.laid_out),
                dealer=seat == state.dealer,
            ).to_json()
            for seat, p in enumerate(state.players)
        ]
