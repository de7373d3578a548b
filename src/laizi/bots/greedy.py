"""``greedy``: tile efficiency within the game's rules.

On its turn it discards the tile that leaves the lowest shanten (向听) and, among those, the most
unseen tiles that would lower it further (进张) — for a ready hand, the most unseen tiles that
really win under the game's constraints (:meth:`Strategy.winning_kinds`).  It claims a discard
when that lowers its shanten (or, where an opening is needed, keeps it), makes kongs that cost
nothing, and wins whenever it may.  Everything that depends on the game's rules is asked of the
game's :class:`~laizi.bots.strategy.Strategy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi import hand as shapes
from laizi.bots.base import Bot, register
from laizi.bots.strategy import strategy_for
from laizi.bots.table import SeatTable
from laizi.engine.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    LAY_OUT,
    PASS,
    PUNG,
    WIN,
    Action,
)
from laizi.tiles import FIRST_HONOR, TERMINALS_AND_HONORS

__all__ = ["GreedyBot"]

SHANTEN_WEIGHT = 100.0
"""One step of shanten outweighs any count of useful tiles."""


def isolation(counts: Sequence[int], kind: int) -> float:
    """How little a tile connects to the rest of the hand (higher: a better discard)."""
    if kind >= FIRST_HONOR:
        return 1.0 if counts[kind] == 1 else 0.0
    base = 9 * (kind // 9)
    near = 0
    for d in (-2, -1, 1, 2):
        other = kind + d
        if base <= other < base + 9 and counts[other]:
            near += 1
    score = 0.6 if kind in TERMINALS_AND_HONORS else 0.3
    return score - 0.2 * near - 0.3 * (counts[kind] - 1)


@register("greedy")
class GreedyBot(Bot):
    """Shanten first, then useful tiles still unseen; the game's strategy for its rules."""

    shanten_weight = SHANTEN_WEIGHT
    slack = 0
    """How many steps of shanten a discard may give up to be considered at all."""
    candidates = 6
    """At most this many discards are weighed in full."""

    def __init__(self, rules: Any, seed: int = 0) -> None:
        super().__init__(rules, seed)
        self.strategy = strategy_for(rules)

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        table = SeatTable(view)
        if table.phase in ("claim", "rob"):
            return self.claim(table, legal)
        win = _find(legal, WIN)
        if table.phase == "final":
            return win if win is not None else _find(legal, PASS) or legal[0]
        if win is not None and self.take_win(table, win):
            return win
        return self.turn(table, legal)

    # --- wins -------------------------------------------------------------------------------
    def take_win(self, table: SeatTable, win: Action) -> bool:
        """Greedy takes every win it is offered."""
        return True

    # --- one's own turn ---------------------------------------------------------------------
    def turn(self, table: SeatTable, legal: Sequence[Action]) -> Action:
        strategy = self.strategy
        forced = strategy.forced(table, legal)
        if forced is not None:
            return forced
        wild = strategy.wild(table)
        counts = table.counts
        kept = strategy.kept_out(table)
        discards = [a for a in legal if a.type == DISCARD and a.tile not in kept]
        if not discards:  # only laid-out kinds (or nothing ordinary) in hand
            return next((a for a in legal if a.type in (LAY_OUT, DISCARD)), legal[0])
        after = shapes.shanten_after_discard(counts, wild)
        best = min(s for a in discards if a.tile is not None and (s := after[a.tile]) is not None)
        if wild is not None and counts[wild]:
            lay = next((a for a in legal if a.type == LAY_OUT and a.tile == wild), None)
            if lay is not None and self.lay_out_wild(table, best):
                return lay
        kong = self.choose_kong(table, legal, after, best, wild)
        if kong is not None:
            return kong
        action = self.choose_discard(table, discards, after, best, wild)
        assert action.tile is not None
        declared = self.declare_ready(table, legal, action.tile, after[action.tile] == 0)
        return declared if declared is not None else action

    def lay_out_wild(self, table: SeatTable, shanten_now: int) -> bool:
        return self.strategy.lay_out_wild(table, shanten_now)

    def declare_ready(
        self, table: SeatTable, legal: Sequence[Action], tile: int, ready: bool
    ) -> Action | None:
        return self.strategy.declare_ready(table, legal, tile, ready)

    def choose_kong(
        self,
        table: SeatTable,
        legal: Sequence[Action],
        after: list[int | None],
        best: int,
        wild: int | None,
    ) -> Action | None:
        """A concealed or added kong that does not cost shanten (each is a factor and a draw)."""
        for action in legal:
            tile = action.tile
            if tile is None or tile == wild:
                continue
            if action.type == CONCEALED_KONG:
                trial = table.counts[:]
                trial[tile] -= 4
                if shapes.shanten(trial, wild) <= best:
                    return action
            elif action.type == ADDED_KONG and after[tile] == best:
                return action
        return None

    def choose_discard(
        self,
        table: SeatTable,
        discards: list[Action],
        after: list[int | None],
        best: int,
        wild: int | None,
    ) -> Action:
        limit = best + self.discard_slack(table)
        scored: list[tuple[int, int, Action]] = []  # (shanten after, tile, action)
        for action in discards:
            tile = action.tile
            assert tile is not None
            shanten = after[tile]
            if shanten is not None and shanten <= limit:
                scored.append((shanten, tile, action))
        if len(scored) > self.candidates:
            # Many equally good discards (early in a hand): weigh only the likeliest few.
            scored.sort(key=lambda item: (item[0], -self.prefer(table, item[1])))
            scored = scored[: self.candidates]
        ranked: list[tuple[float, int, Action]] = []
        for shanten, tile, action in scored:
            value = self.discard_value(table, tile, shanten, wild)
            ranked.append((value, -tile, action))
        ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return ranked[0][2]

    def prefer(self, table: SeatTable, tile: int) -> float:
        """A cheap first guess of how good a discard is, to pick the candidates to weigh."""
        return isolation(table.counts, tile)

    def discard_slack(self, table: SeatTable) -> int:
        """How many steps of shanten a discard may give up to be considered at all."""
        return self.slack

    def discard_value(self, table: SeatTable, tile: int, shanten: int, wild: int | None) -> float:
        """Higher is better: −shanten (effective), then unseen useful tiles, then shape."""
        counts = table.counts[:]
        counts[tile] -= 1
        effective, useful = self.efficiency(table, counts, shanten, wild)
        return (
            -self.shanten_weight * effective
            + useful
            + self.strategy.shape_bonus(table, counts)
            + 0.1 * isolation(table.counts, tile)
        )

    def efficiency(
        self, table: SeatTable, counts: list[int], shanten: int, wild: int | None
    ) -> tuple[int, float]:
        """(effective shanten, unseen useful tiles) of a 3n+1 hand."""
        unseen = table.unseen
        if shanten <= 0:
            wins = self.strategy.winning_kinds(table, counts)
            if wins:
                return 0, float(sum(unseen[t] for t in wins))
            shanten = 1  # ready in shape only (no 2/5/8 pair, …): really one step away
            draws = shapes.shanten_after_draw(counts, wild)
            return 1, sum(unseen[t] for t, s in enumerate(draws) if s is not None and s <= 0) / 4
        draws = shapes.shanten_after_draw(counts, wild)
        useful = sum(unseen[t] for t, s in enumerate(draws) if s is not None and s < shanten)
        return shanten, float(useful)

    # --- claims -----------------------------------------------------------------------------
    def claim(self, table: SeatTable, legal: Sequence[Action]) -> Action:
        win = _find(legal, WIN)
        if win is not None and self.take_win(table, win):
            return win
        passing = _find(legal, PASS) or legal[-1]
        tile = table.claim_tile
        if tile is None:
            return passing
        wild = self.strategy.wild(table)
        now = shapes.shanten(table.counts, wild)
        best: tuple[float, Action] | None = None
        for action in legal:
            if action.type not in (KONG, PUNG, CHOW):
                continue
            shanten = self.shanten_after_claim(table, action, tile, wild)
            if shanten is None or not self.claim_ok(table, action, now, shanten):
                continue
            rank = {KONG: 0.2, PUNG: 0.1, CHOW: 0.0}[action.type] - shanten
            if best is None or rank > best[0]:
                best = (rank, action)
        return passing if best is None else best[1]

    def claim_ok(self, table: SeatTable, action: Action, now: int, after: int) -> bool:
        """Claim when it lowers the shanten; a kong or a needed opening may keep it."""
        if after < now:
            return True
        return after == now and (action.type == KONG or self.strategy.wants_opening(table))

    def shanten_after_claim(
        self, table: SeatTable, action: Action, tile: int, wild: int | None
    ) -> int | None:
        counts = table.counts[:]
        if action.type == KONG:
            counts[tile] -= 3
            return shapes.shanten(counts, wild)
        if action.type == PUNG:
            counts[tile] -= 2
        else:
            assert action.tiles is not None
            rest = list(action.tiles)
            rest.remove(tile)
            for t in rest:
                counts[t] -= 1
        kept = self.strategy.kept_out(table)
        after = shapes.shanten_after_discard(counts, wild)
        options = [s for t, s in enumerate(after) if s is not None and t not in kept]
        return min(options) if options else None


def _find(legal: Sequence[Action], kind: str) -> Action | None:
    for action in legal:
        if action.type == kind:
            return action
    return None
