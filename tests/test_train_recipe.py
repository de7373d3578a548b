"""``laizi train recipe NAME --out DIR`` (issue 29 item 5): a named recipe runs every step —
teacher self-play, export, behaviour cloning, self-play — resumes where it stopped, and gives
the same models again."""

from __future__ import annotations

import numpy as np
import pytest

from laizi.bots.learned import PolicyModel
from laizi.train.recipes import (
    TRAIN_RECIPES,
    Play,
    SelfPlaySettings,
    TrainRecipe,
    find_train_recipe,
    register_train_recipe,
    run_recipe,
)
from tests.cli_helpers import run

TINY = TrainRecipe(
    name="tiny-test",
    about="two presets, a few hands of strong, one epoch, one iteration",
    teacher="strong",
    plays=(Play("wuhan-hongzhong-kaikou", 6, 1), Play("baishan", 6, 2)),
    bc_epochs={"wuhan": 1, "baishan": 1},
    hidden=(16,),
    selfplay={"wuhan": (SelfPlaySettings(("wuhan-hongzhong-kaikou",), iterations=1, walls=4),)},
)


@pytest.fixture
def tiny():
    register_train_recipe(TINY)
    yield TINY
    TRAIN_RECIPES.pop(TINY.name)


def test_a_recipe_runs_every_step_and_resumes_to_the_same_models(tiny, tmp_path):
    cards = run_recipe(tiny, tmp_path / "run", bars=False)
    assert cards["wuhan"]["stage"] == "selfplay" and cards["baishan"]["stage"] == "bc"
    assert cards["baishan"]["recipe"] == cards["wuhan"]["recipe"] == "tiny-test"
    bc, selfplay = cards["wuhan"]["lineage"]
    assert bc["stage"] == "bc" and bc["recipe"].startswith("tiny-test: strong ×4 self-play")
    assert selfplay["stage"] == "selfplay" and selfplay["selfplay"]["iterations"] == 1
    assert [s["stage"] for s in cards["baishan"]["lineage"]] == ["bc"]
    assert cards["wuhan"]["data"]["rows_per_preset"].keys() == {"wuhan-hongzhong-kaikou"}
    shipped = PolicyModel.load(tmp_path / "run" / "models" / "learned-wuhan.npz")
    assert shipped.card == cards["wuhan"]
    assert (
        shipped.fingerprint()
        == PolicyModel.load(
            tmp_path / "run" / "selfplay-wuhan-0" / "learned-wuhan.npz"
        ).fingerprint()
    )
    models = tmp_path / "run" / "models"
    assert sorted(p.name for p in models.iterdir()) == [
        f"learned-{g}.{x}" for g in ("baishan", "wuhan") for x in ("json", "md", "npz")
    ]
    assert len(list((tmp_path / "run" / "records" / "baishan-2").glob("hand-*.jsonl"))) == 6
    first = PolicyModel.load(models / "learned-wuhan.npz")
    record = tmp_path / "run" / "records" / "baishan-2" / "hand-000000.jsonl"
    stamp = record.stat().st_mtime_ns
    said: list[str] = []
    again = run_recipe(tiny, tmp_path / "run", bars=False, say=said.append)
    assert record.stat().st_mtime_ns == stamp  # the records are there: not played again
    assert not any(s.startswith(("self-play baishan", "export")) for s in said)
    assert again["wuhan"]["history"] == cards["wuhan"]["history"]
    second = PolicyModel.load(models / "learned-wuhan.npz")
    assert all(np.array_equal(a, b) for a, b in zip(first.weights, second.weights, strict=True))


def test_the_shipped_recipe_is_named_and_an_unknown_one_refused(tmp_path):
    recipe = find_train_recipe("learned-v2")
    assert recipe.games() == ("wuhan", "baishan") and recipe.teacher == "expert-blind@100"
    done = run("train", "recipe", "no-such-recipe", "--out", str(tmp_path))
    assert done.returncode == 1 and "learned-v2" in done.stderr
