"""What a bot reads off its seat's view: count vectors instead of notation, and the tiles it
has not seen.

A bot is handed :func:`laizi.engine.view` of its own seat — the JSON-ready dict a remote client
would get — and nothing else.  :class:`SeatTable` parses it once per decision.

>>> from laizi.engine import make_ruleset, new_hand, view
>>> state, _ = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), 0, seed=bytes(32))
>>> table = SeatTable(view(state, 0))
>>> table.seat, sum(table.counts), table.laizi, table.unseen[table.laizi]
(0, 14, 11, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from laizi.tiles import parse_tile, parse_tiles

__all__ = ["Opponent", "SeatTable", "meld_tiles"]


def meld_tiles(meld: dict[str, Any]) -> list[int]:
    """The tiles of a meld as the view shows it ([] for another seat's face-down 暗杠)."""
    text = meld.get("tiles")
    return [] if text is None else parse_tiles(text)


@dataclass(slots=True)
class Opponent:
    """What is public about one other seat."""

    seat: int
    hand_size: int
    melds: list[tuple[str, list[int]]]
    discards: list[int]
    openings: int
    multiplier: int
    declared_ready: bool

    @property
    def meld_suits(self) -> set[int]:
        """Suits (0 m, 1 p, 2 s, 3 honors) of its melds."""
        return {tiles[0] // 9 for _, tiles in self.melds if tiles}


class SeatTable:
    """One seat's view, parsed: ``counts`` (its concealed hand), ``melds``, ``unseen`` (copies of
    each kind it can't see anywhere), the special tiles and the other seats' public part."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.seat: int = view["seat"]
        self.game: str = view["game"]
        self.phase: str = view["phase"]
        self.dealer: int = view["dealer"]
        self.live: int = view["live"]
        self.tiles_left: int = view["tiles_left"]
        self.laizi: int | None = None if view.get("laizi") is None else parse_tile(view["laizi"])
        self.must_gang: frozenset[int] = frozenset(parse_tile(t) for t in view.get("must_gang", []))
        indicator = view.get("indicator")
        self.indicator: int | None = None if indicator is None else parse_tile(indicator)
        counts = [0] * 34
        for tile in parse_tiles(view["concealed"]):
            counts[tile] += 1
        self.counts = counts
        claim = view.get("claim")
        self.claim_tile: int | None = None if claim is None else parse_tile(claim["tile"])
        self.claim_from: int | None = None if claim is None else claim["from"]
        drawn = view.get("drawn")
        self.drawn: int | None = None if drawn is None else parse_tile(drawn)
        seen = counts[:]
        if self.indicator is not None:
            seen[self.indicator] += 1
        if self.claim_tile is not None:
            seen[self.claim_tile] += 1
        self.melds: list[tuple[str, list[int]]] = []
        self.meld_from: list[int | None] = []
        self.laid_out: list[int] = []
        self.openings = 0
        self.multiplier = 1
        self.declared_ready = False
        self.opponents: list[Opponent] = []
        self.discards_total = 0
        for player in view["players"]:
            melds = [(m["kind"], meld_tiles(m)) for m in player["melds"]]
            for _, tiles in melds:
                for t in tiles:
                    seen[t] += 1
            laid = [parse_tile(t) for t in player["laid_out"]]
            for t in laid:
                seen[t] += 1
            river = [parse_tile(t) for t in player["discards"]]
            claimed = set(player["claimed"])
            for index, t in enumerate(river):
                if index not in claimed:
                    seen[t] += 1
            self.discards_total += len(river)
            multiplier = int(player.get("multiplier", {}).get("total", 1))
            ready = bool(player.get("declared_ready", False))
            if player["seat"] == self.seat:
                self.melds, self.laid_out = melds, laid
                self.meld_from = [m.get("from") for m in player["melds"]]
                self.openings, self.multiplier = player["openings"], multiplier
                self.declared_ready = ready
                self.river = river
            else:
                self.opponents.append(
                    Opponent(
                        player["seat"],
                        player["hand_size"],
                        melds,
                        river,
                        player["openings"],
                        multiplier,
                        ready,
                    )
                )
        self.unseen = [max(0, 4 - n) for n in seen]

    @property
    def size(self) -> int:
        return sum(self.counts)

    @property
    def hand_size(self) -> int:
        """Concealed tiles held (as :class:`Opponent` names it: the value model reads both)."""
        return sum(self.counts)

    @property
    def meld_suits(self) -> set[int]:
        """Suits (0 m, 1 p, 2 s, 3 honors) of its melds."""
        return {tiles[0] // 9 for _, tiles in self.melds if tiles}
