"""Melds on the table: chows, pungs and the three kinds of kong (RULES.md A5).

>>> m = Meld("pung", (4, 4, 4), from_seat=2)
>>> m, m.is_opening, m.is_kong
(Meld('pung', '555m', from 2), True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

from laizi.tiles import format_tiles, is_suited

__all__ = ["MELD_KINDS", "OPENING_KINDS", "Meld"]

MELD_KINDS = ("chow", "pung", "exposed_kong", "added_kong", "concealed_kong")
"""Meld kinds in the notation of INTERFACES.md."""
OPENING_KINDS = frozenset({"chow", "pung", "exposed_kong", "added_kong"})
"""Melds that count as an opening 开口 (A5).  A 蓄杠 (``added_kong``) was a pung first: one
opening, not two.  A concealed kong 暗杠 is no opening."""


@dataclass(frozen=True)
class Meld:
    """One meld: ``kind``, its tile ids (sorted), and the seat the claimed tile came from.

    ``from_seat`` is ``None`` exactly for a concealed kong.  The constructor checks the shape
    (three in a row of one suit, three or four of a kind) and raises ``ValueError`` otherwise.
    """

    kind: str
    tiles: tuple[int, ...]
    from_seat: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", tuple(sorted(self.tiles)))
        if self.kind not in MELD_KINDS:
            raise ValueError(f"unknown meld kind {self.kind!r}; one of {', '.join(MELD_KINDS)}")
        tiles = self.tiles
        if self.kind == "chow":
            ok = (
                len(tiles) == 3
                and all(is_suited(t) for t in tiles)
                and tiles[0] // 9 == tiles[2] // 9
                and tiles[1] == tiles[0] + 1
                and tiles[2] == tiles[0] + 2
            )
            shape = "three tiles in a row of one suit"
        else:
            size = 3 if self.kind == "pung" else 4
            ok = len(tiles) == size and len(set(tiles)) == 1
            shape = f"{size} tiles of one kind"
        if not ok:
            raise ValueError(f"a {self.kind} is {shape}, not {format_tiles(tiles)}")
        if self.kind == "concealed_kong":
            if self.from_seat is not None:
                raise ValueError("a concealed_kong has no 'from'")
        elif self.from_seat is None:
            raise ValueError(f"a {self.kind} needs 'from', the seat the claimed tile came from")

    @property
    def is_opening(self) -> bool:
        return self.kind in OPENING_KINDS

    @property
    def is_kong(self) -> bool:
        return len(self.tiles) == 4

    @property
    def is_exposed_kong(self) -> bool:
        """冲杠 or 蓄杠 (×2 each, A7)."""
        return self.kind in ("exposed_kong", "added_kong")

    @property
    def is_concealed_kong(self) -> bool:
        """暗杠 (×4, A7)."""
        return self.kind == "concealed_kong"

    @property
    def kind_tile(self) -> int:
        """The lowest tile: the kind of a pung or kong, the start of a chow."""
        return self.tiles[0]

    def __repr__(self) -> str:
        source = "" if self.from_seat is None else f", from {self.from_seat}"
        return f"Meld({self.kind!r}, {format_tiles(self.tiles)!r}{source})"
