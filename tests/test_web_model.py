"""The client's model of a hand (``laizi/web/static/model.js``) equals the engine's view.

The browser runs the client's own module: it is fed each seat's event stream (``seat_event``) and,
after every decision, its picture of the table — own hand, every seat's hand size, melds, tiles
laid out, discards, claimed discards, openings, live multiplier with its factors, tiles left, turn —
must equal ``view(state, seat)``. Random and greedy players reach kongs, lay-outs, chows, robbed
kongs and the 海底 round.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from laizi.bots import make_bot
from laizi.engine import apply, legal_actions, make_ruleset, new_hand, seat_event, view
from laizi.tiles import format_tile, parse_tiles
from tests.server_helpers import ServerProcess
from tests.web_browser import launch, new_page

PRESETS = ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "wuhan-facai-kaikou")


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
            {k: p[k] for k in ("hand_size", "melds", "laid_out", "discards", "claimed", "openings",
                               "multiplier")}
            for p in v["players"]
        ],
    }
    out["hand"] = [format_tile(t) for t in sorted(parse_tiles(v["concealed"]))]
    out["phase"] = v["phase"]
    return out


def hands(count: int) -> list[dict[str, Any]]:
    """Random and greedy hands: per seat, batches of (events it is told, projection after)."""
    out = []
    for k in range(count):
        preset = PRESETS[k % len(PRESETS)]
        rng = random.Random(k)
        bots = [make_bot("greedy", preset, seed=k * 4 + s) for s in range(4)]
        state, first = new_hand(make_ruleset(preset), dealer=k % 4, seed=bytes([k + 1]) * 32)
        batches: list[list[Any]] = [[first, [projection(view(state, s)) for s in range(4)]]]
        while not state.over:
            seat = state.to_act()[0]
            legal = legal_actions(state, seat)
            action = rng.choice(legal) if k % 2 else bots[seat].act(view(state, seat), legal)
            events = apply(state, action)
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
    for (const [b, [events, want]] of batches.entries()) {
      for (const event of events) m.applyEvent(model, event);
      const got = {
        dealer: model.dealer, turn: model.turn, tiles_left: model.tiles_left, live: model.live,
        laizi: model.laizi, indicator: model.indicator,
        players: model.players.map((p) => ({
          hand_size: p.hand_size, melds: p.melds, laid_out: p.laid_out, discards: p.discards,
          claimed: p.claimed, openings: p.openings, multiplier: p.multiplier })),
        hand: t.sortTiles(model.hand_tiles),
      };
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


def test_the_client_model_equals_the_engine_view_after_every_decision(tmp_path, browser):
    data = hands(8)
    with ServerProcess(tmp_path / "db.sqlite3") as server:
        page, errors = new_page(browser)
        page.goto(server.http + "/web/index.html")
        results = []
        for seat in range(4):
            streams = [
                [
                    [[e for e in (seat_event(ev, seat) for ev in events) if e is not None],
                     {k: v for k, v in expected[seat].items() if k != "phase"}]
                    for events, expected in hand["batches"]
                    # a finished hand shows concealed kongs; the table then shows the settlement
                    if expected[seat]["phase"] != "over"
                ]
                for hand in data
            ]
            results.append(page.evaluate(CHECK, [seat, json.loads(json.dumps(streams))]))
        assert errors == []
    for result in results:
        assert "checked" in result, _diff(result)
    assert sum(r["checked"] for r in results) > 4 * 8 * 20


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
