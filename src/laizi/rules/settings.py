"""Room rules: one immutable, validated value per room (RULES.md A1–A10 settings).

:class:`Settings` holds what every game has — the preset a room started from, the game, who
wins a discard claimed twice, the cap, the escape penalty and the unit — and how a value is read,
checked, written and hashed.  Each game's folder adds its own fields, presets, names and limits
in a subclass (``laizi.rules.wuhan.settings``, ``laizi.rules.baishan.settings``); the registry
finds them, so :func:`preset` and :meth:`Settings.from_json` know every game's presets.

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
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from laizi.rules.registry import GAMES, find_game, game_lines

__all__ = [
    "GAMES",
    "MAX_AMOUNT",
    "PRESETS",
    "WIN_PRIORITIES",
    "Limit",
    "Settings",
    "SettingsError",
    "preset",
]

WIN_PRIORITIES = ("from_dealer", "from_discarder")
"""Who wins a discard several players claim, RULES.md A6 一炮单响."""
MAX_AMOUNT = 10**9
"""The largest unit, cap, penalty or minimum: beyond it a value is a typo, not a rule."""
_BASE_DECIMALS = 6  # the unit is a decimal with at most this many places


class SettingsError(ValueError):
    """A rules value that is unknown or impossible; ``key`` names the setting at fault."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"rules.{key}: {message}" if key else f"rules: {message}")


@dataclass(frozen=True)
class Limit:
    """The bounds of one number, enforced by :class:`Settings` and stated by the schema.

    ``low`` is the least value (``None``: none), excluded when ``exclusive``; ``at_least`` names
    a setting this one may not be below (the caps' ladder); ``high`` is the largest value.
    ``between``, when set, is one message for a value outside ``low``–``high``: the words before
    "must be between" (``"a doubling factor "``, or ``""``).
    """

    high: int
    low: int | None = None
    exclusive: bool = False
    at_least: str | None = None
    between: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The schema's bounds: ``min`` (``exclusive_min``), ``at_least``, ``max``."""
        out: dict[str, Any] = {}
        if self.low is not None:
            out["min"] = self.low
            if self.exclusive:
                out["exclusive_min"] = True
        if self.at_least is not None:
            out["at_least"] = self.at_least
        out["max"] = self.high
        return out


