"""Tiles: ids 0–33, the text notation of RULES.md, names and display.

A tile is a small integer: 0–8 are 1m…9m (万), 9–17 are 1p…9p (筒), 18–26 are 1s…9s (条),
27–33 are 1z…7z (东 南 西 北 白 发 中).  A hand is a *count vector*: 34 small integers, the
number of copies of each kind.  Text is for people and for the edges of the system:

>>> parse_tiles("123m55p7z")
[0, 1, 2, 13, 13, 33]
>>> format_tiles([33, 0, 13, 1, 2, 13])
'123m55p7z'
>>> tile_name(parse_tile("7z"), "zh"), tile_name(parse_tile("7z"), "en")
('红中', 'Red Dragon')

Digits come before their suit letter, groups may come in any order (``7z123m`` is fine), spaces
are ignored, and the text ``0`` (or the empty string) is no tile at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "DRAGONS",
    "EAST",
    "FIRST_HONOR",
    "GREEN",
    "HONORS",
    "KINDS",
    "NORTH",
    "RED",
    "SOUTH",
    "SUITS",
    "TERMINALS",
    "TERMINALS_AND_HONORS",
    "TWO_FIVE_EIGHT",
    "TWO_FIVE_EIGHT_RANKS",
    "WEST",
    "WHITE",
    "WINDS",
    "TileParseError",
    "count_vector",
    "format_counts",
    "format_tile",
    "format_tiles",
    "is_honor",
    "is_suited",
    "parse_tile",
    "parse_tiles",
    "rank",
    "suit",
    "tile_glyph",
    "tile_name",
    "tiles_of",
]

KINDS = 34
"""Number of tile kinds."""
SUITS = "mpsz"
"""Suit letters in id order: m 万 characters, p 筒 dots, s 条 bamboo, z honors."""
FIRST_HONOR = 27
"""The suit/honor boundary: ids below it are suited (1m…9s, three suits of nine), from it on
honors.  Every module that needs the boundary takes it from here (or asks :func:`is_suited`)."""
HONORS = range(FIRST_HONOR, KINDS)
"""Ids of the seven honor kinds, 东 南 西 北 白 发 中."""

# -- tile groups: every module that needs one takes it from here --------------------------------
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = HONORS
"""The honors by name: 东 南 西 北 白 (white) 发 (green) 中 (red)."""
WINDS = frozenset((EAST, SOUTH, WEST, NORTH))
"""The four winds 风."""
DRAGONS = frozenset((WHITE, GREEN, RED))
"""The three dragons 箭."""
TERMINALS = frozenset((0, 8, 9, 17, 18, 26))
"""1 and 9 of each suit (幺九)."""
TERMINALS_AND_HONORS = TERMINALS | frozenset(HONORS)
"""Terminals and honors: thirteen orphans' kinds, and Baishan's 不断幺九."""
TWO_FIVE_EIGHT_RANKS = (1, 4, 7)
"""Ranks (0-based within a suit) of the 2, 5 and 8: the 将 of Wuhan's 2/5/8 pair."""
TWO_FIVE_EIGHT = frozenset(s + r for s in (0, 9, 18) for r in TWO_FIVE_EIGHT_RANKS)
"""The nine suited 2s, 5s and 8s (将一色, the 2/5/8 pair)."""

_SUIT_SIZE = {"m": 9, "p": 9, "s": 9, "z": 7}
_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}

_ZH_SUIT = {"m": "万", "p": "筒", "s": "条"}
_ZH_RANK = "一二三四五六七八九"
_ZH_HONOR = ("东风", "南风", "西风", "北风", "白板", "发财", "红中")
_EN_SUIT = {"m": "Characters", "p": "Dots", "s": "Bamboo"}
_EN_HONOR = (
    "East Wind",
    "South Wind",
    "West Wind",
    "North Wind",
    "White Dragon",
    "Green Dragon",
    "Red Dragon",
)
# Unicode Mahjong Tiles block: winds and dragons first, then characters, bamboo, dots.
_GLYPH_BASE = {"m": 0x1F007, "s": 0x1F010, "p": 0x1F019}
_GLYPH_HONOR = (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)


class TileParseError(ValueError):
    """Text that is not tile notation.  Names the offending character and its 0-based position."""

    def __init__(self, text: str, position: int, message: str) -> None:
        self.text = text
        self.position = position
        char = text[position] if 0 <= position < len(text) else ""
        self.char = char
        where = f"character {char!r} at position {position}" if char else f"position {position}"
        super().__init__(f"bad tile text {text!r}: {message} ({where})")


