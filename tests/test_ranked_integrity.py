"""Ranked play that cannot be farmed (issue 13, points 1 and 2, and the bounded base).

* Strength points move only by what accounts paid each other: a property test plays thousands
  of random matches (wins, kongs, contracts, escapes as the engine applies them, any mix of
  account, guest and bot seats) through the booking's arithmetic.
* One account, one seat: a second seat for the same session is refused by a real server.
* A match that cannot be booked never keeps the server from starting; ``/healthz`` shows it, and
  it is booked once it can be.
* ``rules.base`` is a bounded decimal, and the largest, most precise one books on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select, update

from laizi.engine import Action
from laizi.rules import Settings, SettingsError, preset
from laizi.scoring.escape import escape_payments
from laizi.server.accounts import Accounts
from laizi.server.accounts import accounts as account_rows
from laizi.server.ratings import (
    Paid,
    add_payments,
    book_match,
    book_unbooked,
    link_seat,
    no_payments,
    seat_accounts,
    seat_totals,
    standings,
    standings_of,
    strength_deltas,
)
from laizi.server.store import Store, events, hands, rooms, seats
from tests.engine_helpers import apply_json, deal_json
from tests.server_helpers import (
    FAST_HASH,
    Client,
    InProcessServer,
    Server,
    ServerProcess,
    connect,
    http,
    login_cookie,
    open_ranked_table,
    play,
)
from tests.server_helpers import room_info as _info
from tests.server_helpers import standing as _me
from tests.server_helpers import wait_over as _wait_over

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}
ESCAPE_TABLE = {"hands": 4, "action_seconds": 1, "bank_seconds": 0, **FAST}
PRESET = "wuhan-hongzhong-kaikou"


# -- rules.base: a bounded decimal -----------------------------------------------------------------
@pytest.mark.parametrize("base", [5e-324, 1e-7, 0.0000015, 10**9 + 1, 1_000_000_000.000001])
def test_a_base_must_be_a_decimal_of_at_most_six_places_up_to_a_billion(base: Any) -> None:
    with pytest.raises(SettingsError) as error:
        preset("wuhan-hongzhong-kaikou").with_overrides({"base": base})
    assert error.value.key == "base"
    assert str(error.value).startswith("rules.base: ")


@pytest.mark.parametrize(
    ("base", "exact"),
    [
        (0.000001, Fraction(1, 10**6)),
        (999999999.999999, Fraction(999999999999999, 10**6)),
        (10**9, Fraction(10**9)),
        (2.5, Fraction(5, 2)),
    ],
)
def test_bounded_bases_are_kept_exactly(base: Any, exact: Fraction) -> None:
    assert Settings.from_json({"preset": "baishan", "base": base}).base == exact


# -- the worked example of docs/api.md -------------------------------------------------------------
def test_the_worked_example_of_the_docs() -> None:
    """Ann (seat 0) and Bo (seat 1) are accounts, seat 2 a guest, seat 3 a bot (kaikou, base 1)."""
    paid = no_payments()
    add_payments(paid, [-16, 48, -16, -16])  # Bo wins by self-draw
    add_payments(paid, [-300, 0, 300, 0])  # the guest wins, Ann pays alone (contract)
    guest_escapes = escape_payments(preset("wuhan-hongzhong-kaikou"), 2)
    assert guest_escapes == (Fraction(400, 3), Fraction(400, 3), -400, Fraction(400, 3))
    add_payments(paid, guest_escapes)
    assert seat_totals(paid) == [Fraction(-548, 3), Fraction(544, 3), -116, Fraction(352, 3)]
    assert strength_deltas(paid, {0: 1, 1: 2}) == {1: -16, 2: 16}
    # Had Ann escaped instead:
    paid = no_payments()
    add_payments(paid, [-16, 48, -16, -16])
    add_payments(paid, [-300, 0, 300, 0])
    add_payments(paid, escape_payments(preset("wuhan-hongzhong-kaikou"), 0))
    assert strength_deltas(paid, {0: 1, 1: 2}) == {1: Fraction(-448, 3), 2: Fraction(448, 3)}


# -- the property: thousands of random matches -----------------------------------------------------
@dataclass
class Seat:
    kind: str  # "account", "guest" or "bot"
    account: int | None = None


@dataclass
class Component:
    """One payment of a match with its ground truth: ``pairs`` (payer, receiver, amount)."""

    payments: list[Fraction]
    pairs: list[tuple[int, int, Fraction]]


def _star(center: int, amounts: list[Fraction], center_receives: bool) -> Component:
    """The engine's payments: one seat receives from (a win, a kong) or pays to (an escape, a
    contract's liable player paying alone is a win with one payer) the others."""
    payments = [Fraction(0)] * 4
    pairs = []
    for other, amount in zip((s for s in range(4) if s != center), amounts, strict=True):
        if amount == 0:
            continue
        payer, receiver = (other, center) if center_receives else (center, other)
        payments[payer] -= amount
        payments[receiver] += amount
        pairs.append((payer, receiver, amount))
    return Component(payments, pairs)


