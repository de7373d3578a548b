"""``laizi train selfplay`` (issue 29 item 1): REINFORCE on duplicate walls.

A tiny policy plays a few walls: the run is seeded (a resumed run ends with the unbroken run's
weights), the card names the starting model and every iteration's margin, a policy playing
itself by its argmax has margin exactly 0 on every wall (the duplicate set cancels the wall),
and bad input is refused with a message (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from laizi.bots.base import BotError
from laizi.bots.learned import PolicyModel, model_file
from laizi.train.data import TrainError, game_presets
from laizi.train.selfplay import RolloutJob, SelfPlayConfig, rollout, train_selfplay
from tests.cli_helpers import run


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> tuple[PolicyModel, Path]:
    model = PolicyModel.initial(game_presets("wuhan"), hidden=(16,), seed=3, look=True)
    model.card = {"stage": "bc", "recipe": "none: random weights for a test", "metrics": {}}
    path = tmp_path_factory.mktemp("start") / "learned-wuhan.npz"
    model.save(path)
    return PolicyModel.load(path), path


def config(**changes: object) -> SelfPlayConfig:
    base: dict[str, object] = {
        "game": "wuhan",
        "rules": ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou"),
        "iterations": 2,
        "walls": 4,
        "lr": 1e-3,
        "seed": 7,
    }
    base.update(changes)
    return SelfPlayConfig(**base)  # type: ignore[arg-type]


def test_a_run_learns_from_its_walls_and_writes_its_card(start, tmp_path):
    model, _ = start
    card = train_selfplay(model, config(), tmp_path / "run")
    history = card["history"]
    assert [h["iteration"] for h in history] == [1, 2]
    assert [h["rules"] for h in history] == ["wuhan-hongzhong-kaikou", "wuhan-qipi-koukou"]
    assert all(h["walls"] == 4 and h["decisions"] > 0 for h in history)
    assert all(h["margin_ci95"][0] <= h["margin"] <= h["margin_ci95"][1] for h in history)
    assert card["stage"] == "selfplay" and card["look"] is True
    assert card["start"]["fingerprint"] == model.fingerprint()
    assert card["start"]["recipe"] == "none: random weights for a test"
    assert card["selfplay"]["opponent"] == "best" and card["selfplay"]["iterations"] == 2
    trained = PolicyModel.load(tmp_path / "run" / model_file("wuhan"))
    assert trained.look and trained.presets == model.presets and trained.card == card
    assert not np.array_equal(trained.weights[0], model.weights[0])  # it learnt something
    assert json.loads((tmp_path / "run" / "learned-wuhan.json").read_text()) == card
    assert "| 2 | wuhan-qipi-koukou | 4 |" in (tmp_path / "run" / "learned-wuhan.md").read_text()


def test_a_resumed_run_ends_where_an_unbroken_one_does(start, tmp_path):
    model, _ = start
    train_selfplay(model, config(iterations=1), tmp_path / "resumed")
    with pytest.raises(TrainError, match="--resume"):
        train_selfplay(model, config(iterations=1), tmp_path / "resumed")
    with pytest.raises(TrainError, match="other settings"):
        train_selfplay(model, config(iterations=2, lr=0.5), tmp_path / "resumed", resume=True)
    resumed = train_selfplay(model, config(), tmp_path / "resumed", resume=True)
    unbroken = train_selfplay(model, config(), tmp_path / "unbroken")
    assert [h["margin"] for h in resumed["history"]] == [h["margin"] for h in unbroken["history"]]
    a = PolicyModel.load(tmp_path / "resumed" / "learned-wuhan.npz")
    b = PolicyModel.load(tmp_path / "unbroken" / "learned-wuhan.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights, strict=True))


def test_a_policy_against_itself_on_duplicate_walls_has_margin_zero(start):
    model, _ = start
    # a sharp model: its sampling at a low temperature is its argmax, the opponent's play
    sharp = PolicyModel(
        model.game,
        model.presets,
        model.mean,
        model.std,
        [w * 50 for w in model.weights],
        [b * 50 for b in model.biases],
        look=model.look,
    )
    blob = sharp.to_bytes()
    played = rollout(RolloutJob(blob, blob, "wuhan-hongzhong-kaikou", 11, (0, 1, 2), 0.05))
    assert len(played.margins) == 3
    assert played.margins == [0, 0, 0]
    # every table of a wall is the same game: the learner's points are the wall's baseline
    assert played.advantage.shape == (len(played.action),)
    assert played.x.shape == (len(played.action), sharp.inputs)
    assert np.all(played.mask[np.arange(len(played.action)), played.action] == 1)


def test_bad_input_is_refused(start, tmp_path):
    model, path = start
    with pytest.raises(BotError, match="baishan"):
        train_selfplay(model, config(rules=("baishan",)), tmp_path / "a")
    with pytest.raises(TrainError, match="a wuhan model, not baishan"):
        train_selfplay(model, config(game="baishan"), tmp_path / "b")
    with pytest.raises(BotError, match="unknown bot"):
        train_selfplay(model, config(opponent="nobody"), tmp_path / "c")
    result = run(
        "train",
        "selfplay",
        "--model",
        str(tmp_path / "none.npz"),
        "--rules",
        "wuhan-hongzhong-kaikou",
        "--out",
        str(tmp_path / "d"),
    )
    assert result.returncode == 1 and "none.npz" in result.stderr
    result = run(
        "train",
        "selfplay",
        "--model",
        str(path),
        "--rules",
        "baishan",
        "--out",
        str(tmp_path / "e"),
    )
    assert result.returncode == 1 and "not 'baishan'" in result.stderr
    assert not (tmp_path / "e" / "learned-wuhan.npz").exists()


def test_the_command_trains_and_prints_the_card(start, tmp_path):
    _, path = start
    result = run(
        "train",
        "selfplay",
        "--model",
        str(path),
        "--rules",
        "wuhan-hongzhong-kaikou",
        "--out",
        str(tmp_path / "run"),
        "--iterations",
        "1",
        "--walls",
        "4",
        "--workers",
        "2",
        "--seed",
        "3",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    assert card["selfplay"]["workers"] == 2 and card["history"][0]["walls"] == 4
    again = run(
        "train",
        "selfplay",
        "--model",
        str(path),
        "--rules",
        "wuhan-hongzhong-kaikou",
        "--out",
        str(tmp_path / "one"),
        "--iterations",
        "1",
        "--walls",
        "4",
        "--seed",
        "3",
        "--json",
    )
    # the same walls and samples with one worker or two
    assert json.loads(again.stdout)["history"][0]["margin"] == card["history"][0]["margin"]
