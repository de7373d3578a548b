"""What a form needs to edit a room's rules, generated from :class:`Settings` and its presets.

Every field of :class:`Settings`, in its order, with its kind (``choice``, ``bool``, ``int``,
``number``), its choices, the bounds :class:`Settings` enforces, whether the preset fixes it, which
games have it, and its name in Chinese and English; every preset with all its values (the form's
defaults).  The web lobby builds its form from this, so a new setting appears there without
touching the client.

>>> s = settings_schema()
>>> [f["key"] for f in s["fields"]][:4]
['preset', 'game', 'variant', 'mode']
>>> cap = next(f for f in s["fields"] if f["key"] == "golden_cap")
>>> cap["type"], cap["at_least"], cap["max"], cap["label"]["zh"], cap["games"]
('number', 'cap', 1000000000, '金顶', ['wuhan'])
>>> s["presets"][0]["name"], s["presets"][0]["values"]["min_points"]
('wuhan-hongzhong-kaikou', 16)
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from laizi.rules import settings as _settings
from laizi.rules.settings import GAMES, PRESETS, Settings

__all__ = ["CHOICE_LABELS", "LABELS", "label", "settings_schema"]

LABELS: dict[str, tuple[str, str]] = {
    "preset": ("预设玩法", "Preset"),
    "game": ("玩法", "Game"),
    "variant": ("癞子玩法", "Variant"),
    "mode": ("翻法", "Doubling mode"),
    "laizi_gang_factor": ("癞子杠倍数", "Laizi gang factor"),
    "big_self_draw_factor": ("大胡自摸倍数", "Big win self-draw factor"),
    "big_discard_factor": ("大胡放冲倍数", "Big win discarder factor"),
    "pass_win_locked": ("过胡（过了胡要等自己摸牌）", "Passed win locked until own draw (过胡)"),
    "win_priority": ("一炮单响的顺序", "Who wins a discard claimed twice"),
    "haidi_reserve": ("海底留牌", "Tiles kept back (海底)"),
    "cap": ("封顶", "Cap"),
    "golden_cap": ("金顶", "Golden cap"),
    "sunshine_cap": ("阳光顶", "Sunshine cap"),
    "three_suns_cap": ("三阳开泰", "Three suns cap"),
    "escape_penalty": ("逃跑扣分", "Escape penalty"),
    "min_points": ("起胡分", "Minimum to win"),
    "base": ("底分", "Base unit"),
}
"""Each setting's name for players, (Chinese, English)."""

CHOICE_LABELS: dict[str, tuple[str, str]] = {
    "wuhan": ("武汉麻将", "Wuhan"),
    "baishan": ("白山麻将", "Baishan"),
    "hongzhong": ("红中癞子杠", "red dragon (红中癞子杠)"),
    "hongzhong_facai": ("红中发财杠", "red + green dragon (红中发财杠)"),
    "qipi_silai": ("七皮四赖", "seven pi, four laizi (七皮四赖)"),
    "kaikou": ("开口翻", "opened doubles once (开口翻)"),
    "koukou": ("口口翻", "each opening doubles (口口翻)"),
    "none": ("无", "none"),
    "from_dealer": ("从庄家数起", "counting from the dealer"),
    "from_discarder": ("从放冲者下家数起", "counting from the discarder's next seat"),
    "wuhan-hongzhong-kaikou": ("武汉 红中癞子杠 开口翻", "Wuhan, red dragon, 开口翻"),
    "wuhan-hongzhong-koukou": ("武汉 红中癞子杠 口口翻", "Wuhan, red dragon, 口口翻"),
    "wuhan-facai-kaikou": ("武汉 红中发财杠 开口翻", "Wuhan, red + green dragon, 开口翻"),
    "wuhan-facai-koukou": ("武汉 红中发财杠 口口翻", "Wuhan, red + green dragon, 口口翻"),
    "wuhan-qipi-kaikou": ("武汉 七皮四赖 开口翻", "Wuhan, seven pi four laizi, 开口翻"),
    "wuhan-qipi-koukou": ("武汉 七皮四赖 口口翻", "Wuhan, seven pi four laizi, 口口翻"),
}
"""The names of choices: games, variants, modes, win priorities and presets."""

_KINDS = {"str": "choice", "bool": "bool", "int": "int", "Fraction": "number"}
_FIXED = ("preset", "game")
"""Set by the preset: a room picks a preset, not these."""


def label(key: str, table: dict[str, tuple[str, str]] = LABELS) -> dict[str, str]:
    """``{"zh": …, "en": …}`` for ``key`` (the key itself when it has no name yet)."""
    zh, en = table.get(key, (key, key))
    return {"zh": zh, "en": en}


def _bounds(key: str) -> dict[str, Any]:
    """The limits :class:`Settings` enforces on a number (``tests/test_settings_schema.py``
    checks each against the validation)."""
    if key in ("laizi_gang_factor", "big_self_draw_factor", "big_discard_factor"):
        return {"min": 1, "max": _settings._MAX_FACTOR}
    if key == "haidi_reserve":
        return {"min": 0, "max": _settings._MAX_HAIDI_RESERVE}
    if key in ("base", "cap"):
        return {"min": 0, "exclusive_min": True, "max": _settings._MAX_AMOUNT}
    if key in ("min_points", "escape_penalty"):
        return {"min": 0, "max": _settings._MAX_AMOUNT}
    ladder = ("cap", "golden_cap", "sunshine_cap", "three_suns_cap")  # A9: it only climbs
    if key in ladder:
        return {"at_least": ladder[ladder.index(key) - 1], "max": _settings._MAX_AMOUNT}
    return {}


def _choices(key: str) -> list[str]:
    if key == "preset":
        return list(PRESETS)
    return list(_settings._CHOICES[key])


def settings_schema() -> dict[str, Any]:
    """The rules' form: ``games``, ``fields`` (every :class:`Settings` field) and ``presets``."""
    games_of: dict[str, set[str]] = {g: set() for g in GAMES}
    for s in PRESETS.values():  # a Baishan room has no Wuhan-only settings (WUHAN_ONLY)
        games_of[s.game].update(s.to_json())
    out_fields = []
    for field in fields(Settings):
        key = field.name
        kind = _KINDS[str(field.type)]
        entry: dict[str, Any] = {"key": key, "type": kind, "label": label(key)}
        if kind == "choice":
            entry["choices"] = [
                {"value": c, "label": label(c, CHOICE_LABELS)} for c in _choices(key)
            ]
        entry.update(_bounds(key))
        entry["fixed"] = key in _FIXED
        entry["games"] = [g for g in GAMES if key in games_of[g]]
        out_fields.append(entry)
    return {
        "games": [{"value": g, "label": label(g, CHOICE_LABELS)} for g in GAMES],
        "fields": out_fields,
        "presets": [
            {
                "name": name,
                "game": s.game,
                "label": label(name, CHOICE_LABELS),
                "values": s.to_json(),
            }
            for name, s in PRESETS.items()
        ],
    }
