"""Outside bots at live tables: bot tokens (issued to an account, stored hashed, revocable) and
the ``/ws/bot`` WebSocket, against a real ``laizi serve`` process."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from laizi.botproto.bridge import BridgeError, connect
from laizi.engine import legal_actions, make_ruleset
from laizi.server.accounts import Account
from laizi.server.botseat import BotSeat
from laizi.server.bottokens import BotIdentity
from laizi.server.room.base import Prompt
from tests.engine_helpers import deal_json
from tests.server_helpers import ServerProcess, http, login_cookie

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "/usr/bin/node"
NODE_BOT = f"{NODE} {ROOT / 'examples/bots/tile_efficiency.js'}"
MISBEHAVING = f"{sys.executable} {ROOT / 'tests/outside/misbehaving_bot.py'}"
FAST = {"bot_delay_ms": 0, "between_hands_ms": 0, "claim_window_ms": 0, "hands": 1}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory):
    with ServerProcess(tmp_path_factory.mktemp("botseat") / "db.sqlite") as server:
        yield server


@pytest.fixture(scope="module")
def owner(srv: ServerProcess) -> str:
    """One account for the bots of this module (registrations per address are limited)."""
    return login_cookie(srv, "botowner")


def fresh_token(srv: ServerProcess, cookie: str) -> str:
    """A new token of the account, its older ones revoked (an account holds at most 10)."""
    _, _, body = http(srv, "GET", "/api/bot-tokens", cookie=cookie)
    for token in json.loads(body)["tokens"]:
        if token["revoked"] is None:
            http(srv, "DELETE", f"/api/bot-tokens/{token['id']}", cookie=cookie)
    return str(issue(srv, cookie)["token"])


def issue(srv: ServerProcess, cookie: str, name: str = "research bot") -> dict[str, Any]:
    status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": name}, cookie)
    assert status == 201, body
    return json.loads(body)


def test_tokens_are_issued_listed_hashed_and_revoked(srv: ServerProcess, tmp_path: Path) -> None:
    cookie = login_cookie(srv, "tokenowner")
    issued = issue(srv, cookie)
    assert issued["name"] == "research bot" and issued["token"].startswith("lzb_")
    assert len(issued["token"]) == 4 + 43  # 256 bits
    status, _, body = http(srv, "GET", "/api/bot-tokens", cookie=cookie)
    [listed] = json.loads(body)["tokens"]
    assert status == 200 and "token" not in listed and listed["revoked"] is None
    db = sqlite3.connect(srv.db_url.removeprefix("sqlite:///"))
    stored = db.execute(
        "SELECT token_hash FROM bot_tokens WHERE id = ?", (issued["id"],)
    ).fetchone()
    assert stored[0] == hashlib.sha256(issued["token"].encode()).hexdigest()
    assert issued["token"] not in str(db.execute("SELECT * FROM bot_tokens").fetchall())
    other = login_cookie(srv, "someoneelse")
    assert http(srv, "DELETE", f"/api/bot-tokens/{issued['id']}", cookie=other)[0] == 404
    assert http(srv, "DELETE", f"/api/bot-tokens/{issued['id']}", cookie=cookie)[0] == 200
    assert http(srv, "DELETE", f"/api/bot-tokens/{issued['id']}", cookie=cookie)[0] == 404
    status, _, body = http(srv, "GET", "/api/bot-tokens", cookie=cookie)
    assert json.loads(body)["tokens"][0]["revoked"] is not None


def test_token_requests_are_checked(srv: ServerProcess) -> None:
    assert http(srv, "POST", "/api/bot-tokens", {"name": "x"})[0] == 401
    assert http(srv, "GET", "/api/bot-tokens")[0] == 401
    cookie = login_cookie(srv, "checker")
    status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": 5}, cookie)
    assert status == 400 and json.loads(body)["code"] == "bad_name"
    for n in range(10):
        issue(srv, cookie, f"bot {n}")
    status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": "eleven"}, cookie)
    assert status == 409 and json.loads(body)["code"] == "too_many_tokens"
    assert "error_zh" in json.loads(body)


async def raw_hello(srv: ServerProcess, hello: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    async with websockets.connect(url, additional_headers=headers) as ws:
        greeting = json.loads(await ws.recv())
        assert greeting == {"type": "hello", "protocol": "laizi-bot", "version": 1}
        await ws.send(json.dumps(hello))
        return json.loads(await asyncio.wait_for(ws.recv(), 10))


def test_a_bad_or_revoked_token_seats_nothing(srv: ServerProcess, owner: str) -> None:
    room = srv.create_room(players=1, **FAST)["code"]
    refused = asyncio.run(raw_hello(srv, {"type": "hello", "version": 1, "room": room}, "lzb_x"))
    assert refused["code"] == "bad_token"
    assert refused["message_zh"] == "没有这个有效的机器人令牌：请在 /api/bot-tokens 申请"
    revoked = fresh_token(srv, owner)
    fresh_token(srv, owner)  # revokes the first
    hello = {"type": "hello", "version": 1, "room": room, "token": revoked}
    assert asyncio.run(raw_hello(srv, hello))["code"] == "bad_token"
    assert asyncio.run(raw_hello(srv, {**hello, "version": 2}))["code"] == "bad_version"
    assert srv.get(f"/api/rooms/{room}")[0] == 200
    assert json.loads(srv.get(f"/api/rooms/{room}")[1])["status"] == "waiting"


def test_the_node_example_plays_a_match_at_a_live_table(srv: ServerProcess, owner: str) -> None:
    token = fresh_token(srv, owner)
    room = srv.create_room("baishan", players=1, **{**FAST, "hands": 2})["code"]
    seen: list[dict[str, Any]] = []
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    summary = asyncio.run(
        asyncio.wait_for(
            connect(url, NODE_BOT, room=room, token=token, seat=1, on_message=seen.append), 120
        )
    )
    assert summary["seat"] == 1 and summary["notices"] == 0
    assert summary["answers"] >= 1  # its hello and its acts
    kinds = [m["type"] for m in seen]
    assert kinds.count("hand") == 2 and kinds[-2:] == ["match_end", "bye"]
    assert all(m["seat"] == 1 for m in seen if m["type"] == "hand")
    for message in seen:  # its seat only
        if message["type"] == "deal":
            assert [h is None for h in message["hands"]] == [True, False, True, True]
        if message["type"] == "draw":
            assert ("tile" in message) == (message["seat"] == 1)
        if message["type"] == "prompt":
            assert message["view"]["seat"] == 1
    info = json.loads(srv.get(f"/api/rooms/{room}")[1])
    assert info["status"] == "over" and info["hands_played"] == 2
    assert info["seats"][1]["name"] == "botowner [bot]"
    assert sum(info["totals"]) == 0


@pytest.mark.parametrize("mode", ["garbage", "illegal"])
def test_bad_answers_are_played_by_tuoguan_at_once(
    srv: ServerProcess, owner: str, mode: str
) -> None:
    token = fresh_token(srv, owner)
    room = srv.create_room("baishan", players=1, **FAST)["code"]
    seen: list[dict[str, Any]] = []
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    summary = asyncio.run(
        asyncio.wait_for(
            connect(url, f"{MISBEHAVING} {mode}", room=room, token=token, on_message=seen.append),
            120,
        )
    )
    notices = [m for m in seen if m["type"] == "notice"]
    code = "bad_json" if mode == "garbage" else "illegal"
    assert notices and {n["code"] for n in notices} == {code}
    assert summary["notices"] == len(notices)
    assert seen[-2]["type"] == "match_end"  # the table was never stalled


def test_a_sleeping_bot_is_timed_out_by_the_table_and_asked_again(
    srv: ServerProcess, owner: str
) -> None:
    token = fresh_token(srv, owner)
    # Three hands: one hand can end before the seat is asked a second time (a CI run saw one
    # prompt in a one-hand match), and the room's wall is the server's secret.
    table = {**FAST, "hands": 3, "action_seconds": 0.3, "bank_seconds": 0}
    room = srv.create_room("baishan", players=1, **table)["code"]
    seen: list[dict[str, Any]] = []
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    asyncio.run(
        asyncio.wait_for(
            connect(url, f"{MISBEHAVING} sleep", room=room, token=token, on_message=seen.append),
            180,
        )
    )
    notices = [m for m in seen if m["type"] == "notice"]
    prompts = [m for m in seen if m["type"] == "prompt"]
    assert notices and {n["code"] for n in notices} == {"timeout"}
    assert len(prompts) >= 2 and len(notices) == len(prompts)  # asked again every time
    assert seen[-2]["type"] == "match_end"


def test_the_bridge_reports_a_refused_join(srv: ServerProcess, owner: str) -> None:
    token = fresh_token(srv, owner)
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    with pytest.raises(BridgeError, match="no_room"):
        asyncio.run(asyncio.wait_for(connect(url, NODE_BOT, room="ZZZZZZ", token=token), 30))


def test_the_migration_builds_the_bot_tokens_table_and_goes_back(db_url: str) -> None:
    """0005_bot_tokens makes exactly the table the code uses (SQLite and PostgreSQL), and its
    downgrade drops it."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.config import Config
    from alembic.migration import MigrationContext
    from sqlalchemy import inspect

    import laizi.server.bottokens  # noqa: F401  (its table joins the metadata)
    from laizi.server import store as store_module
    from laizi.server.store import Store, metadata

    def _config(connection: Any) -> Config:
        config = Config()
        folder = Path(store_module.__file__).parent / "migrations"
        config.set_main_option("script_location", str(folder))
        config.attributes["connection"] = connection
        return config

    store = Store(db_url)
    try:
        with store.engine.connect() as c:

            def ours(obj: Any, name: str | None, kind: str, reflected: bool, other: Any) -> bool:
                table = obj if kind == "table" else getattr(obj, "table", None)
                return table is None or table.name == "bot_tokens"

            context = MigrationContext.configure(c, opts={"include_object": ours})
            assert "bot_tokens" in inspect(c).get_table_names()
            assert compare_metadata(context, metadata) == []
        with store.engine.begin() as c:
            command.downgrade(_config(c), "0004_points_text")
        with store.engine.connect() as c:
            assert "bot_tokens" not in inspect(c).get_table_names()
        store.migrate()
        with store.engine.connect() as c:
            assert "bot_tokens" in inspect(c).get_table_names()
    finally:
        store.close()


