"""The WebSocket protocol, version 1.1: every client message as a typed value (docs/protocol.md).

Client messages are JSON objects tagged by ``type``; each is decoded into one of the structs
below by msgspec, so a message with a missing, unknown or mistyped field is refused with an
error naming the field, and the connection stays usable.

>>> decode_client(b'{"type": "ping"}')
Ping()
>>> decode_client(b'{"type": "act", "prompt": 3, "action": {"type": "discard", "tile": "5m"}}')
Act(prompt=3, action=ActionIn(type='discard', tile='5m', tiles=None))
>>> try:
...     decode_client(b'{"type": "act"}')
... except ProtocolError as error:
...     print(error)
bad_message: Object missing required field `prompt`
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from laizi.engine.events import AnyEvent

__all__ = [
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_MINOR",
    "PROTOCOL_VERSION",
    "Accept",
    "Act",
    "ActionIn",
    "Again",
    "Auto",
    "Chat",
    "ClientMessage",
    "Continue",
    "Join",
    "Leave",
    "Ping",
    "ProtocolError",
    "Queue",
    "Ready",
    "Resync",
    "Unqueue",
    "decode_client",
    "encode",
]

PROTOCOL_VERSION = 1
"""Bumped on any incompatible change; ``join`` must name it."""
PROTOCOL_MINOR = 2
"""Bumped on a compatible addition: 1 = players' entropy in the deal (``commit``/``ready``).  A
client that joins without ``minor`` (or with 0) is served as before and contributes nothing.
2 = ``hints``, ``pause``/``continue``, ``away``/``back``, ``clock``, error ``params`` and
``message_zh`` (docs/protocol.md); sent to every client, which ignores what it does not know."""
MAX_MESSAGE_BYTES = 4096
"""A client message longer than this is refused unread (no client message needs more)."""


class ProtocolError(ValueError):
    """A message the server refuses; ``code`` is the error id sent to the client."""

    def __init__(
        self,
        code: str,
        message: str,
        message_zh: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.message_zh = message_zh
        """The message in Chinese, where one is given (sent as ``message_zh``; else the
        catalogue's, :mod:`laizi.server.errors`)."""
        self.params = params or {}
        super().__init__(f"{code}: {message}")

    def to_message(self) -> dict[str, Any]:
        """The ``error`` message for the client (completed by :func:`encode`)."""
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.message_zh is not None:
            out["message_zh"] = self.message_zh
        if self.params:
            out["params"] = self.params
        return out


Count = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
"""A sequence number or prompt id: no bigger than a JSON number is exact (no huge integers)."""
Token = Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9_-]{1,128}$")]
"""Seat tokens are URL-safe base64: anything else is no token (and can't be compared)."""


class Join(msgspec.Struct, tag="join", forbid_unknown_fields=True):
    """Take a seat in a room, watch it, or come back to one's seat."""

    room: Annotated[str, msgspec.Meta(max_length=64)]
    v: Count = PROTOCOL_VERSION
    name: Annotated[str, msgspec.Meta(max_length=128)] = ""
    seat: Count | None = None
    """A seat wanted (0–3), or none: the first free one."""
    spectate: bool = False
    token: Token | None = None
    """The token a previous ``joined`` gave: reconnect to that seat."""
    last_seq: Count | None = None
    """The last sequence number this client saw (on reconnect)."""
    minor: int = 0
    """The client's minor protocol version: 1 and up answer ``commit`` with ``ready``."""


class ActionIn(msgspec.Struct, forbid_unknown_fields=True):
    """An action as in the engine's JSON, without the seat (the connection's seat is used)."""

    type: str
    tile: str | None = None
    tiles: str | None = None


class Act(msgspec.Struct, tag="act", forbid_unknown_fields=True):
    """Answer the pending prompt ``prompt`` with ``action``."""

    prompt: Count
    action: ActionIn


class Auto(msgspec.Struct, tag="auto", forbid_unknown_fields=True):
    """Turn 托管 (auto-play) on or off for one's own seat."""

    on: bool


class Leave(msgspec.Struct, tag="leave", forbid_unknown_fields=True):
    """Leave the room; during a hand this is ``abandon`` (逃跑) with the escape penalty."""


class Ready(msgspec.Struct, tag="ready", forbid_unknown_fields=True):
    """A seat's contribution to the deal of hand ``hand``, after that hand's ``commit``."""

    hand: int
    entropy: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
    """32 random bytes of the client's own, as 64 lower-case hex digits."""


