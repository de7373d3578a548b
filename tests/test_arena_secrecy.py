"""Issue 24, item 5: an outside bot in ``laizi arena`` (or ``simulate``) can't see the walls.

A real ``cmd:`` bot (tests/outside/peeking_bot.py) tries the known attacks at every hand — the
run seed recovered by brute force from its ``hand`` seed or from the commitment, and the seeds
that ``end`` events revealed, remembered for the wall's replays — and predicts the wall.  Without
``--seed`` the run seed is a secret drawn at random and reported: the bot predicts none of the 12
hands of 3 walls (before: the default seed 0, found from the first ``hand`` seed, 12 of 12), and
``--seed`` with the reported seed replays the run exactly; the same for ``laizi simulate``.  With
a secret ``--seed`` it predicts none either (before: 9 of 12, every replay after a wall's first
table); a wall's seed reaches it only at the end of the wall's fourth and last table.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from laizi.cli.arena import GUESSABLE_SEED, seed_warning
from laizi.sim import wall_seed
from tests.cli_helpers import ROOT, lines, run

PEEKING = ROOT / "tests/outside/peeking_bot.py"
WALLS = 3
SAME_ARENA = (
    "hands",
    "hands_played",
    "diff_mean",
    "diff_ci95",
    "diff_stdev",
    "a_stats",
    "b_stats",
    "drawn_rate",
    "seed",
)
"""The arena report's figures that a replay with the same --seed must repeat (not the timing)."""


def peeking(log: Path) -> str:
    """The peeking bot's name, writing its predictions to ``log``."""
    return f"cmd:{sys.executable} {PEEKING} {log}"


def report_of(done: subprocess.CompletedProcess) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    return lines(done.stdout)[-1]


def predictions(log: Path) -> list[dict[str, Any]]:
    """The peeking bot's log: one line per hand it played."""
    return [json.loads(line) for line in log.read_text().splitlines()]


def walls(seed: int, count: int) -> dict[str, str]:
    """The run's walls: each one's commitment → its seed (hex)."""
    return {
        hashlib.sha256(wall_seed(seed, i)).hexdigest(): wall_seed(seed, i).hex()
        for i in range(count)
    }


def peek(seed: int, log: Path) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """An arena of the peeking bot against three random bots: the report, the bot's log of its
    predictions (one line per hand), and what the command wrote on stderr."""
    done = run(
        "arena", peeking(log), "random", "--hands", str(WALLS), "--seed", str(seed), "--json"
    )
    return report_of(done), predictions(log), done.stderr


def test_a_peeking_bot_predicts_no_wall_of_an_arena(tmp_path: Path) -> None:
    seed = secrets.randbits(63)
    run_walls = walls(seed, WALLS)
    report, hands, stderr = peek(seed, tmp_path / "first.jsonl")
    assert [h["hand"] for h in hands] == list(range(1, 4 * WALLS + 1))
    assert [h["commitment"] for h in hands] == [c for c in run_walls for _ in range(4)]
    right = [h for h in hands if h["predicted"] == run_walls[h["commitment"]]]
    assert right == []
    assert [h["predicted"] for h in hands] == [None] * (4 * WALLS)
    # each wall's seed is revealed once its last table is over, and it is the wall's own
    assert [h["hand"] for h in hands if h["end_seed"] is not None] == [4, 8, 12]
    assert all(h["end_seed"] == run_walls[h["commitment"]] for h in hands if h["end_seed"])
    assert "note: the walls" not in stderr  # a secret seed: no warning
    # the arena's own result is reproducible from --seed
    again, _, _ = peek(seed, tmp_path / "again.jsonl")
    assert report["hands"] == WALLS and report["hands_played"] == 4 * WALLS
    assert (again["diff_mean"], again["a_stats"]) == (report["diff_mean"], report["a_stats"])


def test_without_seed_an_arena_draws_a_secret_one_that_replays_it(tmp_path: Path) -> None:
    """``laizi arena cmd:PEEK greedy --hands 3``: before, the seed was 0 and the bot predicted
    every one of the 12 hands from its first ``hand`` seed."""
    done = run(
        "arena", peeking(tmp_path / "drawn.jsonl"), "greedy", "--hands", str(WALLS), "--json"
    )
    report = report_of(done)
    seed = report["seed"]
    assert GUESSABLE_SEED <= seed < 2**63  # drawn from [2^40, 2^63): never a guessable one
    assert f"seed {seed} (a secret drawn at random; --seed {seed} replays this run)" in done.stderr
    assert "note: the walls" not in done.stderr
    hands = predictions(tmp_path / "drawn.jsonl")
    run_walls = walls(seed, WALLS)
    assert [h["commitment"] for h in hands] == [c for c in run_walls for _ in range(4)]
    assert [h["predicted"] for h in hands] == [None] * (4 * WALLS)
    assert [h["hand"] for h in hands if h["end_seed"] is not None] == [4, 8, 12]
    # --seed with the reported seed plays the same run: the same figures, the same walls
    replay = run(
        "arena",
        peeking(tmp_path / "replay.jsonl"),
        "greedy",
        "--hands",
        str(WALLS),
        "--seed",
        str(seed),
        "--json",
    )
    again = report_of(replay)
    assert {key: again[key] for key in SAME_ARENA} == {key: report[key] for key in SAME_ARENA}
    assert "drawn at random" not in replay.stderr and "note: the walls" not in replay.stderr
    assert predictions(tmp_path / "replay.jsonl") == hands


