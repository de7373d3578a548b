"""The client's model of a hand (``laizi/web/static/model.js``) shows what the server sent.

The browser runs the client's own module: it is fed each seat's event stream exactly as the
server's rooms send it (``as_streamed`` then ``seat_event``) and, after every decision, its
picture of the table — own hand, every seat's hand size, melds, tiles laid out, discards, claimed
discards, openings, multiplier with its factors, tiles left, turn — must equal ``view(state,
seat)``.  The multipliers are the server's (the ruleset's, the settlement's code), and so are
the tiles a normal draw may still take (``live``, after the 海底 reserve): the client computes
neither, it keeps the last ones that arrived.  Random and greedy players reach kongs,
lay-outs, chows, robbed kongs and the 海底 round.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from laizi.bots import make_bot
from laizi.engine import legal_actions, make_ruleset, seat_event, view
from laizi.engine.view import as_streamed
from laizi.tiles import format_tile, parse_tiles
from laizi.web.routes import STATIC
from tests.engine_helpers import apply_json, deal_json
from tests.server_helpers import ServerProcess
from tests.web_browser import launch, new_page

PRESETS = ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "wuhan-facai-kaikou", "baishan")


def projection(v: dict[str, Any]) -> dict[str, Any]:
    """What the table shows of a view, in the form the browser's projection gives."""
    out: dict[str, Any] = {
        "dealer": v["dealer"],
        "turn": v["turn"],
        "tiles_left": v["tiles_left"],
        "live": v["live"],
        "laizi": v["laizi"],
        "indicator": v["indicator"],
        "players": [
            {
                **{
                    k: p[k]
                    for k in ("hand_size", "melds", "laid_out", "discards", "claimed", "openings")
                },
                # a game without multipliers (Baishan) has none in the view and none in the model
                "multiplier": p.get("multiplier"),
            }
            for p in v["players"]
        ],
    }
    out["hand"] = [format_tile(t) for t in sorted(parse_tiles(v["concealed"]))]
    out["phase"] = v["phase"]
    return out


def hands(count: int) -> list[dict[str, Any]]:
    """Random and greedy hands: batches of (the decision's events as the server streams them,
    every seat's projection after it)."""
    out = []
    for k in range(count):
        preset = PRESETS[k % len(PRESETS)]
        rng = random.Random(k)
        bots = [make_bot("greedy", preset, seed=k * 4 + s) for s in range(4)]
        state, first = deal_json(make_ruleset(preset), dealer=k % 4, seed=bytes([k + 1]) * 32)
        batches: list[list[Any]] = [
            [as_streamed(state, first), [projection(view(state, s)) for s in range(4)]]
        ]
        while not state.over:
            seat = state.to_act()[0]
            legal = legal_actions(state, seat)
            action = rng.choice(legal) if k % 2 else bots[seat].act(view(state, seat), legal)
            events = as_streamed(state, apply_json(state, action))
            batches.append([events, [projection(view(state, s)) for s in range(4)]])
        out.append({"preset": preset, "batches": batches})
    return out


