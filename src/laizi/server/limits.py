"""The server's resource limits: what one client, one address or one account may use.

Every limit is a field of :class:`ServerLimits` (``laizi serve`` has a flag for each;
docs/server.md lists them with their defaults).  The mechanisms live here so that the routes only
call them:

- :class:`BodyLimit`: an ASGI middleware that refuses a request body larger than
  ``max_body_bytes`` by its ``Content-Length`` at once and, when the body streams in without one,
  as soon as the running total passes the limit — the body is never read whole first.
- :class:`HashPool`: Argon2id hashing and checking in a bounded pool of threads (at most one per
  core) with a bounded queue; a full queue is refused (503, ``busy``) instead of taking memory and
  CPU from the tables.
- :class:`MessageGate`: per WebSocket connection, a byte limit per message and a token bucket of
  messages (``resync`` and ``join`` cost more); persistent abuse closes the connection.
- :class:`Quotas`: connections per address, rooms per address and per account, all rooms, and the
  bots-only rooms (which need an account).
- :class:`LobbyCache`: the lobby as a snapshot rebuilt at most every ``lobby_cache_ms``, in
  slices that give the event loop back between them, and served in pages.

>>> gate = MessageGate(ServerLimits(message_rate=1, message_burst=10), clock=lambda: 0.0)
>>> [gate.admit(b'{"type":"resync"}') for _ in range(3)]
[None, None, 'rate_limited']
>>> gate.admit(b"x" * 5000)
'too_large'
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import msgspec

from laizi.server.protocol import MAX_MESSAGE_BYTES

_encoder = msgspec.json.Encoder()

__all__ = [
    "BodyLimit",
    "BodyTooLarge",
    "HashPool",
    "LimitError",
    "LobbyCache",
    "MessageGate",
    "Owner",
    "Quotas",
    "ServerLimits",
    "cores",
]

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ServerLimits:
    """Every resource limit of one server process, with its default (docs/server.md)."""

    max_body_bytes: int = 1_000_000
    """An HTTP request body larger than this is refused (413) before it is read."""
    hash_workers: int = 0
    """Threads hashing and checking passwords (Argon2id, 64 MiB each); 0: half the cores, at
    least one. Never more than the cores."""
    hash_queue: int = 16
    """Password jobs that may wait for a thread; beyond that a login or register gets 503."""
    replay_workers: int = 0
    """Worker processes rendering finished hands' replays and records
    (``laizi.server.readonly``); 0: half the cores, at least one. Never more than the cores."""
    replay_queue: int = 16
    """Rendering jobs that may wait for a worker; beyond that the request gets 503 ``busy``."""
    replay_cache_mb: float = 64.0
    """Megabytes of rendered replays and records kept (a finished hand never changes)."""
    get_rate: float = 20.0
    """Tokens per second of each address's bucket for GET requests (a replay or record costs
    5, anything else 1); 0: no limit."""
    get_burst: float = 200.0
    """The GET bucket's size: how much one address may read at once (at least 5)."""
    message_bytes: int = 4096
    """A WebSocket message longer than this many bytes (UTF-8) is refused unread (at most the
    protocol's 4096)."""
    message_rate: float = 10.0
    """Tokens per second of each connection's bucket (a message costs 1, resync and join 5, an
    action the table accepts nothing)."""
    message_burst: float = 20.0
    """The bucket's size: how much a connection may send at once."""
    message_abuse: int = 50
    """Refused messages within a minute after which the connection is closed (1008)."""
    abuse_cooldown_seconds: float = 30.0
    """After such a close, new connections from that address are refused this long (a new
    connection would otherwise come with a full bucket)."""
    connections_per_address: int = 64
    """Open WebSocket connections from one client address."""
    ws_join_seconds: float = 10.0
    """A ``/ws`` connection that has not joined a room this long after opening is closed (1008),
    as is a ``/ws/bot`` one that has not said ``hello``."""
    rooms_per_address: int = 30
    """Rooms not yet over created from one client address."""
    rooms_per_account: int = 10
    """Rooms not yet over created by one account."""
    max_rooms: int = 5000
    """Rooms not yet over on this server."""
    bot_rooms_per_account: int = 2
    """Bots-only rooms (``players: 0``, an account is needed) running per account."""
    bot_rooms: int = 20
    """Bots-only rooms running on this server."""
    waiting_room_seconds: float = 1800.0
    """A room still waiting for its people this long after it was made is closed."""
    matched_room_seconds: float = 120.0
    """The same for a room the matchmaker made (ranked, casual): its people were sent there the
    moment it was made, so one nobody joins soon is closed sooner than a room made by link."""
    spectators_per_room: int = 50
    """Spectators of one room."""
    chat_phrases: int = 3
    """Quick-chat phrases (快捷语) one seat may say within ``chat_seconds`` (every tab of the
    seat together); beyond that ``chat_too_fast``, told to nobody else.  0: quick chat is off."""
    chat_seconds: float = 10.0
    """The window of ``chat_phrases``."""
    lobby_cache_ms: int = 1000
    """The lobby's snapshot is rebuilt at most this often."""
    lobby_page: int = 50
    """Rooms per lobby page unless ``limit`` asks for fewer or more (at most 200)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{f.name} must be a finite number >= 0")
        if self.hash_workers > cores():
            raise ValueError(f"hash_workers must be at most the cores ({cores()})")
        if self.replay_workers > cores():
            raise ValueError(f"replay_workers must be at most the cores ({cores()})")
        if self.get_burst < 5:
            raise ValueError("get_burst must be at least 5 (a replay costs 5)")
        if not 1 <= self.lobby_page <= 200:
            raise ValueError("lobby_page must be 1–200")
        if self.message_burst < 5:
            raise ValueError("message_burst must be at least 5 (a resync costs 5)")
        if not 64 <= self.message_bytes <= MAX_MESSAGE_BYTES:
            raise ValueError(f"message_bytes must be 64–{MAX_MESSAGE_BYTES} (the protocol's cap)")
        if not 0 < self.chat_seconds <= 3600:
            raise ValueError("chat_seconds must be above 0 and at most 3600")
        if not isinstance(self.chat_phrases, int):
            raise ValueError("chat_phrases must be a whole number")
        if not 0 < self.ws_join_seconds <= 3600:
            raise ValueError("ws_join_seconds must be above 0 and at most 3600")

    @property
    def workers(self) -> int:
        """The password threads actually used."""
        return self.hash_workers or max(1, cores() // 2)

    @property
    def render_workers(self) -> int:
        """The replay worker processes actually used."""
        return self.replay_workers or max(1, cores() // 2)


class LimitError(Exception):
    """A request refused by a limit: ``code`` for the client, ``status`` for HTTP."""

    def __init__(self, code: str, message: str, status: int = 429) -> None:
        self.code = code
        self.message = message
        self.status = status
        super().__init__(message)


# -- request bodies --------------------------------------------------------------------------------
class BodyTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes the limit (the app answers 413)."""


