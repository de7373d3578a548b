"""The settlement view in the browser: caps and contracts line by line (RULES.md A7, A9).

The client's own ``settle.js`` renders settlements computed by ``laizi.scoring`` for the worked
examples in ``examples/score``; every amount on the page must be the settlement's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from laizi.scoring import score, situation_from_json
from tests.server_helpers import ServerProcess
from tests.web_browser import launch, new_page

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "score"

RENDER = """
async ([end, lang]) => {
  localStorage.setItem("laizi.lang", lang);
  const i18n = await import('/web/i18n.js');
  i18n.setLang(lang);
  const s = await import('/web/settle.js');
  const box = document.createElement('div');
  box.id = 'settle-under-test';
  document.body.replaceChildren(box);
  const room = { seats: [0, 1, 2, 3].map((seat) => ({ seat, name: 'P' + seat })) };
  s.renderSettlement(box, {
    end, room, dealer: 0, commitment: null, hand: 0, code: 'TEST', mySeat: null });
}
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    browsers: Iterator[Browser] = launch()
    browser = next(browsers)
    with ServerProcess(tmp_path_factory.mktemp("settle") / "db.sqlite3") as server:
        page, errors = new_page(browser)
        page.goto(server.http + "/web/index.html")
        yield page
        assert errors == []
    browsers.close()


def settled(name: str) -> dict[str, Any]:
    settlement = score(situation_from_json(json.loads((EXAMPLES / f"{name}.json").read_text())))
    data = json.loads(json.dumps(settlement.to_json()))
    winner = next(i for i, raw in enumerate(data["raw"]) if raw is None)
    return {
        "type": "end",
        "reason": "win",
        "winner": winner,
        "payments": data["payments"],
        "settlement": data,
        "hands": [],
        "seed": None,
    }


def cells(page: Page, seat: int) -> list[str]:
    return page.locator(f"#settle-under-test tr[data-seat='{seat}'] > *").all_inner_texts()


def test_seed_000_worked_example_line_by_line(page):
    end = settled("a7-example1-seed000")
    page.evaluate(RENDER, [end, "zh"])
    # RULES.md A7 example 1: A −16, B −64, C −32, D +112 (D wins small and hard).
    assert [cells(page, s)[-1] for s in range(4)] == ["-16", "-64", "-32", "+112"]
    a = cells(page, 0)
    assert "放冲 ×2" in a[1] and "开口(1) ×2" in a[1] and "M 4" in a[1]
    assert a[2].replace("\n", " ") == "1 × 4 × 4 = 16"
    b = cells(page, 1)
    assert "红中杠 ×2" in b[1] and "癞子杠 ×2" in b[1] and "M 16" in b[1]
    assert "硬胡" in page.inner_text("#settle-under-test .verdict")
    assert page.inner_text("#settle-under-test .contract") == "承包: 无"


def test_golden_cap_and_the_one_suit_contract(page):
    end = settled("golden-cap-sanjubao")
    page.evaluate(RENDER, [end, "en"])
    for seat in (0, 1, 2):
        row = cells(page, seat)
        assert row[2].replace("\n", " ").endswith("= 480")
        assert row[3].replace("\n", " ") == "golden cap → 400"
    # the liable seat's contract cell, in the server's words (laizi.rules.wuhan.explain)
    assert cells(page, 0)[4] == "one-suit, third opening"
    assert [cells(page, s)[-1] for s in range(4)] == ["-1200", "0", "0", "+1200"]
    assert "P0 alone pays 1200" in page.inner_text("#settle-under-test .contract")


def test_all_from_others_contract(page):
    end = settled("quanqiuren-contract")
    page.evaluate(RENDER, [end, "en"])
    assert [cells(page, s)[-1] for s in range(4)] == ["0", "-200", "0", "+200"]
    assert "all-from-others" in cells(page, 1)[4]
    assert [cells(page, s)[3] for s in (0, 1, 2)] == ["40", "120", "40"]


RENDER_AT_TABLE = """
async ([end, lang, model, win]) => {
  localStorage.setItem("laizi.lang", lang);
  const i18n = await import('/web/i18n.js');
  i18n.setLang(lang);
  const s = await import('/web/settle.js');
  const box = document.createElement('div');
  box.id = 'settle-under-test';
  document.body.replaceChildren(box);
  const room = { seats: [0, 1, 2, 3].map((seat) => ({ seat, name: 'P' + seat })) };
  s.renderSettlement(box, {
    end, room, dealer: 0, commitment: null, hand: 0, code: 'TEST', mySeat: null, model, win });
}
"""


