"""The learned bot (issue 29): ``laizi train bc`` on a tiny dataset, and the numpy bot it makes.

The CI smoke of issue 29 item 5: a few hands of self-play are exported, a tiny model is trained
for a few epochs — its loss falls, its ``.npz`` round-trips, numpy's logits equal torch's — and
the bot it makes plays only legal actions in every preset and never depends on hidden tiles.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi.bots import BotError, make_bot
from laizi.bots.learned import (
    ENV_VAR,
    MODELS,
    LearnedBot,
    PolicyModel,
    features,
    model_file,
)
from laizi.bots.lookahead import lookahead_rows
from laizi.dataset.export import export
from laizi.dataset.sources import hands_from_paths
from laizi.engine import legal_actions, make_ruleset, view
from laizi.env.views import encode_view
from laizi.rules import PRESETS
from laizi.sim import play_hand, wall_seed
from laizi.sim.simulate import simulate
from laizi.train.bc import CHECKPOINT, BCConfig, build_net, train_bc
from laizi.train.data import TrainError, game_presets, load
from tests.cli_helpers import ROOT, run
from tests.engine_helpers import apply_json, deal_json, hidden_shuffled

TINY = {"hidden": (32,), "epochs": 3, "batch": 64, "lr": 3e-3, "seed": 5}


def make_dataset(root: Path, rules: str, hands: int, seed: int, encoder: str = "v1") -> Path:
    """``strong`` self-play with records, exported: the dataset's directory."""
    simulate(["strong"] * 4, rules, hands=hands, seed=seed, records=root / "records")
    out = root / "dataset"
    export(hands_from_paths([str(root / "records")]), out, encoder=encoder)
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A tiny Wuhan and a tiny Baishan model, trained from 10 hands each."""
    root = tmp_path_factory.mktemp("learned")
    models = root / "models"
    out: dict[str, Any] = {"models": models}
    for game, rules in (("wuhan", "wuhan-hongzhong-kaikou"), ("baishan", "baishan")):
        data = make_dataset(root / game, rules, hands=10, seed=3)
        decisions = load([data], game)
        config = BCConfig(game=game, recipe="strong self-play, 10 hands", data_seed=3, **TINY)
        card = train_bc(decisions, config, root / f"run-{game}")
        models.mkdir(exist_ok=True)
        (models / model_file(game)).write_bytes(
            (root / f"run-{game}" / model_file(game)).read_bytes()
        )
        out[game] = {
            "data": data,
            "decisions": decisions,
            "card": card,
            "run": root / f"run-{game}",
        }
    return out


def torch_net(run_dir: Path, decisions: Any) -> Any:
    """The torch network of a run's checkpoint."""
    saved = torch.load(run_dir / CHECKPOINT, weights_only=True)
    inputs = saved["net"]["mean"].shape[0]
    hidden = tuple(saved["net"][f"layers.{i}.weight"].shape[0] for i in range(len(TINY["hidden"])))
    net = build_net(torch, inputs, hidden, saved["net"]["mean"], saved["net"]["std"])
    net.load_state_dict(saved["net"])
    return net


@pytest.mark.parametrize("game", ["wuhan", "baishan"])
def test_the_loss_falls_while_cloning(trained, game):
    history = trained[game]["card"]["history"]
    assert [entry["epoch"] for entry in history] == [0, 1, 2, 3]
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert history[-1]["validation_loss"] < history[0]["validation_loss"]
    assert history[-1]["train_accuracy"] > history[0]["train_accuracy"]


def test_the_model_card_names_data_seeds_and_metrics(trained):
    card = trained["wuhan"]["card"]
    decisions = trained["wuhan"]["decisions"]
    assert card["stage"] == "bc" and card["game"] == "wuhan" and card["encoder"] == "v1"
    assert card["presets"] == list(game_presets("wuhan"))
    assert card["recipe"] == "strong self-play, 10 hands" and card["data_seed"] == 3
    assert card["training"]["seed"] == 5 and card["training"]["epochs"] == 3
    assert card["data"]["hands"] == 10 and card["data"]["validation_hands"] == 1
    assert card["data"]["rows_with_a_choice"] == decisions.rows
    assert card["data"]["train_rows"] + card["data"]["validation_rows"] == decisions.rows
    assert card["data"]["rows_per_preset"] == {"wuhan-hongzhong-kaikou": decisions.rows}
    assert card["look"] is True
    assert card["parameters"] == (748 + 204 + 6) * 32 + 32 + 32 * 177 + 177
    assert card["metrics"] == card["history"][-1]
    by_action = card["validation_by_action"]
    assert sum(v["rows"] for v in by_action.values()) == card["data"]["validation_rows"]
    assert "discard" in by_action
    agreed = sum(v["rows"] * v["accuracy"] for v in by_action.values())
    assert agreed / card["data"]["validation_rows"] == pytest.approx(
        card["metrics"]["validation_accuracy"], abs=1e-3
    )
    assert card["training"]["wall_seconds"] > 0
    run_dir = trained["wuhan"]["run"]
    assert json.loads((run_dir / "learned-wuhan.json").read_text()) == card
    markdown = (run_dir / "learned-wuhan.md").read_text()
    assert "| 3 |" in markdown and "data seed 3" in markdown


