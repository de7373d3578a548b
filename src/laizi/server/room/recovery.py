"""Recovery after a restart: replay the stored hands, then resume the clocks."""

from __future__ import annotations

import json
from typing import Any

from laizi.engine import apply
from laizi.engine.record import action_of
from laizi.engine.wall import parse_contributions
from laizi.server.room.base import RoomBase
from laizi.server.seats import bot_player


class Recovery(RoomBase):
    """Rebuilding a room from the database after a restart, and starting its clocks again."""

    def rebuild(self, hands: list[Any]) -> None:
        """Replay the stored hands (seeds and decisions) to exactly where the table was."""
        self.live = False
        try:
            for row in hands:
                start = row.events[0] if row.events else {}
                state, first = self.match.deal(
                    row.seed, parse_contributions(start.get("contributions"))
                )
                if _canonical(first) != _canonical(row.events[: len(first)]):
                    raise RuntimeError(f"hand {row.number}: the deal does not match the log")
                self.hand_id = row.id
                self._begin_hand(state, first)
                produced = list(first)
                for event in row.events[len(first) :]:
                    action = action_of(event)
                    if action is None:
                        continue
                    events = apply(state, action)
                    produced += events
                    self._emit(events)
                if _canonical(produced) != _canonical(row.events):
                    raise RuntimeError(f"hand {row.number}: replay does not match the log")
                if state.over:
                    self._after()
        finally:
            self.live = True

    def resume(self) -> None:
        """After :meth:`rebuild` on a live loop: timers, bots, grace periods start again."""
        if self.status != "playing":
            return
        for i, s in enumerate(self.seats):
            if s.kind == "bot":
                s.bot = bot_player(self.table.bot_level, self.rules)
            elif s.kind == "human" and not s.conns:
                s.grace = self._later(self.table.escape_grace_seconds * 1000, self._grace_over, i)
        if self.state is None or self.state.over:
            self._later(self.table.between_hands_ms, self._deal)
        else:
            self._refresh_prompts()


def _canonical(events: list[dict[str, Any]]) -> str:
    return json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
