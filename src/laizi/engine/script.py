"""Replay scripts (``laizi replay``): a hand written out by hand, played through the engine.

A script names the starting hands, the indicator, the front draws and back replacement draws,
and the decisions (INTERFACES.md).  The tiles it does not name fill the rest of the wall in id
order (see :func:`laizi.engine.wall.wall_from_parts`).  In a claim window the script lists only
the claims it wants; every other seat that could claim passes.  ``docs/engine.md`` has examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from laizi.engine.actions import ABANDON, CLAIM_TYPES, PASS, Action, ActionError
from laizi.engine.events import encode_all
from laizi.engine.game import IllegalAction, apply, legal_actions, new_hand, why_illegal
from laizi.engine.state import CLAIM, ROB, HandState
from laizi.engine.wall import WallError, wall_from_parts
from laizi.rules.registry import make_ruleset
from laizi.tiles import TileParseError, format_tile, parse_tile, parse_tiles

__all__ = [
    "ScriptError",
    "ScriptIllegal",
    "ScriptResult",
    "ScriptUnfinished",
    "legal_now",
    "run_script",
]

_KEYS = ("rules", "dealer", "hands", "indicator", "draws", "replacements", "actions")


@dataclass
class ScriptResult:
    state: HandState
    events: list[dict[str, Any]] = field(default_factory=list)


class ScriptError(ValueError):
    """Bad input (exit 1): ``field`` names the offending key."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class ScriptIllegal(ValueError):
    """An illegal action (exit 3): its 0-based ``index``, the action, why, and what was legal."""

    def __init__(
        self,
        index: int,
        action: Action,
        reason: str,
        legal: list[Action],
        result: ScriptResult | None = None,
    ) -> None:
        self.index = index
        self.result = result
        """The hand up to the illegal action: its state and the events printed before it."""
        self.action = action
        self.reason = reason
        self.legal = legal
        shown = ", ".join(a.notation() for a in legal) or "nothing"
        super().__init__(
            f"action {index} ({action.notation()}) is illegal: {reason}; legal: {shown}"
        )


class ScriptUnfinished(ValueError):
    """The script ended before the hand did (exit 1); ``seats`` were to act."""

    def __init__(self, seats: list[int], phase: str, result: ScriptResult | None = None) -> None:
        self.seats = seats
        self.phase = phase
        self.result = result
        who = " or ".join(f"seat {s}" for s in seats)
        super().__init__(
            f"actions: the script ends before the hand does: {who} was to act ({phase})"
        )


