"""One table of an environment: the engine's hand plus its numpy encoding, kept up to date.

:class:`EnvTable` is what every environment here drives (the PettingZoo AEC env, the Gymnasium
wrapper and the batched API).  It deals a hand from a seed, maps the engine's legal actions to
the fixed indices of :mod:`laizi.env.spaces`, plays an index, and writes a seat's observation
into a numpy array.  The public part of the observation (melds, discards, laid-out tiles) is
kept incrementally: after each step only the tiles added since the last look are written.

>>> import numpy as np
>>> from laizi.engine import make_ruleset
>>> table = EnvTable(make_ruleset("wuhan-hongzhong-kaikou"))
>>> table.deal(bytes(32), dealer=0)
>>> table.current_seat()
0
>>> mask = np.zeros(NUM_ACTIONS, np.int8)
>>> table.write_mask(0, mask)
>>> int(mask.sum()) == len(table.legal(0))
True
>>> obs = np.zeros(OBS_SHAPE, np.float32)
>>> table.write_observation(0, obs)
>>> int(obs[0].sum())  # the dealer's fourteen tiles
14
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from laizi.engine.actions import CHOW, Action
from laizi.engine.events import AnyEvent
from laizi.engine.game import apply, legal_actions, new_hand
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState
from laizi.engine.view import live_multipliers
from laizi.env.spaces import (
    ACTION_BLOCKS,
    CHOW_LOW,
    HIDDEN_KONGS,
    KONG_ACTION,
    NUM_ACTIONS,
    OBS_SHAPE,
    PASS_ACTION,
    PUNG_ACTION,
    WIN_ACTION,
    describe_action,
)
from laizi.rules.ruleset import Ruleset
from laizi.tiles import parse_tile

__all__ = ["EnvTable", "IllegalActionIndex", "action_index", "log2_multiplier", "step_tables"]

_PLAIN_INDEX = {"pung": PUNG_ACTION, "kong": KONG_ACTION, "win": WIN_ACTION, "pass": PASS_ACTION}
_PHASE_COLUMN = {TURN: 2, CLAIM: 3, ROB: 4, FINAL: 5, OVER: 6}
_DRAWN_PHASES = frozenset({TURN, FINAL})
_WINDOW_PHASES = frozenset({CLAIM, ROB})
_RELATIVE = tuple(tuple((seat + k) % 4 for k in range(4)) for seat in range(4))
"""Absolute seats in the viewer's relative order (viewer, next, across, previous)."""


def log2_multiplier(total: float) -> float:
    """The observation's multiplier scalar: log2 of a positive multiplier, else 0.

    >>> log2_multiplier(8), log2_multiplier(1), log2_multiplier(0)
    (3.0, 0.0, 0.0)
    """
    value = float(total)
    return math.log2(value) if value > 0 else 0.0


class IllegalActionIndex(ValueError):
    """An action index that is not legal for the seat now; names the index and what is legal."""


def action_index(action: Action, claim_tile: int | str | None = None) -> int:
    """The index of an engine action (a chow needs the claimed tile: its id, or its name as a
    view gives it, ``view["claim"]["tile"]`` such as ``"4m"``).

    >>> action_index(Action(0, "lay_out", 33)), action_index(Action(1, "pass"))
    (67, 142)
    >>> action_index(Action(1, "chow", None, (2, 3, 4)), claim_tile=3)
    137
    >>> action_index(Action(1, "chow", None, (2, 3, 4)), claim_tile="4m")
    137
    """
    if isinstance(claim_tile, str):
        claim_tile = parse_tile(claim_tile)
    kind = action.type
    if action.tile is not None:
        return ACTION_BLOCKS[kind] + action.tile
    if kind == CHOW:
        assert action.tiles is not None
        if claim_tile is None or claim_tile not in action.tiles:
            raise ValueError("a chow's index needs the claimed tile")
        return CHOW_LOW + claim_tile - action.tiles[0]
    try:
        return _PLAIN_INDEX[kind]
    except KeyError:
        raise ValueError(f"{kind} is not an agent action") from None


