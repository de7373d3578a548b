"""The store's writer: one thread, with its own connection, that runs every write transaction of
the server in the order it was handed them — so the event loop never waits on the disk or on the
database's round trip (issue 31).

The hub hands it the rows all tables staged in one turn of the loop (one transaction: the group
commit) and lets those tables' messages go when the returned future is done
(:meth:`laizi.server.hub.Hub.flush`).  The rare writes whose answer the loop needs at once (a new
room's id, a hand's id) go through the same queue and wait for it (:meth:`Writer.call`): they stay
in order with the group commits before them.

SQLite: the writer's connections do not checkpoint the write-ahead log on commit
(``wal_autocheckpoint=0``); :class:`Checkpointer` does it every second in its own thread, as a
``PASSIVE`` checkpoint, which runs beside the writer and the readers without blocking them.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine

__all__ = ["CHECKPOINT_SECONDS", "Checkpointer", "Writer"]

log = logging.getLogger("laizi.server")

T = TypeVar("T")

CHECKPOINT_SECONDS = 1.0
"""How often the SQLite write-ahead log is checkpointed (in the background)."""

Job = tuple[Callable[[Connection], Any], "Future[Any]"]


class Writer:
    """One thread that runs ``fn(connection)`` jobs in order, each on the writer's connection
    (``fn`` opens its own transaction).  A job that fails fails its future alone: the connection
    is closed and a new one is made for the next job."""

    def __init__(self, engine: Engine, name: str = "laizi-writer") -> None:
        self.engine = engine
        self.jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self.submitted = 0  # counted by the loop's thread
        self.done = 0  # counted by the writer's thread
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def submit(self, fn: Callable[[Connection], T]) -> Future[T]:
        """Run ``fn`` after every job handed over before it; its result (or error) in the future."""
        future: Future[T] = Future()
        self.submitted += 1
        self.jobs.put((fn, future))
        return future

    @property
    def queued(self) -> int:
        """Jobs handed over and not done yet."""
        return self.submitted - self.done

    def call(self, fn: Callable[[Connection], T]) -> T:
        """:meth:`submit` and wait for the result (raises what ``fn`` raised)."""
        return self.submit(fn).result()

    def close(self) -> None:
        """Run what was handed over, then stop the thread."""
        if self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join()

    def _run(self) -> None:
        connection: Connection | None = None
        while (job := self.jobs.get()) is not None:
            fn, future = job
            try:
                if connection is None:
                    connection = self.engine.connect()
                future.set_result(fn(connection))
            except BaseException as error:  # the job's failure is its future's, not the thread's
                future.set_exception(error)
                if connection is not None:
                    connection.close()  # a broken connection is not reused
                    connection = None
            finally:
                self.done += 1
        if connection is not None:
            connection.close()


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
