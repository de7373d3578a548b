"""Fault benchmark (issue 30) — ``python benchmarks/bench_faults.py [--json] [--quick]``.

Deploys a cluster as docs/server.md "Running a cluster" says, on 127.0.0.1, in a temporary
directory: PostgreSQL (``deploy/postgres.sh``, so it can be stopped and started again on the
same data and port), Redis (``deploy/redis.sh``, nothing saved: a restart comes back empty),
three ``laizi serve --redis`` processes and nginx with the shipped site (``deploy/nginx``) in
front of them.  Then five phases, one after the other, each on fresh tables made through nginx
(``--tables``: half with one scripted person who answers at random and reconnects by itself
through nginx, half bots-only with a spectator who does the same; three-hand matches, four in
``redis`` and ``rolling``; one fewer each with ``--quick``), each fault injected once
every table has dealt and played a little, and every match played to its end before the next:

``kill9``    kill -9 of the process owning the most tables; it is started again afterwards
``sigterm``  SIGTERM of the process owning the most tables; started again once it exited
``postgres`` PostgreSQL stopped (``deploy/postgres.sh stop``: its connections cut) for
             ``--pg-outage`` seconds, then started again
``redis``    Redis restarted without its data; once every process listed its rooms again,
             kill -9 of the process owning the most tables (started again afterwards)
``rolling``  a rolling restart: each process in turn SIGTERM'd, started again, ``/healthz``
             waited for, then the next

Keys of the last line with ``--json`` (INTERFACES.md):

``kill9_recovery_s``     the killed owner's tables: the longest time from the kill to the first
                         event their viewer got from the new owner
``sigterm_exit_s_max``   the longest a SIGTERM'd process took to exit (``sigterm`` and every
                         step of ``rolling``)
``pg_recovery_s``        the longest time from PostgreSQL's return to a table's next event
``pg_lost_events``       events of the ``postgres`` phase a client never got: each viewer's
                         sequence numbers against the stored record (``compare_stream``)
``pg_stuck_tables``      tables with no event within 30 s of PostgreSQL's return
``redis_loss_orphan_s``  the longest time an unfinished room had no owner — no lease, or only
                         the killed process's — from the empty restart to the end of the
                         ``redis`` phase (polled every 0.1 s)
``rolling_escapes``      escapes booked in the records of the ``rolling`` phase's tables
``duplicated_events``    events a client got under a number where the record has another one
                         (repeated, extra or changed), and events stored twice, all phases
``unverified_records``   finished hands (and whole matches) whose stored record does not pass
                         ``laizi.engine.verify`` with a commitment, all phases
``errors``               error messages to the scripted clients, matches that did not end in
                         time, tables not back within 30 s of a kill or SIGTERM, events lost in
                         a phase other than ``postgres``, escapes outside ``rolling``, a phase
                         that failed, a process that died by itself

Also ``load_average`` (1 min, before and after), ``phases`` (each phase's figures: tables,
recovery per table, lost, wrong, escapes, unverified, errors, the fault's own timings) and
``server_log_errors`` (lines with ``ERROR`` or ``Traceback`` in the processes' logs: a lead for
whoever reads a failed run; the processes log the outage itself as warnings).

``--phases kill9,rolling`` runs only those faults (the keys of the others are null);
``--keep-logs`` keeps the processes' and nginx's logs (the directory is named on stderr); a
table that lost events is told on stderr with its missing numbers and its reconnections.

Goals (issue 30): every recovery ≤ 10 s (PostgreSQL: ≤ 5 s); lost, stuck, duplicated,
unverified, escapes and errors all 0.  ``--quick`` (CI's smoke run,
``tests/test_faults_bench_smoke.py``): 4 tables a phase, two-hand matches (three in ``rolling``),
a 3 s PostgreSQL stop.  Progress goes to stderr.  Every process and the temporary directory are
removed at the end, after an error, Ctrl-C, SIGTERM or SIGHUP too.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server_process import report

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]  # the cluster's tools are the tests'
from tests.cluster_helpers import (  # noqa: E402
    Cluster,
    OwnPostgres,
    OwnRedis,
    Player,
    compare_stream,
    events_of,
    match_records,
)
from tests.nginx_helpers import Nginx  # noqa: E402

from laizi.engine import verify  # noqa: E402

STUCK_S = 30.0
"""A table with no event this long after PostgreSQL's return is stuck (issue 30)."""
BACK_S = 30.0
"""A table of a killed or stopped process not played on within this counts as an error."""
LEASE_MS = 3000
PHASES = ["kill9", "sigterm", "postgres", "redis", "rolling"]
STOP_TIMEOUT_S = 10.0


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Table:
    """A table of a phase and the scripted client watching it (its person or a spectator)."""

    code: str
    people: bool
    viewer: Player

    def done(self) -> bool:
        return self.viewer.done

    def first_event_after(self, moment: float) -> float | None:
        """When the viewer got its first event after ``moment``."""
        for message, at in zip(self.viewer.messages, self.viewer.times, strict=True):
            if at > moment and message["type"] == "event":
                return at
        return None

    def back_after(self, moment: float) -> float | None:
        """When the viewer got its first event from the room's new owner after its owner was
        killed or stopped at ``moment``: its first after reconnecting — or, had its connection
        not been lost (a relay that followed the room), its first after ``moment`` (but for
        one already on its way, sent by the old owner in its last 0.2 s)."""
        if any(at > moment for at in self.viewer.closes):
            return next((at for at in self.viewer.back if at > moment), None)
        return self.first_event_after(moment + 0.2)


