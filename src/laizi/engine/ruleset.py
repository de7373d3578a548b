"""The questions the engine asks a ruleset.  One subclass per game owns all its differences.

The engine (:mod:`laizi.engine.game`) knows the shape of a mahjong hand — deal, draw, discard,
claim, kong, lay out, the final round, the end — and nothing about any variant.  Whatever a rule
text decides (which tiles are wild or must be laid out, who may chow, when the wall ends, whether
a hand may win and what it pays, who deals next, what an escape costs) is a method here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from laizi.engine.state import HandState

__all__ = ["Ruleset", "Specials", "WinOffer"]


@dataclass(frozen=True, slots=True)
class Specials:
    """The hand's special tiles, fixed by the indicator at the deal (RULES A2–A4).

    ``lay_out``: the kinds that are laid out rather than discarded — they can never be chowed,
    punged, konged or won on (Wuhan: the must-gang tiles and the laizi).
    """

    indicator: int | None
    laizi: int | None
    pi: tuple[int, ...]
    must_gang: frozenset[int]
    lay_out: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class WinOffer:
    """A win the ruleset allows: the settlement it would pay (``payments`` four Fractions)."""

    settlement: Any
    payments: tuple[Fraction, ...]


class Ruleset(ABC):
    """Base class of the engine's rulesets.  Subclasses override the hooks below."""

    game: str = ""
    """The game's id, written into records (``"wuhan"``)."""
    settings: Any
    """The room's settings (``laizi.rules.settings.Settings``)."""

    # --- the wall -------------------------------------------------------------------------
    uses_indicator: bool = True
    """Whether a tile is turned after the deal (翻牌) to fix the special tiles."""
    reserve: int = 0
    """Tiles at the back of the wall never drawn by a normal draw (A8's 海底 reserve)."""

    def specials(self, indicator: int | None) -> Specials:
        """The special tiles of a hand with this indicator (``None`` when not used)."""
        return Specials(indicator, None, (), frozenset(), frozenset())

    @abstractmethod
    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        """Whether the next normal draw, with ``live`` drawable tiles left, opens the final round
        (each player draws once and may only win: 海底 in Wuhan, 分张 in Baishan)."""

    # --- claims ---------------------------------------------------------------------------
    def chow_allowed(self, discarder: int, claimer: int) -> bool:
        """Chow only from the previous seat (A5, Part B)."""
        return claimer == (discarder + 1) % 4

    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        """Seats in the order that settles several claims to one win (A6), discarder excluded."""
        return [(discarder + k) % 4 for k in (1, 2, 3)]

    def pass_win_locked(self) -> bool:
        """Whether passing a win bars a seat from winning until its own next draw (A6)."""
        return False

    def declarable_discards(self, state: HandState, seat: int) -> Sequence[int]:
        """The tiles ``seat``, on its turn, may discard while declaring ready (报听, Part B).

        A seat that declared is locked: from then on it only discards what it draws, claims
        nothing but a win and makes no kong.  Wuhan has no 报听: none."""
        return ()

    def kong_payments(
        self, state: HandState, seat: int, kind: str, tile: int
    ) -> tuple[Fraction, ...] | None:
        """What a kong that stands pays on the spot (Baishan, Part B): four Fractions, zero-sum,
        added to the hand's payments whatever its end; ``None`` when kongs pay nothing then
        (Wuhan: a kong is a factor of the settlement, A7)."""
        return None

    # --- wins and money -------------------------------------------------------------------
    @abstractmethod
    def win_offer(self, state: HandState, seat: int, tile: int, how: str) -> WinOffer | None:
        """The win ``seat`` could declare with ``tile`` (``how`` ∈ ``discard``, ``self_draw``,
        ``rob_kong``), or ``None`` when the rules do not allow it.  For ``self_draw`` the tile
        is already in the seat's concealed counts; for the others it is not."""

    def why_no_win(self, state: HandState, seat: int) -> str:
        """Why ``seat`` may not win now (an id for error messages, e.g. ``holds_special``)."""
        return "not_allowed"

    def drawn_payments(self, state: HandState) -> tuple[Fraction, ...]:
        """What changes hands when nobody wins (Wuhan: nothing, A8)."""
        return (Fraction(0),) * 4

    @abstractmethod
    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """Payments when ``seat`` escapes (逃跑, A9): zero-sum."""

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """Stays on a dealer win or a drawn hand, else the next seat (A9)."""
        if winner is None or winner == dealer:
            return dealer
        return (dealer + 1) % 4

    def multipliers(self, state: HandState) -> list[dict[str, Any]] | None:
        """Every seat's current multiplier with its factors, for views (``None`` if the game
        has none)."""
        return None

    def scoring_hands(self, state: HandState, seat: int, tile: int, how: str) -> tuple[Any, ...]:
        """Every seat as ``laizi.scoring.PlayerHand`` — concealed tiles (the winner's without the
        self-drawn ``tile``), melds, laid-out tiles and 报听 — for the rulesets' ``situation``."""
        from laizi.scoring import Meld, PlayerHand

        players = []
        for s, p in enumerate(state.players):
            concealed = [t for t in range(34) for _ in range(p.counts[t])]
            if s == seat and how == "self_draw":
                concealed.remove(tile)
            melds = tuple(Meld(m.kind, m.tiles, m.from_seat) for m in p.melds)
            players.append(
                PlayerHand(tuple(concealed), melds, tuple(p.laid_out), None, p.declared_ready)
            )
        return tuple(players)

    def settings_json(self) -> Any:
        """The settings as written into a record's ``start`` event."""
        return self.settings.to_json()
