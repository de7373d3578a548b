"""The table a Wuhan player wants to sit at (issue 15), in Debian's Chromium on a real server:
the square table, the status that names the offer, the phone's tap-twice discard, spectators,
a finished room's link, motion and sound preferences, and no raw key or float on any page."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.server_helpers import ServerProcess
from tests.web_browser import (
    PHONE,
    click_once,
    create_room,
    launch,
    new_page,
    open_more,
    play_until,
    shot,
)

GOLD = "rgb(224, 161, 0)"  # the laizi's colour (style.css --gold)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("table") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def zh_room(page: Page, server: ServerProcess, **table: str) -> str:
    """A room made from the lobby by a reader of Chinese; its code."""
    page.goto(server.http + "/")
    page.evaluate("localStorage.setItem('laizi.lang', 'zh')")
    return create_room(page, server.http, **table)


def model(page: Page) -> dict[str, Any]:
    return page.evaluate(
        "() => { const p = window.laiziPage; return JSON.parse(JSON.stringify("
        "{ seat: p.seat, model: p.model, prompt: p.prompt })); }"
    )


def centres(page: Page, selectors: list[str]) -> dict[str, tuple[float, float]]:
    """The centres of the elements, measured at one moment (a re-render may follow)."""
    found = page.evaluate(
        "(sels) => Object.fromEntries(sels.map((s) => { const r = document.querySelector(s)"
        ".getBoundingClientRect(); return [s, [r.x + r.width / 2, r.y + r.height / 2]]; }))",
        selectors,
    )
    return {k: (v[0], v[1]) for k, v in found.items()}


SQUARE = """
() => {
  const p = window.laiziPage;
  const looks = {};
  for (const pos of ["bottom", "right", "top", "left"]) {
    const seat = document.querySelector(`.seat.pos-${pos}`);
    const pond = document.querySelector(`.pond.pond-${pos}`);
    const mult = seat.querySelector(".mult");
    looks[pos] = {
      seat: seat.dataset.seat,
      pond: pond.dataset.pond,
      columns: getComputedStyle(pond).gridTemplateColumns.split(" ").length,
      tiles: pond.querySelectorAll(".tile").length,
      counts: seat.querySelector("[data-counts]").innerText,
      mult: mult !== null && mult.checkVisibility(),
    };
  }
  return JSON.parse(JSON.stringify({ seat: p.seat, model: p.model, looks }));
}
"""


def test_the_square_table(server, browser):
    """You at the bottom, the next seats right, top, left; each pond in front of its seat in rows
    of six; 开口N 杠N on every seat without a click; the centre holds the special tiles."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Ann", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    for _ in range(12):  # a few turns, so that ponds and melds fill
        if page.locator(".settlement.open").count():
            break
        click_once(page) or time.sleep(0.05)
    page.wait_for_selector(".actions[data-prompt], .settlement.open")
    # One look at the page and its model together: a message or a banner's end redraws the
    # table, and an element found before a redraw is detached (no style, no tiles) after it.
    state = page.evaluate(SQUARE)
    me = state["seat"]
    for k, pos in enumerate(["bottom", "right", "top", "left"]):
        seat = (me + k) % 4
        look = state["looks"][pos]
        assert look["seat"] == str(seat) and look["pond"] == str(seat), look
        assert look["columns"] == 6, look
        player = state["model"]["players"][seat]
        assert look["tiles"] == len(player["discards"]), look
        opened = sum(1 for m in player["melds"] if m.get("from") is not None)
        kongs = sum(1 for m in player["melds"] if "kong" in m["kind"])
        assert look["counts"].split() == [f"开口{opened}", f"杠{kongs}"], look
        assert look["mult"], look  # ×N beside them
    at = centres(
        page,
        [
            ".centre",
            ".pond-top",
            ".pond-bottom",
            ".pond-left",
            ".pond-right",
            ".seat.pos-top",
            ".seat.pos-left",
            ".seat.pos-right",
            ".seat.pos-bottom",
        ],
    )
    cx, cy = at[".centre"]
    assert at[".pond-top"][1] < cy < at[".pond-bottom"][1]
    assert at[".pond-left"][0] < cx < at[".pond-right"][0]
    assert at[".seat.pos-top"][1] < at[".pond-top"][1]
    assert at[".seat.pos-bottom"][1] > at[".pond-bottom"][1]
    assert at[".seat.pos-left"][0] < at[".pond-left"][0]
    assert at[".seat.pos-right"][0] > at[".pond-right"][0]
    assert page.locator(".centre .laizi-box .tile").count() == 1
    assert page.locator(".centre [data-tiles-left]").inner_text().isdigit()
    shot(page, "square-table")
    assert errors == []


