"""Small builders for ``laizi score`` inputs, so each test reads like the rule it checks."""

from __future__ import annotations

from typing import Any

from laizi.rules.wuhan import Settlement
from laizi.scoring import score, situation_from_json


def chow(tiles: str, src: int) -> dict[str, Any]:
    return {"kind": "chow", "tiles": tiles, "from": src}


def pung(tiles: str, src: int) -> dict[str, Any]:
    return {"kind": "pung", "tiles": tiles, "from": src}


def kong(tiles: str, src: int) -> dict[str, Any]:
    """冲杠: an exposed kong on a discard."""
    return {"kind": "exposed_kong", "tiles": tiles, "from": src}


def added(tiles: str, src: int) -> dict[str, Any]:
    """蓄杠: a pung (claimed from ``src``) with the fourth tile added."""
    return {"kind": "added_kong", "tiles": tiles, "from": src}


def concealed(tiles: str) -> dict[str, Any]:
    """暗杠."""
    return {"kind": "concealed_kong", "tiles": tiles}


def player(
    hand: str | None = None, *melds: dict[str, Any], laid_out: str = "", **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"melds": list(melds), "laid_out": laid_out, **extra}
    if hand is not None:
        out["hand"] = hand
    return out


def situation(
    players: list[dict[str, Any]],
    *,
    rules: Any = "wuhan-hongzhong-kaikou",
    dealer: int = 0,
    indicator: str = "3z",
    winner: int = 3,
    win: str = "discard",
    src: int | None = 0,
    tile: str,
    **flags: Any,
) -> dict[str, Any]:
    """A ``laizi score`` input.  Default indicator 西 (3z): laizi 北 (4z) in every variant."""
    data: dict[str, Any] = {
        "rules": rules,
        "dealer": dealer,
        "indicator": indicator,
        "winner": winner,
        "win": win,
        "winning_tile": tile,
        "players": players,
        **flags,
    }
    if win != "self_draw":
        data["from"] = src
    return data


def settle(players: list[dict[str, Any]], **kwargs: Any) -> Settlement:
    return score(situation_from_json(situation(players, **kwargs)))


def no_min(preset: str = "wuhan-hongzhong-kaikou", **overrides: Any) -> dict[str, Any]:
    """Rules with the minimum switched off, so one rule can be seen alone."""
    return {"preset": preset, "min_points": 0, **overrides}


def ints(values: Any) -> list[Any]:
    """Payments/raw as plain numbers for comparison (Fractions stay exact)."""
    return [None if v is None else v for v in values]
