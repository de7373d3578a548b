"""What the queue benchmarks share (``bench_matchmaking.py``, ``bench_fairplay.py --seater
queue``): a real ``laizi serve`` whose clients each claim an address of their own, accounts
registered through its API, their standings seeded in its database, and a WebSocket client that
queues, accepts its match and is sent its room (docs/protocol.md, "Matchmaking").

**The server** runs with ``--proxy-headers 127.0.0.1``: every simulated person sends its own
``X-Forwarded-For`` address (``10.x.y.z``), as people behind a proxy are seen, so the
per-address limits (connections, registrations) and the matchmaker's shared-address rule treat
them as the different people they are; the TCP connections per address and the server's rooms
are raised (all the sockets really come from 127.0.0.1).  Its password hashing is made cheap
(Argon2id with ``time_cost=1, memory_cost=8 MiB``, through ``prelude``): the accounts are
registered through the real ``POST /api/register``, but registration is not what these
benchmarks measure, and thousands of default hashes (0.14 s each here) would take minutes.

**Standings**: the API has no way to give an account a rank or a rating (only ranked matches
move them), so :func:`seed_standings` writes each account's row of the ``standings`` table
(points, μ, σ, ordinal, matches) straight into the server's SQLite file before anyone queues;
the server reads an account's standing from the database at each ``queue``.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import websockets
from sqlalchemy import create_engine, insert, select

CHEAP_HASH = (
    "import argon2, laizi.server.accounts as _accounts\n"
    "_accounts.PasswordHasher = lambda: argon2.PasswordHasher("
    "time_cost=1, memory_cost=8192, parallelism=1)"
)
"""The server's prelude: cheap password hashes (see the module)."""

QUEUE_SERVER_FLAGS = (
    "--proxy-headers",
    "127.0.0.1",
    "--open-connections-per-address",
    "100000",
    "--max-rooms",
    "100000",
)
"""Every person claims its own address through the proxy header; every socket comes from
127.0.0.1, so its TCP connections are not capped; rooms are not capped either."""

PASSWORD = "queue-bench"


def address(i: int) -> str:
    """The ``i``-th simulated person's address (unique up to 16 million people)."""
    return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"


@dataclass
class Errors:
    """What went wrong, by kind (the benchmarks' ``errors`` and ``error_kinds``)."""

    kinds: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    @property
    def count(self) -> int:
        return sum(self.kinds.values())


# -- accounts ----------------------------------------------------------------------------------
def _register(port: int, name: str, source: str) -> str:
    """Register ``name`` from ``source``; its session cookie (a busy server is asked again)."""
    body = json.dumps({"name": name, "password": PASSWORD}).encode()
    headers = {"Content-Type": "application/json", "X-Forwarded-For": source}
    for attempt in range(50):
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/register", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return str(r.headers["Set-Cookie"]).split(";")[0]
        except urllib.error.HTTPError as error:
            if error.code != 503:  # busy: too many password jobs waiting
                raise
        time.sleep(0.05 * (attempt + 1))
    raise RuntimeError(f"could not register {name}: the server stayed busy")


