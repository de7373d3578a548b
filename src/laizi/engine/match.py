"""Matches: hands in a row with the dealer rule, running totals, and escapes (RULES A9).

The match never draws seeds itself: the caller (server, CLI) passes a fresh ``secrets`` seed
for every hand.  It keeps the hash chain: every hand after the first lists the previous hand's
:func:`~laizi.engine.events.hand_digest` as ``previous`` in its ``start`` event, so
:meth:`Match.finish` takes the finished hand's whole record.

>>> from laizi.engine import make_ruleset
>>> m = Match(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0)
>>> state, events = m.deal(bytes(32))
>>> events[0]["type"], events[0]["dealer"]
('start', 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from laizi.engine.events import encode_all, hand_digest
from laizi.engine.game import new_hand
from laizi.engine.state import HandState
from laizi.rules.ruleset import Ruleset

__all__ = ["Match"]


@dataclass
class Match:
    """A sequence of hands at one table.  ``totals`` are zero-sum, escape penalties included."""

    ruleset: Ruleset
    dealer: int = 0
    totals: list[Fraction] = field(default_factory=lambda: [Fraction(0)] * 4)
    hands_played: int = 0
    over: bool = False
    """True once a player has escaped (逃跑): the match ends there."""
    escaped: int | None = None
    current: HandState | None = None
    previous: str | None = None
    """The last finished hand's :func:`~laizi.engine.events.hand_digest` (None before the first
    is booked): the next ``start`` event's ``previous``."""

    def deal(
        self, seed: bytes, contributions: Sequence[bytes | None] | None = None
    ) -> tuple[HandState, list[dict[str, Any]]]:
        """Start the next hand from ``seed`` (and the players' ``contributions``, if any: see
        :func:`laizi.engine.wall.combined_seed`); play it with ``laizi.engine.apply``, then call
        :meth:`finish`."""
        if self.over:
            raise ValueError("the match is over")
        if self.current is not None:
            if not self.current.over:
                raise ValueError("the current hand is still being played")
            raise ValueError("book the finished hand with finish() first")
        state, events = new_hand(
            self.ruleset,
            self.dealer,
            seed=seed,
            hand_number=self.hands_played,
            scores=tuple(self.totals),
            contributions=contributions,
            previous=self.previous,
        )
        self.current = state
        return state, encode_all(events)

    def finish(self, events: list[dict[str, Any]]) -> None:
        """Book the finished hand, given its whole record (``events``, from ``start`` to
        ``end``): totals, the next dealer (A9), the hash chain's next link; an escape ends the
        match."""
        state = self.current
        if state is None or state.result is None:
            raise ValueError("no finished hand to book")
        if not events or events[0].get("type") != "start" or events[-1].get("type") != "end":
            raise ValueError("finish() takes the hand's whole record, start to end")
        if events[0].get("hand") != state.hand_number:
            raise ValueError("finish() takes the record of the hand being played")
        self.previous = hand_digest(events)
        result = state.result
        for seat, amount in enumerate(result["payments"]):
            self.totals[seat] += amount
        self.hands_played += 1
        self.current = None
        if result["reason"] == "abandon":
            self.over = True
            self.escaped = result["escaped"]
            return
        self.dealer = self.ruleset.next_dealer(state.dealer, result["winner"])
