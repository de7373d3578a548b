"""The replay viewer's frames (``laizi.web.replay``) show the numbers a table showed live."""

from __future__ import annotations

import random
from typing import Any

from laizi.engine import Game, make_ruleset
from laizi.engine.record import action_of
from laizi.engine.view import as_streamed
from laizi.web.replay import frames
from tests.engine_helpers import apply_json, deal_json


def played(preset: str, seed: int) -> list[dict[str, Any]]:
    """A hand's record: random legal actions, but every win offered is taken."""
    game = Game.deal(preset, seed=seed.to_bytes(32, "big"))
    rng = random.Random(seed)
    while not game.over:
        legal = game.legal_actions(game.to_act[0])
        wins = [a for a in legal if a.type == "win"]
        game.play(wins[0] if wins else rng.choice(legal))
    return game.record


def live_multipliers_by_step(record: list[dict[str, Any]]) -> list[list[Any]]:
    """After each decision, the multipliers a seat at the table last received."""
    start = record[0]
    state, first = deal_json(
        make_ruleset(start["rules"]), start["dealer"], seed=bytes.fromhex(record[-1]["seed"])
    )
    shown: list[Any] = []

    def last(events: list[dict[str, Any]]) -> None:
        carried = [e["multipliers"] for e in events if "multipliers" in e]
        shown.append(carried[-1] if carried else shown[-1])

    last(as_streamed(state, first))
    for event in record[len(first) :]:
        action = action_of(event)
        if action is not None:
            last(as_streamed(state, apply_json(state, action)))
    return shown


def test_every_replay_frame_shows_the_multipliers_the_table_showed():
    for seed in range(6):
        record = played("wuhan-hongzhong-koukou", seed)
        steps = frames(record)
        live = live_multipliers_by_step(record)
        assert len(steps) == len(live)
        for step, sent in zip(steps, live, strict=True):
            assert [p["multiplier"] for p in step["view"]["players"]] == sent


def test_the_last_frame_of_a_dealer_win_shows_the_multipliers_that_were_paid():
    """A7: when the dealer wins, its ×2 sits on each loser; the standing ×2 on the dealer's own
    seat during play is not what the settlement paid (the replay showed M 64 beside M 32)."""
    for seed in range(400):
        record = played("wuhan-hongzhong-kaikou", seed)
        end = record[-1]
        if end.get("winner") == record[0]["dealer"] and "settlement" in end:
            break
    else:  # pragma: no cover - 400 random hands always hold a dealer win
        raise AssertionError("no dealer win in 400 hands")
    steps = frames(record)
    dealer = end["winner"]
    before = steps[-2]["view"]["players"][dealer]["multiplier"]
    assert "dealer" in [f["name"] for f in before["factors"]]  # standing, during play
    shown = [p["multiplier"] for p in steps[-1]["view"]["players"]]
    assert shown == end["settlement"]["multipliers"]
    assert "dealer" not in [f["name"] for f in shown[dealer]["factors"]]
    for seat in range(4):
        if seat != dealer:
            assert "dealer_won" in [f["name"] for f in shown[seat]["factors"]]
