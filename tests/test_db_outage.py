"""A database outage loses nothing (issue 30 item 1): the writes that can't reach the database
are kept and tried again, the tables' clocks stand still meanwhile and the players are told
(``database``), a deal that fell in the outage is dealt again, and every table plays on."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from laizi.server.hub import Hub
from laizi.server.room.base import Clock
from laizi.server.store import Store
from laizi.server.writer import Writer
from tests.cluster_helpers import Player, check_table
from tests.server_helpers import InProcessServer

OUTAGE_S = 3.0
BACK_WITHIN_S = 5.0
"""After the database returns, every table plays on within this (issue 30)."""


class Outage:
    """The database unreachable from the server's writer: while :attr:`down` is set, every job
    the writer runs (each try of a group commit, a deal, a seat) fails as it does when
    PostgreSQL is stopped (``OperationalError``).  :meth:`at_next_deal`: the outage begins with
    the next deal's write and lasts ``seconds``."""

    def __init__(self, store: Store) -> None:
        writer = store.writer
        assert isinstance(writer, Writer)
        self.down = threading.Event()
        self.failed = 0
        self.ended_at: float | None = None
        submit = writer.submit

        def guarded_submit(fn: Callable[[Connection], Any], *args: Any, **kwargs: Any) -> Any:
            def guarded(c: Connection) -> Any:
                if self.down.is_set():
                    self.failed += 1
                    raise OperationalError("COMMIT", {}, ConnectionRefusedError("refused"))
                return fn(c)

            return submit(guarded, *args, **kwargs)

        writer.submit = guarded_submit  # type: ignore[method-assign]
        self.store = store
        self.armed: float | None = None
        start_hand = store.start_hand

        def start_hand_in_outage(*args: Any) -> int:
            if self.armed is not None:
                self.begin(self.armed)
                self.armed = None
            return start_hand(*args)

        store.start_hand = start_hand_in_outage  # type: ignore[method-assign]

    def at_next_deal(self, seconds: float) -> None:
        self.armed = seconds

    def begin(self, seconds: float) -> None:
        self.down.set()

        def end() -> None:
            self.ended_at = time.monotonic()
            self.down.clear()

        threading.Timer(seconds, end).start()


def test_an_outage_at_a_deal_loses_no_event_and_every_table_plays_on(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "laizi.server")
    fast = {"hands": 2, "bot_delay_ms": 0, "between_hands_ms": 100, "settlement_seconds": 0}
    with InProcessServer(db_url) as srv:
        outage = Outage(srv.hub.store)
        port = srv.port
        people = srv.create_room(players=1, action_seconds=30, **fast)["code"]
        person = Player(people, [port], 1)
        watcher = Player(people, [port], 2, spectate=True)

        async def main() -> list[Player]:
            deadline = time.monotonic() + 240
            tasks = [asyncio.create_task(watcher.run(deadline))]  # sees the table from its start
            await until(lambda: any(m["type"] == "joined" for m in watcher.messages))
            tasks.append(asyncio.create_task(person.run(deadline)))
            await until(lambda: any(m["type"] == "prompt" for m in person.messages))
            # A bots-only table made now: its first deal is the write the outage begins with.
            outage.at_next_deal(OUTAGE_S)
            table = {"players": 0, **fast}
            bots = srv.call(lambda: srv.hub.create_room({"table": table}).code)
            assert outage.down.is_set()
            bot_watcher = Player(bots, [port], 3, spectate=True)
            tasks.append(asyncio.create_task(bot_watcher.run(deadline)))
            viewers = [person, watcher, bot_watcher]
            await until(lambda: all(told(p, False) for p in viewers))
            seen = [len(events(p)) for p in viewers]
            await until(lambda: outage.ended_at is not None, OUTAGE_S * 4)
            # nothing was sent while the writes failed: what was accepted is held, not lost
            assert [len(events(p)) for p in viewers] == seen
            assert outage.failed >= 2
            await until(lambda: all(told(p, True) for p in viewers), BACK_WITHIN_S)
            # every table plays on: a new event for every viewer soon after the database is back
            await until(
                lambda: all(len(events(p)) > n for p, n in zip(viewers, seen, strict=True)),
                BACK_WITHIN_S,
            )
            await asyncio.gather(*tasks)
            return viewers

        person, watcher, bot_watcher = asyncio.run(main())
        check_table(port, people, [person, watcher])  # no event lost, duplicated, reordered
        check_table(port, bot_watcher.code, [bot_watcher])
        assert "the deal could not be written" in caplog.text
        assert not any(p.reconnects for p in (person, watcher, bot_watcher))


def events(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.messages if m["type"] == "event"]


def told(player: Player, ok: bool) -> bool:
    """The player was told the database is unreachable (``ok`` False) or back (True)."""
    return any(m["type"] == "database" and m["ok"] is ok for m in player.messages)


async def until(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def test_a_clock_that_stood_still_fires_its_timers_that_much_later() -> None:
    async def main() -> None:
        clock = Clock("TEST01")
        fired: list[float] = []
        loop = asyncio.get_running_loop()
        start = clock.now()
        clock.later(100, lambda: fired.append(loop.time()))
        clock.freeze()
        await asyncio.sleep(0.3)
        assert fired == [] and clock.now() == pytest.approx(start, abs=0.05)
        clock.later(50, lambda: fired.append(loop.time()))  # made while it stands still
        thawed = loop.time()
        clock.thaw()
        await asyncio.sleep(0.4)
        assert len(fired) == 2
        assert fired[0] - thawed == pytest.approx(0.1, abs=0.08)  # the 100 ms it still had
        assert clock.now() - start == pytest.approx(loop.time() - thawed, abs=0.08)

    asyncio.run(main())


class FakeCluster:
    def __init__(self) -> None:
        self.let_go_calls = 0

    def let_go(self) -> None:
        self.let_go_calls += 1


def test_a_cluster_lets_its_rooms_go_once_the_writes_failed_too_long(tmp_path: Path) -> None:
    async def main() -> None:
        hub = Hub(Store(f"sqlite:///{tmp_path / 'db.sqlite3'}"))
        cluster = FakeCluster()
        hub.cluster = cluster
        hub.release_after_s = 0.2
        hub.writes_failing(True)
        hub.writes_failing(False)  # back in time: nothing let go
        await asyncio.sleep(0.4)
        assert cluster.let_go_calls == 0
        hub.writes_failing(True)
        await asyncio.sleep(0.4)
        assert cluster.let_go_calls == 1

    asyncio.run(main())
