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
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from laizi.bots import Bot
from laizi.engine import (
    Action,
    ActionError,
    IllegalAction,
    Match,
    apply,
    legal_actions,
    make_ruleset,
    seat_event,
    view,
)
from laizi.engine.events import number
from laizi.engine.record import action_of
from laizi.engine.state import FINAL, TURN, HandState
from laizi.engine.view import as_streamed
from laizi.engine.wall import parse_contributions
from laizi.rules import Settings
from laizi.server.entropy import PendingDeal
from laizi.server.protocol import Act, Join, ProtocolError, Ready
from laizi.server.seats import bot_player, safe_default
from laizi.server.store import Store
from laizi.server.table import TableSettings

__all__ = ["Conn", "Room"]

log = logging.getLogger("laizi.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Join codes avoid look-alikes (no I/1, O/0)."""
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)
SPECTATOR_NEWS_MS = 1000
"""Spectators joining and leaving are told to the seated players at most this often (batched)."""


def new_code(length: int = 6) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


class Conn:
    """One client connection: what it is (a seat, a spectator, nothing yet) and its outbox."""

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        send_many: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.send = send
        self.send_many = send_many or (lambda messages: list(map(send, messages)) and None)
        """Several messages at once (one frame)."""
        self.room: Room | None = None
        self.seat: int | None = None
        self.spectator = False
        self.account: Any = None
        """The logged-in account (``laizi.server.accounts.Account``, issue 8); None: a guest."""
        self.minor = 0
        """The client's minor protocol version (from ``join``): 1 contributes to the deals."""


