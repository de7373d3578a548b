"""What the bots, the hints and the engine ask a ruleset, answered by each game's ruleset
(laizi.rules.ruleset: readiness locks, refusals, the value model of the expert's search)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from laizi.engine import Action, legal_actions, why_illegal
from laizi.engine.hints import refusal_reasons
from laizi.rules import make_ruleset
from laizi.rules.ruleset import HandView
from laizi.rules.wuhan import WuhanRuleset
from laizi.tiles import parse_tile
from tests.engine_helpers import apply_json, deal_json


@dataclass
class Seat:
    """A seat as the value model reads it (laizi.rules.ruleset.PublicSeat)."""

    seat: int
    multiplier: int = 1
    openings: int = 0
    declared_ready: bool = False
    hand_size: int = 13
    meld_suits: set[int] = field(default_factory=set)


def test_each_game_says_what_a_hand_may_use_and_needs() -> None:
    wuhan, baishan = make_ruleset("wuhan-hongzhong-kaikou"), make_ruleset("baishan")
    assert (wuhan.must_open_to_win(), baishan.must_open_to_win()) == (True, False)
    assert (wuhan.has_wild_tiles(), baishan.has_wild_tiles()) == (True, False)
    assert (wuhan.wins_special_shapes(), baishan.wins_special_shapes()) == (False, True)


@pytest.mark.parametrize(
    ("rules", "openings", "kong", "factor"),
    [
        ("wuhan-hongzhong-kaikou", 0, False, 2.0),  # 开口翻: the first opening doubles
        ("wuhan-hongzhong-kaikou", 1, False, 1.0),
        ("wuhan-hongzhong-kaikou", 1, True, 2.0),  # an exposed kong doubles again
        ("wuhan-hongzhong-koukou", 1, False, 2.0),  # 口口翻: every opening doubles
        ("wuhan-hongzhong-koukou", 0, True, 4.0),
        ("baishan", 0, False, 0.5),  # 立门 is lost
        ("baishan", 2, True, 1.0),
    ],
)
def test_a_claim_changes_what_the_seat_pays_as_its_game_says(
    rules: str, openings: int, kong: bool, factor: float
) -> None:
    assert make_ruleset(rules).claim_loss_factor(openings, kong) == factor


def test_wuhan_losses_follow_the_multipliers_up_to_the_cap() -> None:
    rules = make_ruleset("wuhan-hongzhong-kaikou")  # unit 1, cap 300
    winner, loser = Seat(1, multiplier=4), Seat(0, multiplier=2)
    # 1 × 4 × 2 × 2 (the discarder) × 1.5 (a common win's own factors)
    assert rules.loss_estimate(winner, loser, 3, discarder=True, multiplier=2) == 24.0
    assert rules.loss_estimate(winner, loser, 3, discarder=False, multiplier=4) == 24.0
    assert (
        rules.loss_estimate(Seat(1, multiplier=64), loser, 3, discarder=True, multiplier=8) == 300
    )


def test_baishan_losses_count_fans_up_to_six() -> None:
    rules = make_ruleset("baishan")  # unit 1, at most 2^6
    plain_winner, loser = Seat(1), Seat(0, openings=1)
    assert rules.loss_estimate(plain_winner, loser, 2, discarder=False, multiplier=1) == 4.0
    # 点炮 +1, 报听 +1, the loser deals +1: 2^5
    ready = Seat(1, declared_ready=True)
    assert rules.loss_estimate(ready, loser, 0, discarder=True, multiplier=1) == 32.0
    closed = Seat(0, openings=0, multiplier=2)  # 立门 +1: capped at 2^6; a claim halves it
    assert rules.loss_estimate(ready, closed, 0, discarder=True, multiplier=2) == 64.0
    assert rules.loss_estimate(ready, closed, 0, discarder=True, multiplier=1) == 32.0


def test_wuhan_contracts_make_a_discard_cost_more() -> None:
    rules = make_ruleset("wuhan-hongzhong-kaikou")
    loser, five_p = Seat(0, multiplier=2), parse_tile("5p")
    plain = rules.deal_in_loss(
        Seat(1, multiplier=4), loser, 3, five_p, ready=False, threat=0.5, chance=0.5
    )
    assert plain == 0.25 * 24
    # 全求人: the winner holds one tile and the discarder was not ready: it pays for all three.
    alone = Seat(1, multiplier=4, openings=4, hand_size=1)
    assert rules.deal_in_loss(alone, loser, 3, five_p, ready=False, threat=0.5, chance=0.5) == 18
    assert rules.deal_in_loss(alone, loser, 3, five_p, ready=True, threat=0.5, chance=0.5) == 6
    # 三句包: a third opening toward a visible 清一色 of dots.
    dots = Seat(1, multiplier=4, openings=2, meld_suits={1})
    risky = rules.deal_in_loss(dots, loser, 3, five_p, ready=False, threat=0.5, chance=0.5)
    assert risky == pytest.approx(6 + 0.3 * 0.5 * 3 * 12)
    east = parse_tile("1z")
    assert rules.deal_in_loss(dots, loser, 3, east, ready=False, threat=0.5, chance=0.5) == 6
    # Baishan has no contracts: the discard's loss alone.
    baishan = make_ruleset("baishan")
    assert (
        baishan.deal_in_loss(
            alone, Seat(0, openings=1), 2, five_p, ready=False, threat=1.0, chance=0.5
        )
        == 4.0
    )


def test_the_hints_refusals_come_from_the_games() -> None:
    wuhan, baishan = make_ruleset("wuhan-hongzhong-kaikou"), make_ruleset("baishan")
    assert set(refusal_reasons()) == {
        "below_minimum",
        "two_laizi_small",
        "not_opened",
        "holding_must_gang",
        "no_terminal",
        "no_triplet",
        "pass_win_locked",
        "not_allowed",
    }
    assert set(baishan.refusal_reasons()) == {
        "no_terminal",
        "no_triplet",
        "pass_win_locked",
        "not_allowed",
    }
    assert wuhan.hint_reason("holds_special") == "holding_must_gang"
    assert (
        wuhan.hint_reason("below_minimum")
        == baishan.hint_reason("below_minimum")
        == "below_minimum"
    )
    assert wuhan.refused_by_the_hand("not_opened") and not wuhan.refused_by_the_hand(
        "below_minimum"
    )
    assert baishan.refused_by_the_hand("no_triplet") and not baishan.refused_by_the_hand(
        "not_opened"
    )


class LockedSeatOne(WuhanRuleset):
    """Wuhan with a made-up rule: seat 1's hand is locked from the start."""

    def hand_locked(self, state: HandView, seat: int) -> bool:
        return seat == 1


