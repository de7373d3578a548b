"""A cluster of real ``laizi serve --redis`` processes for the cluster tests and the benchmark:
a throw-away Redis, a fresh PostgreSQL database, and players that reconnect by themselves."""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import websockets
from typer.testing import CliRunner

from laizi.cli import app
from laizi.engine import parse_record, seat_event
from tests.server_checks import (
    canonical,
    check_hand_stream,
    server_stream,
    split_hands,
    stream_events,
)
from tests.server_helpers import SRC, ServerProcess, free_port

ROOT = Path(__file__).resolve().parent.parent
REDIS_ENV = "LAIZI_TEST_REDIS_URL"
REDIS_SH = str(ROOT / "scripts" / "redis.sh")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """A Redis server's URL: ``LAIZI_TEST_REDIS_URL`` (scripts/test.sh starts one), else one
    started here for the session (scripts/redis.sh); every cluster uses its own key prefix."""
    url = os.environ.get(REDIS_ENV)
    if url:
        yield url
        return
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is not installed (scripts/redis.sh install)")
        pytest.skip(f"no redis-server (run scripts/test.sh, or set {REDIS_ENV})")
    where = tempfile.mkdtemp(prefix="laizi-test-redis.")
    started = subprocess.run(
        ["bash", REDIS_SH, "start", where], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        pytest.fail(f"Redis could not be started: {started.stderr[-500:]}")
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", REDIS_SH, "stop", where], capture_output=True, check=False)


class OwnRedis:
    """A Redis of one test's own (``deploy/redis.sh``, nothing saved to disk), on a fixed port:
    it can be restarted empty — as an operator's Redis that lost its data."""

    SH = str(ROOT / "deploy" / "redis.sh")

    def __init__(self, where: Path) -> None:
        self.where = str(where)
        self.url = self._run("start")

    def _run(self, command: str) -> str:
        env = {**os.environ, "LAIZI_REDIS_SAVE": "no"}
        done = subprocess.run(
            ["bash", self.SH, command, self.where], capture_output=True, text=True, env=env
        )
        if done.returncode != 0:
            raise RuntimeError(f"deploy/redis.sh {command}: {done.stderr[-500:]}")
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    def restart_empty(self) -> None:
        """Stop it and start it again on the same port, without its data."""
        self._run("stop")
        assert self._run("start") == self.url

    def close(self) -> None:
        self._run("destroy")


class OwnPostgres:
    """A PostgreSQL server of one test's or benchmark's own (``deploy/postgres.sh``, fsync off),
    in a directory of its own: it can be stopped and started again on the same data and port —
    an operator's database going away and coming back.  (Its directory is made here, open to
    all: as root the server runs as another user, who could not enter a test's tmp_path.)"""

    SH = str(ROOT / "deploy" / "postgres.sh")

    def __init__(self) -> None:
        self.where = tempfile.mkdtemp(prefix="laizi-own-pg.")
        os.chmod(self.where, 0o755)
        try:
            self.url = self._run("start")
        except BaseException:
            shutil.rmtree(self.where, ignore_errors=True)
            raise
        """The server's URL (its ``postgres`` database)."""

    def _run(self, command: str) -> str:
        env = {**os.environ, "LAIZI_PG_FAST": "yes"}
        done = subprocess.run(
            ["bash", self.SH, command, self.where + "/server"],
            capture_output=True,
            text=True,
            env=env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"deploy/postgres.sh {command}: {done.stderr[-500:]}")
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    def database(self, name: str) -> str:
        """A new database ``name`` on it: its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def stop(self) -> None:
        """Stop it (``pg_ctl -m fast``: its connections are cut), keeping its data."""
        self._run("stop")

    def start(self) -> None:
        """Start it again, on the same data and port."""
        assert self._run("start") == self.url

    def close(self) -> None:
        self._run("destroy")
        shutil.rmtree(self.where, ignore_errors=True)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    """:class:`OwnRedis` (skipped like :func:`redis_server` when there is no redis-server)."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is not installed (scripts/redis.sh install)")
        pytest.skip("no redis-server (scripts/redis.sh install)")
    server = OwnRedis(tmp_path / "redis")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def pg_url(postgres_server: str) -> Iterator[str]:
    """A fresh PostgreSQL database (dropped at the end)."""
    import psycopg

    name = "laizi_cluster_" + secrets.token_hex(6)
    with psycopg.connect(postgres_server, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    yield postgres_server.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(postgres_server, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Node(ServerProcess):
    """A process of the cluster: as :class:`ServerProcess`, given longer to start (several
    start at once, each migrating or waiting for the migration, on a machine that may be
    loaded by the whole test suite)."""

    START_S = 120.0

    def start(self) -> Node:
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        args = ["serve", "--port", str(self.port), "--db", self.db_url, "--log-level", "warning"]
        with open(self.log, "ab") as log:
            code = f"{self.prelude}\nfrom laizi.cli import main; main()"
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, *args, *self.args],
                env=env,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + self.START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.http + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")


class Cluster:
    """``n`` processes sharing a PostgreSQL database and a Redis (own key prefix)."""

    def __init__(
        self, tmp: Path, db_url: str, redis_url: str, n: int, args: tuple[str, ...] = ()
    ) -> None:
        self.prefix = "t" + secrets.token_hex(4) + ":"
        self.redis_url = redis_url
        flags = ("--redis", redis_url, "--redis-prefix", self.prefix, *args)
        self.nodes = [Node(tmp / f"node{i}.db", db_url=db_url, args=flags) for i in range(n)]
        # Distinct ports: the system may hand out a just-freed port again, and a node whose port
        # another node holds would "start" by answering that one's /healthz (seen once in CI: a
        # cluster of two processes taken for three).
        taken: set[int] = set()
        for node in self.nodes:
            while node.port in taken:
                node.port = free_port()
            taken.add(node.port)
        self.dead: set[int] = set()

    def __enter__(self) -> Cluster:
        try:
            for node in self.nodes:
                node.start()
        except BaseException:
            self.__exit__()  # the ones that did start don't outlive the test
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.proc.kill()  # SIGCONT first would not matter: SIGKILL ends a stopped one
                node.proc.wait()

    def live(self) -> list[ServerProcess]:
        return [n for i, n in enumerate(self.nodes) if i not in self.dead]

    def kill9(self, index: int) -> None:
        self.dead.add(index)
        self.nodes[index].kill9()

    def health(self, node: ServerProcess) -> dict[str, Any]:
        """``/healthz`` of one process, read as a polite client (:func:`get`: the checks poll it
        often from one address, under the per-address GET bucket)."""
        status, body = get(node.port, "/healthz")
        assert status == 200, body
        answer: dict[str, Any] = json.loads(body)
        return answer

    def redis(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url, decode_responses=True)

    def owner_port(self, code: str) -> int | None:
        """The port of the process holding the room's lease (from Redis)."""
        r = self.redis()
        node = r.get(f"{self.prefix}lease:{code}")
        if node is None:
            return None
        info = r.get(f"{self.prefix}node:{node}")
        return None if info is None else int(json.loads(info)["address"].rsplit(":", 1)[1])


FAST_TABLE = {"bot_delay_ms": 0, "claim_window_ms": 0, "between_hands_ms": 0}
"""Table settings of a test table that plays as fast as its players answer."""


@dataclass
class Player:
    """A person at a table who answers every prompt at random and reconnects by itself (to any
    live process) with its seat token and the last sequence number it saw."""

    code: str
    ports: list[int]
    seed: int
    spectate: bool = False
    delay: float = 0.0
    messages: list[dict[str, Any]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    """When each message came (monotonic), as ``messages``."""
    token: str | None = None
    seat: int | None = None
    last_seq: int | None = None
    reconnects: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    closes: list[float] = field(default_factory=list)
    """When each connection was lost (monotonic)."""
    back: list[float] = field(default_factory=list)
    """When the first event after each reconnection came."""

    def join_message(self) -> dict[str, Any]:
        if self.spectate:
            out: dict[str, Any] = {"type": "join", "room": self.code, "spectate": True}
            if self.last_seq is not None:
                out["last_seq"] = self.last_seq
            return out
        if self.token is not None:
            out = {"type": "join", "room": self.code, "token": self.token}
            if self.last_seq is not None:
                out["last_seq"] = self.last_seq
            return out
        return {"type": "join", "room": self.code, "name": f"p{self.seed}"}

    async def run(self, deadline: float) -> None:
        rng = random.Random(self.seed)
        turn = 0
        while not self.done:
            if time.monotonic() > deadline:
                raise AssertionError(f"table {self.code}: no match end in time")
            port = self.ports[turn % len(self.ports)]
            turn += 1
            try:
                ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws", max_size=2**22, open_timeout=3
                )
            except (OSError, TimeoutError, websockets.WebSocketException):
                await asyncio.sleep(0.1)
                continue
            waiting_back = bool(self.closes)
            try:
                await ws.send(json.dumps(self.join_message()))
                async for raw in ws:
                    frame = json.loads(raw)
                    for message in frame if isinstance(frame, list) else [frame]:
                        if waiting_back and message["type"] in ("event", "snapshot"):
                            self.back.append(time.monotonic())
                            waiting_back = False
                        await self._take(ws, message, rng)
                    if self.done:
                        break
            except (OSError, websockets.WebSocketException):
                pass
            finally:
                await ws.close()
            if not self.done:
                self.closes.append(time.monotonic())
                self.reconnects += 1
                await asyncio.sleep(0.05 + rng.random() * 0.2)

    async def _take(self, ws: Any, message: dict[str, Any], rng: random.Random) -> None:
        self.messages.append(message)
        self.times.append(time.monotonic())
        kind = message["type"]
        if kind == "joined":
            self.token, self.seat = message["token"], message["seat"]
        elif kind in ("event", "snapshot"):
            self.last_seq = message["seq"]
            if kind == "event" and message["event"]["type"] == "match_end":
                self.done = True
        elif kind == "prompt" and not self.spectate:
            if self.delay:
                await asyncio.sleep(self.delay * rng.random())
            action = rng.choice(message["legal"])
            await ws.send(json.dumps({"type": "act", "prompt": message["id"], "action": action}))
        elif kind == "error" and message["code"] not in ("stale_prompt", "not_your_turn"):
            # (an answer sent just before the owner died may meet the new owner's prompt again)
            self.errors.append(message)


def create_room(port: int, **table: Any) -> dict[str, Any]:
    body = {"rules": "wuhan-hongzhong-kaikou", "table": table}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/rooms",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        room: dict[str, Any] = json.loads(r.read())
        return room


def get(port: int, path: str, patience: float = 60) -> tuple[int, bytes]:
    """A polite client's GET: a ``429`` (the per-address GET bucket: these checks read many
    records from one address) or ``503 busy`` is tried again after its ``Retry-After``."""
    deadline = time.monotonic() + patience
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as error:
            if error.code not in (429, 503) or time.monotonic() > deadline:
                return error.code, error.read()
            time.sleep(min(5.0, float(error.headers.get("retry-after") or 1)))


def events_of(pg: str, code: str) -> list[tuple[int, int, int]]:
    """(hand number, index, epoch) of every stored event of a room, in order."""
    import psycopg

    with psycopg.connect(pg) as c:
        rows = c.execute(
            "SELECT h.number, e.idx, e.epoch FROM events e JOIN hands h ON h.id = e.hand_id "
            "JOIN rooms r ON r.id = h.room_id WHERE r.code = %s ORDER BY h.number, e.idx",
            (code,),
        ).fetchall()
    return [(int(a), int(b), int(c)) for a, b, c in rows]


def check_table(port: int, code: str, viewers: list[Player]) -> list[Any]:
    """The table's whole record verifies with ``laizi verify``, its totals are zero-sum, and
    every viewer's stream is exactly the record as that viewer may see it (no event lost,
    duplicated or out of order, across every reconnection); returns the match's totals."""
    status, body = get(port, f"/api/matches/{code}/record")
    assert status == 200, body
    result = CliRunner().invoke(app, ["verify", "-", "--json"], input=body.decode())
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output.strip().splitlines()[-1])
    assert verdict["ok"] and verdict["hands"] >= 1
    totals = None
    for viewer in viewers:
        assert viewer.done and viewer.errors == [], (code, viewer.errors)
        stream = stream_events(viewer.messages)
        assert stream[-1]["type"] == "match_end"
        totals = stream[-1]["totals"]
        hands = split_hands(stream)
        assert len(hands) == verdict["hands"]
        for number, shown in enumerate(hands):
            status, raw = get(port, f"/api/rooms/{code}/hands/{number}")
            assert status == 200
            check_hand_stream(parse_record(raw.decode()), shown, viewer.seat)
    assert totals is not None and sum(Fraction(str(t)) for t in totals) == 0
    return totals