def test_validation_holds_every_tenth_hand_out(trained):
    decisions = trained["wuhan"]["decisions"]
    # 10 hands: hand 9 (the last) is held out, and it is the tail of the rows
    held = np.flatnonzero(decisions.validation)
    assert len(held) > 0 and held[-1] == decisions.rows - 1
    assert np.all(np.diff(held) == 1)


@pytest.mark.parametrize("game", ["wuhan", "baishan"])
def test_the_npz_round_trips_and_numpy_equals_torch(trained, game):
    run_dir = trained[game]["run"]
    decisions = trained[game]["decisions"]
    model = PolicyModel.load(run_dir / model_file(game))
    assert model.game == game and model.presets == game_presets(game)
    assert model.card == trained[game]["card"]
    net = torch_net(run_dir, decisions)
    for layer, weight, bias in zip(net.layers, model.weights, model.biases, strict=True):
        assert np.array_equal(layer.weight.detach().numpy().T, weight)
        assert np.array_equal(layer.bias.detach().numpy(), bias)
    copy = run_dir / "copy.npz"
    model.save(copy)
    again = PolicyModel.load(copy)
    assert all(np.array_equal(a, b) for a, b in zip(model.weights, again.weights, strict=True))
    assert np.array_equal(model.mean, again.mean) and np.array_equal(model.std, again.std)
    rows = np.arange(min(300, decisions.rows))
    obs = decisions.obs[rows].astype(np.float32).reshape(len(rows), 22, 34)
    assert model.look and again.look
    # the look-ahead the bot works out at play equals what training worked out from the rows
    assert decisions.look is not None
    assert np.array_equal(lookahead_rows(obs), decisions.look[rows])
    x = model.features(obs, decisions.preset[rows])
    assert np.array_equal(
        x, features(obs, decisions.preset[rows], 6 if game == "wuhan" else 1, decisions.look[rows])
    )
    with torch.no_grad():
        expected = net(torch.from_numpy(x)).numpy()
    got = model.logits(x)
    assert np.max(np.abs(got - expected)) <= 1e-5
    assert np.array_equal(
        model.best(x, decisions.mask[rows]),
        np.where(decisions.mask[rows] > 0, expected, -np.inf).argmax(axis=1),
    )


