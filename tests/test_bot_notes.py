"""The table setting ``explain_bots`` and the bot level ``expert`` against a real server
(issue 17): a bot's reasons reach every viewer once the hand is over, never during it."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from laizi.engine import parse_record
from tests.server_helpers import Client, ServerProcess, play

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("notes") / "db.sqlite3"
    with ServerProcess(path, args=("--message-rate", "100000", "--message-burst", "100000")) as srv:
        yield srv


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 180))


def _play_one(server: ServerProcess, **table: Any) -> tuple[dict[str, Any], Client]:
    room = server.create_room("wuhan-hongzhong-kaikou", players=1, hands=1, **FAST, **table)

    async def main() -> Client:
        client = await Client.connect(server.ws)
        await client.join(room["code"])
        await play(client, random.Random(7))
        await asyncio.sleep(0.2)  # anything sent right after the match's end
        await client.close()
        return client

    return room, _run(main())


def test_the_lobby_schema_offers_expert_and_explain_bots(server: ServerProcess) -> None:
    status, body = server.get("/api/settings/schema")
    assert status == 200
    fields = {f["key"]: f for f in json.loads(body)["table"]["fields"]}
    level = {c["value"]: c["label"] for c in fields["bot_level"]["choices"]}
    assert level["expert"] == {"zh": "专家", "en": "Expert"}  # a word (issue 27)
    explain = fields["explain_bots"]
    assert explain["type"] == "bool"
    assert explain["label"] == {"zh": "机器人说明理由", "en": "Bots explain their decisions"}
    assert json.loads(body)["table"]["defaults"]["explain_bots"] is False


def test_expert_bots_explain_their_moves_after_the_hand(server: ServerProcess) -> None:
    room, client = _play_one(server, bot_level="expert", explain_bots=True)
    messages = client.messages
    notes = [m for m in messages if m["type"] == "bot_note"]
    assert notes, "three expert bots made no note in a whole hand"
    end = next(
        i for i, m in enumerate(messages) if m["type"] == "event" and m["event"]["type"] == "end"
    )
    first_note = next(i for i, m in enumerate(messages) if m["type"] == "bot_note")
    assert first_note > end  # nothing is told while the hand is played
    status, body = server.get(f"/api/rooms/{room['code']}/hands/0")
    assert status == 200
    record = parse_record(body.decode())
    for note in notes:
        assert set(note) == {"type", "hand", "seat", "seq", "en", "zh"}
        assert note["hand"] == 0 and note["seat"] != client.seat
        assert note["en"] and note["zh"] and note["en"] != note["zh"]
        event = record[note["seq"]]  # the first event the decision produced
        assert event.get("seat") == note["seat"], (note, event)


def test_no_notes_without_the_setting(server: ServerProcess) -> None:
    _, client = _play_one(server, bot_level="expert")
    assert not [m for m in client.messages if m["type"] == "bot_note"]


def test_a_bad_explain_bots_value_is_refused(server: ServerProcess) -> None:
    status, body = server.post(
        "/api/rooms", {"rules": "baishan", "table": {"explain_bots": "yes please"}}
    )
    assert status == 400 and "explain_bots" in json.dumps(body)


def test_notes_are_kept_for_the_room() -> None:
    from laizi.server.bot_notes import KEPT_HANDS, BotNotes

    sent: list[dict[str, Any]] = []
    events = [{"type": "start"}, {"type": "deal"}]
    hand = [3]
    notes = BotNotes(
        True, live=lambda: True, hand=lambda: hand[0], seq=lambda: len(events), tell=sent.extend
    )

    class _Bot:
        def __init__(self) -> None:
            self.last_note = {"en": "x" * 500, "zh": "弃和"}

    notes.take(2, _Bot())
    notes.take(1, object())  # no note: nothing kept
    assert sent == []
    notes.flush()
    note = {"type": "bot_note", "hand": 3, "seat": 2, "seq": 2, "en": "x" * 200, "zh": "弃和"}
    assert sent == [note]
    assert notes.of(3) == [note] and notes.of(4) == []
    notes.flush()  # flushed once only
    assert len(sent) == 1
    for hand[0] in range(4, 4 + KEPT_HANDS):  # the last KEPT_HANDS hands are kept
        notes.take(0, _Bot())
        notes.flush()
    assert notes.of(3) == [] and notes.of(4 + KEPT_HANDS - 1) != []
    quiet = BotNotes(False, live=lambda: True, hand=lambda: 0, seq=lambda: 0, tell=sent.extend)
    quiet.take(0, _Bot())  # explain_bots off: nothing kept
    quiet.flush()
    assert len(sent) == 1 + KEPT_HANDS and quiet.of(0) == []


# --- the web client's panel (laizi/web/static/botnotes.js) in a real browser -------------------

SHOW_NOTES = """
async ([lang, messages]) => {
  localStorage.setItem("laizi.lang", lang);
  const i18n = await import("/web/i18n.js");
  i18n.setLang(lang);
  const notes = await import("/web/botnotes.js");
  notes.feedBotNotes(messages);
  const panel = document.getElementById("bot-notes");
  return {
    summary: panel.querySelector("summary").textContent,
    items: Array.from(panel.querySelectorAll("li"), (li) => li.textContent),
  };
}
"""


def test_the_web_client_lists_the_last_hands_notes_in_both_languages(tmp_path_factory) -> None:
    from tests.web_browser import launch, new_page

    old = {"type": "bot_note", "hand": 0, "seat": 1, "seq": 5, "en": "old", "zh": "旧"}
    fold = {
        "type": "bot_note",
        "hand": 1,
        "seat": 2,
        "seq": 40,
        "en": "folded: seat 1 has ×8 and looks ready; threw 1s instead of 5p",
        "zh": "弃和：1号位×8且像已听牌；打1s不打5p",
    }
    other = {"type": "event", "seq": 3, "event": {"type": "draw"}}
    with ServerProcess(tmp_path_factory.mktemp("notes-web") / "db.sqlite3") as server:
        for browser in launch():
            page, errors = new_page(browser)
            page.goto(server.http + "/web/index.html")
            shown = page.evaluate(SHOW_NOTES, ["en", [old, other, fold]])
            assert shown == {
                "summary": "Why the bots played so (hand 2)",
                "items": ["seat 2 folded: seat 1 has ×8 and looks ready; threw 1s instead of 5p"],
            }
            page2, errors2 = new_page(browser)
            page2.goto(server.http + "/web/index.html")
            shown = page2.evaluate(SHOW_NOTES, ["zh", [fold]])
            assert shown == {
                "summary": "机器人的理由（第 2 局）",
                "items": ["2号位 弃和：1号位×8且像已听牌；打1s不打5p"],
            }
            assert errors == [] and errors2 == []


def test_the_lobby_offers_the_expert_level_in_both_languages(tmp_path_factory) -> None:
    from tests.web_browser import launch, new_page, open_more

    with ServerProcess(tmp_path_factory.mktemp("notes-lobby") / "db.sqlite3") as server:
        for browser in launch():
            for lang, expert, label in (("zh", "专家", "机器人说明理由"), ("en", "Expert", "Bots")):
                page, errors = new_page(browser)
                page.add_init_script(f"localStorage.setItem('laizi.lang', '{lang}')")
                page.goto(server.http + "/")
                page.wait_for_selector("#more-settings summary")
                open_more(page)  # the table's settings are folded under 更多设置 / More
                page.wait_for_selector("#table-bot_level")
                options = page.locator("#table-bot_level option").all_inner_texts()
                assert options[-1] == expert, options
                assert not page.locator("#table-explain_bots").is_checked()
                assert label in page.locator(".table-fields").inner_text()
                assert errors == []


# --- the replay (laizi/web/static/replaynotes.js): each note at the step of its decision -------


def test_the_replay_shows_each_note_at_its_step_in_both_languages(server: ServerProcess) -> None:
    from laizi.web.replay import frames
    from tests.web_browser import launch, new_page

    room, _client = _play_one(server, bot_level="expert", explain_bots=True)
    code = room["code"]
    status, body = server.get(f"/api/rooms/{code}/hands/0/notes")
    assert status == 200
    notes = json.loads(body)["notes"]
    assert notes and all(n["type"] == "bot_note" and n["hand"] == 0 for n in notes)
    status, body = server.get(f"/api/rooms/{code}/hands/0")
    steps = frames(parse_record(body.decode()))
    # The step a note belongs to is the one its decision starts: a frame's first event.
    starts = {step["first"]: i for i, step in enumerate(steps) if i > 0}
    at: dict[int, list[dict[str, Any]]] = {}
    for note in notes:
        at.setdefault(starts[note["seq"]], []).append(note)
    quiet = next(i for i in range(len(steps)) if i not in at)
    status, body = server.get(f"/api/rooms/{code}/hands/5/notes")  # no such hand: none
    assert status == 200 and json.loads(body) == {"notes": []}
    status, body = server.get("/api/rooms/NOSUCH/hands/0/notes")
    assert status == 200 and json.loads(body) == {"notes": []}
    picked = sorted(at)[:2] + sorted(at)[-1:]
    heading = {"zh": "机器人的理由", "en": "Why the bot played so"}
    seat = {"zh": "{0}号位", "en": "seat {0}"}
    for browser in launch():
        for lang in ("zh", "en"):
            page, errors = new_page(browser)
            # (about:blank has no localStorage: the script only sets it on the server's pages)
            page.add_init_script(
                f"if (location.protocol === 'http:') localStorage.setItem('laizi.lang', '{lang}')"
            )
            for step in [*picked, quiet]:
                page.goto("about:blank")  # a new load each time (a changed #step alone is not)
                page.goto(f"{server.http}/replay/{code}/0#step={step}")
                page.wait_for_selector(f'[data-step-no="{step}"]')
                shown = page.locator(".bot-notes-step li").all_inner_texts()
                expected = [f"{seat[lang].format(n['seat'])} {n[lang]}" for n in at.get(step, [])]
                assert shown == expected, (lang, step)
                if expected:
                    assert page.locator(".bot-notes-step span").inner_text() == heading[lang]
            # stepping with the buttons moves the notes along
            page.goto("about:blank")
            page.goto(f"{server.http}/replay/{code}/0#step={picked[0] - 1}")
            page.wait_for_selector(f'[data-step-no="{picked[0] - 1}"]')
            page.click('button[data-step="next"]')
            page.wait_for_selector(f'[data-step-no="{picked[0]}"]')
            first = at[picked[0]][0]
            assert page.locator(".bot-notes-step li").first.inner_text() == (
                f"{seat[lang].format(first['seat'])} {first[lang]}"
            )
            assert errors == []
