"""Every message of the bot protocol as a type, and the JSON Schema made from them.

The host's messages (``hello``, ``hand``, the engine's events, ``prompt`` with the seat's view,
``notice``, ``bye``; over ``/ws/bot`` also ``joined``, ``match_end``, ``error``, ``pong`` and
the bot ladder's ``ladder_wait``) and the bot's (``hello``, ``act``, ``ping``, ``leave``, and
``ladder``) are :class:`msgspec.Struct` types tagged by
``type``; the events are the engine's own (:data:`laizi.engine.events.AnyEvent`).
:func:`bot_protocol_schema` turns them into one JSON Schema (draft 2020-12), checked in as
``docs/bot-protocol.schema.json`` (``python -m laizi.botproto.messages --write`` regenerates it;
a test checks the file is what this module makes, and another validates real streams with it).

No type forbids unknown fields: a newer host may add fields, and a bot ignores what it does not
know (docs/bot-protocol.md, "Versioning").

>>> schema = bot_protocol_schema()
>>> schema["$schema"]
'https://json-schema.org/draft/2020-12/schema'
>>> sorted(schema["$defs"]["HostMessage"]["discriminator"]["mapping"])[:4]
['abandon', 'added_kong', 'bye', 'chow']
"""

# The build compiles some modules with mypyc, whose analysis reads no installed package
# (setup.py MYPY_FLAGS): msgspec is `Any` there, and a Struct's class keywords (kw_only, frozen,
# tag) would be errors against `object`.  So call-arg is off in this file, which only declares
# types (the tests check real streams against the schema made from them).
# mypy: disable-error-code="call-arg"

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from laizi.engine.events import (
    Abandon,
    AddedKong,
    Chow,
    Claim,
    ConcealedKong,
    Deal,
    Discard,
    Draw,
    End,
    Kong,
    KongPaid,
    LayOut,
    Pass,
    Pung,
    Start,
    Win,
)

__all__ = [
    "SCHEMA_PATH",
    "Act",
    "ActionOut",
    "BotHello",
    "BotMessage",
    "Bye",
    "Error",
    "Hand",
    "HostHello",
    "HostMessage",
    "Joined",
    "LadderRequest",
    "LadderWait",
    "LegalAction",
    "MatchEnd",
    "Meld",
    "Notice",
    "Prompt",
    "View",
    "ViewPlayer",
    "bot_protocol_schema",
    "schema_text",
]

SCHEMA_PATH = Path("docs/bot-protocol.schema.json")
"""Where the generated schema is checked in, relative to the repository."""

Number = int | float


class _Msg(msgspec.Struct, kw_only=True, omit_defaults=True, tag_field="type", frozen=True):
    """A message: its ``type`` is the tag."""


# --- actions ------------------------------------------------------------------------------------


