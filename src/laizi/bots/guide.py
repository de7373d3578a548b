"""The learned policy inside expert's search: priors, play-outs of the other seats, world weights.

``expert`` samples the tiles it can't see (:func:`laizi.bots.search.sample_worlds`) and plays its
hand out on each sample.  Without a model of the other seats those play-outs are blind: an
opponent's discard is a random unseen tile, a claim is never of a tile anyone would throw, and
another seat's win is a constant hazard per round.  :class:`PolicyGuide` puts the ``learned``
policy (:class:`~laizi.bots.learned.PolicyModel`) in those places:

* **priors** — the policy's probabilities of the seat's own legal actions, from its own view;
  expert adds the policy's favourite discards to the candidates it searches;
* **world weights** — in each sampled world, how likely the policy finds each opponent's latest
  discard, given the hand that world deals it (that hand plus the discard, the table as it is
  now): a world in which the others threw what they would throw counts more
  (:meth:`PolicyGuide.weights`; a share :data:`SLIP` of every discard is left unexplained and
  the product tempered by :data:`TEMPER`, so a few worlds do not take all);
* **play-outs of every other seat** — :meth:`PolicyGuide.play_others` plays the three opponents'
  hands in each world: each draws its wall tile and throws the policy's choice (for the first
  ``horizon`` rounds; after that it throws what it draws, as the blind play-outs did), and each
  one's exact waits (:meth:`~laizi.bots.strategy.Strategy.winning_kinds`, the game's own
  constraints) decide when it wins — on its draw, on another's discard or on the seat's.  The
  seat's own play-outs (:class:`~laizi.bots.search.Evaluator`) then see the discards the others
  really make in that world and end where that world's hand ends.

Nothing here reads a hidden tile: an opponent's observation is the seat's own observation turned
to that opponent (:func:`turn_to`) with the hand the *sampled* world deals it.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from laizi import hand as shapes
from laizi.bots.base import BotError
from laizi.bots.learned import PolicyModel, legal_by_index, load_model
from laizi.bots.strategy import Strategy
from laizi.bots.table import SeatTable
from laizi.engine.actions import Action
from laizi.env.spaces import DISCARD, OBS_SHAPE, SCALAR_NAMES
from laizi.env.views import encode_view, mask_from_view
from laizi.tiles import EAST

__all__ = ["TEMPER", "Others", "PolicyGuide", "turn_to"]

TEMPER = 0.5
"""World weights are the likelihoods raised to this power (see :data:`SLIP`)."""

SLIP = 0.3
"""The share of an opponent's discards the policy is not trusted to explain: the likelihood of a
discard is ``SLIP / kinds held + (1 − SLIP) × the policy's probability``.  A small network puts
probabilities of 1e-5 on throws real players make, and with the policy's probabilities alone
(tempered by 0.5) the effective number of worlds fell to about 5 of 32 at a typical Wuhan decision;
with the slip and :data:`TEMPER` it is about 20 (measured over 20 positions of greedy play)."""

_SEAT_PLANES = (2, 6, 10)
"""First rows of the per-seat plane groups (melds, discards, laid out), four rows each."""
_SEAT_SCALARS = tuple(
    SCALAR_NAMES.index(f"{group}_0")
    for group in ("dealer", "turn", "log2_multiplier", "hand_size", "openings", "hidden_kongs")
)
"""First columns of the per-seat scalar groups (dealer, turn, multiplier, hand size, openings,
hidden kongs), four columns each."""
_SCALARS, _READY, _HAND, _DRAWN, _CLAIM = 20, 21, 0, 1, 18
_PHASES = slice(2, 7)
_TURN_PHASE, _TURN_0 = 2, 11
_AFTER_KONG, _WIN_LOCKED = 31, 32


def turn_to(obs: np.ndarray, rel: int) -> np.ndarray:
    """The ``(22, 34)`` ``v1`` observation of ``obs`` turned to the seat ``rel`` places after the
    viewer: every per-seat row and scalar renumbered from that seat.  Its own rows (hand, drawn
    tile, the tile on offer) are left as they are: the caller fills them from a sampled world."""
    out = obs.copy()
    order = [(k + rel) % 4 for k in range(4)]
    for first in _SEAT_PLANES:
        out[first : first + 4] = obs[[first + k for k in order]]
    for first in _SEAT_SCALARS:
        out[_SCALARS, first : first + 4] = obs[_SCALARS, [first + k for k in order]]
    out[_READY, 0:4] = obs[_READY, order]
    return out


def _its_turn(obs: np.ndarray, rel: int) -> np.ndarray:
    """``obs`` turned to the seat ``rel`` places after the viewer (:func:`turn_to`) at its own
    turn: no drawn tile or tile on offer yet, not after a kong, no win passed."""
    out = turn_to(obs, rel)
    out[_DRAWN] = 0
    out[_CLAIM] = 0
    out[_SCALARS, _PHASES] = 0
    out[_SCALARS, _TURN_PHASE] = 1
    out[_SCALARS, _TURN_0 : _TURN_0 + 4] = 0
    out[_SCALARS, _TURN_0] = 1
    out[_SCALARS, _AFTER_KONG] = 0
    out[_SCALARS, _WIN_LOCKED] = 0
    return out


def _softmax_rows(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


@dataclass
class Others:
    """How the three other seats play one sampled world out (:meth:`PolicyGuide.play_others`).

    ``shown[r]``: the three discards of round ``r`` (seat order after the viewer), ``-1`` where
    a seat drew its winning tile; ``waits[r]``: each seat's winning kinds once round ``r``'s
    discards are made (what the viewer's own discard that round would deal in to); ``end``: the
    first win of another seat as ``(round, index)`` — the viewer sees the round's first
    ``index`` discards before it (0: the first seat after it won on its draw) — or None;
    ``horizon``: the rounds in which the others throw the policy's choice (after them they throw
    what they draw, and the play-out's constant hazard stands in for the hands they would build)."""

    shown: list[tuple[int, int, int]] = field(default_factory=list)
    waits: list[tuple[frozenset[int], frozenset[int], frozenset[int]]] = field(default_factory=list)
    end: tuple[int, int] | None = None
    horizon: int = 0


class PolicyGuide:
    """A game's learned policy, asked the questions expert's search needs (see the module)."""

    def __init__(
        self, model: PolicyModel, preset: int, temper: float = TEMPER, slip: float = SLIP
    ) -> None:
        self.model = model
        self.preset = preset
        self.temper = temper
        self.slip = slip
        self.rows = 0
        """Observations the policy has been asked about (a measure of the work done)."""

    @classmethod
    def for_rules(cls, rules: Any) -> PolicyGuide | None:
        """The shipped (or ``LAIZI_LEARNED_MODEL``) policy of the room's game; None when there is
        none for it (a game added without a model: expert then searches as before)."""
        try:
            model = load_model(rules.game)
            return cls(model, model.preset_index(rules.preset))
        except BotError:
            return None

    # --- the policy ---------------------------------------------------------------------------
    def _discard_probs(self, obs: np.ndarray, kept: frozenset[int]) -> np.ndarray:
        """``(n, 22, 34)`` observations of 3n+2 hands → ``(n, 34)`` probabilities of discarding
        each kind (the kinds held and not ``kept``)."""
        self.rows += len(obs)
        held = obs[:, _HAND] > 0
        for kind in kept:
            held[:, kind] = False
        none = ~held.any(axis=1)
        held[none] = obs[none, _HAND] > 0  # only kept kinds left: throw one of those
        logits = self.model.logits(self.model.features(obs, self.preset))
        return _softmax_rows(logits[:, DISCARD : DISCARD + 34], held)

    def priors(self, view: dict[str, Any], legal: Sequence[Action]) -> list[tuple[float, Action]]:
        """The policy's probability of each legal action from the seat's own view, likeliest
        first."""
        by_index = legal_by_index(view, legal)
        mask = mask_from_view(view, legal)[None] > 0
        self.rows += 1
        logits = self.model.logits(self.model.view_features(view, self.preset))
        probs = _softmax_rows(logits, mask)[0]
        return sorted(((float(probs[i]), a) for i, a in by_index.items()), key=lambda pa: -pa[0])

    # --- the sampled worlds ---------------------------------------------------------------------
    def weights(
        self,
        table: SeatTable,
        hands: Sequence[dict[int, list[int]]],
        kept: frozenset[int],
    ) -> list[float]:
        """Each world's weight: the product over the opponents of the policy's probability of
        its latest discard, given the world's hand for it plus that tile, tempered."""
        if not hands:
            return []
        own = encode_view(table.view)
        logw = np.zeros(len(hands))
        for other in table.opponents:
            if not other.discards or other.hand_size % 3 != 1:
                continue
            last = other.discards[-1]
            rel = (other.seat - table.seat) % 4
            base = _its_turn(own, rel)
            if base[6, last] > 0:
                base[6, last] -= 1  # before it was thrown
            base[_SCALARS, 19] += 1
            rows = np.repeat(base[None], len(hands), axis=0)
            for i, world in enumerate(hands):
                rows[i, _HAND] = 0
                for t in world.get(other.seat, ()):
                    rows[i, _HAND, t] += 1
                rows[i, _HAND, last] += 1
            probs = self._discard_probs(rows, kept)
            options = (probs > 0).sum(axis=1)
            likely = self.slip / options + (1 - self.slip) * probs[:, last]
            logw += self.temper * np.log(likely)
        logw -= logw.max()
        return [math.exp(v) for v in logw]

    def play_others(
        self,
        table: SeatTable,
        strategy: Strategy,
        hands: Sequence[dict[int, list[int]]],
        walls: Sequence[Sequence[int]],
        rounds: int,
        horizon: int,
    ) -> list[Others]:
        """The three opponents' play in each world (:class:`Others`): round by round each draws
        its wall tile (the wall's tiles 4r, 4r+1, 4r+2 in seat order after the viewer; 4r+3 is
        the viewer's) and throws the policy's choice for the first ``horizon`` rounds, its draw
        after that; the worlds of a round are asked in one batch."""
        seats = [(table.seat + k) % 4 for k in (1, 2, 3)]
        kept = strategy.kept_out(table)
        tables = [self._table_of(table, seat) for seat in seats]
        own = encode_view(table.view)
        bases = [_its_turn(own, k + 1) for k in range(3)]
        counts = [[_counts(h.get(s, ())) for s in seats] for h in hands]
        waits: list[list[frozenset[int]]] = [
            [self._waits(strategy, tables[k], c[k]) for k in range(3)] for c in counts
        ]
        out = [Others(horizon=horizon) for _ in hands]
        for r in range(rounds):
            shown: list[list[int]] = [[-1, -1, -1] for _ in hands]
            for k in range(3):
                live = []
                for i, wall in enumerate(walls):
                    if out[i].end is not None or 4 * r + 3 >= len(wall):
                        continue
                    drawn = wall[4 * r + k]
                    if drawn in waits[i][k]:
                        out[i].end = (r, k)  # it wins on its draw
                        continue
                    counts[i][k][drawn] += 1
                    if r < horizon and sum(counts[i][k]) % 3 == 2:
                        live.append((i, drawn))
                    else:
                        counts[i][k][drawn] -= 1
                        shown[i][k] = drawn
                if live:
                    rows = np.repeat(bases[k][None], len(live), axis=0)
                    for row, (i, drawn) in enumerate(live):
                        rows[row, _HAND] = counts[i][k]
                        rows[row, _DRAWN] = 0
                        rows[row, _DRAWN, drawn] = 1
                    probs = self._discard_probs(rows, kept)
                    for row, (i, _) in enumerate(live):
                        throw = int(probs[row].argmax())
                        counts[i][k][throw] -= 1
                        shown[i][k] = throw
                        if throw != live[row][1]:
                            waits[i][k] = self._waits(strategy, tables[k], counts[i][k])
                for i in range(len(hands)):
                    throw = shown[i][k]
                    if out[i].end is None and throw >= 0:
                        for j in range(3):
                            if j != k and throw in waits[i][j]:
                                out[i].end = (r, k + 1)  # another opponent wins on it
                                break
            for i, played in enumerate(out):
                if len(played.shown) == r and (played.end is None or played.end[0] >= r):
                    played.shown.append((shown[i][0], shown[i][1], shown[i][2]))
                    played.waits.append((waits[i][0], waits[i][1], waits[i][2]))
        return out

    @staticmethod
    def _table_of(table: SeatTable, seat: int) -> SeatTable:
        """``table`` with ``seat``'s melds as its own: what the game's win constraints read."""
        other = next(o for o in table.opponents if o.seat == seat)
        turned = copy.copy(table)
        # another seat's 暗杠 shows no face: a stand-in, as the settlement's values take it
        turned.melds = [(kind, list(tiles) or [EAST] * 4) for kind, tiles in other.melds]
        turned.meld_from = [None] * len(turned.melds)
        turned.openings = other.openings
        turned.declared_ready = other.declared_ready
        return turned

    @staticmethod
    def _waits(strategy: Strategy, table: SeatTable, counts: list[int]) -> frozenset[int]:
        if sum(counts) % 3 != 1 or shapes.shanten(counts, strategy.wild(table)) > 0:
            return frozenset()
        return frozenset(strategy.winning_kinds(table, counts))


def _counts(tiles: Sequence[int]) -> list[int]:
    out = [0] * OBS_SHAPE[1]
    for t in tiles:
        out[t] += 1
    return out
