"""玩具麻将, the toy game: a third game in one folder, added by one line.

A plain game on the 136 tiles: no indicator, no wild tile, nothing laid out.  Any hand of four
melds and a pair wins; each loser of a self-drawn win pays ``win_points`` units, a discarder pays
the three shares alone, at most the cap each; a discard claimed twice goes to the first seat
after the discarder.

- :mod:`.settings` — :class:`ToySettings`: its one setting of its own, its preset, their names;
- :mod:`.ruleset` — :class:`ToyRuleset`: the engine's questions and the settlement.

Nothing outside this folder names it: the registry finds it through the line
``LAIZI_GAMES=toy=tests.games.toy`` (:mod:`laizi.rules.registry`).
"""

from laizi.rules.registry import Game

__all__ = ["GAME"]

GAME = Game(
    "toy",
    "tests.games.toy.ruleset:ToyRuleset",
    "toy",
    "tests.games.toy.settings:ToySettings",
)
