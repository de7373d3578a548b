"""The match flow and its persistence: start, deal, play, after each change, end, expiry."""

from __future__ import annotations

import secrets
from typing import Any

from laizi.engine import Action, IllegalAction, apply
from laizi.engine.events import number
from laizi.engine.state import CLAIM, ROB, HandState
from laizi.server.bot_notes import flush_notes
from laizi.server.entropy import PendingDeal
from laizi.server.protocol import ProtocolError, Ready
from laizi.server.room.base import VIEWERS, Conn, RoomBase, Seat, log
from laizi.server.seats import bot_player


class MatchFlow(RoomBase):
    """The match: start, each deal (with the players' entropy), actions and their storage,
    the end of a hand and of the match, and a waiting room's expiry."""

    def start_match(self) -> None:
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                self.seats[i] = Seat(kind="bot", name=f"bot {i}", bank=self.table.bank_seconds)
                self.store.set_seat(self.id, i, "bot", f"bot {i}", None)
        for i, s in enumerate(self.seats):
            if s.kind == "bot":
                s.bot = bot_player(self.table.bot_level, self.rules)
            elif not s.conns and s.grace is None and self.live:
                # Seated before a restart and not back yet: the grace period runs from now.
                s.grace = self._later(self.table.escape_grace_seconds * 1000, self._grace_over, i)
        self.status = "playing"
        self.store.set_status(self.id, "playing")
        self._broadcast_info()
        self._deal()

    def _deal(self) -> None:
        """Deal the next hand — at a table with contributing clients, first commit to the
        secret and wait (at most ``entropy_wait_ms``) for their contributions."""
        if self.status != "playing" or (self.state is not None and not self.state.over):
            return
        if self.pending is not None:
            return
        self._release()
        if self.live and self._contributors():
            pending = PendingDeal(self.match.hands_played, secrets.token_bytes(32))
            self.pending = pending
            pending.timer = self._later(self.table.entropy_wait_ms, self._deal_now)
            for conn, seat in self._conns():
                if seat is not None and conn.minor >= 1:
                    self.post(conn, pending.message())
            return
        self._deal_now()

    def _contributors(self) -> list[int]:
        """The seats whose deal contribution is awaited: people with a protocol-1.1 client."""
        return [
            i
            for i, s in enumerate(self.seats)
            if s.kind == "human" and not s.leaving and any(c.minor >= 1 for c in s.conns)
        ]

    def ready(self, conn: Conn, msg: Ready) -> None:
        """A seat's contribution to the pending deal; the deal happens once all are in."""
        seat = conn.seat
        if seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators don't contribute to the deal")
        pending = self.pending
        if pending is None or pending.hand != msg.hand:
            raise ProtocolError(
                "no_deal_pending", f"no deal of hand {msg.hand} is waiting for contributions"
            )
        if pending.contributions[seat] is not None:
            raise ProtocolError("already_contributed", "this seat has contributed to this deal")
        pending.contributions[seat] = bytes.fromhex(msg.entropy)
        for c in self.seats[seat].conns:
            self.post(c, {"type": "contributed", "hand": msg.hand, "entropy": msg.entropy})
        if all(pending.contributions[i] is not None for i in self._contributors()):
            self._deal_now()

    def _deal_now(self) -> None:
        pending, self.pending = self.pending, None
        if self.status != "playing" or (self.state is not None and not self.state.over):
            return
        if pending is not None:
            if pending.timer is not None:
                pending.timer.cancel()
            seed, contributions = pending.secret, pending.contributed()
        else:
            seed, contributions = secrets.token_bytes(32), None
        state, events = self.match.deal(seed, contributions)
        self.hand_id = self.store.start_hand(
            self.id, self.match.hands_played, state.dealer, seed, events
        )
        if self.live:  # the time bank is per hand: full again at every deal
            for i, s in enumerate(self.seats):
                if s.bank != self.table.bank_seconds:
                    s.bank = self.table.bank_seconds
                    self._save_seat(i)
        self._begin_hand(state, events)
        self._after()

    def _begin_hand(self, state: HandState, events: list[dict[str, Any]]) -> None:
        self.state = state
        self.hand_events = []
        for v in VIEWERS:
            previous = self.hand_starts[v]
            self.streams[v] = self.streams[v][previous - self.base[v] :]
            self.base[v] = previous
            self.hand_starts[v] = self.seq[v]
        self._emit(events)

    def _play(self, seat: int, action: Action) -> None:
        """Apply an action: check it, write its events to the database, then tell everyone."""
        state = self.state
        if state is None or state.over:
            return
        try:
            # An action from a prompt was checked against the prompt's legal actions already.
            prompt = self.prompts.get(seat)
            events = apply(state, action, check=prompt is None or action not in prompt.legal)
        except IllegalAction as error:  # checked against the prompt before; never for a client
            log.error("room %s: illegal %s: %s", self.code, action.notation(), error)
            return
        prompt = self.prompts.pop(seat, None)
        if prompt is not None and prompt.handle is not None:
            prompt.handle.cancel()
        finished = state.over
        status = None
        if finished:
            over = self.match.hands_played + 1 >= self.table.hands or action.type == "abandon"
            if over:
                status = (self.id, "over")
        if self.live and self.hand_id is not None:
            self.store.append(self.hand_id, len(self.hand_events), events, finished, status)
            self.staged()
        self._emit(events)
        self._after()

    def _after(self) -> None:
        """After every change: book a finished hand, end the match, or prompt whoever decides."""
        state = self.state
        if state is None:
            return
        waits, self.end_waits = self.end_waits, False
        if state.over and self.gate is not None and waits:
            return  # ended within the claim window's pause: finished when it ends (_open_gate)
        if state.over:
            for s in self.seats:
                s.escape_after = None  # a turn of this hand; an escape waits for none any more
            self._release()
            flush_notes(self)  # explain_bots: the hand's bot notes (laizi.server.bot_notes)
            for prompt in self.prompts.values():
                if prompt.handle is not None:
                    prompt.handle.cancel()
            self.prompts.clear()
            if self.match.current is state:
                self.match.finish(self.hand_events)
                if self.match.hands_played >= self.table.hands:
                    self.match.over = True
                if self.match.over:
                    self._end_match()
                elif self.live:
                    self._broadcast_info()
                    self._between_hands()
            return
        # A seat that left passes its claims at once and abandons as soon as no decision
        # another seat may win from is in progress (seating._escape_waits).
        for i, s in enumerate(self.seats):
            if s.leaving and self.live and state.phase in (CLAIM, ROB) and i in state.to_act():
                self._play(i, Action(i, "pass"))
                return
        leaving = [i for i, s in enumerate(self.seats) if s.leaving and not self._escape_waits(i)]
        if leaving:
            seat = leaving[0]
            if self.live:
                self._play(seat, Action(seat, "abandon"))
            return
        self._refresh_prompts()

    def _end_match(self) -> None:
        self.status = "over"
        self._emit(
            [
                {
                    "type": "match_end",
                    "hands": self.match.hands_played,
                    "totals": [number(x) for x in self.match.totals],
                    "escaped": self.match.escaped,
                }
            ]
        )
        if self.on_match_end is not None:
            try:
                self.on_match_end(self.as_room())
            except Exception:  # booking must not stop the table; recovery books it later
                log.exception("room %s: match-end hook failed", self.code)
        for timer in list(self.timers):
            timer.cancel()
        for s in self.seats:
            if s.grace is not None:
                s.grace.cancel()
                s.grace = None
        self._broadcast_info()
        if self.live and self.on_over is not None:
            self.on_over(self.as_room())

    def expire(self) -> None:
        """A room that waited too long for its people closes: everyone in it is told and let go
        (the database marks it ``expired``; it is not recovered after a restart)."""
        self.status = "expired"
        self.store.set_status(self.id, "expired")
        for timer in list(self.timers):
            timer.cancel()
        message = {
            "type": "error",
            "code": "room_expired",
            "message": "房间等人太久，已关闭 / the room waited too long for its players and closed",
        }
        for conn, _ in self._conns():
            self.post(conn, message)
            self.post(conn, {"type": "left", "room": self.code})
            conn.room, conn.seat, conn.spectator = None, None, False
        self.spectators.clear()
        for s in self.seats:
            s.conns.clear()
