"""Progress in the browser (issue 27, items 4 and 5): the rank change and the next rank's
distance after a ranked match, a player's profile (statistics per game as SVG charts, the best
hand's replay, the past matches a page at a time), the leaderboard's rating as one number, and
the words that say which tables move ranks — in Chinese and English, on a desktop and a phone.

Screenshots go where ``tests/web_browser.shot`` puts them, and to ``$LAIZI_SHOTS`` if set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from laizi.server.store import Store
from tests.page_scan import scan
from tests.server_helpers import InProcessServer
from tests.stats_helpers import script_matches
from tests.web_browser import PHONE, create_room, launch, new_page
from tests.web_match_helpers import LOOKS, ranked_match_with_an_escape
from tests.web_match_helpers import person as _person
from tests.web_match_helpers import play_out as _play_out
from tests.web_match_helpers import shot_also as _shot


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    browsers = launch()
    yield next(browsers)
    browsers.close()


def _look(look: dict[str, Any]) -> str:
    return "phone" if look is PHONE else "desktop"


def _fits(page: Page) -> None:
    """Nothing runs off the side of the screen (a phone scrolls down, never sideways)."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


NEXT = {
    "zh": ["距三万还差 271⅔", "距一万还差 1⅔", "距二万还差 96⅔", "距一万还差 530"],
    "en": [
        "271⅔ to 3 Characters",
        "1⅔ to 1 Character",
        "96⅔ to 2 Characters",
        "530 to 1 Character",
    ],
}
"""Each seat's next rank after the escape of tests/test_web_match.py (95 → 685/3: 三万 is at 500;
295/3: 一万 at 100; 310/3: 二万 at 200; -430: 一万 at 100)."""


def _scroll_to(page: Page, selector: str) -> None:
    """Scroll to ``selector`` for a screenshot, without waiting for the element to stand still (a
    busy machine's clock redraws made Playwright's own scroll wait out its timeout)."""
    page.evaluate("s => document.querySelector(s)?.scrollIntoView()", selector)


def test_the_rank_change_says_each_accounts_next_rank_and_its_distance(
    browser: Browser, db_url: str
) -> None:
    names = ["Prog0", "Prog1", "Prog2", "Prog3"]
    with InProcessServer(db_url) as srv:
        code, people = ranked_match_with_an_escape(browser, srv, names)
        status, body = srv.get(f"/api/rooms/{code}/summary")
        assert status == 200
        assert [s["next_rank"]["missing"] for s in json.loads(body)["standings"]] == [
            "815/3",
            "5/3",
            "290/3",
            "530",
        ]
        for (lang, look), (_, page, _) in zip(LOOKS, people, strict=True):
            table = page.locator("[data-standings]")
            table.wait_for()
            cells = [table.locator(f"tr[data-seat='{s}'] .next").inner_text() for s in range(4)]
            assert cells == NEXT[lang], (lang, cells)
            assert not page.locator("[data-no-ranks]").count()  # a ranked table moves ranks
            _fits(page)
            scan(page, lang, "ranked settlement", names)
            _scroll_to(page, "[data-standings]")
            _shot(page, f"progress-rank-change-{lang}-{_look(look)}")
        for _, page, errors in people:
            assert errors == [], errors
            page.context.close()


def test_a_table_with_bots_says_at_its_end_that_ranks_did_not_move(
    browser: Browser, db_url: str
) -> None:
    with InProcessServer(db_url) as srv:
        page, errors = new_page(browser)
        page.add_init_script("localStorage.setItem('laizi.lang', 'zh');")
        page.goto(srv.http + "/")
        # where one creates or joins a room, the page says which tables move ranks
        rule = page.locator("[data-ranks-rule]")
        expect(rule).to_have_count(2)  # drawn once the schema has come
        assert "友人场（链接开房）、休闲场和有机器人的牌桌都不改变" in rule.first.inner_text()
        create_room(page, srv.http, "Solo", hands="1")
        _play_out([page])
        note = page.locator(".match-end [data-no-ranks]")
        assert note.inner_text().startswith("这是友人场牌桌：积分和段位不变。只有排位匹配的牌桌")
        _scroll_to(page, ".match-end [data-no-ranks]")
        _shot(page, "progress-no-ranks-zh-desktop")
        page.click("#lang")
        assert (
            page.locator(".match-end [data-no-ranks]")
            .inner_text()
            .startswith("This is a friendly table: points and ranks don't move. Only ranked tables")
        )
        _scroll_to(page, ".match-end [data-no-ranks]")
        _shot(page, "progress-no-ranks-en-desktop")
        assert errors == [], errors
        page.context.close()


