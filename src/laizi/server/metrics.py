"""The server's own measurements, and ``GET /metrics`` in the Prometheus text format (issue 31).

:class:`ServerMetrics` holds one process's measurements in its own registry (not the client
library's global one: a test may build several applications in one process):

- ``laizi_loop_lag_seconds`` — one timer per process fires every :data:`TICK_SECONDS`; how late
  it ran is how long the event loop was busy with something else (a stall stalls every table);
- ``laizi_store_commit_seconds`` / ``laizi_store_write_seconds`` — each transaction of staged
  actions (the group commit, a hand's start) from begin to commit, and the part of it spent
  executing the rows (the rest is the commit itself: the disk, or the database's round trip);
- ``laizi_actions_total`` — every action a table accepted and staged to be written;

and reads the rest when it is scraped, from what the server keeps anyway (no database query):
tables, connections, queues, refusals and booking retries (``docs/server.md``, Metrics).

The route answers loopback clients and the addresses of ``laizi serve --metrics-from`` only
(the client address is uvicorn's: the TCP peer, or the forwarded one from a ``--proxy-headers``
proxy); everyone else gets 403.  It is a GET like the others, under the same rate limit.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import Counter as Tally
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

__all__ = ["TICK_SECONDS", "ServerMetrics", "metrics_networks", "metrics_routes"]

TICK_SECONDS = 0.1
"""How often the loop-lag timer fires."""

LAG_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5)
STORE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def metrics_networks(items: Iterable[str]) -> tuple[Network, ...]:
    """The networks of ``--metrics-from`` (an address is a network of one); ``ValueError`` on
    anything else."""
    return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in items)


class ServerMetrics:
    """One process's measurements (the store's :class:`laizi.server.store.StoreMeter`)."""

    def __init__(self, node: str = "standalone", allowed: Sequence[Network] = ()) -> None:
        self.node = node
        """This process's name in a cluster (its ``--advertise`` address)."""
        self.allowed = tuple(allowed)
        """Who may read ``/metrics`` besides loopback clients."""
        self.registry = CollectorRegistry()
        self.loop_lag = Histogram(
            "laizi_loop_lag_seconds",
            f"How late the event loop ran a timer due every {TICK_SECONDS} s.",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )
        self.commit_seconds = Histogram(
            "laizi_store_commit_seconds",
            "A transaction of staged actions (or a hand's start), begin to commit.",
            buckets=STORE_BUCKETS,
            registry=self.registry,
        )
        self.write_seconds = Histogram(
            "laizi_store_write_seconds",
            "Executing a transaction's staged rows, before its commit.",
            buckets=STORE_BUCKETS,
            registry=self.registry,
        )
        self.actions = Counter(
            "laizi_actions", "Actions the tables accepted and staged.", registry=self.registry
        )
        self.app: Any = None
        self.registry.register(_Live(self))
        self.due = 0.0
        self.timer: asyncio.TimerHandle | None = None

    # -- the store's meter -----------------------------------------------------------------------
    def action(self) -> None:
        self.actions.inc()

    def write(self, seconds: float) -> None:
        self.write_seconds.observe(seconds)

    def commit(self, seconds: float) -> None:
        self.commit_seconds.observe(seconds)

    # -- the loop-lag timer ----------------------------------------------------------------------
    def start(self, app: Any) -> None:
        """Measure on the running loop; read ``app``'s state on each scrape."""
        self.app = app
        loop = asyncio.get_running_loop()
        self.due = loop.time() + TICK_SECONDS
        self.timer = loop.call_at(self.due, self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        self.loop_lag.observe(max(0.0, now - self.due))
        self.due = now + TICK_SECONDS
        self.timer = loop.call_at(self.due, self._tick, loop)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    # -- the route -------------------------------------------------------------------------------
    def may_read(self, host: str) -> bool:
        """Loopback or a ``--metrics-from`` address (a host that is not an address: no)."""
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback or any(ip in network for network in self.allowed)


class _Live(Collector):
    """What the server keeps anyway, read when ``/metrics`` is scraped."""

    def __init__(self, metrics: ServerMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        if self.metrics.app is None:  # not started: nothing to read yet
            return
        state = self.metrics.app.state
        hub = state.hub
        info = GaugeMetricFamily(
            "laizi_node_info", "This process (its name in a cluster).", labels=["node"]
        )
        info.add_metric([self.metrics.node], 1)
        yield info
        tables = GaugeMetricFamily(
            "laizi_tables", "Rooms in this process's memory, by status.", labels=["status"]
        )
        by_status = Tally(room.status for room in hub.rooms.values())
        for status in ("waiting", "playing", "over"):
            tables.add_metric([status], by_status.get(status, 0))
        yield tables
        connections = GaugeMetricFamily("laizi_connections", "Open connections.", labels=["kind"])
        connections.add_metric(["websocket"], sum(hub.quotas.connections.values()))
        count = getattr(state, "connection_count", None)
        if count is not None:
            connections.add_metric(["tcp"], count.total)
        yield connections
        readonly = getattr(state, "readonly", None)
        queues = GaugeMetricFamily("laizi_queue_size", "Work waiting.", labels=["queue"])
        held = len(hub.held) + sum(len(messages) for _, messages in hub.pending)
        queues.add_metric(["held_messages"], held)
        queues.add_metric(["commits"], len(hub.pending))
        if hub.bookings is not None:
            queues.add_metric(["booking_retries"], len(hub.bookings.failed))
        if hub.passwords is not None:
            queues.add_metric(["password_pool"], hub.passwords.pending)
        if readonly is not None:
            queues.add_metric(["render_pool"], len(readonly.pool.pending))
        if hub.ladder is not None:  # bots waiting for a ladder table (laizi.server.ladder)
            queues.add_metric(["ladder_bots"], len(hub.ladder.pool))
        yield queues
        refusals = CounterMetricFamily(
            "laizi_refusals", "Requests refused by a limit, by limit.", labels=["limit"]
        )
        get_limit = _get_limit(self.metrics.app)
        if get_limit is not None:
            refusals.add_metric(["get_rate"], get_limit.refused)
        for limit in ("websocket", "message", "room"):
            refusals.add_metric([limit], hub.quotas.refused.get(limit, 0))
        if count is not None:
            refusals.add_metric(["tcp"], count.refused)
        if hub.passwords is not None:
            refusals.add_metric(["password_pool"], hub.passwords.busy)
        if readonly is not None:
            refusals.add_metric(["render_pool"], readonly.pool.busy)
        yield refusals
        if hub.bookings is not None:
            yield CounterMetricFamily(
                "laizi_booking_retries",
                "Retries of the matches that could not be booked.",
                value=hub.bookings.retries,
            )


def _get_limit(app: Any) -> Any:
    """The application's GET rate limit (``laizi.server.readonly.GetLimit``), found down its
    middleware stack; None before the stack is built."""
    from laizi.server.readonly import GetLimit

    layer = getattr(app, "middleware_stack", None)
    while layer is not None:
        if isinstance(layer, GetLimit):
            return layer
        layer = getattr(layer, "app", None)
    return None


_FORBIDDEN = json.dumps(
    {
        "code": "forbidden",
        "error": "the metrics are for loopback and the --metrics-from addresses only",
        "error_zh": "监控数据只对本机和 --metrics-from 的地址开放",
    },
    ensure_ascii=False,
).encode("utf-8")


async def metrics(request: Request) -> Response:
    measured: ServerMetrics = request.app.state.metrics
    host = request.client.host if request.client is not None else ""
    if not measured.may_read(host):
        return Response(_FORBIDDEN, 403, media_type="application/json")
    return Response(generate_latest(measured.registry), media_type=CONTENT_TYPE_LATEST)


def metrics_routes() -> list[Route]:
    return [Route("/metrics", metrics)]
