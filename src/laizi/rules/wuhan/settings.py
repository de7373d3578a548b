"""Wuhan's room settings (RULES.md A1–A10): its fields, its six presets, their names and limits.

The (variant, mode) pair *is* the preset (A1): naming another ``variant`` or ``mode`` starts
again from that pair's preset.

>>> s = WuhanSettings.presets()["wuhan-hongzhong-kaikou"].with_overrides({"mode": "koukou"})
>>> s.preset, str(s.min_points), str(s.golden_cap), str(s.escape_penalty)
('wuhan-hongzhong-koukou', '64', '500', '500')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from laizi.rules.settings import MAX_AMOUNT, Limit, Settings, SettingsError

__all__ = ["MODES", "VARIANTS", "WuhanSettings"]

VARIANTS = ("hongzhong", "hongzhong_facai", "qipi_silai")
"""Wuhan tile variants, RULES.md A1."""
MODES = ("kaikou", "koukou")
"""Wuhan doubling modes, RULES.md A1: 开口翻 and 口口翻."""
MAX_FACTOR = 64  # far above any room's ×4; beyond it a value is a typo, not a rule
MAX_HAIDI_RESERVE = 60  # 136 − 53 dealt − 1 indicator leaves 82 in the wall; keep room to play
_FACTOR = Limit(MAX_FACTOR, 1, between="a doubling factor ")


@dataclass(frozen=True, repr=False)
class WuhanSettings(Settings):
    """武汉麻将's rules of one room."""

    variant: str
    """Tile variant, A1: ``hongzhong``, ``hongzhong_facai`` or ``qipi_silai``."""
    mode: str
    """Doubling mode, A1: ``kaikou`` (opened doubles once) or ``koukou`` (each opening doubles)."""
    laizi_gang_factor: Fraction
    """Multiplier for each laizi laid out (癞子杠), A3."""
    big_self_draw_factor: Fraction
    """The winner's self-draw factor in a big win, A7 (small wins always ×2)."""
    big_discard_factor: Fraction
    """The discarder's (or robbed player's) factor in a big win, A7 (small wins always ×2)."""
    pass_win_locked: bool
    """过胡: after passing a win, must the player wait for its own draw?  A6."""
    haidi_reserve: int
    """Tiles at the back of the wall never drawn normally (海底), A8."""
    golden_cap: Fraction
    """金顶: what each loser pays when all three exceed ``cap``, A9."""
    sunshine_cap: Fraction
    """阳光顶: at the golden cap, what a loser who never opened pays, A9."""
    three_suns_cap: Fraction
    """三阳开泰: at the golden cap, what each pays when none of the three opened, A9."""
    min_points: Fraction
    """起胡: each loser's amount before caps must reach this, A10 (0 = no minimum)."""

    ORDER: ClassVar[tuple[str, ...]] = (
        "preset",
        "game",
        "variant",
        "mode",
        "laizi_gang_factor",
        "big_self_draw_factor",
        "big_discard_factor",
        "pass_win_locked",
        "win_priority",
        "haidi_reserve",
        "cap",
        "golden_cap",
        "sunshine_cap",
        "three_suns_cap",
        "escape_penalty",
        "min_points",
        "base",
    )
    CHOICES: ClassVar[Mapping[str, Collection[str]]] = {
        "variant": VARIANTS,
        "mode": MODES,
        **Settings.CHOICES,
    }
    LIMITS: ClassVar[Mapping[str, Limit]] = {
        **Settings.LIMITS,
        "laizi_gang_factor": _FACTOR,
        "big_self_draw_factor": _FACTOR,
        "big_discard_factor": _FACTOR,
        "haidi_reserve": Limit(MAX_HAIDI_RESERVE, 0, between=""),
        "golden_cap": Limit(MAX_AMOUNT, at_least="cap"),
        "sunshine_cap": Limit(MAX_AMOUNT, at_least="golden_cap"),
        "three_suns_cap": Limit(MAX_AMOUNT, at_least="sunshine_cap"),
        "min_points": Limit(MAX_AMOUNT, 0),
    }
    LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        **Settings.LABELS,
        "variant": ("癞子玩法", "Variant"),
        "mode": ("翻法", "Doubling mode"),
        "laizi_gang_factor": ("癞子杠倍数", "Laizi gang factor"),
        "big_self_draw_factor": ("大胡自摸倍数", "Big win self-draw factor"),
        "big_discard_factor": ("大胡放冲倍数", "Big win discarder factor"),
        "pass_win_locked": (
            "过胡（过了胡要等自己摸牌）",
            "Passed win locked until own draw",
        ),
        "haidi_reserve": ("海底留牌", "Tiles kept back at the end of the wall"),
        "golden_cap": ("金顶", "Golden cap"),
        "sunshine_cap": ("阳光顶", "Sunshine cap"),
        "three_suns_cap": ("三阳开泰", "Three suns cap"),
        "min_points": ("起胡分", "Minimum to win"),
    }
    CHOICE_LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        "wuhan": ("武汉麻将", "Wuhan"),
        "hongzhong": ("红中癞子杠", "red dragon kongs"),
        "hongzhong_facai": ("红中发财杠", "red and green dragon kongs"),
        "qipi_silai": ("七皮四赖", "seven pi, four laizi"),
        "kaikou": ("开口翻", "opening doubles once"),
        "koukou": ("口口翻", "each opening doubles"),
        **Settings.CHOICE_LABELS,
        "wuhan-hongzhong-kaikou": (
            "武汉 红中癞子杠 开口翻",
            "Wuhan, red dragon kongs, opening doubles once",
        ),
        "wuhan-hongzhong-koukou": (
            "武汉 红中癞子杠 口口翻",
            "Wuhan, red dragon kongs, each opening doubles",
        ),
        "wuhan-facai-kaikou": (
            "武汉 红中发财杠 开口翻",
            "Wuhan, red and green dragon kongs, opening doubles once",
        ),
        "wuhan-facai-koukou": (
            "武汉 红中发财杠 口口翻",
            "Wuhan, red and green dragon kongs, each opening doubles",
        ),
        "wuhan-qipi-kaikou": (
            "武汉 七皮四赖 开口翻",
            "Wuhan, seven pi four laizi, opening doubles once",
        ),
        "wuhan-qipi-koukou": (
            "武汉 七皮四赖 口口翻",
            "Wuhan, seven pi four laizi, each opening doubles",
        ),
    }

    @classmethod
    def presets(cls) -> Mapping[str, Settings]:
        return _presets()

    def restart(self, changes: Mapping[str, Any]) -> Settings:
        """This value moved to the preset of the (``variant``, ``mode``) ``changes`` name, A1:
        that preset's defaults with the settings this value set itself on top (itself when the
        pair is unchanged)."""
        variant = changes.get("variant", self.variant)
        mode = changes.get("mode", self.mode)
        if (variant, mode) == (self.variant, self.mode):
            return self
        for key, value in (("variant", variant), ("mode", mode)):
            if value not in self.CHOICES[key]:
                raise SettingsError(key, f"{value!r} is not one of {', '.join(self.CHOICES[key])}")
        name = _pairs()[(variant, mode)]
        own = _presets().get(self.preset)
        fixed = {"preset", "game", "variant", "mode"}
        kept = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in fixed
            and (own is None or getattr(self, f.name) != getattr(own, f.name))
        }
        return dataclasses.replace(_presets()[name], **kept)


