"""The PettingZoo ``ParallelEnv``: one hand of laizi, the four seats stepping together.

Mahjong is turn-based, so in a step only the seats *with a decision* act: the seat on turn, or
— in a claim window after a discard (or a rob window after an added kong) — every seat that may
claim, all at once (the engine resolves the window by priority when all have decided, whatever
the order).  All four agents stay in ``agents`` until the hand ends and get an observation every
step (so each sees the others' moves); an agent without a decision has an all-zero
``action_mask`` and its action is ignored — it may be left out of ``actions`` or given anything
(a no-op).  Agents with a decision must each give a legal index; otherwise
:class:`~laizi.env.table.IllegalActionIndex` and nothing changes.

Observations, action indices, rewards and seeds are the AEC env's (:mod:`laizi.env.aec`):
``reset(seed=s)`` deals the same hands, and deciding seats are applied in seat order, which is
the AEC env's order, so the same decisions play the same hand.

>>> from laizi.env import wuhan_v0
>>> env = wuhan_v0.parallel_env()
>>> observations, infos = env.reset(seed=7)
>>> sorted(observations) == env.agents == env.possible_agents
True
>>> [agent for agent in env.agents if infos[agent]["action_mask"].any()]  # the dealer
['player_3']
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from laizi.env.aec import AGENTS, first_dealer, hand_seed, observation_space
from laizi.env.encoders import get_encoder
from laizi.env.spaces import NUM_ACTIONS, describe_action
from laizi.env.table import EnvTable, IllegalActionIndex
from laizi.rules.registry import make_ruleset

__all__ = ["LaiziParallelEnv"]

_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


class LaiziParallelEnv(ParallelEnv):
    """A laizi hand as a PettingZoo ``ParallelEnv`` (``wuhan_v0.parallel_env`` …).

    ``rules``, ``reward_scale``, ``dealer`` and ``encoder`` as :class:`~laizi.env.aec.LaiziAECEnv`.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (each instance gets its own copy in __init__)
        "name": "laizi_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
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
        self.encoder = get_encoder(encoder)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if dealer is not None and dealer not in (0, 1, 2, 3):
            raise ValueError("dealer must be a seat 0-3 or None")
        self.ruleset = make_ruleset(rules)
        self.metadata = {**type(self).metadata, "name": f"laizi_{self.ruleset.game}_v0"}
        self.render_mode = render_mode
        self.reward_scale = float(reward_scale)
        self.dealer = dealer
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        space = observation_space(self.encoder.shape)
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self.table = EnvTable(self.ruleset)
        self._seed = int.from_bytes(hashlib.sha256(b"laizi.env unseeded").digest()[:8], "big")
        self._hand = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def deciding(self) -> list[str]:
        """The agents with a decision now (their actions are the ones played)."""
        state = self.table.state
        if state is None or state.over:
            return []
        return [AGENTS[seat] for seat in state.to_act()]

    def _observe(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        table = self.table
        deciding = set(self.deciding())
        observations: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for agent in AGENTS:
            seat = _SEAT[agent]
            obs = np.empty(self.encoder.shape, np.float32)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            self.encoder.write(table, seat, obs)
            if agent in deciding:
                table.write_mask(seat, mask)
            observations[agent] = {"observation": obs, "action_mask": mask}
            infos[agent] = {"action_mask": mask}
        return observations, infos

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Deal a new hand (with ``seed``: the walls of this and the following hands fixed)."""
        if seed is not None:
            self._seed = int(seed)
            self._hand = 0
        dealer = self.dealer
        if dealer is None:
            dealer = first_dealer(self._seed, self._hand)
        self.table.deal(hand_seed(self._seed, self._hand), dealer)
        self._hand += 1
        self.agents = list(AGENTS)
        return self._observe()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play the deciding agents' actions (in seat order); the others' are ignored."""
        if not self.agents:
            raise RuntimeError("the hand is over: reset() first")
        table = self.table
        chosen: list[tuple[int, int]] = []
        for agent in self.deciding():
            seat = _SEAT[agent]
            action = actions.get(agent)
            if action is None:
                raise ValueError(f"{agent} has a decision: its action is missing")
            index = int(action)
            if index not in table.legal(seat):
                what = describe_action(index) if 0 <= index < NUM_ACTIONS else "out of range"
                allowed = ", ".join(str(i) for i in sorted(table.legal(seat)))
                raise IllegalActionIndex(
                    f"action {index} ({what}) is not legal for {agent} now; legal: {allowed}"
                )
            chosen.append((seat, index))
        state = table.state
        assert state is not None
        for seat, index in chosen:
            if seat in state.to_act():  # a window closed early leaves nothing to decide
                table.step(seat, index)
        rewards = dict.fromkeys(AGENTS, 0.0)
        over = state.over
        observations, infos = self._observe()
        if over:
            result = state.result
            assert result is not None
            summary = {
                "reason": result["reason"],
                "winner": result["winner"],
                "how": result["how"],
                "payments": [float(p) for p in result["payments"]],
            }
            for seat, agent in enumerate(AGENTS):
                rewards[agent] = float(result["payments"][seat]) * self.reward_scale
                infos[agent]["result"] = summary
            self.agents = []
        terminations = dict.fromkeys(AGENTS, over)
        truncations = dict.fromkeys(AGENTS, False)
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """``ansi``: the state's one-line text."""
        if self.render_mode is None:
            return None
        return repr(self.table.state)

    def close(self) -> None:
        pass
