"""The behaviour-cloning data: the decisions of ``laizi export`` Parquet files, held in memory.

Every ``--data`` path is a Parquet file or a directory searched (recursively) for
``part-*.parquet``; the learned bot reads encoder ``v1`` observations (what a bot can build from
its view, :func:`laizi.env.views.encode_view`): a ``v1`` file is read as it is, a ``v2`` file
(``laizi export --encoder v2``, the ``expert-selfplay-v1`` recipe) through its first 22 rows,
which are ``v1``'s (``laizi.env.encoders.V2_ROWS["v1"]``).  Only the rows of one game family
are kept, and only decisions with a choice (``legal > 1``: a forced move teaches nothing).
Every tenth hand, in the order read, is held out for validation — by hand, so no hand is on
both sides.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.rules.settings import PRESETS

__all__ = ["VALIDATION_EVERY", "Decisions", "TrainError", "dataset_files", "game_presets", "load"]

VALIDATION_EVERY = 10
"""Hand *k* (in the order read, from 0) is held out when ``k % 10 == 9``."""
_COLUMNS = ["hand", "game", "preset", "obs", "mask", "action", "legal"]


class TrainError(ValueError):
    """Bad training input (no data, a wrong encoder, an unknown game …): the message says which."""


def game_presets(game: str) -> tuple[str, ...]:
    """The presets of a game family, in the registry's order: the model's one-hot columns."""
    presets = tuple(name for name, settings in PRESETS.items() if settings.game == game)
    if not presets:
        games = sorted({settings.game for settings in PRESETS.values()})
        raise TrainError(f"--game: one of {', '.join(games)}, got {game!r}")
    return presets


def dataset_files(paths: Sequence[str | Path]) -> list[Path]:
    """The Parquet files named by ``paths`` (files, or directories of ``part-*.parquet``)."""
    if not paths:
        raise TrainError("--data: name at least one dataset (laizi export's --out directory)")
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(path.rglob("part-*.parquet"))
            if not found:
                raise TrainError(f"--data: {path} holds no part-*.parquet (laizi export --out)")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise TrainError(f"--data: no such file or directory: {path}")
    return files


@dataclass
class Decisions:
    """The rows kept: observations (``(n, 748)``, uint8 when every value is a small whole
    number, else float32), masks, actions, each row's preset column, and its hand's side."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    preset: np.ndarray
    validation: np.ndarray
    presets: tuple[str, ...]
    files: list[dict[str, Any]] = field(default_factory=list)
    rows_read: int = 0
    hands: int = 0
    look: np.ndarray | None = None
    """The rows' look-ahead inputs (``(n, 204)``), once worked out (``laizi.train.bc``)."""

    @property
    def rows(self) -> int:
        return len(self.action)

    def summary(self) -> dict[str, Any]:
        """The model card's ``data`` figures."""
        counts = Counter(self.preset.tolist())
        held = int(self.validation.sum())
        return {
            "files": self.files,
            "rows_read": self.rows_read,
            "rows_with_a_choice": self.rows,
            "train_rows": self.rows - held,
            "validation_rows": held,
            "hands": self.hands,
            "validation_hands": self.hands // VALIDATION_EVERY,
            "rows_per_preset": {self.presets[k]: v for k, v in sorted(counts.items())},
        }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _v1_rows(meta: dict[str, Any]) -> int | None:
    """How many leading values of a row's flattened observation are ``v1``'s (None: not read)."""
    from laizi.env.encoders import V2, V2_ROWS

    shape = tuple(meta.get("obs_shape", ()))
    if meta.get("encoder") == "v1" and shape == OBS_SHAPE:
        return OBS_SHAPE[0] * OBS_SHAPE[1]
    if meta.get("encoder") == "v2" and shape == V2.shape and V2_ROWS["v1"] == (0, OBS_SHAPE[0]):
        return OBS_SHAPE[0] * OBS_SHAPE[1]
    return None


def load(paths: Sequence[str | Path], game: str) -> Decisions:
    """Read every file's rows of ``game`` with a choice; :class:`TrainError` when there are none."""
    from laizi.dataset.parquet import dataset_metadata, read_rows

    presets = game_presets(game)
    column = {name: k for k, name in enumerate(presets)}
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "action", "preset")}
    held: list[np.ndarray] = []
    files: list[dict[str, Any]] = []
    hands = rows_read = 0
    for path in dataset_files(paths):
        try:
            meta = dataset_metadata(path)
        except Exception as error:  # pyarrow's errors have no common base worth naming
            raise TrainError(
                f"--data: {path} is not a laizi export Parquet file ({error})"
            ) from None
        rows = _v1_rows(meta)
        if rows is None:
            raise TrainError(
                f"--data: {path} holds encoder {meta.get('encoder')} observations of shape "
                f"{meta.get('obs_shape')}; the learned bot reads v1 (or v2's first 22 rows)"
            )
        file_rows = 0
        last_hand: int | None = None
        for batch in read_rows(path, columns=_COLUMNS):
            rows_read += len(batch["action"])
            hand_numbers = batch["hand"]
            # the hand's running number over all files: a new hand wherever the number changes
            starts = np.ones(len(hand_numbers), bool)
            starts[1:] = hand_numbers[1:] != hand_numbers[:-1]
            if len(hand_numbers) and last_hand is not None:
                starts[0] = hand_numbers[0] != last_hand
            ordinal = hands - 1 + np.cumsum(starts)
            hands += int(starts.sum())
            if len(hand_numbers):
                last_hand = int(hand_numbers[-1])
            keep = (batch["game"] == game) & (batch["legal"] > 1)
            if not keep.any():
                continue
            unknown = set(batch["preset"][keep].tolist()) - set(column)
            if unknown:
                raise TrainError(f"--data: {path}: rows of unknown presets {sorted(unknown)}")
            obs = batch["obs"][keep].reshape(int(keep.sum()), -1)[:, :rows]
            small = obs.astype(np.uint8)
            parts["obs"].append(small if np.array_equal(small, obs) else obs.astype(np.float32))
            parts["mask"].append(batch["mask"][keep].astype(np.uint8))
            parts["action"].append(batch["action"][keep].astype(np.int64))
            parts["preset"].append(
                np.array([column[p] for p in batch["preset"][keep].tolist()], np.int64)
            )
            held.append(ordinal[keep] % VALIDATION_EVERY == VALIDATION_EVERY - 1)
            file_rows += int(keep.sum())
        files.append({"path": str(path), "sha256": _sha256(path), "rows_kept": file_rows})
    if not parts["action"]:
        raise TrainError(f"--data: no {game} decisions with a choice in {len(files)} file(s)")
    kinds = {a.dtype for a in parts["obs"]}
    obs_all = np.concatenate(
        parts["obs"] if len(kinds) == 1 else [a.astype(np.float32) for a in parts["obs"]]
    )
    decisions = Decisions(
        obs=obs_all,
        mask=np.concatenate(parts["mask"]),
        action=np.concatenate(parts["action"]),
        preset=np.concatenate(parts["preset"]),
        validation=np.concatenate(held),
        presets=presets,
        files=files,
        rows_read=rows_read,
        hands=hands,
    )
    if decisions.mask.shape[1] != NUM_ACTIONS:
        raise TrainError(f"--data: masks of {decisions.mask.shape[1]} actions, not {NUM_ACTIONS}")
    return decisions