@dataclass
class Phase:
    """One fault's figures."""

    name: str
    figures: dict[str, Any] = field(default_factory=dict)
    errors: int = 0
    lost: int = 0
    wrong: int = 0
    escapes: int = 0
    unverified: int = 0

    def summary(self) -> dict[str, Any]:
        counts = {"lost": self.lost, "wrong": self.wrong, "escapes": self.escapes}
        return {**self.figures, **counts, "unverified": self.unverified, "errors": self.errors}


class Deployment:
    """PostgreSQL, Redis, three processes and nginx on 127.0.0.1, in ``where``."""

    def __init__(self, stack: ExitStack, where: Path) -> None:
        log("PostgreSQL (deploy/postgres.sh)")
        self.pg = OwnPostgres()
        stack.callback(self.pg.close)
        self.db = self.pg.database("laizi")
        log("Redis (deploy/redis.sh, nothing saved)")
        self.redis = OwnRedis(where / "redis")
        stack.callback(self.redis.close)
        flags = [
            *("--proxy-headers", "127.0.0.1", "--lease-ms", str(LEASE_MS)),
            *("--stop-timeout", str(STOP_TIMEOUT_S)),
            # every client is 127.0.0.1 (through nginx): the per-address caps are raised
            *("--rooms-per-address", "5000", "--connections-per-address", "10000"),
            *("--get-rate", "10000", "--get-burst", "10000"),
            *("--bot-rooms-per-account", "1000", "--rooms-per-account", "1000"),
        ]
        self.cluster = Cluster(where, self.db, self.redis.url, 3, tuple(flags))
        log("three laizi serve --redis processes")
        stack.enter_context(self.cluster)
        (where / "nginx").mkdir()
        self.nginx = Nginx(where / "nginx", [n.port for n in self.cluster.nodes])
        log(f"nginx on 127.0.0.1:{self.nginx.port}")
        stack.enter_context(self.nginx)
        self.cookie = self.nginx.account_cookie("faultbench")  # bots-only rooms need one
        self.where = where

    def owner_of_most(self, tables: list[Table]) -> int:
        """The index of the process owning the most unfinished tables."""
        ports = [self.cluster.owner_port(t.code) for t in tables if not t.done()]
        counts = Counter(p for p in ports if p is not None)
        nodes = [n.port for n in self.cluster.nodes]
        return nodes.index(max(nodes, key=lambda port: counts[port]))

    def owned_by(self, index: int, tables: list[Table]) -> list[Table]:
        port = self.cluster.nodes[index].port
        return [t for t in tables if not t.done() and self.cluster.owner_port(t.code) == port]

    async def sigterm(self, index: int) -> float:
        """SIGTERM process ``index``; the seconds until it exited (killed after the timeout
        and a margin: an error)."""
        proc = self.cluster.nodes[index].proc
        assert proc is not None
        self.cluster.dead.add(index)
        stopped = time.monotonic()
        proc.terminate()
        while proc.poll() is None:
            if time.monotonic() - stopped > STOP_TIMEOUT_S + 10:
                proc.kill()
                raise RuntimeError(f"process {index} did not exit within its stop timeout")
            await asyncio.sleep(0.02)
        return time.monotonic() - stopped

    async def restart(self, index: int) -> None:
        await asyncio.to_thread(self.cluster.nodes[index].start)  # back once /healthz answers
        self.cluster.dead.discard(index)

    def all_running(self) -> int:
        """Every process running again before the next phase: one that died by itself (an
        error each), or that a failed phase left stopped, is started again."""
        died = 0
        for i, node in enumerate(self.cluster.nodes):
            proc = node.proc
            if proc is None or proc.poll() is not None:
                if i not in self.cluster.dead:
                    code = None if proc is None else proc.returncode
                    log(f"process {i} died by itself (exit {code})")
                    died += 1
                node.start()
                self.cluster.dead.discard(i)
        return died

    def log_errors(self) -> int:
        lines = 0
        for node in self.cluster.nodes:
            text = node.log.read_text(errors="replace") if node.log.exists() else ""
            lines += sum("ERROR" in line or "Traceback" in line for line in text.splitlines())
        return lines


