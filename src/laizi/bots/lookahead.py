"""Look-ahead inputs for the learned policy: what one tile more or less does to the hand.

A network that sees only the ``v1`` planes has to learn shanten (向听) from scratch, and a small
one cloning ``expert`` does not: it agreed with 57% of expert's discards (docs/bots.md).  Suphx
gives its networks look-ahead features for the same reason.  Here they are worked out from the
observation alone — the seat's concealed tiles (plane 0), the laizi (plane 15), what is visible
(planes 0–14) and the tile on offer (plane 18) — with :mod:`laizi.hand`'s exact table-driven
answers, so the same function serves training (from a dataset's rows) and play (from
:func:`laizi.env.views.encode_view` of the bot's own view).  Nothing hidden is used.

``lookahead(obs)`` is ``(LOOK_PLANES, 34)`` float32:

=====  ===================================================================================
plane  value at column *t*
=====  ===================================================================================
0      3n+2 hand: shanten after discarding *t*, minus the best (0 best, clipped at 3; 0 for a
       kind not held) — 3n+1 hand: the shanten now minus after drawing *t* (1: *t* helps)
1      3n+2 hand: 1 where discarding *t* keeps the best shanten
2      3n+2 hand, discards within one step of the best: unseen tiles that would lower the
       shanten after discarding *t* (进张), / 10 — 3n+1 hand: the same count for the hand now
       at column 0
3      3n+2 hand, a ready discard: unseen tiles completing a hand with a 2/5/8 pair after
       discarding *t*, / 4
4      3n+2 hand, a ready discard: unseen tiles completing any hand after discarding *t*, / 4
5      scalars: columns 0–7 the shanten now (one-hot, 7 = 7 or more; for a 3n+2 hand the best
       after a discard); 8 a pung of the offered tile is possible, 9 how much it lowers the
       shanten (after the best discard); 10–12 a chow with the offered tile lowest / middle /
       highest is possible, 13–15 how much each lowers it
=====  ===================================================================================

"Unseen" is 4 minus what the seat sees of a kind (its hand, every meld shown, discards, tiles
laid out, the indicator), never below 0.

>>> from laizi.engine import Game
>>> from laizi.env.views import encode_view
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
>>> look = lookahead(encode_view(game.view(0)))
>>> look.shape, int(look[1].sum()) > 0
((6, 34), True)
"""

from __future__ import annotations

import numpy as np

from laizi import hand as shapes
from laizi.tiles import FIRST_HONOR

__all__ = ["LOOK_INPUTS", "LOOK_PLANES", "lookahead", "lookahead_rows"]

LOOK_PLANES = 6
LOOK_INPUTS = LOOK_PLANES * 34
_HAND, _MELDS, _DISCARDS, _LAID_OUT, _INDICATOR, _LAIZI, _CLAIM = 0, 2, 6, 10, 14, 15, 18


def _unseen(obs: np.ndarray) -> list[int]:
    counts = obs.astype(np.int32)  # a dataset's rows are uint8: 4 − seen must not wrap
    seen = counts[_HAND] + counts[_MELDS : _INDICATOR + 1].sum(axis=0)
    return np.clip(4 - seen, 0, 4).astype(int).tolist()


def _best_after_discard(counts: list[int], wild: int | None) -> int | None:
    after = [s for s in shapes.shanten_after_discard(counts, wild) if s is not None]
    return min(after) if after else None


def _useful(counts: list[int], wild: int | None, now: int, unseen: list[int]) -> int:
    """Unseen tiles whose draw lowers the shanten of the 3n+1 hand ``counts`` (``now``, already
    known): ``laizi.hand.useful_draws`` without working the shanten out again."""
    return sum(
        unseen[d]
        for d, s in enumerate(shapes.shanten_after_draw(counts, wild))
        if s is not None and s < now
    )


def lookahead(obs: np.ndarray) -> np.ndarray:
    """One ``(22, 34)`` ``v1`` observation → its ``(LOOK_PLANES, 34)`` look-ahead planes."""
    out = np.zeros((LOOK_PLANES, 34), np.float32)
    counts = [int(n) for n in obs[_HAND]]
    size = sum(counts)
    if size == 0 or size % 3 == 0 or max(counts) > 4:
        return out
    wilds = np.flatnonzero(obs[_LAIZI])
    wild = int(wilds[0]) if len(wilds) else None
    unseen = _unseen(obs)
    scalars = out[5]
    if size % 3 == 2:
        after = shapes.shanten_after_discard(counts, wild)
        best = min(s for s in after if s is not None)
        for kind, s in enumerate(after):
            if s is None:
                continue
            out[0, kind] = min(s - best, 3)
            out[1, kind] = float(s == best)
            if s > best + 1:
                continue
            counts[kind] -= 1
            out[2, kind] = _useful(counts, wild, s, unseen) / 10
            if s <= 0:
                out[3, kind] = sum(unseen[w] for w in shapes.waits_258(counts, wild)) / 4
                out[4, kind] = sum(unseen[w] for w in shapes.waits(counts, wild)) / 4
            counts[kind] += 1
        scalars[min(max(best, 0), 7)] = 1
        return out
    now = shapes.shanten(counts, wild)
    scalars[min(max(now, 0), 7)] = 1
    for kind, s in enumerate(shapes.shanten_after_draw(counts, wild)):
        if s is not None:
            out[0, kind] = now - s
    out[2, 0] = sum(unseen[d] for d in shapes.useful_draws(counts, wild)) / 10
    offered = np.flatnonzero(obs[_CLAIM])
    if not len(offered):
        return out
    tile = int(offered[0])
    if counts[tile] >= 2 and size >= 4:
        counts[tile] -= 2
        after_pung = _best_after_discard(counts, wild)
        counts[tile] += 2
        if after_pung is not None:
            scalars[8] = 1
            scalars[9] = now - after_pung
    if tile < FIRST_HONOR and size >= 4:
        rank, base = tile % 9, tile - tile % 9
        for slot, low in enumerate((rank, rank - 1, rank - 2)):
            if low < 0 or low > 6:
                continue
            others = [base + r for r in range(low, low + 3) if base + r != tile]
            if any(counts[o] == 0 for o in others):
                continue
            for o in others:
                counts[o] -= 1
            after_chow = _best_after_discard(counts, wild)
            for o in others:
                counts[o] += 1
            if after_chow is not None:
                scalars[10 + slot] = 1
                scalars[13 + slot] = now - after_chow
    return out


def lookahead_rows(obs: np.ndarray) -> np.ndarray:
    """``(n, 748)`` or ``(n, 22, 34)`` observations → ``(n, LOOK_INPUTS)`` float32."""
    rows = obs.reshape(len(obs), 22, 34)
    out = np.zeros((len(obs), LOOK_INPUTS), np.float32)
    for i, row in enumerate(rows):
        out[i] = lookahead(row).reshape(-1)
    return out
