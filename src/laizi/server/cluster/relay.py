"""One public address: a client may reach any process; its requests reach the room's owner.

**Why forwarding, not a redirect.** A client — the web page, a bot, a script — connects to any
process or to the reverse proxy in front of them, and sends ``join``.  If the room is not held
by that process, the process (the *front*) opens a WebSocket to the owner and relays the frames
both ways, unchanged.  A redirect would make every client learn a second address per room, and
behind a proxy every process would need its own public route; with forwarding the proxy only
balances, clients keep the protocol they speak today (reconnect with the seat's token), and a
room that moves (a failover, a hand-over) is followed by the front, not by the client.  The cost
is one more hop for the relayed connections (a few tens of microseconds of CPU per frame on the
front).

The owner trusts what a front says about the client (its address, for the per-address limits)
only with the cluster's shared secret (``X-Laizi-Cluster``, kept in PostgreSQL), so a client cannot
pose as a front.  The client's session cookie is passed on (only when the front itself would
have believed it: not for a page of another site), so the owner sees the same account.

When the owner dies or the room moves, the relayed connection to the owner closes; the front
closes the client's connection (1012: service restart) and the client reconnects — to any
process — with its token and ``last_seq``: the new owner sends what it missed.  While a room is
between owners (its dead owner's lease has not lapsed yet) a front keeps the joining client
waiting (up to ``relay_wait_s``), and takes an orphaned room itself if it is asked for one.

HTTP: ``POST /api/rooms`` places the room on the least-loaded process (forwarded there);
``GET /api/rooms/CODE`` and a hand's bot notes (kept in the owner's memory) are answered by the
owner; everything else (records, summaries, accounts, the lobby, which lives in Redis) any
process answers itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
import websockets
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from laizi import jsonsafe
from laizi.rules import SettingsError
from laizi.server.api import current_account
from laizi.server.cluster.queue import ClusterQueueing
from laizi.server.cluster.shared import ClusterQuotas
from laizi.server.hub import hub_of
from laizi.server.limits import MESSAGE_TEXT, LimitError, Owner
from laizi.server.protocol import PROTOCOL_MINOR, PROTOCOL_VERSION, encode
from laizi.server.room import Conn, Room, new_code
from laizi.server.routes import ROOM_BODY_BYTES, healthz
from laizi.server.table import TableSettings, TableSettingsError
from laizi.server.ws import Outbox, read, writer

if TYPE_CHECKING:
    from laizi.server.cluster.node import Cluster
    from laizi.server.hub import Hub

__all__ = ["CLIENT_HEADER", "KEY_HEADER", "Relay", "cluster_routes", "serve_cluster_websocket"]

log = logging.getLogger("laizi.server.cluster")

KEY_HEADER = "x-laizi-cluster"
"""The cluster's secret: the request comes from another process of the cluster."""
CLIENT_HEADER = "x-laizi-client"
"""The client's address, as the front saw it (believed only with :data:`KEY_HEADER`)."""
RETRY_S = 0.2
"""How often a waiting front looks again for a room's owner."""


def trusted(cluster: Cluster, headers: Any) -> bool:
    """The request carries the cluster's secret (it comes from a front)."""
    given = headers.get(KEY_HEADER)
    return bool(given and cluster.secret and secrets.compare_digest(given, cluster.secret))


def _join_room(data: bytes) -> str | None:
    """The room code of a ``join`` message (None for anything else: the hub answers it)."""
    if b'"join"' not in data:
        return None
    try:
        message = jsonsafe.loads(data)
    except jsonsafe.JSONInputError:
        return None
    if not isinstance(message, dict) or message.get("type") != "join":
        return None
    room = message.get("room")
    return room.upper() if isinstance(room, str) and 0 < len(room) <= 16 else None


