"""The account HTTP API of docs/api.md (issue 8), on SQLite and PostgreSQL.

Most tests drive the application in-process (Starlette's test client, a fresh app and so fresh
rate limits each); the match tests run a real ``laizi serve`` and real WebSocket clients.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, delete

from laizi.engine import parse_record, verify
from laizi.server.store import database_url
from tests.server_helpers import SRC, ServerProcess, connect, http, login_cookie, play

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}


@pytest.fixture
def client(db_url: str) -> Iterator[Any]:
    from starlette.testclient import TestClient

    from laizi.server.app import create_app

    with TestClient(create_app(db_url)) as test_client:
        yield test_client


def register(client: Any, name: str, password: str = "hongzhong") -> Any:
    return client.post("/api/register", json={"name": name, "password": password})


# -- accounts over HTTP ---------------------------------------------------------------------------
def test_register_sets_an_http_only_same_site_cookie_and_logs_in(client: Any) -> None:
    response = register(client, "Ann")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Ann" and set(body["games"]) == {"wuhan", "baishan"}
    wuhan = body["games"]["wuhan"]
    assert wuhan["points"] == 0 and wuhan["rank"]["zh"] == "白板" and wuhan["matches"] == 0
    assert wuhan["next_rank"] == {"zh": "一万", "en": "1 Character", "from": 100, "missing": 100}
    assert wuhan["rating"]["ordinal"] == pytest.approx(0, abs=1e-3)
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("laizi_session=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Max-Age=2592000" in cookie
    assert "Secure" not in cookie  # plain http: a Secure cookie would never come back
    me = client.get("/api/me")
    assert me.status_code == 200 and me.json()["name"] == "Ann"
    assert client.get("/api/players/ANN").json()["name"] == "Ann"
    assert client.get("/api/players/nobody").status_code == 404


def test_cookie_is_secure_over_https(db_url: str) -> None:
    from starlette.testclient import TestClient

    from laizi.server.app import create_app

    with TestClient(create_app(db_url), base_url="https://testserver") as https:
        cookie = register(https, "Ann").headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie
        assert https.get("/api/me").json()["name"] == "Ann"


def test_guest_has_no_profile(client: Any) -> None:
    response = client.get("/api/me")
    assert response.status_code == 401 and response.json()["code"] == "not_logged_in"
    assert client.get("/api/me/matches").status_code == 401


def test_login_logout_and_the_old_session_is_dead(client: Any) -> None:
    register(client, "Ann")
    client.cookies.clear()
    bad = client.post("/api/login", json={"name": "Ann", "password": "nope-nope"})
    assert bad.status_code == 401 and bad.json()["code"] == "bad_login"
    good = client.post("/api/login", json={"name": "ann", "password": "hongzhong"})
    assert good.status_code == 200 and good.json()["name"] == "Ann"
    token = client.cookies["laizi_session"]
    out = client.post("/api/logout", json={})
    assert out.status_code == 200 and 'laizi_session=""' in out.headers["set-cookie"]
    assert client.get("/api/me").status_code == 401
    client.cookies.set("laizi_session", token)
    assert client.get("/api/me").status_code == 401


def test_login_is_rate_limited_with_retry_after(client: Any) -> None:
    register(client, "Ann")
    client.cookies.clear()
    codes = [
        client.post("/api/login", json={"name": "Ann", "password": "wrong-pass"}).status_code
        for _ in range(5)
    ]
    assert codes == [401] * 5
    limited = client.post("/api/login", json={"name": "Ann", "password": "hongzhong"})
    assert limited.status_code == 429 and limited.json()["code"] == "login_locked"
    assert "秒后再试" in limited.json()["error_zh"]
    assert 890 <= int(limited.headers["retry-after"]) <= 901
    # Other accounts from the same address may still log in (until the address limit).
    register(client, "Bo")
    client.cookies.clear()
    assert (
        client.post("/api/login", json={"name": "Bo", "password": "hongzhong"}).status_code == 200
    )


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"content": b"name=Ann&password=hongzhong"}, 415, "bad_request"),
        ({"content": b"{", "headers": {"content-type": "application/json"}}, 400, "bad_request"),
        ({"json": [1, 2]}, 400, "bad_request"),
        ({"json": {"name": "Ann"}}, 400, "bad_password"),
        ({"json": {"name": "<b>", "password": "hongzhong"}}, 400, "bad_name"),
        ({"content": b"x" * 5000, "headers": {"content-type": "application/json"}}, 413, None),
    ],
)
def test_bad_register_requests_are_refused_clearly(
    client: Any, kwargs: dict[str, Any], status: int, code: str | None
) -> None:
    response = client.post("/api/register", **kwargs)
    assert response.status_code == status
    assert response.json()["error"]
    if code is not None:
        assert response.json()["code"] == code


def test_taken_name_is_a_conflict(client: Any) -> None:
    register(client, "Ann")
    again = register(client, "ANN")
    assert again.status_code == 409 and again.json()["code"] == "name_taken"


def test_leaderboard_and_lobby_shapes(client: Any) -> None:
    assert client.get("/api/leaderboard/wuhan").json() == {"game": "wuhan", "players": []}
    assert client.get("/api/leaderboard/chess").status_code == 404
    assert client.get("/api/leaderboard/wuhan?limit=0").status_code == 400
    assert client.get("/api/leaderboard/wuhan?limit=x").status_code == 400
    assert client.get("/api/lobby").json()["rooms"] == []
    made = client.post("/api/rooms", json={"rules": "baishan", "table": {"players": 3, "hands": 2}})
    assert made.status_code == 201
    [room] = client.get("/api/lobby").json()["rooms"]
    assert room["code"] == made.json()["code"] and room["status"] == "waiting"
    assert room["game"] == "baishan" and room["preset"] == "baishan"
    assert room["players"] == 3 and room["seated"] == 0 and room["open_seats"] == 3
    assert room["hands"] == 2 and room["hands_played"] == 0
    assert client.get("/api/matches/NOSUCH/record").status_code == 404
    assert client.get("/api/me/matches?limit=500").status_code == 401


# -- a real server: a match booked to the accounts -------------------------------------------------
def test_a_match_books_points_ratings_history_and_survives_a_lost_booking(
    tmp_path: Path, db_url: str
) -> None:
    srv = ServerProcess(tmp_path / "db.sqlite3", db_url=db_url).start()
    try:
        ann = login_cookie(srv, "Ann")
        room = srv.create_room(players=2, hands=2, **FAST)
        code = room["code"]
        status, _, lobby = http(srv, "GET", "/api/lobby")
        assert code in [r["code"] for r in json.loads(lobby)["rooms"]]

        async def main() -> None:
            a, guest = await connect(srv, ann), await connect(srv)
            joined = await a.join(code, name="Mallory")  # an account plays under its own name
            assert joined["seat"] == 0
            await guest.join(code, name="Guest")
            await asyncio.gather(play(a, random.Random(1)), play(guest, random.Random(2)))

        asyncio.run(asyncio.wait_for(main(), 120))
        info = json.loads(srv.get(f"/api/rooms/{code}")[1])
        assert info["status"] == "over" and info["seats"][0]["name"] == "Ann"
        total = info["totals"][0]
        status, _, body = http(srv, "GET", "/api/me", cookie=ann)
        wuhan = json.loads(body)["games"]["wuhan"]
        # A room made by link is friendly (友人场): the match is booked, no standing moves.
        assert wuhan["matches"] == 0 and wuhan["points"] == 0
        assert json.loads(body)["games"]["baishan"]["matches"] == 0
        status, _, body = http(srv, "GET", "/api/me/matches", cookie=ann)
        [match] = json.loads(body)["matches"]
        assert match["room"] == code and match["seat"] == 0 and match["total"] == total
        assert match["kind"] == "friendly"
        assert match["points_before"] is None and match["points_after"] is None
        assert match["rating_before"] is None and match["rating_after"] is None
        assert [s["account"] for s in match["seats"]] == ["Ann", None, None, None]
        assert sorted(s["place"] for s in match["seats"])[0] == 1
        assert len(match["hands"]) == info["hands_played"]
        # The records download and verify: each hand, and the whole match with `laizi verify`.
        for link in match["hands"]:
            assert verify(parse_record(srv.get(link)[1].decode())).ok
        status, headers, record = http(srv, "GET", match["record"], cookie=ann)
        assert status == 200 and "attachment" in headers["Content-Disposition"]
        path = tmp_path / "match.jsonl"
        path.write_bytes(record)
        checked = subprocess.run(
            [sys.executable, "-c", "from laizi.cli import main; main()", "verify", str(path)],
            env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        status, _, body = http(srv, "GET", "/api/leaderboard/wuhan")
        assert status == 200 and json.loads(body)["players"] == []  # no ranked match yet
        # A crash after the match's end but before its booking: the next start books it.
        srv.stop()
        from laizi.server.ratings import match_results, standings

        engine = create_engine(database_url(db_url))
        with engine.begin() as c:
            c.execute(delete(match_results))
            c.execute(delete(standings))
        engine.dispose()
        srv.start()
        status, _, body = http(srv, "GET", "/api/me", cookie=ann)  # the session survived too
        assert status == 200
        again = json.loads(body)["games"]["wuhan"]
        assert again["matches"] == 0 and again["points"] == 0
        status, _, body = http(srv, "GET", "/api/me/matches", cookie=ann)
        [rebooked] = json.loads(body)["matches"]
        assert rebooked["total"] == total and rebooked["kind"] == "friendly"
    finally:
        srv.stop()


def _joined_name(client: Any, code: str, origin: str, name: str = "Eve") -> str:
    with client.websocket_connect("/ws", headers={"origin": origin}) as ws:
        ws.send_json({"type": "join", "room": code, "name": name})
        while True:
            frame = ws.receive_json()
            messages = frame if isinstance(frame, list) else [frame]
            if any(m["type"] == "joined" for m in messages):
                break
        info = client.get(f"/api/rooms/{code}").json()
        return next(s["name"] for s in info["seats"] if s["kind"] == "human")


def test_a_cross_site_websocket_plays_as_a_guest(client: Any) -> None:
    register(client, "Ann")
    code = client.post("/api/rooms", json={"table": {"players": 3}}).json()["code"]
    assert _joined_name(client, code, "http://testserver") == "Ann"
    assert _joined_name(client, code, "https://evil.example") == "Eve"
    # A guest may not pass for an account: the name is marked as a guest's.
    assert _joined_name(client, code, "https://evil.example", "ANN") == "ANN (游客)"


def test_a_serving_process_raises_the_collector_thresholds(db_url: str) -> None:
    """While serving, the collector runs less often: its full passes were the latency tail
    (docs/server.md).  (That the hand tables are loaded before the first player is shown by
    ``test_server.py``'s 0.3 s clock, which the first hint's table loading used to run out.)"""
    import gc

    from starlette.testclient import TestClient

    from laizi.server.app import GC_THRESHOLDS, create_app

    before = gc.get_threshold()
    try:
        with TestClient(create_app(db_url)) as client:
            assert gc.get_threshold() == GC_THRESHOLDS == (50_000, 20, 100)
            assert client.get("/healthz").status_code == 200
    finally:
        gc.set_threshold(*before)