CHECK = """
async ([seat, hands]) => {
  const m = await import('/web/model.js');
  const t = await import('/web/tiles.js');
  let checked = 0;
  for (const [h, batches] of hands.entries()) {
    const model = { seat };
    for (let [b, [events, want]] of batches.entries()) {
      for (const event of events) m.applyEvent(model, event);
      const players = model.players.map((p) => ({
        hand_size: p.hand_size, melds: p.melds, laid_out: p.laid_out, discards: p.discards,
        claimed: p.claimed, openings: p.openings, multiplier: p.multiplier }));
      let got = {
        dealer: model.dealer, turn: model.turn, tiles_left: model.tiles_left, live: model.live,
        laizi: model.laizi, indicator: model.indicator, players,
        hand: t.sortTiles(model.hand_tiles),
      };
      if (want.phase === "over") {
        // A finished hand shows concealed kongs and every hand: the table shows the settlement
        // then. Its multipliers are still on the seats: the settlement's own.
        got = { multipliers: players.map((p) => p.multiplier) };
        want = { multipliers: want.players.map((p) => p.multiplier) };
      } else {
        delete want.phase;
      }
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        return { hand: h, seat, batch: b, got, want };
      }
      checked += 1;
    }
  }
  return { checked };
}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[Page]:
    with ServerProcess(tmp_path_factory.mktemp("model") / "db.sqlite3") as server:
        page, errors = new_page(browser)
        page.goto(server.http + "/web/index.html")
        yield page
        assert errors == []


def test_the_client_model_equals_the_engine_view_after_every_decision(page):
    data = hands(8)
    results = []
    for seat in range(4):
        streams = [
            [
                [[e for e in (seat_event(ev, seat) for ev in events) if e is not None], want[seat]]
                for events, want in hand["batches"]
            ]
            for hand in data
        ]
        results.append(page.evaluate(CHECK, [seat, json.loads(json.dumps(streams))]))
    for result in results:
        assert "checked" in result, _diff(result)
    assert sum(r["checked"] for r in results) > 4 * 8 * 20
    ends = [hand["batches"][-1][0][-1] for hand in data]
    settled = [e for e in ends if e.get("settlement") and "multipliers" in e["settlement"]]
    assert settled, "no Wuhan hand was won: the settlement's multipliers went unchecked"
    for end in settled:  # the last multipliers a seat is sent are the ones that were paid
        assert end["multipliers"] == end["settlement"]["multipliers"]


SHOWN = """
async (events) => {
  const m = await import('/web/model.js');
  const model = { seat: 0 };
  const seen = [];
  for (const event of events) {
    m.applyEvent(model, event);
    seen.push({ multipliers: model.players.map((p) => p.multiplier), live: model.live });
  }
  return seen;
}
"""


def test_the_client_keeps_the_multipliers_it_was_sent_and_computes_none(page):
    """Numbers no rule would give (a ×3 on a seat that is not the dealer, a pung that does not
    double, 7 live tiles at the deal) are shown as sent: the client never recomputes them."""
    state, first = deal_json(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0, seed=bytes(32))
    start, deal = (seat_event(e, 0) for e in first)
    odd = {"total": 3, "factors": [{"name": "dealer", "factor": 3, "count": 1}]}
    one = {"total": 1, "factors": []}
    sent = [odd, one, one, {"total": 0.5, "factors": []}]
    later = [
        one,
        {"total": 1024, "factors": [{"name": "opened", "factor": 1024, "count": 10}]},
        one,
        one,
    ]
    tile = format_tile(state.players[1].concealed()[0])
    events = [
        start,
        {**deal, "multipliers": sent, "live": 7},
        {"type": "discard", "seat": 1, "tile": tile},
        {"type": "pung", "seat": 2, "tile": tile, "from": 1},  # no multipliers: nothing changes
        {"type": "discard", "seat": 2, "tile": tile},
        {"type": "pung", "seat": 3, "tile": tile, "from": 2, "multipliers": later},
        {"type": "draw", "seat": 3, "from": "front", "live": 0},
    ]
    seen = page.evaluate(SHOWN, json.loads(json.dumps(events)))
    assert seen[0]["multipliers"] == [None] * 4  # a new hand: nothing shown until the server says
    assert [s["multipliers"] for s in seen[1:5]] == [sent] * 4
    assert seen[5]["multipliers"] == seen[6]["multipliers"] == later
    # the live tiles as sent, whatever the tiles left and the rules' reserve would give
    assert [s["live"] for s in seen] == [0, 7, 7, 7, 7, 7, 0]


def test_a_game_without_multipliers_shows_none(page):
    state, first = deal_json(make_ruleset("baishan"), dealer=1, seed=bytes(32))
    shown = [seat_event(e, 1) for e in as_streamed(state, first)]
    assert all("multipliers" not in e for e in shown if e is not None)
    seen = page.evaluate(SHOWN, json.loads(json.dumps(shown)))
    assert seen[-1]["multipliers"] == [None] * 4
    assert seen[-1]["live"] == shown[-1]["live"] == max(state.live, 0)


def test_the_client_code_holds_no_multiplier_rule():
    model = (STATIC / "model.js").read_text(encoding="utf-8")
    words = ("laizi_gang_factor", "rules.mode", "standingMultiplier", "haidi_reserve", '"wuhan"')
    for word in words:
        assert word not in model, word


def _diff(result: dict[str, Any]) -> str:
    """Where the client's model and the engine's view first differ."""
    got, want = result["got"], result["want"]
    where = f"hand {result['hand']}, seat {result['seat']}, after decision {result['batch']}"
    for key in want:
        if key == "players":
            for seat, (g, w) in enumerate(zip(got[key], want[key], strict=True)):
                for k in w:
                    if g.get(k) != w[k]:
                        return f"{where}: players[{seat}].{k}: client {g.get(k)} != engine {w[k]}"
        elif got.get(key) != want[key]:
            return f"{where}: {key}: client {got.get(key)} != engine {want[key]}"
    return where