class EnvTable:
    """A hand in play with its encoding.  ``deal`` starts a hand; ``step`` plays an index."""

    __slots__ = (
        "_final_log",
        "_hidden_n",
        "_legal_key",
        "_legal_map",
        "_meld_sig",
        "_mult_cache",
        "_mult_log",
        "_mult_rules",
        "_seen_laid",
        "_seen_river",
        "_views",
        "ruleset",
        "state",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.state: HandState | None = None
        # Every viewer's observation minus the rows that change at each step (hand, drawn,
        # claim tile, scalars): kept up to date incrementally, copied out in one go.
        self._views = np.zeros((4, *OBS_SHAPE), np.float32)
        self._seen_river = [0, 0, 0, 0]
        self._seen_laid = [0, 0, 0, 0]
        self._hidden_n = [0, 0, 0, 0]
        self._meld_sig = [(0, 0)] * 4
        self._mult_log = [0.0, 0.0, 0.0, 0.0]
        self._final_log: list[float] | None = None
        """The multipliers of the hand's end, made once when first observed."""
        self._mult_rules: Any = None
        self._mult_cache: dict[Any, float] = {}
        self._legal_key: tuple[int, int] | None = None
        self._legal_map: dict[int, Action] = {}

    # --- dealing ----------------------------------------------------------------------------
    def deal(self, seed: bytes, dealer: int = 0) -> None:
        """Deal a new hand from a 32-byte seed (the engine's fair-deal shuffle)."""
        state, _ = new_hand(self.ruleset, dealer, seed=seed)
        self.load(state)

    def load(self, state: HandState) -> None:
        """Take over a hand dealt elsewhere (before its first decision), e.g. a record's
        (:func:`laizi.engine.record.deal_record`), whatever its rules."""
        if state.ruleset is not self.ruleset:
            if state.ruleset.settings != self.ruleset.settings:
                self._mult_cache.clear()  # memoised per rules
            self.ruleset = state.ruleset
        self.state = state
        views = self._views
        views.fill(0)
        self._seen_river = [0, 0, 0, 0]
        self._seen_laid = [0, 0, 0, 0]
        self._hidden_n = [0, 0, 0, 0]
        self._meld_sig = [(0, 0)] * 4
        self._legal_key = None
        sp = state.specials
        if sp.indicator is not None:
            views[:, 14, sp.indicator] = 1
        if sp.laizi is not None:
            views[:, 15, sp.laizi] = 1
        for t in sp.pi:
            views[:, 16, t] = 1
        for t in sp.must_gang:
            views[:, 17, t] = 1
        for t, laid in enumerate(state.special_mask):
            if laid:
                views[:, 19, t] = 1
        self._final_log = None
        self._mult_rules = self._per_seat_multipliers(state)
        if self._mult_rules is None:
            self._mult_log = self._all_multipliers()
        else:
            self._mult_log = [self._seat_multiplier(seat) for seat in range(4)]

    # --- actions ----------------------------------------------------------------------------
    def current_seat(self) -> int | None:
        """The seat to decide now (the lowest still to decide in a claim window), or None."""
        assert self.state is not None
        seats = self.state.to_act()
        return seats[0] if seats else None

    def legal(self, seat: int) -> dict[int, Action]:
        """The seat's legal actions now, by index."""
        state = self.state
        assert state is not None
        key = (state.events, seat)
        if key != self._legal_key:
            found: dict[int, Action] = {}
            claim = state.claim_tile
            for action in legal_actions(state, seat):
                tile = action.tile
                if tile is not None:
                    found[ACTION_BLOCKS[action.type] + tile] = action
                elif action.tiles is not None:
                    assert claim is not None
                    found[CHOW_LOW + claim - action.tiles[0]] = action
                else:
                    found[_PLAIN_INDEX[action.type]] = action
            self._legal_map = found
            self._legal_key = key
        return self._legal_map

    def write_mask(self, seat: int, out: np.ndarray) -> None:
        """Write the seat's action mask (1 = legal) into ``out`` (shape ``(NUM_ACTIONS,)``)."""
        out.fill(0)
        if self.state is not None and not self.state.over:
            legal = self.legal(seat)
            if legal:
                out[list(legal)] = 1

    def step(self, seat: int, index: int) -> list[AnyEvent]:
        """Play action ``index`` for ``seat``; :class:`IllegalActionIndex` if it is not legal.

        Returns the events the engine produced, typed (``encode_all`` gives the record's lines)."""
        state = self.state
        assert state is not None
        legal = self.legal(seat)
        action = legal.get(index)
        if action is None:
            what = describe_action(index) if 0 <= index < NUM_ACTIONS else "out of range"
            allowed = ", ".join(f"{i} ({describe_action(i)})" for i in sorted(legal))
            raise IllegalActionIndex(
                f"action {index} ({what}) is not legal for seat {seat} now; "
                f"legal: {allowed or 'nothing (not this seat’s decision)'}"
            )
        events = apply(state, action, check=False)
        # Only the seat that acted (discard, lay-out, kong) and the seat now on turn (a claim
        # winner, or an added kong completed after its rob window) can have changed.
        self._sync(seat)
        if state.turn != seat:
            self._sync(state.turn)
        return events

    def abandon(self, seat: int) -> list[AnyEvent]:
        """The seat escapes (逃跑, A9): the hand ends with the ruleset's escape payments."""
        assert self.state is not None
        return apply(self.state, Action(seat, "abandon"))

    # --- observations -----------------------------------------------------------------------
    def _sync(self, seat: int) -> None:
        """Bring the viewers' arrays up to date with ``seat``'s tiles on the table."""
        state = self.state
        assert state is not None
        views = self._views
        p = state.players[seat]
        river = p.river
        seen = self._seen_river[seat]
        if len(river) != seen:
            for t in river[seen:]:
                for viewer in range(4):
                    views[viewer, 6 + (seat - viewer) % 4, t] += 1
            self._seen_river[seat] = len(river)
        laid_out = p.laid_out
        seen = self._seen_laid[seat]
        changed = False
        if len(laid_out) != seen:
            for t in laid_out[seen:]:
                for viewer in range(4):
                    views[viewer, 10 + (seat - viewer) % 4, t] += 1
            self._seen_laid[seat] = len(laid_out)
            changed = True
        melds = p.melds
        # An added kong changes a meld in place (a pung becomes four): the tile count tells.
        sig = (len(melds), sum(len(m.tiles) for m in melds)) if melds else (0, 0)
        if sig != self._meld_sig[seat]:
            self._meld_sig[seat] = sig
            shown = np.zeros(34, np.float32)
            hidden = np.zeros(34, np.float32)
            n_hidden = 0
            for meld in melds:
                if meld.kind == "concealed_kong":
                    hidden[meld.tiles[0]] = 4
                    n_hidden += 1
                else:
                    for t in meld.tiles:
                        shown[t] += 1
            self._hidden_n[seat] = n_hidden
            for viewer in range(4):
                rel = (seat - viewer) % 4
                views[viewer, 2 + rel] = shown + hidden if rel == 0 else shown
            changed = True
        if changed:
            if self._mult_rules is None:
                self._mult_log = self._all_multipliers()
            else:
                self._mult_log[seat] = self._seat_multiplier(seat)

    @staticmethod
    def _per_seat_multipliers(state: HandState) -> Any:
        """The ruleset, if it gives a multiplier seat by seat (one seat's melds change at a
        time), else None (then :meth:`_all_multipliers`)."""
        ruleset = state.ruleset
        if ruleset.seat_multiplier(state.specials, (), (), False) is None:
            return None
        return ruleset

    def _seat_multiplier(self, seat: int) -> float:
        state = self.state
        assert state is not None
        p = state.players[seat]
        dealer = seat == state.dealer
        key = (state.specials.indicator, dealer, tuple(p.melds), tuple(sorted(p.laid_out)))
        found = self._mult_cache.get(key)
        if found is None:
            total = self._mult_rules.seat_multiplier(state.specials, p.melds, p.laid_out, dealer)
            found = log2_multiplier(total.total)
            if len(self._mult_cache) > 100_000:
                self._mult_cache.clear()
            self._mult_cache[key] = found
        return found

    def _final_multipliers(self) -> list[float]:
        """Once the hand is over: the multipliers of its end, as the seat view shows them (after
        a win the settlement's, which were paid; else the standing ones)."""
        state = self.state
        assert state is not None
        found = live_multipliers(state)
        if found is None:
            return [0.0, 0.0, 0.0, 0.0]
        return [log2_multiplier(m["total"]) for m in found]

    def _all_multipliers(self) -> list[float]:
        state = self.state
        assert state is not None
        found = self.ruleset.multipliers(state)
        if found is None:
            return [0.0, 0.0, 0.0, 0.0]
        return [log2_multiplier(m["total"]) for m in found]

    def write_observation(self, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation (layout: :mod:`laizi.env.spaces`) into ``out``."""
        state = self.state
        assert state is not None
        out[:] = self._views[seat]
        players = state.players
        own = players[seat]
        out[0] = own.counts
        phase = state.phase
        turn = state.turn
        if turn == seat and state.drawn is not None and phase in _DRAWN_PHASES:
            out[1, state.drawn] = 1
        if phase in _WINDOW_PHASES and state.claim_tile is not None:
            out[18, state.claim_tile] = 1
        rel = _RELATIVE[seat]
        if phase != OVER:
            mult = self._mult_log
        else:
            if self._final_log is None:
                self._final_log = self._final_multipliers()
            mult = self._final_log
        hidden = self._hidden_n
        left = state.back - state.front
        live = left - self.ruleset.reserve
        scalars = [0.0] * 34
        scalars[0] = left
        scalars[1] = live if live > 0 else 0
        scalars[_PHASE_COLUMN[phase]] = 1.0
        scalars[7 + (state.dealer - seat) % 4] = 1.0
        scalars[11 + (turn - seat) % 4] = 1.0
        for k, s in enumerate(rel):
            p = players[s]
            scalars[15 + k] = mult[s]
            scalars[19 + k] = sum(p.counts)
            scalars[23 + k] = p.openings
            if k:
                scalars[HIDDEN_KONGS + k] = hidden[s]
            if p.declared_ready:
                out[21, k] = 1
        scalars[31] = float(state.after_kong and turn == seat)
        scalars[32] = float(own.win_locked)
        scalars[33] = state.kongs_made
        out[20] = scalars


def step_tables(
    tables: list[EnvTable],
    seats: np.ndarray,
    actions: list[int],
    obs: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    scale: float,
    write: Any = None,
) -> list[int]:
    """:class:`~laizi.env.batch.BatchEnv`'s loop, compiled with this module: table *i* plays
    ``actions[i]`` for seat ``seats[i]``; where its hand goes on, the next decision's seat,
    observation and mask are written into row *i*; where it ended, its four payments × ``scale``
    into ``rewards[i]``.  Returns the tables whose hand ended (the caller deals them again).
    ``write(table, seat, out)``: another observation encoder (:mod:`laizi.env.encoders`);
    ``None``: ``v1``, :meth:`EnvTable.write_observation`."""
    ended: list[int] = []
    for i in range(len(tables)):
        table = tables[i]
        table.step(int(seats[i]), actions[i])
        state = table.state
        assert state is not None
        if state.over:
            result = state.result
            assert result is not None
            payments = result["payments"]
            for k in range(4):
                rewards[i, k] = float(payments[k]) * scale
            ended.append(i)
            continue
        seat = table.current_seat()
        assert seat is not None
        seats[i] = seat
        if write is None:
            table.write_observation(seat, obs[i])
        else:
            write(table, seat, obs[i])
        table.write_mask(seat, mask[i])
    return ended