class Bench:
    def __init__(self, args: argparse.Namespace, dep: Deployment) -> None:
        self.args, self.dep = args, dep
        self.seed = 0
        self.phases: list[Phase] = []
        self.began = 0.0
        """When the current phase's tables were made (monotonic)."""
        self.deadline = 0.0
        """When the current phase's matches must have ended."""
        self.killed_nodes: set[str] = set()
        """The cluster ids of the processes killed: a lease one of them still holds is no owner."""

    def make_tables(self, hands: int) -> list[Table]:
        """``--tables`` fresh tables through nginx: half with a person, half bots-only."""
        fast: dict[str, Any] = {"hands": hands, "bot_delay_ms": 100, "claim_window_ms": 0}
        fast |= {"between_hands_ms": 300, "settlement_seconds": 0}
        port = self.dep.nginx.port
        tables = []
        for i in range(self.args.tables):
            self.seed += 1
            if i % 2 == 0:
                table = {**fast, "players": 1, "escape_grace_seconds": 20}
                code = self.dep.nginx.create_room(**table)["code"]
                viewer = Player(code, [port], seed=self.seed, delay=0.1)
            else:
                code = self.dep.nginx.create_room(cookie=self.dep.cookie, players=0, **fast)["code"]
                viewer = Player(code, [port], seed=self.seed, spectate=True)
            tables.append(Table(code, i % 2 == 0, viewer))
        return tables

    async def run_phase(self, name: str, hands: int, fault: Any) -> None:
        """Fresh tables; ``fault(phase, tables)`` once every one has played a little; every
        match to its end; then the checks."""
        phase = Phase(name)
        self.phases.append(phase)
        log(f"phase {name}: {self.args.tables} tables")
        tasks: list[asyncio.Task[None]] = []
        try:
            tables = await asyncio.to_thread(self.make_tables, hands)
            self.began = time.monotonic()
            self.deadline = deadline = self.began + self.args.match_timeout
            tasks = [asyncio.create_task(t.viewer.run(deadline)) for t in tables]
            while not all(t.viewer.last_seq is not None and t.viewer.last_seq > 12 for t in tables):
                await asyncio.sleep(0.05)
                if time.monotonic() > deadline:
                    raise RuntimeError("the tables did not start")
            await fault(phase, tables)
            log(f"phase {name}: waiting for every match to end")
            ended = await asyncio.gather(*tasks, return_exceptions=True)
            for table, outcome in zip(tables, ended, strict=True):
                if isinstance(outcome, BaseException):
                    log(f"  {table.code}: {outcome!r}")
                    phase.errors += 1
            phase.errors += await asyncio.to_thread(self.dep.all_running)
            await asyncio.to_thread(self.check, phase, tables)
        except Exception as error:  # the next phases still run: a failed one is an error
            log(f"phase {name} failed: {error!r}")
            phase.errors += 1
            phase.figures["failure"] = repr(error)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.to_thread(self.dep.all_running)
        log(f"phase {name}: {phase.summary()}")

    def check(self, phase: Phase, tables: list[Table]) -> None:
        """Every table's record verifies; every viewer's stream is the record's."""
        port = self.dep.nginx.port
        for table in tables:
            phase.errors += len(table.viewer.errors)
            if not table.done():
                continue  # counted (no match end in time)
            try:
                hands = match_records(port, table.code)
            except RuntimeError as error:
                log(f"  {error}")
                phase.errors += 1
                continue
            whole = verify([e for hand in hands for e in hand])
            phase.unverified += sum(verify(hand).status != "verified" for hand in hands)
            phase.unverified += not whole.ok
            phase.escapes += sum(r["escaped"] is not None for r in whole.results)
            seen = compare_stream(table.viewer, hands)
            phase.lost += seen.lost
            if seen.lost:
                log(f"  {table.code}: lost {seen.lost} of {seen.expected}: {runs(seen.missing)}")
                log(f"    {self.story(table)}")
            stored = Counter((h, i) for h, i, _ in events_of(self.dep.db, table.code))
            phase.wrong += seen.wrong + sum(n - 1 for n in stored.values())

    def story(self, table: Table) -> str:
        """When the viewer's connections were lost and came back, and what it got then (the
        seconds since the phase began): for whoever reads a run that lost events."""
        viewer, began = table.viewer, self.began
        kind = "person" if table.people else "spectator"
        got = [
            f"{m['type']} {m.get('seq', '')}@{at - began:.2f}"
            for m, at in zip(viewer.messages, viewer.times, strict=True)
            if m["type"] in ("snapshot", "joined", "welcome")
        ]
        closes = ", ".join(f"{at - began:.2f}" for at in viewer.closes)
        return f"{kind}; connections lost at {closes}; got {', '.join(got)}"

    def recovery(self, phase: Phase, tables: list[Table], since: float, key: str) -> float | None:
        figures = [t.back_after(since) for t in tables]
        phase.errors += sum(f is None for f in figures)
        seconds = [round(f - since, 2) for f in figures if f is not None]
        phase.figures[key] = seconds
        return max(seconds) if seconds else None

    async def wait_back(self, tables: list[Table], since: float) -> None:
        """Until every table's viewer reconnected and got an event (a viewer whose connection
        was never lost is waited for to the end: :meth:`Table.back_after` then reads it)."""
        until = since + BACK_S
        while time.monotonic() < until and not all(
            t.done() or any(at > since for at in t.viewer.back) for t in tables
        ):
            await asyncio.sleep(0.05)

    # -- the faults --------------------------------------------------------------------------

    def victims(self, phase: Phase, tables: list[Table]) -> tuple[int, list[Table]]:
        """The process owning the most unfinished tables, and those tables (none: an error —
        the fault would prove nothing)."""
        index = self.dep.owner_of_most(tables)
        victims = self.dep.owned_by(index, tables)
        if not victims:
            log("  no process owns an unfinished table: the fault proves nothing")
            phase.errors += 1
        return index, victims

    async def kill9(self, phase: Phase, tables: list[Table]) -> None:
        index, victims = self.victims(phase, tables)
        log(f"  kill -9 of process {index} (owner of {len(victims)} tables)")
        r = self.dep.cluster.redis()
        leases = [r.get(self.dep.cluster.prefix + f"lease:{t.code}") for t in victims]
        self.killed_nodes.update(node for node in leases if node is not None)
        killed = time.monotonic()
        self.dep.cluster.kill9(index)
        await self.wait_back(victims, killed)
        phase.figures["recovery_s"] = self.recovery(phase, victims, killed, "tables_back_s")
        await self.dep.restart(index)

    async def sigterm(self, phase: Phase, tables: list[Table]) -> None:
        index, victims = self.victims(phase, tables)
        log(f"  SIGTERM of process {index} (owner of {len(victims)} tables)")
        stopped = time.monotonic()
        phase.figures["exit_s"] = [round(await self.dep.sigterm(index), 2)]
        await self.wait_back(victims, stopped)
        phase.figures["recovery_s"] = self.recovery(phase, victims, stopped, "tables_back_s")
        await self.dep.restart(index)

    async def postgres(self, phase: Phase, tables: list[Table]) -> None:
        playing = [t for t in tables if not t.done()]
        log(f"  PostgreSQL stopped for {self.args.pg_outage} s ({len(playing)} tables playing)")
        stopped = time.monotonic()
        await asyncio.to_thread(self.dep.pg.stop)
        down = time.monotonic()  # its last connection gone
        try:
            await asyncio.sleep(max(0.0, self.args.pg_outage - (time.monotonic() - stopped)))
        finally:
            await asyncio.to_thread(self.dep.pg.start)
        back = time.monotonic()
        phase.figures["outage_s"] = round(back - stopped, 2)
        # nothing is sent that is not written: an event the clients got meanwhile is a lead
        phase.figures["events_in_outage"] = sum(
            1
            for t in playing
            for at, m in zip(t.viewer.times, t.viewer.messages, strict=True)
            if down + 0.2 < at < back and m["type"] == "event"
        )
        until = back + STUCK_S
        while time.monotonic() < until and not all(
            t.done() or t.first_event_after(back) for t in playing
        ):
            await asyncio.sleep(0.05)
        firsts = [t.first_event_after(back) for t in playing]
        phase.figures["stuck"] = sum(f is None or f - back > STUCK_S for f in firsts)
        seconds = [round(f - back, 2) for f in firsts if f is not None]
        phase.figures["tables_back_s"] = seconds
        phase.figures["recovery_s"] = max(seconds) if seconds else None

    async def redis(self, phase: Phase, tables: list[Table]) -> None:
        watch = asyncio.create_task(self.orphans(phase, tables))
        try:
            log("  Redis restarted without its data")
            await asyncio.to_thread(self.dep.redis.restart_empty)
            r = self.dep.cluster.redis()
            key = self.dep.cluster.prefix + "rooms"
            listed = time.monotonic() + BACK_S
            # every room listed again, and its owner's lease written again
            while not {t.code for t in tables if not t.done()} <= r.smembers(key) or any(
                self.dep.cluster.owner_port(t.code) is None for t in tables if not t.done()
            ):
                if time.monotonic() > listed:
                    raise RuntimeError("the processes did not list their rooms again")
                await asyncio.sleep(0.1)
            await self.kill9(phase, tables)
            while not all(t.done() for t in tables) and time.monotonic() < self.deadline:
                await asyncio.sleep(0.1)
        finally:
            watch.cancel()
            await asyncio.gather(watch, return_exceptions=True)

    async def orphans(self, phase: Phase, tables: list[Table]) -> None:
        """Poll every unfinished room's lease; the longest time one had none, or only the
        lease of a killed process (until it lapses and another process takes the room)."""
        r = self.dep.cluster.redis()
        since: dict[str, float] = {}
        longest = 0.0
        phase.figures["orphan_s"] = 0.0
        while True:
            playing = [t.code for t in tables if not t.done()]
            pipe = r.pipeline()
            for code in playing:
                pipe.get(self.dep.cluster.prefix + f"lease:{code}")
            try:
                held = await asyncio.to_thread(pipe.execute)
            except Exception:  # Redis restarting: no answer (the owners play on meanwhile)
                await asyncio.sleep(0.05)
                continue
            now = time.monotonic()
            for code, node in zip(playing, held, strict=True):
                if node is None or node in self.killed_nodes:  # no lease, or a dead one's
                    since.setdefault(code, now)
                elif code in since:
                    longest = max(longest, now - since.pop(code))
            for code in set(since) - set(playing):
                since.pop(code)  # its match ended (the lease goes with it)
            open_longest = max((now - at for at in since.values()), default=0.0)
            phase.figures["orphan_s"] = round(max(longest, open_longest), 2)
            await asyncio.sleep(0.1)

    async def rolling(self, phase: Phase, tables: list[Table]) -> None:
        phase.figures["exit_s"] = []
        began = time.monotonic()
        for index in range(len(self.dep.cluster.nodes)):
            log(f"  rolling: SIGTERM of process {index} at {time.monotonic() - self.began:.2f}")
            exit_s = await self.dep.sigterm(index)
            phase.figures["exit_s"].append(round(exit_s, 2))
            await self.dep.restart(index)
        # every table played on after the last restart (or over): then each table's longest
        # wait between two events from the first SIGTERM on
        restarted = time.monotonic()
        while time.monotonic() < restarted + BACK_S and not all(
            t.done() or t.first_event_after(restarted) for t in tables
        ):
            await asyncio.sleep(0.05)
        ended = time.monotonic()
        pauses = []
        for table in tables:
            viewer = table.viewer
            times = [began] + [
                at
                for at, m in zip(viewer.times, viewer.messages, strict=True)
                if began <= at <= ended and m["type"] == "event"
            ]
            if not table.done():
                times.append(max(ended, times[-1]))
            pauses.append(max((b - a for a, b in itertools.pairwise(times)), default=0.0))
        phase.figures["longest_pause_s"] = round(max(pauses, default=0.0), 2)

    async def main(self) -> dict[str, Any]:
        quick = self.args.quick
        hands = 2 if quick else 3  # the matches outlast the fault and the recovery
        faults = {
            "kill9": (hands, self.kill9),
            "sigterm": (hands, self.sigterm),
            "postgres": (hands, self.postgres),
            # redis injects two faults in a row (Redis emptied, then a kill -9 once the rooms
            # are listed again), rolling three restarts: one hand more each, or a quick match
            # can end before the last fault and leave it nothing to prove
            "redis": (hands + 1, self.redis),
            "rolling": (hands + 1, self.rolling),
        }
        for name, (match_hands, fault) in faults.items():
            if name in self.args.phases:
                await self.run_phase(name, match_hands, fault)
        by = {p.name: p for p in self.phases}  # a phase not run (--phases): its keys null

        def of(name: str, read: Any) -> Any:
            return read(by[name]) if name in by else None

        exits = [e for name in ("sigterm", "rolling") for e in of(name, exit_times) or []]
        errors = sum(p.errors for p in self.phases)
        errors += sum(p.lost for p in self.phases if p.name != "postgres")
        errors += sum(p.escapes for p in self.phases if p.name != "rolling")
        return {
            "kill9_recovery_s": of("kill9", lambda p: p.figures.get("recovery_s")),
            "sigterm_exit_s_max": max(exits) if exits else None,
            "pg_recovery_s": of("postgres", lambda p: p.figures.get("recovery_s")),
            "pg_lost_events": of("postgres", lambda p: p.lost),
            "pg_stuck_tables": of("postgres", lambda p: p.figures.get("stuck")),
            "redis_loss_orphan_s": of("redis", lambda p: p.figures.get("orphan_s")),
            "rolling_escapes": of("rolling", lambda p: p.escapes),
            "duplicated_events": sum(p.wrong for p in self.phases),
            "unverified_records": sum(p.unverified for p in self.phases),
            "errors": errors,
            "tables": self.args.tables,
            "phases": {p.name: p.summary() for p in self.phases},
            "server_log_errors": self.dep.log_errors(),
        }


