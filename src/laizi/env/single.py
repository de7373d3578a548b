"""A Gymnasium single-agent environment: you play one seat, bots play the other three.

Observation: ``{"observation": (22, 34) float32, "action_mask": (177,) int8}`` (layout in
:mod:`laizi.env.spaces`); action: an index in ``Discrete(177)``.  The reward is zero until the
hand ends, then your seat's settlement payment × ``reward_scale``.  The opponents act between
your decisions (claim windows: the lowest seat still to decide goes first, as in the AEC env).
The opponents are the bots (``laizi.bots``: ``random``, ``greedy``, ``strong`` or an
outside ``module:Class``), each given its seat's view and legal actions, as at any table.

>>> env = LaiziGymEnv("wuhan-hongzhong-kaikou", seat=2)
>>> obs, info = env.reset(seed=5)
>>> obs["observation"].shape, info["seat"], int(obs["action_mask"].sum()) > 0
((22, 34), 2, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from laizi.bots import RandomBot, make_bot
from laizi.engine.actions import Action
from laizi.engine.view import view as seat_view
from laizi.env.aec import hand_seed, observation_space
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import EnvTable
from laizi.rules.registry import make_ruleset

__all__ = ["LaiziGymEnv"]


class LaiziGymEnv(gymnasium.Env):
    """One seat of a laizi hand against three opponents.

    ``rules``: a preset name or ``{"preset": …, setting: value}``.  ``seat``: the seat you play
    (``None``: a different one each hand, from the seed).  ``opponents``: a bot name for all
    three (``"random"`` by default; ``make_bot(name, settings, seed)``, reseeded by
    ``reset(seed=…)``), or three bot objects (anything with ``act(view, legal) -> Action``) for
    the other seats in play order after yours.  ``dealer``: a seat, or ``None`` to let the seed
    choose.  ``on_illegal``: ``"raise"`` (:class:`~laizi.env.table.IllegalActionIndex`) or
    ``"abandon"`` — an illegal index counts as escaping (逃跑): the hand ends and your seat pays
    the escape penalty (for agents that sample without the mask).
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium's convention

    def __init__(
        self,
        rules: Any = "wuhan-hongzhong-kaikou",
        *,
        seat: int | None = 0,
        opponents: str | Sequence[Any] = "random",
        reward_scale: float = 1.0,
        dealer: int | None = None,
        render_mode: str | None = None,
        on_illegal: str = "raise",
    ) -> None:
        if on_illegal not in ("raise", "abandon"):
            raise ValueError("on_illegal must be 'raise' or 'abandon'")
        self.on_illegal = on_illegal
        if seat is not None and seat not in (0, 1, 2, 3):
            raise ValueError("seat must be 0-3 or None")
        if not isinstance(opponents, str) and len(opponents) != 3:
            raise ValueError("opponents: a bot name, or three bots (one per other seat)")
        self.ruleset = make_ruleset(rules)
        self.table = EnvTable(self.ruleset)
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.render_mode = render_mode
        self.reward_scale = float(reward_scale)
        self.fixed_seat = seat
        self.fixed_dealer = dealer
        self.opponent_name = opponents if isinstance(opponents, str) else None
        self.opponents: list[Any] = (
            self._make_opponents(0) if isinstance(opponents, str) else list(opponents)
        )
        self.seat = 0 if seat is None else seat
        self._seed = 0
        self._hand = 0

    def _make_opponents(self, seed: int) -> list[Any]:
        assert self.opponent_name is not None
        settings = self.ruleset.settings
        return [make_bot(self.opponent_name, settings, seed * 4 + k) for k in (1, 2, 3)]

    def _observation(self) -> dict[str, np.ndarray]:
        obs = np.empty(OBS_SHAPE, np.float32)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        self.table.write_observation(self.seat, obs)
        if not self._over():
            self.table.write_mask(self.seat, mask)
        return {"observation": obs, "action_mask": mask}

    def _over(self) -> bool:
        state = self.table.state
        return state is None or state.over

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        return {"seat": self.seat, "action_mask": mask}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
            self._hand = 0
            if self.opponent_name is not None:
                self.opponents = self._make_opponents(int(seed))
        while True:
            wall_seed = hand_seed(self._seed, self._hand)
            self._hand += 1
            self.seat = wall_seed[1] % 4 if self.fixed_seat is None else self.fixed_seat
            dealer = wall_seed[0] % 4 if self.fixed_dealer is None else self.fixed_dealer
            self.table.deal(wall_seed, dealer)
            self._play_opponents()
            if not self._over():  # a hand over before your first decision is dealt again
                break
        obs = self._observation()
        return obs, self._info(obs["action_mask"])

    def _play_opponents(self) -> None:
        table = self.table
        state = table.state
        assert state is not None
        while not state.over:
            seat = table.current_seat()
            assert seat is not None
            if seat == self.seat:
                return
            opponent = self.opponents[(seat - self.seat) % 4 - 1]
            legal = table.legal(seat)
            # The built-in random bot never reads its view: don't build one for it.
            shown = {} if type(opponent) is RandomBot else seat_view(state, seat)
            action: Action = opponent.act(shown, list(legal.values()))
            index = next((i for i, a in legal.items() if a is action), None)
            if index is None:  # a bot may build its own equal Action
                index = next((i for i, a in legal.items() if a == action), None)
            if index is None:
                raise ValueError(f"opponent {opponent!r} chose an illegal action: {action}")
            table.step(seat, index)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._over():
            raise RuntimeError("the hand is over: call reset()")
        index = int(action)
        if self.on_illegal == "abandon" and index not in self.table.legal(self.seat):
            self.table.abandon(self.seat)
        else:
            self.table.step(self.seat, index)
        self._play_opponents()
        obs = self._observation()
        info = self._info(obs["action_mask"])
        reward = 0.0
        terminated = self._over()
        if terminated:
            state = self.table.state
            assert state is not None and state.result is not None
            reward = float(state.result["payments"][self.seat]) * self.reward_scale
            info["result"] = {
                "reason": state.result["reason"],
                "winner": state.result["winner"],
                "payments": [float(p) for p in state.result["payments"]],
            }
        return obs, reward, terminated, False, info

    def render(self) -> str | None:
        return repr(self.table.state) if self.render_mode == "ansi" else None
