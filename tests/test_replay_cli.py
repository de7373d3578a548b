"""`laizi replay` as INTERFACES.md specifies it, run as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.cli_helpers import ROOT, lines, run

EXAMPLES = ROOT / "examples" / "replay"


@pytest.mark.parametrize(
    ("name", "winner", "win"),
    [
        ("one_winner_per_discard.json", 1, "small"),
        ("rob_kong.json", 1, "qiangganghu"),
        ("hongzhong_then_gangshanghua.json", 1, "gangshanghua"),
        ("haidilao.json", 1, "haidilao"),
    ],
)
def test_every_example_replays_to_its_end(name, winner, win):
    result = run("replay", str(EXAMPLES / name))
    assert result.returncode == 0, result.stderr
    events = lines(result.stdout)
    last = events[-1]
    assert last["type"] == "end" and last["winner"] == winner
    assert len(last["payments"]) == 4 and sum(last["payments"]) == 0
    assert win in last["settlement"]["wins"]
    assert events[0]["type"] == "start"


def test_an_escape_ends_the_hand_with_the_penalty_split_three_ways():
    result = run("replay", str(EXAMPLES / "escape.json"))
    assert result.returncode == 0, result.stderr
    last = lines(result.stdout)[-1]
    assert last["reason"] == "abandon" and last["winner"] is None and last["seat"] == 3
    assert last["payments_exact"] == ["500/3", "500/3", "500/3", "-500"]


def test_a_script_on_standard_input_and_its_record_verifies():
    text = (EXAMPLES / "rob_kong.json").read_text()
    result = run("replay", "-", stdin=text)
    assert result.returncode == 0
    # A script lists its wall: it replays, but nothing proves the wall was not chosen.
    unproved = run("verify", "-", stdin=result.stdout)
    assert unproved.returncode == 4 and unproved.stdout.startswith("unverifiable"), unproved.stdout
    checked = run("verify", "-", "--allow-uncommitted", stdin=result.stdout)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.count("\n") == 1 and checked.stdout.startswith("unverifiable")


def test_an_illegal_action_exits_3_naming_index_action_reason_and_the_legal_ones():
    result = run("replay", str(EXAMPLES / "illegal_chow.json"))
    assert result.returncode == 3
    message = result.stderr
    assert "action 1" in message and "2 chow 345m" in message
    assert "previous seat" in message
    assert "1 chow 123m" in message and "3 pung" in message
    events = lines(result.stdout)
    assert [e["type"] for e in events] == ["start", "deal", "discard"]  # nothing of it or after
    assert "Traceback" not in message


def test_a_script_that_ends_early_exits_1_naming_who_was_to_act():
    obj = json.loads((EXAMPLES / "rob_kong.json").read_text())
    obj["actions"] = obj["actions"][:3]
    result = run("replay", "-", stdin=json.dumps(obj))
    assert result.returncode == 1
    # Seat 1 could pung 2's 1z but has no action, so it passes; seat 3 draws and must act.
    assert "seat 3 was to act" in result.stderr


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rules": "no-such-preset"}, "rules"),
        ({"dealer": 7}, "dealer"),
        ({"hands": ["123m"]}, "hands"),
        ({"indicator": "0x"}, "indicator"),
        ({"draws": ["9m", "9m", "9m"]}, "tiles"),
        ({"actions": [{"seat": 0, "type": "discard"}]}, "tile"),
        ({"actions": [{"seat": 0, "type": "fly"}]}, "type"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_input_exits_1_naming_the_field(change, field):
    obj = json.loads((EXAMPLES / "rob_kong.json").read_text())
    obj.update(change)
    result = run("replay", "-", stdin=json.dumps(obj))
    assert result.returncode == 1, result.stderr
    assert field in result.stderr and "Traceback" not in result.stderr


def test_unreadable_json_exits_1():
    result = run("replay", "-", stdin="{not json")
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_messages_come_in_chinese_too():
    env_run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from laizi.cli import main; main()",
            "replay",
            str(EXAMPLES / "illegal_chow.json"),
            "--lang",
            "zh",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT / "src")},
    )
    assert env_run.returncode == 3
    assert "只能吃上家的牌" in env_run.stderr and "第 1 个动作" in env_run.stderr


def test_deal_rejects_unknown_rules_and_bad_seeds():
    assert run("deal", "--rules", "wuhan-nope").returncode == 1
    result = run("deal", "--seed", "12xyz")  # a whole number (as play/arena take) is fine
    assert result.returncode == 1 and "seed" in result.stderr
    result = run("deal", "--seed", "ab" * 31)  # 62 hex digits: neither form
    assert result.returncode == 1 and "--seed" in result.stderr
