"""Wuhan mahjong's judgement for the bots (RULES.md Part A).

Constraints every efficient bot must respect: a small win needs a 2/5/8 pair (A6), an opening
(A5), no must-gang tile in hand (A4 — lay them out at once), at most one laizi (A3), and a total
that reaches the room's minimum (A10) — which is why a laizi is sometimes worth more laid out
(×2 or ×4 on one's multiplier) than kept as a wildcard.  The strong bot adds what the
settlement makes worth steering for: big wins (base 10 instead of 1: 清一色, 碰碰胡, 将一色), the
cost of openings in 口口翻, and the contracts (全求人, 三句包) a careless discard pays for alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from laizi import hand as shapes
from laizi.bots.strategy import Plan, Strategy, all_triplets_need
from laizi.bots.table import Opponent, SeatTable
from laizi.engine.actions import LAY_OUT, Action
from laizi.rules.wuhan.readings import holds_must_gang
from laizi.tiles import TWO_FIVE_EIGHT, is_suited

__all__ = ["WuhanStrategy"]


class WuhanStrategy(Strategy):
    """武汉麻将: 红中癞子杠, 红中发财杠, 七皮四赖 in 开口翻 and 口口翻."""

    def wild(self, table: SeatTable) -> int | None:
        return table.laizi

    def kept_out(self, table: SeatTable) -> frozenset[int]:
        out = set(table.must_gang)
        if table.laizi is not None:
            out.add(table.laizi)
        return frozenset(out)

    # --- turn -------------------------------------------------------------------------------
    def forced(self, table: SeatTable, legal: Sequence[Action]) -> Action | None:
        """A4: a must-gang tile blocks every win and doubles the multiplier: lay it out now."""
        for action in legal:
            if action.type == LAY_OUT and action.tile in table.must_gang:
                return action
        return None

    def lay_out_wild(self, table: SeatTable, shanten_now: int) -> bool:
        """A3: two laizi forbid a small win, so a second one goes out; the last one goes out when
        even a self-drawn win could not reach the room's minimum without its factor (A10)."""
        laizi = table.laizi
        if laizi is None or not table.counts[laizi]:
            return False
        if table.counts[laizi] >= 2:
            return True
        return not self.reaches_minimum(table, extra=1)

    def reaches_minimum(self, table: SeatTable, extra: int = 1) -> bool:
        """Would a small self-drawn, soft win (×2) with today's multipliers, times ``extra``,
        reach the minimum against every loser (A10)?"""
        minimum = self.rules.min_points / self.rules.base
        if minimum <= 0:
            return True
        # A win needs an opening, which doubles the multiplier if it has not happened yet.
        mine = table.multiplier * (2 if table.openings == 0 else 1)
        weakest = min(o.multiplier for o in table.opponents)
        return weakest * mine * 2 * extra >= minimum

    # --- shape ------------------------------------------------------------------------------
    def winning_kinds(self, table: SeatTable, counts: list[int]) -> list[int]:
        """Waits that make an allowed win by shape: a 2/5/8 pair for a small win (with at most one
        laizi), any pair when every tile is of one suit (清一色) or the hand is all triplets."""
        laizi = table.laizi
        if holds_must_gang(counts, table.must_gang):
            return []
        held_wild = counts[laizi] if laizi is not None else 0
        found: set[int] = set()
        if held_wild <= 1:
            small = shapes.waits_258(counts, laizi)
            found.update(t for t in small if not (t == laizi and held_wild == 1))
        suits = self._suits(table, counts)
        any_pair: list[int] | None = None
        if len(suits) == 1 and 3 not in suits:
            any_pair = shapes.waits(counts, laizi)
            suit = next(iter(suits))
            found.update(t for t in any_pair if t // 9 == suit or t == laizi)
        if all(kind != "chow" for kind, _ in table.melds):
            for t in any_pair if any_pair is not None else shapes.waits(counts, laizi):
                trial = counts[:]
                trial[t] += 1
                if all_triplets_need(trial, laizi) <= (trial[laizi] if laizi is not None else 0):
                    found.add(t)
        return sorted(found)

    @staticmethod
    def _suits(table: SeatTable, counts: list[int]) -> set[int]:
        suits = {t // 9 for t in range(34) if counts[t] and t != table.laizi}
        suits.update(tiles[0] // 9 for _, tiles in table.melds if tiles)
        return suits

    def shape_bonus(self, table: SeatTable, counts: list[int]) -> float:
        """A6: the small win's pair is a 2, 5 or 8 — holding such a pair (or a laizi) helps."""
        if table.laizi is not None and counts[table.laizi]:
            return 0.5
        return 0.5 if any(counts[t] >= 2 for t in TWO_FIVE_EIGHT) else 0.0

    # --- claims -----------------------------------------------------------------------------
    def wants_opening(self, table: SeatTable) -> bool:
        return table.openings == 0

    def opening_cost(self, table: SeatTable) -> float:
        """口口翻 doubles one's multiplier at every opening — every loss doubles too (the
        ruleset's :meth:`~laizi.rules.ruleset.Ruleset.claim_loss_factor` after the first)."""
        if table.openings > 0 and self.ruleset.claim_loss_factor(table.openings, False) > 1.0:
            return 1.0
        return 0.0

    # --- strong judgement -------------------------------------------------------------------
    def small_win_capped(self, table: SeatTable) -> bool:
        """A9 caps: would even a small soft win on a discard already pay every loser the cap?
        Then a big hand pays no more, and a higher multiplier only raises one's losses."""
        weakest = min(o.multiplier for o in table.opponents)
        return table.multiplier * weakest * self.rules.base >= self.rules.cap

    def plans(self, table: SeatTable) -> list[Plan]:
        if self.small_win_capped(table):
            return []
        counts, laizi = table.counts, table.laizi
        plans: list[Plan] = []
        real = [t for t in range(34) if counts[t] and t != laizi and t not in table.must_gang]
        size = sum(counts[t] for t in real)
        meld_suits = {tiles[0] // 9 for _, tiles in table.melds if tiles}
        chows = any(kind == "chow" for kind, _ in table.melds)
        # 清一色: one suit dominates and the melds agree.
        for suit in range(3):
            if meld_suits - {suit}:
                continue
            inside = sum(counts[t] for t in real if t // 9 == suit)
            if size and size - inside <= 4 and inside >= 7:
                plans.append(Plan(f"qingyise-{'mps'[suit]}", _in_suit(suit), 3.0))
        # 碰碰胡: pairs and triplets, no chow.
        if not chows:
            pairs = sum(1 for t in real if counts[t] >= 2)
            pungs = sum(1 for kind, _ in table.melds if kind != "chow")
            if pairs + pungs >= 4 and (pairs + pungs >= 5 or table.openings):
                plans.append(Plan("pengpenghu", _paired(counts), 2.0))
        # 将一色: every tile a 2, 5 or 8, any shape.
        if not chows and all(t in TWO_FIVE_EIGHT for _, tiles in table.melds for t in tiles[:1]):
            inside = sum(counts[t] for t in real if t in TWO_FIVE_EIGHT)
            if size and size - inside <= 3:
                plans.append(Plan("jiangyise", lambda t: t in TWO_FIVE_EIGHT, 3.0))
        return plans

    def win_is_big(self, table: SeatTable, counts: list[int]) -> bool:
        suits = self._suits(table, counts)
        if len(suits) == 1 and 3 not in suits:
            return True
        laizi = table.laizi
        if all(kind != "chow" for kind, _ in table.melds):
            wild = counts[laizi] if laizi is not None else 0
            if all_triplets_need(counts, laizi) <= wild:
                return True
        return False

    def liability(self, table: SeatTable, kind: int, ready: bool) -> float:
        """A9 contracts: feeding a 全求人 (an opponent with four openings holds one tile) while
        not ready pays for all three losers; so does giving the third opening to a visible
        清一色 (三句包)."""
        cost = 0.0
        for other in table.opponents:
            if other.hand_size == 1 and not ready and kind in TWO_FIVE_EIGHT:
                cost += 6.0 * table.unseen[kind] / 4 + 2.0
            if other.openings == 2 and is_suited(kind):
                suits = other.meld_suits
                if len(suits) == 1 and kind // 9 in suits:
                    cost += 3.0
        return cost

    def threat(self, table: SeatTable, other: Opponent) -> float:
        """A5: nobody wins without an opening, so an unopened seat is no danger yet."""
        if other.openings == 0:
            return 0.0
        progress = min(1.0, table.discards_total / 60)
        short = 0.3 if other.hand_size <= 4 else 0.0
        return min(1.0, 0.15 + 0.15 * other.openings + 0.5 * progress + short)

    def pass_small_win(self, table: SeatTable) -> bool:
        """Pass a small win on a discard when 清一色 is one tile away and the wall is long: a
        big win pays ten times the base (A6)."""
        if table.live <= 40 or table.claim_tile is None:
            return False
        counts = table.counts[:]
        counts[table.claim_tile] += 1
        if self.win_is_big(table, counts):
            return False
        for plan in self.plans(table):
            if plan.name.startswith("qingyise"):
                off = sum(
                    counts[t]
                    for t in range(34)
                    if counts[t] and t != table.laizi and not plan.keeps(t)
                )
                return off <= 1
        return False


def _in_suit(suit: int) -> Callable[[int], bool]:
    return lambda tile: tile // 9 == suit


def _paired(counts: list[int]) -> Callable[[int], bool]:
    return lambda tile: counts[tile] >= 2
