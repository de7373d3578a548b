"""The matchmaking queue over WebSocket (issue 26): one
:class:`~laizi.server.matchmaking.Matchmaker` per process, driven by the players' ``queue`` /
``unqueue`` / ``accept`` messages, their connections coming and going, and a tick task on the
event loop's clock (docs/protocol.md, "Matchmaking"; docs/server.md, "Matchmaking").

A queued person is keyed by account (``a:ID``: every tab of the account shares the place and gets
the messages) or, for a guest, by a queue key of its own (sent in ``queued``; a guest's tab that
presents it shares the place, and a matched guest takes its kept seat with it as ``token``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from sqlalchemy import Engine, select

from laizi.rules import Settings
from laizi.server.matched import RoomKind, SeatClaim
from laizi.server.matchmaking import Match, Matchmaker, MatchSettings, Person, RecentTables, Status
from laizi.server.protocol import Accept, ProtocolError, Queue, Unqueue
from laizi.server.ratings import ordinal, seat_accounts, standings_of
from laizi.server.room import Conn
from laizi.server.store import rooms, seats

OpenRoom = Callable[[str, Sequence[SeatClaim], RoomKind], str]
"""Makes a matched room (``laizi.server.hub.Hub.open_matched_room``): preset, claims, kind →
the room's code."""

__all__ = ["TICK_S", "Queueing", "holds_seat", "live_table_of", "load_history"]

log = logging.getLogger("laizi.server")

TICK_S = 0.5
"""How often the matchmaker ticks (a tick with nobody waiting costs next to nothing)."""
HISTORY_KEEP = 100
"""Each account's latest ranked tables kept in memory for the anti-collusion rule."""


def load_history(engine: Engine, keep: int = HISTORY_KEEP) -> RecentTables:
    """The ranked tables of the database (rooms of kind ``ranked`` with their seats' accounts),
    oldest first, as the anti-collusion history."""
    history = RecentTables(keep)
    query = (
        select(seat_accounts.c.room_id, seat_accounts.c.account_id)
        .join(rooms, rooms.c.id == seat_accounts.c.room_id)
        .where(rooms.c.kind == "ranked")
        .order_by(rooms.c.created, rooms.c.id, seat_accounts.c.seat)
    )
    tables: dict[int, list[int]] = {}
    with engine.connect() as c:
        for room_id, account_id in c.execute(query):
            tables.setdefault(room_id, []).append(account_id)
    for accounts in tables.values():
        history.add(accounts)
    return history


def live_table_of(engine: Engine, account_id: int, besides: str | None = None) -> str | None:
    """The code of a room whose match is being played with the account in one of its seats
    (other than ``besides``), if any: what a cluster's process asks before it queues an
    account, since the account's seat may be on another process (:func:`holds_seat` sees only
    this one's connections).  A seat handed to a guest is unlinked; an abandon ends the match."""
    query = (
        select(rooms.c.code)
        .join(seat_accounts, seat_accounts.c.room_id == rooms.c.id)
        .join(seats, (seats.c.room_id == rooms.c.id) & (seats.c.seat == seat_accounts.c.seat))
        .where(
            (seat_accounts.c.account_id == account_id)
            & (rooms.c.status == "playing")
            & (seats.c.kind == "human")
        )
    )
    if besides is not None:
        query = query.where(rooms.c.code != besides)
    with engine.connect() as c:
        return c.execute(query.limit(1)).scalar()


