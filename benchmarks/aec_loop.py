"""The AEC env's timed loop, shared by ``bench_env.py`` and ``ab_compare.py`` (no laizi import:
``ab_compare`` times exported revisions of the package)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np


def play_random(env: Any, hands: int, rng: random.Random) -> int:
    """Play ``hands`` hands of a PettingZoo AEC env with uniformly random legal actions (the env
    reset after each); the number of decisions stepped."""
    steps = 0
    for _ in range(hands):
        while env.agents:
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        env.reset()
    return steps
