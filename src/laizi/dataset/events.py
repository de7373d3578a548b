"""An mjai-style event log of one hand (``laizi export --format events``).

mjai (the riichi bot protocol and its logs) writes a game as JSON Lines: ``start_game``,
``start_kyoku`` with the four starting hands, then ``tsumo``, ``dahai``, ``chi``/``pon``/
``daiminkan``/``ankan``/``kakan``, ``reach``, ``hora``/``ryukyoku``, ``end_kyoku``, ``end_game``,
each with an ``actor`` (the seat) and tiles as ``1m``…``9s`` and ``E S W N P F C`` for the honours.
This module writes a laizi hand the same way — a full log, every seat's tiles shown, as mjai's
saved logs are — with the few additions Wuhan and Baishan need (``docs/events.md`` has the whole
mapping): the laizi and the special tiles in ``start_kyoku``, ``nukidora`` for a tile laid out
(as 三麻's 北抜き: set aside, a replacement drawn), ``kong_paid`` for Baishan's on-the-spot kong
payments.  The record is replayed first (as ``laizi verify`` does), so only a hand that checks out
is written.

>>> from laizi.engine import Game
>>> game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32), dealer=1)
>>> while not game.over:
...     _ = game.play(game.legal_actions(game.to_act[0])[0])
>>> log = mjai_events(game.record)
>>> [e["type"] for e in log[:4]]
['start_game', 'start_kyoku', 'tsumo', 'dahai']
>>> log[2]["actor"], len(log[1]["tehais"][1]), log[-1]["type"]
(1, 13, 'end_game')
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from laizi.engine.events import (
    TILE,
    Abandon,
    AddedKong,
    AnyEvent,
    Chow,
    ConcealedKong,
    Deal,
    Discard,
    Draw,
    End,
    Kong,
    KongPaid,
    LayOut,
    Pung,
    SettlementSummary,
    Start,
    Win,
    decode,
    encode_all,
    number,
)
from laizi.engine.game import IllegalAction, apply
from laizi.engine.record import RecordError, check_events, deal_record, next_decision
from laizi.tiles import parse_tiles

__all__ = ["HIDDEN", "HONOURS", "discard_flags", "mjai_events", "mjai_stream", "mjai_tile"]

HONOURS = ("E", "S", "W", "N", "P", "F", "C")
"""mjai's names of 东 南 西 北 白 发 中 (1z … 7z)."""


def mjai_tile(tile: str) -> str:
    """A tile in mjai notation.

    >>> mjai_tile("5m"), mjai_tile("1z"), mjai_tile("7z")
    ('5m', 'E', 'C')
    """
    if tile.endswith("z"):
        return HONOURS[int(tile[0]) - 1]
    return tile


def _tiles(text: str) -> list[str]:
    return [mjai_tile(TILE[t]) for t in parse_tiles(text)]


def _num(value: Any) -> Any:
    return number(Fraction(str(value)))


HIDDEN = "?"
"""A tile the log's seat did not see (another seat's starting hand, draw or concealed kong)."""


def mjai_events(record: list[dict[str, Any]], seat: int | None = None) -> list[dict[str, Any]]:
    """The mjai-style log of one hand's record (RecordError if the record does not check out).

    ``seat`` None: the full log, every seat's tiles shown.  ``seat`` 0–3: what that seat saw —
    the record's events as :func:`laizi.engine.seat_event` tells them to a bot in that seat,
    another seat's starting hand, draws and concealed-kong tiles as ``"?"`` (docs/events.md).
    """
    dealer_tile = _verified(record)
    tsumogiri = discard_flags(record, dealer_tile)
    stream = record if seat is None else [e for e in map(_seat_of(seat), record) if e is not None]
    return mjai_stream(stream, dealer_tile=dealer_tile, tsumogiri=tsumogiri, seat=seat)


def _seat_of(seat: int) -> Any:
    from laizi.engine.view import seat_event

    return lambda event: seat_event(event, seat)


