"""A hand's record replayed through the environment's encoding: one row per decision.

The record is checked as ``laizi verify`` checks it (the deal from the revealed seed, every event
the engine produces equal to the recorded one); at each decision the deciding seat's observation
and action mask are what :class:`laizi.env.table.EnvTable` gives that seat at that moment — the
very arrays an agent in the environment sees — and the label is the index of the recorded action.

>>> from laizi.engine import Game, make_ruleset
>>> from laizi.engine.record import action_of
>>> game = Game.deal("baishan", seed=bytes(32))
>>> while not game.over:  # the first legal action each time
...     _ = game.play(game.legal_actions(game.to_act[0])[0])
>>> rows = DecisionRows()
>>> state = replay_decisions(game.record, EnvTable(make_ruleset("baishan")), rows)
>>> rows.size == sum(action_of(e) is not None for e in game.record)
True
>>> int(rows.action[0]), game.record[2]  # index 1: discard 2m
(1, {'type': 'discard', 'seat': 0, 'tile': '2m'})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from laizi.engine.actions import ABANDON, Action
from laizi.engine.events import encode_all
from laizi.engine.illegal import why_illegal
from laizi.engine.record import RecordError, check_events, deal_record, next_decision
from laizi.engine.state import HandState
from laizi.env.encoders import Encoder, get_encoder
from laizi.env.spaces import NUM_ACTIONS
from laizi.env.table import EnvTable, action_index

__all__ = ["DecisionRows", "replay_decisions"]

RowSink = Callable[[EnvTable, int, int, int, int], None]


class DecisionRows:
    """Growable numpy columns of decision rows (observation, mask, action …); the observation
    by ``encoder`` (:mod:`laizi.env.encoders`)."""

    def __init__(self, capacity: int = 1024, encoder: str | Encoder = "v1") -> None:
        self.encoder = get_encoder(encoder)
        self.size = 0
        self.hand_start = 0
        self.obs = np.zeros((capacity, *self.encoder.shape), np.float32)
        self.mask = np.zeros((capacity, NUM_ACTIONS), np.int8)
        self.seat = np.zeros(capacity, np.int8)
        self.action = np.zeros(capacity, np.int16)
        self.legal = np.zeros(capacity, np.int16)
        self.event = np.zeros(capacity, np.int32)
        self.step = np.zeros(capacity, np.int16)

    def _grow(self) -> None:
        capacity = 2 * len(self.seat)
        for name in ("obs", "mask", "seat", "action", "legal", "event", "step"):
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), old.dtype)
            new[: self.size] = old[: self.size]
            setattr(self, name, new)

    def __call__(
        self, table: EnvTable, seat: int, action: int, event: int, legal_count: int
    ) -> None:
        """Add the row of ``seat`` deciding ``action`` now (before it is played)."""
        if self.size == len(self.seat):
            self._grow()
        i = self.size
        self.encoder.write(table, seat, self.obs[i])
        table.write_mask(seat, self.mask[i])
        self.seat[i] = seat
        self.action[i] = action
        self.legal[i] = legal_count
        self.event[i] = event
        self.step[i] = i - self.hand_start
        self.size += 1

    def begin_hand(self) -> None:
        """The rows that follow are a new hand's (``step`` counts from 0 again)."""
        self.hand_start = self.size

    def drop_hand(self) -> None:
        """Drop the rows of the hand begun last (it did not check out)."""
        self.size = self.hand_start

    def clear(self) -> None:
        self.size = self.hand_start = 0


def replay_decisions(events: list[dict[str, Any]], table: EnvTable, sink: RowSink) -> HandState:
    """Replay one hand's record on ``table``; call ``sink(table, seat, action index, event
    index, number of legal actions)`` before each decision is played.  Returns the final state.

    ``abandon`` (逃跑) is played but gives no row: it is not an agent action.  RecordError names
    the first event that does not check out (the sink may have been called for earlier ones).
    """
    state, produced = deal_record(events)
    table.load(state)
    index = len(produced)
    while not state.over:
        action = next_decision(state, events, index)
        if not 0 <= action.seat <= 3:
            raise RecordError(index, f"illegal: no seat {action.seat}")
        if action.type == ABANDON:
            new = table.abandon(action.seat)
        else:
            new = table.step(action.seat, _index(state, table, action, index, sink))
        check_events(encode_all(new), events, index)
        index += len(new)
    if index < len(events):
        raise RecordError(index, "events after the end of the hand")
    return state


def _index(state: HandState, table: EnvTable, action: Action, event: int, sink: RowSink) -> int:
    legal = table.legal(action.seat)
    try:
        index = action_index(action, state.claim_tile)
    except ValueError:
        index = -1
    if legal.get(index) != action:
        raise RecordError(event, f"illegal: {action.notation()}: {why_illegal(state, action)}")
    sink(table, action.seat, index, event, len(legal))
    return index
