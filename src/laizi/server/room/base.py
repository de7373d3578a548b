"""A room's values (connections, seats, timers, prompts) and the state every concern shares."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from laizi.bots import Bot
from laizi.engine import Action, Match, make_ruleset
from laizi.engine.events import number
from laizi.engine.state import HandState
from laizi.rules import Settings
from laizi.server.entropy import PendingDeal
from laizi.server.store import Store
from laizi.server.table import TableSettings

if TYPE_CHECKING:
    from laizi.server.room import Room

log = logging.getLogger("laizi.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Join codes avoid look-alikes (no I/1, O/0)."""
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)


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
        """The logged-in account (``laizi.server.accounts.Account``); None: a guest."""
        self.minor = 0
        """The client's minor protocol version (from ``join``): 1 contributes to the deals."""


class Timer:
    """One cancellable timer of a room (a prompt's clock, a grace period, the next deal)."""

    __slots__ = ("args", "fn", "handle", "room")

    def __init__(self, room: RoomBase, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
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
    escape_after: int | None = None
    """The seat left during another seat's turn: the hand's event count then — its abandon
    waits until that turn is decided (``Seating._escape_waits``)."""
    guest: bool = False
    """A person without an account: everyone is shown so (``guest`` in the room's seats)."""
    away_auto: bool = False
    """托管 was switched on because the player's last connection closed: switched off again
    when the player comes back."""


@dataclass
class Prompt:
    id: int
    seat: int
    legal: list[Action]
    started: float
    handle: Timer | None = None


class RoomBase:
    """A room's state, its clock and what it tells everyone; the concerns are mixins
    (:class:`laizi.server.room.Room`)."""

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
        """Called after an action's events are staged: the hub commits them soon."""
        self.on_over: Callable[[Room], None] | None = None
        """Called once the match is over (the hub forgets the room a while later)."""
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
        """Called once the match is over (``laizi.server.booking`` books points and ratings)."""
        self.gate: Timer | None = None
        """The claim window's pause after a discard (tables with people): until it ends, events
        wait in ``held``, the next turn is not asked and bots do not claim."""
        self.held: list[dict[str, Any]] = []
        self.after_gate: list[Callable[[], None]] = []
        self.thinking: dict[int, tuple[Prompt, Future[Action]]] = {}
        """Per seat: the claim its bot is deciding on a worker thread, during the pause
        (``room/ahead.py``)."""
        self.end_waits = False
        """A hand that ends now, within the pause, ends when the pause does: it was ended by
        the pause's own discard (the wall ran out) or by a decision made during the pause."""
        self.pending: PendingDeal | None = None
        """The next deal, committed to and waiting for the players' contributions."""
        self.spectator_news: Timer | None = None
        """The pending batched ``room`` message about spectators to the seated players."""
        self.hint_cache: dict[int, tuple[Any, dict[str, Any]]] = {}
        """Per seat: the inputs of its last computed hints and those hints (``room/hints.py``)."""
        self.hints_sent: dict[int, dict[str, Any]] = {}
        """Per seat: the hints it was last sent."""
        self.catching: set[Conn] = set()
        """Connections whose catch-up waits for the claim window's pause to end: nothing is
        streamed to them meanwhile (the catch-up sends it, in order)."""
        self.comeback: set[int] = set()
        """Seats whose player just reconnected, told to everyone after its catch-up."""
        self.pause: Any = None
        """The settlement's pause between two hands (``room/pause.py``'s ``Pause``), or None."""

    def as_room(self) -> Room:
        """This object as the :class:`~laizi.server.room.Room` it is a part of (for the type
        checker: every concern's mixin is only ever used within a ``Room``)."""
        return cast("Room", self)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def halt(self) -> None:
        """Stop the room's clocks: nothing of it is played, sent or written any more in this
        process (it is stopping, or another process took the room)."""
        for timer in list(self.timers):
            timer.cancel()
        self.live = False

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

    # -- what each concern offers the others (defined in its own module) ------------------
    if TYPE_CHECKING:
        # seating.py
        def leave(self, conn: Conn) -> None: ...
        def _grace_over(self, seat: int) -> None: ...
        def _escape_waits(self, seat: int) -> bool: ...
        # streams.py
        def catch_up(self, conn: Conn, last_seq: int | None) -> None: ...
        def _emit(self, events: list[dict[str, Any]]) -> None: ...
        def _release(self) -> None: ...
        # prompts.py
        def _send_prompt(self, prompt: Prompt) -> None: ...
        def _auto_move(self, seat: int, pid: int) -> None: ...
        def _refresh_prompts(self) -> None: ...
        def _save_seat(self, seat: int) -> None: ...
        def _set_auto(self, seat: int, on: bool, shown: bool = True) -> None: ...
        # ahead.py
        def _decide_during_pause(self, prompt: Prompt) -> None: ...
        def _when_free(self, seat: int, fn: Callable[[], None]) -> None: ...
        def _bot_busy(self, seat: int) -> Future[Action] | None: ...
        def _settle(self, seat: int, prompt: Prompt) -> None: ...
        # hints.py
        def _update_hints(self, discards: list[tuple[int, int]] | None = None) -> None: ...
        def _hint_discards(self, events: list[dict[str, Any]]) -> list[tuple[int, int]]: ...
        def _resend_hints(self, conn: Conn) -> None: ...
        # pause.py
        def _between_hands(self) -> None: ...
        def _pause_seat_gone(self, seat: int) -> None: ...
        def _resend_pause(self, conn: Conn) -> None: ...
        # match.py
        def start_match(self) -> None: ...
        def _deal(self) -> None: ...
        def _begin_hand(self, state: HandState, events: list[dict[str, Any]]) -> None: ...
        def _play(self, seat: int, action: Action) -> None: ...
        def _after(self) -> None: ...
