"""The rules of a room: settings and presets, Wuhan's hand rules (RULES.md Part A) and
Baishan's (Part B, :mod:`laizi.rules.baishan`)."""

from laizi.rules.baishan import RANKS, Rank, rank_for
from laizi.rules.melds import MELD_KINDS, OPENING_KINDS, Meld
from laizi.rules.ruleset import BaishanRules, HandRules, WuhanRules, ruleset
from laizi.rules.settings import PRESETS, Settings, SettingsError, preset
from laizi.rules.wuhan import SpecialTiles, special_tiles

__all__ = [
    "MELD_KINDS",
    "OPENING_KINDS",
    "PRESETS",
    "RANKS",
    "BaishanRules",
    "HandRules",
    "Meld",
    "Rank",
    "Settings",
    "SettingsError",
    "SpecialTiles",
    "WuhanRules",
    "preset",
    "rank_for",
    "ruleset",
    "special_tiles",
]