def test_without_seed_simulate_draws_a_secret_one_that_replays_it(tmp_path: Path) -> None:
    """``laizi simulate`` with the peeking bot in seat 0: before, seed 0 and 4 of 4 hands
    predicted (each hand's wall from the bot's ``hand`` seed)."""
    count = 4

    def simulate(log: Path, *seed: str) -> subprocess.CompletedProcess:
        bots = f"{peeking(log)},greedy,greedy,random"
        return run("simulate", "--bots", bots, "--hands", str(count), *seed, "--json")

    done = simulate(tmp_path / "drawn.jsonl")
    report = report_of(done)
    seed = report["seed"]
    assert GUESSABLE_SEED <= seed < 2**63
    assert f"seed {seed} (a secret drawn at random; --seed {seed} replays this run)" in done.stderr
    hands = predictions(tmp_path / "drawn.jsonl")
    run_walls = walls(seed, count)
    assert [h["commitment"] for h in hands] == list(run_walls)
    assert [h["predicted"] for h in hands] == [None] * count
    # each wall is played once: its seed is shown at the end of its hand
    assert [h["end_seed"] for h in hands] == list(run_walls.values())
    replay = simulate(tmp_path / "replay.jsonl", "--seed", str(seed))
    again = report_of(replay)
    assert (again["seed"], again["drawn"]) == (seed, report["drawn"])
    figures = [{k: v for k, v in seat.items() if k != "bot"} for seat in report["seats"]]
    assert [{k: v for k, v in seat.items() if k != "bot"} for seat in again["seats"]] == figures
    assert "drawn at random" not in replay.stderr
    assert predictions(tmp_path / "replay.jsonl") == hands


def test_the_drawn_seed_is_reported_in_the_readable_output_in_both_languages() -> None:
    bots = ("--bots", "greedy,greedy,greedy,greedy", "--hands", "1")
    chinese = run("simulate", *bots, "--lang", "zh")
    assert chinese.returncode == 0, chinese.stderr
    seed = int(chinese.stderr.split("种子 ")[1].split("（")[0])
    assert f"种子 {seed}（随机抽取的秘密种子；用 --seed {seed} 可重放这次运行）" in chinese.stderr
    assert f"种子 {seed}（--seed {seed} 可重放）" in chinese.stdout
    english = run("arena", "greedy", "random", "--hands", "1", "--seed", "12", "--lang", "en")
    assert english.returncode == 0, english.stderr
    assert "seed 12 (--seed 12 replays it)" in english.stdout
    assert "drawn at random" not in english.stderr  # a given seed is not drawn


def test_a_guessable_seed_is_warned_about_when_a_cmd_bot_plays(tmp_path: Path) -> None:
    """The walls derive from --seed alone: with a small seed a bot that guesses it knows every
    wall, and the arena (or simulate) says so."""
    _, hands, stderr = peek(0, tmp_path / "zero.jsonl")
    assert "note: the walls derive from --seed 0, which a cmd: bot can find by trying" in stderr
    assert "For a contest omit --seed (a secret one is drawn at random and reported)" in stderr
    assert "secrets.randbits(63)" in stderr
    # the warning is earned: with seed 0 the bot knows every wall from its first hand on
    assert [h["predicted"] for h in hands] == [walls(0, WALLS)[h["commitment"]] for h in hands]
    chinese = seed_warning(["greedy", "cmd:node bot.js"], 7, "zh")
    assert chinese is not None and chinese.startswith("注意：牌墙由 --seed 7 推出")
    assert "请不给 --seed" in chinese
    simulate = seed_warning(["greedy", "greedy", "random", "cmd:x"], -5, "en")
    assert simulate is not None and "--seed -5" in simulate
    assert seed_warning(["greedy", "random"], 0, "en") is None
    assert seed_warning(["cmd:x", "random"], GUESSABLE_SEED, "en") is None
