"""What every training stage (``bc``, ``selfplay``) keeps on disk, in one form.

``OUT/checkpoint.pt`` holds a run's state after each step (an epoch, an iteration): the weights,
the optimiser, the history, the seconds spent and the step — written whole or not at all, so a
stopped run resumes from its last finished step.  At the end the weights go out for numpy
(``OUT/learned-<game>.npz``) beside the model card (``.json`` and ``.md``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from laizi.bots.learned import PolicyModel, model_file
from laizi.train.data import TrainError

__all__ = [
    "CHECKPOINT",
    "Resumed",
    "checkpoint_path",
    "load_checkpoint",
    "save_checkpoint",
    "write_model",
]

CHECKPOINT = "checkpoint.pt"


@dataclass
class Resumed:
    """Where a run stands: what the checkpoint held, or a fresh start (step 0)."""

    history: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    step: int = 0


def checkpoint_path(out: Path, resume: bool) -> Path:
    """``OUT/checkpoint.pt``, ``out`` made if missing; TrainError if it exists unless ``resume``."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / CHECKPOINT
    if path.exists() and not resume:
        raise TrainError(f"--out: {out} holds a checkpoint already: --resume to continue it")
    return path


def load_checkpoint(
    torch: Any,
    path: Path,
    identity: dict[str, Any],
    net: Any,
    optimiser: Any,
    *,
    step: str,
    made_from: str,
) -> Resumed:
    """Load ``path`` into ``net`` and ``optimiser`` if it exists; where the run stands.

    ``identity`` must equal the saved one (TrainError naming what differs otherwise: the run's
    settings or its ``made_from``, "data" or "model"); ``step`` is the key of the step count.
    """
    if not path.exists():
        return Resumed()
    saved = torch.load(path, weights_only=True)
    found = json.loads(saved["identity"])
    if found != json.loads(json.dumps(identity)):
        raise TrainError(f"--resume: {path} was made with other settings or {made_from}: {found}")
    net.load_state_dict(saved["net"])
    optimiser.load_state_dict(saved["optimiser"])
    return Resumed(json.loads(saved["history"]), float(saved["seconds"]), int(saved[step]))


def save_checkpoint(
    torch: Any,
    path: Path,
    identity: dict[str, Any],
    net: Any,
    optimiser: Any,
    done: Resumed,
    *,
    step: str,
) -> None:
    """Write the state after step ``done.step`` to ``path`` (through a temporary file)."""
    state = {
        "identity": json.dumps(identity),
        "net": net.state_dict(),
        "optimiser": optimiser.state_dict(),
        "history": json.dumps(done.history),
        "seconds": done.seconds,
        step: done.step,
    }
    partial = path.with_name(path.name + ".tmp")
    torch.save(state, partial)
    partial.replace(path)


def write_model(out: Path, model: PolicyModel, card: dict[str, Any], markdown: str) -> None:
    """``OUT/learned-<game>.npz`` and its card as ``.json`` and ``.md``."""
    name = model_file(model.game)
    model.save(out / name)
    (out / name.replace(".npz", ".json")).write_text(
        json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / name.replace(".npz", ".md")).write_text(markdown, encoding="utf-8")
