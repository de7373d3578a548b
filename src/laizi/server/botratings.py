"""Bot ratings: each registered outside bot's OpenSkill rating per game, moved only by the bot
ladder's matches (``laizi.server.ladder``), never by — and never moving — its owner's standing.

A bot is a bot token (``laizi.server.bottokens``): its id is the token's id, its name
``owner/name``.  A ladder table is four tokens (``reserved_seats.bot_token_id``); when its match
ends the server books it once (:func:`book_ladder_in`, on the store's writer after the match's
last hand), from the hand records the database holds — the same payments and places as a
person's match (:func:`laizi.server.ratings.stored_payments`, :func:`~laizi.server.ratings.places`)
and the same Plackett–Luce model (:func:`laizi.server.ratings.rate`) — into ``bot_ratings`` and one
``ladder_results`` row per seat (what makes the booking idempotent).  No ``seat_accounts`` row
links a ladder seat to its owner, so :mod:`laizi.server.ratings` books nothing for it.

``GET /api/bots/leaderboard?game=wuhan`` lists the live bots of a game by rating ordinal
(μ − 3σ); a revoked token's bot has left the ladder and is not listed (its rows are kept).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

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
    Text,
    func,
    insert,
    select,
    update,
)

from laizi.rules import Settings
from laizi.server.accounts import accounts
from laizi.server.bottokens import bot_tokens
from laizi.server.ratings import MU, SIGMA, error_line, ordinal, places, rate, seat_totals
from laizi.server.ratings import stored_payments as _stored_payments
from laizi.server.store import hands, metadata, reserved_seats, rooms

__all__ = [
    "BotRating",
    "book_ladder",
    "book_ladder_in",
    "book_unbooked_ladder",
    "bot_leaderboard",
    "bot_rating",
    "bot_ratings",
    "ladder_results",
    "unbooked_ladder_matches",
]

log = logging.getLogger("laizi.server")

bot_ratings = Table(
    "bot_ratings",
    metadata,
    Column("token_id", Integer, ForeignKey("bot_tokens.id"), primary_key=True),
    Column("game", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    Index("bot_ratings_board", "game", "ordinal"),
)

ladder_results = Table(
    "ladder_results",
    metadata,
    Column("room_id", Integer, ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("token_id", Integer, ForeignKey("bot_tokens.id"), nullable=False),
    Column("game", String(16), nullable=False),
    Column("total", Text, nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    Column("hands", Integer, nullable=False),
    Column("finished", Float, nullable=False),
    Index("ladder_results_token", "token_id", "finished"),
)


class BotRating:
    """One bot's rating in one game (fresh: OpenSkill's defaults, no match)."""

    __slots__ = ("matches", "mu", "sigma")

    def __init__(self, mu: float = MU, sigma: float = SIGMA, matches: int = 0) -> None:
        self.mu, self.sigma, self.matches = mu, sigma, matches

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    def __repr__(self) -> str:
        return f"BotRating(mu={self.mu:.3f}, sigma={self.sigma:.3f}, matches={self.matches})"


def _rating(c: Connection, token_id: int, game: str) -> BotRating | None:
    row = c.execute(
        select(bot_ratings).where(
            (bot_ratings.c.token_id == token_id) & (bot_ratings.c.game == game)
        )
    ).first()
    return None if row is None else BotRating(row.mu, row.sigma, row.matches)


def bot_rating(engine: Engine, token_id: int, game: str) -> BotRating:
    """A bot's rating in ``game`` (fresh when it has played no ladder match of it)."""
    with engine.connect() as c:
        return _rating(c, token_id, game) or BotRating()


def _ladder_seats(c: Connection, room_id: int) -> dict[int, int]:
    """Seat → bot token of a ladder room (empty for any other room)."""
    return {
        seat: token
        for seat, token in c.execute(
            select(reserved_seats.c.seat, reserved_seats.c.bot_token_id).where(
                (reserved_seats.c.room_id == room_id) & reserved_seats.c.bot_token_id.is_not(None)
            )
        ).all()
    }


def _booked(c: Connection, room_id: int) -> bool:
    return bool(
        c.execute(
            select(func.count())
            .select_from(ladder_results)
            .where(ladder_results.c.room_id == room_id)
        ).scalar()
    )


def book_ladder(engine: Engine, room_id: int, now: float | None = None) -> list[dict[str, Any]]:
    """:func:`book_ladder_in` on a connection of its own."""
    with engine.connect() as c:
        return book_ladder_in(c, room_id, now=now)


