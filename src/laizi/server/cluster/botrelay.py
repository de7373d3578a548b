"""``/ws/bot`` in a cluster: an outside bot may connect to any process, as a client of ``/ws``
may (cluster/relay.py).

The process the bot reaches (the *front*) greets it, reads its ``hello`` and checks the version
and the bot token (the tokens are in the shared PostgreSQL database) as a single process does.
If the named room is held by another process the front opens ``/ws/bot`` on the owner with the
cluster's secret and the bot's address, takes the owner's own greeting (the bot had the
front's), sends the bot's ``hello`` (its token written in, whether it came in the ``hello`` or
the ``Authorization`` header) and relays the frames both ways, unchanged — the owner seats the
bot and plays the bot protocol with it.  When the owner dies or the room moves the front closes
the bot's connection (1012); the bot reconnects to any process with its ``seat_token``.

Connections are counted per address across the cluster at the front (in Redis), as on ``/ws``;
the owner believes a front's account of the address only with the shared secret.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import websockets
from starlette.websockets import WebSocket

from laizi.server.cluster.relay import CLIENT_HEADER, KEY_HEADER, Relay, trusted
from laizi.server.room import Conn

if TYPE_CHECKING:
    from laizi.server.cluster.node import Cluster
    from laizi.server.hub import Hub

__all__ = ["BotRelay", "admit", "forward", "release"]

GREETING_S = 5.0
"""How long the front waits for the owner's greeting."""


def _drop(message: dict[str, Any]) -> None:
    """A relayed bot's frames go straight to the bot: nothing reaches this ``Conn``."""


def _drop_many(messages: list[dict[str, Any]]) -> None:
    """As :func:`_drop`."""


class BotRelay(Relay):
    """A bot's ``/ws/bot`` connection forwarded to the process that owns its room."""

    path = "/ws/bot"

    def __init__(self, cluster: Cluster, ws: WebSocket, code: str) -> None:
        super().__init__(cluster, ws, Conn(_drop, _drop_many), code)

    def headers(self) -> dict[str, str]:
        ws = self.ws
        return {
            KEY_HEADER: self.cluster.secret,
            CLIENT_HEADER: ws.client.host if ws.client is not None else "",
        }

    async def _greeted(self, upstream: Any) -> bool:
        """The owner's ``hello`` greeting, dropped: the bot had the front's."""
        try:
            frame = await asyncio.wait_for(upstream.recv(), GREETING_S)
            greeting = json.loads(frame)
        except (TimeoutError, ValueError, websockets.WebSocketException):
            return False
        return isinstance(greeting, dict) and greeting.get("type") == "hello"


async def admit(hub: Hub, ws: WebSocket) -> tuple[bool, str, str | None]:
    """A bot's connection to a process of a cluster: (forwarded by a front, the bot's address,
    the refusal's code or None).  A direct connection is counted here and in Redis; a
    forwarded one was counted by its front."""
    cluster: Cluster = hub.cluster
    if trusted(cluster, ws.headers):
        address = ws.headers.get(CLIENT_HEADER, "")
        ws.scope["client"] = (address, 0)
        return True, address, None
    address = ws.client.host if ws.client is not None else ""
    refused = hub.quotas.connect(address)
    if refused is None:
        refused = await cluster.connect(address)
        if refused is not None:
            hub.quotas.disconnect(address)
    return False, address, refused


def release(hub: Hub, internal: bool, address: str) -> None:
    """The connection :func:`admit` let in has ended."""
    if not internal:
        hub.quotas.disconnect(address)
        cluster: Cluster = hub.cluster
        cluster.spawn(cluster.disconnect(address))


async def forward(hub: Hub, ws: WebSocket, hello: dict[str, Any], internal: bool) -> bool:
    """True when the bot was served elsewhere (relayed to the room's owner until it ended), or,
    forwarded here for a room this process does not hold (any more), sent back to its front to
    look again; False: this process answers the ``join`` itself (the room is here, was taken
    here, or does not exist)."""
    code = str(hello["room"]).upper()
    if code in hub.rooms or not 0 < len(code) <= 16:
        return False
    if internal:
        await ws.close(code=1012)
        return True
    text = json.dumps(hello, ensure_ascii=False, separators=(",", ":"))
    return await BotRelay(hub.cluster, ws, code).run(text.encode())
