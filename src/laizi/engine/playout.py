"""Playing a hand to its end with a chooser (used by ``laizi deal``, benchmarks and tests).

The engine draws no randomness: the caller passes ``choose`` — e.g. ``random.Random(x).choice``
for uniformly random legal actions.  At a claim window the lowest seat still to decide acts first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from laizi.engine.actions import Action
from laizi.engine.events import encode_all
from laizi.engine.game import apply, legal_actions
from laizi.engine.state import HandState

__all__ = ["play_out"]


def play_out(
    state: HandState, choose: Callable[[Sequence[Action]], Action]
) -> list[dict[str, Any]]:
    """Play until the hand ends, ``choose`` picking among the legal actions; return the events."""
    events: list[dict[str, Any]] = []
    while not state.over:
        seat = state.to_act()[0]
        events += encode_all(apply(state, choose(legal_actions(state, seat)), check=False))
    return events
