"""The lobby's *Bot ladder* card (issue 28 item 3): the bots' leaderboard of each game from
``GET /api/bots/leaderboard`` — bot, owner, rating (μ − 3σ, one decimal), matches — and whether
the server runs the ladder, in Chinese and English, in a real browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser
from sqlalchemy import insert

from laizi.server.accounts import Accounts
from laizi.server.botratings import book_ladder
from laizi.server.bottokens import BotTokens
from laizi.server.ladder import Ladder, LadderSettings
from laizi.server.store import Store, reserved_seats
from tests.page_scan import scan
from tests.server_helpers import FAST_HASH, InProcessServer, store_hands
from tests.web_browser import launch, new_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    browsers = launch()
    yield next(browsers)
    browsers.close()


def _booked_ladder_match(db_url: str) -> dict[str, float]:
    """Four bots of two owners and one booked ladder match of Wuhan; each bot's ordinal."""
    store = Store(db_url)
    try:
        accounts = Accounts(store.engine, hasher=FAST_HASH)
        ada = accounts.register("ada", "hongzhong")
        bob = accounts.register("bob", "hongzhong")
        tokens = BotTokens(store.engine)
        ids = [
            tokens.issue(o.id, n)["id"]
            for o, n in [(ada, "alpha"), (ada, "beta"), (bob, "gamma"), (bob, "delta")]
        ]
        table = LadderSettings().table().to_json()
        room_id = store.create_room("LADWEB", "wuhan-hongzhong-kaikou", table, "ladder")
        with store.engine.begin() as c:
            for seat, token in enumerate(ids):
                c.execute(
                    insert(reserved_seats).values(room_id=room_id, seat=seat, bot_token_id=token)
                )
        store_hands(store, room_id, [[{"type": "end", "payments": [-10, 30, -10, -10]}]])
        rows = book_ladder(store.engine, room_id)
        names = ["ada/alpha", "ada/beta", "bob/gamma", "bob/delta"]
        return {names[r["seat"]]: r["mu_after"] - 3 * r["sigma_after"] for r in rows}
    finally:
        store.close()


def test_the_lobby_shows_the_bots_leaderboard_in_both_languages(
    browser: Browser, db_url: str, tmp_path: Path
) -> None:
    ordinals = _booked_ladder_match(db_url)
    with InProcessServer(db_url) as srv:
        for lang, off, waiting, none_yet in [
            ("zh", "本服务器未开启机器人天梯", "排队中的机器人：0", "暂无"),
            ("en", "This server runs no bot ladder", "Bots waiting: 0", "None yet"),
        ]:
            page, errors = new_page(browser)
            page.add_init_script(f"localStorage.setItem('laizi.lang', '{lang}');")
            page.goto(srv.http + "/")
            card = page.locator(".bot-ladder")
            card.locator("tr[data-bot]").first.wait_for()
            shown = [r.get_attribute("data-bot") for r in card.locator("tr[data-bot]").all()]
            assert shown == sorted(ordinals, key=lambda n: -ordinals[n])  # by ordinal
            for name, value in ordinals.items():
                cell = card.locator(f"tr[data-bot='{name}'] [data-rating]").inner_text()
                assert cell == f"{value:.1f}", (name, cell)
            best = card.locator(f"tr[data-bot='{shown[0]}'] td").all_inner_texts()
            assert best == ["1", shown[0].split("/")[1], shown[0].split("/")[0], best[3], "1"]
            assert off in card.locator("[data-ladder-state]").inner_text()
            card.locator("[data-bot-board='baishan']").click()
            page.wait_for_function("() => !document.querySelector('.bot-ladder tr[data-bot]')")
            assert none_yet.lower() in card.inner_text().lower()
            scan(page, lang, "bot ladder", ["ada", "bob", "alpha", "beta", "gamma", "delta"])
            # with the ladder running, the card says how many bots wait
            srv.call(setattr, srv.hub, "ladder", Ladder(srv.hub, LadderSettings()))
            page.reload()
            page.locator(".bot-ladder [data-ladder-state]").wait_for()
            assert waiting in page.locator(".bot-ladder [data-ladder-state]").inner_text()
            srv.call(setattr, srv.hub, "ladder", None)
            assert errors == [], errors
            page.context.close()
