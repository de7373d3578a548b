"""Quick chat (快捷语, issue 27 item 1) in Debian's Chromium: two people at one table in two
browser contexts — a desktop and a phone —, one says a phrase, the other sees the bubble at the
right seat in its own language, and no longer after muting that seat (kept after a reload)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from laizi.server.chat import PHRASES
from tests.server_helpers import ServerProcess
from tests.web_browser import PHONE, click_once, launch, new_page
from tests.web_match_helpers import shot_also

HEARD = """
() => { const p = window.laiziPage; if (p.heard) return; p.heard = [];
  const hear = p.chat.hear.bind(p.chat);
  p.chat.hear = (m) => { p.heard.push(m); return hear(m); }; }
"""
"""Count the ``chat`` messages the page is handed (shown or muted)."""

BUBBLE = """
(seat) => { const b = document.querySelector(`.chat-bubble[data-chat-seat="${seat}"]`);
  const s = document.querySelector(`.seat[data-seat="${seat}"]`);
  if (!b || !s) return null;
  const [r, q] = [b.getBoundingClientRect(), s.getBoundingClientRect()];
  return { text: b.innerText, cls: b.className, bubble: [r.x, r.width], seat: [q.x, q.width] }; }
"""
"""A seat's bubble: its text, its class, and where it is beside the seat (x and width of both)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("chat") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def at_table(browser: Browser, server: ServerProcess, code: str, lang: str, name: str, **options):
    page, errors = new_page(browser, **options)
    page.goto(server.http + "/")
    page.evaluate(
        f"localStorage.setItem('laizi.lang', '{lang}');"
        f" localStorage.setItem('laizi.name', '{name}')"
    )
    page.goto(f"{server.http}/r/{code}")
    return page, errors


def save(page: Page, name: str) -> None:
    """A screenshot kept with the test artifacts (and in ``$LAIZI_SHOTS`` if set)."""
    shot_also(page, name)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phrase_shows_at_the_speakers_seat_for_the_other_and_not_once_muted(
    server: ServerProcess, browser: Browser, lang: str
) -> None:
    status, room = server.post(
        "/api/rooms",
        {
            "rules": "wuhan-hongzhong-kaikou",
            "table": {"players": 2, "hands": 1, "bot_delay_ms": 5, "action_seconds": 600},
        },
    )
    assert status == 201, room
    code = room["code"]
    desk, errors = at_table(
        browser, server, code, lang, "Ann", viewport={"width": 1280, "height": 800}
    )
    desk.wait_for_selector(".waiting")
    phone, phone_errors = at_table(browser, server, code, lang, "Bob", **PHONE)
    for page in (desk, phone):
        page.wait_for_selector(".board .seat")
    assert desk.evaluate("window.laiziPage.seat") == 0
    assert phone.evaluate("window.laiziPage.seat") == 1
    for page in (desk, phone):
        page.evaluate(HEARD)
    # Mid-hand: a few discards on the table first.
    deadline = time.monotonic() + 60
    moves = 0
    while moves < 4 and time.monotonic() < deadline:
        moved = click_once(desk) or click_once(phone)
        moves += moved
        if not moved:
            time.sleep(0.05)
    # The phone's chat button and every control of its picker take a finger (≥ 40 px).
    phone.click(".chat-btn")
    sizes = phone.eval_on_selector_all(
        ".chat-btn, .chat-picker button",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [e.dataset.phrase || e.dataset.chat, r.width, r.height, r.right]; })",
    )
    assert len(sizes) >= len(PHRASES) + 3
    for what, width, height, right in sizes:
        assert width >= 40 and height >= 40 and right <= 390, (what, width, height, right)
    save(phone, f"chat-picker-{lang}-phone")
    phone.click(".chat-picker .chat-close")
    # Ann (seat 0) says "nice hand": Bob's phone shows it at Ann's seat, to Bob's left.
    phrase = next(p for p in PHRASES if p.id == "nice_hand")
    text = phrase.zh if lang == "zh" else phrase.en
    desk.click(".chat-btn")
    desk.click("[data-chat='say'][data-phrase='nice_hand']")
    seen = phone.wait_for_function(BUBBLE, arg=0).json_value()  # one moment: it redraws often
    assert seen["text"] == text and "chat-left" in seen["cls"], seen
    (bx, bw), (sx, sw) = seen["bubble"], seen["seat"]
    assert bx < sx + sw and bx + bw > sx, seen  # over Ann's seat, not elsewhere
    desk.wait_for_selector(".chat-bubble.chat-bottom[data-chat-seat='0']")  # Ann sees her own
    save(phone, f"chat-{lang}-phone")
    # An emote from Bob (seat 1) shows at Ann's right.
    phone.click(".chat-btn")
    phone.click("[data-chat='say'][data-phrase='smile']")
    desk.wait_for_selector(".chat-bubble.chat-right[data-chat-seat='1']:has-text('(＾▽＾)')")
    save(desk, f"chat-{lang}-desktop")
    # The bubble goes after 3 s.
    phone.wait_for_selector(".chat-bubble[data-chat-seat='0']", state="detached", timeout=6000)
    # Bob mutes Ann: her next phrase reaches his page and shows nothing; the mute survives a reload.
    phone.click(".chat-btn")
    phone.click(".chat-picker [data-chat='mute'][data-seat='0']")
    assert phone.get_attribute("[data-chat='mute'][data-seat='0']", "aria-pressed") == "true"
    heard = phone.evaluate("window.laiziPage.heard.length")
    desk.click(".chat-btn")
    save(desk, f"chat-picker-{lang}-desktop")
    desk.click("[data-chat='say'][data-phrase='thanks']")
    desk.wait_for_selector(".chat-bubble[data-chat-seat='0']")
    phone.wait_for_function(f"window.laiziPage.heard.length > {heard}")
    assert phone.locator(".chat-bubble[data-chat-seat='0']").count() == 0
    phone.reload()
    phone.wait_for_selector(".board .seat")
    phone.click(".chat-btn")
    assert phone.get_attribute("[data-chat='mute'][data-seat='0']", "aria-pressed") == "true"
    assert errors == [] and phone_errors == []