class Resync(msgspec.Struct, tag="resync", forbid_unknown_fields=True):
    """Ask again for what was missed since ``last_seq`` (or a snapshot) and the pending prompt."""

    last_seq: Count | None = None


class Ping(msgspec.Struct, tag="ping", forbid_unknown_fields=True):
    """Answered by ``pong``."""


class Continue(msgspec.Struct, tag="continue", forbid_unknown_fields=True):
    """继续: this seat has seen the settlement; the next deal need not wait for it."""


class Queue(msgspec.Struct, tag="queue", forbid_unknown_fields=True):
    """Wait in the matchmaker's queue for ``preset`` and ``kind`` (``ranked`` / ``casual``), in
    ``tier`` (default: one's own; one's own or one below).  ``key``: a guest's queue key (from
    an earlier ``queued``) to keep its place — a reload, a second tab."""

    preset: Annotated[str, msgspec.Meta(max_length=64)]
    kind: Annotated[str, msgspec.Meta(max_length=16)]
    tier: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    key: Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9_-]{16,128}$")] | None = None


class Unqueue(msgspec.Struct, tag="unqueue", forbid_unknown_fields=True):
    """Leave the queue (during an accept: decline the match)."""


class Accept(msgspec.Struct, tag="accept", forbid_unknown_fields=True):
    """Accept the match ``match`` a ``matched`` (``room`` null) offered."""

    match: Annotated[str, msgspec.Meta(max_length=32)]


class Again(msgspec.Struct, tag="again", forbid_unknown_fields=True):
    """再来一局: a seat of a finished friendly room asks for a new room with its settings."""


class Chat(msgspec.Struct, tag="chat", forbid_unknown_fields=True):
    """Quick chat (快捷语): one's seat says the phrase or emote ``phrase`` names — an id of the
    server's list (``laizi.server.chat.PHRASES``), never free text."""

    phrase: Annotated[str, msgspec.Meta(pattern="^[a-z0-9_]{1,32}$")]


ClientMessage = (
    Join
    | Act
    | Auto
    | Leave
    | Ready
    | Resync
    | Ping
    | Continue
    | Queue
    | Unqueue
    | Accept
    | Again
    | Chat
)

_decoder = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


class MatchEnd(msgspec.Struct, tag="match_end", kw_only=True, frozen=True):
    """The match is over (streamed after the last hand's ``end``): hands played, every seat's
    total, the seat that escaped (if one did)."""

    hands: int
    totals: list[int | float]
    escaped: int | None


StreamEvent = AnyEvent | MatchEnd
"""What a room streams as ``event`` messages: a hand's events and the match's end."""


def stream_event(event: Mapping[str, Any]) -> StreamEvent:
    """The typed form of one streamed event (``msgspec.ValidationError`` if it is none)."""
    typed: StreamEvent = msgspec.convert(event, StreamEvent)
    return typed


def stream_json(event: StreamEvent) -> dict[str, Any]:
    """The JSON object of a streamed event."""
    out: dict[str, Any] = msgspec.to_builtins(event)
    return out


def decode_client(data: bytes | str) -> ClientMessage:
    """Decode one client message; :class:`ProtocolError` names what is wrong."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"a message may hold at most {MAX_MESSAGE_BYTES} bytes")
    try:
        message = _decoder.decode(data)
    except msgspec.ValidationError as error:
        raise ProtocolError("bad_message", str(error)) from None
    except msgspec.DecodeError as error:
        raise ProtocolError("bad_json", str(error)) from None
    except UnicodeEncodeError:  # text with a lone surrogate: not UTF-8, not JSON
        raise ProtocolError("bad_json", "the message is not UTF-8 text") from None
    if isinstance(message, Join) and message.v != PROTOCOL_VERSION:
        raise ProtocolError(
            "bad_version",
            f"this server speaks protocol version {PROTOCOL_VERSION}, not {message.v}",
        )
    return message


def encode(message: dict[str, Any]) -> str:
    """A server message as compact JSON text (an ``error`` gets its ``params`` and both texts,
    :func:`laizi.server.errors.normalize`)."""
    if message.get("type") == "error":
        from laizi.server.errors import normalize

        message = normalize(message)
    return _encoder.encode(message).decode("utf-8")
