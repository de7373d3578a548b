"""The match flow and its persistence: start, deal, play, after each change, end, expiry."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from laizi.engine import Action, IllegalAction, Match, apply
from laizi.engine.events import encode_all, number
from laizi.engine.state import CLAIM, ROB, HandState
from laizi.rules import Settings
from laizi.server.bot_notes import BotNotes
from laizi.server.entropy import PendingDeal
from laizi.server.protocol import MatchEnd, ProtocolError, Ready, stream_json
from laizi.server.room.base import Clock, Conn, Hand, Seat, log
from laizi.server.room.claims import ClaimWindow
from laizi.server.room.pause import SettlementPause
from laizi.server.room.prompts import Prompts
from laizi.server.room.seating import Seating
from laizi.server.room.streams import Streams
from laizi.server.seats import bot_player
from laizi.server.store import Store
from laizi.server.table import TableSettings
from laizi.server.writer import unreachable

DEAL_RETRY_FIRST_MS = 100.0
"""The first wait before a deal whose write could not reach the database is tried again."""
DEAL_RETRY_MAX_MS = 2000.0
"""The longest wait between two tries of a deal."""


class MatchFlow:
    """The match: start, each deal (with the players' entropy), actions and their storage,
    the end of a hand and of the match, and a waiting room's expiry."""

    def __init__(
        self,
        room_id: int,
        code: str,
        rules: Settings,
        table: TableSettings,
        store: Store,
        staged: Callable[[], None],
        post: Callable[[Conn, dict[str, Any]], None],
        clock: Clock,
        match: Match,
        hand: Hand,
        parts: FlowParts,
        ended: Callable[[], None],
        over: Callable[[], None],
    ) -> None:
        """``ended``: the match is over (the room's ``on_match_end`` books it); ``over``: it is
        over and everyone was told (the room's ``on_over``)."""
        self.room_id = room_id
        self.code = code
        self.rules = rules
        self.table = table
        self.store = store
        self.staged = staged
        self.post = post
        self.clock = clock
        self.match = match
        self.hand = hand
        self.seating = parts.seating
        self.seats = parts.seating.seats
        self.window = parts.window
        self.streams = parts.streams
        self.prompts = parts.prompts
        self.pause = parts.pause
        self.notes = parts.notes
        self.ended = ended
        self.over = over
        self.status = "waiting"
        self.pending: PendingDeal | None = None
        """The next deal, committed to and waiting for the players' contributions."""
        self.deal_tries = 0
        """Deals in a row that could not be written (the database unreachable)."""

    def tell_pending(self, conn: Conn) -> None:
        """A seat's connection (re)joined: the deal waiting for its contribution, if any."""
        if self.pending is not None and conn.minor >= 1:
            self.post(conn, self.pending.message())

    def start_match(self) -> None:
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                self.seats[i] = Seat(kind="bot", name=f"bot {i}", bank=self.table.bank_seconds)
                self.store.set_seat(self.room_id, i, "bot", f"bot {i}", None)
        for i, s in enumerate(self.seats):
            if s.kind == "bot":
                s.bot = bot_player(self.table.bot_level, self.rules)
            elif not s.conns and s.grace is None and self.clock.live:
                # Seated before a restart and not back yet: the grace period runs from now.
                self.seating.start_grace(i, self.table.escape_grace_seconds)
        self.status = "playing"
        self.store.set_status(self.room_id, "playing")
        self.seating.broadcast_info()
        self.deal()

    def deal(self) -> None:
        """Deal the next hand — at a table with contributing clients, first commit to the
        secret and wait (at most ``entropy_wait_ms``) for their contributions."""
        if self.status != "playing" or (self.hand.state is not None and not self.hand.state.over):
            return
        if self.pending is not None:
            return
        self.window.release()
        if self.clock.live and self._contributors():
            pending = PendingDeal(self.match.hands_played, secrets.token_bytes(32))
            self.pending = pending
            pending.timer = self.clock.later(self.table.entropy_wait_ms, self.deal_now)
            for conn, seat in self.seating.conns():
                if seat is not None and conn.minor >= 1:
                    self.post(conn, pending.message())
            return
        self.deal_now()

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
            self.deal_now()

    def deal_now(self) -> None:
        pending, self.pending = self.pending, None
        if self.status != "playing" or (self.hand.state is not None and not self.hand.state.over):
            return
        if pending is not None:
            if pending.timer is not None:
                pending.timer.cancel()
            seed, contributions = pending.secret, pending.contributed()
        else:
            seed, contributions = secrets.token_bytes(32), None
        state, events = self.match.deal(seed, contributions)
        try:
            self.hand.id = self.store.start_hand(
                self.room_id, self.match.hands_played, state.dealer, seed, events
            )
        except Exception as error:
            if not unreachable(error):
                raise
            self._deal_again(pending, error)
            return
        self.deal_tries = 0
        if self.clock.live:  # the time bank is per hand: full again at every deal
            for i, s in enumerate(self.seats):
                if s.bank != self.table.bank_seconds:
                    s.bank = self.table.bank_seconds
                    self.seating.save_seat(i)
        self.begin_hand(state, events)
        self.after()

    def _deal_again(self, pending: PendingDeal | None, error: BaseException) -> None:
        """The deal's write could not reach the database: nothing of the hand happened — deal it
        again (the same committed secret and contributions) after a wait that doubles from
        :data:`DEAL_RETRY_FIRST_MS` to :data:`DEAL_RETRY_MAX_MS` (the clock stands still while
        the writes fail: ``Hub.writes_failing``)."""
        self.match.current = None
        wait = min(DEAL_RETRY_MAX_MS, DEAL_RETRY_FIRST_MS * 2**self.deal_tries)
        self.deal_tries += 1
        log.warning(
            "room %s: the deal could not be written (%s): again in %d ms", self.code, error, wait
        )
        timer = self.clock.later(wait, self.deal_now)
        if pending is not None:
            pending.timer = timer
            self.pending = pending

    def begin_hand(self, state: HandState, events: list[dict[str, Any]]) -> None:
        self.hand.state = state
        self.hand.events = []
        self.streams.new_hand()
        self.streams.emit(events)

    def play(self, seat: int, action: Action) -> None:
        """Apply an action: check it, write its events to the database, then tell everyone."""
        state = self.hand.state
        if state is None or state.over:
            return
        try:
            # An action from a prompt was checked against the prompt's legal actions already.
            prompt = self.prompts.pending(seat)
            events = encode_all(
                apply(state, action, check=prompt is None or action not in prompt.legal)
            )
        except IllegalAction as error:  # checked against the prompt before; never for a client
            log.error("room %s: illegal %s: %s", self.code, action.notation(), error)
            return
        self.prompts.take(seat)
        finished = state.over
        status = None
        if finished:
            over = self.match.hands_played + 1 >= self.table.hands or action.type == "abandon"
            if over:
                status = (self.room_id, "over")
        if self.clock.live and self.hand.id is not None:
            self.store.append(self.hand.id, len(self.hand.events), events, finished, status)
            self.staged()
        self.streams.emit(events)
        self.after()

    def after(self) -> None:
        """After every change: book a finished hand, end the match, or prompt whoever decides."""
        state = self.hand.state
        if state is None:
            return
        waits = self.window.ends_with_pause()
        if state.over and waits:
            return  # ended within the claim window's pause: finished when it ends
        if state.over:
            for s in self.seats:
                s.escape_after = None  # a turn of this hand; an escape waits for none any more
            self.window.release()
            self.notes.flush()  # explain_bots: the hand's bot notes (laizi.server.bot_notes)
            self.prompts.clear()
            if self.match.current is state:
                self.match.finish(self.hand.events)
                if self.match.hands_played >= self.table.hands:
                    self.match.over = True
                if self.match.over:
                    self._end_match()
                elif self.clock.live:
                    self.seating.broadcast_info()
                    self.pause.between_hands()
            return
        # A seat that left passes its claims at once and abandons as soon as no decision
        # another seat may win from is in progress (Seating.escape_waits).
        for i, s in enumerate(self.seats):
            live = self.clock.live
            if s.leaving and live and state.phase in (CLAIM, ROB) and i in state.to_act():
                self.play(i, Action(i, "pass"))
                return
        escape_waits = self.seating.escape_waits
        leaving = [i for i, s in enumerate(self.seats) if s.leaving and not escape_waits(i)]
        if leaving:
            seat = leaving[0]
            if self.clock.live:
                self.play(seat, Action(seat, "abandon"))
            return
        self.prompts.refresh()

    def _end_match(self) -> None:
        self.status = "over"
        totals = [number(x) for x in self.match.totals]
        end = MatchEnd(hands=self.match.hands_played, totals=totals, escaped=self.match.escaped)
        self.streams.emit([stream_json(end)])
        try:
            self.ended()
        except Exception:  # booking must not stop the table; recovery books it later
            log.exception("room %s: match-end hook failed", self.code)
        self.clock.cancel_all()
        self.seating.stop_graces()
        self.seating.broadcast_info()
        if self.clock.live:
            self.over()

    def expire(self) -> None:
        """A room that waited too long for its people closes: everyone in it is told and let go
        (the database marks it ``expired``; it is not recovered after a restart)."""
        self.status = "expired"
        self.store.set_status(self.room_id, "expired")
        self.clock.cancel_all()
        message = {
            "type": "error",
            "code": "room_expired",
            "message": "房间等人太久，已关闭 / the room waited too long for its players and closed",
        }
        for conn, _ in self.seating.conns():
            self.post(conn, message)
            self.post(conn, {"type": "left", "room": self.code})
            conn.room, conn.seat, conn.spectator = None, None, False
        self.seating.spectators.clear()
        for s in self.seats:
            s.conns.clear()


class FlowParts:
    """The parts the match flow drives (made by the room before the flow)."""

    __slots__ = ("notes", "pause", "prompts", "seating", "streams", "window")

    def __init__(
        self,
        seating: Seating,
        window: ClaimWindow,
        streams: Streams,
        prompts: Prompts,
        pause: SettlementPause,
        notes: BotNotes,
    ) -> None:
        self.seating = seating
        self.window = window
        self.streams = streams
        self.prompts = prompts
        self.pause = pause
        self.notes = notes
