"""听牌 hints: from one seat's view, the waits of its hand and what each win would collect now.

For a seat holding 3n+2 tiles on its turn: every legal discard that leaves the hand ready, with
its waits; for 3n+1 tiles: the waits.  Each wait carries how many copies are still unseen from
this seat's view and the exact total the seat would collect winning on it *now* — self-drawn and
on a discard — from the ruleset's own settlement (the current multipliers, caps, contracts and
minimum), or the reason the rules would refuse that win.  And when the tile just drawn or offered
completes the shape but no win is legal, why.

Nothing here reads a hidden tile: the hints are computed on a copy of the table in which every
other seat's concealed hand is a fixed placeholder of the right size (a settlement reads another
seat's concealed tiles only to tell who pays under a contract, never the winner's total), and the
tiles left are counted from what this seat sees.  Which game is played is the ruleset's business:
this module asks :meth:`~laizi.rules.ruleset.Ruleset.shape_waits`, ``win_offer`` and ``score``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi.engine.actions import DECLARE_READY, DISCARD, WIN
from laizi.engine.events import TILE
from laizi.engine.game import legal_actions
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState
from laizi.rules.melds import Meld
from laizi.rules.registry import game_ids, ruleset_class
from laizi.rules.ruleset import Ruleset, SpecialTiles
from laizi.tiles import FIRST_HONOR, HONORS

__all__ = ["discard_no_win", "hint_key", "refusal_reasons", "seat_hints", "seen_counts"]


def refusal_reasons() -> dict[str, tuple[str, str]]:
    """Every reason a hint gives for a win the rules refuse, in every registered game: id →
    (Chinese, English), each game's :meth:`~laizi.rules.ruleset.Ruleset.refusal_reasons`.
    Stable ids, listed in docs/protocol.md; each game's own first, then those every game gives."""
    shared = Ruleset.refusal_reasons()
    found: dict[str, tuple[str, str]] = {}
    for game in game_ids():
        own = ruleset_class(game).refusal_reasons()
        found.update((key, text) for key, text in own.items() if key not in shared)
    return {**found, **shared}


_PLACEHOLDER = (*range(0, FIRST_HONOR, 3), *HONORS[:5])
"""Another seat's concealed hand in the copy the hints read: these tiles, as many as it holds
(1m 4m 7m 1p 4p 7p 1s 4s 7s and honors: no hidden tile, and nothing the seat could learn from)."""


@dataclass(slots=True)
class _Seat:
    counts: list[int]
    melds: list[Meld]
    laid_out: list[int]
    openings: int
    win_locked: bool
    declared_ready: bool


@dataclass(slots=True)
class _Table:
    """A :class:`~laizi.rules.ruleset.HandView` of what one seat knows, set up for one question."""

    players: list[_Seat]
    dealer: int
    specials: SpecialTiles
    phase: str
    turn: int
    drawn: int | None
    claim_tile: int | None
    claim_from: int | None
    after_kong: bool


def _placeholder(size: int) -> list[int]:
    counts = [0] * 34
    for tile in _PLACEHOLDER[:size]:
        counts[tile] += 1
    return counts


def _table(state: HandState, seat: int) -> _Table:
    players = []
    for s, p in enumerate(state.players):
        counts = p.counts[:] if s == seat else _placeholder(p.size())
        players.append(
            _Seat(counts, p.melds, p.laid_out, p.openings, p.win_locked, p.declared_ready)
        )
    return _Table(
        players,
        state.dealer,
        state.specials,
        TURN,
        seat,
        None,
        None,
        None,
        False,
    )


def seen_counts(state: HandState, seat: int) -> list[int]:
    """Per kind, the copies ``seat`` sees: its own concealed tiles, every meld (another seat's
    concealed kong lies face down), the tiles laid out, the rivers, the indicator and an added
    kong's tile while it may be robbed."""
    counts = state.players[seat].counts[:]
    if state.specials.indicator is not None:
        counts[state.specials.indicator] += 1
    for s, p in enumerate(state.players):
        for meld in p.melds:
            if meld.kind == "concealed_kong" and s != seat:
                continue
            for tile in meld.tiles:
                counts[tile] += 1
        for tile in p.laid_out:
            counts[tile] += 1
        claimed = set(p.claimed)
        for index, tile in enumerate(p.river):
            if index not in claimed:
                counts[tile] += 1
    if state.phase == ROB and state.claim_tile is not None:
        counts[state.claim_tile] += 1
    return counts


