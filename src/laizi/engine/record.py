"""Hand records: JSON Lines, one event per line, and checking them (``laizi verify``).

A record is every event of a hand in order: ``start`` (rules, dealer, running totals, the
commitment ``sha256(seed)`` and, at a table with people, the players' ``contributions``),
``deal``, then every decision and its consequences (draws happen by themselves), and ``end``
(winner, payments, the settlement, and the seed revealed).  The
decisions are the events ``discard`` (with ``"declare_ready": true`` for 报听), ``lay_out``,
``concealed_kong``, ``added_kong``, ``claim``,
``pass``, ``abandon`` and a self-drawn ``win``; everything else follows from them and the wall.
So a record replays: re-derive the wall from the revealed seed (hashed with the contributions
when there are any, :func:`laizi.engine.wall.combined_seed`), feed the decisions to the
engine, and every event must come out identical.  ``docs/engine.md`` has the full format.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi import jsonsafe
from laizi.engine.actions import (
    ABANDON,
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DECLARE_READY,
    DISCARD,
    LAY_OUT,
    PASS,
    WIN,
    Action,
    ActionError,
)
from laizi.engine.events import encode, encode_all, hand_digest
from laizi.engine.game import IllegalAction, apply, new_hand, number
from laizi.engine.illegal import why_illegal
from laizi.engine.state import HandState
from laizi.engine.wall import WallError, commitment, parse_contributions, parse_seed
from laizi.rules.registry import make_ruleset
from laizi.tiles import TileParseError, parse_tiles

__all__ = [
    "RecordError",
    "Verdict",
    "action_of",
    "check_events",
    "deal_record",
    "dumps_event",
    "next_decision",
    "parse_record",
    "replay_record",
    "to_jsonl",
    "verify",
]

_TILE_DECISIONS = (DISCARD, LAY_OUT, CONCEALED_KONG, ADDED_KONG)


class RecordError(ValueError):
    """A record that does not check out; ``index`` is the 0-based index of the first bad event."""

    def __init__(self, index: int, message: str, message_zh: str | None = None) -> None:
        self.index = index
        self.message_zh = message_zh
        """The message in Chinese where the engine words it itself (an illegal action)."""
        super().__init__(f"event {index}: {message}")


def dumps_event(event: dict[str, Any]) -> str:
    """One record line: compact JSON, Chinese kept readable."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def to_jsonl(events: list[dict[str, Any]]) -> str:
    return "".join(dumps_event(e) + "\n" for e in events)


def parse_record(text: str) -> list[dict[str, Any]]:
    """The events of a JSON Lines record; blank lines are skipped.  RecordError on bad JSON."""
    events: list[dict[str, Any]] = []
    for line_number, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            event = jsonsafe.loads(line)
        except jsonsafe.JSONInputError as error:
            message = f"line {line_number + 1} is not JSON: {error}"
            raise RecordError(len(events), message) from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise RecordError(len(events), f"line {line_number + 1} is not an event object")
        events.append(event)
    return events


def action_of(event: dict[str, Any]) -> Action | None:
    """The decision an event records, or None when the event is a consequence."""
    kind = event.get("type")
    seat = event.get("seat")
    if kind == DISCARD and event.get("declare_ready") is True:
        return Action.from_json({"seat": seat, "type": DECLARE_READY, "tile": event.get("tile")})
    if kind in _TILE_DECISIONS:
        return Action.from_json({"seat": seat, "type": kind, "tile": event.get("tile")})
    if kind == "claim":
        obj = {"seat": seat, "type": event.get("claim")}
        if event.get("claim") == CHOW:
            obj["tiles"] = event.get("tiles")
        return Action.from_json(obj)
    if kind in (PASS, ABANDON):
        return Action.from_json({"seat": seat, "type": kind})
    if kind == WIN and event.get("how") == "self_draw":
        return Action.from_json({"seat": seat, "type": WIN})
    return None


