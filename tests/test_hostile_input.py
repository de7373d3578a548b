"""Hostile input against a real ``laizi serve`` and the CLI (issue 13, points 7–9).

Each test replays an attack that used to work — a 500, a traceback, a dropped connection, a lock
anyone could set, a name that passes for another's, a trusted forged address, missing headers —
and asserts the documented refusal instead.  The server tests run on SQLite and PostgreSQL
(``module_db_url``): a NUL reached PostgreSQL and dropped the connection there.

The module's server trusts ``X-Forwarded-For`` from 127.0.0.1 (``--proxy-headers 127.0.0.1``),
so each test speaks from addresses of its own and the per-address limits don't mix tests.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laizi.server.http_guard import CSP
from tests.server_helpers import SRC, Client, ServerProcess

DEEP_ARRAY = b"[" * 2000 + b"]" * 2000
"""Under the 4096-byte body limit of the account routes, far over the nesting limit."""
HOSTILE_BODIES = {
    "deep_array": DEEP_ARRAY,
    "deep_object": b'{"a":' * 600 + b"1" + b"}" * 600,
    "huge_int": b'{"name": ' + b"9" * 3000 + b"}",
    "huge_float": b'{"name": 1e999}',
    "nan": b'{"name": NaN}',
    "bad_utf8": b'{"name": "\xff\xfe"}',
    "lone_surrogate": b'{"name": "\\ud800", "password": "\\udfff"}',
    "nul_only": b"\x00",
}


@pytest.fixture(scope="module")
def srv(module_db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("hostile") / "db.sqlite3"
    # Every refusal here is answered: the message budget (tested in test_limits) is raised.
    args = ("--proxy-headers", "127.0.0.1", "--message-rate", "1000", "--message-burst", "1000")
    with ServerProcess(path, db_url=module_db_url, args=args) as server:
        yield server


def call(
    server: ServerProcess,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    address: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """A raw HTTP request (the path and body go out byte for byte)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    sent = dict(headers or {})
    if body is not None and "Content-Type" not in sent:
        sent["Content-Type"] = "application/json"
    if address is not None:
        sent["X-Forwarded-For"] = address
    try:
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def post_json(
    server: ServerProcess, path: str, obj: Any, address: str
) -> tuple[int, dict[str, Any], dict[str, str]]:
    status, headers, body = call(server, "POST", path, json.dumps(obj).encode(), address=address)
    return status, json.loads(body), headers


# -- point 8: bad input over HTTP ------------------------------------------------------------------
@pytest.mark.parametrize("route", ["/api/rooms", "/api/register", "/api/login", "/api/logout"])
def test_hostile_json_bodies_are_a_400_with_a_code(srv: ServerProcess, route: str) -> None:
    for index, (kind, body) in enumerate(HOSTILE_BODIES.items()):
        status, _, raw = call(srv, "POST", route, body, address=f"10.8.{len(route)}.{index}")
        assert status == 400, (kind, status, raw[:200])
        answer = json.loads(raw)
        assert answer["code"] == "bad_request", (kind, answer)
        assert answer["error"].startswith("the body is not JSON"), (kind, answer)
    # The server still works afterwards.
    assert srv.get("/healthz")[0] == 200


def test_a_huge_hand_number_is_a_404_not_an_overflow(srv: ServerProcess) -> None:
    code = srv.create_room(
        players=0,
        cookie=srv.account_cookie("owner" + secrets.token_hex(4)),
        hands=1,
        bot_delay_ms=0,
        between_hands_ms=0,
    )["code"]
    for number in ["2147483648", "9" * 20, "9" * 5000]:
        hand = f"/api/rooms/{code}/hands/{number}"
        for path in [hand, hand + "/replay"]:
            status, _, raw = call(srv, "GET", path)
            assert status == 404, (path[:60], status, raw[:200])
            assert b"no finished hand" in raw


