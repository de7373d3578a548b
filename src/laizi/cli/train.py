"""``laizi train bc --data DATASET… --game wuhan|baishan --out DIR [--resume] [--json]``.

Stage ``bc`` (behaviour cloning) of the ``learned`` bot's policy (docs/bots.md, "learned"):
fit a small MLP to the decisions of ``laizi export`` Parquet datasets, with fixed seeds, a
checkpoint after every epoch (``--resume`` continues it) and a progress bar; write the numpy
weights (``learned-<game>.npz``) and the model card (``.json`` and ``.md``) into ``--out``.
``laizi train selfplay --model FILE --rules PRESET[,…] --out DIR`` improves a trained policy by
REINFORCE on duplicate walls (:mod:`laizi.train.selfplay`).  Both need the optional ``train`` extra
(PyTorch); exit 1 with a message without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from laizi.cli.common import LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import pick

if TYPE_CHECKING:
    from laizi.train.bc import BCConfig
    from laizi.train.data import Decisions

__all__ = ["bc_command", "recipe_command", "selfplay_command", "train_app"]

train_app = typer.Typer(
    help="Train the learned bot's policy: bc (behaviour cloning from a dataset), then "
    "selfplay (policy gradient on duplicate walls).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(train_app, name="train")


DataOption = typer.Option(
    ...,
    "--data",
    metavar="PATH",
    help="A laizi export dataset: a directory of part-*.parquet or one file (repeatable).",
)


@train_app.callback()
def _train() -> None:
    """Train the learned bot's policy: bc (behaviour cloning from laizi export datasets), then
    selfplay (REINFORCE on duplicate walls)."""


def _need_training() -> None:
    """Exit with the reason unless the ``train`` extra (numpy, torch) is installed."""
    try:
        from laizi.train.bc import TorchMissing, require_torch
    except ImportError as error:  # numpy: a plain install lacks it
        fail(f"training needs the train extra: pip install 'laizi[train]' ({error})")
    try:
        require_torch()
    except TorchMissing as error:
        fail(str(error))


def _hidden(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        fail(f"--hidden: layer sizes as whole numbers, comma-separated (256,256), got {text!r}")
    return sizes


@train_app.command("bc")
def bc_command(
    data: list[str] = DataOption,
    game: str = typer.Option(
        "wuhan", "--game", help="The game family: wuhan (every Wuhan preset) or baishan."
    ),
    out: str = typer.Option(
        ..., "--out", metavar="DIR", help="Where weights, card, checkpoint go."
    ),
    epochs: int = typer.Option(10, "--epochs", min=1, help="Passes over the training rows."),
    hidden: str = typer.Option("256,256", "--hidden", help="Hidden layer sizes, comma-separated."),
    batch: int = typer.Option(512, "--batch", min=1, help="Rows per optimiser step."),
    lr: float = typer.Option(1e-3, "--lr", min=1e-7, max=1.0, help="Adam's learning rate."),
    seed: int = typer.Option(0, "--seed", help="Training seed (weights, batch order)."),
    recipe: str = typer.Option(
        "unknown", "--recipe", help="How the data was made (named in the model card)."
    ),
    data_seed: int | None = typer.Option(
        None, "--data-seed", help="The seed the data was made with (named in the model card)."
    ),
    threads: int = typer.Option(1, "--threads", min=1, help="CPU threads for torch."),
    look: bool = typer.Option(
        True,
        "--look/--no-look",
        help="Look-ahead inputs (shanten and useful tiles after each discard, docs/bots.md).",
    ),
    resume: bool = typer.Option(False, "--resume", help="Continue OUT's checkpoint."),
    as_json: bool = typer.Option(False, "--json", help="Print the model card as JSON."),
    lang: str | None = LangOption,
) -> None:
    """Behaviour cloning: fit the policy to a dataset's decisions; write weights and card."""
    language = lang_or_exit(lang)
    sizes = _hidden(hidden)
    _need_training()
    from laizi.train.bc import BCConfig
    from laizi.train.data import TrainError, load

    try:
        decisions = load(data, game)
    except TrainError as error:
        fail(str(error))
    except RuntimeError as error:  # pyarrow missing (laizi.dataset.parquet)
        fail(str(error))
    config = BCConfig(
        game=game,
        hidden=sizes,
        epochs=epochs,
        batch=batch,
        lr=lr,
        seed=seed,
        recipe=recipe,
        data_seed=data_seed,
        threads=threads,
        data=[str(Path(p)) for p in data],
        look=look,
    )
    typer.echo(
        pick(
            language,
            f"{decisions.rows} 个有选择的决策（{decisions.hands} 局），训练 {epochs} 轮",
            f"{decisions.rows} decisions with a choice ({decisions.hands} hands), {epochs} epochs",
        ),
        err=True,
    )
    card = _run(decisions, config, Path(out), resume)
    metrics = card["metrics"]
    if as_json:
        typer.echo(dumps(card))
        return
    typer.echo(
        pick(
            language,
            f"已写入 {out}：训练 {card['training']['wall_seconds']} 秒，验证集损失 "
            f"{metrics['validation_loss']}、准确率 {metrics['validation_accuracy']}",
            f"written to {out}: {card['training']['wall_seconds']} s of training, validation "
            f"loss {metrics['validation_loss']}, accuracy {metrics['validation_accuracy']}",
        )
    )


