"""The web application: HTTP routes, the WebSocket endpoint, and the hub that owns the rooms."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from laizi import jsonsafe
from laizi.engine.record import to_jsonl
from laizi.rules import Settings, SettingsError
from laizi.server.accounts import Accounts
from laizi.server.api import (
    after_join,
    api_routes,
    attach,
    before_join,
    current_account,
    mark_guests,
)
from laizi.server.http_guard import HttpGuard
from laizi.server.limits import (
    MESSAGE_TEXT,
    BodyLimit,
    BodyTooLarge,
    HashPool,
    LimitError,
    LobbyCache,
    MessageGate,
    Owner,
    Quotas,
    ServerLimits,
    too_large_response,
)
from laizi.server.protocol import (
    PROTOCOL_MINOR,
    PROTOCOL_VERSION,
    Act,
    Auto,
    Join,
    Leave,
    Ping,
    ProtocolError,
    Ready,
    Resync,
    decode_client,
    encode,
)
from laizi.server.room import Conn, Room, new_code
from laizi.server.schema import schema_routes
from laizi.server.store import Store
from laizi.server.table import TableSettings, TableSettingsError
from laizi.web import routes as web_routes

__all__ = ["Hub", "create_app"]

log = logging.getLogger("laizi.server")

FORGET_AFTER_S = 600.0
"""A finished room stays in memory (its page, its info, its connections) this long."""
CLOSE_AFTER = ""
"""Put in a connection's outbox: send what is before it, then close (1008)."""
OUTBOX_LIMIT = 2000
"""A client that lets this many messages pile up unread is disconnected."""


