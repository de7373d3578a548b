"""Matches: hands in a row, the dealer rule, running totals that verify across hands (A9)."""

from __future__ import annotations

import random
from fractions import Fraction

from laizi.engine import Action, Match, make_ruleset, parse_record, play_out, verify
from laizi.engine.events import hand_digest
from laizi.engine.record import to_jsonl
from tests.engine_helpers import apply_json, deal_json, play_match


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
    assert "totals" in verdict.message


def test_a_match_record_with_the_wrong_next_dealer_is_rejected():
    _, record, _ = play_match(6, 11)
    events = parse_record(to_jsonl(record))
    starts = [i for i, e in enumerate(events) if e["type"] == "start"]
    # Re-deal hand 4 from the same seed and totals but another dealer, and play it honestly:
    # the hand replays, the dealer rule (A9) does not hold.
    start = events[starts[4]]
    seed = bytes.fromhex(events[starts[5] - 1]["seed"])
    wrong = (start["dealer"] + 1) % 4
    state, hand = deal_json(
        make_ruleset(start["rules"]),
        wrong,
        seed=seed,
        hand_number=4,
        scores=tuple(Fraction(str(x)) for x in start["scores"]),
        previous=start["previous"],
    )
    hand += play_out(state, random.Random(1).choice)
    events = events[: starts[4]] + parse_record(to_jsonl(hand)) + events[starts[5] :]
    verdict = verify(events)
    assert not verdict.ok and verdict.index == starts[4]
    assert "dealer" in verdict.message


def test_nothing_may_follow_an_escape():
    match = Match(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0)
    state, first = match.deal(bytes(32))
    first += apply_json(state, Action(1, "abandon"))
    state, second = deal_json(
        make_ruleset("wuhan-hongzhong-kaikou"),
        0,
        seed=bytes(range(32)),
        hand_number=1,
        scores=tuple(state.result["payments"]),
        previous=hand_digest(first),
    )
    second += play_out(state, random.Random(2).choice)
    verdict = verify(parse_record(to_jsonl(first + second)))
    assert not verdict.ok and "escape" in verdict.message
