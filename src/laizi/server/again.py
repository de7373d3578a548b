"""再来一局 (play again): a finished friendly room's seat asks for a rematch (docs/protocol.md,
"Play again").

The first ``again`` of a finished friendly room makes a new friendly room with the same rules and
the same table settings (so as many seats for people; bots take the others, as before) and sends
``{"type": "again", "room": NEW, "from": OLD, "seat": S}`` to every person seated in the old room —
``seat`` is the asker's.  Each person who wants to play clicks to join the new room (the web
client asks for its old seat number, so the table looks the same).  A later ``again`` of the same
room is answered with the same room while it waits for its people; nobody is seated anywhere
without their own ``join``.

Ranked and casual rooms are the matchmaker's: their rematch is to queue again (``not_friendly``).
"""

from __future__ import annotations

from typing import Any, Protocol

from laizi.rules import Settings
from laizi.server.limits import LimitError, Owner, Quotas
from laizi.server.protocol import ProtocolError
from laizi.server.room import Conn, Room
from laizi.server.table import TableSettings

__all__ = ["Rooms", "play_again"]


class Rooms(Protocol):
    """What a rematch needs of the hub (``laizi.server.hub.Hub``)."""

    rooms: dict[str, Room]
    again: dict[str, str]
    quotas: Quotas
    cluster: Any

    def open_friendly_room(self, rules: Settings, table: TableSettings, owner: Owner) -> Room: ...

    def post(self, conn: Conn, message: dict[str, Any]) -> None: ...


def play_again(hub: Rooms, conn: Conn) -> None:
    """Answer one ``again``: the rematch's room, made once and told to the old room's seats."""
    joined = conn.room
    room = hub.rooms.get(joined.code) if joined is not None else None
    if room is None:
        raise ProtocolError("not_joined", "join a room first")
    if conn.seat is None or conn.spectator:
        raise ProtocolError("not_seated", "only a seated player can ask for a rematch")
    if room.kind != "friendly":
        raise ProtocolError("not_friendly", "only a friendly room offers a rematch")
    if room.status != "over":
        raise ProtocolError("not_over", "the match is not over yet")
    if hub.cluster is not None:  # a cluster's rooms are leased first (an HTTP request's work)
        raise ProtocolError("again_unavailable", "this server can't open the rematch")
    message: dict[str, Any] = {"type": "again", "from": room.code, "seat": conn.seat}
    known = hub.again.get(room.code)
    waiting = hub.rooms.get(known) if known is not None else None
    if waiting is not None and waiting.status == "waiting":
        conn.send({**message, "room": waiting.code})
        return
    owner = Owner(conn.address, None if conn.account is None else conn.account.id)
    try:
        hub.quotas.check_room(owner, room.table.players == 0)
    except LimitError as error:
        raise ProtocolError(error.code, error.message) from None
    new = hub.open_friendly_room(room.rules, room.table, owner)
    hub.again[room.code] = new.code
    message["room"] = new.code
    for other, seat in room.conns():
        if seat is not None:
            hub.post(other, message)
