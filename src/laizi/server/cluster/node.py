"""One process of a cluster: its presence, the leases of its rooms, takeovers and hand-overs.

- **Presence.** Every ``lease_ms / 6`` the heartbeat renews ``node:ID`` (address and load,
  expiring after ``lease_ms``), the process's load in ``load``, and the leases of its rooms — all
  at once (one script) — and publishes its lobby entries.
- **Ownership.** A room is owned through ``lease:CODE`` (``SET NX PX lease_ms``, renewed by the
  heartbeat while the room is in this process's memory).  Taking a room is the lease, then the
  database's owner epoch (:meth:`laizi.server.cluster.fence.FencedStore.claim`), then the
  crash-recovery path (:meth:`laizi.server.hub.Hub.recover_room`: the room rebuilt from its
  event log, clocks and bots resumed).  A lease found lost at a heartbeat, or a write refused by
  the database's fence, drops the room here: its timers stop, what it staged is thrown away, its
  connections are closed (1012) and their clients reconnect to the new owner.
- **Failover.** ``rooms`` lists every room not yet over.  The reaper looks every ``lease_ms / 6``
  (and at once on an ``orphan`` notice) for rooms with no lease — their owner died (its leases
  lapsed) or handed them over — and takes them, the least-loaded process first; a room orphaned
  for longer than a lease is taken by whoever sees it.
- **Redis losing its data** (a restart without it, a flush).  The marker ``up`` changes; each
  process, when it sees that, writes again what it keeps in Redis (its leases at once, its
  rooms in ``rooms``, their makers' counts, its lobby entries and connection counts) and takes
  no room for a lease.  Every two leases each process also lists the database's unfinished
  rooms in ``rooms`` (:meth:`Cluster.sweep`).  The news listener subscribes again, backing off;
  the client retries commands on the stale connections; the shared secret is in PostgreSQL.
- **Hand-over.** On SIGTERM (uvicorn's shutdown) the rooms stop, what was accepted is committed,
  the leases are deleted and an ``orphan`` notice is published for each room: the other
  processes take them at once, without waiting for a lease to lapse.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections import Counter
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from laizi.rules import Settings
from laizi.server.cluster import scripts
from laizi.server.cluster.fence import FencedStore
from laizi.server.cluster.shared import (
    ClusterLobby,
    ClusterQuotas,
    SharedLoginGuard,
    SharedRateLimiter,
    encode_entry,
)
from laizi.server.limits import MESSAGE_TEXT
from laizi.server.matched import RoomKind, SeatClaim, matched_table
from laizi.server.room.base import new_code
from laizi.server.table import TableSettings

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from laizi.server.hub import Hub
    from laizi.server.room import Conn

__all__ = ["Cluster", "ClusterConfig"]

log = logging.getLogger("laizi.server.cluster")

LIVE = ("waiting", "playing")

LISTEN_BACKOFF_S = (0.1, 5.0)
"""The news listener's wait before it subscribes again after losing Redis: from the first,
doubled at each failure, up to the second."""
UNLIMITED = 1 << 30
"""The limits given to the quota script when a room is counted again (it was allowed once)."""
SWEEP_LEASES = 2
"""The unfinished rooms of the database are listed in ``rooms`` every this many leases (the
rooms then get an owner even if Redis lost the list and the process that would have told it
again died too)."""


def redis_client(url: str) -> Any:
    """The asyncio client of a cluster (answers decoded to ``str``).  A command that meets a
    connection Redis closed — Redis restarted: every pooled connection is stale — is tried again
    on a new one (three times, backing off), instead of failing the request that used it."""
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.02), 3)
    return aioredis.from_url(
        url,
        decode_responses=True,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


class Forwarding(Protocol):
    """A connection forwarded to a room's owner (:class:`laizi.server.cluster.relay.Relay`)."""

    node: str
    """The process it is forwarded to."""

    def moved(self) -> None:
        """The room moved to another process: connect again."""


@dataclass(frozen=True)
class ClusterConfig:
    """How a process joins a cluster (``laizi serve --redis …``)."""

    redis_url: str
    """The Redis server of the cluster (``redis://HOST:PORT/DB``)."""
    advertise: str
    """``HOST:PORT`` at which the other processes reach this one (forwarding)."""
    lease_ms: int = 3000
    """How long a lease lives without its heartbeat (renewed every sixth of it)."""
    prefix: str = "laizi:"
    """Put before every key and channel (several platforms may share one Redis)."""
    relay_wait_s: float = 10.0
    """How long a connection waits for its room's owner (a room being taken over)."""