def test_a_resumed_run_ends_where_an_unbroken_one_does(trained, tmp_path):
    decisions = trained["wuhan"]["decisions"]
    short = BCConfig(game="wuhan", **{**TINY, "epochs": 2})
    train_bc(decisions, short, tmp_path / "resumed")
    with pytest.raises(TrainError, match="--resume"):
        train_bc(decisions, short, tmp_path / "resumed")
    full = BCConfig(game="wuhan", **TINY)
    card = train_bc(decisions, full, tmp_path / "resumed", resume=True)
    unbroken = train_bc(decisions, full, tmp_path / "unbroken")
    a = PolicyModel.load(tmp_path / "resumed" / "learned-wuhan.npz")
    b = PolicyModel.load(tmp_path / "unbroken" / "learned-wuhan.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights, strict=True))
    strip = ("seconds",)
    assert [{k: v for k, v in e.items() if k not in strip} for e in card["history"]] == [
        {k: v for k, v in e.items() if k not in strip} for e in unbroken["history"]
    ]
    other = BCConfig(game="wuhan", **{**TINY, "lr": 1e-2})
    with pytest.raises(TrainError, match="other settings"):
        train_bc(decisions, other, tmp_path / "resumed", resume=True)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_the_learned_bot_plays_only_legal_actions_in_every_preset(trained, rules, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(trained["models"]))
    ruleset = make_ruleset(rules)
    for index in range(2):
        bots = [
            make_bot("learned" if s % 2 == index % 2 else "greedy", ruleset.settings, s)
            for s in range(4)
        ]
        out = play_hand(ruleset, bots, index, wall_seed(11, index))  # raises on an illegal action
        assert sum(out.payments) == 0
        assert out.decisions > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.binary(min_size=32, max_size=32),
    steps=st.integers(min_value=0, max_value=60),
    preset_name=st.sampled_from(["wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "baishan"]),
)
def test_a_learned_decision_does_not_depend_on_hidden_tiles(
    trained_models: Path, seed, steps, preset_name
):
    ruleset = make_ruleset(preset_name)
    state, _ = deal_json(ruleset, 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.over:
            return
        seat = state.to_act()[0]
        apply_json(state, rng.choice(legal_actions(state, seat)))
    if state.over:
        return
    seat = state.to_act()[0]
    other = hidden_shuffled(state, seat, rng)
    seen, seen_other = view(state, seat), view(other, seat)
    assert seen == seen_other  # the hidden tiles really differ, the view does not
    model = trained_models / model_file(ruleset.settings.game)
    first = LearnedBot(ruleset.settings, 0, model=model).act(seen, legal_actions(state, seat))
    second = LearnedBot(ruleset.settings, 0, model=model).act(
        seen_other, legal_actions(other, seat)
    )
    assert first == second


@pytest.fixture(scope="module")
def trained_models(trained: dict[str, Any]) -> Path:
    return trained["models"]


def test_the_bot_encodes_only_its_seats_view(trained):
    """The bot's input is encode_view of the view it is handed: nothing else reaches it."""
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    state, _ = deal_json(ruleset, 0, seed=bytes(32))
    bot = LearnedBot(ruleset.settings, 0, model=trained["models"] / "learned-wuhan.npz")
    seen = view(state, 0)
    obs = encode_view(seen)
    assert obs[0].sum() == 14  # its own concealed tiles, none of another seat's
    legal = legal_actions(state, 0)
    assert bot.act(seen, legal) in legal


def test_without_a_model_the_bot_is_refused_with_a_clear_error(tmp_path, monkeypatch, trained):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(BotError, match=r"no model file .*learned-wuhan\.npz"):
        make_bot("learned", PRESETS["wuhan-hongzhong-kaikou"], 0)
    monkeypatch.setenv(ENV_VAR, str(trained["models"] / "learned-wuhan.npz"))
    with pytest.raises(BotError, match="is a wuhan model, the room plays baishan"):
        make_bot("learned", PRESETS["baishan"], 0)


@pytest.mark.parametrize(
    "command",
    [
        ["bc", "--data", "DATA"],
        ["selfplay", "--model", "MODEL", "--rules", "wuhan-hongzhong-kaikou"],
        ["recipe", "learned-v2"],
    ],
    ids=["bc", "selfplay", "recipe"],
)
def test_train_without_torch_exits_1_with_a_clear_message(tmp_path, monkeypatch, command):
    from typer.testing import CliRunner

    from laizi.cli import app

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    (tmp_path / "DATA").mkdir()
    (tmp_path / "MODEL").write_bytes(b"")
    args = [str(tmp_path / a) if a in ("DATA", "MODEL") else a for a in command]
    result = CliRunner().invoke(app, ["train", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    assert "pip install 'laizi[train]'" in result.output
    assert "training needs PyTorch" in result.output and "训练需要 PyTorch" in result.output
    assert not (tmp_path / "o").exists()


def test_laizi_train_bc_end_to_end(trained, tmp_path):
    data = str(trained["baishan"]["data"])
    args = ["train", "bc", "--data", data, "--game", "baishan", "--out", str(tmp_path / "m")]
    tiny = ["--hidden", "16", "--epochs", "2", "--batch", "64", "--seed", "1", "--json"]
    result = run(*args, *tiny, "--recipe", "strong-10", "--data-seed", "3")
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout.splitlines()[-1])
    assert card["game"] == "baishan" and card["presets"] == ["baishan"]
    assert card["hidden"] == [16] and card["recipe"] == "strong-10"
    assert card["history"][-1]["train_loss"] < card["history"][0]["train_loss"]
    assert (tmp_path / "m" / "learned-baishan.npz").is_file()
    again = run(*args, *tiny)
    assert again.returncode == 1 and "--resume" in again.stderr
    more = run(
        *args,
        "--hidden",
        "16",
        "--epochs",
        "3",
        "--batch",
        "64",
        "--seed",
        "1",
        "--resume",
        "--recipe",
        "strong-10",
        "--data-seed",
        "3",
        "--json",
    )
    assert more.returncode == 0, more.stderr
    assert json.loads(more.stdout.splitlines()[-1])["training"]["epochs"] == 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--game", "mahjong"], "--game: one of baishan, wuhan"),
        (["--hidden", "0"], "--hidden: layer sizes"),
    ],
)
def test_bad_train_input_is_exit_1_naming_the_option(trained, tmp_path, extra, message):
    data = str(trained["wuhan"]["data"])
    result = run("train", "bc", "--data", data, "--out", str(tmp_path / "o"), *extra)
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr


def test_missing_data_is_refused_and_v2_data_is_read_through_its_v1_rows(tmp_path):
    with pytest.raises(TrainError, match="no such file or directory"):
        load([tmp_path / "nothing"], "wuhan")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TrainError, match="holds no part-"):
        load([tmp_path / "empty"], "wuhan")
    # The same hands exported in v1 and in v2 (the dataset recipe's encoder): v2's first 22
    # rows are v1's, so the learned bot's training reads the same decisions from both.
    v1 = make_dataset(tmp_path / "v1", "wuhan-hongzhong-kaikou", hands=2, seed=1)
    v2 = tmp_path / "v2"
    export(hands_from_paths([str(tmp_path / "v1" / "records")]), v2, encoder="v2")
    one, two = load([v1], "wuhan"), load([v2], "wuhan")
    assert len(one.action) > 20 and two.obs.shape == one.obs.shape == (len(one.action), 22 * 34)
    assert np.array_equal(one.obs, two.obs) and np.array_equal(one.action, two.action)
    assert np.array_equal(one.mask, two.mask) and np.array_equal(one.validation, two.validation)
    with pytest.raises(TrainError, match="no baishan decisions"):
        load([make_dataset(tmp_path / "w", "wuhan-hongzhong-kaikou", 1, 2)], "baishan")


def test_the_median_decision_takes_at_most_5_ms(tmp_path):
    """Timed at the default size (256, 256): the time does not depend on the weights' values."""
    model = PolicyModel.initial(game_presets("wuhan"), hidden=(256, 256), seed=1)
    model.save(tmp_path / "learned-wuhan.npz")
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    bot = LearnedBot(ruleset.settings, 0, model=tmp_path / "learned-wuhan.npz")
    times: list[float] = []

    class Timed(LearnedBot):
        def __init__(self) -> None:
            self.rules, self.seed, self.model, self.preset = bot.rules, 0, bot.model, bot.preset

        def act(self, view, legal):
            started = time.perf_counter()
            action = bot.act(view, legal)
            if len(legal) > 1:
                times.append(time.perf_counter() - started)
            return action

    for index in range(4):
        bots = [
            Timed() if s == index else make_bot("greedy", ruleset.settings, s) for s in range(4)
        ]
        play_hand(ruleset, bots, index, wall_seed(21, index))
    assert len(times) > 20
    assert statistics.median(times) <= 0.005


def test_the_recipe_script_makes_both_models(tmp_path):
    """scripts/train_learned.sh at a toy size (greedy, a few hands, one epoch of a tiny net)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "BOT": "greedy",
        "EPOCHS": "1",
        "HIDDEN": "8",
    }
    script = ROOT / "scripts" / "train_learned.sh"
    done = subprocess.run(
        ["bash", str(script), str(tmp_path), "2", "1", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for game, presets in (("wuhan", 6), ("baishan", 1)):
        card = json.loads((tmp_path / "models" / f"learned-{game}.json").read_text())
        assert card["hidden"] == [8] and card["training"]["epochs"] == 1
        assert card["recipe"].startswith("simulate --bots greedy x4")
        assert len(card["data"]["files"]) == presets
        assert PolicyModel.load(tmp_path / "models" / f"learned-{game}.npz").game == game


@pytest.mark.parametrize("game", ["wuhan", "baishan"])
def test_the_shipped_model_loads_with_its_card_and_plays(game, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    path = MODELS / model_file(game)
    model = PolicyModel.load(path)
    assert model.game == game and model.presets == game_presets(game)
    assert path.stat().st_size < 3_000_000  # a few MB at most, both together
    card = model.card
    assert card == json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    # the recipe learned-v2: bc on expert@100 self-play with the look-ahead inputs, then self-play
    assert card["recipe"] == "learned-v2" and card["stage"] == "selfplay" and model.look
    lineage = card["lineage"]
    assert lineage[0]["stage"] == "bc" and lineage[0]["recipe"].startswith("learned-v2: expert")
    assert lineage[0]["metrics"]["validation_accuracy"] > 0.7
    assert [s["stage"] for s in lineage[1:]] == ["selfplay"] * (len(lineage) - 1) != []
    assert all(s["selfplay"]["opponent"] == "strong" for s in lineage[1:])
    assert card["data"]["rows_with_a_choice"] > 50_000 and card["data"]["files"]
    assert len(card["history"]) == card["selfplay"]["iterations"] > 0
    for rules in game_presets(game):
        ruleset = make_ruleset(rules)
        bots = [make_bot("learned" if s == 0 else "greedy", ruleset.settings, s) for s in range(4)]
        assert sum(play_hand(ruleset, bots, 0, wall_seed(4, 0)).payments) == 0
