"""Every move reads at a glance (issue 27, items 2, 3, 6 and 12), in Debian's Chromium on a real
server: two tabs of one seat follow the seat at once, the last discard stays marked, a claimed
meld turns the claimed tile toward the seat it came from, the drawn-hand and win banners, the call
banner clear of one's own seat on a phone, sound offered at the first tap, the invite button, and
every control of the phone's table at least 40 px to tap."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.server_helpers import ServerProcess
from tests.web_browser import launch, new_page

TWO_TABS = {
    "players": 1,
    "hands": 1,
    "bot_delay_ms": 300,
    "claim_window_ms": 2500,  # the pause after every discard: a stale turn would show through it
    "between_hands_ms": 5,
    "action_seconds": 600,
    "settlement_seconds": 0,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("feedback") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def open_room(
    page: Page, server: ServerProcess, code: str, lang: str = "zh", ready: str = ".board"
) -> None:
    page.goto(server.http + "/")
    page.evaluate(f"localStorage.setItem('laizi.lang', '{lang}')")
    page.goto(f"{server.http}/r/{code}")
    page.wait_for_selector(ready)


TURN = """() => {
  const p = window.laiziPage;
  return p && p.prompt && p.prompt.legal.some((a) => a.type === "discard") ? p.prompt.id : null;
}"""


def own_turn(page: Page, deadline: float) -> int:
    """Pass every claim offered until the seat's own turn is asked; that prompt's id."""
    while True:
        assert time.monotonic() < deadline, "the seat's turn never came"
        pid = page.evaluate(TURN)
        if pid is not None:
            return int(pid)
        if page.locator("button.act-pass").count():
            page.locator("button.act-pass").click()
        time.sleep(0.03)


def test_two_tabs_of_one_seat_follow_the_seat_at_once(server, browser):
    """A discard in the second tab takes the turn out of the first one at once: no prompt, no
    clickable tile, no running clock there, while the claim window's pause still runs."""
    room = server.create_room(**TWO_TABS)
    first, errors1 = new_page(browser, viewport={"width": 1280, "height": 800})
    open_room(first, server, room["code"])
    first.wait_for_function("() => window.laiziPage && window.laiziPage.seat != null")
    token = first.evaluate(f"localStorage.getItem('laizi.seat.{room['code']}')")
    second, errors2 = new_page(browser, viewport={"width": 1280, "height": 800})
    second.add_init_script(
        f"localStorage.setItem('laizi.seat.{room['code']}', {token!r});"
        "localStorage.setItem('laizi.lang', 'zh');"
    )
    second.goto(f"{server.http}/r/{room['code']}")
    second.wait_for_selector(".board")
    assert second.evaluate("window.laiziPage.seat") == first.evaluate("window.laiziPage.seat")
    deadline = time.monotonic() + 120
    for _ in range(2):  # two turns of the seat, each played in the second tab
        pid = own_turn(second, deadline)
        first.wait_for_function(
            f"() => window.laiziPage.prompt && window.laiziPage.prompt.id === {pid}"
        )
        assert first.locator(".my-hand button[data-discard]").count() >= 13
        second.locator(".my-hand button[data-discard]").last.click()
        if second.locator(".tile-btn.raised").count():
            second.locator(".tile-btn.raised").click()
        # the first tab: the turn is gone well inside the 2.5 s pause
        first.wait_for_function(
            "() => !window.laiziPage.prompt"
            " && !document.querySelector('.my-hand button[data-discard]')"
            " && !document.querySelector('.actions[data-prompt]')",
            timeout=1200,
        )
        first.wait_for_function(
            "() => [...document.querySelectorAll('.timer:not(.seat-timer)')]"
            ".every((b) => b.textContent === '')",
            timeout=1200,
        )
        assert first.inner_text("[data-status]") == second.inner_text("[data-status]")
    assert errors1 == [] and errors2 == []