async def serve_cluster_websocket(cluster: Cluster, ws: WebSocket) -> None:
    """``/ws`` of a cluster's process: connections counted per address across the cluster, a
    ``join`` for a room held elsewhere forwarded to its owner (:class:`Relay`)."""
    hub = cluster.hub
    await ws.accept()
    internal = trusted(cluster, ws.headers)
    if internal:  # a front forwards a client: the limits count the client's address
        address = ws.headers.get(CLIENT_HEADER, "")
        ws.scope["client"] = (address, 0)
    else:
        address = ws.client.host if ws.client is not None else ""
        refused = hub.quotas.connect(address)
        if refused is None:
            refused = await cluster.connect(address)
            if refused is not None:
                hub.quotas.disconnect(address)
        if refused is not None:
            text = MESSAGE_TEXT[refused]
            await ws.send_text(encode({"type": "error", "code": refused, "message": text}))
            await ws.close(code=1008)
            return
    outbox = Outbox()
    conn = Conn(outbox.send, outbox.send_many)
    conn.address = address  # the matchmaker's shared-address rule
    if hub.accounts is not None:
        conn.account = current_account(hub.accounts, ws)
    task = asyncio.create_task(writer(ws, outbox.queue))
    if not internal:  # a forwarded client was welcomed by its front
        outbox.send(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "minor": PROTOCOL_MINOR,
                "max_message": hub.limits.message_bytes,
            }
        )
    cluster.sockets[conn] = ws

    async def intercept(data: bytes) -> bool:
        code = _join_room(data)
        if code is None or code in hub.rooms:
            return False
        if internal:  # forwarded here, but the room is not (any more) here: the front looks again
            await ws.close(code=1012)
            return True
        if isinstance(hub.queueing, ClusterQueueing):
            hub.queueing.relayed(conn)  # its messages come from the room's owner now
        return await Relay(cluster, ws, conn, code).run(data)

    try:
        await read(ws, hub, conn, outbox, task, intercept)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("websocket handler failed")
    finally:
        cluster.sockets.pop(conn, None)
        hub.disconnect(conn)
        task.cancel()
        if not internal:
            hub.quotas.disconnect(address)
            cluster.spawn(cluster.disconnect(address))


class Relay:
    """A client's connection forwarded to the process that owns its room."""

    path = "/ws"
    """The owner's endpoint the connection is forwarded to (``/ws/bot``: cluster/botrelay.py)."""

    def __init__(self, cluster: Cluster, ws: WebSocket, conn: Conn, code: str) -> None:
        self.cluster = cluster
        self.ws = ws
        self.conn = conn
        self.code = code
        self.node = ""
        self.pump: asyncio.Task[bool] | None = None
        self.gone = False

    def headers(self) -> dict[str, str]:
        ws = self.ws
        out = {
            KEY_HEADER: self.cluster.secret,
            CLIENT_HEADER: ws.client.host if ws.client is not None else "",
        }
        cookie = ws.headers.get("cookie")
        if cookie and self.conn.account is not None:  # the front believed it: so may the owner
            out["Cookie"] = cookie
        return out

    async def run(self, first: bytes) -> bool:
        """Forward the connection to the room's owner until it ends (True); False: the room is
        held here after all, or unknown — this process answers the ``join`` itself."""
        try:
            return await self._run(first)
        except RedisError as error:  # no Redis, no owner to find: the hub answers (no_room)
            log.warning("room %s: Redis did not answer (%s)", self.code, error)
            return False

    async def _run(self, first: bytes) -> bool:
        cluster = self.cluster
        hub = cluster.hub
        loop = asyncio.get_running_loop()
        deadline = loop.time() + cluster.config.relay_wait_s
        while not self.gone:
            if self.code in hub.rooms:
                return False
            owner = await cluster.owner(self.code)
            if owner is None:
                if not await cluster.redis.sismember(cluster.key("rooms"), self.code):
                    return False  # no such room (or over): the hub says so
                if await cluster.take(self.code):
                    return False  # orphaned, and taken here
            elif owner[0] != cluster.node:
                self.node = owner[0]
                upstream = await self._connect(owner[1])
                if upstream is not None and await self._forward(upstream, first):
                    return True
            if loop.time() > deadline:
                log.warning("room %s: no owner answered in time", self.code)
                return False
            await asyncio.sleep(RETRY_S)
        return True

    async def _connect(self, address: str) -> Any:
        try:
            upstream = await websockets.connect(
                f"ws://{address}{self.path}",
                additional_headers=self.headers(),
                open_timeout=2,
                max_size=2**22,
                compression=None,
            )
            if await self._greeted(upstream):
                return upstream
            await upstream.close()
            return None
        except (OSError, TimeoutError, websockets.WebSocketException) as error:
            log.info("room %s: its owner at %s did not answer (%s)", self.code, address, error)
            return None

    async def _greeted(self, upstream: Any) -> bool:
        """Take what the owner says before the client's first message (``/ws``: nothing)."""
        return True

    async def _forward(self, upstream: Any, first: bytes) -> bool:
        """Relay both ways; False if the owner closed before answering (look again)."""
        ws = self.ws
        answered = False

        async def down() -> None:
            nonlocal answered
            async for frame in upstream:
                answered = True
                if isinstance(frame, str):
                    await ws.send_text(frame)
                else:
                    await ws.send_bytes(frame)

        async def up() -> None:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    self.gone = True
                    return
                text = message.get("text")
                await upstream.send(text if text is not None else message.get("bytes") or b"")

        relays = self.cluster.relays.setdefault(self.code, set())
        relays.add(self)
        tasks = [asyncio.create_task(down()), asyncio.create_task(up())]
        try:
            await upstream.send(first.decode("utf-8", "replace"))
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        except websockets.WebSocketException:
            pass
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            relays.discard(self)
            if not relays:
                self.cluster.relays.pop(self.code, None)
            with contextlib.suppress(Exception):
                await upstream.close()
        if self.gone:
            return True
        if not answered:
            return False
        # The owner went away (died, or the room moved): the client reconnects with its token.
        with contextlib.suppress(Exception):
            await ws.close(code=1012)
        self.gone = True
        return True

    def moved(self) -> None:
        """The room has a new owner: end this relay (the client reconnects to it)."""
        self.cluster.spawn(self.ws.close(code=1012))


