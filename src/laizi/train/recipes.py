"""Named training recipes (``laizi train recipe NAME --out DIR``): the shipped models, rebuilt.

A recipe fixes every step of the ``learned`` bot's models: the teacher's self-play (which bot,
which presets, how many hands, which seeds), the export, behaviour cloning per game family
(:mod:`laizi.train.bc`) and self-play improvement (:mod:`laizi.train.selfplay`) — so that a
model card can name it and anyone can run it again from a clean checkout.  Every step resumes:
a self-play run whose records are all there is not played again, an export is kept, a training
run continues its checkpoint.  The models end in ``OUT/models`` (``learned-<game>.{npz,json,md}``,
to be copied into ``src/laizi/data/models`` to ship them).

>>> recipe = find_train_recipe("learned-v2")
>>> len(recipe.games()), recipe.teacher
(2, 'expert-blind@100')
>>> sum(p.hands for p in recipe.plays if p.preset == "wuhan-hongzhong-kaikou")
3000
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from laizi.rules.settings import PRESETS
from laizi.train.data import TrainError

if TYPE_CHECKING:
    from laizi.bots.learned import PolicyModel

__all__ = [
    "TRAIN_RECIPES",
    "Play",
    "SelfPlaySettings",
    "TrainRecipe",
    "find_train_recipe",
    "run_recipe",
]


@dataclass(frozen=True)
class Play:
    """One teacher self-play run: ``laizi simulate --bots BOT×4 --rules PRESET --hands N --seed S
    --records``, exported with encoder ``v1``."""

    preset: str
    hands: int
    seed: int

    @property
    def name(self) -> str:
        return f"{self.preset}-{self.seed}"


@dataclass(frozen=True)
class SelfPlaySettings:
    """A game family's self-play stage (:class:`laizi.train.selfplay.SelfPlayConfig`)."""

    rules: tuple[str, ...]
    iterations: int
    walls: int = 64
    lr: float = 5e-5
    temperature: float = 0.5
    entropy: float = 0.01
    opponent: str = "strong"
    seed: int = 0


@dataclass(frozen=True)
class TrainRecipe:
    """Everything that makes the models (see the module's notes)."""

    name: str
    about: str
    teacher: str
    plays: tuple[Play, ...]
    bc_epochs: dict[str, int]
    bc_seed: int = 29
    hidden: tuple[int, ...] = (256, 256)
    selfplay: dict[str, tuple[SelfPlaySettings, ...]] = field(default_factory=dict)
    """Per game, the self-play stages in order (each starts from the one before)."""

    def games(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(PRESETS[p.preset].game for p in self.plays))

    def describe(self) -> str:
        """The recipe in one line (the model card's ``recipe``)."""
        plays = ", ".join(f"{p.preset} {p.hands} (seed {p.seed})" for p in self.plays)
        return f"{self.name}: {self.teacher} ×4 self-play — {plays}"


TRAIN_RECIPES: dict[str, TrainRecipe] = {}


def register_train_recipe(recipe: TrainRecipe) -> TrainRecipe:
    for play in recipe.plays:
        if play.preset not in PRESETS:
            raise ValueError(f"recipe {recipe.name}: unknown preset {play.preset!r}")
    TRAIN_RECIPES[recipe.name] = recipe
    return recipe


def find_train_recipe(name: str) -> TrainRecipe:
    recipe = TRAIN_RECIPES.get(name)
    if recipe is None:
        known = ", ".join(sorted(TRAIN_RECIPES))
        raise TrainError(f"unknown training recipe {name!r}; known: {known}")
    return recipe


_WUHAN_OTHERS = (
    "wuhan-hongzhong-koukou",
    "wuhan-facai-kaikou",
    "wuhan-facai-koukou",
    "wuhan-qipi-kaikou",
    "wuhan-qipi-koukou",
)

register_train_recipe(
    TrainRecipe(
        name="learned-v2",
        about="the shipped models of 2026-12-04: expert-blind@100 self-play (Wuhan 红中 开口翻 "
        "3,000 hands, the other Wuhan presets 300 each, Baishan 1,500), behaviour cloning with the "
        "look-ahead inputs, then REINFORCE against strong on duplicate walls",
        teacher="expert-blind@100",  # expert@100 when the models were made: the blind search
        plays=(
            Play("wuhan-hongzhong-kaikou", 3000, 29),
            *(Play(p, 300, 30 + k) for k, p in enumerate(_WUHAN_OTHERS)),
            Play("baishan", 1500, 35),
        ),
        bc_epochs={"wuhan": 6, "baishan": 6},
        selfplay={
            "wuhan": (
                SelfPlaySettings(("wuhan-hongzhong-kaikou",), iterations=40, lr=3e-5, seed=1),
                SelfPlaySettings(("wuhan-hongzhong-kaikou",), iterations=240, seed=2),
                SelfPlaySettings(("wuhan-hongzhong-kaikou",), iterations=200, seed=3),
            ),
            "baishan": (SelfPlaySettings(("baishan",), iterations=160, seed=4),),
        },
    )
)