class Cluster:
    """This process's part of the cluster (made and started by the app's lifespan)."""

    def __init__(self, hub: Hub, store: FencedStore, config: ClusterConfig) -> None:
        self.hub = hub
        self.store = store
        self.config = config
        self.redis: Any = redis_client(config.redis_url)
        """The asyncio client (answers decoded to ``str``; stale connections retried)."""
        self.node = secrets.token_hex(6)
        """This process's id in the cluster (new at every start)."""
        self.secret = ""
        self.loop: asyncio.AbstractEventLoop = asyncio.get_event_loop_policy().get_event_loop()
        self.leases: set[str] = set()
        """The rooms whose lease this process holds (or is taking)."""
        self.pending: set[str] = set()
        """Rooms being made or taken here: leased, not yet in the hub."""
        self.sockets: dict[Conn, WebSocket] = {}
        """This process's client connections (a dropped room closes its own)."""
        self.relays: dict[str, set[Forwarding]] = {}
        """Connections forwarded to another process, by room code."""
        self.orphan_since: dict[str, float] = {}
        self.lobby_sent: dict[str, str] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.spawned: set[asyncio.Task[Any]] = set()
        self.wake = asyncio.Event()
        self.lobby_wake = asyncio.Event()
        self.stats: Counter[str] = Counter()
        self.renewed_at = 0.0
        self.http: Any = None
        """``httpx.AsyncClient`` for requests forwarded to other processes (made once: making
        one costs tens of milliseconds of CPU)."""
        self.stopping = False
        self.marker = ""
        """The marker ``up`` this process last saw in Redis (a new one: Redis lost its data)."""
        self.settle_until = 0.0
        """Until when this process takes no room (a lease after Redis lost its data)."""
        store.on_lost = self._lost_ids

    # -- keys and helpers ------------------------------------------------------------------------
    def key(self, name: str) -> str:
        return self.config.prefix + name

    def lease(self, code: str) -> str:
        return self.key("lease:" + code)

    @property
    def beat_s(self) -> float:
        """The heartbeat's period: a sixth of the lease (a busy process has five beats of
        margin before its leases lapse)."""
        return self.config.lease_ms / 6000

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background (errors are logged)."""

        async def guarded() -> None:
            try:
                await coro
            except Exception as error:
                log.warning("cluster: %s", error)

        task = self.loop.create_task(guarded())
        self.spawned.add(task)
        task.add_done_callback(self.spawned.discard)

    # -- start and stop --------------------------------------------------------------------------
    async def start(self) -> None:
        """Join: the shared secret, presence, the shared limits and lobby, the rooms to take."""
        import httpx

        self.loop = asyncio.get_running_loop()
        self.renewed_at = self.loop.time()
        self.http = httpx.AsyncClient(timeout=10, trust_env=False)
        self.wake = asyncio.Event()
        self.lobby_wake = asyncio.Event()
        hub = self.hub
        # In the database, not in Redis: a Redis that lost its data must not split the cluster.
        # The first process of a version that keeps it there takes the one the processes of the
        # version before made in Redis, if any: during a rolling upgrade they agree too.
        fresh = await self.redis.get(self.key("secret")) or secrets.token_hex(32)
        self.secret = self.store.shared_secret(self.key("secret"), str(fresh))
        quotas = ClusterQuotas(hub.limits, self)
        hub.quotas = quotas
        hub.lobby = ClusterLobby(self, hub.limits.lobby_cache_ms)
        accounts = hub.accounts
        if accounts is not None:
            accounts.guard = SharedLoginGuard(self, accounts.guard.window)
            old = accounts.tries_by_address
            accounts.tries_by_address = SharedRateLimiter(self, "login", old.limit, old.window)
            old = accounts.registrations_by_address
            accounts.registrations_by_address = SharedRateLimiter(
                self, "register", old.limit, old.window
            )
        await self.beat()
        # Rooms the database holds unfinished must have an owner (after a full restart too).
        await self.sweep(owned=False)
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self.key("news"))
        sweep_s = SWEEP_LEASES * self.config.lease_ms / 1000
        self.tasks = [
            self.loop.create_task(self._every(self.beat, self.beat_s, None)),
            self.loop.create_task(self._every(self.reap, self.beat_s, self.wake)),
            self.loop.create_task(self._every(self.publish_lobby, 1.0, self.lobby_wake)),
            self.loop.create_task(self._every(self.sweep, sweep_s, None)),
            self.loop.create_task(self._listen(pubsub)),
        ]
        await self.reap()
        log.info("joined the cluster as %s (%s)", self.node, self.config.advertise)

    async def stop(self, timeout: float = 10.0) -> None:
        """Hand every room over: stop them, commit what was accepted, delete the leases and tell
        the other processes to take the rooms now — each step within ``timeout`` in all
        (``laizi serve --stop-timeout``).  The heartbeat is stopped first and renews nothing
        from then on (:attr:`stopping`), so whatever step overruns, the leases lapse."""
        at = self.loop.time() + timeout

        def left() -> float:
            return max(0.0, at - self.loop.time())

        self.stopping = True
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            _, hung = await asyncio.wait(self.tasks, timeout=min(left(), self.beat_s))
            if hung:  # a step that ignores its cancellation renews nothing any more
                log.warning("%d background task(s) did not stop: left behind", len(hung))
        hub = self.hub
        hub.halt()
        # written before the leases go: the next owner's log holds it
        hub.flush(wait=True, timeout=left() / 2)
        codes = sorted(self.leases)
        live = [code for code, room in hub.rooms.items() if room.status in LIVE]
        try:
            await asyncio.wait_for(self._hand_over_all(codes, live), left())
        except Exception as error:
            log.warning("the hand-over could not reach Redis (%s): the leases will lapse", error)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.redis.aclose(), left())
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.http.aclose(), left())

    async def _hand_over_all(self, codes: list[str], live: list[str]) -> None:
        """Delete this process's leases and presence; tell the others to take ``live`` now."""
        if codes:
            await self.redis.eval(
                scripts.RELEASE, len(codes), *(self.lease(c) for c in codes), self.node
            )
        pipe = self.redis.pipeline(transaction=False)
        pipe.srem(self.key("nodes"), self.node)
        pipe.delete(
            self.key("node:" + self.node),
            self.key("lobby:" + self.node),
            self.key("conns:" + self.node),
        )
        pipe.hdel(self.key("load"), self.node)
        for code in live:
            pipe.publish(self.key("news"), f"orphan {code}")
        await pipe.execute()
        log.info("handed %d room(s) over", len(live))

    async def _every(
        self, fn: Any, seconds: float, wake: asyncio.Event | None
    ) -> None:  # the background loops
        while not self.stopping:
            if wake is None:
                await asyncio.sleep(seconds)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), seconds)
                wake.clear()
            try:
                await fn()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("cluster %s: %s", getattr(fn, "__name__", fn), error)

    # -- presence and leases ---------------------------------------------------------------------
    def load(self) -> int:
        """The live tables here (waiting or playing) and the rooms being made or taken: not
        the finished rooms kept in memory a while for their late readers."""
        live = sum(1 for room in self.hub.rooms.values() if room.status in LIVE)
        return live + len(self.pending)

    async def beat(self) -> None:
        """Presence, load, and every lease renewed at once; a lease found lost drops its room.
        The marker ``up`` (no expiry; made by the first process to find it missing) changed
        since the last beat means Redis lost its data (a restart without it, a flush): what this
        process keeps there is written again.  Nothing once stopping."""
        if self.stopping:
            return
        ms = self.config.lease_ms
        info = {"address": self.config.advertise, "rooms": self.load(), "conns": len(self.sockets)}
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(self.key("up"), f"{self.node}:{secrets.token_hex(4)}", nx=True)
        pipe.get(self.key("up"))
        pipe.set(self.key("node:" + self.node), encode_entry(info), px=ms)
        pipe.sadd(self.key("nodes"), self.node)
        pipe.hset(self.key("load"), self.node, self.load())
        pipe.pexpire(self.key("conns:" + self.node), 2 * ms)
        pipe.pexpire(self.key("lobby:" + self.node), 2 * ms)
        lost = self.marker_seen((await pipe.execute())[1])
        await self.renew()
        if lost:
            await self.register_again()

    def marker_seen(self, marker: str | None) -> bool:
        """Compare the marker ``up`` with the one seen before: True if Redis lost its data
        since.  For a lease from then on this process takes no room (the owners have not all
        renewed their leases yet: their rooms would look orphaned)."""
        if marker == self.marker:
            return False
        lost = bool(self.marker)
        self.marker = marker or ""
        if lost:
            self.settle_until = self.loop.time() + self.config.lease_ms / 1000
        return lost

    async def register_again(self) -> None:
        """Redis lost its data: list this process's unfinished rooms (and the database's) among
        the rooms that need an owner, count them against their makers again, publish its lobby
        entries and connection counts again.  The leases came back with :meth:`renew`."""
        hub = self.hub
        live = [code for code, room in hub.rooms.items() if room.status in LIVE]
        pipe = self.redis.pipeline(transaction=False)
        if live:
            pipe.sadd(self.key("rooms"), *live)
        key = self.key
        quotas = hub.quotas
        for code in live:
            found = quotas.owners.get(code)
            if found is None or found[0].address == "(recovered)":
                continue  # a room taken over: its maker is not known here
            if isinstance(quotas, ClusterQuotas):  # counted as it was, whatever the limits now
                pipe.eval(*quotas.room_add(code, *found, (UNLIMITED,) * 3))
        if quotas.connections:
            pipe.hset(key("conns:" + self.node), mapping=dict(quotas.connections))
            pipe.pexpire(key("conns:" + self.node), 2 * self.config.lease_ms)
        await pipe.execute()
        self.lobby_sent = {}
        await self.publish_lobby()
        await self.sweep()
        self.stats["registered_again"] += 1
        log.warning("Redis lost its data: %d room(s) of this process listed again", len(live))

    async def sweep(self, owned: bool = True) -> None:
        """List the database's unfinished rooms among those that need an owner (the reaper
        takes the ones with no lease).  Only the rooms some process has owned, but at start: a
        matchmaker's room nobody took yet may be one of a round that is not written (frozen
        matchmaker) — its round lists it, or closes it when fenced, which a takeover would
        prevent."""
        if self.stopping:
            return
        codes = self.store.live_codes(LIVE, owned=owned)
        if codes:
            await self.redis.sadd(self.key("rooms"), *codes)

    async def renew(self) -> None:
        """Renew every lease at once; a lease another process holds now drops its room here
        (nothing once stopping: the leases are released, or lapse)."""
        if self.stopping:
            return
        hub = self.hub
        held = sorted(self.leases)
        now = self.loop.time()
        late = now - self.renewed_at
        if held and late > self.config.lease_ms / 2000:
            self.stats["late"] += 1
            log.warning("leases renewed %.1f s after the last time (the process was busy)", late)
        self.renewed_at = now
        if held:
            renewed = await self.redis.eval(
                scripts.RENEW,
                len(held),
                *(self.lease(c) for c in held),
                self.node,
                self.config.lease_ms,
            )
            for code, ok in zip(held, renewed, strict=True):
                if ok:
                    continue
                if code in hub.rooms:
                    log.warning("room %s: its lease was lost; another process takes it", code)
                    self.drop(code)
                elif code not in self.pending:
                    self.leases.discard(code)
        # Finished rooms leave memory after a while: their leases go with them.
        gone = [c for c in self.leases if c not in hub.rooms and c not in self.pending]
        if gone:
            self.leases.difference_update(gone)
            await self.redis.eval(
                scripts.RELEASE, len(gone), *(self.lease(c) for c in gone), self.node
            )

    async def acquire(self, code: str) -> bool:
        """Take the lease of ``code`` if nobody holds it."""
        ok = await self.redis.set(self.lease(code), self.node, nx=True, px=self.config.lease_ms)
        if ok:
            self.leases.add(code)
        return bool(ok)

    async def release(self, code: str) -> None:
        self.leases.discard(code)
        await self.redis.eval(scripts.RELEASE, 1, self.lease(code), self.node)

    async def owner(self, code: str) -> tuple[str, str] | None:
        """The process holding the room's lease and its address, if it is alive."""
        node = await self.redis.get(self.lease(code))
        if node is None:
            return None
        if node == self.node:
            return node, self.config.advertise
        info = await self.redis.get(self.key("node:" + node))
        if info is None:
            return None
        return node, str(msgspec.json.decode(info)["address"])

    async def owner_of_live(self, code: str) -> tuple[str, str] | None:
        """:meth:`owner`, waiting up to a lease for one when the database says the room is not
        over yet (between owners: a failover, or Redis restarted without its leases)."""
        found = await self.owner(code)
        if found is not None or code not in self.store.live_codes(LIVE, code):
            return found
        deadline = self.loop.time() + self.config.lease_ms / 1000
        while found is None and self.loop.time() < deadline:
            await asyncio.sleep(0.1)
            found = await self.owner(code)
        return found

    async def live_loads(self) -> dict[str, int]:
        """Rooms held by each live process (this one included)."""
        loads = await self.redis.hgetall(self.key("load"))
        nodes = sorted(loads)
        alive = await self.redis.mget([self.key("node:" + n) for n in nodes]) if nodes else []
        out = {n: int(loads[n]) for n, a in zip(nodes, alive, strict=True) if a is not None}
        out[self.node] = self.load()
        return out

    async def place(self) -> tuple[str, str]:
        """The least-loaded live process (id, address) for a new room; counted there at once,
        so a burst of new rooms spreads before the next heartbeat."""
        loads = await self.live_loads()
        least = min(loads.values())
        choices = [n for n, load in loads.items() if load == least]
        node = self.node if self.node in choices else random.choice(choices)
        if node == self.node:
            return node, self.config.advertise
        info = await self.redis.get(self.key("node:" + node))
        if info is None:
            return self.node, self.config.advertise
        await self.redis.hincrby(self.key("load"), node, 1)
        return node, str(msgspec.json.decode(info)["address"])

    # -- taking and dropping rooms ---------------------------------------------------------------
    async def reap(self) -> None:
        """Take the rooms nobody owns (their owner died or handed them over) — not while this
        process's writes fail (``Hub.writes_failing``): one that reaches the database takes them."""
        if self.stopping or self.hub.failing_since is not None:
            return
        hub = self.hub
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(self.key("up"))
        pipe.smembers(self.key("rooms"))
        marker, codes = await pipe.execute()
        if self.marker_seen(marker):
            self.spawn(self.register_again())
        if self.loop.time() < self.settle_until:
            return  # Redis lost its data a moment ago: the owners are renewing their leases
        candidates = sorted(c for c in codes if c not in hub.rooms and c not in self.pending)
        if not candidates:
            self.orphan_since.clear()
            return
        held = await self.redis.mget([self.lease(c) for c in candidates])
        orphans = [c for c, node in zip(candidates, held, strict=True) if node is None]
        now = self.loop.time()
        self.orphan_since = {c: self.orphan_since.get(c, now) for c in orphans}
        random.shuffle(orphans)
        for code in orphans:
            if now - self.orphan_since.get(code, now) < self.config.lease_ms / 1000:
                loads = await self.live_loads()
                if self.load() > min(loads.values()):
                    continue  # a less loaded process takes it (or this one, a lease later)
            if await self.take(code):
                await self.renew()  # rebuilding took time: the leases held are kept fresh

    async def take(self, code: str) -> bool:
        """Take a room: its lease, its owner epoch, then rebuild it from the event log."""
        if code in self.hub.rooms:
            return True
        if self.stopping or not await self.acquire(code):
            return False
        self.pending.add(code)
        try:
            rows = self.store.rooms(LIVE, code)
            if not rows:  # over since (or never made): nothing to own
                await self.redis.srem(self.key("rooms"), code)
                await self.release(code)
                return False
            row = rows[0]
            started = self.loop.time()
            try:
                epoch = self.store.claim(row.id)
            except Exception as error:  # the old owner's transaction still holds the room
                log.warning("room %s could not be claimed yet (%s)", code, error)
                await self.release(code)
                return False
            if not self.hub.recover_room(row):
                self.store.release(row.id)
                await self.release(code)
                return False
        finally:
            self.pending.discard(code)
        self.orphan_since.pop(code, None)
        self.stats["taken"] += 1
        log.warning(
            "room %s taken over (epoch %d, rebuilt in %.0f ms)",
            code,
            epoch,
            (self.loop.time() - started) * 1000,
        )
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(self.key("load"), self.node, self.load())
        pipe.publish(self.key("news"), f"owner {code} {self.node}")
        await pipe.execute()
        self.lobby_changed()
        return True

    def _lost_ids(self, room_ids: set[int]) -> None:
        """The database refused writes of these rooms: another process took them."""
        for code, room in list(self.hub.rooms.items()):
            if room.id in room_ids:
                self.drop(code)

    def let_go(self) -> None:
        """This process's writes have failed too long (``Hub.release_after_s``): every live room
        is dropped here and its lease released, so that a process that reaches the database
        takes it (its clients reconnect there; what was not written is that owner's to play)."""
        codes = [code for code, room in self.hub.rooms.items() if room.status in LIVE]
        for code in codes:
            self.drop(code)
        self.stats["let_go"] += len(codes)
        if codes:
            self.spawn(self._hand_over(codes))

    async def _hand_over(self, codes: list[str]) -> None:
        """Release the leases of rooms dropped here, then tell the others to take them now."""
        await self.redis.eval(
            scripts.RELEASE, len(codes), *(self.lease(c) for c in codes), self.node
        )
        pipe = self.redis.pipeline(transaction=False)
        for code in codes:
            pipe.publish(self.key("news"), f"orphan {code}")
        await pipe.execute()

    def drop(self, code: str) -> None:
        """Another process owns the room now: forget it here, close its connections (their
        clients reconnect to the new owner), send nothing it had not committed."""
        hub = self.hub
        room = hub.rooms.pop(code, None)
        self.leases.discard(code)
        if room is None:
            return
        room.halt()
        self.store.discard_staged(room.id)
        self.store.release(room.id)
        hub.drop_messages(room)
        for conn, _ in room.conns():
            conn.room, conn.seat = None, None
            self.close(conn)
        if isinstance(hub.quotas, ClusterQuotas):
            hub.quotas.release_here(code)
        hub.room_set_changed()
        self.stats["lost"] += 1

    def close(self, conn: Conn, code: int = 1012) -> None:
        """Close a client connection (1012: come back, the service moved)."""
        ws = self.sockets.get(conn)
        if ws is not None:
            self.spawn(ws.close(code=code))

    async def room_closed(self, code: str) -> None:
        """A room is over or expired: it no longer needs an owner nor counts against its maker."""
        key = self.key
        pipe = self.redis.pipeline(transaction=False)
        pipe.srem(key("rooms"), code)
        pipe.eval(
            scripts.ROOM_RELEASE,
            4,
            key("quota:room"),
            key("quota:address"),
            key("quota:account"),
            key("quota:bots"),
            code,
        )
        await pipe.execute()
        self.lobby_changed()

    async def room_made(self, code: str) -> None:
        """A room was made here: it must have an owner from now on; the load counts it."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(self.key("rooms"), code)
        pipe.hset(self.key("load"), self.node, self.load())
        await pipe.execute()
        self.lobby_changed()
        await self.publish_lobby()

    async def open_matched_room(
        self,
        rules: Settings | str,
        claims: Sequence[SeatClaim],
        kind: RoomKind = "ranked",
        table: TableSettings | None = None,
    ) -> str:
        """The matchmaker's table in a cluster, owned by whichever process takes it: written to
        the database with its kept seats and no owner, listed among the rooms that need one and
        announced as an orphan — the least-loaded process takes it at once (lease, owner epoch,
        ``Hub.recover_room``, which rebuilds the kind and the kept seats), and every process
        forwards its players there.  Returns the room's code."""
        return await open_unowned_room(
            self.store, self.redis, self.config.prefix, rules, claims, kind, table
        )

    # -- news ------------------------------------------------------------------------------------
    async def _listen(self, pubsub: Any) -> None:
        """Read the ``news`` channel for as long as the process runs: a connection lost (Redis
        restarted or unreachable) is subscribed again, backing off, and logged."""
        wait = LISTEN_BACKOFF_S[0]
        while True:
            try:
                if pubsub is None:
                    pubsub = self.redis.pubsub()
                    await pubsub.subscribe(self.key("news"))
                    self.stats["resubscribed"] += 1
                    log.warning("the news channel is subscribed again")
                    self.wake.set()  # an orphan notice may have been missed meanwhile
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    wait = LISTEN_BACKOFF_S[0]
                    if message is not None:
                        self.news(str(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("the news channel was lost (%s): subscribing in %.1f s", error, wait)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                pubsub = None
                await asyncio.sleep(wait)
                wait = min(2 * wait, LISTEN_BACKOFF_S[1])

    def news(self, text: str) -> None:
        """One notice of the ``news`` channel."""
        self.stats["news"] += 1
        parts = text.split()
        if parts[:1] == ["orphan"]:
            self.wake.set()
        elif parts[:1] == ["owner"] and len(parts) == 3:
            _, code, node = parts
            for relay in list(self.relays.get(code, ())):
                if relay.node != node:
                    relay.moved()

    # -- connections and addresses ---------------------------------------------------------------
    async def connect(self, address: str) -> str | None:
        """Count a client connection across the cluster; the refusal's code if it may not."""
        limits = self.hub.limits
        try:
            found = await self.redis.eval(
                scripts.CONNECT,
                0,
                self.config.prefix,
                self.node,
                address,
                limits.connections_per_address,
                2 * self.config.lease_ms,
            )
        except Exception as error:
            log.warning("Redis did not answer (%s): the connection is counted here only", error)
            return None
        if int(found) == -1:
            return "cooling_down"
        if int(found) == -2:
            return "too_many_connections"
        return None

    async def disconnect(self, address: str) -> None:
        await self.redis.eval(scripts.DISCONNECT, 1, self.key("conns:" + self.node), address)

    async def cool_down(self, address: str) -> None:
        seconds = self.hub.limits.abuse_cooldown_seconds
        if seconds > 0:
            await self.redis.set(self.key("cool:" + address), "1", px=int(seconds * 1000))

    # -- the lobby -------------------------------------------------------------------------------
    def lobby_changed(self) -> None:
        self.lobby_wake.set()

    async def publish_lobby(self) -> None:
        """This process's lobby entries in Redis (only what changed)."""
        from laizi.server.api import _lobby_entry

        entries = {
            code: encode_entry(_lobby_entry(room))
            for code, room in self.hub.rooms.items()
            if room.status in LIVE
        }
        changed = {c: e for c, e in entries.items() if self.lobby_sent.get(c) != e}
        gone = [c for c in self.lobby_sent if c not in entries]
        if not changed and not gone:
            return
        key = self.key("lobby:" + self.node)
        pipe = self.redis.pipeline(transaction=False)
        if changed:
            pipe.hset(key, mapping=changed)
        if gone:
            pipe.hdel(key, *gone)
        pipe.pexpire(key, 2 * self.config.lease_ms)
        await pipe.execute()
        self.lobby_sent = entries

    async def lobby_entries(self) -> list[str]:
        """Every live process's lobby entries (JSON texts)."""
        nodes = sorted(await self.live_loads())
        pipe = self.redis.pipeline(transaction=False)
        for node in nodes:
            pipe.hvals(self.key("lobby:" + node))
        out: list[str] = []
        for values in await pipe.execute():
            out += values
        return out

    def health(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "address": self.config.advertise,
            "leases": len(self.leases),
            "relays": sum(len(r) for r in self.relays.values()),
            "taken": self.stats["taken"],
            "lost": self.stats["lost"],
            "fenced": self.store.fenced,
            "late_beats": self.stats["late"],
            "news": self.stats["news"],
            "resubscribed": self.stats["resubscribed"],
            "registered_again": self.stats["registered_again"],
        }


async def open_unowned_room(
    store: FencedStore,
    redis: Any,
    prefix: str,
    rules: Settings | str,
    claims: Sequence[SeatClaim],
    kind: RoomKind = "ranked",
    table: TableSettings | None = None,
) -> str:
    """:meth:`Cluster.open_matched_room` from any process with the cluster's database and Redis
    (``redis``: an asyncio client; ``prefix``: the cluster's key prefix)."""
    settings, table = matched_table(rules, claims, kind, table)
    code = new_code()
    while store.room_id(code) is not None:
        code = new_code()
    store.create_unowned_room(code, settings.to_json(), table.to_json(), kind, claims)
    pipe = redis.pipeline(transaction=False)
    pipe.sadd(prefix + "rooms", code)
    pipe.publish(prefix + "news", f"orphan {code}")
    await pipe.execute()
    return code


def refused_text(code: str) -> str:
    return MESSAGE_TEXT[code]