def test_the_winners_hand_with_its_melds_the_winning_tile_and_the_laizi(page):
    """How and on which tile; the winner's concealed tiles, melds, the winning tile set apart and
    highlighted, the laizi marked; every loser's hand and melds too (issue 15)."""
    example = json.loads((EXAMPLES / "a7-example1-seed000.json").read_text())
    end = settled("a7-example1-seed000")
    end["hands"] = ["1199m", "2345p", "5566s", "123456789m5p"]  # as an end event reveals them
    players = [
        {"melds": p.get("melds", []), "laid_out": ["7z", "6m"] if i == 1 else []}
        for i, p in enumerate(example["players"])
    ]
    model = {"laizi": "6m", "must_gang": ["7z"], "players": players}
    win = {"type": "win", "seat": 3, "how": "discard", "tile": "5p", "from": 0}
    page.evaluate(RENDER_AT_TABLE, [end, "zh", model, win])
    how = page.inner_text("#settle-under-test .how")
    assert "点炮（P0 放冲）" in how and "胡 五筒" in how
    winner = page.locator("#settle-under-test .reveal[data-seat='3']")
    assert winner.locator(".win-tile .tile-win[data-tile='5p']").count() == 1
    assert winner.locator(".tiles > .tile").count() == 10  # concealed; the discard set apart
    assert winner.locator(".meld .tile").count() == 3  # the chow 234p
    assert winner.locator(".tile-laizi[data-tile='6m']").count() == 1
    loser = page.locator("#settle-under-test .reveal[data-seat='1']")
    assert loser.locator(".meld").count() == 2
    assert loser.locator(".laid .tile-gang[data-tile='7z']").count() == 1
    assert loser.locator(".laid .tile-laizi[data-tile='6m']").count() == 1
    page.evaluate(RENDER_AT_TABLE, [end, "en", model, win])
    assert "on P0's discard" in page.inner_text("#settle-under-test .how")


def test_thirds_show_as_fractions_never_as_floats(page):
    """An escape's 400 shared by three: 133⅓ each, whether sent exactly or as a decimal."""
    end = {
        "type": "end",
        "reason": "abandon",
        "seat": 0,
        "winner": None,
        "payments": [-400, 400 / 3, 400 / 3, 400 / 3],
        "payments_exact": ["-400", "400/3", "400/3", "400/3"],
        "hands": [],
        "seed": None,
    }
    page.evaluate(RENDER_AT_TABLE, [end, "zh", None, None])
    assert [cells(page, s)[-1] for s in range(4)] == ["-400", "133⅓", "133⅓", "133⅓"]
    del end["payments_exact"]
    end["payments"] = [-400, 400 / 3, 800 / 3, 0]
    page.evaluate(RENDER_AT_TABLE, [end, "en", None, None])
    assert [cells(page, s)[-1] for s in range(4)] == ["-400", "133⅓", "266⅔", "0"]
    assert "133.3" not in page.inner_text("#settle-under-test")


def test_a_drawn_baishan_hand_says_the_kong_payments_stand(page):
    end = {
        "type": "end",
        "reason": "drawn",
        "winner": None,
        "payments": [-2, -2, 6, -2],
        "kong_payments": [-2, -2, 6, -2],
        "hands": ["", "", "", ""],
        "seed": None,
    }
    page.evaluate(RENDER_AT_TABLE, [end, "zh", None, None])
    assert page.inner_text("#settle-under-test [data-kong-line]") == "荒庄：杠钱照付"
    assert "不计分" not in page.inner_text("#settle-under-test")
    assert [cells(page, s)[1] for s in range(4)] == ["-2", "-2", "6", "-2"]  # the kongs column
    end["kong_payments"] = [0, 0, 0, 0]
    end["payments"] = [0, 0, 0, 0]
    page.evaluate(RENDER_AT_TABLE, [end, "en", None, None])
    assert page.locator("#settle-under-test [data-kong-line]").count() == 0
    assert "nobody pays" in page.inner_text("#settle-under-test")


def test_a_baishan_win_is_laid_out_by_fans_in_the_servers_words(page):
    """The layout the game's words name (`settlement: "fans"`): each seat's fans, base ×
    2^(winner's + its fans), the cap, the kongs apart (RULES.md B)."""
    end = settled("baishan-qidui")
    page.evaluate(RENDER, [end, "zh"])
    assert [cells(page, s)[-1] for s in range(4)] == ["-64", "+192", "-64", "-64"]
    dealer = cells(page, 0)
    assert dealer[1].replace("\n", " ") == "坐庄 +1 → 1 番"
    assert dealer[2].replace("\n", " ") == "1 × 2^(6+1) = 128"
    assert dealer[3].replace("\n", " ") == "封顶 → 64"
    assert "七对" in page.inner_text("#settle-under-test .verdict")
    page.evaluate(RENDER, [end, "en"])
    assert cells(page, 1)[1].replace("\n", " ") == "seven pairs +6 → 6 fans"
    assert cells(page, 3)[3] == "64"
