"""The store's writer (issue 31): group commits off the event loop, messages held until their
commit is done, a refused commit sends nothing of its batch, the loop runs on while it waits."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, func, select

from laizi.server.hub import Hub
from laizi.server.metrics import ServerMetrics
from laizi.server.room import Conn
from laizi.server.store import Batch, Refusal, Store, events
from tests.cluster_helpers import pg_url

__all__ = ["pg_url"]  # the fixture, for pytest

TABLES = 8
START = [{"type": "start"}]


class Table:
    """A table as the hub sees it: a hand in the database and one connection's outbox."""

    def __init__(self, store: Store, n: int) -> None:
        room = store.create_room(f"WRT{n:03d}", "wuhan-hongzhong-kaikou", {})
        self.hand = store.start_hand(room, 0, 0, bytes([n]) * 32, START)
        self.got: list[dict[str, Any]] = []
        self.conn = Conn(self.got.append)
        self.actions = 0

    def act(self, store: Store, hub: Hub) -> None:
        """What a room does for an accepted action: stage its events, post its message."""
        self.actions += 1
        store.append(self.hand, self.actions, [{"type": "discard", "n": self.actions}], False)
        hub.post(self.conn, {"type": "event", "seq": self.actions})


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    made = Store(db_url)
    made.meter = ServerMetrics()
    assert made.start_writer()
    yield made
    made.close()


def stored(store: Store, hand: int) -> int:
    """The hand's event rows in the database (read beside the writer)."""
    with store.engine.connect() as c:
        return int(c.execute(select(func.count()).where(events.c.hand_id == hand)).scalar_one())


def commits(store: Store) -> float:
    assert isinstance(store.meter, ServerMetrics)
    value = store.meter.registry.get_sample_value("laizi_store_commit_seconds_count")
    return float(value or 0)


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(body(), 60))


