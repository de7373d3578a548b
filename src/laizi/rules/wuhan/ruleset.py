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

if TYPE_CHECKING:
    from laizi.rules.melds import Meld
    from laizi.rules.situation import Multiplier

__all__ = ["WuhanRuleset"]

FINAL_ROUND = 4
"""A8: the 海底 round starts when the live wall (the reserve left aside) is down to 4 tiles."""


class WuhanRuleset(Ruleset):
    """武汉麻将: 红中癞子杠, 红中发财杠, 七皮四赖 × 开口翻 / 口口翻, as the settings say."""

    game = "wuhan"
    uses_indicator = True

    def __init__(self, settings: WuhanSettings) -> None:
        if settings.game != self.game:
            raise ValueError(f"not Wuhan settings: game {settings.game!r}")
        self.settings = settings
        self.reserve = settings.haidi_reserve
        self._multiplier_memo: dict[tuple[object, ...], Multiplier] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.settings!r})"

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
    def words(cls) -> dict[str, Any]:
        """The names in :mod:`.explain` (wins, fans, factors, refusal reasons …)."""
        from laizi.rules.wuhan.explain import words

        return words()
