"""Strength points, ranks and skill ratings, booked when a match ends.

Two numbers per account and game (Wuhan, Baishan):

* **Strength points** (实力积分): what the account won from and lost to *other accounts* at
  the table.  Every payment of a match (a win, a kong paid on the spot, an escape) is split
  into who paid whom (:func:`add_payments`); an account's change is what other accounts' seats
  paid its seat minus what its seat paid theirs (:func:`strength_deltas`).  What a guest or a
  bot pays, or is paid, moves no account's points, and points are never floored: the sum over
  all accounts stays exactly zero, so nobody can create points (not by escaping, not with a
  guest tab, not by losing at zero).  Points may go below zero (the rank stays 白板).  The
  rank ladder of RULES.md Part B (:func:`laizi.rules.rank_for`, 白板 … 雀神) names the level.
* **Skill rating**: OpenSkill's Plackett–Luce model over the four seats, placed by their match
  totals (every payment, guests' and bots' included; ties share a place).  ``ordinal`` =
  μ − 3σ is the cautious figure the leaderboard shows.  Bots and guests sit in as fresh ratings
  and nothing is kept for them.

Only a **ranked** room's match (``rooms.kind``, opened by the matchmaker:
:mod:`laizi.server.matched`) moves either.  A friendly room's (友人场: made by link) or a casual
table's match is booked all the same — every seat's total and place in ``match_results``, linked
to the accounts that played — with no points or ratings before and after, and no standing moves.

The server books each finished match once, from the hand records the database holds
(:func:`book_stored`), in one transaction; it is idempotent (one row per seat of the room, one
standing update per account), so a match finished during recovery is not counted twice, and
:func:`book_unbooked` settles matches whose end was written but whose booking was lost to a
crash — one match at a time, a match that cannot be booked is reported, never raised.

>>> paid = no_payments()
>>> add_payments(paid, [Fraction(-8), Fraction(24), Fraction(-8), Fraction(-8)])
>>> [str(x) for x in paid[0]], seat_totals(paid)[1]
(['0', '8', '0', '0'], Fraction(24, 1))
>>> strength_deltas(paid, {1: 7, 2: 9})  # seats 0 and 3 are a guest and a bot
{7: Fraction(8, 1), 9: Fraction(-8, 1)}
>>> places([Fraction(10), Fraction(-4), Fraction(-4), Fraction(-2)])
[1, 3, 3, 2]
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

import msgspec
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
    Text,
    func,
    insert,
    select,
    update,
)

from laizi.engine.dealing import new_hand
from laizi.engine.events import End, KongPaid, decode_json
from laizi.rules import RANKS, Rank, Settings, game_ids, rank_for
from laizi.rules.ruleset import HandView, Ruleset
from laizi.server.accounts import accounts
from laizi.server.matched import moves_ranks
from laizi.server.store import events, hands, metadata, rooms, seats
from laizi.tiles import parse_tile

__all__ = [
    "GAMES",
    "Paid",
    "Standing",
    "Unbooked",
    "add_payments",
    "book_match",
    "book_stored",
    "book_stored_in",
    "book_unbooked",
    "leaderboard",
    "link_seat",
    "link_seat_in",
    "match_history",
    "new_points",
    "next_rank",
    "no_payments",
    "places",
    "rate",
    "seat_of_account",
    "seat_totals",
    "standings_of",
    "stored_payments",
    "strength_deltas",
    "unbooked_matches",
    "unlink_seat_in",
]

log = logging.getLogger("laizi.server")

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
    Column("points", Text, nullable=False),
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
    Column("total", Text, nullable=False),
    Column("place", Integer, nullable=False),
    Column("points_before", Text, nullable=True),
    Column("points_after", Text, nullable=True),
    Column("mu_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    Column("hands", Integer, nullable=False),
    Column("finished", Float, nullable=False),
    Index("match_results_account", "account_id", "finished"),
)


# -- the pure part --------------------------------------------------------------------------------
Paid = list[list[Fraction]]
"""``paid[i][j]``: what seat ``i`` paid seat ``j`` over a match (never negative)."""


def no_payments() -> Paid:
    return [[Fraction(0)] * 4 for _ in range(4)]


def add_payments(paid: Paid, payments: Sequence[Fraction | int]) -> None:
    """Add one zero-sum payment (a win's settlement, a kong paid on the spot, an escape) to
    ``paid``: each payer's amount goes to the receivers in proportion to what they receive.

    Every payment the engine makes has a single seat on one side (the winner, the one who
    konged, the one who escaped, a contract's liable player), and then this is exactly who
    paid whom; any other zero-sum payment is still split exactly, with nothing created."""
    amounts = [Fraction(p) for p in payments]
    if len(amounts) != 4 or sum(amounts) != 0:
        raise ValueError(f"a payment is four amounts that add up to 0, not {amounts}")
    received = sum(a for a in amounts if a > 0)
    if received == 0:
        return
    for payer, owed in enumerate(amounts):
        if owed < 0:
            for receiver, gets in enumerate(amounts):
                if gets > 0:
                    paid[payer][receiver] += -owed * gets / received


def seat_totals(paid: Paid) -> list[Fraction]:
    """Every seat's match total: what it received minus what it paid."""
    return [
        sum((paid[other][seat] - paid[seat][other] for other in range(4)), Fraction(0))
        for seat in range(4)
    ]


def strength_deltas(paid: Paid, owners: Mapping[int, int]) -> dict[int, Fraction]:
    """Each account's change of strength points: what the seats of *other* accounts paid its
    seat(s), minus what its seat(s) paid them.  ``owners`` maps a seat to its account; a seat
    that is not in it (a guest, a bot) moves nobody's points.  The changes add up to exactly 0.
    """
    deltas = {account: Fraction(0) for account in owners.values()}
    for payer, payer_account in owners.items():
        for receiver, receiver_account in owners.items():
            if payer_account != receiver_account:
                amount = paid[payer][receiver]
                deltas[payer_account] -= amount
                deltas[receiver_account] += amount
    return deltas


def new_points(points: Fraction, delta: Fraction) -> Fraction:
    """Strength points after a match: no floor (a floor would create points for the others)."""
    return points + delta


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
    """The next rung of the ladder above these points' rank (一万 below zero too), or None at
    雀神."""
    return next((r for r in RANKS if r.points > max(points, 0)), None)


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
    """Remember which account took a seat (its results are booked to it).  An account is
    linked to one seat of a room at most: an older link of it in this room is dropped."""
    with engine.connect() as c:
        link_seat_in(c, room_id, seat, account_id)


def link_seat_in(c: Connection, room_id: int, seat: int, account_id: int) -> None:
    """:func:`link_seat` in its own transaction on ``c`` (the server runs it on its store's
    writer: ``Store.transact``, in order with the tables' commits, never beside them)."""
    with c.begin():
        c.execute(
            seat_accounts.delete().where(
                (seat_accounts.c.room_id == room_id)
                & ((seat_accounts.c.seat == seat) | (seat_accounts.c.account_id == account_id))
            )
        )
        c.execute(insert(seat_accounts).values(room_id=room_id, seat=seat, account_id=account_id))


def unlink_seat_in(c: Connection, room_id: int, seat: int) -> None:
    """A seat taken by a guest belongs to no account (whoever held it before); in its own
    transaction on ``c`` (the store's writer, as :func:`link_seat_in`)."""
    with c.begin():
        c.execute(
            seat_accounts.delete().where(
                (seat_accounts.c.room_id == room_id) & (seat_accounts.c.seat == seat)
            )
        )


def seat_of_account(engine: Engine, room_id: int, account_id: int) -> int | None:
    """The seat a person holds for this account in this room (none once it was given up)."""
    with engine.connect() as c:
        return c.execute(
            select(seat_accounts.c.seat)
            .join(
                seats,
                (seats.c.room_id == seat_accounts.c.room_id)
                & (seats.c.seat == seat_accounts.c.seat),
            )
            .where(
                (seat_accounts.c.room_id == room_id)
                & (seat_accounts.c.account_id == account_id)
                & (seats.c.kind == "human")
            )
            .order_by(seat_accounts.c.seat)
            .limit(1)
        ).scalar()


def _owners(c: Connection, room_id: int) -> dict[int, int]:
    """The seats of a room booked to accounts: linked, and not played by a bot."""
    rows = c.execute(
        select(seat_accounts.c.seat, seat_accounts.c.account_id, seats.c.kind)
        .outerjoin(
            seats,
            (seats.c.room_id == seat_accounts.c.room_id) & (seats.c.seat == seat_accounts.c.seat),
        )
        .where(seat_accounts.c.room_id == room_id)
    ).all()
    return {seat: account for seat, account, kind in rows if kind != "bot" and 0 <= seat <= 3}


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
    paid: Paid,
    hands_played: int,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """Book a finished match whose payments were ``paid`` (:data:`Paid`): every seat's total
    and place; in a ranked room (``rooms.kind``, :func:`laizi.server.matched.moves_ranks`) the
    accounts' strength points and ratings too — in a friendly or casual room they stay.

    Returns one entry per seat (nothing is changed, and ``[]`` returned, if the match was booked
    before or no seat has an account).  One transaction: all of it or none."""
    with engine.begin() as c:
        return _book(c, room_id, game, paid, hands_played, now)


def _book(
    c: Connection,
    room_id: int,
    game: str,
    paid: Paid,
    hands_played: int,
    now: float | None = None,
) -> list[dict[str, Any]]:
    now = time.time() if now is None else now
    if _booked(c, room_id):
        return []
    owners = _owners(c, room_id)
    if not owners:
        return []
    totals = seat_totals(paid)
    seat_places = places(totals)
    ranked = moves_ranks(_kind(c, room_id))
    moved = _move_standings(c, game, paid, owners, totals, seat_places, now) if ranked else {}
    out = []
    for seat in range(4):
        owner = owners.get(seat)
        row: dict[str, Any] = {
            "room_id": room_id,
            "seat": seat,
            "account_id": owner,
            "game": game,
            "total": str(totals[seat]),
            "place": seat_places[seat],
            "hands": hands_played,
            "finished": now,
        }
        if owner is not None and ranked:
            row.update(moved[owner])
        c.execute(insert(match_results).values(**row))
        out.append(row)
    return out


def _kind(c: Connection, room_id: int) -> str:
    """The room's kind (``laizi.server.matched``): only a ranked room's match moves standings."""
    kind = c.execute(select(rooms.c.kind).where(rooms.c.id == room_id)).scalar()
    if kind is None:
        raise ValueError(f"no room has the id {room_id}")
    return str(kind)


def _move_standings(
    c: Connection,
    game: str,
    paid: Paid,
    owners: Mapping[int, int],
    totals: Sequence[Fraction],
    seat_places: Sequence[int],
    now: float,
) -> dict[int, dict[str, Any]]:
    """A ranked match's strength points and ratings, written to the accounts' standings; per
    account, the before and after of its ``match_results`` row."""
    deltas = strength_deltas(paid, owners)
    before = {a: _standing(c, a, game) for a in deltas}
    old = {a: found or fresh(game) for a, found in before.items()}
    ratings = [
        (old[owners[s]].mu, old[owners[s]].sigma) if s in owners else (MU, SIGMA) for s in range(4)
    ]
    rated = rate(ratings, totals)
    # An account on several seats (only ever in a match booked from before one account could
    # hold one seat) is rated by its worst-placed seat.
    rated_seat = {
        a: max((s for s in owners if owners[s] == a), key=lambda s: (seat_places[s], -s))
        for a in deltas
    }
    moved: dict[int, dict[str, Any]] = {}
    for account, delta in deltas.items():
        mu, sigma = rated[rated_seat[account]]
        points = new_points(old[account].points, delta)
        values = {
            "points": str(points),
            "points_sort": float(points),
            "mu": mu,
            "sigma": sigma,
            "ordinal": ordinal(mu, sigma),
            "matches": old[account].matches + 1,
            "updated": now,
        }
        key = (standings.c.account_id == account) & (standings.c.game == game)
        if before[account] is not None:
            c.execute(update(standings).where(key).values(**values))
        else:
            c.execute(insert(standings).values(account_id=account, game=game, **values))
        moved[account] = {
            "points_before": str(old[account].points),
            "points_after": str(points),
            "mu_before": old[account].mu,
            "mu_after": mu,
            "sigma_before": old[account].sigma,
            "sigma_after": sigma,
        }
    return moved


def _booked(c: Connection, room_id: int) -> bool:
    return bool(
        c.execute(
            select(func.count())
            .select_from(match_results)
            .where(match_results.c.room_id == room_id)
        ).scalar()
    )


def stored_payments(c: Connection, room_id: int, rules: Settings) -> tuple[Paid, int]:
    """Who paid whom over a room's finished hands, read from their records as typed events
    (:mod:`laizi.engine.events`), and how many hands there were: each kong paid on the spot
    (:class:`KongPaid`, its exact amounts recomputed from the rules and the hand's dealer), then
    the hand's :class:`End` (a win, a drawn hand or an escape: its exact payments less those
    kongs)."""
    from laizi.engine import make_ruleset

    ruleset = make_ruleset(rules)
    paid = no_payments()
    count = 0
    finished = c.execute(
        select(hands.c.id, hands.c.number, hands.c.dealer)
        .where((hands.c.room_id == room_id) & hands.c.finished)
        .order_by(hands.c.number)
    ).all()
    of_room = select(hands.c.id).where((hands.c.room_id == room_id) & hands.c.finished)
    kongs: dict[int, list[KongPaid]] = {}
    ends: dict[int, End] = {}
    for hand_id, body in c.execute(
        select(events.c.hand_id, events.c.body)
        .where(events.c.hand_id.in_(of_room))
        .order_by(events.c.hand_id, events.c.idx)
    ):
        kind = msgspec.json.decode(body, type=_Kind).type
        if kind == "kong_paid":
            kongs.setdefault(hand_id, []).append(_typed(body, KongPaid))
        elif kind == "end":
            ends[hand_id] = _typed(body, End)
        else:
            ends.pop(hand_id, None)  # the end is the hand's last event
    for hand_id, number, dealer in finished:
        end = ends.get(hand_id)
        if end is None:
            continue
        rest = end.exact_payments()
        if kongs.get(hand_id):
            state, _ = new_hand(ruleset, dealer, seed=bytes(32))
            for kong in kongs[hand_id]:
                payments = _kong_payments(ruleset, state, kong, number)
                add_payments(paid, payments)
                rest = [r - k for r, k in zip(rest, payments, strict=True)]
        add_payments(paid, rest)
        count += 1
    return paid, count


class _Kind(msgspec.Struct):
    """Only an event's ``type``: which typed event to read it as."""

    type: str


_E = TypeVar("_E", KongPaid, End)


def _typed(body: str, kind: type[_E]) -> _E:
    """The typed event of a stored record line, which must be of ``kind``."""
    try:
        event = decode_json(body)
    except msgspec.ValidationError as error:
        raise ValueError(f"a stored event is not a valid {kind.__name__}: {error}") from None
    if not isinstance(event, kind):
        raise ValueError(f"a stored event is not a {kind.__name__}")
    return event


def _kong_payments(
    ruleset: Ruleset, state: HandView, event: KongPaid, number: int
) -> tuple[Fraction, ...]:
    """A ``kong_paid`` event's exact payments (the event shows them as JSON numbers), by the
    rules, for the hand's seating (``state``: a hand dealt by the same dealer; what a kong pays
    on the spot depends on who deals and who konged, not on the tiles in the wall)."""
    if event.tile is None:
        raise ValueError(f"hand {number}: a kong_paid event without its tile")
    exact = ruleset.kong_payments(state, event.seat, event.kind, parse_tile(event.tile))
    shown = [Fraction(x) for x in event.payments]
    if exact is None or any(
        abs(Fraction(e) - s) > abs(s) * Fraction(1, 10**9)
        for e, s in zip(exact, shown, strict=True)
    ):
        raise ValueError(f"hand {number}: a kong_paid event does not match the room's rules")
    return tuple(Fraction(e) for e in exact)


def book_stored(
    engine: Engine, room_id: int, rules: Settings | None = None
) -> list[dict[str, Any]]:
    """Book a finished match from its stored hand records, in one transaction (``[]`` if it
    was booked before or has no account seat)."""
    with engine.connect() as c:
        return book_stored_in(c, room_id, rules)


def book_stored_in(
    c: Connection, room_id: int, rules: Settings | None = None
) -> list[dict[str, Any]]:
    """:func:`book_stored` in a transaction of its own on ``c`` — a store's writer runs it
    (``Store.transact``), after every write handed to it before: the booking reads the
    match's last hand, never a database that does not hold it yet."""
    with c.begin():
        if _booked(c, room_id) or not _owners(c, room_id):
            return []
        if rules is None:
            text = c.execute(select(rooms.c.rules).where(rooms.c.id == room_id)).scalar()
            if text is None:
                raise ValueError(f"no room has the id {room_id}")
            rules = Settings.from_json(json.loads(text))
        paid, count = stored_payments(c, room_id, rules)
        return _book(c, room_id, rules.game, paid, count)


def unbooked_matches(engine: Engine) -> list[tuple[int, str]]:
    """Finished matches with account seats and no results yet: (room id, code), oldest first."""
    with engine.connect() as c:
        return [
            (room_id, code)
            for room_id, code in c.execute(
                select(rooms.c.id, rooms.c.code)
                .where(rooms.c.status == "over")
                .where(rooms.c.id.in_(select(seat_accounts.c.room_id)))
                .where(rooms.c.id.not_in(select(match_results.c.room_id)))
                .order_by(rooms.c.id)
            ).all()
        ]


@dataclass
class Unbooked:
    """What :func:`book_unbooked` did: how many matches it booked, and the ones it could not
    (room id → (code, the error in one line))."""

    booked: int = 0
    failed: dict[int, tuple[str, str]] = field(default_factory=dict)


def book_unbooked(engine: Engine) -> Unbooked:
    """Book every finished match with account seats that has no results yet (after a crash
    between a match's last event and its booking, or a booking that failed), each in its own
    transaction.  A match that cannot be booked is logged and reported, never raised: it must
    not keep the server from starting or the other matches from being booked."""
    result = Unbooked()
    try:
        pending = unbooked_matches(engine)
    except Exception as error:  # the database itself is unwell: report, don't raise
        log.exception("could not list the unbooked matches")
        result.failed[0] = ("", error_line(error))
        return result
    for room_id, code in pending:
        try:
            result.booked += bool(book_stored(engine, room_id))
        except Exception as error:
            log.exception("match %s (room id %d) could not be booked", code, room_id)
            result.failed[room_id] = (code, error_line(error))
    return result


def error_line(error: BaseException) -> str:
    """An error as one short line (the type and the first line of its message)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:200]


def _maybe_number(text: str | None) -> int | float | None:
    """A booked number of ``match_results`` (None: a match that moved no points)."""
    return None if text is None else _number(Fraction(text))


def _rating(mu: float | None, sigma: float | None) -> dict[str, float] | None:
    return None if mu is None or sigma is None else {"mu": mu, "sigma": sigma}


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
            select(match_results, rooms.c.code, rooms.c.rules, rooms.c.kind)
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
                    "kind": row.kind,
                    "points_before": _maybe_number(row.points_before),
                    "points_after": _maybe_number(row.points_after),
                    "rating_before": _rating(row.mu_before, row.sigma_before),
                    "rating_after": _rating(row.mu_after, row.sigma_after),
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
