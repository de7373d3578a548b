"""What a form needs to edit a room's rules, generated from each game's settings and presets.

Every setting of every registered game (each game's class in its folder: its fields, names and
limits), in order, with its kind (``choice``, ``bool``, ``int``, ``number``), its choices, the
bounds the settings enforce, whether the preset fixes it, which games have it, and its name in
Chinese and English; every preset with all its values (the form's defaults).  The web lobby
builds its form from this, so a new setting — or a new game — appears there without touching the
client.

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

from collections.abc import Iterator, Mapping
from typing import Any

from laizi.rules.registry import GAMES
from laizi.rules.settings import PRESETS, Settings, kinds

__all__ = ["CHOICE_LABELS", "LABELS", "label", "settings_schema"]

_FIXED = ("preset", "game")
"""Set by the preset: a room picks a preset, not these."""


def _classes() -> list[type[Settings]]:
    return [GAMES[game].settings_class() for game in GAMES]


class _Labels(Mapping[str, tuple[str, str]]):
    """Every game's names, merged (a name two games share is the first game's)."""

    def __init__(self, attribute: str) -> None:
        self._attribute = attribute

    def _table(self) -> dict[str, tuple[str, str]]:
        table: dict[str, tuple[str, str]] = {}
        for cls in reversed(_classes()):
            table.update(getattr(cls, self._attribute))
        return table

    def __getitem__(self, key: str) -> tuple[str, str]:
        return self._table()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


LABELS: Mapping[str, tuple[str, str]] = _Labels("LABELS")
"""Each setting's name for players, (Chinese, English), from every game's settings."""
CHOICE_LABELS: Mapping[str, tuple[str, str]] = _Labels("CHOICE_LABELS")
"""The names of choices: games, variants, modes, win priorities and presets."""


def label(key: str, table: Mapping[str, tuple[str, str]] = LABELS) -> dict[str, str]:
    """``{"zh": …, "en": …}`` for ``key`` (the key itself when it has no name yet)."""
    zh, en = table.get(key, (key, key))
    return {"zh": zh, "en": en}


def settings_schema() -> dict[str, Any]:
    """The rules' form: ``games``, ``fields`` (every game's settings) and ``presets``."""
    classes = {game: GAMES[game].settings_class() for game in GAMES}
    keys: dict[str, str] = {}  # every setting, in the games' order, and its kind
    for cls in classes.values():
        for key, kind in kinds(cls).items():
            keys.setdefault(key, kind)
    out_fields = []
    for key, kind in keys.items():
        entry: dict[str, Any] = {"key": key, "type": kind, "label": label(key)}
        if kind == "choice":
            entry["choices"] = [
                {"value": c, "label": label(c, CHOICE_LABELS)} for c in _choices(key, classes)
            ]
        owner = next(cls for cls in classes.values() if key in kinds(cls))
        if key in owner.LIMITS:
            entry.update(owner.LIMITS[key].to_json())
        entry["fixed"] = key in _FIXED
        entry["games"] = [g for g, cls in classes.items() if key in kinds(cls)]
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


def _choices(key: str, classes: Mapping[str, type[Settings]]) -> list[str]:
    if key == "preset":
        return list(PRESETS)
    if key == "game":
        return list(classes)
    found: dict[str, None] = {}
    for cls in classes.values():
        found.update(dict.fromkeys(cls.CHOICES.get(key, ())))
    return list(found)
