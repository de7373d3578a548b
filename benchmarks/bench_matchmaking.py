"""The matchmaking queue at scale — ``python benchmarks/bench_matchmaking.py [--json]``.

Starts one ``laizi serve`` (a fresh SQLite file in a temporary directory; see
``benchmarks/queue_clients.py`` for its flags), registers ``--rate`` × ``--seconds`` accounts
through ``POST /api/register`` (each from its own address), seeds their standings — ranks and
OpenSkill ratings spread as on a live server (``queue_clients.realistic_standings``) — in the
server's database, then lets them arrive: a Poisson process of ``--rate`` arrivals a second for
``--seconds`` seconds.  Each arrival opens a WebSocket, queues (``--preset``, ``--kind``),
accepts the offer and counts as matched when it is sent its room; then it closes (the benchmark
measures matching, not play: the room, never joined, closes after ``--matched-room-seconds``).
After the last arrival the run waits up to ``--drain`` seconds for those still queued.  All the
people are one asyncio process (uvloop when installed): its CPU is printed next to the server's.

Keys printed as the last line with ``--json`` (INTERFACES.md):

``players``            arrivals
``matched``            of them, sent a room
``match_p50_s``        median seconds from ``queue`` to the room (matched people)
``match_p95_s``        95th percentile of that
``rating_spread_p95``  within each table, max − min of the four ordinals (μ − 3σ); the 95th
                       percentile over the tables
``errors``             refused messages, matches lapsed for someone (``lapsed`` other than
                       ``kept``/``requeued`` ends a person), connections that failed or closed,
                       a table with a person twice or not four people (ranked)

Also: ``unmatched`` (still queued at the end: a tier's last few, the last arrivals),
``lapses``, ``tables``, ``tiers`` (arrivals per tier), ``match_max_s``, ``rating_spread_max``,
``server_cpu`` and ``client_cpu`` (cores, over the arrivals and the drain), ``load_average``
(the machine's, at the end), ``seconds``.

Goal (issue 26 item 7): on a quiet 2-core machine, ``match_p95_s`` ≤ 30 at 20 arrivals a second,
errors 0.  The full run (the defaults, 2400 people) is documented in docs/server.md,
"Matchmaking".
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import cpu_seconds
from laizi.rules import Settings
from laizi.server.matchmaking.tiers import tier_of
from queue_clients import (
    CHEAP_HASH,
    QUEUE_SERVER_FLAGS,
    Errors,
    Matched,
    QueueClient,
    Standing,
    address,
    percentile,
    realistic_standings,
    register_accounts,
    seed_standings,
)
from server_process import report, throwaway_database_server


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def arrive(
    port: int,
    cookie: str,
    source: str,
    args: argparse.Namespace,
    errors: Errors,
    patience: float,
) -> tuple[Matched | None, int]:
    """One person: connect, queue, accept, get the room; (what came, lapses)."""
    try:
        client = await QueueClient.connect(port, cookie, source, errors)
    except Exception as error:
        errors.add("connect:" + type(error).__name__)
        return None, 0
    try:
        return await client.match(args.preset, args.kind, patience), client.lapses
    except Exception as error:  # a closed connection, a bad frame: counted
        errors.add("client:" + type(error).__name__)
        return None, client.lapses
    finally:
        await client.close()


async def run(port: int, pid: int, cookies: list[str], rows: list[Standing], args: Any) -> Any:
    errors = Errors()
    rng = random.Random(args.seed)
    times: list[float] = []
    t = 0.0
    while True:
        t += rng.expovariate(args.rate)
        if t >= args.seconds or len(times) == len(cookies):
            break
        times.append(t)
    tasks: list[asyncio.Task[tuple[Matched | None, int]]] = []
    cpu_before, client_before = cpu_seconds(pid), _client_cpu()
    start = time.monotonic()
    end = start + args.seconds + args.drain
    for i, at in enumerate(times):
        delay = start + at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        patience = end - time.monotonic()
        tasks.append(
            asyncio.create_task(arrive(port, cookies[i], address(i), args, errors, patience))
        )
    results = await asyncio.gather(*tasks)
    took = time.monotonic() - start
    cpu_after, client_after = cpu_seconds(pid), _client_cpu()
    server_cpu = None
    if cpu_before is not None and cpu_after is not None:
        server_cpu = round((cpu_after - cpu_before) / took, 3)
    matched = [(i, m) for i, (m, _) in enumerate(results) if m is not None]
    tables: dict[str, list[tuple[int, int]]] = {}
    for i, m in matched:
        tables.setdefault(m.room, []).append((i, m.seat))
    spreads = []
    for people in tables.values():
        seats = [seat for _, seat in people]
        if len(set(seats)) != len(seats) or len({i for i, _ in people}) != len(people):
            errors.add("table_twice")
        if args.kind == "ranked" and len(people) != 4:
            errors.add("table_not_four")
        ordinals = [rows[i].ordinal for i, _ in people]
        spreads.append(max(ordinals) - min(ordinals))
    waits = [m.seconds for _, m in matched]

    def rounded(value: float | None, digits: int = 2) -> float | None:
        return None if value is None else round(value, digits)

    tiers = Counter(tier_of(rows[i].points).id for i in range(len(times)))
    return {
        "players": len(times),
        "matched": len(matched),
        "match_p50_s": rounded(percentile(waits, 0.5)),
        "match_p95_s": rounded(percentile(waits, 0.95)),
        "rating_spread_p95": rounded(percentile(spreads, 0.95)),
        "errors": errors.count,
        "error_kinds": errors.kinds,
        "unmatched": len(times) - len(matched),
        "lapses": sum(lapses for _, lapses in results),
        "tables": len(tables),
        "tiers": dict(sorted(tiers.items())),
        "match_max_s": rounded(max(waits, default=None)),
        "rating_spread_max": rounded(max(spreads, default=None)),
        "rate": args.rate,
        "preset": args.preset,
        "kind": args.kind,
        "seconds": round(took, 1),
        "server_cpu": server_cpu,
        "client_cpu": round((client_after - client_before) / took, 3),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=20.0, help="arrivals per second")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long people arrive")
    parser.add_argument("--drain", type=float, default=60.0, help="then wait this long at most")
    parser.add_argument("--preset", default="wuhan-hongzhong-kaikou")
    parser.add_argument("--kind", default="ranked", choices=("ranked", "casual"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--matched-room-seconds",
        type=float,
        default=30.0,
        help="the server's: a matched room nobody joins closes after this (the people leave)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 0 < args.rate <= 500 or not 0 < args.seconds <= 3600 or args.drain < 0:
        parser.error("--rate must be 0–500, --seconds 0–3600, --drain ≥ 0")
    try:
        game = Settings.from_json(args.preset).game
    except Exception:
        parser.error(f"no preset is named {args.preset!r}")
    gc.freeze()
    runner: Any = asyncio.run
    try:
        import uvloop  # all the people are one process: let them cost little CPU

        runner = uvloop.run
    except ImportError:
        pass
    count = int(args.rate * args.seconds * 1.2) + 20  # enough for a Poisson process's arrivals
    names = [f"mm{args.seed % 1000}-{i:05d}" for i in range(count)]
    rows = realistic_standings(count, random.Random(args.seed))
    flags = (*QUEUE_SERVER_FLAGS, "--matched-room-seconds", str(args.matched_room_seconds))
    with throwaway_database_server(*flags, prelude=CHEAP_HASH) as (port, server, db):
        began = time.monotonic()
        cookies = register_accounts(port, names)
        seed_standings(db, names, game, rows)
        setup = time.monotonic() - began
        result = runner(run(port, server.pid, cookies, rows, args))
    result["setup_seconds"] = round(setup, 1)
    report(result, args.json)


if __name__ == "__main__":
    main()