# -- HTTP ------------------------------------------------------------------------------------------
async def _forward_http(
    cluster: Cluster, request: Request, address: str, body: bytes | None
) -> Response | None:
    """The same request answered by the process at ``address`` (None if it did not answer)."""
    headers = {
        KEY_HEADER: cluster.secret,
        CLIENT_HEADER: request.client.host if request.client is not None else "",
        "Content-Type": request.headers.get("content-type", "application/json"),
    }
    cookie = request.headers.get("cookie")
    if cookie:
        headers["Cookie"] = cookie
    try:
        answer = await cluster.http.request(
            request.method, f"http://{address}{request.url.path}", content=body, headers=headers
        )
    except httpx.HTTPError as error:
        log.info("the process at %s did not answer (%s)", address, error)
        return None
    keep = {k: v for k, v in answer.headers.items() if k.lower() in ("content-type", "retry-after")}
    return Response(answer.content, answer.status_code, headers=keep)


def _client(cluster: Cluster, request: Request) -> str:
    if trusted(cluster, request.headers):
        return request.headers.get(CLIENT_HEADER, "")
    return request.client.host if request.client is not None else ""


async def create_room(request: Request) -> Response:
    """``POST /api/rooms`` in a cluster: placed on the least-loaded process, whose lease of the
    new code comes before the room exists; the maker's limits are counted in Redis."""
    hub = hub_of(request.app)
    cluster: Cluster = hub.cluster
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        message = "请发送 JSON / send a JSON body (Content-Type: application/json)"
        return JSONResponse({"error": message, "code": "bad_request"}, 415)
    raw = await request.body()
    if len(raw) > ROOM_BODY_BYTES:
        return JSONResponse({"error": "the body is too large", "code": "too_large"}, 413)
    try:
        return await _create_room(request, hub, cluster, raw)
    except RedisError as error:
        log.warning("a room could not be made: Redis did not answer (%s)", error)
        return _busy()


BUSY = {
    "error": "服务器忙，请稍后再试 / the server is busy; try again soon",
    "code": "busy",
}


def _busy() -> JSONResponse:
    """``503 busy``, to be tried again in a second (Redis or the room's owner did not answer)."""
    return JSONResponse(BUSY, 503, headers={"Retry-After": "1"})