@pytest.mark.parametrize(
    "path",
    [
        "/api/players/%00",
        "/api/players/Ann%00",
        "/api/players/%FF%FE",
        "/api/matches/AB%00CD/record",
        "/api/rooms/AB%00CD",
        "/api/rooms/AB%00CD/hands/0",
        "/r/AB%01CD",
        "/api/leaderboard/wuhan?limit=%00",
        "/api/me/matches?before=%00",
    ],
)
def test_nul_control_characters_and_bad_utf8_in_addresses_are_a_400(
    srv: ServerProcess, path: str
) -> None:
    status, headers, raw = call(srv, "GET", path)
    assert status == 400, (status, raw[:200])
    answer = json.loads(raw)
    assert answer["code"] == "bad_request" and "control character" in answer["error"]
    assert "控制字符" in answer["error_zh"]
    assert headers["x-content-type-options"] == "nosniff"


# -- point 8: bad input over the WebSocket ---------------------------------------------------------
async def _ws_refusals(server: ServerProcess, code: str) -> list[dict[str, Any]]:
    client = await Client.connect(server.ws)
    await client.expect("welcome")
    answers = []
    for message in [
        {"type": "join", "room": code, "name": "Ann\x00"},
        {"type": "join", "room": code, "name": "\x07bell"},
        {"type": "join", "room": code, "token": "é" * 10},
        {"type": "join", "room": code, "seat": 10**30},
        {"type": "act", "prompt": 10**30, "action": {"type": "pass"}},
        {"type": "resync", "last_seq": -1},
        '{"type": "join", "room": "' + code + '", "name": "\\ud800"}',
        "[" * 2000 + "]" * 2000,
        '{"type": "ping", "x": ' + "[" * 1000 + "]" * 1000 + "}",
    ]:
        await client.send(message)
        answers.append(await client.expect("error"))
    await client.ws.send(b'{"type": "join", "room": "\xff"}')  # a binary frame, not UTF-8
    answers.append(await client.expect("error"))
    await client.send({"type": "ping"})
    await client.expect("pong")  # the connection survived every one of them
    await client.close()
    return answers


def test_a_websocket_with_a_broken_origin_plays_as_a_guest(srv: ServerProcess) -> None:
    import websockets

    async def main() -> dict[str, Any]:
        ws = await websockets.connect(srv.ws, additional_headers={"Origin": "http://["})
        client = Client(ws)
        welcome = await client.expect("welcome")
        await client.send({"type": "ping"})
        await client.expect("pong")
        await client.close()
        return welcome

    assert asyncio.run(main())["protocol"] == 1


def test_hostile_websocket_messages_are_errors_and_the_connection_stays(
    srv: ServerProcess,
) -> None:
    code = srv.create_room(players=2)["code"]
    answers = asyncio.run(_ws_refusals(srv, code))
    codes = [a["code"] for a in answers]
    assert codes == [
        "bad_name",
        "bad_name",
        "bad_message",
        "bad_message",
        "bad_message",
        "bad_message",
        "bad_json",
        "bad_message",
        "bad_message",
        "bad_json",
    ]
    assert "不可见字符" in answers[0]["message_zh"]
    assert answers[0]["message"] == "a name can't hold invisible, control or format characters"
    # Nobody sat down: the room is as it was.
    room = json.loads(srv.get(f"/api/rooms/{code}")[1])
    assert [s["kind"] for s in room["seats"]] == ["empty"] * 4


# -- point 7: names ------------------------------------------------------------------------------
async def _guest_names(server: ServerProcess, code: str, names: list[str]) -> list[str]:
    out = []
    for name in names:
        client = await Client.connect(server.ws)
        await client.expect("welcome")
        await client.send({"type": "join", "room": code, "name": name})
        while True:
            message = await client.recv()
            if message["type"] in ("joined", "error"):
                break
        out.append(message["code"] if message["type"] == "error" else "joined")
        if message["type"] == "joined":
            await client.send({"type": "leave"})
            await client.expect("left")
        await client.close()
    return out