def _canonical(event: dict[str, Any] | list[Any]) -> str:
    """Compare events as JSON text, so that ``true`` is not ``1`` and ``1.0`` is not ``1``."""
    return json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def replay_record(events: list[dict[str, Any]]) -> tuple[HandState, list[dict[str, Any]]]:
    """Replay one hand's record; return the final state and the events the engine produced.

    Raises RecordError at the first event that does not match what the engine produces.
    """
    state, produced = deal_record(events)
    index = len(produced)
    while not state.over:
        action = next_decision(state, events, index)
        try:
            new = encode_all(apply(state, action))
        except IllegalAction as error:
            legal = "、".join(a.notation() for a in error.legal) or "无"
            zh = (
                f"非法动作：{error.action.notation()} 不合法：{why_illegal(state, action, 'zh')}；"
                f"合法的动作：{legal}"
            )
            raise RecordError(index, f"illegal: {error}", zh) from None
        check_events(new, events, index)
        produced += new
        index += len(new)
    if index < len(events):
        raise RecordError(index, "events after the end of the hand")
    return state, produced


def next_decision(state: HandState, events: list[dict[str, Any]], index: int) -> Action:
    """The decision recorded at ``events[index]``, while ``state`` waits for one.

    Raises RecordError when the record ends there or holds no decision there.
    """
    if index >= len(events):
        raise RecordError(
            index, f"the record ends before the hand does (seats to act: {state.to_act()})"
        )
    event = events[index]
    try:
        action = action_of(event)
    except ActionError as error:
        raise RecordError(index, f"unreadable decision: {error}") from None
    if action is None:
        raise RecordError(
            index,
            f"expected a decision of seat(s) {state.to_act()}, found {event.get('type')!r}",
        )
    return action


def deal_record(events: list[dict[str, Any]]) -> tuple[HandState, list[dict[str, Any]]]:
    """Deal the hand a record starts: the state before its first decision, and the events the
    engine produced for the deal (checked against the record's first events).

    The wall comes from the revealed seed (checked against the commitment, hashed with the
    players' contributions when ``start`` lists them) or from the ``wall`` a scripted record
    lists.  Raises RecordError naming the first event that does not check out.
    """
    if not events:
        raise RecordError(0, "the record is empty")
    start = events[0]
    if start.get("type") != "start":
        raise RecordError(0, "a record starts with a start event")
    rules = start.get("rules")
    if not isinstance(rules, str | dict):
        raise RecordError(0, "rules must be a preset name or a rules object")
    try:
        ruleset = make_ruleset(rules)
    except ValueError as error:
        raise RecordError(0, f"rules: {error}") from None
    dealer = start.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
        raise RecordError(0, "dealer must be a seat 0–3")
    hand_number = start.get("hand", 0)
    scores = start.get("scores", [0, 0, 0, 0])
    try:
        totals = tuple(Fraction(str(x)) for x in scores)
    except (TypeError, ValueError):
        raise RecordError(0, "scores must be four numbers") from None
    if len(totals) != 4 or any(isinstance(x, bool) for x in scores):
        raise RecordError(0, "scores must be four numbers")
    if isinstance(hand_number, bool) or not isinstance(hand_number, int):
        raise RecordError(0, "hand must be a number")
    if hand_number < 0:
        raise RecordError(0, f"hand {hand_number}: hands are numbered from 0")
    if not _zero_sum(totals):
        raise RecordError(0, f"the running totals {_numbers(totals)} do not sum to 0")
    if hand_number == 0 and any(totals):
        raise RecordError(0, f"hand 0 starts from totals {_numbers(totals)}, not from 0")
    previous = start.get("previous")
    if hand_number == 0 and "previous" in start:
        raise RecordError(0, "hand 0 has no previous hand to link to")
    if hand_number > 0 and not _is_digest(previous):
        raise RecordError(
            0, f"hand {hand_number} does not link to hand {hand_number - 1} (previous)"
        )
    promised = start.get("commitment")
    try:
        if promised is not None:
            end = events[-1]
            seed_text = end.get("seed") if end.get("type") == "end" else None
            if not isinstance(seed_text, str):
                raise RecordError(len(events) - 1, "the hand's last event must reveal the seed")
            seed = parse_seed(seed_text)
            if commitment(seed) != promised:
                raise RecordError(
                    len(events) - 1, "the revealed seed does not match the commitment"
                )
            try:
                contributions = parse_contributions(start.get("contributions"))
            except WallError as error:
                raise RecordError(0, str(error)) from None
            state, produced = new_hand(
                ruleset,
                dealer,
                seed=seed,
                hand_number=hand_number,
                scores=totals,
                contributions=contributions,
                previous=previous,
            )
            if contributions is not None and len(events) > 1:
                recorded, dealt = events[1], encode(produced[1])
                if _canonical(recorded) != _canonical(dealt):
                    raise RecordError(
                        1,
                        "the deal is not the wall of sha256(seed, contributions): a contribution"
                        " or the deal was changed",
                    )
        else:
            wall_text = start.get("wall")
            if not isinstance(wall_text, str):
                raise RecordError(0, "a record without a commitment must list its wall")
            wall = tuple(parse_tiles(wall_text))
            if sorted(wall) != [t for t in range(34) for _ in range(4)]:
                raise RecordError(0, "the wall is not the 136 tiles")
            state, produced = new_hand(
                ruleset,
                dealer,
                wall=wall,
                hand_number=hand_number,
                scores=totals,
                previous=previous,
            )
    except (WallError, TileParseError) as error:
        raise RecordError(0, str(error)) from None
    encoded = encode_all(produced)
    check_events(encoded, events, 0)
    return state, encoded


