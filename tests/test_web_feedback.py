"""Every move reads at a glance (issue 27, items 2, 3, 6 and 12), in Debian's Chromium on a real
server: two tabs of one seat follow the seat at once, the last discard stays marked, a claimed
meld turns the claimed tile toward the seat it came from, the drawn-hand and win banners, the call
banner clear of one's own seat on a phone, sound offered at the first tap, the invite button, and
every control of the phone's table at least 40 px to tap."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.server_helpers import ServerProcess
from tests.web_browser import PHONE, greedy_once, launch, new_page

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


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    return page.evaluate(
        "(sel) => [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility())"
        ".map((e) => { const r = e.getBoundingClientRect(); return { w: r.width, h: r.height,"
        " x: r.x, y: r.y, what: e.className + ' '"
        " + (e.dataset.cmd || e.textContent.trim().slice(0, 12)) }; })",
        selector,
    )


CLAIMED = """() => {
  const p = window.laiziPage;
  if (!p || !p.model || !p.model.players || p.model.phase === "over") return null;
  const out = [];
  p.model.players.forEach((pl, seat) => pl.melds.forEach((m, i) => {
    if (m.from == null) return;
    const el = document.querySelectorAll(`.seat[data-seat='${seat}'] .meld`)[i];
    const kids = [...el.children];
    const turned = kids.filter((k) => k.classList.contains("turned"));
    const r = turned.length ? turned[0].querySelector(".tile").getBoundingClientRect() : null;
    out.push({ seat, from: m.from, kind: m.kind, size: kids.length, turned: turned.length,
      at: kids.findIndex((k) => k.classList.contains("turned")), title: el.getAttribute("title"),
      wide: r ? r.width > r.height : false, name: p.name(m.from) });
  }));
  return out;
}"""


def play_to_a_claim(page: Page, deadline: float) -> list[dict[str, Any]]:
    """Play greedily (every pung taken) until some seat holds a claimed meld; its looks."""
    while True:
        assert time.monotonic() < deadline, "no claim in the time given"
        melds = page.evaluate(CLAIMED)
        if melds:
            return list(melds)
        if not greedy_once(page, take_win=False):
            time.sleep(0.03)


LAST = """() => {
  const p = window.laiziPage;
  const marked = [...document.querySelectorAll('.pond .tile-last')];
  const seat = p.lastDiscard ? p.lastDiscard.seat : null;
  const pond = seat == null ? []
    : [...document.querySelectorAll(`.pond[data-pond='${seat}'] .tile`)];
  return { marked: marked.length, seat, phase: p.model.phase,
    index: marked.length ? pond.indexOf(marked[0]) : null,
    expected: seat == null ? null : p.model.players[seat].discards.length - 1,
    claimed: seat == null ? false : p.model.players[seat].claimed.includes(p.lastDiscard.index) };
}"""


def test_the_last_discard_stays_marked_and_a_claimed_tile_lies_turned(server, browser):
    """The table's last discard is marked in its pond while the next seat plays (not only in the
    claim window), and each claimed meld shows the claimed tile turned, on the side of the seat it
    came from (the seat before: first; across: middle; the seat after: last), titled with it."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 800})
    room = server.create_room(players=1, hands=2, bot_delay_ms=150, action_seconds=600)
    open_room(page, server, room["code"])
    deadline = time.monotonic() + 180
    seen_in_turn = 0
    while seen_in_turn < 3:
        assert time.monotonic() < deadline, "the last discard was never seen in a turn"
        last = page.evaluate(LAST)
        if last["seat"] is not None and last["phase"] == "turn" and not last["claimed"]:
            assert last["marked"] == 1 and last["index"] == last["expected"], last
            seen_in_turn += 1
        if not greedy_once(page, take_win=False):
            time.sleep(0.05)
    melds = play_to_a_claim(page, deadline)
    for meld in melds:
        side = (meld["from"] - meld["seat"]) % 4
        assert meld["turned"] == 1 and meld["wide"], meld
        assert meld["at"] == {3: 0, 2: 1, 1: meld["size"] - 1}[side], meld
        assert meld["title"] == f"来自 {meld['name']}", meld
    assert errors == []


def test_drawn_hand_and_win_banners_never_in_the_way(server, browser):
    """荒庄 / Drawn hand and a win's banner with its burst show over the table for ~2 s and take
    no tap; the settlement is under them."""
    for lang, drawn, win in (("zh", "荒庄", "自摸"), ("en", "Drawn hand", "wins, self-drawn")):
        page, errors = new_page(browser, viewport={"width": 1280, "height": 800})
        room = server.create_room(players=1, hands=1, action_seconds=600)
        open_room(page, server, room["code"], lang)
        page.wait_for_function("() => window.laiziPage.model && window.laiziPage.model.players")
        page.evaluate(
            "() => { const p = window.laiziPage;"
            " p.onEvent({ type: 'win', seat: 1, how: 'self_draw', tile: '5m' }); p.render(); }"
        )
        banner = page.locator(".big-banner[data-big=win]")
        assert win in banner.inner_text()
        assert banner.locator(".big-burst").count() == 1
        assert banner.evaluate("(e) => getComputedStyle(e).pointerEvents") == "none"
        page.evaluate(
            "() => { const p = window.laiziPage; p.onEvent({ type: 'end', reason: 'drawn',"
            " winner: null, payments: [0, 0, 0, 0], hands: [], seed: null }); p.render(); }"
        )
        assert page.locator(".big-banner").count() == 1  # one at a time
        assert page.locator(".big-banner[data-big=drawn] .big-text").inner_text() == drawn
        page.wait_for_selector(".big-banner", state="detached", timeout=4000)
        assert errors == []
        page.context.close()


