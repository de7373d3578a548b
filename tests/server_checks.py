"""Checks of what the server sent against the hand records it keeps (server tests)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from laizi.engine import legal_actions, make_ruleset, seat_event
from laizi.engine.record import action_of
from laizi.engine.view import as_streamed, live_multipliers
from laizi.engine.wall import parse_contributions
from tests.engine_helpers import apply_json, deal_json


def split_hands(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A seat's stream of engine events cut into hands (each begins with ``start``)."""
    hands: list[list[dict[str, Any]]] = []
    for event in events:
        if event["type"] == "start":
            hands.append([])
        if event["type"] != "match_end":
            hands[-1].append(event)
    return hands


def stream_events(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of a client's messages in sequence order, checking the numbers run 1, 2, 3 …
    (a repeated number, after a resync, must repeat the same event).  A client that joined
    late starts after its first snapshot's number."""
    seen: dict[int, dict[str, Any]] = {}
    base = 0
    for message in messages:
        if message["type"] == "snapshot" and not seen and base == 0:
            base = message["seq"]
        if message["type"] == "event":
            seq = message["seq"]
            if seq in seen:
                assert seen[seq] == message["event"], f"event {seq} changed"
            seen[seq] = message["event"]
    assert sorted(seen) == list(range(base + 1, base + len(seen) + 1)), "a gap in the numbers"
    return [seen[i] for i in range(base + 1, base + len(seen) + 1)]


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def first_difference(got: list[str], want: list[str]) -> str:
    """Where two event lists part, for a failure's message: the index, a little context and the
    two events there (or which list ran out)."""
    at = next(
        (i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w),
        min(len(got), len(want)),
    )
    before = "\n".join(f"  = {e}" for e in got[max(0, at - 3) : at])
    return (
        f"the streams part at event {at} of {len(got)} shown / {len(want)} expected\n{before}\n"
        f"  shown:    {got[at] if at < len(got) else '(nothing)'}\n"
        f"  expected: {want[at] if at < len(want) else '(nothing)'}"
    )


def check_hand_stream(record: list[dict[str, Any]], shown: list[dict[str, Any]], seat: int | None):
    """``shown`` (what ``seat`` received of one hand) is exactly the record as that seat may see
    it, and — checked on its own, without ``seat_event`` — holds nothing hidden from the seat."""
    expected = [e for e in (seat_event(e, seat) for e in server_stream(record)) if e is not None]
    got, want = [canonical(e) for e in shown], [canonical(e) for e in expected]
    assert got == want, first_difference(got, want)
    for event in shown:
        kind = event["type"]
        assert "wall" not in event
        if kind != "end":
            assert event.get("seed") is None
            assert "hands" not in event or kind == "deal"
        if kind == "deal":
            for s, hand in enumerate(event["hands"]):
                assert (hand is not None) == (s == seat), "a deal shows another seat's hand"
        if kind in ("draw", "concealed_kong") and event["seat"] != seat:
            assert "tile" not in event, "another seat's drawn or concealed tile"
        if kind in ("claim", "pass"):
            assert event["seat"] == seat, "another seat's claim decision"


def server_stream(record: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record as the server streams it: replayed decision by decision through the engine,
    each decision's events with every seat's multipliers where they change and the live tiles
    after each draw (``laizi.engine.view.as_streamed``).

    Checks on the way that each carried value is the engine's own at that point and that the
    record itself carries none."""
    start, end = record[0], record[-1]
    state, first = deal_json(
        make_ruleset(start["rules"]),
        start["dealer"],
        seed=bytes.fromhex(end["seed"]),
        hand_number=start["hand"],
        scores=tuple(Fraction(str(x)) for x in start["scores"]),
        previous=start.get("previous"),  # the hash chain, from hand 1 on
    )
    out = as_streamed(state, first)
    for event in record[len(first) :]:
        assert "multipliers" not in event and "live" not in event, "the record carries extras"
        assert "counts" not in event and "how_won" not in event, "the record carries extras"
        action = action_of(event)
        if action is not None:
            produced = apply_json(state, action)
            shown = as_streamed(state, produced)
            for e in shown:
                if "multipliers" in e:
                    assert e["multipliers"] == live_multipliers(state)
                if "live" in e:
                    assert e["live"] == max(state.live, 0)
            out += shown
    from laizi.engine.table_data import STREAM_EXTRAS

    extras = STREAM_EXTRAS
    assert len(out) == len(record), "the record does not replay"
    assert [
        canonical({k: v for k, v in e.items() if k not in extras or k in r})
        for e, r in zip(out, record, strict=True)
    ] == [canonical(e) for e in record], "the record does not replay"
    return out


def replay_points(record: list[dict[str, Any]], seat: int) -> list[tuple[int, list[str]]]:
    """For every moment of the hand: how many events ``seat`` had been shown, and its legal
    actions then (as canonical JSON, without the seat)."""
    start, end = record[0], record[-1]
    state, _ = deal_json(
        make_ruleset(start["rules"]),
        start["dealer"],
        seed=bytes.fromhex(end["seed"]),
        contributions=parse_contributions(start.get("contributions")),
        hand_number=start["hand"],
        scores=tuple(Fraction(str(x)) for x in start["scores"]),
    )
    visible = sum(seat_event(e, seat) is not None for e in record[:2])
    points = []

    def note() -> None:
        if not state.over and seat in state.to_act():
            legal = [
                canonical({k: v for k, v in a.to_json().items() if k != "seat"})
                for a in legal_actions(state, seat)
            ]
            points.append((visible, legal))

    note()
    for event in record[2:]:
        action = action_of(event)
        if action is not None:
            for produced in apply_json(state, action):
                visible += seat_event(produced, seat) is not None
            note()
    return points


def check_prompts(
    record: list[dict[str, Any]], messages: list[dict[str, Any]], seat: int, offset: int
) -> int:
    """Every prompt of this hand offered exactly the engine's legal actions at that moment.
    ``offset`` is the seat's sequence number before the hand; returns how many were checked."""
    points = replay_points(record, seat)
    last_seq = 0
    checked = 0
    hand_len = sum(seat_event(e, seat) is not None for e in record)
    for message in messages:
        if message["type"] in ("event", "snapshot"):
            last_seq = message["seq"]
        elif message["type"] == "prompt" and offset < last_seq <= offset + hand_len:
            legal = [canonical(a) for a in message["legal"]]
            candidates = [lg for k, lg in points if k == last_seq - offset]
            assert legal in candidates, f"prompt {message['id']} offers {legal}"
            checked += 1
    return checked