class Timer:
    """One cancellable timer of a room (a prompt's clock, a grace period, the next deal)."""

    __slots__ = ("args", "fn", "handle", "room")

    def __init__(self, room: Room, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        self.room = room
        self.fn = fn
        self.args = args
        self.handle: asyncio.Handle | None = None

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.room.timers.discard(self)

    def fire(self) -> None:
        self.room.timers.discard(self)
        try:
            self.fn(*self.args)
        except Exception:  # a bug must not take the server down: log it, keep serving
            log.exception("room %s: timer failed", self.room.code)


@dataclass
class Seat:
    kind: str = "empty"  # "human", "bot" or "empty"
    name: str = ""
    token: str | None = None
    bot: Bot | None = None
    conns: set[Conn] = field(default_factory=set)
    auto: bool = False
    """托管: the server plays the safe default for this seat until its player acts again."""
    auto_shown: bool = False
    """What the others were told of ``auto``: a timeout in a claim window is only shown at the
    seat's next turn (showing it at once would tell that the seat could claim)."""
    bank: float = 0.0
    grace: Timer | None = None
    leaving: bool = False
    """The player left (or the grace period ran out): the seat escapes at the first chance."""
    guest: bool = False
    """A person without an account: everyone is shown so (``guest`` in the room's seats)."""


@dataclass
class Prompt:
    id: int
    seat: int
    legal: list[Action]
    started: float
    handle: Timer | None = None


class Room:
    """One table: its rules, table settings, seats, match and streams."""

    def __init__(
        self,
        store: Store,
        room_id: int,
        code: str,
        rules: Settings,
        table: TableSettings,
        post: Callable[[Conn, dict[str, Any]], None] | None = None,
        staged: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.post: Callable[[Conn, dict[str, Any]], None] = post or (lambda c, m: c.send(m))
        """How a message leaves: the hub holds it until the database has what it tells."""
        self.staged: Callable[[], None] = staged or store.commit
        self.on_over: Callable[[Room], None] | None = None
        """Called once the match is over (the hub forgets the room a while later)."""
        """Called after an action's events are staged: the hub commits them soon."""
        self.id = room_id
        self.code = code
        self.rules = rules
        self.ruleset = make_ruleset(rules)
        self.table = table
        self.status = "waiting"
        self.seats = [Seat(bank=table.bank_seconds) for _ in range(4)]
        self.spectators: set[Conn] = set()
        self.match = Match(self.ruleset, dealer=0)
        self.state: HandState | None = None
        self.hand_id: int | None = None
        self.hand_events: list[dict[str, Any]] = []
        self.streams: dict[int | None, list[dict[str, Any]]] = {v: [] for v in VIEWERS}
        self.hand_starts: dict[int | None, int] = {v: 0 for v in VIEWERS}
        """Each viewer's sequence number before the current hand."""
        self.base: dict[int | None, int] = {v: 0 for v in VIEWERS}
        """Each viewer's sequence number before the first event kept in memory: the current
        and the previous hand are kept (an older ``last_seq`` gets a snapshot)."""
        self.seq: dict[int | None, int] = {v: 0 for v in VIEWERS}
        self.prompts: dict[int, Prompt] = {}
        self.timers: set[Timer] = set()
        self.live = True
        """False while being rebuilt from the database: nothing is sent, nothing scheduled."""
        self.on_match_end: Callable[[Room], None] | None = None
        """Called once the match is over (issue 8 books points and ratings there)."""
        self.gate: Timer | None = None
        """The claim window's pause after a discard (tables with people): until it ends, events
        wait in ``held``, the next turn is not asked and bots do not claim."""
        self.held: list[dict[str, Any]] = []
        self.after_gate: list[Callable[[], None]] = []
        self.pending: PendingDeal | None = None
        """The next deal, committed to and waiting for the players' contributions."""
        self.spectator_news: Timer | None = None
        """The pending batched ``room`` message about spectators to the seated players."""

    # -- the outside world -----------------------------------------------------------------------
    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def _later(self, delay_ms: float, fn: Callable[..., None], *args: Any) -> Timer:
        timer = Timer(self, fn, args)
        timer.handle = self.loop.call_later(delay_ms / 1000, timer.fire)
        self.timers.add(timer)
        return timer

    def info(self) -> dict[str, Any]:
        """The public state of the room (no hidden information)."""
        return {
            "code": self.code,
            "link": f"/r/{self.code}",
            "status": self.status,
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
        }

    @property
    def finished_hands(self) -> int:
        return self.match.hands_played

    def _conns(self) -> list[tuple[Conn, int | None]]:
        out: list[tuple[Conn, int | None]] = [(c, None) for c in self.spectators]
        for i, s in enumerate(self.seats):
            out += [(c, i) for c in s.conns]
        return out

    def _broadcast_info(self) -> None:
        if not self.live:
            return
        message = {"type": "room", "room": self.info()}
        for conn, _ in self._conns():
            self.post(conn, message)

    # -- joining and leaving -----------------------------------------------------------------------
    def join(self, conn: Conn, msg: Join) -> None:
        if conn.room is not None:
            raise ProtocolError("already_joined", "this connection is already in a room")
        conn.minor = max(0, msg.minor)
        if msg.spectate:
            self.spectators.add(conn)
            conn.room, conn.seat, conn.spectator = self, None, True
            self.post(conn, {"type": "joined", "room": self.code, "seat": None, "token": None})
            self.catch_up(conn, msg.last_seq)
            self._spectators_changed()
            return
        if msg.token is not None:
            seat = next(
                (
                    i
                    for i, s in enumerate(self.seats)
                    if s.token and secrets.compare_digest(s.token, msg.token)
                ),
                None,
            )
            if seat is None:
                raise ProtocolError("bad_token", "no seat of this room has that token")
            self._attach(conn, seat)
            self.catch_up(conn, msg.last_seq)
            self._broadcast_info()
            return
        if self.status != "waiting":
            raise ProtocolError(
                "room_full", "the match has started: reconnect with your token or spectate"
            )
        free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        humans = sum(s.kind == "human" for s in self.seats)
        if humans >= self.table.players:
            raise ProtocolError("room_full", "every seat for people is taken; spectate instead")
        if msg.seat is not None:
            if not 0 <= msg.seat <= 3:
                raise ProtocolError("bad_seat", "seat must be 0–3")
            if msg.seat not in free:
                raise ProtocolError("seat_taken", f"seat {msg.seat} is taken")
            seat = msg.seat
        else:
            seat = free[0]
        name = (msg.name or f"player {seat}")[:32]
        token = secrets.token_urlsafe(18)
        self.seats[seat] = Seat(
            kind="human",
            name=name,
            token=token,
            bank=self.table.bank_seconds,
            guest=conn.account is None,
        )
        self.store.set_seat(self.id, seat, "human", name, token)
        self._attach(conn, seat)
        self.catch_up(conn, None)
        self._broadcast_info()
        if sum(s.kind == "human" for s in self.seats) == self.table.players:
            self.start_match()

    def _attach(self, conn: Conn, seat: int) -> None:
        s = self.seats[seat]
        s.conns.add(conn)
        conn.room, conn.seat = self, seat
        if s.grace is not None:
            s.grace.cancel()
            s.grace = None
        self.post(conn, {"type": "joined", "room": self.code, "seat": seat, "token": s.token})

    def catch_up(self, conn: Conn, last_seq: int | None) -> None:
        """The missed events (or a snapshot), then the room, one's 托管 state, a pending
        ``commit`` and any pending prompt."""
        if self.gate is not None:  # the streams are behind the state until the pause ends
            self.after_gate.append(lambda: self.catch_up(conn, last_seq))
            return
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

    def disconnect(self, conn: Conn) -> None:
        if conn.spectator:
            self.spectators.discard(conn)
            self._spectators_changed()
            return
        seat = conn.seat
        if seat is None:
            return
        s = self.seats[seat]
        s.conns.discard(conn)
        if s.conns or s.kind != "human":
            return
        if self.status == "waiting":
            self.seats[seat] = Seat(bank=self.table.bank_seconds)
            self.store.clear_seat(self.id, seat)
        elif self.status == "playing" and s.grace is None and not s.leaving:
            s.grace = self._later(self.table.grace_seconds * 1000, self._grace_over, seat)
        self._broadcast_info()

    def _spectators_changed(self) -> None:
        """Spectators come and go in crowds: one ``room`` message to the seated players (not to
        every spectator) at most every :data:`SPECTATOR_NEWS_MS`; spectators see the new count
        with the next change of the room."""
        if self.live and self.spectator_news is None and self.status != "expired":
            self.spectator_news = self._later(SPECTATOR_NEWS_MS, self._tell_seats)

    def _tell_seats(self) -> None:
        self.spectator_news = None
        message = {"type": "room", "room": self.info()}
        for s in self.seats:
            for conn in s.conns:
                self.post(conn, message)

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

    def _grace_over(self, seat: int) -> None:
        s = self.seats[seat]
        s.grace = None
        if s.conns or self.status != "playing":
            return
        self._escape(seat)

    def leave(self, conn: Conn) -> None:
        """Leaving: a spectator just goes; a player escapes (abandon) once the match is on."""
        seat = conn.seat
        if seat is not None and self.status == "playing":
            self._escape(seat)
        if conn in self.spectators or seat is not None:
            self.disconnect(conn)
        conn.room, conn.seat, conn.spectator = None, None, False
        self.post(conn, {"type": "left", "room": self.code})

    def _escape(self, seat: int) -> None:
        self.seats[seat].leaving = True
        if self.state is not None and not self.state.over:
            self._play(seat, Action(seat, "abandon"))

    # -- the match -------------------------------------------------------------------------------
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
                s.grace = self._later(self.table.grace_seconds * 1000, self._grace_over, i)
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
        """The pause is over (as long after every discard, claimable or not): bots and seats on
        auto-play decide their claims now, then play goes on."""
        self.gate = None
        self._release()
        for seat, prompt in list(self.prompts.items()):
            if prompt.handle is None and self.prompts.get(seat) is prompt:
                self._auto_move(seat, prompt.id)
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
                    if seat == v:
                        self.post(conn, message)

    def act(self, conn: Conn, msg: Act) -> None:
        seat = conn.seat
        if seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators can't act")
        if msg.action.type == "abandon":
            self.leave(conn)
            return
        fields: dict[str, Any] = {"seat": seat, "type": msg.action.type}
        if msg.action.tile is not None:
            fields["tile"] = msg.action.tile
        if msg.action.tiles is not None:
            fields["tiles"] = msg.action.tiles
        try:
            action = Action.from_json(fields)
        except ActionError as error:
            raise ProtocolError("bad_action", str(error)) from None
        prompt = self.prompts.get(seat)
        if prompt is None:
            raise ProtocolError("not_your_turn", "there is no decision pending for your seat")
        if prompt.id != msg.prompt:
            raise ProtocolError(
                "stale_prompt", f"prompt {msg.prompt} is not the pending one ({prompt.id})"
            )
        if action not in prompt.legal:
            legal = ", ".join(a.notation() for a in prompt.legal)
            raise ProtocolError("illegal", f"{action.notation()} is not legal now; legal: {legal}")
        s = self.seats[seat]
        used = self.loop.time() - prompt.started
        over = used - self.table.action_seconds
        if over > 0 and s.bank > 0:
            s.bank = max(0.0, s.bank - over)
            self._save_seat(seat)
        self._play(seat, action)

    def set_auto(self, conn: Conn, on: bool) -> None:
        if conn.seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators have no seat to put on auto-play")
        self._set_auto(conn.seat, on, shown=True)
        self._refresh_prompts()

    def _set_auto(self, seat: int, on: bool, shown: bool = True) -> None:
        s = self.seats[seat]
        changed = s.auto != on
        s.auto = on
        prompt = self.prompts.get(seat)
        if changed and prompt is not None:
            # The pending decision passes between the player and the auto-player; its clock
            # runs on from when it was asked (never a fresh prompt, never a fresh clock).
            self._schedule(prompt)
        if shown and s.auto_shown != on:
            s.auto_shown = on
            self._broadcast_info()
        self._save_seat(seat)
        for conn in s.conns:
            self.post(conn, {"type": "auto", "on": on})

    def _save_seat(self, seat: int) -> None:
        """Stage the seat's time bank and 托管 flags (a restart resumes them)."""
        if self.live:
            s = self.seats[seat]
            self.store.stage_seat(self.id, seat, s.bank, s.auto, s.auto_shown)
            self.staged()

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
        if state.over:
            self._release()
            for prompt in self.prompts.values():
                if prompt.handle is not None:
                    prompt.handle.cancel()
            self.prompts.clear()
            if self.match.current is state:
                self.match.finish()
                if self.match.hands_played >= self.table.hands:
                    self.match.over = True
                if self.match.over:
                    self._end_match()
                elif self.live:
                    self._broadcast_info()
                    self._later(self.table.between_hands_ms, self._deal)
            return
        if any(s.leaving for s in self.seats):
            seat = next(i for i, s in enumerate(self.seats) if s.leaving)
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
                self.on_match_end(self)
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
            self.on_over(self)

    # -- prompts and timers ---------------------------------------------------------------------
    def _refresh_prompts(self) -> None:
        state = self.state
        if state is None or state.over or not self.live:
            return
        deciding = state.to_act()
        for seat in list(self.prompts):
            if seat not in deciding:
                prompt = self.prompts.pop(seat)
                if prompt.handle is not None:
                    prompt.handle.cancel()
        for seat in deciding:
            if seat in self.prompts:
                continue
            if self.gate is not None and state.phase in (TURN, FINAL):
                continue  # the next turn is asked when the claim window's pause ends
            s = self.seats[seat]
            legal = legal_actions(state, seat)
            # The id is how many events this seat has been shown: it depends on nothing the
            # seat may not see (a count of every seat's events told who could claim).
            prompt = Prompt(self.seq[seat], seat, legal, self.loop.time())
            self.prompts[seat] = prompt
            if s.auto and state.phase in (TURN, FINAL) and not s.auto_shown:
                s.auto_shown = True
                self._save_seat(seat)
                self._broadcast_info()
            self._schedule(prompt)

    def _schedule(self, prompt: Prompt) -> None:
        """Run a prompt's clock: the auto-player's delay, or the player's time — counted from
        when the prompt was made, so asking again never gives more time."""
        if prompt.handle is not None:
            prompt.handle.cancel()
            prompt.handle = None
        seat = prompt.seat
        s = self.seats[seat]
        if s.kind == "bot" or s.auto:
            if self.gate is None:
                prompt.handle = self._later(
                    self.table.bot_delay_ms, self._auto_move, seat, prompt.id
                )
            return  # else decided when the claim window's pause ends (_open_gate)
        deadline = prompt.started + self.table.action_seconds + s.bank
        left = max(0.0, deadline - self.loop.time())
        prompt.handle = self._later(left * 1000, self._timeout, seat, prompt.id)
        self._send_prompt(prompt)

    def _send_prompt(self, prompt: Prompt) -> None:
        s = self.seats[prompt.seat]
        if s.auto or s.kind != "human":
            return
        state = self.state
        message = {
            "type": "prompt",
            "id": prompt.id,
            "phase": None if state is None else state.phase,
            "legal": [_action_json(a) for a in prompt.legal],
            "seconds": self.table.action_seconds,
            "bank": round(s.bank, 3),
            "elapsed": round(self.loop.time() - prompt.started, 3),
        }
        for conn in s.conns:
            self.post(conn, message)

    def _auto_move(self, seat: int, pid: int) -> None:
        prompt = self.prompts.get(seat)
        state = self.state
        if prompt is None or prompt.id != pid or state is None:
            return
        s = self.seats[seat]
        seat_view = view(state, seat)
        if s.kind == "bot" and s.bot is not None:
            action = s.bot.act(seat_view, prompt.legal)
        else:
            action = safe_default(seat_view, prompt.legal)
        self._play(seat, action)

    def _timeout(self, seat: int, pid: int) -> None:
        prompt = self.prompts.get(seat)
        state = self.state
        if prompt is None or prompt.id != pid or state is None:
            return
        s = self.seats[seat]
        s.bank = 0.0
        on_turn = state.phase in (TURN, FINAL)
        self._set_auto(seat, True, shown=on_turn)
        action = safe_default(view(state, seat), prompt.legal)
        self._play(seat, action)

    # -- recovery ----------------------------------------------------------------------------------
    def rebuild(self, hands: list[Any]) -> None:
        """Replay the stored hands (seeds and decisions) to exactly where the table was."""
        self.live = False
        try:
            for row in hands:
                start = row.events[0] if row.events else {}
                state, first = self.match.deal(
                    row.seed, parse_contributions(start.get("contributions"))
                )
                if _canonical(first) != _canonical(row.events[: len(first)]):
                    raise RuntimeError(f"hand {row.number}: the deal does not match the log")
                self.hand_id = row.id
                self._begin_hand(state, first)
                produced = list(first)
                for event in row.events[len(first) :]:
                    action = action_of(event)
                    if action is None:
                        continue
                    events = apply(state, action)
                    produced += events
                    self._emit(events)
                if _canonical(produced) != _canonical(row.events):
                    raise RuntimeError(f"hand {row.number}: replay does not match the log")
                if state.over:
                    self._after()
        finally:
            self.live = True

    def resume(self) -> None:
        """After :meth:`rebuild` on a live loop: timers, bots, grace periods start again."""
        if self.status != "playing":
            return
        for i, s in enumerate(self.seats):
            if s.kind == "bot":
                s.bot = bot_player(self.table.bot_level, self.rules)
            elif s.kind == "human" and not s.conns:
                s.grace = self._later(self.table.grace_seconds * 1000, self._grace_over, i)
        if self.state is None or self.state.over:
            self._later(self.table.between_hands_ms, self._deal)
        else:
            self._refresh_prompts()


def _action_json(action: Action) -> dict[str, Any]:
    """An action as a prompt offers it: the engine's JSON without the seat."""
    out = action.to_json()
    del out["seat"]
    return out


def _canonical(events: list[dict[str, Any]]) -> str:
    return json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
