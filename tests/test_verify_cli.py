"""`laizi verify` and `laizi deal`: fair deals (Part C) checked end to end, tampering caught."""

from __future__ import annotations

import hashlib
import json

import pytest

from laizi.engine import parse_record, verify
from tests.cli_helpers import lines, run
from tests.engine_helpers import apply_json, deal_json

SEED = "5a" * 32


@pytest.fixture(scope="module")
def record() -> str:
    result = run("deal", "--rules", "wuhan-qipi-koukou", "--seed", SEED)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_deal_commits_to_the_seed_first_and_reveals_it_last(record):
    events = lines(record)
    assert events[0]["type"] == "start"
    assert events[0]["commitment"] == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert events[-1]["type"] == "end" and events[-1]["seed"] == SEED
    assert "wall" not in events[0]  # the wall comes from the seed, not from the record


def test_the_same_seed_deals_the_same_hand(record):
    again = run("deal", "--rules", "wuhan-qipi-koukou", "--seed", SEED)
    assert again.stdout == record


def test_deal_without_a_seed_draws_a_fresh_one():
    first = lines(run("deal").stdout)
    second = lines(run("deal").stdout)
    assert first[0]["commitment"] != second[0]["commitment"]


def test_verify_accepts_an_honest_record(record):
    result = run("verify", "-", stdin=record)
    assert result.returncode == 0
    assert result.stdout.startswith("ok") and result.stdout.count("\n") == 1


def tampered(record: str, index: int, change) -> str:
    events = lines(record)
    change(events[index])
    return "".join(json.dumps(e) + "\n" for e in events)


def first_index(record: str, kind: str) -> int:
    return next(i for i, e in enumerate(lines(record)) if e["type"] == kind)


def test_verify_rejects_a_changed_draw(record):
    index = first_index(record, "draw")
    events = lines(record)
    other = "1m" if events[index]["tile"] != "1m" else "2m"
    text = tampered(record, index, lambda e: e.update(tile=other))
    result = run("verify", "-", stdin=text)
    assert result.returncode == 4
    assert f"event {index}" in result.stdout


def test_verify_rejects_changed_payments(record):
    events = lines(record)
    last = len(events) - 1

    def richer(e):
        e["payments"] = [
            p + (1 if s == 0 else 0) - (1 if s == 1 else 0) for s, p in enumerate(e["payments"])
        ]

    verdict = verify(parse_record(tampered(record, last, richer)))
    assert not verdict.ok and verdict.index == last


def test_verify_rejects_a_seed_that_does_not_match_the_commitment(record):
    events = lines(record)
    text = tampered(record, len(events) - 1, lambda e: e.update(seed="5b" * 32))
    result = run("verify", "-", stdin=text)
    assert result.returncode == 4
    assert "commitment" in result.stdout


def test_verify_rejects_a_rearranged_deal(record):
    def swap(e):
        e["hands"] = [e["hands"][1], e["hands"][0], *e["hands"][2:]]

    verdict = verify(parse_record(tampered(record, 1, swap)))
    assert not verdict.ok and verdict.index == 1


def test_verify_rejects_a_dropped_decision(record):
    events = lines(record)
    index = first_index(record, "discard")
    text = "".join(json.dumps(e) + "\n" for i, e in enumerate(events) if i != index)
    verdict = verify(parse_record(text))
    assert not verdict.ok and verdict.index == index


def test_verify_reports_unreadable_input_as_bad_input():
    result = run("verify", "-", stdin="{nope\n")
    assert result.returncode == 1


def test_deal_plays_a_match_whose_record_verifies_as_a_whole():
    result = run("deal", "--hands", "3", "--seed", SEED, "--dealer", "2")
    assert result.returncode == 0
    events = lines(result.stdout)
    starts = [e for e in events if e["type"] == "start"]
    assert len(starts) == 3 and starts[0]["dealer"] == 2
    checked = run("verify", "-", stdin=result.stdout)
    assert checked.returncode == 0 and "3 hand(s)" in checked.stdout


# -- the players' entropy: seed + contributions → wall, the whole chain checked -------------------
MINE = "c0" * 32
THEIRS = "3e" * 32


@pytest.fixture(scope="module")
def chained() -> str:
    """A hand dealt from a server seed and two players' contributions (seats 1 and 3)."""
    import random

    from laizi.engine import legal_actions, make_ruleset
    from laizi.engine.record import to_jsonl

    parts = [None, bytes.fromhex(MINE), None, bytes.fromhex(THEIRS)]
    state, events = deal_json(
        make_ruleset("wuhan-qipi-koukou"), 0, seed=bytes.fromhex(SEED), contributions=parts
    )
    rng = random.Random(5)
    while not state.over:
        seat = state.to_act()[0]
        events += apply_json(state, rng.choice(legal_actions(state, seat)))
    return to_jsonl(events)


def test_the_wall_comes_from_the_seed_and_every_contribution_in_seat_order(chained):
    from laizi.engine.wall import combined_seed, wall_from_seed

    events = lines(chained)
    assert events[0]["contributions"] == [None, MINE, None, THEIRS]
    assert events[0]["commitment"] == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert events[-1]["seed"] == SEED
    seed = bytes.fromhex(SEED)
    expected = hashlib.sha256(
        b"laizi deal v1"
        + seed
        + b"\x00"
        + b"\x01"
        + bytes.fromhex(MINE)
        + b"\x00"
        + b"\x01"
        + bytes.fromhex(THEIRS)
    ).digest()
    parts = [None, bytes.fromhex(MINE), None, bytes.fromhex(THEIRS)]
    assert combined_seed(seed, parts) == expected
    swapped = [None, bytes.fromhex(THEIRS), None, bytes.fromhex(MINE)]
    assert wall_from_seed(combined_seed(seed, swapped)) != wall_from_seed(expected)
    result = run("verify", "-", stdin=chained)
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout


@pytest.mark.parametrize(
    ("index", "change", "names"),
    [
        (0, lambda e: e["contributions"].__setitem__(1, "c1" * 32), "contribution"),
        (0, lambda e: e["contributions"].__setitem__(1, None), "contribution"),
        (0, lambda e: e["contributions"].reverse(), "contribution"),
        (0, lambda e: e["contributions"].__setitem__(3, "not hex"), "contributions: seat 3"),
        (0, lambda e: e.update(contributions=[MINE]), "contributions"),
        (0, lambda e: e.pop("contributions"), "event 1"),
        (-1, lambda e: e.update(seed="5b" * 32), "does not match the commitment"),
        (0, lambda e: e.update(commitment="00" * 32), "does not match the commitment"),
    ],
)
def test_a_tampered_link_of_the_chain_fails_naming_it(chained, index, change, names):
    events = lines(chained)
    change(events[index])
    result = run("verify", "-", stdin="".join(json.dumps(e) + "\n" for e in events))
    assert result.returncode == 4, result.stdout
    assert names in result.stdout, result.stdout
    assert "Traceback" not in result.stderr
