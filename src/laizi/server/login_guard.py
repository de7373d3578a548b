"""Failed logins: a lock per (account, address) and a slow-down per account that never locks out.

Names are public, so a lock of the whole account after a few wrong passwords lets anyone lock
anyone out.  Instead (docs/api.md, "Rate limits"):

* **per (account, address)**: :data:`PAIR_LIMIT` failed tries from one address to one account
  within :data:`WINDOW_SECONDS` lock *that address* out of *that account* until the oldest try
  leaves the window (``429 login_locked``).  Other addresses are not affected.
* **per account, across addresses**: once the account has had :data:`FREE_FAILURES` failures in
  the window (from anywhere), every address that has already tried it must wait between its
  tries: 1 s after the next failure, then 2, 4, … up to :data:`MAX_DELAY_SECONDS`
  (``429 login_slowed``).  An address that has not tried the account in the window always gets
  its try at once — the owner on a fresh address (a phone, another network) is never locked
  out, however hard others hammer the account; at worst a typo costs a minute.

A try is counted before the password is checked (a success clears its pair), so concurrent
tries can't slip past the limits.  Everything lives in this process, like the other limits.

>>> class Clock:
...     now = 0.0
...     def __call__(self): return self.now
>>> clock = Clock()
>>> guard = LoginGuard(clock=clock)
>>> for _ in range(PAIR_LIMIT):
...     guard.admit("ann", "10.0.0.1"); guard.failed("ann", "10.0.0.1")
>>> try:
...     guard.admit("ann", "10.0.0.1")
... except LoginRefused as error:
...     print(error.code, error.retry_after)
login_locked 900
>>> guard.admit("ann", "10.0.0.2")  # another address is not locked out
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, MutableMapping
from typing import Any

__all__ = [
    "FREE_FAILURES",
    "MAX_DELAY_SECONDS",
    "PAIR_LIMIT",
    "WINDOW_SECONDS",
    "LoginGuard",
    "LoginRefused",
]

WINDOW_SECONDS = 15 * 60
"""The sliding window every count below is taken over."""
PAIR_LIMIT = 5
"""Failed tries from one address to one account in the window before that pair is locked."""
FREE_FAILURES = 10
"""Failures to one account (all addresses) in the window before its tries are slowed down."""
MAX_DELAY_SECONDS = 60.0
"""The longest wait between two tries of one address at an account under attack."""
_SWEEP_EVERY = 1024


class LoginRefused(Exception):
    """A try refused before the password was looked at: ``login_locked`` or ``login_slowed``."""

    def __init__(self, code: str, retry_after: int, en: str, zh: str) -> None:
        self.code = code
        self.retry_after = retry_after
        self.en = en
        self.zh = zh
        super().__init__(en)


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


class LoginGuard:
    """The failed-login bookkeeping of one server process (thread-safe: logins run in threads)."""

    def __init__(
        self,
        pair_limit: int = PAIR_LIMIT,
        free_failures: int = FREE_FAILURES,
        max_delay: float = MAX_DELAY_SECONDS,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pair_limit = pair_limit
        self.free_failures = free_failures
        self.max_delay = max_delay
        self.window = window
        self.clock = clock
        self.pair_tries: dict[tuple[str, str], deque[float]] = {}
        """Tries of each (account, address) since its last success, within the window."""
        self.account_failures: dict[str, deque[float]] = {}
        self.lock = threading.Lock()
        self.calls = 0

    def _recent(self, hits: deque[float] | None, now: float) -> int:
        if hits is None:
            return 0
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return len(hits)

    def delay(self, account: str) -> float:
        """The wait between two tries of one address at ``account`` now (0: no slow-down)."""
        with self.lock:
            return self._delay(account, self.clock())

    def _delay(self, account: str, now: float) -> float:
        failures = self._recent(self.account_failures.get(account), now)
        over = failures - self.free_failures
        if over < 0:
            return 0.0
        return float(min(2.0 ** min(over, 32), self.max_delay))

    def admit(self, account: str, address: str) -> None:
        """Count a try of ``address`` at ``account``, or raise :class:`LoginRefused`."""
        with self.lock:
            now = self.clock()
            self._sweep(now)
            pair = (account, address)
            tries = self.pair_tries.get(pair)
            count = self._recent(tries, now)
            if tries is not None and count >= self.pair_limit:
                wait = _seconds(tries[0] + self.window - now)
                raise LoginRefused(
                    "login_locked",
                    wait,
                    f"too many wrong passwords for this name from your address; "
                    f"try again in {wait} s",
                    f"你的地址对这个名字输错密码次数过多，请 {wait} 秒后再试",
                )
            delay = self._delay(account, now)
            if tries and delay > 0 and now - tries[-1] < delay:
                wait = _seconds(tries[-1] + delay - now)
                raise LoginRefused(
                    "login_slowed",
                    wait,
                    f"this name has had many wrong passwords; try again in {wait} s",
                    f"这个名字近来输错密码次数很多，请 {wait} 秒后再试",
                )
            self.pair_tries.setdefault(pair, deque()).append(now)

    def failed(self, account: str, address: str) -> None:
        """The admitted try had a wrong name or password."""
        with self.lock:
            self.account_failures.setdefault(account, deque()).append(self.clock())

    def succeeded(self, account: str, address: str) -> None:
        """The admitted try logged in: the pair starts afresh (the account's count stays)."""
        with self.lock:
            self.pair_tries.pop((account, address), None)

    def _sweep(self, now: float) -> None:
        """Now and then, forget keys whose tries have all left the window (bounded memory)."""
        self.calls += 1
        if self.calls % _SWEEP_EVERY:
            return
        tables: tuple[MutableMapping[Any, deque[float]], ...] = (
            self.pair_tries,
            self.account_failures,
        )
        for table in tables:
            for key in [k for k, hits in table.items() if not self._recent(hits, now)]:
                del table[key]
