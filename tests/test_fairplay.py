"""The collusion watch (``laizi.server.fairplay``, ``laizi fairplay``, ``GET /api/admin/fairplay``):
exact signals on hand-built records, honest play not flagged, a feeder flagged, the CLI's JSON and
errors, the admin route's 401 / 403 / 200 and its rate limit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from laizi.engine.script import run_script
from laizi.server.fairplay import analyze, hand_facts
from laizi.server.store import Store, rooms
from tests.cli_helpers import run
from tests.server_helpers import http, login_cookie

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fairplay_sim import (  # noqa: E402
    Population,
    Seating,
    play_match,
    register_population,
    write_match,
)

NAMES = ["Ann", "Bo", "Cy", "Di"]


def passed_win_record() -> list[dict[str, Any]]:
    """Baishan, one hand: seat 1 discards 5z; seat 0 may win on it and passes (event 5), seat 3
    wins (its claim is event 6, the win event 7: seat 1 dealt in to seat 3)."""
    script = json.loads((ROOT / "examples/replay/baishan-one-winner.json").read_text())
    script["actions"][2] = {"seat": 0, "type": "pass"}
    return run_script(script).events


def _population(store: Store) -> Population:
    population = Population(list(NAMES), [], [])
    register_population(store, population)
    return population


def _pass_on_each_other(url: str) -> None:
    """Room F0: Ann (seat 0) passes a win on Bo's (seat 1) discard; room F1: the seats of Ann
    and Bo swapped, so Bo passes a win on Ann's.  Cy (seat 3) wins both; Di sits at seat 2."""
    store = Store(url)
    population = _population(store)
    record = passed_win_record()
    write_match(store, population, Seating((0, 1, 3, 2), {}), [record], "F0", "baishan")
    write_match(store, population, Seating((1, 0, 3, 2), {}), [record], "F1", "baishan")
    store.close()


def test_a_hands_facts_are_replayed_from_its_record() -> None:
    facts = hand_facts(passed_win_record())
    assert facts.offers == [(0, 1, 5, "5z", True), (3, 1, 6, "5z", False)]
    assert facts.deal_ins == [(1, 3, 7, "5z")]
    assert facts.discards == [1, 1, 0, 0]
    assert facts.claims == []
    assert facts.paid[1][3] == 16.0 and facts.paid[2][3] == 8.0


def test_a_pair_that_passed_a_win_on_each_other_exact_counts_and_evidence(db_url: str) -> None:
    _pass_on_each_other(db_url)
    store = Store(db_url)
    report = analyze(store.engine, min_matches=2, threshold=0.0)
    store.close()
    assert report.rooms == 2 and report.hands == 2 and report.unreadable == []
    assert report.considered == 6  # every pair of the four sat together twice
    pair = next(p for p in report.pairs if p["accounts"] == ["Ann", "Bo"])
    assert (pair["matches"], pair["hands"]) == (2, 2)
    signals = {(s["signal"], s["from"], s["to"]): s for s in pair["signals"]}
    assert signals[("passed_wins", "Ann", "Bo")]["observed"] == 1
    assert signals[("passed_wins", "Bo", "Ann")]["observed"] == 1
    assert signals[("deal_ins", "Ann", "Bo")]["observed"] == 0
    assert len(pair["signals"]) == 7  # three signals each way, and the points
    assert [e for e in pair["evidence"] if e["signal"] == "passed_win"] == [
        {
            "signal": "passed_win",
            "from": "Ann",
            "to": "Bo",
            "room": "F0",
            "hand": 0,
            "event": 5,
            "tile": "5z",
        },
        {
            "signal": "passed_win",
            "from": "Bo",
            "to": "Ann",
            "room": "F1",
            "hand": 0,
            "event": 5,
            "tile": "5z",
        },
    ]
    # the discarder dealt in to the winner, in each room: Bo → Cy in F0, Ann → Cy in F1
    bo_cy = next(p for p in report.pairs if p["accounts"] == ["Bo", "Cy"])
    assert [(e["from"], e["to"], e["room"], e["event"]) for e in bo_cy["evidence"]] == [
        ("Bo", "Cy", "F0", 7)
    ]
    # Cy took its win: declining it is what the watch counts, not being offered it
    ann_cy = next(p for p in report.pairs if p["accounts"] == ["Ann", "Cy"])
    declined = {
        (s["from"], s["to"]): s["observed"]
        for s in ann_cy["signals"]
        if s["signal"] == "passed_wins"
    }
    assert declined == {("Ann", "Cy"): 0, ("Cy", "Ann"): 0}


