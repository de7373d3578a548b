"""Load benchmark of the online table — ``python benchmarks/bench_server.py [--json]``.

Starts one ``laizi serve`` process on 127.0.0.1 (a free port, a fresh SQLite file in a temporary
directory), creates ``--tables`` rooms of four people each, and connects 4 × tables scripted
WebSocket clients.  Each client answers every prompt after a think time drawn uniformly from
100–300 ms (a win when offered, else a random legal action).  After ``--seconds`` of play the
clients stop and the figures are printed.

Latency is measured at the client: from sending an action to receiving the event of that
decision (the server has checked it, written it to the database and broadcast it by then).

Keys printed as the last line with ``--json`` (INTERFACES.md):

``tables``         tables played
``actions_per_s``  decisions accepted per second, all tables together
``p50_ms``         median action → own-event latency
``p99_ms``         99th percentile of that latency
``errors``         error messages, unexpected disconnects, timed-out decisions (托管) and
                   clients that failed to connect
``hint_ms_p99``    99th percentile of the server's 听牌 hint computations (``laizi.engine.hints``,
                   one per prompt or table change of a seat with a person), as the server's
                   ``/healthz`` reports them; goal < 5 ms
``loop_lag_p99_ms`` 99th percentile of the server's event-loop lag while measuring (how late its
                   100 ms timer ran: ``laizi_loop_lag_seconds`` of ``GET /metrics``); goal ≤ 20 ms
``commit_p99_ms``  99th percentile of the server's store transactions while measuring (a group
                   commit or a hand's start, begin to commit: ``laizi_store_commit_seconds``;
                   run by the writer's thread, not the loop)
``tables_at_50ms`` with ``--step-up``: the most tables that held ``p99_ms`` ≤ 50 with no error,
                   stepping up from ``--step-from`` by ``--step-by`` (a fresh server and database
                   each step, ``--seconds`` each) until one does not; null without ``--step-up``
                   (it takes a run per step: minutes). ``steps`` lists each step's figures.

The two server-side percentiles are read from the difference of the histograms scraped when
measuring starts and ends, interpolated linearly within a bucket (as Prometheus's
``histogram_quantile``): their resolution is the buckets' (``laizi.server.metrics``).

``--db postgresql://USER@HOST:PORT/DB`` measures on PostgreSQL: each run gets a new database
on that server (made and dropped by the benchmark), instead of a fresh SQLite file.

Also printed: ``server_cpu`` (the server process's CPU use while measuring, in cores) and the
machine's ``load_average`` (the 2-core machine is shared: figures taken under load are worse).

Goals (issues 7, 31): 200 tables, p99 ≤ 50 ms, loop lag p99 ≤ 20 ms, zero errors on the project's
2-core machine, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import time
import urllib.request
from pathlib import Path
from typing import Any, Protocol

import websockets
from prometheus_client.parser import text_string_to_metric_families

from server_process import create_room, fresh_postgres, report, throwaway_server

DECISIONS = ("discard", "lay_out", "concealed_kong", "added_kong", "claim", "pass", "win")


TABLE = {
    "players": 4,
    "hands": 64,
    "action_seconds": 60,
    "between_hands_ms": 500,
    "settlement_seconds": 0,  # the scripted players never read the settlement
}
"""The benchmark's tables: four scripted people, matches longer than any run."""


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0
        self.error_kinds: dict[str, int] = {}
        self.measuring = False

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1

    def latency(self, seconds: float) -> None:
        """One action's latency (counted while measuring)."""
        if self.measuring:
            self.latencies.append(seconds)
            self.actions += 1


class Measured(Protocol):
    """Where a :func:`player` reports (``Stats`` here, ``bench_abuse.py``'s ``Measure``)."""

    def error(self, kind: str) -> None: ...

    def latency(self, seconds: float) -> None: ...


