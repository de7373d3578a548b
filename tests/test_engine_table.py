"""``Game``: a hand as one object, its record verifying at the end."""

import random

import pytest

from laizi.engine import Action, Game, IllegalAction, parse_record, verify


def test_a_game_plays_to_its_end_and_its_record_verifies():
    rng = random.Random(9)
    game = Game.deal(
        {"preset": "wuhan-facai-koukou", "min_points": 0}, seed=rng.randbytes(32), dealer=3
    )
    while not game.over:
        seat = game.to_act[0]
        game.play(rng.choice(game.legal_actions(seat)))
    assert game.result["reason"] in ("win", "drawn")
    assert verify(parse_record(game.jsonl())).ok
    assert len(game.events_for(0)) <= len(game.record)
    assert game.view()["result"]["payments"] == game.record[-1]["payments"]


def test_an_illegal_play_changes_nothing():
    game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
    with pytest.raises(IllegalAction) as caught:
        game.play(Action(1, "discard", 0))
    assert "seat 0's turn" in caught.value.reason
    assert len(game.record) == 2 and game.to_act == [0]