def test_the_engine_asks_the_ruleset_whether_a_hand_is_locked() -> None:
    rules = LockedSeatOne(make_ruleset("wuhan-hongzhong-kaikou").settings)
    state, _ = deal_json(rules, 0, seed=bytes(32))
    turns = 0
    while not state.over and turns < 12:
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        if 1 in state.to_act() and state.phase == "claim":
            assert {a.type for a in legal_actions(state, 1)} <= {"win", "pass"}
        if seat == 1 and state.phase == "turn":
            turns += 1
            assert state.drawn is not None
            assert all(
                a.type == "win" or (a.type, a.tile) == ("discard", state.drawn) for a in legal
            )
            other = next(t for t in range(34) if state.players[1].counts[t] and t != state.drawn)
            assert "the hand is locked" in why_illegal(state, Action(1, "discard", other))
        passing = [a for a in legal if a.type == "pass"]
        apply_json(state, passing[0] if passing else legal[0])
    assert turns >= 3


def test_a_game_without_readiness_says_so() -> None:
    state, _ = deal_json(make_ruleset("wuhan-hongzhong-kaikou"), 0, seed=bytes(32))
    held = next(t for t in range(34) if state.players[0].counts[t])
    assert why_illegal(state, Action(0, "declare_ready", held)) == (
        "these rules have no 报听 (declaring ready)"
    )
