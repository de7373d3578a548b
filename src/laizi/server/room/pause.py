"""The settlement that stays: between two hands at a table with people, the next deal waits until
every connected person pressed Continue (``continue``) or ``settlement_seconds`` ran out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from laizi.server.protocol import ProtocolError
from laizi.server.room.base import Clock, Conn, Timer
from laizi.server.room.seating import Seating
from laizi.server.table import TableSettings

__all__ = ["Pause", "SettlementPause"]


@dataclass
class Pause:
    """The pause after hand ``hand``: who is still awaited, until when."""

    hand: int
    deadline: float
    waiting: set[int] = field(default_factory=set)
    timer: Timer | None = None


class SettlementPause:
    """``pause`` messages to everyone, ``continue`` from the seated people, then the next deal."""

    def __init__(
        self,
        table: TableSettings,
        clock: Clock,
        seating: Seating,
        post: Callable[[Conn, dict[str, Any]], None],
        hands_played: Callable[[], int],
        deal: Callable[[], None],
    ) -> None:
        """``deal``: deal the next hand (``MatchFlow.deal``)."""
        self.table = table
        self.clock = clock
        self.seating = seating
        self.post = post
        self.hands_played = hands_played
        self.deal = deal
        self.pause: Pause | None = None
        """The pause after the last hand, while it runs."""

    def between_hands(self) -> None:
        """A hand (not the match) is over: pause for the settlement, or deal after the short
        ``between_hands_ms`` at a table without people (or with ``settlement_seconds`` 0)."""
        seconds = self.table.settlement_seconds
        # Awaited: the people at the table. Not a seat that left (it escapes), nor one that is
        # away (no connection) or on 托管 as everyone was told: the server plays those, as it
        # plays a bot, and a seat nobody attends must not hold the table for settlement_seconds.
        waiting = {
            i
            for i, s in enumerate(self.seating.seats)
            if s.kind == "human" and s.conns and not s.leaving and not (s.auto and s.auto_shown)
        }
        if seconds <= 0 or not self.seating.has_people() or not waiting:
            self.clock.later(self.table.between_hands_ms, self.deal)
            return
        pause = Pause(self.hands_played() - 1, self.clock.now() + seconds, waiting)
        pause.timer = self.clock.later(seconds * 1000, self._end_pause)
        self.pause = pause
        self._tell_pause()

    def _pause_message(self) -> dict[str, Any]:
        pause = self.pause
        if pause is None:
            return {
                "type": "pause",
                "hand": self.hands_played() - 1,
                "seconds": 0,
                "total": self.table.settlement_seconds,
                "waiting": [],
            }
        left = max(0.0, pause.deadline - self.clock.now())
        return {
            "type": "pause",
            "hand": pause.hand,
            "seconds": round(left, 1),
            "total": self.table.settlement_seconds,
            "waiting": sorted(pause.waiting),
        }

    def _tell_pause(self) -> None:
        message = self._pause_message()
        for conn, _ in self.seating.conns():
            self.post(conn, message)

    def continue_(self, conn: Conn) -> None:
        """A seated person pressed Continue."""
        seat = conn.seat
        if seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators don't continue the table")
        pause = self.pause
        if pause is None or seat not in pause.waiting:
            return  # pressed already, or the pause is over (a late press crossed it): no change
        pause.waiting.discard(seat)
        self._pause_changed()

    def seat_gone(self, seat: int) -> None:
        """A seat's player went away: the table no longer waits for it."""
        pause = self.pause
        if pause is not None and seat in pause.waiting:
            pause.waiting.discard(seat)
            self._pause_changed()

    def _pause_changed(self) -> None:
        pause = self.pause
        if pause is None:
            return
        if pause.waiting:
            self._tell_pause()
        else:
            self._end_pause()

    def _end_pause(self) -> None:
        pause, self.pause = self.pause, None
        if pause is None:
            return
        if pause.timer is not None:
            pause.timer.cancel()
        self._tell_pause()  # seconds 0, nobody waiting: the next deal follows
        self.deal()

    def resend(self, conn: Conn) -> None:
        """A connection that (re)joined during a pause is told of it."""
        if self.pause is not None:
            self.post(conn, self._pause_message())
