"""laizi.env: the PettingZoo AEC env, the Gymnasium wrapper, the batch API and the encoding."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from laizi.engine import Action, make_ruleset, view
from laizi.env import baishan_v0, wuhan_v0
from laizi.env.aec import AGENTS
from laizi.env.batch import BatchEnv
from laizi.env.single import LaiziGymEnv
from laizi.env.spaces import (
    ADDED_KONG,
    CHOW_HIGH,
    CHOW_LOW,
    CHOW_MID,
    CONCEALED_KONG,
    DECLARE_READY,
    DISCARD,
    KONG_ACTION,
    LAY_OUT,
    NUM_ACTIONS,
    OBS_SHAPE,
    PASS_ACTION,
    PUNG_ACTION,
    WIN_ACTION,
    describe_action,
)
from laizi.env.table import EnvTable, IllegalActionIndex, action_index
from laizi.env.views import encode_view, mask_from_view
from laizi.env.wuhan_v0 import WUHAN_PRESETS as PRESETS


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice for Dict observations
        return fn(*args, **kwargs)


# --- PettingZoo ---------------------------------------------------------------------------------


GAMES = [*PRESETS, "baishan"]
"""Every Wuhan preset, and Baishan."""


@pytest.mark.parametrize("preset", GAMES)
def test_api_test_passes_for_every_preset(preset):
    env = baishan_v0.env() if preset == "baishan" else wuhan_v0.env(preset=preset)
    _quiet(api_test, env, num_cycles=300)


def test_seed_test_same_seed_same_hands():
    _quiet(seed_test, wuhan_v0.env, num_cycles=200)


def test_baishan_env_refuses_a_wuhan_preset_and_wuhan_env_refuses_baishan():
    with pytest.raises(ValueError, match="not the Baishan preset"):
        baishan_v0.env("wuhan-hongzhong-kaikou")
    with pytest.raises(ValueError, match="not a Wuhan preset"):
        wuhan_v0.env(preset="baishan")


def _play_random(env, rng):
    """Play one hand with random legal actions; return the rewards at the end, steps taken."""
    steps = 0
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = (reward, info)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(WIN_ACTION if WIN_ACTION in legal else int(rng.choice(legal)))
        steps += 1
    return final, steps


def test_rewards_are_the_settlement_payments_scaled():
    rng = np.random.default_rng(3)
    env = wuhan_v0.env(preset="wuhan-qipi-kaikou", reward_scale=0.5)
    seen_win = False
    for seed in range(40):
        env.reset(seed=seed)
        state = env.unwrapped.table.state
        final, steps = _play_random(env, rng)
        assert steps > 0
        assert set(final) == set(AGENTS)
        payments = state.result["payments"]
        for seat, agent in enumerate(AGENTS):
            reward, info = final[agent]
            assert reward == pytest.approx(float(payments[seat]) * 0.5)
            assert info["result"]["payments"] == [float(p) for p in payments]
        assert sum(final[a][0] for a in AGENTS) == pytest.approx(0)
        seen_win |= state.result["winner"] is not None
    assert seen_win  # some random hand was won, so some reward was not zero


def test_every_decision_is_a_step_including_passes():
    env = wuhan_v0.raw_env()
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    passes = 0
    while not env.terminations[env.agent_selection]:
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        if PASS_ACTION in legal and env.table.state.phase in ("claim", "rob"):
            passes += 1
            env.step(PASS_ACTION)
        else:
            env.step(int(rng.choice(legal)))
    assert passes > 0


def test_an_illegal_index_is_refused_naming_what_is_legal():
    env = wuhan_v0.raw_env()
    env.reset(seed=0)
    seat = AGENTS.index(env.agent_selection)
    with pytest.raises(IllegalActionIndex, match=r"action 141 \(win\) is not legal.*legal: "):
        env.step(WIN_ACTION)
    assert env.agent_selection == AGENTS[seat]  # nothing happened


def test_only_the_agent_to_act_has_a_mask():
    env = wuhan_v0.raw_env()
    env.reset(seed=5)
    for agent in AGENTS:
        mask = env.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == env.agent_selection)


def test_dealer_rotates_across_resets_and_can_be_fixed():
    env = wuhan_v0.raw_env()
    env.reset(seed=1)
    dealers = set()
    for _ in range(4):
        dealers.add(env.table.state.dealer)
        env.reset()
    assert len(dealers) == 4
    fixed = wuhan_v0.raw_env(dealer=2)
    fixed.reset(seed=1)
    assert fixed.table.state.dealer == 2
    assert fixed.agent_selection == "player_2"


# --- the encoding -------------------------------------------------------------------------------


def test_every_index_has_a_description_and_blocks_do_not_overlap():
    names = [describe_action(i) for i in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert names[DISCARD + 4] == "discard 5m"
    assert names[LAY_OUT + 31] == "lay_out 5z"
    assert names[CONCEALED_KONG + 9] == "concealed_kong 1p"
    assert names[ADDED_KONG + 26] == "added_kong 9s"
    assert names[DECLARE_READY + 33] == "declare_ready 7z"
    with pytest.raises(ValueError, match="outside"):
        describe_action(NUM_ACTIONS)


def test_action_index_of_each_engine_action():
    assert action_index(Action(0, "discard", 5)) == 5
    assert action_index(Action(0, "declare_ready", 5)) == DECLARE_READY + 5
    assert action_index(Action(2, "pung")) == PUNG_ACTION
    assert action_index(Action(2, "kong")) == KONG_ACTION
    assert action_index(Action(2, "win")) == WIN_ACTION
    chow = Action(1, "chow", None, (20, 21, 22))  # 345s
    assert action_index(chow, claim_tile=20) == CHOW_LOW
    assert action_index(chow, claim_tile=21) == CHOW_MID
    assert action_index(chow, claim_tile=22) == CHOW_HIGH
    with pytest.raises(ValueError, match="claimed tile"):
        action_index(chow)
    with pytest.raises(ValueError, match="not an agent action"):
        action_index(Action(1, "abandon"))


def _random_walk(preset, seed, hands=2):
    """Yield (table, seat) at every decision of random hands, every seat looked at."""
    table = EnvTable(make_ruleset(preset))
    rng = random.Random(seed)
    for hand in range(hands):
        table.deal(rng.randbytes(32), hand % 4)
        while True:
            yield table
            if table.state.over:
                break
            seat = table.current_seat()
            table.step(seat, rng.choice(list(table.legal(seat))))


@settings(max_examples=14, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**32))
@example("wuhan-facai-kaikou", 538)  # a dealer's win: the end shows the multipliers paid
@example("wuhan-hongzhong-kaikou", 193)
def test_incremental_observation_equals_one_built_from_the_seat_view(preset, seed):
    obs = np.zeros(OBS_SHAPE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for table in _random_walk(preset, seed):
        state = table.state
        for seat in range(4):
            table.write_observation(seat, obs)
            seat_view = view(state, seat)
            expected = encode_view(
                seat_view,
                after_kong=state.after_kong,
                win_locked=state.players[seat].win_locked,
            )
            np.testing.assert_array_equal(obs, expected)
            table.write_mask(seat, mask)
            np.testing.assert_array_equal(mask, mask_from_view(seat_view))


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**32))
def test_indices_and_legal_actions_are_one_to_one(preset, seed):
    for table in _random_walk(preset, seed, hands=1):
        if table.state.over:
            continue
        seat = table.current_seat()
        legal = table.legal(seat)
        engine_actions = table.state.legal_cache[2]
        assert sorted(legal.values(), key=repr) == sorted(engine_actions, key=repr)
        for index, action in legal.items():
            assert action_index(action, table.state.claim_tile) == index


def test_observation_values_at_the_deal_and_after_a_discard():
    table = EnvTable(make_ruleset("wuhan-hongzhong-kaikou"))
    table.deal(bytes(32), dealer=1)
    state = table.state
    obs = np.zeros(OBS_SHAPE, np.float32)
    table.write_observation(1, obs)
    assert obs[0].sum() == 14 and obs[0].tolist() == state.players[1].counts
    assert obs[1].sum() == 1 and obs[1, state.drawn] == 1  # the dealer's 14th tile is a draw
    assert obs[14, state.specials.indicator] == 1 and obs[14].sum() == 1
    assert obs[15, state.specials.laizi] == 1
    assert obs[17, 33] == 1  # 红中 must be laid out in this preset
    assert obs[19, 33] == 1 and obs[19, state.specials.laizi] == 1
    scalars = obs[20]
    assert scalars[0] == 136 - 54 and scalars[1] == 136 - 54 - 10  # the wall, the live wall
    assert scalars[2] == 1  # turn
    assert scalars[7] == 1 and scalars[11] == 1  # the viewer deals and is on turn
    assert scalars[19] == 14 and scalars[20] == 13
    discard = next(
        i
        for i, a in table.legal(1).items()
        if a.type == "discard" and not state.special_mask[a.tile]
    )
    table.step(1, discard)
    for viewer in range(4):
        table.write_observation(viewer, obs)
        rel = (1 - viewer) % 4
        assert obs[6 + rel, discard] == 1
        assert obs[6:10].sum() == 1


# --- Gymnasium ----------------------------------------------------------------------------------


def test_gymnasium_checker_passes():
    _quiet(check_env, LaiziGymEnv(seat=None, on_illegal="abandon"), skip_render_check=True)


def test_gym_episode_reward_is_the_seat_payment():
    env = LaiziGymEnv("wuhan-facai-kaikou", seat=3, reward_scale=2.0)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=9)
    assert info["seat"] == 3
    terminated = False
    while not terminated:
        action = rng.choice(np.flatnonzero(obs["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
    payments = env.table.state.result["payments"]
    assert reward == pytest.approx(float(payments[3]) * 2.0)
    assert info["result"]["payments"] == [float(p) for p in payments]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_illegal_action_raises_or_abandons():
    env = LaiziGymEnv(seat=0, dealer=0)
    env.reset(seed=2)
    with pytest.raises(IllegalActionIndex):
        env.step(PUNG_ACTION)
    env = LaiziGymEnv(seat=0, dealer=0, on_illegal="abandon")
    env.reset(seed=2)
    _, reward, terminated, _, _info = env.step(PUNG_ACTION)
    assert terminated and reward < 0
    assert env.table.state.result["escaped"] == 0


def test_gym_opponents_are_bots_and_must_be_three():
    env = LaiziGymEnv(opponents="greedy")
    assert [type(bot).__name__ for bot in env.opponents] == ["GreedyBot"] * 3
    with pytest.raises(ValueError, match="three"):
        LaiziGymEnv(opponents=[object()])


# --- the batch API ------------------------------------------------------------------------------


def test_batch_of_one_plays_like_the_aec_env():
    batch = BatchEnv(1, "wuhan-hongzhong-koukou", seed=21)
    obs, mask, seat = batch.reset()
    env = wuhan_v0.raw_env(preset="wuhan-hongzhong-koukou")
    env.reset(seed=21)
    rng = np.random.default_rng(4)
    for _ in range(300):
        agent = env.agent_selection
        if env.terminations[agent]:
            while env.agents:
                env.step(None)
            env.reset()
            agent = env.agent_selection
        expected = env.observe(agent)
        assert AGENTS[seat[0]] == agent
        np.testing.assert_array_equal(obs[0], expected["observation"])
        np.testing.assert_array_equal(mask[0], expected["action_mask"])
        action = int(rng.choice(np.flatnonzero(mask[0])))
        env.step(action)
        obs, mask, seat, rewards, done = batch.step(np.array([action]))
        if done[0]:
            assert rewards[0].tolist() == [env.rewards[a] for a in AGENTS]


def test_batch_rewards_are_zero_sum_and_tables_are_dealt_again():
    batch = BatchEnv(6, "wuhan-qipi-koukou", seed=3, reward_scale=0.1)
    batch.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(600):
        _obs, mask, _seat, rewards, done = batch.step(batch.random_actions(rng))
        assert (mask.sum(axis=1) > 0).all()  # every table has a decision
        assert np.allclose(rewards.sum(axis=1), 0, atol=1e-4)
        assert not rewards[~done].any()
        finished += int(done.sum())
    assert finished == batch.hands_done > 0
    with pytest.raises(ValueError, match="one index per table"):
        batch.step(np.zeros(5, np.int64))


def test_baishan_declare_ready_is_an_index_and_shows_for_every_viewer():
    table = EnvTable(make_ruleset("baishan"))
    rng = random.Random(8)
    obs = np.zeros(OBS_SHAPE, np.float32)
    for hand in range(200):
        table.deal(rng.randbytes(32), hand % 4)
        while not table.state.over:
            seat = table.current_seat()
            legal = table.legal(seat)
            ready = [i for i in legal if DECLARE_READY <= i < DECLARE_READY + 34]
            if ready:
                assert legal[ready[0]].type == "declare_ready"
                assert legal[ready[0]].tile == ready[0] - DECLARE_READY
                table.step(seat, ready[0])
                for viewer in range(4):
                    table.write_observation(viewer, obs)
                    assert obs[21, (seat - viewer) % 4] == 1 and obs[21].sum() == 1
                    assert obs[14:18].sum() == 0  # no indicator, laizi, pi or must-gang tiles
                return
            table.step(seat, rng.choice(list(legal)))
    raise AssertionError("no hand offered 报听 in 200 random hands")


def test_render_ansi_and_bad_arguments():
    env = wuhan_v0.raw_env(render_mode="ansi")
    env.reset(seed=4)
    assert env.render().startswith("HandState(wuhan hand 0")
    with pytest.raises(ValueError, match="render_mode"):
        wuhan_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="dealer"):
        wuhan_v0.raw_env(dealer=4)
    with pytest.raises(ValueError, match="seat"):
        LaiziGymEnv(seat=7)
    with pytest.raises(ValueError, match="on_illegal"):
        LaiziGymEnv(on_illegal="ignore")
    with pytest.raises(ValueError, match="at least one table"):
        BatchEnv(0)


def test_gym_seat_none_plays_different_seats_from_the_seed():
    env = LaiziGymEnv(seat=None)
    seats = set()
    env.reset(seed=0)
    for _ in range(12):
        seats.add(env.seat)
        env.reset()
    assert len(seats) > 1