def _tiles(obj: dict[str, Any], key: str) -> list[int]:
    value = obj.get(key, [])
    if value is None:
        return []
    try:
        if isinstance(value, str):
            return parse_tiles(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return [t for v in value for t in parse_tiles(v)]
    except TileParseError as error:
        raise ScriptError(key, str(error)) from None
    raise ScriptError(key, "must be tile notation or a list of tiles")


def _setup(obj: Any) -> tuple[HandState, list[dict[str, Any]], list[Any]]:
    if not isinstance(obj, dict):
        raise ScriptError("script", "must be a JSON object")
    unknown = sorted(k for k in set(obj) - set(_KEYS) if not str(k).startswith("_"))  # _comment
    if unknown:
        raise ScriptError(unknown[0], "unknown key")
    if "rules" not in obj:
        raise ScriptError("rules", "missing")
    try:
        ruleset = make_ruleset(obj["rules"])
    except ValueError as error:
        raise ScriptError("rules", str(error)) from None
    dealer = obj.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
        raise ScriptError("dealer", "must be a seat 0–3")
    hands = obj.get("hands")
    if not isinstance(hands, list) or len(hands) != 4:
        raise ScriptError("hands", "must be four hands, index = seat")
    parsed: list[list[int]] = []
    for seat, text in enumerate(hands):
        if isinstance(text, list) and all(isinstance(t, str) for t in text):
            text = "".join(text)  # a list of tiles is accepted too
        if not isinstance(text, str):
            raise ScriptError(f"hands[{seat}]", "must be tile notation")
        try:
            tiles = parse_tiles(text)
        except TileParseError as error:
            raise ScriptError(f"hands[{seat}]", str(error)) from None
        size = 14 if seat == dealer else 13
        if len(tiles) != size:
            raise ScriptError(f"hands[{seat}]", f"has {len(tiles)} tiles, needs {size}")
        parsed.append(tiles)
    indicator: list[int] = []
    if ruleset.uses_indicator:
        text = obj.get("indicator")
        if not isinstance(text, str):
            raise ScriptError("indicator", 'missing: one tile, e.g. "5m"')
        try:
            indicator = [parse_tile(text)]
        except TileParseError as error:
            raise ScriptError("indicator", str(error)) from None
    elif obj.get("indicator") is not None:
        raise ScriptError("indicator", "this game turns no indicator")
    draws = _tiles(obj, "draws")
    replacements = _tiles(obj, "replacements")
    dealt = [parsed[(dealer + k) % 4] for k in range(4)]
    try:
        wall = wall_from_parts(dealt, indicator, draws, replacements)
    except WallError as error:
        raise ScriptError(error.field, str(error).split(": ", 1)[1]) from None
    room = len(wall) - sum(map(len, dealt)) - len(indicator)
    if len(draws) + len(replacements) > room:
        raise ScriptError("draws", f"draws and replacements name more than the {room} tiles left")
    actions = obj.get("actions")
    if not isinstance(actions, list):
        raise ScriptError("actions", "must be a list of actions")
    state, events = new_hand(ruleset, dealer, wall=wall)
    return state, encode_all(events), actions


def run_script(obj: Any, stop_after: int | None = None) -> ScriptResult:
    """Play a script.  ScriptError / ScriptUnfinished (exit 1) or ScriptIllegal (exit 3) carry
    the events produced before the failure in ``.events`` (``result`` attribute).

    With ``stop_after`` = N, play only the first N actions and return the state there (a claim
    window they opened stays open: nobody has passed yet); :func:`legal_now` says who may do
    what at that point."""
    state, events, raw = _setup(obj)
    if stop_after is not None and not 0 <= stop_after <= len(raw):
        raise ScriptError("--stop-after", f"must be 0 … {len(raw)} (the script's actions)")
    result = ScriptResult(state, events)
    actions: list[Action] = []
    for index, item in enumerate(raw):
        try:
            actions.append(Action.from_json(item))
        except ActionError as error:
            raise ScriptError(
                f"actions[{index}].{error.field}", str(error).split(": ", 1)[1]
            ) from None
    index = 0
    while not state.over:
        if stop_after is not None and index >= stop_after:
            return result
        window = state.phase in (CLAIM, ROB)
        if index < len(actions):
            action = actions[index]
            if action.type == PASS and action.seat not in state.to_act():
                index += 1  # a seat with nothing to decide "passes": nothing to do
                continue
            if window and action.type not in CLAIM_TYPES and action.type != ABANDON:
                _pass_everyone(state, result)  # the window closes; the action comes later
                continue
            try:
                result.events += encode_all(apply(state, action))
            except IllegalAction as error:
                raise _illegal(result, index, action, error.reason, error.legal) from None
            index += 1
            continue
        if window:
            _pass_everyone(state, result)
            continue
        raise ScriptUnfinished(state.to_act(), state.phase, result)
    if index < len(actions) and (stop_after is None or index < stop_after):
        action = actions[index]
        raise _illegal(result, index, action, "the hand is already over", [])
    return result


def legal_now(state: HandState) -> dict[str, Any]:
    """Who may act now and what, in the script's own notation (``{"seat", "type", …}``)::

        {"phase": "claim", "claim": {"tile": "5m", "from": 1}, "turn": 1,
         "to_act": [{"seat": 2, "legal": [{"seat": 2, "type": "pung"}, …]}]}

    In a claim (or rob) window every seat that may claim is listed; ``claim`` is the tile on the
    table (absent outside a window).  Once the hand is over ``to_act`` is empty.
    """
    out: dict[str, Any] = {"phase": state.phase, "turn": state.turn}
    if state.phase in (CLAIM, ROB) and state.claim_tile is not None:
        out["claim"] = {"tile": format_tile(state.claim_tile), "from": state.claim_from}
    seats = [] if state.over else state.to_act()
    out["to_act"] = [
        {"seat": s, "legal": [a.to_json() for a in legal_actions(state, s)]} for s in seats
    ]
    return out


def _pass_everyone(state: HandState, result: ScriptResult) -> None:
    """Seats with no action in the script pass (INTERFACES.md)."""
    for seat in state.to_act():
        if state.over or state.phase not in (CLAIM, ROB):
            break
        result.events += encode_all(apply(state, Action(seat, PASS)))


def _illegal(
    result: ScriptResult, index: int, action: Action, reason: str, legal: list[Action]
) -> ScriptIllegal:
    if not legal:
        seats = result.state.to_act()
        legal = [a for s in seats for a in legal_actions(result.state, s)]
    if not reason:
        reason = why_illegal(result.state, action)
    return ScriptIllegal(index, action, reason, legal, result)
