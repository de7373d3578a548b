"""Baishan hands played through the engine (RULES.md Part B): 报听, 分张, kongs paid on the spot,
one winner per discard, no robbing of kongs, escapes.  Walls are laid out by hand
(``wall_from_parts``: the named hands and draws, the rest in id order); the players discard
what they draw unless a test says otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from laizi.engine import (
    Action,
    IllegalAction,
    legal_actions,
    make_ruleset,
    parse_record,
    seat_event,
    to_jsonl,
    verify,
    view,
)
from laizi.engine.script import ScriptIllegal, run_script
from laizi.engine.state import HandState
from laizi.engine.wall import wall_from_parts
from laizi.tiles import format_tile, parse_tile, parse_tiles
from tests.engine_helpers import act, apply_json, deal_json

Decide = Callable[[HandState, int, list[Action]], Action | None]


def deal(
    hands: list[str],
    draws: list[str] | str = "",
    replacements: str = "",
    dealer: int = 0,
    rules: Any = "baishan",
) -> tuple[HandState, list[dict[str, Any]]]:
    dealt = [parse_tiles(hands[(dealer + k) % 4]) for k in range(4)]
    assert [len(h) for h in dealt] == [14, 13, 13, 13]
    named = draws if isinstance(draws, str) else "".join(draws)
    wall = wall_from_parts(dealt, [], parse_tiles(named), parse_tiles(replacements))
    return deal_json(make_ruleset(rules), dealer, wall=wall)


def tsumogiri(state: HandState, seat: int, legal: list[Action]) -> Action:
    """Discard what was drawn; pass every claim; win only in the final round (分张)."""
    if state.phase == "final":
        return legal[0]  # win (a seat that can't win is not asked)
    if state.phase in ("claim", "rob"):
        return Action(seat, "pass")
    tile = state.drawn if state.drawn is not None else legal[0].tile
    return Action(seat, "discard", tile)


def play(state: HandState, events: list[dict[str, Any]], decide: Decide | None = None):
    while not state.over:
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        action = decide(state, seat, legal) if decide else None
        events += apply_json(state, action or tsumogiri(state, seat, legal))
    assert state.tiles_in_play() == [4] * 34
    assert sum(state.result["payments"]) == 0
    assert verify(parse_record(to_jsonl(events))).ok
    return events


def fans(events: list[dict[str, Any]], seat: int) -> dict[str, int]:
    settlement = events[-1]["settlement"]
    return {f["name"]: f["fans"] for f in settlement["fans"][seat]["fans"]}


# --- 报听 -----------------------------------------------------------------------------------

READY_HANDS = [
    "111m234p567p79s55z1z",  # the dealer: after 1z a closed wait on 8s (夹)
    "234567m238p2346s",
    "89m1399p1389s267z",
    "2345m1457p1257s3z",
]


READY_SCRIPT = {
    "rules": "baishan",
    "dealer": 0,
    "hands": READY_HANDS,
    "draws": ["9p", "4z", "3z", "5z", "6z", "7z", "8s"],
    "actions": [
        act(a)
        for a in [
            "0 declare_ready 1z",
            "1 discard 9p",
            "2 pung",
            "2 discard 2z",
            "3 discard 4z",
            "0 discard 3z",  # locked: the drawn 3z is all it may discard
            "1 discard 5z",  # seat 0 holds 55z but a locked hand claims nothing but a win
            "2 discard 6z",
            "3 discard 7z",
            "0 win",
        ]
    ],
}


def test_declare_ready_locks_the_hand_and_counts_a_fan():
    result = run_script(READY_SCRIPT)
    events = result.events
    assert {"type": "discard", "seat": 0, "tile": "1z", "declare_ready": True} in events
    end = events[-1]
    assert end["winner"] == 0
    assert fans(events, 0) == {"baoting": 1, "limen": 1, "zimo": 1, "zuozhuang": 1}
    # seats 1 and 3 never opened (立门); seat 2 punged
    assert [fans(events, s) for s in (1, 2, 3)] == [{"limen": 1}, {}, {"limen": 1}]
    assert end["payments"] == [80, -32, -16, -32]
    assert verify(parse_record(to_jsonl(events))).ok


def test_a_locked_hand_may_only_discard_its_draw():
    script = {**READY_SCRIPT, "actions": READY_SCRIPT["actions"][:5]}
    state, events = deal(READY_HANDS, READY_SCRIPT["draws"])
    for item in script["actions"]:
        action = Action.from_json(item)
        if state.phase == "claim" and action.seat not in state.to_act():
            for seat in state.to_act():
                events += apply_json(state, Action(seat, "pass"))
        events += apply_json(state, action)
    assert state.turn == 0 and state.players[0].declared_ready
    assert [a.notation() for a in legal_actions(state, 0)] == ["0 discard 3z"]
    with pytest.raises(IllegalAction) as error:
        apply_json(state, Action(0, "discard", parse_tile("5z")))
    assert "locked" in error.value.reason
    assert view(state, 1)["players"][0]["declared_ready"] is True


def test_declare_ready_only_on_a_single_wait():
    hands = ["111m234p567p78s55z1z", *READY_HANDS[1:]]  # 78s: a two-sided wait
    script = {**READY_SCRIPT, "hands": hands, "actions": [act("0 declare_ready 1z")]}
    with pytest.raises(ScriptIllegal) as error:
        run_script(script)
    assert "single" in error.value.reason
    state, _ = deal(hands)
    assert not any(a.type == "declare_ready" for a in legal_actions(state, 0))


def test_declare_ready_is_offered_for_each_qualifying_discard():
    state, _ = deal(READY_HANDS)
    offered = [a.notation() for a in legal_actions(state, 0) if a.type == "declare_ready"]
    assert offered == ["0 declare_ready 1z"]


# --- 分张 -----------------------------------------------------------------------------------

SPLIT_HANDS = [
    "2345678m23458p67z",
    "2345678s2345p67z",
    "111m234p567p789s5z",  # seat 2 waits on 5z
    "3456m9m6789p1123s",
]


def split_draws(last: str) -> list[str]:
    """65 front draws without 5z, then ``last``: the first tile of the 分张 round."""
    named = parse_tiles("".join(SPLIT_HANDS) + last)
    left = [4] * 34
    for t in named:
        left[t] -= 1
    rest = [t for t in range(34) if t != parse_tile("5z") for _ in range(left[t])]
    return [format_tile(t) for t in rest[:65]] + [last]


def test_split_round_at_18_tiles_without_a_kong_and_a_win_in_it():
    state, events = deal(SPLIT_HANDS, split_draws("5z"))
    events = play(state, events)
    finals = [e for e in events if e.get("final")]
    assert finals == [{"type": "draw", "seat": 2, "tile": "5z", "from": "front", "final": True}]
    assert state.wall_left == 17
    end = events[-1]
    assert (end["winner"], events[-2]["how"]) == (2, "self_draw")
    assert fans(events, 2) == {"zimo": 1, "sijiaqing": 3}
    assert end["payments"] == [-32, -16, 64, -16]


def test_split_round_nobody_wins_a_drawn_hand():
    state, events = deal(SPLIT_HANDS, split_draws("6z"))
    events = play(state, events)
    finals = [e for e in events if e.get("final")]
    assert [e["seat"] for e in finals] == [2, 3, 0, 1]  # each draws one, discards nothing
    assert not any(e["type"] == "discard" for e in events[events.index(finals[0]) :])
    assert state.wall_left == 14  # 18 − 4
    assert events[-1]["reason"] == "drawn" and events[-1]["payments"] == [0, 0, 0, 0]


def test_no_kong_in_the_split_round():
    state, events = deal(SPLIT_HANDS, split_draws("6z"))
    while not state.over:
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        if state.phase == "final":
            assert [a.type for a in legal] == ["win", "pass"]  # no kong, no discard
        events += apply_json(
            state, tsumogiri(state, seat, legal) if state.phase != "final" else Action(seat, "pass")
        )


# --- kongs paid on the spot -------------------------------------------------------------------

KONG_HANDS = [
    "2345678m23458p17z",
    "2345678s234p666z",  # seat 1 draws the fourth 6z and konges it
    "111m234p567p789s5z",
    "3456m9m6789p1123s",
]


def kong_first(state: HandState, seat: int, legal: list[Action]) -> Action | None:
    """Seat 1 konges whenever it can (the others discard what they draw)."""
    kongs = [a for a in legal if a.type == "concealed_kong" and seat == 1]
    return kongs[0] if kongs else None


def test_kong_payments_stand_in_a_drawn_hand_and_the_split_comes_at_4():
    state, events = deal(KONG_HANDS, ["6z"])
    events = play(state, events, kong_first)
    paid = [e for e in events if e["type"] == "kong_paid"]
    # a concealed kong, 2 units from each, the dealer (seat 0) ×2
    assert paid == [
        {
            "type": "kong_paid",
            "seat": 1,
            "kind": "concealed_kong",
            "tile": "6z",
            "payments": [-4, 8, -2, -2],
        }
    ]
    # the other seats are told the payment, not the concealed kong's tile
    assert seat_event(paid[0], 2) == {
        "type": "kong_paid",
        "seat": 1,
        "kind": "concealed_kong",
        "payments": [-4, 8, -2, -2],
    }
    assert seat_event(paid[0], 1) == paid[0]
    end = events[-1]
    assert end["reason"] == "drawn"
    assert end["payments"] == [-4, 8, -2, -2] and end["kong_payments"] == [-4, 8, -2, -2]
    assert state.wall_left == 0  # the split round began at 4 tiles (a kong was made)
    assert len([e for e in events if e.get("final")]) == 4
    assert view(state, None)["kong_payments"] == [-4, 8, -2, -2]


def test_kong_payments_join_a_win_and_match_the_settlement():
    state, events = deal(KONG_HANDS, ["6z", "1z", "2z", "3z", "4z", "4z", "4z", "5z"])

    def decide(state: HandState, seat: int, legal: list[Action]) -> Action | None:
        wins = [a for a in legal if a.type == "win"]
        return wins[0] if wins else kong_first(state, seat, legal)

    events = play(state, events, decide)
    end = events[-1]
    assert end["winner"] == 2
    settlement = end["settlement"]
    assert settlement["kong_payments"] == [-4, 8, -2, -2]
    assert end["payments"] == settlement["payments"]
    assert end["payments"] == [
        a + b for a, b in zip(settlement["win_payments"], settlement["kong_payments"], strict=True)
    ]


def test_discard_right_after_a_kong_is_ganghoukai_for_the_discarder():
    # seat 1 konges 6z, draws 5z from the back and discards it: seat 2 wins on it (杠后点炮)
    state, events = deal(KONG_HANDS, ["6z"], replacements="5z")

    def decide(state: HandState, seat: int, legal: list[Action]) -> Action | None:
        wins = [a for a in legal if a.type == "win"]
        return wins[0] if wins else kong_first(state, seat, legal)

    events = play(state, events, decide)
    assert events[-2] == {"type": "win", "seat": 2, "how": "discard", "tile": "5z", "from": 1}
    # nobody opened (a concealed kong does not open): 四家清 for the winner, no 立门 for anyone
    assert fans(events, 2) == {"sijiaqing": 3}
    assert fans(events, 1) == {"dianpao": 1, "ganghoukai": 1}


def test_escape_pays_64_units_and_kongs_already_paid_stand():
    state, events = deal(KONG_HANDS, ["6z"])
    events += apply_json(state, Action(0, "discard", parse_tile("1z")))
    events += apply_json(state, Action(1, "concealed_kong", parse_tile("6z")))
    events += apply_json(state, Action(3, "abandon"))
    end = events[-1]
    third = Fraction(64, 3)
    assert state.result["payments"] == (third - 4, third + 8, third - 2, -64 - 2)
    assert end["payments_exact"] == ["52/3", "88/3", "58/3", "-66"]


# --- claims ---------------------------------------------------------------------------------

WIN_HANDS = [
    "111p234s567s789m5z1z",  # the dealer waits on 5z after discarding 1z
    "2345678s2345p67z",
    "3456m9m6789p1123s",
    "111m234p567p789s5z",  # seat 3 waits on 5z too
]


def test_one_winner_per_discard_first_after_the_discarder():
    script = {
        "rules": "baishan",
        "dealer": 0,
        "hands": WIN_HANDS,
        "draws": ["5z"],
        "actions": [act(a) for a in ["0 discard 1z", "1 discard 5z", "0 win", "3 win"]],
    }
    events = run_script(script).events
    assert events[-2] == {"type": "win", "seat": 3, "how": "discard", "tile": "5z", "from": 1}
    # the dealer claimed too but is further from the discarder
    assert {"type": "claim", "seat": 0, "claim": "win"} in events


def test_no_robbing_an_added_kong():
    hands = ["2345678m2345p88s1z", "234567s2345p167z", "111m234p567p79s55z", "3456m9m6789p1123s"]
    state, events = deal(hands, ["8s", "4z", "4z", "4z", "8s"])
    events += apply_json(state, Action(0, "discard", parse_tile("1z")))
    events += apply_json(state, Action(1, "discard", parse_tile("8s")))
    assert [a.type for a in legal_actions(state, 2)] == ["win", "chow", "pass"]
    events += apply_json(state, Action(0, "pung"))
    events += apply_json(state, Action(2, "pass"))
    events += apply_json(state, Action(0, "discard", parse_tile("2m")))
    while state.turn != 0 or state.phase != "turn":
        seat = state.to_act()[0]
        events += apply_json(state, tsumogiri(state, seat, legal_actions(state, seat)))
    assert state.drawn == parse_tile("8s")
    events += apply_json(state, Action(0, "added_kong", parse_tile("8s")))
    # seat 2 waits on 8s, but Baishan robs no kong: the kong stands, is paid (the dealer's: ×2
    # from everyone), and its replacement draw follows
    assert events[-2] == {
        "type": "kong_paid",
        "seat": 0,
        "kind": "added_kong",
        "tile": "8s",
        "payments": [6, -2, -2, -2],
    }
    assert events[-1]["type"] == "draw" and events[-1]["from"] == "back"
    assert state.phase == "turn" and state.turn == 0


REPLAYS = Path(__file__).resolve().parent.parent / "examples" / "replay"


@pytest.mark.parametrize(
    ("name", "winner", "payments"),
    [
        ("baishan-declare-ready.json", 0, [80, -32, -16, -32]),
        ("baishan-split-win.json", 2, [-32, -16, 64, -16]),
        ("baishan-kong-drawn.json", None, [-4, 8, -2, -2]),
        ("baishan-one-winner.json", 3, [-16, -16, -8, 40]),
    ],
)
def test_replay_examples(name, winner, payments):
    script = json.loads((REPLAYS / name).read_text(encoding="utf-8"))
    end = run_script(script).events[-1]
    assert (end["winner"], end["payments"]) == (winner, payments)


def test_replay_example_of_an_illegal_declaration():
    script = json.loads((REPLAYS / "baishan-illegal-declare-ready.json").read_text("utf-8"))
    with pytest.raises(ScriptIllegal) as error:
        run_script(script)
    assert error.value.index == 0


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    code = "from laizi.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_replay_declare_ready_and_an_illegal_one():
    done = cli("replay", str(REPLAYS / "baishan-declare-ready.json"))
    assert done.returncode == 0, done.stderr
    end = json.loads(done.stdout.splitlines()[-1])
    assert (end["winner"], end["payments"]) == (0, [80, -32, -16, -32])
    bad = cli("replay", str(REPLAYS / "baishan-illegal-declare-ready.json"), "--lang", "zh")
    assert bad.returncode == 3
    assert "不能报听" in bad.stderr and "action" not in bad.stdout


def test_cli_deal_baishan_records_verify():
    seed = "07" * 32
    done = cli("deal", "--rules", "baishan", "--seed", seed, "--hands", "2")
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout.splitlines()[0])
    assert first["game"] == "baishan" and first["rules"]["preset"] == "baishan"
    checked = cli("verify", "-", stdin=done.stdout)
    assert checked.returncode == 0 and checked.stdout.startswith("ok: 2 hand(s) verified")


def test_a_match_moves_the_dealer_by_part_b_and_keeps_kong_payments_in_the_totals():
    import hashlib
    import random as stdlib_random

    from laizi.engine import Match, play_out

    match = Match(make_ruleset("baishan"), dealer=0)
    rng = stdlib_random.Random(9)
    seen = set()
    for index in range(40):
        dealer = match.dealer
        state, first = match.deal(hashlib.sha256(index.to_bytes(4, "big")).digest())
        events = play_out(state, eager_choice(rng))
        match.finish(first + events)
        winner = state.result["winner"]
        expected = dealer if winner in (None, dealer) else (dealer + 1) % 4
        assert match.dealer == expected
        seen.add("stays" if expected == dealer else "moves")
        assert sum(match.totals) == 0
        assert events[-1]["type"] == "end"
    assert seen == {"stays", "moves"}


def eager_choice(rng):
    def choose(actions):
        wins = [a for a in actions if a.type == "win"]
        if wins:
            return wins[0]
        claims = [a for a in actions if a.type in ("pung", "kong", "concealed_kong", "chow")]
        return rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(actions)

    return choose
