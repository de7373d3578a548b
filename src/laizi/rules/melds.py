"""Melds on the table: chows, pungs and the three kinds of kong (RULES.md A5).

One value type for every meld — the engine's table, the settlement's input, the bots' view:

>>> m = Meld("pung", (4, 4, 4), from_seat=2)
>>> m, m.is_opening, m.is_kong
(Meld('pung', '555m', from 2), True, False)
>>> Meld.checked("chow", (3, 1, 2), 0)
Meld('chow', '234m', from 0)
>>> Meld.checked("chow", (1, 2, 4), 0)
Traceback (most recent call last):
ValueError: a chow is three tiles in a row of one suit, not 235m
"""

from __future__ import annotations

from typing import Any, NamedTuple

from laizi.tiles import format_tile, format_tiles, is_suited

__all__ = ["MELD_KINDS", "OPENING_KINDS", "Meld"]

MELD_KINDS = ("chow", "pung", "exposed_kong", "added_kong", "concealed_kong")
"""Meld kinds in the notation of INTERFACES.md."""
OPENING_KINDS = frozenset({"chow", "pung", "exposed_kong", "added_kong"})
"""Melds that count as an opening 开口 (A5).  A 蓄杠 (``added_kong``) was a pung first: one
opening, not two.  A concealed kong 暗杠 is no opening."""
_EXPOSED_KONGS = frozenset({"exposed_kong", "added_kong"})


class Meld(NamedTuple):
    """One meld: ``kind``, its tile ids (sorted), and the seat the claimed tile came from.

    ``from_seat`` is ``None`` exactly for a concealed kong.  The engine builds melds it knows to
    be right; input from outside goes through :meth:`checked`, which checks the shape.
    """

    kind: str
    tiles: tuple[int, ...]
    from_seat: int | None = None

    @classmethod
    def checked(cls, kind: str, tiles: tuple[int, ...], from_seat: int | None = None) -> Meld:
        """The meld, tiles sorted, or ``ValueError`` for a shape that is no ``kind`` (three in a
        row of one suit, three or four of a kind) or a wrong ``from_seat``."""
        tiles = tuple(sorted(tiles))
        if kind not in MELD_KINDS:
            raise ValueError(f"unknown meld kind {kind!r}; one of {', '.join(MELD_KINDS)}")
        if kind == "chow":
            ok = (
                len(tiles) == 3
                and all(is_suited(t) for t in tiles)
                and tiles[0] // 9 == tiles[2] // 9
                and tiles[1] == tiles[0] + 1
                and tiles[2] == tiles[0] + 2
            )
            shape = "three tiles in a row of one suit"
        else:
            size = 3 if kind == "pung" else 4
            ok = len(tiles) == size and len(set(tiles)) == 1
            shape = f"{size} tiles of one kind"
        if not ok:
            raise ValueError(f"a {kind} is {shape}, not {format_tiles(tiles)}")
        if kind == "concealed_kong":
            if from_seat is not None:
                raise ValueError("a concealed_kong has no 'from'")
        elif from_seat is None:
            raise ValueError(f"a {kind} needs 'from', the seat the claimed tile came from")
        return cls(kind, tiles, from_seat)

    @property
    def is_opening(self) -> bool:
        return self.kind in OPENING_KINDS

    @property
    def is_kong(self) -> bool:
        return len(self.tiles) == 4

    @property
    def is_exposed_kong(self) -> bool:
        """冲杠 or 蓄杠 (×2 each, A7)."""
        return self.kind in _EXPOSED_KONGS

    @property
    def is_concealed_kong(self) -> bool:
        """暗杠 (×4, A7)."""
        return self.kind == "concealed_kong"

    @property
    def kind_tile(self) -> int:
        """The lowest tile: the kind of a pung or kong, the start of a chow."""
        return self.tiles[0]

    def notation(self) -> str:
        """The tiles in meld order, one suit letter: ``555m``, ``234p``."""
        tiles = self.tiles
        if not tiles:
            return "0"
        return "".join(format_tile(t)[0] for t in tiles) + format_tile(tiles[0])[1]

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "tiles", "from"}`` as records and views show it (no ``from`` for 暗杠)."""
        obj: dict[str, Any] = {"kind": self.kind, "tiles": self.notation()}
        if self.from_seat is not None:
            obj["from"] = self.from_seat
        return obj

    def __repr__(self) -> str:
        source = "" if self.from_seat is None else f", from {self.from_seat}"
        return f"Meld({self.kind!r}, {format_tiles(self.tiles)!r}{source})"
