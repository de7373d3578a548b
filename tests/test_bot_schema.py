"""``docs/bot-protocol.schema.json`` (issue 28 item 6): the checked-in file is what the message
types generate, and every message real bots received — over stdin/stdout in Wuhan and Baishan
hands, with 托管 notices, and over ``/ws/bot`` at a live table — validates against it, as does
every answer they wrote."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from laizi.botproto.messages import SCHEMA_PATH, bot_protocol_schema, schema_text
from laizi.bots import make_bot
from laizi.bots.external import close_all
from laizi.engine import make_ruleset
from laizi.sim import play_hand, wall_seed
from tests.schema_helpers import MISBEHAVING, ROOT, VALIDATOR, check


@pytest.fixture(autouse=True)
def _stop_bots():
    yield
    close_all()


def test_the_checked_in_schema_is_what_the_types_generate() -> None:
    assert (ROOT / SCHEMA_PATH).read_text(encoding="utf-8") == schema_text()
    jsonschema.Draft202012Validator.check_schema(bot_protocol_schema())


def test_the_schema_refuses_what_is_not_a_message() -> None:
    assert not VALIDATOR.is_valid({"type": "draw", "seat": "one", "from": "front"})
    assert not VALIDATOR.is_valid({"type": "prompt", "id": 1, "phase": "turn"})  # no legal, view
    assert not VALIDATOR.is_valid({"type": "act", "prompt": 1})
    assert not VALIDATOR.is_valid({"type": "teleport"})
    assert VALIDATOR.is_valid({"type": "act", "prompt": 1, "action": {"type": "pass"}})
    assert VALIDATOR.is_valid({"type": "draw", "seat": 2, "from": "back", "new_field": 1})


def stream_of(mode: str, preset: str, seat: int, seed: int, tmp_path: Path) -> list[dict]:
    """Every line a ``misbehaving_bot.py MODE`` bot in ``seat`` received over a whole hand."""
    log = tmp_path / f"{mode}-{preset}-{seat}.jsonl"
    ruleset = make_ruleset(preset)
    bot = make_bot(f"cmd:{sys.executable} {MISBEHAVING} {mode} {log}", ruleset.settings, seed=1)
    bots = [bot if s == seat else make_bot("greedy", ruleset.settings, s) for s in range(4)]
    play_hand(ruleset, bots, 0, wall_seed(seed, 0))
    close_all()
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize(
    ("preset", "seat", "seed"),
    [
        ("wuhan-hongzhong-kaikou", 0, 4),
        ("wuhan-qipi-koukou", 2, 5),
        ("baishan", 1, 6),
        ("baishan", 3, 7),
    ],
)
def test_every_message_of_real_hands_validates(
    preset: str, seat: int, seed: int, tmp_path: Path
) -> None:
    seen = stream_of("good", preset, seat, seed, tmp_path)
    kinds = {m["type"] for m in seen}
    assert {"hello", "hand", "start", "deal", "draw", "discard", "prompt", "end", "bye"} <= kinds
    for message in seen:
        check(message, "HostMessage")
        if message["type"] == "prompt":  # what the bot wrote back: its first legal action
            answer = {"type": "act", "prompt": message["id"], "action": message["legal"][0]}
            check(answer, "BotMessage")
    check({"type": "hello", "name": "misbehaving-good", "version": 1}, "BotMessage")


def test_notices_validate(tmp_path: Path) -> None:
    seen = stream_of("illegal", "baishan", 0, 11, tmp_path)
    notices = [m for m in seen if m["type"] == "notice"]
    assert notices and all(n["code"] == "illegal" for n in notices)
    for message in seen:
        check(message, "HostMessage")


def test_a_live_table_stream_validates(tmp_path: Path) -> None:
    from laizi.botproto.bridge import connect
    from tests.server_helpers import ServerProcess, http, login_cookie

    with ServerProcess(tmp_path / "db.sqlite") as srv:
        cookie = login_cookie(srv, "schemaowner")
        status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": "schema"}, cookie)
        assert status == 201, body
        token = json.loads(body)["token"]
        fast = {"bot_delay_ms": 0, "between_hands_ms": 0, "claim_window_ms": 0, "hands": 2}
        room = srv.create_room("wuhan-hongzhong-kaikou", players=1, **fast)["code"]
        seen: list[dict[str, Any]] = []
        url = f"ws://127.0.0.1:{srv.port}/ws/bot"
        bot = f"{sys.executable} {MISBEHAVING} good"
        asyncio.run(
            asyncio.wait_for(
                connect(url, bot, room=room, token=token, seat=2, on_message=seen.append), 120
            )
        )
    kinds = [m["type"] for m in seen]
    assert kinds[0] == "joined" and kinds[-2:] == ["match_end", "bye"]
    assert kinds.count("hand") == 2 and "prompt" in kinds
    for message in seen:
        check(message, "HostMessage")


@pytest.mark.parametrize("example", ["tile_efficiency.py", "tile_efficiency.js", "learned.py"])
def test_what_the_example_bots_write_validates(example: str, tmp_path: Path) -> None:
    import shlex
    import shutil

    program = sys.executable if example.endswith(".py") else (shutil.which("node") or "node")
    written = tmp_path / "written.jsonl"
    inner = f"{shlex.quote(program)} {ROOT / 'examples/bots' / example} | tee {written}"
    ruleset = make_ruleset("baishan")
    bot = make_bot(f"cmd:sh -c {shlex.quote(inner)}", ruleset.settings, seed=4)
    bots = [bot] + [make_bot("greedy", ruleset.settings, s) for s in range(1, 4)]
    play_hand(ruleset, bots, 0, wall_seed(13, 0))
    close_all()
    answers = [json.loads(line) for line in written.read_text().splitlines()]
    assert answers[0]["type"] == "hello" and any(a["type"] == "act" for a in answers)
    for answer in answers:
        check(answer, "BotMessage")
