"""The collusion watch measured by simulation — ``python benchmarks/bench_fairplay.py [--json]``.

A population of bot accounts (default 200) plays ranked four-person matches, written to a real
database (an SQLite file in a temporary folder, or ``--db URL``) through the server's storage and
booking code (``benchmarks/fairplay_sim.py``); some pairs collude (one feeds the other:
``ColludingBot``), clubs of four honest friends play together as often (the control group).  Then
:func:`laizi.server.fairplay.analyze` reads the database as ``laizi fairplay`` does.

Keys (INTERFACES.md): ``colluding_flagged`` (share of colluding pairs flagged, goal ≥ 0.9),
``honest_flagged`` (share of the honest pairs with at least ``--min-matches`` matches together
that are flagged, goal ≤ 0.01), ``errors`` (matches that failed to play, store or book, and
hands the watch could not replay: goal 0); and ``pairs_colluding``, ``pairs_honest`` (the pairs
behind those shares), ``matches``, ``hands``, ``seconds``, ``load_average``, ``seater``.

``--seater queue`` (the default) seats every match through a real ``laizi serve``'s ranked queue
(``benchmarks/fairplay_queue.py``: the pairs and clubs queue together, the anti-collusion rule
keeps them apart at more than 3 of 20 tables, the run goes on until each has sat together
``--together`` times); ``queue_lapses``, ``pairs_short`` (pairs that never got there: errors)
and ``seat_seconds`` are added.  ``--seater stand-in`` is ``fairplay_sim.stand_in_seating``
(pairs and clubs seated together ``--together`` times, plus ``--random-tables``);
``--seater MODULE:FUNCTION`` a function ``(population, rng) -> iterator of Seating``
(``fairplay_sim.Seater``).  ``--smoke`` is CI's short run.  The full run's size and time, and a
faster configuration: docs/fairplay.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fairplay_sim import (
    Population,
    Seater,
    Seating,
    make_population,
    play_match,
    register_population,
    stand_in_seating,
    worker_count,
    write_match,
)
from laizi.server.fairplay import DEFAULT_THRESHOLD, analyze
from laizi.server.store import Store


def _play(job: tuple[Seating, int, int]) -> list[list[dict[str, Any]]]:
    seating, hands, seed = job
    return play_match(seating, hands, seed)


def _seater(args: argparse.Namespace) -> Seater:
    spec = args.seater
    if spec == "stand-in":
        return stand_in_seating(args.together, args.random_tables)
    if spec == "queue":
        from fairplay_queue import queue_seating

        return queue_seating(args.together, args.loner_pause, args.max_matches)
    module, _, name = spec.partition(":")
    found: Seater = getattr(importlib.import_module(module), name)
    return found


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    population = make_population(args.accounts, args.colluding, args.clubs, args.seed)
    rng = random.Random(args.seed)
    seatings = list(_seater(args)(population, rng))
    seated = time.monotonic() - started
    errors = 0
    error_kinds: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{folder}/fairplay.sqlite3"
        store = Store(url)
        register_population(store, population)
        jobs = [(s, args.hands, args.seed * 100_003 + i) for i, s in enumerate(seatings)]
        hands = 0
        with ProcessPoolExecutor(args.workers) as pool:
            for i, (seating, result) in enumerate(
                zip(seatings, pool.map(_play, jobs, chunksize=4), strict=True)
            ):
                try:
                    write_match(store, population, seating, result, f"F{i:06d}")
                    hands += len(result)
                except Exception as error:  # counted, never fatal: the run reports it
                    errors += 1
                    kind = type(error).__name__
                    error_kinds[kind] = error_kinds.get(kind, 0) + 1
        played = time.monotonic() - started
        report = analyze(store.engine, args.min_matches, args.threshold)
        store.close()
    errors += len(report.unreadable)
    figures = _shares(population, report.pairs)
    queue: dict[str, Any] = {}
    if args.seater == "queue":
        from fairplay_queue import RUNS

        seating = RUNS[-1]
        errors += seating.errors.count + len(seating.short)
        error_kinds.update(seating.errors.kinds)
        if seating.short:
            error_kinds["pairs_short_of_together"] = len(seating.short)
        queue = {
            "queue_lapses": seating.lapses,
            "queue_reconnects": seating.reconnects,
            "queue_tables_s": round(seating.tables / max(seating.seconds, 0.1), 1),
            "pairs_short": seating.short[:20],
        }
    return {
        **figures,
        "errors": errors,
        "error_kinds": error_kinds,
        **queue,
        "matches": len(seatings),
        "hands": hands,
        "hands_read": report.hands,
        "accounts": args.accounts,
        "min_matches": args.min_matches,
        "threshold": args.threshold,
        "seater": args.seater,
        "seat_seconds": round(seated, 1),
        "play_seconds": round(played - seated, 1),
        "seconds": round(time.monotonic() - started, 1),
        "load_average": round(os.getloadavg()[0], 2),
    }


def _shares(population: Population, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    colluding = {frozenset((population.names[a], population.names[b])) for a, b in population.pairs}
    caught = 0
    honest = honest_flagged = 0
    scores_colluding: list[float] = []
    scores_honest: list[float] = []
    for pair in pairs:
        key = frozenset(pair["accounts"])
        if key in colluding:
            caught += pair["flagged"]
            scores_colluding.append(pair["score"])
        else:
            honest += 1
            honest_flagged += pair["flagged"]
            scores_honest.append(pair["score"])
    return {
        "colluding_flagged": round(caught / len(colluding), 4) if colluding else None,
        "honest_flagged": round(honest_flagged / honest, 4) if honest else None,
        "pairs_colluding": len(colluding),
        "pairs_colluding_considered": len(scores_colluding),
        "pairs_honest": honest,
        "score_colluding_min": min(scores_colluding, default=None),
        "score_honest_max": max(scores_honest, default=None),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--smoke", action="store_true", help="CI's short run")
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--colluding", type=int, default=10, help="colluding pairs")
    parser.add_argument(
        "--clubs",
        type=int,
        default=None,
        help="clubs of four honest friends (default 5 with --seater queue, else 20)",
    )
    parser.add_argument("--together", type=int, default=30, help="matches of each pair / club")
    parser.add_argument("--random-tables", type=int, default=150)
    parser.add_argument("--hands", type=int, default=4, help="hands per match")
    parser.add_argument("--min-matches", type=int, default=10)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--workers", type=int, default=worker_count())
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--db", default=None, help="a database URL (default: a temporary SQLite)")
    parser.add_argument(
        "--seater",
        default="queue",
        help="queue (the real server's ranked queue), stand-in, or MODULE:FUNCTION",
    )
    parser.add_argument(
        "--loner-pause",
        type=float,
        default=20.0,
        help="--seater queue: an account outside the pairs and clubs queues again after 0 to "
        "twice this many seconds",
    )
    parser.add_argument(
        "--max-matches", type=int, default=20_000, help="--seater queue: stop at this many"
    )
    args = parser.parse_args()
    if args.clubs is None:
        args.clubs = 5 if args.seater == "queue" else 20
    if args.smoke:
        # 12 accounts for the stand-in; the queue needs more people than its anti-collusion rule
        # keeps apart (12 accounts soon all sat together at more than 3 of their last 20 tables)
        args.accounts = 40 if args.seater == "queue" else 12
        args.colluding, args.clubs = 1, 1
        args.together, args.random_tables, args.hands, args.min_matches = 3, 2, 2, 2
        args.workers, args.loner_pause = 1, 1.0
    figures = run(args)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
