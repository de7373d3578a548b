"""Gymnasium's vector API on :class:`~laizi.env.batch.BatchEnv`, and its one-table counterpart.

``import laizi.env`` registers ``laizi/Wuhan-v0`` (any Wuhan preset, ``rules=…``) and
``laizi/Baishan-v0``: ``gymnasium.make_vec(id, num_envs=N)`` gives a :class:`LaiziVectorEnv`
(all ``N`` tables stepped by one ``BatchEnv``, not ``N`` environments), ``gymnasium.make(id)``
a :class:`SelfPlayEnv` (one table).

Self-play, as in ``BatchEnv``: every table has one decision pending; the observation (a
``(22, 34)`` float32 array, :mod:`laizi.env.spaces`) is the deciding seat's, its legal actions
are ``infos["action_mask"]`` and the seat is ``infos["seat"]``.  The reward of a step is the
payment (× ``reward_scale``) of the seat that acted, non-zero only when its action ended the
hand; all four payments are ``infos["payments"]``.

The vector env resets a finished table in the same step (Gymnasium's ``SAME_STEP`` autoreset):
the observation and ``infos["action_mask"]`` returned with ``terminated[i]`` are already the new
hand's first decision, so every row always has a legal action, and the finished hand's last
observation is ``infos["final_obs"]``.

>>> import gymnasium, numpy as np
>>> import laizi.env
>>> envs = gymnasium.make_vec("laizi/Wuhan-v0", num_envs=4)
>>> obs, infos = envs.reset(seed=3)
>>> obs.shape, obs.dtype, infos["action_mask"].shape
((4, 22, 34), dtype('float32'), (4, 177))
>>> bool((infos["action_mask"].sum(axis=1) > 0).all())
True
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from laizi.env.aec import first_dealer, hand_seed
from laizi.env.batch import BatchEnv
from laizi.env.encoders import get_encoder
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import EnvTable
from laizi.rules.registry import make_ruleset

__all__ = ["ENV_IDS", "LaiziVectorEnv", "SelfPlayEnv", "register_envs"]

ENV_IDS = {"laizi/Wuhan-v0": "wuhan-hongzhong-kaikou", "laizi/Baishan-v0": "baishan"}
"""The registered ids and their default rules."""


def _observation_space(shape: tuple[int, int] = OBS_SHAPE) -> spaces.Box:
    return spaces.Box(0.0, 256.0, shape, np.float32)


def _unseeded() -> int:
    """A fresh base seed when none is given (from the OS's entropy, like Gymnasium's)."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # no pool given: one int
    return entropy % (1 << 62)


class LaiziVectorEnv(VectorEnv):
    """``num_envs`` self-play tables as a Gymnasium ``VectorEnv`` (one :class:`BatchEnv`).

    ``rules``: a preset name or ``{"preset": …, setting: value}``.  ``reset(seed=s)`` deals
    table *i* from seed ``s × num_envs + i``, exactly as ``BatchEnv(num_envs, seed=s)``.
    ``encoder``: ``"v1"`` or ``"v2"`` (:mod:`laizi.env.encoders`).
    ``copy=False`` returns the env's own arrays, overwritten at the next step (no copy; the
    default copies the observation and mask each step, as Gymnasium's vector envs do).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium reads the class attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        rules: Any = "wuhan-hongzhong-kaikou",
        *,
        reward_scale: float = 1.0,
        copy: bool = True,
        encoder: str = "v1",
    ) -> None:
        self.batch = BatchEnv(
            num_envs, rules, reward_scale=reward_scale, keep_final=True, encoder=encoder
        )
        self.num_envs = num_envs
        self.copy = copy
        self.rules = self.batch.tables[0].ruleset
        self.single_observation_space = _observation_space(self.batch.encoder.shape)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng: np.random.Generator | None = None
        self._rows = np.arange(num_envs)
        self._false = np.zeros(num_envs, bool)

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every table.  ``seed``: one int (table *i* gets ``seed × num_envs + i``); without
        it a new base seed is drawn (from the last seed given, else from the OS)."""
        if seed is not None:
            if not isinstance(seed, int | np.integer):
                raise TypeError("seed: one int for all tables (table i plays seed × n + i)")
            self._rng = np.random.default_rng(int(seed))
            base = int(seed)
        else:
            if self._rng is None:
                self._rng = np.random.default_rng(_unseeded())
            base = int(self._rng.integers(1 << 62))
        obs, mask, seat = self.batch.reset(seed=base)
        return self._out(obs), {"action_mask": self._out(mask), "seat": seat.copy()}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action index per table.  Finished tables are dealt again in the same step."""
        batch = self.batch
        acting = batch.seat.copy()
        if self.copy:
            # Every row of obs and mask is rewritten at every step (each table has a decision),
            # so fresh buffers give the caller arrays of its own without copying them.
            batch.obs = np.empty_like(batch.obs)
            batch.mask = np.empty_like(batch.mask)
        obs, mask, seat, payments, done = batch.step(actions)
        rewards = payments[self._rows, acting].astype(np.float64)
        infos: dict[str, Any] = {
            "action_mask": mask,
            "seat": seat.copy(),
            "payments": payments.copy(),
        }
        if done.any():
            # The rows of the tables that ended hold their last observations; the caller gets
            # the array itself and the batch a fresh one (no copy of all the rows per step).
            infos["final_obs"] = batch.final_obs
            infos["_final_obs"] = done.copy()
            if self.copy:
                batch.final_obs = np.empty_like(batch.final_obs)
        return obs, rewards, done.copy(), self._false.copy(), infos

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every table."""
        return self.batch.random_actions(rng)


