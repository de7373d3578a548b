"""The rules of a room: settings and presets, and Wuhan's hand rules (RULES.md Part A)."""

from laizi.rules.melds import MELD_KINDS, OPENING_KINDS, Meld
from laizi.rules.ruleset import HandRules, WuhanRules, ruleset
from laizi.rules.settings import PRESETS, Settings, SettingsError, preset
from laizi.rules.wuhan import SpecialTiles, special_tiles

__all__ = [
    "MELD_KINDS",
    "OPENING_KINDS",
    "PRESETS",
    "HandRules",
    "Meld",
    "Settings",
    "SettingsError",
    "SpecialTiles",
    "WuhanRules",
    "preset",
    "ruleset",
    "special_tiles",
]
