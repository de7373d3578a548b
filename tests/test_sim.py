"""The arena and self-play (issue 6): INTERFACES.md's keys, determinism, worker independence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from laizi.sim import arena, mean_ci95, simulate

ROOT = Path(__file__).parents[1]


def laizi(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )


def test_the_arena_result_does_not_depend_on_workers():
    one = arena("greedy", "random", "wuhan-hongzhong-kaikou", walls=5, seed=3, workers=1)
    two = arena("greedy", "random", "wuhan-hongzhong-kaikou", walls=5, seed=3, workers=2)
    for key in ("hands", "diff_mean", "diff_ci95", "a_stats", "b_stats", "drawn_rate"):
        assert one[key] == two[key]


def test_the_arena_plays_each_wall_four_times():
    report = arena("random", "random", "baishan", walls=3, seed=1)
    assert report["hands"] == 3 and report["hands_played"] == 12
    assert report["a_stats"]["hands"] == 12 and report["b_stats"]["hands"] == 36


def test_a_bot_against_itself_differs_only_by_its_seeds():
    report = arena("greedy", "greedy", "wuhan-hongzhong-kaikou", walls=2, seed=2)
    # Greedy makes no random choices: the same bot in every seat gives exactly zero.
    assert report["diff_mean"] == 0 and report["diff_ci95"] == [0.0, 0.0]


def test_the_interval_is_the_normal_one_over_walls():
    mean, low, high = mean_ci95([Fraction(1), Fraction(3)])
    assert mean == 2 and round(high - mean, 6) == round(1.96 * 1.0, 6) and low == 2 - (high - 2)


def test_arena_smoke_greedy_beats_random():
    """CI's short arena run: the long runs are benchmarks/bench_arena.py."""
    result = laizi(
        "arena",
        "greedy",
        "random",
        "--rules",
        "wuhan-hongzhong-kaikou",
        "--hands",
        "6",
        "--seed",
        "5",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    for key in ("hands", "diff_mean", "diff_ci95", "hands_per_s"):
        assert key in report
    assert report["hands"] == 6 and report["diff_ci95"][0] > 0 and report["hands_per_s"] > 0


def test_arena_readable_output_names_the_rates():
    result = laizi(
        "arena", "greedy", "random", "--rules", "baishan", "--hands", "1", "--lang", "en"
    )
    assert result.returncode == 0, result.stderr
    for word in ("win rate", "deal-in rate", "big wins", "95% interval", "hands/s"):
        assert word in result.stdout


def test_arena_bad_bot_or_preset_exits_1():
    bad_bot = laizi("arena", "greedy", "nobody", "--hands", "2")
    assert bad_bot.returncode == 1 and "unknown bot 'nobody'" in bad_bot.stderr
    bad_rules = laizi("arena", "greedy", "random", "--rules", "nowhere", "--hands", "2")
    assert bad_rules.returncode == 1 and "unknown preset" in bad_rules.stderr
    assert "Traceback" not in bad_bot.stderr + bad_rules.stderr


def test_simulate_json_has_a_row_per_seat():
    result = laizi(
        "simulate",
        "--bots",
        "strong,greedy,random,random",
        "--rules",
        "wuhan-qipi-koukou",
        "--hands",
        "4",
        "--json",
        "--workers",
        "2",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert [s["bot"] for s in report["seats"]] == ["strong", "greedy", "random", "random"]
    assert abs(sum(s["mean_points"] for s in report["seats"])) < 1e-9  # zero-sum
    assert 0 <= report["drawn"] <= 4


def test_simulate_is_deterministic_by_seed():
    first = simulate(["strong", "greedy", "greedy", "random"], "baishan", hands=4, seed=9)
    second = simulate(["strong", "greedy", "greedy", "random"], "baishan", hands=4, seed=9)
    assert first["seats"] == second["seats"]


def test_simulate_wants_four_bots():
    result = laizi("simulate", "--bots", "greedy,random", "--hands", "2")
    assert result.returncode == 1 and "four" in result.stderr