def _total(value: Fraction) -> str:
    return str(Fraction(value))


def _settle(table: _Table, state: HandState, seat: int, tile: int, how: str) -> tuple[Any, ...]:
    """(the total ``seat`` collects or None, the refusal (a hint id, :func:`refusal_reasons`) or
    None); both None: the tile completes no winning shape at all."""
    ruleset = state.ruleset
    try:
        settlement = ruleset.score(ruleset.situation(table, seat, tile, how))
    except (NotImplementedError, ValueError):  # no settlement, or a hand it can't read
        return None, None
    if settlement.allowed:
        return _total(ruleset.win_payments(settlement)[seat]), None
    reason = getattr(settlement, "reason", None) or "not_allowed"
    if reason == "not_complete":
        return None, None
    return None, ruleset.hint_reason(reason)


_CACHE: OrderedDict[tuple[Any, ...], tuple[str | None, str | None]] = OrderedDict()
_CACHE_SIZE = 50_000
"""Answers already worked out: most prompts of a hand ask again about the same hands."""


def _win(
    table: _Table, state: HandState, seat: int, tile: int, how: str, public: tuple[Any, ...]
) -> tuple[str | None, str | None]:
    """(the total ``seat`` collects or None, the refusal or None)."""
    key = (public, tuple(table.players[seat].counts), tile, how, table.claim_from, table.phase)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    found = _settle(table, state, seat, tile, how)
    _CACHE[key] = found
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return found


_SHAPES: OrderedDict[tuple[Any, ...], list[int]] = OrderedDict()
_SHAPES_SIZE = 20_000
"""Shape waits already worked out: a seat's hand is the same for a whole round of the others'
turns, and its hints are asked again after each of their discards."""


def shape_waits(state: HandState, counts: list[int], melds: Sequence[Meld]) -> list[int]:
    """The ruleset's :meth:`~laizi.rules.ruleset.Ruleset.shape_waits`, remembered by what it
    reads (the rules, the hand, its melds, the special tiles)."""
    key = (id(state.ruleset), state.specials, tuple(counts), tuple(melds))
    found = _SHAPES.get(key)
    if found is None:
        found = state.ruleset.shape_waits(counts, melds, state.specials)
        _SHAPES[key] = found
        if len(_SHAPES) > _SHAPES_SIZE:
            _SHAPES.popitem(last=False)
    else:
        _SHAPES.move_to_end(key)
    return found


def _likes(state: HandState) -> list[tuple[Any, ...]]:
    """Per seat, what a settlement may read of it as a loser: its melds (not where their tiles
    came from), tiles laid out, hand size, 报听 and whether it deals.  Two discarders alike in
    all of it pay the winner the same (a settlement names no seat but the dealer and the
    discarder), so one of them is settled for both."""
    return [
        (
            tuple((m.kind, m.tiles) for m in p.melds),
            tuple(p.laid_out),
            p.size(),
            p.declared_ready,
            s == state.dealer,
        )
        for s, p in enumerate(state.players)
    ]


def _public(state: HandState, seat: int) -> tuple[Any, ...]:
    """What a settlement of ``seat``'s win reads besides its own concealed tiles: the rules, the
    dealer, the special tiles, every seat's melds, tiles laid out, hand size and 报听."""
    return (
        id(state.ruleset),
        state.specials.indicator,
        state.dealer,
        seat,
        tuple(
            (tuple(p.melds), tuple(p.laid_out), p.size(), p.declared_ready) for p in state.players
        ),
    )


