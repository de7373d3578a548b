"""Strength points, the Part B rank ladder and OpenSkill ratings (issue 8), on both databases."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import delete, select

from laizi.rules import RANKS, rank_for
from laizi.server.accounts import Accounts
from laizi.server.ratings import (
    MU,
    SIGMA,
    Paid,
    Unbooked,
    add_payments,
    book_match,
    book_unbooked,
    leaderboard,
    link_seat,
    match_history,
    new_points,
    next_rank,
    no_payments,
    places,
    rate,
    seat_accounts,
    standings,
    standings_of,
    unbooked_matches,
)
from laizi.server.store import Store
from tests.server_helpers import FAST_HASH, store_hands

amounts = st.fractions(min_value=-5000, max_value=5000, max_denominator=6)


# -- the pure part --------------------------------------------------------------------------------
@given(st.lists(amounts, max_size=30))
def test_points_accumulate_exactly_without_a_floor(totals: list[Fraction]) -> None:
    points = Fraction(0)
    for total in totals:
        after = new_points(points, total)
        assert after == points + total  # a floor at 0 would create points for the others
        points = after
    assert points == sum(totals)


def test_rank_ladder_of_part_b() -> None:
    names = [r.zh for r in RANKS]
    assert names[0] == "白板" and names[-1] == "雀神" and len(names) == 17
    assert rank_for(0).zh == "白板" and rank_for(99).zh == "白板"
    assert rank_for(100).zh == "一万" and rank_for(Fraction(1999, 1)).zh == "四万"
    assert rank_for(80000).zh == "东风" and rank_for(100000).zh == "西风"
    assert rank_for(1_999_999).zh == "发财" and rank_for(10**9).zh == "雀神"
    assert next_rank(0).zh == "一万" and next_rank(100).zh == "二万"
    assert next_rank(2_000_000) is None


def test_places_share_ties() -> None:
    assert places([Fraction(3), Fraction(1), Fraction(2), Fraction(0)]) == [1, 3, 2, 4]
    assert places([Fraction(0)] * 4) == [1, 1, 1, 1]
    assert places([Fraction(5), Fraction(5), Fraction(-5), Fraction(-5)]) == [1, 1, 3, 3]


def test_rating_moves_winners_up_and_losers_down() -> None:
    start = [(MU, SIGMA)] * 4
    after = rate(start, [Fraction(30), Fraction(10), Fraction(-15), Fraction(-25)])
    mus = [mu for mu, _ in after]
    assert mus[0] > mus[1] > MU > mus[2] > mus[3]
    assert all(sigma < SIGMA for _, sigma in after)
    # A drawn match (all equal) moves nobody's μ among equals.
    level = rate(start, [Fraction(0)] * 4)
    assert all(mu == pytest.approx(MU) for mu, _ in level)


def test_beating_a_stronger_player_gains_more() -> None:
    weak, strong = (20.0, 5.0), (35.0, 5.0)
    totals = [Fraction(10), Fraction(-10), Fraction(0), Fraction(0)]
    upset = rate([weak, strong, (MU, SIGMA), (MU, SIGMA)], totals)
    expected = rate([weak, weak, (MU, SIGMA), (MU, SIGMA)], totals)
    assert upset[0][0] - weak[0] > expected[0][0] - weak[0]


# -- the database ---------------------------------------------------------------------------------
@pytest.fixture
def store(db_url: str):
    store = Store(db_url)
    yield store
    store.close()


def _room(store: Store, rules: str = "wuhan-hongzhong-kaikou") -> int:
    """A ranked room (the matchmaker's: only its match moves points and ratings)."""
    from laizi.rules import Settings

    code = f"T{len(store.rooms(('waiting', 'playing', 'over'))):05d}"
    return store.create_room(code, Settings.from_json(rules).to_json(), {}, "ranked")


def _accounts(store: Store, *names: str) -> list[int]:
    service = Accounts(store.engine, hasher=FAST_HASH)
    return [service.register(name, "hongzhong").id for name in names]


def paid_of(*payments: list[Any]) -> Paid:
    """The who-paid-whom matrix of a match made of these zero-sum payments."""
    paid = no_payments()
    for payment in payments:
        add_payments(paid, [Fraction(x) for x in payment])
    return paid


def test_booking_moves_points_only_between_accounts_and_rates(store: Store) -> None:
    ann, bo = _accounts(store, "Ann", "Bo")
    first = _room(store)
    link_seat(store.engine, first, 0, ann)  # seat 1 a guest, seat 3 a bot
    link_seat(store.engine, first, 2, bo)
    paid = paid_of(
        [60, -20, -20, -20],  # Ann wins: 20 from each, of which Bo's 20 counts
        [-8, -8, 24, -8],  # Bo's kong: 8 from each, of which Ann's 8 counts
        [100, -300, 100, 100],  # the guest escapes: nothing of it reaches an account
    )
    rows = book_match(store.engine, first, "wuhan", paid, 4, 1.0)
    assert [r["account_id"] for r in rows] == [ann, None, bo, None]
    assert [r["total"] for r in rows] == ["152", "-328", "104", "72"]
    assert [r["place"] for r in rows] == [1, 4, 2, 3]
    assert [(r.get("points_before"), r.get("points_after")) for r in rows] == [
        ("0", "12"),
        (None, None),
        ("0", "-12"),
        (None, None),
    ]
    mine = standings_of(store.engine, ann)
    assert mine["wuhan"].points == 12 and mine["wuhan"].matches == 1
    assert mine["baishan"].points == 0 and mine["baishan"].matches == 0
    assert mine["wuhan"].mu > MU
    theirs = standings_of(store.engine, bo)["wuhan"]
    assert theirs.points == -12  # no floor: what Bo lost, Ann won
    # The second match: Bo wins 50 from Ann, then Ann escapes (15/2: 5/2 to each other seat).
    second = _room(store)
    link_seat(store.engine, second, 1, ann)
    link_seat(store.engine, second, 3, bo)
    paid = paid_of(
        [-50, -50, -50, 150], [Fraction(5, 2), Fraction(-15, 2), Fraction(5, 2), Fraction(5, 2)]
    )
    book_match(store.engine, second, "wuhan", paid, 2, 2.0)
    assert standings_of(store.engine, ann)["wuhan"].points == Fraction(-81, 2)
    assert standings_of(store.engine, bo)["wuhan"].points == Fraction(81, 2)
    assert standings_of(store.engine, bo)["wuhan"].matches == 2
    profile = standings_of(store.engine, bo)["wuhan"].to_json()
    assert profile["points"] == 40.5 and profile["points_exact"] == "81/2"
    assert profile["rank"] == {"zh": "白板", "en": "White Dragon", "from": 0}
    assert profile["next_rank"]["zh"] == "一万" and profile["next_rank"]["missing"] == 59.5
    below = standings_of(store.engine, ann)["wuhan"].to_json()
    assert below["rank"]["zh"] == "白板" and below["next_rank"]["missing"] == 140.5
    history = match_history(store.engine, ann)
    assert [m["total"] for m in history] == [-57.5, 152]
    assert [m["points_after"] for m in history] == [-40.5, 12]
    assert history[1]["seats"][0] == {"seat": 0, "account": "Ann", "total": 152, "place": 1}
    assert history[1]["seats"][1]["account"] is None
    assert history[1]["hands"][-1].endswith("/hands/3") and len(history[1]["hands"]) == 4
    assert match_history(store.engine, ann, before=2.0)[0]["total"] == 152


def test_booking_twice_changes_nothing(store: Store) -> None:
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store)
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 1, bo)
    paid = paid_of([10, -10, 0, 0])
    assert book_match(store.engine, room, "wuhan", paid, 1)
    assert book_match(store.engine, room, "wuhan", paid, 1) == []
    assert standings_of(store.engine, ann)["wuhan"].points == 10
    assert standings_of(store.engine, ann)["wuhan"].matches == 1


