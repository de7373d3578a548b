"""Events: the JSON-ready dicts a hand produces, one record line each (docs/engine.md).

>>> TILE[33], number(Fraction(75, 2)), number(Fraction(4))
('7z', 37.5, 4)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from laizi.tiles import format_tile

__all__ = ["TILE", "Event", "number", "sequence_text"]

Event = dict[str, Any]
TILE = tuple(format_tile(t) for t in range(34))
"""Tile notation by id, looked up rather than formatted on the hot path."""


def number(value: Fraction | int) -> int | float:
    """A point amount for JSON: an integer when whole, else a decimal (exact for 1/2^k)."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def sequence_text(tiles: tuple[int, ...] | list[int]) -> str:
    """Tiles of one suit in their own order: ``(2, 3, 4) -> '345m'``."""
    return "".join(TILE[t][0] for t in tiles) + TILE[tiles[0]][1]
