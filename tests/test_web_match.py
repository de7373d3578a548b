"""The lobby's match card, the ranked settlement and the rematch in Chromium (issue 26, item 6).

* Four browser contexts — four accounts, each from its own address (``--proxy-headers``: the
  shared-address rule would keep four clients of 127.0.0.1 apart) — queue ranked for one preset
  from the lobby's first card; one cancels and queues again; each is offered the match, accepts
  with a click, and lands at the same room, four distinct seats.  One tab is hidden: its title
  flashes until it is visible again.
* A ranked match played to its end in four tabs: the settlement shows each account's rank and
  strength points before → after and the change, the numbers of the booking; 再次匹配 leaves the
  room and queues again for the same preset and kind.
* A friendly room's end offers 再来一局: the new room has the same settings and the same seat.
* A guest queues casual, accepts and takes the seat kept for it with the match's token.

Screenshots (zh and en, a 1280×800 desktop and a 390×844 phone): the card waiting and offered,
the ranked settlement — under ``$LAIZI_TEST_OUTPUT/web`` and, when ``LAIZI_SHOTS`` names a
directory, there too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.server_helpers import InProcessServer, ServerProcess
from tests.web_browser import PHONE, create_room, launch, new_page
from tests.web_match_helpers import ESCAPED, LOOKS, PRESET, ranked_match_with_an_escape
from tests.web_match_helpers import person as _person
from tests.web_match_helpers import play_out as _play_out
from tests.web_match_helpers import seat_of as _seat
from tests.web_match_helpers import shot_also as _shot


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    browsers = launch()
    yield next(browsers)
    browsers.close()


def _register(context: BrowserContext, base: str, name: str) -> None:
    r = context.request.post(base + "/api/register", data={"name": name, "password": "hongzhong"})
    assert r.status == 201, r.text()


def _phase(page: Page, phase: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"#match-card[data-phase='{phase}']", timeout=timeout)


def _find(page: Page, completes_a_table: bool = False) -> None:
    """Queue ranked from the card; it shows the place (or, for the person who completes a
    table, possibly the offer already: on a loaded machine the page may handle ``queued`` and
    the next tick's ``matched`` in one go)."""
    page.wait_for_selector("#match-card .mm-go:not([disabled])")
    assert page.locator("input[name='mm-kind'][value='ranked']").is_checked()
    page.select_option("#mm-preset", PRESET)
    page.click("#match-card .mm-go")
    if completes_a_table:
        page.wait_for_selector(
            "#match-card[data-phase='queued'], #match-card[data-phase='offered']", timeout=60_000
        )
    else:
        _phase(page, "queued")


def test_four_accounts_queue_ranked_accept_and_meet_at_one_table(
    browser: Browser, tmp_path: Path
) -> None:
    args = ("--proxy-headers", "127.0.0.1", "--accept-seconds", "60", "--queue-grace-seconds", "60")
    with ServerProcess(tmp_path / "db.sqlite3", args=args) as srv:
        people = [
            _person(browser, srv.http, lang, look, f"10.0.0.{i + 1}")
            for i, (lang, look) in enumerate(LOOKS)
        ]
        pages = [p for _, p, _ in people]
        for i, (context, page, _) in enumerate(people):
            _register(context, srv.http, f"Match{i}")
            page.goto(srv.http + "/")
        # a guest is told ranked needs an account
        guest, guest_errors = new_page(browser)
        guest.goto(srv.http + "/")
        guest.wait_for_selector(".mm-need-account")
        assert guest.locator("input[name='mm-kind'][value='ranked']").is_disabled()
        guest.context.close()
        assert guest_errors == []

        for page in pages[:3]:
            _find(page)
        pages[0].wait_for_selector("[data-tier='general'] .n:text('3')")
        for (lang, look), page in zip(LOOKS[:3], pages[:3], strict=True):
            _shot(page, f"match-waiting-{lang}-{'phone' if look is PHONE else 'desktop'}")
        pages[2].click("#match-card .mm-cancel")  # cancel: unqueued
        _phase(pages[2], "idle")
        _find(pages[3])
        _shot(pages[3], "match-waiting-en-phone")
        pages[0].evaluate("window.__hidden = true")  # the first person looks elsewhere
        title = pages[0].title()
        _find(pages[2], completes_a_table=True)
        for page in pages:
            page.wait_for_selector("#match-card .mm-accept")
        # the hidden tab's title flashes (the page's title and the call back, in turn)
        seen = set()
        deadline = time.monotonic() + 10
        while len(seen) < 2 and time.monotonic() < deadline:
            seen.add(pages[0].title())
            time.sleep(0.1)
        assert seen == {title, "【匹配成功】" + title}, seen
        # the hidden tab beeped (two notes); the others, visible, did not
        assert [p.evaluate("window.__notes") for p in pages] == [2, 0, 0, 0]
        pages[0].evaluate(
            "window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))"
        )
        assert pages[0].title() == title
        time.sleep(1)
        assert pages[0].title() == title  # it stopped
        for (lang, look), page in zip(LOOKS, pages, strict=True):
            _shot(page, f"match-offered-{lang}-{'phone' if look is PHONE else 'desktop'}")
        # nothing was accepted for anyone: every card still offers the match
        assert all(p.locator("#match-card[data-phase='offered']").count() for p in pages)
        for page in pages:
            page.click("#match-card .mm-accept")
        for page in pages:
            page.wait_for_url("**/r/*", timeout=60_000)
        codes = {p.url.rsplit("/", 1)[1] for p in pages}
        seats = sorted(_seat(p) for p in pages)
        assert len(codes) == 1 and seats == [0, 1, 2, 3], (codes, seats)
        status, body = srv.get(f"/api/rooms/{codes.pop()}")
        assert status == 200 and json.loads(body)["kind"] == "ranked"
        for _, page, errors in people:
            assert errors == [], errors
            page.context.close()


def test_the_ranked_settlement_shows_rank_changes_and_match_again_queues(
    browser: Browser, db_url: str
) -> None:
    names = ["Rank0", "Rank1", "Rank2", "Rank3"]
    with InProcessServer(db_url) as srv:
        code, people = ranked_match_with_an_escape(browser, srv, names)
        pages = [p for _, p, _ in people]
        for page in pages[:3]:
            page.wait_for_selector(".match-end [data-standings]")
        pages[3].wait_for_selector(".finished [data-standings]")
        status, body = srv.get(f"/api/rooms/{code}/summary")
        booked = json.loads(body)["standings"]
        assert status == 200
        assert [(s["points_before"], s["points_after"], s["delta"]) for s in booked] == ESCAPED
        assert [s["rank_after"]["zh"] for s in booked] == ["二万", "白板", "一万", "白板"]
        words = {"zh": ("白板 → 二万", "+133⅓"), "en": ("White Dragon → 2 Characters", "+133⅓")}
        for (lang, _), page in zip(LOOKS, pages, strict=True):
            table = page.locator("[data-standings]")
            assert table.locator("tbody tr").count() == 4
            first = table.locator("tr[data-seat='0']")
            rank, delta = words[lang]
            assert rank in first.locator(".rank").inner_text()
            assert first.locator(".delta").inner_text() == delta
            assert "95 → 228⅓" in first.inner_text()
            escaper = table.locator("tr[data-seat='3']")
            assert escaper.locator(".delta").inner_text() == "-400"
            assert "-30 → -430" in escaper.inner_text()
        for (lang, look), page in zip(LOOKS, pages, strict=True):
            # for the screenshot only; the end screen may be redrawn meanwhile (its countdown), so
            # no wait for a stable element: scroll whichever table is there now
            page.evaluate("document.querySelector('[data-standings]')?.scrollIntoView()")
            _shot(page, f"ranked-settlement-{lang}-{'phone' if look is PHONE else 'desktop'}")
        # 再次匹配: leave the room, then queue again for the same preset and kind
        pages[0].click(".match-end [data-cmd='requeue']")
        pages[0].wait_for_url(srv.http + "/")
        _phase(pages[0], "queued")
        status, body = srv.get("/api/queue")
        assert json.loads(body)["queues"] == [
            {"preset": PRESET, "kind": "ranked", "tier": "general", "waiting": 1}
        ]
        for _, page, errors in people:
            assert errors == [], errors
            page.context.close()


def test_a_friendly_rooms_end_offers_play_again_with_the_same_settings_and_seat(
    browser: Browser, tmp_path: Path
) -> None:
    with ServerProcess(tmp_path / "db.sqlite3") as srv:
        page, errors = new_page(browser)
        old = create_room(page, srv.http, "Again", hands="1")
        seat = _seat(page)
        _play_out([page])
        button = page.locator(".match-end [data-cmd='again']")
        assert button.inner_text() in ("再来一局", "Play again")
        assert not page.locator(".match-end [data-cmd='requeue']").count()
        button.click()
        page.wait_for_url(lambda url: "/r/" in url and not url.endswith(old))
        new = page.url.rsplit("/", 1)[1]
        assert _seat(page) == seat
        before = json.loads(srv.get(f"/api/rooms/{old}")[1])
        after = json.loads(srv.get(f"/api/rooms/{new}")[1])
        assert after["kind"] == "friendly" and after["rules"] == before["rules"]
        assert after["table"] == before["table"] and after["table"]["hands"] == 1
        assert errors == [], errors
        page.context.close()


def test_a_guest_queues_casual_accepts_and_takes_its_kept_seat_by_token(
    browser: Browser, tmp_path: Path
) -> None:
    """A guest's matched seat is kept for its queue key: the card hands it to the table page as
    the seat's token (a plain join would be ``seat_reserved``)."""
    args = ("--casual-wait-seconds", "1", "--accept-seconds", "60")
    with ServerProcess(tmp_path / "db.sqlite3", args=args) as srv:
        page, errors = new_page(browser)
        page.goto(srv.http + "/")
        page.wait_for_selector(".mm-need-account")
        assert page.locator("input[name='mm-kind'][value='casual']").is_checked()
        page.select_option("#mm-preset", PRESET)
        page.click("#match-card .mm-go")
        page.wait_for_selector("#match-card .mm-accept", timeout=60_000)
        page.click("#match-card .mm-accept")
        page.wait_for_url("**/r/*", timeout=60_000)
        seat = _seat(page)
        code = page.url.rsplit("/", 1)[1]
        info = json.loads(srv.get(f"/api/rooms/{code}")[1])
        assert info["kind"] == "casual"
        kinds = [s["kind"] for s in info["seats"]]
        assert kinds.count("bot") == 3 and kinds[seat] == "human"
        assert errors == [], errors
        page.context.close()
