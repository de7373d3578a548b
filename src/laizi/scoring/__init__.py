"""The settlement 结算 of a Wuhan win (RULES.md A7, A9, A10): who pays whom, how much, and why.

>>> from laizi.scoring import situation_from_json, score
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

from typing import TYPE_CHECKING

from laizi.rules.melds import Meld
from laizi.rules.ruleset import ruleset
from laizi.scoring.escape import escape_payments
from laizi.scoring.input import situation_from_json
from laizi.scoring.model import (
    Factor,
    InputError,
    Multiplier,
    PlayerHand,
    Settlement,
    WinSituation,
)
from laizi.scoring.settle import current_multiplier, multipliers, standing_factors

if TYPE_CHECKING:
    from laizi.scoring.baishan import BaishanSettlement

__all__ = [
    "Factor",
    "InputError",
    "Meld",
    "Multiplier",
    "PlayerHand",
    "Settlement",
    "WinSituation",
    "current_multiplier",
    "escape_payments",
    "multipliers",
    "score",
    "situation_from_json",
    "standing_factors",
]


def score(situation: WinSituation) -> Settlement | BaishanSettlement:
    """Settle a claimed win by the rules of its room's game: Wuhan (A3–A10,
    :func:`laizi.scoring.settle.score`) or Baishan (Part B, :mod:`laizi.scoring.baishan`)."""
    return ruleset(situation.settings).score(situation)
