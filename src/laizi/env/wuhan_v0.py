"""Wuhan mahjong (武汉麻将) as a PettingZoo AEC environment, any of the six presets.

>>> from laizi.env import wuhan_v0
>>> env = wuhan_v0.env(preset="wuhan-facai-koukou", reward_scale=0.1)
>>> env.reset(seed=1)
>>> env.possible_agents
['player_0', 'player_1', 'player_2', 'player_3']
>>> env.unwrapped.ruleset.settings.preset
'wuhan-facai-koukou'
"""

from __future__ import annotations

from typing import Any

from laizi.env.aec import LaiziAECEnv, OrderEnforcing
from laizi.env.parallel import LaiziParallelEnv
from laizi.rules import PRESETS, find_game

__all__ = ["WUHAN_PRESETS", "env", "match_env", "parallel_env", "raw_env"]

WUHAN_PRESETS = find_game("wuhan").presets()
"""The six Wuhan presets (红中 / 发财 / 七皮 × 开口翻 / 口口翻)."""


def _check(preset: Any) -> None:
    name = preset.get("preset") if isinstance(preset, dict) else preset
    if isinstance(name, str) and name in PRESETS and name not in WUHAN_PRESETS:
        raise ValueError(f"not a Wuhan preset: {name!r} (one of {', '.join(WUHAN_PRESETS)})")


def raw_env(preset: Any = "wuhan-hongzhong-kaikou", **kwargs: Any) -> LaiziAECEnv:
    """The environment without PettingZoo's order-enforcing wrapper.

    ``preset``: a Wuhan preset name or ``{"preset": …, setting: value}`` (room settings).
    Keyword arguments go to :class:`~laizi.env.aec.LaiziAECEnv` (``reward_scale``, ``dealer``,
    ``render_mode``).
    """
    _check(preset)
    return LaiziAECEnv(preset, **kwargs)


def env(preset: Any = "wuhan-hongzhong-kaikou", **kwargs: Any) -> Any:
    """The environment as PettingZoo users expect it (wrapped to enforce the call order)."""
    return OrderEnforcing(raw_env(preset, **kwargs))


def parallel_env(preset: Any = "wuhan-hongzhong-kaikou", **kwargs: Any) -> LaiziParallelEnv:
    """The same hand as a PettingZoo ``ParallelEnv`` (:mod:`laizi.env.parallel`): the seats
    with a decision act together, the others' actions are ignored."""
    _check(preset)
    return LaiziParallelEnv(preset, **kwargs)


def match_env(preset: Any = "wuhan-hongzhong-kaikou", hands: int = 8, **kwargs: Any) -> Any:
    """A whole match of ``hands`` hands as one AEC episode (:mod:`laizi.env.match`): running
    totals in the observation, the rules' dealer rule between hands."""
    from laizi.env.match import match_env as make

    _check(preset)
    return make(preset, hands=hands, **kwargs)
