"""``/ws/bot``: an outside bot takes a seat at a live table over a WebSocket, speaking the bot
protocol (docs/bot-protocol.md) — the same messages as over stdin/stdout, one JSON object per
frame.

The bot shows a bot token of an account (``Authorization: Bearer lzb_…`` on the handshake, or
``token`` in its ``hello``) and names the room (and a seat).  It then sits as that account's
player — under the account's name marked ``[bot]`` — and is translated from the table protocol:
it gets ``hand`` and its seat's events exactly as a person at that seat would
(``laizi.engine.seat_event``), and for each decision a ``prompt`` with the seat's view, which it
answers with ``act``.  The table's clock still rules: a bot that does not answer in time is
played by 托管 (the table's safe default) and told so (``notice``), and is asked again at its
next decision (its seat does not stay on auto-play); an answer that is not JSON, malformed,
illegal or too long is replaced by 托管 at once.  Every such incident is logged.  A disconnected
bot's seat is treated like a person's (``grace_seconds``, then the escape rule).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from laizi.botproto.protocol import PROTOCOL, VERSION, notice, read_answer
from laizi.bots.safe import safe_default
from laizi.engine import Action, view
from laizi.server.accounts import AccountError
from laizi.server.bottokens import BotIdentity, BotTokens
from laizi.server.hub import Hub, hub_of
from laizi.server.ladder import Ladder, LadderRefused
from laizi.server.limits import MESSAGE_TEXT, MessageGate
from laizi.server.room import Conn

__all__ = ["HELLO_SECONDS", "BotSeat", "bot_websocket"]

PROMPT_TRIES = 40
"""How often a prompt not yet pending in the room is looked for again (every PROMPT_RETRY_S)."""
PROMPT_RETRY_S = 0.05

log = logging.getLogger("laizi.server")

HELLO_SECONDS = 10.0
"""The bot's ``hello`` must come within this time of connecting (the default of
``ServerLimits.ws_join_seconds``, ``laizi serve --ws-join-seconds``)."""
BOT_MARK = " [bot]"


def _frame(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class BotSeat:
    """One bot's connection: table-protocol messages in, bot-protocol messages out."""

    def __init__(self, hub: Hub, identity: BotIdentity, out: asyncio.Queue[str | None]) -> None:
        self.hub = hub
        self.identity = identity
        self.out = out
        self.conn = Conn(self.from_table, self.from_table_many)
        account = identity.account
        shown = (account.name[: 32 - len(BOT_MARK)] + BOT_MARK) if account else ""
        self.conn.account = dataclasses.replace(account, name=shown)
        self.conn.bot = identity
        self.ladder: Ladder | None = None
        """The ladder whose pool the bot waits in (until it is seated: ``laizi.server.ladder``)."""
        self.pending: tuple[int, list[Action]] | None = None
        """The decision the bot was asked and has not answered: (prompt id, legal actions)."""
        self.newest = -1
        """The newest prompt id the table told this seat."""
        self.incidents: list[dict[str, Any]] = []
        self.over = False

    # -- to the bot ----------------------------------------------------------------------------
    def say(self, message: dict[str, Any]) -> None:
        if self.out.qsize() > 2000:  # a bot that reads nothing is let go
            self.out.put_nowait(None)
            return
        self.out.put_nowait(_frame(message))

    def from_table_many(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            self.from_table(message)

    def from_table(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "joined":
            self.say({"type": "joined", **{k: message[k] for k in ("room", "seat", "token")}})
        elif kind == "event":
            event = message["event"]
            if event.get("type") == "start" and self.conn.seat is not None:
                seed = secrets.randbits(63)
                self.say(
                    {"type": "hand", "seat": self.conn.seat, "seed": seed, "game": event["game"]}
                )
            self.say(event)
            if event.get("type") == "match_end":
                self.over = True
                self.say({"type": "bye"})
                self.out.put_nowait(None)
        elif kind == "prompt":
            self.prompt(message)
        elif kind == "auto" and message.get("on"):
            # the table's clock ran out and 托管 played: the next decision is the bot's again
            self.incident("timeout", self.pending[0] if self.pending else None, None, "")
            self.pending = None
            self.hub.handle(self.conn, _frame({"type": "auto", "on": False}))
        elif kind == "pause":
            if self.conn.seat in message.get("waiting", ()):
                # The settlement pause waits for the people who read it; a bot has nothing to
                # read there (its hand's end event said it all), so its seat continues at once
                # rather than hold the table for settlement_seconds every hand.
                asyncio.get_running_loop().call_soon(
                    self.hub.handle, self.conn, _frame({"type": "continue"})
                )
        elif kind == "error":
            self.say(message)
        elif kind == "left":
            self.say({"type": "bye"})
            self.out.put_nowait(None)

    def prompt(self, message: dict[str, Any], tries: int = 0) -> None:
        room, seat = self.conn.room, self.conn.seat
        if room is None or seat is None or room.state is None:
            return
        asked = message["id"]
        if tries == 0:
            # The room holds one decision per seat: a newer prompt supersedes the one the bot
            # was asked before (a claim window another seat's claim closed), whose answer the
            # room would refuse anyway.  Left pending, it kept this prompt from being looked
            # for again below, and the bot was never asked it: the table's clock played it.
            if self.pending is not None and self.pending[0] != asked:
                self.pending = None
            self.newest = max(self.newest, asked)
        elif asked < self.newest:
            return  # a newer prompt came meanwhile
        pending = room.prompts.get(seat)
        if pending is None and tries < PROMPT_TRIES:
            # Not (yet) the room's pending decision — a claim window's pause may still hold it.
            # Look again shortly rather than leave the bot unasked until the table's clock runs
            # out; a prompt answered meanwhile (托管) is simply never found.
            asyncio.get_running_loop().call_later(PROMPT_RETRY_S, self.prompt, message, tries + 1)
            return
        if pending is None or pending.id != asked:
            return  # answered or gone already
        if self.pending is not None and self.pending[0] == asked:
            return  # asked already (the same prompt told again)
        self.pending = (pending.id, list(pending.legal))
        left = max(0.0, message["seconds"] + message["bank"] - message.get("elapsed", 0.0))
        self.say(
            {
                "type": "prompt",
                "id": message["id"],
                "phase": message["phase"],
                "legal": message["legal"],
                "seconds": round(left, 3),
                "view": view(room.state, seat),
            }
        )

    def incident(self, code: str, pid: int | None, played: Action | None, detail: str) -> None:
        shown = played.notation() if played is not None else None
        log.warning(
            "bot %r of account %s: prompt %s: %s %s; 托管 played %s",
            self.identity.name,
            self.identity.account.id,
            pid,
            code,
            detail,
            shown or "(the table's default)",
        )
        self.incidents.append({"code": code, "prompt": pid, "detail": detail, "played": shown})
        self.say(notice(code, pid, played, detail))

    # -- from the bot --------------------------------------------------------------------------
    def answer(self, data: bytes) -> bool:
        """One frame from the bot once it is seated; True when it settled the pending decision —
        the table took its action, or 托管 played a bad answer's decision.  Either way the
        game's pace bounds such frames, so they cost nothing from the message bucket: a bot that
        answers every prompt badly at a fast table must not be rate-limited into silence (its
        dropped answers left decisions to the table's clock)."""
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "ping":
            self.say({"type": "pong"})
            return False
        if kind == "leave":
            self.hub.handle(self.conn, _frame({"type": "leave"}))
            return False
        if self.pending is None:
            if kind != "act":
                self.say({"type": "error", "code": "bad_message", "message": "unknown message"})
            return False  # an answer with nothing pending: late, skipped
        pid, legal = self.pending
        seat = self.conn.seat
        assert seat is not None
        reply = read_answer(data, pid, seat, legal)
        if reply.code == "stale":
            return False
        action = reply.action
        if action is None:
            self.replace(reply.code or "bad_message", reply.detail)
            return True
        self.pending = None
        return self.play(pid, action)

    def replace(self, code: str, detail: str) -> None:
        """托管 plays the pending decision now."""
        if self.pending is None:
            return
        pid, legal = self.pending
        room, seat = self.conn.room, self.conn.seat
        if room is None or seat is None or room.state is None:
            return
        action = safe_default(view(room.state, seat), legal)
        self.pending = None
        self.incident(code, pid, action, detail)
        self.play(pid, action)

    def play(self, pid: int, action: Action) -> bool:
        fields = action.to_json()
        del fields["seat"]
        return self.hub.handle(self.conn, _frame({"type": "act", "prompt": pid, "action": fields}))


async def _writer(ws: WebSocket, out: asyncio.Queue[str | None]) -> None:
    while True:
        text = await out.get()
        if text is None:
            with contextlib.suppress(Exception):
                await ws.close(code=1000)
            return
        try:
            await ws.send_text(text)
        except WebSocketDisconnect:  # the bot went away: the reader sees it and ends
            return


def _identity(hub: Hub, token: Any, address: str | None) -> BotIdentity | None:
    """The token's bot, under the login limit of ``address`` (None: a connection forwarded by
    another process of a cluster, which counted it already); blocks: run in a thread."""
    tokens = BotTokens(hub.store.engine)
    if hub.accounts is None or address is None:
        return tokens.identify(token)
    return hub.accounts.check_secret(address, lambda: tokens.identify(token))


async def _hello(ws: WebSocket, seconds: float, kind: str = "hello") -> dict[str, Any] | None:
    """The next message if it is a JSON object of type ``kind`` within ``seconds``."""
    try:
        message = await asyncio.wait_for(ws.receive(), seconds)
    except TimeoutError:
        return None
    text = message.get("text")
    if text is None:
        return None
    if len(text) > 4096:
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == kind else None


async def bot_websocket(ws: WebSocket) -> None:
    """``/ws/bot``: hello, token, join; then the bot protocol until the match ends."""
    await ws.accept()
    hub = hub_of(ws.app)
    internal = False  # forwarded by another process of a cluster (cluster/botrelay.py)
    if hub.cluster is not None:
        from laizi.server.cluster.botrelay import admit

        internal, address, refused = await admit(hub, ws)
    else:
        address = ws.client.host if ws.client is not None else ""
        refused = hub.quotas.connect(address)
    if refused is not None:
        await ws.send_text(
            _frame({"type": "error", "code": refused, "message": MESSAGE_TEXT[refused]})
        )
        await ws.close(code=1008)
        return
    try:
        await _serve(ws, hub, address, internal)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("bot websocket failed")
    finally:
        if hub.cluster is not None:
            from laizi.server.cluster.botrelay import release

            release(hub, internal, address)
        else:
            hub.quotas.disconnect(address)


REFUSALS_ZH = {
    "bad_hello": "第一条消息须在 {seconds} 秒内发送 hello",
    "bad_version": f"本服务器使用机器人协议第 {VERSION} 版",
    "bad_token": "没有这个有效的机器人令牌：请在 /api/bot-tokens 申请",
    "bad_message": "room：房间号",
}


async def _refuse(ws: WebSocket, code: str, message: str, **params: str) -> None:
    zh = REFUSALS_ZH[code].format(**params)
    refusal = {"type": "error", "code": code, "message": message, "message_zh": zh}
    await ws.send_text(_frame(refusal))
    await ws.close(code=1008)


async def _serve(ws: WebSocket, hub: Hub, address: str, internal: bool = False) -> None:
    await ws.send_text(_frame({"type": "hello", "protocol": PROTOCOL, "version": VERSION}))
    seconds = hub.limits.ws_join_seconds
    hello = await _hello(ws, seconds)
    if hello is None:
        await _refuse(
            ws,
            "bad_hello",
            f'the first message must be {{"type": "hello", …}} within {seconds:g} s',
            seconds=f"{seconds:g}",
        )
        return
    if hello.get("version") != VERSION:
        await _refuse(ws, "bad_version", f"this server speaks bot protocol version {VERSION}")
        return
    header = ws.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else hello.get("token")
    try:
        identity = await asyncio.to_thread(_identity, hub, token, None if internal else address)
    except AccountError as limited:  # the same answer as to too many logins from the address
        refusal = {
            "type": "error",
            "code": limited.code,
            "message": limited.message,
            "message_zh": limited.zh,
            "retry_after": limited.retry_after,
        }
        await ws.send_text(_frame(refusal))
        await ws.close(code=1008)
        return
    if identity is None:
        await _refuse(ws, "bad_token", "no live bot token like that: issue one at /api/bot-tokens")
        return
    room = hello.get("room")
    ladder = hub.ladder
    if room is None and ladder is not None and hub.cluster is None:
        request = await _hello(ws, seconds, "ladder")  # the bot ladder: laizi.server.ladder
    elif not isinstance(room, str):
        await _refuse(ws, "bad_message", "room: the room's code")
        return
    if hub.cluster is not None:  # a room held by another process: forwarded there
        from laizi.server.cluster.botrelay import forward

        if await forward(hub, ws, {**hello, "token": token}, internal):
            return
    out: asyncio.Queue[str | None] = asyncio.Queue()
    seat = BotSeat(hub, identity, out)
    writer = asyncio.create_task(_writer(ws, out))
    if isinstance(room, str):
        join: dict[str, Any] = {"type": "join", "room": room, "seat": hello.get("seat")}
        if isinstance(hello.get("seat_token"), str):
            join["token"] = hello["seat_token"]  # back to the seat after a disconnect
        hub.handle(seat.conn, _frame(join))
        refused_now = seat.conn.room is None  # the error is on its way
    else:
        assert ladder is not None
        try:
            ladder.request(seat, request)
            refused_now = False
        except LadderRefused as refusal:
            seat.say(refusal.message())
            refused_now = True
    if refused_now:
        out.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)
        return
    gate = MessageGate(hub.limits)
    try:
        while not writer.done():
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            data: bytes = (message.get("bytes") or b"") if text is None else text.encode()
            refused = gate.admit(data)
            if refused is None:
                if seat.conn.room is None and seat.ladder is not None:
                    seat.ladder.message(seat, data)  # still waiting for a ladder table
                elif seat.answer(data):
                    gate.refund()  # the game's own pace bounds actions
                continue
            if refused == "too_large":
                seat.replace("too_long", f"{len(data)} bytes")
            elif gate.streak == 1:  # one error per run of refusals, as on /ws
                text = MESSAGE_TEXT[refused].format(n=hub.limits.message_bytes)
                seat.say({"type": "error", "code": refused, "message": text})
            if gate.abusive:
                hub.quotas.abused(ws.client.host if ws.client is not None else "")
                seat.say({"type": "error", "code": "abuse", "message": MESSAGE_TEXT["abuse"]})
                out.put_nowait(None)
                break
    finally:
        if seat.ladder is not None:
            seat.ladder.leave(seat)
        hub.disconnect(seat.conn)
        if not writer.done():
            out.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)
