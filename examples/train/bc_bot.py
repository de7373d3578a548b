"""The behaviour-cloned policy as a laizi bot (``bc_bot:BCBot`` for ``laizi arena``).

It gets what every bot gets — its seat's view and the legal actions — builds the environment's
observation from the view (``laizi.env.views``) and plays the policy's most likely legal action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policy import Policy, features, weights_path

from laizi.engine.actions import Action
from laizi.env.table import action_index
from laizi.env.views import encode_view, mask_from_view
from laizi.tiles import parse_tile

_POLICIES: dict[str, Policy] = {}


class BCBot:
    """Deterministic: the policy's argmax among the legal actions (the seed is not used)."""

    name = "bc"

    def __init__(self, rules: Any = None, seed: int = 0) -> None:
        path = weights_path()
        if str(path) not in _POLICIES:
            _POLICIES[str(path)] = Policy.load(path)
        self.policy = _POLICIES[str(path)]
        self.rules = rules
        self.seed = seed

    def __repr__(self) -> str:
        return "BCBot()"

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        claim = view.get("claim")
        claim_tile = parse_tile(claim["tile"]) if claim else None
        by_index = {action_index(a, claim_tile): a for a in legal}
        mask = mask_from_view(view, legal)
        x = features(encode_view(view))[None]
        return by_index[int(self.policy.best(x, mask[None])[0])]
