"""Views (Part C): a seat sees its own hand and everything public, never more."""

from __future__ import annotations

import random

from laizi.engine import Action, make_ruleset, play_out, seat_event, view
from tests.engine_helpers import (
    KONG_ACTIONS,
    KONG_HANDS,
    apply_json,
    deal_json,
    script,
    state_when_script_ends,
)


def test_a_seat_sees_its_own_hand_and_only_sizes_of_the_others():
    state, _ = deal_json(make_ruleset("wuhan-qipi-kaikou"), 0, seed=bytes(32))
    mine = view(state, 0)
    assert len(mine["concealed"]) > 0 and mine["legal"]
    assert [p["hand_size"] for p in mine["players"]] == [14, 13, 13, 13]
    assert all("concealed" not in p for p in mine["players"])
    assert "wall" not in mine
    assert mine["indicator"] and mine["laizi"] and len(mine["pi"]) == 2
    assert mine["tiles_left"] == 136 - 53 - 1 and mine["live"] == mine["tiles_left"] - 10
    spectator = view(state)
    assert "concealed" not in spectator and "legal" not in spectator
    assert spectator["players"] == mine["players"]


def test_every_multiplier_with_its_factors_is_on_the_table():
    state = state_when_script_ends(script(KONG_HANDS, KONG_ACTIONS[:3], replacements=["5z", "6z"]))
    shown = view(state, 2)
    factors = {
        seat: {f["name"]: f["factor"] for f in p["multiplier"]["factors"]}
        for seat, p in enumerate(shown["players"])
    }
    assert factors[0] == {"concealed_kong": 4, "dealer": 2}
    assert factors[1] == {"opened": 2, "exposed_kong": 2}
    assert shown["players"][0]["multiplier"]["total"] == 8


def test_a_concealed_kong_lies_face_down_for_the_others():
    state = state_when_script_ends(script(KONG_HANDS, KONG_ACTIONS[:1], replacements=["5z"]))
    assert view(state, 0)["players"][0]["melds"][0]["tiles"] == "1111m"
    assert view(state, 1)["players"][0]["melds"][0]["tiles"] is None
    assert view(state)["players"][0]["melds"][0]["tiles"] is None


def test_who_may_claim_a_discard_is_not_shown():
    # Seat 0's 3z gives seat 1 a kong (冲杠): the window is open, but nobody is told whose.
    state = state_when_script_ends(script(KONG_HANDS, KONG_ACTIONS[:1], replacements=["5z"]))
    apply_json(state, Action(0, "discard", 29))
    assert state.phase == "claim" and state.to_act() == [1]
    for seat in (None, 0, 2, 3):
        assert view(state, seat)["to_act"] == []
        assert "claim" in view(state, seat)
    assert [a["type"] for a in view(state, 1)["legal"]] == ["pung", "kong", "pass"]


def test_the_event_stream_of_a_seat_hides_what_the_seat_may_not_see():
    rng = random.Random(5)
    for index in range(60):
        state, events = deal_json(
            make_ruleset("wuhan-hongzhong-kaikou"), index % 4, seed=rng.randbytes(32)
        )
        events += play_out(state, rng.choice)
        for seat in (0, 1, 2, 3, None):
            shown = [e for e in (seat_event(e, seat) for e in events) if e is not None]
            for event in shown[:-1]:  # the end reveals every hand
                if event["type"] == "deal":
                    assert all(h is None for s, h in enumerate(event["hands"]) if s != seat)
                if event["type"] in ("draw", "concealed_kong") and event["seat"] != seat:
                    assert "tile" not in event
                if event["type"] in ("claim", "pass"):
                    assert event["seat"] == seat
            assert shown[-1] == events[-1]
            assert len(shown) == len(events) - sum(
                1 for e in events if e["type"] in ("claim", "pass") and e["seat"] != seat
            )
