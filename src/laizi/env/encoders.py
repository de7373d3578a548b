"""Versioned observation encoders: ``v1`` (the original ``(22, 34)``) and ``v2`` (``(63, 34)``).

An encoder writes one seat's observation of an :class:`~laizi.env.table.EnvTable` into a numpy
array of its ``shape``.  Every environment takes ``encoder="v1"`` (default) or ``"v2"``, and a
Parquet dataset records the encoder it was written with (``docs/dataset.md``).

* ``v1``: the layout of :mod:`laizi.env.spaces` (``docs/env.md``, "Observation").
* ``v2``: ``v1``'s 22 rows unchanged, then what ``v1`` leaves out — the order of the discards
  (each seat's last :data:`RECENT` discards, newest first, with 摸切 and claimed flags), the
  laizi / 皮 / must-gang tiles each seat has laid out and holds, and each seat's multiplier as a
  thermometer plane.  Documented row by row in ``docs/env.md``; every value is public (what
  ``laizi.engine.view`` shows the seat).

>>> import numpy as np
>>> from laizi.engine import make_ruleset
>>> from laizi.env.table import EnvTable
>>> table = EnvTable(make_ruleset("wuhan-hongzhong-kaikou"))
>>> table.deal(bytes(32), dealer=0)
>>> V2.shape, get_encoder("v1").shape
((63, 34), (22, 34))
>>> out = np.zeros(V2.shape, np.float32)
>>> V2.write(table, 0, out)
>>> int(out[:22, :].sum()) == int(np.sum(_v1(table, 0)))
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from laizi.env.spaces import OBS_SHAPE
from laizi.env.table import EnvTable

__all__ = ["ENCODERS", "RECENT", "V1", "V2", "V2_ROWS", "Encoder", "get_encoder"]

RECENT = 8
"""``v2``: how many of each seat's latest discards are kept in order."""

V2_ROWS = {
    "v1": (0, 22),
    "recent_discards": (22, 22 + 4 * RECENT),
    "discard_flags": (54, 58),
    "specials": (58, 59),
    "multiplier": (59, 63),
}
"""``v2``'s blocks of rows, ``[start, stop)``."""


@dataclass(frozen=True)
class Encoder:
    """A named observation encoding: ``write(table, seat, out)`` fills ``out`` (``shape``)."""

    name: str
    shape: tuple[int, int]
    write: Callable[[EnvTable, int, np.ndarray], None]


def _v1(table: EnvTable, seat: int) -> np.ndarray:
    out = np.zeros(OBS_SHAPE, np.float32)
    table.write_observation(seat, out)
    return out


def _write_v2(table: EnvTable, seat: int, out: np.ndarray) -> None:
    table.write_observation(seat, out[:22])
    out[22:].fill(0)
    state = table.state
    assert state is not None
    specials = state.specials
    laizi = specials.laizi
    pi = set(specials.pi)
    must = set(specials.must_gang)
    flags_row, specials_row, mult_row = 54, 58, 59
    for k in range(4):
        p = state.players[(seat + k) % 4]
        river = p.river
        n = len(river)
        base = 22 + RECENT * k
        from_draw = set(p.from_draw)
        claimed = set(p.claimed)
        flags = out[flags_row + k]
        for j in range(min(RECENT, n)):
            index = n - 1 - j  # j = 0: the newest discard
            out[base + j, river[index]] = 1
            flags[j] = index in from_draw
            flags[RECENT + j] = index in claimed
            flags[2 * RECENT + j] = 1
        flags[3 * RECENT] = n
        laid = p.laid_out
        row = out[specials_row]
        row[k] = sum(1 for t in laid if t == laizi)
        row[4 + k] = sum(1 for t in laid if t in pi)
        row[8 + k] = sum(1 for t in laid if t in must)
        level = round(float(out[20, 15 + k]))  # v1's log2 multiplier of this seat
        out[mult_row + k, : min(level, 34)] = 1
    own = state.players[seat].counts
    row = out[specials_row]
    row[12] = own[laizi] if laizi is not None else 0
    row[13] = sum(own[t] for t in pi)
    row[14] = sum(own[t] for t in must)


V1 = Encoder("v1", OBS_SHAPE, EnvTable.write_observation)  # the method itself: no extra call
V2 = Encoder("v2", (V2_ROWS["multiplier"][1], 34), _write_v2)
ENCODERS = {"v1": V1, "v2": V2}


def get_encoder(name: str | Encoder) -> Encoder:
    """The encoder of that name (``"v1"`` or ``"v2"``); an Encoder is returned as it is."""
    if isinstance(name, Encoder):
        return name
    try:
        return ENCODERS[name]
    except KeyError:
        raise ValueError(f"encoder: one of {', '.join(ENCODERS)}, got {name!r}") from None