@dataclass(frozen=True)
class Settings:
    """The rules of one room, what every game shares; a game's subclass adds its own fields.

    Build it with :func:`preset` / :meth:`from_json`, not by hand."""

    preset: str
    """The preset this room started from (a label: it is not part of :meth:`short_hash`)."""
    game: str
    """The game's id (``"wuhan"``, ``"baishan"``): the registry's entry."""
    win_priority: str
    """一炮单响 order among several claimants of one discard, A6."""
    cap: Fraction
    """封顶: the most one loser pays, A9 (Baishan: 2^6 = 64, Part B)."""
    escape_penalty: Fraction
    """逃跑: what a player who leaves a game in progress pays, A9."""
    base: Fraction
    """The room's unit: every amount (and every cap and the minimum) is counted in it."""

    # -- what a game's subclass declares -------------------------------------------------------
    ORDER: ClassVar[tuple[str, ...]] = ()
    """The settings' order in JSON and forms when it is not the fields' order (every field)."""
    CHOICES: ClassVar[Mapping[str, Collection[str]]] = {"win_priority": WIN_PRIORITIES}
    """The values a text setting may take."""
    LIMITS: ClassVar[Mapping[str, Limit]] = {
        "base": Limit(MAX_AMOUNT, 0, exclusive=True),
        "cap": Limit(MAX_AMOUNT, 0, exclusive=True),
        "escape_penalty": Limit(MAX_AMOUNT, 0),
    }
    """The bounds of each number."""
    FORMER: ClassVar[Mapping[str, Any]] = {}
    """Settings this game never had that its rooms' JSON may name with this value only, and
    that :meth:`short_hash` still counts with it: what rules written before the games had their
    own settings held, so that their hashes verify."""
    NOT_HERE: ClassVar[str] = "unknown setting"
    """Why a :data:`FORMER` setting can't be changed here."""
    LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        "preset": ("预设玩法", "Preset"),
        "game": ("玩法", "Game"),
        "win_priority": ("一炮单响的顺序", "Who wins a discard claimed twice"),
        "cap": ("封顶", "Cap"),
        "escape_penalty": ("逃跑扣分", "Escape penalty"),
        "base": ("底分", "Base unit"),
    }
    """Each setting's name for players, (Chinese, English)."""
    CHOICE_LABELS: ClassVar[Mapping[str, tuple[str, str]]] = {
        "from_dealer": ("从庄家数起", "counting from the dealer"),
        "from_discarder": ("从放冲者下家数起", "counting from the discarder's next seat"),
    }
    """The names of choices (a game adds its own name, its presets' and its choices')."""

    @classmethod
    def presets(cls) -> Mapping[str, Settings]:
        """This game's presets by name (a game's subclass gives them)."""
        return {}

    def __post_init__(self) -> None:
        # Built by hand (not from a preset), numbers may arrive as int or float: store them in one
        # exact form so equality, JSON and the hash never depend on how a value was written.
        kinds = _kinds(type(self))
        for key, kind in kinds.items():
            value = getattr(self, key)
            if kind == "number" and not isinstance(value, Fraction):
                object.__setattr__(self, key, _coerce(key, kind, value))
            elif kind != "number":
                _coerce(key, kind, value)
        self._validate()

    # -- building ------------------------------------------------------------------------------
    def with_overrides(self, overrides: Mapping[str, Any]) -> Settings:
        """A new value with some settings replaced; unknown keys and bad values are rejected.

        A game may start again from another of its presets when a setting names it (Wuhan's
        variant and mode: :meth:`restart`)."""
        kinds = _kinds(type(self))
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            former = type(self).FORMER
            if key in former:
                if value != former[key]:
                    raise SettingsError(str(key), type(self).NOT_HERE)
                _coerce(key, _kind_of(former[key]), value)
                continue
            if key not in kinds:
                raise SettingsError(str(key), "unknown setting")
            changes[key] = _coerce(key, kinds[key], value)
        start = self.restart(changes)
        for key in ("preset", "game"):
            if key in changes and changes[key] != getattr(start, key):
                raise SettingsError(key, f"is fixed by the preset ({getattr(start, key)!r})")
        return dataclasses.replace(start, **changes)

    def restart(self, changes: Mapping[str, Any]) -> Settings:
        """The value ``changes`` start from: this one, unless the game moves to another preset."""
        return self

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
        """Every setting as plain JSON values (whole numbers as ints, others as decimals)."""
        return {key: _json_value(getattr(self, key)) for key in _kinds(type(self))}

    def short_hash(self) -> str:
        """A stable 12-hex-digit digest of the rules (the preset label excluded).

        Two rooms with the same rules have the same hash whatever preset they started from.
        """
        rules = {k: _exact_text(getattr(self, k)) for k in _kinds(type(self)) if k != "preset"}
        rules.update((k, _exact_text(v)) for k, v in type(self).FORMER.items())
        text = json.dumps(rules, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def __repr__(self) -> str:
        own = PRESETS.get(self.preset)
        changed = {
            k: v
            for k, v in self.to_json().items()
            if k != "preset" and (own is None or v != _json_value(getattr(own, k)))
        }
        extra = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"Settings.preset({self.preset!r}{extra})"

    # -- checking ------------------------------------------------------------------------------
    def _validate(self) -> None:
        cls = type(self)
        if self.game not in GAMES or find_game(self.game).settings != _path(cls):
            raise SettingsError("game", f"{self.game!r} is not one of {', '.join(GAMES)}")
        for key, choices in cls.CHOICES.items():
            if getattr(self, key) not in choices:
                raise SettingsError(
                    key, f"{getattr(self, key)!r} is not one of {', '.join(choices)}"
                )
        limits = [(key, cls.LIMITS[key]) for key in _kinds(cls) if key in cls.LIMITS]
        for key, limit in limits:
            value, low, high = getattr(self, key), limit.low, limit.high
            inside = (low is None or low <= value) and value <= high
            if limit.between is not None and not inside:
                raise SettingsError(key, f"{limit.between}must be between {low} and {high}")
        for key, limit in limits:
            if limit.between is None and getattr(self, key) > limit.high:
                raise SettingsError(key, f"must not be above {limit.high}")
        for key, limit in limits:
            value, low = getattr(self, key), limit.low
            if limit.between is not None or low is None:
                continue
            if limit.exclusive and value <= low:
                raise SettingsError(key, f"must be greater than {low}")
            if value < low:
                raise SettingsError(
                    key, "must not be negative" if low == 0 else f"must be at least {low}"
                )
            if key == "base" and (value * 10**_BASE_DECIMALS).denominator != 1:
                # Every amount is a multiple of the base: a bounded decimal keeps the exact
                # fractions of payments and points small (5e-324: a 324-digit denominator).
                raise SettingsError(
                    key, f"must be a decimal with at most {_BASE_DECIMALS} decimal places"
                )
        for key, limit in limits:  # a ladder only climbs (Wuhan's caps, A9)
            lower = limit.at_least
            if lower is not None and getattr(self, key) < getattr(self, lower):
                raise SettingsError(
                    key, f"must not be below {lower} ({_exact_text(getattr(self, lower))})"
                )


# -- every game's presets --------------------------------------------------------------------
class _Presets(Mapping[str, Settings]):
    """Every registered game's presets by name, in the registry's order."""

    def _table(self) -> dict[str, Settings]:
        return _preset_table(game_lines())

    def __getitem__(self, name: str) -> Settings:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return repr(self._table())


PRESETS: Mapping[str, Settings] = _Presets()
"""Every preset by name."""


@cache
def _preset_table(lines: tuple[tuple[str, str], ...]) -> dict[str, Settings]:
    table: dict[str, Settings] = {}
    for game, _ in lines:
        for name, settings in find_game(game).settings_class().presets().items():
            if name in table:
                raise ValueError(f"preset {name!r} of game {game!r} is another game's preset")
            table[name] = settings
    return table


def preset(name: str) -> Settings:
    """The settings of a named preset; :class:`SettingsError` (key ``preset``) if unknown."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise SettingsError(
            "preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}"
        ) from None


# -- reading and writing values --------------------------------------------------------------
_KINDS = {"str": "choice", "bool": "bool", "int": "int", "Fraction": "number"}


_KINDS_OF: dict[type[Settings], dict[str, str]] = {}


def _kinds(cls: type[Settings]) -> dict[str, str]:
    """Each field of ``cls`` in its JSON order (:attr:`Settings.ORDER`) and its kind."""
    known = _KINDS_OF.get(cls)
    if known is None:
        found = {f.name: _KINDS[str(f.type)] for f in fields(cls)}
        order = cls.ORDER or tuple(found)
        if sorted(order) != sorted(found):
            raise TypeError(f"{cls.__name__}.ORDER must name every field once")
        known = _KINDS_OF[cls] = {key: found[key] for key in order}
    return known


def kinds(cls: type[Settings]) -> dict[str, str]:
    """Each setting of a game's class, in order, and its kind: ``choice``, ``bool``, ``int``
    or ``number`` (the schema's types)."""
    return dict(_kinds(cls))


def _kind_of(value: Any) -> str:
    return _KINDS[type(value).__name__]


def _path(cls: type[Settings]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _coerce(key: str, kind: str, value: Any) -> Any:
    """Turn a JSON value into the field's type, or raise naming the key."""
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
            raise SettingsError(key, f"must be a number, not {value!r}")
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise SettingsError(key, "must be a finite number")
            return Fraction(repr(value))  # the decimal as written: 1.5 → 3/2 exactly
        return Fraction(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(key, f"must be a whole number, not {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise SettingsError(key, f"must be true or false, not {value!r}")
        return value
    if not isinstance(value, str):
        raise SettingsError(key, f"must be a string, not {value!r}")
    return value


def _json_value(value: Any) -> Any:
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def _exact_text(value: Any) -> Any:
    """Hash input: fractions as exact ``p/q`` text so the digest never depends on floats."""
    if isinstance(value, Fraction):
        return str(value)
    return value
