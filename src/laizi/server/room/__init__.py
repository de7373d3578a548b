"""Rooms: seats, a match of N hands, prompts and their timers, reconnects, recovery.

Everything here runs on the server's one event loop and never blocks on the network: a message
for a client goes into its connection's queue (:class:`Conn`).  The engine is pure; this module
holds what it must not: the clock (one cancellable timer per prompt), the seeds (``secrets``),
the connections and the database (:class:`laizi.server.store.Store`).

Every viewer (seat 0–3, or a spectator) has its own stream of events — the engine's
``seat_event`` of each — numbered 1, 2, 3 … in that stream, so a gap never tells a seat that
something it may not see happened.  The streams are rebuilt exactly from the database after a
restart, so a client's last sequence number stays meaningful.

Nothing a seat receives depends on what it may not see: a prompt's id is the seat's own sequence
number, and at a table with people every discard is followed by the same pause (the claim
window, ``TableSettings.claim_window``) whether or not anybody may claim it.  Before each deal
there, the server commits to its secret and the players' clients add their own entropy
(:mod:`laizi.server.entropy`).

The room is one class, :class:`Room`, made of one mixin per concern: :mod:`.seating`,
:mod:`.streams`, :mod:`.prompts` (with :mod:`.ahead`: the claims bots and 托管 seats decide during
the claim window's pause), :mod:`.match` and :mod:`.recovery`, on the shared state of
:mod:`.base`.
"""

from __future__ import annotations

from laizi.server.room.ahead import Ahead
from laizi.server.room.base import (
    CODE_ALPHABET,
    VIEWERS,
    Conn,
    Prompt,
    RoomBase,
    Seat,
    Timer,
    new_code,
)
from laizi.server.room.hints import Hints
from laizi.server.room.match import MatchFlow
from laizi.server.room.pause import SettlementPause
from laizi.server.room.prompts import Prompts
from laizi.server.room.recovery import Recovery
from laizi.server.room.seating import SPECTATOR_NEWS_MS, Seating
from laizi.server.room.streams import Streams

__all__ = [
    "CODE_ALPHABET",
    "SPECTATOR_NEWS_MS",
    "VIEWERS",
    "Conn",
    "Prompt",
    "Room",
    "RoomBase",
    "Seat",
    "Timer",
    "new_code",
]


class Room(Seating, Streams, Prompts, Ahead, Hints, SettlementPause, MatchFlow, Recovery):
    """One table: its rules, table settings, seats, match and streams."""
