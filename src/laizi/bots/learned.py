"""``learned``: a policy trained by behaviour cloning (``laizi train bc``), run in numpy.

The bot gets what every bot gets — its seat's view and the legal actions — builds the
environment's ``v1`` observation from the view (:func:`laizi.env.views.encode_view`), appends the
room's preset as a one-hot, runs a small MLP and plays the most likely **legal** action (the
illegal ones are masked out).  No torch at run time: the weights are a numpy ``.npz`` written by
``laizi train`` (:class:`PolicyModel`), one model per game family (the Wuhan presets share one,
the preset an input; Baishan its own).

Where the weights come from, first found: the bot's ``model`` argument, the environment variable
``LAIZI_LEARNED_MODEL`` (a file, or a directory holding ``learned-<game>.npz``), then the package's
``laizi/data/models/learned-<game>.npz``.  Without one the bot refuses to be made
(:class:`~laizi.bots.base.BotError`, naming the file looked for): random weights are never played.

>>> import numpy as np
>>> model = PolicyModel.initial(presets=("wuhan-hongzhong-kaikou",), hidden=(8,), seed=0)
>>> model.inputs, model.logits(np.zeros((1, model.inputs), np.float32)).shape
(749, (1, 177))
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from laizi.bots.base import Bot, BotError
from laizi.bots.lookahead import LOOK_INPUTS, lookahead_rows
from laizi.engine.actions import Action
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import action_index
from laizi.env.views import encode_view, mask_from_view
from laizi.tiles import parse_tile

__all__ = [
    "ENV_VAR",
    "FORMAT",
    "MODELS",
    "OBS_INPUTS",
    "VIEW_ONLY_ZEROED",
    "LearnedBot",
    "PolicyModel",
    "features",
    "find_model",
    "model_file",
]

FORMAT = 1
"""The ``.npz`` layout's version (:meth:`PolicyModel.save`); another version is refused."""
ENV_VAR = "LAIZI_LEARNED_MODEL"
"""A weights file, or a directory of ``learned-<game>.npz``, to play instead of the shipped ones."""
MODELS = Path(__file__).resolve().parent.parent / "data" / "models"
"""Where the package's trained weights live (``laizi/data/models``)."""
OBS_INPUTS = OBS_SHAPE[0] * OBS_SHAPE[1]
VIEW_ONLY_ZEROED = (20 * 34 + 31, 20 * 34 + 32)
"""The two scalars a seat's view does not carry (``after_kong``, ``win_locked``): zeroed in
training and at the table alike, so the policy's inputs are the same in both places."""


def model_file(game: str) -> str:
    """The file name of a game family's weights: ``learned-wuhan.npz``."""
    return f"learned-{game}.npz"


def features(
    obs: np.ndarray,
    preset_index: np.ndarray | int,
    presets: int,
    look: np.ndarray | None = None,
) -> np.ndarray:
    """``(n, 22, 34)`` ``v1`` observations and each row's preset (an index into the model's
    presets) → ``(n, 748 [+ 204] + presets)`` float32 inputs, the view-only scalars zeroed.

    ``look``: the rows' look-ahead inputs (:func:`laizi.bots.lookahead.lookahead_rows`), placed
    between the observation and the preset one-hot, for a model made with them."""
    n = obs.shape[0]
    extra = 0 if look is None else LOOK_INPUTS
    out = np.zeros((n, OBS_INPUTS + extra + presets), np.float32)
    out[:, :OBS_INPUTS] = obs.reshape(n, OBS_INPUTS)
    out[:, list(VIEW_ONLY_ZEROED)] = 0
    if look is not None:
        out[:, OBS_INPUTS : OBS_INPUTS + extra] = look
    if presets:
        out[np.arange(n), OBS_INPUTS + extra + np.asarray(preset_index)] = 1
    return out


