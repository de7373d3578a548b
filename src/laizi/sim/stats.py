"""Statistics over many hands: per-seat tallies and a mean with its 95% interval."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["SeatStats", "mean_ci95"]

SMALL_WINS = frozenset({"small", "pinghu"})
"""Readings that are not big wins (Wuhan 小胡, Baishan 平胡)."""


def mean_ci95(values: Sequence[Fraction | float]) -> tuple[float, float, float]:
    """The mean and the normal-approximation 95% interval (mean ± 1.96 · s / √n)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    exact = sum((Fraction(v) for v in values), Fraction(0))
    mean = exact / n
    if n == 1:
        return float(mean), float(mean), float(mean)
    variance = sum((Fraction(v) - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * math.sqrt(float(variance) / n)
    return float(mean), float(mean) - half, float(mean) + half


@dataclass
class SeatStats:
    """What one bot (or one seat) did over many hands."""

    hands: int = 0
    points: Fraction = Fraction(0)
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    big_wins: dict[str, int] = field(default_factory=dict)

    def add(
        self, payment: Fraction, won: bool, self_draw: bool, dealt_in: bool, wins: Sequence[str]
    ) -> None:
        self.hands += 1
        self.points += payment
        if won:
            self.wins += 1
            self.self_draws += self_draw
            for name in wins:
                if name not in SMALL_WINS:
                    self.big_wins[name] = self.big_wins.get(name, 0) + 1
        self.deal_ins += dealt_in

    def merge(self, other: SeatStats) -> None:
        self.hands += other.hands
        self.points += other.points
        self.wins += other.wins
        self.self_draws += other.self_draws
        self.deal_ins += other.deal_ins
        for name, n in other.big_wins.items():
            self.big_wins[name] = self.big_wins.get(name, 0) + n

    def to_json(self) -> dict[str, Any]:
        hands = max(self.hands, 1)
        return {
            "hands": self.hands,
            "mean_points": _number(self.points / hands),
            "win_rate": self.wins / hands,
            "self_draw_rate": self.self_draws / hands,
            "deal_in_rate": self.deal_ins / hands,
            "big_wins": dict(sorted(self.big_wins.items())),
            "big_win_rate": {k: v / hands for k, v in sorted(self.big_wins.items())},
        }


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)
