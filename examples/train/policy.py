"""A small numpy policy over laizi.env's observation: one hidden layer, masked softmax.

Shared by ``bc_train.py`` (which fits it) and ``bc_bot.py`` (which plays it).  The two scalars a
seat's view does not carry (``after_kong``, ``win_locked``) are zeroed, so the policy sees the
same input in the environment and at a table.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE

INPUT = OBS_SHAPE[0] * OBS_SHAPE[1]
_HIDDEN_SCALARS = (20 * 34 + 31, 20 * 34 + 32)  # after_kong, win_locked
WEIGHTS = Path(__file__).with_name("bc_policy.npz")
"""The committed weights; ``LAIZI_BC_WEIGHTS`` names another file."""


def weights_path() -> Path:
    return Path(os.environ.get("LAIZI_BC_WEIGHTS") or WEIGHTS)


def features(obs: np.ndarray) -> np.ndarray:
    """``(…, 22, 34)`` observations → ``(…, 748)`` inputs (view-only scalars zeroed)."""
    flat = obs.reshape(*obs.shape[:-2], INPUT).astype(np.float32, copy=True)
    flat[..., list(_HIDDEN_SCALARS)] = 0
    return flat


class Policy:
    """``logits = W2 · relu(W1 · (x − mean) / std + b1) + b2``; illegal actions masked out."""

    def __init__(self, hidden: int = 128, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.mean = np.zeros(INPUT, np.float32)
        self.std = np.ones(INPUT, np.float32)
        self.w1 = (rng.standard_normal((INPUT, hidden)) * np.sqrt(2 / INPUT)).astype(np.float32)
        self.b1 = np.zeros(hidden, np.float32)
        self.w2 = (rng.standard_normal((hidden, NUM_ACTIONS)) * np.sqrt(1 / hidden)).astype(
            np.float32
        )
        self.b2 = np.zeros(NUM_ACTIONS, np.float32)

    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2, self.b2]

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hidden activations and logits of a batch of feature rows."""
        h = np.maximum((x - self.mean) / self.std @ self.w1 + self.b1, 0)
        return h, h @ self.w2 + self.b2

    def best(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row."""
        _, logits = self.forward(x)
        return np.where(mask > 0, logits, -np.inf).argmax(axis=-1)

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path, mean=self.mean, std=self.std, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2
        )

    @classmethod
    def load(cls, path: Path | None = None) -> Policy:
        data = np.load(path or weights_path())
        policy = cls(hidden=data["w1"].shape[1])
        for name in ("mean", "std", "w1", "b1", "w2", "b2"):
            setattr(policy, name, data[name])
        return policy