# -- presets (RULES.md A1–A10 defaults) -------------------------------------------------------
_PRESET_SHAPES = {
    "wuhan-hongzhong-kaikou": ("hongzhong", "kaikou"),
    "wuhan-hongzhong-koukou": ("hongzhong", "koukou"),
    "wuhan-facai-kaikou": ("hongzhong_facai", "kaikou"),
    "wuhan-facai-koukou": ("hongzhong_facai", "koukou"),
    "wuhan-qipi-kaikou": ("qipi_silai", "kaikou"),
    "wuhan-qipi-koukou": ("qipi_silai", "koukou"),
}


def _wuhan(name: str, variant: str, mode: str) -> WuhanSettings:
    koukou = mode == "koukou"
    return WuhanSettings(
        preset=name,
        game="wuhan",
        variant=variant,
        mode=mode,
        laizi_gang_factor=Fraction(2 if variant == "hongzhong" else 4),
        big_self_draw_factor=Fraction(3, 2),
        big_discard_factor=Fraction(3, 2),
        pass_win_locked=False,
        win_priority="from_dealer",
        haidi_reserve=10,
        cap=Fraction(300),
        golden_cap=Fraction(500 if koukou else 400),
        sunshine_cap=Fraction(600),
        three_suns_cap=Fraction(800),
        escape_penalty=Fraction(500 if koukou else 400),
        min_points=Fraction(64 if koukou else (32 if variant == "qipi_silai" else 16)),
        base=Fraction(1),
    )


@cache
def _presets() -> dict[str, WuhanSettings]:
    """The six presets by name (made on first use: a preset checks its game in the registry)."""
    return {name: _wuhan(name, variant, mode) for name, (variant, mode) in _PRESET_SHAPES.items()}


@cache
def _pairs() -> dict[tuple[str, str], str]:
    """The preset of each (variant, mode): the pair is the preset (RULES.md A1)."""
    return {shape: name for name, shape in _PRESET_SHAPES.items()}


def wuhan_settings(settings: Settings) -> WuhanSettings:
    """``settings`` as Wuhan's (a situation carries the base type); ``TypeError`` otherwise."""
    if not isinstance(settings, WuhanSettings):
        raise TypeError(f"not Wuhan settings: game {settings.game!r}")
    return settings
