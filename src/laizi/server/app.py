"""The web application: :func:`create_app` assembles the hub (:mod:`laizi.server.hub`), the
table's routes (:mod:`laizi.server.routes`), the WebSocket endpoint (:mod:`laizi.server.ws`), the
account API, the settings schema and the web client it mounts."""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import WebSocketRoute

from laizi.server.api import api_routes, attach
from laizi.server.errors import ErrorBodies
from laizi.server.http_guard import HttpGuard
from laizi.server.hub import Hub, hub_of
from laizi.server.limits import BodyLimit, BodyTooLarge, HashPool, ServerLimits
from laizi.server.routes import body_too_large, table_routes
from laizi.server.schema import schema_routes
from laizi.server.store import Store
from laizi.server.summary import summary_routes
from laizi.server.ws import websocket
from laizi.web import routes as web_routes

__all__ = ["Hub", "create_app"]

log = logging.getLogger("laizi.server")


@contextlib.asynccontextmanager
async def lifespan(app: Starlette, db_url: str, limits: ServerLimits) -> AsyncIterator[None]:
    """Startup: migrate the database, make the hub (``app.state.hub``), recover the rooms;
    shutdown: write what was accepted, stop the booking timer, close the pool and the database."""
    store = Store(db_url)
    hub = Hub(store, limits)
    hub.passwords = HashPool(limits.workers, limits.hash_queue)
    attach(hub)
    app.state.hub = hub
    recovered = hub.recover()
    # Long-lived tables (the hand tables, the rules) need no garbage collection passes.
    gc.collect()
    gc.freeze()
    log.info("laizi server ready (%d room(s) recovered)", recovered)
    yield
    hub.flush()  # what was accepted in the last turn of the loop is written before we go
    if hub.bookings is not None:
        hub.bookings.stop()
    hub.passwords.close()
    store.close()


def create_app(db_url: str, limits: ServerLimits | None = None) -> Starlette:
    """The Starlette application; the database is migrated and the rooms recovered at startup.

    ``limits``: the resource limits (docs/server.md), the defaults when None."""
    limits = limits or ServerLimits()

    def hub() -> Hub:
        return hub_of(app)

    routes = [
        # The web client serves "/", "/r/{code}" and its files: laizi.web.routes.
        *web_routes(lambda code, number: hub().store.record(code.upper(), number)),
        *schema_routes(),
        *summary_routes(),
        *table_routes(),
        WebSocketRoute("/ws", websocket),
        *api_routes(hub),
    ]
    app = Starlette(
        routes=routes,
        lifespan=functools.partial(lifespan, db_url=db_url, limits=limits),
        middleware=[
            Middleware(HttpGuard),  # outermost: its headers are on every answer
            Middleware(ErrorBodies),  # every API error: code, params, message, message_zh
            Middleware(BodyLimit, max_bytes=limits.max_body_bytes),
        ],
        exception_handlers={BodyTooLarge: body_too_large},
    )
    return app
