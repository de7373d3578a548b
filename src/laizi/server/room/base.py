"""A room's values: connections, seats, prompts, its clock and timers, the hand in play."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from laizi.bots import Bot
from laizi.engine import Action
from laizi.engine.state import HandState
from laizi.server.protocol import Act, Ready

log = logging.getLogger("laizi.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Join codes avoid look-alikes (no I/1, O/0)."""
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)


def new_code(length: int = 6) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


class JoinedRoom(Protocol):
    """What a connection's room (:class:`laizi.server.room.Room`) offers the hub and a bot seat:
    a client's messages, and what the bot seat reads of the table."""

    code: str

    @property
    def state(self) -> HandState | None: ...

    @property
    def prompts(self) -> dict[int, Prompt]: ...

    def act(self, conn: Conn, msg: Act) -> None: ...

    def set_auto(self, conn: Conn, on: bool) -> None: ...

    def leave(self, conn: Conn) -> None: ...

    def catch_up(self, conn: Conn, last_seq: int | None) -> None: ...

    def ready(self, conn: Conn, msg: Ready) -> None: ...

    def continue_(self, conn: Conn) -> None: ...

    def chat(self, conn: Conn, phrase: str, phrases: int, seconds: float) -> None: ...

    def disconnect(self, conn: Conn) -> None: ...


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
        self.room: JoinedRoom | None = None
        self.seat: int | None = None
        self.spectator = False
        self.account: Any = None
        """The logged-in account (``laizi.server.accounts.Account``); None: a guest."""
        self.bot: Any = None
        """A ``/ws/bot`` connection's bot (``laizi.server.bottokens.BotIdentity``): it alone
        takes a ladder seat kept for its token."""
        self.minor = 0
        """The client's minor protocol version (from ``join``): 1 contributes to the deals."""
        self.address = ""
        """The client's address as the server sees it (honouring ``--proxy-headers``): the
        matchmaker's shared-address rule."""


class Timer:
    """One cancellable timer of a room (a prompt's clock, a grace period, the next deal)."""

    __slots__ = ("args", "clock", "due", "fn", "handle")

    def __init__(self, clock: Clock, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        self.clock = clock
        self.fn = fn
        self.args = args
        self.handle: asyncio.TimerHandle | None = None
        self.due = 0.0
        """When it fires, on the room's clock (:meth:`Clock.now`)."""

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.clock.timers.discard(self)

    def fire(self) -> None:
        self.clock.timers.discard(self)
        try:
            self.fn(*self.args)
        except Exception:  # a bug must not take the server down: log it, keep serving
            log.exception("room %s: timer failed", self.clock.code)


class Clock:
    """A room's clock: its cancellable timers, and whether the room runs at all (``live``).

    The clock can stand still (:meth:`freeze`, while the room's writes can't reach the
    database): its time (:meth:`now`) stops, its timers wait, and after :meth:`thaw` every
    timer fires as much later as the clock stood still — each prompt's time, time bank, claim
    window, settlement pause and escape grace alike."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.timers: set[Timer] = set()
        self.live = True
        """False while being rebuilt from the database (nothing is sent, nothing scheduled), and
        once halted."""
        self.frozen_at: float | None = None
        """The loop's time when the clock stopped (:meth:`freeze`); None: it runs."""
        self.stood = 0.0
        """Seconds the clock has stood still so far."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def now(self) -> float:
        """The room's time: the loop's, less the time the clock stood still."""
        frozen = self.frozen_at
        return (self.loop.time() if frozen is None else frozen) - self.stood

    def later(self, delay_ms: float, fn: Callable[..., None], *args: Any) -> Timer:
        """Call ``fn(*args)`` in ``delay_ms`` (a bug in it is logged, never raised)."""
        timer = Timer(self, fn, args)
        timer.due = self.now() + delay_ms / 1000
        if self.frozen_at is None:
            timer.handle = self.loop.call_later(delay_ms / 1000, timer.fire)
        self.timers.add(timer)
        return timer

    def freeze(self) -> None:
        """Stand still: no timer fires until :meth:`thaw`."""
        if self.frozen_at is not None:
            return
        self.frozen_at = self.loop.time()
        for timer in self.timers:
            if timer.handle is not None:
                timer.handle.cancel()
                timer.handle = None

    def thaw(self) -> None:
        """Run again: every timer is due as much later as the clock stood still."""
        frozen = self.frozen_at
        if frozen is None:
            return
        self.stood += self.loop.time() - frozen
        self.frozen_at = None
        now = self.now()
        for timer in sorted(self.timers, key=lambda t: t.due):
            timer.handle = self.loop.call_later(max(0.0, timer.due - now), timer.fire)

    def cancel_all(self) -> None:
        for timer in list(self.timers):
            timer.cancel()

    def halt(self) -> None:
        """Stop: nothing of the room is played, sent or written any more in this process."""
        self.cancel_all()
        self.live = False


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
    waits until that turn is decided (``Seating.escape_waits``)."""
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


class Hand:
    """The hand in play (or the last one played): its state, its row in the database and its
    record so far.  Set by the match flow; read by the parts that show or decide it."""

    __slots__ = ("events", "id", "state")

    def __init__(self) -> None:
        self.state: HandState | None = None
        self.id: int | None = None
        self.events: list[dict[str, Any]] = []
