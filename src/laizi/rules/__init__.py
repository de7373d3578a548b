"""The rules of a room: its settings, the engine's question list (:class:`Ruleset`), the one
registry of games (:func:`find_game`, :func:`make_ruleset`) and one folder per game —
:mod:`laizi.rules.wuhan` (RULES.md Part A) and :mod:`laizi.rules.baishan` (Part B), loaded
through the registry.

>>> from laizi.rules import make_ruleset
>>> make_ruleset("baishan").game
'baishan'
"""

from laizi.rules.melds import MELD_KINDS, OPENING_KINDS, Meld
from laizi.rules.ranks import RANKS, Rank, rank_for
from laizi.rules.registry import GAMES, Game, find_game, game_ids, make_ruleset, register
from laizi.rules.ruleset import HandView, Ruleset, SeatView, SpecialTiles, WinOffer
from laizi.rules.settings import PRESETS, Settings, SettingsError, preset

__all__ = [
    "GAMES",
    "MELD_KINDS",
    "OPENING_KINDS",
    "PRESETS",
    "RANKS",
    "Game",
    "HandView",
    "Meld",
    "Rank",
    "Ruleset",
    "SeatView",
    "Settings",
    "SettingsError",
    "SpecialTiles",
    "WinOffer",
    "find_game",
    "game_ids",
    "make_ruleset",
    "preset",
    "rank_for",
    "register",
]
