"""laizi.env.match: a whole match as one AEC episode (totals, the dealer rule)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from laizi.engine import make_ruleset
from laizi.env import baishan_v0, wuhan_v0
from laizi.env.aec import AGENTS, first_dealer
from laizi.env.spaces import WIN_ACTION


@pytest.mark.parametrize(
    "make", [lambda: wuhan_v0.match_env(hands=3), lambda: baishan_v0.match_env(hands=2)]
)
def test_api_test_passes(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(), num_cycles=600)


def test_seed_test_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: wuhan_v0.match_env(hands=2), num_cycles=300)


def _play(env, seed, rng):
    """Play a whole match with random legal actions (a win whenever offered): per agent the
    rewards seen, every hand's result, and the match observation at each hand's first step."""
    env.reset(seed=seed)
    returns = dict.fromkeys(AGENTS, 0.0)
    firsts = []
    last_hand = -1
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if env.unwrapped.hands_played != last_hand:
            last_hand = env.unwrapped.hands_played
            firsts.append((agent, obs["match"].copy()))
        legal = np.flatnonzero(obs["action_mask"])
        env.step(WIN_ACTION if WIN_ACTION in legal else int(rng.choice(legal)))
    return returns, env.unwrapped.results, firsts


def test_a_match_books_totals_follows_the_dealer_rule_and_pays_each_hand():
    # Baishan, seed 18: a non-dealer win (the deal passes on), a dealer win and drawn hands
    # (it stays) — random Wuhan play hardly ever wins.
    env = baishan_v0.match_env(hands=6, reward_scale=0.5)
    rules = make_ruleset("baishan")
    returns, results, firsts = _play(env, 18, np.random.default_rng(4))
    inner = env.unwrapped
    assert inner.hands_played == 6 and [r["hand"] for r in results] == list(range(6))
    totals = [
        sum(Fraction(r["payments"][s]).limit_denominator() for r in results) for s in range(4)
    ]
    assert [float(t) for t in totals] == pytest.approx([float(t) for t in inner.totals])
    assert results[-1]["totals"] == pytest.approx([float(t) for t in inner.totals])
    assert sum(inner.totals) == 0
    # the return of a match is each seat's total, scaled
    assert [returns[a] for a in AGENTS] == pytest.approx([0.5 * float(t) for t in inner.totals])
    # the dealer rule between hands, the seed's first dealer
    assert inner.dealers == [1, 2, 2, 2, 2, 3]
    assert inner.dealers[0] == first_dealer(18, 0)
    reasons = [r["reason"] for r in results]
    assert "drawn" in reasons and "win" in reasons  # the deal both stays and moves below
    assert len(set(inner.dealers)) > 1
    for before, after, result in zip(inner.dealers, inner.dealers[1:], results, strict=False):
        assert result["dealer"] == before
        assert after == rules.next_dealer(before, result["winner"])
    # the match entry: totals before the hand relative to the viewer, hands played and left
    running = [0.0] * 4
    for k, (agent, match) in enumerate(firsts):
        seat = AGENTS.index(agent)
        expected = [0.5 * running[(seat + j) % 4] for j in range(4)] + [k, 6 - k]
        assert match.tolist() == pytest.approx(expected)
        for s in range(4):
            running[s] += results[k]["payments"][s]


def test_match_seeds_reproduce_and_hands_must_be_positive():
    a = _play(wuhan_v0.match_env(hands=3), 5, np.random.default_rng(1))
    b = _play(wuhan_v0.match_env(hands=3), 5, np.random.default_rng(1))
    assert a[1] == b[1]
    with pytest.raises(ValueError, match="hands"):
        wuhan_v0.match_env(hands=0)
