"""Debian's Chromium driven by Playwright for the web client's tests (issue 9).

The browser is the system's ``/usr/bin/chromium`` (``scripts/test.sh`` installs it and a CJK font
with apt-get when missing); Playwright's own browser downloads are never used. Screenshots go to
``$LAIZI_TEST_OUTPUT/web`` (default ``test-output/web`` in the repository), kept as artifacts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM = os.environ.get("LAIZI_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("LAIZI_TEST_OUTPUT", ROOT / "test-output")) / "web"
FAST_TABLE = {
    "bot_delay_ms": "5",
    "between_hands_ms": "5",
    "action_seconds": "600",
    "settlement_seconds": "0",  # the next hand at once (the settlement-that-stays tests set it)
}


def launch() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Browser, **options: Any) -> tuple[Page, list[str]]:
    """A page in a fresh context, and the list its console errors and page errors go to."""
    context = browser.new_context(**options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            # an HTTP error status the page handles (401 for a guest, 400 for a refused form) is
            # logged by the browser as "Failed to load resource"; anything else is a client bug
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.set_default_timeout(20_000)
    return page, errors


PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
"""A 390×844 phone held upright (issue 15's phone), for :func:`new_page`."""


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def create_room(
    page: Page, base: str, name: str = "Alice", preset: str | None = None, **table: str
) -> str:
    """Create a room from the lobby's form (one seat for people, bots fill the rest), of
    ``preset`` if given; its code."""
    page.goto(base + "/")
    page.wait_for_selector("#rules-cap", state="attached")
    page.fill("#player-name", name)
    open_more(page)
    if preset is not None:
        page.select_option("#preset", preset)
    for key, value in {**FAST_TABLE, **table}.items():
        field = page.locator(f"#table-{key}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.click("#create-room")
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".board")
    return page.url.rsplit("/", 1)[1]


def open_more(page: Page) -> None:
    """Unfold the lobby's 更多设置 / More settings (every setting but quick play's two)."""
    if not page.locator("#more-settings[open]").count():
        page.click("#more-settings summary")


def press_continue(page: Page) -> bool:
    """Press the open settlement's 继续 / Continue if it is there (it may close by itself)."""
    button = page.locator(".settlement.open .continue")
    if not button.count():
        return False
    try:
        button.click(timeout=2000)
    except PlaywrightTimeout:
        return False
    return True


def click_once(page: Page, go_on: bool = True) -> bool:
    """Answer the pending prompt by clicking, as a careful player would; False if none is open.

    A win is always taken; a claim is passed; on a turn the drawn tile (else the last tile) is
    discarded — a laizi or must-gang tile that must go is laid out the same way.  ``go_on``: an
    open settlement's 继续 is pressed too (a test of the settlement itself says False: the
    settlement may open between its look and this click).
    """
    actions = page.locator(".actions[data-prompt]")
    if go_on and press_continue(page):  # the settlement stays: go on
        return True
    if not actions.count():
        return False
    prompt = actions.get_attribute("data-prompt")
    check_buttons(page)
    if page.locator("button.act-win").count():
        page.click("button.act-win")
    elif page.locator("button.act-pass").count():
        page.click("button.act-pass")
    elif page.locator("button[data-discard]").count():
        page.locator("button[data-discard]").last.click()
        if page.locator(".my-hand.tap-two .tile-btn.raised").count():  # tap twice: raised, now go
            page.locator(".tile-btn.raised").click()
    else:
        page.locator("button.act").first.click()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = page.locator(".actions[data-prompt]")
        if not now.count() or now.get_attribute("data-prompt") != prompt:
            return True
        time.sleep(0.02)
    raise AssertionError(f"prompt {prompt} was not answered")


BUTTONS = """
() => {
  const page = window.laiziPage;
  if (!page || !page.prompt) return null;
  const key = (a) => [a.type, a.tile || "", a.tiles || ""].join(" ");
  const legal = page.prompt.legal.map(key).sort();
  const shown = [...document.querySelectorAll(".actions button[data-act]")].map((b) =>
    [b.dataset.type, b.dataset.tile || "", b.dataset.tiles || ""].join(" "));
  const discards = new Set([...document.querySelectorAll(".my-hand button[data-discard]")]
    .map((b) => `discard ${b.dataset.discard} `));
  return { legal, shown: [...shown, ...discards].sort(), prompt: page.prompt.id };
}
"""


def check_buttons(page: Page) -> None:
    """The page offers exactly the prompt's legal actions: one button each (a chow per sequence),
    a discard as a clickable tile of the hand."""
    seen = page.evaluate(BUTTONS)
    if seen is None:
        return
    assert seen["shown"] == seen["legal"], seen


def play_until(page: Page, done: str, limit: int = 400) -> int:
    """Click through prompts until the selector ``done`` appears; returns the clicks made."""
    clicks = 0
    deadline = time.monotonic() + 240
    while not page.locator(done).count():
        if time.monotonic() > deadline or clicks > limit:
            raise AssertionError(f"{done} never appeared after {clicks} clicks")
        if click_once(page):
            clicks += 1
        else:
            time.sleep(0.03)
    return clicks


STATE = """
() => {
  const p = window.laiziPage;
  if (!p || !p.model) return null;
  return JSON.parse(JSON.stringify({
    seat: p.seat, hints: p.hints, prompt: p.prompt, hand: p.model.hand_tiles || [],
    laizi: p.model.laizi || null, players: p.model.players || null, room: p.room,
    dealer: p.model.dealer, indicator: p.model.indicator || null,
    must_gang: p.model.must_gang || [],
  }));
}
"""


def table_state(page: Page) -> dict[str, Any] | None:
    """The page's own picture: seat, hints, pending prompt, hand, laizi, players, room."""
    return page.evaluate(STATE)  # type: ignore[no-any-return]


def greedy_once(page: Page, take_win: bool = True) -> bool:
    """Answer the pending prompt as a player chasing a ready hand: a win (if ``take_win``); a pung
    (it opens the hand); tiles that must be laid out, laid out; else the discard that leaves the
    fewest tiles to ready (the project's analyser). False if no prompt is open."""
    from laizi.hand import shanten_after_discard
    from laizi.tiles import count_vector, parse_tile

    if press_continue(page):  # the settlement stays: go on
        return True
    state = table_state(page)
    if not state or not state["prompt"] or not page.locator(".actions[data-prompt]").count():
        return False
    prompt = state["prompt"]
    legal = prompt["legal"]
    kinds = {a["type"] for a in legal}
    index = None
    if "win" in kinds and take_win:
        index = next(i for i, a in enumerate(legal) if a["type"] == "win")
    elif "pung" in kinds:
        index = next(i for i, a in enumerate(legal) if a["type"] == "pung")
    elif "lay_out" in kinds:
        index = next(i for i, a in enumerate(legal) if a["type"] == "lay_out")
    elif "pass" in kinds:
        index = next(i for i, a in enumerate(legal) if a["type"] == "pass")
    if index is not None:
        page.click(f".actions button[data-act='{index}']")
    elif "discard" in kinds:
        laizi = parse_tile(state["laizi"]) if state["laizi"] else None
        after = shanten_after_discard(count_vector(parse_tile(x) for x in state["hand"]), laizi)
        options = [a["tile"] for a in legal if a["type"] == "discard"]
        best = min(options, key=lambda x: (after[parse_tile(x)] is None, after[parse_tile(x)] or 0))
        page.locator(f"button[data-discard='{best}']").first.click()
        if page.locator(".my-hand.tap-two .tile-btn.raised").count():
            page.locator(".tile-btn.raised").click()
    else:
        page.locator("button.act").first.click()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = page.locator(".actions[data-prompt]")
        if not now.count() or now.get_attribute("data-prompt") != str(prompt["id"]):
            return True
        time.sleep(0.02)
    raise AssertionError(f"prompt {prompt['id']} was not answered")