TOO_LARGE = "请求体太大 / the request body is too large"


def too_large_response(limit: int) -> dict[str, Any]:
    return {"error": f"{TOO_LARGE} (max {limit} bytes)", "code": "too_large"}


class BodyLimit:
    """ASGI middleware: HTTP request bodies of at most ``max_bytes``.

    A ``Content-Length`` above the limit is answered 413 without reading anything; a body that
    streams (chunked) is counted as it arrives and :class:`BodyTooLarge` is raised in the app the
    moment it passes the limit (the app's exception handler answers 413)."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = -1
                if length < 0:
                    message = "Content-Length 不对 / bad Content-Length"
                    await _send_json(send, 400, {"error": message, "code": "bad_request"})
                    return
                if length > limit:
                    await _send_json(send, 413, too_large_response(limit))
                    return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge
            return message

        await self.app(scope, counted, send)


async def _send_json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


# -- password work ---------------------------------------------------------------------------------
class HashPool:
    """A bounded pool for the password work (Argon2id): ``workers`` threads, ``queue`` waiting.

    Only the event loop calls :meth:`run`, so the count of jobs needs no lock."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = workers
        self.limit = workers + queue
        self.pending = 0
        self.busy = 0
        """Jobs refused because the queue was full (``/metrics``)."""
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="laizi-password")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a pool thread, or :class:`LimitError` (503) when the queue is full."""
        if self.pending >= self.limit:
            self.busy += 1
            raise LimitError(
                "busy", "服务器忙，请稍后再试 / the server is busy with logins; try again soon", 503
            )
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, functools.partial(fn, *args))
        finally:
            self.pending -= 1

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


# -- WebSocket messages ----------------------------------------------------------------------------
EXPENSIVE = (b'"resync"', b'"join"')
"""Messages that make the server send a lot (a snapshot, the room): they cost 5 tokens."""


class MessageGate:
    """One connection's message limits: bytes per message and a token bucket of messages."""

    __slots__ = (
        "burst",
        "clock",
        "limit",
        "max_bytes",
        "rate",
        "refused",
        "since",
        "stamp",
        "streak",
        "tokens",
    )

    def __init__(self, limits: ServerLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_bytes = limits.message_bytes
        self.rate = limits.message_rate
        self.burst = limits.message_burst
        self.limit = limits.message_abuse
        self.clock = clock
        self.tokens = self.burst
        self.stamp = clock()
        self.refused = 0
        """Refused messages in the current minute."""
        self.since = self.stamp
        self.streak = 0
        """Refused messages since the last one handled (the client is told once per run)."""

    def admit(self, data: bytes) -> str | None:
        """None if the message may be handled, else the error code it gets."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if len(data) > self.max_bytes:
            self._refuse(now)
            return "too_large"
        cost = 5.0 if any(word in data for word in EXPENSIVE) else 1.0
        if self.tokens < cost:
            self._refuse(now)
            return "rate_limited"
        self.tokens -= cost
        self.streak = 0
        return None

    def refund(self) -> None:
        """The message was an action the table accepted: it costs nothing (prompts come at the
        game's pace, so a fast honest player is never limited)."""
        self.tokens = min(self.burst, self.tokens + 1.0)

    def _refuse(self, now: float) -> None:
        if now - self.since > 60:
            self.refused, self.since = 0, now
        self.refused += 1
        self.streak += 1

    @property
    def abusive(self) -> bool:
        """Too many refused messages within a minute: the connection is closed."""
        return self.refused >= self.limit


MESSAGE_TEXT = {
    "too_many_connections": "同一地址连接太多 / too many connections from this address",
    "cooling_down": "发消息太多，请稍后再连 / too many refused messages: connect again later",
    "too_large": "消息太长 / a message may hold at most {n} bytes",
    "rate_limited": "消息太快，请放慢 / too many messages; slow down",
    "abuse": "消息太多，连接已关闭 / too many refused messages: the connection is closed",
    "join_timeout": "{n} 秒内没有加入房间，连接已关闭 / no room joined within {n} s: the "
    "connection is closed",
}


# -- rooms and connections -------------------------------------------------------------------------
@dataclass(frozen=True)
class Owner:
    """Who asks for a room: the client address and the account (None for a guest)."""

    address: str
    account: int | None = None


class Quotas:
    """Counts of what each address and account holds, checked before anything is made."""

    def __init__(self, limits: ServerLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.connections: Counter[str] = Counter()
        self.cooling: dict[str, float] = {}
        """Address → until when its new connections are refused (after abuse)."""
        self.owners: dict[str, tuple[Owner, bool]] = {}
        """Room code → who made it and whether it is bots-only."""
        self.by_address: Counter[str] = Counter()
        self.by_account: Counter[int] = Counter()
        self.bots_by_account: Counter[int] = Counter()
        self.bot_rooms = 0
        self.refused: Counter[str] = Counter()
        """What was refused, by limit: ``websocket`` connections, ``room`` creations and
        ``message``s (counted by the reader, ``laizi.server.ws``) — for ``/metrics``."""

    # connections
    def connect(self, address: str) -> str | None:
        """Count a new connection; else the error code why not (and it is not counted)."""
        until = self.cooling.get(address)
        if until is not None:
            if self.clock() < until:
                self.refused["websocket"] += 1
                return "cooling_down"
            del self.cooling[address]
        if self.connections[address] >= self.limits.connections_per_address:
            self.refused["websocket"] += 1
            return "too_many_connections"
        self.connections[address] += 1
        return None

    def abused(self, address: str) -> None:
        """A connection of ``address`` was closed for abuse: it waits before the next."""
        self.cooling[address] = self.clock() + self.limits.abuse_cooldown_seconds

    def disconnect(self, address: str) -> None:
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]

    # rooms
    def check_room(self, owner: Owner, bots_only: bool) -> None:
        """:class:`LimitError` if ``owner`` may not make one more room now."""
        try:
            self._check_room(owner, bots_only)
        except LimitError:
            self.refused["room"] += 1
            raise

    def _check_room(self, owner: Owner, bots_only: bool) -> None:
        limits = self.limits
        if len(self.owners) >= limits.max_rooms:
            raise LimitError(
                "too_many_rooms", "房间太多，请稍后 / the server has too many rooms", 503
            )
        if bots_only:
            if owner.account is None:
                raise LimitError(
                    "account_required",
                    "只有登录玩家能开纯机器人房间 / log in to start a bots-only room",
                    401,
                )
            if self.bots_by_account[owner.account] >= limits.bot_rooms_per_account:
                raise LimitError(
                    "too_many_bot_rooms",
                    f"最多 {limits.bot_rooms_per_account} 个纯机器人房间 / at most "
                    f"{limits.bot_rooms_per_account} bots-only rooms per account",
                )
            if self.bot_rooms >= limits.bot_rooms:
                raise LimitError(
                    "too_many_bot_rooms",
                    "纯机器人房间已满 / the server runs as many bots-only rooms as it may",
                    503,
                )
        if owner.account is not None and self.by_account[owner.account] >= limits.rooms_per_account:
            raise LimitError(
                "too_many_rooms",
                f"每个账号最多 {limits.rooms_per_account} 个房间 / at most "
                f"{limits.rooms_per_account} open rooms per account",
            )
        if self.by_address[owner.address] >= limits.rooms_per_address:
            raise LimitError(
                "too_many_rooms",
                f"每个地址最多 {limits.rooms_per_address} 个房间 / at most "
                f"{limits.rooms_per_address} open rooms per address",
            )

    def add_room(self, code: str, owner: Owner, bots_only: bool) -> None:
        self.owners[code] = (owner, bots_only)
        self.by_address[owner.address] += 1
        if owner.account is not None:
            self.by_account[owner.account] += 1
            if bots_only:
                self.bots_by_account[owner.account] += 1
        if bots_only:
            self.bot_rooms += 1

    def release_room(self, code: str) -> None:
        """The room is over or closed: it no longer counts (a second call does nothing)."""
        found = self.owners.pop(code, None)
        if found is None:
            return
        owner, bots_only = found
        _decrement(self.by_address, owner.address)
        if owner.account is not None:
            _decrement(self.by_account, owner.account)
            if bots_only:
                _decrement(self.bots_by_account, owner.account)
        if bots_only:
            self.bot_rooms -= 1


def _decrement(counter: Counter[Any], key: Any) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


# -- the lobby -------------------------------------------------------------------------------------
class LobbyCache:
    """The lobby's rooms as a snapshot, rebuilt at most every ``ttl_ms`` and served in pages.

    A rebuild walks the rooms in slices of ``slice_size`` and yields to the event loop between
    slices, so thousands of rooms never hold the tables up; requests that come meanwhile wait
    for the same rebuild."""

    def __init__(
        self,
        rooms: Callable[[], Iterable[Any]],
        entry: Callable[[Any], dict[str, Any]],
        ttl_ms: int,
        slice_size: int = 100,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rooms = rooms
        self.entry = entry
        self.ttl = ttl_ms / 1000
        self.slice_size = slice_size
        self.clock = clock
        self.entries: list[dict[str, Any]] = []
        self.pages: dict[tuple[int, int], bytes] = {}
        """Encoded pages of the current snapshot (a storm of the same request costs little)."""
        self.built = -float("inf")
        self.building: asyncio.Task[None] | None = None
        self.rebuilds = 0
        self.dirty = False

    def changed(self) -> None:
        """A room was made or closed: the next request rebuilds (a new room shows at once)."""
        self.dirty = True

    async def snapshot(self) -> list[dict[str, Any]]:
        if not self.dirty and self.clock() - self.built < self.ttl:
            return self.entries
        if self.building is None or self.building.done():
            self.building = asyncio.create_task(self._rebuild())
        await asyncio.shield(self.building)
        return self.entries

    async def _rebuild(self) -> None:
        started = self.clock()
        self.dirty = False
        rooms = [r for r in self.rooms() if r.status in ("waiting", "playing")]
        rooms.sort(key=lambda r: (r.status != "waiting", r.code))
        entries: list[dict[str, Any]] = []
        for i in range(0, len(rooms), self.slice_size):
            if i:
                await asyncio.sleep(0)
            entries += [self.entry(r) for r in rooms[i : i + self.slice_size]]
        self.entries = entries
        self.pages = {}
        self.built = started
        self.rebuilds += 1

    async def page(self, offset: int, limit: int) -> dict[str, Any]:
        entries = await self.snapshot()
        return {
            "rooms": entries[offset : offset + limit],
            "total": len(entries),
            "offset": offset,
            "limit": limit,
        }

    async def page_json(self, offset: int, limit: int) -> bytes:
        """:meth:`page` as JSON, encoded once per snapshot (up to 256 different pages)."""
        await self.snapshot()
        key = (offset, limit)
        found = self.pages.get(key)
        if found is None:
            found = _encoder.encode(await self.page(offset, limit))
            if len(self.pages) < 256:
                self.pages[key] = found
        return found
