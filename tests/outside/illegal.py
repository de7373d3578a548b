"""An outside bot that breaks the rules: ``tests.outside.illegal:AlwaysPass`` (it passes even
when passing is not legal, so the hand can't go on)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi.engine.actions import Action


class AlwaysPass:
    def __init__(self, rules: Any, seed: int) -> None:
        self.rules = rules

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return Action(view["seat"], "pass")
