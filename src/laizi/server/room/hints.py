"""听牌 hints at the table: each seated person's waits with what they pay (``hints`` messages).

The hints come from :mod:`laizi.engine.hints`, computed from the seat's own view; they go to that
seat's connections only (never to spectators or the other seats), and only when they change.
They are worked out again only when something they read changed (:func:`hint_key`), and only for
seats with a person connected.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from laizi.engine.events import Discard
from laizi.engine.hints import discard_no_win, hint_key, seat_hints
from laizi.engine.state import CLAIM, FINAL, ROB, TURN
from laizi.server.protocol import stream_event
from laizi.server.room.base import Clock, Conn, Hand, Seat
from laizi.tiles import parse_tile

__all__ = ["HINT_TIMES", "Hints", "hint_ms_p99"]

HINT_TIMES: list[float] = []
"""Seconds each hint computation took in this process (the last 5,000–10,000): ``/healthz``
shows their 99th percentile (``hint_ms_p99``, read by ``benchmarks/bench_server.py``)."""


def hint_ms_p99() -> float | None:
    """The 99th percentile of the hint computations so far, in milliseconds (None: none yet)."""
    if not HINT_TIMES:
        return None
    ordered = sorted(HINT_TIMES)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 3)


class Hints:
    """Sending each seat its hints: after each change of the table and with each prompt."""

    def __init__(
        self,
        clock: Clock,
        hand: Hand,
        seats: list[Seat],
        seq: Callable[[int], int],
        asked: Callable[[int], bool],
        post: Callable[[Conn, dict[str, Any]], None],
    ) -> None:
        """``seq``: a seat's sequence number (``Streams``); ``asked``: whether the seat
        has a pending prompt (``Prompts``)."""
        self.clock = clock
        self.hand = hand
        self.seats = seats
        self.seq = seq
        self.asked = asked
        self.post = post
        self.cache: dict[int, tuple[Any, dict[str, Any]]] = {}
        """Per seat: the inputs of its last computed hints and those hints."""
        self.sent: dict[int, dict[str, Any]] = {}
        """Per seat: the hints it was last sent."""

    def shown(self, events: list[dict[str, Any]]) -> None:
        """Events were just streamed: the hints may have changed."""
        self.update(self.discards(events))

    def update(self, discards: list[tuple[int, int]] | None = None) -> None:
        """Recompute (where their inputs changed) and send (where they changed) every connected
        person's hints; ``discards`` — (seat, tile) discards just shown that nobody could claim —
        may explain why a seat could not win on one (``no_win``)."""
        state = self.hand.state
        if state is None or not self.clock.live:
            return
        for seat, s in enumerate(self.seats):
            if s.kind != "human" or not s.conns:
                continue
            if state.phase in (TURN, FINAL) and state.turn == seat and not self.asked(seat):
                continue  # its draw may not be shown yet (a claim window's pause): at its prompt
            key = hint_key(state, seat)
            cached = self.cache.get(seat)
            if cached is not None and cached[0] == key:
                content = dict(cached[1])
            else:
                started = time.perf_counter()
                content = seat_hints(state, seat)
                HINT_TIMES.append(time.perf_counter() - started)
                if len(HINT_TIMES) > 10_000:
                    del HINT_TIMES[:5_000]
                self.cache[seat] = (key, dict(content))
            if discards and content["no_win"] is None:
                for discarder, tile in discards:
                    why = discard_no_win(state, seat, tile, discarder)
                    if why is not None:
                        content["no_win"] = why
            if self.sent.get(seat) == content:
                continue
            self.sent[seat] = content
            message = {"type": "hints", "seq": self.seq(seat), **content}
            for conn in s.conns:
                self.post(conn, message)

    def discards(self, events: list[dict[str, Any]]) -> list[tuple[int, int]]:
        """The discards among ``events`` that the table moved past at once (nobody could claim)."""
        state = self.hand.state
        if state is None:
            return []
        found = []
        for event in (stream_event(e) for e in events):
            if not isinstance(event, Discard) or event.lay_out:
                continue
            tile = parse_tile(event.tile)
            waiting = (
                state.phase in (CLAIM, ROB)
                and state.claim_tile == tile
                and state.claim_from == event.seat
            )
            if not waiting:
                found.append((event.seat, tile))
        return found

    def resend(self, conn: Conn) -> None:
        """A seat's connection that (re)joined gets the hints it would have now."""
        seat = conn.seat
        if seat is None or conn.spectator:
            return
        if self.sent.pop(seat, None) is not None:
            self.update()
