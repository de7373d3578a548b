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
from typing import Any

from laizi.bots import Bot, make_bot
from laizi.bots.safe import safe_default

__all__ = ["BOT_LEVELS", "bot_player", "safe_default"]

BOT_LEVELS = ("random", "greedy", "learned", "strong", "expert")
"""The table setting "bot level": the names of the built-in bots (:mod:`laizi.bots`)."""


def bot_player(level: str, rules: Any) -> Bot:
    """A bot of the room's "bot level" with its own fresh random seed."""
    return make_bot(level, rules, seed=secrets.randbits(63))
