"""Rooms the matchmaker opens: their kind, and the seats they keep for the people matched.

A room's **kind** decides what its match books (``laizi.server.ratings``):

- ``friendly`` (友人场) — every room made by link, by the lobby's form or by ``POST /api/rooms``:
  its results, records, replays and totals are kept, but no account's strength points, rank or
  rating move;
- ``casual`` — a table the matchmaker filled (people and bots, guests welcome): the same;
- ``ranked`` — a table of four accounts the matchmaker seated: the only kind whose match moves
  strength points, ranks and ratings;
- ``ladder`` — a bots-only table of the bot ladder (``laizi.server.ladder``): four registered
  outside bots, each seat kept for one bot token; its match moves those bots' ratings
  (``laizi.server.botratings``) and no account's standing.

A matched room keeps each seat for whom it was made (:class:`SeatClaim`): an account (only a
connection logged in to that account takes it), a guest (only a ``join`` that presents the
guest's key as its ``token`` takes it), a bot (seated when the room is made) or, at a ladder
table, one registered bot (only that bot token's ``/ws/bot`` connection takes it).  Nobody else
sits down there — not a stranger, not a guest, not the same account or bot a second time.

>>> SeatClaim.for_account(7), SeatClaim.for_bot().bot
(SeatClaim(account=7, guest_key=None, bot=False, bot_token=None), True)
>>> check_claims("ladder", [SeatClaim.for_bot_token(t) for t in (4, 5, 6, 4)])
Traceback (most recent call last):
...
ValueError: a bot token is seated at one seat of a table at most (token 4 twice)
>>> check_claims("ranked", [SeatClaim.for_account(a) for a in (1, 2, 3, 3)])
Traceback (most recent call last):
...
ValueError: an account is matched to one seat of a table at most (account 3 twice)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from laizi.rules import Settings
from laizi.server.table import TableSettings

__all__ = [
    "MATCHED_KINDS",
    "ROOM_KINDS",
    "RoomKind",
    "SeatClaim",
    "check_claims",
    "matched_table",
    "moves_ranks",
]

RoomKind = Literal["friendly", "casual", "ranked", "ladder"]
ROOM_KINDS: tuple[RoomKind, ...] = ("friendly", "casual", "ranked", "ladder")
MATCHED_KINDS: tuple[RoomKind, ...] = ("casual", "ranked", "ladder")
"""The kinds only the matchmaker (or the bot ladder) opens
(:meth:`laizi.server.hub.Hub.open_matched_room`)."""

GUEST_KEY = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
"""A guest's key is a secret the matchmaker gives that guest (URL-safe, like a seat token, at
least 16 characters so it cannot be guessed): it is the seat's token once the guest sits."""


def moves_ranks(kind: str) -> bool:
    """Whether a match in a room of this kind moves strength points, ranks and ratings."""
    return kind == "ranked"


@dataclass(frozen=True)
class SeatClaim:
    """Who one seat of a matched room is kept for: one of an account, a guest's key, a bot."""

    account: int | None = None
    """An account's id: only a connection logged in to it takes the seat."""
    guest_key: str | None = None
    """A guest's secret key: only a ``join`` with it as ``token`` takes the seat."""
    bot: bool = False
    """A bot of the table's level, seated when the room is made."""
    bot_token: int | None = None
    """A registered outside bot (a bot token's id): only a ``/ws/bot`` connection showing that
    token takes the seat (a ladder table's, ``laizi.server.ladder``)."""

    @classmethod
    def for_account(cls, account_id: int) -> SeatClaim:
        return cls(account=account_id)

    @classmethod
    def for_guest(cls, key: str) -> SeatClaim:
        return cls(guest_key=key)

    @classmethod
    def for_bot(cls) -> SeatClaim:
        return cls(bot=True)

    @classmethod
    def for_bot_token(cls, token_id: int) -> SeatClaim:
        return cls(bot_token=token_id)

    def check(self) -> None:
        given = (
            (self.account is not None)
            + (self.guest_key is not None)
            + self.bot
            + (self.bot_token is not None)
        )
        if given != 1:
            raise ValueError(
                "a seat is kept for exactly one of an account, a guest, a bot or a bot token"
            )
        if self.guest_key is not None and not GUEST_KEY.match(self.guest_key):
            raise ValueError("a guest's key is 16 to 128 URL-safe characters")


def check_claims(kind: str, claims: Sequence[SeatClaim]) -> None:
    """A matched table's four seats: each claim valid, an account, a guest key and a bot token
    once at most, a person at one seat at least; a ranked table is four accounts, a ladder table
    four bot tokens (``ValueError`` if not)."""
    if kind not in MATCHED_KINDS:
        raise ValueError(f"the matchmaker opens {' or '.join(MATCHED_KINDS)} rooms, not {kind!r}")
    if len(claims) != 4:
        raise ValueError(f"a table has four seats, not {len(claims)}")
    for claim in claims:
        claim.check()
    accounts = [c.account for c in claims if c.account is not None]
    for account in accounts:
        if accounts.count(account) > 1:
            raise ValueError(
                f"an account is matched to one seat of a table at most (account {account} twice)"
            )
    tokens = [c.bot_token for c in claims if c.bot_token is not None]
    for token in tokens:
        if tokens.count(token) > 1:
            raise ValueError(
                f"a bot token is seated at one seat of a table at most (token {token} twice)"
            )
    keys = [c.guest_key for c in claims if c.guest_key is not None]
    if len(set(keys)) != len(keys):
        raise ValueError("a guest's key is kept for one seat at most")
    if all(c.bot for c in claims):
        raise ValueError("a matched table has a person at one seat at least")
    if kind == "ranked" and len(accounts) != 4:
        raise ValueError("a ranked table is four accounts (no guest, no bot)")
    if (kind == "ladder") != bool(tokens) or (kind == "ladder" and len(tokens) != 4):
        raise ValueError("a ladder table is four registered bots, and only a ladder table has one")


def matched_table(
    rules: Settings | str,
    claims: Sequence[SeatClaim],
    kind: str,
    table: TableSettings | None = None,
) -> tuple[Settings, TableSettings]:
    """A matched table's rules (a preset's name or settings) and table settings, whose
    ``players`` is the number of seats kept for people; the claims checked (:func:`check_claims`)
    and the game one the engine plays (``ValueError`` if not)."""
    from laizi.engine import make_ruleset

    check_claims(kind, claims)
    settings = Settings.from_json(rules) if isinstance(rules, str) else rules
    make_ruleset(settings)
    people = sum(not c.bot for c in claims)
    return settings, msgspec.structs.replace(table or TableSettings(), players=people)
