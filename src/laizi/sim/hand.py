"""Playing one hand with four bots, and what a hand's outcome says about each seat.

Each bot is asked only with its own seat's view (:func:`laizi.engine.view`) and its legal
actions.  Seeds for walls and bots come from one run seed by SHA-256, so any hand can be replayed
on its own, in any process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import msgspec

from laizi.bots.base import Bot
from laizi.engine import apply, legal_actions, new_hand, seat_view, view
from laizi.engine.events import AnyEvent, End, encode, encode_all
from laizi.rules.ruleset import Ruleset

__all__ = ["HandOutcome", "derive_seed", "play_hand", "wall_seed"]


def wall_seed(run_seed: int, index: int) -> bytes:
    """The 256-bit wall seed of hand (or wall) ``index`` of a run."""
    return hashlib.sha256(f"laizi-sim:{run_seed}:wall:{index}".encode()).digest()


def derive_seed(run_seed: int, *parts: int) -> int:
    """A 64-bit bot seed for one seat of one hand of a run."""
    text = ":".join(str(p) for p in (run_seed, *parts))
    return int.from_bytes(hashlib.sha256(f"laizi-sim:{text}".encode()).digest()[:8], "big")


@dataclass(slots=True)
class HandOutcome:
    """One finished hand: payments (exact), the winner, how, who dealt in, the wins scored."""

    payments: tuple[Fraction, ...]
    winner: int | None
    how: str | None
    dealt_in: int | None
    wins: tuple[str, ...] = field(default_factory=tuple)
    decisions: int = 0
    events: list[dict[str, Any]] | None = None
    """The hand's record (every event, as ``laizi verify`` reads it) when asked for."""


def play_hand(
    ruleset: Ruleset,
    bots: Sequence[Bot],
    dealer: int,
    seed: bytes,
    max_steps: int = 5000,
    *,
    record: bool = False,
    reveal_seed: bool = True,
) -> HandOutcome:
    """Play one hand to its end: each seat's bot decides from that seat's view alone.

    ``record``: keep every event in ``events`` (the hand's record; its seed is revealed at the
    end, so ``laizi verify`` checks it).  ``reveal_seed=False``: the ``end`` event the bots are
    told has ``"seed": null`` (the wall is played again: the arena's duplicate set); the record
    keeps the seed.
    """
    state, first = new_hand(ruleset, dealer, seed=seed)
    events = encode_all(first) if record else None
    # Bots that follow the hand's events (cmd: bots) get each one as their seat may see it.
    observers = [(s, bot.observe) for s, bot in enumerate(bots) if hasattr(bot, "observe")]
    _tell(observers, first)
    steps = 0
    while not state.over:
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        action = bots[seat].act(view(state, seat), legal)
        if action not in legal:
            raise ValueError(f"bot {bots[seat]!r} chose an illegal action {action!r}")
        produced = apply(state, action, check=False)
        if observers:
            _tell(observers, produced if reveal_seed else _without_seed(produced))
        if events is not None:
            events += encode_all(produced)
        steps += 1
        if steps > max_steps:  # pragma: no cover - the engine always ends a hand
            raise RuntimeError("hand did not end")
    result = state.result
    assert result is not None
    how = result["how"]
    dealt_in = state.claim_from if how in ("discard", "rob_kong") else None
    settlement: Any = result["settlement"]
    wins = tuple(settlement.wins) if settlement is not None else ()
    return HandOutcome(
        tuple(result["payments"]), result["winner"], how, dealt_in, wins, steps, events
    )


def _without_seed(events: Sequence[AnyEvent]) -> Sequence[AnyEvent]:
    """The events with the ``end`` event's seed left out (``null``)."""
    if not any(isinstance(event, End) for event in events):
        return events
    return [msgspec.structs.replace(e, seed=None) if isinstance(e, End) else e for e in events]


def _tell(observers: Sequence[tuple[int, Any]], events: Sequence[AnyEvent]) -> None:
    """Each observing bot gets the events as its seat may see them, as JSON objects."""
    for seat, observe in observers:
        shown = [encode(e) for e in (seat_view(event, seat) for event in events) if e is not None]
        if shown:
            observe(seat, shown)
