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

The room is one class, :class:`Room`, that owns its parts and wires them: each part has a narrow
constructor (the values and the other parts it uses) and a small frozen set of hooks for what it
asks of parts made after it.  :class:`~.base.Clock` (timers, ``live``) and :class:`~.base.Hand`
(the hand in play) are values; :class:`~.seating.Seating` (seats, spectators, joining, leaving,
escapes), :class:`~.claims.ClaimWindow` (the claim window's pause, what it holds and the claims
decided during it), :class:`~.streams.Streams` (numbered streams, catch-up),
:class:`~.prompts.Prompts` (who decides, their clocks, 托管), :class:`~.hints.Hints`,
:class:`~.pause.SettlementPause`, :class:`laizi.server.bot_notes.BotNotes`,
:class:`~.match.MatchFlow` (deal, play, after each change, the match's end) and
:class:`~.recovery.Recovery` (rebuild after a restart).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from laizi.engine import Match, make_ruleset
from laizi.engine.events import number
from laizi.engine.state import HandState
from laizi.numbers import number_text
from laizi.rules import Settings
from laizi.server.bot_notes import BotNotes
from laizi.server.matched import SeatClaim
from laizi.server.protocol import Act, Join, Ready
from laizi.server.room.base import (
    CODE_ALPHABET,
    VIEWERS,
    Clock,
    Conn,
    Hand,
    Prompt,
    Seat,
    Timer,
    new_code,
)
from laizi.server.room.chat import TableChat
from laizi.server.room.claims import ClaimHooks, ClaimWindow
from laizi.server.room.hints import Hints
from laizi.server.room.match import FlowParts, MatchFlow
from laizi.server.room.pause import SettlementPause
from laizi.server.room.prompts import PromptHooks, Prompts
from laizi.server.room.recovery import Recovery
from laizi.server.room.seating import SPECTATOR_NEWS_MS, Seating, SeatingHooks
from laizi.server.room.streams import CatchUpHooks, Streams
from laizi.server.store import Store
from laizi.server.table import TableSettings

__all__ = [
    "CODE_ALPHABET",
    "SPECTATOR_NEWS_MS",
    "VIEWERS",
    "Conn",
    "Prompt",
    "Room",
    "Seat",
    "Timer",
    "new_code",
]


class Room:
    """One table: its rules, table settings, seats, match and streams — each kept by one part."""

    def __init__(
        self,
        store: Store,
        room_id: int,
        code: str,
        rules: Settings,
        table: TableSettings,
        post: Callable[[Conn, dict[str, Any]], None] | None = None,
        staged: Callable[[], None] | None = None,
        kind: str = "friendly",
        reserved: Mapping[int, SeatClaim] | None = None,
    ) -> None:
        """``kind``: ``friendly``, ``casual`` or ``ranked`` (``laizi.server.matched``: only a
        ranked room's match moves ranks); ``reserved``: a matched room's seats kept for the
        accounts and guests matched to it."""
        self.store = store
        self.kind = kind
        self.post: Callable[[Conn, dict[str, Any]], None] = post or (lambda c, m: c.send(m))
        """How a message leaves: the hub holds it until the database has what it tells."""
        self.staged: Callable[[], None] = staged or store.commit
        """Called after an action's events are staged: the hub commits them soon."""
        self.on_over: Callable[[Room], None] | None = None
        """Called once the match is over (the hub forgets the room a while later)."""
        self.on_match_end: Callable[[Room], None] | None = None
        """Called once the match is over (``laizi.server.booking`` books points and ratings)."""
        self.id = room_id
        self.code = code
        self.rules = rules
        self.ruleset = make_ruleset(rules)
        self.table = table
        self.match = Match(self.ruleset, dealer=0)
        self.clock = Clock(code)
        self.hand = Hand()
        post = self.post
        # The parts, each made with what it uses; a hook names a part made after it.
        self.notes = BotNotes(
            table.explain_bots,
            live=lambda: self.clock.live,
            hand=lambda: self.match.hands_played,
            seq=lambda: len(self.hand.events),
            tell=self._tell_everyone,
        )
        self.seating = Seating(
            room_id,
            code,
            table,
            store,
            self.clock,
            self.hand,
            post,
            self.staged,
            self.info,
            dict(reserved or {}),
            SeatingHooks(
                enter=self._enter,
                status=lambda: self.flow.status,
                catch_up=lambda conn, last_seq: self.streams.catch_up(conn, last_seq),
                start_match=lambda: self.flow.start_match(),
                pausing=lambda: self.claims.pausing(),
                when_open=lambda fn: self.claims.when_open(fn),
                set_auto=lambda seat, on: self.prompting.switch(seat, on),
                seat_gone=lambda seat: self.settlement.seat_gone(seat),
                after=lambda: self.flow.after(),
                forget=lambda conn: self.streams.forget(conn),
            ),
        )
        self.talk = TableChat(self.seating)
        """Quick chat (快捷语): a seated person's phrase to the table."""
        self.claims = ClaimWindow(
            code,
            table,
            self.clock,
            self.hand,
            self.seating.seats,
            ClaimHooks(
                stream=lambda events: self.streams.stream(events),
                pending=lambda seat: self.prompting.pending(seat),
                all_pending=lambda: self.prompting.all_pending(),
                play=lambda seat, action: self.flow.play(seat, action),
                auto_move=lambda seat, pid: self.prompting.auto_move(seat, pid),
                after=lambda: self.flow.after(),
                take_note=self.notes.take,
            ),
        )
        self.streams = Streams(
            self.clock,
            self.hand,
            self.seating,
            self.claims,
            post,
            CatchUpHooks(
                info=self.info,
                pending_deal=lambda conn: self.flow.tell_pending(conn),
                prompt=lambda seat: self.prompting.resend(seat),
                hints=lambda conn: self.hints.resend(conn),
                pause=lambda conn: self.settlement.resend(conn),
                shown=lambda events: self.hints.shown(events),
            ),
        )
        self.hints = Hints(
            self.clock,
            self.hand,
            self.seating.seats,
            seq=lambda seat: self.streams.seq[seat],
            asked=lambda seat: self.prompting.asked(seat),
            post=post,
        )
        self.prompting = Prompts(
            table,
            self.clock,
            self.hand,
            self.seating,
            self.claims,
            post,
            PromptHooks(
                play=lambda seat, action: self.flow.play(seat, action),
                leave=self.seating.leave,
                seq=lambda seat: self.streams.seq[seat],
                update_hints=self.hints.update,
                take_note=self.notes.take,
            ),
        )
        self.settlement = SettlementPause(
            table,
            self.clock,
            self.seating,
            post,
            hands_played=lambda: self.match.hands_played,
            deal=lambda: self.flow.deal(),
        )
        self.flow = MatchFlow(
            room_id,
            code,
            rules,
            table,
            store,
            self.staged,
            post,
            self.clock,
            self.match,
            self.hand,
            FlowParts(
                self.seating, self.claims, self.streams, self.prompting, self.settlement, self.notes
            ),
            ended=self._match_ended,
            over=self._over,
        )
        self.recovery = Recovery(
            rules,
            table,
            self.clock,
            self.hand,
            self.seating,
            self.streams,
            self.prompting,
            self.flow,
        )

    # -- the wiring's own hooks ------------------------------------------------------------
    def _enter(self, conn: Conn) -> None:
        conn.room = self

    def _tell_everyone(self, messages: list[dict[str, Any]]) -> None:
        for conn, _seat in self.seating.conns():
            for message in messages:
                self.post(conn, message)

    def _match_ended(self) -> None:
        if self.on_match_end is not None:
            self.on_match_end(self)

    def _over(self) -> None:
        if self.on_over is not None:
            self.on_over(self)

    # -- what the hub, the API and the cluster use -----------------------------------------
    @property
    def status(self) -> str:
        """``waiting``, ``playing``, ``over`` or ``expired``."""
        return self.flow.status

    @status.setter
    def status(self, value: str) -> None:
        self.flow.status = value

    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def spectators(self) -> set[Conn]:
        return self.seating.spectators

    @property
    def state(self) -> HandState | None:
        """The hand in play (or the last one played)."""
        return self.hand.state

    @property
    def hand_events(self) -> list[dict[str, Any]]:
        return self.hand.events

    @property
    def prompts(self) -> dict[int, Prompt]:
        """Per seat: the decision it is asked for."""
        return self.prompting.prompts

    @property
    def live(self) -> bool:
        return self.clock.live

    @property
    def finished_hands(self) -> int:
        return self.match.hands_played

    def conns(self) -> list[tuple[Conn, int | None]]:
        """Every connection in the room with its viewer (a seat; None: a spectator)."""
        return self.seating.conns()

    def info(self) -> dict[str, Any]:
        """The public state of the room (no hidden information)."""
        return {
            "code": self.code,
            "link": f"/r/{self.code}",
            "status": self.status,
            "kind": self.kind,
            "rules": self.rules.to_json(),
            "rules_hash": self.rules.short_hash(),
            "table": self.table.to_json(),
            "seats": [
                {
                    "seat": i,
                    "kind": s.kind,
                    "name": s.name,
                    "connected": bool(s.conns) if s.kind == "human" else s.kind == "bot",
                    "auto": s.auto_shown,
                    "guest": s.guest,
                }
                for i, s in enumerate(self.seats)
            ],
            "hands_played": self.match.hands_played,
            "totals": [number(x) for x in self.match.totals],
            "dealer": self.match.dealer,
            "spectators": len(self.spectators),
            "records": [f"/api/rooms/{self.code}/hands/{n}" for n in range(self.finished_hands)],
            "escape": self.escape_terms(),
        }

    def escape_terms(self) -> dict[str, str | None]:
        """What an escape (逃跑) costs at this table, from the ruleset's own settlement of one:
        ``pays`` (the escaper's payment) and ``each`` (what each of the three others gets when
        they share it alike; None when they don't), exact (``400/3``)."""
        payments = self.ruleset.escape_payments(0)
        others = set(payments[1:])
        return {
            "pays": number_text(-payments[0]),
            "each": number_text(others.pop()) if len(others) == 1 else None,
        }

    def kept_seat(self, key: str) -> int | None:
        """The seat a matched room keeps for the guest whose key this is (None: no such)."""
        return self.seating.kept_for_key(key)

    def halt(self) -> None:
        """Stop the room's clocks: nothing of it is played, sent or written any more in this
        process (it is stopping, or another process took the room)."""
        self.clock.halt()

    # -- a client's messages (``Hub.handle``) ----------------------------------------------
    def join(self, conn: Conn, msg: Join) -> None:
        self.seating.join(conn, msg)

    def leave(self, conn: Conn) -> None:
        self.seating.leave(conn)

    def disconnect(self, conn: Conn) -> None:
        self.seating.disconnect(conn)

    def act(self, conn: Conn, msg: Act) -> None:
        """A seat's decision on its prompt (``Prompts.act`` checks it, ``MatchFlow.play``)."""
        self.prompting.act(conn, msg)

    def set_auto(self, conn: Conn, on: bool) -> None:
        self.prompting.set_auto(conn, on)

    def catch_up(self, conn: Conn, last_seq: int | None) -> None:
        self.streams.catch_up(conn, last_seq)

    def ready(self, conn: Conn, msg: Ready) -> None:
        self.flow.ready(conn, msg)

    def continue_(self, conn: Conn) -> None:
        self.settlement.continue_(conn)

    def chat(self, conn: Conn, phrase: str, phrases: int, seconds: float) -> None:
        """快捷语: the seat's phrase to everyone at the table (``TableChat.say`` checks it)."""
        self.talk.say(conn, phrase, phrases, seconds)

    # -- the room's life -------------------------------------------------------------------
    def start_match(self) -> None:
        self.flow.start_match()

    def expire(self) -> None:
        self.flow.expire()

    def rebuild(self, hands: list[Any]) -> None:
        """Replay the stored hands after a restart (:class:`~.recovery.Recovery`)."""
        self.recovery.rebuild(hands)

    def resume(self) -> None:
        self.recovery.resume()
