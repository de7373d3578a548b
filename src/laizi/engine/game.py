"""The state machine of one hand: ``legal_actions`` and ``apply`` (dealing: ``dealing.py``).

Pure: no I/O, no clock, no randomness.  The wall comes from a seed (or is given whole); every
question a rule text answers goes to the state's :class:`~laizi.rules.ruleset.Ruleset`.
``apply`` changes the state in place and returns the events it produced, typed
(:data:`~laizi.engine.events.AnyEvent`; :func:`~laizi.engine.events.encode` gives the record
line); draws happen by themselves inside ``apply``.

Phases (``state.phase``): ``turn`` — the seat to act discards, kongs, lays out or wins;
``claim`` — the other seats decide on a discard; ``rob`` — they decide on an added kong (抢杠);
``final`` — the 海底 round, the seat that drew may only win or pass; ``over``.
"""

from __future__ import annotations

from fractions import Fraction

from laizi.engine.actions import (
    ABANDON,
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DECLARE_READY,
    DISCARD,
    KONG,
    LAY_OUT,
    PASS,
    PUNG,
    WIN,
    Action,
)
from laizi.engine.dealing import new_hand
from laizi.engine.events import (
    TILE,
    Abandon,
    AddedKong,
    AnyEvent,
    Chow,
    Claim,
    ConcealedKong,
    Discard,
    Draw,
    End,
    Kong,
    KongPaid,
    LayOut,
    Pass,
    Pung,
    Win,
    number,
    sequence_text,
)
from laizi.engine.illegal import IllegalAction, why_illegal
from laizi.engine.state import CLAIM, FINAL, OVER, ROB, TURN, HandState
from laizi.rules.melds import Meld
from laizi.rules.ruleset import Settlement, WinOffer
from laizi.tiles import FIRST_HONOR, format_counts

__all__ = ["IllegalAction", "apply", "legal_actions", "new_hand", "number", "why_illegal"]

# Actions are immutable values: build each one once (the hot path only picks them).
_TILE_ACTIONS = {
    kind: tuple(tuple(Action(seat, kind, tile) for tile in range(34)) for seat in range(4))
    for kind in (DISCARD, LAY_OUT, CONCEALED_KONG, ADDED_KONG, DECLARE_READY)
}
_PLAIN_ACTIONS = {
    kind: tuple(Action(seat, kind) for seat in range(4)) for kind in (WIN, PASS, PUNG, KONG)
}
_CHOW_ACTIONS = tuple(
    {
        low: Action(seat, CHOW, None, (low, low + 1, low + 2))
        for low in range(FIRST_HONOR)
        if low % 9 < 7
    }
    for seat in range(4)
)
_SELF_DRAW = "self_draw"
_DISCARD_WIN = "discard"
_ROB_KONG = "rob_kong"


# --- what may be done -------------------------------------------------------------------------