def test_account_names_are_normalised_and_lookalikes_refused(srv: ServerProcess) -> None:
    address = "10.7.0.1"
    for bad in ["Z\u200bed", "\u0417ed", "Zed\u202e", "Zed\x00", "\u3164"]:
        status, body, _ = post_json(
            srv, "/api/register", {"name": bad, "password": "hongzhong"}, address
        )
        assert status == 400 and body["code"] == "bad_name", (bad, body)
        assert body["error_zh"], body
    # Full-width letters are the same name: registered as "Zed", and "ｚｅｄ" is then taken.
    status, body, _ = post_json(
        srv, "/api/register", {"name": "Ｚｅｄ", "password": "hongzhong"}, address
    )
    assert status == 201 and body["name"] == "Zed"
    status, body, _ = post_json(
        srv, "/api/register", {"name": "ｚｅｄ", "password": "x" * 9}, address
    )
    assert status == 409 and body["code"] == "name_taken" and "已被占用" in body["error_zh"]
    # CJK with Latin is fine; an all-Cyrillic name is fine.
    for good in ["雀神 Zed", "Зоя"]:
        status, body, _ = post_json(
            srv, "/api/register", {"name": good, "password": "hongzhong"}, address
        )
        assert status == 201 and body["name"] == good


def test_guest_names_are_checked_and_guests_are_always_flagged(srv: ServerProcess) -> None:
    post_json(srv, "/api/register", {"name": "Quinn", "password": "hongzhong"}, "10.7.1.1")
    code = srv.create_room(players=3)["code"]
    results = asyncio.run(
        _guest_names(srv, code, ["Qu\u200binn", "\u049auinn", "Quinn\x00", "Q\u0308\u0308\u0308"])
    )
    assert results == ["bad_name"] * 4

    async def sit() -> dict[str, Any]:
        guest = await Client.connect(srv.ws)
        await guest.expect("welcome")
        joined = await guest.join(code, name="ｑｕｉｎｎ")  # the account's name, full-width
        room = await guest.expect("room")
        await guest.close()
        return {"joined": joined, "room": room["room"]}

    seen = asyncio.run(sit())
    seat = seen["room"]["seats"][seen["joined"]["seat"]]
    assert seat["name"] == "quinn (游客)" and seat["guest"] is True
    lobby = json.loads(srv.get("/api/lobby")[1])
    entry = next(r for r in lobby["rooms"] if r["code"] == code)
    assert [s["guest"] for s in entry["seats"]] == [s["kind"] == "human" for s in entry["seats"]]


def test_an_account_seat_is_not_flagged_guest(srv: ServerProcess) -> None:
    status, _, headers = post_json(
        srv, "/api/register", {"name": "Rosa", "password": "hongzhong"}, "10.7.2.1"
    )
    assert status == 201
    cookie = headers["set-cookie"].split(";")[0]
    code = srv.create_room(players=2)["code"]

    async def sit() -> dict[str, Any]:
        import websockets

        ws = await websockets.connect(srv.ws, additional_headers={"Cookie": cookie})
        client = Client(ws)
        await client.expect("welcome")
        joined = await client.join(code, name="whatever")
        room = (await client.expect("room"))["room"]
        await client.close()
        return room["seats"][joined["seat"]]

    seat = asyncio.run(sit())
    assert seat == {**seat, "name": "Rosa", "kind": "human", "guest": False}


# -- point 7: failed logins ----------------------------------------------------------------------
def test_wrong_passwords_lock_one_address_not_the_owner(srv: ServerProcess) -> None:
    post_json(srv, "/api/register", {"name": "Sam", "password": "hongzhong"}, "10.6.0.1")
    attacker = "10.6.6.6"
    for _ in range(5):
        status, body, _ = post_json(
            srv, "/api/login", {"name": "Sam", "password": "guess-guess"}, attacker
        )
        assert status == 401 and body["code"] == "bad_login"
    status, body, headers = post_json(
        srv, "/api/login", {"name": "Sam", "password": "hongzhong"}, attacker
    )
    assert status == 429 and body["code"] == "login_locked"
    assert 890 <= int(headers["retry-after"]) <= 900 and "秒后再试" in body["error_zh"]
    # Before: the whole account was locked for 15 minutes.  Now the owner logs in.
    status, body, _ = post_json(
        srv, "/api/login", {"name": "Sam", "password": "hongzhong"}, "10.6.0.2"
    )
    assert status == 200 and body["name"] == "Sam"