WORDS = {
    "zh": {
        "win_rate": "40%",
        "per_hand": "15.1",
        "best": "清一色 · 碰碰胡 +60",
        "other": "Win rate",
    },
    "en": {
        "win_rate": "40%",
        "per_hand": "15.1",
        "best": "one suit · all pungs +60",
        "other": "胡牌率",
    },
}


def test_the_profile_draws_statistics_and_lists_past_matches_with_replays(
    browser: Browser, db_url: str
) -> None:
    with InProcessServer(db_url) as srv:
        people = [_person(browser, srv.http, lang, look, None) for lang, look in LOOKS]
        for (context, _, _), name in zip(people, ["Ann", "Bo"], strict=False):
            r = context.request.post(
                srv.http + "/api/register", data={"name": name, "password": "hongzhong"}
            )
            assert r.status == 201, r.text()
        accounts = srv.hub.accounts
        store = Store(db_url)
        try:
            script_matches(store, accounts.by_name("Ann").id, accounts.by_name("Bo").id)
        finally:
            store.close()
        for i, (context, page, _) in enumerate(people):
            lang, look = LOOKS[i]
            if i > 0:  # everyone looks at Ann's page
                context.request.post(
                    srv.http + "/api/login", data={"name": "Ann", "password": "hongzhong"}
                )
            page.goto(srv.http + "/me")
            card = page.locator(".game-stats[data-game='wuhan']")
            card.locator("[data-figure='win_rate']").wait_for()
            words = WORDS[lang]
            assert card.locator("[data-figure='matches'] b").inner_text() == "2"
            assert card.locator("[data-figure='hands'] b").inner_text() == "5"
            assert card.locator("[data-figure='win_rate'] b").inner_text() == words["win_rate"]
            assert card.locator("[data-figure='deal_in_rate'] b").inner_text() == "40%"
            assert card.locator("[data-figure='per_hand'] b").inner_text() == words["per_hand"]
            best = card.locator("[data-best]")
            assert best.inner_text() == words["best"]
            assert best.get_attribute("href") == "/replay/RANKD1/0"
            big = card.locator("[data-chart='big-wins'] .bar")
            assert [b.get_attribute("data-key") for b in big.all()] == ["pengpenghu", "qingyise"]
            assert [b.locator(".bar-value").text_content() for b in big.all()] == ["1", "2"]
            assert card.locator("[data-chart='recent'] circle").count() == 2
            baishan = page.locator(".game-stats[data-game='baishan'] [data-chart='big-wins'] .bar")
            assert [b.get_attribute("data-key") for b in baishan.all()] == ["piaohu"]
            matches = page.locator(".past-matches > li")
            matches.nth(2).wait_for()
            assert [m.get_attribute("data-room") for m in matches.all()] == [
                "FRIEND",
                "CASUL1",
                "RANKD1",
            ]
            assert matches.nth(2).locator(".replays a").count() == 3
            assert words["other"] not in page.locator("#app").inner_text()
            _fits(page)
            scan(page, lang, "profile", ["Ann", "Bo"])  # the whole list's scan (page_scan.py)
            _shot(page, f"progress-profile-{lang}-{_look(look)}")
        # a player's page by name (from the leaderboard), and the rating as one number
        page = people[1][1]
        page.goto(srv.http + "/")
        link = page.locator(".leaderboard a[href='/players/Ann']")
        link.wait_for()
        rating = page.locator(".leaderboard tr[data-player='Ann'] [data-rating]").inner_text()
        assert rating == "3.0", rating  # μ − 3σ after the ranked match, one decimal (not 6009/2000)
        link.click()
        page.wait_for_url("**/players/Ann")
        page.locator(".game-stats[data-game='wuhan'] [data-best]").wait_for()
        assert not page.locator(".past-matches").count()  # someone else's matches stay theirs
        page.locator(".game-stats[data-game='wuhan'] [data-best]").click()
        page.wait_for_url("**/replay/RANKD1/0")
        for _, page, errors in people:
            assert errors == [], errors
            page.context.close()
