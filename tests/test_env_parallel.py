"""laizi.env.parallel: the PettingZoo ParallelEnv (wuhan_v0 / baishan_v0 ``parallel_env``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from laizi.env import baishan_v0, wuhan_v0
from laizi.env.aec import AGENTS
from laizi.env.table import IllegalActionIndex
from laizi.env.wuhan_v0 import WUHAN_PRESETS

GAMES = [*WUHAN_PRESETS, "baishan"]


def _make(preset, **kwargs):
    if preset == "baishan":
        return baishan_v0.parallel_env(**kwargs)
    return wuhan_v0.parallel_env(preset, **kwargs)


@pytest.mark.parametrize("preset", GAMES)
def test_parallel_api_test_passes_without_warnings(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a live agent without an observation would warn
        parallel_api_test(_make(preset), num_cycles=400)


def _choose(rngs, agent, mask):
    legal = np.flatnonzero(mask)
    return int(legal[rngs[agent].integers(len(legal))])


@pytest.mark.parametrize("preset", ["wuhan-qipi-koukou", "baishan"])
def test_the_same_decisions_play_the_same_hand_as_the_aec_env(preset):
    """Per seat the same stream of choices: the parallel env ends every hand exactly as the AEC
    env (same walls from the seed, deciding seats applied in the AEC env's order)."""
    aec = baishan_v0.env() if preset == "baishan" else wuhan_v0.env(preset)
    par = _make(preset)
    claim_steps = 0
    for hand_seed in (3, 4, 5):
        rngs = {agent: np.random.default_rng(hand_seed * 10 + k) for k, agent in enumerate(AGENTS)}
        aec.reset(seed=hand_seed)
        aec_result = None
        for agent in aec.agent_iter():
            obs, _, terminated, _, info = aec.last()
            if terminated:
                aec_result = info["result"]
                aec.step(None)
                continue
            aec.step(_choose(rngs, agent, obs["action_mask"]))
        rngs = {agent: np.random.default_rng(hand_seed * 10 + k) for k, agent in enumerate(AGENTS)}
        observations, infos = par.reset(seed=hand_seed)
        while par.agents:
            deciding = [a for a in par.agents if infos[a]["action_mask"].any()]
            assert deciding == par.deciding() and deciding
            claim_steps += len(deciding) > 1
            for agent in par.agents:
                assert np.array_equal(
                    observations[agent]["action_mask"], infos[agent]["action_mask"]
                )
            actions = {
                agent: _choose(rngs, agent, infos[agent]["action_mask"]) for agent in deciding
            }
            observations, rewards, terminations, truncations, infos = par.step(actions)
            assert set(observations) == set(AGENTS)
            assert not any(truncations.values())
        assert all(terminations.values())
        assert infos["player_0"]["result"] == aec_result
        assert [rewards[a] for a in AGENTS] == aec_result["payments"]
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-6)
    assert claim_steps > 0  # some windows had several seats deciding at once


def test_non_deciding_agents_actions_are_ignored_and_deciding_ones_are_checked():
    env = wuhan_v0.parallel_env()
    _, infos = env.reset(seed=7)
    (dealer,) = env.deciding()
    legal = np.flatnonzero(infos[dealer]["action_mask"])
    illegal = int(np.flatnonzero(infos[dealer]["action_mask"] == 0)[0])
    before = env.table.state.events
    with pytest.raises(IllegalActionIndex, match=dealer):
        env.step({dealer: illegal})
    with pytest.raises(ValueError, match="missing"):
        env.step({a: 0 for a in AGENTS if a != dealer})
    assert env.table.state.events == before  # nothing changed
    others = {a: 176 for a in AGENTS if a != dealer}  # ignored (no-op), even if not legal
    observations, rewards, *_ = env.step({dealer: int(legal[0]), **others})
    assert env.table.state.events > before
    assert set(rewards.values()) == {0.0}
    assert set(observations) == set(AGENTS)


def test_parallel_env_refuses_the_other_games_preset():
    with pytest.raises(ValueError, match="not a Wuhan preset"):
        wuhan_v0.parallel_env("baishan")
    with pytest.raises(ValueError, match="not the Baishan preset"):
        baishan_v0.parallel_env("wuhan-hongzhong-kaikou")
