"""Strength points, ranks and skill ratings, booked when a match ends (issue 8).

Two numbers per account and game (Wuhan, Baishan):

* **Strength points** (实力积分): the points won and lost at the table, the match total added
  once the match is over, never below zero (a player at 0 who loses stays at 0).  The rank
  ladder of RULES.md Part B (:func:`laizi.rules.rank_for`, 白板 … 雀神) names the level.
* **Skill rating**: OpenSkill's Plackett–Luce model over the four seats, placed by their match
  totals (ties share a place).  ``ordinal`` = μ − 3σ is the cautious figure the leaderboard
  shows.  Bots and guests sit in as fresh ratings and nothing is kept for them.

The server calls :func:`book_match` once per finished match (``Room.on_match_end``); it is
idempotent (one row per seat of the room), so a match finished during recovery is not counted
twice, and :func:`book_unbooked` settles matches whose end was written but whose booking was
lost to a crash.

>>> new_points(Fraction(30), Fraction(-50))
Fraction(0, 1)
>>> places([Fraction(10), Fraction(-4), Fraction(-4), Fraction(-2)])
[1, 3, 3, 2]
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    func,
    insert,
    select,
    update,
)

from laizi.rules import RANKS, Rank, game_ids, rank_for
from laizi.server.accounts import accounts
from laizi.server.store import events, hands, metadata, rooms

__all__ = [
    "GAMES",
    "Standing",
    "book_match",
    "book_unbooked",
    "leaderboard",
    "link_seat",
    "match_history",
    "new_points",
    "next_rank",
    "places",
    "rate",
    "standings_of",
]

GAMES = game_ids()
MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma

seat_accounts = Table(
    "seat_accounts",
    metadata,
    Column("room_id", Integer, ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
)

standings = Table(
    "standings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("game", String(16), primary_key=True),
    Column("points", String(64), nullable=False),
    Column("points_sort", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    Index("standings_board", "game", "points_sort"),
)

match_results = Table(
    "match_results",
    metadata,
    Column("room_id", Integer, ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=True),
    Column("game", String(16), nullable=False),
    Column("total", String(64), nullable=False),
    Column("place", Integer, nullable=False),
    Column("points_before", String(64), nullable=True),
    Column("points_after", String(64), nullable=True),
    Column("mu_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    Column("hands", Integer, nullable=False),
    Column("finished", Float, nullable=False),
    Index("match_results_account", "account_id", "finished"),
)


# -- the pure part --------------------------------------------------------------------------------
def new_points(points: Fraction, total: Fraction) -> Fraction:
    """Strength points after a match with this total: never below zero."""
    return max(Fraction(0), points + total)


def places(totals: Sequence[Fraction]) -> list[int]:
    """1 for the best total; equal totals share a place (standard competition ranking)."""
    return [1 + sum(other > mine for other in totals) for mine in totals]


def rate(
    ratings: Sequence[tuple[float, float]], totals: Sequence[Fraction]
) -> list[tuple[float, float]]:
    """Every seat's (μ, σ) after a four-player match placed by ``totals`` (Plackett–Luce)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places(totals)])
    return [(team[0].mu, team[0].sigma) for team in rated]


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def next_rank(points: Fraction | int) -> Rank | None:
    """The next rung of the ladder above these points, or None at 雀神."""
    return next((r for r in RANKS if r.points > points), None)


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


# -- the database -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Standing:
    game: str
    points: Fraction
    mu: float
    sigma: float
    matches: int

    def to_json(self) -> dict[str, Any]:
        rank = rank_for(self.points)
        up = next_rank(self.points)
        out: dict[str, Any] = {
            "points": _number(self.points),
            "points_exact": str(self.points),
            "rank": {"zh": rank.zh, "en": rank.en, "from": rank.points},
            "next_rank": None if up is None else _rank_json(up, self.points),
            "rating": {
                "mu": round(self.mu, 4),
                "sigma": round(self.sigma, 4),
                "ordinal": round(ordinal(self.mu, self.sigma), 4),
            },
            "matches": self.matches,
        }
        return out


