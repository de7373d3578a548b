"""The behaviour-cloning example runs end to end on a tiny budget, and its bot plays legally."""

import json
import os
import subprocess
import sys
from pathlib import Path

from laizi.engine import Game

TRAIN = Path(__file__).parents[1] / "examples" / "train"


def test_bc_example_trains_saves_and_plays_the_arena(tmp_path):
    out = tmp_path / "policy.npz"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TRAIN.parents[1] / "src"), str(TRAIN)])}
    result = subprocess.run(
        [
            sys.executable,
            str(TRAIN / "bc_train.py"),
            "--hands",
            "3",
            "--epochs",
            "2",
            "--hidden",
            "16",
            "--walls",
            "1",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env=env,
    )
    summary = json.loads(result.stdout.splitlines()[-1])
    assert out.exists()
    assert summary["decisions"] > 20 and summary["hands"] == 3
    assert 0 <= summary["agreement"] <= 1
    assert summary["arena_vs_random"]["hands"] == 1
    assert "epoch 2" in result.stderr
    assert "strong self-play hands" in result.stderr  # made its dataset with laizi export


def test_bc_example_trains_from_an_exported_dataset(tmp_path):
    """The example reads what ``laizi export`` writes: every row with a choice, no other."""
    from laizi.dataset.export import export
    from laizi.dataset.parquet import read_rows
    from laizi.dataset.sources import hands_from_paths
    from laizi.sim import simulate

    simulate(["greedy"] * 4, "wuhan-hongzhong-kaikou", hands=4, seed=2, records=tmp_path / "r")
    export(hands_from_paths([str(tmp_path / "r")]), tmp_path / "ds")
    choices = sum(int((b["legal"] > 1).sum()) for b in read_rows(tmp_path / "ds"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TRAIN.parents[1] / "src"), str(TRAIN)])}
    result = subprocess.run(
        [
            sys.executable,
            str(TRAIN / "bc_train.py"),
            "--dataset",
            str(tmp_path / "ds"),
            "--epochs",
            "1",
            "--hidden",
            "8",
            "--walls",
            "1",
            "--out",
            str(tmp_path / "policy.npz"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env=env,
    )
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["decisions"] == choices > 0 and summary["hands"] == 4
    assert "strong self-play" not in result.stderr


def test_bc_bot_with_the_committed_weights_chooses_a_legal_action(monkeypatch):
    monkeypatch.syspath_prepend(str(TRAIN))
    monkeypatch.delenv("LAIZI_BC_WEIGHTS", raising=False)
    from bc_bot import BCBot

    game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
    bot = BCBot(None, 0)
    for _ in range(40):
        if game.over:
            break
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        action = bot.act(game.view(seat), legal)
        assert action in legal
        game.play(action)