def exit_times(phase: Phase) -> list[float]:
    times: list[float] = phase.figures.get("exit_s", [])
    return times


def runs(numbers: tuple[int, ...]) -> str:
    """``(3, 4, 5, 9)`` → ``"3-5, 9"``."""
    out: list[str] = []
    for n in numbers:
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = out[-1].split("-")[0] + f"-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)


@contextmanager
def deployed(keep: bool) -> Iterator[Deployment]:
    """The deployment in a temporary directory; everything stopped at the end, and the
    directory removed (``keep``: its logs are kept, and named)."""
    where = Path(tempfile.mkdtemp(prefix="laizi-bench-faults."))
    try:
        with ExitStack() as stack:
            yield Deployment(stack, where)
    finally:
        if keep:
            shutil.rmtree(where / "redis", ignore_errors=True)
            log(f"the processes' and nginx's logs are kept in {where}")
        else:
            shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, help="tables a phase (default 12; --quick 4)")
    parser.add_argument("--pg-outage", type=float, help="seconds (default 10; --quick 3)")
    parser.add_argument("--match-timeout", type=float, default=300.0, help="seconds a phase")
    parser.add_argument(
        "--phases",
        type=lambda text: text.split(","),
        default=PHASES,
        help=f"the faults to run, in their order (default {','.join(PHASES)})",
    )
    parser.add_argument(
        "--keep-logs", action="store_true", help="keep the processes' and nginx's logs"
    )
    parser.add_argument("--quick", action="store_true", help="CI's smoke run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.tables = args.tables or (4 if args.quick else 12)
    args.pg_outage = args.pg_outage if args.pg_outage is not None else 3.0 if args.quick else 10.0
    if set(args.phases) - set(PHASES):
        parser.error(f"--phases: of {','.join(PHASES)}")
    if args.tables < 2:
        parser.error("--tables: at least 2 (one with a person, one bots-only)")
    for ending in (signal.SIGTERM, signal.SIGHUP):  # ended as Ctrl-C is: everything stopped
        signal.signal(ending, signal.default_int_handler)
    load_before = round(os.getloadavg()[0], 2)
    with deployed(args.keep_logs) as dep:
        result = asyncio.run(Bench(args, dep).main())
    result["load_average"] = {"before": load_before, "after": round(os.getloadavg()[0], 2)}
    report(result, args.json)


if __name__ == "__main__":
    main()
