"""Generate the per-suit lookup tables behind :mod:`laizi.hand`.

Run ``python -m laizi._tablegen`` to rewrite ``src/laizi/data/hand_tables.bin``; the test suite
regenerates the tables and compares them byte for byte with the shipped file.

A *group* is one suit (9 counts) or the honors (7 counts).  For every group content with at most 14
tiles the table records, with ``w`` standing for wildcards (癞子) or for tiles still to be drawn:

``M``      the fewest wildcards that turn *all* the group's tiles into melds (sequences/triplets);
``P``      the same with exactly one pair among them;
``P258``   the same with the pair a 2, 5 or 8 (suits only);
``f(k,p)`` for k = 0…4 melds and p = 0/1 pairs: the fewest missing tiles to build exactly k melds
           and p pairs from *some* of the group's tiles (the others are discarded) — the shanten
           building block.

Wildcards stand for any kind, fifth copies included (RULES.md A3), so no count limits apply to them.
The recursion always places the lowest tile of the group first; each meld containing it either uses
it in a triplet (1–3 real copies), a sequence (the other two positions real when present, otherwise
wildcards), or — for P and f — the pair.  Tables are small enough to enumerate outright.
"""

from __future__ import annotations

import array
import itertools
import struct
import sys
import zlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from laizi.tiles import TWO_FIVE_EIGHT_RANKS

MAX_TILES = 14
MAX_MELDS = 4

TABLE_PATH = Path(__file__).with_name("data") / "hand_tables.bin"
MAGIC = b"LAIZI-HAND-TABLES-1\n"

Counts = tuple[int, ...]


def _first(v: Counts) -> int:
    for index, count in enumerate(v):
        if count:
            return index
    return -1


def _minus(v: Counts, *positions: int) -> Counts:
    out = list(v)
    for position in positions:
        out[position] -= 1
    return tuple(out)


def _melds_with_lowest(v: Counts, suited: bool) -> Iterator[tuple[int, Counts]]:
    """Every way to build one meld that contains the lowest tile ``i`` of ``v``.

    Yields ``(wildcards used, remaining counts)``.
    """
    i = _first(v)
    for real in range(1, min(v[i], 3) + 1):  # triplet of i with `real` real copies
        rest = list(v)
        rest[i] -= real
        yield 3 - real, tuple(rest)
    if not suited:
        return
    for start in (i - 2, i - 1, i):
        if start < 0 or start + 2 >= len(v):
            continue
        used = [i]
        wild = 0
        for position in (start, start + 1, start + 2):
            if position == i:
                continue
            if position > i and v[position] > 0:
                used.append(position)
            else:
                wild += 1  # below i nothing is left; above i the tile is missing
        yield wild, _minus(v, *used)


def _pairs_with_lowest(
    v: Counts, pair_positions: tuple[int, ...] | None
) -> Iterator[tuple[int, Counts]]:
    i = _first(v)
    if pair_positions is not None and i not in pair_positions:
        return
    for real in range(1, min(v[i], 2) + 1):
        rest = list(v)
        rest[i] -= real
        yield 2 - real, tuple(rest)


@cache
def meld_need(v: Counts, suited: bool) -> int:
    """``M``: wildcards so that every tile of ``v`` sits in a meld."""
    if _first(v) < 0:
        return 0
    return min(wild + meld_need(rest, suited) for wild, rest in _melds_with_lowest(v, suited))


@cache
def pair_need(v: Counts, suited: bool, pair_positions: tuple[int, ...] | None) -> int:
    """``P``/``P258``: wildcards for melds plus one pair (restricted to ``pair_positions``)."""
    best = 2 + meld_need(v, suited)  # the pair made of two wildcards (a wildcard may be a 2/5/8)
    if _first(v) < 0:
        return best
    for wild, rest in _melds_with_lowest(v, suited):
        best = min(best, wild + pair_need(rest, suited, pair_positions))
    for wild, rest in _pairs_with_lowest(v, pair_positions):
        best = min(best, wild + meld_need(rest, suited))
    return best


def _index(k: int, p: int) -> int:
    return 2 * k + p


@cache
def partial_need(v: Counts, suited: bool) -> tuple[int, ...]:
    """``f``: for each (k melds, p pairs), index ``2k + p``, the fewest missing tiles."""
    best = [3 * k + 2 * p for k in range(MAX_MELDS + 1) for p in (0, 1)]
    if _first(v) < 0:
        return tuple(best)
    i = _first(v)
    dropped = partial_need(_minus(v, i), suited)  # the lowest tile is not used at all
    for slot in range(len(best)):
        best[slot] = min(best[slot], dropped[slot])
    for wild, rest in _melds_with_lowest(v, suited):
        sub = partial_need(rest, suited)
        for k in range(1, MAX_MELDS + 1):
            for p in (0, 1):
                candidate = wild + sub[_index(k - 1, p)]
                if candidate < best[_index(k, p)]:
                    best[_index(k, p)] = candidate
    for wild, rest in _pairs_with_lowest(v, None):
        sub = partial_need(rest, suited)
        for k in range(MAX_MELDS + 1):
            candidate = wild + sub[_index(k, 0)]
            if candidate < best[_index(k, 1)]:
                best[_index(k, 1)] = candidate
    return tuple(best)


def group_contents(size: int) -> Iterator[Counts]:
    """Every group content of ``size`` kinds with 0–4 copies each and at most 14 tiles, in order."""
    for v in itertools.product(range(5), repeat=size):
        if sum(v) <= MAX_TILES:
            yield v


SUIT_258 = TWO_FIVE_EIGHT_RANKS


def suit_row(v: Counts) -> tuple[int, ...]:
    """One suit's entry: (tiles, M, P-M, P258-M, f…)."""
    m = meld_need(v, True)
    return (
        sum(v),
        m,
        pair_need(v, True, None) - m,
        pair_need(v, True, SUIT_258) - m,
        *partial_need(v, True),
    )


def honor_row(v: Counts) -> tuple[int, ...]:
    """The honors' entry: (tiles, M, P-M, f…); an honor pair is never a 2/5/8."""
    m = meld_need(v, False)
    return (sum(v), m, pair_need(v, False, None) - m, *partial_need(v, False))


def build() -> bytes:
    """The table file's bytes, zlib-compressed: a magic line, then one section per group kind.

    Only a few hundred distinct entries exist, so a section holds the distinct entries once
    (signed bytes, ``width`` each) and, per group content in :func:`group_contents` order, the
    content's counts (one byte per kind) and the index of its entry (unsigned 16-bit).
    """
    chunks = [MAGIC]
    for size, row in ((9, suit_row), (7, honor_row)):
        contents = list(group_contents(size))
        entries: dict[tuple[int, ...], int] = {}
        indices = array.array("H")
        for v in contents:
            indices.append(entries.setdefault(row(v), len(entries)))
        width = len(next(iter(entries)))
        if sys.byteorder != "little":  # pragma: no cover - the file is little-endian everywhere
            indices.byteswap()
        chunks.append(struct.pack("<IIII", size, width, len(entries), len(contents)))
        chunks.extend(struct.pack(f"{width}b", *entry) for entry in entries)
        chunks.extend(bytes(v) for v in contents)
        chunks.append(indices.tobytes())
        meld_need.cache_clear()
        pair_need.cache_clear()
        partial_need.cache_clear()
    return zlib.compress(b"".join(chunks), 9)


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else TABLE_PATH
    data = build()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    print(f"wrote {target} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
