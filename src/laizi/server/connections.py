"""Every connection's deadlines and counts, below the application (issue 24, item 2).

uvicorn (h11) closes nothing by itself before a request is whole: a socket that never sends, or
sends its headers one byte a second (slowloris), or an upgrade to a WebSocket that never ends,
was held for ever, and ~1,010 of them from one address used up the 1,024 open files — nobody
else could connect, not even to ``/healthz``.  :func:`guarded_protocols` makes the two uvicorn
protocol classes ``laizi serve`` runs (h11 for HTTP, websockets' for ``/ws``) that

- count each TCP connection against its address (``open_connections_per_address``) and the
  server (``max_connections``) from its first moment, before a byte is read: over either, it is
  answered ``429 too_many_connections`` / ``503 server_full`` (JSON, Chinese and English) and
  closed.  A WebSocket keeps its place until it closes; a trusted proxy (``--proxy-headers``) is
  not counted per address (the application counts its clients by their forwarded address), nor
  is any address in a cluster (``--redis``: the processes forward players to one another);
- give a request's headers ``header_seconds`` from the connection's opening, or from the first
  byte of the next request on a kept-alive connection — an idle socket, a slow header and a slow
  WebSocket upgrade all end there — and its body ``body_seconds`` more;
- between requests, uvicorn's keep-alive timeout (``keep_alive_seconds``) closes the connection.

Once a WebSocket is open the application's deadline takes over (``ws_join_seconds`` in
:mod:`laizi.server.ws`: a connection that has not joined a room is closed).  An expired
connection is aborted (a client that reads nothing can't hold the close).

:func:`raise_open_files` raises the process's soft ``RLIMIT_NOFILE`` to its hard limit at start,
and :func:`connection_budget` keeps ``max_connections`` below what the limit leaves.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import resource
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = [
    "FILES_RESERVED",
    "ConnectionCount",
    "ConnectionLimits",
    "connection_budget",
    "connection_protocols",
    "guarded_protocols",
    "raise_open_files",
]

log = logging.getLogger("laizi.server")

FILES_RESERVED = 64
"""Open files kept for everything but client connections: the database, the listening socket,
the log, the event loop's own, the password threads."""


@dataclass(frozen=True)
class ConnectionLimits:
    """The deadlines and counts of connections (``laizi serve`` flags; docs/server.md)."""

    header_seconds: float = 10.0
    """A request's line and headers must be whole this long after the connection opened (or
    after the first byte of a next request on a kept-alive connection)."""
    body_seconds: float = 20.0
    """A request's body must be whole this long after its headers."""
    keep_alive_seconds: int = 5
    """An idle kept-alive connection is closed this long after its last response."""
    open_connections_per_address: int = 128
    """Open TCP connections (HTTP and WebSocket) from one address."""
    max_connections: int = 4096
    """Open TCP connections on the server (lowered to fit the open-file limit)."""
    open_files: int = 0
    """The soft open-file limit asked for at start; 0: the hard limit."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int | float) or value != value or value < 0:
                raise ValueError(f"{f.name} must be a number >= 0")
            if f.name != "open_files" and not 0 < value < 10**9:
                raise ValueError(f"{f.name} must be above 0")


# -- open files -----------------------------------------------------------------------------------
def raise_open_files(wanted: int = 0) -> tuple[int, int]:
    """Raise the soft ``RLIMIT_NOFILE`` to ``wanted`` (0: the hard limit) where the system lets
    us; never lowered.  The (soft, hard) limits afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    target = min(wanted or ceiling, ceiling)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as error:  # a container may refuse: keep what we have
            log.warning("could not raise the open-file limit to %d: %s", target, error)
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def connection_budget(max_connections: int, soft_files: int) -> int:
    """``max_connections``, lowered so that the connections leave :data:`FILES_RESERVED` files."""
    return max(16, min(max_connections, soft_files - FILES_RESERVED))


# -- counting -------------------------------------------------------------------------------------
REFUSALS: dict[str, tuple[int, bytes, str, str]] = {
    "too_many_connections": (
        429,
        b"Too Many Requests",
        "too many open connections from this address",
        "同一地址打开的连接太多",
    ),
    "server_full": (
        503,
        b"Service Unavailable",
        "the server has as many connections as it may: try again soon",
        "服务器连接已满，请稍后再试",
    ),
}