def test_fewer_matches_than_the_minimum_are_not_scored(db_url: str) -> None:
    _pass_on_each_other(db_url)
    store = Store(db_url)
    report = analyze(store.engine, min_matches=3)
    store.close()
    assert report.considered == 0 and report.flagged == []


def _play(url: str, feeds: dict[int, int], matches: int) -> None:
    store = Store(url)
    population = _population(store)
    for number in range(matches):
        # the seats go round, so every account sits before and after every other one
        seats = tuple((i + number) % 4 for i in range(4))
        feeds_now = {seats.index(f): seats.index(p) for f, p in feeds.items()}
        seating = Seating(seats, feeds_now)  # type: ignore[arg-type]
        records = play_match(seating, hands=2, seed=number)
        write_match(store, population, seating, records, f"M{number:03d}")
    store.close()


def test_honest_players_are_not_flagged(db_url: str) -> None:
    _play(db_url, {}, matches=12)
    store = Store(db_url)
    report = analyze(store.engine, min_matches=10)
    store.close()
    assert report.considered == 6 and report.unreadable == []
    assert report.flagged == []
    assert max(p["score"] for p in report.pairs) < 3


def test_a_feeder_and_its_partner_are_flagged_and_nobody_else(db_url: str) -> None:
    _play(db_url, {0: 1}, matches=30)  # Ann feeds Bo: 30 matches of 2 hands
    store = Store(db_url)
    report = analyze(store.engine, min_matches=10)
    store.close()
    assert [p["accounts"] for p in report.flagged] == [["Ann", "Bo"]]
    pair = report.flagged[0]
    strongest = max(pair["signals"], key=lambda s: s["surprise"])
    assert (strongest["from"], strongest["to"]) == ("Ann", "Bo")
    assert all(e["room"].startswith("M") and e["event"] > 1 for e in pair["evidence"])


# -- the command --------------------------------------------------------------------------------
def test_cli_json_lists_the_flagged_pair_with_its_evidence(db_url: str) -> None:
    _pass_on_each_other(db_url)
    result = run("fairplay", "--db", db_url, "--json", "--min-matches", "2", "--threshold", "0")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert set(report) == {
        "rooms",
        "hands",
        "unreadable_hands",
        "ranked_filter",
        "min_matches",
        "threshold",
        "pairs_considered",
        "flagged",
    }
    assert report["ranked_filter"] == "ranked rooms"
    assert report["pairs_considered"] == 6 and len(report["flagged"]) == 6
    ann_bo = next(p for p in report["flagged"] if p["accounts"] == ["Ann", "Bo"])
    assert {(e["room"], e["event"]) for e in ann_bo["evidence"]} == {("F0", 5), ("F1", 5)}
    text = run("fairplay", "--db", db_url, "--min-matches", "2", "--threshold", "0", "--lang", "zh")
    assert text.returncode == 0
    assert "房间 F0 第 0 局 第 5 个事件：Ann 可以和 Bo 打出的 5z，却没有和" in text.stdout
    assert "不会自动封号" in text.stdout


