"""The observation and mask built from a seat's JSON view (``laizi.engine.view``).

:class:`~laizi.env.table.EnvTable` keeps its arrays incrementally from the state, for speed;
this module builds the same layout from the view a bot or a client is given, from scratch.  Use
it to run a policy trained in the environment as a bot at a table (``laizi arena``, the
server), and as an independent check of the fast encoder (the tests compare the two).

Two scalars are not in a view: ``after_kong`` and ``win_locked`` (pass them if known).

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> obs = encode_view(game.view(0))
>>> obs.shape, int(obs[0].sum())
((22, 34), 14)
>>> mask = mask_from_view(game.view(0))
>>> int(mask.sum()) == len(game.legal_actions(0))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from laizi.engine.actions import Action
from laizi.env.spaces import HIDDEN_KONGS, NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import action_index, log2_multiplier
from laizi.tiles import parse_tile, parse_tiles

__all__ = ["encode_view", "mask_from_view"]

_PHASE_COLUMN = {"turn": 2, "claim": 3, "rob": 4, "final": 5, "over": 6}
_KONGS = frozenset({"exposed_kong", "added_kong", "concealed_kong"})


def _tiles(text: str | None) -> list[int]:
    return parse_tiles(text) if text else []


def encode_view(
    view: Mapping[str, Any], *, after_kong: bool = False, win_locked: bool = False
) -> np.ndarray:
    """The ``(22, 34)`` float32 observation of the seat whose view this is."""
    seat = view["seat"]
    if seat is None:
        raise ValueError("view: a seat's view is needed (this is a spectator's)")
    obs = np.zeros(OBS_SHAPE, np.float32)
    for t in _tiles(view["concealed"]):
        obs[0, t] += 1
    phase = view["phase"]
    if view.get("drawn") and view["turn"] == seat and phase in ("turn", "final"):
        obs[1, parse_tile(view["drawn"])] = 1
    players = view["players"]
    kongs_made = 0
    scalars = obs[20]
    for entry in players:
        rel = (entry["seat"] - seat) % 4
        for meld in entry["melds"]:
            if meld["kind"] in _KONGS:
                kongs_made += 1
            if meld["tiles"] is None or (rel and meld["kind"] == "concealed_kong"):
                # another seat's 暗杠 stays hidden, also in the view at the hand's end
                scalars[HIDDEN_KONGS + rel] += 1
                continue
            for t in _tiles(meld["tiles"]):
                obs[2 + rel, t] += 1
        for t in entry["discards"]:
            obs[6 + rel, parse_tile(t)] += 1
        for t in entry["laid_out"]:
            obs[10 + rel, parse_tile(t)] += 1
            kongs_made += 1
        multiplier = entry.get("multiplier")
        if multiplier is not None:
            scalars[15 + rel] = log2_multiplier(multiplier["total"])
        scalars[19 + rel] = entry["hand_size"]
        scalars[23 + rel] = entry["openings"]
        if entry.get("declared_ready"):
            obs[21, rel] = 1
    if view.get("indicator"):
        obs[14, parse_tile(view["indicator"])] = 1
    if view.get("laizi"):
        obs[15, parse_tile(view["laizi"])] = 1
        obs[19, parse_tile(view["laizi"])] = 1
    for t in view.get("pi") or ():
        obs[16, parse_tile(t)] = 1
    for t in view.get("must_gang") or ():
        obs[17, parse_tile(t)] = 1
        obs[19, parse_tile(t)] = 1
    claim = view.get("claim")
    if claim is not None and phase in ("claim", "rob"):
        obs[18, parse_tile(claim["tile"])] = 1
    scalars[0] = view["tiles_left"]
    scalars[1] = view["live"]
    scalars[_PHASE_COLUMN[phase]] = 1
    scalars[7 + (view["dealer"] - seat) % 4] = 1
    scalars[11 + (view["turn"] - seat) % 4] = 1
    scalars[31] = float(after_kong and view["turn"] == seat)
    scalars[32] = float(win_locked)
    scalars[33] = kongs_made
    return obs


def mask_from_view(view: Mapping[str, Any], legal: Iterable[Action] | None = None) -> np.ndarray:
    """The ``(177,)`` int8 action mask: of ``legal`` when given, else of the view's ``legal``."""
    claim = view.get("claim")
    claim_tile = parse_tile(claim["tile"]) if claim is not None else None
    actions = list(legal) if legal is not None else [Action.from_json(a) for a in view["legal"]]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for action in actions:
        mask[action_index(action, claim_tile)] = 1
    return mask
