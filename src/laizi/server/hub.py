"""The hub: every room of this server by join code, the group commit that lets their messages go,
and the dispatch of each client message to its room."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from laizi.rules import Settings
from laizi.server.accounts import Accounts
from laizi.server.again import play_again
from laizi.server.joining import after_join, before_join, mark_guests
from laizi.server.limits import HashPool, LobbyCache, Owner, Quotas, ServerLimits
from laizi.server.matched import MATCHED_KINDS, RoomKind, SeatClaim, matched_table
from laizi.server.protocol import (
    Accept,
    Act,
    Again,
    Auto,
    Chat,
    Continue,
    Join,
    Leave,
    Ping,
    ProtocolError,
    Queue,
    Ready,
    Resync,
    Unqueue,
    decode_client,
)
from laizi.server.room import Conn, Room, Seat, new_code
from laizi.server.seats import bot_player
from laizi.server.store import Batch, Refusal, RoomRow, Store
from laizi.server.table import TableSettings, TableSettingsError

if TYPE_CHECKING:
    from laizi.server.ladder import Ladder
    from laizi.server.queueing import Queueing

__all__ = ["DATABASE_WAIT", "FORGET_AFTER_S", "RELEASE_AFTER_S", "Hub", "hub_of"]

log = logging.getLogger("laizi.server")

FORGET_AFTER_S = 600.0
"""A finished room stays in memory (its page, its info, its connections) this long."""

RELEASE_AFTER_S = 60.0
"""A cluster's process whose writes have failed this long (the database unreachable) lets its
rooms go (``Cluster.let_go``): another process — one that reaches the database — takes them."""

DATABASE_WAIT = ("连接数据库中…", "reconnecting to the database…")
"""What the players are told while the writes fail (the ``database`` message, zh and en)."""


class Hub:
    """Every room of this server, by join code."""

    def __init__(self, store: Store, limits: ServerLimits | None = None) -> None:
        self.store = store
        self.limits = limits or ServerLimits()
        self.quotas = Quotas(self.limits)
        """Connections and rooms per address and account (``laizi.server.limits``)."""
        self.passwords: HashPool | None = None
        """The bounded pool for Argon2id work (made at startup)."""
        self.lobby: LobbyCache | None = None
        self.rooms: dict[str, Room] = {}
        self.accounts: Accounts | None = None
        self.on_match_end: Callable[[Room], None] | None = None
        """Given to every room (``laizi.server.booking.Bookings.match_ended`` books the results)."""
        self.bookings: Any = None
        """``laizi.server.booking.Bookings``: what is booked, and what could not be (healthz)."""
        self.held: list[tuple[Conn, dict[str, Any]]] = []
        """The messages posted in this turn of the loop (written by the next :meth:`flush`)."""
        self.pending: deque[tuple[Future[Refusal], list[tuple[Conn, dict[str, Any]]]]] = deque()
        """The group commits handed to the writer, each with the messages it holds back."""
        self.flush_scheduled = False
        self.cluster: Any = None
        """``laizi.server.cluster.node.Cluster`` when this process is part of a cluster."""
        self.halting = False
        """The server is stopping (:meth:`halt`): the tables stand still."""
        self.queueing: Queueing | None = None
        """The matchmaking queue (``laizi.server.queueing``; made at startup)."""
        self.ladder: Ladder | None = None
        """The bot ladder (``laizi serve --bot-ladder``: ``laizi.server.ladder``), or None."""
        self.again: dict[str, str] = {}
        """A finished friendly room's code → its rematch's (``laizi.server.again``)."""
        self.failing_since: float | None = None
        """The loop's time when the writes started failing (the database unreachable)."""
        self.release_after_s = RELEASE_AFTER_S
        """A cluster lets its rooms go once the writes failed this long."""

    def watch_writes(self) -> None:
        """Be told (on the loop) when the store's writer starts and stops failing."""
        writer = self.store.writer
        if writer is None:
            return
        loop = asyncio.get_running_loop()

        def told(failing: bool) -> None:
            loop.call_soon_threadsafe(self.writes_failing, failing)

        writer.on_state = told

    def writes_failing(self, failing: bool) -> None:
        """The writes started (or stopped) failing: every live table's clock stands still (or
        runs again) and its people are told (``database``, docs/protocol.md).  The clocks run
        again once the messages held meanwhile are released (:meth:`release` runs first)."""
        if failing == (self.failing_since is not None) or self.halting:
            return
        loop = asyncio.get_running_loop()
        self.failing_since = loop.time() if failing else None
        message = self._database_message(not failing)
        if failing:
            log.warning("the writes fail: the tables' clocks stand still")
            self._probe()
            loop.call_later(self.release_after_s, self._let_go, self.failing_since)
        else:
            log.warning("the writes go through again: the tables' clocks run")
        for room in self.rooms.values():
            if not room.clock.live:
                continue
            if failing:
                room.clock.freeze()
            else:
                room.clock.thaw()
            for conn, _ in room.conns():
                conn.send(message)

    def _probe(self) -> None:
        """An empty group commit, tried until it goes through: the writer finds the database
        back even when every table stands still (nothing else to write) — a deal that failed
        is dealt again only then, once the clocks run."""
        writer, store = self.store.writer, self.store
        if writer is not None:
            writer.submit(lambda c: store.commit_batch(c, Batch([], [], [], {})), retry=True)

    @staticmethod
    def _database_message(ok: bool) -> dict[str, Any]:
        """``database``: the writes fail (``ok`` false, with the words to show) or go again."""
        if ok:
            return {"type": "database", "ok": True}
        zh, en = DATABASE_WAIT
        return {"type": "database", "ok": False, "message": en, "message_zh": zh}

    def _let_go(self, since: float | None) -> None:
        """The writes still fail since ``since``: a cluster hands its rooms to a process that
        reaches the database (nothing it could not write is sent: the new owner's log is it)."""
        if self.failing_since != since or self.cluster is None or self.halting:
            return
        log.warning("the writes failed for %.0f s: the rooms are let go", self.release_after_s)
        self.cluster.let_go()

    def halt(self) -> None:
        """The server is stopping: every table stops where it is, before the connections are
        closed — so a player cut off by a restart or a hand-over is not played by 托管 in the
        meantime, and no action is shown accepted that would not be written.  What was accepted
        before is written by the last :meth:`flush`; the players reconnect (1012) and resume."""
        self.halting = True
        for room in self.rooms.values():
            room.halt()

    def post(self, conn: Conn, message: dict[str, Any]) -> None:
        """Send a room's message once the database holds everything staged so far."""
        self.held.append((conn, message))
        self.schedule_flush()

    def schedule_flush(self) -> None:
        """Commit (and send) at the end of this turn of the event loop."""
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self, wait: bool = False, timeout: float | None = None) -> None:
        """Commit what the rooms staged (one transaction), then let their messages go.

        With the store's writer (``laizi.server.writer``) the transaction is handed to it and
        the messages wait in :attr:`pending` until it is done; the loop goes on meanwhile
        (``wait``: block until everything handed over is written and sent — at shutdown — or
        ``timeout`` seconds have passed: what is not written then is not sent).
        Batches are released in the order they were made, so each connection's messages keep
        theirs.  A refused write sends none of its batch's messages (logged)."""
        self.flush_scheduled = False
        held, self.held = self.held, []
        if self.store.writer is None:
            try:
                self.store.commit()
            except Exception:
                log.exception("the database refused a write: messages held back")
                return
            _send(held)
            return
        future = self.store.commit_async()
        if future is None:  # nothing new to write: these wait only for the batches before them
            if self.pending:
                self.pending[-1][1].extend(held)
            else:
                _send(held)
        else:
            self.pending.append((future, held))
            loop = asyncio.get_running_loop()
            future.add_done_callback(lambda _: loop.call_soon_threadsafe(self.release))
        if wait:
            concurrent.futures.wait([pending for pending, _ in self.pending], timeout)
            self.release()

    def release(self) -> None:
        """Send the messages of the batches written so far, in order (see :meth:`flush`)."""
        while self.pending and self.pending[0][0].done():
            future, held = self.pending[0]
            try:
                refusal = future.result()
            except Exception:
                self.pending.popleft()
                log.exception("the database refused a write: messages held back")
                continue
            # A room the database refused is dropped first (in a cluster): its messages with it.
            self.store.refused(refusal)
            self.pending.popleft()
            _send(held)

    def drop_messages(self, room: Room) -> None:
        """Send none of the held messages to the connections of ``room`` (dropped here)."""
        self.held = [(c, m) for c, m in self.held if c.room is not room]
        for _, held in self.pending:
            held[:] = [(c, m) for c, m in held if c.room is not room]

    def create_room(self, body: Any, owner: Owner | None = None, code: str | None = None) -> Room:
        """A new friendly room (友人场: its match moves no ranks); with an ``owner`` (a client's
        request) the quotas are checked first (:class:`laizi.server.limits.LimitError`).
        ``code``: one chosen already (a cluster leases it first)."""
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object with 'rules' and 'table'")
        unknown = set(body) - {"rules", "table"}
        if unknown:
            raise ValueError(f"unknown key {sorted(unknown)[0]!r} (expected 'rules', 'table')")
        rules = Settings.from_json(body.get("rules", "wuhan-hongzhong-kaikou"))
        table = TableSettings.from_json(body.get("table"))
        _playable(rules)
        _bots_playable(table, rules)
        if owner is not None:
            self.quotas.check_room(owner, table.players == 0)
        return self._open(rules, table, owner or Owner("(server)"), code, "friendly", ())

    def open_friendly_room(self, rules: Settings, table: TableSettings, owner: Owner) -> Room:
        """A new friendly room with these settings, the quotas checked by the caller (再来一局:
        ``laizi.server.again``)."""
        return self._open(rules, table, owner, None, "friendly", ())

    def open_matched_room(
        self,
        rules: Settings | str,
        claims: Sequence[SeatClaim],
        kind: RoomKind = "ranked",
        table: TableSettings | None = None,
        code: str | None = None,
    ) -> str:
        """The matchmaker's table: a ``ranked`` (four accounts; its match moves ranks) or
        ``casual`` room whose four seats are kept as ``claims`` says (an account, a guest's key,
        a bot: :class:`laizi.server.matched.SeatClaim`) — nobody else sits down there.  Its
        bots are seated at once; the match starts when every kept seat is taken, and the room
        closes after ``matched_room_seconds`` if one is not.  Returns the room's code.

        ``rules``: the preset (or settings); ``table``: its table settings (their ``players``
        is the number of kept seats); ``code``: one chosen already (a cluster leases it first).
        A ``ValueError`` for claims that make no such table.  In a cluster the matchmaker's
        process may leave the table to the least-loaded one:
        :meth:`laizi.server.cluster.node.Cluster.open_matched_room`."""
        settings, table = matched_table(rules, claims, kind, table)
        return self._open(settings, table, Owner("(matchmaker)"), code, kind, claims).code

    def _open(
        self,
        rules: Settings,
        table: TableSettings,
        owner: Owner,
        code: str | None,
        kind: str,
        claims: Sequence[SeatClaim],
    ) -> Room:
        while code is None or code in self.rooms or self.store.room_id(code) is not None:
            code = new_code()
        room_id = self.store.create_room(code, rules.to_json(), table.to_json(), kind, claims)
        reserved = {seat: claim for seat, claim in enumerate(claims) if not claim.bot}
        room = Room(
            self.store, room_id, code, rules, table, self.post, self.schedule_flush, kind, reserved
        )
        for seat, claim in enumerate(claims):
            if claim.bot:
                room.seats[seat] = Seat(kind="bot", name=f"bot {seat}", bank=table.bank_seconds)
        room.on_match_end = self.on_match_end
        room.on_over = self.forget_later
        self.rooms[code] = room
        self.quotas.add_room(code, owner, table.players == 0)
        self.room_set_changed()
        if table.players == 0:
            room.start_match()
        else:
            self.expire_later(room)
        return room

    def room_set_changed(self) -> None:
        if self.lobby is not None:
            self.lobby.changed()

    def expire_later(self, room: Room) -> None:
        """Close the room if it is still waiting for its people after ``waiting_room_seconds``
        (``matched_room_seconds`` for a room the matchmaker made)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # made outside the server (a unit test): no clock to expire on
            return

        matched = room.kind in MATCHED_KINDS
        limits = self.limits
        loop.call_later(
            limits.matched_room_seconds if matched else limits.waiting_room_seconds,
            self.close_waiting,
            room,
        )

    def close_waiting(self, room: Room) -> None:
        """Close a room still waiting for its people: everyone in it is told and let go
        (``room_expired``), and it is forgotten."""
        if self.rooms.get(room.code) is room and room.status == "waiting":
            room.expire()
            del self.rooms[room.code]
            self.quotas.release_room(room.code)
            self.room_set_changed()

    def forget_later(self, room: Room) -> None:
        """Drop a finished room from memory after a while (its records stay in the database)."""
        self.quotas.release_room(room.code)
        self.room_set_changed()

        def forget() -> None:
            self.again.pop(room.code, None)
            if self.rooms.get(room.code) is room:
                del self.rooms[room.code]

        asyncio.get_running_loop().call_later(FORGET_AFTER_S, forget)

    def recover(self) -> int:
        """Rebuild every unfinished room from the database; returns how many."""
        return sum(self.recover_room(row) for row in self.store.rooms(("waiting", "playing")))

    def recover_room(self, row: RoomRow) -> bool:
        """Rebuild one unfinished room from the database (after a restart, or a takeover in a
        cluster); False if it could not be (logged)."""
        try:
            room = Room(
                self.store,
                row.id,
                row.code,
                Settings.from_json(row.rules),
                TableSettings.from_json(row.table_settings),
                self.post,
                self.schedule_flush,
                row.kind,
                row.reserved,
            )
            room.on_match_end = self.on_match_end
            for seat in row.seats:
                room.seats[seat["seat"]] = Seat(
                    kind=seat["kind"],
                    name=seat["name"],
                    token=seat["token"],
                    bank=room.table.bank_seconds if seat["bank"] is None else seat["bank"],
                    auto=seat["auto"],
                    auto_shown=seat["auto_shown"],
                )
            mark_guests(room)
            room.status = row.status
            room.on_over = self.forget_later
            if row.status == "playing":
                room.rebuild(self.store.hands(row.id))
            room.resume()
        except Exception:
            log.exception("room %s could not be recovered", row.code)
            return False
        self.rooms[row.code] = room
        bots_only = room.table.players == 0
        self.quotas.add_room(row.code, Owner("(recovered)"), bots_only)
        if room.status == "waiting":
            self.expire_later(room)
        return True

    def handle(self, conn: Conn, text: str | bytes) -> bool:
        """One client message; a bad one is answered with an error, nothing else changes.

        True when it was an action the table accepted (the message budget gives it back: the
        game's own pace bounds those)."""
        if self.halting:  # the connection is about to close (1012): the client comes back
            return False
        try:
            message = decode_client(text)
            if isinstance(message, Ping):
                conn.send({"type": "pong"})
            elif isinstance(message, Join):
                room = self.rooms.get(message.room.upper())
                if room is None:
                    raise ProtocolError("no_room", f"no room has the code {message.room!r}")
                if message.spectate and len(room.spectators) >= self.limits.spectators_per_room:
                    raise ProtocolError(
                        "too_many_spectators",
                        f"观众已满 / this room has its {self.limits.spectators_per_room} "
                        "spectators",
                    )
                message = before_join(self.accounts, room, conn, message)
                room.join(conn, message)
                after_join(room, conn, message)
                if self.failing_since is not None:  # the clocks stand still: say why
                    conn.send(self._database_message(False))
                if self.queueing is not None:
                    self.queueing.joined(conn)  # seated: out of the queue
            elif isinstance(message, Queue | Unqueue | Accept):
                if self.queueing is None:
                    raise ProtocolError("no_queue", "this server has no matchmaking queue")
                self.queueing.handle(conn, message)
            else:
                joined = conn.room
                if joined is None:
                    raise ProtocolError("not_joined", "join a room first")
                if isinstance(message, Act):  # Room.act → Prompts.act → MatchFlow.play
                    joined.act(conn, message)
                    return True
                elif isinstance(message, Auto):
                    joined.set_auto(conn, message.on)
                elif isinstance(message, Leave):
                    joined.leave(conn)
                elif isinstance(message, Resync):
                    joined.catch_up(conn, message.last_seq)
                elif isinstance(message, Ready):
                    joined.ready(conn, message)
                elif isinstance(message, Continue):
                    joined.continue_(conn)
                elif isinstance(message, Again):
                    play_again(self, conn)
                elif isinstance(message, Chat):  # 快捷语 (laizi.server.room.chat)
                    limits = self.limits
                    joined.chat(conn, message.phrase, limits.chat_phrases, limits.chat_seconds)
        except ProtocolError as error:
            conn.send(error.to_message())
        return False

    def disconnect(self, conn: Conn) -> None:
        if self.queueing is not None:
            self.queueing.disconnect(conn)
        if conn.room is not None:
            if not self.halting:  # stopping: not "away" (no 托管, no escape clock)
                conn.room.disconnect(conn)
            conn.room = None


def _playable(rules: Settings) -> None:
    """A game the engine can't play is refused when the room is made, not at the deal."""
    from laizi.engine import make_ruleset

    make_ruleset(rules)


def _bots_playable(table: TableSettings, rules: Settings) -> None:
    """A bot level that can't sit at this game (``learned`` without a model for it) is refused
    when the room is made, naming the setting, not when a bot is first needed."""
    from laizi.bots.base import BotError

    try:
        bot_player(table.bot_level, rules)
    except BotError as error:
        raise TableSettingsError(f"table.bot_level: {error}") from None


def hub_of(app: Starlette) -> Hub:
    """The application's hub (made at startup, kept in ``app.state``)."""
    hub: Hub = app.state.hub
    return hub


def _send(held: list[tuple[Conn, dict[str, Any]]]) -> None:
    """Each connection's messages in one go, in the order they were posted."""
    by_conn: dict[Conn, list[dict[str, Any]]] = {}
    for conn, message in held:
        by_conn.setdefault(conn, []).append(message)
    for conn, messages in by_conn.items():
        conn.send_many(messages)
