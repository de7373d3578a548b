"""Cluster benchmark (issue 16) — ``python benchmarks/bench_cluster.py [--json] [--quick]``.

Starts a throw-away Redis (``scripts/redis.sh``; or ``--redis URL``) and uses a PostgreSQL server
(``--postgres URL``, else ``LAIZI_TEST_POSTGRES_URL``, else a throw-away one from
``scripts/postgres.sh``), with a fresh database for each phase:

1. **tables_1, tables_2** — 1, then 2 ``laizi serve --redis`` processes.  Tables of four scripted
   people (``bench_server.py``'s clients: a 100–300 ms think, action → own-event latency) are
   added in steps (``--steps``); the clients connect to the processes in turn, as behind a
   round-robin proxy, so with two processes half of them are forwarded to their room's owner.
   After each step the latency is measured for ``--seconds``; the figure is the most tables
   held with p99 ≤ 50 ms and no error.  The ratio tables_2 / tables_1 is the scaling on this
   machine (2 cores: the limit is the machine, and the clients share it).
2. **failover_s** — 2 processes, ``--failover-tables`` tables with one person each (who
   reconnects by itself, to any process); mid-hand the process owning the most of them is
   killed (SIGKILL).  The figure is the longest time from the death to the first event a
   person of a killed table receives from the new owner (lease lapse + takeover + rebuild +
   reconnection).

``--cpu-quota F`` (issue 26): every ``laizi serve`` of the three phases runs in a cgroup of its
own capped at ``F`` of one CPU (``cgroup_cpu.py``: cgroup v1 ``cpu.cfs_quota_us`` or v2
``cpu.max``, whichever has the cpu controller under ``--cgroup-root``, default /sys/fs/cgroup;
a 10 ms period, ``--cpu-period-ms``), entered before the process runs, so its threads and
workers are capped with it; the clients, Redis and PostgreSQL are not.  Then ``tables_1`` and
``tables_2`` measure the servers, not the machine: on 2 cores, 0.4 each leaves the clients,
Redis and PostgreSQL 1.2 CPUs.  The default steps are finer then (5 to 200 tables).  The
groups are removed at the end, on an error, Ctrl-C, SIGTERM or SIGHUP too.  Making them needs
root: where no hierarchy is writable (not root, a read-only mount, no cpu controller) the
benchmark says so on stderr and exits 2 before starting anything.

Keys printed as the last line with ``--json`` (INTERFACES.md): ``tables_1``, ``tables_2``,
``failover_s``, ``errors`` (error messages, unexpected disconnects and timeouts in the steps
counted, and killed tables whose person did not get back within 30 s); also ``tables_ratio``
(``tables_2 / tables_1``, null when ``tables_1`` is 0), ``cpu_quota`` (``F``, null without the
flag), each step's figures (``steps_1``, ``steps_2``; ``server_cpu``: each server process's CPU
use while measured, in CPUs — at ``F`` the servers are the limit, below it something else is;
``client_cpu``: the scripted people's, all in this process) and the machine's ``load_average``.

``--quick`` (CI's smoke run): steps of 2 and 4 tables, 2 s each, 4 failover tables.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import websockets

from bench_server import Stats, player
from cgroup_cpu import DEFAULT_PERIOD_US, DEFAULT_ROOT, CgroupUnavailable, CpuGroups, cpu_seconds
from server_process import SRC, create_room, free_port, fresh_postgres, report

ROOT = Path(__file__).resolve().parents[1]
P99_GOAL_MS = 50.0
STEPS = [25, 50, 100, 150, 200, 300, 400]
# Capped servers hold fewer tables: finer steps, or the ratio tables_2 / tables_1 is mostly the
# steps' (25 → 50 is 2.0, 50 → 50 is 1.0).
QUOTA_STEPS = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 100, 120, 150, 200]


@contextmanager
def _throwaway(script_name: str, given: str | None) -> Iterator[str]:
    """``given``, or a throw-away server started (and stopped) by ``scripts/SCRIPT_NAME``."""
    if given:
        yield given
        return
    where = tempfile.mkdtemp(prefix=f"laizi-bench-{script_name.split('.')[0]}.")
    script = str(ROOT / "scripts" / script_name)
    url = subprocess.run(
        ["bash", script, "start", where], capture_output=True, text=True, check=True
    ).stdout.split()[-1]
    try:
        yield url
    finally:
        subprocess.run(["bash", script, "stop", where], capture_output=True, check=False)


def redis_server(given: str | None) -> AbstractContextManager[str]:
    return _throwaway("redis.sh", given)


def postgres_server(given: str | None) -> AbstractContextManager[str]:
    return _throwaway("postgres.sh", given or os.environ.get("LAIZI_TEST_POSTGRES_URL"))


class Processes:
    """``n`` processes of one cluster (a fresh key prefix) on free ports."""

    def __init__(
        self, n: int, db: str, redis: str, where: Path, cpu: CpuGroups | None = None
    ) -> None:
        self.ports = [free_port() for _ in range(n)]
        self.db, self.redis, self.where, self.cpu = db, redis, where, cpu
        self.prefix = "b" + secrets.token_hex(4) + ":"
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Processes:
        try:
            for port in self.ports:  # one after the other: the first one migrates the database
                self._start(port)
        except BaseException:  # one did not start, or Ctrl-C: none is left running
            self.__exit__()
            raise
        return self

    def _start(self, port: int) -> None:
        """``laizi serve`` on ``port``, once it answers."""
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        args = ["serve", "--port", str(port), "--db", self.db, "--redis", self.redis]
        args += ["--redis-prefix", self.prefix, "--log-level", "warning"]
        # Every client comes from 127.0.0.1: the per-address caps (docs/server.md) are raised.
        args += ["--rooms-per-address", "5000", "--connections-per-address", "10000"]
        # --cpu-quota: the process enters its capped group before it runs (its threads and
        # worker processes with it); the clients, Redis and PostgreSQL stay outside
        join = None if self.cpu is None else self.cpu.new().join
        with open(self.where / f"node-{port}.log", "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-c", "from laizi.cli import main; main()", *args],
                env=env,
                stdout=log,
                stderr=log,
                preexec_fn=join,
            )
        self.procs.append(proc)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the process on port {port} did not start") from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def owner(self, code: str) -> int | None:
        import redis

        r = redis.Redis.from_url(self.redis, decode_responses=True)
        node = r.get(f"{self.prefix}lease:{code}")
        info = None if node is None else r.get(f"{self.prefix}node:{node}")
        return None if info is None else int(json.loads(info)["address"].rsplit(":", 1)[1])


def p99(values: list[float]) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else None


async def ramp(procs: Processes, steps: list[int], seconds: float, warmup: float) -> dict[str, Any]:
    """Add tables step by step; the most held with p99 ≤ 50 ms and no error."""
    table = {"players": 4, "hands": 64, "action_seconds": 60, "between_hands_ms": 500}
    stop = asyncio.Event()
    rng = random.Random(1)
    tasks: list[asyncio.Task[None]] = []
    held, errors, figures = 0, 0, []
    stats = Stats()
    made = 0
    try:
        for step in steps:
            while made < step:
                port = procs.ports[made % len(procs.ports)]
                code = await asyncio.to_thread(create_room, port, table)
                for seat in range(4):  # connected in turn to every process (a balancer's way)
                    url_port = procs.ports[(made + seat) % len(procs.ports)]
                    url = f"ws://127.0.0.1:{url_port}/ws"
                    r = random.Random(rng.getrandbits(64))
                    tasks.append(asyncio.create_task(player(url, code, seat, stats, stop, r)))
                    await asyncio.sleep(0.002)
                made += 1
            await asyncio.sleep(warmup)
            stats.latencies.clear()
            before = stats.errors
            used = [cpu_seconds(proc.pid) for proc in procs.procs]
            started, own = time.monotonic(), time.process_time()
            stats.measuring = True
            await asyncio.sleep(seconds)
            stats.measuring = False
            took = time.monotonic() - started
            shares = [
                round((cpu_seconds(proc.pid) - before_s) / took, 2)
                for proc, before_s in zip(procs.procs, used, strict=True)
            ]
            clients = round((time.process_time() - own) / took, 2)
            late = p99(stats.latencies)
            step_errors = stats.errors - before
            figures.append(
                {
                    "tables": step,
                    "p99_ms": None if late is None else round(late, 2),
                    "actions": len(stats.latencies),
                    "errors": step_errors,
                    "server_cpu": shares,
                    "client_cpu": clients,
                }
            )
            if late is None or late > P99_GOAL_MS or step_errors:
                break
            held, errors = step, errors + step_errors
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"held": held, "errors": errors, "steps": figures}


class Person:
    """One person at a table who answers at once and reconnects to any process by itself."""

    def __init__(self, code: str, ports: list[int], seed: int) -> None:
        self.code, self.ports, self.rng = code, ports, random.Random(seed)
        self.token: str | None = None
        self.last_seq: int | None = None
        self.lost_at: float | None = None
        self.back_after: float | None = None
        self.errors = 0

    async def run(self, stop: asyncio.Event) -> None:
        turn = 0
        while not stop.is_set():
            port = self.ports[turn % len(self.ports)]
            turn += 1
            try:
                ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=3)
            except (OSError, TimeoutError, websockets.WebSocketException):
                await asyncio.sleep(0.1)
                continue
            join: dict[str, Any] = {"type": "join", "room": self.code}
            if self.token is None:
                join["name"] = "bench"
            else:
                join |= {"token": self.token, "last_seq": self.last_seq}
            try:
                await ws.send(json.dumps(join))
                while not stop.is_set():
                    try:
                        raw = await asyncio.wait_for(ws.recv(), 0.5)
                    except TimeoutError:
                        continue
                    frame = json.loads(raw)
                    for message in frame if isinstance(frame, list) else [frame]:
                        await self.take(ws, message)
            except websockets.WebSocketException:
                if self.lost_at is None:
                    self.lost_at = time.monotonic()
            finally:
                await ws.close()

    async def take(self, ws: Any, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "joined":
            self.token = message["token"]
        elif kind == "event":
            self.last_seq = message["seq"]
            if self.lost_at is not None and self.back_after is None:
                self.back_after = time.monotonic()
        elif kind == "prompt":
            action = self.rng.choice(message["legal"])
            await ws.send(json.dumps({"type": "act", "prompt": message["id"], "action": action}))
        elif kind == "error" and message["code"] not in ("stale_prompt", "not_your_turn"):
            self.errors += 1


async def failover(procs: Processes, tables: int) -> tuple[float | None, int]:
    """Kill the process owning most tables mid-hand; the longest death → first event."""
    table = {"players": 1, "hands": 64, "bot_delay_ms": 100, "between_hands_ms": 200}
    codes = [await asyncio.to_thread(create_room, procs.ports[i % 2], table) for i in range(tables)]
    people = [Person(code, procs.ports, i) for i, code in enumerate(codes)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.run(stop)) for p in people]
    deadline = time.monotonic() + 60
    while not all(p.last_seq is not None and p.last_seq > 10 for p in people):
        await asyncio.sleep(0.1)
        if time.monotonic() > deadline:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            return None, tables
    owners = {code: procs.owner(code) for code in codes}
    victim = max(procs.ports, key=lambda port: list(owners.values()).count(port))
    index = procs.ports.index(victim)
    died = time.monotonic()
    procs.procs[index].kill()
    procs.procs[index].wait()
    killed = [p for p in people if owners[p.code] == victim]
    deadline = died + 30
    while time.monotonic() < deadline and not all(p.back_after for p in killed):
        await asyncio.sleep(0.05)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    back = [p.back_after - died for p in killed if p.back_after is not None]
    errors = sum(p.errors for p in people) + sum(p.back_after is None for p in killed)
    return (round(max(back), 2) if back else None), errors


async def main_async(
    args: argparse.Namespace, redis: str, server: str, cpu: CpuGroups | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"cpu_quota": args.cpu_quota}
    errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1, 2):
            with fresh_postgres(server) as db, Processes(n, db, redis, Path(tmp), cpu) as procs:
                result = await ramp(procs, args.steps, args.seconds, args.warmup)
            out[f"tables_{n}"] = result["held"]
            out[f"steps_{n}"] = result["steps"]
            errors += result["errors"]
        held_1, held_2 = out["tables_1"], out["tables_2"]
        out["tables_ratio"] = round(held_2 / held_1, 2) if held_1 else None
        with fresh_postgres(server) as db, Processes(2, db, redis, Path(tmp), cpu) as procs:
            seconds, failed = await failover(procs, args.failover_tables)
        out["failover_s"] = seconds
        errors += failed
    out["errors"] = errors
    out["load_average"] = round(os.getloadavg()[0], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--steps",
        type=lambda s: [int(x) for x in s.split(",")],
        help="table counts to try, in order (comma-separated; default "
        f"{','.join(map(str, STEPS))}, with --cpu-quota {','.join(map(str, QUOTA_STEPS))})",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="measured per step")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument("--failover-tables", type=int, default=10)
    parser.add_argument("--redis", help="a Redis to use (default: a throw-away one)")
    parser.add_argument("--postgres", help="a PostgreSQL server URL to make databases on")
    parser.add_argument(
        "--cpu-quota",
        type=float,
        metavar="F",
        help="cap each server process at F of one CPU (e.g. 0.4) in a cgroup of its own; "
        "needs root (exit 2 where no cgroup v1/v2 cpu hierarchy is writable)",
    )
    parser.add_argument(
        "--cpu-period-ms",
        type=float,
        default=DEFAULT_PERIOD_US / 1000,
        help="the quota's period (default %(default)s ms; the kernel's is 100): a capped process "
        "that used its share waits up to (1 - F) × period",
    )
    parser.add_argument(
        "--cgroup-root",
        type=Path,
        default=DEFAULT_ROOT,
        help="where the cgroup hierarchies are mounted (default %(default)s)",
    )
    parser.add_argument("--quick", action="store_true", help="CI's smoke run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # The scripted people are one process: its own collector pauses would count in the latency
    # it measures (bench_server.py does the same).
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    if args.quick:
        args.steps, args.seconds, args.warmup, args.failover_tables = [2, 4], 2.0, 1.0, 4
    elif args.steps is None:
        args.steps = QUOTA_STEPS if args.cpu_quota is not None else STEPS
    if not args.steps or any(not 1 <= s <= 2000 for s in args.steps):
        parser.error("--steps: table counts 1–2000")
    with ExitStack() as stack:
        cpu = None
        if args.cpu_quota is not None:
            try:
                period_us = round(args.cpu_period_ms * 1000)
                groups = CpuGroups(args.cpu_quota, args.cgroup_root, period_us)
                cpu = stack.enter_context(groups)
            except ValueError as e:
                parser.error(f"--cpu-quota: {e}")
            except CgroupUnavailable as e:
                print(f"bench_cluster.py: --cpu-quota: {e}", file=sys.stderr)
                raise SystemExit(2) from None
        # a SIGTERM or SIGHUP ends the run as Ctrl-C does: servers killed, groups removed
        for ending in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(ending, signal.default_int_handler)
        redis = stack.enter_context(redis_server(args.redis))
        server = stack.enter_context(postgres_server(args.postgres))
        result = asyncio.run(main_async(args, redis, server, cpu))
    report(result, args.json)


if __name__ == "__main__":
    main()