async def _create_room(request: Request, hub: Hub, cluster: Cluster, raw: bytes) -> Response:
    if not trusted(cluster, request.headers):
        node, address = await cluster.place()
        if node != cluster.node:
            answer = await _forward_http(cluster, request, address, raw)
            if answer is not None:
                return answer
    account = None if hub.accounts is None else current_account(hub.accounts, request)
    owner = Owner(_client(cluster, request), None if account is None else account.id)
    try:
        body = jsonsafe.loads(raw or b"{}")
        table = body.get("table") if isinstance(body, dict) else None
        bots_only = TableSettings.from_json(table).players == 0
    except jsonsafe.JSONInputError as error:
        body = {"error": f"the body is not JSON: {error}", "code": "bad_request"}
        return JSONResponse(body, 400)
    except TableSettingsError as error:
        return JSONResponse({"error": str(error), "code": "bad_request"}, 400)
    code = new_code()
    while hub.store.room_id(code) is not None or not await cluster.acquire(code):
        code = new_code()
    cluster.pending.add(code)
    counted = False
    quotas = hub.quotas
    assert isinstance(quotas, ClusterQuotas)
    try:
        quotas.check_room(owner, bots_only)  # this process's own limits first
        await quotas.add_shared(code, owner, bots_only)
        counted = True
        room = hub.create_room(body, owner, code=code)
    except (LimitError, SettingsError, TableSettingsError, ValueError) as error:
        if counted:
            await cluster.room_closed(code)
        await cluster.release(code)
        if isinstance(error, LimitError):
            return JSONResponse({"error": error.message, "code": error.code}, error.status)
        return JSONResponse({"error": str(error), "code": "bad_request"}, 400)
    finally:
        cluster.pending.discard(code)
    await cluster.room_made(code)
    return JSONResponse(room.info(), 201)


async def _at_owner(
    request: Request, here: Callable[[Room], Response], missing: Callable[[], Response]
) -> Response:
    """A route about one room (``{code}``) answered by the room's owner, wherever it is:
    ``here(room)`` when this process holds it, else the owner's answer; ``missing()`` when no
    process holds it (or one forwarded here for a room not here any more).  An owner that does
    not answer (busy past the forward's timeout, or stopped before its lease runs out) is
    ``503 busy`` with ``Retry-After``: the room exists, and "no such room" would tell a client
    to give up on it."""
    hub = hub_of(request.app)
    cluster: Cluster = hub.cluster
    code = request.path_params["code"].upper()
    room = hub.rooms.get(code)
    if room is not None:
        return here(room)
    if not trusted(cluster, request.headers) and len(code) <= 16:
        try:
            owner = await cluster.owner_of_live(code)
        except RedisError as error:
            log.warning("room %s: Redis did not answer (%s)", code, error)
            return _busy()
        if owner is not None and owner[0] != cluster.node:
            answer = await _forward_http(cluster, request, owner[1], None)
            if answer is None:
                return _busy()
            return answer
    return missing()


async def room_info(request: Request) -> Response:
    """``GET /api/rooms/CODE``: from the room's owner, wherever it is."""
    return await _at_owner(
        request,
        lambda room: JSONResponse(room.info()),
        lambda: JSONResponse({"error": "no such room"}, 404),
    )


async def hand_notes(request: Request) -> Response:
    """``GET /api/rooms/CODE/hands/N/notes``: the bots' notes are kept by the room's owner."""
    number = request.path_params["number"]
    return await _at_owner(
        request,
        lambda room: JSONResponse({"notes": room.notes.of(number)}),
        lambda: JSONResponse({"notes": []}),
    )


async def cluster_healthz(request: Request) -> Response:
    """``/healthz`` with this process's part of the cluster."""
    answer = await healthz(request)
    body = jsonsafe.loads(bytes(answer.body))
    hub = hub_of(request.app)
    body["cluster"] = hub.cluster.health()
    if isinstance(hub.queueing, ClusterQueueing):
        body["cluster"]["queue"] = hub.queueing.health()
    return JSONResponse(body)


async def _cluster_websocket(ws: WebSocket) -> None:
    """``/ws`` of a process in a cluster (:func:`serve_cluster_websocket`)."""
    await serve_cluster_websocket(hub_of(ws.app).cluster, ws)


def cluster_routes() -> list[BaseRoute]:
    """Routes that take the place of the single process's ones (listed before them)."""
    return [
        WebSocketRoute("/ws", _cluster_websocket),
        Route("/healthz", cluster_healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/rooms/{code}/hands/{number:int}/notes", hand_notes),
    ]
