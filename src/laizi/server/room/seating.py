"""Who sits where: joining, reconnecting, leaving, grace periods and spectators."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from laizi.engine.state import CLAIM, FINAL, ROB, TURN
from laizi.server.matched import SeatClaim
from laizi.server.protocol import Join, ProtocolError
from laizi.server.room.base import Clock, Conn, Hand, Seat, Timer
from laizi.server.store import Store
from laizi.server.table import TableSettings

SPECTATOR_NEWS_MS = 1000
"""Spectators joining and leaving are told to the seated players at most this often (batched)."""


def seat_with_token(seats: Sequence[Seat], token: str) -> int | None:
    """The seat whose rejoin token this is (compared in constant time), or ``None``."""
    return next(
        (i for i, s in enumerate(seats) if s.token and secrets.compare_digest(s.token, token)),
        None,
    )


def _not_kept(seat: int | None) -> ProtocolError:
    """A matched room's seat wanted by someone it is not kept for (``seat``: the one kept for
    the asker, if any: ``params.seat``)."""
    return ProtocolError(
        "seat_reserved",
        "this table was matched: its seats are kept for the players matched to it",
        "这一桌是匹配的，座位只留给匹配到的玩家",
        {} if seat is None else {"seat": seat},
    )


def _kept_for(claim: SeatClaim, conn: Conn) -> bool:
    """Whether a seat kept as ``claim`` says is the connection's: its account's, or (a ladder
    table's) its bot token's."""
    if claim.bot_token is not None:
        return conn.bot is not None and conn.bot.token_id == claim.bot_token
    return conn.account is not None and claim.account == conn.account.id


@dataclass(frozen=True)
class SeatingHooks:
    """What seating asks of the rest of the room."""

    enter: Callable[[Conn], None]
    """The connection is now in this room (``conn.room``)."""
    status: Callable[[], str]
    """The room's status: ``waiting``, ``playing``, ``over`` or ``expired``."""
    catch_up: Callable[[Conn, int | None], None]
    """Send the connection what it missed (``Streams.catch_up``)."""
    start_match: Callable[[], None]
    pausing: Callable[[], bool]
    """Whether the claim window's pause runs (``ClaimWindow.pausing``)."""
    when_open: Callable[[Callable[[], None]], None]
    """Run a function now, or when the claim window's pause ends."""
    set_auto: Callable[[int, bool], None]
    """The seat's 托管 switched (shown to everyone), its prompts asked again (``Prompts``)."""
    seat_gone: Callable[[int], None]
    """The settlement's pause no longer waits for the seat (``SettlementPause``)."""
    after: Callable[[], None]
    """Play on after a change (``MatchFlow.after``): a leaving seat's abandon."""
    forget: Callable[[Conn], None]
    """The connection closed: no catch-up of it waits any more (``Streams``)."""


class Seating:
    """Seats and joining: join, reconnect, leave, disconnect, the grace period, escape; spectators
    and the batched news of them; what the seats and spectators are told."""

    def __init__(
        self,
        room_id: int,
        code: str,
        table: TableSettings,
        store: Store,
        clock: Clock,
        hand: Hand,
        post: Callable[[Conn, dict[str, Any]], None],
        staged: Callable[[], None],
        info: Callable[[], dict[str, Any]],
        reserved: dict[int, SeatClaim],
        hooks: SeatingHooks,
    ) -> None:
        self.room_id = room_id
        self.code = code
        self.table = table
        self.store = store
        self.clock = clock
        self.hand = hand
        self.post = post
        self.staged = staged
        self.info = info
        self.reserved = reserved
        """A matched room's seats kept for an account or a guest's key (``laizi.server.matched``):
        nobody else takes them."""
        self.hooks = hooks
        self.seats = [Seat(bank=table.bank_seconds) for _ in range(4)]
        self.spectators: set[Conn] = set()
        self.comeback: set[int] = set()
        """Seats whose player just reconnected, told to everyone after its catch-up."""
        self.spectator_news: Timer | None = None
        """The pending batched ``room`` message about spectators to the seated players."""

    # -- who is told ----------------------------------------------------------------------
    def conns(self) -> list[tuple[Conn, int | None]]:
        """Every connection with its viewer (a seat, or None: a spectator)."""
        out: list[tuple[Conn, int | None]] = [(c, None) for c in self.spectators]
        for i, s in enumerate(self.seats):
            out += [(c, i) for c in s.conns]
        return out

    def has_people(self) -> bool:
        return any(s.kind == "human" for s in self.seats)

    def tell_all(self, message: dict[str, Any]) -> None:
        if self.clock.live:
            for conn, _ in self.conns():
                self.post(conn, message)

    def broadcast_info(self) -> None:
        """Everyone gets the room's public state (``room``)."""
        if not self.clock.live:
            return
        message = {"type": "room", "room": self.info()}
        for conn, _ in self.conns():
            self.post(conn, message)

    def save_seat(self, seat: int) -> None:
        """Stage the seat's time bank and 托管 flags (a restart resumes them)."""
        if self.clock.live:
            s = self.seats[seat]
            self.store.stage_seat(self.room_id, seat, s.bank, s.auto, s.auto_shown)
            self.staged()

    def start_grace(self, seat: int, seconds: float) -> None:
        """The seat's player is not connected: the seat escapes unless it is back in time."""
        self.seats[seat].grace = self.clock.later(seconds * 1000, self.grace_over, seat)

    def stop_graces(self) -> None:
        for s in self.seats:
            if s.grace is not None:
                s.grace.cancel()
                s.grace = None

    # -- joining and leaving --------------------------------------------------------------
    def join(self, conn: Conn, msg: Join) -> None:
        if conn.room is not None:
            raise ProtocolError("already_joined", "this connection is already in a room")
        conn.minor = max(0, msg.minor)
        if msg.spectate:
            self.spectators.add(conn)
            self.hooks.enter(conn)
            conn.seat, conn.spectator = None, True
            self.post(conn, {"type": "joined", "room": self.code, "seat": None, "token": None})
            self.hooks.catch_up(conn, msg.last_seq)
            self._spectators_changed()
            return
        if msg.token is not None:
            seat = seat_with_token(self.seats, msg.token)
            if seat is None:
                kept = self.kept_for_key(msg.token)
                if kept is not None:  # a guest matched to this room sits down with its key
                    self._sit(conn, kept, msg.name, msg.token)
                    return
                raise ProtocolError("bad_token", "no seat of this room has that token")
            self._check_kept(conn, seat)
            self._attach(conn, seat)
            self.hooks.catch_up(conn, msg.last_seq)
            self.broadcast_info()
            back = seat
            # the catch-up waits for the claim window's pause, and so does the news
            self.hooks.when_open(lambda: self._came_back(back))
            return
        if self.hooks.status() != "waiting":
            raise ProtocolError(
                "room_full", "the match has started: reconnect with your token or spectate"
            )
        free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        humans = sum(s.kind == "human" for s in self.seats)
        if humans >= self.table.players:
            raise ProtocolError("room_full", "every seat for people is taken; spectate instead")
        if msg.seat is not None and not 0 <= msg.seat <= 3:
            raise ProtocolError("bad_seat", "seat must be 0–3")
        if self.reserved:
            seat = self._kept_for_account(conn, msg.seat)
        elif msg.seat is not None:
            seat = msg.seat
        else:
            seat = free[0]
        if seat not in free:
            raise ProtocolError("seat_taken", f"seat {seat} is taken")
        self._sit(conn, seat, msg.name, secrets.token_urlsafe(18))

    def _sit(self, conn: Conn, seat: int, name: str, token: str) -> None:
        """A person takes a free seat: its token, the seat stored, the match started once every
        seat for people is taken."""
        if self.hooks.status() != "waiting" or self.seats[seat].kind != "empty":
            raise ProtocolError("seat_taken", f"seat {seat} is taken")
        name = (name or f"player {seat}")[:32]
        self.seats[seat] = Seat(
            kind="human",
            name=name,
            token=token,
            bank=self.table.bank_seconds,
            guest=conn.account is None,
        )
        self.store.set_seat(self.room_id, seat, "human", name, token)
        self._attach(conn, seat)
        self.hooks.catch_up(conn, None)
        self.broadcast_info()
        if sum(s.kind == "human" for s in self.seats) == self.table.players:
            self.hooks.start_match()

    # -- a matched room's kept seats -------------------------------------------------------
    def kept_for_key(self, key: str) -> int | None:
        """The seat kept for the guest whose key this is (compared in constant time)."""
        return next(
            (
                seat
                for seat, claim in self.reserved.items()
                if claim.guest_key is not None and secrets.compare_digest(claim.guest_key, key)
            ),
            None,
        )

    def _kept_for_account(self, conn: Conn, wanted: int | None) -> int:
        """The seat kept for the connection's account or, at a ladder table, its bot token (the
        one it asked for must be it)."""
        seat = next(
            (seat for seat, claim in self.reserved.items() if _kept_for(claim, conn)),
            None,
        )
        if seat is None or (wanted is not None and wanted != seat):
            raise _not_kept(seat)
        return seat

    def _check_kept(self, conn: Conn, seat: int) -> None:
        """A seat kept for an account (a bot token) is played by that account (that bot) only,
        even with its token."""
        claim = self.reserved.get(seat)
        if claim is None or (claim.account is None and claim.bot_token is None):
            return
        if not _kept_for(claim, conn):
            raise _not_kept(None)

    def _attach(self, conn: Conn, seat: int) -> None:
        s = self.seats[seat]
        back = not s.conns and s.kind == "human" and self.hooks.status() == "playing"
        s.conns.add(conn)
        self.hooks.enter(conn)
        conn.seat = seat
        if s.grace is not None:
            s.grace.cancel()
            s.grace = None
        self.post(conn, {"type": "joined", "room": self.code, "seat": seat, "token": s.token})
        if back and not s.leaving:
            self.comeback.add(seat)

    def _came_back(self, seat: int) -> None:
        """After the returning player's catch-up: everyone is told, and the player takes the seat
        back (托管 switched on by the disconnect goes off)."""
        if seat not in self.comeback:
            return
        self.comeback.discard(seat)
        s = self.seats[seat]
        self.tell_all({"type": "back", "seat": seat})
        if s.away_auto:
            s.away_auto = False
            self.hooks.set_auto(seat, False)

    def disconnect(self, conn: Conn) -> None:
        self.hooks.forget(conn)
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
        status = self.hooks.status()
        if status == "waiting":
            self.seats[seat] = Seat(bank=self.table.bank_seconds)
            self.store.clear_seat(self.room_id, seat)
        elif status == "playing" and s.grace is None and not s.leaving:
            grace = self.table.escape_grace_seconds
            self.start_grace(seat, grace)
            self._away(seat, grace)
        self.broadcast_info()

    def _away(self, seat: int, grace: float) -> None:
        """The seat's last connection closed mid-match: everyone is told (with the time to the
        escape), 托管 plays it at once, and a settlement's pause no longer waits for it."""
        s = self.seats[seat]
        self.tell_all({"type": "away", "seat": seat, "escape_in": grace})
        if not s.auto:
            # 托管 from the next decision on; a decision already asked keeps the player's own
            # clock (a page reload within it finds the seat's turn as it left it).
            s.away_auto = True
            s.auto = True
            s.auto_shown = True
            self.save_seat(seat)
            self.broadcast_info()
        self.hooks.seat_gone(seat)

    def _spectators_changed(self) -> None:
        """Spectators come and go in crowds: one ``room`` message to the seated players (not to
        every spectator) at most every :data:`SPECTATOR_NEWS_MS`; spectators see the new count
        with the next change of the room."""
        live = self.clock.live
        if live and self.spectator_news is None and self.hooks.status() != "expired":
            self.spectator_news = self.clock.later(SPECTATOR_NEWS_MS, self._tell_seats)

    def _tell_seats(self) -> None:
        self.spectator_news = None
        message = {"type": "room", "room": self.info()}
        for s in self.seats:
            for conn in s.conns:
                self.post(conn, message)

    def grace_over(self, seat: int) -> None:
        s = self.seats[seat]
        s.grace = None
        if s.conns or self.hooks.status() != "playing":
            return
        self._escape(seat)

    def leave(self, conn: Conn) -> None:
        """Leaving: a spectator just goes; a player escapes (abandon) once the match is on."""
        seat = conn.seat
        if seat is not None and self.hooks.status() == "playing":
            self._escape(seat)
        if conn in self.spectators or seat is not None:
            self.disconnect(conn)
        conn.room, conn.seat, conn.spectator = None, None, False
        self.post(conn, {"type": "left", "room": self.code})

    def _escape(self, seat: int) -> None:
        """The seat's player left (or stayed away past the grace): a settlement's pause no longer
        waits for it, and the seat abandons (逃跑) — but never in the middle of a decision another
        seat may win from: once that is resolved (:meth:`escape_waits`; ``MatchFlow.after``
        plays the abandon, and meanwhile passes the seat's own claims)."""
        s = self.seats[seat]
        again, s.leaving = s.leaving, True
        self.hooks.seat_gone(seat)
        state = self.hand.state
        if state is None or state.over:
            return  # between hands: the next deal ends in the abandon
        pausing = self.hooks.pausing()
        if not again and not pausing and state.phase in (TURN, FINAL) and state.turn != seat:
            s.escape_after = state.events  # another seat's turn is being decided
        self.hooks.after()

    def escape_waits(self, seat: int) -> bool:
        """Whether the seat's abandon must wait (it left): a decision another seat may win from
        is in progress — a claim window (to rob a kong too) with its pause, or the turn (or 海底
        draw) of another seat that was being decided when the seat left.  Always, whether or not
        anyone may win there (the wait tells nothing), and never longer than the table's clocks
        give those seats: an escape never cancels a win that was on offer (docs/server.md)."""
        state = self.hand.state
        if state is None or state.over:
            return False
        s = self.seats[seat]
        if s.escape_after is not None and s.escape_after != state.events:
            s.escape_after = None  # that turn was decided
        return self.hooks.pausing() or state.phase in (CLAIM, ROB) or s.escape_after is not None
