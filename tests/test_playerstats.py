"""A player's statistics per game (``GET /api/me/stats``, ``/api/players/NAME/stats``) and the
rank change a ranked match's summary shows, computed from the stored records of a scripted set
of matches (issue 27, item 4): exact values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from laizi.server.store import Store
from laizi.server.summary import room_summary
from tests.stats_helpers import script_matches

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def played(db_url: str) -> Iterator[Any]:
    """Ann and Bo registered, and :func:`script_matches` played."""
    from starlette.testclient import TestClient

    from laizi.server.app import create_app

    with TestClient(create_app(db_url)) as client:
        for name in ("Ann", "Bo"):
            response = client.post("/api/register", json={"name": name, "password": "hongzhong"})
            assert response.status_code == 201
        store = Store(db_url)
        try:
            by_name = client.app.state.hub.accounts.by_name
            script_matches(store, by_name("Ann").id, by_name("Bo").id)
            yield client
        finally:
            store.close()


ANN_WUHAN = {
    "matches": 2,
    "hands": 5,
    "wins": 2,
    "win_rate": 0.4,
    "deal_ins": 2,  # her discard won on in the ranked match, her kong robbed in the casual one
    "deal_in_rate": 0.4,
    "points_per_hand": 226 / 15,  # (60 - 10 + 0 + 100/3 - 8) / 5
    "points_per_hand_exact": "226/15",
    "places": [2, 0, 0, 0],
    "big_wins": {"pengpenghu": 1, "qingyise": 2},
    "best_hand": {
        "room": "RANKD1",
        "hand": 0,
        "points": 60,
        "points_exact": "60",
        "wins": ["qingyise", "pengpenghu"],
        "replay": "/replay/RANKD1/0",
        "record": "/api/rooms/RANKD1/hands/0",
    },
    "recent": ["50", "76/3"],
}
BO_WUHAN = {
    "matches": 1,
    "hands": 3,
    "wins": 1,
    "win_rate": 0.3333,
    "deal_ins": 0,
    "deal_in_rate": 0.0,
    "points_per_hand": -10 / 3,
    "points_per_hand_exact": "-10/3",
    "places": [0, 1, 0, 0],
    "big_wins": {},  # 屁胡 is no big win
    "best_hand": {
        "room": "RANKD1",
        "hand": 1,
        "points": 10,
        "points_exact": "10",
        "wins": ["pinghu"],
        "replay": "/replay/RANKD1/1",
        "record": "/api/rooms/RANKD1/hands/1",
    },
    "recent": ["-10"],
}


def test_stats_per_game_from_the_stored_records(played: Any) -> None:
    client = played
    assert (
        client.post("/api/login", json={"name": "Ann", "password": "hongzhong"}).status_code == 200
    )
    mine = client.get("/api/me/stats")
    assert mine.status_code == 200
    body = mine.json()
    assert body["name"] == "Ann"
    assert body["games"]["wuhan"] == ANN_WUHAN
    baishan = body["games"]["baishan"]
    assert (baishan["matches"], baishan["hands"], baishan["wins"], baishan["deal_ins"]) == (
        1,
        1,
        1,
        0,
    )
    assert baishan["big_wins"] == {"piaohu": 1} and baishan["points_per_hand"] == 48
    assert baishan["best_hand"]["replay"] == "/replay/FRIEND/0"
    # anyone may read a player's statistics by name
    bo = client.get("/api/players/Bo/stats")
    assert bo.status_code == 200 and bo.json()["games"]["wuhan"] == BO_WUHAN
    assert bo.json()["games"]["baishan"]["matches"] == 0
    assert bo.json()["games"]["baishan"]["best_hand"] is None
    assert client.get("/api/players/Nobody/stats").status_code == 404
    client.post("/api/logout", json={})
    assert client.get("/api/me/stats").json()["code"] == "not_logged_in"


def test_a_ranked_summary_says_the_next_rank_and_the_points_missing(
    played: Any, db_url: str
) -> None:
    store = Store(db_url)
    try:
        summary = room_summary(store, "RANKD1")
        assert summary is not None
        # only what accounts paid each other moves points: Ann +20 from Bo, then -10 to him
        moved = [
            (s["seat"], s["points_before"], s["points_after"], s["delta"], s["next_rank"])
            for s in summary["standings"]
        ]
        assert moved == [
            (0, "0", "10", "10", {"zh": "一万", "en": "1 Character", "missing": "90"}),
            (2, "0", "-10", "-10", {"zh": "一万", "en": "1 Character", "missing": "110"}),
        ]
        assert room_summary(store, "CASUL1")["standings"] == []  # a casual table moves no ranks
    finally:
        store.close()


def test_statistics_cost_what_a_record_costs_under_the_get_limit() -> None:
    """They read every stored hand of up to 500 matches: a flood of them is held back sooner."""
    from laizi.server.readonly import HEAVY

    for path in ("/api/me/stats", "/api/players/Ann/stats", "/api/matches/X/record"):
        assert HEAVY.match(path), path
    for path in ("/api/me", "/api/players/Ann", "/api/me/matches"):
        assert not HEAVY.match(path), path
