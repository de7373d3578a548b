"""Stage ``bc``: behaviour cloning — fit the policy to the dataset's decisions (PyTorch, CPU).

Masked softmax cross-entropy over the legal actions, Adam, minibatches in an order fixed by the
seed and the epoch (so a resumed run sees exactly the batches an unbroken one would).  After
every epoch the state (weights, optimiser, history, time spent) goes to ``OUT/checkpoint.pt``;
``resume=True`` continues from it.  At the end the weights are written for numpy
(:class:`laizi.bots.learned.PolicyModel`, ``OUT/learned-<game>.npz``) with the model card
(``OUT/learned-<game>.json`` and ``.md``).

torch is imported here only (the optional ``train`` extra, ``pip install 'laizi[train]'``);
:func:`require_torch` turns its absence into a :class:`TorchMissing` error with a clear message.
"""

from __future__ import annotations

import datetime
import itertools
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from laizi.bots.learned import OBS_INPUTS, PolicyModel, features
from laizi.bots.lookahead import LOOK_INPUTS, lookahead_rows
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE, describe_action
from laizi.train.checkpoint import (
    CHECKPOINT,
    checkpoint_path,
    load_checkpoint,
    save_checkpoint,
    write_model,
)
from laizi.train.data import VALIDATION_EVERY, Decisions, TrainError
from laizi.train.progress import Progress

__all__ = ["CHECKPOINT", "BCConfig", "TorchMissing", "build_net", "require_torch", "train_bc"]

TORCH_PIN = "2.13.0"
"""The torch of the ``train`` extra (pyproject.toml): its CPU wheel."""


class TorchMissing(RuntimeError):
    """torch is not installed: the message says how to install it, in Chinese and English."""


def require_torch() -> Any:
    """The ``torch`` module, or :class:`TorchMissing`."""
    try:
        import torch
    except ImportError:
        raise TorchMissing(
            "训练需要 PyTorch：pip install 'laizi[train]'（torch=="
            + TORCH_PIN
            + "，CPU 版）/ training needs PyTorch: pip install 'laizi[train]' (torch=="
            + TORCH_PIN
            + ", the CPU build)"
        ) from None
    return torch


@dataclass
class BCConfig:
    """What a run is: everything here must match for ``resume`` to continue a checkpoint."""

    game: str
    hidden: tuple[int, ...] = (256, 256)
    epochs: int = 10
    batch: int = 512
    lr: float = 1e-3
    seed: int = 0
    recipe: str = "unknown"
    data_seed: int | None = None
    threads: int = 1
    data: list[str] = field(default_factory=list)
    look: bool = True
    """Give the network the look-ahead planes (:mod:`laizi.bots.lookahead`) as inputs too."""

    def identity(self) -> dict[str, Any]:
        """The fields a checkpoint must share to be resumed (``epochs`` may grow)."""
        own = asdict(self)
        own.pop("epochs")
        own.pop("threads")
        own["hidden"] = list(self.hidden)
        return own


def build_net(torch: Any, inputs: int, hidden: tuple[int, ...], mean: Any, std: Any) -> Any:
    """The torch twin of :class:`PolicyModel`: normalise, ReLU layers, 177 logits."""
    nn = torch.nn

    class Net(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
            self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))
            sizes = [inputs, *hidden, NUM_ACTIONS]
            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))

        def forward(self, x: Any) -> Any:
            h = (x - self.mean) / self.std
            for layer in self.layers[:-1]:
                h = torch.relu(layer(h))
            return self.layers[-1](h)

    return Net()


def to_model(
    net: Any, game: str, presets: tuple[str, ...], card: dict[str, Any], look: bool = False
) -> PolicyModel:
    """The numpy model of a torch net (weights transposed to ``(fan_in, fan_out)``)."""
    return PolicyModel(
        game,
        presets,
        net.mean.detach().numpy().copy(),
        net.std.detach().numpy().copy(),
        [layer.weight.detach().numpy().T.copy() for layer in net.layers],
        [layer.bias.detach().numpy().copy() for layer in net.layers],
        card,
        look,
    )


def add_lookahead(data: Decisions, progress: Progress | None = None) -> None:
    """Work out every row's look-ahead inputs once (``data.look``), in chunks, with progress."""
    if data.look is not None:
        return
    look = np.zeros((data.rows, LOOK_INPUTS), np.float32)
    for start in range(0, data.rows, 2048):
        part = slice(start, start + 2048)
        look[part] = lookahead_rows(data.obs[part])
        if progress is not None:
            progress(min(start + 2048, data.rows), data.rows, "look-ahead")
    data.look = look


def _width(data: Decisions) -> int:
    return OBS_INPUTS + (0 if data.look is None else LOOK_INPUTS) + len(data.presets)


