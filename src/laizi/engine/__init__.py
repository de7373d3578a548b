"""The game engine: a pure, deterministic, event-sourced state machine.

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-qipi-koukou", seed=bytes(32))
>>> game.over, game.to_act
(False, [0])

The same with the functions underneath:

>>> from laizi.engine import make_ruleset, new_hand, legal_actions, apply, view
>>> state, events = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0, seed=bytes(32))
>>> [type(e).__name__ for e in events]
['Start', 'Deal']
>>> action = legal_actions(state, 0)[0]
>>> apply(state, action)[0]
Discard(seat=0, tile='2m', declare_ready=False, lay_out=False)

No I/O, no clock, no randomness: walls come from seeds (:mod:`laizi.engine.wall`), rules from a
:class:`~laizi.rules.Ruleset` (one per game, found through :func:`laizi.rules.make_ruleset`),
and every step returns typed events (:mod:`laizi.engine.events`; ``encode`` gives the line a
record keeps, :mod:`laizi.engine.record`).
``docs/engine.md`` documents the whole thing.
"""

from laizi.engine.actions import Action, ActionError
from laizi.engine.game import IllegalAction, apply, legal_actions, new_hand, why_illegal
from laizi.engine.match import Match
from laizi.engine.playout import play_out
from laizi.engine.record import RecordError, Verdict, parse_record, replay_record, to_jsonl, verify
from laizi.engine.state import HandState, PlayerState
from laizi.engine.table import Game
from laizi.engine.view import seat_event, seat_view, view
from laizi.engine.wall import commitment, parse_seed, wall_from_parts, wall_from_seed
from laizi.rules import Meld, Ruleset, SpecialTiles, WinOffer, make_ruleset

__all__ = [
    "Action",
    "ActionError",
    "Game",
    "HandState",
    "IllegalAction",
    "Match",
    "Meld",
    "PlayerState",
    "RecordError",
    "Ruleset",
    "SpecialTiles",
    "Verdict",
    "WinOffer",
    "apply",
    "commitment",
    "legal_actions",
    "make_ruleset",
    "new_hand",
    "parse_record",
    "parse_seed",
    "play_out",
    "replay_record",
    "seat_event",
    "seat_view",
    "to_jsonl",
    "verify",
    "view",
    "wall_from_parts",
    "wall_from_seed",
    "why_illegal",
]