Say = Callable[[str], None]


def run_recipe(
    recipe: TrainRecipe,
    out: Path,
    *,
    workers: int = 1,
    threads: int = 1,
    say: Say = lambda text: None,
    bars: bool = True,
) -> dict[str, dict[str, Any]]:
    """Run (or resume) every step of ``recipe`` in ``out``; each game's final model card.

    ``say`` is told each step as it starts; ``bars``: a progress bar on stderr for each."""
    from contextlib import nullcontext

    from laizi.bots.learned import PolicyModel, model_file
    from laizi.dataset.export import export
    from laizi.dataset.sources import hands_from_paths
    from laizi.sim.simulate import simulate
    from laizi.train.bc import CHECKPOINT, BCConfig, train_bc
    from laizi.train.data import load
    from laizi.train.progress import progress_bar
    from laizi.train.selfplay import SelfPlayConfig, train_selfplay

    for sub in ("records", "data", "models"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for play in recipe.plays:
        records = out / "records" / play.name
        if len(list(records.glob("hand-*.jsonl"))) < play.hands:
            shutil.rmtree(records, ignore_errors=True)
            say(f"self-play {play.name}: {play.hands} hands of {recipe.teacher} ×4")
            simulate(
                [recipe.teacher] * 4,
                play.preset,
                hands=play.hands,
                seed=play.seed,
                workers=workers,
                progress=bars,
                records=records,
            )
        data = out / "data" / play.name
        if not (data / "part-00000.parquet").exists():
            shutil.rmtree(data, ignore_errors=True)
            say(f"export {play.name}")
            export(hands_from_paths([str(records)]), data, encoder="v1")
    cards: dict[str, dict[str, Any]] = {}
    for game in recipe.games():
        paths = [str(out / "data" / p.name) for p in recipe.plays if PRESETS[p.preset].game == game]
        bc_dir = out / f"bc-{game}"
        config = BCConfig(
            game=game,
            hidden=recipe.hidden,
            epochs=recipe.bc_epochs[game],
            seed=recipe.bc_seed,
            recipe=recipe.describe(),
            data_seed=None,
            threads=threads,
            data=paths,
        )
        current = bc_dir / model_file(game)
        steps: list[dict[str, Any]] = []
        card = _finished(current, "bc", config.epochs)
        if card is None:
            say(f"behaviour cloning: {game}")
            decisions = load(paths, game)
            with progress_bar() if bars else nullcontext(None) as progress:
                card = train_bc(
                    decisions,
                    config,
                    bc_dir,
                    resume=(bc_dir / CHECKPOINT).exists(),
                    progress=progress,
                )
        for k, stage in enumerate(recipe.selfplay.get(game, ())):
            steps.append(card)
            stage_dir = out / f"selfplay-{game}-{k}"
            done = _finished(
                stage_dir / model_file(game),
                "selfplay",
                stage.iterations,
                PolicyModel.load(current).fingerprint(),
            )
            if done is not None:
                card, current = done, stage_dir / model_file(game)
                continue
            say(f"self-play stage {k}: {game}")
            with progress_bar() if bars else nullcontext(None) as progress:
                card = train_selfplay(
                    PolicyModel.load(current),
                    SelfPlayConfig(
                        game=game,
                        rules=stage.rules,
                        iterations=stage.iterations,
                        walls=stage.walls,
                        lr=stage.lr,
                        temperature=stage.temperature,
                        entropy=stage.entropy,
                        opponent=stage.opponent,
                        seed=stage.seed,
                        workers=workers,
                        threads=threads,
                    ),
                    stage_dir,
                    resume=(stage_dir / CHECKPOINT).exists(),
                    progress=progress,
                )
            current = stage_dir / model_file(game)
        steps.append(card)
        cards[game] = ship(PolicyModel.load(current), recipe, steps, out / "models")
    return cards


def _finished(
    path: Path, stage: str, steps: int, start: str | None = None
) -> dict[str, Any] | None:
    """The card of a step already done (its model written after all its epochs or iterations,
    from the model of fingerprint ``start``), else None: a finished step is not run, nor its
    model written, again."""
    card_path = path.with_suffix(".json")
    if not (path.exists() and card_path.exists()):
        return None
    card: dict[str, Any] = json.loads(card_path.read_text(encoding="utf-8"))
    done = len(card.get("history", [])) - (1 if stage == "bc" else 0)
    if start is not None and (card.get("start") or {}).get("fingerprint") != start:
        return None
    return card if card.get("stage") == stage and done == steps else None


def ship(
    model: PolicyModel, recipe: TrainRecipe, steps: list[dict[str, Any]], models: Path
) -> dict[str, Any]:
    """Write the recipe's last model to ``models`` with its whole history on its card: the
    recipe, the data it learnt from, and ``lineage`` — every step (``bc``, each self-play
    stage) with its settings, time and metrics.  The weights are the last step's, unchanged."""
    from laizi.bots.learned import model_file

    card = dict(steps[-1])
    first = steps[0]
    card["recipe"] = recipe.name
    card["recipe_about"] = recipe.about
    card["data"] = first.get("data")
    card["lineage"] = [_step(step) for step in steps]
    model.card = card
    name = model_file(model.game)
    models.mkdir(parents=True, exist_ok=True)
    model.save(models / name)
    (models / name.replace(".npz", ".json")).write_text(
        json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (models / name.replace(".npz", ".md")).write_text(_markdown(card), encoding="utf-8")
    return card


def _step(card: dict[str, Any]) -> dict[str, Any]:
    """One step of a model's lineage, for its card."""
    if card.get("stage") == "bc":
        return {
            "stage": "bc",
            "recipe": card.get("recipe"),
            "training": card.get("training"),
            "metrics": card.get("metrics"),
            "validation_by_action": card.get("validation_by_action"),
        }
    margins = [entry["margin"] for entry in card.get("history") or []]
    window = min(20, len(margins)) or 1
    return {
        "stage": card.get("stage"),
        "start": (card.get("start") or {}).get("fingerprint"),
        "selfplay": card.get("selfplay"),
        "margin_first_iterations": round(sum(margins[:window]) / window, 3),
        "margin_last_iterations": round(sum(margins[-window:]) / window, 3),
        "iterations_averaged": window,
    }


def _markdown(card: dict[str, Any]) -> str:
    lines = [
        f"# Model card: {card['name']} (recipe {card['recipe']})",
        "",
        card["recipe_about"],
        "",
        f"- game: {card['game']}; presets (one-hot inputs): {', '.join(card['presets'])}",
        f"- inputs: {card.get('inputs')}; hidden layers: {card.get('hidden')}; "
        f"parameters: {card.get('parameters', '?')}",
    ]
    data = card.get("data") or {}
    if data:
        lines.append(
            f"- data: {data.get('rows_with_a_choice')} decisions with a choice, "
            f"{data.get('hands')} hands ({data.get('train_rows')} train / "
            f"{data.get('validation_rows')} validation rows); per preset "
            f"{data.get('rows_per_preset')}"
        )
        lines += [f"  - {f['path']} (sha256 {f['sha256']})" for f in data.get("files", [])]
    lines += ["", "| step | settings | time (s) | result |", "|---|---|---|---|"]
    for step in card["lineage"]:
        if step["stage"] == "bc":
            t = step["training"] or {}
            m = step["metrics"] or {}
            lines.append(
                f"| bc | {t.get('epochs')} epochs, batch {t.get('batch')}, lr {t.get('lr')}, "
                f"seed {t.get('seed')} | {t.get('wall_seconds')} | validation loss "
                f"{m.get('validation_loss')}, accuracy {m.get('validation_accuracy')} |"
            )
        else:
            run = step["selfplay"] or {}
            lines.append(
                f"| selfplay | {run.get('iterations')} iterations × {run.get('walls')} walls of "
                f"{', '.join(run.get('rules', []))} against {run.get('opponent')}, lr "
                f"{run.get('lr')}, temperature {run.get('temperature')}, seed {run.get('seed')} "
                f"| {run.get('wall_seconds')} | mean margin of the first and last "
                f"{step['iterations_averaged']} iterations: {step['margin_first_iterations']} → "
                f"{step['margin_last_iterations']} |"
            )
    return "\n".join(lines) + "\n"
