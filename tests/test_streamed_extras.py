"""The extras a table adds to the streamed copies of events (``laizi.engine.view.as_streamed``:
multipliers, live tiles, 开口 / 杠 counts, running fans, 摸切, the end's details) are those of the
whole decision, as the record's replay gives them — also when the claim window's pause cuts the
decision's events in two and holds the second part.

The case that found it (CI, ``test_every_game_the_engine_knows_plays_and_verifies_with_the_cli``):
a Baishan seat declares ready (报听) with the discard that runs the wall out.  The engine answers
that one decision with the discard, the four final draws and the end.  The table streamed the
discard at once and the rest after the pause, and worked out the extras of each part on its own:
the discard carried the counts and fans that the record's replay puts on the ``end`` alone.  Now
the extras are worked out once, for the whole decision, before the pause cuts it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from laizi.engine import parse_record
from laizi.engine.record import action_of
from laizi.server.store import hand_record
from tests.engine_helpers import deal_json
from tests.server_checks import check_hand_stream, split_hands, stream_events
from tests.server_helpers import local_table

RECORDS = Path(__file__).resolve().parent / "records"
READY_ON_THE_LAST_DISCARD = RECORDS / "baishan-ready-on-the-last-discard.jsonl"
"""A Baishan hand (hand 0 of a server's match, seat 0 a person, seats 1–3 random bots) whose
seat 0 declares ready with the discard after which the wall runs out."""


async def replayed_at_a_table(tmp_path: Path, record: list[dict[str, Any]]) -> tuple[Any, list]:
    """The record's hand played again at a table of four people (every seat's decisions are
    the record's, in order; the deal is the record's): seat 0's messages and the record the
    table wrote."""
    seed = bytes.fromhex(record[-1]["seed"])
    table = {"players": 4, "hands": 1, "bot_delay_ms": 0, "between_hands_ms": 0}
    table["claim_window_ms"] = 5
    at = local_table(
        tmp_path / "db.sqlite3",
        record[0]["rules"],
        table,
        lambda ruleset, _dealer: deal_json(ruleset, record[0]["dealer"], seed=seed),
    )
    decisions: list[list[dict[str, Any]]] = [[], [], [], []]
    for action in filter(None, map(action_of, record)):
        decisions[action.seat].append({k: v for k, v in action.to_json().items() if k != "seat"})

    async def drive(seat: int) -> None:
        answered: set[int] = set()
        while True:
            message = json.loads(await at.inboxes[seat].get())
            if message["type"] == "event" and message["event"]["type"] == "match_end":
                return
            if message["type"] == "prompt" and message["id"] not in answered:
                answered.add(message["id"])
                action = decisions[seat].pop(0)
                assert action in message["legal"], (seat, action, message["legal"])
                at.act(seat, message["id"], action)

    await asyncio.wait_for(asyncio.gather(*(drive(s) for s in range(4))), 60)
    assert decisions == [[], [], [], []]  # every recorded decision was asked for and made
    written = hand_record(at.hub.store.engine, at.room.code, 0)
    at.hub.store.close()
    return [json.loads(m) for m in at.sent[0]], written


def test_a_decision_cut_by_the_claim_windows_pause_carries_the_extras_of_the_whole_decision(
    tmp_path: Path,
) -> None:
    record = parse_record(READY_ON_THE_LAST_DISCARD.read_text(encoding="utf-8"))
    seen, written = asyncio.run(replayed_at_a_table(tmp_path, record))
    assert written is not None
    [shown] = split_hands(stream_events(seen))
    # The table played the same hand and wrote the same record.
    assert [e for e in written if e["type"] != "pass"] == [e for e in record if e["type"] != "pass"]
    check_hand_stream(written, shown, 0)  # exactly the record's replay, seen from seat 0
    ready = next(e for e in shown if e.get("declare_ready"))
    assert ready == {
        "type": "discard",
        "seat": 0,
        "tile": "8s",
        "declare_ready": True,
        "moqie": False,
    }
    assert [e["type"] for e in shown[shown.index(ready) :]] == ["discard"] + ["draw"] * 4 + ["end"]
    end = shown[-1]
    assert end["counts"] == [
        {"opened": 3, "kongs": 0},
        {"opened": 1, "kongs": 0},
        {"opened": 3, "kongs": 0},
        {"opened": 1, "kongs": 0},
    ]
    assert [f["id"] for f in end["fans"][0]] == ["baoting", "zuozhuang"]
