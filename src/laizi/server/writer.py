"""The store's writer: one thread, with its own connection, that runs every write transaction of
the server in the order it was handed them — so the event loop never waits on the disk or on the
database's round trip (issue 31).

The hub hands it the rows all tables staged in one turn of the loop (one transaction: the group
commit) and lets those tables' messages go when the returned future is done
(:meth:`laizi.server.hub.Hub.flush`).  The rare writes whose answer the loop needs at once (a new
room's id, a hand's id) go through the same queue and wait for it (:meth:`Writer.call`): they stay
in order with the group commits before them.

The database unreachable (PostgreSQL stopped, a connection cut: :func:`unreachable`): a group
commit is not failed but tried again, with backoff (:data:`RETRY_FIRST_S` doubling to
:data:`RETRY_MAX_S`), until it succeeds — the jobs behind it wait, in order, and the hub keeps
their messages.  :attr:`Writer.on_state` is told when the writes start and stop failing (the
hub pauses the tables' clocks meanwhile); a job the loop waits for (:meth:`Writer.call`) is
withdrawn (:class:`WriterDown`) rather than block the loop behind the retried commit.

SQLite: the writer's connections do not checkpoint the write-ahead log on commit
(``wal_autocheckpoint=0``); :class:`Checkpointer` does it every second in its own thread, as a
``PASSIVE`` checkpoint, which runs beside the writer and the readers without blocking them.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

__all__ = [
    "CHECKPOINT_SECONDS",
    "RETRY_FIRST_S",
    "RETRY_MAX_S",
    "Checkpointer",
    "Writer",
    "WriterDown",
    "unreachable",
]

log = logging.getLogger("laizi.server")

T = TypeVar("T")

CHECKPOINT_SECONDS = 1.0
"""How often the SQLite write-ahead log is checkpointed (in the background)."""

RETRY_FIRST_S = 0.05
"""The first wait before a group commit that failed to reach the database is tried again."""
RETRY_MAX_S = 1.0
"""The longest wait between two tries (the wait doubles from :data:`RETRY_FIRST_S`)."""

Job = tuple[Callable[[Connection], Any], "Future[Any]", bool]


class WriterDown(Exception):
    """The database can't be reached now: the writer is retrying a group commit."""


def unreachable(error: BaseException) -> bool:
    """A failure to reach the database (tried again), not a write the database refused."""
    if isinstance(error, WriterDown | OperationalError | InterfaceError):
        return True
    return isinstance(error, DBAPIError) and bool(error.connection_invalidated)


class Writer:
    """One thread that runs ``fn(connection)`` jobs in order, each on the writer's connection
    (``fn`` opens its own transaction).  A job that fails fails its future alone: the connection
    is closed and a new one is made for the next job — except a ``retry`` job (a group commit)
    that could not reach the database: it is tried again until it succeeds."""

    def __init__(self, engine: Engine, name: str = "laizi-writer") -> None:
        self.engine = engine
        self.jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self.submitted = 0  # counted by the loop's thread
        self.done = 0  # counted by the writer's thread
        self.failing = False
        """A group commit could not reach the database and is being tried again."""
        self.retries = 0
        """Tries that failed to reach the database so far."""
        self.on_state: Callable[[bool], None] = lambda failing: None
        """Told (on the writer's thread) when the writes start (True) and stop failing."""
        self.stopping = threading.Event()
        """:meth:`close` gave up waiting: a retried commit stops being tried."""
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def submit(self, fn: Callable[[Connection], T], retry: bool = False) -> Future[T]:
        """Run ``fn`` after every job handed over before it; its result (or error) in the future.
        ``retry``: tried again while the database can't be reached (:func:`unreachable`)."""
        future: Future[T] = Future()
        self.submitted += 1
        self.jobs.put((fn, future, retry))
        return future

    @property
    def queued(self) -> int:
        """Jobs handed over and not done yet."""
        return self.submitted - self.done

    def call(self, fn: Callable[[Connection], T]) -> T:
        """:meth:`submit` and wait for the result (raises what ``fn`` raised).  While a group
        commit is being retried (:attr:`failing`) a job still queued behind it is withdrawn
        (:class:`WriterDown`): the loop never waits for the database to come back."""
        future = self.submit(fn)
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                if self.failing and future.cancel():
                    raise WriterDown("the database can't be reached") from None

    def close(self, timeout: float | None = None) -> bool:
        """Run what was handed over, then stop the thread; False if that took longer than
        ``timeout`` (the commit being retried then stops; the thread is left to end)."""
        if self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join(timeout)
            if self.thread.is_alive():
                self.stopping.set()
                return False
        return True

    def _run(self) -> None:
        connection: Connection | None = None
        while (job := self.jobs.get()) is not None:
            fn, future, retry = job
            if not future.set_running_or_notify_cancel():  # withdrawn (:meth:`call`)
                self.done += 1
                continue
            wait = RETRY_FIRST_S
            while True:
                try:
                    if connection is None:
                        connection = self.engine.connect()
                    result = fn(connection)
                except BaseException as error:  # the job's failure is its future's
                    if connection is not None:
                        connection.close()  # a broken connection is not reused
                        connection = None
                    if unreachable(error):
                        self._failing(True, error)
                        if retry and not self.stopping.is_set():
                            self.stopping.wait(wait)
                            wait = min(RETRY_MAX_S, wait * 2)
                            continue
                    future.set_exception(error)
                else:
                    future.set_result(result)
                    self._failing(False, None)
                break
            self.done += 1
        if connection is not None:
            connection.close()

    def _failing(self, failing: bool, error: BaseException | None) -> None:
        if failing:
            self.retries += 1
        if failing == self.failing:
            return
        self.failing = failing
        if failing:
            log.warning("the database can't be reached (%s): writes are retried", error)
        else:
            log.warning("the database is back: writes go on")
        try:
            self.on_state(failing)
        except Exception:
            log.exception("writer: on_state failed")


class Checkpointer:
    """SQLite: ``PRAGMA wal_checkpoint(PASSIVE)`` every ``every`` seconds in its own thread."""

    def __init__(self, engine: Engine, every: float = CHECKPOINT_SECONDS) -> None:
        self.engine = engine
        self.every = every
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="laizi-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.wait(self.every):
            try:
                with self.engine.connect() as c:
                    c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:  # the log only grows until the next one succeeds
                log.exception("the write-ahead log could not be checkpointed")

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
