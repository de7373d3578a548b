"""Who plays a seat the server fills: bots, and the safe default of a timed-out seat (托管).

A player for an empty seat is anything with ``choose(view, legal) -> Action``: it gets the seat's
view (``laizi.engine.view``) and its legal actions, and picks one.  Until the bots of issue 6
land this module's :class:`SeatFiller` plays; ``bot_player(level)`` is the one place to switch.

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> safe_default(game.view(0), game.legal_actions(0)).type
'discard'
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any, Protocol

from laizi.engine import Action
from laizi.tiles import format_tile

__all__ = ["BOT_LEVELS", "Player", "SeatFiller", "bot_player", "safe_default"]

BOT_LEVELS = ("random", "greedy", "strong")
"""The room setting "bot level"."""


class Player(Protocol):
    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action: ...


def safe_default(view: dict[str, Any], legal: Sequence[Action]) -> Action:
    """What a seat that ran out of time plays: pass a claim (or a 海底 win), discard the tile
    just drawn (else the last tile of the hand), never a kong or a lay-out it did not ask for."""
    for action in legal:
        if action.type == "pass":
            return action
    discards = [a for a in legal if a.type == "discard"]
    drawn = view.get("drawn")
    for action in discards:
        if action.tile is not None and format_tile(action.tile) == drawn:
            return action
    if discards:
        return discards[-1]
    return legal[0]


class SeatFiller:
    """A small stand-in bot: ``random`` picks any legal action; ``greedy`` (and ``strong`` until
    issue 6's bots) wins whenever it can, never breaks its hand for a claim, and otherwise
    discards like :func:`safe_default`."""

    def __init__(self, level: str = "random", rng: random.Random | None = None) -> None:
        if level not in BOT_LEVELS:
            raise ValueError(f"bot level must be one of {', '.join(BOT_LEVELS)}")
        self.level = level
        self.rng = rng or random.Random(secrets.randbits(64))

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if self.level == "random":
            return self.rng.choice(list(legal))
        for action in legal:
            if action.type == "win":
                return action
        return safe_default(view, legal)


def bot_player(level: str) -> Player:
    """The bot for the room's "bot level"."""
    return SeatFiller(level)
