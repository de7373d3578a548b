"""The web client adds its own random value to every deal (protocol 1.1), shows it, checks it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from laizi.engine import parse_record, verify
from tests.server_helpers import ServerProcess
from tests.web_browser import create_room, launch, new_page, play_until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("web-entropy") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def test_the_browser_contributes_to_the_deal_and_sees_it_used(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    code = create_room(page, server.http, hands="1", bot_level="greedy")
    page.wait_for_selector(".actions[data-prompt]")
    page.click(".foot .fairness summary")  # 公平性: the proof is folded (issue 27 item 11)
    shown = page.locator(".entropy[data-ok=yes]")
    shown.wait_for()
    prefix = shown.locator("code").inner_text().rstrip("…")
    assert re.fullmatch("[0-9a-f]{16}", prefix)
    play_until(page, ".settlement.open table.settle", limit=400)
    status, body = server.get(f"/api/rooms/{code}/hands/0")
    assert status == 200
    record = parse_record(body.decode())
    contributions = record[0]["contributions"]
    assert contributions[0].startswith(prefix) and contributions[1:] == [None, None, None]
    assert verify(record).ok
    assert errors == []
