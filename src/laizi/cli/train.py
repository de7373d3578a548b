"""``laizi train bc --data DATASET… --game wuhan|baishan --out DIR [--resume] [--json]``.

Stage ``bc`` (behaviour cloning) of the ``learned`` bot's policy (docs/bots.md, "learned"):
fit a small MLP to the decisions of ``laizi export`` Parquet datasets, with fixed seeds, a
checkpoint after every epoch (``--resume`` continues it) and a progress bar; write the numpy
weights (``learned-<game>.npz``) and the model card (``.json`` and ``.md``) into ``--out``.
Needs the optional ``train`` extra (PyTorch); exit 1 with a message without it.  The self-play
stage is not built yet: there is no ``laizi train selfplay``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from laizi.cli.common import LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import pick

if TYPE_CHECKING:
    from laizi.train.bc import BCConfig
    from laizi.train.data import Decisions

__all__ = ["bc_command", "train_app"]

train_app = typer.Typer(
    help="Train the learned bot's policy (stage bc: behaviour cloning from a dataset).",
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
    """Train the learned bot's policy: stage bc (behaviour cloning from laizi export datasets)."""


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
    try:
        from laizi.train.bc import BCConfig, TorchMissing, require_torch
        from laizi.train.data import TrainError, load
    except ImportError as error:  # numpy: a plain install lacks it
        fail(f"training needs the train extra: pip install 'laizi[train]' ({error})")

    try:
        require_torch()
        decisions = load(data, game)
    except (TorchMissing, TrainError) as error:
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
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from laizi.train.bc import train_bc
    from laizi.train.data import TrainError

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task = bar.add_task("bc", total=None)

    def progress(done: int, total: int, label: str) -> None:
        bar.update(task, completed=done, total=total, description=label)

    try:
        with bar:
            return train_bc(decisions, config, out, resume=resume, progress=progress)
    except TrainError as error:
        fail(str(error))