async def until(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


class SlowWrites:
    """The store's batches wait in the writer's thread until :meth:`open` (or ``delay``)."""

    def __init__(self, store: Store, delay: float | None = None) -> None:
        self.gate = threading.Event()
        self.writing = threading.Event()
        """Set while a batch waits in the writer."""
        self.done = 0
        original = store.write_batch

        def write_batch(c: Connection, batch: Batch) -> Refusal:
            self.writing.set()
            if delay is None:
                self.gate.wait(30)
            else:
                time.sleep(delay)
            self.writing.clear()
            self.done += 1
            return original(c, batch)

        store.write_batch = write_batch  # type: ignore[method-assign]

    def open(self) -> None:
        self.gate.set()


def test_the_actions_of_one_tick_share_one_commit(store: Store) -> None:
    """Eight tables act in the same turn of the loop: one transaction writes all eight (the
    commit histogram counts one), and each table's message goes once it is done."""

    async def body() -> None:
        hub = Hub(store)
        tables = [Table(store, n) for n in range(TABLES)]
        before = commits(store)
        for table in tables:
            table.act(store, hub)
        await until(lambda: all(t.got for t in tables))
        assert commits(store) == before + 1
        assert [stored(store, t.hand) for t in tables] == [2] * TABLES
        assert [t.got for t in tables] == [[{"type": "event", "seq": 1}]] * TABLES

    run(body)


def test_nothing_is_sent_before_its_commit_returns_and_order_is_kept(store: Store) -> None:
    """A writer held in its commit: the loop goes on, nothing of that batch (nor of the next
    turn's, which waits behind it) is sent and neither is in the database; once the commit is
    done each connection gets its messages in order, and the rows were there when they went."""

    async def body() -> None:
        hub = Hub(store)
        table, other = Table(store, 1), Table(store, 2)
        seen_in_database: list[int] = []

        def send_many(messages: list[dict[str, Any]]) -> None:
            seen_in_database.append(stored(store, table.hand))
            table.got.extend(messages)

        table.conn.send_many = send_many
        slow = SlowWrites(store)
        table.act(store, hub)
        await until(slow.writing.is_set)
        other.act(store, hub)  # the next turn: its own batch, behind the held one
        table.act(store, hub)
        for _ in range(20):  # the loop runs meanwhile, and sends nothing
            await asyncio.sleep(0.01)
        assert table.got == [] and other.got == []
        assert stored(store, table.hand) == 1 and stored(store, other.hand) == 1
        slow.open()
        await until(lambda: len(table.got) == 2 and len(other.got) == 1)
        assert [m["seq"] for m in table.got] == [1, 2]
        assert stored(store, table.hand) == 3 and stored(store, other.hand) == 2
        assert seen_in_database and seen_in_database[0] >= 2  # written before sent

    run(body)


def test_a_refused_commit_sends_nothing_of_its_batch_and_the_next_goes_on(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """The database refuses a batch (an event row it holds already): none of that batch's
    messages are sent — of either table in it — and none of its rows are written (it was one
    transaction); the failure is logged — as a failed commit on the loop did before — and the
    next turn's batch is written and sent as usual."""

    async def body() -> None:
        hub = Hub(store)
        bad, good = Table(store, 1), Table(store, 2)
        good.act(store, hub)
        store.append(bad.hand, 0, [{"type": "again"}], False)  # idx 0 is taken: refused
        hub.post(bad.conn, {"type": "event", "seq": 1})
        with caplog.at_level(logging.ERROR, "laizi.server"):
            await asyncio.sleep(0)  # the flush: one batch handed to the writer
            assert len(hub.pending) == 1
            await until(lambda: not hub.pending)
        assert bad.got == [] and good.got == []
        assert stored(store, good.hand) == 1 and stored(store, bad.hand) == 1
        assert "the database refused a write" in caplog.text
        good.act(store, hub)
        await until(lambda: len(good.got) == 1)
        assert stored(store, good.hand) == 2

    run(body)


def test_the_loop_runs_on_while_a_commit_takes_200_ms(store: Store) -> None:
    """Six commits sleep 200 ms each in the writer's thread; meanwhile the loop keeps its timers:
    the loop-lag histogram (a 100 ms timer, ``laizi.server.metrics``) sees no lag near the
    commit's, and a 10 ms ticker runs while each commit is in progress."""

    async def body() -> None:
        hub = Hub(store)
        table = Table(store, 1)
        metrics = store.meter
        assert isinstance(metrics, ServerMetrics)
        slow = SlowWrites(store, delay=0.2)
        metrics.start(None)
        ticks_while_writing = 0
        for n in range(1, 7):
            table.act(store, hub)
            while len(table.got) < n:
                await asyncio.sleep(0.01)
                ticks_while_writing += slow.writing.is_set()
        metrics.stop()
        assert slow.done == 6
        assert ticks_while_writing >= 6 * 5  # of ~20 a commit on an idle machine
        registry = metrics.registry
        count = registry.get_sample_value("laizi_loop_lag_seconds_count") or 0
        low = registry.get_sample_value("laizi_loop_lag_seconds_bucket", {"le": "0.1"}) or 0
        assert count >= 8
        assert count - low <= 2  # (two late ticks allowed: the machine is shared)

    run(body)


def test_the_fence_is_checked_in_the_writers_transaction(pg_url: str) -> None:
    """A cluster's process: once another process claimed the room, the group commit the writer
    runs writes none of its rows (the epoch check and the write are one transaction); the
    refusal comes back with the future and is told on the caller's thread, not the writer's."""
    from laizi.server.cluster.fence import FencedStore

    old, new = FencedStore(pg_url, 60_000), FencedStore(pg_url, 60_000)
    lost: list[tuple[set[int], str]] = []
    old.on_lost = lambda rooms: lost.append((rooms, threading.current_thread().name))
    try:
        assert old.start_writer()
        room = old.create_room("FENCEW", "wuhan-hongzhong-kaikou", {})
        hand = old.start_hand(room, 0, 0, b"\x01" * 32, START)
        old.append(hand, 1, [{"type": "deal"}], False)
        future = old.commit_async()
        assert future is not None and future.result(30) == (set(), 0)
        assert new.claim(room) == 2
        old.append(hand, 2, [{"type": "draw"}], False)
        old.stage_seat(room, 0, 1.0, True, True)
        future = old.commit_async()
        assert future is not None
        refusal = future.result(30)
        assert refusal[0] == {room} and refusal[1] >= 1 and lost == []
        old.refused(refusal)
        assert lost == [({room}, threading.current_thread().name)] and old.fenced >= 1
        assert [e["type"] for e in new.hands(room)[0].events] == ["start", "deal"]
    finally:
        old.close()
        new.close()


def test_a_taken_seats_account_link_is_written_by_the_writer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat taken by an account (or a guest) is linked (or unlinked) on the writer's thread, in
    order with the tables' commits — from the loop's thread it would wait on SQLite's write lock
    beside them (issue 31)."""
    from types import SimpleNamespace

    from laizi.server import joining
    from laizi.server.accounts import Accounts
    from laizi.server.ratings import seat_accounts
    from tests.server_helpers import FAST_HASH

    ann = Accounts(store.engine, hasher=FAST_HASH).register("Ann", "a long password").id
    room = store.create_room("LNK001", "wuhan-hongzhong-kaikou", {})
    threads: list[str] = []
    for name in ("link_seat_in", "unlink_seat_in"):
        original = getattr(joining, name)

        def spy(*args: Any, _original: Any = original) -> None:
            threads.append(threading.current_thread().name)
            _original(*args)

        monkeypatch.setattr(joining, name, spy)
    table = SimpleNamespace(store=store, id=room, kind="friendly", kept_seat=lambda token: None)
    join = SimpleNamespace(spectate=False, token=None)
    joining.after_join(table, SimpleNamespace(seat=2, account=SimpleNamespace(id=ann)), join)  # type: ignore[arg-type]
    with store.engine.connect() as c:
        rows = c.execute(select(seat_accounts.c.seat, seat_accounts.c.account_id)).all()
    assert [tuple(r) for r in rows] == [(2, ann)]
    joining.after_join(table, SimpleNamespace(seat=2, account=None), join)  # type: ignore[arg-type]
    with store.engine.connect() as c:
        assert c.execute(select(func.count()).select_from(seat_accounts)).scalar_one() == 0
    assert threads == ["laizi-writer", "laizi-writer"]