def test_ones_own_call_banner_never_covers_ones_seat_on_a_phone(server, browser):
    page, errors = new_page(browser, **PHONE)
    room = server.create_room(players=1, hands=1, action_seconds=600)
    open_room(page, server, room["code"])
    page.wait_for_function("() => window.laiziPage.model && window.laiziPage.model.players")
    looks = page.evaluate(
        """() => {
      const p = window.laiziPage;
      p.banner(p.seat, "碰");
      p.render();
      const box = (e) => {
        const r = e.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
      };
      const mine = document.querySelector(".seat.pos-bottom");
      return { banner: box(mine.querySelector(".call-banner")), seat: box(mine),
        hand: box(document.querySelector(".me")), board: box(document.querySelector(".board")) };
    }"""
    )
    b, seat, hand = looks["banner"], looks["seat"], looks["hand"]
    for other in (seat, hand):
        apart = b[2] <= other[0] or other[2] <= b[0] or b[3] <= other[1] or other[3] <= b[1]
        assert apart, looks
    assert b[1] >= looks["board"][1] and b[0] >= 0 and b[2] <= 390, looks  # on the table, on screen
    assert errors == []


def test_sound_is_offered_once_at_the_first_tap(server, browser):
    page, errors = new_page(browser, **PHONE)
    room = server.create_room(players=1, hands=1, action_seconds=600)
    open_room(page, server, room["code"])
    page.wait_for_function("() => window.laiziPage.model && window.laiziPage.model.players")
    assert page.locator("[data-sound-offer]").count() == 0  # nothing before a gesture
    page.locator(".centre").tap()
    offer = page.locator("[data-sound-offer]")
    assert "开启声音" in offer.inner_text()
    page.locator("[data-cmd=sound-yes]").tap()
    assert page.evaluate("localStorage.getItem('laizi.sound')") == "on"
    assert page.locator("[data-sound-offer]").count() == 0
    assert page.get_attribute("[data-cmd=sound]", "aria-pressed") == "true"
    page.evaluate("localStorage.removeItem('laizi.sound')")  # even with no choice kept: never again
    page.reload()
    page.wait_for_selector(".board")
    page.locator(".centre").tap()
    page.wait_for_timeout(300)
    assert page.locator("[data-sound-offer]").count() == 0
    assert errors == []


def test_invite_copies_the_link_on_a_desktop_and_shares_it_on_a_phone(server, browser):
    room = server.create_room(players=2, hands=1, action_seconds=600)
    link = f"{server.http}/r/{room['code']}"
    page, errors = new_page(browser, viewport={"width": 1280, "height": 800})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.http)
    open_room(page, server, room["code"], "en", ".waiting")  # the second seat is still free
    page.click("[data-cmd=invite]")
    assert page.locator("[data-invite=copied]").inner_text() == "Link copied"
    assert page.evaluate("navigator.clipboard.readText()") == link
    phone, errors2 = new_page(browser, **PHONE)
    phone.add_init_script(
        "window.__shared = []; navigator.share = async (d) => { window.__shared.push(d); };"
    )
    open_room(phone, server, room["code"], "zh", ".board")  # the second person: the match is on
    button = phone.locator("[data-cmd=invite]")
    box = button.bounding_box()
    assert (
        box is not None
        and box["width"] >= 40
        and box["height"] >= 40
        and box["x"] + box["width"] <= 390
    )
    button.tap()
    assert phone.locator("[data-invite=shared]").inner_text() == "已分享"
    assert phone.evaluate("window.__shared.map((d) => d.url)") == [link]
    assert errors == [] and errors2 == []


CONTROLS = (
    "#top button, .room-bar button, .room-bar summary, .room-bar a, .seat .mult, .actions button,"
    " .my-hand button, .sound-offer button"
)


def test_every_control_of_the_phones_table_is_40_px_to_tap(server, browser):
    page, errors = new_page(browser, **PHONE)
    room = server.create_room(players=1, hands=1, action_seconds=600)
    open_room(page, server, room["code"])
    page.wait_for_selector(".actions[data-prompt] .hint, .actions button.act")
    found = boxes(page, CONTROLS)
    kinds = {c["what"].split()[0] for c in found}
    assert {"mult", "small"} <= kinds and len(found) >= 20, found
    small = [c for c in found if c["w"] < 40 or c["h"] < 40]
    assert small == [], small
    page.locator(".centre").tap()  # the sound offer's buttons too
    page.wait_for_selector("[data-sound-offer]")
    offer = boxes(page, ".sound-offer button, [data-cmd=invite]")
    assert len(offer) == 3 and all(c["w"] >= 40 and c["h"] >= 40 for c in offer), offer
    assert errors == []