def _waits(
    state: HandState,
    table: _Table,
    seat: int,
    counts: list[int],
    seen: Sequence[int],
    public: tuple[Any, ...],
    likes: list[tuple[Any, ...]],
) -> list[dict[str, Any]]:
    """The waits of the 3n+1 hand ``counts`` (set into ``table``), each with what it pays;
    ``likes``: :func:`_likes` of the state."""
    player = table.players[seat]
    mask = state.special_mask
    final = FINAL if state.phase == FINAL else None
    out: list[dict[str, Any]] = []
    for tile in shape_waits(state, counts, player.melds):
        reasons: list[str] = []
        # Self-drawn: the tile joins the hand — in the final round (海底) its own draw there, which
        # the settlement may pay more for (海底捞).
        counts[tile] += 1
        player.counts = counts
        table.phase, table.turn, table.drawn = final or TURN, seat, tile
        table.claim_tile = table.claim_from = None
        self_drawn, why = _win(table, state, seat, tile, "self_draw", public)
        counts[tile] -= 1
        if why is not None:
            reasons.append(why)
        # A refusal of the hand alone holds on every discard too (the others may differ: a
        # discard can make a big win, 全求人).
        hand_refused = why is not None and state.ruleset.refused_by_the_hand(why)
        # On a discard of each other seat (a tile that is laid out is never discarded).
        by_seat: dict[str, str | None] = {}
        if not mask[tile] and not final:  # nobody discards in the final round
            table.phase, table.drawn, table.claim_tile = CLAIM, None, tile
            done: dict[tuple[Any, ...], tuple[str | None, str | None]] = {}
            for k in (1, 2, 3):
                source = (seat + k) % 4
                table.turn = table.claim_from = source
                if hand_refused:
                    value = None  # refused whatever the discard (reason given above)
                elif player.win_locked:
                    value, why = None, "pass_win_locked"
                elif likes[source] in done:  # a discarder just like one already settled
                    value, why = done[likes[source]]
                else:
                    value, why = _win(table, state, seat, tile, "discard", public)
                    done[likes[source]] = (value, why)
                by_seat[str(source)] = value
                if why is not None and why not in reasons:
                    reasons.append(why)
        if self_drawn is None and not reasons:
            continue  # the tile completes no winning shape after all
        paid = [Fraction(v) for v in by_seat.values() if v is not None]
        out.append(
            {
                "tile": TILE[tile],
                "left": max(0, 4 - seen[tile]),
                "self_drawn": self_drawn,
                "on_discard": _total(min(paid)) if paid else None,
                "on_discard_from": by_seat,
                "allowed": self_drawn is not None or bool(paid),
                "reason": reasons[0] if reasons else None,
            }
        )
    return out


def _no_win(state: HandState, seat: int, legal: Sequence[Any]) -> Any:
    """The tile just drawn or offered completes the shape, but no win is legal: why."""
    if any(a.type == WIN for a in legal):
        return None
    player = state.players[seat]
    counts = player.counts[:]
    if state.phase in (CLAIM, ROB) and state.claim_tile is not None and seat != state.claim_from:
        tile, how = state.claim_tile, "discard" if state.phase == CLAIM else "rob_kong"
    elif state.phase in (TURN, FINAL) and state.turn == seat and state.drawn is not None:
        tile, how = state.drawn, "self_draw"
        counts[tile] -= 1
    else:
        return None
    if tile not in shape_waits(state, counts, player.melds):
        return None
    if how != "self_draw" and player.win_locked:
        return {"tile": TILE[tile], "reason": "pass_win_locked"}
    table = _table(state, seat)
    table.players[seat].counts = player.counts[:]
    table.phase, table.turn, table.drawn = state.phase, state.turn, state.drawn
    table.claim_tile, table.claim_from = state.claim_tile, state.claim_from
    table.after_kong = state.after_kong
    if how == "rob_kong" and not state.ruleset.kong_robbable:
        return None
    _, why = _settle(table, state, seat, tile, how)
    return None if why is None else {"tile": TILE[tile], "reason": why}


