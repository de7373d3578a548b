"""The web client in a real browser (Debian's Chromium, headless) on a real server (issue 9)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction

import pytest
from playwright.sync_api import Browser

from laizi.engine import parse_record, verify
from laizi.rules import PRESETS
from laizi.server.schema import room_schema
from laizi.server.table import TableSettings
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

EVERY_SETTING = list(PRESETS["wuhan-hongzhong-kaikou"].to_json())
"""Every game's settings, in the form's order (Baishan's are some of Wuhan's)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("web") / "db.sqlite3") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def shown(x: float) -> str:
    """A number as the client shows it (util.js ``num``)."""
    return str(int(x)) if x == int(x) else str(x)


def record_of(server: ServerProcess, code: str, hand: int) -> list[dict]:
    status, body = server.get(f"/api/rooms/{code}/hands/{hand}")
    assert status == 200, body
    return parse_record(body.decode())


def test_a_household_behind_one_address_opens_the_lobby_ten_times_in_a_row(tmp_path, browser):
    """Every page load asks for each of the client's modules (some 50 requests): under the
    per-address GET bucket (default 200 at once, 20 a second) they cost little, so ten fresh
    visitors behind one address (a family, a café, a reload and a second tab) all get a drawn
    lobby. A module refused with 429 left the page blank: tests waiting 20 s for the lobby
    failed now and then once the client had grown to 45 files."""
    with ServerProcess(tmp_path / "db.sqlite3") as srv:  # a full bucket, whatever ran before
        refused: list[str] = []
        for visit in range(10):
            page, errors = new_page(browser)
            page.on("response", lambda r: refused.append(r.url) if r.status == 429 else None)
            page.goto(srv.http + "/")
            page.wait_for_selector("#rules-cap", state="attached", timeout=10_000)
            assert refused == [] and errors == [], (visit, refused, errors)
            page.context.close()


def test_lobby_form_has_every_setting_with_its_default(server, browser):
    """The form is the server's schema: every game's settings and TableSettings are there."""
    page, errors = new_page(browser)
    page.goto(server.http + "/")
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    for preset in ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "baishan"):
        page.select_option("#preset", preset)
        settings = PRESETS[preset].to_json()
        for key in EVERY_SETTING:
            if key not in settings:  # a Wuhan-only setting in a Baishan room
                assert page.locator(f"#rules-{key}").count() == 0, key
                continue
            value = settings[key]
            field = page.locator("#preset" if key == "preset" else f"#rules-{key}")
            if isinstance(value, bool):
                assert field.is_checked() == value, key
            else:
                assert field.input_value() == str(value), key
            if key == "preset":
                continue
            default = page.locator(f"[data-default-for={key}]").first.inner_text()
            assert default, key
        assert page.locator("#rules-game").is_disabled()  # fixed by the preset
    page.select_option("#preset", "wuhan-qipi-koukou")
    assert page.locator("#rules-min_points").input_value() == "64"  # 口口翻's minimum (A10)
    assert page.get_attribute("#rules-haidi_reserve", "max") == "60"  # the schema's bounds
    for key, value in TableSettings().to_json().items():
        if isinstance(value, bool):  # a checkbox (explain_bots)
            assert page.locator(f"#table-{key}").is_checked() == value, key
            continue
        shown = "" if value is None else str(value).removesuffix(".0")  # empty: the default
        assert page.locator(f"#table-{key}").input_value() == shown, key
    assert page.locator("#table-bot_level").input_value() == "greedy"
    assert page.locator("#table-action_seconds").input_value() == "15"
    assert errors == []


def test_the_server_validates_the_form(server, browser):
    page, _ = new_page(browser)
    page.goto(server.http + "/")
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    page.fill("#rules-golden_cap", "100")  # below the cap of 300: the ladder only climbs (A9)
    page.click("#create-room")
    page.wait_for_selector(".form-error:not(:empty)")
    # the server's message names the setting by its label, in the page's language (issue 15)
    assert page.inner_text(".form-error") == "Error: Golden cap: must not be below Cap (300)"
    assert page.url.endswith("/")
    page.fill("#rules-golden_cap", "400")
    page.fill("#table-hands", "0")
    page.click("#create-room")
    # a selector, not wait_for_function: polling a JavaScript string is eval, which the page's
    # Content-Security-Policy refuses whenever the answer is not there at the first look
    page.wait_for_selector(".form-error:has-text('Hands in the match')")
    assert "table.hands" not in page.inner_text(".form-error")
    page.click("#lang")  # the lobby in Chinese: the same refusal in Chinese
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    page.fill("#rules-golden_cap", "100")
    page.click("#create-room")
    page.wait_for_selector(".form-error:not(:empty)")
    assert page.inner_text(".form-error") == "错误: 金顶：不能低于封顶（300）"