def _numbers(totals: tuple[Fraction, ...]) -> str:
    return "[" + ", ".join(str(number(x)) for x in totals) + "]"


def _zero_sum(totals: tuple[Fraction, ...]) -> bool:
    """The totals sum to 0 — exactly, or as nearly as decimals can when a total has none (400/3
    is recorded as 133.33333333333334; ``end`` gives such payments exactly, ``start`` does not)."""
    error: Fraction = abs(sum(totals, Fraction(0)))
    largest: Fraction = max(abs(x) for x in totals)
    return error == 0 or error <= 4 * largest * Fraction(1, 2**52)


def _is_digest(value: Any) -> bool:
    """64 lower-case hex digits: a :func:`~laizi.engine.events.hand_digest`."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def check_events(produced: list[dict[str, Any]], events: list[dict[str, Any]], offset: int) -> None:
    """Every event the engine ``produced`` must be the recorded one at ``offset`` on, as JSON
    text (so ``true`` is not ``1``); RecordError names the first that is not."""
    for k, event in enumerate(produced):
        index = offset + k
        if index >= len(events):
            raise RecordError(index, f"missing: the engine produced {dumps_event(event)}")
        if _canonical(event) != _canonical(events[index]):
            raise RecordError(
                index, f"recorded {dumps_event(events[index])}, replay gives {dumps_event(event)}"
            )


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`verify`.  :attr:`status` says what was proved."""

    ok: bool
    """Nothing in the record contradicts itself: every hand replays, and the hands make one match
    (the same rules, the hash chain, numbers in a row, totals carried exactly).  Proof that the
    walls were not chosen needs a commitment on every hand too (:attr:`status`)."""
    hands: int
    message: str
    index: int | None = None
    message_zh: str | None = None
    """``message`` in Chinese when the engine words it itself (an illegal action)."""
    results: tuple[dict[str, Any], ...] = ()
    """Each hand that checked out: ``hand`` (its number), ``reason``, ``winner``, ``escaped``,
    ``payments`` (exact) and ``committed``, for a caller that words the verdict itself."""
    uncommitted: tuple[int, ...] = ()
    """The numbers of the hands without a commitment: each lists its wall instead of revealing
    a seed committed to before the deal, so whoever wrote the record may have chosen it."""
    first: int = 0
    """The record's first hand's number.  When it is not 0 the record is part of a match: the
    totals it starts from and its ``previous`` link are read, not checked (the whole match's
    record checks them)."""

    @property
    def status(self) -> str:
        """``verified`` (every hand committed and everything checked), ``unverifiable`` (it
        replays, but a hand has no commitment) or ``failed``."""
        if not self.ok:
            return "failed"
        return "unverifiable" if self.uncommitted else "verified"