class Hub:
    """Every room of this server, by join code."""

    def __init__(self, store: Store, limits: ServerLimits | None = None) -> None:
        self.store = store
        self.limits = limits or ServerLimits()
        self.quotas = Quotas(self.limits)
        """Connections and rooms per address and account (``laizi.server.limits``)."""
        self.passwords: HashPool | None = None
        """The bounded pool for Argon2id work (made at startup)."""
        self.lobby: LobbyCache | None = None
        self.rooms: dict[str, Room] = {}
        self.accounts: Accounts | None = None
        self.on_match_end: Callable[[Room], None] | None = None
        """Given to every room (issue 8: ``laizi.server.booking.Bookings`` books the results)."""
        self.bookings: Any = None
        """``laizi.server.booking.Bookings``: what is booked, and what could not be (healthz)."""
        self.held: list[tuple[Conn, dict[str, Any]]] = []
        self.flush_scheduled = False

    def post(self, conn: Conn, message: dict[str, Any]) -> None:
        """Send a room's message once the database holds everything staged so far."""
        self.held.append((conn, message))
        self.schedule_flush()

    def schedule_flush(self) -> None:
        """Commit (and send) at the end of this turn of the event loop."""
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit what the rooms staged (one transaction), then let their messages go."""
        self.flush_scheduled = False
        try:
            self.store.commit()
        except Exception:
            log.exception("the database refused a write: messages held back")
            self.held.clear()
            return
        held, self.held = self.held, []
        by_conn: dict[Conn, list[dict[str, Any]]] = {}
        for conn, message in held:
            by_conn.setdefault(conn, []).append(message)
        for conn, messages in by_conn.items():
            conn.send_many(messages)

    def create_room(self, body: Any, owner: Owner | None = None) -> Room:
        """A new room; with an ``owner`` (a client's request) the quotas are checked first
        (:class:`laizi.server.limits.LimitError`)."""
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object with 'rules' and 'table'")
        unknown = set(body) - {"rules", "table"}
        if unknown:
            raise ValueError(f"unknown key {sorted(unknown)[0]!r} (expected 'rules', 'table')")
        rules = Settings.from_json(body.get("rules", "wuhan-hongzhong-kaikou"))
        table = TableSettings.from_json(body.get("table"))
        from laizi.engine import make_ruleset

        make_ruleset(rules)  # a game the engine can't play is refused here, not at the deal
        if owner is not None:
            self.quotas.check_room(owner, table.players == 0)
        code = new_code()
        while code in self.rooms or self.store.room_id(code) is not None:
            code = new_code()
        room_id = self.store.create_room(code, rules.to_json(), table.to_json())
        room = Room(self.store, room_id, code, rules, table, self.post, self.schedule_flush)
        room.on_match_end = self.on_match_end
        room.on_over = self.forget_later
        self.rooms[code] = room
        self.quotas.add_room(code, owner or Owner("(server)"), table.players == 0)
        self.room_set_changed()
        if table.players == 0:
            room.start_match()
        else:
            self.expire_later(room)
        return room

    def room_set_changed(self) -> None:
        if self.lobby is not None:
            self.lobby.changed()

    def expire_later(self, room: Room) -> None:
        """Close the room if it is still waiting for its people after ``waiting_room_seconds``."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # made outside the server (a unit test): no clock to expire on
            return

        def expire() -> None:
            if self.rooms.get(room.code) is room and room.status == "waiting":
                room.expire()
                del self.rooms[room.code]
                self.quotas.release_room(room.code)
                self.room_set_changed()

        loop.call_later(self.limits.waiting_room_seconds, expire)

    def forget_later(self, room: Room) -> None:
        """Drop a finished room from memory after a while (its records stay in the database)."""
        self.quotas.release_room(room.code)
        self.room_set_changed()

        def forget() -> None:
            if self.rooms.get(room.code) is room:
                del self.rooms[room.code]

        asyncio.get_running_loop().call_later(FORGET_AFTER_S, forget)

    def recover(self) -> int:
        """Rebuild every unfinished room from the database; returns how many."""
        count = 0
        for row in self.store.rooms(("waiting", "playing")):
            try:
                room = Room(
                    self.store,
                    row.id,
                    row.code,
                    Settings.from_json(row.rules),
                    TableSettings.from_json(row.table_settings),
                    self.post,
                    self.schedule_flush,
                )
                room.on_match_end = self.on_match_end
                from laizi.server.room import Seat

                for seat in row.seats:
                    room.seats[seat["seat"]] = Seat(
                        kind=seat["kind"],
                        name=seat["name"],
                        token=seat["token"],
                        bank=room.table.bank_seconds if seat["bank"] is None else seat["bank"],
                        auto=seat["auto"],
                        auto_shown=seat["auto_shown"],
                    )
                mark_guests(room)
                room.status = row.status
                room.on_over = self.forget_later
                if row.status == "playing":
                    room.rebuild(self.store.hands(row.id))
                room.resume()
            except Exception:
                log.exception("room %s could not be recovered", row.code)
                continue
            self.rooms[row.code] = room
            bots_only = room.table.players == 0
            self.quotas.add_room(row.code, Owner("(recovered)"), bots_only)
            if room.status == "waiting":
                self.expire_later(room)
            count += 1
        return count

    def handle(self, conn: Conn, text: str | bytes) -> bool:
        """One client message; a bad one is answered with an error, nothing else changes.

        True when it was an action the table accepted (the message budget gives it back: the
        game's own pace bounds those)."""
        try:
            message = decode_client(text)
            if isinstance(message, Ping):
                conn.send({"type": "pong"})
            elif isinstance(message, Join):
                room = self.rooms.get(message.room.upper())
                if room is None:
                    raise ProtocolError("no_room", f"no room has the code {message.room!r}")
                if message.spectate and len(room.spectators) >= self.limits.spectators_per_room:
                    raise ProtocolError(
                        "too_many_spectators",
                        f"观众已满 / this room has its {self.limits.spectators_per_room} "
                        "spectators",
                    )
                message = before_join(self, conn, message)
                room.join(conn, message)
                after_join(room, conn, message)
            else:
                room = conn.room
                if room is None:
                    raise ProtocolError("not_joined", "join a room first")
                if isinstance(message, Act):
                    room.act(conn, message)
                    return True
                elif isinstance(message, Auto):
                    room.set_auto(conn, message.on)
                elif isinstance(message, Leave):
                    room.leave(conn)
                elif isinstance(message, Resync):
                    room.catch_up(conn, message.last_seq)
                elif isinstance(message, Ready):
                    room.ready(conn, message)
        except ProtocolError as error:
            conn.send(error.to_message())
        return False

    def disconnect(self, conn: Conn) -> None:
        if conn.room is not None:
            conn.room.disconnect(conn)
            conn.room = None


PAGE = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>laizi {title}</title></head>
<body><h1>laizi 癞子 — {title}</h1>
<p>Wuhan mahjong online table. WebSocket protocol v{version} at <code>/ws</code>
(see docs/protocol.md). The web client comes with issue 9.</p>
{body}
</body></html>
"""


def create_app(db_url: str, limits: ServerLimits | None = None) -> Starlette:
    """The Starlette application; the database is migrated and the rooms recovered at startup.

    ``limits``: the resource limits (docs/server.md), the defaults when None."""
    state: dict[str, Any] = {}
    limits = limits or ServerLimits()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(db_url)
        hub = Hub(store, limits)
        hub.passwords = HashPool(limits.workers, limits.hash_queue)
        attach(hub)
        state["hub"] = hub
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

    def hub() -> Hub:
        return state["hub"]

    async def index(request: Request) -> Response:
        rooms = len(hub().rooms)
        body = f"<p>{rooms} room(s). Create one: <code>POST /api/rooms</code>.</p>"
        return HTMLResponse(PAGE.format(title="online table", version=PROTOCOL_VERSION, body=body))

    async def room_page(request: Request) -> Response:
        code = request.path_params["code"].upper()
        room = hub().rooms.get(code)
        if room is None:
            return HTMLResponse(PAGE.format(title="no such room", version=1, body=""), 404)
        body = (
            f"<p>Room <b>{html.escape(code)}</b> ({html.escape(room.rules.preset)}): "
            f'join with <code>{{"type": "join", "room": "{html.escape(code)}"}}</code>.'
            "</p>"
        )
        return HTMLResponse(PAGE.format(title=f"room {code}", version=PROTOCOL_VERSION, body=body))

    async def healthz(request: Request) -> Response:
        health = {"ok": True, "protocol": PROTOCOL_VERSION, "rooms": len(hub().rooms)}
        if hub().bookings is not None:
            health.update(hub().bookings.health())  # unbooked matches and why
        return JSONResponse(health)

    async def create_room(request: Request) -> Response:
        # A JSON body only: a form of another site cannot send one (like the account routes).
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            message = "请发送 JSON / send a JSON body (Content-Type: application/json)"
            return JSONResponse({"error": message, "code": "bad_request"}, 415)
        raw = await request.body()
        if len(raw) > 16_384:
            return JSONResponse({"error": "the body is too large", "code": "too_large"}, 413)
        accounts = hub().accounts
        account = None if accounts is None else current_account(accounts, request)
        owner = Owner(
            request.client.host if request.client is not None else "",
            None if account is None else account.id,
        )
        try:
            body = jsonsafe.loads(raw or b"{}")
            room = hub().create_room(body, owner)
        except LimitError as error:
            return JSONResponse({"error": error.message, "code": error.code}, error.status)
        except jsonsafe.JSONInputError as error:
            body = {"error": f"the body is not JSON: {error}", "code": "bad_request"}
            return JSONResponse(body, 400)
        except (SettingsError, TableSettingsError, ValueError) as error:
            return JSONResponse({"error": str(error), "code": "bad_request"}, 400)
        return JSONResponse(room.info(), 201)

    async def room_info(request: Request) -> Response:
        room = hub().rooms.get(request.path_params["code"].upper())
        if room is None:
            return JSONResponse({"error": "no such room"}, 404)
        return JSONResponse(room.info())

    async def record(request: Request) -> Response:
        code = request.path_params["code"].upper()
        events = hub().store.record(code, request.path_params["number"])
        if events is None:
            return JSONResponse({"error": "no finished hand with that number in that room"}, 404)
        return PlainTextResponse(to_jsonl(events), media_type="application/x-ndjson")

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        address = ws.client.host if ws.client is not None else ""
        quotas = hub().quotas
        refused = quotas.connect(address)
        if refused is not None:
            text = MESSAGE_TEXT[refused]
            await ws.send_text(encode({"type": "error", "code": refused, "message": text}))
            await ws.close(code=1008)
            return
        try:
            await serve_websocket(ws)
        finally:
            quotas.disconnect(address)

    async def serve_websocket(ws: WebSocket) -> None:
        conn_address = ws.client.host if ws.client is not None else ""
        outbox: asyncio.Queue[str | None] = asyncio.Queue()
        gate = MessageGate(limits)

        def send(message: dict[str, Any]) -> None:
            if outbox.qsize() > OUTBOX_LIMIT:
                outbox.put_nowait(None)
                return
            outbox.put_nowait(encode(message))

        def send_many(messages: list[dict[str, Any]]) -> None:
            if len(messages) == 1:
                send(messages[0])
            elif outbox.qsize() > OUTBOX_LIMIT:
                outbox.put_nowait(None)
            else:
                outbox.put_nowait("[" + ",".join(encode(m) for m in messages) + "]")

        async def writer() -> None:
            # Whatever is waiting goes in one frame: a message, or an array of messages in order.
            while True:
                texts = [await outbox.get()]
                while not outbox.empty():
                    texts.append(outbox.get_nowait())
                if None in texts:
                    await ws.close(code=1008)
                    return
                if CLOSE_AFTER in texts:  # what came before (an error telling why) goes out
                    said = [t for t in texts[: texts.index(CLOSE_AFTER)] if t]
                    last = ",".join(t[1:-1] if t.startswith("[") else t for t in said)
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.send_text("[" + last + "]"), 5)
                    await ws.close(code=1008)
                    return
                frames = cast(list[str], texts)  # no None left: checked just above
                if len(frames) == 1:
                    await ws.send_text(frames[0])
                else:
                    parts = [t[1:-1] if t.startswith("[") else t for t in frames]
                    await ws.send_text("[" + ",".join(parts) + "]")

        conn = Conn(send, send_many)
        accounts = hub().accounts
        if accounts is not None:
            conn.account = current_account(accounts, ws)
        task = asyncio.create_task(writer())
        send(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "minor": PROTOCOL_MINOR,
                "max_message": limits.message_bytes,
            }
        )
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                data: bytes = (message.get("bytes") or b"") if text is None else text.encode()
                refused = gate.admit(data)  # the limits count bytes, not characters
                if refused is None:
                    if hub().handle(conn, data):
                        gate.refund()
                    continue
                if gate.abusive:
                    hub().quotas.abused(conn_address)
                    send({"type": "error", "code": "abuse", "message": MESSAGE_TEXT["abuse"]})
                    outbox.put_nowait(CLOSE_AFTER)  # the writer closes the connection (1008)
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(asyncio.shield(task), 5)
                    break
                if gate.streak == 1 or refused == "too_large":  # one error per run of refusals
                    text = MESSAGE_TEXT[refused].format(n=limits.message_bytes)
                    send({"type": "error", "code": refused, "message": text})
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("websocket handler failed")
        finally:
            hub().disconnect(conn)
            task.cancel()

    routes = [
        # The web client (issue 9) serves "/", "/r/{code}" and its files: laizi.web.routes.
        *web_routes(lambda code, number: hub().store.record(code.upper(), number)),
        *schema_routes(),
        Route("/healthz", healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/rooms/{code}/hands/{number:int}", record),
        WebSocketRoute("/ws", websocket),
        *api_routes(hub),
    ]
    async def body_too_large(request: Request, exc: Exception) -> Response:
        return JSONResponse(too_large_response(limits.max_body_bytes), 413)

    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(HttpGuard),  # outermost: its headers are on every answer
            Middleware(BodyLimit, max_bytes=limits.max_body_bytes),
        ],
        exception_handlers={BodyTooLarge: body_too_large},
    )
