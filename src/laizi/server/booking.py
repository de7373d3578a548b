"""Booking finished matches without ever stopping the server.

:class:`Bookings` books each match when it ends (``Room.on_match_end``) and, at startup, every
match a crash left unbooked.  A match that cannot be booked — a bug, a record the rules no
longer accept, a database error — is logged, kept in :attr:`Bookings.failed`, retried every
``retry_seconds`` (and at the next match end once that long has passed) and shown by
``/healthz`` (``unbooked``, ``booking_errors``); the server starts and serves regardless.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from laizi.server.botratings import book_ladder_in, book_unbooked_ladder
from laizi.server.ratings import book_stored_in, book_unbooked, error_line

if TYPE_CHECKING:
    from laizi.server.room import Room

__all__ = ["RETRY_SECONDS", "Bookings", "retry_seconds_from_env"]

log = logging.getLogger("laizi.server")

RETRY_SECONDS = 60.0
"""How often matches that could not be booked are tried again (``LAIZI_BOOKING_RETRY_SECONDS``)."""


def retry_seconds_from_env() -> float:
    """``LAIZI_BOOKING_RETRY_SECONDS`` if set to a positive number, else :data:`RETRY_SECONDS`."""
    raw = os.environ.get("LAIZI_BOOKING_RETRY_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return RETRY_SECONDS
    return value if 0 < value < 1e9 else RETRY_SECONDS


@dataclass
class Failure:
    code: str
    error: str
    since: float
    tries: int = 1


class Bookings:
    """The server's bookings: now, at startup, and again later for those that failed."""

    def __init__(self, engine: Engine, retry_seconds: float = RETRY_SECONDS) -> None:
        self.engine = engine
        self.retry_seconds = retry_seconds
        self.failed: dict[int, Failure] = {}
        """Room id → why its match could not be booked yet."""
        self.last_retry = time.monotonic()
        self.timer: asyncio.TimerHandle | None = None
        self.retries = 0
        """Retries of the failed bookings so far (``/metrics``)."""

    def _failed(self, room_id: int, code: str, error: str) -> None:
        old = self.failed.get(room_id)
        if old is None:
            self.failed[room_id] = Failure(code, error, time.time())
        else:
            old.error, old.tries = error, old.tries + 1

    def book_pending(self) -> int:
        """Book every unbooked match (at startup, and to retry); returns how many were booked."""
        self.last_retry = time.monotonic()
        result = book_unbooked(self.engine)
        ladder_booked, ladder_failed = book_unbooked_ladder(self.engine)  # the bot ladder's
        failed = {**result.failed, **ladder_failed}
        for room_id in [r for r in self.failed if r not in failed]:
            del self.failed[room_id]  # booked now, or no longer waiting
        for room_id, (code, error) in failed.items():
            self._failed(room_id, code, error)
        booked = result.booked + ladder_booked
        if booked:
            log.info("booked %d match(es) that were waiting", booked)
        return booked

    def match_ended(self, room: Room) -> None:
        """The server's match-end hook: book this match; retry the failed ones when due."""
        # The match's last events first (the server stages them until the end of this loop turn,
        # then hands them to the store's writer): the booking is written by the writer after
        # them, so it never stands for an end the database does not hold.
        try:
            room.store.commit()
            room.store.transact(lambda c: book_stored_in(c, room.id, room.rules))
            # a ladder table's bots (laizi.server.botratings; nothing for any other room)
            room.store.transact(lambda c: book_ladder_in(c, room.id, room.rules))
            self.failed.pop(room.id, None)
        except Exception as error:
            log.exception("room %s: the match could not be booked (retried later)", room.code)
            self._failed(room.id, room.code, error_line(error))
        if self.failed and time.monotonic() - self.last_retry >= self.retry_seconds:
            self.retries += 1
            self.book_pending()

    def start_timer(self) -> None:
        """Retry the failed bookings every ``retry_seconds`` on the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def tick() -> None:
            if self.failed:
                self.retries += 1
                try:
                    self.book_pending()
                except Exception:  # never let the timer die
                    log.exception("retrying the unbooked matches failed")
            self.timer = loop.call_later(self.retry_seconds, tick)

        self.timer = loop.call_later(self.retry_seconds, tick)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def health(self) -> dict[str, Any]:
        """For ``/healthz``: how many finished matches wait for their booking, and why."""
        return {
            "unbooked": len(self.failed),
            "booking_errors": [
                {"room": f.code, "error": f.error, "since": round(f.since, 3), "tries": f.tries}
                for f in self.failed.values()
            ],
        }
