"""Benchmark laizi.hand — ``python benchmarks/bench_hand.py [--json] [--hands N] [--seed S]``.

All figures are measured in this one process on one fixed, seeded set of hands (issue 2): half
complete 14-tile hands, half 14-tile hands one tile away from complete (one tile of a complete hand
swapped for another kind).  From each 14-tile hand come

* a laizi version: a laizi kind is chosen and 1–4 of the hand's tiles become that kind;
* 13-tile hands for ``waits`` (one tile removed), with and without laizi.

Keys printed as the last line with ``--json`` (INTERFACES.md):

``complete_vs_mahjong_ratio``  our ``complete`` rate / the ``mahjong`` package's
                               ``Agari().is_agari`` rate, same hands, no laizi
``complete_laizi_per_s``       ``complete`` checks per second on the hands with 1–4 laizi
``waits_us``                   µs per ``waits`` call on the 13-tile hands (half with laizi)
``shanten_us``                 µs per ``shanten`` call on the 14-tile hands (half with laizi)
``complete_vs_riichienv_ratio`` our ``complete`` rate / riichienv's (Rust) agari check rate,
                               same hands, no laizi (only when ``riichienv`` is installed)
``shanten_vs_riichienv_ratio``  our ``shanten`` rate / riichienv's ``calculate_shanten`` rate,
                               same hands, no laizi (> 1: ours is faster)

Also printed: ``build`` (``compiled`` or ``pure``, docs/speed.md).

Each figure is the best of ``--repeat`` timed passes (the usual way to keep scheduler noise out).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from laizi import hand

Hand = tuple[list[int], int | None]


def _complete_hand(rng: random.Random) -> list[int]:
    while True:
        counts = [0] * 34
        for _ in range(4):
            if rng.random() < 0.6:
                suit = rng.randrange(3)
                start = 9 * suit + rng.randrange(7)
                for kind in (start, start + 1, start + 2):
                    counts[kind] += 1
            else:
                counts[rng.randrange(34)] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            return counts


def _one_away(rng: random.Random) -> list[int]:
    while True:
        counts = _complete_hand(rng)
        present = [kind for kind in range(34) if counts[kind]]
        counts[rng.choice(present)] -= 1
        counts[rng.randrange(34)] += 1
        if max(counts) <= 4 and not hand.complete(counts):
            return counts


def _with_laizi(rng: random.Random, counts: list[int]) -> Hand:
    while True:
        laizi = rng.randrange(34)
        wanted = rng.randint(1, 4)
        out = list(counts)
        others = [kind for kind in range(34) for _ in range(out[kind]) if kind != laizi]
        rng.shuffle(others)
        while out[laizi] < wanted and others:
            out[others.pop()] -= 1
            out[laizi] += 1
        if 1 <= out[laizi] <= 4:
            return out, laizi


def _drop_one(rng: random.Random, case: Hand) -> Hand:
    counts, laizi = case
    out = list(counts)
    out[rng.choice([kind for kind in range(34) if out[kind]])] -= 1
    return out, laizi


def make_hands(count: int, seed: int) -> dict[str, list[Hand]]:
    rng = random.Random(seed)
    plain = [(_complete_hand(rng), None) for _ in range(count // 2)]
    plain += [(_one_away(rng), None) for _ in range(count - count // 2)]
    laizi = [_with_laizi(rng, counts) for counts, _ in plain]
    waits13 = [_drop_one(rng, case) for case in plain + laizi]
    return {"plain": plain, "laizi": laizi, "waits13": waits13, "shanten14": plain + laizi}


def best_rate(function: Callable[..., Any], cases: Sequence[tuple[Any, ...]], repeat: int) -> float:
    """Calls per second, the best of ``repeat`` passes over ``cases``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for case in cases:
            function(*case)
        best = min(best, time.perf_counter() - start)
    return len(cases) / best


