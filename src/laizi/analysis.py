"""One hand's whole analysis as a value — what ``laizi analyze`` prints.

>>> result = analyze_text("234m456p789s2255s", "7z")
>>> result.waits_text()
['2s', '5s', '7z']
>>> result.shanten
0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from laizi import hand
from laizi.rules.registry import ruleset_class
from laizi.tiles import count_vector, format_counts, format_tile, parse_tile, parse_tiles


@dataclass(frozen=True, slots=True)
class Analysis:
    """The answers of :mod:`laizi.hand` for one hand (INTERFACES.md ``laizi analyze``)."""

    counts: tuple[int, ...]
    laizi: int | None
    complete: bool
    complete_258: bool
    hard: bool
    hard_258: bool
    shanten: int
    waits: tuple[int, ...]
    waits_258: tuple[int, ...]
    game: str = "wuhan"
    seven_pairs: bool = False
    thirteen_orphans: bool = False
    special_waits: tuple[int, ...] = ()

    @property
    def tiles(self) -> str:
        return format_counts(self.counts)

    def waits_text(self) -> list[str]:
        return [format_tile(tile) for tile in self.waits]

    def waits_258_text(self) -> list[str]:
        return [format_tile(tile) for tile in self.waits_258]

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "tiles": self.tiles,
            "complete": self.complete,
            "complete_258": self.complete_258,
            "hard": self.hard,
            "hard_258": self.hard_258,
            "shanten": self.shanten,
            "waits": self.waits_text(),
            "waits_258": self.waits_258_text(),
        }
        if ruleset_class(self.game).wins_special_shapes():
            answer["seven_pairs"] = self.seven_pairs
            answer["thirteen_orphans"] = self.thirteen_orphans
            answer["special_waits"] = [format_tile(tile) for tile in self.special_waits]
        return answer

    def __repr__(self) -> str:
        laizi = "" if self.laizi is None else f", laizi={format_tile(self.laizi)}"
        return f"<Analysis {self.tiles}{laizi} shanten={self.shanten}>"


def analyze(
    counts: list[int] | tuple[int, ...], laizi: int | None = None, game: str = "wuhan"
) -> Analysis:
    """Analyse a count vector; raises :class:`laizi.hand.HandSizeError` for an impossible hand.

    ``game="baishan"`` adds Baishan's special shapes (seven pairs, thirteen orphans); that game
    has no laizi.
    """
    rules = ruleset_class(game)  # ValueError naming the known games
    if not rules.has_wild_tiles() and laizi is not None:
        raise ValueError(f"{game.capitalize()} mahjong has no laizi")
    special = rules.wins_special_shapes()
    return Analysis(
        counts=tuple(counts),
        laizi=laizi,
        complete=hand.complete(counts, laizi),
        complete_258=hand.complete_258(counts, laizi),
        hard=hand.hard(counts, laizi),
        hard_258=hand.hard_258(counts, laizi),
        shanten=hand.shanten(counts, laizi),
        waits=tuple(hand.waits(counts, laizi)),
        waits_258=tuple(hand.waits_258(counts, laizi)),
        game=game,
        seven_pairs=special and hand.seven_pairs(counts),
        thirteen_orphans=special and hand.thirteen_orphans(counts),
        special_waits=tuple(hand.special_waits(counts)) if special else (),
    )


def analyze_text(hand_text: str, laizi_text: str | None = None, game: str = "wuhan") -> Analysis:
    """Analyse a hand written in notation, e.g. ``analyze_text("123m…", "7z")``.

    Raises :class:`laizi.tiles.TileParseError` or ``ValueError`` naming what is wrong.
    """
    counts = count_vector(parse_tiles(hand_text))
    laizi = parse_tile(laizi_text) if laizi_text else None
    return analyze(counts, laizi, game)
