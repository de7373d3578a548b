"""What the processes of a cluster share in Redis: the login and registration windows, the
per-address and per-account limits, and the lobby.

Each class here stands in for its single-process counterpart with the same methods, so the code
that uses it does not change:

- :class:`SharedLoginGuard` for :class:`laizi.server.login_guard.LoginGuard` (failed logins per
  account and address, the per-account slow-down),
- :class:`SharedRateLimiter` for :class:`laizi.server.accounts.RateLimiter` (tries and
  registrations per address),
- :class:`ClusterQuotas` for :class:`laizi.server.limits.Quotas` (the cooling-down of an abusive
  address, and rooms made per address and per account, released cluster-wide),
- :class:`ClusterLobby` for :class:`laizi.server.limits.LobbyCache` (the rooms of every process).

The windows count on Redis's clock (``TIME`` inside the scripts), so the processes need no common
clock.  The password work runs in threads (``laizi.server.limits.HashPool``): the guards hand
their Redis calls to the event loop and wait for the answer.  If Redis does not answer, a guard
falls back to its in-process counterpart (and logs it): the limits then hold per process, as
they do without a cluster, rather than refusing every login.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar

import msgspec

from laizi.server.accounts import RateLimiter
from laizi.server.cluster import scripts
from laizi.server.limits import LobbyCache, Owner, Quotas, ServerLimits
from laizi.server.login_guard import LoginGuard, LoginRefused

__all__ = ["ClusterLink", "ClusterLobby", "ClusterQuotas", "SharedLoginGuard", "SharedRateLimiter"]

log = logging.getLogger("laizi.server.cluster")
T = TypeVar("T")
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()

REDIS_WAIT_S = 5.0
"""How long a password thread waits for Redis before using the in-process counts."""


class ClusterLink(Protocol):
    """What the shared limits use of their process's cluster
    (:class:`laizi.server.cluster.node.Cluster`)."""

    loop: asyncio.AbstractEventLoop
    redis: Any

    def key(self, name: str) -> str: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...

    async def cool_down(self, address: str) -> None: ...

    async def room_closed(self, code: str) -> None: ...

    def lobby_changed(self) -> None: ...

    async def lobby_entries(self) -> list[str]: ...


def _from_thread(cluster: ClusterLink, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the server's event loop from a password thread and wait for it."""
    loop = cluster.loop
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:  # pragma: no cover - the guards are only called from the pool's threads
        coro.close()
        raise RuntimeError("a shared limit was asked from the event loop's own thread")
    return asyncio.run_coroutine_threadsafe(coro, loop).result(REDIS_WAIT_S)


class SharedLoginGuard(LoginGuard):
    """Failed logins counted in Redis for every process (the same rules as
    :class:`~laizi.server.login_guard.LoginGuard`, whose in-process counts are the fallback)."""

    def __init__(self, cluster: ClusterLink, window: float) -> None:
        super().__init__(window=window)
        self.cluster = cluster

    def _keys(self, account: str, address: str) -> list[str]:
        key = self.cluster.key
        return [key(f"login:pair:{account}:{address}"), key(f"login:account:{account}"), key("seq")]

    def admit(self, account: str, address: str) -> None:
        redis = self.cluster.redis
        args = (self.window, self.pair_limit, self.free_failures, self.max_delay)
        try:
            code, wait = _from_thread(
                self.cluster, redis.eval(scripts.ADMIT, 3, *self._keys(account, address), *args)
            )
        except Exception as error:
            log.warning("Redis did not answer (%s): this login is counted in this process", error)
            super().admit(account, address)
            return
        if not code:
            return
        seconds = max(1, math.ceil(float(wait)))
        if code == "login_locked":
            raise LoginRefused(
                code,
                seconds,
                f"too many wrong passwords for this name from your address; "
                f"try again in {seconds} s",
                f"你的地址对这个名字输错密码次数过多，请 {seconds} 秒后再试",
            )
        raise LoginRefused(
            code,
            seconds,
            f"this name has had many wrong passwords; try again in {seconds} s",
            f"这个名字近来输错密码次数很多，请 {seconds} 秒后再试",
        )

    def failed(self, account: str, address: str) -> None:
        keys = self._keys(account, address)
        try:
            _from_thread(
                self.cluster,
                self.cluster.redis.eval(scripts.FAIL, 2, keys[1], keys[2], self.window),
            )
        except Exception as error:
            log.warning("Redis did not answer (%s): the failure is counted in this process", error)
            super().failed(account, address)

    def succeeded(self, account: str, address: str) -> None:
        try:
            _from_thread(self.cluster, self.cluster.redis.delete(self._keys(account, address)[0]))
        except Exception as error:
            log.warning("Redis did not answer (%s)", error)
        super().succeeded(account, address)