def book_ladder_in(
    c: Connection, room_id: int, rules: Settings | None = None, now: float | None = None
) -> list[dict[str, Any]]:
    """Book a finished ladder match in one transaction on ``c``: every seat's total and place
    (``ladder_results``) and each bot's rating after it (``bot_ratings``).  ``[]`` — nothing
    changed — if it was booked before or the room is no ladder table.  A table whose four seats
    are not four distinct tokens is refused (``ValueError``): one bot rated twice at a table
    could rate itself up."""
    now = time.time() if now is None else now
    with c.begin():
        tokens = _ladder_seats(c, room_id)
        if not tokens or _booked(c, room_id):
            return []
        if sorted(tokens) != [0, 1, 2, 3] or len(set(tokens.values())) != 4:
            raise ValueError(f"ladder room {room_id}: its seats are not four distinct bots")
        if rules is None:
            text = c.execute(select(rooms.c.rules).where(rooms.c.id == room_id)).scalar()
            if text is None:
                raise ValueError(f"no room has the id {room_id}")
            rules = Settings.from_json(json.loads(text))
        paid, count = _stored_payments(c, room_id, rules)
        if count == 0:
            return []  # nothing was played (an escape before the first deal): nothing to rate
        game = rules.game
        totals = seat_totals(paid)
        placed = places(totals)
        before = {s: _rating(c, tokens[s], game) for s in range(4)}
        old = {s: found or BotRating() for s, found in before.items()}
        rated = rate([(old[s].mu, old[s].sigma) for s in range(4)], totals)
        out = []
        for seat in range(4):
            mu, sigma = rated[seat]
            values = {
                "mu": mu,
                "sigma": sigma,
                "ordinal": ordinal(mu, sigma),
                "matches": old[seat].matches + 1,
                "updated": now,
            }
            key = (bot_ratings.c.token_id == tokens[seat]) & (bot_ratings.c.game == game)
            if before[seat] is None:
                c.execute(insert(bot_ratings).values(token_id=tokens[seat], game=game, **values))
            else:
                c.execute(update(bot_ratings).where(key).values(**values))
            row = {
                "room_id": room_id,
                "seat": seat,
                "token_id": tokens[seat],
                "game": game,
                "total": str(totals[seat]),
                "place": placed[seat],
                "mu_before": old[seat].mu,
                "mu_after": mu,
                "sigma_before": old[seat].sigma,
                "sigma_after": sigma,
                "hands": count,
                "finished": now,
            }
            c.execute(insert(ladder_results).values(**row))
            out.append(row)
        return out


def unbooked_ladder_matches(engine: Engine) -> list[tuple[int, str]]:
    """Finished ladder matches (a hand played at least) with no results yet: (room id, code),
    oldest first."""
    with engine.connect() as c:
        return [
            (room_id, code)
            for room_id, code in c.execute(
                select(rooms.c.id, rooms.c.code)
                .where((rooms.c.status == "over") & (rooms.c.kind == "ladder"))
                .where(rooms.c.id.not_in(select(ladder_results.c.room_id)))
                # a match that ended before any hand did rates nobody (book_ladder_in)
                .where(rooms.c.id.in_(select(hands.c.room_id).where(hands.c.finished)))
                .order_by(rooms.c.id)
            ).all()
        ]


def book_unbooked_ladder(engine: Engine) -> tuple[int, dict[int, tuple[str, str]]]:
    """Book every finished ladder match left unbooked (a crash, a failed booking); how many
    were booked, and the ones that could not be (room id → (code, the error in one line)) —
    logged, never raised."""
    booked, failed = 0, {}
    try:
        pending = unbooked_ladder_matches(engine)
    except Exception as error:
        log.exception("could not list the unbooked ladder matches")
        return 0, {0: ("", error_line(error))}
    for room_id, code in pending:
        try:
            booked += bool(book_ladder(engine, room_id))
        except Exception as error:
            log.exception("ladder match %s (room id %d) could not be booked", code, room_id)
            failed[room_id] = (code, error_line(error))
    return booked, failed


def bot_leaderboard(
    engine: Engine, game: str, limit: int = 50, offset: int = 0
) -> list[dict[str, Any]]:
    """The live bots of ``game`` by rating ordinal (then matches, then the oldest token)."""
    with engine.connect() as c:
        rows = c.execute(
            select(
                bot_ratings,
                bot_tokens.c.name.label("bot"),
                accounts.c.name.label("owner"),
            )
            .join(bot_tokens, bot_tokens.c.id == bot_ratings.c.token_id)
            .join(accounts, accounts.c.id == bot_tokens.c.account_id)
            .where((bot_ratings.c.game == game) & bot_tokens.c.revoked.is_(None))
            .order_by(
                bot_ratings.c.ordinal.desc(), bot_ratings.c.matches.desc(), bot_ratings.c.token_id
            )
            .limit(limit)
            .offset(offset)
        ).all()
    return [
        {
            "place": offset + i + 1,
            "id": row.token_id,
            "name": f"{row.owner}/{row.bot}",
            "bot": row.bot,
            "owner": row.owner,
            "ordinal": round(row.ordinal, 4),
            "mu": round(row.mu, 4),
            "sigma": round(row.sigma, 4),
            "matches": row.matches,
        }
        for i, row in enumerate(rows)
    ]
