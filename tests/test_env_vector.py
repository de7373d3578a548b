"""laizi.env.vector: ``gymnasium.make_vec("laizi/Wuhan-v0")`` on BatchEnv, masks at autoreset."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import laizi.env
from laizi.env.batch import BatchEnv
from laizi.env.single import LaiziGymEnv
from laizi.env.vector import LaiziVectorEnv, SelfPlayEnv


def _engine_mask(env: LaiziVectorEnv, i: int) -> np.ndarray:
    """Table i's legal actions straight from the engine (``legal_actions`` via the table)."""
    table = env.batch.tables[i]
    seat = table.current_seat()
    mask = np.zeros(laizi.env.NUM_ACTIONS, np.int8)
    mask[list(table.legal(seat))] = 1
    return mask


@pytest.mark.parametrize(
    ("env_id", "preset"),
    [("laizi/Wuhan-v0", "wuhan-hongzhong-kaikou"), ("laizi/Baishan-v0", "baishan")],
)
def test_make_vec_gives_the_batched_env_with_the_registered_rules(env_id, preset):
    envs = gymnasium.make_vec(env_id, num_envs=5)
    assert isinstance(envs, LaiziVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.num_envs == 5 and len(envs.batch.tables) == 5
    assert envs.rules.settings.preset == preset
    assert envs.observation_space.shape == (5, 22, 34)
    assert envs.action_space.shape == (5,)
    single = gymnasium.make(env_id)
    assert isinstance(single.unwrapped, SelfPlayEnv)
    other = gymnasium.make_vec("laizi/Wuhan-v0", num_envs=2, rules="wuhan-facai-koukou")
    assert other.rules.settings.preset == "wuhan-facai-koukou"


@pytest.mark.parametrize("env_id", ["laizi/Wuhan-v0", "laizi/Baishan-v0"])
def test_mask_is_the_engines_legal_actions_at_every_step_including_autoreset(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=6)
    obs, infos = envs.reset(seed=11)
    rng = np.random.default_rng(2)
    resets = 0
    for _ in range(400):
        for i in range(envs.num_envs):
            assert np.array_equal(infos["action_mask"][i], _engine_mask(envs, i))
            table = envs.batch.tables[i]
            assert infos["seat"][i] == table.current_seat()
            expected = np.zeros((22, 34), np.float32)
            table.write_observation(int(infos["seat"][i]), expected)
            assert np.array_equal(obs[i], expected)
        actions = envs.random_actions(rng)
        acting = infos["seat"].copy()
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            resets += 1
            # the new hand's first decision is already here, with its legal actions
            assert infos["action_mask"][i].sum() > 0
            assert infos["_final_obs"][i]
            assert infos["payments"][i].sum() == pytest.approx(0.0, abs=1e-3)
            assert rewards[i] == pytest.approx(infos["payments"][i][acting[i]])
            assert envs.batch.tables[i].state.events <= 5  # just dealt
        assert not rewards[~terminated].any()
        assert not infos["payments"][~terminated].any()
    assert resets >= 10


def test_sync_vector_env_of_gym_envs_shows_all_zero_masks_where_ours_has_legal_ones():
    """The issue's complaint, shown: Gymnasium's SyncVectorEnv resets on the step *after* the end
    (NEXT_STEP), so the step that ends a hand hands out an all-zero mask, and the action asked
    next is thrown away.  Ours never shows a row without a legal action."""
    sync = SyncVectorEnv([lambda: LaiziGymEnv("wuhan-hongzhong-kaikou") for _ in range(3)])
    _, infos = sync.reset(seed=1)
    rng = np.random.default_rng(0)
    empty_after_end = 0
    for _ in range(200):
        mask = infos["action_mask"]
        actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask]
        _, _, terminated, _, infos = sync.step(np.array(actions))
        rows = infos["action_mask"].sum(axis=1)
        assert (rows[terminated] == 0).all()
        empty_after_end += int(terminated.sum())
    assert empty_after_end > 0

    ours = LaiziVectorEnv(3)
    _, infos = ours.reset(seed=1)
    ended = 0
    for _ in range(400):
        _, _, terminated, _, infos = ours.step(ours.random_actions(rng))
        assert (infos["action_mask"].sum(axis=1) > 0).all()
        ended += int(terminated.sum())
    assert ended > 0


def test_the_sync_mode_of_make_vec_is_our_single_env_with_its_zero_terminal_mask():
    """``vectorization_mode="sync"`` builds Gymnasium's SyncVectorEnv of SelfPlayEnvs: a row's
    mask is all zero exactly on the step after its hand ended (the step whose action the
    autoreset ignores)."""
    sync = gymnasium.make_vec("laizi/Baishan-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    obs, infos = sync.reset(seed=4)
    assert obs.shape == (2, 22, 34)
    rng = np.random.default_rng(0)
    ended = np.zeros(2, bool)
    count = 0
    for _ in range(300):
        mask = infos["action_mask"]
        assert np.array_equal(mask.sum(axis=1) == 0, ended)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)  # 0 for an empty row
        obs, _, terminated, _, infos = sync.step(actions)
        ended = terminated
        count += int(terminated.sum())
    assert count > 0


