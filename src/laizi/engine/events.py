"""Events: what a hand produces, one record line each (docs/engine.md).

Each kind of event has one typed definition here, a :class:`msgspec.Struct` tagged by its
``type``; the engine builds every event through it (:func:`encode`) and hands out the plain
JSON-ready dict (:data:`Event`) that records, hashes and the server's stream carry, byte for
byte as before: the same keys in the same order, optional keys omitted when unset.  A reader
(the server's ratings, the dataset export, the env) gets the typed event back with
:func:`decode`, so a renamed field is a type error wherever it is read.

>>> TILE[33], number(Fraction(75, 2)), number(Fraction(4))
('7z', 37.5, 4)
>>> encode(Draw(seat=1, tile="5m", from_="front"))
{'type': 'draw', 'seat': 1, 'tile': '5m', 'from': 'front'}
>>> decode({"type": "pung", "seat": 2, "tile": "7z", "from": 0}).from_
0
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypedDict

import msgspec

from laizi.tiles import format_tile

if TYPE_CHECKING:
    from laizi.rules.ruleset import Settlement

__all__ = [
    "TILE",
    "Abandon",
    "AddedKong",
    "AnyEvent",
    "Chow",
    "Claim",
    "ConcealedKong",
    "Deal",
    "Discard",
    "Draw",
    "End",
    "Event",
    "HandResult",
    "Kong",
    "KongPaid",
    "LayOut",
    "Pass",
    "Pung",
    "SettlementSummary",
    "Start",
    "Win",
    "decode",
    "decode_json",
    "encode",
    "encode_all",
    "hand_digest",
    "number",
    "sequence_text",
]

Event = dict[str, Any]
"""An event as records, hashes and the server's stream carry it: the JSON object of one
:data:`AnyEvent` (:func:`encode`).  Read its fields through :func:`decode`."""

Number = int | float
"""A point amount in JSON (:func:`number`): an integer when whole, else a decimal."""
TILE = tuple(format_tile(t) for t in range(34))
"""Tile notation by id, looked up rather than formatted on the hot path."""


def number(value: Fraction | int) -> int | float:
    """A point amount for JSON: an integer when whole, else a decimal (exact for 1/2^k)."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def sequence_text(tiles: tuple[int, ...] | list[int]) -> str:
    """Tiles of one suit in their own order: ``(2, 3, 4) -> '345m'``."""
    return "".join(TILE[t][0] for t in tiles) + TILE[tiles[0]][1]