def legal_actions(state: HandState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a fixed order.

    ``abandon`` (逃跑) is always allowed to a seated player while the hand runs and is not listed.
    """
    cached = state.legal_cache
    if cached is not None and cached[0] == state.events and cached[1] == seat:
        return list(cached[2])
    found = _legal_actions(state, seat)
    state.legal_cache = (state.events, seat, found)
    return list(found)


def _legal_actions(state: HandState, seat: int) -> list[Action]:
    phase = state.phase
    if phase == TURN:
        return _turn_actions(state) if seat == state.turn else []
    if phase in (CLAIM, ROB):
        if seat in state.decisions:
            return []
        options = state.options.get(seat)
        return [*options, _PLAIN_ACTIONS[PASS][seat]] if options else []
    if phase == FINAL and seat == state.turn:
        return [_PLAIN_ACTIONS[WIN][seat], _PLAIN_ACTIONS[PASS][seat]]
    return []


def _turn_actions(state: HandState) -> list[Action]:
    seat = state.turn
    player = state.players[seat]
    if state.ruleset.hand_locked(state, seat):
        return _locked_turn_actions(state, seat)
    counts = player.counts
    mask = state.special_mask
    can_replace = state.back > state.front
    discards = _TILE_ACTIONS[DISCARD][seat]
    actions: list[Action] = []
    kongs: list[Action] = []
    for kind in range(34):
        n = counts[kind]
        if not n:
            continue
        if mask[kind]:
            # A4/A3: a must-gang tile or laizi is laid out; discarding it counts as laying it out.
            if can_replace:
                actions.append(discards[kind])
                kongs.append(_TILE_ACTIONS[LAY_OUT][seat][kind])
            continue
        actions.append(discards[kind])
        if n == 4 and can_replace:
            kongs.append(_TILE_ACTIONS[CONCEALED_KONG][seat][kind])
    if can_replace:
        for meld in player.melds:
            if meld.kind == PUNG and counts[meld.tiles[0]]:
                kongs.append(_TILE_ACTIONS[ADDED_KONG][seat][meld.tiles[0]])
    actions += kongs
    declare = _TILE_ACTIONS[DECLARE_READY][seat]
    actions += [declare[t] for t in state.ruleset.declarable_discards(state, seat)]
    if state.drawn is not None and _offer(state, seat, state.drawn, _SELF_DRAW) is not None:
        actions.append(_PLAIN_ACTIONS[WIN][seat])
    return actions


def _locked_turn_actions(state: HandState, seat: int) -> list[Action]:
    """A locked hand (the ruleset's ``hand_locked``: 报听): discard the tile just drawn, or win
    with it."""
    actions: list[Action] = []
    drawn = state.drawn
    if drawn is not None:
        actions.append(_TILE_ACTIONS[DISCARD][seat][drawn])
        if _offer(state, seat, drawn, _SELF_DRAW) is not None:
            actions.append(_PLAIN_ACTIONS[WIN][seat])
    return actions


def _offer(state: HandState, seat: int, tile: int, how: str) -> WinOffer | None:
    key = (seat, how)
    if key in state.offers:
        return state.offers[key]
    offer = state.ruleset.win_offer(state, seat, tile, how)
    state.offers[key] = offer
    return offer


# --- doing it ---------------------------------------------------------------------------------


def apply(state: HandState, action: Action, *, check: bool = True) -> list[AnyEvent]:
    """Play ``action``; change ``state`` in place; return the events, in order.

    Raises :class:`IllegalAction` (state unchanged) unless the action is legal.  ``check=False``
    skips the test for callers that took the action from :func:`legal_actions` themselves.
    """
    if state.phase == OVER:
        raise IllegalAction(action, "the hand is over", [])
    seat = action.seat
    if action.type == ABANDON:
        if not 0 <= seat <= 3:
            raise IllegalAction(action, "no such seat", [])
        events: list[AnyEvent] = [Abandon(seat=seat)]
        payments = state.ruleset.escape_payments(seat)
        _end(state, events, "abandon", None, payments, None, None, escaped=seat)
        state.events += len(events)
        return events
    if check:
        legal = legal_actions(state, seat)  # usually the caller's list, from the cache
        # The actions are built once (above), so the chosen one is usually one of those very
        # objects: membership by identity first, value equality only for a caller's own Action.
        for candidate in legal:
            if candidate is action:
                break
        else:
            if action not in legal:
                raise IllegalAction(action, why_illegal(state, action), legal)
    events = []
    phase = state.phase
    if phase == TURN:
        _turn(state, action, events)
    elif phase == FINAL:
        if action.type == WIN:
            assert state.drawn is not None
            _win(state, events, seat, _SELF_DRAW, state.drawn, None)
        else:
            events.append(Pass(seat=seat))
            _final_draw(state, events, (seat + 1) % 4)
    else:
        _decide(state, action, events)
    state.events += len(events)
    return events


def _turn(state: HandState, action: Action, events: list[AnyEvent]) -> None:
    seat = action.seat
    kind = action.type
    tile = action.tile
    player = state.players[seat]
    if kind == WIN:
        assert state.drawn is not None
        _win(state, events, seat, _SELF_DRAW, state.drawn, None)
        return
    assert tile is not None
    if kind == DISCARD and not state.special_mask[tile]:
        _discard(state, events, seat, tile)
        return
    if kind == DECLARE_READY:
        player.declared_ready = True  # 报听 (Part B): the hand is locked from now on
        _discard(state, events, seat, tile, declare_ready=True)
        return
    if kind in (DISCARD, LAY_OUT):
        player.counts[tile] -= 1
        player.laid_out.append(tile)
        state.kongs_made += 1
        if kind == DISCARD:
            events.append(Discard(seat=seat, tile=TILE[tile], lay_out=True))
        else:
            events.append(LayOut(seat=seat, tile=TILE[tile]))
        _replacement(state, events, seat)
    elif kind == CONCEALED_KONG:
        player.counts[tile] -= 4
        player.melds.append(Meld(CONCEALED_KONG, (tile,) * 4, None))
        state.kongs_made += 1
        events.append(ConcealedKong(seat=seat, tile=TILE[tile]))
        _kong_paid(state, events, seat, CONCEALED_KONG, tile)
        _replacement(state, events, seat)
    elif kind == ADDED_KONG:
        player.counts[tile] -= 1
        events.append(AddedKong(seat=seat, tile=TILE[tile]))
        _open_window(state, events, seat, tile, ROB)
    else:  # pragma: no cover - legal_actions offers nothing else on a turn
        raise AssertionError(kind)


def _discard(
    state: HandState, events: list[AnyEvent], seat: int, tile: int, declare_ready: bool = False
) -> None:
    player = state.players[seat]
    player.counts[tile] -= 1
    if state.drawn == tile:  # 摸切: the tile just drawn (public at a real table)
        player.from_draw.append(len(player.river))
    player.river.append(tile)
    # 报听 with this discard (declare_ready): one decision, one event
    events.append(Discard(seat=seat, tile=TILE[tile], declare_ready=declare_ready))
    _open_window(state, events, seat, tile, CLAIM)


def _open_window(
    state: HandState, events: list[AnyEvent], seat: int, tile: int, phase: str
) -> None:
    """Find every seat that may claim ``tile``; ask them, or move on when nobody may."""
    state.offers.clear()
    state.decisions.clear()
    state.claim_tile = tile
    state.claim_from = seat
    options: dict[int, list[Action]] = {}
    ruleset = state.ruleset
    how = _ROB_KONG if phase == ROB else _DISCARD_WIN
    can_replace = state.back > state.front
    for k in (1, 2, 3):
        other = (seat + k) % 4
        player = state.players[other]
        opts: list[Action] = []
        if not player.win_locked and _offer(state, other, tile, how) is not None:
            opts.append(_PLAIN_ACTIONS[WIN][other])
        locked = phase != CLAIM or state.special_mask[tile] or ruleset.hand_locked(state, other)
        if not locked:
            n = player.counts[tile]
            if n >= 2:
                opts.append(_PLAIN_ACTIONS[PUNG][other])
                if n == 3 and can_replace:
                    opts.append(_PLAIN_ACTIONS[KONG][other])
            if ruleset.chowable(tile) and ruleset.chow_allowed(seat, other):
                opts += _chows(state, other, tile)
        if opts:
            options[other] = opts
    state.options = options
    if options:
        state.phase = phase
        return
    if phase == ROB:
        _complete_added_kong(state, events, seat, tile)
    else:
        _normal_draw(state, events, (seat + 1) % 4)


def _chows(state: HandState, seat: int, tile: int) -> list[Action]:
    counts = state.players[seat].counts
    mask = state.special_mask
    rank = tile % 9
    found: list[Action] = []
    for low in (tile - 2, tile - 1, tile):
        if low < tile - rank or low + 2 > tile - rank + 8:
            continue  # the sequence would leave the suit
        others = [t for t in (low, low + 1, low + 2) if t != tile]
        # A3/A4: a laizi or must-gang tile can never help to chow.
        if all(counts[t] and not mask[t] for t in others):
            found.append(_CHOW_ACTIONS[seat][low])
    return found


def _decide(state: HandState, action: Action, events: list[AnyEvent]) -> None:
    seat = action.seat
    if action.type == PASS:
        events.append(Pass(seat=seat))
    else:
        tiles = None if action.tiles is None else sequence_text(action.tiles)
        events.append(Claim(seat=seat, claim=action.type, tiles=tiles))
    if action.type != WIN and state.ruleset.pass_win_locked():
        how = _ROB_KONG if state.phase == ROB else _DISCARD_WIN
        if state.offers.get((seat, how)) is not None:
            state.players[seat].win_locked = True  # 过胡 (A6): no win until its own draw
    state.decisions[seat] = action
    if len(state.decisions) == len(state.options):
        _resolve(state, events)


def _resolve(state: HandState, events: list[AnyEvent]) -> None:
    """Settle the window by priority: win > pung/kong > chow (A5), wins in A6's order."""
    tile = state.claim_tile
    discarder = state.claim_from
    assert tile is not None and discarder is not None
    decisions = state.decisions
    winners = [seat for seat, a in decisions.items() if a.type == WIN]
    if winners:
        for seat in state.ruleset.win_order(state.dealer, discarder):
            if seat in winners:
                how = _ROB_KONG if state.phase == ROB else _DISCARD_WIN
                _win(state, events, seat, how, tile, discarder)
                return
    if state.phase == ROB:
        _complete_added_kong(state, events, discarder, tile)
        return
    chosen = [a for a in decisions.values() if a.type in (PUNG, KONG)]
    chosen = chosen or [a for a in decisions.values() if a.type == CHOW]
    if not chosen:
        _normal_draw(state, events, (discarder + 1) % 4)
        return
    action = chosen[0]
    seat = action.seat
    player = state.players[seat]
    source = state.players[discarder]
    source.claimed.append(len(source.river) - 1)
    player.openings += 1
    if action.type == CHOW:
        assert action.tiles is not None
        for t in action.tiles:
            if t != tile:
                player.counts[t] -= 1
        player.melds.append(Meld(CHOW, action.tiles, discarder))
        text = sequence_text(action.tiles)
        events.append(Chow(seat=seat, tiles=text, tile=TILE[tile], from_=discarder))
        _begin_turn(state, seat, None, False)
    elif action.type == PUNG:
        player.counts[tile] -= 2
        player.melds.append(Meld(PUNG, (tile,) * 3, discarder))
        events.append(Pung(seat=seat, tile=TILE[tile], from_=discarder))
        _begin_turn(state, seat, None, False)
    else:
        player.counts[tile] -= 3
        player.melds.append(Meld("exposed_kong", (tile,) * 4, discarder))
        state.kongs_made += 1
        events.append(Kong(seat=seat, tile=TILE[tile], from_=discarder))
        _kong_paid(state, events, seat, "exposed_kong", tile)
        _replacement(state, events, seat)


def _complete_added_kong(state: HandState, events: list[AnyEvent], seat: int, tile: int) -> None:
    melds = state.players[seat].melds
    for index, meld in enumerate(melds):
        if meld.kind == PUNG and meld.tiles[0] == tile:
            melds[index] = Meld(ADDED_KONG, (tile,) * 4, meld.from_seat)
            break
    state.kongs_made += 1
    _kong_paid(state, events, seat, ADDED_KONG, tile)
    _replacement(state, events, seat)


def _kong_paid(state: HandState, events: list[AnyEvent], seat: int, kind: str, tile: int) -> None:
    """A kong that stands may be paid on the spot (Baishan, Part B): a ``kong_paid`` event."""
    payments = state.ruleset.kong_payments(state, seat, kind, tile)
    if payments is None:
        return
    state.kong_paid = tuple(a + b for a, b in zip(state.kong_paid, payments, strict=True))
    shown = [number(p) for p in payments]
    events.append(KongPaid(seat=seat, kind=kind, tile=TILE[tile], payments=shown))


# --- draws ------------------------------------------------------------------------------------


def _begin_turn(state: HandState, seat: int, drawn: int | None, after_kong: bool) -> None:
    state.phase = TURN
    state.turn = seat
    state.drawn = drawn
    state.after_kong = after_kong
    state.offers.clear()
    state.options = {}
    state.decisions.clear()
    state.claim_tile = None
    state.claim_from = None


def _replacement(state: HandState, events: list[AnyEvent], seat: int) -> None:
    """Every kong and every tile laid out is followed by a draw from the back (A5, A8)."""
    state.back -= 1
    tile = state.wall[state.back]
    player = state.players[seat]
    player.counts[tile] += 1
    player.win_locked = False
    events.append(Draw(seat=seat, tile=TILE[tile], from_="back"))
    _begin_turn(state, seat, tile, True)


def _normal_draw(state: HandState, events: list[AnyEvent], seat: int) -> None:
    live = state.live
    if state.ruleset.final_round_starts(live, state.kongs_made):
        state.final_draws_left = min(4, max(live, 0))
        _final_draw(state, events, seat)
        return
    tile = state.wall[state.front]
    state.front += 1
    player = state.players[seat]
    player.counts[tile] += 1
    player.win_locked = False
    events.append(Draw(seat=seat, tile=TILE[tile], from_="front"))
    _begin_turn(state, seat, tile, False)


def _final_draw(state: HandState, events: list[AnyEvent], seat: int) -> None:
    """The final round (海底, A8): each seat in turn draws one tile and may only win."""
    while state.final_draws_left > 0 and state.live > 0:
        state.final_draws_left -= 1
        tile = state.wall[state.front]
        state.front += 1
        player = state.players[seat]
        player.counts[tile] += 1
        player.win_locked = False
        events.append(Draw(seat=seat, tile=TILE[tile], from_="front", final=True))
        _begin_turn(state, seat, tile, False)
        state.phase = FINAL
        if _offer(state, seat, tile, _SELF_DRAW) is not None:
            return
        seat = (seat + 1) % 4
    payments = state.ruleset.drawn_payments(state)
    _end(state, events, "drawn", None, payments, None, None)


# --- the end ----------------------------------------------------------------------------------


def _win(
    state: HandState,
    events: list[AnyEvent],
    seat: int,
    how: str,
    tile: int,
    from_seat: int | None,
) -> None:
    offer = state.offers[(seat, how)]
    assert offer is not None
    events.append(Win(seat=seat, how=how, tile=TILE[tile], from_=from_seat))
    _end(state, events, "win", seat, offer.payments, offer.settlement, how)


def _end(
    state: HandState,
    events: list[AnyEvent],
    reason: str,
    winner: int | None,
    payments: tuple[Fraction, ...],
    settlement: Settlement | None,
    how: str | None,
    escaped: int | None = None,
) -> None:
    kongs = state.kong_paid
    if any(kongs):
        # Kong payments made on the spot stand whatever the end (Part B): they join the total.
        payments = tuple(p + k for p, k in zip(payments, kongs, strict=True))
    state.result = {
        "reason": reason,
        "winner": winner,
        "how": how,
        "payments": tuple(payments),
        "settlement": settlement,
        "escaped": escaped,
    }
    state.phase = OVER
    # A share such as 400/3 has no exact decimal: the exact value goes alongside (A7).
    inexact = any(Fraction(float(p)) != p for p in payments)
    event = End(
        reason=reason,
        winner=winner,
        payments=[number(p) for p in payments],
        kong_payments=[number(k) for k in kongs] if any(kongs) else None,
        payments_exact=[str(Fraction(p)) for p in payments] if inexact else None,
        seat=escaped,
        settlement=None if settlement is None else settlement.to_json(),
        hands=[format_counts(p.counts) for p in state.players],
        seed=None if state.seed is None else state.seed.hex(),
    )
    events.append(event)
