"""A round-robin of duplicate arenas: every pair of bots, both ways, the same walls; one
rating per bot.

Each pair (A, B) plays two arenas (:mod:`laizi.sim.arena`) on the same walls: A in one seat
against three B's — exactly the jobs of ``laizi arena A B`` with this seed — and B in one seat
against three A's (``laizi arena B A``).  The two are different games (one bot among three
copies of another), and their margins are far from opposite: with seed 2026 over 200 walls of
Wuhan 开口翻, greedy alone against three randoms wins by +218.9 points per hand, random alone
against three greedies loses by −115.7.  A pair played one way would make the ratings depend on
the order the bots are named, so the pair's **margin** is the mean of the two: per wall,
``(d_AB − d_BA) / 2`` with ``d_XY`` that wall's difference in ``laizi arena X Y``, averaged over
the walls exactly, with the arena's 95% interval over walls (both arrangements play the same
wall, so the wall stays the independent unit).  ``margin(B, A) = −margin(A, B)`` exactly, and the
pair reads the same whichever bot is named first.  Every pair plays the same walls; all the
pairs' jobs go to one pool and one progress bar.

**Ratings** (points per hand, relative to the field): the least-squares strengths ``r`` with
``r_A − r_B`` as close as can be to every pair's margin and ``Σ r = 0``.  In a full round-robin
that has a closed form, ``r_X = (1/n) · Σ_Y margin(X, Y)`` over the other bots Y.  It is computed
on each wall — the same formula over that wall's pair margins — and the rating is the exact mean
of those per-wall values, its 95% interval the arena's (``mean ± 1.96 · s / √walls``): the walls
are shared by the pairs, so the wall is the independent unit here too, and the interval counts
the pairs' correlation.

>>> report = tournament(["greedy", "random"], "wuhan-hongzhong-kaikou", walls=2, seed=1)
>>> [(p["a"], p["b"], p["walls"], p["hands"]) for p in report["pairs"]]
[('greedy', 'random', 2, 16)]
>>> [r["bot"] for r in report["ratings"]], report["ratings"][0]["rating"] > 0
(['greedy', 'random'], True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

from laizi.bots.base import make_bot
from laizi.engine import make_ruleset
from laizi.sim.arena import ArenaJob, ArenaTally, arena_jobs, play_walls
from laizi.sim.run import run_jobs
from laizi.sim.stats import mean_ci95

__all__ = ["pair_margins", "ratings", "tournament"]


def tournament(
    bots: Sequence[str],
    rules: Any,
    *,
    walls: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
    ray_workers: int | None = None,
) -> dict[str, Any]:
    """Every pair of ``bots`` (at least two, all different) on ``walls`` duplicate walls, both
    ways; the report (docs/bots.md, "laizi tournament")."""
    names = list(bots)
    if len(names) < 2:
        raise ValueError("a tournament needs at least two bots")
    if len(set(names)) != len(names):
        raise ValueError("each bot may be named only once")
    if walls < 1:
        raise ValueError("walls must be at least 1")
    settings = make_ruleset(rules).settings
    for name in names:
        make_bot(name, settings, 0)  # fail early on a bad name
    pairs = list(combinations(names, 2))
    arenas = [arrangement for a, b in pairs for arrangement in ((a, b), (b, a))]
    jobs: list[tuple[int, ArenaJob]] = [
        (k, job) for k, (x, y) in enumerate(arenas) for job in arena_jobs(x, y, rules, seed, walls)
    ]
    tallies = [ArenaTally() for _ in arenas]
    started = time.perf_counter()
    bar = _Bar(len(arenas) * walls) if progress else None
    try:
        results = run_jobs(
            play_walls,
            [job for _, job in jobs],
            workers=workers,
            units=lambda job: len(job.walls),
            ray=ray,
            ray_workers=ray_workers,
        )
        for (k, job), part in zip(jobs, results, strict=True):
            tallies[k].add(part)
            if bar is not None:
                bar.advance(len(job.walls), f"{k + 1}/{len(arenas)} {job.a} vs {job.b}")
    finally:
        if bar is not None:
            bar.close()
    seconds = max(time.perf_counter() - started, 1e-9)
    played = 4 * walls * len(arenas)
    margins = {
        pair: [(ab - ba) / 2 for ab, ba in zip(one.diffs, other.diffs, strict=True)]
        for pair, one, other in zip(pairs, tallies[::2], tallies[1::2], strict=True)
    }
    return {
        "rules": settings.preset,
        "walls": walls,
        "seed": seed,
        "bots": names,
        "hands_played": played,
        "pairs": [
            _pair(a, b, margins[(a, b)], one, other)
            for (a, b), one, other in zip(pairs, tallies[::2], tallies[1::2], strict=True)
        ],
        "ratings": ratings(names, margins),
        "hands_per_s": played / seconds,
        "seconds": seconds,
    }


def _pair(
    a: str, b: str, margins: list[Fraction], ab: ArenaTally, ba: ArenaTally
) -> dict[str, Any]:
    """One pair's entry: its margin (both arrangements), interval and verdict, and each
    arrangement's arena margin."""
    verdict = ArenaTally(diffs=margins).margin()
    low, high = verdict["diff_ci95"]
    walls = len(margins)
    return {
        "a": a,
        "b": b,
        "walls": walls,
        "hands": 8 * walls,
        "margin": _number(_exact_mean(margins)),
        "low": low,
        "high": high,
        "decided": verdict["decided"],
        "walls_needed": verdict["walls_needed"],
        "a_alone": _arrangement(ab),
        "b_alone": _arrangement(ba),
    }


