"""Whether a duplicate-play comparison is decided, and how many walls would decide it.

The arena's figure of merit is a mean over walls with a normal-approximation 95% interval
(``mean ± 1.96 · s / √n``).  The comparison is *decided* when that interval excludes zero.  When
it does not, the walls likely needed follow from the observed spread and mean: the interval's
half-width shrinks as ``1/√n``, so it clears zero once ``n ≥ (1.96 · s / |mean|)²``.  That is an
estimate from a noisy mean — a true difference smaller than the observed one needs more.

>>> walls_needed(mean=5.0, stdev=100.0, walls=100)
1537
>>> walls_needed(mean=0.0, stdev=100.0, walls=100) is None
True
>>> decided(-3.0, -1.0)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["Z95", "decided", "spread", "walls_needed"]

Z95 = 1.96


def decided(low: float, high: float, walls: int | None = None) -> bool:
    """Does the 95% interval ``[low, high]`` exclude zero?  Never over fewer than two ``walls``:
    one wall's interval is its own value, which says nothing about the spread.

    >>> decided(8.0, 8.0, walls=1)
    False
    """
    if walls is not None and walls < 2:
        return False
    return low > 0 or high < 0


def spread(values: Sequence[Fraction | float]) -> float:
    """The sample standard deviation (0 for fewer than two values)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum((Fraction(v) for v in values), Fraction(0)) / n
    variance = sum((Fraction(v) - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(float(variance))


def walls_needed(mean: float, stdev: float, walls: int) -> int | None:
    """Walls for the interval to exclude zero if the mean and spread stay as observed; ``None``
    when nothing can be said (a zero mean, or fewer than two walls)."""
    if walls < 2 or mean == 0:
        return None
    if stdev == 0:
        return walls
    return max(2, math.ceil((Z95 * stdev / abs(mean)) ** 2))
