"""The PettingZoo AEC environment: one hand of laizi, four agents ``player_0`` … ``player_3``.

The agents are the seats.  The agent to act is the seat whose decision it is: the seat on turn,
or — in a claim window, where several seats may decide — the lowest seat still to decide (every
seat that may claim gets its own ``step``, ``pass`` included; seats with nothing to claim are not
asked).  Each observation is ``{"observation": (22, 34) float32, "action_mask": (177,) int8}``
(layout in :mod:`laizi.env.spaces`; an agent that is not to act gets an all-zero mask).  Rewards
are zero until the hand ends, then each seat's settlement payment × ``reward_scale``.

>>> from laizi.env import wuhan_v0
>>> env = wuhan_v0.env(preset="wuhan-qipi-koukou")
>>> env.reset(seed=7)
>>> env.agent_selection
'player_3'
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, obs["action_mask"].shape, reward
((22, 34), (177,), 0.0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from laizi.env.encoders import get_encoder
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import EnvTable
from laizi.rules.registry import make_ruleset

__all__ = [
    "AGENTS",
    "LaiziAECEnv",
    "OrderEnforcing",
    "first_dealer",
    "hand_seed",
    "observation_space",
]

AGENTS = ("player_0", "player_1", "player_2", "player_3")
_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


def observation_space(shape: tuple[int, int] = OBS_SHAPE) -> spaces.Dict:
    """The observation space of every agent (and of the Gymnasium wrapper); ``shape``: the
    encoder's (``v1``: ``OBS_SHAPE``)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 256.0, shape, np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


def hand_seed(seed: int, hand: int) -> bytes:
    """The 32-byte wall seed of hand number ``hand`` of an environment reset with ``seed``.

    >>> hand_seed(0, 0).hex()[:16]
    '2e341f4fe863714c'
    """
    data = b"laizi.env" + seed.to_bytes(16, "big", signed=True) + hand.to_bytes(8, "big")
    return hashlib.sha256(data).digest()


def first_dealer(seed: int, hand: int) -> int:
    """The dealer of hand ``hand`` when the env chooses: the seed picks the first, then the
    deal passes round the table, one seat per hand.

    >>> [first_dealer(0, hand) for hand in range(5)]
    [2, 3, 0, 1, 2]
    """
    return (hand_seed(seed, 0)[0] + hand) % 4


class LaiziAECEnv(AECEnv):
    """A laizi hand as a PettingZoo AEC environment (build it with ``wuhan_v0.env`` …).

    ``rules``: a preset name, a ``Settings`` or ``{"preset": …, setting: value}``.
    ``reward_scale`` multiplies the settlement payments.  ``dealer``: a seat, or ``None`` to take
    turns (hand *n* after a reset is dealt by seat *n* mod 4, the first by the seed's choice).
    ``encoder``: ``"v1"`` (default) or ``"v2"`` (:mod:`laizi.env.encoders`).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (each instance gets its own copy in __init__)
        "name": "laizi_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Any = "wuhan-hongzhong-kaikou",
        *,
        reward_scale: float = 1.0,
        dealer: int | None = None,
        render_mode: str | None = None,
        encoder: str = "v1",
    ) -> None:
        super().__init__()
        self.encoder = get_encoder(encoder)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if dealer is not None and dealer not in (0, 1, 2, 3):
            raise ValueError("dealer must be a seat 0-3 or None")
        self.ruleset = make_ruleset(rules)
        self.metadata = {  # PettingZoo reads the instance's metadata
            **type(self).metadata,
            "name": f"laizi_{self.ruleset.game}_v0",
        }
        self.render_mode = render_mode
        self.reward_scale = float(reward_scale)
        self.dealer = dealer
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        space = observation_space(self.encoder.shape)
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self.table = EnvTable(self.ruleset)
        self._seed = int.from_bytes(hashlib.sha256(b"laizi.env unseeded").digest()[:8], "big")
        self._hand = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the hand -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand.  With ``seed`` the walls of this and the following hands are fixed."""
        if seed is not None:
            self._seed = int(seed)
            self._hand = 0
        wall_seed = hand_seed(self._seed, self._hand)
        dealer = self.dealer
        if dealer is None:
            dealer = first_dealer(self._seed, self._hand)
        self._hand += 1
        self.table.deal(wall_seed, dealer)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        seat = self.table.current_seat()
        assert seat is not None
        self.agent_selection = AGENTS[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = _SEAT[agent]
        encoder = self.encoder
        obs = np.empty(encoder.shape, np.float32)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        table = self.table
        encoder.write(table, seat, obs)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            table.write_mask(seat, mask)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents whose hand is over")
        table.step(_SEAT[agent], int(action))
        state = table.state
        assert state is not None
        if state.over:
            self._finish()
        else:
            seats = state.to_act()
            self.agent_selection = AGENTS[seats[0]]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        state = self.table.state
        assert state is not None and state.result is not None
        result = state.result
        payments = result["payments"]
        scale = self.reward_scale
        summary = {
            "reason": result["reason"],
            "winner": result["winner"],
            "how": result["how"],
            "payments": [float(p) for p in payments],
        }
        for seat, agent in enumerate(AGENTS):
            self.rewards[agent] = float(payments[seat]) * scale
            self.terminations[agent] = True
            self.infos[agent] = {"result": summary}
        self._accumulate_rewards()

    # --- showing ----------------------------------------------------------------------------
    def render(self) -> str | None:
        """``ansi``: the state's one-line text; ``human``: printed."""
        if self.render_mode is None:
            return None
        text = repr(self.table.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def legal_actions(self, agent: str) -> Sequence[int]:
        """The agent's legal indices now (the nonzero entries of its mask)."""
        if self.terminations.get(agent, True) or agent != self.agent_selection:
            return []
        return sorted(self.table.legal(_SEAT[agent]))

    def close(self) -> None:
        pass


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with direct ``last`` and ``step``.

    The same checks (nothing before ``reset``; a warning for a step after the end), without
    going through the generic attribute forwarding for every field ``last()`` reads — that
    forwarding alone cost a third of a step.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)
