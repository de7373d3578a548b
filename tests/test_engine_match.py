"""Matches: hands in a row, the dealer rule, running totals that verify across hands (A9)."""

from __future__ import annotations

import random

from laizi.engine import Action, Match, apply, legal_actions, make_ruleset, parse_record, verify
from laizi.engine.record import to_jsonl


def greedy(rng: random.Random):
    def choose(actions):
        wins = [a for a in actions if a.type == "win"]
        if wins:
            return wins[0]
        claims = [a for a in actions if a.type in ("pung", "kong", "chow")]
        return rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(actions)

    return choose


def play_match(hands: int, seed: int):
    rng = random.Random(seed)
    match = Match(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0)
    record = []
    history = []
    choose = greedy(rng)
    for _ in range(hands):
        dealer = match.dealer
        state, events = match.deal(rng.randbytes(32))
        while not state.over:
            seat = state.to_act()[0]
            events += apply(state, choose(legal_actions(state, seat)))
        match.finish()
        history.append((dealer, state.result["winner"], match.dealer))
        record += events
    return match, record, history


def test_the_dealer_stays_on_a_dealer_win_or_a_drawn_hand_else_moves_on():
    match, _, history = play_match(40, 7)
    for dealer, winner, next_dealer in history:
        expected = dealer if winner in (None, dealer) else (dealer + 1) % 4
        assert next_dealer == expected
    assert any(winner is not None and winner != dealer for dealer, winner, _ in history)
    assert sum(match.totals) == 0


def test_a_match_record_verifies_and_its_running_totals_must_carry_on():
    _, record, _ = play_match(6, 11)
    text = to_jsonl(record)
    verdict = verify(parse_record(text))
    assert verdict.ok and verdict.hands == 6
    events = parse_record(text)
    starts = [i for i, e in enumerate(events) if e["type"] == "start"]
    events[starts[3]]["scores"][0] += 10
    events[starts[3]]["scores"][1] -= 10
    verdict = verify(events)
    assert not verdict.ok
    assert verdict.index == starts[3]


def test_an_escape_ends_the_match_zero_sum():
    match = Match(make_ruleset("wuhan-facai-kaikou"), dealer=1)
    state, _ = match.deal(bytes(32))
    apply(state, legal_actions(state, 1)[0])
    apply(state, Action(3, "abandon"))
    match.finish()
    assert match.over and match.escaped == 3
    assert match.totals[3] == -400 and sum(match.totals) == 0
