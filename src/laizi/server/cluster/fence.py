"""Fencing at the database: a room's rows are written only by the owner of its current epoch.

A process of a cluster takes a room in two steps: first its lease in Redis (who *may* take it),
then :meth:`FencedStore.claim`, which raises ``rooms.owner_epoch`` by one in PostgreSQL and
remembers the new value.  From then on every transaction that writes the room's rows — the group
commit of its events, seat clocks and status, a new hand, a seat taken or freed — first locks the
room's row (``SELECT … FOR UPDATE``) and checks that the stored epoch is still the one this
process claimed.  If it is not, another process has taken the room since: nothing of the room
is written, and :attr:`FencedStore.on_lost` is told (the cluster drops the room and closes its
connections, whose clients reconnect to the new owner).

So an owner that was paused past its lease (``SIGSTOP``, a long garbage collection, a network
partition from Redis) can never write after it lost the room, whatever Redis says: the check and
the write are one transaction, and the claim waits for that row lock.  Either the old owner's
transaction commits first — then the new owner, whose claim waited for it, rebuilds from a log
that holds it — or the claim commits first and the old owner's write is refused.  Every event row
carries the epoch of the owner that wrote it (``events.epoch``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import event, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert

from laizi.server.matched import SeatClaim
from laizi.server.store import (
    Batch,
    HandRow,
    Refusal,
    Store,
    _clear_seat,
    _insert_hand,
    _set_seat,
    _set_status,
    cluster_settings,
    rooms,
)
from laizi.server.writer import unreachable

__all__ = ["Fenced", "FencedStore"]

log = logging.getLogger("laizi.server.cluster")


class Fenced(Exception):
    """A write refused: another process owns the room now (its epoch in the database moved)."""

    def __init__(self, room_id: int) -> None:
        self.room_id = room_id
        super().__init__(f"room {room_id}: another process owns it now")


class FencedStore(Store):
    """The store of a cluster's process: every write of a room checks the room's owner epoch."""

    def __init__(self, url: str, lease_ms: int = 3000) -> None:
        super().__init__(url)
        self.lease_ms = lease_ms
        # A process stopped in the middle of a transaction would hold its rooms' row locks
        # (and block their takeover) until it wakes: PostgreSQL ends such a transaction after
        # a lease (the process's own write then fails, as the fence would have it).
        event.listen(self.engine, "connect", self._session_limits)
        self.engine.dispose()
        self.epochs: dict[int, int] = {}
        """Room id → the epoch this process claimed (the rooms it may write)."""
        self.hand_rooms: dict[int, int] = {}
        """Hand id → its room id (the staged event rows name only the hand)."""
        self.on_lost: Callable[[set[int]], None] = lambda room_ids: None
        """Told the rooms whose writes were refused (called inside the refused commit)."""
        self.fenced = 0
        """Writes refused so far (rows of rooms another process had taken)."""

    def _session_limits(self, dbapi_connection: Any, _record: Any) -> None:
        if self.engine.dialect.name != "postgresql":
            return
        cursor = dbapi_connection.cursor()
        cursor.execute(f"SET idle_in_transaction_session_timeout = {int(self.lease_ms)}")
        cursor.close()
        dbapi_connection.commit()

    # -- ownership -------------------------------------------------------------------------------
    def claim(self, room_id: int) -> int:
        """Raise the room's owner epoch (after taking its lease); returns the new epoch.

        Waits for the row lock of a transaction the previous owner may have open, so that
        everything it committed is in the log this process then reads — at most a lease (then
        the claim fails, and the room is tried again later)."""
        with self.engine.begin() as c:
            if c.dialect.name == "postgresql":
                c.execute(text(f"SET LOCAL lock_timeout = {int(self.lease_ms)}"))
            epoch = c.execute(
                update(rooms)
                .where(rooms.c.id == room_id)
                .values(owner_epoch=rooms.c.owner_epoch + 1)
                .returning(rooms.c.owner_epoch)
            ).scalar_one()
        self.epochs[room_id] = int(epoch)
        return int(epoch)

    def shared_secret(self, name: str, fresh: str) -> str:
        """The cluster's secret named ``name``: ``fresh`` if no process stored one before, else
        the stored one — every process gets the same, whatever Redis lost (one statement:
        two processes starting together cannot both win)."""
        with self.engine.begin() as c:
            c.execute(
                pg_insert(cluster_settings)
                .values(name=name, value=fresh)
                .on_conflict_do_nothing(index_elements=["name"])
            )
            found = c.execute(
                select(cluster_settings.c.value).where(cluster_settings.c.name == name)
            ).scalar_one()
        return str(found)

    def live_codes(
        self, statuses: Sequence[str], code: str | None = None, owned: bool = False
    ) -> list[str]:
        """The codes of the rooms in one of ``statuses`` (only ``code``'s when given; only the
        ones some process has owned when ``owned``; no seats read: the sweep for rooms that
        need an owner asks it every few seconds)."""
        query = select(rooms.c.code).where(rooms.c.status.in_(statuses))
        if code is not None:
            query = query.where(rooms.c.code == code)
        if owned:
            query = query.where(rooms.c.owner_epoch > 0)
        with self.engine.connect() as c:
            return [str(found) for found in c.execute(query).scalars()]

    def release(self, room_id: int) -> None:
        """Forget a room (dropped or over): its hands too."""
        self.epochs.pop(room_id, None)
        for hand_id in [h for h, r in self.hand_rooms.items() if r == room_id]:
            del self.hand_rooms[hand_id]

    def discard_staged(self, room_id: int) -> None:
        """Throw away what a dropped room staged (none of it may be written now)."""
        rooms_of = self.hand_rooms
        self.staged_events = [r for r in self.staged_events if rooms_of[r["hand_id"]] != room_id]
        self.staged_finished = [h for h in self.staged_finished if rooms_of[h] != room_id]
        self.staged_status = [s for s in self.staged_status if s[0] != room_id]
        self.staged_seats = {k: v for k, v in self.staged_seats.items() if k[0] != room_id}

    def lost(
        self, c: Any, room_ids: Iterable[int], epochs: dict[int, int | None] | None = None
    ) -> set[int]:
        """Lock the rooms' rows; the ones whose stored epoch is not the one this process holds
        (``epochs``: the ones it held when the rows were staged — the writer's thread reads
        those, never :attr:`epochs`, which the loop changes)."""
        wanted = sorted(set(room_ids))
        if not wanted:
            return set()
        held = self.epochs if epochs is None else epochs
        stored = dict(
            c.execute(
                select(rooms.c.id, rooms.c.owner_epoch)
                .where(rooms.c.id.in_(wanted))
                .order_by(rooms.c.id)
                .with_for_update()
            ).all()
        )
        return {r for r in wanted if held.get(r) is None or stored.get(r) != held[r]}

    def refused(self, refusal: Refusal) -> None:
        """Count the refused rows, log, tell :attr:`on_lost` (on the loop's thread)."""
        lost, rows = refusal
        if not lost:
            return
        self.fenced += rows
        log.warning("refused writes of room(s) %s: another process owns them now", sorted(lost))
        self.on_lost(lost)

    # -- writes ----------------------------------------------------------------------------------
    def create_room(
        self,
        code: str,
        rules: Any,
        table_settings: dict[str, Any],
        kind: str = "friendly",
        claims: Sequence[SeatClaim] = (),
    ) -> int:
        room_id = super().create_room(code, rules, table_settings, kind, claims)
        self.claim(room_id)
        return room_id

    def create_unowned_room(
        self,
        code: str,
        rules: Any,
        table_settings: dict[str, Any],
        kind: str,
        claims: Sequence[SeatClaim],
    ) -> int:
        """A room written to the database that no process owns yet (owner epoch 0): the one
        that takes it over claims it (:meth:`claim`) and rebuilds it from its rows."""
        return super().create_room(code, rules, table_settings, kind, claims)

    def take_staged(self) -> Batch | None:
        """The staged rows, each event row stamped with its room's epoch, and the epochs the
        writer checks them against (taken now, on the loop's thread)."""
        batch = super().take_staged()
        if batch is None:
            return None
        hand_rooms, epochs = self.hand_rooms, self.epochs
        batch.hand_rooms = {h: hand_rooms[h] for h in {r["hand_id"] for r in batch.events}}
        batch.hand_rooms.update((h, hand_rooms[h]) for h in batch.finished)
        touched = set(batch.hand_rooms.values())
        touched |= {room_id for room_id, _ in batch.status}
        touched |= {room_id for room_id, _ in batch.seats}
        batch.epochs = {room_id: epochs.get(room_id) for room_id in touched}
        for row in batch.events:
            row["epoch"] = batch.epochs[batch.hand_rooms[row["hand_id"]]] or 0
        return batch

    def write_batch(self, c: Any, batch: Batch) -> Refusal:
        """The fence: lock the batch's rooms, drop the rows of those another process took."""
        lost = self.lost(c, batch.epochs, batch.epochs)
        refused = 0
        if lost:
            rooms_of = batch.hand_rooms
            kept = [r for r in batch.events if rooms_of[r["hand_id"]] not in lost]
            refused = max(1, len(batch.events) - len(kept))
            batch = Batch(
                kept,
                [h for h in batch.finished if rooms_of[h] not in lost],
                [s for s in batch.status if s[0] not in lost],
                {k: v for k, v in batch.seats.items() if k[0] not in lost},
            )
        super().write_batch(c, batch)
        return lost, refused

    def start_hand(
        self, room_id: int, number: int, dealer: int, seed: bytes, first: list[dict[str, Any]]
    ) -> int:
        batch = self.take_staged()
        epoch = self.epochs.get(room_id)

        def write(c: Any) -> tuple[int | None, Refusal]:
            started = time.perf_counter()
            with c.begin():
                refusal = self.write_batch(c, batch or Batch([], [], [], {}))
                lost = self.lost(c, [room_id], {room_id: epoch})
                # (refused: the other rooms' staged rows are written all the same)
                hand_id = (
                    None if lost else _insert_hand(c, room_id, number, dealer, seed, first, epoch)
                )
            self._timed_commit(started)
            return hand_id, refusal

        try:
            hand_id, refusal = self.transact(write)
        except Exception as error:
            if unreachable(error):
                self.restage(batch)  # not written: with the next commit
            raise
        self.refused(refusal)
        if hand_id is None:
            self.refused(({room_id}, len(first)))
            raise Fenced(room_id)
        self.hand_rooms[hand_id] = room_id
        return hand_id

    def set_status(self, room_id: int, status: str) -> None:
        self._fenced_write(room_id, lambda c: _set_status(c, room_id, status))

    def set_seat(self, room_id: int, seat: int, kind: str, name: str, token: str | None) -> None:
        self._fenced_write(room_id, lambda c: _set_seat(c, room_id, seat, kind, name, token))

    def clear_seat(self, room_id: int, seat: int) -> None:
        self._fenced_write(room_id, lambda c: _clear_seat(c, room_id, seat))

    def _fenced_write(self, room_id: int, fn: Callable[[Any], None]) -> None:
        """``fn`` in a transaction that first checks the room's epoch (not written if it moved)."""
        epoch = self.epochs.get(room_id)

        def write(c: Any) -> set[int]:
            with c.begin():
                lost = self.lost(c, [room_id], {room_id: epoch})
                if not lost:
                    fn(c)
            return lost

        self.refused((self.transact(write), 1))

    # -- reads -----------------------------------------------------------------------------------
    def hands(self, room_id: int) -> list[HandRow]:
        out = super().hands(room_id)
        for row in out:
            self.hand_rooms[row.id] = room_id
        return out
