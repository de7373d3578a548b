"""逃跑 escape (RULES.md A9): who pays and who receives when a player leaves a game in progress."""

from __future__ import annotations

from fractions import Fraction

from laizi.rules.settings import Settings

__all__ = ["escape_payments"]


def escape_payments(settings: Settings, seat: int) -> tuple[Fraction, ...]:
    """The four payments when ``seat`` escapes: it pays ``escape_penalty`` (in the room's unit).

    The seeds do not say who receives it; RULES.md splits it equally among the other three so
    points stay zero-sum.  ``400 / 3`` stays an exact fraction.

    >>> from laizi.rules import preset
    >>> [str(p) for p in escape_payments(preset("wuhan-hongzhong-koukou"), 1)]
    ['500/3', '-500', '500/3', '500/3']
    """
    if not 0 <= seat <= 3:
        raise ValueError(f"seat must be 0–3, not {seat}")
    penalty = settings.escape_penalty * settings.base
    return tuple(-penalty if s == seat else penalty / 3 for s in range(4))
