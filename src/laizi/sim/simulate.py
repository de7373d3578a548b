"""Self-play of four named bots: per-seat statistics over many hands.

Hand ``i`` is dealt by seat ``i mod 4`` from its own wall seed, so the seats share the deal
evenly; the figures do not depend on the number of worker processes, nor on Ray (``ray=``).
With ``records=DIR`` each hand's record (JSON Lines, as ``laizi verify`` reads it) is written to
``DIR/hand-NNNNNN.jsonl`` (``N`` = the hand's index in the run): the workers send the records
back, the calling process writes them, in order, as they arrive.

>>> report = simulate(["greedy", "random", "random", "random"], "wuhan-hongzhong-kaikou",
...                   hands=2, seed=1)
>>> report["hands"], len(report["seats"])
(2, 4)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from laizi.bots.base import make_bot
from laizi.engine import make_ruleset
from laizi.engine.record import to_jsonl
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
    record: bool = False


def record_name(index: int) -> str:
    """The file name of hand ``index``'s record in a ``--records`` directory.

    >>> record_name(7), record_name(1234567)
    ('hand-000007.jsonl', 'hand-1234567.jsonl')
    """
    return f"hand-{index:06d}.jsonl"


def _play(job: _Job) -> tuple[list[SeatStats], int, list[str]]:
    ruleset = make_ruleset(job.rules)
    settings = ruleset.settings
    stats = [SeatStats() for _ in range(4)]
    drawn = 0
    records: list[str] = []
    for index in job.hands:
        bots = [
            make_bot(name, settings, derive_seed(job.seed, index, s))
            for s, name in enumerate(job.bots)
        ]
        out = play_hand(ruleset, bots, index % 4, wall_seed(job.seed, index), record=job.record)
        if out.events is not None:
            records.append(to_jsonl(out.events))
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
    return stats, drawn, records


def simulate(
    bots: Sequence[str],
    rules: Any,
    *,
    hands: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
    ray_workers: int | None = None,
    records: str | Path | None = None,
) -> dict[str, Any]:
    """Play ``hands`` hands with ``bots`` (four names, seat order); the statistics.

    ``ray``: spread the hands over a Ray cluster (its address, or ``"local"`` for a local one)
    with ``ray_workers`` actors; ``records``: a directory for every hand's record.
    """
    if len(bots) != 4:
        raise ValueError(f"bots: four names are needed, got {len(bots)}")
    settings = make_ruleset(rules).settings
    for name in bots:
        make_bot(name, settings, 0)
    out_dir = None if records is None else Path(records)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [
        _Job(
            tuple(bots),
            rules,
            seed,
            tuple(range(start, min(start + CHUNK, hands))),
            out_dir is not None,
        )
        for start in range(0, hands, CHUNK)
    ]
    started = time.perf_counter()
    totals = [SeatStats() for _ in range(4)]
    drawn = 0
    label = "simulate" if progress else None
    for job, (stats, n, texts) in zip(
        jobs,
        run_jobs(
            _play,
            jobs,
            workers=workers,
            progress=label,
            units=lambda job: len(job.hands),
            ray=ray,
            ray_workers=ray_workers,
        ),
        strict=True,
    ):
        for total, part in zip(totals, stats, strict=True):
            total.merge(part)
        drawn += n
        if out_dir is not None:
            for index, text in zip(job.hands, texts, strict=True):
                (out_dir / record_name(index)).write_text(text, encoding="utf-8")
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
        **({} if out_dir is None else {"records": str(out_dir)}),
    }