def test_only_ranked_matches_count_unless_all_rooms_is_asked(db_url: str) -> None:
    """Friends choose their table in a friendly room: the watch reads ranked rooms only."""
    _pass_on_each_other(db_url)
    store = Store(db_url)
    with store.engine.begin() as c:
        c.execute(update(rooms).where(rooms.c.code == "F1").values(kind="friendly"))
    ranked = analyze(store.engine, min_matches=1, threshold=0.0)
    every = analyze(store.engine, min_matches=1, threshold=0.0, all_rooms=True)
    store.close()
    assert (ranked.rooms, ranked.ranked_filter) == (1, "ranked rooms")
    assert (every.rooms, every.ranked_filter) == (2, "all rooms with account seats")
    result = run("fairplay", "--db", db_url, "--json", "--min-matches", "1", "--all-rooms")
    assert json.loads(result.stdout.splitlines()[-1])["rooms"] == 2


def test_cli_refuses_what_is_not_a_server_database(tmp_path: Path) -> None:
    missing = run("fairplay", "--db", f"sqlite:///{tmp_path}/none.sqlite3")
    assert missing.returncode == 1 and "no such file" in missing.stderr
    bad = run("fairplay", "--db", "nonsense")
    assert bad.returncode == 1 and "not a database URL" in bad.stderr
    (tmp_path / "empty.sqlite3").write_bytes(b"")
    empty = run("fairplay", "--db", f"sqlite:///{tmp_path}/empty.sqlite3", "--json")
    assert empty.returncode == 1 and "not a laizi server's database" in empty.stderr
    assert empty.stdout == "" and "Traceback" not in empty.stderr
    usage = run("fairplay", "--db", f"sqlite:///{tmp_path}/empty.sqlite3", "--min-matches", "0")
    assert usage.returncode == 2


# -- the admin route ----------------------------------------------------------------------------
def test_admin_route_401_guest_403_others_200_admin(serve: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/watch.sqlite3"
    _pass_on_each_other(url)
    srv = serve("--admin", "Root,Nobody", db_url=url)
    path = "/api/admin/fairplay?min_matches=2&threshold=0"
    status, _, body = http(srv, "GET", path)
    assert status == 401 and json.loads(body)["code"] == "not_logged_in"
    forged = "laizi_session=" + "A" * 43
    status, _, body = http(srv, "GET", path, cookie=forged)
    assert status == 401
    other = login_cookie(srv, "Eve")
    status, _, body = http(srv, "GET", path, cookie=other)
    answer = json.loads(body)
    assert status == 403 and answer["code"] == "not_admin" and "flagged" not in answer
    assert answer["error_zh"] == "只有管理员可以查看"
    admin = login_cookie(srv, "root")  # names as the server keys them: any case
    status, _, body = http(srv, "GET", path, cookie=admin)
    assert status == 200
    report = json.loads(body)
    cli = run("fairplay", "--db", url, "--json", "--min-matches", "2", "--threshold", "0")
    assert report == json.loads(cli.stdout.splitlines()[-1])
    status, _, body = http(srv, "GET", "/api/admin/fairplay?min_matches=0", cookie=admin)
    assert status == 400


def test_admin_route_without_admins_is_403_to_every_account(serve: Any) -> None:
    srv = serve()
    cookie = login_cookie(srv, "Root")
    status, _, body = http(srv, "GET", "/api/admin/fairplay", cookie=cookie)
    assert status == 403 and json.loads(body)["code"] == "not_admin"


def test_admin_route_flood_meets_the_get_limit(serve: Any) -> None:
    srv = serve("--admin", "Root", "--get-rate", "0.5", "--get-burst", "5")
    cookie = login_cookie(srv, "Root")
    statuses = [http(srv, "GET", "/api/admin/fairplay", cookie=cookie)[0] for _ in range(12)]
    assert statuses[0] == 200
    assert statuses.count(429) >= 6
    assert set(statuses) <= {200, 429}


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """An SQLite file (the watch reads what any server's database holds; PostgreSQL's reading
    is the same SQLAlchemy Core)."""
    return f"sqlite:///{tmp_path}/fairplay.sqlite3"
