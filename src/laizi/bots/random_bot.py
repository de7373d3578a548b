"""``random``: a uniformly random legal action — the baseline every other bot must beat."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi.bots.base import Bot, register
from laizi.engine.actions import Action

__all__ = ["RandomBot"]


@register("random")
class RandomBot(Bot):
    """Picks uniformly among the legal actions with its own seeded generator."""

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]
