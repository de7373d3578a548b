"""The matchmaking queue of a cluster: one queue in Redis, one matchmaker at a time.

- **The queue lives in Redis.**  ``mm:state`` holds everything the pure
  :class:`~laizi.server.matchmaking.Matchmaker` holds (who waits in which queue since when, their
  rating, points, address and account, the matches awaiting their ``accept`` and who accepted,
  the no-show record and bars: :meth:`~laizi.server.matchmaking.Matchmaker.snapshot`), and
  ``mm:inbox`` the players' requests not yet applied (``queue``, ``unqueue``, ``accept``, a seat
  taken, a connection lost), oldest first.  No process's death loses either.
- **One matchmaker, fenced.**  Every process tries, every tick (:data:`TICK_S`), to begin a
  round (``MM_BEGIN``): the process whose token ``NODE:EPOCH`` holds ``mm:lease`` — or takes it
  when nobody does, with a new epoch — reads the inbox, applies it to its matchmaker (restored
  from ``mm:state`` when the version moved), ticks, makes the rooms of the confirmed matches
  (written to the database with no owner), and ends the round (``MM_COMMIT``) with one script
  that checks its token still holds the lease and only then writes the new state, takes the
  requests it applied off the inbox, lists and announces the new rooms, and adds the players'
  messages to ``mm:out``.  A matchmaker paused past its lease (``SIGSTOP``) that wakes up finds
  its token gone: nothing it did is written or sent, and the rooms it made are closed
  (``expired``) — nobody is matched twice.  Requests it read stay in the inbox for the next
  matchmaker.
- **Every process serves its own players.**  Their requests go into the inbox (in order; a
  ``mm:wake`` notice starts a round at once instead of at the next tick); the messages the
  rounds add to the stream ``mm:out`` are read by every process from where it left off (a
  moment without Redis loses none) and delivered to its own connections of each person (an
  ``error`` only to the connection that asked).  ``GET /api/queue`` answers from the counts the
  last round published.
- **Outages.**  Redis not answering: a request is refused with ``queue_unavailable`` (zh/en),
  the matchmaker's round fails and is tried again at the next tick — its state is read back from
  Redis first, and a room it made whose round may not have been written is closed unless Redis
  lists it.  PostgreSQL not answering: the match's room can't be made, its people are put back
  in the queue (``lapsed`` ``requeued``), as on a single process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from sqlalchemy import update

from laizi.server.matched import RoomKind, SeatClaim, matched_table
from laizi.server.matchmaking import Matchmaker, MatchSettings, person_data, person_of
from laizi.server.protocol import ProtocolError, Queue
from laizi.server.queueing import TICK_S, Queueing, live_table_of, load_history
from laizi.server.room.base import new_code
from laizi.server.store import rooms

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from laizi.server.cluster.fence import FencedStore
    from laizi.server.cluster.node import Cluster
    from laizi.server.room import Conn

from laizi.server.cluster import scripts

__all__ = ["BATCH", "HOLD_S", "OUT_KEPT", "ClusterQueueing"]

log = logging.getLogger("laizi.server.cluster")

BATCH = 500
"""The most requests a matchmaker's round takes from the inbox."""

OUT_KEPT = 10_000
"""About how many rounds' messages the stream ``mm:out`` keeps (a process that lost Redis
for a moment reads on from where it was)."""
HOLD_S = 1.0
"""How long a request waits for Redis before it is refused (``queue_unavailable``)."""

UNAVAILABLE = (
    "the matchmaking queue is unavailable for now: try again soon",
    "匹配队列暂时不可用，请稍后再试",
)


