"""Scoring a finished hand from outside: ``laizi score``'s way in.

A finished hand comes in as JSON (:func:`situation_from_json`, checked once, there, by its game's
rules); :func:`score` hands it to its game's settlement (``laizi.rules.wuhan.settle``,
``laizi.rules.baishan.settle``) through the registry.  The values are ``laizi.rules.situation``'s,
exported here too.  This package holds no rule, never imports a game's folder, and nothing in
``laizi.rules`` imports it.

>>> s = score(situation_from_json({
...     "rules": {"preset": "wuhan-hongzhong-koukou", "min_points": 0},
...     "dealer": 2, "indicator": "5m", "winner": 3, "win": "discard", "from": 0,
...     "winning_tile": "5p",
...     "players": [
...         {"melds": [{"kind": "pung", "tiles": "999s", "from": 1}]},
...         {"melds": [{"kind": "pung", "tiles": "111s", "from": 0},
...                    {"kind": "pung", "tiles": "111p", "from": 3}], "laid_out": "7z6m"},
...         {"melds": [{"kind": "pung", "tiles": "444s", "from": 0},
...                    {"kind": "pung", "tiles": "444p", "from": 0}]},
...         {"hand": "123m456m789m5p", "melds": [{"kind": "chow", "tiles": "234p", "from": 2}]}]}))
>>> [int(p) for p in s.payments]
[-16, -64, -32, 112]
"""

from __future__ import annotations

from laizi.numbers import number_text
from laizi.rules.melds import Meld
from laizi.rules.ruleset import Settlement
from laizi.rules.situation import Factor, InputError, Multiplier, PlayerHand, WinSituation
from laizi.scoring.escape import escape_payments
from laizi.scoring.input import situation_from_json

__all__ = [
    "Factor",
    "InputError",
    "Meld",
    "Multiplier",
    "PlayerHand",
    "WinSituation",
    "escape_payments",
    "number_text",
    "score",
    "situation_from_json",
]


def score(situation: WinSituation) -> Settlement:
    """Settle a claimed win by the rules of its room's game (the game's settlement object:
    ``.allowed``, ``.payments``, ``.to_json()``, ``.explain(lang)``)."""
    from laizi.rules.registry import make_ruleset

    return make_ruleset(situation.settings).score(situation)