def seat_hints(state: HandState, seat: int) -> dict[str, Any]:
    """``{"discards", "waits", "no_win"}`` for ``seat`` now (docs/protocol.md, ``hints``).

    The shapes come first (remembered, :func:`shape_waits`): what the seat sees and what the
    settlements read is worked out only for a hand that is ready or one discard from it."""
    out: dict[str, Any] = {"discards": None, "waits": None, "no_win": None}
    if state.phase == OVER:
        return out
    player = state.players[seat]
    if state.phase in (CLAIM, ROB):
        legal: Sequence[Any] = state.options.get(seat, [])  # decided or not, what was offered
    else:
        legal = legal_actions(state, seat) if seat in state.to_act() else []
    size = player.size()
    if size % 3 == 2:
        if state.phase == TURN and state.turn == seat:
            ready = []
            tiles = sorted({a.tile for a in legal if a.type in (DISCARD, DECLARE_READY)} - {None})
            for tile in tiles:
                assert tile is not None
                if state.special_mask[tile]:
                    continue  # laid out, not discarded: the hand stays 3n+2
                counts = player.counts[:]
                counts[tile] -= 1
                if shape_waits(state, counts, player.melds):
                    ready.append((tile, counts))
            found = []
            if ready:
                table = _table(state, seat)
                table.players[seat].win_locked = False  # a new draw lifted 过胡
                seen = seen_counts(state, seat)  # the discard stays seen: it goes to the river
                public, likes = _public(state, seat), _likes(state)
                for tile, counts in ready:
                    waits = _waits(state, table, seat, counts, seen, public, likes)
                    if waits:
                        found.append({"tile": TILE[tile], "waits": waits})
            out["discards"] = found
    elif size % 3 == 1 and shape_waits(state, player.counts, player.melds):
        table, seen = _table(state, seat), seen_counts(state, seat)
        public, likes = _public(state, seat), _likes(state)
        waits = _waits(state, table, seat, player.counts[:], seen, public, likes)
        out["waits"] = waits or None
    out["no_win"] = _no_win(state, seat, legal)
    return out


def discard_no_win(state: HandState, seat: int, tile: int, discarder: int) -> Any:
    """Why ``seat`` could not win on ``discarder``'s discard of ``tile`` that completed its shape
    (``{"tile", "reason"}``), or None — asked once the discard is past (nobody could claim it,
    so the table moved on at once; the only change to ``seat``'s hand since is its own draw)."""
    if seat == discarder or state.special_mask[tile]:
        return None
    player = state.players[seat]
    counts = player.counts[:]
    drew = state.turn == seat and state.drawn is not None and player.size() % 3 == 2
    if drew:
        assert state.drawn is not None
        counts[state.drawn] -= 1
    if sum(counts) % 3 != 1:
        return None
    if tile not in shape_waits(state, counts, player.melds):
        return None
    if player.win_locked and not drew:
        return {"tile": TILE[tile], "reason": "pass_win_locked"}
    table = _table(state, seat)
    table.players[seat].counts = counts
    table.phase, table.turn, table.drawn = CLAIM, discarder, None
    table.claim_tile, table.claim_from = tile, discarder
    total, why = _settle(table, state, seat, tile, "discard")
    if total is not None or why is None:
        return None  # it was offered (or it is no win at all)
    return {"tile": TILE[tile], "reason": why}


def hint_key(state: HandState, seat: int) -> tuple[Any, ...]:
    """Everything :func:`seat_hints` reads for ``seat``: equal keys, equal hints (so a table
    recomputes them only when this changes)."""
    own = state.players[seat]
    public = tuple(
        (
            tuple(p.melds),
            tuple(p.laid_out),
            len(p.river),
            tuple(p.claimed),
            p.size(),
            p.declared_ready,
        )
        for p in state.players
    )
    claim = (state.claim_tile, state.claim_from) if state.phase in (CLAIM, ROB) else None
    drawn = state.drawn if state.turn == seat else None
    return (
        state.hand_number,
        tuple(own.counts),
        own.win_locked,
        public,
        state.phase,
        state.turn,
        drawn,
        claim,
        tuple(sorted(state.options.get(seat, ()), key=repr)) if seat in state.options else None,
        seat in state.decisions,
    )
