"""Accounts (issue 8): Argon2id hashes, sessions, rate-limited login — on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from laizi.server.accounts import (
    LOGIN_LIMIT_PER_ADDRESS,
    LOGIN_WINDOW_SECONDS,
    SESSION_SECONDS,
    AccountError,
    Accounts,
    RateLimiter,
    accounts,
    check_name,
    sessions,
)
from laizi.server.login_guard import FREE_FAILURES, MAX_DELAY_SECONDS, PAIR_LIMIT
from laizi.server.store import Store
from tests.server_helpers import FAST_HASH

"""Still Argon2id, cheap enough to hash many times in a test."""


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def setup(db_url: str):
    store = Store(db_url)
    wall, mono = Clock(), Clock(0.0)
    yield Accounts(store.engine, clock=wall, monotonic=mono, hasher=FAST_HASH), wall, mono
    store.close()


def test_register_stores_an_argon2id_hash_never_the_password(db_url: str) -> None:
    store = Store(db_url)
    try:
        service = Accounts(store.engine)  # the default hasher: Argon2id, RFC 9106 low-memory
        account = service.register("Ann", "correct horse", "10.0.0.1")
        with store.engine.connect() as c:
            row = c.execute(select(accounts).where(accounts.c.id == account.id)).one()
        assert row.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        assert "correct horse" not in row.password_hash
        assert row.name == "Ann" and row.name_key == "ann"
        logged, token = service.login("ann", "correct horse", "10.0.0.1")
        assert logged == account
        assert service.session(token) == account
    finally:
        store.close()


def test_names_are_unique_whatever_the_case(setup) -> None:
    service, _, _ = setup
    service.register("Bo Li", "hongzhong")
    with pytest.raises(AccountError) as error:
        service.register("BO LI", "baibanbai")
    assert error.value.code == "name_taken" and error.value.status == 409
    assert service.count() == 1
    assert service.by_name("bo li").name == "Bo Li"


@pytest.mark.parametrize(
    ("name", "password", "code"),
    [
        ("", "hongzhong", "bad_name"),
        ("x" * 33, "hongzhong", "bad_name"),
        ("a<b", "hongzhong", "bad_name"),
        ("two  spaces", "hongzhong", "bad_name"),
        ("\ufdfa" * 8, "hongzhong", "bad_name"),  # 8 letters, 144 once normalised
        (None, "hongzhong", "bad_name"),
        ("Ann", "short", "bad_password"),
        ("Ann", 12345678, "bad_password"),
        ("Ann", "p" * 1025, "bad_password"),
    ],
)
def test_bad_names_and_passwords_are_refused(setup, name, password, code) -> None:
    service, _, _ = setup
    with pytest.raises(AccountError) as error:
        service.register(name, password)
    assert error.value.code == code and error.value.status == 400
    assert service.count() == 0


@given(st.text(max_size=40))
def test_check_name_accepts_only_what_it_returns_unchanged(text: str) -> None:
    try:
        name = check_name(text)
    except AccountError:
        return
    assert name == check_name(name) and 1 <= len(name) <= 32 and name.strip() == name


def test_wrong_password_and_unknown_name_look_the_same(setup) -> None:
    service, _, _ = setup
    service.register("Ann", "correct horse")
    errors = []
    for name, password in [("Ann", "wrong horse"), ("Nobody", "correct horse")]:
        with pytest.raises(AccountError) as error:
            service.login(name, password)
        errors.append((error.value.code, error.value.status, error.value.message))
    assert errors[0] == errors[1] == ("bad_login", 401, "wrong name or password")


def test_sessions_keep_only_a_hash_expire_and_end_at_logout(setup) -> None:
    service, wall, _ = setup
    account = service.register("Ann", "correct horse")
    token = service.open_session(account.id)
    with service.engine.connect() as c:
        stored = c.execute(select(sessions.c.token_hash)).scalars().all()
    assert len(stored) == 1 and token not in stored[0] and len(stored[0]) == 64
    assert service.session(token) == account
    assert service.session(token + "x") is None and service.session(None) is None
    wall.now += SESSION_SECONDS - 1
    assert service.session(token) == account
    wall.now += 2
    assert service.session(token) is None
    token2 = service.open_session(account.id)
    service.logout(token2)
    assert service.session(token2) is None
    with service.engine.connect() as c:  # the expired one was swept at logout too
        assert c.execute(select(sessions)).all() == []


def test_failed_logins_lock_that_address_out_of_that_account_only(setup) -> None:
    service, _, mono = setup
    service.register("Ann", "correct horse")
    for _ in range(PAIR_LIMIT):
        with pytest.raises(AccountError) as error:
            service.login("Ann", "wrong", "10.0.0.1")
        assert error.value.code == "bad_login"
    # Even the right password is refused now from that address; the wait is told.
    with pytest.raises(AccountError) as error:
        service.login("ann", "correct horse", "10.0.0.1")
    assert error.value.code == "login_locked" and error.value.status == 429
    assert error.value.retry_after == LOGIN_WINDOW_SECONDS
    assert error.value.zh is not None and "秒后再试" in error.value.zh
    # The owner on another address logs in at once.
    assert service.login("Ann", "correct horse", "10.9.9.9")[0].name == "Ann"
    mono.now += LOGIN_WINDOW_SECONDS + 1
    account, _ = service.login("Ann", "correct horse", "10.0.0.1")
    assert account.name == "Ann"


def test_an_attacked_account_slows_down_but_a_fresh_address_always_gets_in(setup) -> None:
    service, _, mono = setup
    service.register("Ann", "correct horse")
    # Many addresses, each a few wrong passwords: past the free failures the account slows.
    for address in range(FREE_FAILURES):
        with pytest.raises(AccountError) as error:
            service.login("Ann", "wrong", f"10.1.0.{address // 2}")
        assert error.value.code == "bad_login"
    assert service.guard.delay("ann") == 1.0
    with pytest.raises(AccountError) as error:  # a fresh address: its try is taken at once
        service.login("Ann", "wrong", "10.1.0.99")
    assert error.value.code == "bad_login"
    assert service.guard.delay("ann") == 2.0
    # 10.1.0.4 tried a moment ago: it must wait, even with the right password.
    with pytest.raises(AccountError) as error:
        service.login("Ann", "correct horse", "10.1.0.4")
    assert error.value.code == "login_slowed" and error.value.retry_after == 2
    assert "秒后再试" in (error.value.zh or "")
    for i in range(40):  # more attackers on fresh addresses: the delay grows, capped
        with pytest.raises(AccountError):
            service.login("Ann", "wrong", f"10.2.0.{i}")
    assert service.guard.delay("ann") == MAX_DELAY_SECONDS
    # The owner on a fresh address: in at once, however many failures the account has.
    assert service.login("Ann", "correct horse", "192.168.7.7")[0].name == "Ann"
    # The owner who mistypes waits at most the capped delay, then gets in.
    with pytest.raises(AccountError) as error:
        service.login("Ann", "typo", "192.168.8.8")
    assert error.value.code == "bad_login"
    with pytest.raises(AccountError) as error:
        service.login("Ann", "correct horse", "192.168.8.8")
    assert error.value.code == "login_slowed"
    assert error.value.retry_after == int(MAX_DELAY_SECONDS)
    mono.now += MAX_DELAY_SECONDS
    assert service.login("Ann", "correct horse", "192.168.8.8")[0].name == "Ann"


def test_login_names_the_database_cannot_hold_are_a_bad_login(setup) -> None:
    service, _, _ = setup
    service.register("Ann", "correct horse")
    for name in ["Ann\x00", "A\u200bnn", "\ud800", "x" * 200]:
        with pytest.raises(AccountError) as error:
            service.login(name, "correct horse", "10.0.0.1")
        assert error.value.code == "bad_login" and error.value.status == 401


def test_one_address_may_try_only_so_often(setup) -> None:
    service, _, mono = setup
    service.register("Ann", "correct horse")
    for i in range(LOGIN_LIMIT_PER_ADDRESS):
        with pytest.raises(AccountError):
            service.login(f"nobody{i}", "whatever1", "10.0.0.1")
    with pytest.raises(AccountError) as error:
        service.login("Ann", "correct horse", "10.0.0.1")
    assert error.value.code == "rate_limited"
    assert service.login("Ann", "correct horse", "10.0.0.2")[0].name == "Ann"
    mono.now += LOGIN_WINDOW_SECONDS
    assert service.login("Ann", "correct horse", "10.0.0.1")[0].name == "Ann"


def test_a_good_login_clears_the_failures_of_the_account(setup) -> None:
    service, _, _ = setup
    service.register("Ann", "correct horse")
    for _ in range(PAIR_LIMIT - 1):
        with pytest.raises(AccountError):
            service.login("Ann", "wrong", "a")
    service.login("Ann", "correct horse", "a")
    for _ in range(PAIR_LIMIT - 1):
        with pytest.raises(AccountError):
            service.login("Ann", "wrong", "a")
    assert service.login("Ann", "correct horse", "a")[0].name == "Ann"


def test_rate_limiter_window_slides() -> None:
    clock = Clock(0.0)
    limiter = RateLimiter(limit=3, window=10, clock=clock)
    assert [limiter.hit("k") for _ in range(3)] == [None, None, None]
    assert limiter.hit("k") == 10
    clock.now = 4
    assert limiter.retry_after("k") == 6
    assert limiter.hit("other") is None
    clock.now = 10  # the hits of t=0 have left the window
    assert [limiter.hit("k") for _ in range(4)] == [None, None, None, 10]
