"""Accounts: registration, Argon2id password hashes, sessions, and rate-limited login.

Passwords are hashed with Argon2id (``argon2-cffi``'s defaults, RFC 9106's low-memory profile)
and never stored or logged in the clear.  A login gives a random session token (256 bits) that
the browser keeps in an HTTP-only cookie; the database keeps only its SHA-256, so a stolen copy
of the database opens no session.  Guests are connections without an account: they play, but
nothing is kept for them.

>>> check_name("雀神 Ann")
'雀神 Ann'
>>> try:
...     check_name("  ")
... except AccountError as error:
...     print(error.code, error)
bad_name a name has 1–32 characters: letters, digits, spaces, '_', '-' or '.'
>>> limiter = RateLimiter(limit=2, window=60, clock=lambda: 0.0)
>>> limiter.hit("ann"), limiter.hit("ann"), limiter.retry_after("ann")
(None, None, 60.0)
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import (
    Column,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from laizi.server.login_guard import WINDOW_SECONDS, LoginGuard, LoginRefused
from laizi.server.names import NameRefused, has_hidden, name_skeleton, normalize_name
from laizi.server.passwords import password_refusal
from laizi.server.store import inserted_id, metadata

__all__ = [
    "LOGIN_LIMIT_PER_ADDRESS",
    "LOGIN_WINDOW_SECONDS",
    "SESSION_SECONDS",
    "Account",
    "AccountError",
    "Accounts",
    "RateLimiter",
    "check_name",
    "check_password",
]

T = TypeVar("T")

SESSION_SECONDS = 30 * 24 * 3600
"""A session lasts 30 days from login."""
LOGIN_WINDOW_SECONDS = WINDOW_SECONDS
"""Failed logins per account and address: ``laizi.server.login_guard`` (no account-wide lock)."""
LOGIN_LIMIT_PER_ADDRESS = 20
"""Login tries (failed or not) from one client address within the window."""
REGISTER_LIMIT_PER_ADDRESS = 10
"""Registrations from one client address within the window."""
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
SKELETON_LENGTH = 512
"""The longest look-alike key kept (a name of 32 letters whose prototypes are long)."""

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(32), nullable=False),
    Column("name_key", String(128), nullable=False, unique=True),
    Column("name_skeleton", String(SKELETON_LENGTH), nullable=True),
    Column("password_hash", String(256), nullable=False),
    Column("created", Float, nullable=False),
    Index("accounts_name_skeleton", "name_skeleton", unique=True),
)
"""``name_skeleton`` is :func:`laizi.server.names.name_skeleton` of the name: one account per
look-alike key.  It is empty only on an account that already looked like an older one when the
key was introduced (migration ``0006_name_skeleton``): the older account holds the key."""

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Index("sessions_account", "account_id"),
)


class AccountError(ValueError):
    """A refused account request; ``code`` is the API's error id, ``status`` its HTTP status."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        retry_after: int | None = None,
        zh: str | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.zh = zh
        """The same message in Chinese (the API sends both: ``error`` and ``error_zh``)."""
        super().__init__(message)


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    created: float


