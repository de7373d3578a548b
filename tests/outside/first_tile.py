"""An outside bot for the tests: ``tests.outside.first_tile:FirstTile``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi.engine.actions import Action


class FirstTile:
    """Always the first legal action — written without laizi.bots, as an outsider would."""

    def __init__(self, rules: Any, seed: int) -> None:
        self.rules = rules

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return legal[0]
