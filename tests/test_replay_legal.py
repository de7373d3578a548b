"""``laizi replay SCRIPT --stop-after N --json``: who may act at that point of a partial script,
what each may do (in the script's own notation), and the phase — exact outputs."""

from __future__ import annotations

import json

from laizi.engine.script import legal_now, run_script
from tests.cli_helpers import ROOT, lines, run

ROB_KONG = str(ROOT / "examples/replay/rob_kong.json")
DECLARE = str(ROOT / "examples/replay/baishan-declare-ready.json")


def legal_at(path: str, n: int) -> dict:
    done = run("replay", path, "--stop-after", str(n), "--json")
    assert done.returncode == 0, done.stderr
    return lines(done.stdout)[-1]


def test_may_seat_2_pung_here() -> None:
    """Seat 0 discards 9m: seat 2 may pung it, seat 1 may chow it — nobody else is listed."""
    assert legal_at(ROB_KONG, 1) == {
        "type": "legal",
        "after": 1,
        "phase": "claim",
        "turn": 0,
        "claim": {"tile": "9m", "from": 0},
        "to_act": [
            {
                "seat": 1,
                "legal": [
                    {"seat": 1, "type": "chow", "tiles": "789m"},
                    {"seat": 1, "type": "pass"},
                ],
            },
            {"seat": 2, "legal": [{"seat": 2, "type": "pung"}, {"seat": 2, "type": "pass"}]},
        ],
    }


def test_a_seat_that_claimed_is_no_longer_asked() -> None:
    """After seat 2's pung is listed, the window is still open for seat 1 only."""
    out = legal_at(ROB_KONG, 2)
    assert out["phase"] == "claim"
    assert [entry["seat"] for entry in out["to_act"]] == [1]


def test_may_it_rob_this_kong() -> None:
    """Seat 2 adds 9m to its pung: seats 1 and 3 may rob it (抢杠), seat 0 may not."""
    assert legal_at(ROB_KONG, 10) == {
        "type": "legal",
        "after": 10,
        "phase": "rob",
        "turn": 2,
        "claim": {"tile": "9m", "from": 2},
        "to_act": [
            {"seat": 1, "legal": [{"seat": 1, "type": "win"}, {"seat": 1, "type": "pass"}]},
            {"seat": 3, "legal": [{"seat": 3, "type": "win"}, {"seat": 3, "type": "pass"}]},
        ],
    }


def test_a_turn_lists_every_discard_and_the_added_kong() -> None:
    out = legal_at(ROB_KONG, 9)
    assert out["phase"] == "turn" and out["turn"] == 2 and "claim" not in out
    [entry] = out["to_act"]
    assert entry["seat"] == 2
    assert [a["type"] for a in entry["legal"]].count("added_kong") == 1
    assert {"seat": 2, "type": "added_kong", "tile": "9m"} in entry["legal"]
    assert [a["tile"] for a in entry["legal"] if a["type"] == "discard"] == [
        "1m", "3m", "5m", "9m", "1p", "9p", "1s", "3s", "4z", "5z", "6z",
    ]  # fmt: skip


def test_the_start_and_the_end() -> None:
    first = legal_at(ROB_KONG, 0)
    assert first["phase"] == "turn" and [e["seat"] for e in first["to_act"]] == [0]
    assert {"seat": 0, "type": "lay_out", "tile": "7z"} in first["to_act"][0]["legal"]
    assert legal_at(ROB_KONG, 12) == {
        "type": "legal", "after": 12, "phase": "over", "turn": 2, "to_act": [],
    }  # fmt: skip


def test_baishan_declare_ready_is_offered_in_the_script_notation() -> None:
    out = legal_at(DECLARE, 0)
    legal = out["to_act"][0]["legal"]
    assert {"seat": 0, "type": "declare_ready", "tile": "1z"} in legal
    assert {"seat": 0, "type": "discard", "tile": "1z"} in legal


def test_events_come_first_and_stop_at_the_point() -> None:
    done = run("replay", ROB_KONG, "--stop-after", "1", "--json")
    out = lines(done.stdout)
    assert [e["type"] for e in out] == ["start", "deal", "discard", "legal"]


def test_stop_after_beyond_the_script_is_bad_input() -> None:
    done = run("replay", ROB_KONG, "--stop-after", "13", "--json")
    assert done.returncode == 1
    assert "--stop-after: must be 0 … 12" in done.stderr
    assert done.stdout == ""


def test_legal_now_agrees_with_the_library() -> None:
    with open(ROB_KONG, encoding="utf-8") as handle:
        script = json.load(handle)
    state = run_script(script, stop_after=10).state
    assert legal_now(state)["to_act"][1]["legal"][0] == {"seat": 3, "type": "win"}
