"""Baishan mahjong (白山麻将) as a PettingZoo AEC environment .

Same observation and action space as :mod:`laizi.env.wuhan_v0`; the indicator, laizi, pi and
must-gang rows stay zero, and 报听 is the ``declare_ready`` block of the action space.
"""

from __future__ import annotations

from typing import Any

from laizi.env.aec import LaiziAECEnv, OrderEnforcing
from laizi.env.parallel import LaiziParallelEnv
from laizi.rules import find_game

__all__ = ["env", "match_env", "parallel_env", "raw_env"]


def raw_env(rules: Any = "baishan", **kwargs: Any) -> LaiziAECEnv:
    """The environment without PettingZoo's order-enforcing wrapper.

    ``rules``: ``"baishan"`` or ``{"preset": "baishan", setting: value}``.
    """
    _check(rules)
    return LaiziAECEnv(rules, **kwargs)


def _check(rules: Any) -> None:
    name = rules.get("preset") if isinstance(rules, dict) else rules
    if name not in find_game("baishan").presets():
        raise ValueError(f"not the Baishan preset: {name!r}")


def env(rules: Any = "baishan", **kwargs: Any) -> Any:
    """The environment as PettingZoo users expect it (wrapped to enforce the call order)."""
    return OrderEnforcing(raw_env(rules, **kwargs))


def parallel_env(rules: Any = "baishan", **kwargs: Any) -> LaiziParallelEnv:
    """The same hand as a PettingZoo ``ParallelEnv`` (:mod:`laizi.env.parallel`)."""
    _check(rules)
    return LaiziParallelEnv(rules, **kwargs)


def match_env(rules: Any = "baishan", hands: int = 8, **kwargs: Any) -> Any:
    """A whole match of ``hands`` hands as one AEC episode (:mod:`laizi.env.match`): running
    totals in the observation, the rules' dealer rule between hands."""
    from laizi.env.match import match_env as make

    _check(rules)
    return make(rules, hands=hands, **kwargs)