unit_amounts = st.fractions(min_value=0, max_value=800, max_denominator=6)
seat_kinds = st.one_of(
    st.builds(Seat, st.just("account"), st.integers(0, 3)),  # a small pool: shared accounts too
    st.builds(Seat, st.just("guest")),
    st.builds(Seat, st.just("bot")),
)


@st.composite
def win_or_kong(draw: st.DrawFn) -> Component:
    center = draw(st.integers(0, 3))
    if draw(st.booleans()):  # a contract: one loser pays the whole bill
        amounts = [Fraction(0)] * 3
        amounts[draw(st.integers(0, 2))] = draw(unit_amounts)
    else:
        amounts = draw(st.lists(unit_amounts, min_size=3, max_size=3))
    return _star(center, amounts, center_receives=True)


@st.composite
def matches(draw: st.DrawFn) -> tuple[list[Seat], list[Component], Component | None, int]:
    table = draw(st.lists(seat_kinds, min_size=4, max_size=4))
    played = draw(st.lists(win_or_kong(), max_size=8))
    escaper = draw(st.integers(0, 3))
    escape = None
    if draw(st.booleans()):
        base = draw(st.decimals(min_value="0.000001", max_value=1000, places=6))
        penalty = draw(st.integers(0, 1000))
        rules = preset(draw(st.sampled_from(["wuhan-hongzhong-koukou", "baishan"])))
        rules = rules.with_overrides({"base": float(base), "escape_penalty": penalty})
        payments = list(escape_payments(rules, escaper))  # exactly as the engine applies it
        share = payments[(escaper + 1) % 4]
        escape = _star(escaper, [share] * 3, center_receives=False)
        assert escape.payments == payments
    return table, played, escape, escaper


def _paid(components: list[Component]) -> Paid:
    paid = no_payments()
    for component in components:
        add_payments(paid, component.payments)
    return paid


def _owners(table: list[Seat]) -> dict[int, int]:
    return {s: seat.account for s, seat in enumerate(table) if seat.account is not None}


def _coalition_points(
    deltas: dict[int, Fraction], owners: dict[int, int], group: tuple
) -> Fraction:
    """What a coalition of seats holds in strength points: the sum over the accounts it plays
    (guests and bots hold none)."""
    return sum((deltas[a] for a in {owners[s] for s in group if s in owners}), Fraction(0))


def _random_match(rng: random.Random) -> tuple[list[Seat], list[Component], Component | None, int]:
    """As :func:`matches`, from a seeded generator (fifty times faster than drawing each
    number through Hypothesis, so thousands of matches run in seconds)."""

    def amount() -> Fraction:
        return Fraction(rng.randint(0, 4800), rng.choice([1, 2, 3, 6]))

    table = []
    for _ in range(4):
        kind = rng.choice(["account", "account", "guest", "bot"])
        table.append(Seat(kind, rng.randint(0, 3) if kind == "account" else None))
    played = []
    for _ in range(rng.randint(0, 8)):
        amounts = [amount() for _ in range(3)]
        if rng.random() < 0.3:  # a contract
            payer = rng.randint(0, 2)
            amounts = [a if i == payer else Fraction(0) for i, a in enumerate(amounts)]
        played.append(_star(rng.randint(0, 3), amounts, center_receives=True))
    escaper = rng.randint(0, 3)
    escape = None
    if rng.random() < 0.7:
        base = Fraction(rng.randint(1, 10**9), 10**6)
        rules = preset(rng.choice(["wuhan-hongzhong-koukou", "baishan"]))
        rules = rules.with_overrides({"base": float(base), "escape_penalty": rng.randint(0, 1000)})
        payments = list(escape_payments(rules, escaper))
        escape = _star(escaper, [payments[(escaper + 1) % 4]] * 3, center_receives=False)
        assert escape.payments == payments
    return table, played, escape, escaper


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**64))
def test_thousands_of_random_matches_conserve_points_and_reward_no_escape(seed: int) -> None:
    """3,000 random matches (150 per Hypothesis example, from a seeded generator): the checks
    of :func:`check_match`."""
    rng = random.Random(seed)
    for _ in range(150):
        check_match(_random_match(rng))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches())
