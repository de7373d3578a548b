"""Training environments on top of the engine: exact rules, fixed-shape numpy.

* :mod:`laizi.env.wuhan_v0` / :mod:`laizi.env.baishan_v0` — PettingZoo AEC environments.
* :class:`laizi.env.single.LaiziGymEnv` — a Gymnasium single-agent env; the other three seats
  are opponents (:mod:`laizi.env.opponents`).
* :class:`laizi.env.batch.BatchEnv` — many tables stepped at once, numpy in and out.
* :class:`laizi.env.vector.LaiziVectorEnv` — Gymnasium's vector API on ``BatchEnv``; importing
  this package registers ``laizi/Wuhan-v0`` and ``laizi/Baishan-v0`` for
  ``gymnasium.make_vec(id, num_envs=N)``.
* :mod:`laizi.env.parallel` — the PettingZoo ``ParallelEnv`` (``wuhan_v0.parallel_env`` …);
  :mod:`laizi.env.match` — a whole match as one AEC episode (``wuhan_v0.match_env`` …).
* :mod:`laizi.env.encoders` — the observation encoders ``v1`` and ``v2``.
* :mod:`laizi.env.spaces` — the action space (177 indices) and the observation layout (22 × 34).

``docs/env.md`` documents all of it.  Needs ``pip install 'laizi[env]'`` (numpy, gymnasium,
pettingzoo).
"""

from laizi.env.batch import BatchEnv
from laizi.env.encoders import ENCODERS, get_encoder
from laizi.env.single import LaiziGymEnv
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE, describe_action
from laizi.env.table import EnvTable, IllegalActionIndex, action_index
from laizi.env.vector import LaiziVectorEnv, SelfPlayEnv, register_envs
from laizi.env.views import encode_view, mask_from_view

register_envs()

__all__ = [
    "ENCODERS",
    "NUM_ACTIONS",
    "OBS_SHAPE",
    "BatchEnv",
    "EnvTable",
    "IllegalActionIndex",
    "LaiziGymEnv",
    "LaiziVectorEnv",
    "SelfPlayEnv",
    "action_index",
    "describe_action",
    "encode_view",
    "get_encoder",
    "mask_from_view",
]