def _x(data: Decisions, rows: np.ndarray) -> np.ndarray:
    """The network's inputs for some rows (:func:`laizi.bots.learned.features`)."""
    obs = data.obs[rows].reshape(len(rows), *OBS_SHAPE)
    look = None if data.look is None else data.look[rows]
    return features(obs, data.preset[rows], len(data.presets), look)


def _inputs(torch: Any, data: Decisions, rows: np.ndarray) -> tuple[Any, Any, Any]:
    """Features (the observation, view-only scalars zeroed, the look-ahead planes when used,
    then the preset one-hot), masks and labels of some rows, as tensors."""
    return (
        torch.from_numpy(_x(data, rows)),
        torch.from_numpy(data.mask[rows].astype(bool)),
        torch.from_numpy(data.action[rows]),
    )


def _normaliser(data: Decisions, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and spread of the training rows' features (spread at least 1: a one-hot column is
    not blown up), in chunks so the observations are never copied whole to float."""
    width = _width(data)
    total = np.zeros(width)
    squares = np.zeros(width)
    for start in range(0, len(rows), 16384):
        part = rows[start : start + 16384]
        x = _x(data, part).astype(np.float64)
        total += x.sum(axis=0)
        squares += (x * x).sum(axis=0)
    n = max(len(rows), 1)
    mean = total / n
    std = np.sqrt(np.maximum(squares / n - mean * mean, 0))
    return mean.astype(np.float32), np.maximum(std, 1.0).astype(np.float32)


def _evaluate(torch: Any, net: Any, data: Decisions, rows: np.ndarray) -> tuple[float, float]:
    """Mean masked cross-entropy and how often the argmax is the teacher's action."""
    if not len(rows):
        return float("nan"), float("nan")
    loss = correct = 0.0
    with torch.no_grad():
        for start in range(0, len(rows), 4096):
            x, mask, y = _inputs(torch, data, rows[start : start + 4096])
            logits = net(x).masked_fill(~mask, -1e9)
            loss += float(torch.nn.functional.cross_entropy(logits, y, reduction="sum"))
            correct += float((logits.argmax(dim=1) == y).sum())
    return loss / len(rows), correct / len(rows)


def agreement_by_action(model: PolicyModel, data: Decisions, rows: np.ndarray) -> dict[str, Any]:
    """For each kind of action the teacher took (``discard``, ``pung``, ``pass`` …): how many
    rows, and how often the model's argmax is the teacher's action there."""
    kinds = np.array([describe_action(a).split(" ")[0] for a in range(NUM_ACTIONS)])
    teacher = kinds[data.action[rows]]
    agree = np.zeros(len(rows), bool)
    for start in range(0, len(rows), 4096):
        part = rows[start : start + 4096]
        x = _x(data, part)
        agree[start : start + len(part)] = model.best(x, data.mask[part]) == data.action[part]
    return {
        kind: {
            "rows": int((teacher == kind).sum()),
            "accuracy": round(float(agree[teacher == kind].mean()), 4),
        }
        for kind in sorted(set(teacher.tolist()))
    }