def test_points_are_conserved_between_accounts_and_escaping_gains_no_coalition(
    match: tuple[list[Seat], list[Component], Component | None, int],
) -> None:
    """The checks of :func:`check_match` on matches Hypothesis draws (and shrinks)."""
    check_match(match)


def check_match(match: tuple[list[Seat], list[Component], Component | None, int]) -> None:
    """Random matches: any mix of account, guest and bot seats (an account may even hold two
    seats, as matches booked before the one-seat rule could), wins and kongs paid by one, two or
    three seats (contracts included), and maybe an escape with the engine's own escape payments
    (``laizi.scoring.escape``, a random base of up to six decimals and a random penalty).

    (a) Conservation: every account's change is exactly what the seats of *other* accounts paid
        its seats minus what its seats paid them (ground truth from who paid whom, independent
        of the booking's split), so the changes add up to exactly 0 — never positive from what
        guests or bots paid — and a match without two accounts moves no points at all.

    (b) Escapes: let E be the match as played, ending with seat ``e``'s escape, and N the same
        match where ``e`` did not escape and the interrupted hand ended with no payment (hands
        and kongs before it stand in both).  For every coalition C of seats that contains ``e``
        (any subset: partners, an account together with its own guest tab, an account on two
        seats), the points of C's accounts in E are at most those in N.  A guest's or bot's
        escape changes no account's points at all.  What this does not claim: that escaping
        cannot cut a loss the rest of the match would have brought (the penalty's size is the
        rules' answer to that, and it is paid to the others); only that the escape's own
        payments never move strength points towards the escaper or its partners.
    """
    table, played, escape, escaper = match
    owners = _owners(table)
    components = played + ([escape] if escape is not None else [])
    paid = _paid(components)
    deltas = strength_deltas(paid, owners)
    # (a) exactly what accounts paid each other
    truth = {a: Fraction(0) for a in owners.values()}
    for component in components:
        for payer, receiver, amount in component.pairs:
            if payer in owners and receiver in owners and owners[payer] != owners[receiver]:
                truth[owners[payer]] -= amount
                truth[owners[receiver]] += amount
    assert deltas == truth
    assert sum(deltas.values(), Fraction(0)) == 0
    if len(set(owners.values())) < 2:
        assert all(d == 0 for d in deltas.values())
    # The seat totals are still every payment (what the rating learns from).
    expected = [sum((c.payments[s] for c in components), Fraction(0)) for s in range(4)]
    assert seat_totals(paid) == expected
    if escape is None:
        return
    # (b) against the same match without the escape
    without = strength_deltas(_paid(played), owners)
    if escaper not in owners:
        assert deltas == without
    for size in range(1, 5):
        for group in itertools.combinations(range(4), size):
            if escaper in group:
                assert _coalition_points(deltas, owners, group) <= _coalition_points(
                    without, owners, group
                )


# -- the database: bookings keep the sum over accounts at zero -------------------------------------
@pytest.fixture
def store(db_url: str):
    store = Store(db_url)
    yield store
    store.close()


def _room(store: Store, code: str, rules: Any = "wuhan-hongzhong-kaikou") -> int:
    """A ranked room (only its match moves points and ratings)."""
    return store.create_room(code, Settings.from_json(rules).to_json(), {}, "ranked")


