"""A whole match as one PettingZoo AEC episode: ``hands`` hands, running totals, the dealer rule.

Next to the one-hand env (:mod:`laizi.env.aec`): the same agents, actions and per-hand
observation, but an episode is ``hands`` hands in a row at one table.  The first dealer is the
seed's choice (or ``dealer``); after each hand the deal follows the rules' dealer rule (坐庄,
A9: it stays on a dealer win or a drawn hand, else passes on), the engine's
:meth:`~laizi.rules.ruleset.Ruleset.next_dealer` — exactly as :class:`laizi.engine.match.Match`.
Each hand's payments (× ``reward_scale``) are the rewards at the step that ends it (so a match's
return is the seat's final total); the episode ends after the last hand.

Every observation has a third entry, ``"match"``: ``(6,)`` float32 — the running totals before
this hand by relative seat (× ``reward_scale``; 0 = the viewer, 1 = 下家, 2 = 对家, 3 = 上家),
the hands played and the hands left.

>>> from laizi.env import wuhan_v0
>>> env = wuhan_v0.match_env(hands=3)
>>> env.reset(seed=2)
>>> obs, *_ = env.last()
>>> obs["match"].tolist()
[0.0, 0.0, 0.0, 0.0, 0.0, 3.0]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from gymnasium import spaces

from laizi.engine.game import new_hand
from laizi.env.aec import AGENTS, LaiziAECEnv, OrderEnforcing, first_dealer, hand_seed

__all__ = ["LaiziMatchEnv", "match_env"]

_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


class LaiziMatchEnv(LaiziAECEnv):
    """A match of ``hands`` hands (build it with ``wuhan_v0.match_env`` / ``baishan_v0``)."""

    def __init__(self, rules: Any = "wuhan-hongzhong-kaikou", *, hands: int = 8, **kwargs: Any):
        if hands < 1:
            raise ValueError("hands: at least one")
        super().__init__(rules, **kwargs)
        self.hands = hands
        self.metadata = {**self.metadata, "name": f"laizi_{self.ruleset.game}_match_v0"}
        base = self.observation_spaces[AGENTS[0]]
        assert isinstance(base, spaces.Dict)
        space = spaces.Dict({**base.spaces, "match": spaces.Box(-np.inf, np.inf, (6,), np.float32)})
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.totals = [Fraction(0)] * 4
        self.hands_played = 0
        self.dealers: list[int] = []
        """The dealer of each hand dealt so far in this match."""
        self.results: list[dict[str, Any]] = []
        """Each finished hand's summary (``infos[agent]["result"]`` at its end)."""

    def _deal_hand(self) -> None:
        k = self.hands_played
        if k == 0:
            dealer = first_dealer(self._seed, 0) if self.dealer is None else self.dealer
        else:
            state = self.table.state
            assert state is not None and state.result is not None
            dealer = self.ruleset.next_dealer(state.dealer, state.result["winner"])
        state, _ = new_hand(
            self.ruleset,
            dealer,
            seed=hand_seed(self._seed, k),
            hand_number=k,
            scores=tuple(self.totals),
        )
        self.table.load(state)
        self.dealers.append(dealer)
        seat = self.table.current_seat()
        assert seat is not None
        self.agent_selection = AGENTS[seat]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match (with ``seed``: its walls and first dealer fixed; without, the next
        match's walls after the last seed's)."""
        if seed is not None:
            self._seed = int(seed)
            self._hand = 0
        elif self.dealers:
            self._seed += 1  # another match of walls
        self.totals = [Fraction(0)] * 4
        self.hands_played = 0
        self.dealers = []
        self.results = []
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {agent: {} for agent in AGENTS}
        self._deal_hand()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs: dict[str, np.ndarray] = super().observe(agent)
        seat = _SEAT[agent]
        match = np.zeros(6, np.float32)
        for k in range(4):
            match[k] = float(self.totals[(seat + k) % 4]) * self.reward_scale
        match[4] = self.hands_played
        match[5] = self.hands - self.hands_played
        obs["match"] = match
        return obs

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents whose match is over")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        table = self.table
        table.step(_SEAT[agent], int(action))
        state = table.state
        assert state is not None
        if not state.over:
            self.agent_selection = AGENTS[state.to_act()[0]]
            self._accumulate_rewards()
            return
        result = state.result
        assert result is not None
        payments = result["payments"]
        for seat, agent_id in enumerate(AGENTS):
            self.totals[seat] += payments[seat]
            self.rewards[agent_id] = float(payments[seat]) * self.reward_scale
        self.hands_played += 1
        summary = {
            "reason": result["reason"],
            "winner": result["winner"],
            "how": result["how"],
            "payments": [float(p) for p in payments],
            "totals": [float(t) for t in self.totals],
            "dealer": state.dealer,
            "hand": self.hands_played - 1,
        }
        self.results.append(summary)
        for agent_id in AGENTS:
            self.infos[agent_id] = {"result": summary}
        if self.hands_played >= self.hands:
            for agent_id in AGENTS:
                self.terminations[agent_id] = True
        else:
            self._deal_hand()
        self._accumulate_rewards()


def match_env(rules: Any = "wuhan-hongzhong-kaikou", **kwargs: Any) -> Any:
    """:class:`LaiziMatchEnv` wrapped to enforce PettingZoo's call order."""
    return OrderEnforcing(LaiziMatchEnv(rules, **kwargs))
