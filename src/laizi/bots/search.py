"""The expert bot's search: hidden tiles sampled from one seat's view, its own hand played out on
each sample, every win valued by the room's exact settlement.

Everything here reads only a :class:`~laizi.bots.table.SeatTable` (the seat's view) and the room's
public rules.

* :func:`sample_worlds` deals the tiles the seat can't see — the other seats' concealed hands and
  the wall's order — consistent with the view: exactly the unseen copies of each kind, each
  opponent getting its shown hand size.  An opponent is less likely to hold a kind it has already
  discarded (weight :data:`DISCARDED_WEIGHT`), so those kinds are more likely still in the wall.
* :class:`Evaluator` plays the seat's own hand out on each sampled wall with a fast policy (keep
  the tile that lowers the shanten, else throw the draw), the three others' draws standing in for
  their discards (a win on a discard where the rules allow it), while the others may end the hand
  first (a per-round hazard from their threat).  A win is worth what :func:`laizi.scoring.score`
  pays the seat for it — multipliers, caps, minimum, contracts, the hand's real readings — and the
  value of a hand is the mean over the samples.  Every settlement and every shanten table is
  cached for the decision, so a few hundred play-outs cost tens of milliseconds.

  With :data:`PLAYOUT_CLAIMS` set, the play-outs also pung (and chow the left seat's discard)
  when the claim brings the hand a step closer.  It is off by default: over 2,000 walls it was
  worth about +3 points per hand in Wuhan 开口翻, an interval that includes zero (docs/bots.md).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from laizi import hand as shapes
from laizi.bots.strategy import Strategy
from laizi.bots.table import SeatTable, meld_tiles
from laizi.rules.melds import Meld
from laizi.rules.ruleset import Ruleset
from laizi.rules.situation import PlayerHand, WinSituation
from laizi.tiles import EAST, FIRST_HONOR

if TYPE_CHECKING:
    from laizi.bots.guide import Others

__all__ = ["DISCARDED_WEIGHT", "Evaluator", "World", "public_melds", "sample_worlds"]

DISCARDED_WEIGHT = 0.3
"""Relative chance that an opponent still holds a kind it has discarded before."""

ROUND_HAZARD = 0.16
"""Chance per round that one opponent who is ready ends the hand (its draw or a discard)."""

PLAYOUT_CLAIMS = ""
"""Claims the seat's play-outs make on the others' discards: ``""`` none, ``"pung"`` a pung that
brings the hand a step closer, ``"chow"`` also a chow of the left seat's discard."""


class World:
    """One sample of the hidden tiles: the opponents' hands (by seat) and the wall's order.

    With the learned policy (:mod:`laizi.bots.guide`) a world also carries how the others play it
    out (``others``) and how likely the policy finds what they have thrown (``weight``)."""

    __slots__ = ("hands", "others", "wall", "weight")

    def __init__(self, hands: dict[int, list[int]], wall: list[int]) -> None:
        self.hands = hands
        self.wall = wall
        self.others: Others | None = None
        self.weight = 1.0


def sample_worlds(table: SeatTable, count: int, rng: random.Random) -> list[World]:
    """``count`` deals of the unseen tiles, consistent with ``table``'s view (see the module)."""
    pool = [kind for kind in range(34) for _ in range(table.unseen[kind])]
    worlds = []
    for _ in range(count):
        rest = pool[:]
        rng.shuffle(rest)
        hands: dict[int, list[int]] = {}
        for other in table.opponents:
            size = min(other.hand_size, len(rest))
            discarded = set(other.discards)
            taken: list[int] = []
            left: list[int] = []
            for t in rest:
                if len(taken) < size and (t not in discarded or rng.random() < DISCARDED_WEIGHT):
                    taken.append(t)
                else:
                    left.append(t)
            while len(taken) < size:  # too few acceptable tiles: the rest, in order
                taken.append(left.pop(0))
            hands[other.seat] = sorted(taken)
            rest = left
        rng.shuffle(rest)
        worlds.append(World(hands, rest))
    return worlds


def public_melds(player: dict[str, Any]) -> tuple[Meld, ...]:
    """A seat's melds as the settlement reads them; another seat's face-down kong gets a stand-in
    face (its factor is ×4 whatever the tile)."""
    melds = []
    for m in player["melds"]:
        tiles = meld_tiles(m)
        if not tiles:
            tiles = [EAST] * 4
        melds.append(Meld(m["kind"], tuple(sorted(tiles)), m.get("from")))
    return tuple(melds)


