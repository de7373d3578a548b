"""The queue's tiers (RULES.md Part B, after the Ranks paragraph): groups of the rank ladder.

========  ==========  ==============  =================
id        zh          en              ranks
========  ==========  ==============  =================
general   一般        General         白板 – 三万
upper     上级        Upper           四万 – 七万
expert    特上        Expert          八万 – 北风
phoenix   凤凰        Phoenix         红中 and up
========  ==========  ==============  =================

A tier is named by the rank it starts from; the ladder itself (points per rank) is
:data:`laizi.rules.RANKS`, never retyped here.  A player may queue in their own tier or any tier
below it (:func:`allowed`).

>>> tier_of(0).zh, tier_of(1000).en, tier_of(799_999).id, tier_of(800_000).id
('一般', 'Upper', 'expert', 'phoenix')
>>> [t.id for t in allowed(20_000)]
['general', 'upper', 'expert']
>>> [r.zh for r in TIERS[1].ranks]
['四万', '五万', '六万', '七万']
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from laizi.rules import RANKS, Rank, rank_for

__all__ = ["TIERS", "Tier", "allowed", "find_tier", "make_tiers", "tier_of"]


@dataclass(frozen=True, slots=True)
class Tier:
    """A tier of the queue: the ranks from ``ranks[0]`` up to the next tier's first rank."""

    id: str
    zh: str
    en: str
    ranks: tuple[Rank, ...]

    @property
    def floor(self) -> int:
        """The strength points from which this tier starts."""
        return self.ranks[0].points


def make_tiers(starts: tuple[tuple[str, str, str, str], ...]) -> tuple[Tier, ...]:
    """Tiers from ``(id, zh, en, first rank's zh name)``, lowest first; the first must start at
    the ladder's first rank and the starts must climb the ladder.

    >>> make_tiers((("a", "甲", "A", "四万"),))
    Traceback (most recent call last):
    ...
    ValueError: the lowest tier must start at 白板
    """
    index = {rank.zh: i for i, rank in enumerate(RANKS)}
    firsts: list[int] = []
    for tier_id, _, _, first in starts:
        if first not in index:
            raise ValueError(f"tier {tier_id!r}: no rank is named {first!r}")
        firsts.append(index[first])
    if not firsts or firsts[0] != 0:
        raise ValueError(f"the lowest tier must start at {RANKS[0].zh}")
    if any(b <= a for a, b in pairwise(firsts)):
        raise ValueError("each tier must start at a higher rank than the one below")
    if len({s[0] for s in starts}) != len(starts):
        raise ValueError("two tiers have one id")
    ends = [*firsts[1:], len(RANKS)]
    return tuple(
        Tier(tier_id, zh, en, RANKS[lo:hi])
        for (tier_id, zh, en, _), lo, hi in zip(starts, firsts, ends, strict=True)
    )


TIERS: tuple[Tier, ...] = make_tiers(
    (
        ("general", "一般", "General", "白板"),
        ("upper", "上级", "Upper", "四万"),
        ("expert", "特上", "Expert", "八万"),
        ("phoenix", "凤凰", "Phoenix", "红中"),
    )
)
"""The default tiers, lowest first (RULES.md Part B)."""


def tier_of(points: int | Fraction, tiers: tuple[Tier, ...] = TIERS) -> Tier:
    """The tier of these strength points' rank (below zero: the lowest)."""
    rank = rank_for(points)
    found = tiers[0]
    for tier in tiers:
        if rank.points >= tier.floor:
            found = tier
    return found


def allowed(points: int | Fraction, tiers: tuple[Tier, ...] = TIERS) -> tuple[Tier, ...]:
    """The tiers a player with these points may queue in: their own and every one below."""
    own = tier_of(points, tiers)
    return tiers[: tiers.index(own) + 1]


def find_tier(tier_id: str, tiers: tuple[Tier, ...] = TIERS) -> Tier | None:
    """The tier with this id, or None."""
    return next((t for t in tiers if t.id == tier_id), None)
