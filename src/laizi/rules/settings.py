"""Room rules: one immutable, validated value per room (RULES.md A1–A10 settings).

A room starts from a preset and may override single settings:

>>> s = preset("wuhan-hongzhong-kaikou")
>>> s.variant, s.mode, str(s.min_points), str(s.golden_cap), str(s.big_self_draw_factor)
('hongzhong', 'kaikou', '16', '400', '3/2')
>>> t = s.with_overrides({"min_points": 0})
>>> t.min_points == 0 and s.min_points == 16
True
>>> Settings.from_json(t.to_json()) == t
True

Numbers that may be fractional (the ×1.5 factors, caps, the base unit) are kept as
:class:`fractions.Fraction`; counts are ``int``.  Unknown keys and impossible values raise
:class:`SettingsError` naming the key.  Table settings such as timers are not rules and do not
belong here (they are the server's).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from itertools import pairwise
from typing import Any

from laizi.rules.registry import GAMES, WUHAN_ONLY, find_game

__all__ = [
    "GAMES",
    "MODES",
    "PRESETS",
    "VARIANTS",
    "WIN_PRIORITIES",
    "WUHAN_ONLY",
    "Settings",
    "SettingsError",
    "preset",
]

VARIANTS = ("hongzhong", "hongzhong_facai", "qipi_silai", "none")
"""Wuhan tile variants, RULES.md A1 (``"none"``: Baishan, which has no variants)."""
MODES = ("kaikou", "koukou", "none")
"""Wuhan doubling modes, RULES.md A1: 开口翻 and 口口翻 (``"none"``: Baishan)."""
WIN_PRIORITIES = ("from_dealer", "from_discarder")
"""Who wins a discard several players claim, RULES.md A6 一炮单响."""


class SettingsError(ValueError):
    """A rules value that is unknown or impossible; ``key`` names the setting at fault."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"rules.{key}: {message}" if key else f"rules: {message}")