async def player(
    url: str,
    code: str,
    seat: int,
    stats: Measured,
    stop: asyncio.Event,
    rng: random.Random,
    think: tuple[float, float] = (0.1, 0.3),
) -> None:
    """One scripted person: join the seat, answer each prompt after a think of ``think``
    seconds (uniform; 100–300 ms), a win when offered, else a random legal action."""
    try:
        ws = await websockets.connect(url, max_size=2**22, open_timeout=60, compression=None)
    except Exception:
        stats.error("connect")
        return
    sent_at: list[float] = []

    async def answer(prompt: dict[str, Any]) -> None:
        await asyncio.sleep(rng.uniform(*think))
        if stop.is_set():
            return
        legal = prompt["legal"]
        wins = [a for a in legal if a["type"] == "win"]
        action = wins[0] if wins else rng.choice(legal)
        sent_at[:] = [time.perf_counter()]
        await ws.send(json.dumps({"type": "act", "prompt": prompt["id"], "action": action}))

    def handle(message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "event":
            event = message["event"]
            if sent_at and event.get("seat") == seat and event["type"] in DECISIONS:
                stats.latency(time.perf_counter() - sent_at[0])
                sent_at.clear()
        elif kind == "prompt":
            tasks.add(asyncio.create_task(answer(message)))
        elif kind == "error":
            stats.error("error:" + message["code"])
        elif kind == "auto" and message["on"]:
            stats.error("timeout")

    tasks: set[asyncio.Task[None]] = set()
    try:
        await ws.send(json.dumps({"type": "join", "room": code, "seat": seat}))
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            frame = json.loads(raw)
            for message in frame if isinstance(frame, list) else [frame]:
                handle(message)
            tasks = {t for t in tasks if not t.done()}
    except websockets.ConnectionClosed:
        if not stop.is_set():
            stats.error("disconnected")
    finally:
        for task in tasks:
            task.cancel()
        await ws.close()


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds of a process so far (Linux /proc), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(
    port: int, tables: int, seconds: float, warmup: float, seed: int, pid: int | None = None
) -> dict[str, Any]:
    url = f"ws://127.0.0.1:{port}/ws"
    codes = [create_room(port, TABLE) for _ in range(tables)]
    stats = Stats()
    stop = asyncio.Event()
    rng = random.Random(seed)
    tasks = []
    for code in codes:
        for seat in range(4):
            r = random.Random(rng.getrandbits(64))
            tasks.append(asyncio.create_task(player(url, code, seat, stats, stop, r)))
            await asyncio.sleep(0.002)  # don't open hundreds of sockets in one burst
    await asyncio.sleep(warmup)
    stats.measuring = True
    started = time.perf_counter()
    cpu_before = cpu_seconds(pid)
    histograms_before = await asyncio.to_thread(histograms, port)
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    cpu_after = cpu_seconds(pid)
    histograms_after = await asyncio.to_thread(histograms, port)
    server_cpu = (
        None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) / elapsed
    )
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    hint_ms_p99 = health(port).get("hint_ms_p99")
    lat = sorted(stats.latencies)
    p50 = statistics.median(lat) * 1000 if lat else None
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else None
    return {
        "tables": tables,
        "clients": 4 * tables,
        "seconds": round(elapsed, 1),
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1),
        "p50_ms": None if p50 is None else round(p50, 2),
        "p99_ms": None if p99 is None else round(p99, 2),
        "max_ms": round(lat[-1] * 1000, 2) if lat else None,
        "server_cpu": None if server_cpu is None else round(server_cpu, 3),
        "load_average": round(os.getloadavg()[0], 2),
        "errors": stats.errors,
        "error_kinds": stats.error_kinds,
        "hint_ms_p99": hint_ms_p99,
        "loop_lag_p99_ms": quantile_ms(
            histograms_before, histograms_after, "laizi_loop_lag_seconds", 0.99
        ),
        "commit_p99_ms": quantile_ms(
            histograms_before, histograms_after, "laizi_store_commit_seconds", 0.99
        ),
    }


Buckets = dict[str, list[tuple[float, float]]]
"""A histogram's name → its cumulative buckets (upper bound, count), in order."""