def _accounts(store: Store, *names: str) -> list[int]:
    service = Accounts(store.engine, hasher=FAST_HASH)
    return [service.register(name, "hongzhong").id for name in names]


def _all_points(store: Store) -> list[Fraction]:
    with store.engine.connect() as c:
        return [Fraction(p) for p in c.execute(select(standings.c.points)).scalars()]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(matches(), min_size=1, max_size=4))
def test_booked_points_over_many_matches_add_up_to_zero(
    store: Store, played: list[tuple[list[Seat], list[Component], Component | None, int]]
) -> None:
    with store.engine.connect() as c:  # the store lives on from one example to the next
        known = len(c.execute(select(rooms.c.id)).all())
        accounts = list(c.execute(select(account_rows.c.id).order_by(account_rows.c.id)).scalars())
    if not accounts:
        accounts = _accounts(store, "Ann", "Bo", "Cy", "Di")
    for n, (table, components, escape, _) in enumerate(played):
        room = _room(store, f"H{known + n:05d}")
        with store.engine.begin() as c:  # straight into the table: shared accounts too
            for seat, who in enumerate(table):
                if who.account is not None:
                    c.execute(
                        insert(seat_accounts).values(
                            room_id=room, seat=seat, account_id=accounts[who.account]
                        )
                    )
        book_match(store.engine, room, "wuhan", _paid(components + ([escape] if escape else [])), 1)
    assert sum(_all_points(store), Fraction(0)) == 0


def test_an_account_on_two_seats_books_once_and_gains_nothing_from_itself(store: Store) -> None:
    """The old failure: one fresh account on two seats inserted two standings rows and the
    booking (then every restart) failed.  Now it is one standing; its seats' payments to each
    other cancel, and it is rated by its worse seat."""
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store, "TWO001")
    with store.engine.begin() as c:
        for seat, account in ((0, ann), (1, ann), (2, bo)):
            c.execute(insert(seat_accounts).values(room_id=room, seat=seat, account_id=account))
    paid = no_payments()
    add_payments(paid, [Fraction(-400), Fraction(400, 3), Fraction(400, 3), Fraction(400, 3)])
    rows = book_match(store.engine, room, "wuhan", paid, 1, 5.0)
    assert [r["points_after"] for r in rows[:3]] == ["-400/3", "-400/3", "400/3"]
    with store.engine.connect() as c:
        assert len(c.execute(select(standings).where(standings.c.account_id == ann)).all()) == 1
    assert standings_of(store.engine, ann)["wuhan"].matches == 1
    assert book_match(store.engine, room, "wuhan", paid, 1) == []  # idempotent


def test_links_follow_who_really_sits(store: Store) -> None:
    """An account links one seat per room; a bot's seat is never booked to an account."""
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store, "LNK001")
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 2, ann)  # Ann moved: the old link goes
    link_seat(store.engine, room, 1, bo)
    with store.engine.connect() as c:
        assert sorted(c.execute(select(seat_accounts.c.seat, seat_accounts.c.account_id))) == [
            (1, bo),
            (2, ann),
        ]
    store.set_seat(room, 2, "bot", "bot 2", None)  # Ann left before the start: a bot plays
    store.set_seat(room, 1, "human", "Bo", "t")
    paid = no_payments()
    add_payments(paid, [Fraction(0), Fraction(-30), Fraction(30), Fraction(0)])
    rows = book_match(store.engine, room, "wuhan", paid, 1)
    assert [r["account_id"] for r in rows] == [None, bo, None, None]
    assert standings_of(store.engine, bo)["wuhan"].points == 0
    assert standings_of(store.engine, ann)["wuhan"].matches == 0


# -- a real server ---------------------------------------------------------------------------------
def _health(srv: Server) -> dict[str, Any]:
    status, body = srv.get("/healthz")
    assert status == 200
    return json.loads(body)


async def _error(client: Client) -> dict[str, Any]:
    return await client.expect("error")


