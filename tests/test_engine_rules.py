"""One scripted hand per rule of RULES.md A4–A8, played through ``laizi replay``'s engine.

Every script uses the classic preset with the minimum off (A10 is scoring's), indicator 8s so
the laizi is 9s (A2), and the dealer at seat 0.  Tiles the script does not name fill the wall
in id order (docs/engine.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from laizi.engine import Match, legal_actions, make_ruleset, view
from laizi.engine.actions import Action
from laizi.engine.script import ScriptIllegal, ScriptUnfinished, run_script
from tests.engine_helpers import (
    KONG_ACTIONS,
    KONG_HANDS,
    apply_json,
    haidi_script,
    script,
    state_when_script_ends,
)


def events_of(obj) -> list[dict[str, Any]]:
    return run_script(obj).events


def end(events):
    assert events[-1]["type"] == "end"
    return events[-1]


# --- A5: claims --------------------------------------------------------------------------------

CHOW_HANDS = [
    "3m 15m7m 1p2p8p9p 1s2s 3z4z5z6z",  # dealer: discards 3m
    "12m 5p6p 4s6s8s 1z1z 2z 5z 6z 7z",  # seat 1 may chow 3m (123m)
    "45m 3p4p 7p 6s7s 2z 3z 4z 5z 6z 3s",  # seat 2 holds 45m but is not next
    "33m 1p 9p 1s 9s 5s 4z 6z 7z 7z 2z 3s",  # seat 3 may pung 3m
]


def test_chow_only_from_the_previous_seat():
    with pytest.raises(ScriptIllegal) as caught:
        run_script(script(CHOW_HANDS, ["0 discard 3m", "2 chow 345m"]))
    error = caught.value
    assert error.index == 1
    assert "previous seat" in error.reason or "no claim" in error.reason
    state = state_when_script_ends(script(CHOW_HANDS, ["0 discard 3m", "1 chow 123m"]))
    assert state.turn == 1 and state.players[1].melds[0].tiles == (0, 1, 2)


def test_pung_beats_chow_and_a_losing_claim_is_no_error():
    obj = script(CHOW_HANDS, ["0 discard 3m", "1 chow 123m", "3 pung"])
    state = state_when_script_ends(obj)
    assert state.turn == 3
    assert [m.kind for m in state.players[3].melds] == ["pung"]
    assert state.players[1].melds == []


def test_chow_offered_to_the_next_seat_only():
    state = state_when_script_ends(script(CHOW_HANDS, ["0 discard 3m"]))
    # The script ended in the claim window: every seat passed, seat 1 drew.
    assert state.turn == 1
    obj = script(CHOW_HANDS, [])
    st = state_when_script_ends(obj)
    apply_json(st, Action(0, "discard", 2))
    assert [a.type for a in legal_actions(st, 1)] == ["chow", "pass"]
    assert legal_actions(st, 2) == []
    assert [a.type for a in legal_actions(st, 3)] == ["pung", "pass"]


# --- A6: one winner per discard, in order ------------------------------------------------------

TWO_WINNERS_HANDS = [
    "1m5m7m9m 1p2p8p9p 1s2s 3z4z5z6z",
    "99m 234m 678m 456p 5s 1z",  # pungs 9m, then waits on 5s
    "3m 3p 7p 9p 3s 6s 7s 8s 2z 5z 6z 7z 7z",
    "11z 234p 678p 345s 5s 2z",  # pungs 1z, then waits on 5s
]
TWO_WINNERS_ACTIONS = [
    "0 discard 9m",
    "1 pung",
    "1 discard 1z",
    "3 pung",
    "3 discard 2z",
    "0 discard 5z",
    "1 discard 6z",
    "2 discard 5s",
    "3 win",
    "1 win",
]


@pytest.mark.parametrize(("priority", "winner"), [("from_dealer", 1), ("from_discarder", 3)])
def test_one_winner_per_discard_in_the_order_of_a6(priority, winner):
    obj = script(
        TWO_WINNERS_HANDS, TWO_WINNERS_ACTIONS, draws=["5z", "6z", "5s"], win_priority=priority
    )
    events = events_of(obj)
    wins = [e for e in events if e["type"] == "win"]
    assert len(wins) == 1
    assert wins[0] == {"type": "win", "seat": winner, "how": "discard", "tile": "5s", "from": 2}
    last = end(events)
    assert last["winner"] == winner
    assert sum(last["payments"]) == 0 and last["payments"][winner] > 0
    # Everybody pays (A7), the discarder most.
    assert all(last["payments"][s] < 0 for s in range(4) if s != winner)


# --- A5/A6: robbing an added kong --------------------------------------------------------------

ROB_HANDS = [
    "9m 2m4m6m 2p5p9p 1s2s4s 4z5z6z7z",
    "11z 78m 234p 678p 55s 2z",  # pungs 1z; waits on 6m/9m
    "99m 1z 1m3m5m 1p9p 1s3s 4z5z6z",  # pungs 9m, later adds the fourth
    "22z 78m 345p 567s 88s 3z",  # pungs 2z; waits on 6m/9m
]
ROB_ACTIONS = [
    "0 discard 9m",
    "2 pung",
    "2 discard 1z",
    "1 pung",
    "1 discard 2z",
    "3 pung",
    "3 discard 3z",
    "0 discard 1m",
    "1 discard 9p",
    "2 added_kong 9m",
]


@pytest.mark.parametrize(("priority", "winner"), [("from_dealer", 1), ("from_discarder", 3)])
def test_robbing_a_kong_and_the_order_among_robbers(priority, winner):
    obj = script(
        ROB_HANDS,
        [*ROB_ACTIONS, "3 win", "1 win"],
        draws=["1m", "9p", "9m"],
        win_priority=priority,
    )
    events = events_of(obj)
    assert {"type": "win", "seat": winner, "how": "rob_kong", "tile": "9m", "from": 2} in events
    last = end(events)
    assert "qiangganghu" in last["settlement"]["wins"]
    # A9 contract: the robbed player alone pays.
    assert last["settlement"]["contract"] == 2
    assert [p for s, p in enumerate(last["payments"]) if s not in (2, winner)] == [0, 0]


def test_an_added_kong_nobody_robs_draws_from_the_back():
    obj = script(ROB_HANDS, [*ROB_ACTIONS, "1 pass"], draws=["1m", "9p", "9m"], replacements=["6z"])
    state = state_when_script_ends(obj)
    assert state.turn == 2 and state.drawn == 32 and state.after_kong
    assert [m.kind for m in state.players[2].melds] == ["added_kong"]


# --- A5/A8: every kong's replacement comes from the back ---------------------------------------


def test_concealed_exposed_and_added_kongs_draw_replacements_from_the_back():
    obj = script(
        KONG_HANDS,
        KONG_ACTIONS,
        draws=["9m", "9p", "8s", "2m"],
        replacements=["5z", "6z", "4z"],
    )
    state = state_when_script_ends(obj)
    events = run_script_events_until_unfinished(obj)
    back = [(e["seat"], e["tile"]) for e in events if e["type"] == "draw" and e["from"] == "back"]
    assert back == [(0, "5z"), (1, "6z"), (2, "4z")]
    kinds = {s: [m.kind for m in state.players[s].melds] for s in range(4)}
    assert kinds[0] == ["concealed_kong"] and kinds[1] == ["exposed_kong"]
    assert kinds[2] == ["added_kong"]
    # Three replacement draws shortened the live wall by three (A8).
    assert state.back == 136 - 3
    assert state.live == 136 - state.front - 3 - 10


def run_script_events_until_unfinished(obj):
    with pytest.raises(ScriptUnfinished) as caught:
        run_script(obj)
    return caught.value.result.events


def test_a_laizi_can_not_be_konged_or_punged():
    hands = [
        "9s 2m4m6m 2p5p9p 1s2s4s 4z5z6z7z",  # dealer holds one laizi (9s)
        "9s9s 1m 3m 5m 1p 3p 5p 1z 2z 3z 4z 6z",  # two laizi: a pung if laizi could be claimed
        "1m3m5m 1p3p5p 1s3s5s 1z2z3z 4z",
        "6m7m8m 6p7p8p 6s7s 2s 5z5z 6z 6z",
    ]
    obj = script(hands, ["0 discard 9s"], replacements=["8m"])
    events = run_script_events_until_unfinished(obj)
    # A3: discarding the laizi lays it out — a replacement draw, no claim window for anyone.
    assert events[-2] == {"type": "discard", "seat": 0, "tile": "9s", "lay_out": True}
    assert events[-1] == {"type": "draw", "seat": 0, "tile": "8m", "from": "back"}
    state = state_when_script_ends(script(hands, ["0 discard 9s"], replacements=["8m"]))
    assert state.players[0].laid_out == [26]
    assert state.turn == 0 and state.phase == "turn"
    shown = view(state, 0)["players"][0]["multiplier"]
    assert {"name": "laizi_gang", "factor": 2, "count": 1} in shown["factors"]
    with pytest.raises(ScriptIllegal) as caught:
        run_script(script(hands, ["0 discard 9s", "1 pung"], replacements=["8m"]))
    assert caught.value.index == 1


def test_a_must_gang_tile_can_not_be_claimed_only_laid_out():
    hands = [
        "7z 2m4m6m 2p5p9p 1s2s4s 4z5z6z 8p",
        "7z7z 1m 3m 5m 1p 3p 5p 1z 2z 3z 4z 5z",
        "1m3m5m 1p3p5p 1s3s5s 1z2z3z 4z",
        "6m7m8m 6p7p8p 6s7s 2s 5z 6z 6z 7z",
    ]
    state = state_when_script_ends(script(hands, ["0 discard 7z"], replacements=["8m"]))
    assert state.players[0].laid_out == [33] and state.turn == 0
    assert all(legal_actions(state, s) == [] for s in (1, 2, 3))
    types = {a.type for a in legal_actions(state, 0)}
    assert "lay_out" not in types  # the dealer holds no more 红中 or laizi
    with pytest.raises(ScriptIllegal) as caught:
        run_script(script(hands, ["0 concealed_kong 7z"]))
    assert "laid out" in caught.value.reason or "4" in caught.value.reason


# --- A4: a held must-gang tile blocks the win; laying it out then 杠上花 ------------------------

GANG_HANDS = [
    "9m 2m4m6m 2p4p9p 1s2s4s 4z5z6z 3p",
    "99m 234m 567p 55s 7z 7s 1z",  # pungs 9m, discards 1z; holds 红中
    "1m3m5m 1p3p5p 1s3s 1z2z3z 4z 5z",
    "6m7m8m 6p8p 6s 2s 2z 3z 5z 6z 6z 3s",
]
GANG_ACTIONS = [
    "0 discard 9m",
    "1 pung",
    "1 discard 1z",
    "2 discard 1m",
    "3 discard 1p",
    "0 discard 9p",
]


def test_laying_out_hongzhong_then_gangshanghua():
    obj = script(
        GANG_HANDS,
        [*GANG_ACTIONS, "1 lay_out 7z", "1 win"],
        draws=["1m", "1p", "9p", "8s"],
        replacements=["6s"],
    )
    events = events_of(obj)
    assert {"type": "lay_out", "seat": 1, "tile": "7z"} in events
    win = next(e for e in events if e["type"] == "win")
    assert win == {"type": "win", "seat": 1, "how": "self_draw", "tile": "6s"}
    settlement = end(events)["settlement"]
    assert "gangshanghua" in settlement["wins"]
    factors = {f["name"] for f in settlement["multipliers"][1]["factors"]}
    assert "hongzhong_gang" in factors


def test_a_held_must_gang_tile_blocks_the_win():
    # Without laying out 红中 the same hand can't win on the same tile.
    obj = script(GANG_HANDS, GANG_ACTIONS, draws=["1m", "1p", "9p", "8s"], replacements=["6s"])
    state = state_when_script_ends(obj)
    assert state.turn == 1
    apply_json(state, Action(1, "lay_out", 33))
    assert Action(1, "win") in legal_actions(state, 1)
    blocked = [
        "9m 2m4m6m 2p4p9p 1s2s4s 4z5z6z 3p",
        "99m 234m 567p 777z 5s 1z",  # 777z stands as a triplet in shape, but it is 红中
        "1m3m5m 1p3p5p 1s3s 1z2z3z 4z 5s",
        "6m7m8m 6p8p 6s 2s 2z 3z 5z 6z 6z 3s",
    ]
    actions = ["0 discard 9m", "1 pung", "1 discard 1z", "2 discard 5s", "1 win"]
    with pytest.raises(ScriptIllegal) as caught:
        run_script(script(blocked, actions, draws=["1m"]))
    assert caught.value.index == 4  # no claim window even opened: seat 3 drew at once
    assert caught.value.reason.startswith("seat 1 may not win on seat 2's 5s (holds_special)")
    # Nor by self-draw: seat 1 draws the 5s itself.
    state = state_when_script_ends(
        script(
            blocked,
            [
                "0 discard 9m",
                "1 pung",
                "1 discard 1z",
                "2 discard 1m",
                "3 discard 1p",
                "0 discard 9p",
            ],
            draws=["1m", "1p", "9p", "5s"],
        )
    )
    assert state.turn == 1 and state.drawn == 22
    assert Action(1, "win") not in legal_actions(state, 1)


# --- A6: 过胡 ---------------------------------------------------------------------------------

LOCK_HANDS = [
    "9m 2m4m6m 2p5p9p 1s2s4s 4z5z6z 7z",
    "1m3m5m 1p3p 7p 1s 3s 2z3z 4z 5z 6z",
    "1m3m5m 1p3p 7p 1s 9p 2z3z 4z 5z 6z",
    "99m 234m 678m 456p 5s 1z",  # pungs 9m, then waits on 5s
]


@pytest.mark.parametrize("locked", [False, True])
def test_pass_win_locked_both_ways(locked):
    actions = [
        "0 discard 9m",
        "3 pung",
        "3 discard 1z",
        "0 discard 5s",
        "3 pass",
        "1 discard 5s",
        "3 win",
    ]
    obj = script(LOCK_HANDS, actions, draws=["5s", "5s"], pass_win_locked=locked)
    if not locked:
        events = events_of(obj)
        assert end(events)["winner"] == 3
        return
    with pytest.raises(ScriptIllegal) as caught:
        run_script(obj)
    assert caught.value.index == 6  # not asked at all: seat 2 drew at once
    assert caught.value.reason.startswith("seat 3 may not win on seat 1's 5s (pass_win_locked)")


def test_the_lock_ends_with_the_seats_own_draw():
    actions = [
        "0 discard 9m",
        "3 pung",
        "3 discard 1z",
        "0 discard 5s",
        "3 pass",
        "1 discard 1m",
        "2 discard 1p",
        "3 discard 8s",
        "0 discard 5s",
        "3 win",
    ]
    obj = script(LOCK_HANDS, actions, draws=["5s", "1m", "1p", "8s", "5s"], pass_win_locked=True)
    assert end(events_of(obj))["winner"] == 3


# --- A8: the 海底 round, the reserve and the drawn hand ---------------------------------------


def test_haidi_round_only_self_drawn_wins():
    obj, first = haidi_script("1 win")
    assert first == 0  # the 海底 round starts with seat 0; seat 1 draws the 5s second
    events = events_of(obj)
    finals = [e for e in events if e.get("final")]
    assert [(e["seat"], e["tile"]) for e in finals] == [(0, "8p"), (1, "5s")]
    settlement = end(events)["settlement"]
    assert "haidilao" in settlement["wins"]


def test_haidi_round_offers_only_win_or_pass_then_the_hand_is_drawn():
    obj, _ = haidi_script(None)
    state = state_when_script_ends(obj)
    assert state.phase == "final" and state.turn == 1
    assert [a.type for a in legal_actions(state, 1)] == ["win", "pass"]
    obj, _ = haidi_script("1 pass")
    events = events_of(obj)
    last = end(events)
    assert last["reason"] == "drawn" and last["winner"] is None
    assert last["payments"] == [0, 0, 0, 0]
    finals = [e for e in events if e.get("final")]
    assert len(finals) == 4
    state = run_script(obj).state
    assert state.wall_left == 60  # the reserve is never drawn


def test_the_reserve_of_ten_is_never_drawn_by_a_normal_draw():
    obj, first = haidi_script(None, reserve=10)
    assert first == 2  # seat 1 draws the last tile, not the 5s: nobody can win
    result = run_script(obj)
    assert end(result.events)["reason"] == "drawn"
    assert result.state.wall_left == 10
    draws = [e for e in result.events if e["type"] == "draw"]
    assert sum(1 for e in draws if not e.get("final")) == 82 - 10 - 4
    assert sum(1 for e in draws if e.get("final")) == 4


# --- A8/A9: the dealer and escapes -------------------------------------------------------------


def test_a_drawn_hand_keeps_the_dealer_and_a_win_moves_it():
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    assert ruleset.next_dealer(2, None) == 2
    assert ruleset.next_dealer(2, 2) == 2
    assert ruleset.next_dealer(2, 3) == 3
    assert ruleset.next_dealer(3, 1) == 0
    match = Match(ruleset, dealer=2)
    state, record = match.deal(bytes(32))
    while not state.over:  # nobody ever claims or wins: the hand is drawn
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        choice = next((a for a in legal if a.type in ("pass", "discard")), legal[0])
        record += apply_json(state, choice)
    assert state.result["reason"] == "drawn"
    match.finish(record)
    assert match.dealer == 2 and match.totals == [0, 0, 0, 0]


def test_escape_pays_the_penalty_split_among_the_others():
    match = Match(make_ruleset("wuhan-hongzhong-koukou"), dealer=0)
    state, first = match.deal(bytes(range(32)))
    events = apply_json(state, Action(2, "abandon"))
    assert events[0] == {"type": "abandon", "seat": 2}
    last = events[-1]
    assert last["reason"] == "abandon" and last["seat"] == 2
    assert last["payments_exact"] == ["500/3", "500/3", "-500", "500/3"]
    match.finish(first + events)
    assert match.over and match.escaped == 2
    assert match.totals == [Fraction(500, 3), Fraction(500, 3), Fraction(-500), Fraction(500, 3)]
    assert sum(match.totals) == 0
    with pytest.raises(ValueError):
        match.deal(bytes(32))


NO_ROB_HANDS = [
    "9m 2m 666m 2p5p9p 1s2s4s 4z5z6z",  # three 6m: 暗杠 or 冲杠 on 6m
    *ROB_HANDS[1:],  # seats 1 and 3 open, then wait on 6m/9m
]


def test_a_concealed_kong_can_not_be_robbed():
    obj = script(
        NO_ROB_HANDS, [*ROB_ACTIONS[:7], "0 concealed_kong 6m"], draws=["6m"], replacements=["1p"]
    )
    events = run_script_events_until_unfinished(obj)
    assert events[-2:] == [
        {"type": "concealed_kong", "seat": 0, "tile": "6m"},
        {"type": "draw", "seat": 0, "tile": "1p", "from": "back"},
    ]


def test_an_exposed_kong_on_a_discard_can_not_be_robbed():
    actions = [*ROB_ACTIONS[:7], "0 discard 1m", "1 discard 6m", "0 kong"]
    obj = script(NO_ROB_HANDS, actions, draws=["1m", "6m"], replacements=["1p"])
    events = run_script_events_until_unfinished(obj)
    # Seat 3 could have won on the discard itself and passed; the kong opens no rob window.
    assert {"type": "pass", "seat": 3} in events[-5:]
    assert events[-2:] == [
        {"type": "kong", "seat": 0, "tile": "6m", "from": 1},
        {"type": "draw", "seat": 0, "tile": "1p", "from": "back"},
    ]


def test_a_win_below_the_room_minimum_is_not_offered():
    # The same hand as above pays 8 per loser: under kaikou's default minimum of 16 (A10) it is
    # no win at all — and the message names the settlement's reason (seat 3's chow keeps the
    # window open, so seat 1's claim is judged there).
    obj = script(
        TWO_WINNERS_HANDS,
        [*TWO_WINNERS_ACTIONS[:-2], "1 win"],
        draws=["5z", "6z", "5s"],
        min_points=16,
    )
    with pytest.raises(ScriptIllegal) as caught:
        run_script(obj)
    assert caught.value.index == 8
    assert caught.value.reason == "seat 1 may not win on 5s (below_minimum)"
