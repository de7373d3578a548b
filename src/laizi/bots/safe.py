"""托管: the safe default a seat plays when its player (a person or an outside bot) did not
decide in time, crashed, or answered something that is not legal.

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> safe_default(game.view(0), game.legal_actions(0)).type
'discard'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi.engine import Action
from laizi.tiles import format_tile

__all__ = ["safe_default"]


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