async def raw_bot(srv: ServerProcess, token: str, room: str, answer: Any) -> list[dict[str, Any]]:
    """A bot written straight on the WebSocket: ``answer(prompt)`` gives the frames to send."""
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    seen: list[dict[str, Any]] = []
    async with websockets.connect(
        url, additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "hello", "version": 1, "room": room}))
        try:
            async for text in ws:
                message = json.loads(text)
                seen.append(message)
                if message["type"] == "prompt":
                    for frame in answer(message):
                        await ws.send(frame)
        except websockets.ConnectionClosed:
            pass
    return seen


def test_a_huge_answer_is_refused_and_played_by_tuoguan(srv: ServerProcess, owner: str) -> None:
    token = fresh_token(srv, owner)
    room = srv.create_room("baishan", players=1, **FAST)["code"]
    seen = asyncio.run(
        asyncio.wait_for(raw_bot(srv, token, room, lambda prompt: ["x" * 10_000]), 120)
    )
    notices = [m for m in seen if m["type"] == "notice"]
    prompts = [m for m in seen if m["type"] == "prompt"]
    assert notices and {n["code"] for n in notices} == {"too_long"}
    assert len(notices) == len(prompts)  # every decision played by 托管, at once
    assert seen[-2]["type"] == "match_end" and seen[-1]["type"] == "bye"


