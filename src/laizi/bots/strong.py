"""``strong``: greedy plus judgement.

On top of :class:`~laizi.bots.greedy.GreedyBot`'s tile efficiency it weighs:

* **what a win is worth** — it steers toward the big hands its tiles allow (the game's
  :meth:`~laizi.bots.strategy.Strategy.plans`: Wuhan 清一色, 碰碰胡, 将一色 pay base 10 instead of
  1), accepting one step of shanten for it, and claims only what fits the plan;
* **what an opening costs** — in 口口翻 every opening doubles every loss, so it claims only
  to get nearer a win, not merely to keep pace;
* **how dangerous a discard is** — each opponent's threat (openings, progress, 报听; in Wuhan an
  unopened seat can't win) times each tile's danger (its own discards are safe, fully visible
  kinds are safe, middle tiles are worse than terminals and honors), weighted by how far it is
  from winning itself;
* **contracts** — it does not feed a 全求人 while not ready, nor give the third opening toward a
  visible 清一色;
* **passing a small win** on a discard when a big one is one tile away with a long wall left.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from laizi.bots.base import register
from laizi.bots.greedy import SHANTEN_WEIGHT, GreedyBot
from laizi.bots.strategy import Plan
from laizi.bots.table import SeatTable
from laizi.engine.actions import CHOW, KONG, PUNG, Action
from laizi.tiles import FIRST_HONOR

__all__ = ["StrongBot"]

DEFENSE = {0: 2.0, 1: 5.0}
"""Weight of danger against useful tiles, by one's own shanten (further away: more careful)."""
FAR_DEFENSE = 9.0
PLAN_SHANTEN_WEIGHT = 25.0
"""With a big hand in view, a step of shanten costs this much instead of 100."""


def tile_danger(table: SeatTable, kind: int, discards: list[int]) -> float:
    """How likely one opponent waits on ``kind`` (0–1), from its discards and what is visible."""
    if kind in discards:
        return 0.15
    unseen = table.unseen[kind]
    if unseen == 0:
        return 0.1
    if kind >= FIRST_HONOR:
        return 0.35 if unseen >= 2 else 0.2
    rank = kind % 9
    base = 0.6 if rank in (0, 8) else 0.8 if rank in (1, 7) else 1.0
    return base * (0.6 + 0.1 * unseen)


@register("strong")
class StrongBot(GreedyBot):
    """Greedy's efficiency plus value, danger and contracts (see the module's notes)."""

    slack = 1
    use_plans = True
    use_danger = True
    use_contracts = True
    danger_scale = 0.25
    laizi_late = 1
    """Keep a single laizi as a wildcard while the shanten is above this (then lay it out)."""

    def __init__(self, rules: Any, seed: int = 0) -> None:
        super().__init__(rules, seed)
        self._plans: list[Plan] | None = None

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        self._plans = None  # plans are worked out once per decision
        return super().act(view, legal)

    def plans(self, table: SeatTable) -> list[Plan]:
        if self._plans is None:
            self._plans = self.strategy.plans(table) if self.use_plans and table.live > 12 else []
        return self._plans

    # --- wins -------------------------------------------------------------------------------
    def take_win(self, table: SeatTable, win: Action) -> bool:
        return not (table.phase == "claim" and self.strategy.pass_small_win(table))

    def lay_out_wild(self, table: SeatTable, shanten_now: int) -> bool:
        # With a big hand in view the minimum is no concern and the laizi is worth keeping.
        if self.plans(table) and table.counts[table.laizi or 0] < 2:
            return False
        if table.counts[table.laizi or 0] < 2 and (
            shanten_now > self.laizi_late or self.strategy.small_win_capped(table)
        ):
            return False  # keep the wildcard: capped wins can't grow, losses still would
        return super().lay_out_wild(table, shanten_now)

    # --- discards ---------------------------------------------------------------------------
    def prefer(self, table: SeatTable, tile: int) -> float:
        plans = self.plans(table)
        off_plan = 5.0 if plans and not plans[0].keeps(tile) else 0.0
        return off_plan + super().prefer(table, tile)

    def choose_discard(
        self,
        table: SeatTable,
        discards: list[Action],
        after: list[int | None],
        best: int,
        wild: int | None,
    ) -> Action:
        plans = self.plans(table)
        if plans:
            tile = self.strategy.special_discard(table, plans[0])
            if tile is not None:
                for action in discards:
                    if action.tile == tile:
                        return action
        return super().choose_discard(table, discards, after, best, wild)

    def declare_ready(
        self, table: SeatTable, legal: Sequence[Action], tile: int, ready: bool
    ) -> Action | None:
        plans = self.plans(table)
        if plans and plans[0].name == "qidui":
            return None  # 七对 is paid at the cap already: 报听 would only raise the losses
        return super().declare_ready(table, legal, tile, ready)

    def discard_slack(self, table: SeatTable) -> int:
        # Only a plan makes a step of shanten worth giving up (danger never outweighs one).
        return self.slack if self.plans(table) else 0

    def discard_value(self, table: SeatTable, tile: int, shanten: int, wild: int | None) -> float:
        plans = self.plans(table)
        self.shanten_weight = PLAN_SHANTEN_WEIGHT if plans else SHANTEN_WEIGHT
        value = super().discard_value(table, tile, shanten, wild)
        if plans and not plans[0].keeps(tile):
            value += plans[0].weight * 4
        if self.use_danger:
            weight = DEFENSE.get(max(0, shanten), FAR_DEFENSE)
            danger = sum(
                self.strategy.threat(table, other) * tile_danger(table, tile, other.discards)
                for other in table.opponents
            )
            value -= self.danger_scale * weight * danger
            if self.use_contracts:
                value -= 4.0 * self.strategy.liability(table, tile, shanten <= 0)
        return value

    # --- claims -----------------------------------------------------------------------------
    def claim_ok(self, table: SeatTable, action: Action, now: int, after: int) -> bool:
        tile = table.claim_tile
        plans = self.plans(table)
        if plans and tile is not None:
            plan = plans[0]
            if plan.name == "qidui":
                return False  # seven pairs stays concealed
            if not plan.keeps(tile):
                return False
            if plan.name == "pengpenghu":
                return action.type in (PUNG, KONG) and after <= now + 1
            if after <= now and action.type in (PUNG, KONG, CHOW):
                return True
        cost = self.strategy.opening_cost(table)
        if cost and action.type != KONG and (after >= now or after > 1):
            return False  # an opening that costs is made only to get ready
        return super().claim_ok(table, action, now, after)