def _verified(record: list[dict[str, Any]]) -> str | None:
    """Replay the record as ``laizi verify`` does; the dealer's fourteenth tile (None if none)."""
    state, produced = deal_record(record)
    dealer_tile = state.drawn  # the dealer's fourteenth tile: mjai deals 13 and draws one
    index = len(produced)
    while not state.over:
        action = next_decision(state, record, index)
        try:
            new = encode_all(apply(state, action))
        except IllegalAction as error:
            raise RecordError(index, f"illegal: {error}") from None
        check_events(new, record, index)
        index += len(new)
    if index < len(record):
        raise RecordError(index, "events after the end of the hand")
    return None if dealer_tile is None else TILE[dealer_tile]


def discard_flags(record: list[dict[str, Any]], dealer_tile: str | None) -> list[bool]:
    """摸切 of each discard of a whole record, in order (a ``dahai``'s ``tsumogiri``): whether the
    tile is the one its seat had just drawn.  Public — every seat's view shows it
    (``players[].moqie``) and a live table streams it (``moqie``) — though the draws are not.
    ``dealer_tile``: the dealer's fourteenth tile (:func:`mjai_events` has it from the replay)."""
    start = decode(record[0])
    if not isinstance(start, Start):
        raise RecordError(0, "a hand's record starts with start")
    drawn: list[str | None] = [None] * 4
    drawn[start.dealer] = dealer_tile
    flags = []
    for event in map(decode, record[2:]):
        if isinstance(event, Draw):
            drawn[event.seat] = event.tile
        elif isinstance(event, (Discard, LayOut)):
            if isinstance(event, Discard) and not event.lay_out:
                flags.append(drawn[event.seat] == event.tile)
            drawn[event.seat] = None
        elif isinstance(event, (ConcealedKong, AddedKong)):
            drawn[event.seat] = None
    return flags


def mjai_stream(
    events: list[dict[str, Any]],
    *,
    dealer_tile: str | None,
    tsumogiri: list[bool],
    seat: int | None = None,
) -> list[dict[str, Any]]:
    """The mjai-style log of one hand's events as a seat (or the full record) has them: a tile
    the events leave out is ``"?"``.  ``dealer_tile``: the dealer's fourteenth tile (shown only
    where the dealer's hand is); ``tsumogiri``: :func:`discard_flags` of the hand.  Fields the
    log does not use (a live table's ``multipliers``, ``live``, ``moqie`` …) are ignored.
    ``seat``: the seat whose events these are, written as ``start_game``'s ``id`` (as mjai tells
    a player its seat); None for a full log."""
    typed = [decode(e) for e in events if e.get("type") not in ("claim", "pass")]
    start, deal, end = typed[0], typed[1], typed[-1]
    if not (isinstance(start, Start) and isinstance(deal, Deal) and isinstance(end, End)):
        raise RecordError(0, "a hand's record goes from start and deal to end")
    dealer = start.dealer
    scores = [_num(x) for x in start.scores]
    tehais = [_tiles(h) if h is not None else [HIDDEN] * 13 for h in deal.hands]
    dealer_shown = deal.hands[dealer] is not None
    if dealer_tile is not None and dealer_shown:
        tehais[dealer].remove(mjai_tile(dealer_tile))
    rules = start.rules
    begin: dict[str, Any] = {"type": "start_game"}
    if seat is not None:
        begin["id"] = seat
    begin.update(names=[f"seat{s}" for s in range(4)], game=start.game, rules=rules)
    out: list[dict[str, Any]] = [
        begin,
        {
            "type": "start_kyoku",
            "bakaze": "E",
            "kyoku": start.hand % 4 + 1,
            "honba": 0,
            "kyotaku": 0,
            "oya": dealer,
            "dora_marker": mjai_tile(deal.indicator) if deal.indicator else None,
            "laizi": mjai_tile(deal.laizi) if deal.laizi else None,
            "pi": [mjai_tile(t) for t in deal.pi],
            "must_gang": [mjai_tile(t) for t in deal.must_gang],
            "scores": scores,
            "tehais": tehais,
        },
    ]
    if dealer_tile is not None:
        pai = mjai_tile(dealer_tile) if dealer_shown else HIDDEN
        out.append({"type": "tsumo", "actor": dealer, "pai": pai})
    exact = end.payments_exact
    deltas = [_num(x) for x in (exact if exact is not None else end.payments)]
    final = [
        number(Fraction(str(a)) + Fraction(str(b))) for a, b in zip(scores, deltas, strict=True)
    ]
    flags = iter(tsumogiri)
    for event in typed[2:]:
        out += _convert(event, flags, end, deltas, final)
    out.append({"type": "end_game", "scores": final})
    return out


