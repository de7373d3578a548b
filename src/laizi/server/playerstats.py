"""A player's statistics per game, computed from the stored records (``GET /api/me/stats``,
``GET /api/players/NAME/stats``: docs/api.md).

Every match booked to the account (``match_results``: ranked, casual and friendly alike) and
every finished hand of it counts, read from the hand records the database holds: the hands
played, the wins (the ``end`` event's winner), the deal-ins (点炮: a ``win`` event taken from the
account's discard or robbed kong), the exact average of what its seat was paid per hand, the
big wins (大胡) by kind — the game's ruleset names them (:meth:`Ruleset.big_wins`) — and the
best hand, with the link of its replay.  Only the latest :data:`STATS_MATCHES` matches of a game
are read (a long career costs a bounded read).

>>> rate(3, 8)
0.375
>>> rate(0, 0)
0.0
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, Engine, select

from laizi.rules import find_game, game_ids
from laizi.server.ratings import match_results
from laizi.server.store import events, hands, rooms

__all__ = ["STATS_MATCHES", "player_stats", "rate"]

STATS_MATCHES = 500
"""How many of an account's latest matches per game its statistics read."""
RECENT = 20
"""How many of the latest match totals the statistics list (the profile's chart)."""


def rate(count: int, out_of: int) -> float:
    """``count / out_of`` rounded to 4 places (0 when there is nothing to count)."""
    return round(count / out_of, 4) if out_of else 0.0


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


@dataclass
class _Best:
    room: str
    number: int
    points: Fraction
    wins: list[str]


@dataclass
class _Tally:
    """One game's counts, added up match by match."""

    big: tuple[str, ...]
    matches: int = 0
    hands: int = 0
    wins: int = 0
    deal_ins: int = 0
    points: Fraction = Fraction(0)
    places: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    big_wins: dict[str, int] = field(default_factory=dict)
    best: _Best | None = None
    recent: list[str] = field(default_factory=list)

    def add_hand(self, code: str, number: int, seat: int, bodies: list[dict[str, Any]]) -> None:
        end = bodies[-1]
        self.hands += 1
        paid = [Fraction(p) for p in (end.get("payments_exact") or end["payments"])]
        self.points += paid[seat]
        if any(
            e.get("type") == "win" and e.get("from") == seat and e.get("seat") != seat
            for e in bodies
        ):
            self.deal_ins += 1
        if end.get("winner") != seat:
            return
        self.wins += 1
        settlement = end.get("settlement") or {}
        kinds = [w for w in settlement.get("wins", []) if isinstance(w, str)]
        for kind in kinds:
            if kind in self.big:
                self.big_wins[kind] = self.big_wins.get(kind, 0) + 1
        if self.best is None or paid[seat] > self.best.points:
            self.best = _Best(code, number, paid[seat], kinds)

    def to_json(self) -> dict[str, Any]:
        best = self.best
        average = self.points / self.hands if self.hands else Fraction(0)
        return {
            "matches": self.matches,
            "hands": self.hands,
            "wins": self.wins,
            "win_rate": rate(self.wins, self.hands),
            "deal_ins": self.deal_ins,
            "deal_in_rate": rate(self.deal_ins, self.hands),
            "points_per_hand": _number(average),
            "points_per_hand_exact": str(average),
            "places": self.places,
            "big_wins": {k: self.big_wins[k] for k in self.big if k in self.big_wins},
            "best_hand": None
            if best is None
            else {
                "room": best.room,
                "hand": best.number,
                "points": _number(best.points),
                "points_exact": str(best.points),
                "wins": best.wins,
                "replay": f"/replay/{best.room}/{best.number}",
                "record": f"/api/rooms/{best.room}/hands/{best.number}",
            },
            "recent": self.recent,
        }


def _game_stats(c: Connection, account_id: int, game: str) -> dict[str, Any]:
    tally = _Tally(find_game(game).ruleset_class().big_wins())
    mine = c.execute(
        select(
            match_results.c.room_id,
            match_results.c.seat,
            match_results.c.total,
            match_results.c.place,
            rooms.c.code,
        )
        .join(rooms, rooms.c.id == match_results.c.room_id)
        .where((match_results.c.account_id == account_id) & (match_results.c.game == game))
        .order_by(match_results.c.finished.desc(), match_results.c.room_id.desc())
        .limit(STATS_MATCHES)
    ).all()
    for room_id, seat, total, place, code in reversed(mine):  # oldest first
        tally.matches += 1
        tally.places[min(max(place, 1), 4) - 1] += 1
        tally.recent.append(str(Fraction(total)))
        rows = c.execute(
            select(hands.c.id, hands.c.number, events.c.body)
            .join(events, events.c.hand_id == hands.c.id)
            .where((hands.c.room_id == room_id) & hands.c.finished)
            .order_by(hands.c.number, events.c.idx)
        ).all()
        by_hand: dict[int, tuple[int, list[dict[str, Any]]]] = {}
        for hand_id, number, body in rows:
            by_hand.setdefault(hand_id, (number, []))[1].append(json.loads(body))
        for number, bodies in by_hand.values():
            if bodies and bodies[-1].get("type") == "end":
                tally.add_hand(code, number, seat, bodies)
    tally.recent = tally.recent[-RECENT:]
    return tally.to_json()


def player_stats(engine: Engine, account_id: int) -> dict[str, Any]:
    """The account's statistics in every game (all zero where it has not played)."""
    with engine.connect() as c:
        return {"games": {game: _game_stats(c, account_id, game) for game in game_ids()}}
