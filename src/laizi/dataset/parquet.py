"""The training dataset as Parquet: one row per decision, written a row group at a time.

Schema and layout: ``docs/dataset.md``.  :class:`DatasetWriter` replays each hand's record
(:func:`laizi.dataset.decisions.replay_decisions`), keeps the rows of at most one row group (plus
the hand in progress) in memory, and writes ``part-NNNNN.parquet`` files of at most
``file_rows`` rows under the output directory.  :func:`read_rows` reads a dataset back in
batches as numpy arrays (the behaviour-cloning example's loader).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from laizi.dataset.decisions import DecisionRows, replay_decisions
from laizi.dataset.sources import Hand
from laizi.engine.events import number
from laizi.env.encoders import Encoder, get_encoder
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import EnvTable
from laizi.rules.registry import make_ruleset

__all__ = [
    "FILE_ROWS",
    "ROW_GROUP",
    "SCHEMA_VERSION",
    "DatasetWriter",
    "dataset_metadata",
    "read_rows",
    "schema",
]

SCHEMA_VERSION = 1
ROW_GROUP = 8192
"""Rows per Parquet row group (about 25 MB of observations in memory before each write)."""
FILE_ROWS = 1 << 20
"""Rows per ``part-NNNNN.parquet`` file (a new file after that many)."""


def _pa() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as error:  # pragma: no cover - the extra is installed for the tests
        raise RuntimeError(
            f"Parquet needs pyarrow ({error}): pip install 'laizi[dataset]'"
        ) from None
    return pyarrow


def schema(encoder: str | Encoder = "v1") -> Any:
    """The Arrow schema of a dataset file (``docs/dataset.md`` explains each column); the
    metadata names the observation encoder (``"encoder"``) and its shape."""
    pa = _pa()
    enc = get_encoder(encoder)
    meta = {
        "version": SCHEMA_VERSION,
        "encoder": enc.name,
        "obs_shape": list(enc.shape),
        "num_actions": NUM_ACTIONS,
        "encoding": f"laizi.env encoder {enc.name} (docs/env.md)",
    }
    return pa.schema(
        [
            ("hand", pa.int64()),
            ("source", pa.string()),
            ("game", pa.string()),
            ("preset", pa.string()),
            ("dealer", pa.int8()),
            ("step", pa.int16()),
            ("event", pa.int32()),
            ("seat", pa.int8()),
            ("obs", pa.list_(pa.float32(), enc.shape[0] * enc.shape[1])),
            ("mask", pa.list_(pa.int8(), NUM_ACTIONS)),
            ("legal", pa.int16()),
            ("action", pa.int16()),
            ("points", pa.float64()),
            ("points_exact", pa.string()),
            ("payments", pa.list_(pa.float64(), 4)),
            ("winner", pa.int8()),
            ("reason", pa.string()),
        ],
        metadata={"laizi.dataset": json.dumps(meta)},
    )


def _exact(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


class DatasetWriter:
    """Write hands into ``out`` (a directory) as decision rows; call :meth:`close` at the end.

    ``first_hand``: the ``hand`` column of the first hand written (a recipe's shard numbers its
    hands across the whole dataset)."""

    def __init__(
        self,
        out: Path,
        *,
        row_group: int = ROW_GROUP,
        file_rows: int = FILE_ROWS,
        encoder: str = "v1",
        first_hand: int = 0,
    ):
        self.pa = _pa()
        self.out = out
        self.row_group = row_group
        self.file_rows = file_rows
        self.encoder = get_encoder(encoder)
        self.schema = schema(self.encoder)
        self.rows = DecisionRows(capacity=row_group + 512, encoder=self.encoder)
        self.table: EnvTable | None = None
        self.meta: list[tuple[int, Hand, Any]] = []  # (rows, hand, final state) per hand
        self.first_hand = first_hand
        self.hands = 0
        self.total_rows = 0
        self.files: list[Path] = []
        self._writer: Any = None
        self._file_rows = 0

    def add(self, hand: Hand) -> int:
        """Replay one hand and keep its rows; RecordError (nothing kept) if it does not check
        out.  Returns the number of rows."""
        if self.table is None:
            self.table = EnvTable(make_ruleset("wuhan-hongzhong-kaikou"))
        self.rows.begin_hand()
        try:
            state = replay_decisions(hand.events, self.table, self.rows)
        except BaseException:
            self.rows.drop_hand()
            raise
        count = self.rows.size - self.rows.hand_start
        self.meta.append((count, hand, state))
        self.hands += 1
        self.total_rows += count
        if self.rows.size >= self.row_group:
            self._flush()
        return count

    def _flush(self) -> None:
        n = self.rows.size
        if n == 0:
            self.meta.clear()
            return
        pa = self.pa
        counts = [c for c, _, _ in self.meta]
        first = self.first_hand + self.hands - len(self.meta)
        hand_ids = np.repeat(np.arange(first, first + len(self.meta), dtype=np.int64), counts)
        per_hand: dict[str, list[Any]] = {
            k: [] for k in ("source", "game", "preset", "dealer", "winner", "reason")
        }
        floats: list[list[float]] = []
        texts: list[list[str]] = []
        for _, hand, state in self.meta:
            result = state.result
            pays = result["payments"]
            per_hand["source"].append(hand.source)
            per_hand["game"].append(state.ruleset.game)
            per_hand["preset"].append(state.ruleset.settings.preset)
            per_hand["dealer"].append(state.dealer)
            per_hand["winner"].append(-1 if result["winner"] is None else result["winner"])
            per_hand["reason"].append(result["reason"])
            floats.append([float(number(p)) for p in pays])
            texts.append([_exact(Fraction(p)) for p in pays])
        seats = self.rows.seat[:n]
        rows = np.arange(n)
        payments = np.repeat(np.array(floats, np.float64).reshape(-1, 4), counts, axis=0)
        points = payments[rows, seats]
        exact = np.repeat(np.array(texts, object).reshape(-1, 4), counts, axis=0)[rows, seats]

        def repeat(values: list[Any], kind: Any) -> Any:
            return pa.array(
                [v for v, c in zip(values, counts, strict=True) for _ in range(c)], kind
            )

        r = self.rows
        columns = [
            pa.array(hand_ids),
            repeat(per_hand["source"], pa.string()),
            repeat(per_hand["game"], pa.string()),
            repeat(per_hand["preset"], pa.string()),
            repeat(per_hand["dealer"], pa.int8()),
            pa.array(r.step[:n]),
            pa.array(r.event[:n]),
            pa.array(seats),
            pa.FixedSizeListArray.from_arrays(
                pa.array(r.obs[:n].reshape(-1)), self.encoder.shape[0] * self.encoder.shape[1]
            ),
            pa.FixedSizeListArray.from_arrays(pa.array(r.mask[:n].reshape(-1)), NUM_ACTIONS),
            pa.array(r.legal[:n]),
            pa.array(r.action[:n]),
            pa.array(points, pa.float64()),
            pa.array(list(exact), pa.string()),
            pa.FixedSizeListArray.from_arrays(pa.array(payments.reshape(-1)), 4),
            repeat(per_hand["winner"], pa.int8()),
            repeat(per_hand["reason"], pa.string()),
        ]
        batch = pa.RecordBatch.from_arrays(columns, schema=self.schema)
        if self._writer is None:
            path = self.out / f"part-{len(self.files):05d}.parquet"
            self._writer = pa.parquet.ParquetWriter(path, self.schema, compression="zstd")
            self.files.append(path)
        self._writer.write_batch(batch, row_group_size=n)
        self._file_rows += n
        if self._file_rows >= self.file_rows:
            self._writer.close()
            self._writer = None
            self._file_rows = 0
        self.rows.clear()
        self.meta.clear()

    def close(self) -> list[Path]:
        """Write what is left and close the file; the files written."""
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        return self.files


def dataset_metadata(source: Any) -> dict[str, Any]:
    """The ``laizi.dataset`` metadata of a file (a path or an Arrow schema): ``version``,
    ``encoder`` (``"v1"`` when a file predates the key), ``obs_shape``, ``num_actions``."""
    pa = _pa()
    arrow = source if isinstance(source, pa.Schema) else pa.parquet.read_schema(source)
    meta: dict[str, Any] = json.loads((arrow.metadata or {})[b"laizi.dataset"])
    meta.setdefault("encoder", "v1")
    meta.setdefault("obs_shape", list(OBS_SHAPE))
    return meta


def read_rows(
    path: str | Path, columns: Sequence[str] | None = None, batch_size: int = ROW_GROUP
) -> Iterator[dict[str, np.ndarray]]:
    """The rows of a dataset (a directory of ``part-*.parquet`` or one file) in batches, each a
    dict of numpy arrays: ``obs`` shaped ``(n, *obs_shape)`` float32 (the encoder's, from the
    file's metadata: ``(22, 34)`` for ``v1``), ``mask`` ``(n, 177)`` int8, ``payments``
    ``(n, 4)``, the other columns ``(n,)``."""
    pa = _pa()
    root = Path(path)
    files = sorted(root.glob("part-*.parquet")) if root.is_dir() else [root]
    for file in files:
        parquet = pa.parquet.ParquetFile(file)
        meta = dataset_metadata(parquet.schema_arrow)
        shapes = {"obs": tuple(meta["obs_shape"]), "mask": (NUM_ACTIONS,), "payments": (4,)}
        for batch in parquet.iter_batches(batch_size=batch_size, columns=columns):
            out: dict[str, np.ndarray] = {}
            for name in batch.schema.names:
                column = batch.column(name)
                if name in shapes:
                    values = column.flatten().to_numpy(zero_copy_only=False)
                    out[name] = values.reshape(len(column), *shapes[name])
                else:
                    out[name] = column.to_numpy(zero_copy_only=False)
            yield out
