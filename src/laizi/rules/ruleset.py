"""One object per room that answers the engine's rule questions (STYLE.md: the engine asks, it
never special-cases a variant by name).

>>> from laizi.rules import preset
>>> from laizi.tiles import parse_tile, format_tile
>>> rules = ruleset(preset("wuhan-qipi-kaikou"))
>>> hand = rules.hand_rules(parse_tile("5m"))
>>> pi = parse_tile("4m")
>>> format_tile(hand.special.laizi), hand.may_claim(pi), hand.must_lay_out(pi)
('6m', False, True)
>>> rules.claim_order(dealer=0, discarder=2)
(0, 1, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from laizi.rules import baishan
from laizi.rules.melds import Meld
from laizi.rules.settings import Settings
from laizi.rules.wuhan import SpecialTiles, claim_order, next_dealer, special_tiles, winning_tiles

if TYPE_CHECKING:
    from laizi.scoring.baishan import BaishanSettlement
    from laizi.scoring.model import Multiplier, Settlement, WinSituation

__all__ = ["BaishanRules", "HandRules", "WuhanRules", "ruleset"]


@dataclass(frozen=True)
class WuhanRules:
    """Wuhan's answers for one room's settings (RULES.md Part A)."""

    settings: Settings

    def hand_rules(self, indicator: int) -> HandRules:
        """The rules of one hand, once its indicator is turned up (A2, A4)."""
        return HandRules(self.settings, special_tiles(self.settings.variant, indicator))

    def claim_order(self, dealer: int, discarder: int) -> tuple[int, ...]:
        """一炮单响: who wins a discard (or robs a kong) that several claim, first first (A6)."""
        return claim_order(self.settings.win_priority, dealer, discarder)

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """坐庄 (A9): ``winner`` None for a drawn hand."""
        return next_dealer(dealer, winner)

    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑 (A9): the escaper pays the penalty, the others share it."""
        from laizi.scoring.escape import escape_payments

        return escape_payments(self.settings, seat)

    def score(self, situation: WinSituation) -> Settlement:
        """The settlement of a claimed win (A7–A10); ``.allowed`` is the win check."""
        from laizi.scoring.settle import score

        return score(situation)

    def check_situation(self, situation: WinSituation) -> None:
        """Raise ``InputError`` (naming the field) for a hand that can't have happened."""
        from laizi.scoring.validate import check_situation

        check_situation(situation)


@dataclass(frozen=True)
class HandRules:
    """The questions that depend on the hand's special tiles (laizi, pi, must-gang tiles)."""

    settings: Settings
    special: SpecialTiles

    def may_claim(self, tile: int) -> bool:
        """Can this tile be chowed, punged, konged or won on when discarded?  Not the laizi, not a
        must-gang tile: discarding either lays it out (A3, A4)."""
        return tile != self.special.laizi and tile not in self.special.must_gang

    def must_lay_out(self, tile: int) -> bool:
        """A must-gang tile 红中/发财/癞子皮: while held, the player can't win (A4)."""
        return tile in self.special.must_gang

    def may_lay_out(self, tile: int) -> bool:
        """Tiles a player may lay out on its own turn (each followed by a replacement draw)."""
        return tile == self.special.laizi or tile in self.special.must_gang

    def winning_tiles(self, concealed: Sequence[int], melds: Sequence[Meld]) -> list[int]:
        """The kinds that would complete a 3n+1 hand into an allowed win, minimum aside."""
        return winning_tiles(concealed, melds, self.special)

    def current_multiplier(
        self, melds: Sequence[Meld], laid_out: Sequence[int], *, dealer: bool = False
    ) -> Multiplier:
        """A seat's multiplier during play, for table views."""
        from laizi.scoring.settle import current_multiplier

        return current_multiplier(self.settings, self.special, melds, laid_out, dealer=dealer)


@dataclass(frozen=True)
class BaishanRules:
    """Baishan's answers for one room's settings (RULES.md Part B).

    >>> from laizi.rules import preset
    >>> rules = ruleset(preset("baishan"))
    >>> rules.claim_order(dealer=0, discarder=2), rules.rank_for(90000).zh
    ((3, 0, 1), '东风')
    """

    settings: Settings

    def claim_order(self, dealer: int, discarder: int) -> tuple[int, ...]:
        """One winner per discard: the first in turn order after the discarder (Part B)."""
        return claim_order(self.settings.win_priority, dealer, discarder)

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """Stays on a dealer win or a drawn hand, else the next seat (Part B)."""
        return next_dealer(dealer, winner)

    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑: 64 × the room base, shared by the other three (Part B)."""
        from laizi.scoring.escape import escape_payments

        return escape_payments(self.settings, seat)

    def kong_payments(self, dealer: int, seat: int, kind: str, tile: int) -> tuple[Fraction, ...]:
        """What a kong pays on the spot (Part B)."""
        return baishan.kong_payments(self.settings.base, dealer, seat, kind, tile)

    def winning_tiles(
        self, concealed: Sequence[int], melds: Sequence[baishan.MeldLike]
    ) -> list[int]:
        """The kinds that complete a 3n+1 hand into an allowed win."""
        return baishan.winning_tiles(concealed, melds)

    def declarable_discards(
        self, concealed: Sequence[int], melds: Sequence[baishan.MeldLike]
    ) -> list[int]:
        """报听: the discards after which a 3n+2 hand may declare ready."""
        return baishan.declarable_discards(concealed, melds)

    def rank_for(self, points: int | Fraction) -> baishan.Rank:
        """The strength-point rank (白板 … 雀神)."""
        return baishan.rank_for(points)

    def score(self, situation: WinSituation) -> BaishanSettlement:
        """The settlement of a claimed win, kong payments included (Part B)."""
        from laizi.scoring.baishan import score_baishan

        return score_baishan(situation)

    def check_situation(self, situation: WinSituation) -> None:
        from laizi.scoring.baishan import check_baishan

        check_baishan(situation)


_RULES: dict[str, type[WuhanRules] | type[BaishanRules]] = {
    "wuhan": WuhanRules,
    "baishan": BaishanRules,
}


def ruleset(settings: Settings) -> WuhanRules | BaishanRules:
    """The rules object for a room's settings: Wuhan's (Part A) or Baishan's (Part B)."""
    try:
        return _RULES[settings.game](settings)
    except KeyError:
        raise ValueError(f"no rules for game {settings.game!r}") from None
