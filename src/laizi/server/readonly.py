"""The read-only HTTP routes at a bounded cost (issue 24, item 1): nothing an anonymous client
reads slows a table.

- :class:`GetLimit`: an ASGI middleware that puts every ``GET`` (and ``HEAD``) under a token bucket
  per client address (an IPv6 address by its /64): ``get_rate`` tokens a second, ``get_burst`` at
  most.  A request costs 1 token; the heavy ones (:data:`HEAVY`: a hand's replay and record, a
  match's record, a player's statistics) cost :data:`HEAVY_COST`; the client's own files (under
  ``laizi.web.routes.FILES_AT``) :data:`FILE_COST` (:func:`get_cost`).  Beyond it:
  ``429 rate_limited`` with ``Retry-After``, answered before any route runs.
- :class:`ByteCache`: what a finished hand renders to never changes (a room's code is never given
  again, a finished hand is never written again), so its replay frames and its JSON Lines record
  are kept, encoded, in an LRU bounded by their **bytes** (``replay_cache_mb``); so is a whole
  match's record once the room is over.  The answers depend on nothing but the room and the hand
  — no cookie, no seat, no query — so one key serves everybody.  A hand not yet finished is a
  404 and is never kept; a match still being played is put together from the kept hands and the
  newly finished ones at each request.
- :class:`RenderPool`: the work left (reading the database, replaying the hand, encoding) runs in
  a bounded pool of worker **processes** (``replay_workers``; the replay is pure Python, and a
  thread would hold the interpreter lock against the tables), at most ``replay_queue`` jobs
  waiting; a full pool answers ``503 busy`` with ``Retry-After: 1`` at once, like the password
  pool.  Requests for the same thing while it is being rendered wait for that one job.

``/healthz`` shows the cache and the pool (``replay_cache``: entries, bytes, hits, renders, busy).

>>> cache = ByteCache(100)
>>> for key in "abcde":
...     cache.put(key, Rendered(200, "text/plain", b"x" * 12))
>>> _ = cache.get("a")  # "a" is now the most recently used
>>> for key in "fghij":
...     cache.put(key, Rendered(200, "text/plain", b"x" * 12))
>>> "".join(cache.entries), cache.bytes  # b and c went; the least recently used first
('deafghij', 96)
>>> cache.put("k", Rendered(200, "text/plain", b"x" * 13))  # over an eighth: not kept
>>> "k" in cache.entries
False
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import json
import math
import multiprocessing
import os
import re
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from laizi.server.errors import normalize
from laizi.server.http_guard import send_json
from laizi.server.limits import LimitError
from laizi.web.routes import FILES_AT

__all__ = [
    "FILE_COST",
    "HEAVY",
    "HEAVY_COST",
    "ByteCache",
    "GetLimit",
    "Readonly",
    "RenderPool",
    "Rendered",
    "get_cost",
    "readonly_routes",
]

T = TypeVar("T")

HEAVY = re.compile(
    r"^/api/(rooms/[^/]+/hands/-?\d+(/replay)?|matches/[^/]+/record|(me|players/[^/]+)/stats)/?$"
)
"""The GET routes whose answer may take a worker's time or many bytes (a player's statistics read
its matches' records: ``laizi.server.playerstats``; a room's summary is small, and a finished
room's is kept: ``laizi.server.summary``)."""
HEAVY_COST = 5.0
"""Tokens a :data:`HEAVY` request costs (any other GET costs 1)."""
FILE_COST = 0.05
"""Tokens a request for one of the client's own files costs (``laizi.web.routes``: ES modules
and styles, fixed and small).  A page load asks for every module of the client: the page, about
45 files and 6 API reads cost about 10 tokens, so the default bucket holds some 20 page loads at
once (a household or a café behind one address, a reload, a second tab) instead of 4; a flood
of files is still bounded, at ``1 / FILE_COST`` times the rate."""
_FILES = FILES_AT + "/"