def test_the_status_names_exactly_what_is_offered(server, browser):
    """In a claim window the status names the discarder, the tile and only the offered claims; the
    open discard is large in the centre, outlined in a colour that is not the laizi's gold."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Bo", hands="8")  # a random wall: enough hands that claims come
    seen = 0
    deadline = time.monotonic() + 300
    while seen < 3 and time.monotonic() < deadline:
        page.wait_for_selector(".actions[data-prompt], .match-end")
        if page.locator(".match-end").count():
            break
        state = model(page)
        prompt = state["prompt"]
        if prompt and prompt["phase"] == "claim":
            status = page.inner_text("[data-status]")
            claim = state["model"]["claim"]
            who = page.locator(f".seat[data-seat='{claim['from']}'] .name").inner_text()
            assert who in status
            offered = {a["type"] for a in prompt["legal"]} - {"pass"}
            words = {"chow": "吃", "pung": "碰", "kong": "杠", "win": "胡"}
            offer = status.split("你可以：")[1]
            for kind, word in words.items():
                assert (word in offer) == (kind in offered), (status, offered)
            open_tile = page.locator(".open-discard .tile")
            assert open_tile.get_attribute("data-tile") == claim["tile"]
            box = open_tile.bounding_box()
            if box is None:  # redrawn (or the window moved on) as we looked: look again
                continue
            assert box["width"] >= 50  # large
            stroke = open_tile.locator("rect").first.evaluate("e => getComputedStyle(e).stroke")
            assert stroke != GOLD and stroke != "rgb(224, 161, 0)"
            seen += 1
        click_once(page)
    assert seen >= 1, "no claim was offered in time"
    assert errors == []


def test_a_phone_taps_a_tile_twice_to_discard(server, browser):
    page, errors = new_page(browser, **PHONE)
    zh_room(page, server, name="Tap", hands="1")
    page.wait_for_selector(".my-hand.tap-two")
    page.wait_for_selector("button[data-discard]")
    tiles = page.locator(".my-hand .tile")
    boxes = [tiles.nth(i).bounding_box() for i in range(tiles.count())]
    assert all(b is not None and b["width"] >= 40 for b in boxes), boxes
    assert len({round(b["y"]) for b in boxes if b}) >= 2  # two rows
    assert max(b["x"] + b["width"] for b in boxes if b) <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    state = model(page)
    me = state["seat"]
    before = len(state["model"]["players"][me]["discards"])
    prompt = page.get_attribute(".actions[data-prompt]", "data-prompt")
    target = page.locator("button[data-discard]").first
    tile = target.get_attribute("data-discard")
    target.tap()  # first tap: raised, nothing sent
    page.wait_for_selector(".tile-btn.raised")
    assert page.get_attribute(".tile-btn.raised", "data-discard") == tile
    time.sleep(0.3)
    assert page.get_attribute(".actions[data-prompt]", "data-prompt") == prompt
    assert len(model(page)["model"]["players"][me]["discards"]) == before
    shot(page, "phone-raised")
    page.locator(".tile-btn.raised").tap()  # second tap: discarded
    page.wait_for_function(
        "([seat, n]) => window.laiziPage.model.players[seat].discards.length > n", arg=[me, before]
    )
    assert model(page)["model"]["players"][me]["discards"][before] == tile
    assert errors == []


def test_a_desktop_click_discards_at_once_and_the_page_setting_switches(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Cli", hands="1")
    page.wait_for_selector("button[data-discard]")
    assert page.locator(".my-hand.tap-two").count() == 0
    assert page.get_attribute("[data-cmd=tap]", "aria-pressed") == "false"
    page.click("[data-cmd=tap]")
    assert page.locator(".my-hand.tap-two").count() == 1
    assert page.evaluate("localStorage.getItem('laizi.tap')") == "two"
    page.locator("button[data-discard]").first.click()
    assert page.locator(".tile-btn.raised").count() == 1
    page.click("[data-cmd=tap]")
    assert page.locator(".tile-btn.raised").count() == 0
    assert errors == []


def test_no_tile_stays_lifted_after_a_re_render(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Lift", hands="1")
    page.wait_for_selector("button[data-discard]")
    tile = page.locator("button[data-discard]").first
    box = tile.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    lifted = "e => getComputedStyle(e).transform"
    assert page.locator("button[data-discard]").first.evaluate(lifted) != "none"
    page.evaluate("window.laiziPage.render()")  # a message arrives: the hand is drawn again
    assert page.locator("button[data-discard]").first.evaluate(lifted) == "none"
    page.mouse.move(box["x"] + box["width"] / 2 + 1, box["y"] + box["height"] / 2)
    assert page.locator("button[data-discard]").first.evaluate(lifted) != "none"
    assert errors == []


def test_animations_honour_reduced_motion_and_sounds_start_off(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Calm", hands="1")
    page.wait_for_selector("[data-cmd=sound]")
    probe = (
        "() => { const d = document.createElement('div'); d.className = 'call-banner';"
        " document.querySelector('.board').append(d); const n = getComputedStyle(d).animationName;"
        " d.remove(); return n; }"
    )
    assert page.evaluate(probe) == "pop"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(probe) == "none"
    # Sounds: off on the first visit, a toggle turns them on and the choice is kept.
    assert page.get_attribute("[data-cmd=sound]", "aria-pressed") == "false"
    assert page.evaluate("localStorage.getItem('laizi.sound')") is None
    page.click("[data-cmd=sound]")
    assert page.get_attribute("[data-cmd=sound]", "aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('laizi.sound')") == "on"
    page.click("[data-cmd=sound]")
    assert page.evaluate("localStorage.getItem('laizi.sound')") == "off"
    assert errors == []


def test_banners_for_every_seats_claims_and_wins(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    page.add_init_script(
        "window.__banners = []; new MutationObserver(() => document"
        ".querySelectorAll('.call-banner').forEach((b) => window.__banners.push("
        "[b.closest('.seat').dataset.seat, b.textContent])))"
        ".observe(document, { childList: true, subtree: true });"
    )
    zh_room(page, server, name="Ban", hands="2")
    deadline = time.monotonic() + 240
    while not page.locator(".match-end").count():
        assert time.monotonic() < deadline, "the match never ended"
        play_until(page, ".match-end, .settlement.open .continue")
        if page.locator(".match-end").count():
            break
        # the settlement's pause may end (the next deal) between the look and the click
        with contextlib.suppress(PlaywrightTimeoutError):
            page.click(".settlement.open .continue", timeout=2000)
    banners = page.evaluate("window.__banners")
    assert banners, "no banner in two hands"
    assert {text for _, text in banners} <= {"吃", "碰", "杠", "胡", "自摸"}
    assert errors == []


def test_a_spectator_sees_the_watching_badge_and_the_clock(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    code = zh_room(page, server, name="Host", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    watcher, errors2 = new_page(browser, viewport={"width": 1280, "height": 900})
    watcher.goto(server.http + "/")
    watcher.evaluate("localStorage.setItem('laizi.lang', 'zh')")
    watcher.goto(f"{server.http}/r/{code}?watch=1")
    watcher.wait_for_selector(".board")
    assert watcher.inner_text("[data-watching]") == "观战"
    assert watcher.locator(".my-hand").count() == 0
    # The host is deciding (600 s a decision): the spectator's clock counts it down.
    watcher.wait_for_selector(".centre .timer:not(:empty)")
    seconds = int(re.sub(r"\D", "", watcher.inner_text(".centre .timer")))
    assert 500 < seconds <= 600
    assert page.locator("[data-watching]").count() == 0
    assert errors == [] and errors2 == []


def test_a_finished_rooms_link_shows_the_totals_and_the_replays(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    code = zh_room(page, server, name="Fin", hands="1")
    play_until(page, ".match-end")
    _, body = server.get(f"/api/rooms/{code}")
    room = json.loads(body)
    assert room["status"] == "over"
    later, errors2 = new_page(browser, viewport={"width": 1280, "height": 900})
    later.goto(f"{server.http}/r/{code}")
    later.wait_for_selector(".finished")
    for seat, total in enumerate(room["totals"]):
        cell = later.locator(f".match-totals tr[data-seat='{seat}'] .points").inner_text()
        assert cell == str(total)
    links = later.locator(".finished .replays a[href^='/replay/']")
    assert links.count() == len(room["records"]) == 1
    links.first.click()
    later.wait_for_selector(".replay .open-hand")
    assert errors == [] and errors2 == []


def test_a_press_is_not_lost_to_a_redraw(server, browser):
    """A message that draws the page again while the button is held down (between mouse down and
    up) does not swallow the click: the prompt is answered."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Press", hands="1")
    page.wait_for_selector(".actions[data-prompt]", timeout=30000)
    prompt = page.locator(".actions[data-prompt]").get_attribute("data-prompt")
    if page.locator("button.act-pass").count():
        button = page.locator("button.act-pass")
    elif page.locator("button[data-discard]").count():
        button = page.locator("button[data-discard]").last
    else:
        button = page.locator("button.act").first
    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("window.laiziPage.render()")  # as a hint or a clock arriving mid-press would
    page.mouse.up()
    deadline = time.monotonic() + 10
    while page.locator(f".actions[data-prompt='{prompt}']").count():
        assert time.monotonic() < deadline, f"prompt {prompt} was not answered"
        time.sleep(0.02)
    assert errors == []


