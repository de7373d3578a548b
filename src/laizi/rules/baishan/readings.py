"""Baishan's readings of a winning hand (RULES.md Part B): what a winning hand is, and 报听.

No wild tiles, no indicator.  A hand wins when it is complete — pair and four melds, seven pairs
(七对) or thirteen orphans (十三幺) — holds a terminal or an honor somewhere (不断幺九) and, unless
it is seven pairs or thirteen orphans, at least one triplet or kong.

>>> from laizi.tiles import count_vector, parse_tiles, format_tile
>>> v = evaluate(count_vector(parse_tiles("111m234p567p789s55z")), ())
>>> v.allowed, [r.shape for r in v.readings]
(True, ['pinghu'])
>>> evaluate(count_vector(parse_tiles("234m234p567p345s55s")), ()).reason
'no_terminal'
>>> [format_tile(t) for t in winning_tiles(count_vector(parse_tiles("111m234p567p79s55z")), ())]
['8s']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from laizi import hand as shapes
from laizi.rules.melds import Meld
from laizi.tiles import FIRST_HONOR, HONORS, TERMINALS, TERMINALS_AND_HONORS

__all__ = [
    "BaishanReading",
    "BaishanVerdict",
    "declarable_discards",
    "evaluate",
    "may_declare_ready",
    "winning_tiles",
]


@dataclass(frozen=True, slots=True)
class BaishanReading:
    """One way to read a winning hand.

    ``shape``: ``pinghu`` (pair + four melds, at least one triplet), ``piaohu`` (飘胡: every meld
    a triplet or kong), ``qidui`` (seven pairs) or ``shisanyao`` (thirteen orphans).
    ``chows`` / ``triplets``: the lowest tile of each concealed sequence / each concealed
    triplet of this reading (the table melds are not repeated here); ``pair`` its pair.
    """

    shape: str
    chows: tuple[int, ...] = ()
    triplets: tuple[int, ...] = ()
    pair: int | None = None


@dataclass(frozen=True, slots=True)
class BaishanVerdict:
    """``reason`` is None or the first of ``not_complete``, ``no_terminal``, ``no_triplet``."""

    reason: str | None
    readings: tuple[BaishanReading, ...]

    @property
    def allowed(self) -> bool:
        return self.reason is None


def _meld_splits(counts: list[int], start: int) -> Iterator[list[tuple[str, int]]]:
    """Every way to split ``counts`` (no pair left) into triplets and sequences."""
    i = start
    while i < 34 and not counts[i]:
        i += 1
    if i == 34:
        yield []
        return
    if counts[i] >= 3:
        counts[i] -= 3
        for rest in _meld_splits(counts, i):
            yield [("pung", i), *rest]
        counts[i] += 3
    if i < FIRST_HONOR and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        counts[i] -= 1
        counts[i + 1] -= 1
        counts[i + 2] -= 1
        for rest in _meld_splits(counts, i):
            yield [("chow", i), *rest]
        counts[i] += 1
        counts[i + 1] += 1
        counts[i + 2] += 1


def _standard_readings(counts: list[int]) -> list[BaishanReading]:
    """Pair + melds readings of the concealed part (melds on the table excluded)."""
    found = []
    work = list(counts)
    for pair in range(34):
        if work[pair] < 2:
            continue
        work[pair] -= 2
        for split in _meld_splits(work, 0):
            chows = tuple(t for k, t in split if k == "chow")
            triplets = tuple(t for k, t in split if k == "pung")
            found.append(BaishanReading("pinghu", chows, triplets, pair))
        work[pair] += 2
    return found


def evaluate(concealed: Sequence[int], melds: Sequence[Meld]) -> BaishanVerdict:
    """Is this a winning Baishan hand?  ``concealed`` is the count vector *with* the winning
    tile; ``melds`` the table melds.  Returns every reading the hand allows (Part B)."""
    counts = list(concealed)
    size = sum(counts) + 3 * len(melds)
    if size != 14:
        return BaishanVerdict("not_complete", ())
    complete: list[BaishanReading] = []
    if not melds:
        if shapes.thirteen_orphans(counts):
            complete.append(BaishanReading("shisanyao"))
        elif shapes.seven_pairs(counts):
            complete.append(BaishanReading("qidui"))
    standard = _standard_readings(counts) if shapes.complete(counts) else []
    if not complete and not standard:
        return BaishanVerdict("not_complete", ())
    # 不断幺九: a terminal or honor anywhere in the hand, melds included (Part B (1)).
    if not any(counts[t] for t in TERMINALS_AND_HONORS) and not any(
        t in TERMINALS_AND_HONORS for m in melds for t in m.tiles
    ):
        return BaishanVerdict("no_terminal", ())
    table_triplets = sum(1 for m in melds if m.kind != "chow")
    table_chows = len(melds) - table_triplets
    for reading in standard:
        if reading.triplets or table_triplets:  # Part B (2): at least one triplet or kong
            all_triplets = not reading.chows and not table_chows
            complete.append(
                BaishanReading(
                    "piaohu" if all_triplets else "pinghu",
                    reading.chows,
                    reading.triplets,
                    reading.pair,
                )
            )
    if not complete:
        return BaishanVerdict("no_triplet", ())
    return BaishanVerdict(None, tuple(complete))


def winning_tiles(concealed: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """For a 3n+1 hand: the kinds that would complete it into an allowed win (sorted).

    A kind the hand already holds four of is no wait (as :func:`laizi.hand.waits`)."""
    counts = list(concealed)
    candidates = set(shapes.waits(counts))
    if not melds and sum(counts) == 13:
        candidates.update(shapes.special_waits(counts))
    found = []
    for tile in sorted(candidates):
        counts[tile] += 1
        if evaluate(counts, melds).allowed:
            found.append(tile)
        counts[tile] -= 1
    return found


def may_declare_ready(waits: Sequence[int]) -> bool:
    """报听 (Part B): only on a single wait — closed 夹, edge 边 (3 or 7), pair 单调, i.e. one
    kind of tile wins — or when only terminals (1s and 9s) win (断幺)."""
    return bool(waits) and (len(waits) == 1 or all(t in TERMINALS for t in waits))


def declarable_discards(concealed: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """For a 3n+2 hand on its turn: the discards after which the player may declare ready."""
    counts = list(concealed)
    # Only a ready hand can declare: two cheap tests before the full one.
    special = not melds and sum(counts) == 14 and _near_special(counts)
    if not special and (_isolated(counts) > 2 or shapes.shanten(counts) > 0):
        return []
    found = []
    for tile in range(34):
        if not counts[tile]:
            continue
        counts[tile] -= 1
        if may_declare_ready(winning_tiles(counts, melds)):
            found.append(tile)
        counts[tile] += 1
    return found


def _isolated(counts: Sequence[int]) -> int:
    """Single tiles with no other tile of their suit within two ranks (honors: any single),
    counted up to 3.

    A ready hand's isolated tiles can only be its pair wait (单调), so a hand that holds three
    after drawing can't be ready after one discard: removing a tile never joins two others."""
    found = 0
    for t in HONORS:
        if counts[t] == 1:
            found += 1
    for low in (0, 9, 18):
        if found > 2:
            break
        c = [0, 0, *counts[low : low + 9], 0, 0]
        for r in range(2, 11):
            if c[r] == 1 and not (c[r - 2] or c[r - 1] or c[r + 1] or c[r + 2]):
                found += 1
    return found


def _near_special(counts: Sequence[int]) -> bool:
    """Whether some discard leaves a 13-tile seven-pairs or thirteen-orphans wait."""
    c = list(counts)
    if c.count(2) + c.count(3) + 2 * c.count(4) >= 6:
        return True
    return sum(1 for t in TERMINALS_AND_HONORS if c[t]) >= 12