def suit(tile: int) -> str:
    """The suit letter of a tile id: ``'m'``, ``'p'``, ``'s'`` or ``'z'``."""
    return SUITS[tile // 9] if tile < 27 else "z"


def rank(tile: int) -> int:
    """The number on a tile, 1–9 for suits and 1–7 for honors (东 1 … 中 7)."""
    return tile % 9 + 1 if tile < 27 else tile - 26


def is_honor(tile: int) -> bool:
    return tile >= FIRST_HONOR


def is_suited(tile: int) -> bool:
    return tile < FIRST_HONOR


def parse_tiles(text: str) -> list[int]:
    """Parse notation such as ``123m55p7z`` into tile ids, in the order written."""
    tiles: list[int] = []
    pending: list[tuple[int, int]] = []  # (digit, position) waiting for their suit letter
    for position, char in enumerate(text):
        if char.isspace():
            continue
        if char in "0123456789":
            pending.append((int(char), position))
        elif char in _SUIT_SIZE:
            if not pending:
                raise TileParseError(text, position, "suit letter without digits before it")
            for digit, digit_position in pending:
                if not 1 <= digit <= _SUIT_SIZE[char]:
                    raise TileParseError(
                        text, digit_position, f"{char} tiles are numbered 1–{_SUIT_SIZE[char]}"
                    )
                tiles.append(_SUIT_BASE[char] + digit - 1)
            pending.clear()
        else:
            raise TileParseError(text, position, "not a digit or one of the suit letters m p s z")
    if pending:
        if not tiles and all(digit == 0 for digit, _ in pending) and len(pending) == 1:
            return []  # "0" is no tile
        raise TileParseError(text, pending[0][1], "digits without a suit letter after them")
    return tiles


def parse_tile(text: str) -> int:
    """Parse exactly one tile, e.g. ``'5m'``."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileParseError(text, 0, f"expected exactly one tile, got {len(tiles)}")
    return tiles[0]


def format_tile(tile: int) -> str:
    """One tile id as notation: ``format_tile(0) == '1m'``."""
    if not 0 <= tile < KINDS:
        raise ValueError(f"tile id {tile} is outside 0–33")
    return f"{rank(tile)}{suit(tile)}"


def format_tiles(tiles: Iterable[int]) -> str:
    """Tile ids as compact notation, sorted by id; ``'0'`` when there are none."""
    return format_counts(count_vector(tiles, limit=None))


# (first id, last id + 1, the digits of the suit's ranks, its letter), for format_counts
_SUIT_SPANS = tuple(
    (
        base,
        base + _SUIT_SIZE[letter],
        tuple(str(r) for r in range(1, _SUIT_SIZE[letter] + 1)),
        letter,
    )
    for base, letter in zip((0, 9, 18, 27), SUITS, strict=True)
)


def format_counts(counts: Sequence[int]) -> str:
    """A count vector as compact notation, e.g. ``[2, 0, …] -> '11m'``; ``'0'`` when empty."""
    parts: list[str] = []
    for low, high, digits_of, letter in _SUIT_SPANS:
        digits = "".join([d * n for d, n in zip(digits_of, counts[low:high], strict=True)])
        if digits:
            parts.append(digits + letter)
    return "".join(parts) or "0"


def count_vector(tiles: Iterable[int], limit: int | None = 4) -> list[int]:
    """The 34-entry count vector of some tile ids.

    With ``limit`` (default 4) more copies of a kind than that is an error naming the kind.
    """
    counts = [0] * KINDS
    for tile in tiles:
        counts[tile] += 1
    if limit is not None:
        for tile, count in enumerate(counts):
            if count > limit:
                raise ValueError(f"{count} copies of {format_tile(tile)}: at most {limit} exist")
    return counts


def tiles_of(counts: Sequence[int]) -> list[int]:
    """The tile ids of a count vector, sorted."""
    return [tile for tile, count in enumerate(counts) for _ in range(count)]


def tile_name(tile: int, lang: str = "zh") -> str:
    """The full name of a tile: ``一万`` / ``1 Characters``, ``红中`` / ``Red Dragon``."""
    letter = suit(tile)
    if lang == "zh":
        if letter == "z":
            return _ZH_HONOR[tile - 27]
        return _ZH_RANK[rank(tile) - 1] + _ZH_SUIT[letter]
    if letter == "z":
        return _EN_HONOR[tile - 27]
    return f"{rank(tile)} {_EN_SUIT[letter]}"


def tile_glyph(tile: int) -> str:
    """The Unicode mahjong glyph of a tile (U+1F000 block)."""
    letter = suit(tile)
    if letter == "z":
        return chr(_GLYPH_HONOR[tile - 27])
    return chr(_GLYPH_BASE[letter] + rank(tile) - 1)