def train_bc(
    data: Decisions,
    config: BCConfig,
    out: Path,
    *,
    resume: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Train (or resume), write the weights and the model card into ``out``; the card."""
    torch = require_torch()
    path = checkpoint_path(out, resume)
    torch.set_num_threads(config.threads)
    train_rows = np.flatnonzero(~data.validation)
    held_rows = np.flatnonzero(data.validation)
    if not len(train_rows):
        raise TrainError("--data: every hand is held out for validation: give more hands")
    if config.look:
        add_lookahead(data, progress)
    else:
        data.look = None
    torch.manual_seed(config.seed)
    mean, std = _normaliser(data, train_rows)
    net = build_net(torch, _width(data), config.hidden, mean, std)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.lr)
    run = load_checkpoint(
        torch, path, config.identity(), net, optimiser, step="epoch", made_from="data"
    )
    history = run.history
    if not history:
        loss, accuracy = _evaluate(torch, net, data, train_rows)
        val_loss, val_accuracy = _evaluate(torch, net, data, held_rows)
        history.append(_epoch_entry(0, loss, accuracy, val_loss, val_accuracy, 0.0))
    steps_per_epoch = -(-len(train_rows) // config.batch)
    total = steps_per_epoch * config.epochs
    for epoch in range(run.step + 1, config.epochs + 1):
        started = time.perf_counter()
        order = np.random.default_rng([config.seed, epoch]).permutation(train_rows)
        loss_sum = correct = 0.0
        for step in range(steps_per_epoch):
            x, mask, y = _inputs(
                torch, data, order[step * config.batch : (step + 1) * config.batch]
            )
            logits = net(x).masked_fill(~mask, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            loss_sum += loss.item() * len(y)
            correct += float((logits.argmax(dim=1) == y).sum())
            if progress is not None:
                done = (epoch - 1) * steps_per_epoch + step + 1
                progress(done, total, f"epoch {epoch}/{config.epochs} loss {loss.item():.3f}")
        val_loss, val_accuracy = _evaluate(torch, net, data, held_rows)
        spent = time.perf_counter() - started
        run.seconds += spent
        run.step = epoch
        history.append(
            _epoch_entry(
                epoch,
                loss_sum / len(train_rows),
                correct / len(train_rows),
                val_loss,
                val_accuracy,
                spent,
            )
        )
        save_checkpoint(torch, path, config.identity(), net, optimiser, run, step="epoch")
    card = model_card(data, config, history, run.seconds, torch.__version__)
    model = to_model(net, config.game, data.presets, card, look=config.look)
    card["parameters"] = model.parameters  # the same dict: saved with the weights too
    card["validation_by_action"] = agreement_by_action(model, data, held_rows)
    write_model(out, model, card, card_markdown(card))
    return card


def _epoch_entry(
    epoch: int, loss: float, accuracy: float, val_loss: float, val_accuracy: float, seconds: float
) -> dict[str, Any]:
    def r(value: float) -> float | None:
        return None if value != value else round(value, 5)  # NaN (no validation rows) → null

    return {
        "epoch": epoch,
        "train_loss": r(loss),
        "train_accuracy": r(accuracy),
        "validation_loss": r(val_loss),
        "validation_accuracy": r(val_accuracy),
        "seconds": round(seconds, 2),
    }


def model_card(
    data: Decisions, config: BCConfig, history: list[dict[str, Any]], seconds: float, torch: str
) -> dict[str, Any]:
    """The model card: what the model is, what it learnt from, how, and how well."""
    from laizi import __version__

    return {
        "name": f"learned-{config.game}",
        "stage": "bc",
        "game": config.game,
        "presets": list(data.presets),
        "encoder": "v1",
        "inputs": f"{OBS_INPUTS} observation values (v1, after_kong and win_locked zeroed) + "
        + (f"{LOOK_INPUTS} look-ahead values + " if config.look else "")
        + f"{len(data.presets)} preset one-hot",
        "look": config.look,
        "hidden": list(config.hidden),
        "recipe": config.recipe,
        "data_seed": config.data_seed,
        "data": {"paths": config.data, **data.summary()},
        "training": {
            "seed": config.seed,
            "epochs": len(history) - 1,
            "batch": config.batch,
            "lr": config.lr,
            "optimiser": "Adam",
            "loss": "masked softmax cross-entropy over the legal actions",
            "threads": config.threads,
            "wall_seconds": round(seconds, 3),
            "torch": torch,
            "laizi": __version__,
            "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "metrics": history[-1],
        "history": history,
    }


def card_markdown(card: dict[str, Any]) -> str:
    """The model card as Markdown (the JSON's figures, for people)."""
    data, training = card["data"], card["training"]
    lines = [
        f"# Model card: {card['name']} (stage {card['stage']})",
        "",
        f"- game: {card['game']}; presets (one-hot inputs): {', '.join(card['presets'])}",
        f"- inputs: {card['inputs']}; hidden layers: {card['hidden']}; "
        f"parameters: {card.get('parameters', '?')}",
        f"- data: recipe `{card['recipe']}`, data seed {card['data_seed']}; "
        f"{data['rows_with_a_choice']} decisions with a choice of {data['rows_read']} rows, "
        f"{data['hands']} hands ({data['train_rows']} train / {data['validation_rows']} "
        f"validation rows, every {VALIDATION_EVERY}th hand held out)",
        f"- rows per preset: {data['rows_per_preset']}",
        "- files: " + ", ".join(f"{f['path']} (sha256 {f['sha256'][:12]}…)" for f in data["files"]),
        f"- training: seed {training['seed']}, {training['epochs']} epochs, batch "
        f"{training['batch']}, Adam lr {training['lr']}, {training['threads']} thread(s), "
        f"{training['wall_seconds']} s wall time, torch {training['torch']}, laizi "
        f"{training['laizi']}, {training['created']}",
        "",
        "| epoch | train loss | train accuracy | validation loss | validation accuracy | s |",
        "|---|---|---|---|---|---|",
    ]
    for entry in card["history"]:
        lines.append(
            f"| {entry['epoch']} | {entry['train_loss']} | {entry['train_accuracy']} | "
            f"{entry['validation_loss']} | {entry['validation_accuracy']} | {entry['seconds']} |"
        )
    by_action = card.get("validation_by_action") or {}
    if by_action:
        lines += ["", "| teacher's action | validation rows | agreement |", "|---|---|---|"]
        lines += [f"| {k} | {v['rows']} | {v['accuracy']} |" for k, v in by_action.items()]
    return "\n".join(lines) + "\n"
