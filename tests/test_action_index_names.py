"""``action_index(a, claim_tile)`` takes the claimed tile as an id or as the name a view gives
(``view["claim"]["tile"]``, e.g. ``"5m"``) — issue 28 item 6."""

from __future__ import annotations

import pytest

from laizi.engine import Action
from laizi.env.spaces import CHOW_HIGH, CHOW_LOW, CHOW_MID
from laizi.env.table import action_index


def test_a_chow_index_from_the_claimed_tile_name_or_id() -> None:
    chow = Action(1, "chow", None, (20, 21, 22))  # 345s
    for tile_id, name, expected in (
        (20, "3s", CHOW_LOW),
        (21, "4s", CHOW_MID),
        (22, "5s", CHOW_HIGH),
    ):
        assert action_index(chow, claim_tile=name) == expected
        assert action_index(chow, claim_tile=tile_id) == expected
    with pytest.raises(ValueError, match="claimed tile"):
        action_index(chow, claim_tile="7p")  # not in the sequence
    with pytest.raises(ValueError):
        action_index(chow, claim_tile="xx")


def test_a_claim_from_a_real_view_indexes_the_legal_chow() -> None:
    from laizi.engine import Game

    for seed in range(40):
        game = Game.deal("wuhan-hongzhong-kaikou", seed=seed.to_bytes(32, "big"))
        while not game.over:
            for seat in game.to_act:
                view = game.view(seat)
                for action in game.legal_actions(seat):
                    if action.type == "chow":
                        name = view["claim"]["tile"]
                        by_name = action_index(action, claim_tile=name)
                        assert by_name == action_index(action, claim_tile=game.state.claim_tile)
                        return
            _ = game.play(game.legal_actions(game.to_act[0])[0])
    pytest.fail("no chow offered in 40 hands")