class SharedRateLimiter(RateLimiter):
    """A sliding window of hits per key, counted in Redis for every process (the in-process
    :class:`~laizi.server.accounts.RateLimiter` is the fallback)."""

    def __init__(self, cluster: ClusterLink, name: str, limit: int, window: float) -> None:
        super().__init__(limit, window)
        self.cluster = cluster
        self.name = name

    def _call(self, key: str, count: bool) -> float | None:
        keys = (self.cluster.key(f"limit:{self.name}:{key}"), self.cluster.key("seq"))
        coro = self.cluster.redis.eval(
            scripts.HIT, 2, *keys, self.limit, self.window, "1" if count else "0"
        )
        try:
            wait = _from_thread(self.cluster, coro)
        except Exception as error:
            log.warning("Redis did not answer (%s): counted in this process", error)
            return super().hit(key) if count else super().retry_after(key)
        return round(float(wait), 3) if wait else None

    def hit(self, key: str) -> float | None:
        return self._call(key, True)

    def retry_after(self, key: str) -> float | None:
        return self._call(key, False)

    def clear(self, key: str) -> None:
        try:
            coro = self.cluster.redis.delete(self.cluster.key(f"limit:{self.name}:{key}"))
            _from_thread(self.cluster, coro)
        except Exception as error:
            log.warning("Redis did not answer (%s)", error)
        super().clear(key)


class ClusterQuotas(Quotas):
    """The limits of :class:`~laizi.server.limits.Quotas`, with what is per address or per
    account shared: an abusive address cools down on every process, and a room counts against
    its maker on every process until it is over (wherever it is played by then).  Connections
    per address are counted by :meth:`laizi.server.cluster.node.Cluster.connect`; the limits
    of one process (``max_rooms``, ``bot_rooms``) stay per process."""

    def __init__(self, limits: ServerLimits, cluster: ClusterLink) -> None:
        super().__init__(limits)
        self.cluster = cluster

    def abused(self, address: str) -> None:
        super().abused(address)
        self.cluster.spawn(self.cluster.cool_down(address))

    def release_room(self, code: str) -> None:
        """The room is over or expired: released here and in Redis."""
        super().release_room(code)
        self.cluster.spawn(self.cluster.room_closed(code))

    def release_here(self, code: str) -> None:
        """The room moved to another process: only this process's counts forget it."""
        super().release_room(code)

    def room_add(
        self, code: str, owner: Owner, bots_only: bool, bounds: tuple[int, int, int]
    ) -> tuple[Any, ...]:
        """The arguments of ``EVAL`` for ``ROOM_ADD``: count ``code`` against its maker unless
        that goes past ``bounds`` (rooms per address, per account, bots-only per account)."""
        key = self.cluster.key
        keys = (key("quota:room"), key("quota:address"), key("quota:account"), key("quota:bots"))
        account = "" if owner.account is None else str(owner.account)
        bots = "1" if bots_only else "0"
        return (scripts.ROOM_ADD, 4, *keys, code, owner.address, account, bots, *bounds)

    async def add_shared(self, code: str, owner: Owner, bots_only: bool) -> None:
        """Count a new room against its maker in Redis, or :class:`LimitError` (with the same
        codes and messages as one process's)."""
        limits = self.limits
        bounds = (limits.rooms_per_address, limits.rooms_per_account, limits.bot_rooms_per_account)
        found = await self.cluster.redis.eval(*self.room_add(code, owner, bots_only, bounds))
        if int(found[0]) == 0:
            return
        # Refused: the counts that refused it, checked by one process's own rules (its messages).
        view = Quotas(limits)
        view.by_address[owner.address] = int(found[1])
        if owner.account is not None:
            view.by_account[owner.account] = int(found[2])
            view.bots_by_account[owner.account] = int(found[3])
        view.check_room(owner, bots_only)
        raise AssertionError("the shared counts refused a room the rules allow")  # unreachable


class ClusterLobby(LobbyCache):
    """The lobby of every process: each publishes its rooms' entries in Redis
    (:meth:`laizi.server.cluster.node.Cluster.publish_lobby`); a snapshot is their union,
    rebuilt at most every ``lobby_cache_ms`` and served in pages like one process's."""

    def __init__(self, cluster: ClusterLink, ttl_ms: int) -> None:
        super().__init__(lambda: (), lambda room: {}, ttl_ms)
        self.cluster = cluster

    def changed(self) -> None:
        super().changed()
        self.cluster.lobby_changed()

    async def _rebuild(self) -> None:
        started = self.clock()
        self.dirty = False
        try:
            raw = await self.cluster.lobby_entries()
        except Exception as error:
            log.warning("the lobby could not be read from Redis (%s): the last one is shown", error)
            self.built = started
            return
        found: dict[str, dict[str, Any]] = {}
        for text in raw:
            entry = _decoder.decode(text)
            found[entry["code"]] = entry
        entries = sorted(found.values(), key=lambda e: (e["status"] != "waiting", e["code"]))
        self.entries = entries
        self.pages = {}
        self.built = started
        self.rebuilds += 1


def encode_entry(entry: dict[str, Any]) -> str:
    return _encoder.encode(entry).decode("utf-8")