def _name_key(name: str) -> str:
    """Names are unique regardless of case and Unicode form ("ANN" is "ann")."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_name(name: Any) -> str:
    """A valid account name (NFKC, trimmed: :func:`laizi.server.names.normalize_name`), else
    :class:`AccountError`."""
    try:
        name = normalize_name(name)
    except NameRefused as error:
        raise AccountError(error.code, error.en, zh=error.zh) from None
    if len(_name_key(name)) > 128 or len(name_skeleton(name)) > SKELETON_LENGTH:
        raise AccountError("bad_name", "the name is too long", zh="名字太长")
    return name


def check_password(password: Any) -> str:
    """A password of 8–1024 characters that is not all blank and not one of the most common
    passwords (:mod:`laizi.server.passwords`), else :class:`AccountError` ``bad_password``."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(
            "bad_password",
            f"a password has {MIN_PASSWORD}–{MAX_PASSWORD} characters",
            zh=f"密码为 {MIN_PASSWORD}–{MAX_PASSWORD} 个字符",
        )
    refused = password_refusal(password)
    if refused is not None:
        raise AccountError("bad_password", refused[1], zh=refused[0])
    return password


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class RateLimiter:
    """At most ``limit`` hits per key within a sliding ``window`` of seconds (in this process).

    One server process holds the rooms, so an in-process limiter sees every login; with several
    processes behind a balancer each would count on its own (docs/api.md says so)."""

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.hits: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        now = self.clock()
        hits = self.hits.get(key)
        if hits is None:
            return deque()
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if not hits:
            del self.hits[key]
        return hits

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may try again, or None if it may now."""
        with self.lock:
            return self._retry_after(key)

    def _retry_after(self, key: str) -> float | None:
        hits = self._recent(key)
        if len(hits) < self.limit:
            return None
        return round(hits[0] + self.window - self.clock(), 3)

    def hit(self, key: str) -> float | None:
        """Count one try; returns :meth:`retry_after` as it was before (None: allowed)."""
        with self.lock:
            wait = self._retry_after(key)
            if wait is None:
                self.hits.setdefault(key, deque()).append(self.clock())
            return wait

    def clear(self, key: str) -> None:
        with self.lock:
            self.hits.pop(key, None)


class Accounts:
    """Accounts and sessions in the server's database, with the login rate limits.

    :meth:`register` and :meth:`login` may run in worker threads (the API runs them there, off
    the event loop): the limiters take a lock."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.hasher = hasher or PasswordHasher()
        self.guard = LoginGuard(window=LOGIN_WINDOW_SECONDS, clock=monotonic)
        """Failed logins per (account, address), and the per-account slow-down."""
        self.tries_by_address = RateLimiter(
            LOGIN_LIMIT_PER_ADDRESS, LOGIN_WINDOW_SECONDS, monotonic
        )
        self.registrations_by_address = RateLimiter(
            REGISTER_LIMIT_PER_ADDRESS, LOGIN_WINDOW_SECONDS, monotonic
        )
        self._dummy_hash = self.hasher.hash(secrets.token_hex(8))

    # -- accounts --------------------------------------------------------------------------------
    def register(self, name: Any, password: Any, address: str = "") -> Account:
        name = check_name(name)
        password = check_password(password)
        wait = self.registrations_by_address.hit(address)
        if wait is not None:
            raise _limited(wait)
        key = _name_key(name)
        look = name_skeleton(name)
        holder = self.look_alike(name)
        if holder is not None:
            raise _taken(name, holder.name)
        created = self.clock()
        password_hash = self.hasher.hash(password)
        try:
            with self.engine.begin() as c:
                result = c.execute(
                    insert(accounts).values(
                        name=name,
                        name_key=key,
                        name_skeleton=look,
                        password_hash=password_hash,
                        created=created,
                    )
                )
                account_id = inserted_id(result)
        except IntegrityError:  # taken between the check and the insert
            raise _taken(name) from None
        return Account(account_id, name, created)

    def by_name(self, name: str) -> Account | None:
        with self.engine.connect() as c:
            row = c.execute(select(accounts).where(accounts.c.name_key == _name_key(name))).first()
        return None if row is None else Account(row.id, row.name, row.created)

    def look_alike(self, name: str) -> Account | None:
        """The account whose name is ``name`` (any case) or looks like it (one
        :func:`~laizi.server.names.name_skeleton`), else None; ``name`` is normalised."""
        with self.engine.connect() as c:
            row = c.execute(
                select(accounts)
                .where(
                    or_(
                        accounts.c.name_key == _name_key(name),
                        accounts.c.name_skeleton == name_skeleton(name),
                    )
                )
                .order_by(accounts.c.id)
            ).first()
        return None if row is None else Account(row.id, row.name, row.created)

    def count(self) -> int:
        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(accounts)).scalar() or 0)

    # -- other secrets ---------------------------------------------------------------------------
    def check_secret(self, address: str, check: Callable[[], T | None]) -> T | None:
        """Check a secret that is not a password (a bot token) under the address's login bucket:
        refused with ``429 rate_limited`` while ``address`` has tried too often (wrong tokens
        and logins count alike), and a wrong one (``check`` returns None) is one more try.  A
        right one is not counted, so a bot that reconnects often is never slowed.  May block on
        the cluster's shared counts: call it from a worker thread."""
        wait = self.tries_by_address.retry_after(address)
        if wait is not None:
            raise _limited(wait)
        found = check()
        if found is None:
            self.tries_by_address.hit(address)
        return found

    # -- login -----------------------------------------------------------------------------------
    def login(self, name: Any, password: Any, address: str = "") -> tuple[Account, str]:
        """Check the password and open a session; returns the account and the session token.

        Refused with 429 when the client address has tried too often (``rate_limited``), or
        this address has failed too often at this account (``login_locked``), or the account is
        under attack and this address tried it a moment ago (``login_slowed``): see
        :mod:`laizi.server.login_guard`."""
        if not isinstance(name, str) or not isinstance(password, str):
            raise AccountError(
                "bad_request", "name and password must be strings", zh="名字和密码须为字符串"
            )
        wait = self.tries_by_address.hit(address)
        if wait is not None:
            raise _limited(wait)
        if len(name) > 128 or has_hidden(name):
            raise _bad_login()  # no account has such a name (and the database can't hold NUL)
        key = _name_key(name.strip())
        try:  # counted before the check (a success clears it): concurrent tries can't slip past
            self.guard.admit(key, address)
        except LoginRefused as refused:
            raise AccountError(
                refused.code, refused.en, 429, refused.retry_after, zh=refused.zh
            ) from None
        with self.engine.connect() as c:
            row = c.execute(select(accounts).where(accounts.c.name_key == key)).first()
        if row is None:
            # The same work as for a real account, so timing does not tell which names exist.
            _verify(self.hasher, self._dummy_hash, password)
            self.guard.failed(key, address)
            raise _bad_login()
        if not _verify(self.hasher, row.password_hash, password):
            self.guard.failed(key, address)
            raise _bad_login()
        self.guard.succeeded(key, address)
        if self.hasher.check_needs_rehash(row.password_hash):
            with self.engine.begin() as c:
                c.execute(
                    update(accounts)
                    .where(accounts.c.id == row.id)
                    .values(password_hash=self.hasher.hash(password))
                )
        account = Account(row.id, row.name, row.created)
        return account, self.open_session(account.id)

    def open_session(self, account_id: int) -> str:
        token = secrets.token_urlsafe(32)
        now = self.clock()
        with self.engine.begin() as c:
            c.execute(
                insert(sessions).values(
                    token_hash=_token_hash(token),
                    account_id=account_id,
                    created=now,
                    expires=now + SESSION_SECONDS,
                )
            )
        return token

    def session(self, token: str | None) -> Account | None:
        """The account of a live session token, else None."""
        if not token or len(token) > 128:
            return None
        with self.engine.connect() as c:
            row = c.execute(
                select(accounts.c.id, accounts.c.name, accounts.c.created, sessions.c.expires)
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(sessions.c.token_hash == _token_hash(token))
            ).first()
        if row is None or row.expires <= self.clock():
            return None
        return Account(row.id, row.name, row.created)

    def logout(self, token: str | None) -> None:
        if not token:
            return
        with self.engine.begin() as c:
            c.execute(delete(sessions).where(sessions.c.token_hash == _token_hash(token)))
            c.execute(delete(sessions).where(sessions.c.expires <= self.clock()))


def _verify(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _limited(wait: float) -> AccountError:
    seconds = int(wait) + 1
    return AccountError(
        "rate_limited",
        f"too many tries; try again in {seconds} s",
        429,
        seconds,
        zh=f"尝试次数过多，请 {seconds} 秒后再试",
    )


def _taken(name: str, holder: str | None = None) -> AccountError:
    if holder is None or _name_key(holder) == _name_key(name):
        return AccountError(
            "name_taken", f"the name {name!r} is taken", 409, zh=f"名字「{name}」已被占用"
        )
    return AccountError(
        "name_taken",
        f"the name {name!r} looks like {holder!r}, which is taken",
        409,
        zh=f"名字「{name}」看起来和已被占用的「{holder}」一样",
    )


def _bad_login() -> AccountError:
    return AccountError("bad_login", "wrong name or password", 401, zh="名字或密码错误")
