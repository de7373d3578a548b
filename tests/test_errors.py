"""Every server error has a stable code, params and a text in both languages (issue 15)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laizi.server.errors import CATALOGUE, normalize, setting_error
from tests.server_helpers import Client, ServerProcess, http

SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
FLOAT = re.compile(r"\d+\.\d+")
HAN = re.compile(r"[\u4e00-\u9fff]")


def clean(text: str) -> bool:
    """No raw snake_case key and no float in a player-visible text."""
    return not SNAKE.search(text) and not FLOAT.search(text)


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_in_the_catalogue_has_both_texts(code: str) -> None:
    zh, en = CATALOGUE[code]
    assert zh and en and HAN.search(zh) and clean(zh) and clean(en)
    out = normalize({"type": "error", "code": code})
    assert out == {
        "type": "error",
        "code": code,
        "params": {},
        "message": en,
        "message_zh": zh,
    }


def test_the_server_sends_only_catalogued_codes() -> None:
    """Every code a server module raises is in the catalogue."""
    root = Path(__file__).resolve().parent.parent / "src" / "laizi" / "server"
    found: set[str] = set()
    patterns = (
        r'ProtocolError\(\s*"([a-z_]+)"',
        r'AccountError\(\s*"([a-z_]+)"',
        r'LimitError\(\s*"([a-z_]+)"',
        r'_error\(\s*"([a-z_]+)"',
        r'"code":\s*"([a-z_]+)"',
        r'return "([a-z_]+)"',
    )
    for path in root.rglob("*.py"):
        text = path.read_text()
        for pattern in patterns:
            found.update(re.findall(pattern, text))
    found -= {"error"}
    names = {"bad_name"}  # laizi.server.names' refusals
    missing = sorted(c for c in found | names if c not in CATALOGUE and not c.startswith("_"))
    allowed_non_codes = {
        c for c in missing if c in ("rules", "table", "human", "bot", "empty", "waiting")
    }
    assert [c for c in missing if c not in allowed_non_codes] == []


def test_settings_errors_name_the_setting_by_its_label() -> None:
    e = setting_error("rules", "golden_cap", "must not be below cap (300)")
    assert e["code"] == "bad_setting"
    assert e["params"] == {
        "key": "rules.golden_cap",
        "label_zh": "金顶",
        "label_en": "Golden cap",
        "detail": "must not be below cap (300)",
    }
    assert e["message_zh"] == "金顶：不能低于封顶（300）"
    assert e["message"] == "Golden cap: must not be below Cap (300)"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("errors") / "db.sqlite3") as srv:
        yield srv


def check(body: dict[str, Any], code: str) -> None:
    assert body["code"] == code, body
    assert isinstance(body["params"], dict)
    assert body["message"] and body["message_zh"] and HAN.search(body["message_zh"])


@pytest.mark.parametrize(
    ("rules", "table", "zh"),
    [
        ({"preset": "wuhan-hongzhong-kaikou", "golden_cap": 250}, {}, "金顶：不能低于封顶（300）"),
        ({"preset": "wuhan-hongzhong-kaikou", "min_points": -5}, {}, "起胡分：不能是负数"),
        ({"preset": "wuhan-hongzhong-kaikou", "colour": 1}, {}, "colour：没有这个设置"),
        ("wuhan-hongzhong-kaikou", {"hands": 0}, "局数：不能小于 1"),
        ("wuhan-hongzhong-kaikou", {"settlement_seconds": -1}, "结算停留（秒）：不能小于 0"),
        ("wuhan-hongzhong-kaikou", {"bot_level": "genius"}, "机器人水平：须为可选的一项"),
    ],
)
def test_settings_errors_through_the_server(
    server: ServerProcess, rules: Any, table: Any, zh: str
) -> None:
    status, body = server.post("/api/rooms", {"rules": rules, "table": table})
    assert status == 400
    check(body, "bad_setting")
    assert body["message_zh"] == zh and body["error_zh"] == zh
    assert clean(body["message"]) and clean(body["message_zh"])


def test_account_and_http_errors_through_the_server(server: ServerProcess) -> None:
    status, _, raw = http(server, "POST", "/api/register", {"name": "Ann", "password": "short"})
    body = json.loads(raw)
    assert status == 400
    check(body, "bad_password")
    assert "密码" in body["message_zh"] and body["error"] == body["message"]
    status, _, raw = http(server, "POST", "/api/login", {"name": "Nobody", "password": "x" * 9})
    check(json.loads(raw), "bad_login")
    status, raw = server.get("/api/rooms/ZZZZZZ")
    assert status == 404
    check(json.loads(raw), "not_found")
    status, raw = server.get("/api/rooms/ZZZZZZ/hands/0")
    check(json.loads(raw), "not_found")


def test_websocket_errors_through_the_server(server: ServerProcess) -> None:
    room = server.create_room(players=2)["code"]

    async def main() -> list[dict[str, Any]]:
        c = await Client.connect(server.ws)
        await c.send("not json")
        await c.send({"type": "act"})
        await c.send({"type": "continue"})  # not in a room
        await c.send({"type": "join", "room": "ZZZZZZ"})
        await c.join(room, spectate=True)
        await c.send({"type": "act", "prompt": 1, "action": {"type": "discard", "tile": "1m"}})
        await c.send({"type": "continue"})
        for _ in range(100):  # bounded: until the six answers are in
            errors = [m for m in c.messages if m["type"] == "error"]
            if len(errors) >= 6:
                break
            await asyncio.sleep(0.05)
        await c.close()
        return errors

    errors = asyncio.run(asyncio.wait_for(main(), 30))
    codes = ["bad_json", "bad_message", "not_joined", "no_room", "not_seated", "not_seated"]
    assert [e["code"] for e in errors] == codes
    for error in errors:
        check(error, error["code"])
    assert errors[2]["message_zh"] == CATALOGUE["not_joined"][0]
