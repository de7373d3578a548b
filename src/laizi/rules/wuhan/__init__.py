"""武汉麻将, Wuhan mahjong (RULES.md Part A): every rule of the game in this folder.

- :mod:`.specials` — the indicator, laizi, pi and must-gang tiles (A2, A4);
- :mod:`.readings` — what a winning hand is and which wins it makes (A3, A5, A6);
- :mod:`.settle` — the settlement: multipliers, minimum, caps, contracts (A7, A9, A10);
- :mod:`.validate` — the checks of a finished hand given from outside (``laizi score``);
- :mod:`.explain` — the settlement as a readable table, Chinese and English;
- :mod:`.settings` — :class:`WuhanSettings`: its settings, presets, their names and limits;
- :mod:`.ruleset` — :class:`WuhanRuleset`, the object the engine asks.

``GAME`` is its entry in the registry (:mod:`laizi.rules.registry`).
"""

from laizi.rules.registry import Game
from laizi.rules.wuhan.readings import (
    BIG_WINS,
    WIN_ORDER,
    Reading,
    Verdict,
    evaluate,
    is_ready,
    winning_tiles,
)
from laizi.rules.wuhan.ruleset import WuhanRuleset
from laizi.rules.wuhan.settings import WuhanSettings
from laizi.rules.wuhan.settle import (
    Settlement,
    current_multiplier,
    multipliers,
    score,
    standing_factors,
)
from laizi.rules.wuhan.specials import special_tiles

__all__ = [
    "BIG_WINS",
    "GAME",
    "WIN_ORDER",
    "Reading",
    "Settlement",
    "Verdict",
    "WuhanRuleset",
    "WuhanSettings",
    "current_multiplier",
    "evaluate",
    "is_ready",
    "multipliers",
    "score",
    "special_tiles",
    "standing_factors",
    "winning_tiles",
]

GAME = Game(
    "wuhan",
    "laizi.rules.wuhan:WuhanRuleset",
    "wuhan-hongzhong-kaikou",
    "laizi.rules.wuhan.settings:WuhanSettings",
    strategy="laizi.bots.wuhan:WuhanStrategy",
    env="laizi.env.wuhan_v0",
)
