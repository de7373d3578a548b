"""``Game``: one hand as an object — the state, its record so far, and the usual questions.

The functions of :mod:`laizi.engine.game` do the work; this is the obvious entry point for a
server, a bot or a notebook.

>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32), dealer=0)
>>> game.to_act, len(game.record)
([0], 2)
>>> game.play(game.legal_actions(0)[0])[0]
{'type': 'discard', 'seat': 0, 'tile': '2m'}
>>> game.view(1)["players"][0]["discards"]
['2m']
"""

from __future__ import annotations

from typing import Any

from laizi.engine.actions import Action
from laizi.engine.dealing import new_hand
from laizi.engine.events import Event, HandResult, encode_all
from laizi.engine.game import apply, legal_actions
from laizi.engine.record import to_jsonl
from laizi.engine.state import HandState
from laizi.engine.view import seat_event, view
from laizi.rules.registry import make_ruleset
from laizi.rules.ruleset import Ruleset

__all__ = ["Game"]


class Game:
    """A hand in play and every event it produced (its record)."""

    def __init__(self, state: HandState, record: list[Event]) -> None:
        self.state = state
        self.record = record

    @classmethod
    def deal(
        cls,
        rules: Ruleset | Any,
        *,
        seed: bytes | None = None,
        wall: tuple[int, ...] | None = None,
        dealer: int = 0,
    ) -> Game:
        """Deal from a seed (or a whole wall); ``rules`` is a ruleset, a preset name, settings
        or a ``{"preset": …}`` object."""
        ruleset = rules if isinstance(rules, Ruleset) else make_ruleset(rules)
        state, events = new_hand(ruleset, dealer, seed=seed, wall=wall)
        return cls(state, encode_all(events))

    def __repr__(self) -> str:
        return f"Game({self.state!r}, {len(self.record)} events)"

    @property
    def to_act(self) -> list[int]:
        return self.state.to_act()

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def result(self) -> HandResult | None:
        return self.state.result

    def legal_actions(self, seat: int) -> list[Action]:
        return legal_actions(self.state, seat)

    def play(self, action: Action) -> list[Event]:
        """Apply a legal action (``IllegalAction`` otherwise); the events join the record."""
        events = encode_all(apply(self.state, action))
        self.record += events
        return events

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return view(self.state, seat)

    def events_for(self, seat: int | None = None) -> list[Event]:
        """The record as ``seat`` (None: a spectator) may see it."""
        return [e for e in (seat_event(e, seat) for e in self.record) if e is not None]

    def jsonl(self) -> str:
        """The record as JSON Lines."""
        return to_jsonl(self.record)
