"""Strength points, the Part B rank ladder and OpenSkill ratings (issue 8), on both databases."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, update

from laizi.rules import RANKS, rank_for
from laizi.server.accounts import Accounts
from laizi.server.ratings import (
    MU,
    SIGMA,
    book_match,
    book_unbooked,
    leaderboard,
    link_seat,
    match_history,
    new_points,
    next_rank,
    places,
    rate,
    seat_accounts,
    standings,
    standings_of,
)
from laizi.server.store import Store, events, hands, rooms
from tests.server_helpers import FAST_HASH

amounts = st.fractions(min_value=-5000, max_value=5000, max_denominator=6)


# -- the pure part --------------------------------------------------------------------------------
@given(st.lists(amounts, max_size=30))
def test_points_accumulate_and_never_go_below_zero(totals: list[Fraction]) -> None:
    points = Fraction(0)
    for total in totals:
        after = new_points(points, total)
        assert after >= 0
        assert after == (points + total if points + total >= 0 else 0)
        points = after


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
    from laizi.rules import Settings

    code = f"T{len(store.rooms(('waiting', 'playing', 'over'))):05d}"
    return store.create_room(code, Settings.from_json(rules).to_json(), {})


def _accounts(store: Store, *names: str) -> list[int]:
    service = Accounts(store.engine, hasher=FAST_HASH)
    return [service.register(name, "password1").id for name in names]


def test_booking_accumulates_points_clamps_at_zero_and_rates(store: Store) -> None:
    ann, bo = _accounts(store, "Ann", "Bo")
    first = _room(store)
    link_seat(store.engine, first, 0, ann)
    link_seat(store.engine, first, 2, bo)
    rows = book_match(store.engine, first, "wuhan", [Fraction(120), 7, Fraction(-80), -47], 4, 1.0)
    assert [r["account_id"] for r in rows] == [ann, None, bo, None]
    assert [r["place"] for r in rows] == [1, 2, 4, 3]
    mine = standings_of(store.engine, ann)
    assert mine["wuhan"].points == 120 and mine["wuhan"].matches == 1
    assert mine["baishan"].points == 0 and mine["baishan"].matches == 0
    assert mine["wuhan"].mu > MU
    theirs = standings_of(store.engine, bo)["wuhan"]
    assert theirs.points == 0 and theirs.mu < MU  # 0 − 80 stays at 0
    # The second match: Ann loses 150 of her 120 → 0; Bo wins 5/2 → 5/2 exactly.
    second = _room(store)
    link_seat(store.engine, second, 1, ann)
    link_seat(store.engine, second, 3, bo)
    book_match(store.engine, second, "wuhan", [0, -150, Fraction(295, 2), Fraction(5, 2)], 2, 2.0)
    assert standings_of(store.engine, ann)["wuhan"].points == 0
    assert standings_of(store.engine, bo)["wuhan"].points == Fraction(5, 2)
    assert standings_of(store.engine, bo)["wuhan"].matches == 2
    profile = standings_of(store.engine, bo)["wuhan"].to_json()
    assert profile["points"] == 2.5 and profile["points_exact"] == "5/2"
    assert profile["rank"] == {"zh": "白板", "en": "White Dragon", "from": 0}
    assert profile["next_rank"]["zh"] == "一万" and profile["next_rank"]["missing"] == 97.5
    history = match_history(store.engine, ann)
    assert [m["total"] for m in history] == [-150, 120]
    assert [m["points_after"] for m in history] == [0, 120]
    assert history[1]["seats"][0] == {"seat": 0, "account": "Ann", "total": 120, "place": 1}
    assert history[1]["seats"][1]["account"] is None
    assert history[1]["hands"][-1].endswith("/hands/3") and len(history[1]["hands"]) == 4
    assert match_history(store.engine, ann, before=2.0)[0]["total"] == 120


def test_booking_twice_changes_nothing(store: Store) -> None:
    [ann] = _accounts(store, "Ann")
    room = _room(store)
    link_seat(store.engine, room, 0, ann)
    assert book_match(store.engine, room, "wuhan", [10, -10, 0, 0], 1)
    assert book_match(store.engine, room, "wuhan", [10, -10, 0, 0], 1) == []
    assert standings_of(store.engine, ann)["wuhan"].points == 10
    assert standings_of(store.engine, ann)["wuhan"].matches == 1


def test_a_match_without_accounts_books_nothing(store: Store) -> None:
    room = _room(store)
    assert book_match(store.engine, room, "wuhan", [10, -10, 0, 0], 1) == []
    with store.engine.connect() as c:
        assert c.execute(select(standings)).all() == []


def test_games_are_ranked_apart(store: Store) -> None:
    [ann] = _accounts(store, "Ann")
    room = _room(store, "baishan")
    link_seat(store.engine, room, 0, ann)
    book_match(store.engine, room, "baishan", [300, -100, -100, -100], 1)
    mine = standings_of(store.engine, ann)
    assert mine["baishan"].points == 300 and rank_for(300).zh == "二万"
    assert mine["wuhan"].points == 0
    assert [p["name"] for p in leaderboard(store.engine, "baishan")] == ["Ann"]
    assert leaderboard(store.engine, "wuhan") == []


def test_leaderboard_orders_by_points_then_rating(store: Store) -> None:
    ids = _accounts(store, "Ann", "Bo", "Cy", "Di")
    room = _room(store)
    for seat, account in enumerate(ids):
        link_seat(store.engine, room, seat, account)
    book_match(store.engine, room, "wuhan", [50, 0, 0, -50], 1)
    board = leaderboard(store.engine, "wuhan")
    assert [(p["place"], p["name"], p["points"]) for p in board] == [
        (1, "Ann", 50),
        (2, "Bo", 0),
        (3, "Cy", 0),
        (4, "Di", 0),
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
    [ann] = _accounts(store, "Ann")
    room = _room(store)
    link_seat(store.engine, room, 0, ann)
    ends = [
        {"type": "end", "payments": [10, -4, -3, -3]},
        {
            "type": "end",
            "payments": [1 / 3, 0, 0, -1 / 3],
            "payments_exact": ["1/3", "0", "0", "-1/3"],
        },
    ]
    with store.engine.begin() as c:
        for number, end in enumerate(ends):
            hand_id = c.execute(
                insert(hands).values(
                    room_id=room, number=number, dealer=0, seed="00", finished=True
                )
            ).inserted_primary_key[0]
            c.execute(
                insert(events),
                [
                    {"hand_id": hand_id, "idx": 0, "body": json.dumps({"type": "deal"})},
                    {"hand_id": hand_id, "idx": 1, "body": json.dumps(end)},
                ],
            )
        c.execute(update(rooms).where(rooms.c.id == room).values(status="over"))
    assert book_unbooked(store.engine) == 1
    assert standings_of(store.engine, ann)["wuhan"].points == Fraction(31, 3)
    assert book_unbooked(store.engine) == 0
    [match] = match_history(store.engine, ann)
    assert match["hands"] == [f"/api/rooms/T00000/hands/{n}" for n in range(2)]
    with store.engine.begin() as c:
        c.execute(delete(seat_accounts))
    assert book_unbooked(store.engine) == 0


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
