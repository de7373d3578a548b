"""Who sits under which name, and which seat is booked to which account: the account side of
joining a room (``Hub.handle`` calls :func:`before_join` and :func:`after_join`; recovery
:func:`mark_guests`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from sqlalchemy import select

from laizi.server.accounts import Accounts
from laizi.server.names import NameRefused, normalize_name
from laizi.server.protocol import Join, ProtocolError
from laizi.server.ratings import link_seat_in, seat_accounts, seat_of_account, unlink_seat_in
from laizi.server.room.seating import seat_with_token

if TYPE_CHECKING:
    from laizi.server.room import Conn, Room

__all__ = ["GUEST_MARK", "after_join", "before_join", "mark_guests"]

GUEST_MARK = " (游客)"
"""Added to a guest's chosen name when an account has that name or one that looks like it (one
look-alike key, ``laizi.server.names.name_skeleton``): nobody passes for another."""


def before_join(accounts: Accounts | None, room: Room, conn: Conn, message: Join) -> Join:
    """A logged-in player sits under the account's name, on one seat of a room at most; a guest
    chooses a name — normalised and refused like an account's (``laizi.server.names``) — marked
    as a guest's when it is an account's.  (Every guest's seat is also flagged ``guest`` for all
    to see.)"""
    account = conn.account
    if message.spectate:
        return message
    if room.kind == "ladder":  # a bot's seat, never its owner's (laizi.server.botratings)
        bot = conn.bot
        if bot is None or message.token is not None:
            return message  # the seat is refused, or taken back under its name
        return msgspec.structs.replace(message, name=bot.shown)
    if account is not None:
        _one_seat(room, conn, message)
        if message.token is not None:
            return message
        return msgspec.structs.replace(message, name=account.name)
    if message.token is not None and room.kept_seat(message.token) is None:
        return message  # coming back to a seat: its name is kept
    if not message.name.strip():
        return msgspec.structs.replace(message, name="")
    try:
        name = normalize_name(message.name)
    except NameRefused as error:
        raise ProtocolError(error.code, error.en, error.zh) from None
    if accounts is not None and accounts.look_alike(name) is not None:
        name = name[: 32 - len(GUEST_MARK)] + GUEST_MARK
    return msgspec.structs.replace(message, name=name)


def mark_guests(room: Room) -> None:
    """After a restart: a person's seat booked to no account is a guest's."""
    with room.store.engine.connect() as c:
        linked = set(
            c.execute(
                select(seat_accounts.c.seat).where(seat_accounts.c.room_id == room.id)
            ).scalars()
        )
    for index, seat in enumerate(room.seats):
        # a ladder table's seats are its bots', linked to no account and no guest's either
        seat.guest = seat.kind == "human" and index not in linked and room.kind != "ladder"


def _one_seat(room: Room, conn: Conn, message: Join) -> None:
    """An account holds one seat of a room: a second seat (another tab or device with the same
    session) is refused; coming back to its own seat with the token is not."""
    if conn.account is None:
        return
    held = {
        i
        for i, s in enumerate(room.seats)
        if any(c.account is not None and c.account.id == conn.account.id for c in s.conns)
    }
    linked = seat_of_account(room.store.engine, room.id, conn.account.id)
    if linked is not None and room.seats[linked].kind == "human":
        held.add(linked)
    if not held:
        return
    if message.token is not None:
        wanted = seat_with_token(room.seats, message.token)
        if wanted is None or wanted in held:
            return  # the room answers a bad token; one's own seat may be rejoined
    seat = min(held)
    raise ProtocolError(
        "already_seated",
        f"your account already holds seat {seat} of this room; an account may take only one "
        "seat (reconnect to it with its token)",
        f"你的账号已坐在本房间的 {seat} 号座位，一个账号只能占一个座位（请用该座位的令牌重连）",
    )


def after_join(room: Room, conn: Conn, message: Join) -> None:
    """Book a newly taken seat to the account that took it (a guest's seat to nobody)."""
    if conn.seat is None or message.spectate:
        return
    if message.token is not None and room.kept_seat(message.token) is None:
        return  # came back to its seat
    if room.kind == "ladder":
        return  # booked to its bot token (reserved_seats), to no account
    # on the store's writer, in order with the tables' commits: a write from the loop's thread
    # beside them would wait on SQLite's write lock (issue 31)
    seat, account = conn.seat, conn.account
    if account is not None:
        room.store.transact(lambda c: link_seat_in(c, room.id, seat, account.id))
    else:
        room.store.transact(lambda c: unlink_seat_in(c, room.id, seat))
