"""A person in the web client plays a whole match against the example Node bot, which takes its
seat through ``laizi bot-connect`` and the server's ``/ws/bot`` with a bot token (issue 18)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.server_helpers import ServerProcess, http, login_cookie
from tests.web_browser import launch, new_page, play_until, shot

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "/usr/bin/node"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("webbot") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def test_a_person_plays_a_match_against_the_node_example_bot(server, browser):
    cookie = login_cookie(server, "Researcher")
    status, _, body = http(server, "POST", "/api/bot-tokens", {"name": "node example"}, cookie)
    assert status == 201
    token = json.loads(body)["token"]
    room = server.create_room(
        players=2, hands=2, bot_delay_ms=5, between_hands_ms=500, action_seconds=600
    )
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(server.http + "/")
    page.wait_for_selector("#join-code")
    page.fill("#player-name", "Alice")
    page.fill("#join-code", room["code"])
    page.click("#join-form button[type=submit]")
    page.wait_for_selector(".waiting")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LAIZI_BOT_TOKEN": token}
    bot = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from laizi.cli import main; main()",
            "bot-connect",
            f"cmd:{NODE} {ROOT / 'examples/bots/tile_efficiency.js'}",
            "--room",
            room["code"],
            "--url",
            f"ws://127.0.0.1:{server.port}/ws/bot",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        page.wait_for_selector(".board")
        names = page.locator(".seat .name").all_inner_texts()
        assert "Researcher [bot]" in names and "Alice (you)" in names
        play_until(page, ".match-end", limit=600)
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert summary["seat"] == 1 and summary["notices"] == 0 and len(summary["totals"]) == 4
    info = json.loads(server.get(f"/api/rooms/{room['code']}")[1])
    assert info["status"] == "over" and info["hands_played"] == 2
    assert info["seats"][1]["name"] == "Researcher [bot]"
    assert info["totals"] == summary["totals"]
    page.wait_for_selector(".settlement.open table.settle")
    shot(page, "web-external-bot")
    assert errors == []
