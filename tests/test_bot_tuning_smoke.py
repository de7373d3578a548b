"""CI's short run of the bot-tuning benchmark (benchmarks/bot_tuning.py, docs/bots.md)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "bot_tuning.py"


def run(*args: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_the_same_bot_twice_differs_by_exactly_nothing():
    report = run("paired", "greedy", "greedy", "--against", "random", "--walls", "2")
    assert report["delta"] == [0.0, 0.0, 0.0] and report["walls_changed"] == 0
    assert report["a1_margin"] == report["a2_margin"] and report["a1_margin"][0] > 0


def test_a_setting_changes_the_second_bot_only():
    report = run(
        "paired",
        "greedy",
        "greedy",
        "--against",
        "random",
        "--walls",
        "2",
        "--set",
        "laizi.bots.greedy.GreedyBot.candidates=1",
    )
    assert report["set"] == ["laizi.bots.greedy.GreedyBot.candidates=1"]
    assert report["walls_changed"] >= 1


def test_the_breakdown_accounts_for_every_hand_and_point():
    report = run("breakdown", "greedy", "random", "--rules", "baishan", "--walls", "2")
    assert report["a"]["hands"] == 8 and report["b"]["hands"] == 24
    for side in ("a", "b"):
        ends = report[side]["ends"].values()
        assert sum(e["rate"] for e in ends) == pytest.approx(1.0)
        assert sum(e["per_hand"] for e in ends) == pytest.approx(report[side]["points_per_hand"])
    assert report["a"]["points_per_hand"] > report["b"]["points_per_hand"]


def test_settings_take_the_type_of_what_they_replace():
    spec = importlib.util.spec_from_file_location("bot_tuning", SCRIPT)
    assert spec is not None and spec.loader is not None
    tuning = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tuning)
    from laizi.bots import expert

    old = expert.ExpertBot.wait_share
    try:
        tuning.apply_settings(["laizi.bots.expert.ExpertBot.wait_share=0.25"])
        assert expert.ExpertBot.wait_share == 0.25
    finally:
        expert.ExpertBot.wait_share = old
