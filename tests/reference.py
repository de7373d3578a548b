"""A slow, independent hand checker for the tests: plain backtracking with jokers.

It shares no code and no tables with :mod:`laizi.hand`.  The lowest remaining real tile must sit in
a pair, a triplet or a sequence; jokers fill whatever is missing; every alternative is tried.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

PAIR_ANY: Callable[[int], bool] = lambda kind: True  # noqa: E731
PAIR_258: Callable[[int], bool] = lambda kind: kind < 27 and kind % 9 in (1, 4, 7)  # noqa: E731


def _search(
    counts: list[int], jokers: int, pair_left: bool, pair_ok: Callable[[int], bool]
) -> bool:
    lowest = next((kind for kind in range(34) if counts[kind]), None)
    if lowest is None:
        spare = jokers - (2 if pair_left else 0)  # two jokers may be any pair, a 2/5/8 included
        return spare >= 0 and spare % 3 == 0
    i = lowest
    # i in the pair
    if pair_left and pair_ok(i):
        for real in (2, 1):
            if counts[i] >= real and jokers >= 2 - real:
                counts[i] -= real
                found = _search(counts, jokers - (2 - real), False, pair_ok)
                counts[i] += real
                if found:
                    return True
    # i in a triplet
    for real in (3, 2, 1):
        if counts[i] >= real and jokers >= 3 - real:
            counts[i] -= real
            found = _search(counts, jokers - (3 - real), pair_left, pair_ok)
            counts[i] += real
            if found:
                return True
    # i in a sequence: try every start and, for the other two places, a real tile or a joker
    if i < 27:
        suit_start = i - i % 9
        for start in (i - 2, i - 1, i):
            if start < suit_start or start + 2 > suit_start + 8:
                continue
            others = [place for place in (start, start + 1, start + 2) if place != i]
            for use_real in product((True, False), repeat=2):
                choice = list(zip(use_real, others, strict=True))
                if any(real and counts[place] == 0 for real, place in choice):
                    continue
                needed = use_real.count(False)
                if needed > jokers:
                    continue
                counts[i] -= 1
                for real, place in choice:
                    counts[place] -= real
                found = _search(counts, jokers - needed, pair_left, pair_ok)
                counts[i] += 1
                for real, place in choice:
                    counts[place] += real
                if found:
                    return True
    return False


def split(counts: list[int], laizi: int | None) -> tuple[list[int], int]:
    rest = list(counts)
    jokers = 0
    if laizi is not None:
        jokers, rest[laizi] = rest[laizi], 0
    return rest, jokers


def ref_complete(counts: list[int], laizi: int | None, pair_ok=PAIR_ANY) -> bool:
    if sum(counts) % 3 != 2:
        return False
    rest, jokers = split(counts, laizi)
    return _search(rest, jokers, True, pair_ok)


def ref_waits(counts: list[int], laizi: int | None, pair_ok=PAIR_ANY) -> list[int]:
    if sum(counts) % 3 != 1:
        return []
    found = []
    for kind in range(34):
        if counts[kind] >= 4:
            continue
        counts[kind] += 1
        if ref_complete(counts, laizi, pair_ok):
            found.append(kind)
        counts[kind] -= 1
    return found


def ref_shanten(counts: list[int], laizi: int | None) -> int:
    """Keep the largest part S of the real tiles that jokers (laizi or tiles still to come) can
    complete to n melds and a pair; the tiles to come are the missing ones less the laizi held."""
    rest, jokers = split(counts, laizi)
    target = 3 * ((sum(counts) - 1) // 3) + 2
    real = [kind for kind in range(34) for _ in range(rest[kind])]
    for dropped in range(len(real) + 1):
        for kept in _sub_multisets(rest, len(real) - dropped):
            if _search(kept, target - (len(real) - dropped), True, PAIR_ANY):
                return target - (len(real) - dropped) - jokers - 1
    raise AssertionError("unreachable: jokers alone always complete")


def _sub_multisets(counts: list[int], size: int):
    kinds = [kind for kind in range(34) if counts[kind]]

    def walk(index: int, left: int, chosen: list[int]):
        if left == 0:
            yield list(chosen)
            return
        if index == len(kinds):
            return
        kind = kinds[index]
        for take in range(min(counts[kind], left), -1, -1):
            chosen[kind] = take
            yield from walk(index + 1, left - take, chosen)
        chosen[kind] = 0

    yield from walk(0, size, [0] * 34)
