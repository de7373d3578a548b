"""Wuhan's special tiles (RULES.md A2, A4): the laizi, the pi and the must-gang tiles.

>>> from laizi.tiles import parse_tile, format_tile
>>> sp = special_tiles("qipi_silai", parse_tile("5m"))
>>> format_tile(sp.laizi), [format_tile(t) for t in sp.pi], sorted(map(format_tile, sp.must_gang))
('6m', ['5m', '4m'], ['4m', '5m', '7z'])
"""

from __future__ import annotations

from functools import cache

from laizi.rules.ruleset import SpecialTiles
from laizi.tiles import EAST, GREEN, KINDS, NORTH, RED, SOUTH, WEST, WHITE, is_suited

__all__ = ["HONOR_CYCLE", "indicator_and_laizi", "special_tiles"]

HONOR_CYCLE = (EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE)
"""The honors' order for the indicator (A2): 东 南 西 北 中 发 白, then back to 东."""

_SKIPPED = {
    "hongzhong": frozenset({RED}),
    "hongzhong_facai": frozenset({RED, GREEN}),
    "qipi_silai": frozenset({RED, GREEN}),
}
"""Per variant (A1): the must-gang dragons, which the laizi skips."""


def _step(tile: int, direction: int) -> int:
    """The next (+1) or previous (−1) tile in the indicator's cycle, nothing skipped."""
    if is_suited(tile):
        suit_base = tile - tile % 9
        return suit_base + (tile % 9 + direction) % 9
    index = HONOR_CYCLE.index(tile)
    return HONOR_CYCLE[(index + direction) % len(HONOR_CYCLE)]


@cache
def special_tiles(variant: str, indicator: int) -> SpecialTiles:
    """The special tiles of ``variant`` when ``indicator`` is turned up (A1, A2, A4).

    The laizi is the tile after the indicator, skipping the variant's must-gang dragons; in
    ``qipi_silai`` the indicator and the tile before it (nothing skipped) are the pi.  The laizi
    and the must-gang tiles are laid out rather than discarded (A3, A4).
    """
    if variant not in _SKIPPED:
        raise ValueError(f"unknown variant {variant!r}")
    if not 0 <= indicator < KINDS:
        raise ValueError(f"tile id {indicator} is outside 0–33")
    skipped = _SKIPPED[variant]
    laizi = _step(indicator, +1)
    while laizi in skipped:
        laizi = _step(laizi, +1)
    pi: tuple[int, ...] = ()
    must_gang = {RED}
    if variant == "hongzhong_facai":
        must_gang.add(GREEN)
    elif variant == "qipi_silai":
        pi = (indicator, _step(indicator, -1))
        must_gang.update(pi)
    return SpecialTiles(indicator, laizi, pi, frozenset(must_gang), frozenset({laizi, *must_gang}))


def indicator_and_laizi(special: SpecialTiles) -> tuple[int, int]:
    """The indicator and the laizi of a Wuhan hand, which always has both (see special_tiles).

    >>> indicator_and_laizi(special_tiles("hongzhong", 0))
    (0, 1)
    """
    if special.indicator is None or special.laizi is None:
        raise ValueError(f"a Wuhan hand has an indicator and a laizi, not {special!r}")
    return special.indicator, special.laizi
