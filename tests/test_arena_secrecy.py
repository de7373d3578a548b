"""Issue 24, item 5: an outside bot in ``laizi arena`` can't see the walls.

A real ``cmd:`` bot (tests/outside/peeking_bot.py) tries the known attacks at every hand — the
run seed recovered by brute force from its ``hand`` seed or from the commitment, and the seeds
that ``end`` events revealed, remembered for the wall's replays — and predicts the wall.  With a
secret run seed it predicts none of the 12 hands of 3 walls (before the fix: 9, every replay
after a wall's first table); a wall's seed reaches it only at the end of the wall's fourth and
last table; the arena's result is still reproducible from ``--seed``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sys
from pathlib import Path
from typing import Any

from laizi.cli.arena import seed_warning
from laizi.sim import wall_seed
from tests.cli_helpers import ROOT, lines, run

PEEKING = ROOT / "tests/outside/peeking_bot.py"
WALLS = 3


def peek(seed: int, log: Path) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """An arena of the peeking bot against three random bots: the report, the bot's log of its
    predictions (one line per hand), and what the command wrote on stderr."""
    bot = f"cmd:{sys.executable} {PEEKING} {log}"
    done = run("arena", bot, "random", "--hands", str(WALLS), "--seed", str(seed), "--json")
    assert done.returncode == 0, done.stderr
    return (
        lines(done.stdout)[-1],
        [json.loads(line) for line in log.read_text().splitlines()],
        (done.stderr),
    )


def test_a_peeking_bot_predicts_no_wall_of_an_arena(tmp_path: Path) -> None:
    seed = secrets.randbits(63)
    walls = {
        hashlib.sha256(wall_seed(seed, i)).hexdigest(): wall_seed(seed, i).hex()
        for i in range(WALLS)
    }
    report, hands, stderr = peek(seed, tmp_path / "first.jsonl")
    assert [h["hand"] for h in hands] == list(range(1, 4 * WALLS + 1))
    assert [h["commitment"] for h in hands] == [c for c in walls for _ in range(4)]
    right = [h for h in hands if h["predicted"] == walls[h["commitment"]]]
    assert right == []
    assert [h["predicted"] for h in hands] == [None] * (4 * WALLS)
    # each wall's seed is revealed once its last table is over, and it is the wall's own
    assert [h["hand"] for h in hands if h["end_seed"] is not None] == [4, 8, 12]
    assert all(h["end_seed"] == walls[h["commitment"]] for h in hands if h["end_seed"])
    assert "note: the walls" not in stderr  # a secret seed: no warning
    # the arena's own result is reproducible from --seed
    again, _, _ = peek(seed, tmp_path / "again.jsonl")
    assert report["hands"] == WALLS and report["hands_played"] == 4 * WALLS
    assert (again["diff_mean"], again["a_stats"]) == (report["diff_mean"], report["a_stats"])


def test_a_guessable_seed_is_warned_about_when_a_cmd_bot_plays(tmp_path: Path) -> None:
    """The walls derive from --seed alone: with the default (or any small) seed a bot that
    guesses it knows every wall, and the arena says so."""
    _, _, stderr = peek(0, tmp_path / "default.jsonl")
    assert "note: the walls derive from --seed 0, which a cmd: bot can find by trying" in stderr
    assert "secrets.randbits(63)" in stderr
    chinese = seed_warning("greedy", "cmd:node bot.js", 7, "zh")
    assert chinese is not None and chinese.startswith("注意：牌墙由 --seed 7 推出")
    assert seed_warning("greedy", "random", 0, "en") is None
    assert seed_warning("cmd:x", "random", 2**40, "en") is None
