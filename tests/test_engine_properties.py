"""Properties over thousands of random-action hands in all six Wuhan presets and Baishan (Part C).

Tiles are conserved, points are zero-sum, every record replays to the identical state and
verifies, and a seat's view never depends on what it may not see.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi.engine import (
    Action,
    HandState,
    legal_actions,
    make_ruleset,
    parse_record,
    replay_record,
    to_jsonl,
    verify,
    view,
)
from laizi.rules import PRESETS
from tests.engine_helpers import apply_json, deal_json, hidden_shuffled

PRESET_NAMES = sorted(PRESETS)
HANDS_PER_PRESET = 300  # 7 × 300 = 2,100 hands


def greedy(rng: random.Random) -> Callable[[Sequence[Action]], Action]:
    """Wins whenever it can and claims often, so that many hands end in a settlement."""

    def choose(actions: Sequence[Action]) -> Action:
        for action in actions:
            if action.type == "win":
                return action
        ready = [a for a in actions if a.type == "declare_ready"]
        if ready and rng.random() < 0.5:
            return rng.choice(ready)  # 报听 (Baishan): the locked hands get played too
        claims = [a for a in actions if a.type in ("pung", "kong", "chow", "added_kong")]
        if claims and rng.random() < 0.7:
            return rng.choice(claims)
        return rng.choice(actions)

    return choose


def check_step(state: HandState, rng: random.Random) -> None:
    assert state.tiles_in_play() == [4] * 34
    for seat in (0, 1, 2, 3, None):
        shown = view(state, seat)
        assert "wall" not in shown
        if state.phase != "over":
            assert view(hidden_shuffled(state, seat, rng), seat) == shown


def play_and_check(preset: str, seed: bytes, rng: random.Random, deep: bool) -> str:
    ruleset = make_ruleset(preset)
    state, events = deal_json(ruleset, rng.randrange(4), seed=seed)
    choose = greedy(rng) if rng.random() < 0.5 else rng.choice
    step = 0
    while not state.over:
        if deep and step % 7 == 0:
            check_step(state, rng)
        seat = state.to_act()[0]
        events += apply_json(state, choose(legal_actions(state, seat)))
        step += 1
    assert state.tiles_in_play() == [4] * 34
    payments = state.result["payments"]
    assert sum(payments) == 0
    # Kong payments made on the spot (Baishan) stand whatever the end; the rest is the hand's.
    kongs = state.kong_paid
    assert sum(kongs) == 0
    hand = [p - k for p, k in zip(payments, kongs, strict=True)]
    if state.result["reason"] == "win":
        winner = state.result["winner"]
        assert hand[winner] > 0
        assert all(p <= 0 for s, p in enumerate(hand) if s != winner)
        # The settlement (laizi score) counts the same kongs from the melds on the table.
        assert list(state.result["settlement"].payments) == list(payments)
    else:
        assert all(p == 0 for p in hand)
    record = parse_record(to_jsonl(events))
    replayed, produced = replay_record(record)
    assert produced == record
    assert replayed.players == state.players
    assert replayed.result["payments"] == payments
    if deep:
        assert verify(record).ok
        check_step(state, rng)
    return state.result["reason"]


def test_two_thousand_random_hands_across_all_presets():
    rng = random.Random(20261130)
    reasons: dict[str, int] = {}
    total = HANDS_PER_PRESET * len(PRESET_NAMES)
    for index in range(total):
        preset = PRESET_NAMES[index % len(PRESET_NAMES)]
        reason = play_and_check(preset, rng.randbytes(32), rng, deep=index % 25 == 0)
        reasons[reason] = reasons.get(reason, 0) + 1
    assert total >= 2100
    assert reasons.get("win", 0) >= 40, reasons  # settlements are exercised, not only draws


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.binary(min_size=32, max_size=32),
    preset=st.sampled_from(PRESET_NAMES),
    actions=st.integers(min_value=0, max_value=2**32),
)
def test_any_seed_plays_a_consistent_hand(seed, preset, actions):
    play_and_check(preset, seed, random.Random(actions), deep=True)


def test_the_cheap_refusals_never_hide_a_win_scoring_would_allow():
    """The Wuhan ruleset refuses before scoring (not opened, must-gang held, no shape); on every
    discard of 300 claim-happy hands its answer equals ``laizi.scoring.score`` asked directly."""
    from laizi.scoring import score

    rng = random.Random(77)
    allowed_seen = 0
    for index in range(300):
        ruleset = make_ruleset(PRESET_NAMES[index % len(PRESET_NAMES)])
        state, _ = deal_json(ruleset, index % 4, seed=rng.randbytes(32))
        choose = greedy(rng)
        while not state.over:
            if state.phase == "claim":
                tile, discarder = state.claim_tile, state.claim_from
                for seat in range(4):
                    if seat == discarder:
                        continue
                    full = score(ruleset.situation(state, seat, tile, "discard")).allowed
                    offered = ruleset.win_offer(state, seat, tile, "discard") is not None
                    assert full == offered
                    allowed_seen += full
            seat = state.to_act()[0]
            apply_json(state, choose(legal_actions(state, seat)))
    assert allowed_seen > 0


def test_an_illegal_action_is_refused_with_a_reason_and_changes_nothing():
    import pytest

    from laizi.engine import IllegalAction
    from laizi.engine.actions import ACTION_TYPES

    rng = random.Random(11)
    tried = 0
    for index in range(60):
        state, _ = deal_json(
            make_ruleset(PRESET_NAMES[index % 6]), index % 4, seed=rng.randbytes(32)
        )
        choose = greedy(rng)
        while not state.over:
            seat = state.to_act()[0]
            legal = legal_actions(state, seat)
            for _ in range(3):
                kind = rng.choice([t for t in ACTION_TYPES if t != "abandon"])
                tile = (
                    rng.randrange(34)
                    if kind
                    in ("discard", "lay_out", "concealed_kong", "added_kong", "declare_ready")
                    else None
                )
                low = rng.randrange(27)
                tiles = (low, low + 1, low + 2) if kind == "chow" else None
                action = Action(rng.randrange(4), kind, tile, tiles)
                if action in legal_actions(state, action.seat):
                    continue
                before = (state.events, state.phase, state.tiles_in_play(), view(state, None))
                with pytest.raises(IllegalAction) as caught:
                    apply_json(state, action)
                assert caught.value.reason
                assert (
                    state.events,
                    state.phase,
                    state.tiles_in_play(),
                    view(state, None),
                ) == before
                tried += 1
            apply_json(state, choose(legal))
    assert tried > 1000


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.binary(min_size=32, max_size=32),
    preset=st.sampled_from(PRESET_NAMES),
    choices=st.integers(min_value=0, max_value=2**32),
    split=st.integers(0, 120),
)
def test_a_copy_plays_on_independently_and_identically(seed, preset, choices, split):
    """``HandState.copy()`` (for bots that search): the copy and the original, given the same
    decisions, produce the same events, and playing one never touches the other."""
    state, _ = deal_json(make_ruleset(preset), 0, seed=seed)
    rng = random.Random(choices)
    for _ in range(split):
        if state.over:
            break
        seat = state.to_act()[0]
        apply_json(state, rng.choice(legal_actions(state, seat)))
    twin = state.copy()
    frozen = view(twin, None), twin.tiles_in_play(), twin.events
    plan = random.Random(choices + 1)
    picks = []
    original_events = []
    while not state.over:
        seat = state.to_act()[0]
        pick = plan.randrange(1 << 30)
        picks.append(pick)
        legal = legal_actions(state, seat)
        original_events += apply_json(state, legal[pick % len(legal)])
    assert (view(twin, None), twin.tiles_in_play(), twin.events) == frozen
    twin_events = []
    for pick in picks:
        seat = twin.to_act()[0]
        legal = legal_actions(twin, seat)
        twin_events += apply_json(twin, legal[pick % len(legal)])
    assert twin.over and twin_events == original_events
