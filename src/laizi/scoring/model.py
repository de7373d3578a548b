"""The values the settlement reads and writes: a finished hand in, a :class:`Settlement` out."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from laizi.rules.melds import Meld
from laizi.rules.settings import Settings
from laizi.rules.wuhan import SpecialTiles
from laizi.tiles import format_tile, format_tiles

__all__ = [
    "WIN_KINDS",
    "Factor",
    "InputError",
    "Meld",
    "Multiplier",
    "PlayerHand",
    "Settlement",
    "WinSituation",
]

WIN_KINDS = ("discard", "self_draw", "rob_kong")
"""How the winning tile came: on a discard, self-drawn, or robbed from an added kong (抢杠)."""


class InputError(ValueError):
    """A finished hand that can't have happened; ``field`` names the input field at fault."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


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
    players: tuple[PlayerHand, PlayerHand, PlayerHand, PlayerHand]
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
        return {"name": self.name, "factor": _number(self.factor), "count": self.count}


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
        return {"total": _number(self.total), "factors": [f.to_json() for f in self.factors]}


@dataclass(frozen=True)
class Settlement:
    """The result of :func:`laizi.scoring.score`: who pays whom, and every step of why."""

    situation: WinSituation
    special: SpecialTiles
    allowed: bool
    reason: str | None
    wins: tuple[str, ...]
    hard: bool | None
    base: int | None
    multipliers: tuple[Multiplier, ...]
    raw: tuple[Fraction | None, ...]
    caps: tuple[str | None, ...]
    after_caps: tuple[Fraction | None, ...]
    """What each loser owes after caps, before a contract moves the bill (null for the winner)."""
    contract: int | None
    contract_reason: str | None
    payments: tuple[Fraction, ...]
    refused_reading: Settlement | None = field(default=None, repr=False)
    """For ``below_minimum``: the best reading's figures, to show how far it fell short."""

    def to_json(self) -> dict[str, Any]:
        """The ``laizi score --json`` object (INTERFACES.md keys, plus a few of our own)."""
        settings = self.situation.settings
        out: dict[str, Any] = {
            "allowed": self.allowed,
            "reason": self.reason,
            "wins": list(self.wins),
            "hard": self.hard,
            "base": self.base,
            "multipliers": [m.to_json() for m in self.multipliers],
            "raw": [None if r is None else _number(r) for r in self.raw],
            "caps": list(self.caps),
            "after_caps": [None if a is None else _number(a) for a in self.after_caps],
            "contract": self.contract,
            "contract_reason": self.contract_reason,
            "payments": [_number(p) for p in self.payments],
            "rules": settings.preset,
            "rules_hash": settings.short_hash(),
            "laizi": format_tile(self.special.laizi),
            "pi": [format_tile(t) for t in self.special.pi],
            "must_gang": [format_tile(t) for t in sorted(self.special.must_gang)],
        }
        if self.refused_reading is not None:
            best = self.refused_reading
            out["minimum"] = {
                "min_points": _number(settings.min_points * settings.base),
                "wins": list(best.wins),
                "hard": best.hard,
                "base": best.base,
                "raw": [None if r is None else _number(r) for r in best.raw],
            }
        return out

    def explain(self, lang: str = "en") -> str:
        """The readable table, one line per player (Chinese ``zh`` or English ``en``)."""
        from laizi.scoring.explain import explain

        return explain(self, "zh" if lang == "zh" else "en")

    def __repr__(self) -> str:
        if not self.allowed:
            return f"Settlement(refused: {self.reason})"
        wins = "+".join(self.wins)
        pays = ", ".join(_text(p) for p in self.payments)
        return f"Settlement({wins}, {'hard' if self.hard else 'soft'}, payments [{pays}])"


def _number(value: Fraction | int) -> int | float:
    value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


def _text(value: Fraction) -> str:
    from laizi.scoring.explain import number_text

    return number_text(value)
