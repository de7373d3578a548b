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

from typing import Annotated, Any

import msgspec

__all__ = [
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_MINOR",
    "PROTOCOL_VERSION",
    "Act",
    "ActionIn",
    "Auto",
    "ClientMessage",
    "Join",
    "Leave",
    "Ping",
    "ProtocolError",
    "Ready",
    "Resync",
    "decode_client",
    "encode",
]

PROTOCOL_VERSION = 1
"""Bumped on any incompatible change; ``join`` must name it."""
PROTOCOL_MINOR = 1
"""Bumped on a compatible addition: 1 = players' entropy in the deal (``commit``/``ready``).  A
client that joins without ``minor`` (or with 0) is served as before and contributes nothing."""
MAX_MESSAGE_BYTES = 4096
"""A client message longer than this is refused unread (no client message needs more)."""


class ProtocolError(ValueError):
    """A message the server refuses; ``code`` is the error id sent to the client."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class Join(msgspec.Struct, tag="join", forbid_unknown_fields=True):
    """Take a seat in a room, watch it, or come back to one's seat."""

    room: str
    v: int = PROTOCOL_VERSION
    name: str = ""
    seat: int | None = None
    """A seat wanted (0–3), or none: the first free one."""
    spectate: bool = False
    token: str | None = None
    """The token a previous ``joined`` gave: reconnect to that seat."""
    last_seq: int | None = None
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

    prompt: int
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

    last_seq: int | None = None


class Ping(msgspec.Struct, tag="ping", forbid_unknown_fields=True):
    """Answered by ``pong``."""


ClientMessage = Join | Act | Auto | Leave | Ready | Resync | Ping

_decoder = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


def decode_client(data: bytes | str) -> Join | Act | Auto | Leave | Ready | Resync | Ping:
    """Decode one client message; :class:`ProtocolError` names what is wrong."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"a message may hold at most {MAX_MESSAGE_BYTES} bytes")
    try:
        message = _decoder.decode(data)
    except msgspec.ValidationError as error:
        raise ProtocolError("bad_message", str(error)) from None
    except msgspec.DecodeError as error:
        raise ProtocolError("bad_json", str(error)) from None
    if isinstance(message, Join) and message.v != PROTOCOL_VERSION:
        raise ProtocolError(
            "bad_version",
            f"this server speaks protocol version {PROTOCOL_VERSION}, not {message.v}",
        )
    return message


def encode(message: dict[str, Any]) -> str:
    """A server message as compact JSON text."""
    return _encoder.encode(message).decode("utf-8")