def test_a_match_without_accounts_books_nothing(store: Store) -> None:
    room = _room(store)
    assert book_match(store.engine, room, "wuhan", paid_of([10, -10, 0, 0]), 1) == []
    with store.engine.connect() as c:
        assert c.execute(select(standings)).all() == []


def test_games_are_ranked_apart(store: Store) -> None:
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store, "baishan")
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 1, bo)
    book_match(store.engine, room, "baishan", paid_of([300, -300, 0, 0]), 1)
    mine = standings_of(store.engine, ann)
    assert mine["baishan"].points == 300 and rank_for(300).zh == "二万"
    assert mine["wuhan"].points == 0
    assert [p["name"] for p in leaderboard(store.engine, "baishan")] == ["Ann", "Bo"]
    assert leaderboard(store.engine, "wuhan") == []


def test_leaderboard_orders_by_points_then_rating(store: Store) -> None:
    ids = _accounts(store, "Ann", "Bo", "Cy", "Di")
    room = _room(store)
    for seat, account in enumerate(ids):
        link_seat(store.engine, room, seat, account)
    book_match(store.engine, room, "wuhan", paid_of([50, 0, 0, -50]), 1)
    board = leaderboard(store.engine, "wuhan")
    assert [(p["place"], p["name"], p["points"]) for p in board] == [
        (1, "Ann", 50),
        (2, "Bo", 0),
        (3, "Cy", 0),
        (4, "Di", -50),
    ]
    # Bo and Cy tie on points and rating: by name.  Di lost: lower rating, below them.
    assert board[1]["rating"] == board[2]["rating"]
    assert board[3]["rating"]["ordinal"] < board[1]["rating"]["ordinal"]
    assert [p["name"] for p in leaderboard(store.engine, "wuhan", limit=2, offset=1)] == [
        "Bo",
        "Cy",
    ]