def test_a_flooding_bot_is_cut_off_and_the_table_goes_on(tmp_path: Path) -> None:
    # its own server: the flood puts the address in a cooling-down period (docs/server.md)
    with ServerProcess(tmp_path / "flood.sqlite") as srv:
        token = fresh_token(srv, login_cookie(srv, "flooder"))
        # The bots take 0.5 s a move: a flood of 200 frames meets one prompt (the first frame
        # settles it, 托管 plays) and 199 with nothing pending.  At bot_delay 0 the next prompts
        # came while the flood was still being read, each settled by a frame that costs nothing;
        # on a loaded machine that could keep the bucket from running dry (a CI failure).
        table = {**FAST, "bot_delay_ms": 500, "grace_seconds": 0, "action_seconds": 0.5}
        table["bank_seconds"] = 0
        room = srv.create_room("baishan", players=1, **table)["code"]
        seen = asyncio.run(
            asyncio.wait_for(raw_bot(srv, token, room, lambda prompt: ["{}"] * 200), 60)
        )
        codes = [m.get("code") for m in seen if m["type"] == "error"]
        assert "rate_limited" in codes and codes[-1] == "abuse"  # the message budget holds
        for _ in range(100):  # the seat escapes (grace 0): the match ends, nothing waits on it
            info = json.loads(srv.get(f"/api/rooms/{room}")[1])
            if info["status"] == "over":
                break
            time.sleep(0.1)
        assert info["status"] == "over"


