"""Baishan mahjong (白山麻将) as a PettingZoo AEC environment .

Same observation and action space as :mod:`laizi.env.wuhan_v0`; the indicator, laizi, pi and
must-gang rows stay zero, and 报听 is the ``declare_ready`` block of the action space.
"""

from __future__ import annotations

from typing import Any

from laizi.env.aec import LaiziAECEnv, OrderEnforcing
from laizi.rules import find_game

__all__ = ["env", "raw_env"]


def raw_env(rules: Any = "baishan", **kwargs: Any) -> LaiziAECEnv:
    """The environment without PettingZoo's order-enforcing wrapper.

    ``rules``: ``"baishan"`` or ``{"preset": "baishan", setting: value}``.
    """
    name = rules.get("preset") if isinstance(rules, dict) else rules
    if name not in find_game("baishan").presets():
        raise ValueError(f"not the Baishan preset: {name!r}")
    return LaiziAECEnv(rules, **kwargs)


def env(rules: Any = "baishan", **kwargs: Any) -> Any:
    """The environment as PettingZoo users expect it (wrapped to enforce the call order)."""
    return OrderEnforcing(raw_env(rules, **kwargs))
