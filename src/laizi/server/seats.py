"""Who plays a seat the server fills: the built-in bots, and the safe default of a timed-out seat.

A bot gets exactly what a remote player at that seat would get — the seat's view
(``laizi.engine.view``) and its legal actions — and picks one (``act(view, legal)``).

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> safe_default(game.view(0), game.legal_actions(0)).type
'discard'
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from laizi.bots import Bot, make_bot
from laizi.engine import Action
from laizi.tiles import format_tile

__all__ = ["BOT_LEVELS", "bot_player", "safe_default"]

BOT_LEVELS = ("random", "greedy", "strong", "expert")
"""The table setting "bot level": the names of the built-in bots (:mod:`laizi.bots`)."""


def safe_default(view: dict[str, Any], legal: Sequence[Action]) -> Action:
    """What a seat that ran out of time plays: pass a claim (or a 海底 win), discard the tile
    just drawn (else the last tile of the hand), never a kong or a lay-out it did not ask for.

    Only when nothing else is legal (a drawn laizi that must be laid out) is that played."""
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


def bot_player(level: str, rules: Any) -> Bot:
    """A bot of the room's "bot level" with its own fresh random seed."""
    return make_bot(level, rules, seed=secrets.randbits(63))