class Queueing:
    """The process's matchmaker, the connections of each queued person, the tick task."""

    def __init__(
        self,
        engine: Engine,
        open_room: OpenRoom,
        join_seconds: float,
        settings: MatchSettings | None = None,
    ) -> None:
        """``engine``: the database (standings, the ranked tables' history); ``open_room``: how
        a confirmed match's room is made; ``join_seconds``: how long a connection sent to its
        room may stay without one (``ws_join_seconds``)."""
        self.engine = engine
        self.open_room = open_room
        self.join_seconds = join_seconds
        self.history = load_history(engine)
        self.mm = Matchmaker(settings, history=self.history, at_table=self._at_table)
        self.rng = Random(secrets.randbits(128))
        self.conns: dict[str, set[Conn]] = {}
        """Each person's connections that queued (or sat down) — where their messages go."""
        self.key_of: dict[Conn, str] = {}
        self.going: dict[str, float] = {}
        """People sent their room: until when their connections may stay without a room."""
        self.shown: dict[str, tuple[int, int]] = {}
        """The (position, estimate) last sent in each person's ``queued``."""
        self.task: asyncio.Task[None] | None = None

    # -- the clock -----------------------------------------------------------------------------
    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def start(self) -> None:
        """Start the tick task (at the first ``queue``: a server nobody queues on never ticks)."""
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                self.tick()
            except Exception:  # a bug must not stop the queue for everyone
                log.exception("the matchmaker's tick failed")

    # -- who is who -----------------------------------------------------------------------------
    def key(self, conn: Conn) -> str | None:
        """The connection's person: its account's key, else the guest key it queued with."""
        if conn.account is not None:
            return f"a:{conn.account.id}"
        return self.key_of.get(conn)

    def _register(self, conn: Conn, key: str) -> None:
        old = self.key_of.get(conn)
        if old is not None and old != key:
            self._unregister(conn)
        self.key_of[conn] = key
        self.conns.setdefault(key, set()).add(conn)

    def _unregister(self, conn: Conn) -> str | None:
        key = self.key_of.pop(conn, None)
        if key is not None:
            mine = self.conns.get(key)
            if mine is not None:
                mine.discard(conn)
                if not mine:
                    del self.conns[key]
        return key

    def _at_table(self, key: str) -> bool:
        """Whether one of the person's connections holds a seat at a table that is not over
        (:func:`holds_seat`)."""
        return any(holds_seat(c) for c in self.conns.get(key, ()))

    def holds(self, conn: Conn) -> bool:
        """Whether the connection waits for a match (or for its room): no join deadline then."""
        key = self.key_of.get(conn)
        if key is None:
            return False
        return self.mm.waits(key) or self.going.get(key, 0.0) > self.now()

    def _online(self, key: str) -> bool:
        """Whether the person has a connection (here: on this process)."""
        return key in self.conns

    def _send(self, key: str, message: dict[str, Any]) -> None:
        for conn in list(self.conns.get(key, ())):
            conn.send(message)

    # -- the players' messages ------------------------------------------------------------------
    def handle(self, conn: Conn, message: Queue | Unqueue | Accept) -> None:
        if isinstance(message, Queue):
            self.queue(conn, message)
        elif isinstance(message, Unqueue):
            self.unqueue(conn)
        else:
            self.accept(conn, message)

    def queue(self, conn: Conn, message: Queue) -> None:
        key = self._queue_key(conn, message)
        person = self._person(conn, key, message.preset)
        self.start()
        status = self.mm.enqueue(person, message.preset, message.kind, self.now(), message.tier)
        if conn.room is not None:  # a table that is over, or a seat it abandoned: let go
            conn.room.leave(conn)
        self._register(conn, key)
        self.going.pop(key, None)
        self._queued(key, status, force=True)

    def _queue_key(self, conn: Conn, message: Queue) -> str:
        """Who queues: the account's key, the guest key the tab presents, or a new one."""
        if conn.room is not None and (conn.spectator or holds_seat(conn)):
            raise ProtocolError("at_table", "you are at a table: no queueing")
        key = self.key(conn)
        if conn.account is None and message.key is not None:
            return message.key
        return secrets.token_urlsafe(18) if key is None else key

    def _person(self, conn: Conn, key: str, preset: str) -> Person:
        address = conn.address or None
        account = conn.account
        if account is None or preset not in self.mm.presets:
            return Person(key, address=address)
        game = Settings.from_json(preset).game
        standing = standings_of(self.engine, account.id)[game]
        rating = ordinal(standing.mu, standing.sigma)
        return Person(key, account.id, standing.points, rating, address)

    def unqueue(self, conn: Conn) -> None:
        key = self.key(conn)
        if key is not None:
            self.leave(key)
        if conn not in self.key_of:
            conn.send({"type": "unqueued", "reason": "unqueue"})

    def leave(self, key: str) -> None:
        """``key`` leaves the queue (or declines the match awaiting their accept)."""
        self.mm.dequeue(key)
        self.shown.pop(key, None)
        self._send(key, {"type": "unqueued", "reason": "unqueue"})

    def accept(self, conn: Conn, message: Accept) -> None:
        key = self.key(conn)
        if key is None:
            raise ProtocolError("match_gone", "that match was cancelled or is no longer yours")
        self.confirm(key, message.match, conn)

    def confirm(self, key: str, match_id: str, conn: Conn | None = None) -> None:
        """``key`` accepts the match; its room once everyone has (``conn``: who asked)."""
        match = self.mm.accept(key, match_id, self.now())
        if match is None:
            self._send(key, {"type": "accepted", "match": match_id})
            return
        self._open(match)

    def _open(self, match: Match) -> None:
        """Everyone accepted: the room, its seats kept, and each person sent there."""
        claims = [
            SeatClaim.for_bot()
            if p is None
            else SeatClaim.for_account(p.account)
            if p.account is not None
            else SeatClaim.for_guest(p.key)
            for p in match.seats
        ]
        bucket = match.bucket
        kind: RoomKind = "ranked" if bucket.kind == "ranked" else "casual"
        try:
            code = self.open_room(bucket.preset, claims, kind)
        except Exception:  # the database refused: nobody is lost, everyone queues again
            log.exception("the room of match %s could not be made", match.id)
            self._requeue(match)
            return
        if kind == "ranked":
            self.history.add(p.account for p in match.people if p.account is not None)
        until = self.now() + self.join_seconds
        for seat, person in enumerate(match.seats):
            if person is None:
                continue
            out: dict[str, Any] = {
                "type": "matched",
                "match": match.id,
                "room": code,
                "seat": seat,
                "kind": kind,
                "preset": bucket.preset,
            }
            if person.account is None:
                out["token"] = person.key  # the guest's kept seat: join with it as token
            self.going[person.key] = until
            self.shown.pop(person.key, None)
            self._send(person.key, out)

    def _requeue(self, match: Match) -> None:
        """The people of a match whose room could not be made: back in its queue (at its end)."""
        bucket, now = match.bucket, self.now()
        for person in match.people:
            self._send(person.key, _lapsed(match.id, "requeued"))
            try:
                status = self.mm.enqueue(person, bucket.preset, bucket.kind, now, bucket.tier)
            except ProtocolError:  # seated meanwhile, say
                self._send(person.key, {"type": "unqueued", "reason": "dropped"})
                continue
            self._queued(person.key, status, force=True)

    # -- connections ----------------------------------------------------------------------------
    def joined(self, conn: Conn) -> None:
        """The connection took a seat: its person leaves the queue (one table at a time)."""
        if conn.seat is None or conn.spectator:
            return
        key = self.key(conn)
        if key is None:
            return
        self._register(conn, key)
        self.going.pop(key, None)
        self.seated(key)

    def seated(self, key: str) -> None:
        """``key`` sat down at a table: out of the queue (or their match declined)."""
        if self.mm.waits(key) and self.mm.dequeue(key):
            self.shown.pop(key, None)
            self._send(key, {"type": "unqueued", "reason": "seated"})

    def disconnect(self, conn: Conn) -> None:
        key = self._unregister(conn)
        if key is not None and key not in self.conns:
            self.mm.disconnect(key, self.now())
            self.shown.pop(key, None)
            self.going.pop(key, None)

    # -- the tick -------------------------------------------------------------------------------
    def tick(self) -> None:
        now = self.now()
        done = self.mm.tick(now, self.rng)
        # what lapsed first: someone back in the queue may be offered a new match at once
        for lapse in done.lapsed:
            for key in lapse.kept:
                self._send(key, _lapsed(lapse.match.id, "kept"))
            for key in lapse.requeued:
                self._send(key, _lapsed(lapse.match.id, "requeued"))
            for key, until in lapse.barred:
                seconds = max(0, round(until - now))
                self._send(key, {**_lapsed(lapse.match.id, "barred"), "seconds": seconds})
            for key in lapse.left:
                self._send(key, _lapsed(lapse.match.id, "left"))
            for key in (*lapse.kept, *lapse.requeued):
                if not self._online(key):  # gone during the accept: the grace starts now
                    self.mm.disconnect(key, now)
        for match in done.matches:
            deadline = max(0.0, match.deadline - now)
            for seat, person in enumerate(match.seats):
                if person is not None:
                    self.shown.pop(person.key, None)
                    self._send(
                        person.key,
                        {
                            "type": "matched",
                            "match": match.id,
                            "room": None,
                            "seat": seat,
                            "kind": match.bucket.kind,
                            "preset": match.bucket.preset,
                            "people": len(match.people),
                            "deadline_s": round(deadline, 1),
                        },
                    )
        for key in done.dropped:
            self.shown.pop(key, None)
            self._send(key, {"type": "unqueued", "reason": "dropped"})
        for key, status in self.mm.statuses(now).items():
            if self._online(key):
                self._queued(key, status)
        for key in [k for k, until in self.going.items() if until <= now]:
            del self.going[key]

    def _queued(self, key: str, status: Status, force: bool = False) -> None:
        """Send ``queued`` when the place or the estimate (whole seconds) changed."""
        shown = (status.position, round(status.estimate_s))
        if not force and self.shown.get(key) == shown:
            return
        self.shown[key] = shown
        out: dict[str, Any] = {
            "type": "queued",
            "preset": status.bucket.preset,
            "kind": status.bucket.kind,
            "tier": status.bucket.tier,
            "position": status.position,
            "waiting": round(status.waiting, 1),
            "estimate_s": round(status.estimate_s),
        }
        if not key.startswith("a:"):
            out["key"] = key
        self._send(key, out)

    # -- GET /api/queue -------------------------------------------------------------------------
    def counts(self) -> dict[str, Any]:
        queues = [
            {"preset": b.preset, "kind": b.kind, "tier": b.tier, "waiting": n}
            for b, n in self.mm.counts().items()
        ]
        tiers = [{"id": t.id, "zh": t.zh, "en": t.en} for t in self.mm.settings.tiers]
        return {"queues": queues, "waiting": sum(q["waiting"] for q in queues), "tiers": tiers}


def holds_seat(conn: Conn) -> bool:
    """Whether the connection holds a seat at a table: a room whose match is not over (nor
    expired), at a seat that has not left it (逃跑: an abandoned seat is nobody's table any
    more).  A seat that is away (no connection) is held by none of its person's connections:
    it does not keep them out of the queue, and its escape grace runs on."""
    room, seat = conn.room, conn.seat
    if room is None or seat is None or getattr(room, "status", "") in ("over", "expired"):
        return False
    seats = getattr(room, "seats", None)
    return not (seats is not None and seats[seat].leaving)


def _lapsed(match: str, outcome: str) -> dict[str, Any]:
    return {"type": "lapsed", "match": match, "outcome": outcome}
