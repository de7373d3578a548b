"""Per-viewer event streams: sequence numbers, the claim window's pause, catching up."""

from __future__ import annotations

from typing import Any

from laizi.engine import seat_event, view
from laizi.engine.view import as_streamed
from laizi.server.room.base import VIEWERS, Conn, RoomBase


class Streams(RoomBase):
    """Every viewer's numbered stream of events, the claim window's pause (the gate) and catching
    a connection up."""

    def catch_up(self, conn: Conn, last_seq: int | None) -> None:
        """The missed events (or a snapshot), then the room, one's 托管 state, a pending
        ``commit`` and any pending prompt."""
        if self.gate is not None:  # the streams are behind the state until the pause ends
            # Until then a connection catching up on events gets nothing streamed: the catch-up
            # sends it all, in order (the held events included).
            if last_seq is not None:
                self.catching.add(conn)
            self.after_gate.append(lambda: self.catch_up(conn, last_seq))
            return
        self.catching.discard(conn)
        viewer = conn.seat
        stream = self.streams[viewer]
        base = self.base[viewer]
        now = self.seq[viewer]
        if last_seq is not None and base <= last_seq <= now:
            for i in range(last_seq, now):
                self.post(conn, {"type": "event", "seq": i + 1, "event": stream[i - base]})
        else:
            self.post(
                conn,
                {
                    "type": "snapshot",
                    "seq": now,
                    "room": self.info(),
                    "view": None if self.state is None else view(self.state, viewer),
                },
            )
        self.post(conn, {"type": "room", "room": self.info()})
        if viewer is not None:
            self.post(conn, {"type": "auto", "on": self.seats[viewer].auto})
            if self.pending is not None and conn.minor >= 1:
                self.post(conn, self.pending.message())
        if viewer is not None and viewer in self.prompts:
            self._send_prompt(self.prompts[viewer])
        self._resend_hints(conn)
        self._resend_pause(conn)

    def _emit(self, events: list[dict[str, Any]]) -> None:
        """Add events to the hand's record and to every viewer's stream; send them — during a
        claim window's pause, once it ends."""
        self.hand_events += events
        if self.gate is not None:
            self._hold(events)
            return
        cut = self._window_cut(events)
        if cut is None:
            self._stream(events)
            return
        self._stream(events[:cut])
        self.held = list(events[cut:])
        self.gate = self._later(self.table.claim_window, self._open_gate)
        self.end_waits = True  # the wall ran out with the discard: the hand ends with the pause

    def _hold(self, events: list[dict[str, Any]]) -> None:
        """Keep events for the end of the pause — but a seat's own claim or pass, which only
        that seat is shown, goes to it at once when nothing it may see is held before it."""
        for event in events:
            if event["type"] in ("claim", "pass"):
                viewers = [v for v in VIEWERS if seat_event(event, v) is not None]
                if not any(seat_event(h, v) is not None for h in self.held for v in viewers):
                    self._stream([event])
                    continue
            self.held.append(event)

    def _window_cut(self, events: list[dict[str, Any]]) -> int | None:
        """Where a claim window's pause starts in ``events`` (after a discard or an added kong
        others might claim), at a table with people; None: no pause."""
        if not self.live or not any(s.kind == "human" for s in self.seats):
            return None
        for k, event in enumerate(events):
            kind = event["type"]
            if (kind == "discard" and not event.get("lay_out")) or kind == "added_kong":
                return k + 1
        return None

    def _release(self) -> None:
        """End a claim window's pause now: send what it held, catch up who asked meanwhile."""
        if self.gate is not None:
            self.gate.cancel()
            self.gate = None
        held, self.held = self.held, []
        self._stream(held)
        waiting, self.after_gate = self.after_gate, []
        for fn in waiting:
            fn()

    def _open_gate(self) -> None:
        """The pause is over (as long after every discard, claimable or not): what it held goes
        out — bots and seats on auto-play decided their claims during it (``room/ahead.py``);
        one still pending is settled now — then play goes on."""
        self.gate = None
        self._release()
        for seat, prompt in list(self.prompts.items()):
            s = self.seats[seat]
            if (s.kind == "bot" or s.auto) and self.prompts.get(seat) is prompt:
                self._settle(seat, prompt)
        self._after()

    def _stream(self, events: list[dict[str, Any]]) -> None:
        conns = self._conns() if self.live else []
        # Streams (not the record) carry the multipliers and live tiles where they change.
        shown_events = events if self.state is None else as_streamed(self.state, events)
        for event in shown_events:
            for v in VIEWERS:
                shown = seat_event(event, v)
                if shown is None:
                    continue
                self.streams[v].append(shown)
                self.seq[v] += 1
                message = {"type": "event", "seq": self.seq[v], "event": shown}
                for conn, seat in conns:
                    if seat == v and conn not in self.catching:
                        self.post(conn, message)
        if conns:
            self._update_hints(self._hint_discards(events))
