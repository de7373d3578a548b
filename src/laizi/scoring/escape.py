"""逃跑 escape (RULES.md A9, Part B): who pays and who receives when a player leaves a game in
progress — the room's ruleset answers (:meth:`laizi.rules.Ruleset.escape_payments`)."""

from __future__ import annotations

from fractions import Fraction

from laizi.rules.registry import make_ruleset
from laizi.rules.settings import Settings

__all__ = ["escape_payments"]


def escape_payments(settings: Settings, seat: int) -> tuple[Fraction, ...]:
    """The four payments when ``seat`` escapes: it pays ``escape_penalty`` (in the room's unit).

    >>> from laizi.rules import preset
    >>> [str(p) for p in escape_payments(preset("wuhan-hongzhong-koukou"), 1)]
    ['500/3', '-500', '500/3', '500/3']
    """
    return make_ruleset(settings).escape_payments(seat)
