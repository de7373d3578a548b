"""Adding a game is one folder plus one registry line (docs/architecture.md, "Adding a game").

The toy game here is Wuhan with two differences: several claims to one discard are settled
from the seat after the discarder (whatever the room's ``win_priority``), and the caps are
lower.  Its
ruleset overrides one hook; its settings are Wuhan's with other caps; one line registers it —
and the engine plays it without knowing it exists.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path

import pytest

from laizi.engine import HandState, apply, legal_actions, new_hand
from laizi.engine.wall import wall_from_parts
from laizi.rules import Game, Settings, find_game, make_ruleset, preset
from laizi.rules.registry import GAMES
from laizi.rules.wuhan import WuhanRuleset
from laizi.tiles import parse_tile, parse_tiles

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "replay"


class ToyRuleset(WuhanRuleset):
    """Wuhan, but the seat after the discarder wins a contested discard first."""

    game = "toy"

    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        return [(discarder + k) % 4 for k in (1, 2, 3)]


def toy_settings() -> Settings:
    """Wuhan's 开口翻 with the minimum off and lower caps: 封顶 100, 金顶 150 …"""
    wuhan = preset("wuhan-hongzhong-kaikou")
    return dataclasses.replace(
        wuhan,
        preset="toy",
        game="toy",
        min_points=Fraction(0),
        cap=Fraction(100),
        golden_cap=Fraction(150),
        sunshine_cap=Fraction(200),
        three_suns_cap=Fraction(250),
    )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    # The one line that adds a game (here undone after the test):
    monkeypatch.setitem(GAMES, "toy", Game("toy", f"{__name__}:ToyRuleset", "toy"))
    yield toy_settings()


def test_the_registry_finds_the_new_game(toy: Settings) -> None:
    assert find_game("toy").ruleset_class() is ToyRuleset
    ruleset = make_ruleset(toy)
    assert isinstance(ruleset, ToyRuleset) and ruleset.settings.cap == 100
    assert list(ruleset.win_order(dealer=0, discarder=2)) == [3, 0, 1]
    assert list(make_ruleset("wuhan-hongzhong-kaikou").win_order(0, 2)) == [0, 1, 3]


def test_without_its_line_the_game_is_unknown() -> None:
    assert "toy" not in GAMES
    with pytest.raises(ValueError, match="unknown game 'toy'"):
        find_game("toy")


def replay(settings: Settings, script: dict) -> tuple[HandState, list[dict]]:
    """The example script's hand under ``settings``: the same wall, the same decisions."""
    dealer = script["dealer"]
    dealt = [parse_tiles(script["hands"][(dealer + k) % 4]) for k in range(4)]
    wall = wall_from_parts(
        dealt, [parse_tile(script["indicator"])], [parse_tile(t) for t in script["draws"]], []
    )
    state, events = new_hand(make_ruleset(settings), dealer, wall=wall)
    for step in script["actions"]:
        legal = legal_actions(state, step["seat"])
        tile = parse_tile(step["tile"]) if "tile" in step else None
        action = next(a for a in legal if a.type == step["type"] and a.tile in (tile, None))
        events += apply(state, action)
    return state, events


def test_a_contested_discard_goes_to_the_seat_after_the_discarder(toy: Settings) -> None:
    # Seat 2 discards 5s, seats 1 and 3 both win on it (examples/replay): Wuhan counts from the
    # dealer (seat 0) and seat 1 wins; the toy counts from the discarder and seat 3 wins.
    script = json.loads((EXAMPLES / "one_winner_per_discard.json").read_text("utf-8"))
    wuhan = Settings.from_json(script["rules"])
    assert replay(wuhan, script)[0].result["winner"] == 1
    state, events = replay(toy, script)
    assert state.result["winner"] == 3 and events[0]["game"] == "toy"
    assert sum(Fraction(p) for p in state.result["payments"]) == 0


def play(settings: Settings, seed: int) -> tuple[HandState, list[dict]]:
    """A random hand where every seat takes a win whenever it may and claims often."""
    rng = random.Random(seed)
    state, events = new_hand(make_ruleset(settings), dealer=seed % 4, seed=rng.randbytes(32))
    for _ in range(1000):
        if state.over:
            break
        legal = legal_actions(state, state.to_act()[0])
        wins = [a for a in legal if a.type == "win"]
        claims = [a for a in legal if a.type in ("pung", "kong", "chow")]
        action = wins[0] if wins else (claims[0] if claims and rng.random() < 0.6 else None)
        events += apply(state, action or rng.choice(legal))
    assert state.over
    return state, events


def test_random_hands_of_the_new_game_conserve_tiles_and_are_zero_sum(toy: Settings) -> None:
    for seed in range(40):
        state, events = play(toy, seed)
        assert state.tiles_in_play() == [4] * 34
        payments = [Fraction(p) for p in state.result["payments"]]
        assert sum(payments) == 0 and events[0]["game"] == "toy"
        if state.result["reason"] == "win":
            # Each loser's share is capped at the toy's highest cap (三阳开泰 250), so the
            # winner takes at most three of them (a contract moves them, it adds nothing).
            assert 0 < payments[state.result["winner"]] <= 3 * 250
