"""A finished hand's record as replay frames: after every step, the public view and every hand.

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> while not game.over:
...     _ = game.play(game.legal_actions(game.to_act[0])[0])
>>> steps = frames(game.record)
>>> steps[0]["events"][0]["type"], steps[0]["hands"][0], steps[-1]["events"][-1]["type"]
('deal', '244569m16p47s1557z', 'end')
>>> all(game.record[s["first"]] == s["events"][0] for s in steps[1:])
True
>>> len(steps) == 1 + sum(1 for e in game.record if e["type"] in ("discard", "lay_out",
...     "concealed_kong", "added_kong", "claim", "pass", "abandon") or e.get("how") == "self_draw")
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from laizi.engine import (
    RecordError,
    apply,
    legal_actions,
    make_ruleset,
    new_hand,
    parse_seed,
    replay_record,
    view,
)
from laizi.engine.events import encode_all
from laizi.engine.record import action_of
from laizi.engine.wall import parse_contributions
from laizi.tiles import format_tiles, parse_tiles

__all__ = ["frames"]


def frames(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One frame per step of the hand (the deal, then each decision with what followed it).

    Each frame: ``events`` (what happened in this step, as recorded), ``first`` (the index in the
    record of the step's first event: a bot's note, ``laizi.server.bot_notes``, names its step
    so), ``view`` (the spectator's view after it, multipliers included, a concealed kong's
    tiles shown as every hand is), ``hands`` (every
    seat's concealed tiles, open), ``actor`` (the seat whose decision the step is; None for the
    deal) and ``legal`` (how many actions it had to choose from: a step with ``legal`` 1 was
    forced — the record viewer's "next decision" skips it).
    :class:`laizi.engine.RecordError` if the record does not replay.
    """
    replay_record(events)  # checks the whole record first: a bad one is refused, not half shown
    start = events[0]
    scores = tuple(Fraction(str(x)) for x in start.get("scores", [0, 0, 0, 0]))
    ruleset = make_ruleset(start["rules"])
    if start.get("commitment") is not None:
        seed = parse_seed(events[-1]["seed"])
        state, first = new_hand(
            ruleset,
            start["dealer"],
            seed=seed,
            hand_number=start.get("hand", 0),
            scores=scores,
            contributions=parse_contributions(start.get("contributions")),
            previous=start.get("previous"),
        )
    else:
        wall = tuple(parse_tiles(start["wall"]))
        state, first = new_hand(
            ruleset,
            start["dealer"],
            wall=wall,
            hand_number=start.get("hand", 0),
            scores=scores,
            previous=start.get("previous"),
        )

    def frame(
        step: list[dict[str, Any]], first: int, actor: int | None = None, legal: int | None = None
    ) -> dict[str, Any]:
        shown = [e for e in step if e.get("type") != "start"]
        public = view(state)
        for seen, player in zip(public["players"], state.players, strict=True):
            for meld, held in zip(seen["melds"], player.melds, strict=True):
                meld["tiles"] = meld["tiles"] or held.to_json()["tiles"]  # every hand open: 暗杠
        return {
            "actor": actor,
            "legal": legal,
            "events": [{k: v for k, v in e.items() if k != "wall"} for e in shown],
            "first": first,
            "view": public,
            "hands": [format_tiles(p.concealed()) for p in state.players],
            "drawn": None if state.drawn is None else format_tiles([state.drawn]),
        }

    out = [frame(encode_all(first), 0)]
    index = len(first)
    while not state.over and index < len(events):
        action = action_of(events[index])
        if action is None:  # pragma: no cover - replay_record accepted the record
            raise RecordError(index, "expected a decision")
        choices = len(legal_actions(state, action.seat))  # abandon is always there, not listed
        step = encode_all(apply(state, action))
        out.append(frame(step, index, action.seat, choices))
        index += len(step)
    return out
