"""Self-play of four named bots: per-seat statistics over many hands.

Hand ``i`` is dealt by seat ``i mod 4`` from its own wall seed, so the seats share the deal
evenly; the figures do not depend on the number of worker processes.

>>> report = simulate(["greedy", "random", "random", "random"], "wuhan-hongzhong-kaikou",
...                   hands=2, seed=1)
>>> report["hands"], len(report["seats"])
(2, 4)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from laizi.bots.base import make_bot
from laizi.engine import make_ruleset
from laizi.sim.hand import derive_seed, play_hand, wall_seed
from laizi.sim.run import run_jobs
from laizi.sim.stats import SeatStats

__all__ = ["simulate"]

CHUNK = 8


@dataclass(frozen=True)
class _Job:
    bots: tuple[str, ...]
    rules: Any
    seed: int
    hands: tuple[int, ...]


def _play(job: _Job) -> tuple[list[SeatStats], int]:
    ruleset = make_ruleset(job.rules)
    settings = ruleset.settings
    stats = [SeatStats() for _ in range(4)]
    drawn = 0
    for index in job.hands:
        bots = [
            make_bot(name, settings, derive_seed(job.seed, index, s))
            for s, name in enumerate(job.bots)
        ]
        out = play_hand(ruleset, bots, index % 4, wall_seed(job.seed, index))
        drawn += out.winner is None
        for s in range(4):
            won = out.winner == s
            stats[s].add(
                out.payments[s],
                won,
                won and out.how == "self_draw",
                out.dealt_in == s,
                out.wins if won else (),
            )
    return stats, drawn


def simulate(
    bots: Sequence[str],
    rules: Any,
    *,
    hands: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """Play ``hands`` hands with ``bots`` (four names, seat order); the statistics."""
    if len(bots) != 4:
        raise ValueError(f"bots: four names are needed, got {len(bots)}")
    settings = make_ruleset(rules).settings
    for name in bots:
        make_bot(name, settings, 0)
    jobs = [
        _Job(tuple(bots), rules, seed, tuple(range(start, min(start + CHUNK, hands))))
        for start in range(0, hands, CHUNK)
    ]
    started = time.perf_counter()
    totals = [SeatStats() for _ in range(4)]
    drawn = 0
    label = "simulate" if progress else None
    for stats, n in run_jobs(
        _play, jobs, workers=workers, progress=label, units=lambda job: len(job.hands)
    ):
        for total, part in zip(totals, stats, strict=True):
            total.merge(part)
        drawn += n
    seconds = max(time.perf_counter() - started, 1e-9)
    return {
        "bots": list(bots),
        "rules": settings.preset,
        "seed": seed,
        "hands": hands,
        "drawn": drawn,
        "drawn_rate": drawn / max(hands, 1),
        "hands_per_s": hands / seconds,
        "seconds": seconds,
        "seats": [{"seat": s, "bot": bots[s], **totals[s].to_json()} for s in range(4)],
    }