RAW = re.compile(r"\b[a-z]+_[a-z_]+\b")
FLOAT = re.compile(r"\d+\.\d{3,}")


def scan(page: Page, where: str) -> None:
    text = page.inner_text("body")
    assert not RAW.findall(text), (where, RAW.findall(text))
    assert not FLOAT.findall(text), (where, FLOAT.findall(text))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_raw_key_and_no_float_on_any_page(server, browser, lang):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(server.http + "/")
    page.evaluate(f"localStorage.setItem('laizi.lang', '{lang}')")
    page.reload()
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    scan(page, "lobby")
    for preset in ("baishan", "wuhan-qipi-koukou"):
        page.select_option("#preset", preset)
        scan(page, f"lobby {preset}")
    code = create_room(page, server.http, name="Scan", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    scan(page, "table")
    play_until(page, ".settlement.open table.settle")
    scan(page, "settlement")
    page.goto(f"{server.http}/replay/{code}/0")
    page.wait_for_selector(".replay .open-hand")
    for _ in range(40):
        scan(page, "replay")
        if page.locator("[data-step=next]").is_disabled():
            break
        page.click("[data-step=next]")
    if not page.locator("[data-step=last]").is_disabled():  # a short hand: already at its end
        page.click("[data-step=last]")
    scan(page, "replay end")
    page.goto(f"{server.http}/r/{code}")
    page.wait_for_selector(".finished, .board")
    scan(page, "finished room")
    assert errors == []


def test_the_replay_keeps_its_step_on_a_language_switch(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    code = zh_room(page, server, name="Step", hands="1")
    play_until(page, ".match-end")
    page.goto(f"{server.http}/replay/{code}/0")
    page.wait_for_selector(".replay .open-hand")
    for _ in range(5):
        page.click("[data-step=next]")
    assert page.get_attribute("[data-step-no]", "data-step-no") == "5"
    before = page.inner_text(".said")
    page.click("#lang")
    assert page.get_attribute("[data-step-no]", "data-step-no") == "5"
    assert page.inner_text(".said") != before  # the same step, in the other language
    assert page.locator(".replay .specials .must-gang .tile").count() >= 1  # 红中 must be konged
    page.reload()
    page.wait_for_selector(".replay .open-hand")
    assert page.get_attribute("[data-step-no]", "data-step-no") == "5"
    assert errors == []


def test_the_lobby_opens_with_quick_play_and_the_selects_pick_the_preset(server, browser):
    """快速开始 at the top (variant + mode, three bots, go); every other setting folded under
    更多设置; the variant and mode selects pick the preset (RULES.md A1: the pair is the preset)."""
    page, errors = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(server.http + "/")
    page.evaluate("localStorage.setItem('laizi.lang', 'zh')")
    page.reload()
    page.wait_for_selector("#qp-variant")
    page.wait_for_selector("#rules-cap", state="attached")
    go = page.locator("#create-room").bounding_box()
    assert go is not None and go["y"] + go["height"] < 844  # on the first screen of a phone
    assert page.inner_text(".quick h3") == "快速开始"
    assert page.locator("#more-settings[open]").count() == 0
    assert not page.locator("#rules-cap").is_visible()
    page.select_option("#qp-variant", "qipi_silai")
    page.select_option("#qp-mode", "koukou")
    assert page.input_value("#preset") == "wuhan-qipi-koukou"
    open_more(page)
    assert page.input_value("#rules-min_points") == "64"  # the pair's own defaults
    page.select_option("#rules-mode", "kaikou")  # the fields below pick the preset as well
    assert page.input_value("#preset") == "wuhan-qipi-kaikou"
    assert page.input_value("#qp-mode") == "kaikou"
    page.select_option("#rules-variant", "hongzhong")
    assert page.input_value("#preset") == "wuhan-hongzhong-kaikou"
    assert page.input_value("#qp-variant") == "hongzhong"
    page.select_option("#qp-variant", "baishan")
    assert page.input_value("#preset") == "baishan"
    assert page.locator("#qp-mode").is_disabled()
    page.select_option("#qp-variant", "hongzhong_facai")
    page.select_option("#qp-mode", "koukou")
    page.click("#more-settings summary")  # folded again: quick play goes with the pair alone
    page.click("#create-room")
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(".board")  # you sat down: the match starts with the bots
    _, body = server.get(f"/api/rooms/{code}")
    room = json.loads(body)
    assert room["rules"]["preset"] == "wuhan-facai-koukou"
    assert room["table"]["players"] == 1
    assert [s["kind"] for s in room["seats"]].count("bot") == 3
    assert errors == []


def test_the_settlement_stays_until_every_person_pressed_continue(server, browser):
    """Two people at the table: the settlement is still open after 15 s, says who is still to
    press 继续, counts down, and closes (the next deal) once both pressed (issue 15, point 2)."""
    status, room = server.post(
        "/api/rooms",
        {
            "rules": "wuhan-hongzhong-kaikou",
            "table": {
                "players": 2,
                "hands": 2,
                "bot_delay_ms": 5,
                "between_hands_ms": 5,
                "action_seconds": 600,
                "settlement_seconds": 40,
            },
        },
    )
    assert status == 201, room
    pages = []
    for name in ("Qin", "Ren"):
        page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
        page.goto(server.http + "/")
        page.evaluate(
            "localStorage.setItem('laizi.lang', 'zh');"
            f" localStorage.setItem('laizi.name', '{name}')"
        )
        page.goto(f"{server.http}/r/{room['code']}")
        pages.append((page, errors))
    for page, _ in pages:
        page.wait_for_selector(".board")
    deadline = time.monotonic() + 240
    while not all(p.locator(".settlement.open .pause-bar").count() for p, _ in pages):
        assert time.monotonic() < deadline, "the first hand never ended"
        moved = False
        for page, _ in pages:
            if not page.locator(".settlement.open").count():
                moved = click_once(page, go_on=False) or moved
        if not moved:
            time.sleep(0.03)
    first, second = pages[0][0], pages[1][0]
    hand = first.evaluate("window.laiziPage.model.hand")
    assert first.locator(".settlement.open .continue").inner_text() == "继续"
    time.sleep(15.5)
    for page, _ in pages:
        assert page.locator(".settlement.open").count() == 1, "the settlement left before 15 s"
        left = int(re.sub(r"\D", "", page.inner_text("[data-pause-left]")))
        assert 10 <= left <= 25
    first.click(".settlement.open .continue")
    first.wait_for_selector(".settlement.open .pause-bar:has-text('已继续')")
    second_name = second.locator(".seat.pos-bottom .name").inner_text().replace(" (你)", "")
    assert second_name in first.inner_text(".settlement.open .pause-bar")  # waiting for Ren
    time.sleep(1)
    assert first.locator(".settlement.open").count() == 1  # still: Ren has not pressed
    assert first.evaluate("window.laiziPage.model.hand") == hand
    second.click(".settlement.open .continue")
    for page, _ in pages:
        page.wait_for_function(
            f"() => window.laiziPage.model && window.laiziPage.model.hand === {hand + 1}"
        )
        page.wait_for_selector(".settlement.open", state="detached")
    shot(first, "settlement-continued")
    for _, errors in pages:
        assert errors == []


def test_an_away_player_shows_offline_and_the_escape_countdown(server, browser):
    status, room = server.post(
        "/api/rooms",
        {
            "rules": "wuhan-hongzhong-kaikou",
            "table": {
                "players": 2,
                "hands": 1,
                "bot_delay_ms": 300,
                "action_seconds": 600,
                "escape_grace_seconds": 120,
            },
        },
    )
    assert status == 201, room
    stay, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    stay.goto(server.http + "/")
    stay.evaluate("localStorage.setItem('laizi.lang', 'zh')")
    stay.goto(f"{server.http}/r/{room['code']}")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    away = context.new_page()
    away.goto(server.http + "/")
    away.evaluate(
        "localStorage.setItem('laizi.lang', 'zh'); localStorage.setItem('laizi.name', 'Wu')"
    )
    away.goto(f"{server.http}/r/{room['code']}")
    stay.wait_for_selector(".board")
    away.wait_for_selector(".board")
    seat = away.evaluate("window.laiziPage.seat")
    away.close()  # the tab is closed: its seat is away
    stay.wait_for_selector(f".seat[data-seat='{seat}'] [data-offline]")
    stay.wait_for_selector(f"[data-away='{seat}']")
    first = int(re.search(r"(\d+) 秒后判逃跑", stay.inner_text(f"[data-away='{seat}']")).group(1))
    assert 110 <= first <= 120
    time.sleep(2.2)
    later = int(re.search(r"(\d+) 秒后判逃跑", stay.inner_text(f"[data-away='{seat}']")).group(1))
    assert first - 4 <= later <= first - 1  # it counts down
    assert "Wu" in stay.inner_text(f"[data-away='{seat}']")
    back = context.new_page()  # the same browser (its seat token) comes back
    back.goto(f"{server.http}/r/{room['code']}")
    back.wait_for_selector(".board")
    assert back.evaluate("window.laiziPage.seat") == seat
    stay.wait_for_selector(f"[data-away='{seat}']", state="detached")
    stay.wait_for_selector(f".seat[data-seat='{seat}'] [data-offline]", state="detached")
    context.close()
    assert errors == []


def test_server_errors_are_shown_in_the_pages_language(server, browser):
    """An error's `message_zh` in Chinese and `message` in English — never its raw code — on the
    table (WebSocket errors) and in the lobby's forms (HTTP errors, old and new shapes)."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Err", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    error = {
        "type": "error",
        "code": "stale_prompt",
        "params": {},
        "message": "that prompt is no longer pending",
        "message_zh": "这个操作已经过期",
    }
    page.evaluate("(e) => { window.laiziPage.onMessage(e); window.laiziPage.render(); }", error)
    assert page.inner_text(".banner.error") == "这个操作已经过期"
    page.click("#lang")
    assert page.inner_text(".banner.error") == "that prompt is no longer pending"
    texts = page.evaluate(
        """async () => {
          const util = await import('/web/util.js');
          const i18n = await import('/web/i18n.js');
          const out = [];
          for (const lang of ['zh', 'en']) {
            i18n.setLang(lang);
            out.push(util.errorText({ code: 'bad_setting', message: 'Cap: too low',
                                      message_zh: '封顶：太低', error: 'Cap: too low' }));
            out.push(util.errorText({ error: 'old', error_zh: '旧' }));
          }
          return out;
        }"""
    )
    assert texts == ["封顶：太低", "旧", "Cap: too low", "old"]
    assert errors == []


def test_counts_and_running_fans_as_the_server_sends_them(server, browser):
    """开口N 杠N and a Baishan seat's running fans, shown on every seat without a click, as the
    stream carries them (docs/protocol.md, minor 2: `counts`, `fans`)."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Fan", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    event = {
        "type": "note",
        "counts": [{"opened": 0, "kongs": 0}, {"opened": 2, "kongs": 1}, None, None],
        "fans": [
            [],
            [
                {"id": "baoting", "zh": "报听", "en": "declared ready", "fans": 1},
                {"id": "zuozhuang", "zh": "坐庄", "en": "dealer", "fans": 1},
            ],
            [{"id": "limen", "zh": "立门", "en": "concealed", "fans": 1}],
            [],
        ],
    }
    page.evaluate("(e) => { window.laiziPage.onEvent(e); window.laiziPage.render(); }", event)
    assert page.inner_text(".seat[data-seat='1'] [data-counts]").split() == ["开口2", "杠1"]
    assert page.inner_text(".seat[data-seat='1'] [data-fans]").split() == [
        "报听",
        "+1",
        "坐庄",
        "+1",
    ]
    assert page.inner_text(".seat[data-seat='2'] [data-fans]").split() == ["立门", "+1"]
    assert page.locator(".seat[data-seat='3'] [data-fans]").count() == 0
    page.click("#lang")
    assert "declared ready +1" in page.inner_text(".seat[data-seat='1'] [data-fans]")
    assert page.inner_text(".seat[data-seat='1'] [data-counts]").split() == [
        "open",
        "2",
        "kong",
        "1",
    ]
    assert errors == []


def test_the_declare_ready_button_names_its_waits_and_no_win_says_why(server, browser):
    """报听 shows the waits the discard leaves; when a tile completes the shape but 胡 is not
    offered, one line says why (the server's `hints`, docs/protocol.md minor 2)."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    zh_room(page, server, name="Bao", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    wait = {
        "tile": "6m",
        "left": 3,
        "self_drawn": "8",
        "on_discard": "4",
        "on_discard_from": {"1": "4"},
        "allowed": True,
        "reason": None,
    }
    messages = [
        {
            "type": "prompt",
            "id": 999,
            "phase": "turn",
            "seconds": 600,
            "bank": 60,
            "elapsed": 0,
            "legal": [{"type": "declare_ready", "tile": "3m"}, {"type": "discard", "tile": "3m"}],
        },
        {
            "type": "hints",
            "seq": 999,
            "waits": None,
            "discards": [{"tile": "3m", "waits": [wait, {**wait, "tile": "9m"}]}],
            "no_win": {"tile": "5p", "reason": "below_minimum"},
        },
    ]
    page.evaluate(
        "(ms) => { ms.forEach((m) => window.laiziPage.onMessage(m)); window.laiziPage.render(); }",
        messages,
    )
    button = page.locator("button.act-declare_ready")
    assert button.locator("[data-act-waits]").inner_text() == "听牌： 六万、九万"
    # the reason in the server's words (GET /api/settings/schema `words`, laizi.engine.hints)
    assert page.inner_text("[data-no-win]") == "五筒 成型但不能胡：未达起胡点数"
    assert "报听、出牌" in page.inner_text("[data-status]")
    page.click("#lang")
    assert page.inner_text("[data-no-win]") == (
        "5 dots completes the hand but no win: below the table's minimum to win"
    )
    assert errors == []


POND_MARKS = (
    "(seat) => [...document.querySelectorAll(`.pond[data-pond='${seat}'] .tile`)]"
    ".map((e) => [e.dataset.tile, e.classList.contains('tile-moqie')])"
)


def test_every_seats_moqie_is_marked_in_its_pond(server, browser):
    """摸切 is public: the bots' discards straight from the draw are marked in their ponds exactly
    as the streamed `discard` events say (`moqie`, docs/protocol.md), the others are not; after a
    reload the snapshot's view marks the same."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    frames: list[dict[str, Any]] = []

    def listen(ws: Any) -> None:
        def got(payload: str | bytes) -> None:
            if isinstance(payload, str):  # one message, or a batch of them
                message = json.loads(payload)
                frames.extend(message if isinstance(message, list) else [message])

        ws.on("framereceived", got)

    page.on("websocket", listen)
    zh_room(page, server, name="Moe", hands="3")
    page.wait_for_selector(".actions[data-prompt]")
    me = model(page)["seat"]
    others = [s for s in range(4) if s != me]

    def expected() -> dict[int, list[list[Any]]]:
        """Per other seat, this hand's pond as the stream told it: [tile, moqie]."""
        events = [f["event"] for f in frames if f.get("type") == "event"]
        starts = [i for i, e in enumerate(events) if e["type"] == "start"]
        hand = events[starts[-1] :] if starts else events
        ponds: dict[int, list[list[Any]]] = {s: [] for s in others}
        for e in hand:
            if e["type"] == "discard" and not e.get("lay_out") and e["seat"] in ponds:
                ponds[e["seat"]].append([e["tile"], e["moqie"]])
        return ponds

    checked = False
    for _ in range(300):
        page.wait_for_selector(".actions[data-prompt], .settlement.open")
        if not page.locator(".settlement.open").count():
            want = expected()
            flags = [flag for pond in want.values() for _, flag in pond]
            if True in flags and False in flags:
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    want = expected()
                    shown = {s: page.evaluate(POND_MARKS, s) for s in others}
                    if shown == want:
                        break
                    time.sleep(0.05)
                assert shown == want
                page.reload()  # a snapshot's view lists the 摸切 discards too
                page.wait_for_selector(".actions[data-prompt]")
                assert {s: page.evaluate(POND_MARKS, s) for s in others} == want
                checked = True
                break
        if not click_once(page):
            time.sleep(0.05)
    assert checked, "no hand had both kinds of discard by the other seats"
    assert errors == []
