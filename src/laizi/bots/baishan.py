"""Baishan mahjong's judgement for the bots (RULES.md Part B).

Constraints: a win needs a terminal or honor somewhere and at least one triplet or kong (seven
pairs and thirteen orphans aside), so among equally efficient hands the bots keep pairs and
terminals/honors; 报听 (declared ready) is worth a fan for both sides but locks the hand, so it
is declared when the hand is ready and allowed to.  The strong bot adds 七对: a winning
seven-pairs hand is paid at the cap, eight times a common win, so from five pairs it throws
singles, claims nothing and does not declare; and care against a seat that declared ready.
(Steering for 混一色 or 飘胡 and keeping 立门 were tried and measured no better than greedy.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from laizi.bots.strategy import Plan, Strategy
from laizi.bots.table import Opponent, SeatTable
from laizi.engine.actions import DECLARE_READY, Action
from laizi.rules.baishan.readings import winning_tiles
from laizi.rules.melds import Meld
from laizi.tiles import TERMINALS_AND_HONORS

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

    def plans(self, table: SeatTable) -> list[Plan]:
        """七对 first: a winning seven-pairs hand is paid at the cap (6 fans, Part B), eight
        times a common win — worth it from five pairs (or four in a slow hand)."""
        counts = table.counts
        plans: list[Plan] = []
        if not table.melds and sum(counts) >= 13:
            pairs = sum(n // 2 for n in counts)
            if pairs >= 5 or (pairs >= 4 and table.live > 50):
                plans.append(Plan("qidui", _paired(counts), 0.0))
        return plans

    def special_discard(self, table: SeatTable, plan: Plan) -> int | None:
        """七对: throw a single (or the odd tile of a triplet), the one least likely to pair —
        fewest unseen copies — keeping a terminal or honor, which the hand must hold."""
        if plan.name != "qidui":
            return None
        counts = table.counts
        singles = [t for t in range(34) if counts[t] % 2 == 1]
        if not singles:
            singles = [t for t in range(34) if counts[t]]
        has_terminal_pair = any(counts[t] >= 2 for t in TERMINALS_AND_HONORS)

        def keep_value(t: int) -> tuple[int, int]:
            guard = 1 if t in TERMINALS_AND_HONORS and not has_terminal_pair else 0
            return guard, table.unseen[t]

        return min(singles, key=keep_value)

    def threat(self, table: SeatTable, other: Opponent) -> float:
        if other.declared_ready:
            return 1.0
        return super().threat(table, other) * 0.7


def _paired(counts: list[int]) -> Callable[[int], bool]:
    return lambda tile: counts[tile] >= 2
