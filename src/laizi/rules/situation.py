"""A finished hand as every game's settlement reads it (:class:`WinSituation`, :class:`PlayerHand`),
the factors and multipliers it writes, and :class:`InputError` for a hand that can't have happened.

``laizi.scoring`` reads these from ``laizi score``'s JSON; the engine builds them from the hand in
play (``Ruleset.situation``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi.rules.melds import Meld
from laizi.rules.settings import Settings
from laizi.tiles import format_tile, format_tiles

__all__ = [
    "WIN_KINDS",
    "Factor",
    "InputError",
    "Meld",
    "Multiplier",
    "PlayerHand",
    "WinSituation",
    "check_seat",
    "number_json",
]

WIN_KINDS = ("discard", "self_draw", "rob_kong")
"""How the winning tile came: on a discard, self-drawn, or robbed from an added kong (抢杠)."""


class InputError(ValueError):
    """A finished hand that can't have happened; ``field`` names the input field at fault."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def check_seat(value: object, field: str) -> int:
    """``value`` as a seat 0–3, or :class:`InputError` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise InputError(field, f"must be a seat 0–3, not {value!r}")
    return value


@dataclass(frozen=True)
class PlayerHand:
    """One seat at the end of the hand.

    ``hand`` holds the concealed tile ids (the winner's *without* the winning tile), or ``None``
    when it is not known — a loser's hand is only needed to tell whether it was ready (听牌).
    ``laid_out`` are the must-gang tiles and laizi the player laid out.  ``ready`` overrides the
    computed 听牌 for the 全求人 contract; ``declared_ready`` is Baishan's 报听.
    """

    hand: tuple[int, ...] | None = None
    melds: tuple[Meld, ...] = ()
    laid_out: tuple[int, ...] = ()
    ready: bool | None = None
    declared_ready: bool = False

    @property
    def openings(self) -> int:
        """How many times the player opened 开口 (A5)."""
        return sum(1 for m in self.melds if m.is_opening)

    def __repr__(self) -> str:
        hand = "?" if self.hand is None else format_tiles(self.hand)
        melds = " ".join(f"{m.kind}:{format_tiles(m.tiles)}" for m in self.melds)
        laid = format_tiles(self.laid_out) if self.laid_out else ""
        return f"PlayerHand({hand!r}, melds=[{melds}], laid_out={laid!r})"


@dataclass(frozen=True)
class WinSituation:
    """A claimed win, everything the settlement needs (the ``laizi score`` input)."""

    settings: Settings
    dealer: int
    indicator: int | None
    """The turned tile (Wuhan); ``None`` in Baishan, which turns none."""
    winner: int
    win: str
    from_seat: int | None
    winning_tile: int
    after_kong: bool
    haidi: bool
    players: tuple[PlayerHand, ...]
    after_kong_discard: bool = False

    def __repr__(self) -> str:
        source = "" if self.from_seat is None else f" from {self.from_seat}"
        return (
            f"WinSituation({self.settings.preset}, seat {self.winner} {self.win}{source} "
            f"on {format_tile(self.winning_tile)}, dealer {self.dealer}"
            + ("" if self.indicator is None else f", indicator {format_tile(self.indicator)}")
            + ")"
        )


@dataclass(frozen=True)
class Factor:
    """One named factor of a multiplier, e.g. ``Factor("opened", 4, 2)``: two openings, ×4."""

    name: str
    factor: Fraction
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "factor": number_json(self.factor), "count": self.count}


@dataclass(frozen=True)
class Multiplier:
    """A seat's multiplier M (A7): the product of its factors."""

    total: Fraction
    factors: tuple[Factor, ...]

    @classmethod
    def of(cls, factors: tuple[Factor, ...] | list[Factor]) -> Multiplier:
        total = Fraction(1)
        for f in factors:
            total *= f.factor
        return cls(total, tuple(factors))

    def to_json(self) -> dict[str, Any]:
        return {"total": number_json(self.total), "factors": [f.to_json() for f in self.factors]}


def number_json(value: Fraction | int) -> int | float:
    """A number as JSON shows it: whole numbers as ints, others as decimals."""
    value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


def check_hand_size(seat: int, player: PlayerHand, winner: int, field: str) -> None:
    """A seat's concealed tiles and melds make at most 14 tiles (the winner's exactly 13 without
    the winning tile, a kong counted as 3), and the winner's hand is given; else
    :class:`InputError` naming ``field``."""
    if player.hand is None:
        if seat == winner:
            raise InputError(f"{field}.hand", "the winner's hand is required")
        return
    size = len(player.hand) + 3 * len(player.melds)
    if seat == winner and size != 13:
        raise InputError(
            f"{field}.hand",
            f"the winner's hand (without the winning tile) and melds make {size} tiles, "
            "not 13 (count a kong as 3)",
        )
    if size > 14:
        raise InputError(f"{field}.hand", f"hand and melds make {size} tiles, more than 14")