def test_bad_answers_at_a_fast_table_are_never_rate_limited(tmp_path: Path) -> None:
    """A bad answer settles its prompt (托管 plays it) as a good one does, so the game's pace
    bounds those frames too: with a tight message bucket, a bot that answers every prompt of a
    fast table illegally is never rate-limited, and no decision is left to the table's clock.
    (Bad answers used to cost a token each: past the bucket they were dropped, and each
    dropped decision waited for the clock — a ``timeout`` notice.)"""
    limits = ("--message-burst", "5", "--message-rate", "1")
    with ServerProcess(tmp_path / "tight.sqlite", args=limits) as srv:
        token = fresh_token(srv, login_cookie(srv, "tightbot"))
        # Two hands: one hand's deal can end it after a handful of this seat's decisions (4 in
        # a CI run), fewer than the bucket holds.
        table = {**FAST, "action_seconds": 1, "bank_seconds": 0, "hands": 2}
        room = srv.create_room("baishan", players=1, **table)["code"]
        seen: list[dict[str, Any]] = []
        url = f"ws://127.0.0.1:{srv.port}/ws/bot"
        bot = f"{MISBEHAVING} illegal"
        asyncio.run(
            asyncio.wait_for(connect(url, bot, room=room, token=token, on_message=seen.append), 120)
        )
    codes = [m["code"] for m in seen if m["type"] in ("notice", "error")]
    assert codes.count("illegal") > 5  # more bad answers than the bucket holds
    assert codes.count("illegal") == sum(m["type"] == "prompt" for m in seen)  # one per prompt
    assert set(codes) == {"illegal"}  # no rate_limited, no timeout
    assert seen[-2]["type"] == "match_end"


def test_a_bot_seat_never_holds_the_settlement_pause(tmp_path: Path) -> None:
    """The pause between hands waits for the people who read the settlement (up to
    ``settlement_seconds``); a ``cmd:`` bot's seat continues at once.  It used to be waited
    for as a person that never presses Continue: 600 s here, every hand."""
    with ServerProcess(tmp_path / "pause.sqlite") as srv:
        token = fresh_token(srv, login_cookie(srv, "pausebot"))
        table = {**FAST, "hands": 3, "settlement_seconds": 600}
        room = srv.create_room("baishan", players=1, **table)["code"]
        seen: list[dict[str, Any]] = []
        url = f"ws://127.0.0.1:{srv.port}/ws/bot"
        started = time.monotonic()
        asyncio.run(
            asyncio.wait_for(
                connect(url, f"{MISBEHAVING} good", room=room, token=token, on_message=seen.append),
                120,
            )
        )
        took = time.monotonic() - started
    ends = [m for m in seen if m["type"] == "end"]
    assert len(ends) == 3 and seen[-2]["type"] == "match_end"
    assert took < 100  # three hands and two pauses: seconds, not 2 × 600 s


class _FakeRoom:
    """What a bot seat reads of its room: the hand and the seat's pending decision."""

    def __init__(self) -> None:
        self.state, _ = deal_json(make_ruleset("baishan"), 0, seed=bytes(32))
        self.prompts: dict[int, Prompt] = {}


class _FakeHub:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def handle(self, conn: Any, frame: str) -> bool:
        self.frames.append(json.loads(frame))
        return True


def test_a_prompt_that_supersedes_an_unanswered_one_is_still_asked() -> None:
    """The bot was asked a decision the room then dropped (another seat's claim closed the
    window); the seat's next prompt arrives while the room still holds it back (the claim
    window's pause).  The bot must be asked it once the room makes it pending — it used to be
    dropped, and the table's clock played it (a ``timeout`` notice for a bot that answers at
    once)."""
    room, hub = _FakeRoom(), _FakeHub()
    out: asyncio.Queue[str | None] = asyncio.Queue()
    identity = BotIdentity(Account(1, "owner", 0.0), 1, "research bot")
    bot = BotSeat(hub, identity, out)  # type: ignore[arg-type]
    bot.conn.room, bot.conn.seat = room, 0  # type: ignore[assignment]
    legal = legal_actions(room.state, 0)
    told = {"type": "prompt", "phase": room.state.phase, "seconds": 15, "bank": 60}

    def sent() -> list[int]:
        asked = []
        while not out.empty():
            frame = out.get_nowait()
            assert frame is not None
            asked += [json.loads(frame)["id"]] if '"type":"prompt"' in frame else []
        return asked

    async def scenario() -> tuple[list[int], list[int]]:
        room.prompts[0] = Prompt(5, 0, legal, 0.0)
        bot.from_table({**told, "id": 5, "legal": []})  # asked; not answered yet
        del room.prompts[0]  # the room dropped it
        bot.from_table({**told, "id": 9, "legal": []})  # the next one, still held back
        await asyncio.sleep(0.12)
        room.prompts[0] = Prompt(9, 0, legal, 0.0)  # the pause ends
        await asyncio.sleep(0.12)
        first = sent()
        bot.from_table({**told, "id": 9, "legal": []})  # told again: not asked twice
        return first, sent()

    assert asyncio.run(scenario()) == ([5, 9], [])
    assert bot.pending is not None and bot.pending[0] == 9
    action = legal[0].to_json()
    del action["seat"]
    assert bot.answer(json.dumps({"type": "act", "prompt": 9, "action": action}).encode())
    assert hub.frames == [{"type": "act", "prompt": 9, "action": action}]