def hand_digest(events: list[Event]) -> str:
    """The link of a match's hash chain: SHA-256 (hex) of a finished hand's whole record, each
    event as JSON with sorted keys and no spaces (Chinese kept as UTF-8), one per line.  The next
    hand's ``start`` event carries it as ``previous`` (docs/engine.md), so a record can't be
    changed once the next hand has begun without breaking the link every seat was sent.

    >>> hand_digest([{"type": "start"}])[:16]
    '6fdae08916eb0c47'
    """
    text = "".join(
        json.dumps(e, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
        for e in events
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- the events -------------------------------------------------------------------------------
# ``kw_only`` and ``frozen`` are given on each class (neither msgspec nor mypy inherits them);
# ``kw_only``: fields keep the order of the JSON object even where an optional one comes first;
# ``omit_defaults``: an optional key that is unset is left out, as it always was.  A field named
# ``from`` in JSON is ``from_`` here.  A seat's view of an event may lack a hidden ``tile``
# (``laizi.engine.view.seat_event``): those fields are optional.


class _Event(msgspec.Struct, kw_only=True, omit_defaults=True, tag_field="type", frozen=True):
    """The fields every event shares: its ``type`` (the tag, written first)."""


class Start(_Event, tag="start", kw_only=True, frozen=True):
    """A hand begins: the game, its rules, the dealer and the scores so far."""

    game: str
    rules: dict[str, Any]
    hand: int
    dealer: int
    scores: list[Number]
    commitment: str | None
    previous: str | None = None
    contributions: list[str | None] | None = None
    wall: str | None = None


class Deal(_Event, tag="deal", kw_only=True, frozen=True):
    """The starting hands (another seat's hidden: ``None``) and the special tiles."""

    hands: list[str | None]
    indicator: str | None
    laizi: str | None
    pi: list[str]
    must_gang: list[str]


class Draw(_Event, tag="draw", kw_only=True, frozen=True):
    seat: int
    tile: str | None = None
    from_: str = msgspec.field(name="from")
    final: bool = False


class Discard(_Event, tag="discard", kw_only=True, frozen=True):
    seat: int
    tile: str
    declare_ready: bool = False
    lay_out: bool = False


class LayOut(_Event, tag="lay_out", kw_only=True, frozen=True):
    seat: int
    tile: str


class ConcealedKong(_Event, tag="concealed_kong", kw_only=True, frozen=True):
    seat: int
    tile: str | None = None


class AddedKong(_Event, tag="added_kong", kw_only=True, frozen=True):
    seat: int
    tile: str


class Claim(_Event, tag="claim", kw_only=True, frozen=True):
    """A seat's decision in a claim window (``claim`` is the action, ``tiles`` a chow's)."""

    seat: int
    claim: str
    tiles: str | None = None


class Pass(_Event, tag="pass", kw_only=True, frozen=True):
    seat: int


class Chow(_Event, tag="chow", kw_only=True, frozen=True):
    seat: int
    tiles: str
    tile: str
    from_: int = msgspec.field(name="from")


class Pung(_Event, tag="pung", kw_only=True, frozen=True):
    seat: int
    tile: str
    from_: int = msgspec.field(name="from")


class Kong(_Event, tag="kong", kw_only=True, frozen=True):
    seat: int
    tile: str
    from_: int = msgspec.field(name="from")


class KongPaid(_Event, tag="kong_paid", kw_only=True, frozen=True):
    """A kong paid on the spot (Baishan): ``payments`` four JSON numbers, zero-sum."""

    seat: int
    kind: str
    tile: str | None = None
    payments: list[Number]


class Win(_Event, tag="win", kw_only=True, frozen=True):
    seat: int
    how: str
    tile: str
    from_: int | None = msgspec.field(default=None, name="from")


class Abandon(_Event, tag="abandon", kw_only=True, frozen=True):
    """A seat left the hand (an escape): the ``end`` event follows."""

    seat: int


class End(_Event, tag="end", kw_only=True, frozen=True):
    """The hand is over: ``reason`` (``win``, ``drawn``, ``abandon``), every seat's payments
    (kongs paid on the spot included, ``kong_payments`` their part), ``payments_exact`` when a
    share has no exact decimal, the settlement of a win (its JSON object), the hands, the seed."""

    reason: str
    winner: int | None
    payments: list[Number]
    kong_payments: list[Number] | None = None
    payments_exact: list[str] | None = None
    seat: int | None = None
    settlement: dict[str, Any] | None = None
    hands: list[str]
    seed: str | None

    def exact_payments(self) -> list[Fraction]:
        """Every seat's payment as an exact Fraction."""
        return [Fraction(p) for p in (self.payments_exact or self.payments)]


AnyEvent = (
    Start
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
)
"""Every kind of event a hand produces, told apart by ``type``."""


class SettlementSummary(msgspec.Struct, frozen=True):
    """What every game's settlement (``laizi score --json``, an ``end`` event's ``settlement``)
    says, whatever else its game adds: read with :meth:`of`."""

    allowed: bool
    reason: str | None
    wins: list[str]
    payments: list[Number]

    @classmethod
    def of(cls, settlement: Mapping[str, Any]) -> SettlementSummary:
        summary: SettlementSummary = msgspec.convert(settlement, cls)
        return summary


class HandResult(TypedDict):
    """A finished hand's outcome as the engine keeps it (``HandState.result``; the ``end``
    event is its JSON): exact payments, kongs paid on the spot included, and the settlement
    object of a win."""

    reason: str
    winner: int | None
    how: str | None
    payments: tuple[Fraction, ...]
    settlement: Settlement | None
    escaped: int | None


def encode(event: AnyEvent) -> Event:
    """The JSON object of an event, as records carry it."""
    out: Event = msgspec.to_builtins(event)
    return out


def encode_all(events: Iterable[AnyEvent]) -> list[Event]:
    """The JSON objects of events, in order (a record's lines, a stream's messages)."""
    return [msgspec.to_builtins(e) for e in events]


def decode(event: Mapping[str, Any]) -> AnyEvent:
    """The typed event of a JSON object (``msgspec.ValidationError`` if it is none)."""
    typed: AnyEvent = msgspec.convert(event, AnyEvent)
    return typed


def decode_json(text: str | bytes) -> AnyEvent:
    """The typed event of one record line."""
    typed: AnyEvent = msgspec.json.decode(text, type=AnyEvent)
    return typed
