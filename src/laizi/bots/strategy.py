"""Game-specific judgement for the tile-efficiency bots, one small class per game.

The greedy and strong bots ask a :class:`Strategy` every question whose answer depends on the
game's rules — which tiles are wild, which must be laid out, which waits really win, whether an
opening is needed, what a plan for a big win looks like.  :func:`strategy_for` asks the game
registry (:func:`laizi.rules.find_game`) for the room's class; a game without its own class gets
the plain mahjong answers of this base.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from laizi import hand as shapes
from laizi.bots.table import Opponent, SeatTable
from laizi.engine.actions import Action
from laizi.rules.registry import find_game, make_ruleset
from laizi.rules.ruleset import Ruleset

__all__ = ["Plan", "Strategy", "ruleset_for", "strategy_for"]


@lru_cache(maxsize=32)
def ruleset_for(rules: Any) -> Ruleset:
    """The ruleset of a room's settings, made once per settings value: what the bots ask about
    the game (:class:`~laizi.rules.ruleset.Ruleset`), never a flag."""
    return make_ruleset(rules)


class Plan:
    """A big hand the strong bot steers toward: ``keeps(kind)`` says whether a tile belongs."""

    def __init__(self, name: str, keeps: Callable[[int], bool], weight: float) -> None:
        self.name = name
        self.keeps = keeps
        self.weight = weight

    def __repr__(self) -> str:
        return f"Plan({self.name})"


class Strategy:
    """Plain mahjong answers; a game's subclass overrides what its rules change."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules

    @property
    def ruleset(self) -> Ruleset:
        """The room's ruleset (:func:`ruleset_for`)."""
        return ruleset_for(self.rules)

    # --- tiles ------------------------------------------------------------------------------
    def wild(self, table: SeatTable) -> int | None:
        """The wildcard kind for shanten questions (Wuhan's laizi), or None."""
        return None

    def kept_out(self, table: SeatTable) -> frozenset[int]:
        """Kinds never chosen as an ordinary discard (laid out instead, or kept)."""
        return frozenset()

    # --- turn decisions ---------------------------------------------------------------------
    def forced(self, table: SeatTable, legal: Sequence[Action]) -> Action | None:
        """An action to take before anything else on one's turn (Wuhan: lay out 红中 at once)."""
        return None

    def lay_out_wild(self, table: SeatTable, shanten_now: int) -> bool:
        """Lay out the wildcard now (Wuhan 癞子杠)?"""
        return False

    def declare_ready(
        self, table: SeatTable, legal: Sequence[Action], discard: int, ready: bool
    ) -> Action | None:
        """A 报听 to play instead of the plain discard of ``discard`` (Baishan), or None."""
        return None

    # --- shape ------------------------------------------------------------------------------
    def winning_kinds(self, table: SeatTable, counts: list[int]) -> list[int]:
        """For a 3n+1 hand: the kinds that would make an allowed win (the game's constraints)."""
        return shapes.waits(counts, self.wild(table))

    def shape_bonus(self, table: SeatTable, counts: list[int]) -> float:
        """A small preference among equally efficient 3n+1 hands (e.g. Wuhan's 2/5/8 pair)."""
        return 0.0

    # --- claims -----------------------------------------------------------------------------
    def wants_opening(self, table: SeatTable) -> bool:
        """Is an opening worth a claim that does not lower the shanten (Wuhan: one is needed)?"""
        return False

    def opening_cost(self, table: SeatTable) -> float:
        """How much an opening costs in the room's settlement (口口翻: every one doubles)."""
        return 0.0

    # --- the strong bot's judgement ---------------------------------------------------------
    def plans(self, table: SeatTable) -> list[Plan]:
        """Big hands worth steering toward with this hand, most promising first."""
        return []

    def win_is_big(self, table: SeatTable, counts: list[int]) -> bool:
        """Would this complete 3n+2 hand (with the table's melds) score a big hand?"""
        return False

    def liability(self, table: SeatTable, kind: int, ready: bool) -> float:
        """Extra cost of discarding ``kind`` for a contract (承包), 0 when none is at risk."""
        return 0.0

    def threat(self, table: SeatTable, other: Opponent) -> float:
        """How likely ``other`` is ready to win (0–1), from what it shows."""
        if other.declared_ready:
            return 1.0
        progress = min(1.0, table.discards_total / 60)
        return min(1.0, 0.1 + 0.15 * other.openings + 0.6 * progress)

    def special_discard(self, table: SeatTable, plan: Plan) -> int | None:
        """For a plan with a shape of its own (Baishan 七对), the discard it wants, or None."""
        return None

    def small_win_capped(self, table: SeatTable) -> bool:
        """Does any win already pay the room's cap, so that a bigger one pays no more?"""
        return False

    def pass_small_win(self, table: SeatTable) -> bool:
        """Pass a small win offered on a discard for a likely bigger one?"""
        return False


def strategy_for(rules: Any) -> Strategy:
    """The strategy for a room's settings (its ``game``, as the registry names it)."""
    try:
        cls = find_game(getattr(rules, "game", "")).strategy_class() or Strategy
    except ValueError:  # a game the registry does not know: plain mahjong
        cls = Strategy
    return cls(rules)


def all_triplets_need(counts: Sequence[int], wild: int | None) -> int:
    """Wildcards needed to make a 3n+2 hand into triplets and one pair (碰碰胡 / 飘胡 shape)."""
    need_triplet = [0, 2, 1, 0, 2]
    need_pair = [2, 1, 0, 1, 2]
    best_pair_saving = -99
    total = 0
    for kind in range(34):
        n = counts[kind]
        if not n or kind == wild:
            continue
        total += need_triplet[n]
        saving = need_triplet[n] - need_pair[n]
        if saving > best_pair_saving:
            best_pair_saving = saving
    if best_pair_saving == -99:
        return max(0, 2 - (counts[wild] if wild is not None else 0))
    return total - best_pair_saving
