"""Baishan mahjong's judgement for the bots (RULES.md Part B).

Constraints: a win needs a terminal or honor somewhere and at least one triplet or kong (seven
pairs and thirteen orphans aside), so among equally efficient hands the bots keep pairs and
terminals/honors; 报听 (declared ready) is worth a fan for both sides but locks the hand, so it
is declared when the hand is ready and allowed to.  The strong bot adds the value of staying
concealed (立门, a fan on both sides: an opening gives it up), the +1/+2 fans of 混一色 and
清一色 and of 飘胡, and care against a seat that declared ready.
"""

from __future__ import annotations

from collections.abc import Sequence

from laizi.bots.strategy import STRATEGIES, TERMINALS_AND_HONORS, Plan, Strategy
from laizi.bots.table import Opponent, SeatTable
from laizi.engine.actions import DECLARE_READY, Action
from laizi.rules.baishan import winning_tiles
from laizi.rules.melds import Meld

__all__ = ["BaishanStrategy"]


class BaishanStrategy(Strategy):
    """白山麻将: no wildcards, 报听, 立门, fans capped at 6."""

    def _melds(self, table: SeatTable) -> list[Meld]:
        return [
            Meld(kind, tuple(tiles), None if kind == "concealed_kong" else (source or 0))
            for (kind, tiles), source in zip(table.melds, table.meld_from, strict=True)
        ]

    def winning_kinds(self, table: SeatTable, counts: list[int]) -> list[int]:
        """Waits that make an allowed win: a terminal or honor, a triplet (Part B)."""
        return winning_tiles(counts, self._melds(table))

    def shape_bonus(self, table: SeatTable, counts: list[int]) -> float:
        """Keep a pair or triplet (a triplet is required) and a terminal or honor."""
        bonus = 0.0
        melds_have_triplet = any(kind != "chow" for kind, _ in table.melds)
        if melds_have_triplet or any(n >= 2 for n in counts):
            bonus += 0.5
        melds_have_terminal = any(
            t in TERMINALS_AND_HONORS for _, tiles in table.melds for t in tiles
        )
        if melds_have_terminal or any(counts[t] for t in TERMINALS_AND_HONORS):
            bonus += 0.5
        return bonus

    def declare_ready(
        self, table: SeatTable, legal: Sequence[Action], discard: int, ready: bool
    ) -> Action | None:
        """报听 when the chosen discard leaves a hand the rules let one declare on."""
        if not ready:
            return None
        for action in legal:
            if action.type == DECLARE_READY and action.tile == discard:
                return action
        return None

    def opening_cost(self, table: SeatTable) -> float:
        """The first opening gives up 立门 (a fan won or lost on every payment)."""
        return 1.0 if table.openings == 0 else 0.0

    def plans(self, table: SeatTable) -> list[Plan]:
        counts = table.counts
        plans: list[Plan] = []
        size = sum(counts)
        meld_suits = {tiles[0] // 9 for _, tiles in table.melds if tiles}
        for suit in range(3):
            if meld_suits - {suit, 3}:
                continue
            inside = sum(counts[t] for t in range(34) if t // 9 == suit)
            honors = sum(counts[t] for t in range(27, 34))
            if size - inside - honors <= 3 and inside + honors >= 8:
                plans.append(
                    Plan(f"hunyise-{'mps'[suit]}", lambda t, s=suit: t // 9 in (s, 3), 1.5)
                )
        if not any(kind == "chow" for kind, _ in table.melds):
            pairs = sum(1 for n in counts if n >= 2)
            pungs = sum(1 for kind, _ in table.melds if kind != "chow")
            if pairs + pungs >= 5:
                plans.append(Plan("piaohu", lambda t, c=counts: c[t] >= 2, 1.5))
        return plans

    def threat(self, table: SeatTable, other: Opponent) -> float:
        if other.declared_ready:
            return 1.0
        return super().threat(table, other) * 0.7


STRATEGIES["baishan"] = BaishanStrategy
