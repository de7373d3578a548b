"""Persistence: rooms, seats, hands and every hand's event log in SQL (SQLAlchemy 2 Core).

The schema is created and upgraded by the Alembic migrations in ``laizi/server/migrations`` (they
ship inside the package, so an installed copy can migrate its own database).  SQLite is the
default; the connection runs in WAL mode, where a committed transaction survives the process
being killed.  Every accepted action's events are written in one transaction before they are
broadcast (:meth:`Store.append`); in the server, by the writer's thread
(``laizi.server.writer``), never on the event loop's.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    CursorResult,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    select,
    text,
    update,
)

from laizi.server.matched import SeatClaim
from laizi.server.writer import Checkpointer, Writer, unreachable

log = logging.getLogger("laizi.server")

T = TypeVar("T")

__all__ = [
    "NOTHING_REFUSED",
    "Batch",
    "HandRow",
    "Refusal",
    "RoomRow",
    "Store",
    "cluster_settings",
    "database_url",
    "default_db_url",
    "finished_hands",
    "hand_record",
    "inserted_id",
    "metadata",
    "reserved_seats",
]

metadata = MetaData()

MIGRATE_LOCK = 0x6C61697A69
"""The PostgreSQL advisory lock held while migrating ("laizi")."""

rooms = Table(
    "rooms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("code", String(16), nullable=False, unique=True),
    Column("rules", Text, nullable=False),
    Column("table_settings", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created", Float, nullable=False),
    Column("owner_epoch", Integer, nullable=False, server_default="0"),  # a cluster's fence
    # friendly (by link), casual or ranked (the matchmaker's): laizi.server.matched
    Column("kind", String(8), nullable=False, server_default="friendly"),
)

seats = Table(
    "seats",
    metadata,
    Column("room_id", Integer, ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("name", String(64), nullable=False),
    Column("token", String(64), nullable=True),
    Column("bank", Float, nullable=True),
    Column("auto", Boolean, nullable=False, default=False),
    Column("auto_shown", Boolean, nullable=False, default=False),
)

reserved_seats = Table(
    "reserved_seats",
    metadata,
    Column("room_id", Integer, ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=True),
    Column("guest_key", String(128), nullable=True),
    Column("bot_token_id", Integer, ForeignKey("bot_tokens.id"), nullable=True),
)
"""The seats a matched room keeps for an account, a guest's key or (at a ladder table) a bot
token (``laizi.server.matched``)."""

hands = Table(
    "hands",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("room_id", Integer, ForeignKey("rooms.id"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("dealer", Integer, nullable=False),
    Column("seed", String(64), nullable=False),
    Column("finished", Boolean, nullable=False, default=False),
    UniqueConstraint("room_id", "number"),
)

events = Table(
    "events",
    metadata,
    Column("hand_id", Integer, ForeignKey("hands.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("body", Text, nullable=False),
    Column("epoch", Integer, nullable=False, server_default="0"),  # the owner that wrote it
)

cluster_settings = Table(
    "cluster_settings",
    metadata,
    Column("name", String(128), primary_key=True),
    Column("value", String(256), nullable=False),
)
"""What the processes of a cluster must agree on and keep across a Redis that lost its data
(the shared secret, named ``PREFIXsecret``): ``laizi.server.cluster.fence``."""


def database_url(url: str) -> str:
    """PostgreSQL URLs go through psycopg 3 (``postgresql://…`` → ``postgresql+psycopg://…``).

    >>> database_url("postgresql://laizi@127.0.0.1:5432/laizi")
    'postgresql+psycopg://laizi@127.0.0.1:5432/laizi'
    >>> database_url("sqlite:///x.sqlite3")
    'sqlite:///x.sqlite3'
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def default_db_url() -> str:
    """An SQLite file in the current directory."""
    return "sqlite:///" + str(Path("laizi.sqlite3").resolve())


@dataclass
class RoomRow:
    id: int
    code: str
    rules: Any
    table_settings: dict[str, Any]
    status: str
    seats: list[dict[str, Any]]
    kind: str = "friendly"
    reserved: dict[int, SeatClaim] = field(default_factory=dict)
    """The seats kept for the people matched to the room (a matched room's)."""


@dataclass
class HandRow:
    id: int
    number: int
    dealer: int
    seed: bytes
    finished: bool
    events: list[dict[str, Any]]


_encoder = msgspec.json.Encoder()


def inserted_id(result: CursorResult[Any]) -> int:
    """The primary key the database gave the one row an ``insert`` wrote."""
    key = result.inserted_primary_key
    if key is None:  # only for statements that are not a single-row insert
        raise RuntimeError("the statement inserted no row")
    return int(key[0])


def _dumps(obj: Any) -> str:
    """Compact JSON, Chinese kept readable (as the engine's records)."""
    return _encoder.encode(obj).decode("utf-8")


class StoreMeter(Protocol):
    """What the store tells the server's measurements (``laizi.server.metrics``)."""

    def action(self) -> None:
        """One accepted action was staged."""

    def write(self, seconds: float) -> None:
        """The staged rows took this long to execute (in a transaction, before its commit)."""

    def commit(self, seconds: float) -> None:
        """A transaction of staged rows took this long, begin to commit."""


@dataclass
class Batch:
    """What the tables staged since the last commit: one transaction's rows (the group commit)."""

    events: list[dict[str, Any]]
    finished: list[int]
    status: list[tuple[int, str]]
    seats: dict[tuple[int, int], dict[str, Any]]
    epochs: dict[int, int | None] = field(default_factory=dict)
    """A cluster's process: the rooms written and the owner epoch it held when they were staged
    (``laizi.server.cluster.fence``)."""
    hand_rooms: dict[int, int] = field(default_factory=dict)
    """A cluster's process: the room of each hand the batch writes."""


Refusal = tuple[set[int], int]
"""The rooms whose writes the database refused (another process owns them now) and how many
rows were refused; nothing refused outside a cluster."""

NOTHING_REFUSED: Refusal = (set(), 0)


class Store:
    """The database of one server.

    Every write is a transaction run by :meth:`transact`: on the writer's thread once
    :meth:`start_writer` made one (the server does, for a database file or PostgreSQL), else
    on the calling thread (an in-memory database, a unit test)."""

    def __init__(self, url: str) -> None:
        url = database_url(url)
        self.url = url
        self.staged_events: list[dict[str, Any]] = []
        self.staged_finished: list[int] = []
        self.staged_status: list[tuple[int, str]] = []
        self.staged_seats: dict[tuple[int, int], dict[str, Any]] = {}
        self.meter: StoreMeter | None = None
        """The server's measurements (set by ``laizi.server.metrics``); None: not measured."""
        self.writer: Writer | None = None
        """The thread that runs every write (:meth:`start_writer`); None: the caller's thread."""
        self.checkpointer: Checkpointer | None = None
        self.background_checkpoints = False
        """SQLite: the connections leave checkpoints to :attr:`checkpointer`."""
        self.engine: Engine = create_engine(url, pool_pre_ping=not url.startswith("sqlite"))
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", self._sqlite_pragmas)
        self.migrate()

    def _sqlite_pragmas(self, dbapi_connection: Any, record: Any) -> None:
        _sqlite_pragmas(dbapi_connection, record)
        if self.background_checkpoints:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

    def start_writer(self) -> bool:
        """Run every write on one thread of its own from now on (SQLite: with the checkpoints
        in the background).  Not for an in-memory SQLite database, whose every connection is
        a database of its own: False then, and writes stay on the caller's thread."""
        if self.writer is not None:
            return True
        if self.engine.dialect.name == "sqlite":
            database = self.engine.url.database
            if database in (None, "", ":memory:") or "mode=memory" in str(self.engine.url):
                return False
            self.background_checkpoints = True
            self.engine.dispose()  # the next connections are made without autocheckpoint
            self.checkpointer = Checkpointer(self.engine)
        self.writer = Writer(self.engine)
        return True

    def transact(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` (which opens its transaction) on the writer's thread, in order with
        the group commits handed to it before — or here, without a writer."""
        if self.writer is not None:
            return self.writer.call(fn)
        with self.engine.connect() as c:
            return fn(c)

    def migrate(self) -> None:
        """Bring the schema to the newest migration (Alembic, from the installed package)."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # The processes of a cluster start together: one migrates, the others wait.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def close(self, timeout: float | None = None) -> None:
        """Finish the writes handed over, stop the writer and the checkpoints, close the pool
        (``timeout``: at most this long for the writes; what is left then is not written)."""
        if self.writer is not None and not self.writer.close(timeout):
            log.warning("the database writes did not finish in %.1f s: left unwritten", timeout)
        if self.checkpointer is not None:
            self.checkpointer.close()
        self.engine.dispose()

    # -- rooms -----------------------------------------------------------------------------------
    def create_room(
        self,
        code: str,
        rules: Any,
        table_settings: dict[str, Any],
        kind: str = "friendly",
        claims: Sequence[SeatClaim] = (),
    ) -> int:
        """A new room of this ``kind`` (``laizi.server.matched``); a matched room's ``claims``
        (one per seat) are written with it, in one transaction: its bots seated, its seats for
        accounts and guests kept for them."""

        def write(connection: Connection) -> int:
            with connection.begin():
                return _create_room(connection, code, rules, table_settings, kind, claims)

        return self.transact(write)

    def set_status(self, room_id: int, status: str) -> None:
        def write(c: Connection) -> None:
            with c.begin():
                _set_status(c, room_id, status)

        self.transact(write)

    def set_seat(self, room_id: int, seat: int, kind: str, name: str, token: str | None) -> None:
        def write(c: Connection) -> None:
            with c.begin():
                _set_seat(c, room_id, seat, kind, name, token)

        self.transact(write)

    def clear_seat(self, room_id: int, seat: int) -> None:
        def write(c: Connection) -> None:
            with c.begin():
                _clear_seat(c, room_id, seat)

        self.transact(write)

    def rooms(self, statuses: tuple[str, ...], code: str | None = None) -> list[RoomRow]:
        """The rooms in one of ``statuses`` (only the one with ``code`` when given)."""
        out = []
        query = select(rooms).where(rooms.c.status.in_(statuses))
        if code is not None:
            query = query.where(rooms.c.code == code)
        with self.engine.connect() as c:
            for row in c.execute(query):
                seat_rows = c.execute(
                    select(seats).where(seats.c.room_id == row.id).order_by(seats.c.seat)
                )
                reserved = {
                    r.seat: SeatClaim(
                        account=r.account_id, guest_key=r.guest_key, bot_token=r.bot_token_id
                    )
                    for r in c.execute(
                        select(reserved_seats).where(reserved_seats.c.room_id == row.id)
                    )
                }
                out.append(
                    RoomRow(
                        row.id,
                        row.code,
                        json.loads(row.rules),
                        json.loads(row.table_settings),
                        row.status,
                        [
                            {
                                "seat": s.seat,
                                "kind": s.kind,
                                "name": s.name,
                                "token": s.token,
                                "bank": s.bank,
                                "auto": bool(s.auto),
                                "auto_shown": bool(s.auto_shown),
                            }
                            for s in seat_rows
                        ],
                        row.kind,
                        reserved,
                    )
                )
        return out

    def room_id(self, code: str) -> int | None:
        with self.engine.connect() as c:
            return c.execute(select(rooms.c.id).where(rooms.c.code == code)).scalar()

    # -- hands -----------------------------------------------------------------------------------
    def start_hand(
        self, room_id: int, number: int, dealer: int, seed: bytes, first: list[dict[str, Any]]
    ) -> int:
        """A new hand with its secret seed and its first events, in one transaction (with
        whatever was staged before it, so the log never gets ahead of itself).  The hand's id
        is the database's: the loop waits for this transaction (once a hand)."""
        batch = self.take_staged()

        def write(c: Connection) -> int:
            started = time.perf_counter()
            with c.begin():
                self.write_batch(c, batch or Batch([], [], [], {}))
                hand_id = _insert_hand(c, room_id, number, dealer, seed, first, None)
            self._timed_commit(started)
            return hand_id

        try:
            return self.transact(write)
        except Exception as error:
            if unreachable(error):
                self.restage(batch)  # not written: with the next commit
            raise

    def restage(self, batch: Batch | None) -> None:
        """Put a batch whose transaction did not happen back before what was staged since (it
        is written with the next commit)."""
        if batch is None:
            return
        self.staged_events[:0] = batch.events
        self.staged_finished[:0] = batch.finished
        self.staged_status[:0] = batch.status
        self.staged_seats = {**batch.seats, **self.staged_seats}

    def append(
        self,
        hand_id: int,
        start: int,
        new: list[dict[str, Any]],
        finished: bool,
        room_status: tuple[int, str] | None = None,
    ) -> None:
        """Stage one action's events at index ``start``, with the hand finished (and the room's
        new status) when it ends; :meth:`commit` writes everything staged in one transaction.

        The server commits before it sends anything (group commit: the actions accepted in
        one turn of the event loop share a transaction, :meth:`commit_async`)."""
        self.staged_events += [
            {"hand_id": hand_id, "idx": start + i, "body": _dumps(e)} for i, e in enumerate(new)
        ]
        if finished:
            self.staged_finished.append(hand_id)
        if room_status is not None:
            self.staged_status.append(room_status)
        if self.meter is not None:
            self.meter.action()

    def stage_seat(self, room_id: int, seat: int, bank: float, auto: bool, shown: bool) -> None:
        """Stage a seat's clock: its time bank and 托管 flags (written with the next commit)."""
        self.staged_seats[(room_id, seat)] = {"bank": bank, "auto": auto, "auto_shown": shown}

    def take_staged(self) -> Batch | None:
        """What was staged since the last commit (None: nothing), to be written in one
        transaction; the store stages anew from here."""
        staged = self.staged_events or self.staged_finished or self.staged_status
        if not (staged or self.staged_seats):
            return None
        batch = Batch(
            self.staged_events, self.staged_finished, self.staged_status, self.staged_seats
        )
        self.staged_events, self.staged_finished, self.staged_status = [], [], []
        self.staged_seats = {}
        return batch

    def commit(self) -> None:
        """Write what :meth:`append` staged (nothing to do when nothing is staged), waiting for
        the transaction — after those handed to the writer before it."""
        batch = self.take_staged()
        if batch is not None:
            self.refused(self.transact(lambda c: self.commit_batch(c, batch)))

    def commit_async(self) -> Future[Refusal] | None:
        """Hand what was staged to the writer (which must run: :meth:`start_writer`) as one
        transaction; None when nothing is staged.  The future's result: what the database
        refused (tell :meth:`refused` on the loop's thread)."""
        assert self.writer is not None, "start_writer() first"
        batch = self.take_staged()
        if batch is None:
            return None
        # The database unreachable: tried again until it is back (laizi.server.writer).
        return self.writer.submit(lambda c: self.commit_batch(c, batch), retry=True)

    def commit_batch(self, c: Connection, batch: Batch) -> Refusal:
        """One transaction of staged rows, timed for the :attr:`meter`."""
        started = time.perf_counter()
        with c.begin():
            refusal = self.write_batch(c, batch)
        self._timed_commit(started)
        return refusal

    def _write_staged(self, c: Connection) -> None:
        """Execute what is staged in the caller's transaction (a test's way to hold one open)."""
        batch = self.take_staged()
        if batch is not None:
            self.refused(self.write_batch(c, batch))

    def refused(self, refusal: Refusal) -> None:
        """The rooms whose writes the database refused (a cluster's process: see
        ``laizi.server.cluster.fence``); nothing outside a cluster."""

    def write_batch(self, c: Connection, batch: Batch) -> Refusal:
        """Execute a batch's rows (in the caller's transaction), timed for the :attr:`meter`."""
        if self.meter is None:
            _write_rows(c, batch)
            return NOTHING_REFUSED
        started = time.perf_counter()
        _write_rows(c, batch)
        self.meter.write(time.perf_counter() - started)
        return NOTHING_REFUSED

    def _timed_commit(self, started: float) -> None:
        if self.meter is not None:
            self.meter.commit(time.perf_counter() - started)

    def hands(self, room_id: int) -> list[HandRow]:
        out = []
        with self.engine.connect() as c:
            for row in c.execute(
                select(hands).where(hands.c.room_id == room_id).order_by(hands.c.number)
            ):
                bodies = c.execute(
                    select(events.c.body).where(events.c.hand_id == row.id).order_by(events.c.idx)
                ).scalars()
                out.append(
                    HandRow(
                        row.id,
                        row.number,
                        row.dealer,
                        bytes.fromhex(row.seed),
                        bool(row.finished),
                        [json.loads(b) for b in bodies],
                    )
                )
        return out

    def record(self, code: str, number: int) -> list[dict[str, Any]] | None:
        """A finished hand's record (None if there is no such finished hand)."""
        return hand_record(self.engine, code, number)


def _create_room(
    c: Connection,
    code: str,
    rules: Any,
    table_settings: dict[str, Any],
    kind: str,
    claims: Sequence[SeatClaim],
) -> int:
    result = c.execute(
        insert(rooms).values(
            code=code,
            rules=_dumps(rules),
            table_settings=_dumps(table_settings),
            status="waiting",
            created=time.time(),
            kind=kind,
        )
    )
    room_id = inserted_id(result)
    for seat, claim in enumerate(claims):
        if claim.bot:
            c.execute(
                insert(seats).values(
                    room_id=room_id, seat=seat, kind="bot", name=f"bot {seat}", token=None
                )
            )
        else:
            c.execute(
                insert(reserved_seats).values(
                    room_id=room_id,
                    seat=seat,
                    account_id=claim.account,
                    guest_key=claim.guest_key,
                    bot_token_id=claim.bot_token,
                )
            )
    return room_id


def _set_status(c: Connection, room_id: int, status: str) -> None:
    c.execute(update(rooms).where(rooms.c.id == room_id).values(status=status))


def _set_seat(
    c: Connection, room_id: int, seat: int, kind: str, name: str, token: str | None
) -> None:
    _clear_seat(c, room_id, seat)
    c.execute(insert(seats).values(room_id=room_id, seat=seat, kind=kind, name=name, token=token))


def _clear_seat(c: Connection, room_id: int, seat: int) -> None:
    c.execute(seats.delete().where((seats.c.room_id == room_id) & (seats.c.seat == seat)))


def _insert_hand(
    c: Connection,
    room_id: int,
    number: int,
    dealer: int,
    seed: bytes,
    first: list[dict[str, Any]],
    epoch: int | None,
) -> int:
    """A hand's row and its first events (written by the owner of ``epoch`` in a cluster)."""
    result = c.execute(
        insert(hands).values(
            room_id=room_id, number=number, dealer=dealer, seed=seed.hex(), finished=False
        )
    )
    hand_id = inserted_id(result)
    rows: list[dict[str, Any]] = [
        {"hand_id": hand_id, "idx": i, "body": _dumps(e)} for i, e in enumerate(first)
    ]
    if epoch is not None:
        for row in rows:
            row["epoch"] = epoch
    c.execute(insert(events), rows)
    return hand_id


def _write_rows(c: Connection, batch: Batch) -> None:
    for (room_id, seat), values in batch.seats.items():
        c.execute(
            update(seats)
            .where((seats.c.room_id == room_id) & (seats.c.seat == seat))
            .values(**values)
        )
    if batch.events:
        c.execute(insert(events), batch.events)
    for hand_id in batch.finished:
        c.execute(update(hands).where(hands.c.id == hand_id).values(finished=True))
    for room_id, status in batch.status:
        _set_status(c, room_id, status)


def hand_record(engine: Engine, code: str, number: int) -> list[dict[str, Any]] | None:
    """A finished hand's record (None if there is no such finished hand); a function of the
    engine alone, so that a worker process with its own engine can read it
    (``laizi.server.readonly``)."""
    if not 0 <= number < 2**31:  # no such hand, and the database's integers would overflow
        return None
    with engine.connect() as c:
        hand_id = c.execute(
            select(hands.c.id)
            .join(rooms, rooms.c.id == hands.c.room_id)
            .where((rooms.c.code == code) & (hands.c.number == number) & hands.c.finished)
        ).scalar()
        if hand_id is None:
            return None
        bodies = c.execute(
            select(events.c.body).where(events.c.hand_id == hand_id).order_by(events.c.idx)
        ).scalars()
        return [json.loads(b) for b in bodies]


def finished_hands(
    engine: Engine, code: str, start: int
) -> tuple[str | None, list[list[dict[str, Any]]]]:
    """The room's status (None: no such room) and the records of its finished hands numbered
    ``start``, ``start + 1``, … up to the first that is not finished.  The status is read first:
    a room that is over then has every hand it will ever finish among them."""
    with engine.connect() as c:
        status = c.execute(select(rooms.c.status).where(rooms.c.code == code)).scalar()
        if status is None:
            return None, []
        rows = c.execute(
            select(hands.c.id, hands.c.number)
            .join(rooms, rooms.c.id == hands.c.room_id)
            .where((rooms.c.code == code) & (hands.c.number >= start) & hands.c.finished)
            .order_by(hands.c.number)
        ).all()
        out: list[list[dict[str, Any]]] = []
        for row in rows:
            if row.number != start + len(out):
                break
            bodies = c.execute(
                select(events.c.body).where(events.c.hand_id == row.id).order_by(events.c.idx)
            ).scalars()
            out.append([json.loads(b) for b in bodies])
        return str(status), out


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