class Evaluator:
    """Values 3n+1 hands of one seat for one decision (caches live for that decision only)."""

    def __init__(
        self,
        ruleset: Ruleset,
        strategy: Strategy,
        table: SeatTable,
        worlds: Sequence[World],
        hazard: float,
        cache: dict[tuple[Any, ...], float] | None = None,
        work: int = 400,
    ) -> None:
        self.ruleset = ruleset
        self.settings = ruleset.settings
        self.strategy = strategy
        self.table = table
        self.worlds = worlds
        self.hazard = hazard
        self.wild = strategy.wild(table)
        self.kept = strategy.kept_out(table)
        self.must_open = ruleset.must_open_to_win()
        """A win needs an opening (Wuhan A6): the play-outs value a closed hand's win as opened."""
        view = table.view
        self.players = view["players"]
        self.public = {p["seat"]: public_melds(p) for p in self.players}
        self.laid = {p["seat"]: tuple(table_tile(t) for t in p["laid_out"]) for p in self.players}
        self._state: dict[tuple[Any, ...], tuple[int, list[int | None], frozenset[int]]] = {}
        self._step: dict[tuple[Any, ...], tuple[int, ...]] = {}
        self._claimed: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[Meld, ...]] | None] = {}
        self._melds: tuple[Meld, ...] = self.public[table.seat]
        self._wins_table = table
        """The table the game's win constraints are asked with: the seat's melds as valued."""
        self._tables: dict[tuple[Meld, ...], SeatTable] = {self._melds: table}
        self.cache: dict[tuple[Any, ...], float] = {} if cache is None else cache
        """Settlement values, shared across one bot's decisions (keyed by the public position)."""
        self.signature = (
            table.dealer,
            table.indicator,
            tuple(
                (s, self.public[s], self.laid[s], p["declared_ready"])
                for s, p in ((p["seat"], p) for p in self.players)
            ),
        )
        self.playouts = 0
        self.work = work
        """Hand shapes one :meth:`value` call may work out (each a shanten table, about 0.1–0.5
        ms): a count, not a clock, so the search stays deterministic."""
        self._left = work

    # --- exact values -----------------------------------------------------------------------
    def win_value(
        self, counts: Sequence[int], melds: tuple[Meld, ...], tile: int, how: str
    ) -> float:
        """What the seat is paid (net, in points) for winning with ``counts`` (3n+1, without
        ``tile``) and ``melds`` on ``tile``: the exact settlement (on a discard: from the first
        other seat that is not the dealer, the usual case)."""
        key = (self.signature, tuple(counts), melds, tile, how)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        if how == "self_draw":
            value = self._settle(counts, melds, tile, how, None)
        else:
            froms = [o.seat for o in self.table.opponents]
            source = next((s for s in froms if s != self.table.dealer), froms[0])
            value = self._settle(counts, melds, tile, how, source)
        if len(self.cache) > 50_000:
            self.cache.clear()
        self.cache[key] = value
        return value

    def _settle(
        self,
        counts: Sequence[int],
        melds: tuple[Meld, ...],
        tile: int,
        how: str,
        from_seat: int | None,
    ) -> float:
        table = self.table
        me = table.seat
        hand = tuple(t for t in range(34) for _ in range(counts[t]))
        if self.must_open and not any(m.is_opening for m in melds):
            # A win needs an opening: value it as if one of the hand's sets had been claimed.
            opened = _with_opening(counts, tile, melds, self.wild, (me + 1) % 4)
            if opened is None:
                return 0.0
            hand, melds = opened
        players = []
        for p in self.players:
            seat = p["seat"]
            if seat == me:
                players.append(PlayerHand(hand, melds, self.laid[me], None, table.declared_ready))
            else:
                players.append(
                    PlayerHand(None, self.public[seat], self.laid[seat], True, p["declared_ready"])
                )
        situation = WinSituation(
            self.settings,
            table.dealer,
            table.indicator,
            me,
            how,
            from_seat,
            tile,
            False,
            False,
            tuple(players),
        )
        try:
            settlement = self.ruleset.score(situation)
        except (ValueError, AssertionError):
            return 0.0
        if not settlement.allowed:
            return 0.0
        paid: Fraction = settlement.payments[me]
        return float(paid)

    # --- the seat's own play-outs ------------------------------------------------------------
    def _shape(self, key: tuple[int, ...]) -> tuple[int, list[int | None], frozenset[int]]:
        """(effective shanten, shanten after each draw, winning kinds) of a 3n+1 hand.  A hand
        ready in shape that the rules don't let win (Wuhan: no 2/5/8 pair; Baishan: no terminal
        or no triplet) counts as one step away, so the play-out keeps looking for a real wait."""
        cached = self._state.get((self._melds, key))
        if cached is None:
            self._left -= 1
            counts = list(key)
            shanten = shapes.shanten(counts, self.wild)
            draws = shapes.shanten_after_draw(counts, self.wild)
            wins = (
                frozenset(self.strategy.winning_kinds(self._wins_table, counts))
                if shanten <= 0
                else frozenset()
            )
            if shanten <= 0 and not wins:
                shanten = 1
            cached = (shanten, draws, wins)
            self._state[(self._melds, key)] = cached
        return cached

    def _keep(self, key: tuple[int, ...], drawn: int) -> tuple[int, ...]:
        """The 3n+1 hand after drawing ``drawn`` and throwing the tile that keeps it best: the
        lowest shanten, among those a hand that really wins when there is one; the hand itself
        (the draw thrown) when nothing is better than it."""
        step = self._step.get((self._melds, key, drawn))
        if step is None:
            if self._left <= 0:
                return key  # out of work for this hand: the draw is thrown
            self._left -= 1
            counts = list(key)
            counts[drawn] += 1
            after = shapes.shanten_after_discard(counts, self.wild)
            options = sorted(
                (s, kind)
                for kind in range(34)
                if (s := after[kind]) is not None and not (kind in self.kept and counts[kind])
            )
            step = key
            if options:
                low = options[0][0]
                current = self._shape(key)[0]
                for s, kind in options:
                    if s != low or self._left <= 0:
                        break
                    counts[kind] -= 1
                    trial = tuple(counts)
                    counts[kind] += 1
                    if self._shape(trial)[0] < current:
                        step = trial
                        break
            self._step[(self._melds, key, drawn)] = step
        return step

    def value(self, counts: Sequence[int], melds: tuple[Meld, ...] | None = None) -> float:
        """The mean over the sampled worlds (weighted by their :attr:`World.weight`) of what the
        seat wins by playing ``counts`` out."""
        if melds is None:
            melds = self.public[self.table.seat]
        self._left = self.work
        self._use(melds)
        total = 0.0
        weights = 0.0
        start = tuple(counts)
        for world in self.worlds:
            self.playouts += 1
            weights += world.weight
            gain = self._play_out(world, start, melds)
            if gain:
                total += world.weight * gain
        return total / weights if weights > 0 else 0.0

    def _play_out(self, world: World, start: tuple[int, ...], melds: tuple[Meld, ...]) -> float:
        """What the seat wins in one world: its own hand played by the fast policy, the others'
        discards those of :attr:`World.others` when the world has them (the hand then ends where
        that world's ends, and on a discard of the seat's that another seat waits on), else the
        wall's tiles standing in for them with a constant hazard per round."""
        opened = any(m.is_opening for m in melds)
        can_win_discard = opened or not self.must_open
        claims = PLAYOUT_CLAIMS
        rounds = max(1, (self.table.live + 3) // 4)
        survive_step = 1.0 - self.hazard
        key = start
        held = melds
        if held is not self._melds:
            self._use(held)
        shanten, draws, wins = self._shape(key)
        wall = world.wall
        others = world.others
        survive = 1.0
        position = 0
        for r in range(rounds):
            if position + 4 > len(wall):
                break
            seen: Sequence[int]
            ended = False
            if others is None:
                seen = wall[position : position + 3]
            else:
                if r >= len(others.shown):
                    break  # another seat has won
                seen = others.shown[r]
                if others.end is not None and others.end[0] == r:
                    seen = seen[: others.end[1]]
                    ended = True
            if wins and can_win_discard:
                for x in seen:
                    if x in wins:
                        return survive * self.win_value(key, held, x, "discard")
            if ended:
                break
            if claims and shanten > 0:
                claimed = self._claim_in_playout(key, held, shanten, seen, claims)
                if claimed is not None:
                    key, held = claimed
                    self._use(held)
                    can_win_discard = True
                    shanten, draws, wins = self._shape(key)
                    position += 4
                    if others is None or r >= others.horizon:
                        survive *= survive_step
                    continue
            drawn = wall[position + 3]
            position += 4
            if drawn in wins:
                return survive * self.win_value(key, held, drawn, "self_draw")
            thrown = drawn
            after = draws[drawn]
            if after is not None and after < shanten:
                new = self._keep(key, drawn)
                if new != key:
                    thrown = next(t for t in range(34) if key[t] + (t == drawn) > new[t])
                    key = new
                    shanten, draws, wins = self._shape(key)
            if others is None or r >= others.horizon:
                survive *= survive_step
            if others is not None and any(thrown in w for w in others.waits[r]):
                break  # the seat's discard is another's win
        return 0.0

    def _use(self, melds: tuple[Meld, ...]) -> None:
        """Play-outs from here on hold ``melds``: the win constraints see them."""
        self._melds = melds
        table = self._tables.get(melds)
        if table is None:
            table = copy.copy(self.table)
            table.melds = [(m.kind, list(m.tiles)) for m in melds]
            table.meld_from = [m.from_seat for m in melds]
            table.openings = sum(1 for m in melds if m.is_opening)
            self._tables[melds] = table
        self._wins_table = table

    def _claim_in_playout(
        self,
        key: tuple[int, ...],
        melds: tuple[Meld, ...],
        shanten: int,
        seen: Sequence[int],
        claims: str,
    ) -> tuple[tuple[int, ...], tuple[Meld, ...]] | None:
        """A claim on one of this round's discards (``seen``, in seat order after the seat; -1
        for none) that brings the hand a step closer: the hand after it and its best throw, and
        the melds; None when none does."""
        left = self.ruleset.chow_source(self.table.seat)  # the seat it may chow from
        chow_index = (left - self.table.seat) % 4 - 1  # its discard among the round's three
        for index, x in enumerate(seen):
            if x < 0 or x == self.wild or x in self.kept:
                continue
            if key[x] >= 2:
                meld = Meld("pung", (x, x, x), left)
                found = self._after_playout_claim(key, melds, shanten, (x, x), meld)
                if found is not None:
                    return found
            if claims == "chow" and index == chow_index and self.ruleset.chowable(x):
                for low in range(max(x - 2, x - x % 9), min(x, x - x % 9 + 6) + 1):
                    run = (low, low + 1, low + 2)
                    rest = [t for t in run if t != x]
                    if self.wild in run or any(key[t] < 1 for t in rest):
                        continue
                    meld = Meld("chow", run, left)
                    found = self._after_playout_claim(key, melds, shanten, tuple(rest), meld)
                    if found is not None:
                        return found
        return None

    def _after_playout_claim(
        self,
        key: tuple[int, ...],
        melds: tuple[Meld, ...],
        shanten: int,
        used: tuple[int, ...],
        meld: Meld,
    ) -> tuple[tuple[int, ...], tuple[Meld, ...]] | None:
        """The hand after claiming ``meld`` with ``used`` from ``key`` and its best throw, with
        the melds, when that brings it closer than ``shanten``; None otherwise.  (The throw is
        chosen as :meth:`_keep` chooses one, but only when the claim can lower the shanten at
        all, and without :meth:`_keep`'s check of the work left inside the loop: the measured
        figures in docs/bots.md are of this version.)"""
        cache_key = (melds, key, meld)
        if cache_key in self._claimed:
            return self._claimed[cache_key]
        result = None
        if self._left > 0:
            self._left -= 1
            counts = list(key)
            for t in used:
                counts[t] -= 1
            after = shapes.shanten_after_discard(counts, self.wild)
            options = sorted(
                (s, kind)
                for kind in range(34)
                if (s := after[kind]) is not None and not (kind in self.kept and counts[kind])
            )
            if options and options[0][0] < shanten:
                new_melds = (*melds, meld)
                previous = self._melds
                self._use(new_melds)
                for s, kind in options:
                    if s != options[0][0]:
                        break
                    counts[kind] -= 1
                    trial = tuple(counts)
                    counts[kind] += 1
                    if self._shape(trial)[0] < shanten:
                        result = (trial, new_melds)
                        break
                self._use(previous)
        self._claimed[cache_key] = result
        return result


def table_tile(text: str) -> int:
    from laizi.tiles import parse_tile

    return parse_tile(text)


def _with_opening(
    counts: Sequence[int],
    tile: int,
    melds: tuple[Meld, ...],
    wild: int | None,
    from_seat: int,
) -> tuple[tuple[int, ...], tuple[Meld, ...]] | None:
    """A hand not yet opened (where a win needs an opening), valued as if one set of it (not the
    winning tile's) had been claimed: a triplet first, else a run; None when it has neither."""
    full = list(counts)
    full[tile] += 1
    for kind in range(34):
        if kind != wild and kind != tile and full[kind] >= 3:
            rest = list(counts)
            rest[kind] -= 3
            meld = Meld("pung", (kind, kind, kind), from_seat)
            return tuple(t for t in range(34) for _ in range(rest[t])), (*melds, meld)
    for kind in range(FIRST_HONOR):
        if kind % 9 > 6:
            continue
        run = (kind, kind + 1, kind + 2)
        if wild in run or tile in run:
            continue
        if all(counts[t] >= 1 for t in run):
            rest = list(counts)
            for t in run:
                rest[t] -= 1
            meld = Meld("chow", run, from_seat)
            return tuple(t for t in range(34) for _ in range(rest[t])), (*melds, meld)
    return None
