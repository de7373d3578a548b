"""The WebSocket endpoint ``/ws``: one connection's quota check, its outbox and writer task, and
the reader loop that passes each message through the message gate to the hub."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from starlette.websockets import WebSocket, WebSocketDisconnect

from laizi.server.api import current_account
from laizi.server.hub import Hub, hub_of
from laizi.server.limits import MESSAGE_TEXT, MessageGate
from laizi.server.protocol import PROTOCOL_MINOR, PROTOCOL_VERSION, encode
from laizi.server.room import Conn

__all__ = ["CLOSE_AFTER", "OUTBOX_LIMIT", "Outbox", "websocket"]

log = logging.getLogger("laizi.server")

CLOSE_AFTER = ""
"""Put in a connection's outbox: send what is before it, then close (1008)."""
OUTBOX_LIMIT = 2000
"""A client that lets this many messages pile up unread is disconnected."""


class Outbox:
    """A connection's encoded messages on their way out; ``None`` in the queue: close (1008) now
    (the client let more than :data:`OUTBOX_LIMIT` pile up unread)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        outbox = self.queue
        if outbox.qsize() > OUTBOX_LIMIT:
            outbox.put_nowait(None)
            return
        outbox.put_nowait(encode(message))

    def send_many(self, messages: list[dict[str, Any]]) -> None:
        outbox = self.queue
        if len(messages) == 1:
            self.send(messages[0])
        elif outbox.qsize() > OUTBOX_LIMIT:
            outbox.put_nowait(None)
        else:
            outbox.put_nowait("[" + ",".join(encode(m) for m in messages) + "]")

    def close_after(self) -> None:
        """Send what is queued, then close the connection (1008)."""
        self.queue.put_nowait(CLOSE_AFTER)


async def websocket(ws: WebSocket) -> None:
    """``/ws``: refused (1008) beyond the address's connection quota, else served.  (In a
    cluster, ``laizi.server.cluster.relay.cluster_routes`` serves ``/ws`` instead.)"""
    await ws.accept()
    address = ws.client.host if ws.client is not None else ""
    quotas = hub_of(ws.app).quotas
    refused = quotas.connect(address)
    if refused is not None:
        text = MESSAGE_TEXT[refused]
        await ws.send_text(encode({"type": "error", "code": refused, "message": text}))
        await ws.close(code=1008)
        return
    try:
        await serve_websocket(ws, hub_of(ws.app))
    finally:
        quotas.disconnect(address)


async def writer(ws: WebSocket, outbox: asyncio.Queue[str | None]) -> None:
    """The connection's writer task."""
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


async def serve_websocket(ws: WebSocket, hub: Hub) -> None:
    """One connection: the welcome, then its messages until it goes; the hub forgets it after."""
    outbox = Outbox()
    conn = Conn(outbox.send, outbox.send_many)
    conn.address = ws.client.host if ws.client is not None else ""
    accounts = hub.accounts
    if accounts is not None:
        conn.account = current_account(accounts, ws)
    task = asyncio.create_task(writer(ws, outbox.queue))
    outbox.send(
        {
            "type": "welcome",
            "protocol": PROTOCOL_VERSION,
            "minor": PROTOCOL_MINOR,
            "max_message": hub.limits.message_bytes,
        }
    )
    try:
        await read(ws, hub, conn, outbox, task)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("websocket handler failed")
    finally:
        hub.disconnect(conn)
        task.cancel()


async def read(
    ws: WebSocket,
    hub: Hub,
    conn: Conn,
    outbox: Outbox,
    task: asyncio.Task[None],
    intercept: Callable[[bytes], Awaitable[bool]] | None = None,
) -> None:
    """The reader loop: each message through the connection's :class:`MessageGate` (size, rate)
    to the hub; one error per run of refusals; an abusive client is told why and closed, and so
    is one that has not joined a room within ``ws_join_seconds`` (``join_timeout``).

    ``intercept`` (a cluster's) sees each admitted message before the connection is in a room;
    True: it took the connection over (forwarded it to the room's owner) until its end."""
    conn_address = ws.client.host if ws.client is not None else ""
    limits = hub.limits
    gate = MessageGate(limits)
    loop = asyncio.get_running_loop()
    join_by = loop.time() + limits.ws_join_seconds
    in_room = False
    while True:
        if conn.room is None and in_room:
            # It left its room (``leave``, or the room expired): as long to join another as a
            # new connection has — not a join_timeout at once, counted from its opening.
            in_room, join_by = False, loop.time() + limits.ws_join_seconds
        if conn.room is None:  # not in a room yet: the connection has until join_by
            try:
                message = await asyncio.wait_for(ws.receive(), max(0.0, join_by - loop.time()))
            except TimeoutError:
                if hub.queueing is not None and hub.queueing.holds(conn):
                    join_by = loop.time() + limits.ws_join_seconds  # waiting for a match
                    continue
                late = MESSAGE_TEXT["join_timeout"].format(n=f"{limits.ws_join_seconds:g}")
                outbox.send({"type": "error", "code": "join_timeout", "message": late})
                outbox.close_after()  # the writer closes the connection (1008)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(task), 5)
                break
        else:
            in_room = True
            message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            break
        text = message.get("text")
        data: bytes = (message.get("bytes") or b"") if text is None else text.encode()
        refused = gate.admit(data)  # the limits count bytes, not characters
        if refused is None:
            if intercept is not None and conn.room is None and await intercept(data):
                break
            if hub.handle(conn, data):
                gate.refund()
            continue
        hub.quotas.refused["message"] += 1
        if gate.abusive:
            hub.quotas.abused(conn_address)
            outbox.send({"type": "error", "code": "abuse", "message": MESSAGE_TEXT["abuse"]})
            outbox.close_after()  # the writer closes the connection (1008)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), 5)
            break
        if gate.streak == 1 or refused == "too_large":  # one error per run of refusals
            text = MESSAGE_TEXT[refused].format(n=limits.message_bytes)
            outbox.send({"type": "error", "code": refused, "message": text})