def _rank_json(rank: Rank, points: Fraction) -> dict[str, Any]:
    return {
        "zh": rank.zh,
        "en": rank.en,
        "from": rank.points,
        "missing": _number(rank.points - points),
    }


def fresh(game: str) -> Standing:
    return Standing(game, Fraction(0), MU, SIGMA, 0)


def link_seat(engine: Engine, room_id: int, seat: int, account_id: int) -> None:
    """Remember which account took a seat (its results are booked to it)."""
    with engine.begin() as c:
        c.execute(
            seat_accounts.delete().where(
                (seat_accounts.c.room_id == room_id) & (seat_accounts.c.seat == seat)
            )
        )
        c.execute(insert(seat_accounts).values(room_id=room_id, seat=seat, account_id=account_id))


def _standing(c: Connection, account_id: int, game: str) -> Standing | None:
    row = c.execute(
        select(standings).where((standings.c.account_id == account_id) & (standings.c.game == game))
    ).first()
    if row is None:
        return None
    return Standing(game, Fraction(row.points), row.mu, row.sigma, row.matches)


def standings_of(engine: Engine, account_id: int) -> dict[str, Standing]:
    """An account's standing in every game (fresh where it has not played)."""
    with engine.connect() as c:
        return {g: _standing(c, account_id, g) or fresh(g) for g in GAMES}