def _arrangement(tally: ArenaTally) -> dict[str, Any]:
    """One arena of the pair, as ``laizi arena X Y`` reports it: X's margin over the Y's."""
    verdict = tally.margin()
    low, high = verdict["diff_ci95"]
    return {"margin": _number(_exact_mean(tally.diffs)), "low": low, "high": high}


def pair_margins(
    diffs: dict[tuple[str, str], list[Fraction]],
) -> dict[tuple[str, str], list[Fraction]]:
    """Per wall, the margin of X over Y for every ordered pair: each pair's per-wall margins
    (A over B) and their negation (B over A: the margin is antisymmetric).

    >>> pair_margins({("a", "b"): [Fraction(3), Fraction(-1)]})[("b", "a")]
    [Fraction(-3, 1), Fraction(1, 1)]
    """
    both: dict[tuple[str, str], list[Fraction]] = {}
    for (a, b), values in diffs.items():
        both[(a, b)] = list(values)
        both[(b, a)] = [-v for v in values]
    return both


def ratings(
    bots: Sequence[str], diffs: dict[tuple[str, str], list[Fraction]]
) -> list[dict[str, Any]]:
    """One rating per bot, best first: the least-squares strength (points per hand, the field's
    mean at 0) with its 95% interval over the walls, and its rank (equal ratings share one).

    >>> table = ratings(["a", "b", "c"], {("a", "b"): [Fraction(6)], ("a", "c"): [Fraction(3)],
    ...                                   ("b", "c"): [Fraction(0)]})
    >>> [(r["bot"], r["rating"], r["rank"]) for r in table]
    [('a', 3, 1), ('c', -1, 2), ('b', -2, 3)]
    """
    n = len(bots)
    margins = pair_margins(diffs)
    walls = len(next(iter(diffs.values()), []))
    per_wall = {
        x: [
            sum((margins[(x, y)][w] for y in bots if y != x), Fraction(0)) / n for w in range(walls)
        ]
        for x in bots
    }
    rated = []
    for x in bots:
        _, low, high = mean_ci95(per_wall[x])
        rated.append((_exact_mean(per_wall[x]), x, low, high))
    order = sorted(rated, key=lambda r: -r[0])
    table: list[dict[str, Any]] = []
    rank = 0
    for place, (rating, bot, low, high) in enumerate(order):
        if place == 0 or order[place - 1][0] != rating:
            rank = place + 1  # equal ratings share the rank of the first of them
        table.append(
            {"bot": bot, "rating": _number(rating), "low": low, "high": high, "rank": rank}
        )
    return table


def _exact_mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else Fraction(0)


def _number(value: Fraction) -> int | float:
    """A points figure for the report: exact until here, a decimal (or an integer) now."""
    return int(value) if value.denominator == 1 else float(value)


class _Bar:
    """One rich progress bar on stderr across every arena's walls, naming the arena that last
    finished a slice of walls."""

    def __init__(self, total: int) -> None:
        from laizi.sim.progress import stderr_bar

        self.progress = stderr_bar()
        self.progress.start()
        self.task = self.progress.add_task("tournament", total=total)

    def advance(self, walls: int, label: str) -> None:
        self.progress.update(self.task, advance=walls, description=f"tournament {label}")

    def close(self) -> None:
        self.progress.stop()
