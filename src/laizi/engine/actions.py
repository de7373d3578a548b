"""Actions: what a seat decides.  One small value per decision, with a text and a JSON form.

>>> a = Action.from_json({"seat": 1, "type": "chow", "tiles": "435m"})
>>> a
Action('1 chow 345m')
>>> a.to_json()
{'seat': 1, 'type': 'chow', 'tiles': '345m'}
>>> Action(2, DISCARD, 33).notation()
'2 discard 7z'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from laizi.tiles import TileParseError, format_tile, parse_tile, parse_tiles

__all__ = [
    "ABANDON",
    "ACTION_TYPES",
    "ADDED_KONG",
    "CHOW",
    "CLAIM_TYPES",
    "CONCEALED_KONG",
    "DECLARE_READY",
    "DISCARD",
    "KONG",
    "LAY_OUT",
    "PASS",
    "PUNG",
    "WIN",
    "Action",
    "ActionError",
]

DISCARD = "discard"
CHOW = "chow"
PUNG = "pung"
KONG = "kong"
"""冲杠 / 直杠: a concealed triplet plus another player's discard (RULES A5)."""
CONCEALED_KONG = "concealed_kong"
"""暗杠: four in hand (A5)."""
ADDED_KONG = "added_kong"
"""蓄杠 / 加杠: a tile added to one's own pung; can be robbed (抢杠, A5)."""
LAY_OUT = "lay_out"
"""Laying out a must-gang tile (红中杠 …, A4) or a laizi (癞子杠, A3) on one's own turn."""
WIN = "win"
PASS = "pass"
DECLARE_READY = "declare_ready"
"""Baishan 报听 (Part B); no Wuhan ruleset offers it."""
ABANDON = "abandon"
"""逃跑: the seat leaves the game (A9)."""

ACTION_TYPES = (
    DISCARD,
    CHOW,
    PUNG,
    KONG,
    CONCEALED_KONG,
    ADDED_KONG,
    LAY_OUT,
    WIN,
    PASS,
    DECLARE_READY,
    ABANDON,
)
CLAIM_TYPES = frozenset({WIN, PUNG, KONG, CHOW, PASS})
"""The decisions a seat can make on another seat's discard or added kong."""
_TILE_TYPES = frozenset({DISCARD, CONCEALED_KONG, ADDED_KONG, LAY_OUT, DECLARE_READY})


class ActionError(ValueError):
    """An action that can't be read; ``field`` names the offending key."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat.

    ``tile`` is set for discard, concealed_kong, added_kong, lay_out and declare_ready;
    ``tiles`` (the whole sorted sequence) for chow.  Claims (pung, kong, win on a discard) name
    no tile: the tile is the one on the table.
    """

    seat: int
    type: str
    tile: int | None = None
    tiles: tuple[int, ...] | None = None

    def notation(self) -> str:
        text = f"{self.seat} {self.type}"
        if self.tile is not None:
            text += f" {format_tile(self.tile)}"
        if self.tiles is not None:
            text += (
                " " + "".join(format_tile(t)[0] for t in self.tiles) + format_tile(self.tiles[0])[1]
            )
        return text

    def __repr__(self) -> str:
        return f"Action({self.notation()!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled by its fields (the compiled build's frozen class can't be restored by setting
        # attributes one by one, which is how a native class is unpickled by default).
        return (Action, (self.seat, self.type, self.tile, self.tiles))

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.tile is not None:
            obj["tile"] = format_tile(self.tile)
        if self.tiles is not None:
            obj["tiles"] = (
                "".join(format_tile(t)[0] for t in self.tiles) + format_tile(self.tiles[0])[1]
            )
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> Action:
        """Read ``{"seat": s, "type": t, ...}``; errors name the key."""
        if not isinstance(obj, dict):
            raise ActionError("action", "must be an object")
        seat = obj.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ActionError("seat", "must be a seat number 0–3")
        kind = obj.get("type")
        if kind not in ACTION_TYPES:
            raise ActionError("type", f"must be one of {', '.join(ACTION_TYPES)}")
        tile = None
        tiles = None
        if kind in _TILE_TYPES:
            text = obj.get("tile")
            if not isinstance(text, str):
                raise ActionError("tile", f"a {kind} needs a tile")
            try:
                tile = parse_tile(text)
            except TileParseError as error:
                raise ActionError("tile", str(error)) from None
        if kind == CHOW:
            text = obj.get("tiles")
            if not isinstance(text, str):
                raise ActionError("tiles", 'a chow needs its whole sequence, e.g. "345m"')
            try:
                parsed = sorted(parse_tiles(text))
            except TileParseError as error:
                raise ActionError("tiles", str(error)) from None
            if len(parsed) != 3:
                raise ActionError("tiles", "a chow is three tiles")
            tiles = tuple(parsed)
        return cls(seat, kind, tile, tiles)