def test_many_attackers_slow_an_account_but_a_fresh_address_gets_in(srv: ServerProcess) -> None:
    post_json(srv, "/api/register", {"name": "Tao", "password": "hongzhong"}, "10.5.0.1")
    for i in range(14):  # fourteen addresses, one wrong password each: the delay is 16 s now
        status, body, _ = post_json(
            srv, "/api/login", {"name": "Tao", "password": "guess-guess"}, f"10.5.1.{i}"
        )
        assert status == 401, body
    status, body, headers = post_json(
        srv, "/api/login", {"name": "Tao", "password": "guess-guess"}, "10.5.1.13"
    )
    assert status == 429 and body["code"] == "login_slowed"
    assert 1 <= int(headers["retry-after"]) <= 16 and "秒后再试" in body["error_zh"]
    status, body, _ = post_json(
        srv, "/api/login", {"name": "Tao", "password": "hongzhong"}, "10.5.9.9"
    )
    assert status == 200 and body["name"] == "Tao"


def test_login_with_a_nul_in_the_name_is_a_bad_login(srv: ServerProcess) -> None:
    status, body, _ = post_json(
        srv, "/api/login", {"name": "Sam\x00", "password": "hongzhong"}, "10.4.0.1"
    )
    assert status == 401 and body["code"] == "bad_login" and body["error_zh"] == "名字或密码错误"


def test_x_forwarded_for_is_ignored_without_proxy_headers(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "db.sqlite3") as server:
        post_json(server, "/api/register", {"name": "Uma", "password": "hongzhong"}, "1.1.1.1")
        for i in range(5):  # "from" five addresses: all really from 127.0.0.1
            status, _, _ = post_json(
                server, "/api/login", {"name": "Uma", "password": "guess-guess"}, f"9.9.9.{i}"
            )
            assert status == 401
        status, body, _ = post_json(
            server, "/api/login", {"name": "Uma", "password": "hongzhong"}, "9.9.9.200"
        )
        assert status == 429 and body["code"] == "login_locked"


def test_proxy_headers_refuses_what_is_not_an_address(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from laizi.cli import main; main()",
            "serve",
            "--db",
            f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "--proxy-headers",
            "127.0.0.1,*",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
    )
    assert run.returncode == 2 and "--proxy-headers: '*' is not an IP address" in run.stderr


# -- point 9: headers ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/"),
        ("GET", "/r/ABCDEF"),
        ("GET", "/web/app.js"),
        ("GET", "/web/style.css"),
        ("GET", "/healthz"),
        ("GET", "/api/lobby"),
        ("GET", "/api/presets"),
        ("GET", "/api/me"),
        ("GET", "/no/such/page"),
        ("POST", "/api/login"),
    ],
)
def test_every_response_has_the_security_headers_and_no_banner(
    srv: ServerProcess, method: str, path: str
) -> None:
    _, headers, _ = call(srv, method, path, b"{}" if method == "POST" else None)
    assert headers["content-security-policy"] == CSP
    assert "default-src 'self'" in CSP and "frame-ancestors 'none'" in CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    assert "server" not in headers


# -- point 8: the CLI ------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def laizi(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env=_env(),
    )


DEEP = b'{"a":' * 5000 + b"1" + b"}" * 5000


