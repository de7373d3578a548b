"""The toy game's settings: the shared ones and ``win_points``, one preset, names, limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import ClassVar

from laizi.rules.settings import MAX_AMOUNT, Limit, Settings

__all__ = ["ToySettings"]


@dataclass(frozen=True, repr=False)
class ToySettings(Settings):
    """The toy game's rules of one room."""

    win_points: Fraction
    """What each loser of a self-drawn win pays, in units (a discarder pays three times it)."""

    LIMITS: ClassVar[Mapping[str, Limit]] = {
        **Settings.LIMITS,
        "win_points": Limit(MAX_AMOUNT, 0, exclusive=True),
    }
    LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        **Settings.LABELS,
        "win_points": ("胡牌分", "Points for a win"),
    }
    CHOICE_LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        "toy": ("玩具麻将", "Toy"),
        **Settings.CHOICE_LABELS,
    }

    @classmethod
    def presets(cls) -> Mapping[str, Settings]:
        return _presets()


@cache
def _presets() -> dict[str, ToySettings]:
    toy = ToySettings(
        preset="toy",
        game="toy",
        win_priority="from_discarder",
        cap=Fraction(12),
        escape_penalty=Fraction(12),
        base=Fraction(1),
        win_points=Fraction(2),
    )
    return {"toy": toy}