def run(count: int, seed: int, repeat: int) -> dict[str, Any]:
    from mahjong.agari import Agari

    hand.complete([0] * 33 + [2])  # load the tables before timing
    hands = make_hands(count, seed)
    agari = Agari()
    plain_counts = [(counts,) for counts, _ in hands["plain"]]
    ours = best_rate(hand.complete, plain_counts, repeat)
    theirs = best_rate(agari.is_agari, plain_counts, repeat)
    # Same answers on the same hands, or the ratio means nothing.
    disagree = sum(hand.complete(c) != agari.is_agari(c) for (c,) in plain_counts)
    from laizi import _native

    return {
        "build": _native.build(),
        "hands": count,
        "complete_per_s": round(ours),
        "mahjong_is_agari_per_s": round(theirs),
        "complete_vs_mahjong_ratio": round(ours / theirs, 2),
        "disagreements_with_mahjong": disagree,
        "complete_laizi_per_s": round(best_rate(hand.complete, hands["laizi"], repeat)),
        "waits_us": round(1e6 / best_rate(hand.waits, hands["waits13"], repeat), 2),
        "shanten_us": round(1e6 / best_rate(hand.shanten, hands["shanten14"], repeat), 2),
        **riichienv_ratios(hands, repeat),
    }


def _tiles_136(counts: list[int]) -> list[int]:
    """A count vector as riichienv's tile ids (4 per kind: kind × 4 + copy)."""
    return [4 * kind + copy for kind, n in enumerate(counts) for copy in range(n)]


def riichienv_ratios(hands: dict[str, list[Hand]], repeat: int) -> dict[str, Any]:
    """Ours against riichienv (Rust, PyO3), on the same hands without laizi, when installed.

    riichienv has no laizi and no bare agari call: its ``calculate_shanten(tiles) == -1`` is
    its complete check.  Its shanten also counts seven pairs and thirteen orphans, ours the
    standard shape only — the hands here are near-standard shapes, so the answers agree but
    for the rare seven-pairs hand (``disagreements_with_riichienv`` counts them).
    """
    try:
        import riichienv
    except ImportError:
        return {}
    calc = riichienv.calculate_shanten
    plain = [counts for counts, _ in hands["plain"]]
    ours_cases = [(counts,) for counts in plain]
    theirs_cases = [(_tiles_136(counts),) for counts in plain]
    ours_complete = best_rate(hand.complete, ours_cases, repeat)
    theirs_complete = best_rate(lambda tiles: calc(tiles) == -1, theirs_cases, repeat)
    ours_shanten = best_rate(hand.shanten, ours_cases, repeat)
    theirs_shanten = best_rate(calc, theirs_cases, repeat)
    disagree = sum(
        hand.shanten(c) != calc(t) for (c,), (t,) in zip(ours_cases, theirs_cases, strict=True)
    )
    return {
        "riichienv_complete_per_s": round(theirs_complete),
        "complete_vs_riichienv_ratio": round(ours_complete / theirs_complete, 2),
        "shanten_plain_us": round(1e6 / ours_shanten, 2),
        "riichienv_shanten_us": round(1e6 / theirs_shanten, 2),
        "shanten_vs_riichienv_ratio": round(ours_shanten / theirs_shanten, 2),
        "disagreements_with_riichienv": disagree,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    parser.add_argument(
        "--hands", type=int, default=20000, help="14-tile hands in the set (default 20000)"
    )
    parser.add_argument(
        "--seed", type=int, default=2026, help="seed of the hand set (default 2026)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed passes, best kept (default 5)")
    args = parser.parse_args(argv)
    result = run(args.hands, args.seed, args.repeat)
    if args.json:
        print(json.dumps(result))
    else:
        goals = {
            "complete_vs_mahjong_ratio": ("≥ 3", result["complete_vs_mahjong_ratio"] >= 3),
            "complete_laizi_per_s": ("≥ 300,000", result["complete_laizi_per_s"] >= 300_000),
            "waits_us": ("≤ 20", result["waits_us"] <= 20),
            "shanten_us": ("≤ 20", result["shanten_us"] <= 20),
            "complete_per_s": ("≥ 2,000,000 (issue 19)", result["complete_per_s"] >= 2_000_000),
        }
        if "shanten_plain_us" in result:
            goals["shanten_plain_us"] = ("≤ 2 (issue 19)", result["shanten_plain_us"] <= 2)
        for key, value in result.items():
            goal, met = goals.get(key, ("", None))
            mark = "" if met is None else ("  goal " + goal + (" met" if met else " MISSED"))
            print(f"{key:30} {value:>12}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