def test_table_i_plays_like_batch_env_with_the_same_seed():
    envs = LaiziVectorEnv(4, "wuhan-qipi-koukou")
    batch = BatchEnv(4, "wuhan-qipi-koukou", seed=9)
    obs, infos = envs.reset(seed=9)
    b_obs, b_mask, b_seat = batch.reset()
    rng = np.random.default_rng(5)
    for _ in range(300):
        assert np.array_equal(obs, b_obs)
        assert np.array_equal(infos["action_mask"], b_mask)
        assert np.array_equal(infos["seat"], b_seat)
        actions = envs.random_actions(rng)
        obs, _, terminated, _, infos = envs.step(actions)
        b_obs, b_mask, b_seat, payments, done = batch.step(actions)
        assert np.array_equal(terminated, done)
        assert np.array_equal(infos["payments"], payments)


def test_seeds_reproduce_and_unseeded_resets_differ():
    def trace(seed):
        envs = LaiziVectorEnv(3)
        obs, _ = envs.reset(seed=seed)
        rng = np.random.default_rng(0)
        seen = [obs.copy()]
        total = np.zeros(3)
        for _ in range(150):
            obs, rewards, _, _, _ = envs.step(envs.random_actions(rng))
            seen.append(obs.copy())
            total += rewards
        return np.stack(seen), total

    a, ra = trace(21)
    b, rb = trace(21)
    c, _ = trace(22)
    assert np.array_equal(a, b) and np.array_equal(ra, rb)
    assert not np.array_equal(a, c)
    envs = LaiziVectorEnv(3)
    first, _ = envs.reset(seed=5)
    first = first.copy()
    second, _ = envs.reset()  # a new base seed drawn from the last seed given: other walls
    assert not np.array_equal(first, second)
    again, _ = LaiziVectorEnv(3).reset(seed=5)
    assert np.array_equal(first, again)
    with pytest.raises(TypeError, match="one int"):
        envs.reset(seed=[1, 2, 3])


def test_copy_false_hands_out_the_envs_own_buffers_and_default_copies():
    envs = LaiziVectorEnv(2, copy=False)
    obs, infos = envs.reset(seed=0)
    assert obs is envs.batch.obs and infos["action_mask"] is envs.batch.mask
    rng = np.random.default_rng(0)
    envs.step(envs.random_actions(rng))
    assert np.shares_memory(obs, envs.batch.obs)  # overwritten by the step
    copied = LaiziVectorEnv(2)
    obs, infos = copied.reset(seed=0)
    assert not np.shares_memory(obs, copied.batch.obs)
    kept = [(obs, obs.copy(), infos["action_mask"], infos["action_mask"].copy())]
    for _ in range(30):
        obs, _, _, _, infos = copied.step(copied.random_actions(rng))
        kept.append((obs, obs.copy(), infos["action_mask"], infos["action_mask"].copy()))
    for obs, obs_then, mask, mask_then in kept:  # later steps never wrote into them
        assert np.array_equal(obs, obs_then) and np.array_equal(mask, mask_then)
    assert not np.array_equal(kept[0][0], kept[-1][0])


def test_final_observations_handed_out_are_the_callers_and_are_never_written_again():
    """``infos["final_obs"]`` is the batch's array itself, swapped for a fresh one after each
    step that ended a hand (no copy of every row): what the caller kept is never overwritten, and
    its rows of the ended tables are the observations the batch wrote for them."""
    envs = LaiziVectorEnv(3)
    envs.reset(seed=4)
    rng = np.random.default_rng(4)
    kept = []
    for _ in range(400):
        _, _, terminated, _, infos = envs.step(envs.random_actions(rng))
        if terminated.any():
            final = infos["final_obs"]
            assert not np.shares_memory(final, envs.batch.final_obs)
            assert np.array_equal(infos["_final_obs"], terminated)
            for i in np.flatnonzero(terminated):
                assert final[i].any()  # an observation was written there
            kept.append((final, final.copy(), terminated.copy()))
    assert len(kept) >= 8
    for final, then, ended in kept:
        assert np.array_equal(final[ended], then[ended])


def test_observations_hand_over_through_dlpack_without_a_copy():
    envs = LaiziVectorEnv(2)
    obs, _ = envs.reset(seed=0)
    view = np.from_dlpack(obs)
    assert np.shares_memory(view, obs)
    obs[0, 0, 0] = 99.0
    assert view[0, 0, 0] == 99.0
    assert view.shape == (2, 22, 34) and view.dtype == np.float32


def test_single_self_play_env_passes_gymnasiums_checker_and_ends_with_the_payments():
    check_env(SelfPlayEnv("wuhan-hongzhong-kaikou", on_illegal="abandon"), skip_render_check=True)
    strict = SelfPlayEnv("wuhan-hongzhong-kaikou")
    _, info = strict.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(laizi.env.IllegalActionIndex):
        strict.step(illegal)
    lenient = SelfPlayEnv("wuhan-hongzhong-kaikou", on_illegal="abandon")
    _, info = lenient.reset(seed=0)
    _, reward, terminated, _, info = lenient.step(illegal)
    assert terminated and reward < 0 and lenient.table.state.result["reason"] == "abandon"
    env = gymnasium.make("laizi/Baishan-v0")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        seat = info["seat"]
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        _, reward, terminated, _, info = env.step(action)
        if terminated:
            assert info["action_mask"].sum() == 0
            assert reward == pytest.approx(float(info["payments"][seat]))
            assert info["payments"].sum() == pytest.approx(0.0, abs=1e-3)
            break
    else:
        pytest.fail("the hand did not end")
