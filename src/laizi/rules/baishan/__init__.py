"""白山麻将, Baishan mahjong (RULES.md Part B): every rule of the game in this folder.

- :mod:`.readings` — what a winning hand is (不断幺九, a triplet, 七对, 十三幺) and 报听;
- :mod:`.settle` — the settlement: fans, capped powers of two, kongs paid on the spot;
- :mod:`.validate` — the checks of a finished hand given from outside (``laizi score``);
- :mod:`.explain` — the settlement as a readable table, Chinese and English;
- :mod:`.settings` — :class:`BaishanSettings`: its settings, presets, their names and limits;
- :mod:`.ruleset` — :class:`BaishanRuleset`, the object the engine asks.

``GAME`` is its entry in the registry (:mod:`laizi.rules.registry`).
"""

from laizi.rules.baishan.readings import (
    BaishanReading,
    BaishanVerdict,
    declarable_discards,
    evaluate,
    may_declare_ready,
    winning_tiles,
)
from laizi.rules.baishan.ruleset import BaishanRuleset
from laizi.rules.baishan.settings import BaishanSettings
from laizi.rules.baishan.settle import BaishanSettlement, kong_payments, score
from laizi.rules.registry import Game

__all__ = [
    "GAME",
    "BaishanReading",
    "BaishanRuleset",
    "BaishanSettings",
    "BaishanSettlement",
    "BaishanVerdict",
    "declarable_discards",
    "evaluate",
    "kong_payments",
    "may_declare_ready",
    "score",
    "winning_tiles",
]

GAME = Game(
    "baishan",
    "laizi.rules.baishan:BaishanRuleset",
    "baishan",
    "laizi.rules.baishan.settings:BaishanSettings",
    strategy="laizi.bots.baishan:BaishanStrategy",
    env="laizi.env.baishan_v0",
)