def test_one_account_takes_one_seat(tmp_path: Path, db_url: str) -> None:
    """Two tabs (or devices) with the same session: the second may not take another seat —
    not the first free one, not a chosen one, not a guest's seat by its token — but may watch,
    and may come back to its own seat with its token."""
    with ServerProcess(tmp_path / "db.sqlite3", db_url=db_url) as srv:
        ann = login_cookie(srv, "Ann")
        code = srv.create_room(players=3, **FAST)["code"]

        async def main() -> None:
            first, second, guest = (
                await connect(srv, ann),
                await connect(srv, ann),
                await connect(srv),
            )
            assert (await first.join(code))["seat"] == 0
            assert (await guest.join(code, name="Guest"))["seat"] == 1
            for fields in ({}, {"seat": 2}, {"token": guest.token}):
                await second.send({"type": "join", "room": code, **fields})
                error = await _error(second)
                assert error["code"] == "already_seated"
                assert "一个账号只能占一个座位" in error["message_zh"]
                assert "your account already holds seat 0" in error["message"]
            info = _info(srv, code)
            assert [s["kind"] for s in info["seats"]] == ["human", "human", "empty", "empty"]
            back = await second.join(code, token=first.token)
            assert back["seat"] == 0
            watcher = await connect(srv, ann)
            assert (await watcher.join(code, spectate=True))["seat"] is None
            for client in (first, second, guest, watcher):
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 60))


async def _sit(srv: Server, code: str, cookies: list[str]) -> list[Client]:
    clients = []
    for cookie in cookies:
        client = await connect(srv, cookie)
        await client.join(code, name="guest tab" if not cookie else "")
        clients.append(client)
    return clients


def test_a_guest_tab_escaping_again_and_again_gains_its_account_nothing(
    tmp_path: Path, db_url: str
) -> None:
    """The reported farm: an account and the same person's guest tab at one table, the guest
    escaping at once, match after match (it took 四万 in 10 matches).  A room made by link is
    friendly now: its matches are booked and move no account's points or rating at all — and a
    ranked table (the matchmaker's) is four accounts, with no guest to escape.  There, what an
    account's escape pays reaches the other accounts exactly."""
    with InProcessServer(db_url) as srv:
        ann = login_cookie(srv, "Ann")

        async def escape_match(code: str, cookies: list[str], escaper: int) -> dict[str, Any]:
            # A short clock: the escape waits for the decision under way (seat 0's, who never
            # answers here), at most its clock, before it lands (docs/rules.md, "Escape").
            clients = await _sit(srv, code, cookies)
            await clients[escaper].expect("event")
            await clients[escaper].send({"type": "leave"})
            info = await asyncio.to_thread(_wait_over, srv, code)
            for client in clients:
                await client.close()
            return info

        async def main() -> None:
            for _ in range(3):
                code = srv.create_room(players=2, **ESCAPE_TABLE)["code"]
                info = await escape_match(code, [ann, ""], escaper=1)
                assert info["totals"][0] == pytest.approx(400 / 3)  # the table still pays it
            assert _me(srv, ann)["points"] == 0 and _me(srv, ann)["matches"] == 0
            code, cookies = open_ranked_table(srv, PRESET, ["Bo", "Cy", "Di", "Ed"], **ESCAPE_TABLE)
            await escape_match(code, cookies, escaper=2)
            points = [_me(srv, c)["points_exact"] for c in cookies]
            assert points == ["400/3", "400/3", "-400", "400/3"]
            di = _me(srv, cookies[2])
            assert di["rank"]["zh"] == "白板" and di["next_rank"]["zh"] == "一万"

        asyncio.run(asyncio.wait_for(main(), 240))
        status, _, body = http(srv, "GET", "/api/leaderboard/wuhan")
        assert status == 200
        board = json.loads(body)["players"]
        assert sum(Fraction(p["points_exact"]) for p in board) == 0 and len(board) == 4


def _poisoned_match(db_url: str) -> tuple[int, str, int]:
    """A finished match with an account seat whose record the booking cannot read."""
    store = Store(db_url)
    try:
        ann = Accounts(store.engine, hasher=FAST_HASH).register("Ann", "hongzhong").id
        room = _room(store, "POISON")
        store.set_seat(room, 0, "human", "Ann", "t")
        link_seat(store.engine, room, 0, ann)
        with store.engine.begin() as c:
            hand_id = c.execute(
                insert(hands).values(room_id=room, number=0, dealer=0, seed="00", finished=True)
            ).inserted_primary_key[0]  # type: ignore[index]
            bad = {"type": "end", "payments": ["poison", 0, 0, 0]}
            c.execute(insert(events).values(hand_id=hand_id, idx=0, body=json.dumps(bad)))
            c.execute(update(rooms).where(rooms.c.id == room).values(status="over"))
        return room, "POISON", hand_id
    finally:
        store.close()


