"""Recovery after a restart: replay the stored hands, then resume the clocks."""

from __future__ import annotations

import json
from typing import Any

from laizi.engine import apply
from laizi.engine.events import encode_all
from laizi.engine.record import action_of
from laizi.engine.wall import parse_contributions
from laizi.rules import Settings
from laizi.server.room.base import Clock, Hand
from laizi.server.room.match import MatchFlow
from laizi.server.room.prompts import Prompts
from laizi.server.room.seating import Seating
from laizi.server.room.streams import Streams
from laizi.server.seats import bot_player
from laizi.server.table import TableSettings


class Recovery:
    """Rebuilding a room from the database after a restart, and starting its clocks again."""

    def __init__(
        self,
        rules: Settings,
        table: TableSettings,
        clock: Clock,
        hand: Hand,
        seating: Seating,
        streams: Streams,
        prompts: Prompts,
        flow: MatchFlow,
    ) -> None:
        self.rules = rules
        self.table = table
        self.clock = clock
        self.hand = hand
        self.seating = seating
        self.streams = streams
        self.prompts = prompts
        self.flow = flow

    def rebuild(self, hands: list[Any]) -> None:
        """Replay the stored hands (seeds and decisions) to exactly where the table was."""
        self.clock.live = False
        try:
            for row in hands:
                start = row.events[0] if row.events else {}
                state, first = self.flow.match.deal(
                    row.seed, parse_contributions(start.get("contributions"))
                )
                if _canonical(first) != _canonical(row.events[: len(first)]):
                    raise RuntimeError(f"hand {row.number}: the deal does not match the log")
                self.hand.id = row.id
                self.flow.begin_hand(state, first)
                produced = list(first)
                for event in row.events[len(first) :]:
                    action = action_of(event)
                    if action is None:
                        continue
                    events = encode_all(apply(state, action))
                    produced += events
                    self.streams.emit(events)
                if _canonical(produced) != _canonical(row.events):
                    raise RuntimeError(f"hand {row.number}: replay does not match the log")
                if state.over:
                    self.flow.after()
        finally:
            self.clock.live = True

    def resume(self) -> None:
        """After :meth:`rebuild` on a live loop: timers, bots, grace periods start again."""
        if self.flow.status != "playing":
            return
        for i, s in enumerate(self.seating.seats):
            if s.kind == "bot":
                s.bot = bot_player(self.table.bot_level, self.rules)
            elif s.kind == "human" and not s.conns:
                self.seating.start_grace(i, self.table.escape_grace_seconds)
        state = self.hand.state
        if state is None or state.over:
            self.clock.later(self.table.between_hands_ms, self.flow.deal)
        else:
            self.prompts.refresh()


def _canonical(events: list[dict[str, Any]]) -> str:
    return json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