def match_records(port: int, code: str) -> list[list[dict[str, Any]]]:
    """The stored record of a room's match, cut into hands (each begins with ``start``)."""
    status, body = get(port, f"/api/matches/{code}/record")
    if status != 200:
        raise RuntimeError(f"{code}: the match record answered {status}: {body[:200]!r}")
    events = parse_record(body.decode())
    starts = [i for i, e in enumerate(events) if e["type"] == "start"]
    return [events[a:b] for a, b in zip(starts, [*starts[1:], len(events)], strict=True)]


@dataclass(frozen=True)
class StreamCheck:
    """One viewer's stream against the stored record (:func:`compare_stream`)."""

    expected: int
    """The events the viewer was to receive from its first on (after the snapshot it joined
    with, if it came late) to the match's end."""
    lost: int
    """Of those, the numbers it never received."""
    wrong: int
    """Events received under a number where the record has another one (repeated, extra or
    changed: an event sent twice shifts every later one)."""
    missing: tuple[int, ...] = ()
    """The numbers never received (the lost ones)."""


def compare_stream(viewer: Player, hands: list[list[dict[str, Any]]]) -> StreamCheck:
    """Compare the sequence numbers and events ``viewer`` received with the room's stored hands
    (``hands``: :func:`match_records` of a finished match): what the viewer's seat (or a
    spectator) may see of each hand, as the server streams it, then the match's end, numbered
    1, 2, 3 …  Counts, not asserts: the benchmark reports them."""
    expected = [
        shown
        for record in hands
        for shown in (seat_event(e, viewer.seat) for e in server_stream(record))
        if shown is not None
    ]
    expected.append({"type": "match_end"})  # its totals are the hands' (checked by verify)
    received: dict[int, list[dict[str, Any]]] = {}
    base = 0
    for message in viewer.messages:
        if message["type"] == "snapshot" and not received and base == 0:
            base = message["seq"]  # joined late: it starts after its first snapshot
        if message["type"] == "event":
            received.setdefault(message["seq"], []).append(message["event"])
    missing = tuple(n for n in range(base + 1, len(expected) + 1) if n not in received)
    wrong = 0
    for n, events in received.items():
        want = expected[n - 1] if 1 <= n <= len(expected) else None
        for event in events:
            if want is None:
                wrong += 1
            elif want["type"] == "match_end":
                wrong += event["type"] != "match_end"
            elif canonical(event) != canonical(want):
                wrong += 1
    return StreamCheck(len(expected) - base, len(missing), wrong, missing)
