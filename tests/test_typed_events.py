"""Typed events (issue 25, item 5): one msgspec definition per event kind, which the engine
builds every event through and every reader decodes with, byte for byte the JSON of before."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mypy import api as mypy_api

from laizi.engine import (
    Action,
    Game,
    Match,
    apply,
    legal_actions,
    make_ruleset,
    new_hand,
    seat_event,
    seat_view,
)
from laizi.engine.events import (
    AnyEvent,
    Deal,
    Draw,
    End,
    KongPaid,
    SettlementSummary,
    Start,
    Win,
    decode,
    decode_json,
    encode,
    encode_all,
)
from laizi.engine.script import ScriptIllegal, run_script
from laizi.rules import PRESETS
from laizi.scoring import InputError, score, situation_from_json
from laizi.server.protocol import MatchEnd, stream_event, stream_json
from tests.engine_helpers import greedy

ROOT = Path(__file__).resolve().parent.parent


def _played(preset: str, seed: int) -> list[dict[str, Any]]:
    """A whole hand of ``preset``, every seat a greedy player (wins, claims, else at random)."""
    choose = greedy(random.Random(seed))
    game = Game.deal(preset, seed=bytes([seed]) * 32)
    while not game.over:
        game.play(choose(game.legal_actions(game.to_act[0])))
    return game.record


def _text(event: dict[str, Any]) -> str:
    """The JSON of an event, key order and number types included (no sorting)."""
    return json.dumps(event, ensure_ascii=False)


def _records() -> list[list[dict[str, Any]]]:
    records = [_played(preset, seed) for preset in PRESETS for seed in (*range(1, 9), 16)]
    match = Match(make_ruleset("baishan"), dealer=1)
    choose = greedy(random.Random(3))
    for hand in range(4):  # later hands carry ``previous`` and scores; the last, an escape
        state, record = match.deal(bytes([hand]) * 32, contributions=[bytes(32), None] * 2)
        while not state.over:
            seat = state.to_act()[0]
            escape = hand == 3 and len(record) > 20
            action = Action(seat, "abandon") if escape else choose(legal_actions(state, seat))
            record += encode_all(apply(state, action))
        match.finish(record)
        records.append(record)
    for path in sorted((ROOT / "examples" / "replay").glob("*.json")):  # kongs, robbed kongs
        try:
            records.append(run_script(json.loads(path.read_text())).events)
        except ScriptIllegal as illegal:  # the examples of an illegal action: up to it
            records.append(illegal.result.events)
    return records


RECORDS = _records()


def test_the_engine_hands_out_typed_events_that_encode_to_the_record() -> None:
    state, dealt = new_hand(make_ruleset("baishan"), 1, seed=bytes(range(32)))
    assert [type(e) for e in dealt] == [Start, Deal]
    assert isinstance(dealt[1], Deal) and dealt[1].hands[1] is not None
    choose = greedy(random.Random(5))
    typed: list[AnyEvent] = list(dealt)
    while not state.over:
        typed += apply(state, choose(legal_actions(state, state.to_act()[0])))
    assert all(isinstance(e, msgspec.Struct) for e in typed)
    end = typed[-1]
    assert isinstance(end, End) and sum(end.exact_payments()) == 0
    assert encode_all(typed) == [encode(e) for e in typed]
    assert [decode(e) for e in encode_all(typed)] == typed


def test_a_seats_typed_view_hides_what_its_record_line_hides() -> None:
    for record in RECORDS:
        for seat in (None, 0, 1, 2, 3):
            typed = [seat_view(decode(e), seat) for e in record]
            assert [None if e is None else encode(e) for e in typed] == [
                seat_event(e, seat) for e in record
            ]


def test_every_kind_of_event_is_played() -> None:
    kinds = {e["type"] for record in RECORDS for e in record}
    tags = {cls.__struct_config__.tag for cls in AnyEvent.__args__}  # type: ignore[attr-defined]
    assert kinds - tags == set()
    assert tags == kinds


def test_decode_then_encode_gives_the_same_json_byte_for_byte() -> None:
    for record in RECORDS:
        for event in record:
            typed = decode(event)
            assert _text(encode(typed)) == _text(event)
            assert decode_json(_text(event)) == typed
            for seat in (None, 0, 1, 2, 3):  # what the server streams to each seat
                shown = seat_event(event, seat)
                if shown is not None:
                    assert _text(encode(decode(shown))) == _text(shown)


def test_typed_fields_read_what_the_json_says() -> None:
    events = [decode(e) for record in RECORDS for e in record]
    ends = [e for e in events if isinstance(e, End)]
    assert len(ends) == sum(record[-1]["type"] == "end" for record in RECORDS) > 60
    for end in ends:
        assert sum(end.exact_payments()) == 0
        if end.reason == "win":
            assert end.settlement is not None
            summary = SettlementSummary.of(end.settlement)
            assert summary.allowed and summary.wins
            assert summary.payments == [
                p - k for p, k in zip(end.payments, end.kong_payments or [0] * 4, strict=True)
            ]
    draws = [e for e in events if isinstance(e, Draw)]
    assert {d.from_ for d in draws} == {"front", "back"}
    assert any(isinstance(e, KongPaid) for e in events)
    assert any(isinstance(e, Win) and e.from_ is not None for e in events)
    starts = [e for e in events if isinstance(e, Start) and e.previous is not None]
    assert starts and all(len(s.previous or "") == 64 for s in starts)


def test_an_event_that_is_not_one_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode({"type": "draw", "seat": "north", "from": "front"})
    with pytest.raises(msgspec.ValidationError):
        decode({"type": "teleport", "seat": 0})


def test_the_settlement_of_laizi_score_reads_typed() -> None:
    for path in sorted((ROOT / "examples" / "score").glob("*.json")):
        try:
            situation = situation_from_json(json.loads(path.read_text()))
        except InputError:
            continue  # examples of refused input
        as_json = score(situation).to_json()
        summary = SettlementSummary.of(as_json)
        assert summary.allowed == as_json["allowed"]
        assert summary.reason == as_json["reason"]
        assert summary.payments == as_json["payments"]


def test_a_renamed_field_is_a_type_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = tmp_path / "reader.py"
    reader.write_text(
        "from laizi.engine.events import End, decode\n"
        "event = decode({})\n"
        "if isinstance(event, End):\n"
        "    print(event.payments, event.winnr)\n"
        "End(reason='win', winner=0, payment=[], hands=[], seed=None)\n"
    )
    monkeypatch.setenv("MYPYPATH", str(ROOT / "src"))  # these sources, not the installed ones
    out, _, status = mypy_api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--no-warn-unused-configs", str(reader)]
    )
    assert status == 1
    assert '"End" has no attribute "winnr"' in out
    assert 'Unexpected keyword argument "payment" for "End"' in out
    assert "Found 2 errors" in out  # ``event.payments`` is no error


def test_the_rooms_stream_reads_typed() -> None:
    """A room streams the hand's events and the match's end: each read back typed, the same JSON."""
    end = {"type": "match_end", "hands": 4, "totals": [-64, 128, -32.5, -31.5], "escaped": None}
    typed = stream_event(end)
    assert isinstance(typed, MatchEnd) and typed.totals[2] == -32.5
    assert _text(stream_json(typed)) == _text(end)
    for record in RECORDS[:9]:
        for event in record:
            assert _text(stream_json(stream_event(event))) == _text(event)
