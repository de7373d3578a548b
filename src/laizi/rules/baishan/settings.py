"""Baishan's room settings (RULES.md Part B): the shared ones, its one preset and its names.

A Baishan room has the settings every game has — the cap (2^6 units), the escape penalty (64
units), who wins a discard claimed twice (the first seat after the discarder) and the unit — and
no other.

>>> s = BaishanSettings.presets()["baishan"]
>>> list(s.to_json())
['preset', 'game', 'win_priority', 'cap', 'escape_penalty', 'base']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from laizi.rules.settings import Settings

__all__ = ["BaishanSettings"]


@dataclass(frozen=True, repr=False)
class BaishanSettings(Settings):
    """白山麻将's rules of one room."""

    FORMER: ClassVar[Mapping[str, Any]] = {
        "variant": "none",
        "mode": "none",
        "laizi_gang_factor": Fraction(1),
        "big_self_draw_factor": Fraction(1),
        "big_discard_factor": Fraction(1),
        "pass_win_locked": False,
        "haidi_reserve": 0,
        "golden_cap": Fraction(64),
        "sunshine_cap": Fraction(64),
        "three_suns_cap": Fraction(64),
        "min_points": Fraction(0),
    }
    """Wuhan's settings, which Baishan rooms held with these neutral values until each game had
    its own settings: still accepted with them, and hashed, so Baishan records keep their hash."""
    NOT_HERE: ClassVar[str] = "is a Wuhan setting; Baishan rooms have no such rule"
    CHOICE_LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        "baishan": ("白山麻将", "Baishan"),
        **Settings.CHOICE_LABELS,
    }

    @classmethod
    def presets(cls) -> Mapping[str, Settings]:
        return _presets()


@cache
def _presets() -> dict[str, BaishanSettings]:
    """白山麻将 (Part B): the cap 2^6 units, escape 64 units, one winner from the discarder."""
    return {
        "baishan": BaishanSettings(
            preset="baishan",
            game="baishan",
            win_priority="from_discarder",
            cap=Fraction(64),
            escape_penalty=Fraction(64),
            base=Fraction(1),
        )
    }
