"""The strength-point ladder (实力积分等级, RULES.md Part B): 白板 … 雀神, for the ratings.

>>> rank_for(1234).zh, rank_for(1234).en
('四万', '4 Characters')
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

__all__ = ["RANKS", "Rank", "rank_for"]


class Rank(NamedTuple):
    """A rank of the strength-point ladder (实力积分等级): from ``points`` upwards."""

    points: int
    zh: str
    en: str


RANKS: tuple[Rank, ...] = (
    Rank(0, "白板", "White Dragon"),
    Rank(100, "一万", "1 Character"),
    Rank(200, "二万", "2 Characters"),
    Rank(500, "三万", "3 Characters"),
    Rank(1000, "四万", "4 Characters"),
    Rank(2000, "五万", "5 Characters"),
    Rank(5000, "六万", "6 Characters"),
    Rank(10000, "七万", "7 Characters"),
    Rank(20000, "八万", "8 Characters"),
    Rank(50000, "九万", "9 Characters"),
    Rank(80000, "东风", "East Wind"),
    Rank(100000, "西风", "West Wind"),
    Rank(200000, "南风", "South Wind"),
    Rank(500000, "北风", "North Wind"),
    Rank(800000, "红中", "Red Dragon"),
    Rank(1200000, "发财", "Green Dragon"),
    Rank(2000000, "雀神", "Mahjong God"),
)
"""The ladder of Part B, lowest first (the order is 002's: 东, 西, 南, 北)."""


def rank_for(points: int | Fraction) -> Rank:
    """The rank of an accumulated strength-point total; below 0 is still 白板."""
    found = RANKS[0]
    for rank in RANKS:
        if points >= rank.points:
            found = rank
    return found