def test_unbooked_match_is_booked_from_its_hand_records(store: Store) -> None:
    """A crash between a match's end and its booking: the next start books it from the log."""
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store)
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 3, bo)
    store_hands(
        store,
        room,
        [
            [{"type": "end", "payments": [9, -3, -3, -3]}],
            [
                {
                    "type": "end",
                    "payments": [1 / 3, 0, 0, -1 / 3],
                    "payments_exact": ["1/3", "0", "0", "-1/3"],
                }
            ],
        ],
    )
    assert unbooked_matches(store.engine) == [(room, "T00000")]
    assert book_unbooked(store.engine) == Unbooked(booked=1)
    assert standings_of(store.engine, ann)["wuhan"].points == Fraction(10, 3)
    assert standings_of(store.engine, bo)["wuhan"].points == Fraction(-10, 3)
    assert book_unbooked(store.engine) == Unbooked(booked=0)
    [match] = match_history(store.engine, ann)
    assert match["hands"] == [f"/api/rooms/T00000/hands/{n}" for n in range(2)]
    with store.engine.begin() as c:
        c.execute(delete(seat_accounts))
    assert book_unbooked(store.engine) == Unbooked(booked=0)


def test_baishan_kongs_are_split_from_the_record_exactly(store: Store) -> None:
    """A Baishan hand's kongs paid on the spot are each booked to their own payer and payee
    (recomputed exactly from the rules), the win apart from them."""
    ann, bo = _accounts(store, "Ann", "Bo")
    room = store.create_room("B00001", {"preset": "baishan", "base": 0.000001}, {}, "ranked")
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 1, bo)
    unit = Fraction(1, 10**6)
    # Seat 2 (a guest) makes an exposed kong of 5p: dealer 0 pays it 2 units, the others 1.
    kong = [-2 * unit, -unit, 4 * unit, -unit]
    win = [-64 * unit, 128 * unit, -32 * unit, -32 * unit]  # Bo (seat 1) wins
    net = [k + w for k, w in zip(kong, win, strict=True)]
    store_hands(
        store,
        room,
        [
            [
                {
                    "type": "kong_paid",
                    "seat": 2,
                    "kind": "exposed_kong",
                    "tile": "5p",
                    "payments": [float(x) for x in kong],
                },
                {
                    "type": "end",
                    "payments": [float(x) for x in net],
                    "payments_exact": [str(x) for x in net],
                    "kong_payments": [float(x) for x in kong],
                },
            ]
        ],
    )
    assert book_unbooked(store.engine).booked == 1
    # Only Ann's 64 units to Bo count; the kong moved points to and from a guest only.
    assert standings_of(store.engine, ann)["baishan"].points == -64 * unit
    assert standings_of(store.engine, bo)["baishan"].points == 64 * unit


@given(st.lists(amounts, min_size=4, max_size=4))
def test_from_equal_ratings_the_best_never_loses_and_the_worst_never_gains(
    totals: list[Fraction],
) -> None:
    after = rate([(MU, SIGMA)] * 4, totals)
    best, worst = max(totals), min(totals)
    for total, (mu, _) in zip(totals, after, strict=True):
        if total == best:
            assert mu >= MU - 1e-9
        if total == worst:
            assert mu <= MU + 1e-9
    # Equal totals, equal ratings after.
    for i in range(4):
        for j in range(4):
            if totals[i] == totals[j]:
                assert after[i][0] == pytest.approx(after[j][0])
