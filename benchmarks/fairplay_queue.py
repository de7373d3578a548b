"""The collusion watch's population seated by the real ranked queue (``bench_fairplay.py
--seater queue``): every account of the population is a person on a real ``laizi serve``
(``benchmarks/queue_clients.py``: registered through its API, each from its own address), and
every table is one the server's matchmaker formed — tiers, rating bands and its anti-collusion
rule (no two accounts together at more than ``together_k`` = 3 of either one's last
``together_n`` = 20 ranked tables) — and its people accepted.  The matches are then played by
``fairplay_sim.play_match`` (the feeder needs its partner's hand: only the harness can give it)
and stored as before.

Who queues how:

* a **colluding pair** queues together — both send ``queue`` at the same moment, and again only
  once both have been sent a room — and the two accounts have one rating (seeded), so the
  matchmaker seats them together whenever its rule lets it;
* a **club** of four honest friends does the same (the control group);
* everyone else (**loners**) queues again after a pause of 0 to 2 × ``loner_pause`` seconds.

Every account stands in the lowest tier with an ordinal in [0, 1.9] (a pair's or a club's
shared), so the band (2 at once) never keeps a table from forming: what decides who sits with
whom is the queue's order, the ratings' nearness and the anti-collusion rule.  With K = 3 of
N = 20 a pair sits together at 4 of 20 tables at most, so ``together`` (30) matches together take
each of its accounts about 150 tables: the run goes on until every colluding pair and every
club's pair has sat together ``together`` times (or ``max_matches`` tables were formed).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from fairplay_sim import RULES, Population, Seater, Seating
from laizi.rules import Settings
from queue_clients import (
    CHEAP_HASH,
    QUEUE_SERVER_FLAGS,
    Errors,
    QueueClient,
    Standing,
    address,
    register_accounts,
    seed_standings,
)
from server_process import throwaway_database_server

__all__ = ["RUNS", "QueueRun", "queue_seating"]

STALL_S = 60.0
"""No new table for this long: the run stops (``stalled``, an error) — a population too small for
the anti-collusion rule, where every waiting person is kept apart from every other."""
SIGMA = 2.0
"""The seeded σ (any value: only the ordinal μ − 3σ matters to the matchmaker)."""


@dataclass
class QueueRun:
    """What a queue seating saw (``bench_fairplay.py`` reports it)."""

    errors: Errors = field(default_factory=Errors)
    tables: int = 0
    seconds: float = 0.0
    lapses: int = 0
    reconnects: int = 0
    short: list[str] = field(default_factory=list)
    """Pairs (names) that did not reach ``together`` matches together."""


RUNS: list[QueueRun] = []
"""Every queue seating of this process, the latest last."""


def queue_seating(together: int, loner_pause: float = 20.0, max_matches: int = 20_000) -> Seater:
    """The :data:`fairplay_sim.Seater` of the real queue (see the module)."""

    def seat(population: Population, rng: random.Random) -> Iterator[Seating]:
        yield from asyncio.run(_seat(population, rng, together, loner_pause, max_matches))

    return seat


def _units(population: Population) -> list[list[int]]:
    """Who queues together: each colluding pair, each club, each other account alone."""
    grouped = [list(p) for p in population.pairs] + [list(c) for c in population.clubs]
    taken = {i for unit in grouped for i in unit}
    return grouped + [[i] for i in range(len(population.names)) if i not in taken]


def _standings(units: Sequence[list[int]], size: int, rng: random.Random) -> list[Standing]:
    rows: list[Standing | None] = [None] * size
    for unit in units:
        ordinal = round(rng.uniform(0.0, 1.9), 4)
        for i in unit:
            rows[i] = Standing(0, ordinal + 3 * SIGMA, SIGMA, 0)
    assert all(r is not None for r in rows)
    return [r for r in rows if r is not None]


async def _seat(
    population: Population,
    rng: random.Random,
    together: int,
    loner_pause: float,
    max_matches: int,
) -> list[Seating]:
    started = time.monotonic()
    run = QueueRun()
    RUNS.append(run)
    errors = run.errors
    units = _units(population)
    size = len(population.names)
    watched = [tuple(p) for p in population.pairs] + [
        pair for club in population.clubs for pair in combinations(club, 2)
    ]
    counts = dict.fromkeys(watched, 0)
    feeders = dict(population.pairs)
    tables: dict[str, dict[int, int]] = {}
    seatings: list[Seating] = []
    done = asyncio.Event()
    flags = (*QUEUE_SERVER_FLAGS, "--matched-room-seconds", "5")
    loop = asyncio.get_running_loop()
    with throwaway_database_server(*flags, prelude=CHEAP_HASH) as (port, _, db):
        names = population.names
        cookies = await loop.run_in_executor(None, register_accounts, port, names)
        rows = _standings(units, size, rng)
        await loop.run_in_executor(
            None, seed_standings, db, names, Settings.from_json(RULES).game, rows
        )
        clients = [
            await QueueClient.connect(port, cookies[i], address(i), errors) for i in range(size)
        ]

        def seated(room: str, seat: int, person: int) -> None:
            table = tables.setdefault(room, {})
            table[seat] = person
            if len(table) < 4:
                return
            order = (table[0], table[1], table[2], table[3])
            at = {a: s for s, a in table.items()}
            feeds = {at[f]: at[p] for f, p in feeders.items() if f in at and p in at}
            seatings.append(Seating(order, feeds))
            for pair in watched:
                if pair[0] in at and pair[1] in at:
                    counts[pair] += 1
            least = min(counts.values(), default=together)
            if len(seatings) % 100 == 0:
                progress = f"queue: {len(seatings)} tables, every pair together ≥ {least}"
                print(progress, file=sys.stderr)
            if least >= together or len(seatings) >= max_matches:
                done.set()

        async def play(unit: list[int], pause: float) -> None:
            try:
                await queue_again(unit, pause)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a person lost is an error of the run, and ends it
                errors.add("client:" + type(error).__name__)
                done.set()

        async def queue_again(unit: list[int], pause: float) -> None:
            r = random.Random(rng.getrandbits(64))
            while not done.is_set():
                if pause:
                    await asyncio.sleep(r.uniform(0.0, 2 * pause))
                got = await asyncio.gather(
                    *(clients[i].match(RULES, "ranked", 600.0) for i in unit)
                )
                for i, m in zip(unit, got, strict=True):
                    if m is None:
                        errors.add("unmatched")
                        done.set()
                        return
                    seated(m.room, m.seat, i)

        tasks = [asyncio.create_task(play(u, loner_pause if len(u) == 1 else 0.0)) for u in units]
        seen = -1
        while not done.is_set():  # a queue where everyone is kept apart from everyone stalls
            if len(seatings) == seen:
                errors.add("stalled")
                break
            seen = len(seatings)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), STALL_S)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for client in clients:
            await client.close()
    run.tables = len(seatings)
    run.seconds = round(time.monotonic() - started, 1)
    run.lapses = sum(c.lapses for c in clients)
    run.reconnects = sum(c.reconnects for c in clients)
    run.short = [f"{names[a]}+{names[b]}" for (a, b), n in counts.items() if n < together]
    return seatings