def verify(events: list[dict[str, Any]]) -> Verdict:
    """Check a record of one or more hands (a match: each hand begins with ``start``).

    Each hand: the commitment against the revealed seed, the wall re-derived from it (and from
    the players' contributions, when the ``start`` event lists them), every event replayed to
    the same result, a number from 0 and running totals that sum to 0 (all 0 at hand 0).
    Across hands: the same rules, the hash chain (each hand's ``previous`` is the
    :func:`~laizi.engine.events.hand_digest` of the hand before it), numbers in a row, the
    running totals carried on exactly, the dealer by the ruleset's dealer rule, nothing after
    an escape.  A hand without a commitment can replay but proves nothing about its wall: it is
    listed in :attr:`Verdict.uncommitted`.
    """
    if not events:
        return Verdict(False, 0, "event 0: the record is empty", 0)
    starts = [i for i, e in enumerate(events) if e.get("type") == "start"]
    if not starts or starts[0] != 0:
        return Verdict(False, 0, "event 0: a record starts with a start event", 0)
    bounds = [*starts, len(events)]
    totals: tuple[Fraction, ...] = ()
    previous: HandState | None = None
    link = ""
    rules = ""
    summary = []
    results: list[dict[str, Any]] = []
    uncommitted: list[int] = []
    for hand_index, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        hand = events[lo:hi]
        try:
            state, _ = replay_record(hand)
        except RecordError as error:
            index = lo + error.index
            message = str(error).split(": ", 1)[1]
            zh = None if error.message_zh is None else f"event {index}: {error.message_zh}"
            return Verdict(False, hand_index, f"event {index}: {message}", index, zh)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
            # A field of an unexpected type somewhere in the hand: the record does not check out.
            return Verdict(False, hand_index, f"event {lo}: unreadable hand: {error}", lo)
        these_rules = _canonical([hand[0].get("game"), hand[0].get("rules")])
        if previous is not None:
            problem = _does_not_follow(previous, state, totals, rules != these_rules)
            if problem is None and hand[0].get("previous") != link:
                problem = (
                    f"the hash chain is broken: hand {state.hand_number}'s previous is not the"
                    f" digest of hand {previous.hand_number}'s record ({link})"
                )
            if problem:
                return Verdict(False, hand_index, f"event {lo}: {problem}", lo)
        previous, link, rules = state, hand_digest(hand), these_rules
        assert state.result is not None
        payments = state.result["payments"]
        totals = tuple(a + b for a, b in zip(state.scores, payments, strict=True))
        winner = state.result["winner"]
        committed = state.commitment is not None
        if not committed:
            uncommitted.append(state.hand_number)
        results.append(
            {
                "hand": state.hand_number,
                "reason": state.result["reason"],
                "winner": winner,
                "escaped": state.result.get("escaped"),
                "payments": tuple(payments),
                "committed": committed,
            }
        )
        summary.append(
            f"hand {state.hand_number}: {state.result['reason']}"
            + ("" if winner is None else f" by seat {winner}")
        )
    message = "; ".join(summary)
    if uncommitted:
        numbers = ", ".join(str(n) for n in uncommitted)
        message = (
            f"no commitment for hand(s) {numbers}: the wall is listed, not derived from a seed"
            f" committed to before the deal, so it may have been chosen; {message}"
        )
    return Verdict(
        True,
        len(starts),
        message,
        results=tuple(results),
        uncommitted=tuple(uncommitted),
        first=results[0]["hand"],
    )


def _does_not_follow(
    previous: HandState, state: HandState, totals: tuple[Fraction, ...], other_rules: bool
) -> str | None:
    """Why ``state`` can't be the hand after ``previous`` in one match, or None."""
    result = previous.result
    assert result is not None
    if result["reason"] == "abandon":
        return "a hand after an escape: the match ended there"
    if state.hand_number != previous.hand_number + 1:
        return f"hand {state.hand_number} follows hand {previous.hand_number}"
    if other_rules:
        return (
            f"hand {state.hand_number} is played under other rules than hand {previous.hand_number}"
        )
    if [number(x) for x in state.scores] != [number(x) for x in totals]:
        return (
            f"running totals do not carry on: hand {state.hand_number} starts from"
            f" {_numbers(state.scores)}, hand {previous.hand_number} ended at {_numbers(totals)}"
        )
    dealer = previous.ruleset.next_dealer(previous.dealer, result["winner"])
    if state.dealer != dealer:
        return f"the dealer should be seat {dealer} (RULES A9), not seat {state.dealer}"
    return None
