"""Many tables stepped at once, numpy in and numpy out (self-play: every seat is the policy).

Each table has exactly one decision pending at a time (claim windows: the lowest seat still to
decide, as in the AEC env).  :meth:`BatchEnv.step` takes one action index per table and returns
the arrays of the next decisions; a table whose hand ended reports the four payments (× scale)
in ``rewards`` and ``done`` and is dealt a new hand at once, so every row always has a decision.

>>> import numpy as np
>>> batch = BatchEnv(8, "wuhan-hongzhong-kaikou", seed=1)
>>> obs, mask, seat = batch.reset()
>>> obs.shape, mask.shape, seat.shape
((8, 22, 34), (8, 177), (8,))
>>> rng = np.random.default_rng(0)
>>> obs, mask, seat, rewards, done = batch.step(batch.random_actions(rng))
>>> rewards.shape, done.dtype
((8, 4), dtype('bool'))

The arrays are reused from step to step: copy them if you keep them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from laizi.env.aec import first_dealer, hand_seed
from laizi.env.encoders import get_encoder
from laizi.env.spaces import NUM_ACTIONS
from laizi.env.table import EnvTable, step_tables
from laizi.rules.registry import make_ruleset

__all__ = ["BatchEnv"]


class BatchEnv:
    """``n`` tables of the same rules.  Table *i*'s hands come from seed ``seed × n + i``.

    ``keep_final``: also write, for each table whose hand ends, the final observation of the
    seat that ended it into :attr:`final_obs` (the vector env's ``infos["final_obs"]``).
    ``encoder``: ``"v1"`` (``(22, 34)``) or ``"v2"`` (``(63, 34)``), :mod:`laizi.env.encoders`.
    """

    def __init__(
        self,
        n: int,
        rules: Any = "wuhan-hongzhong-kaikou",
        *,
        seed: int = 0,
        reward_scale: float = 1.0,
        keep_final: bool = False,
        encoder: Any = "v1",
    ) -> None:
        if n < 1:
            raise ValueError("n: at least one table")
        ruleset = make_ruleset(rules)
        self.encoder = get_encoder(encoder)
        shape = self.encoder.shape
        self._write_obs = None if self.encoder.name == "v1" else self.encoder.write
        self.n = n
        self.reward_scale = float(reward_scale)
        self.tables = [EnvTable(ruleset) for _ in range(n)]
        self.obs = np.zeros((n, *shape), np.float32)
        self.mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self.seat = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, 4), np.float32)
        self.done = np.zeros(n, bool)
        self.keep_final = keep_final
        self.final_obs = np.zeros((n, *shape), np.float32) if keep_final else self.obs[:0]
        """With ``keep_final``: row *i* is, after a step that ended table *i*'s hand, the last
        observation of that hand of the seat that made the last move (then a new hand is dealt)."""
        self.hands_done = 0
        self._seed = seed
        self._hands = [0] * n

    def _deal(self, i: int) -> None:
        table_seed = self._seed * self.n + i
        wall_seed = hand_seed(table_seed, self._hands[i])
        dealer = first_dealer(table_seed, self._hands[i])
        self._hands[i] += 1
        self.tables[i].deal(wall_seed, dealer)

    def _write(self, i: int) -> None:
        table = self.tables[i]
        seat = table.current_seat()
        assert seat is not None
        self.seat[i] = seat
        self.encoder.write(table, seat, self.obs[i])
        table.write_mask(seat, self.mask[i])

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every table; return ``(obs, mask, seat)`` of the first decisions."""
        if seed is not None:
            self._seed = seed
        self._hands = [0] * self.n
        for i in range(self.n):
            self._deal(i)
            self._write(i)
        return self.obs, self.mask, self.seat

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action index per table → ``(obs, mask, seat, rewards, done)``."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,):
            raise ValueError(f"actions: one index per table, shape ({self.n},)")
        rewards = self.rewards
        done = self.done
        rewards.fill(0)
        done.fill(False)
        ended = step_tables(
            self.tables,
            self.seat,
            actions.astype(np.int64, copy=False).tolist(),
            self.obs,
            self.mask,
            rewards,
            self.reward_scale,
            self._write_obs,
        )
        for i in ended:  # a new hand at once: every row always has a decision
            done[i] = True
            if self.keep_final:
                self.encoder.write(self.tables[i], int(self.seat[i]), self.final_obs[i])
            self.hands_done += 1
            self._deal(i)
            self._write(i)
        return self.obs, self.mask, self.seat, rewards, done

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every table (vectorised)."""
        return np.argmax(rng.random(self.mask.shape) * self.mask, axis=1)