def _run(decisions: Decisions, config: BCConfig, out: Path, resume: bool) -> dict[str, Any]:
    """Train with a rich progress bar on stderr; exit 1 on bad input."""
    from laizi.train.bc import train_bc

    return _with_bar(
        lambda progress: train_bc(decisions, config, out, resume=resume, progress=progress)
    )


def _with_bar(work: Callable[[Callable[[int, int, str], None]], dict[str, Any]]) -> dict[str, Any]:
    """Run ``work(progress)`` under a rich progress bar on stderr; exit 1 on bad input."""
    from laizi.bots.base import BotError
    from laizi.train.data import TrainError
    from laizi.train.progress import progress_bar

    try:
        with progress_bar() as progress:
            return work(progress)
    except (TrainError, BotError) as error:
        fail(str(error))


@train_app.command("selfplay")
def selfplay_command(
    model: str = typer.Option(
        ..., "--model", metavar="FILE", help="The policy to improve: a learned-<game>.npz."
    ),
    rules: str = typer.Option(
        ...,
        "--rules",
        help="The presets to play, comma-separated, one per iteration in turn "
        "(wuhan-hongzhong-kaikou,wuhan-facai-kaikou).",
    ),
    out: str = typer.Option(
        ..., "--out", metavar="DIR", help="Where weights, card, checkpoint go."
    ),
    iterations: int = typer.Option(20, "--iterations", min=1, help="Rounds of play and update."),
    walls: int = typer.Option(
        64, "--walls", min=1, help="Walls per iteration (each played four times)."
    ),
    lr: float = typer.Option(3e-5, "--lr", min=1e-8, max=1.0, help="Adam's learning rate."),
    temperature: float = typer.Option(
        1.0, "--temperature", min=0.05, max=10.0, help="Sampling temperature of the learner."
    ),
    entropy: float = typer.Option(0.01, "--entropy", min=0.0, help="Entropy bonus weight."),
    opponent: str = typer.Option(
        "best",
        "--opponent",
        help="best (the starting policy, frozen) or a bot name (strong, greedy …).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the walls, the samples, the batches."),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes for the play."),
    threads: int = typer.Option(1, "--threads", min=1, help="CPU threads for torch."),
    resume: bool = typer.Option(False, "--resume", help="Continue OUT's checkpoint."),
    as_json: bool = typer.Option(False, "--json", help="Print the model card as JSON."),
    lang: str | None = LangOption,
) -> None:
    """Self-play: improve a policy by REINFORCE on duplicate walls; write weights and card."""
    language = lang_or_exit(lang)
    _need_training()
    from laizi.bots.base import BotError
    from laizi.bots.learned import PolicyModel
    from laizi.train.selfplay import SelfPlayConfig, train_selfplay

    presets = tuple(p.strip() for p in rules.split(",") if p.strip())
    if not presets:
        fail("--rules: name at least one preset")
    try:
        start = PolicyModel.load(Path(model))
    except BotError as error:
        fail(str(error))
    config = SelfPlayConfig(
        game=start.game,
        rules=presets,
        iterations=iterations,
        walls=walls,
        lr=lr,
        temperature=temperature,
        entropy=entropy,
        opponent=opponent,
        seed=seed,
        workers=workers,
        threads=threads,
    )
    card = _with_bar(
        lambda progress: train_selfplay(start, config, Path(out), resume=resume, progress=progress)
    )
    if as_json:
        typer.echo(dumps(card))
        return
    last = card["metrics"]
    typer.echo(
        pick(
            language,
            f"已写入 {out}：{card['selfplay']['iterations']} 轮自我对弈，"
            f"{card['selfplay']['wall_seconds']} 秒；最后一轮对 {opponent} "
            f"每局 {last['margin']} 分",
            f"written to {out}: {card['selfplay']['iterations']} iterations of self-play in "
            f"{card['selfplay']['wall_seconds']} s; the last one {last['margin']} points per hand "
            f"against {opponent}",
        )
    )


@train_app.command("recipe")
def recipe_command(
    name: str = typer.Argument(..., help="The training recipe (learned-v2)."),
    out: str = typer.Option(
        ..., "--out", metavar="DIR", help="Where records, data, runs and models go."
    ),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes for the play."),
    threads: int = typer.Option(1, "--threads", min=1, help="CPU threads for torch."),
    as_json: bool = typer.Option(False, "--json", help="Print the model cards as JSON."),
    lang: str | None = LangOption,
) -> None:
    """Run a named recipe end to end (teacher self-play, export, bc, self-play); resumable."""
    language = lang_or_exit(lang)
    _need_training()
    from laizi.train.data import TrainError
    from laizi.train.recipes import find_train_recipe, run_recipe

    try:
        recipe = find_train_recipe(name)
    except TrainError as error:
        fail(str(error))

    def say(text: str) -> None:
        typer.echo(text, err=True)

    from laizi.bots.base import BotError

    try:
        cards = run_recipe(recipe, Path(out), workers=workers, threads=threads, say=say)
    except (TrainError, BotError) as error:
        fail(str(error))
    if as_json:
        typer.echo(dumps(cards))
        return
    for game, card in cards.items():
        typer.echo(
            pick(
                language,
                f"{game}：{Path(out) / 'models'}（{card['stage']} 阶段）",
                f"{game}: {Path(out) / 'models'} (stage {card['stage']})",
            )
        )