def refusal(code: str) -> bytes:
    """The whole HTTP answer of a refused connection (written before its request is read)."""
    status, reason, english, chinese = REFUSALS[code]
    body = json.dumps(
        {"error": english, "error_zh": chinese, "code": code}, ensure_ascii=False
    ).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {reason.decode()}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 5\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class ConnectionCount:
    """Open connections per address and in all; only the event loop touches it."""

    def __init__(
        self, per_address: int, total: int, exempt: Callable[[str], bool] = lambda _: False
    ) -> None:
        self.per_address = per_address
        self.limit = total
        self.exempt = exempt
        self.by_address: Counter[str] = Counter()
        self.total = 0
        self.refused = 0
        """Connections refused (either limit), for ``/metrics``."""

    def admit(self, address: str) -> str | None:
        """Count a new connection, or the code of why not (it is then not counted)."""
        if self.total >= self.limit:
            self.refused += 1
            return "server_full"
        if not self.exempt(address):
            if self.by_address[address] >= self.per_address:
                self.refused += 1
                return "too_many_connections"
            self.by_address[address] += 1
        self.total += 1
        return None

    def release(self, address: str) -> None:
        self.total -= 1
        if not self.exempt(address):
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]


class Place:
    """One admitted connection's place in the count, given back once."""

    __slots__ = ("address", "count")

    def __init__(self, count: ConnectionCount, address: str) -> None:
        self.count: ConnectionCount | None = count
        self.address = address

    def release(self) -> None:
        if self.count is not None:
            self.count.release(self.address)
            self.count = None


# -- the protocols --------------------------------------------------------------------------------
class GuardedHttp(H11Protocol):
    """uvicorn's h11 protocol with the connection counted and its request under deadlines."""

    count: ClassVar[ConnectionCount]
    limits: ClassVar[ConnectionLimits]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.place: Place | None = None
        self.deadline: asyncio.TimerHandle | None = None
        self.phase = ""
        """What the deadline waits for: ``header`` or ``body``."""
        self.upgraded = False
        """A WebSocket now: its own protocol has the connection (h11 still sees a request)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        refused = self.count.admit(address)
        if refused is not None:
            transport.write(refusal(refused))
            transport.close()
            return
        self.place = Place(self.count, address)
        self.arm("header")

    def data_received(self, data: bytes) -> None:
        if self.deadline is None and self.conn.their_state is h11.IDLE:
            self.arm("header")  # the first byte of a next request on a kept-alive connection
        super().data_received(data)
        self.follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.follow()  # a pipelined request may have started its body

    def follow(self) -> None:
        """Move the deadline along with the request: headers, then body, then none."""
        state = self.conn.their_state
        if state is h11.IDLE:
            return
        if state is h11.SEND_BODY:
            if self.phase != "body":
                self.arm("body")
        else:
            self.disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.upgraded = True
        self.disarm()
        super().handle_websocket_upgrade(event)
        protocol = self.transport.get_protocol()
        if isinstance(protocol, GuardedWebSocket):  # the place goes with the connection
            protocol.place, self.place = self.place, None

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self.place is not None:
            self.place.release()
        super().connection_lost(exc)

    def arm(self, phase: str) -> None:
        self.disarm()
        if self.upgraded or self.transport.is_closing():
            return
        seconds = self.limits.header_seconds if phase == "header" else self.limits.body_seconds
        self.phase = phase
        self.deadline = self.loop.call_later(seconds, self.expire)

    def disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.phase = ""

    def expire(self) -> None:
        log.debug("%s: no whole request %s in time: closed", self.client, self.phase)
        self.deadline = None
        self.transport.abort()


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, which gives the connection's place back when it closes."""

    place: Place | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.place is not None:
            self.place.release()
        super().connection_lost(exc)


def guarded_protocols(
    limits: ConnectionLimits, total: int, proxies: list[str], cluster: bool = False
) -> tuple[type[GuardedHttp], type[GuardedWebSocket]]:
    """The HTTP and WebSocket protocol classes for uvicorn (``http=``, ``ws=``): at most
    ``total`` connections, ``limits``' per address (``proxies`` — addresses or networks — are
    not counted per address; in a ``cluster`` no address is: the processes forward players to
    one another from their own addresses) and deadlines."""
    networks = [ipaddress.ip_network(p, strict=False) for p in proxies]

    def trusted(address: str) -> bool:
        if cluster:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in networks)

    count = ConnectionCount(limits.open_connections_per_address, total, trusted)

    class Http(GuardedHttp):
        pass

    Http.count = count
    Http.limits = limits
    return Http, GuardedWebSocket


def connection_protocols(
    limits: ConnectionLimits, proxies: list[str], cluster: bool = False
) -> tuple[type[GuardedHttp], type[GuardedWebSocket]]:
    """What ``laizi serve`` runs: the open-file limit raised (:func:`raise_open_files`), then
    :func:`guarded_protocols` with ``max_connections`` fitted to it."""
    soft, hard = raise_open_files(limits.open_files)
    total = connection_budget(limits.max_connections, soft)
    if total < limits.max_connections:
        log.warning(
            "at most %d connections (%d open files; --max-connections %d)",
            total,
            soft,
            limits.max_connections,
        )
    log.info(
        "open files %d (hard %d); connections: %d, %d per address",
        soft,
        hard,
        total,
        limits.open_connections_per_address,
    )
    return guarded_protocols(limits, total, proxies, cluster)