def _pai(tile: str | None) -> str:
    return HIDDEN if tile is None else mjai_tile(tile)


def _convert(
    event: AnyEvent,
    flags: Iterator[bool],
    end: End,
    deltas: list[Any],
    final: list[Any],
) -> list[Any]:
    if isinstance(event, Draw):
        tsumo: dict[str, Any] = {"type": "tsumo", "actor": event.seat, "pai": _pai(event.tile)}
        if event.from_ == "back":
            tsumo["rinshan"] = True
        if event.final:
            tsumo["haitei"] = True
        return [tsumo]
    if isinstance(event, (Discard, LayOut)):
        seat, tile = event.seat, event.tile
        if isinstance(event, LayOut) or event.lay_out:
            return [{"type": "nukidora", "actor": seat, "pai": mjai_tile(tile)}]
        dahai = {"type": "dahai", "actor": seat, "pai": mjai_tile(tile), "tsumogiri": next(flags)}
        if event.declare_ready:
            return [{"type": "reach", "actor": seat}, dahai]
        return [dahai]
    if isinstance(event, ConcealedKong):
        return [{"type": "ankan", "actor": event.seat, "consumed": [_pai(event.tile)] * 4}]
    if isinstance(event, AddedKong):
        tile = mjai_tile(event.tile)
        return [{"type": "kakan", "actor": event.seat, "pai": tile, "consumed": [tile] * 3}]
    if isinstance(event, (Chow, Pung, Kong)):
        tile = mjai_tile(event.tile)
        if isinstance(event, Chow):
            consumed = _tiles(event.tiles)
            consumed.remove(tile)
            name = "chi"
        else:
            consumed = [tile] * (2 if isinstance(event, Pung) else 3)
            name = "pon" if isinstance(event, Pung) else "daiminkan"
        return [
            {
                "type": name,
                "actor": event.seat,
                "target": event.from_,
                "pai": tile,
                "consumed": consumed,
            }
        ]
    if isinstance(event, KongPaid):
        return [
            {
                "type": "kong_paid",
                "actor": event.seat,
                "pai": _pai(event.tile),
                "kind": event.kind,
                "deltas": [_num(x) for x in event.payments],
            }
        ]
    if isinstance(event, Win):
        settlement = end.settlement
        return [
            {
                "type": "hora",
                "actor": event.seat,
                "target": event.seat if event.how == "self_draw" else event.from_,
                "pai": mjai_tile(event.tile),
                "how": event.how,
                "wins": SettlementSummary.of(settlement).wins if settlement is not None else [],
                "deltas": deltas,
                "scores": final,
            }
        ]
    if isinstance(event, Abandon):
        return [{"type": "abandon", "actor": event.seat}]
    if isinstance(event, End):
        hands = [_tiles(h) if h else [] for h in end.hands]
        out: list[Any] = []
        if event.reason != "win":
            entry: dict[str, Any] = {
                "type": "ryukyoku",
                "reason": event.reason,
                "deltas": deltas,
                "scores": final,
            }
            if event.reason == "abandon":
                entry["actor"] = event.seat
            out.append(entry)
        out.append({"type": "end_kyoku", "tehais": hands})
        return out
    return []  # claim and pass: decisions, not in a log (the claim that won is its meld)