def book_match(
    engine: Engine,
    room_id: int,
    game: str,
    totals: Sequence[Fraction],
    hands_played: int,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """Book a finished match: points and ratings of the seats that belong to accounts.

    Returns one entry per seat (nothing is changed, and ``[]`` returned, if the match was booked
    before or no seat has an account).  One transaction: all of it or none."""
    now = time.time() if now is None else now
    totals = [Fraction(t) for t in totals]
    with engine.begin() as c:
        done = c.execute(
            select(func.count())
            .select_from(match_results)
            .where(match_results.c.room_id == room_id)
        ).scalar()
        if done:
            return []
        owners = dict(
            c.execute(
                select(seat_accounts.c.seat, seat_accounts.c.account_id).where(
                    seat_accounts.c.room_id == room_id
                )
            ).all()
        )
        if not owners:
            return []
        before: list[Standing | None] = []
        stored: set[int] = set()
        for seat in range(4):
            account_id = owners.get(seat)
            found = None if account_id is None else _standing(c, account_id, game)
            if found is not None:
                stored.add(seat)
            before.append(None if account_id is None else found or fresh(game))
        ratings = [(MU, SIGMA) if s is None else (s.mu, s.sigma) for s in before]
        after = rate(ratings, totals)
        seat_places = places(totals)
        out = []
        for seat in range(4):
            old = before[seat]
            row: dict[str, Any] = {
                "room_id": room_id,
                "seat": seat,
                "account_id": owners.get(seat),
                "game": game,
                "total": str(totals[seat]),
                "place": seat_places[seat],
                "hands": hands_played,
                "finished": now,
            }
            if old is not None:
                mu, sigma = after[seat]
                points = new_points(old.points, totals[seat])
                row.update(
                    points_before=str(old.points),
                    points_after=str(points),
                    mu_before=old.mu,
                    mu_after=mu,
                    sigma_before=old.sigma,
                    sigma_after=sigma,
                )
                values = {
                    "points": str(points),
                    "points_sort": float(points),
                    "mu": mu,
                    "sigma": sigma,
                    "ordinal": ordinal(mu, sigma),
                    "matches": old.matches + 1,
                    "updated": now,
                }
                key = (standings.c.account_id == owners[seat]) & (standings.c.game == game)
                if seat in stored:
                    c.execute(update(standings).where(key).values(**values))
                else:
                    c.execute(
                        insert(standings).values(account_id=owners[seat], game=game, **values)
                    )
            c.execute(insert(match_results).values(**row))
            out.append(row)
    return out


def _hand_totals(c: Connection, room_id: int) -> tuple[list[Fraction], int]:
    """A room's match totals summed from its finished hands' ``end`` events."""
    totals = [Fraction(0)] * 4
    count = 0
    hand_ids = c.execute(
        select(hands.c.id).where((hands.c.room_id == room_id) & hands.c.finished)
    ).scalars()
    for hand_id in list(hand_ids):
        body = c.execute(
            select(events.c.body)
            .where(events.c.hand_id == hand_id)
            .order_by(events.c.idx.desc())
            .limit(1)
        ).scalar()
        end = json.loads(body or "{}")
        if end.get("type") != "end":
            continue
        exact = end.get("payments_exact")
        amounts = [Fraction(x) for x in exact] if exact else [Fraction(p) for p in end["payments"]]
        totals = [t + a for t, a in zip(totals, amounts, strict=True)]
        count += 1
    return totals, count


def book_unbooked(engine: Engine) -> int:
    """Book every finished match with account seats that has no results yet (after a crash
    between a match's last event and its booking); returns how many were booked."""
    with engine.connect() as c:
        pending = c.execute(
            select(rooms.c.id, rooms.c.rules)
            .where(rooms.c.status == "over")
            .where(rooms.c.id.in_(select(seat_accounts.c.room_id)))
            .where(rooms.c.id.not_in(select(match_results.c.room_id)))
        ).all()
        work = []
        for room_id, rules in pending:
            totals, count = _hand_totals(c, room_id)
            work.append((room_id, _game_of(json.loads(rules)), totals, count))
    booked = 0
    for room_id, game, totals, count in work:
        booked += bool(book_match(engine, room_id, game, totals, count))
    return booked


def _game_of(rules: Any) -> str:
    from laizi.rules import Settings

    return Settings.from_json(rules).game


def leaderboard(
    engine: Engine, game: str, limit: int = 50, offset: int = 0
) -> list[dict[str, Any]]:
    """Accounts by strength points (then rating ordinal, then name) in one game."""
    with engine.connect() as c:
        rows = c.execute(
            select(accounts.c.name, standings)
            .join(accounts, accounts.c.id == standings.c.account_id)
            .where(standings.c.game == game)
            .order_by(
                standings.c.points_sort.desc(),
                standings.c.ordinal.desc(),
                accounts.c.name_key,
            )
            .limit(limit)
            .offset(offset)
        ).all()
    out = []
    for i, row in enumerate(rows):
        standing = Standing(game, Fraction(row.points), row.mu, row.sigma, row.matches)
        out.append({"place": offset + i + 1, "name": row.name, **standing.to_json()})
    return out


def match_history(
    engine: Engine, account_id: int, limit: int = 20, before: float | None = None
) -> list[dict[str, Any]]:
    """An account's finished matches, newest first, with the links to their records."""
    with engine.connect() as c:
        query = (
            select(match_results, rooms.c.code, rooms.c.rules)
            .join(rooms, rooms.c.id == match_results.c.room_id)
            .where(match_results.c.account_id == account_id)
        )
        if before is not None:
            query = query.where(match_results.c.finished < before)
        mine = c.execute(
            query.order_by(match_results.c.finished.desc(), match_results.c.room_id.desc()).limit(
                limit
            )
        ).all()
        out = []
        for row in mine:
            table = c.execute(
                select(match_results, accounts.c.name)
                .outerjoin(accounts, accounts.c.id == match_results.c.account_id)
                .where(match_results.c.room_id == row.room_id)
                .order_by(match_results.c.seat)
            ).all()
            rules = json.loads(row.rules)
            code = row.code
            out.append(
                {
                    "room": code,
                    "game": row.game,
                    "preset": rules.get("preset") if isinstance(rules, dict) else rules,
                    "finished": row.finished,
                    "seat": row.seat,
                    "total": _number(Fraction(row.total)),
                    "place": row.place,
                    "points_before": _number(Fraction(row.points_before)),
                    "points_after": _number(Fraction(row.points_after)),
                    "rating_before": {"mu": row.mu_before, "sigma": row.sigma_before},
                    "rating_after": {"mu": row.mu_after, "sigma": row.sigma_after},
                    "seats": [
                        {
                            "seat": t.seat,
                            "account": t.name,
                            "total": _number(Fraction(t.total)),
                            "place": t.place,
                        }
                        for t in table
                    ],
                    "hands": [f"/api/rooms/{code}/hands/{n}" for n in range(row.hands)],
                    "record": f"/api/matches/{code}/record",
                }
            )
    return out