def get_cost(path: str) -> float:
    """The tokens a GET of ``path`` costs.

    >>> get_cost("/api/matches/AB12/record"), get_cost("/api/lobby"), get_cost("/web/app.js")
    (5.0, 1.0, 0.05)
    """
    if path.startswith(_FILES):
        return FILE_COST
    return HEAVY_COST if HEAVY.match(path) else 1.0


MAX_CODE = 16
"""A room's code is at most this long (``rooms.code``): a longer one is no room, unread."""
NO_HAND = "no finished hand with that number in that room"

_encoder = msgspec.json.Encoder()


# -- the per-address bucket ------------------------------------------------------------------------
def _client_key(scope: dict[str, Any]) -> str:
    client = scope.get("client")
    host = str(client[0]) if client else ""
    if ":" in host:  # IPv6: one client holds a whole /64
        import ipaddress

        try:
            return str(ipaddress.ip_network(f"{host}/64", strict=False))
        except ValueError:
            return host
    return host


class GetLimit:
    """ASGI middleware: GET and HEAD under a token bucket per client address.

    ``rate`` 0 turns it off.  Full buckets are forgotten now and then (memory stays bounded by
    the addresses seen within ``burst / rate`` seconds)."""

    def __init__(
        self,
        app: Any,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, list[float]] = {}
        """Address → [tokens, when they were counted]."""
        self.calls = 0
        self.refused = 0

    def admit(self, key: str, cost: float) -> float:
        """0 if a request of ``cost`` from ``key`` may go on (its tokens are taken), else the
        seconds until it could."""
        now = self.clock()
        self.calls += 1
        if self.calls % 4096 == 0:
            self._sweep(now)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = [self.burst, now]
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if tokens < cost:
            bucket[0] = tokens
            self.refused += 1
            return (cost - tokens) / self.rate
        bucket[0] = tokens - cost
        return 0.0

    def _sweep(self, now: float) -> None:
        full = [
            k
            for k, (tokens, then) in self.buckets.items()
            if tokens + (now - then) * self.rate >= self.burst
        ]
        for key in full:
            del self.buckets[key]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD") or not self.rate:
            await self.app(scope, receive, send)
            return
        wait = self.admit(_client_key(scope), get_cost(scope.get("path", "")))
        if not wait:
            await self.app(scope, receive, send)
            return
        seconds = max(1, math.ceil(wait))
        await send_json(send, 429, _TOO_FAST, ((b"retry-after", str(seconds).encode()),))


_TOO_FAST = json.dumps(
    normalize(
        {
            "code": "rate_limited",
            "error": "too many requests from your address; wait a moment (see Retry-After)",
            "error_zh": "你的地址请求太多，请稍等片刻再试",
        }
    ),
    ensure_ascii=False,
).encode("utf-8")


# -- the cache -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rendered:
    """A finished answer: status, media type and the encoded body."""

    status: int
    media_type: str
    body: bytes

    def response(self, headers: dict[str, str] | None = None) -> Response:
        return Response(self.body, self.status, headers=headers, media_type=self.media_type)


class ByteCache:
    """An LRU of :class:`Rendered` answers bounded by the bytes of their bodies; an answer over
    an eighth of the bound is not kept.  Only the event loop uses it."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: OrderedDict[Hashable, Rendered] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Rendered | None:
        found = self.entries.get(key)
        if found is None:
            self.misses += 1
            return None
        self.entries.move_to_end(key)
        self.hits += 1
        return found

    def peek(self, key: Hashable) -> Rendered | None:
        """As :meth:`get`, not counted (the match record looks its hands up one by one)."""
        found = self.entries.get(key)
        if found is not None:
            self.entries.move_to_end(key)
        return found

    def put(self, key: Hashable, value: Rendered) -> None:
        size = len(value.body)
        if size > self.max_bytes // 8:
            return
        old = self.entries.pop(key, None)
        if old is not None:
            self.bytes -= len(old.body)
        self.entries[key] = value
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, dropped = self.entries.popitem(last=False)
            self.bytes -= len(dropped.body)


# -- the work, in a worker -------------------------------------------------------------------------
_ENGINES: dict[str, Any] = {}
"""The worker's database engine per URL (made on its first job)."""