@dataclass(frozen=True)
class Settings:
    """The rules of one room.  Build it with :func:`preset` / :meth:`from_json`, not by hand."""

    preset: str
    """The preset this room started from (a label: it is not part of :meth:`short_hash`)."""
    game: str
    """``"wuhan"`` (Part A) or ``"baishan"`` (Part B)."""
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
    win_priority: str
    """一炮单响 order among several claimants of one discard, A6."""
    haidi_reserve: int
    """Tiles at the back of the wall never drawn normally (海底), A8."""
    cap: Fraction
    """封顶: the most one loser pays, A9 (Baishan: 2^6 = 64, Part B)."""
    golden_cap: Fraction
    """金顶: what each loser pays when all three exceed ``cap``, A9."""
    sunshine_cap: Fraction
    """阳光顶: at the golden cap, what a loser who never opened pays, A9."""
    three_suns_cap: Fraction
    """三阳开泰: at the golden cap, what each pays when none of the three opened, A9."""
    escape_penalty: Fraction
    """逃跑: what a player who leaves a game in progress pays, A9."""
    min_points: Fraction
    """起胡: each loser's amount before caps must reach this, A10 (0 = no minimum)."""
    base: Fraction
    """The room's unit: every amount (and every cap and the minimum) is counted in it."""

    def __post_init__(self) -> None:
        # Built by hand (not from a preset), numbers may arrive as int or float: store them in one
        # exact form so equality, JSON and the hash never depend on how a value was written.
        for key in _FRACTION_FIELDS:
            value = getattr(self, key)
            if not isinstance(value, Fraction):
                object.__setattr__(self, key, _coerce(key, value))
        for key in ("haidi_reserve", "pass_win_locked", *_CHOICES):
            _coerce(key, getattr(self, key))
        _validate(self)

    # -- building ------------------------------------------------------------------------------
    def with_overrides(self, overrides: Mapping[str, Any]) -> Settings:
        """A new value with some settings replaced; unknown keys and bad values are rejected.

        The (variant, mode) pair *is* the preset (RULES.md A1): naming another ``variant`` or
        ``mode`` starts again from that pair's preset, keeps the settings this value had set
        itself (those that differ from its own preset) and puts ``overrides`` on top; the result
        is named after the new pair.

        >>> s = preset("wuhan-hongzhong-kaikou").with_overrides({"mode": "koukou"})
        >>> s.preset, str(s.min_points), str(s.golden_cap), str(s.escape_penalty)
        ('wuhan-hongzhong-koukou', '64', '500', '500')
        >>> s.short_hash() == preset("wuhan-hongzhong-koukou").short_hash()
        True
        """
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in _FIELD_NAMES:
                raise SettingsError(str(key), "unknown setting")
            unused = find_game(self.game).unused_settings
            if key in unused and value != getattr(self, key):
                raise SettingsError(str(key), "is a Wuhan setting; Baishan rooms have no such rule")
            changes[key] = _coerce(key, value)
        start = self._for_pair(changes.get("variant", self.variant), changes.get("mode", self.mode))
        for key in ("preset", "game"):
            if key in changes and changes[key] != getattr(start, key):
                raise SettingsError(key, f"is fixed by the preset ({getattr(start, key)!r})")
        return dataclasses.replace(start, **changes)

    def _for_pair(self, variant: str, mode: str) -> Settings:
        """This value moved to the preset of (``variant``, ``mode``), A1: that preset's defaults
        with the settings this value set itself on top (itself when the pair is unchanged)."""
        if (variant, mode) == (self.variant, self.mode):
            return self
        for key, value in (("variant", variant), ("mode", mode)):
            if value not in _CHOICES[key] or value == "none":
                choices = ", ".join(c for c in _CHOICES[key] if c != "none")
                raise SettingsError(key, f"{value!r} is not one of {choices}")
        name = _PAIR_PRESETS.get((self.game, variant, mode))
        if name is None:  # pragma: no cover - every Wuhan pair has its preset
            raise SettingsError("variant", f"no preset for {variant!r} with {mode!r}")
        own = PRESETS.get(self.preset)
        fixed = {"preset", "game", "variant", "mode"}
        kept = {
            key: getattr(self, key)
            for key in _FIELD_NAMES - fixed
            if own is None or getattr(self, key) != getattr(own, key)
        }
        return dataclasses.replace(PRESETS[name], **kept)

    @classmethod
    def from_json(cls, obj: Any) -> Settings:
        """A preset name, or ``{"preset": name, setting: value, …}``."""
        if isinstance(obj, str):
            return preset(obj)
        if not isinstance(obj, Mapping):
            raise SettingsError("", "expected a preset name or an object with a 'preset' key")
        if "preset" not in obj:
            raise SettingsError("preset", "missing")
        name = obj["preset"]
        if not isinstance(name, str):
            raise SettingsError("preset", "must be a preset name (a string)")
        return preset(name).with_overrides({k: v for k, v in obj.items() if k != "preset"})

    def to_json(self) -> dict[str, Any]:
        """Every setting as plain JSON values (whole numbers as ints, others as decimals).

        A Baishan room leaves out the Wuhan-only settings (:data:`WUHAN_ONLY`)."""
        out: dict[str, Any] = {}
        unused = find_game(self.game).unused_settings
        for field in fields(self):
            if field.name in unused:
                continue
            value = getattr(self, field.name)
            out[field.name] = _json_value(value)
        return out

    def short_hash(self) -> str:
        """A stable 12-hex-digit digest of the rules (the preset label excluded).

        Two rooms with the same rules have the same hash whatever preset they started from.
        """
        rules = {k: _exact_text(getattr(self, k)) for k in sorted(_FIELD_NAMES) if k != "preset"}
        text = json.dumps(rules, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def __repr__(self) -> str:
        changed = {
            k: v
            for k, v in self.to_json().items()
            if k != "preset" and v != _preset_json(self.preset, k)
        }
        extra = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"Settings.preset({self.preset!r}{extra})"


_FIELD_NAMES = frozenset(f.name for f in fields(Settings))
_FRACTION_FIELDS = frozenset(
    {
        "laizi_gang_factor",
        "big_self_draw_factor",
        "big_discard_factor",
        "cap",
        "golden_cap",
        "sunshine_cap",
        "three_suns_cap",
        "escape_penalty",
        "min_points",
        "base",
    }
)
_CHOICES: dict[str, Collection[str]] = {
    "game": GAMES,
    "variant": VARIANTS,
    "mode": MODES,
    "win_priority": WIN_PRIORITIES,
}
_MAX_FACTOR = 64  # far above any room's ×4; beyond it a value is a typo, not a rule
_MAX_AMOUNT = 10**9  # likewise for the unit, caps, penalty and minimum
_BASE_DECIMALS = 6  # the unit is a decimal with at most this many places
_MAX_HAIDI_RESERVE = 60  # 136 − 53 dealt − 1 indicator leaves 82 in the wall; keep room to play


def _coerce(key: str, value: Any) -> Any:
    """Turn a JSON value into the field's type, or raise naming the key."""
    if key in _FRACTION_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
            raise SettingsError(key, f"must be a number, not {value!r}")
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise SettingsError(key, "must be a finite number")
            return Fraction(repr(value))  # the decimal as written: 1.5 → 3/2 exactly
        return Fraction(value)
    if key == "haidi_reserve":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(key, f"must be a whole number, not {value!r}")
        return value
    if key == "pass_win_locked":
        if not isinstance(value, bool):
            raise SettingsError(key, f"must be true or false, not {value!r}")
        return value
    if not isinstance(value, str):
        raise SettingsError(key, f"must be a string, not {value!r}")
    return value


def _validate(s: Settings) -> None:
    for key, choices in _CHOICES.items():
        if getattr(s, key) not in choices:
            raise SettingsError(key, f"{getattr(s, key)!r} is not one of {', '.join(choices)}")
    for key in ("variant", "mode"):
        # "none" is Baishan's (no variants); a Wuhan room always has a real one (A1).
        if (getattr(s, key) == "none") != (key in find_game(s.game).unused_settings):
            raise SettingsError(key, f"{getattr(s, key)!r} does not go with game {s.game!r}")
    for key in ("laizi_gang_factor", "big_self_draw_factor", "big_discard_factor"):
        if not 1 <= getattr(s, key) <= _MAX_FACTOR:
            raise SettingsError(key, f"a doubling factor must be between 1 and {_MAX_FACTOR}")
    for key in (
        "base",
        "cap",
        "golden_cap",
        "sunshine_cap",
        "three_suns_cap",
        "escape_penalty",
        "min_points",
    ):
        if getattr(s, key) > _MAX_AMOUNT:
            raise SettingsError(key, f"must not be above {_MAX_AMOUNT}")
    if s.base <= 0:
        raise SettingsError("base", "must be greater than 0")
    if (s.base * 10**_BASE_DECIMALS).denominator != 1:
        # Every amount is a multiple of the base: a bounded decimal keeps the exact fractions
        # of payments and points small (5e-324 would need a 324-digit denominator).
        raise SettingsError(
            "base", f"must be a decimal with at most {_BASE_DECIMALS} decimal places"
        )
    if s.min_points < 0:
        raise SettingsError("min_points", "must not be negative")
    if s.escape_penalty < 0:
        raise SettingsError("escape_penalty", "must not be negative")
    if not 0 <= s.haidi_reserve <= _MAX_HAIDI_RESERVE:
        raise SettingsError("haidi_reserve", f"must be between 0 and {_MAX_HAIDI_RESERVE}")
    if s.cap <= 0:
        raise SettingsError("cap", "must be greater than 0")
    # The ladder only climbs: 封顶 ≤ 金顶 ≤ 阳光顶 ≤ 三阳开泰 (A9).
    ladder = ("cap", "golden_cap", "sunshine_cap", "three_suns_cap")
    one_cap = "golden_cap" in find_game(s.game).unused_settings  # Baishan: one cap
    for lower, higher in pairwise(() if one_cap else ladder):
        if getattr(s, higher) < getattr(s, lower):
            raise SettingsError(
                higher, f"must not be below {lower} ({_exact_text(getattr(s, lower))})"
            )


def _json_value(value: Any) -> Any:
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def _exact_text(value: Any) -> Any:
    """Hash input: fractions as exact ``p/q`` text so the digest never depends on floats."""
    if isinstance(value, Fraction):
        return str(value)
    return value


# -- presets (RULES.md A1–A10 defaults) -------------------------------------------------------
def _wuhan(name: str, variant: str, mode: str) -> Settings:
    koukou = mode == "koukou"
    return Settings(
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


_PRESET_SHAPES = {
    "wuhan-hongzhong-kaikou": ("hongzhong", "kaikou"),
    "wuhan-hongzhong-koukou": ("hongzhong", "koukou"),
    "wuhan-facai-kaikou": ("hongzhong_facai", "kaikou"),
    "wuhan-facai-koukou": ("hongzhong_facai", "koukou"),
    "wuhan-qipi-kaikou": ("qipi_silai", "kaikou"),
    "wuhan-qipi-koukou": ("qipi_silai", "koukou"),
}


def _baishan() -> Settings:
    """白山麻将 (Part B): the cap 2^6 units, escape 64 units, one winner from the discarder.

    The Wuhan-only fields carry neutral values (never read: :data:`WUHAN_ONLY`)."""
    return Settings(
        preset="baishan",
        game="baishan",
        variant="none",
        mode="none",
        laizi_gang_factor=Fraction(1),
        big_self_draw_factor=Fraction(1),
        big_discard_factor=Fraction(1),
        pass_win_locked=False,
        win_priority="from_discarder",
        haidi_reserve=0,
        cap=Fraction(64),
        golden_cap=Fraction(64),
        sunshine_cap=Fraction(64),
        three_suns_cap=Fraction(64),
        escape_penalty=Fraction(64),
        min_points=Fraction(0),
        base=Fraction(1),
    )


PRESETS: dict[str, Settings] = {
    name: _wuhan(name, variant, mode) for name, (variant, mode) in _PRESET_SHAPES.items()
}
PRESETS["baishan"] = _baishan()
"""Every preset by name."""
_PAIR_PRESETS = {(s.game, s.variant, s.mode): name for name, s in PRESETS.items()}
"""The preset of each (game, variant, mode): the pair is the preset (RULES.md A1)."""


def preset(name: str) -> Settings:
    """The settings of a named preset; :class:`SettingsError` (key ``preset``) if unknown."""
    try:
        return PRESETS[name]
    except KeyError:
        raise SettingsError(
            "preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}"
        ) from None


def _preset_json(name: str, key: str) -> Any:
    base = PRESETS.get(name)
    return None if base is None else _json_value(getattr(base, key))
