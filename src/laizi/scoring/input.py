"""Reading the ``laizi score`` input (INTERFACES.md) into a :class:`WinSituation`.

Every error is an :class:`InputError` whose ``field`` is the path of the bad value, such as
``players[2].melds[0].from``.  Keys starting with ``_`` are comments and are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from laizi.rules.melds import MELD_KINDS, Meld
from laizi.rules.registry import make_ruleset
from laizi.rules.settings import Settings, SettingsError
from laizi.rules.situation import InputError, PlayerHand, WinSituation
from laizi.tiles import TileParseError, parse_tile, parse_tiles

__all__ = ["situation_from_json"]

_TOP_KEYS = frozenset(
    {
        "rules",
        "dealer",
        "indicator",
        "winner",
        "win",
        "from",
        "winning_tile",
        "after_kong",
        "haidi",
        "after_kong_discard",
        "players",
    }
)
_PLAYER_KEYS = frozenset({"hand", "melds", "laid_out", "ready", "declared_ready"})
_MELD_KEYS = frozenset({"kind", "tiles", "from"})


def situation_from_json(obj: Any) -> WinSituation:
    """The ``laizi score`` input object → a checked :class:`WinSituation`."""
    data = _object(obj, "input")
    _known_keys(data, _TOP_KEYS, "")
    if "rules" not in data:
        raise InputError("rules", 'missing: a preset name or {"preset": name, …}')
    try:
        settings = Settings.from_json(data["rules"])
    except SettingsError as error:
        field = f"rules.{error.key}" if error.key else "rules"
        raise InputError(field, str(error).split(": ", 1)[-1]) from None
    players_value = _required(data, "players")
    if not isinstance(players_value, list) or len(players_value) != 4:
        raise InputError("players", "must be a list of four objects, index = seat")
    players = tuple(_player(p, f"players[{i}]") for i, p in enumerate(players_value))
    situation = WinSituation(
        settings=settings,
        dealer=_int(_required(data, "dealer"), "dealer"),
        indicator=None if data.get("indicator") is None else _tile(data["indicator"], "indicator"),
        winner=_int(_required(data, "winner"), "winner"),
        win=_str(_required(data, "win"), "win"),
        from_seat=None if data.get("from") is None else _int(data["from"], "from"),
        winning_tile=_tile(_required(data, "winning_tile"), "winning_tile"),
        after_kong=_bool(data.get("after_kong", False), "after_kong"),
        haidi=_bool(data.get("haidi", False), "haidi"),
        players=players,
        after_kong_discard=_bool(data.get("after_kong_discard", False), "after_kong_discard"),
    )
    make_ruleset(settings).check_situation(situation)  # the game's checks, once, here
    return situation


def _player(obj: Any, field: str) -> PlayerHand:
    data = _object(obj, field)
    _known_keys(data, _PLAYER_KEYS, field + ".")
    hand = None if data.get("hand") is None else tuple(_tiles(data["hand"], f"{field}.hand"))
    melds_value = data.get("melds", [])
    if not isinstance(melds_value, list):
        raise InputError(f"{field}.melds", "must be a list of melds")
    melds = tuple(_meld(m, f"{field}.melds[{i}]") for i, m in enumerate(melds_value))
    laid_out = tuple(_tiles(data.get("laid_out", ""), f"{field}.laid_out"))
    ready = data.get("ready")
    if ready is not None:
        ready = _bool(ready, f"{field}.ready")
    return PlayerHand(
        hand=hand,
        melds=melds,
        laid_out=laid_out,
        ready=ready,
        declared_ready=_bool(data.get("declared_ready", False), f"{field}.declared_ready"),
    )


def _meld(obj: Any, field: str) -> Meld:
    data = _object(obj, field)
    _known_keys(data, _MELD_KEYS, field + ".")
    kind = _str(_required(data, "kind", field + "."), f"{field}.kind")
    if kind not in MELD_KINDS:
        raise InputError(f"{field}.kind", f"must be one of {', '.join(MELD_KINDS)}, not {kind!r}")
    tiles = _tiles(_required(data, "tiles", field + "."), f"{field}.tiles")
    source = data.get("from")
    if source is not None:
        source = _int(source, f"{field}.from")
    if kind != "concealed_kong" and source is None:
        raise InputError(
            f"{field}.from", f"required for a {kind}: the seat the claimed tile came from"
        )
    if kind == "concealed_kong" and source is not None:
        raise InputError(f"{field}.from", "a concealed_kong takes no tile from anyone")
    try:
        return Meld.checked(kind, tuple(tiles), source)
    except ValueError as error:
        raise InputError(f"{field}.tiles", str(error)) from None


def _object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(field, "must be a JSON object")
    return value


def _known_keys(data: Mapping[str, Any], known: frozenset[str], prefix: str) -> None:
    for key in data:
        if key not in known and not str(key).startswith("_"):
            raise InputError(f"{prefix}{key}", "unknown field")


def _required(data: Mapping[str, Any], key: str, prefix: str = "") -> Any:
    if key not in data or data[key] is None:
        raise InputError(prefix + key, "missing")
    return data[key]


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(field, f"must be a whole number, not {value!r}")
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(field, f"must be true or false, not {value!r}")
    return value


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(field, f"must be a string, not {value!r}")
    return value


def _tiles(value: Any, field: str) -> list[int]:
    try:
        return parse_tiles(_str(value, field))
    except TileParseError as error:
        raise InputError(field, str(error)) from None


def _tile(value: Any, field: str) -> int:
    try:
        return parse_tile(_str(value, field))
    except TileParseError as error:
        raise InputError(field, str(error)) from None
