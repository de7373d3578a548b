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

__all__ = ["HONOURS", "mjai_events", "mjai_tile"]

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


def mjai_events(record: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The mjai-style log of one hand's record (RecordError if the record does not check out)."""
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

    typed = [decode(e) for e in record]  # checked above: every event is the engine's own
    start, deal, end = typed[0], typed[1], typed[-1]
    if not (isinstance(start, Start) and isinstance(deal, Deal) and isinstance(end, End)):
        raise RecordError(0, "a hand's record goes from start and deal to end")
    dealer = start.dealer
    scores = [_num(x) for x in start.scores]
    tehais = [_tiles(h or "") for h in deal.hands]
    if dealer_tile is not None:
        tehais[dealer].remove(mjai_tile(TILE[dealer_tile]))
    rules = start.rules
    out: list[dict[str, Any]] = [
        {
            "type": "start_game",
            "names": [f"seat{s}" for s in range(4)],
            "game": start.game,
            "rules": rules,
        },
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
        out.append({"type": "tsumo", "actor": dealer, "pai": mjai_tile(TILE[dealer_tile])})
    drawn: list[str | None] = [None] * 4
    if dealer_tile is not None:
        drawn[dealer] = TILE[dealer_tile]
    exact = end.payments_exact
    deltas = [_num(x) for x in (exact if exact is not None else end.payments)]
    final = [
        number(Fraction(str(a)) + Fraction(str(b))) for a, b in zip(scores, deltas, strict=True)
    ]
    for event in typed[2:]:
        out += _convert(event, drawn, end, deltas, final)
    out.append({"type": "end_game", "scores": final})
    return out


def _convert(
    event: AnyEvent,
    drawn: list[str | None],
    end: End,
    deltas: list[Any],
    final: list[Any],
) -> list[Any]:
    if isinstance(event, Draw):
        assert event.tile is not None  # a whole record: nothing hidden
        drawn[event.seat] = event.tile
        tsumo: dict[str, Any] = {"type": "tsumo", "actor": event.seat, "pai": mjai_tile(event.tile)}
        if event.from_ == "back":
            tsumo["rinshan"] = True
        if event.final:
            tsumo["haitei"] = True
        return [tsumo]
    if isinstance(event, (Discard, LayOut)):
        seat, tile = event.seat, event.tile
        was_drawn, drawn[seat] = drawn[seat] == tile, None
        if isinstance(event, LayOut) or event.lay_out:
            return [{"type": "nukidora", "actor": seat, "pai": mjai_tile(tile)}]
        dahai = {"type": "dahai", "actor": seat, "pai": mjai_tile(tile), "tsumogiri": was_drawn}
        if event.declare_ready:
            return [{"type": "reach", "actor": seat}, dahai]
        return [dahai]
    if isinstance(event, ConcealedKong):
        assert event.tile is not None
        drawn[event.seat] = None
        return [{"type": "ankan", "actor": event.seat, "consumed": [mjai_tile(event.tile)] * 4}]
    if isinstance(event, AddedKong):
        drawn[event.seat] = None
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
        assert event.tile is not None
        return [
            {
                "type": "kong_paid",
                "actor": event.seat,
                "pai": mjai_tile(event.tile),
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
