"""The web application: :func:`create_app` assembles the hub (:mod:`laizi.server.hub`), the
table's routes (:mod:`laizi.server.routes`), the WebSocket endpoint (:mod:`laizi.server.ws`), the
account API, the settings schema and the web client it mounts."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, WebSocketRoute

from laizi.hand import load_tables
from laizi.server.admin import admin_routes
from laizi.server.api import api_routes, attach
from laizi.server.botroutes import bot_rating_routes, bot_token_routes
from laizi.server.botseat import bot_websocket
from laizi.server.errors import ErrorBodies
from laizi.server.http_guard import HttpGuard
from laizi.server.hub import Hub, hub_of
from laizi.server.ladder import Ladder, LadderSettings
from laizi.server.limits import BodyLimit, BodyTooLarge, HashPool, ServerLimits
from laizi.server.matchmaking import MatchSettings
from laizi.server.metrics import ServerMetrics, metrics_networks, metrics_routes
from laizi.server.queueing import Queueing
from laizi.server.readonly import GetLimit, Readonly, readonly_routes
from laizi.server.routes import body_too_large, table_routes
from laizi.server.schema import schema_routes
from laizi.server.store import Store
from laizi.server.summary import summary_routes
from laizi.server.ws import websocket
from laizi.web import routes as web_routes

if TYPE_CHECKING:
    from laizi.server.cluster.node import ClusterConfig

__all__ = ["Hub", "create_app"]

log = logging.getLogger("laizi.server")


STOP_TIMEOUT_S = 10.0
"""How long a graceful stop may take, signal to exit (``laizi serve --stop-timeout``)."""

GC_THRESHOLDS = (50_000, 20, 100)
"""The collector's thresholds while serving (Python's are 700, 10, 10).  Every action makes a few
hundred short-lived objects; with the defaults, 200 busy tables ran a young collection hundreds
of times a second and a full one every few seconds, up to 190 ms each on the 2-core machine —
the whole tail of the action latency (``benchmarks/bench_server.py``: p99 71–82 ms, 20.8 ms with
these, the same run otherwise; docs/server.md).  Long-lived data is frozen at startup."""


@contextlib.asynccontextmanager
async def lifespan(
    app: Starlette,
    db_url: str,
    limits: ServerLimits,
    cluster: ClusterConfig | None = None,
    match: MatchSettings | None = None,
    ladder: LadderSettings | None = None,
) -> AsyncIterator[None]:
    """Startup: migrate the database, make the hub (``app.state.hub``), recover the rooms;
    shutdown: write what was accepted, stop the booking timer, close the pool and the database.

    In a cluster (``cluster``) the process joins it instead of recovering every room: it takes
    the rooms nobody owns, and at shutdown hands its own over (``laizi.server.cluster``)."""
    node = None
    load_tables()  # before any player's clock runs (the first hint would wait for them)
    if cluster is not None:
        from laizi.server.cluster.fence import FencedStore
        from laizi.server.cluster.node import Cluster

        store: Store = FencedStore(db_url, cluster.lease_ms)
    else:
        store = Store(db_url)
    hub = Hub(store, limits)
    measured: ServerMetrics = app.state.metrics
    store.meter = measured  # commits and accepted actions (laizi.server.metrics)
    store.start_writer()  # every write on its own thread from here (laizi.server.writer)
    hub.passwords = HashPool(limits.workers, limits.hash_queue)
    in_memory = store.engine if ":memory:" in db_url or db_url.rstrip("/") == "sqlite:" else None
    app.state.readonly = Readonly(
        db_url,
        int(limits.replay_cache_mb * 1_000_000),
        limits.render_workers,
        limits.replay_queue,
        in_memory,
    )
    attach(hub)
    app.state.hub = hub
    if cluster is not None:
        from laizi.server.cluster.queue import ClusterQueueing

        assert isinstance(store, FencedStore)
        node = hub.cluster = Cluster(hub, store, cluster)
        # one queue in Redis, one matchmaker at a time (laizi.server.cluster.queue)
        queueing = ClusterQueueing(store.engine, node, store, limits.ws_join_seconds, match)
        hub.queueing = queueing
        await node.start()
        await queueing.begin()
        recovered = len(hub.rooms)
    else:
        hub.queueing = Queueing(store.engine, hub.open_matched_room, limits.ws_join_seconds, match)
        recovered = hub.recover()
        if ladder is not None:  # the bot ladder (laizi.server.ladder): one process's own pools
            hub.ladder = Ladder(hub, ladder)
            hub.ladder.start()
    # Long-lived tables (the hand tables, the rules) need no garbage collection passes.
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    measured.start(app)  # the loop-lag timer
    log.info("laizi server ready (%d room(s) recovered)", recovered)
    hub.watch_writes()  # the clocks stand still while the writes fail (Hub.writes_failing)
    yield
    # Every step under the stop's deadline (--stop-timeout, counted from the signal: the
    # HaltingServer set it; a step that overruns is left, logged — leases then lapse).
    deadline = StopDeadline(app.state)
    measured.stop()
    if node is not None:
        # the matchmaker's lease handed over at once
        await deadline.step("the queue's hand-over", queueing.end())
        await node.stop(deadline.left())
    hub.queueing.stop()
    if hub.ladder is not None:
        hub.ladder.stop()
    hub.flush(wait=True, timeout=deadline.left())  # what was accepted is written and sent
    if hub.bookings is not None:
        hub.bookings.stop()
    hub.passwords.close()
    app.state.readonly.close()
    store.close(deadline.left())


class StopDeadline:
    """The time left to a graceful stop (``app.state.stop_at``, set when the stop began; else
    ``app.state.stop_timeout`` from now)."""

    def __init__(self, state: object) -> None:
        at = getattr(state, "stop_at", None)
        if at is None:
            at = time.monotonic() + getattr(state, "stop_timeout", STOP_TIMEOUT_S)
        self.at: float = at

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())

    async def step(self, name: str, step: Any) -> None:
        """Await ``step`` at most until the deadline (then it is cancelled, and logged)."""
        try:
            await asyncio.wait_for(step, self.left())
        except TimeoutError:
            log.warning("stopping: %s did not finish before the stop timeout", name)
        except Exception as error:
            log.warning("stopping: %s failed (%s)", name, error)


class HaltingServer(uvicorn.Server):
    """uvicorn's server, which halts the tables (:meth:`Hub.halt`) as the first step of its
    shutdown — before it closes the connections — so that nothing is played for a player the
    shutdown disconnected (托管 would otherwise play on until the application's own shutdown)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        state = getattr(self.config.app, "state", None)
        hub = getattr(state, "hub", None)
        if isinstance(hub, Hub):
            hub.halt()
        timeout = float(getattr(state, "stop_timeout", STOP_TIMEOUT_S))
        if state is not None:
            state.stop_at = time.monotonic() + timeout
        watchdog(timeout + WATCHDOG_MARGIN_S)
        await super().shutdown(sockets)


WATCHDOG_MARGIN_S = 1.0
"""The process is ended this long after its stop timeout if a step still blocks it (one that
holds the event loop, a thread that does not end): its leases then lapse."""


def watchdog(seconds: float) -> threading.Thread:
    """End the process in ``seconds`` (a daemon thread: a process that exits in time exits)."""

    def end() -> None:
        time.sleep(seconds)
        log.error("the stop took longer than its timeout: exiting now")
        logging.shutdown()
        os._exit(1)

    thread = threading.Thread(target=end, name="laizi-stop-watchdog", daemon=True)
    thread.start()
    return thread


def create_app(
    db_url: str,
    limits: ServerLimits | None = None,
    cluster: ClusterConfig | None = None,
    admins: frozenset[str] = frozenset(),
    metrics_from: Sequence[str] = (),
    match: MatchSettings | None = None,
    stop_timeout: float = STOP_TIMEOUT_S,
    ladder: LadderSettings | None = None,
) -> Starlette:
    """The Starlette application; the database is migrated and the rooms recovered at startup.

    ``limits``: the resource limits (docs/server.md), the defaults when None; ``cluster``: join
    a cluster (``laizi serve --redis``), None: a process on its own; ``admins``: the account
    names that may read the admin routes (``laizi serve --admin``, :mod:`laizi.server.admin`);
    ``metrics_from``: the addresses or networks besides loopback that may read ``/metrics``
    (``laizi serve --metrics-from``, :mod:`laizi.server.metrics`); ``match``: the matchmaker's
    settings (``laizi serve --casual-wait-seconds`` …); ``stop_timeout``: a graceful stop's
    every step ends within it (``laizi serve --stop-timeout``); ``ladder``: run the bot ladder
    with these settings (``laizi serve --bot-ladder``; a process on its own only)."""
    if ladder is not None and cluster is not None:
        raise ValueError("the bot ladder runs on a server on its own, not in a cluster")
    limits = limits or ServerLimits()

    def hub() -> Hub:
        return hub_of(app)

    routes: list[BaseRoute] = []
    if cluster is not None:
        from laizi.server.cluster.relay import cluster_routes

        routes += cluster_routes()  # before the routes they stand in for
    routes += [
        # The web client serves "/", "/r/{code}" and its files: laizi.web.routes.
        *readonly_routes(),  # finished hands' replays and records, kept (laizi.server.readonly)
        *web_routes(),
        *schema_routes(),
        *summary_routes(),
        *table_routes(),
        *metrics_routes(),  # the process's own measurements (laizi.server.metrics)
        WebSocketRoute("/ws", websocket),
        WebSocketRoute("/ws/bot", bot_websocket),  # outside bots: docs/bot-protocol.md
        *api_routes(hub),
        *admin_routes(hub, admins),
        *bot_token_routes(hub),
        *bot_rating_routes(hub),  # the bots' leaderboard (laizi.server.botratings)
    ]
    app = Starlette(
        routes=routes,
        lifespan=functools.partial(
            lifespan, db_url=db_url, limits=limits, cluster=cluster, match=match, ladder=ladder
        ),
        middleware=[
            Middleware(HttpGuard),  # outermost: its headers are on every answer
            Middleware(GetLimit, rate=limits.get_rate, burst=limits.get_burst),
            Middleware(ErrorBodies),  # every API error: code, params, message, message_zh
            Middleware(BodyLimit, max_bytes=limits.max_body_bytes),
        ],
        exception_handlers={BodyTooLarge: body_too_large},
    )
    node = cluster.advertise if cluster is not None else "standalone"
    app.state.metrics = ServerMetrics(node, metrics_networks(metrics_from))
    app.state.stop_timeout = stop_timeout
    return app