class ClusterQueueing(Queueing):
    """:class:`~laizi.server.queueing.Queueing` of a cluster's process: its players' requests
    into Redis, their messages out of it, and the matchmaker's rounds when it holds the lease."""

    def __init__(
        self,
        engine: Engine,
        cluster: Cluster,
        store: FencedStore,
        join_seconds: float,
        settings: MatchSettings | None = None,
    ) -> None:
        self.cluster = cluster
        self.store = store
        self.made: list[str] = []
        """The rooms made in the current round."""
        self.out: list[list[Any]] | None = None
        """The current round's messages: ``[key, connection id or None, message]``."""
        super().__init__(engine, self._make_room, join_seconds, settings)
        self.empty = Matchmaker(settings, presets=self.mm.presets).snapshot()
        self.homes: dict[str, str] = {}
        """The process each waiting person queued through (part of ``mm:state``): when it
        dies, its people's connections are gone — their grace starts."""
        self.absent: dict[str, float] = {}
        """Since when each such process has been seen without its presence in Redis."""
        self.token = ""
        """The lease's token while this process is the matchmaker ('' otherwise)."""
        self.version = -1
        """The version of ``mm:state`` that :attr:`mm` holds (-1: none: read it first)."""
        self.known = -1
        """The last version of ``mm:state`` this process read or wrote (kept when a round fails:
        if Redis then comes back without its data, :attr:`mm` is the last queue there was)."""
        self.committed = ""
        self.fresh_history = False
        self.unsure: list[str] = []
        """Rooms made in a round whose end Redis may not have written."""
        self.waiting: set[str] = set()
        """The people of this process's connections who wait (from the messages delivered)."""
        self.ids: dict[Conn, str] = {}
        self.by_id: dict[str, Conn] = {}
        self.outgoing: asyncio.Queue[tuple[str, Conn | None]] = asyncio.Queue()
        self.retry: list[str] = []
        self.counted: dict[str, Any] = {"queues": [], "waiting": 0}
        self.wake = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.stats: Counter[str] = Counter()

    # -- keys, clock, lifetime ------------------------------------------------------------------
    def key_name(self, name: str) -> str:
        return self.cluster.key("mm:" + name)

    def now(self) -> float:
        """The processes' shared clock (a match's deadline outlives its matchmaker)."""
        return time.time()

    def start(self) -> None:
        """(The rounds run from :meth:`begin` on: every process may become the matchmaker.)"""

    async def begin(self) -> None:
        """Subscribe to the players' messages, start the rounds and the requests' sender."""
        loop = asyncio.get_running_loop()
        self.outgoing = asyncio.Queue()
        self.wake = asyncio.Event()
        with contextlib.suppress(Exception):
            found = await self.cluster.redis.get(self.key_name("counts"))
            if found:
                self.counted = json.loads(found)
        self.tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._read()),
            loop.create_task(self._rounds()),
            loop.create_task(self._sender()),
        ]

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks = []

    async def end(self) -> None:
        """Stop, and hand the matchmaker's lease over at once (no waiting for it to lapse)."""
        self.stop()
        if self.token:
            with contextlib.suppress(Exception):
                await self.cluster.redis.eval(
                    scripts.RELEASE, 1, self.key_name("lease"), self.token
                )
            self.token = ""

    # -- this process's players ------------------------------------------------------------------
    def _conn_id(self, conn: Conn) -> str:
        found = self.ids.get(conn)
        if found is None:
            found = f"{self.cluster.node}/{len(self.by_id)}/{id(conn):x}"
            self.ids[conn] = found
            self.by_id[found] = conn
        return found

    def _push(self, command: dict[str, Any], conn: Conn | None = None) -> None:
        self.outgoing.put_nowait((json.dumps(command), conn))

    def queue(self, conn: Conn, message: Queue) -> None:
        key = self._queue_key(conn, message)
        if self._at_table(key) or (
            conn.account is not None
            and live_table_of(self.engine, conn.account.id, getattr(conn.room, "code", None))
        ):  # a seat here, or at a match in play on any process (the database knows them all)
            raise ProtocolError("at_table", "you are at a table: no queueing")
        person = self._person(conn, key, message.preset)
        if conn.room is not None:  # a table that is over, or a seat it abandoned: let go
            conn.room.leave(conn)
        self._register(conn, key)
        command = {
            "op": "queue",
            "key": key,
            "person": person_data(person),
            "preset": message.preset,
            "kind": message.kind,
            "tier": message.tier,
            "conn": self._conn_id(conn),
        }
        self._push(command, conn)

    def leave(self, key: str) -> None:
        self._push({"op": "unqueue", "key": key})

    def confirm(self, key: str, match_id: str, conn: Conn | None = None) -> None:
        command = {"op": "accept", "key": key, "match": match_id}
        if conn is not None:
            command["conn"] = self._conn_id(conn)
        self._push(command, conn)

    def seated(self, key: str) -> None:
        """Seated on this process: the person leaves the queue, whichever process they queued on
        (an account is always told to the matchmaker: its other tabs may wait elsewhere)."""
        if key in self.waiting or key.startswith("a:"):
            self._push({"op": "seated", "key": key})

    def relayed(self, conn: Conn) -> None:
        """The connection joins a room held by another process (forwarded there from now on):
        its messages come from that process; a guest waiting here leaves the queue (the owner
        can't tell which guest it is; an account's seat is told by the owner)."""
        key = self._forget(conn)
        if key is not None and key not in self.conns and key in self.waiting:
            self.waiting.discard(key)
            if not key.startswith("a:"):
                self._push({"op": "seated", "key": key})

    def disconnect(self, conn: Conn) -> None:
        key = self._forget(conn)
        if key is not None and key not in self.conns:
            self.going.pop(key, None)
            if key in self.waiting:
                self._push({"op": "disconnect", "key": key})

    def _forget(self, conn: Conn) -> str | None:
        found = self.ids.pop(conn, None)
        if found is not None:
            self.by_id.pop(found, None)
        return self._unregister(conn)

    def holds(self, conn: Conn) -> bool:
        key = self.key_of.get(conn)
        if key is None:
            return False
        return key in self.waiting or self.going.get(key, 0.0) > self.now()

    def counts(self) -> dict[str, Any]:
        return self.counted

    def health(self) -> dict[str, Any]:
        """``/healthz``'s part: whether this process is the matchmaker, how often it took the
        lease, how often a round of its was fenced, requests refused (Redis not answering)."""
        return {
            "matchmaker": bool(self.token),
            "token": self.token,
            "taken": self.stats["taken"],
            "fenced": self.stats["fenced"],
            "refused": self.stats["refused"],
        }

    async def _sender(self) -> None:
        """The requests into the inbox, in order, a batch at a time; refused when Redis does
        not answer (a lost connection's or a seat's notice is kept and tried again)."""
        while True:
            batch: list[tuple[str, Conn | None]] = []
            if self.retry:
                with contextlib.suppress(TimeoutError):
                    batch.append(await asyncio.wait_for(self.outgoing.get(), TICK_S))
            else:
                batch.append(await self.outgoing.get())
            while not self.outgoing.empty():
                batch.append(self.outgoing.get_nowait())
            texts = self.retry + [text for text, _ in batch]
            try:
                await self._into_inbox(texts)
                self.retry = []
            except Exception as error:
                log.warning("the queue's requests could not reach Redis (%s)", error)
                self.stats["refused"] += len(batch)
                self.retry = self.retry[-BATCH:]
                for text, conn in batch:
                    if conn is None:
                        self.retry.append(text)
                    else:
                        en, zh = UNAVAILABLE
                        conn.send(ProtocolError("queue_unavailable", en, zh).to_message())

    async def _into_inbox(self, texts: list[str]) -> None:
        """Tried for a moment (:data:`HOLD_S`): Redis just back may first close the
        connections the pool kept from before."""
        loop = asyncio.get_running_loop()
        until = loop.time() + HOLD_S
        while True:
            try:
                pipe = self.cluster.redis.pipeline(transaction=False)
                pipe.rpush(self.key_name("inbox"), *texts)
                pipe.publish(self.key_name("wake"), "1")
                await pipe.execute()
                return
            except (RedisError, OSError):
                if loop.time() >= until:
                    raise
                await asyncio.sleep(0.1)

    async def _listen(self) -> None:
        """The wake-up notices (``mm:wake``): a request is in the inbox (one missed only waits
        for the next tick)."""
        while True:
            pubsub = self.cluster.redis.pubsub()
            try:
                await pubsub.subscribe(self.key_name("wake"))
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                    if message is not None:
                        self.wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("the queue's wake-ups: Redis did not answer (%s)", error)
                await asyncio.sleep(TICK_S)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _read(self) -> None:
        """The players' messages from the matchmaker: the stream ``mm:out``, read from where
        this process left it — so a moment without Redis loses none of them."""
        redis, out = self.cluster.redis, self.key_name("out")
        last = ""
        while True:
            try:
                if not last:
                    newest = await redis.xrevrange(out, count=1)
                    last = newest[0][0] if newest else "0-0"
                found = await redis.xread({out: last}, count=100, block=1000)
                for _, entries in found or ():
                    for entry_id, fields in entries:
                        last = entry_id
                        body = json.loads(fields["m"])
                        self.counted = body["counts"]
                        for key, conn_id, sent in body["out"]:
                            self._deliver(key, conn_id, sent)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("the queue's messages: Redis did not answer (%s)", error)
                await asyncio.sleep(TICK_S)

    def _deliver(self, key: str, conn_id: str | None, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "queued" or (kind == "matched" and message.get("room") is None):
            self.waiting.add(key)
        elif kind == "matched":
            self.waiting.discard(key)
            self.going[key] = self.now() + self.join_seconds
        elif kind == "unqueued" or (
            kind == "lapsed" and message.get("outcome") in ("barred", "left")
        ):
            self.waiting.discard(key)
        if conn_id is not None:
            conn = self.by_id.get(conn_id)
            if conn is not None:
                conn.send(message)
            return
        for conn in list(self.conns.get(key, ())):
            conn.send(message)

    # -- the matchmaker --------------------------------------------------------------------------
    def _online(self, key: str) -> bool:
        """(Each process tells the matchmaker when a person's last connection there went.)"""
        return True

    def _send(self, key: str, message: dict[str, Any]) -> None:
        if self.out is None:
            self._deliver(key, None, message)
        else:
            self.out.append([key, None, message])

    def _make_room(self, preset: str, claims: Sequence[SeatClaim], kind: RoomKind) -> str:
        """A confirmed match's room, written to the database with no owner; listed and
        announced by the round's end (whoever takes it then owns it)."""
        settings, table = matched_table(preset, claims, kind, None)
        code = new_code()
        while self.store.room_id(code) is not None:
            code = new_code()
        self.store.create_unowned_room(code, settings.to_json(), table.to_json(), kind, claims)
        self.made.append(code)
        return code

    def _void(self, codes: Sequence[str]) -> None:
        """Close rooms made in a round that was not written: nobody was sent there."""
        if not codes:
            return
        with self.store.engine.begin() as c:
            c.execute(
                update(rooms)
                .where(rooms.c.code.in_(list(codes)) & (rooms.c.owner_epoch == 0))
                .values(status="expired")
            )
        log.warning("matchmaker: closed room(s) %s of a round not written", sorted(codes))

    async def _rounds(self) -> None:
        last = 0.0
        loop = asyncio.get_running_loop()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), max(0.0, last + TICK_S - loop.time()))
            self.wake.clear()
            full = loop.time() >= last + TICK_S * 0.9
            if full:
                last = loop.time()
            try:
                await self.round(full)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("matchmaker: the round failed (%s); read back next time", error)
                self.version = -1
                self.unsure += self.made
                self.made = []

    async def round(self, full: bool) -> bool:
        """One round (a tick when ``full``, else only the requests): False if another process
        is the matchmaker."""
        redis = self.cluster.redis
        key = self.key_name
        lease_ms = self.cluster.config.lease_ms
        if not self.token:
            # Redis lost its data a moment ago: the matchmaker of before (it holds the queue)
            # takes the lease again first, rather than this process with an empty queue.
            cluster = self.cluster
            if cluster.marker_seen(await redis.get(cluster.key("up"))):
                cluster.spawn(cluster.register_again())
            if cluster.loop.time() < cluster.settle_until:
                return False
        begun = await redis.eval(
            scripts.MM_BEGIN,
            4,
            key("lease"),
            key("epoch"),
            key("version"),
            key("inbox"),
            self.token,
            self.cluster.node,
            lease_ms,
            BATCH,
        )
        if int(begun[0]) == 0:
            if self.token:
                log.warning("matchmaker: the lease moved to another process")
                self.token, self.version = "", -1
            return False
        token, version, requests = str(begun[1]), int(begun[2]), list(begun[3])
        # Redis lost its data (no state written there since) while this process was the
        # matchmaker: the queue it holds is the last one — kept, and written back this round.
        lost = version == 0 and bool(self.token) and self.known > 0
        if token != self.token:
            log.warning("matchmaker: this process holds the lease now (%s)", token)
            self.stats["taken"] += 1
            self.token, self.version, self.fresh_history = token, -1, True
            self.shown.clear()
        if self.unsure:
            pipe = redis.pipeline(transaction=False)
            for code in self.unsure:
                pipe.sismember(self.cluster.key("rooms"), code)
            listed = await pipe.execute()
            self._void([c for c, ok in zip(self.unsure, listed, strict=True) if not ok])
            self.unsure = []
        if self.fresh_history:  # the tables the other matchmakers made
            try:
                self.history = load_history(self.engine)
            except Exception as error:  # the database is down: the one known here, for now
                log.warning("matchmaker: the ranked tables could not be read (%s)", error)
            else:
                self.mm.history = self.history
                self.fresh_history = False
        if lost:
            log.warning("matchmaker: Redis lost the queue; this process's copy is written back")
            self.version, self.committed = 0, ""
        if version != self.version:
            state = await redis.get(key("state"))
            self.committed = state or ""
            found = json.loads(state) if state else {"mm": self.empty, "homes": {}}
            self.mm.restore(found["mm"])
            self.homes = dict(found["homes"])
            self.version = self.known = version
        if not requests and not full:
            return True
        gone = await self._homes_gone() if full else set()
        self.out, self.made = [], []
        try:
            for text in requests:
                self._apply(json.loads(text))
            if full:
                now = self.now()
                for who, home in list(self.homes.items()):
                    if home in gone:  # its process died: the connection is gone
                        self.mm.disconnect(who, now)
                        del self.homes[who]
                self.tick()
                self.homes = {k: n for k, n in self.homes.items() if self.mm.waits(k)}
            out, made = self.out, self.made
        finally:
            self.out = None
        state = json.dumps({"mm": self.mm.snapshot(), "homes": self.homes})
        if not requests and not out and not made and state == self.committed:
            return True
        counts = super().counts()
        payload = json.dumps({"out": out, "counts": counts})
        written = await redis.eval(
            scripts.MM_COMMIT,
            7,
            key("lease"),
            key("version"),
            key("state"),
            key("inbox"),
            key("counts"),
            self.cluster.key("rooms"),
            key("out"),
            token,
            version + 1,
            state,
            len(requests),
            lease_ms,
            OUT_KEPT,
            payload,
            json.dumps(counts),
            self.cluster.key("news"),
            *made,
        )
        self.made = []
        if not int(written):
            log.warning("matchmaker: fenced — the lease moved while this round ran")
            self.stats["fenced"] += 1
            self.token, self.version = "", -1
            self._void(made)
            return False
        self.version, self.committed = version + 1, state
        self.known = self.version
        return True

    async def _homes_gone(self) -> set[str]:
        """The processes the waiting queued through that are no longer alive: their presence
        (``node:ID``) missing for a whole lease — not just since Redis came back without it
        (their next heartbeat, a sixth of a lease later, writes it again)."""
        nodes = sorted(set(self.homes.values()) - {self.cluster.node})
        if not nodes:
            self.absent.clear()
            return set()
        alive = await self.cluster.redis.mget([self.cluster.key("node:" + n) for n in nodes])
        now = self.now()
        missing = {n for n, a in zip(nodes, alive, strict=True) if a is None}
        self.absent = {n: self.absent.get(n, now) for n in missing}
        lease = self.cluster.config.lease_ms / 1000
        return {n for n, since in self.absent.items() if now - since >= lease}

    def _apply(self, command: dict[str, Any]) -> None:
        """One player's request, as :class:`Queueing` applies it on a single process."""
        op, key = command["op"], command["key"]
        now = self.now()
        mm = self.mm
        try:
            if op == "queue":
                person = person_of(command["person"])
                status = mm.enqueue(
                    person, command["preset"], command["kind"], now, command.get("tier")
                )
                self.homes[key] = str(command["conn"]).split("/", 1)[0]
                self.going.pop(key, None)
                self._queued(key, status, force=True)
            elif op == "unqueue":
                Queueing.leave(self, key)
            elif op == "accept":
                Queueing.confirm(self, key, command["match"])
            elif op == "seated":
                Queueing.seated(self, key)
            elif op == "disconnect":
                mm.disconnect(key, now)
                self.shown.pop(key, None)
        except ProtocolError as error:
            assert self.out is not None
            self.out.append([key, command.get("conn"), error.to_message()])
