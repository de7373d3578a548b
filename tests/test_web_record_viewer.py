"""The record viewer in a real browser (Debian's Chromium, headless; issue 28 item 5): the page
``laizi replay FILE --html OUT`` writes, opened from file://, and /replay/file on a real server
with a record or an events log chosen or dropped — read in the browser, never sent."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Request

from laizi.engine.record import parse_record
from tests.cli_helpers import ROOT, run
from tests.page_scan import scan
from tests.server_helpers import ServerProcess
from tests.web_browser import launch, new_page, shot

FIXTURES = ROOT / "tests" / "js" / "fixtures"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("viewer") / "db.sqlite3") as srv:
        yield srv


def _requests(page: Page) -> list[Request]:
    seen: list[Request] = []
    page.on("request", lambda request: seen.append(request))
    return seen


def _backs(page: Page, seat: int) -> int:
    return page.locator(f".seat[data-seat='{seat}'] .open-hand .tile-back").count()


def test_the_written_page_opens_from_file_and_steps_with_no_request(browser, tmp_path):
    out = tmp_path / "wuhan.html"
    assert run("replay", str(FIXTURES / "wuhan.jsonl"), "--html", str(out)).returncode == 0
    record = parse_record((FIXTURES / "wuhan.jsonl").read_text(encoding="utf-8"))
    page, errors = new_page(browser)
    requests = _requests(page)
    page.goto(out.as_uri())
    page.wait_for_selector(".replay .open-hand")
    assert page.get_attribute(".step", "data-step-no") == "0"
    dealt = record[1]["hands"]
    for seat in range(4):  # all hands: every tile of the deal face up
        tiles = page.locator(f".seat[data-seat='{seat}'] .open-hand .tile").count()
        assert tiles == sum(c.isdigit() for c in dealt[seat]) and _backs(page, seat) == 0
    assert page.locator(".wall b").inner_text() == "82"  # the engine's frames: tiles left
    page.click("[data-step=next]")
    page.click("[data-step=next]")
    assert page.get_attribute(".step", "data-step-no") == "2"
    page.click("[data-step=prev]")
    assert page.get_attribute(".step", "data-step-no") == "1"
    # seat 2's view: its own hand open, the others face down; its next decision
    page.select_option("select[data-view]", "2")
    page.click("[data-decision=next]")
    step = int(page.get_attribute(".step", "data-step-no") or -1)
    frames = json.loads(page.evaluate("document.getElementById('laizi-replay').textContent"))[
        "hands"
    ][0]["frames"]
    assert step == next(i for i, f in enumerate(frames) if i > 1 and f["actor"] == 2)
    assert page.locator(".decision").get_attribute("data-legal") == str(frames[step]["legal"])
    assert _backs(page, 2) == 0 and all(_backs(page, s) > 0 for s in (0, 1, 3))
    shot(page, "record-viewer-seat-view")
    scan(page, "en", "written page", allow=["wuhan.jsonl"])
    page.click("#lang")
    assert "步" in page.inner_text(".step") and page.get_attribute(".step", "data-step-no") == str(
        step
    )
    scan(page, "zh", "written page", allow=["wuhan.jsonl"])
    page.click("#lang")
    page.click("[data-step=last]")
    page.wait_for_selector(".replay .settlement table.settle")
    assert "all from others" in page.inner_text(".settlement .verdict")
    assert all(_backs(page, s) == 0 for s in range(4))  # the end shows every hand
    assert [r.url for r in requests if not r.url.startswith(("file:", "data:"))] == []
    assert errors == []


def test_a_file_opened_on_the_server_page_is_read_in_the_browser_never_sent(
    server, browser, tmp_path
):
    page, errors = new_page(browser)
    page.goto(server.http + "/")
    page.click("#open-record")
    page.wait_for_url("**/replay/file")
    requests = _requests(page)
    page.set_input_files("#record-file", str(FIXTURES / "baishan.seat1.mjson"))
    page.wait_for_selector(".replay .open-hand")
    assert page.locator(".file-note").inner_text().startswith("This log is what seat 1 saw")
    assert page.input_value("select[data-view]") == "1"  # a seat's log opens in its view
    page.click("[data-step=next]")
    assert _backs(page, 1) == 0 and all(_backs(page, s) > 0 for s in (0, 2, 3))
    assert page.locator("[data-draws]").count() == 1  # no rules here: draws, not tiles left
    page.click("[data-decision=next]")
    assert page.locator(".decision").count() == 0  # no legal counts in a file
    page.click("[data-step=last]")
    page.wait_for_selector(".replay .settlement table.settle")
    assert "standard hand" in page.inner_text(".settlement .verdict")
    name = ["baishan.seat1.mjson"]
    scan(page, "en", "file page", allow=name)
    page.click("#lang")
    scan(page, "zh", "file page", allow=name)
    page.click("#lang")
    # a match's record by drag-and-drop: a hand selector, and the record's seed checked
    text = (FIXTURES / "wuhan.jsonl").read_text(encoding="utf-8")
    page.evaluate(
        """(text) => {
          const data = new DataTransfer();
          data.items.add(new File([text], "match.jsonl"));
          document.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
        }""",
        text + text.replace('"hand":0', '"hand":1'),
    )
    page.wait_for_selector("select[data-hand]")
    assert page.locator("select[data-hand] option").count() == 2
    assert "match.jsonl" in page.inner_text(".room-bar")
    page.click("[data-step=last]")
    page.wait_for_selector(".seed-check[data-state=ok]", state="attached")  # in the folded proof
    shot(page, "record-viewer-file")
    # a bad file: the reason, in the reader's language
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "start"}\nnot json\n', encoding="utf-8")
    page.set_input_files("#record-file", str(bad))
    page.wait_for_selector("[data-file-error]")
    assert "line 2 is not JSON" in page.inner_text("[data-file-error]")
    page.click("#lang")
    assert "第 2 行不是 JSON" in page.inner_text("[data-file-error]")
    scan(page, "zh", "a bad file", allow=["bad.jsonl"])
    page.click("#lang")
    sent = [r for r in requests if r.method != "GET" or r.post_data]
    assert sent == [] and not any("mjson" in r.url or "jsonl" in r.url for r in requests)
    assert errors == []