def test_whole_hand_against_three_bots_by_clicking_to_the_settlement(server, browser):
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    code = create_room(page, server.http, hands="1", bot_level="greedy")
    page.wait_for_selector(".actions[data-prompt]")
    board = page.locator(".board")
    assert board.locator(".seat").count() == 4
    assert page.locator(".seat.pos-bottom .name").inner_text() == "Alice (you)"
    # The centre shows the indicator, the laizi and the tiles left; the hand is 13 or 14 tiles.
    assert page.locator(".laizi-box .tile").count() == 1
    tiles_left = int(page.inner_text("[data-tiles-left]"))
    assert 70 <= tiles_left <= 82
    hand = page.locator(".my-hand .tile").count()
    assert hand in (13, 14)
    # Every seat's multiplier is shown; the dealer's carries ×2 (A7); its factors on a tap.
    dealer = page.locator(".seat:has(.badge.dealer)")
    assert dealer.locator(".mult").inner_text() == "×2"
    dealer.locator(".mult").click()
    assert "×2" in dealer.locator(".mult-detail").inner_text()
    shot(page, "table-start")
    clicks = 0
    while clicks < 8 and not page.locator(".settlement.open").count():
        clicks += click_once(page)
    # While a decision of ours is pending nothing else can happen at the table: open the factors
    # of the seat on the right then (unless the hand is already over).
    page.wait_for_selector(".actions[data-prompt], .settlement.open")
    if not page.locator(".settlement.open").count():
        page.locator(".seat.pos-right .mult").click()  # its factors open under the name
        assert page.locator(".seat.pos-right .mult-detail").count() == 1
        shot(page, "table")
    clicks += play_until(page, ".settlement.open table.settle", limit=200)
    assert clicks >= 1
    shot(page, "settlement")
    end = record_of(server, code, 0)[-1]
    assert verify(record_of(server, code, 0)).ok
    points = [
        page.locator(f".settle tbody tr[data-seat='{s}'] .points").inner_text() for s in range(4)
    ]
    assert [Fraction(p.replace("+", "")) for p in points] == [
        Fraction(str(x)) for x in end["payments"]
    ]
    page.click(".settlement .fairness summary")  # 公平性: the proof is folded (issue 27)
    page.wait_for_selector(".seed-check[data-state=ok]")
    assert end["seed"] in page.inner_text(".seed")
    assert "laizi verify" in page.inner_text(".seed")
    if end["reason"] == "win":
        settlement = end["settlement"]
        # the seats' chips now show the multipliers that were paid, as the server sent them
        chips = [page.locator(f".seat[data-seat='{s}'] .mult").inner_text() for s in range(4)]
        assert chips == [f"×{shown(m['total'])}" for m in settlement["multipliers"]]
        winner_row = page.locator(f".settle tr[data-seat='{end['winner']}']")
        assert "winner" in winner_row.get_attribute("class")
        for seat in range(4):
            if seat == end["winner"]:
                continue
            row = page.locator(f".settle tr[data-seat='{seat}']").inner_text()
            assert f"= {settlement['raw'][seat]}" in row.replace("\n", " ")
    assert page.locator(".match-end").count() == 1  # a one-hand match ends with the totals
    assert errors == []


def test_reload_mid_hand_resumes_the_same_seat_and_hand(server, browser):
    page, errors = new_page(browser)
    code = create_room(page, server.http, name="Bea", hands="1")
    for _ in range(3):
        play_until(page, ".actions[data-prompt]")
        before_melds = page.locator(".seat.pos-bottom .meld").count()
        page.locator(".actions[data-prompt]").wait_for()
        if page.locator("button[data-discard]").count():
            break
        page.click("button.act-pass")
    page.wait_for_selector("button[data-discard]")
    hand_before = page.get_attribute(".my-hand", "data-hand")
    rivers_before = [page.locator(f"[data-pond='{s}'] .tile").count() for s in range(4)]
    me = page.evaluate("window.laiziPage.seat")
    hand_no = page.evaluate("window.laiziPage.model.hand")
    page.reload()
    page.wait_for_selector("button[data-discard]")
    assert page.url.endswith(f"/r/{code}")
    assert page.locator(".seat.pos-bottom .name").inner_text() == "Bea (you)"
    assert page.evaluate("window.laiziPage.seat") == me
    assert page.evaluate("window.laiziPage.model.hand") == hand_no
    rivers_after = [page.locator(f"[data-pond='{s}'] .tile").count() for s in range(4)]
    if rivers_after[me] == rivers_before[me]:
        assert page.get_attribute(".my-hand", "data-hand") == hand_before
        assert page.locator(".seat.pos-bottom .meld").count() == before_melds
        assert rivers_after == rivers_before
    else:
        # The reload closed the seat's last connection: 托管 played it at once (docs/protocol.md,
        # away seats) until the page was back; the table shown is the server's current one.
        assert rivers_after[me] > rivers_before[me]
    play_until(page, ".settlement.open table.settle")
    assert errors == []