def test_a_match_that_cannot_be_booked_never_stops_the_server(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old failure: a booking that raised at startup kept the server from ever starting.
    Now it starts, ``/healthz`` shows the match, and once the record is mended the retry
    (every ``LAIZI_BOOKING_RETRY_SECONDS``) books it."""
    room, code, hand_id = _poisoned_match(db_url)
    store = Store(db_url)
    assert book_unbooked(store.engine).failed[room][0] == code  # reported, not raised
    store.close()
    monkeypatch.setenv("LAIZI_BOOKING_RETRY_SECONDS", "0.5")
    with ServerProcess(tmp_path / "db.sqlite3", db_url=db_url) as srv:
        health = _health(srv)
        assert health["ok"] is True and health["unbooked"] == 1
        [error] = health["booking_errors"]
        assert error["room"] == code and error["error"].startswith("ValueError")
        assert error["tries"] >= 1
        # The server serves: a room can be made and joined.
        assert srv.create_room(players=1)["status"] == "waiting"
        store = Store(db_url)
        with store.engine.begin() as c:
            good = {"type": "end", "reason": "drawn", "winner": None, "payments": [0, 0, 0, 0]}
            good |= {"hands": ["0"] * 4, "seed": None}
            c.execute(
                update(events).where(events.c.hand_id == hand_id).values(body=json.dumps(good))
            )
        store.close()
        deadline = time.monotonic() + 20
        while _health(srv)["unbooked"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _health(srv) | {"rooms": 0} == {
            "ok": True,
            "protocol": 1,
            "rooms": 0,
            "unbooked": 0,
            "booking_errors": [],
            "hint_ms_p99": None,  # no table has asked for 听牌 hints on this server yet
            # nobody asked for a replay or a record either
            "replay_cache": {"entries": 0, "bytes": 0, "hits": 0, "renders": 0, "busy": 0},
        }
        status, _, body = http(srv, "GET", "/api/players/Ann")
        assert status == 200
        assert json.loads(body)["games"]["wuhan"]["matches"] == 1


def test_the_largest_most_precise_base_books_on_both_databases(tmp_path: Path, db_url: str) -> None:
    """``rules.base`` 999999999.999999 (the most digits allowed): an escape's thirds and the
    points they make at a ranked table are exact fractions that fit the database (``5e-324`` is
    refused)."""
    with InProcessServer(db_url) as srv:
        status, body = srv.post("/api/rooms", {"rules": {"preset": "baishan", "base": 5e-324}})
        assert status == 400 and body["params"]["key"] == "rules.base"
        rules = Settings.from_json({"preset": "wuhan-hongzhong-koukou", "base": 999999999.999999})
        code, cookies = open_ranked_table(srv, rules, ["Ann", "Bo", "Cy", "Di"], **ESCAPE_TABLE)

        async def main() -> None:
            clients = await _sit(srv, code, cookies)
            await clients[0].expect("event")
            await clients[0].send({"type": "leave"})
            await asyncio.to_thread(_wait_over, srv, code)
            for client in clients:
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 60))
        third = 500 * Fraction(999999999999999, 10**6) / 3
        points = [_me(srv, c)["points_exact"] for c in cookies]
        assert points == [str(-3 * third), str(third), str(third), str(third)]
        assert _health(srv)["unbooked"] == 0
        status, _, body = http(srv, "GET", "/api/me/matches", cookie=cookies[0])
        [match] = json.loads(body)["matches"]
        assert match["total"] == pytest.approx(float(-3 * third))


def test_healthz_reports_no_unbooked_match_when_all_is_well(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "db.sqlite3") as srv:
        health = _health(srv)
        assert health["unbooked"] == 0 and health["booking_errors"] == []


def test_seats_table_is_what_the_join_check_reads(store: Store) -> None:
    """``seat_of_account`` only counts a linked seat a person still holds."""
    from laizi.server.ratings import seat_of_account

    [ann] = _accounts(store, "Ann")
    room = _room(store, "SOA001")
    link_seat(store.engine, room, 1, ann)
    assert seat_of_account(store.engine, room, ann) is None  # no seat row: given up
    store.set_seat(room, 1, "human", "Ann", "t")
    assert seat_of_account(store.engine, room, ann) == 1
    with store.engine.begin() as c:
        c.execute(update(seats).where(seats.c.room_id == room).values(kind="bot"))
    assert seat_of_account(store.engine, room, ann) is None


def test_a_played_baishan_match_books_its_own_totals(tmp_path: Path) -> None:
    """Four accounts play a real Baishan match at a ranked table to its end (kongs paid on the
    spot and all): the booked seat totals are the table's, exactly, every account's points move
    by its total (all it paid and was paid was between accounts), and they add up to 0."""

    with InProcessServer(f"sqlite:///{tmp_path / 'db.sqlite3'}") as srv:
        code, cookies = open_ranked_table(
            srv, "baishan", ["Ann", "Bo", "Cy", "Di"], hands=3, **FAST
        )

        async def main() -> None:
            clients = await _sit(srv, code, cookies)
            await asyncio.gather(*(play(c, random.Random(i)) for i, c in enumerate(clients)))
            for client in clients:
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 180))
        info = _wait_over(srv, code)
        status, _, body = http(srv, "GET", "/api/me/matches", cookie=cookies[0])
        assert status == 200
        [match] = json.loads(body)["matches"]
        assert [s["total"] for s in match["seats"]] == info["totals"]
        mine = [_me(srv, c, "baishan") for c in cookies]
        assert [float(Fraction(m["points_exact"])) for m in mine] == pytest.approx(info["totals"])
        assert sum(Fraction(m["points_exact"]) for m in mine) == 0
        assert all(m["matches"] == 1 for m in mine)
        assert _health(srv)["unbooked"] == 0


def _star_shaped(payments: list[Fraction]) -> bool:
    """One seat on one side: a single receiver, or a single payer (or nothing moves)."""
    return sum(p > 0 for p in payments) <= 1 or sum(p < 0 for p in payments) <= 1


def test_the_engines_baishan_payments_split_exactly_into_who_paid_whom() -> None:
    """Real Baishan hands (random play that takes every kong it may, a base of 10^-6): each
    ``kong_paid`` event is recomputed exactly by the booking, and what is left of the hand's
    exact payments (the win or the escape) has a single seat on one side — the claim that makes
    :func:`add_payments` exactly who paid whom."""
    from laizi.engine import legal_actions, make_ruleset
    from laizi.engine.events import decode
    from laizi.server.ratings import _kong_payments

    rules = Settings.from_json({"preset": "baishan", "base": 0.000001})
    ruleset = make_ruleset(rules)
    rng = random.Random(13)
    kongs = 0
    for hand in range(40):
        dealer = hand % 4
        state, _ = deal_json(ruleset, dealer, seed=rng.randbytes(32))
        record: list[dict[str, Any]] = []
        steps = 0
        while not state.over:
            seat = state.to_act()[0]
            if steps == 60 and hand % 5 == 0:
                action = Action(seat, "abandon")
            else:
                legal = legal_actions(state, seat)
                wanted = [a for a in legal if "kong" in a.type or a.type == "win"]
                action = rng.choice(wanted or legal)
            record += apply_json(state, action)
            steps += 1
        result = state.result
        assert result is not None
        rest = [Fraction(x) for x in result["payments"]]
        for event in record:
            if event["type"] == "kong_paid":
                exact = _kong_payments(ruleset, state, decode(event), hand)
                assert [float(x) for x in exact] == event["payments"]
                assert _star_shaped(list(exact))
                rest = [r - k for r, k in zip(rest, exact, strict=True)]
                kongs += 1
        end = record[-1]
        assert end["type"] == "end"
        shown = end.get("payments_exact") or end["payments"]
        assert [Fraction(x) for x in shown] == list(result["payments"])
        assert _star_shaped(rest) and sum(rest) == 0
    assert kongs >= 5  # the test saw kongs paid
