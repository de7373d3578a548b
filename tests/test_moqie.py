"""摸切 in the streams: a discard's copy says whether it was the tile just drawn (``moqie``), the
same for every viewer, never in the record (engine/table_data.py ``moqie``)."""

from __future__ import annotations

from typing import Any

from laizi.engine import make_ruleset, seat_event
from laizi.engine.actions import Action
from laizi.engine.events import TILE
from laizi.engine.game import legal_actions
from laizi.engine.script import run_script
from laizi.engine.state import CLAIM, ROB
from laizi.engine.view import as_streamed, view
from tests.engine_helpers import apply_json, deal_json, script

HANDS = [
    "1111m 3m5m7m 2p4p6p 2s4s6s 3z",
    "333z 2m4m6m 3p5p7p 3s5s7s 1p",
    "22m 1p9p 1s9s 1z2z4z5z6z 8m8p",
    "4m8m9m 1p3p4p7p8p 1s2s4s 6z 7z",
]
ACTIONS = [
    "0 concealed_kong 1m",  # replacement 9m
    "0 discard 9m",  # the replacement: 摸切
    "1 discard 2m",  # drew 1s, threw from the hand
    "2 pung",
    "2 discard 1z",  # after a pung: nothing drawn
    "3 discard 5s",  # drew 5s: 摸切
    "0 discard 3z",  # drew 7p
    "1 kong",  # replacement 8p
    "1 discard 1p",  # after the kong's replacement, threw from the hand
    "2 discard 6p",  # drew 6p: 摸切
]
VIEWERS: list[int | None] = [None, 0, 1, 2, 3]


def played() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The record so far and its streamed copies, decision by decision (other seats pass)."""
    obj = script(HANDS, ACTIONS, draws=["1s", "5s", "7p", "6p"], replacements=["9m", "8p"])
    state = run_script(obj, stop_after=0).state
    record: list[dict[str, Any]] = []
    streamed: list[dict[str, Any]] = []
    for text in ACTIONS:
        seat, kind, *rest = text.split()
        while state.phase in (CLAIM, ROB) and kind not in ("pung", "kong", "chow"):
            passer = state.to_act()[0]
            events = apply_json(state, Action(passer, "pass"))
            record += events
            streamed += as_streamed(state, events)
        wanted = [
            a
            for a in legal_actions(state, int(seat))
            if a.type == kind and (not rest or a.to_json().get("tile") == rest[0])
        ]
        assert len(wanted) == 1, (text, legal_actions(state, int(seat)))
        events = apply_json(state, wanted[0])
        record += events
        streamed += as_streamed(state, events)
    return record, streamed


def test_each_discard_says_whether_it_was_the_tile_just_drawn() -> None:
    _, streamed = played()
    discards = [(e["seat"], e["tile"], e["moqie"]) for e in streamed if e["type"] == "discard"]
    assert discards == [
        (0, "9m", True),  # a kong's replacement draw counts as the draw
        (1, "2m", False),
        (2, "1z", False),  # right after a pung nothing was drawn
        (3, "5s", True),
        (0, "3z", False),
        (1, "1p", False),  # after a replacement draw, another tile
        (2, "6p", True),
    ]


def test_every_viewer_is_told_the_same_and_the_record_never() -> None:
    record, streamed = played()
    assert not any("moqie" in e for e in record)
    assert [{k: v for k, v in e.items() if k != "moqie"} for e in streamed if "moqie" in e] == [
        e for e in record if e["type"] == "discard"
    ]
    for event in streamed:
        if event["type"] != "discard":
            assert "moqie" not in event
            continue
        told = [seat_event(event, v) for v in VIEWERS]
        assert all(t is not None and t["moqie"] is event["moqie"] for t in told)


def test_a_discard_that_lays_a_tile_out_carries_none_and_a_seeded_hand_agrees() -> None:
    """Over a whole seeded hand: every plain discard carries ``moqie``, true exactly when its
    kind is the tile the seat had just drawn (the dealer's 14th tile, a draw, a replacement);
    a discard laying a tile out carries none."""
    state, first = deal_json(make_ruleset("wuhan-hongzhong-kaikou"), dealer=1, seed=bytes(32))
    assert all("moqie" not in e for e in as_streamed(state, first))
    seen = {True: 0, False: 0}
    while not state.over:
        seat = state.to_act()[0]
        drawn = state.drawn
        legal = legal_actions(state, seat)
        # the first legal action: a discard of the lowest tile, often not the drawn one
        choice = next((a for a in legal if a.type in ("discard", "pass")), legal[0])
        events = apply_json(state, choice)
        for event in as_streamed(state, events):
            if event["type"] != "discard":
                continue
            if event.get("lay_out"):
                assert "moqie" not in event
                continue
            assert event["moqie"] is (drawn is not None and event["tile"] == TILE[drawn])
            seen[event["moqie"]] += 1
    assert seen[True] > 0 and seen[False] > 0


def test_a_view_lists_each_seats_moqie_for_every_viewer() -> None:
    """A snapshot's view gives the same 摸切 indices to every seat and a spectator."""
    obj = script(HANDS, ACTIONS, draws=["1s", "5s", "7p", "6p"], replacements=["9m", "8p"])
    state = run_script(obj, stop_after=len(ACTIONS)).state
    for viewer in VIEWERS:
        players = view(state, viewer)["players"]
        assert [p["moqie"] for p in players] == [[0], [], [1], [0]]
        assert [p["discards"][i] for p in players for i in p["moqie"]] == ["9m", "6p", "5s"]