@dataclass
class PolicyModel:
    """An MLP over :func:`features`: ``(x − mean) / std``, then ReLU layers, then 177 logits.

    ``weights[i]`` is ``(fan_in, fan_out)`` and ``biases[i]`` ``(fan_out,)``; ``card`` is the model
    card (data, seeds, metrics) stored with the weights.
    """

    game: str
    presets: tuple[str, ...]
    mean: np.ndarray
    std: np.ndarray
    weights: list[np.ndarray]
    biases: list[np.ndarray]
    card: dict[str, Any] = field(default_factory=dict)
    look: bool = False
    """Whether the inputs include the look-ahead planes (:mod:`laizi.bots.lookahead`)."""

    @property
    def inputs(self) -> int:
        return OBS_INPUTS + (LOOK_INPUTS if self.look else 0) + len(self.presets)

    def features(self, obs: np.ndarray, preset_index: np.ndarray | int) -> np.ndarray:
        """This model's inputs for ``(n, 22, 34)`` observations (look-ahead worked out here)."""
        look = lookahead_rows(obs) if self.look else None
        return features(obs, preset_index, len(self.presets), look)

    def view_features(self, view: dict[str, Any], preset_index: int) -> np.ndarray:
        """The inputs ``(1, inputs)`` of one seat's view."""
        return self.features(encode_view(view)[None], preset_index)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(w.shape[1] for w in self.weights[:-1])

    @property
    def parameters(self) -> int:
        return sum(w.size + b.size for w, b in zip(self.weights, self.biases, strict=True))

    @classmethod
    def initial(
        cls,
        presets: Sequence[str],
        hidden: Sequence[int],
        seed: int = 0,
        game: str = "wuhan",
        look: bool = False,
    ) -> PolicyModel:
        """Untrained He-initialised weights (for tests and as a shape; never played as a bot)."""
        rng = np.random.default_rng(seed)
        sizes = [OBS_INPUTS + (LOOK_INPUTS if look else 0) + len(presets), *hidden, NUM_ACTIONS]
        weights = [
            (rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ]
        biases = [np.zeros(b, np.float32) for b in sizes[1:]]
        n = sizes[0]
        return cls(
            game,
            tuple(presets),
            np.zeros(n, np.float32),
            np.ones(n, np.float32),
            weights,
            biases,
            look=look,
        )

    def logits(self, x: np.ndarray) -> np.ndarray:
        """``(n, inputs)`` → ``(n, 177)`` float32 logits (no mask)."""
        h = (x - self.mean) / self.std
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0)
        return np.asarray(h, np.float32)

    def best(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each row's most likely legal action (``mask`` ``(n, 177)``, 1 = legal)."""
        return np.where(mask > 0, self.logits(x), -np.inf).argmax(axis=-1)

    def preset_index(self, preset: str) -> int:
        """The input column of a preset; :class:`BotError` for one the model was not made for."""
        try:
            return self.presets.index(preset)
        except ValueError:
            raise BotError(
                f"learned: the {self.game} model knows the presets {', '.join(self.presets)}, "
                f"not {preset!r}"
            ) from None

    # -- files -----------------------------------------------------------------------------------
    def fingerprint(self) -> str:
        """SHA-256 of what the model computes — its presets, inputs, normaliser, weights and
        biases — not of its card (a model written again later has the same fingerprint)."""
        digest = hashlib.sha256(json.dumps([self.game, list(self.presets), self.look]).encode())
        for array in (self.mean, self.std, *self.weights, *self.biases):
            digest.update(np.ascontiguousarray(array, np.float32).tobytes())
        return digest.hexdigest()

    def to_bytes(self) -> bytes:
        """The ``.npz`` (compressed): arrays ``mean``, ``std``, ``w0``…, ``b0``… and a ``meta``
        JSON (format, game, presets, look-ahead or not, the model card) as UTF-8 bytes."""
        meta: dict[str, Any] = {"format": FORMAT, "game": self.game, "presets": list(self.presets)}
        meta["look"] = self.look
        meta["card"] = self.card
        arrays: dict[str, Any] = {"mean": self.mean, "std": self.std}  # savez's keywords: arrays
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        """Write the ``.npz`` (:meth:`to_bytes`) to ``path``."""
        path.write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> PolicyModel:
        """Read a ``.npz`` written by :meth:`save`; :class:`BotError` naming what is wrong."""
        try:
            blob = Path(path).read_bytes()
        except OSError as error:
            raise BotError(f"learned: can't read the model {path}: {error}") from None
        return cls.from_bytes(blob, str(path))

    @classmethod
    def from_bytes(cls, blob: bytes, path: str = "<bytes>") -> PolicyModel:
        """A model from the bytes of a ``.npz`` (:meth:`to_bytes`); ``path`` names it in errors."""
        try:
            with np.load(io.BytesIO(blob), allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                layers = sum(1 for name in data.files if name.startswith("w"))
                weights = [np.asarray(data[f"w{i}"], np.float32) for i in range(layers)]
                biases = [np.asarray(data[f"b{i}"], np.float32) for i in range(layers)]
                mean = np.asarray(data["mean"], np.float32)
                std = np.asarray(data["std"], np.float32)
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
            raise BotError(f"learned: can't read the model {path}: {error}") from None
        if meta.get("format") != FORMAT:
            raise BotError(f"learned: {path} is format {meta.get('format')}, not {FORMAT}")
        model = cls(
            meta["game"],
            tuple(meta["presets"]),
            mean,
            std,
            weights,
            biases,
            meta.get("card", {}),
            bool(meta.get("look", False)),
        )
        if weights[0].shape[0] != model.inputs or weights[-1].shape[1] != NUM_ACTIONS:
            raise BotError(f"learned: {path}: the layers do not fit {model.inputs} inputs")
        return model


_LOADED: dict[str, PolicyModel] = {}


def find_model(game: str, model: str | Path | None = None) -> Path:
    """The weights file to play for ``game`` (see the module's notes for the order)."""
    given = model if model is not None else os.environ.get(ENV_VAR) or None
    if given is not None:
        path = Path(given)
        if path.is_dir():
            path = path / model_file(game)
        if not path.is_file():
            raise BotError(f"learned: no model file {path}")
        return path
    path = MODELS / model_file(game)
    if not path.is_file():
        raise BotError(
            f"learned: no trained {game} model ships with this version ({path}); train one "
            f"with `laizi train bc` and name it with {ENV_VAR}=FILE (docs/bots.md)"
        )
    return path


def load_model(game: str, model: str | Path | None = None) -> PolicyModel:
    """The model for ``game``, read once per file and process."""
    path = find_model(game, model)
    key = str(path.resolve())
    if key not in _LOADED:
        _LOADED[key] = PolicyModel.load(path)
    loaded = _LOADED[key]
    if loaded.game != game:
        raise BotError(f"learned: {path} is a {loaded.game} model, the room plays {game}")
    return loaded


def legal_by_index(view: dict[str, Any], legal: Sequence[Action]) -> dict[int, Action]:
    """The legal actions by their index in the env's action space (a claim's tile from ``view``)."""
    claim = view.get("claim")
    claim_tile = parse_tile(claim["tile"]) if claim else None
    return {action_index(a, claim_tile): a for a in legal}


class LearnedBot(Bot):
    """Deterministic: the policy's argmax among the legal actions (the seed is not used).

    ``model``: a :class:`PolicyModel` already loaded, or where to find one (:func:`find_model`).
    """

    name = "learned"

    def __init__(
        self, rules: Any, seed: int = 0, model: PolicyModel | str | Path | None = None
    ) -> None:
        super().__init__(rules, seed)
        self.model = model if isinstance(model, PolicyModel) else load_model(rules.game, model)
        self.preset = self.model.preset_index(rules.preset)

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        by_index = legal_by_index(view, legal)
        if len(by_index) == 1:
            return next(iter(by_index.values()))
        mask = mask_from_view(view, legal)
        x = self.model.view_features(view, self.preset)
        return by_index[int(self.model.best(x, mask[None])[0])]
