"""Events: the JSON-ready dicts a hand produces, one record line each (docs/engine.md).

>>> TILE[33], number(Fraction(75, 2)), number(Fraction(4))
('7z', 37.5, 4)
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from typing import Any

from laizi.tiles import format_tile

__all__ = ["TILE", "Event", "hand_digest", "number", "sequence_text"]

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


def hand_digest(events: list[Event]) -> str:
    """The link of a match's hash chain: SHA-256 (hex) of a finished hand's whole record, each
    event as JSON with sorted keys and no spaces (Chinese kept as UTF-8), one per line.  The next
    hand's ``start`` event carries it as ``previous`` (docs/engine.md), so a record can't be
    changed once the next hand has begun without breaking the link every seat was sent.

    >>> hand_digest([{"type": "start"}])[:16]
    '6fdae08916eb0c47'
    """
    text = "".join(
        json.dumps(e, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
        for e in events
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