def histograms(port: int) -> Buckets:
    """The histograms of the server's ``GET /metrics`` (the benchmark is a loopback client)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out: Buckets = {}
    for family in text_string_to_metric_families(text):
        if family.type != "histogram":
            continue
        buckets = [
            (float(sample.labels["le"]), sample.value)
            for sample in family.samples
            if sample.name.endswith("_bucket")
        ]
        out[family.name] = sorted(buckets)
    return out


def quantile_ms(before: Buckets, after: Buckets, name: str, q: float) -> float | None:
    """The ``q`` quantile of what histogram ``name`` observed between two scrapes, in ms
    (linear within its bucket; the last finite bound when it falls in the ``+Inf`` one);
    None when nothing was observed."""
    old = dict(before.get(name, []))
    counts = [(le, count - old.get(le, 0.0)) for le, count in after.get(name, [])]
    if not counts or counts[-1][1] <= 0:
        return None
    rank = q * counts[-1][1]
    lower, below = 0.0, 0.0
    for le, cumulative in counts:
        if cumulative >= rank:
            if le == float("inf"):
                return round(lower * 1000, 2)
            inside = cumulative - below
            share = (rank - below) / inside if inside else 1.0
            return round((lower + (le - lower) * share) * 1000, 2)
        lower, below = le, cumulative
    return round(lower * 1000, 2)


def health(port: int) -> dict[str, Any]:
    """The server's ``/healthz`` (its hint timings among them)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
        body: dict[str, Any] = json.loads(r.read())
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, help="use a server already running on this port")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--db", help="a PostgreSQL server's URL: each run on a new database there (default: SQLite)"
    )
    parser.add_argument(
        "--step-up",
        action="store_true",
        help="also find tables_at_50ms: more tables each run until p99 > 50 ms (long)",
    )
    parser.add_argument("--step-from", type=int, default=50, help="--step-up's first count")
    parser.add_argument("--step-by", type=int, default=50, help="--step-up's step")
    parser.add_argument("--step-max", type=int, default=1000, help="--step-up's last count")
    args = parser.parse_args()
    if not 1 <= args.tables <= 1000 or not 0 < args.seconds <= 600:
        parser.error("--tables must be 1–1000 and --seconds 0–600")
    # The 800 scripted clients are one process: its own collector pauses would count in the
    # latency it measures (with Python's thresholds, up to 76 ms each on the 2-core machine).
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    runner: Any = asyncio.run
    try:
        import uvloop  # the clients are scripted in one process: let them cost little CPU

        runner = uvloop.run
    except ImportError:
        pass
    if args.port:
        result = runner(run(args.port, args.tables, args.seconds, args.warmup, args.seed))
    else:
        result = measure(runner, args, args.tables)
    if args.step_up:
        best, steps = step_up(runner, args)
        result["tables_at_50ms"] = best
        result["steps"] = steps
    else:
        result["tables_at_50ms"] = None
    report(result, args.json)


FLAGS = (
    # Every client comes from 127.0.0.1: the per-address caps (docs/server.md) are raised.
    "--rooms-per-address",
    "5000",
    "--connections-per-address",
    "10000",
    "--open-connections-per-address",
    "10000",
)


def measure(runner: Any, args: argparse.Namespace, tables: int) -> dict[str, Any]:
    """One run of ``tables`` tables on a fresh server and database."""
    with contextlib.ExitStack() as stack:
        db = stack.enter_context(fresh_postgres(args.db)) if args.db else None
        port, server = stack.enter_context(throwaway_server(*FLAGS, db=db))
        result: dict[str, Any] = runner(
            run(port, tables, args.seconds, args.warmup, args.seed, server.pid)
        )
    result["db"] = "postgresql" if args.db else "sqlite"
    return result


def step_up(runner: Any, args: argparse.Namespace) -> tuple[int | None, list[dict[str, Any]]]:
    """``tables_at_50ms``: the most tables whose run held p99 ≤ 50 ms with no error, stepping up
    until a run does not (or ``--step-max``); and each step's figures."""
    best, steps = None, []
    for tables in range(args.step_from, args.step_max + 1, args.step_by):
        figures = measure(runner, args, tables)
        keys = ("tables", "p99_ms", "loop_lag_p99_ms", "commit_p99_ms", "errors", "load_average")
        steps.append({key: figures[key] for key in keys})
        p99 = figures["p99_ms"]
        if p99 is None or p99 > 50 or figures["errors"]:
            break
        best = tables
    return best, steps


if __name__ == "__main__":
    main()