def _engine(url: str) -> Any:
    found = _ENGINES.get(url)
    if found is None:
        from sqlalchemy import create_engine

        from laizi.server.store import database_url

        url_ = database_url(url)
        found = _ENGINES[url] = create_engine(url_, pool_pre_ping=not url_.startswith("sqlite"))
    return found


def _json(status: int, body: dict[str, Any]) -> Rendered:
    return Rendered(status, "application/json", json.dumps(body, ensure_ascii=False).encode())


def render_replay(url: str, code: str, number: int) -> Rendered:
    """A finished hand's replay frames (``laizi.web.replay``), or its 404 / 422."""
    from laizi.engine import RecordError
    from laizi.server.store import hand_record
    from laizi.web.replay import frames

    events = hand_record(_engine(url), code, number)
    if events is None:
        return _json(404, {"error": NO_HAND})
    try:
        body = _encoder.encode({"frames": frames(events)})
    except RecordError as error:
        return _json(422, {"error": f"the record does not replay: {error}"})
    return Rendered(200, "application/json", body)


def render_hand(url: str, code: str, number: int) -> Rendered:
    """A finished hand's record as JSON Lines, or its 404."""
    from laizi.engine.record import to_jsonl
    from laizi.server.store import hand_record

    events = hand_record(_engine(url), code, number)
    if events is None:
        return _json(404, {"error": NO_HAND})
    return Rendered(200, "application/x-ndjson", to_jsonl(events).encode("utf-8"))


def render_match(url: str, code: str, start: int) -> tuple[str | None, list[bytes]]:
    """The room's status and the JSON Lines of its finished hands from ``start`` on."""
    from laizi.engine.record import to_jsonl
    from laizi.server.store import finished_hands

    status, records = finished_hands(_engine(url), code, start)
    return status, [to_jsonl(events).encode("utf-8") for events in records]


