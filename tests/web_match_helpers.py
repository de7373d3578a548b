"""What the browser tests of ranked tables share (tests/test_web_match.py,
tests/test_web_progress.py): four people in Chinese and English on a desktop and a phone, the
table page's seat, playing a match out, and a ranked match of accounts with standings from an
earlier one that ends with an escape."""

from __future__ import annotations

import os
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

from laizi.rules import Settings
from laizi.server.ratings import add_payments, book_match, link_seat, no_payments
from laizi.server.store import Store
from tests.server_helpers import InProcessServer, open_ranked_table
from tests.web_browser import PHONE, greedy_once, new_page, shot

PRESET = "wuhan-hongzhong-kaikou"
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
LOOKS = [("zh", DESKTOP), ("en", DESKTOP), ("zh", PHONE), ("en", PHONE)]
"""Each of the four people's language and screen."""
HIDDEN = """
window.__hidden = false;
Object.defineProperty(document, "visibilityState", {
  get: () => (window.__hidden ? "hidden" : "visible"),
});
Object.defineProperty(document, "hidden", { get: () => window.__hidden });
window.__notes = 0;
const oscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.__notes += 1;
  return oscillator.call(this);
};
"""
"""A tab the test can hide and show (``window.__hidden``; a ``visibilitychange`` tells the page),
counting the notes the page plays (``window.__notes``)."""


def shot_also(page: Page, name: str) -> None:
    path = shot(page, name)
    extra = os.environ.get("LAIZI_SHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        (Path(extra) / path.name).write_bytes(path.read_bytes())


def person(
    browser: Browser, base: str, lang: str, look: dict[str, Any], address: str | None
) -> tuple[BrowserContext, Page, list[str]]:
    headers = {"X-Forwarded-For": address} if address else {}
    page, errors = new_page(browser, extra_http_headers=headers, **look)
    page.add_init_script(f"localStorage.setItem('laizi.lang', '{lang}');")
    page.add_init_script(HIDDEN)
    page.set_default_timeout(60_000)
    return page.context, page, errors


def seat_of(page: Page, timeout: float = 60) -> int:
    """The seat the table page took (polled: the page's policy forbids wait_for_function's
    evaluated text)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seat = page.evaluate("() => window.laiziPage ? window.laiziPage.seat : null")
        if seat is not None:
            return int(seat)
        time.sleep(0.1)
    raise AssertionError(f"{page.url}: no seat")


def play_out(pages: list[Page], done: str = ".match-end") -> None:
    deadline = time.monotonic() + 300
    while not all(p.locator(done).count() for p in pages):
        assert time.monotonic() < deadline, "the match did not end"
        moved = False
        for page in pages:
            if not page.locator(done).count():
                moved = greedy_once(page) or moved  # chasing wins: the points move
        if not moved:
            time.sleep(0.05)


def earlier_ranked_match(db_url: str, people: list[int]) -> None:
    """Standings from an earlier ranked match: Rank0 95 points (5 short of 一万), the others
    below zero — so the match's rank changes show."""
    store = Store(db_url)
    try:
        room = store.create_room("EARLY1", Settings.from_json(PRESET).to_json(), {}, "ranked")
        for seat, account in enumerate(people):
            link_seat(store.engine, room, seat, account)
        paid = no_payments()
        add_payments(paid, [Fraction(95), Fraction(-35), Fraction(-30), Fraction(-30)])
        book_match(store.engine, room, "wuhan", paid, 1, 1.0)
    finally:
        store.close()


ESCAPED = [
    ("95", "685/3", "400/3"),
    ("-35", "295/3", "400/3"),
    ("-30", "310/3", "400/3"),
    ("-30", "-430", "-400"),
]
"""Each account's points before, after and the change: Rank3's escape pays the penalty (400),
split evenly among the three others (RULES.md: 逃跑) — a third each, exactly."""
FAST = {"bot_delay_ms": 0, "between_hands_ms": 0, "settlement_seconds": 0, "hands": 1}


def ranked_match_with_an_escape(
    browser: Browser, srv: InProcessServer, names: list[str]
) -> tuple[str, list[tuple[BrowserContext, Page, list[str]]]]:
    """A ranked one-hand match of four people (:data:`LOOKS`) after :func:`earlier_ranked_match`,
    in which the fourth escapes (:data:`ESCAPED`); the three others' pages show its end, the
    fourth's the finished room.  The room's code and the people."""
    code, cookies = open_ranked_table(srv, PRESET, names, **FAST)
    earlier_ranked_match(srv.db_url, [srv.hub.accounts.by_name(n).id for n in names])
    people = [person(browser, srv.http, lang, look, None) for lang, look in LOOKS]
    pages = [p for _, p, _ in people]
    for (context, page, _), cookie in zip(people, cookies, strict=True):
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": srv.http}])
        page.goto(f"{srv.http}/r/{code}")
    assert [seat_of(page) for page in pages] == [0, 1, 2, 3]
    for page in pages:
        page.wait_for_selector(".board")
    # the fourth leaves during the hand (逃跑): the escape's payment moves points between
    # accounts whatever the tiles — the match's one hand ends with it
    pages[3].once("dialog", lambda dialog: dialog.accept())
    pages[3].click("[data-cmd='leave']")
    pages[3].wait_for_url(srv.http + "/")
    play_out(pages[:3])  # the decision under way is made first (an escape never cancels a win)
    pages[3].goto(f"{srv.http}/r/{code}")  # the finished room's page: the same standings
    return code, people