class SelfPlayEnv(gymnasium.Env):
    """One self-play table as a Gymnasium env (what ``gymnasium.make("laizi/Wuhan-v0")`` gives).

    Same observation, action, reward and ``info`` as one row of :class:`LaiziVectorEnv`;
    ``terminated`` ends the hand and ``reset()`` deals the next one (hand *k* after
    ``reset(seed=s)`` is the AEC env's hand *k*: ``laizi.env.aec.hand_seed``, the dealer passing
    round).  The observation returned with ``terminated`` is the last one of the hand, whose
    mask is all zeros — under Gymnasium's ``SyncVectorEnv`` (``make_vec(…,
    vectorization_mode="sync")``) that is the mask shown for the step its autoreset ignores;
    :class:`LaiziVectorEnv` has none such.  ``on_illegal="abandon"``: an illegal index makes the
    acting seat escape (the hand ends with the escape payments), as in
    :class:`~laizi.env.single.LaiziGymEnv`, for agents (and Gymnasium's checker) that sample
    without the mask; ``"raise"`` (default): :class:`~laizi.env.table.IllegalActionIndex`.
    ``encoder``: ``"v1"`` or ``"v2"`` (:mod:`laizi.env.encoders`).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        rules: Any = "wuhan-hongzhong-kaikou",
        *,
        reward_scale: float = 1.0,
        on_illegal: str = "raise",
        encoder: str = "v1",
    ) -> None:
        self.encoder = get_encoder(encoder)
        if on_illegal not in ("raise", "abandon"):
            raise ValueError("on_illegal: 'raise' or 'abandon'")
        self.on_illegal = on_illegal
        self.table = EnvTable(make_ruleset(rules))
        self.reward_scale = float(reward_scale)
        self.observation_space = _observation_space(self.encoder.shape)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._seed = int.from_bytes(hashlib.sha256(b"laizi.env unseeded").digest()[:8], "big")
        self._hand = 0
        self._seat = 0

    def _result(self) -> tuple[np.ndarray, dict[str, Any]]:
        table = self.table
        obs = np.zeros(self.encoder.shape, np.float32)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        self.encoder.write(table, self._seat, obs)
        table.write_mask(self._seat, mask)
        return obs, {"action_mask": mask, "seat": self._seat}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
            self._hand = 0
        self.table.deal(hand_seed(self._seed, self._hand), first_dealer(self._seed, self._hand))
        self._hand += 1
        seat = self.table.current_seat()
        assert seat is not None
        self._seat = seat
        return self._result()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        table = self.table
        acting = self._seat
        index = int(action)
        if self.on_illegal == "abandon" and index not in table.legal(acting):
            table.abandon(acting)
        else:
            table.step(acting, index)
        state = table.state
        assert state is not None
        if state.over:
            assert state.result is not None
            payments = [float(p) * self.reward_scale for p in state.result["payments"]]
            obs, info = self._result()
            info["payments"] = np.array(payments, np.float32)
            return obs, payments[acting], True, False, info
        seat = table.current_seat()
        assert seat is not None
        self._seat = seat
        obs, info = self._result()
        info["payments"] = np.zeros(4, np.float32)
        return obs, 0.0, False, False, info


def register_envs() -> None:
    """Register ``laizi/Wuhan-v0`` and ``laizi/Baishan-v0`` (once; ``import laizi.env`` does)."""
    for env_id, rules in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="laizi.env.vector:SelfPlayEnv",
                vector_entry_point="laizi.env.vector:LaiziVectorEnv",
                kwargs={"rules": rules},
                disable_env_checker=False,
            )