def _worker_start(parent: int) -> None:
    """In each worker process: die with the server (``PR_SET_PDEATHSIG`` on Linux, and a
    watch of the parent's id everywhere); Ctrl-C is the server's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="laizi-parent-watch").start()


class RenderPool:
    """A bounded pool for the rendering work: ``workers`` processes (threads when the database
    lives in this process's memory), at most ``workers + queue`` different jobs at a time.

    Only the event loop calls :meth:`run`, so the counts need no lock."""

    def __init__(self, workers: int, queue: int, processes: bool = True) -> None:
        self.workers = workers
        self.limit = workers + queue
        self.processes = processes
        self.pending: dict[Hashable, asyncio.Future[Any]] = {}
        self.executor: Executor | None = None
        self.renders = 0
        self.busy = 0

    def _executor(self) -> Executor:
        if self.executor is None:
            if self.processes:
                self.executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_worker_start,
                    initargs=(os.getpid(),),
                )
            else:
                self.executor = ThreadPoolExecutor(self.workers, thread_name_prefix="laizi-render")
        return self.executor

    async def run(self, key: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker — one job per ``key`` at a time, shared by all who ask —
        or :class:`LimitError` (503 ``busy``) when the pool has all the jobs it takes."""
        flight = self.pending.get(key)
        if flight is not None:
            result: T = await asyncio.shield(flight)
            return result
        if len(self.pending) >= self.limit:
            self.busy += 1
            raise LimitError(
                "busy",
                "服务器忙，请稍后再试 / the server is busy with replays; try again soon",
                503,
            )
        loop = asyncio.get_running_loop()
        flight = loop.create_future()
        self.pending[key] = flight
        try:
            executor = self._executor()
            try:
                value = await loop.run_in_executor(executor, functools.partial(fn, *args))
            except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh
                self.executor = None
                executor.shutdown(wait=False, cancel_futures=True)
                raise LimitError(
                    "busy", "服务器忙，请稍后再试 / the server is busy; try again soon", 503
                ) from None
            self.renders += 1
            flight.set_result(value)
            return value
        except asyncio.CancelledError:
            flight.cancel()
            raise
        except BaseException as error:
            flight.set_exception(error)
            flight.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            del self.pending[key]

    def close(self) -> None:
        """Stop the workers (a job under way is finished first: at most one replay's time)."""
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None


# -- the routes ------------------------------------------------------------------------------------
class Readonly:
    """The cache and the pool of one server process, and the answers they give."""

    def __init__(
        self, db_url: str, cache_bytes: int, workers: int, queue: int, in_memory_engine: Any = None
    ) -> None:
        self.url = db_url
        self.cache = ByteCache(cache_bytes)
        self.pool = RenderPool(workers, queue, processes=in_memory_engine is None)
        if in_memory_engine is not None:  # the workers are threads of this process: its engine
            _ENGINES[db_url] = in_memory_engine

    async def _rendered(self, key: Hashable, fn: Callable[..., Rendered], *args: Any) -> Response:
        found = self.cache.get(key)
        if found is None:
            try:
                found = await self.pool.run(key, fn, self.url, *args)
            except LimitError as error:
                return _busy(error)
            if found.status != 404:  # a finished hand never changes; a 404 may yet finish
                self.cache.put(key, found)
        return found.response()

    async def replay(self, code: str, number: int) -> Response:
        if len(code) > MAX_CODE:
            return _json(404, {"error": NO_HAND}).response()
        return await self._rendered(("replay", code, number), render_replay, code, number)

    async def hand(self, code: str, number: int) -> Response:
        if len(code) > MAX_CODE:
            return _json(404, {"error": NO_HAND}).response()
        return await self._rendered(("hand", code, number), render_hand, code, number)

    async def match(self, code: str) -> Response:
        """The match's finished hands, concatenated: kept whole once the room is over."""
        headers = {"Content-Disposition": f'attachment; filename="laizi-{code}.jsonl"'}
        if len(code) > MAX_CODE:
            return _no_record()
        whole = self.cache.get(("match", code))
        if whole is not None:
            return whole.response(headers)
        kept: list[bytes] = []
        while (hand := self.cache.peek(("hand", code, len(kept)))) is not None:
            kept.append(hand.body)
        try:
            status, fresh = await self.pool.run(
                ("match", code, len(kept)), render_match, self.url, code, len(kept)
            )
        except LimitError as error:
            return _busy(error)
        for offset, body in enumerate(fresh):
            self.cache.put(
                ("hand", code, len(kept) + offset), Rendered(200, "application/x-ndjson", body)
            )
        hands = kept + fresh
        if not hands:
            return _no_record()
        answer = Rendered(200, "application/x-ndjson", b"".join(hands))
        if status not in (None, "waiting", "playing"):
            self.cache.put(("match", code), answer)
        return answer.response(headers)

    def health(self) -> dict[str, Any]:
        return {
            "replay_cache": {
                "entries": len(self.cache.entries),
                "bytes": self.cache.bytes,
                "hits": self.cache.hits,
                "renders": self.pool.renders,
                "busy": self.pool.busy,
            }
        }

    def close(self) -> None:
        self.pool.close()


def _busy(error: LimitError) -> Response:
    zh, _, en = error.message.partition(" / ")
    body = {"error": en, "error_zh": zh, "code": error.code}
    return _json(error.status, body).response({"Retry-After": "1"})


def _no_record() -> Response:
    return _json(404, {"error": "no finished hand in that room", "code": "no_record"}).response()


def readonly_of(request: Request) -> Readonly:
    found: Readonly = request.app.state.readonly
    return found


async def _replay(request: Request) -> Response:
    params = request.path_params
    return await readonly_of(request).replay(params["code"].upper(), params["number"])


async def _hand(request: Request) -> Response:
    params = request.path_params
    return await readonly_of(request).hand(params["code"].upper(), params["number"])


async def _match(request: Request) -> Response:
    return await readonly_of(request).match(request.path_params["code"].upper())


def readonly_routes() -> list[Route]:
    """A finished hand's replay and record, a match's record (docs/api.md, docs/server.md)."""
    return [
        Route("/api/rooms/{code}/hands/{number:int}/replay", _replay),
        Route("/api/rooms/{code}/hands/{number:int}", _hand),
        Route("/api/matches/{code}/record", _match),
    ]