@pytest.mark.parametrize("command", [["score", "-"], ["replay", "-"], ["verify", "-"]])
@pytest.mark.parametrize(
    "stdin, message",
    [
        (DEEP, b"nested more than 64 levels deep"),
        (b"[" * 100_000, b"nested more than 64 levels deep"),
        (b'{"winner": ' + b"9" * 5000 + b"}", b"a number has more than 40 digits"),
        (b'{"winner": 1e999}', b"a number is out of range"),
        (b'{"winner": "\xff"}', b"not UTF-8 text"),
        (b'{"winner": "\\ud800"}', b"lone surrogate"),
    ],
)
def test_cli_hostile_input_exits_1_with_a_message(
    command: list[str], stdin: bytes, message: bytes
) -> None:
    run = laizi(*command, stdin=stdin)
    assert run.returncode == 1, run.stderr[-500:]
    assert b"Traceback" not in run.stderr and message in run.stderr
    assert run.stderr.startswith(b"laizi: ")


def test_cli_analyze_hostile_lines_are_error_lines() -> None:
    run = laizi("analyze", stdin=DEEP + b"\n" + b'{"hand": "\xff"}\n{"hand": "11m"}\n')
    lines = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert run.returncode == 1 and b"Traceback" not in run.stderr
    assert lines[0] == {"error": "not valid JSON: nested more than 64 levels deep"}
    assert lines[1] == {"error": "not UTF-8 text"}
    assert lines[2]["complete"] is True


def test_cli_deal_rules_option_nested_too_deep() -> None:
    run = laizi("deal", "--rules", DEEP.decode())
    assert run.returncode == 1 and b"Traceback" not in run.stderr
    assert b"--rules: not valid JSON: nested more than 64 levels deep" in run.stderr


WUHAN_AFTER_KONG = {
    "rules": "wuhan-hongzhong-kaikou",
    "dealer": 0,
    "indicator": "9s",
    "winner": 3,
    "win": "self_draw",
    "winning_tile": "5p",
    "after_kong": True,
    "players": [
        {"melds": []},
        {"melds": []},
        {"melds": []},
        {"hand": "123m456m123p5p", "melds": [{"kind": "chow", "tiles": "789p", "from": 2}]},
    ],
}


def test_score_refuses_after_kong_without_a_kong_or_a_laid_out_tile() -> None:
    run = laizi("score", "--json", "-", stdin=json.dumps(WUHAN_AFTER_KONG).encode())
    assert run.returncode == 1 and b"Traceback" not in run.stderr
    assert b"after_kong" in run.stderr and b"no replacement draw" in run.stderr
    # With a laid-out 红中 the replacement draw happened: it scores (杠上花).
    laid = json.loads(json.dumps(WUHAN_AFTER_KONG))
    laid["players"][3]["laid_out"] = "7z"
    run = laizi("score", "--json", "-", stdin=json.dumps(laid).encode())
    assert run.returncode == 0, run.stderr
    assert "gangshanghua" in json.loads(run.stdout.decode().splitlines()[-1])["wins"]


def test_the_guest_flags_survive_a_kill_9_and_restart(tmp_path: Path, db_url: str) -> None:
    server = ServerProcess(tmp_path / "db.sqlite3", db_url=db_url).start()
    try:
        status, _, headers = post_json(
            server, "/api/register", {"name": "Vera", "password": "hongzhong"}, "1.1.1.1"
        )
        assert status == 201
        cookie = headers["set-cookie"].split(";")[0]
        code = server.create_room(players=3, action_seconds=600)["code"]

        async def sit_then_crash() -> list[dict[str, Any]]:
            import websockets

            account = Client(
                await websockets.connect(server.ws, additional_headers={"Cookie": cookie})
            )
            await account.join(code, name="ignored")
            guest = await Client.connect(server.ws)
            await guest.join(code, name="Wen")
            await guest.expect("room")
            seats: list[dict[str, Any]] = json.loads(server.get(f"/api/rooms/{code}")[1])["seats"]
            server.kill9()  # the seats are taken when the server dies
            return seats

        before = asyncio.run(sit_then_crash())
        assert [(s["name"], s["guest"]) for s in before] == [
            ("Vera", False),
            ("Wen", True),
            ("", False),
            ("", False),
        ]
        server.start()
        after = json.loads(server.get(f"/api/rooms/{code}")[1])["seats"]
        assert [(s["name"], s["guest"]) for s in after] == [(s["name"], s["guest"]) for s in before]
    finally:
        server.stop()
