"""The state of one hand in play: compact, mutable, cheap to copy.

Concealed hands are 34-entry count vectors; melds are small tuples; the wall is an immutable
tuple read from two ends (``front`` for normal draws, ``back`` for replacement draws).  The
state machine that changes it is :mod:`laizi.engine.game`; nothing here knows a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from laizi.engine.actions import Action
from laizi.engine.events import HandResult
from laizi.rules.melds import Meld
from laizi.rules.ruleset import Ruleset, SpecialTiles, WinOffer
from laizi.tiles import format_tiles, tiles_of

__all__ = [
    "CLAIM",
    "FINAL",
    "OVER",
    "PHASES",
    "ROB",
    "TURN",
    "HandState",
    "PlayerState",
]

TURN = "turn"
"""The seat to act holds 3n+2 tiles: discard, kong, lay out or (after a draw) win."""
CLAIM = "claim"
"""Seats decide on a discard: win, pung, kong, chow or pass."""
ROB = "rob"
"""Seats decide whether to rob an added kong (抢杠): win or pass."""
FINAL = "final"
"""The final round (海底): the seat that just drew may only win or pass."""
OVER = "over"
PHASES = (TURN, CLAIM, ROB, FINAL, OVER)


@dataclass(slots=True)
class PlayerState:
    counts: list[int]
    melds: list[Meld] = field(default_factory=list)
    laid_out: list[int] = field(default_factory=list)
    river: list[int] = field(default_factory=list)
    """Discards in order (claimed ones included; ``claimed`` lists their indices)."""
    claimed: list[int] = field(default_factory=list)
    from_draw: list[int] = field(default_factory=list)
    """Indices in ``river`` of the discards of the tile just drawn (摸切): its kind was the
    drawn tile's (a normal or a replacement draw; never after a claim, which draws nothing)."""
    openings: int = 0
    """Chows, pungs and exposed kongs (开口, A5); an added kong is not a new one."""
    win_locked: bool = False
    declared_ready: bool = False
    """报听 (Part B): the hand is locked — discard the drawn tile, claim only a win, no kong."""

    def copy(self) -> PlayerState:
        return PlayerState(
            self.counts[:],
            self.melds[:],
            self.laid_out[:],
            self.river[:],
            self.claimed[:],
            self.from_draw[:],
            self.openings,
            self.win_locked,
            self.declared_ready,
        )

    def concealed(self) -> list[int]:
        return tiles_of(self.counts)

    def size(self) -> int:
        return sum(self.counts)


@dataclass(slots=True)
class HandState:
    """Everything about one hand.  Read it through :mod:`laizi.engine.view` when showing it."""

    ruleset: Ruleset
    dealer: int
    wall: tuple[int, ...]
    front: int
    back: int
    specials: SpecialTiles
    players: list[PlayerState]
    seed: bytes | None = None
    commitment: str | None = None
    hand_number: int = 0
    scores: tuple[Fraction, ...] = (Fraction(0),) * 4
    """Running totals of the match before this hand (shown in views and the start event)."""

    phase: str = TURN
    turn: int = 0
    """The seat whose turn it is (the discarder during a claim window)."""
    drawn: int | None = None
    """The tile the turn seat just drew, or None after a claim (no self-drawn win then)."""
    after_kong: bool = False
    """The drawn tile is a replacement draw (杠上花 if it wins).  It stays set through the claim
    window of the discard that follows, so a ruleset can tell a discard right after a kong
    (Baishan's 杠后点炮)."""
    kongs_made: int = 0
    """Kongs so far, every tile laid out included (each took a replacement draw, A5)."""
    final_draws_left: int = 0
    claim_tile: int | None = None
    claim_from: int | None = None
    options: dict[int, list[Action]] = field(default_factory=dict)
    """Seats still to decide in a claim / rob window, with their legal claims (pass implied)."""
    decisions: dict[int, Action] = field(default_factory=dict)
    offers: dict[tuple[int, str], WinOffer | None] = field(default_factory=dict)
    """Win offers valid at the current decision point, keyed by (seat, how)."""
    special_mask: tuple[bool, ...] = ()
    """Per kind: laid out instead of discarded (must-gang tiles and the laizi)."""
    result: HandResult | None = None
    events: int = 0
    """Events produced so far (the index the next event gets in the record)."""
    legal_cache: tuple[int, int, list[Action]] | None = None
    """The last ``legal_actions`` answer: (events, seat, actions); ``apply`` checks against it."""
    kong_paid: tuple[Fraction, ...] = (Fraction(0),) * 4
    """What kongs have paid on the spot so far (``Ruleset.kong_payments``; Baishan)."""

    def __repr__(self) -> str:
        hands = " ".join(format_tiles(p.concealed()) for p in self.players)
        return (
            f"HandState({self.ruleset.game} hand {self.hand_number}, dealer {self.dealer}, "
            f"{self.phase} seat {self.turn}, {self.wall_left} in the wall, hands {hands})"
        )

    @property
    def live(self) -> int:
        """Tiles a normal draw may still take (the wall minus the reserve, A8)."""
        return self.back - self.front - self.ruleset.reserve

    @property
    def wall_left(self) -> int:
        return self.back - self.front

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def to_act(self) -> list[int]:
        """Seats with a decision to make now, in seat order."""
        if self.phase in (TURN, FINAL):
            return [self.turn]
        if self.phase in (CLAIM, ROB):
            return sorted(seat for seat in self.options if seat not in self.decisions)
        return []

    def copy(self) -> HandState:
        """An independent copy (the wall, specials and ruleset are shared: they never change)."""
        return HandState(
            self.ruleset,
            self.dealer,
            self.wall,
            self.front,
            self.back,
            self.specials,
            [p.copy() for p in self.players],
            self.seed,
            self.commitment,
            self.hand_number,
            self.scores,
            self.phase,
            self.turn,
            self.drawn,
            self.after_kong,
            self.kongs_made,
            self.final_draws_left,
            self.claim_tile,
            self.claim_from,
            {seat: opts[:] for seat, opts in self.options.items()},
            dict(self.decisions),
            dict(self.offers),
            self.special_mask,
            None if self.result is None else self.result.copy(),
            self.events,
            None,
            self.kong_paid,
        )

    def tiles_in_play(self) -> list[int]:
        """Per kind, every copy accounted for (wall, hands, melds, rivers, laid out, indicator):
        4 each when the hand is consistent."""
        counts = [0] * 34
        for tile in self.wall[self.front : self.back]:
            counts[tile] += 1
        if self.specials.indicator is not None:
            counts[self.specials.indicator] += 1
        for p in self.players:
            for kind, n in enumerate(p.counts):
                counts[kind] += n
            for meld in p.melds:
                for tile in meld.tiles:
                    counts[tile] += 1
            for tile in p.laid_out:
                counts[tile] += 1
            for index, tile in enumerate(p.river):
                if index not in p.claimed:
                    counts[tile] += 1
        robbed = self.result is not None and self.result.get("how") == "rob_kong"
        if self.claim_tile is not None and (self.phase == ROB or robbed):
            counts[self.claim_tile] += 1  # the added-kong tile, on the table or robbed
        return counts