def register_accounts(port: int, names: Sequence[str], workers: int = 8) -> list[str]:
    """Register every name through ``POST /api/register``, each from its own address
    (:func:`address` of its index); their session cookies, in order."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda i: _register(port, names[i], address(i)), range(len(names))))


@dataclass(frozen=True)
class Standing:
    """A seeded standing: strength points (they give the rank, hence the tier), the OpenSkill
    μ and σ, the matches played."""

    points: int
    mu: float
    sigma: float
    matches: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def seed_standings(db: Path, names: Sequence[str], game: str, rows: Sequence[Standing]) -> None:
    """Write each named account's standing in ``game`` into the server's SQLite file."""
    from laizi.server.accounts import accounts
    from laizi.server.ratings import standings

    engine = create_engine(f"sqlite:///{db}", connect_args={"timeout": 60})
    try:
        with engine.begin() as c:
            ids = dict(c.execute(select(accounts.c.name, accounts.c.id)).all())
            values = [
                {
                    "account_id": ids[name],
                    "game": game,
                    "points": str(Fraction(row.points)),
                    "points_sort": float(row.points),
                    "mu": row.mu,
                    "sigma": row.sigma,
                    "ordinal": row.ordinal,
                    "matches": row.matches,
                    "updated": time.time(),
                }
                for name, row in zip(names, rows, strict=True)
            ]
            c.execute(insert(standings), values)
    finally:
        engine.dispose()


def realistic_standings(count: int, rng: random.Random) -> list[Standing]:
    """Standings spread as a live server's would be.  Each person has a skill ``z`` (standard
    normal) and an experience: matches played, log-uniform from 0 to about 2000.  σ shrinks
    with the matches (OpenSkill's 25/3 for a newcomer, to about 1); μ departs from 25 towards
    25 + 4z as the matches reveal the skill; strength points grow with the matches and much
    faster with skill (about 41 % of the people in 一般, 33 % in 上级, 23 % in 特上, 2.5 % in
    凤凰 — few climb far up the ladder).  Ordinals (μ − 3σ) run from 0 (newcomers) to about 35,
    higher in the higher tiers."""
    from laizi.server.ratings import MU, SIGMA

    out = []
    for _ in range(count):
        z = rng.gauss(0.0, 1.0)
        matches = int(10 ** rng.uniform(0.0, 3.3)) - 1
        sigma = max(1.0, SIGMA / math.sqrt(1.0 + matches / 6.0))
        seen = 1.0 - math.exp(-matches / 40.0)
        mu = MU + 4.0 * z * seen + rng.gauss(0.0, 0.5)
        points = max(0, int(matches * 60 * math.exp(2.0 * z) * rng.uniform(0.5, 1.5)))
        out.append(Standing(points, round(mu, 4), round(sigma, 4), matches))
    return out


# -- the queue over WebSocket ---------------------------------------------------------------------
@dataclass
class Matched:
    """A person sent to a room: when they queued and when the room came."""

    queued_at: float
    matched_at: float
    match: str
    room: str
    seat: int

    @property
    def seconds(self) -> float:
        return self.matched_at - self.queued_at


class _Idle(Exception):
    """The server closed the connection of a person idle between matches."""


class QueueClient:
    """One person's WebSocket: queue, accept the offer, get the room (again and again)."""

    def __init__(self, port: int, cookie: str, source: str, errors: Errors) -> None:
        self.port, self.cookie, self.source = port, cookie, source
        self.ws: Any = None
        self.errors = errors
        self.lapses = 0
        """Matches offered to this person that lapsed (someone else's accept came too late)."""
        self.reconnects = 0
        """Times the server had closed the idle connection (``join_timeout``: neither queued
        nor sent a room for ``--ws-join-seconds``) and the person came back, as a page does."""

    @classmethod
    async def connect(cls, port: int, cookie: str, source: str, errors: Errors) -> QueueClient:
        client = cls(port, cookie, source, errors)
        await client._open()
        return client

    async def _open(self) -> None:
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.port}/ws",
            additional_headers={"Cookie": self.cookie, "X-Forwarded-For": self.source},
            max_size=2**22,
            open_timeout=120,
            compression=None,
            ping_interval=None,
        )

    async def match(self, preset: str, kind: str, timeout: float) -> Matched | None:
        """Queue for ``preset`` and ``kind``, accept every offer, until sent a room (None if
        none came within ``timeout`` seconds: the person unqueues).  A connection the server
        closed while the person was idle (between matches) is opened again first."""
        for again in (False, True):
            try:
                if self.ws.close_code is not None:
                    raise _Idle
                return await self._match(preset, kind, timeout)
            except (_Idle, websockets.ConnectionClosed):
                if again:
                    raise
                self.reconnects += 1
                await self._open()
        raise AssertionError("unreachable")

    async def _match(self, preset: str, kind: str, timeout: float) -> Matched | None:
        started = time.monotonic()
        await self.ws.send(json.dumps({"type": "queue", "preset": preset, "kind": kind}))
        deadline = started + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                await self.ws.send(json.dumps({"type": "unqueue"}))
                return None
            try:
                raw = await asyncio.wait_for(self.ws.recv(), left)
            except TimeoutError:
                continue
            frame = json.loads(raw)
            for message in frame if isinstance(frame, list) else [frame]:
                kind_ = message["type"]
                if kind_ == "matched" and message["room"] is None:
                    await self.ws.send(json.dumps({"type": "accept", "match": message["match"]}))
                elif kind_ == "matched":
                    return Matched(
                        started,
                        time.monotonic(),
                        message["match"],
                        message["room"],
                        message["seat"],
                    )
                elif kind_ == "lapsed":
                    self.lapses += 1
                    if message["outcome"] not in ("kept", "requeued"):
                        self.errors.add("lapsed:" + message["outcome"])
                        return None
                elif kind_ == "error" and message.get("code") == "join_timeout":
                    raise _Idle  # sent while the person was idle: come back, queue again
                elif kind_ == "error":
                    self.errors.add("error:" + message.get("code", "?"))
                    return None
                elif kind_ == "unqueued":
                    self.errors.add("unqueued:" + message.get("reason", "?"))
                    return None

    async def close(self) -> None:
        await self.ws.close()


def percentile(values: Iterable[float], share: float) -> float | None:
    """The ``share`` quantile (nearest rank) of ``values``; None for none."""
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]