class ActionOut(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """An action as a prompt's ``legal``, a ``notice``'s ``played`` and an ``act`` carry it: the
    engine's action without the seat.  ``tile`` for discard, concealed_kong, added_kong, lay_out
    and declare_ready; ``tiles`` (the whole sequence, ``"345m"``) for chow."""

    type: str
    tile: str | None = None
    tiles: str | None = None


class LegalAction(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """An action as the view's ``legal`` lists it: the engine's action JSON, with ``seat``."""

    seat: int
    type: str
    tile: str | None = None
    tiles: str | None = None


# --- the view -----------------------------------------------------------------------------------


class Meld(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """A meld as views show it: ``kind`` (chow, pung, kong, concealed_kong, added_kong), its
    ``tiles`` (``null`` for another seat's concealed kong while the hand is on) and ``from`` (the
    seat it was claimed from; absent for a concealed kong)."""

    kind: str
    tiles: str | None
    from_: int | None = msgspec.field(default=None, name="from")


class ViewPlayer(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """One seat as every seat sees it."""

    seat: int
    hand_size: int
    melds: list[Meld]
    laid_out: list[str]
    discards: list[str]
    claimed: list[int]
    moqie: list[int]
    openings: int
    declared_ready: bool
    opened: int
    kongs: int
    multiplier: dict[str, Any] | None = None
    fans: list[dict[str, Any]] | None = None


class ClaimTile(msgspec.Struct, frozen=True):
    """The tile on the table in a claim (or rob) window and the seat it came from."""

    tile: str
    from_: int | None = msgspec.field(name="from")


class Result(msgspec.Struct, frozen=True):
    """A finished hand, in a view taken after its end."""

    reason: str
    winner: int | None
    payments: list[Number]
    hands: list[str]
    seed: str | None


class View(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """``laizi.engine.view`` of the bot's seat (docs/bot-protocol.md, "The prompt's view")."""

    seat: int
    game: str
    hand: int
    dealer: int
    phase: str
    turn: int
    to_act: list[int]
    indicator: str | None
    laizi: str | None
    pi: list[str]
    must_gang: list[str]
    tiles_left: int
    live: int
    scores: list[Number]
    kong_payments: list[Number]
    commitment: str | None
    players: list[ViewPlayer]
    concealed: str
    drawn: str | None
    legal: list[LegalAction]
    claim: ClaimTile | None = None
    result: Result | None = None


# --- host -> bot --------------------------------------------------------------------------------


class HostHello(_Msg, tag="hello", kw_only=True, frozen=True):
    """The host's first line."""

    protocol: str
    version: int


class Hand(_Msg, tag="hand", kw_only=True, frozen=True):
    """Before each hand's events: the seat the bot plays, a seed for its randomness, the game."""

    seat: int
    seed: int
    game: str


class Prompt(_Msg, tag="prompt", kw_only=True, frozen=True):
    """A decision: answer with an ``act`` naming ``id`` and one of ``legal``."""

    id: int
    phase: str
    legal: list[ActionOut]
    seconds: float
    view: View


class Notice(_Msg, tag="notice", kw_only=True, frozen=True):
    """托管 played one of the bot's decisions; ``code`` says why."""

    code: str
    prompt: int | None
    message: str
    message_zh: str
    played: ActionOut | None = None
    detail: str | None = None


class Joined(_Msg, tag="joined", kw_only=True, frozen=True):
    """``/ws/bot`` only: the bot is seated (``token`` takes the seat back after a disconnect)."""

    room: str
    seat: int
    token: str


class MatchEnd(_Msg, tag="match_end", kw_only=True, frozen=True):
    """``/ws/bot`` only: the match is over (``bye`` follows)."""

    hands: int
    totals: list[Number]
    escaped: int | None


class Error(_Msg, tag="error", kw_only=True, frozen=True):
    """``/ws/bot`` only: a refused message or connection."""

    code: str
    message: str
    message_zh: str | None = None
    retry_after: Number | None = None


class LadderWait(_Msg, tag="ladder_wait", kw_only=True, frozen=True):
    """``/ws/bot`` only: the bot waits in the ladder's pool of ``preset`` (``waiting`` bots with
    it); the pools are seated every ``interval`` seconds, ``joined`` comes when it is."""

    preset: str
    waiting: int
    interval: Number


class Pong(_Msg, tag="pong", kw_only=True, frozen=True):
    """``/ws/bot`` only: the answer to ``ping``."""


class Bye(_Msg, tag="bye", kw_only=True, frozen=True):
    """The host is done: exit."""


HostMessage = (
    HostHello
    | Hand
    | Start
    | Deal
    | Draw
    | Discard
    | LayOut
    | ConcealedKong
    | AddedKong
    | Claim
    | Pass
    | Chow
    | Pung
    | Kong
    | KongPaid
    | Win
    | Abandon
    | End
    | Prompt
    | Notice
    | Joined
    | LadderWait
    | MatchEnd
    | Error
    | Pong
    | Bye
)
"""Every message a bot receives, told apart by ``type``."""


# --- bot -> host --------------------------------------------------------------------------------


class BotHello(_Msg, tag="hello", kw_only=True, frozen=True):
    """The answer to the host's ``hello`` (over ``/ws/bot`` with the seat wanted and the token)."""

    version: int
    name: str | None = None
    room: str | None = None
    seat: int | None = None
    token: str | None = None
    seat_token: str | None = None


class Act(_Msg, tag="act", kw_only=True, frozen=True):
    """The answer to prompt ``prompt``: one of its ``legal`` actions."""

    prompt: int
    action: ActionOut


class Ping(_Msg, tag="ping", kw_only=True, frozen=True):
    """``/ws/bot`` only: answered by ``pong``."""


class Leave(_Msg, tag="leave", kw_only=True, frozen=True):
    """``/ws/bot`` only: leave the table (an escape once the match has started)."""


class LadderRequest(_Msg, tag="ladder", kw_only=True, frozen=True):
    """``/ws/bot`` only, right after a ``hello`` without a room, on a server running the bot
    ladder: wait for a ladder table of ``preset`` (docs/bot-protocol.md, "The bot ladder")."""

    preset: str


BotMessage = BotHello | Act | Ping | Leave | LadderRequest
"""Every message a bot writes."""


def bot_protocol_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of both directions: ``$defs`` has ``HostMessage`` (what a
    bot receives) and ``BotMessage`` (what it writes) with every type they refer to; the root
    accepts either."""
    (host, bot), components = msgspec.json.schema_components(
        [HostMessage, BotMessage], ref_template="#/$defs/{name}"
    )
    defs = dict(sorted(components.items()))
    defs["HostMessage"] = host
    defs["BotMessage"] = bot
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "laizi-bot protocol, version 1 (docs/bot-protocol.md)",
        "description": (
            "One JSON object per line (or WebSocket frame). HostMessage: what a bot receives; "
            "BotMessage: what it writes. Generated from laizi.botproto.messages; unknown fields "
            "are allowed (a bot ignores what it does not know)."
        ),
        "anyOf": [{"$ref": "#/$defs/HostMessage"}, {"$ref": "#/$defs/BotMessage"}],
        "$defs": defs,
    }


def schema_text() -> str:
    """The schema as the checked-in file holds it (sorted keys, two-space indent, final newline)."""
    return json.dumps(bot_protocol_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m laizi.botproto.messages [--write [PATH]]``: print the schema, or write it."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--write":
        path = Path(args[1]) if len(args) > 1 else SCHEMA_PATH
        path.write_text(schema_text(), encoding="utf-8")
        print(f"wrote {path}")
    else:
        sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