def test_phone_portrait(server, browser):
    page, errors = new_page(browser, **PHONE)
    create_room(page, server.http, name="Phone", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the table is {width}px wide on a 390px phone"
    tiles = page.locator(".my-hand .tile")
    box = tiles.last.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    page.locator(".seat.pos-bottom .mult").tap()
    assert page.locator(".mult-detail").count() == 1
    shot(page, "phone-table")
    play_until(page, ".settlement.open table.settle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "phone-settlement")
    assert errors == []


def test_replay_viewer_steps_forward_and_back_with_every_hand_open(server, browser):
    page, errors = new_page(browser)
    code = create_room(page, server.http, name="Cy", hands="1")
    play_until(page, ".settlement.open table.settle")
    page.click(".replay-link")
    page.wait_for_url(f"**/replay/{code}/0")
    page.wait_for_selector(".replay .open-hand")
    events = record_of(server, code, 0)
    deal = events[1]
    hands = [page.locator(f".seat[data-seat='{s}'] .open-hand .tile").count() for s in range(4)]
    assert hands == [
        len(h.replace("m", "").replace("p", "").replace("s", "").replace("z", ""))
        for h in deal["hands"]
    ]
    assert page.locator("[data-step=prev]").is_disabled()
    page.click("[data-step=next]")
    page.click("[data-step=next]")
    assert page.get_attribute(".step", "data-step-no") == "2"
    page.click("[data-step=prev]")
    assert page.get_attribute(".step", "data-step-no") == "1"
    page.click("[data-step=last]")
    page.wait_for_selector(".replay .settlement table.settle")
    assert page.locator("[data-step=next]").is_disabled()
    end = events[-1]
    if end["reason"] == "win":  # the last frame's multipliers are the settlement's (A7)
        for seat, m in enumerate(end["settlement"]["multipliers"]):
            text = page.locator(f".seat[data-seat='{seat}'] .mult-inline").inner_text()
            assert text.endswith(f"M {shown(m['total'])}"), (seat, text)
    shot(page, "replay-end")
    page.click("[data-step=first]")
    assert page.locator(".replay .settlement table").count() == 0
    assert errors == []


def test_chinese_and_english(server, browser):
    page, _ = new_page(browser, locale="en-US")
    page.goto(server.http + "/")
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    assert page.inner_text(".create h2") == "Create a room"
    page.click("#lang")
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    assert page.inner_text(".create h2") == "开房"
    assert "封顶" in page.inner_text("label[for=rules-cap]")
    create_room(page, server.http, name="Di", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    assert "翻牌" in page.inner_text(".centre")
    page.click("#lang")
    assert "Indicator" in page.inner_text(".centre")


def test_settings_schema_endpoint_lists_every_setting(server):
    status, body = server.get("/api/settings/schema")
    assert status == 200
    data = json.loads(body)
    assert data == json.loads(json.dumps(room_schema()))
    assert [p["name"] for p in data["rules"]["presets"]] == list(PRESETS)
    keys = [f["key"] for f in data["rules"]["fields"]]
    assert keys == EVERY_SETTING
    mode = next(f for f in data["rules"]["fields"] if f["key"] == "mode")
    assert {"kaikou", "koukou"} <= {c["value"] for c in mode["choices"]}
    assert data["table"]["defaults"]["hands"] == 4
    assert [f["key"] for f in data["table"]["fields"]] == list(TableSettings().to_json())
    status, _ = server.get("/api/presets")  # the form's old, hand-declared source is gone
    assert status == 404


def test_account_lobby_leaderboard_rank_and_my_past_hands(server, browser):
    page, errors = new_page(browser)
    page.goto(server.http + "/")
    page.wait_for_selector("#login-form")
    page.fill("#login-password", "short")
    page.fill("#login-name", "Erin")
    page.click("#register")
    page.wait_for_selector("#login-form .form-error:not(:empty)")  # the server's rule, shown
    assert "password" in page.inner_text("#login-form .form-error")
    page.fill("#login-password", "correct horse battery")
    page.click("#register")
    page.wait_for_selector("#logout")
    assert "Erin" in page.inner_text(".account")
    assert page.locator(".my-rank").count() == 1  # a fresh account: 白板 / White, 0 points
    assert page.input_value("#player-name") == "Erin"
    code = create_room(page, server.http, name="Erin", hands="1")
    play_until(page, ".settlement.open table.settle")
    assert page.locator(".seat[data-seat='0'] .name").inner_text() == "Erin (you)"
    assert page.locator(".seat .badge.guest").count() == 0  # an account, and three bots
    page.goto(server.http + "/")
    page.wait_for_selector(f".my-matches li[data-room='{code}']")
    entry = page.locator(f".my-matches li[data-room='{code}']")
    # A room made here is friendly (友人场): the match is kept, and ranks don't move — the lobby
    # says so in the create card and on the leaderboard.
    assert any(word in entry.inner_text() for word in ("友人场", "friendly"))
    note = page.inner_text(".friendly-note")
    assert "友人场" in note or "friendly" in note
    assert page.locator(".ranks .ranked-only").count() == 1
    entry.locator("a[href$='/0']").click()
    page.wait_for_url(f"**/replay/{code}/0")
    page.wait_for_selector(".replay .open-hand")
    page.goto(server.http + "/")
    page.wait_for_selector(".leaderboard table")
    assert page.locator(".leaderboard tr[data-player='Erin']").count() == 0
    _, body = server.get("/api/leaderboard/wuhan")
    assert all(p["name"] != "Erin" for p in json.loads(body)["players"])
    _, body = server.get("/api/players/Erin")
    assert json.loads(body)["games"]["wuhan"]["matches"] == 0
    page.click("#logout")
    page.wait_for_selector("#login-form")
    page.fill("#login-name", "Erin")
    page.fill("#login-password", "correct horse battery")
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#logout")
    assert errors == []


def test_a_baishan_hand_by_clicking_to_its_settlement(server, browser):
    page, errors = new_page(browser)
    page.goto(server.http + "/")
    page.wait_for_selector("#rules-cap", state="attached")
    open_more(page)
    page.select_option("#preset", "baishan")
    assert page.locator("#rules-min_points").count() == 0  # only Baishan's own settings
    assert page.input_value("#rules-cap") == "64"
    page.fill("#player-name", "Fei")
    for key, value in {
        "bot_delay_ms": "5",
        "between_hands_ms": "5",
        "action_seconds": "600",
        "hands": "1",
    }.items():
        page.fill(f"#table-{key}", value)
    page.click("#create-room")
    page.wait_for_selector(".board")
    code = page.url.rsplit("/", 1)[1]
    assert page.locator(".laizi-box").count() == 0  # no indicator, no laizi in Baishan
    play_until(page, ".settlement.open table.settle")
    end = record_of(server, code, 0)[-1]
    points = [
        page.locator(f".settle tbody tr[data-seat='{s}'] .points").inner_text() for s in range(4)
    ]
    assert [Fraction(p.replace("+", "")) for p in points] == [
        Fraction(str(x)) for x in end["payments"]
    ]
    if end["reason"] == "win":
        assert "2^(" in page.inner_text(".settle")  # base × 2^(winner's fans + loser's fans)
    assert errors == []


def test_join_by_link_and_by_code_then_the_match_starts(server, browser):
    room = server.create_room(
        players=2, hands=1, bot_delay_ms=5, between_hands_ms=5, action_seconds=600
    )
    first, errors1 = new_page(browser)
    first.goto(server.http + "/")
    first.wait_for_selector("#join-code")
    first.fill("#player-name", "Gao")
    first.fill("#join-code", server.http + room["link"])  # a pasted link
    first.click("#join-form button[type=submit]")
    first.wait_for_selector(".waiting")
    assert "Gao (you)" in first.inner_text(".waiting")
    second, errors2 = new_page(browser)
    second.goto(server.http + "/")
    second.wait_for_selector("#join-code")
    second.fill("#player-name", "Hu")
    second.fill("#join-code", room["code"].lower())  # a code, typed in any case
    second.click("#join-form button[type=submit]")
    second.wait_for_selector(".board")
    first.wait_for_selector(".board")
    names = sorted(first.locator(".seat .name").all_inner_texts())
    assert names == ["Bot 2", "Bot 3", "Gao (you)", "Hu"]  # bots named in the language
    # Both are guests: every seat of a person without an account carries the guest badge.
    assert first.locator(".seat[data-seat='1'] .badge.guest").inner_text() in ("guest", "游客")
    assert first.locator(".seat .badge.guest").count() == 2
    # Hu's connection drops: the server holds the seat (grace period) and Gao sees 掉线/offline.
    second.context.close()
    hu = first.locator(".seat", has=first.locator(".name", has_text="Hu"))
    hu.locator(".badge.offline").wait_for()
    assert errors1 == [] and errors2 == []


def test_auto_play_plays_the_hand_and_shows_on_the_seat(server, browser):
    page, errors = new_page(browser)
    create_room(page, server.http, name="Ivy", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    timer = page.inner_text(".timer")
    assert timer.endswith("s") and 590 <= int(timer.split()[0]) <= 600  # 600 s per decision
    page.click("button[data-cmd=auto]")
    page.wait_for_selector(".seat.pos-bottom .badge.auto")
    # 托管 plays fast: the hand may be over (and the button gone) by the time it is read
    pressed = page.evaluate(
        "document.querySelector('button[data-cmd=auto]')?.getAttribute('aria-pressed') ?? null"
    )
    assert pressed in ("true", None)
    page.wait_for_selector(".settlement.open table.settle", timeout=120_000)  # no click needed
    assert errors == []


def test_a_dropped_connection_reconnects_and_catches_up(server, browser):
    page, errors = new_page(browser)
    create_room(page, server.http, name="Jun", hands="1")
    page.wait_for_selector(".actions[data-prompt]")
    # Drop the connection right after our discard: the bots play on while we are away.
    page.locator("button[data-discard]").last.click()
    page.evaluate("window.laiziPage.conn.ws.close()")
    page.wait_for_selector(".banner.offline")
    page.wait_for_selector(".banner.offline", state="detached")
    page.wait_for_selector(".actions[data-prompt], .settlement.open table.settle")
    if page.locator(".settlement.open").count():
        assert errors == []
        return  # the bots finished the hand meanwhile: caught up to its settlement

    def table() -> tuple[str | None, list[int]]:
        rivers = [page.locator(f"[data-pond='{s}'] .tile").count() for s in range(4)]
        return page.get_attribute(".my-hand", "data-hand"), rivers

    caught_up = table()
    me = page.evaluate("window.laiziPage.seat")
    page.reload()  # the caught-up model equals a fresh snapshot
    page.wait_for_selector(".actions[data-prompt], .settlement.open table.settle")
    if page.locator(".settlement.open").count():
        assert errors == []
        return  # 托管 played the seat while the page reloaded, and the hand ended meanwhile
    fresh = table()
    # Equal, unless the reload's own disconnect let 托管 play the seat meanwhile (away seats).
    assert fresh == caught_up or fresh[1][me] > caught_up[1][me]
    play_until(page, ".settlement.open table.settle")
    assert errors == []


def test_a_spectator_sees_the_public_table_only(server, browser):
    player, _ = new_page(browser)
    code = create_room(player, server.http, name="Kai", hands="1")
    player.wait_for_selector(".actions[data-prompt]")
    watcher, errors = new_page(browser)
    # Opening the link of a room whose seats are taken makes one a spectator, as ?watch=1 does.
    watcher.goto(f"{server.http}/r/{code}")
    watcher.wait_for_selector(".board")
    assert watcher.locator(".my-hand").count() == 0
    assert watcher.locator("button[data-cmd=auto]").count() == 0
    assert "Kai" in watcher.inner_text(".seat[data-seat='0'] .name")
    assert watcher.locator(".seat .backs").count() == 4  # every hand face down: counts only
    assert watcher.locator(".seat .mult").count() == 4
    assert errors == []


def test_replay_frames_of_a_hand_that_does_not_exist_are_a_404(server):
    status, body = server.get("/api/rooms/NOSUCH/hands/0/replay")
    assert status == 404 and "no finished hand" in json.loads(body)["error"]
    status, body = server.get("/r/abc234")
    assert status == 200 and b"ABC234" in body  # the page, titled with the room's code


def test_the_content_security_policy_holds_and_the_client_works_under_it(server, browser):
    page, errors = new_page(browser)
    response = page.goto(server.http + "/")
    assert response is not None
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY" and "server" not in response.headers
    page.wait_for_selector("#join-code")  # the modules, the style sheet, the icon: all allowed
    # An injected inline script is refused by the browser (as a name slipping past escaping
    # would be), and says so on the console.
    ran = page.evaluate(
        """() => {
          const s = document.createElement("script");
          s.textContent = "window.injected = 1";
          document.head.appendChild(s);
          return window.injected === 1;
        }"""
    )
    assert ran is False
    refused = [e for e in errors if "Content Security Policy" in e]
    assert len(refused) >= 1 and [e for e in errors if e not in refused] == []
