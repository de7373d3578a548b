"""``GET /api/rooms/CODE/summary``: a room's match totals and its hands with their replays —
also for a finished room the server no longer holds in memory (read from the database) — and,
once a ranked room's match is booked, each account's strength points and rank before and after
(:func:`standings_moved`: public standings, exact)."""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.engine.events import End, decode, number
from laizi.rules import rank_for
from laizi.server.accounts import accounts
from laizi.server.hub import hub_of
from laizi.server.ratings import match_results, next_rank
from laizi.server.store import Store, rooms, seats

__all__ = ["room_summary", "standings_moved", "summary_routes"]


def _exact(end: End) -> list[Fraction]:
    if end.payments_exact is not None:
        return [Fraction(x) for x in end.payments_exact]
    return [Fraction(str(x)) for x in end.payments]


def _rank(points: Fraction) -> dict[str, str]:
    rank = rank_for(points)
    return {"zh": rank.zh, "en": rank.en}


def _next(points: Fraction) -> dict[str, str] | None:
    """The rank above these points and how many points it is away (exact), None at the top."""
    up = next_rank(points)
    if up is None:
        return None
    return {"zh": up.zh, "en": up.en, "missing": str(up.points - points)}


def standings_moved(c: Connection, room_id: int) -> list[dict[str, Any]]:
    """What a ranked match booked for each account seat, by seat: the account's name, its
    strength points before and after and the change (exact text: ``"-400/3"``), its rank
    before and after, and the next rank with the points still missing to it.  ``[]`` before
    the booking and for a room whose match moves no points."""
    rows = c.execute(
        select(
            match_results.c.seat,
            match_results.c.points_before,
            match_results.c.points_after,
            accounts.c.name,
        )
        .join(accounts, accounts.c.id == match_results.c.account_id)
        .where(match_results.c.room_id == room_id)
        .where(match_results.c.points_before.is_not(None))
        .order_by(match_results.c.seat)
    ).all()
    out = []
    for seat, before_text, after_text, name in rows:
        before, after = Fraction(before_text), Fraction(after_text)
        out.append(
            {
                "seat": seat,
                "account": name,
                "points_before": str(before),
                "points_after": str(after),
                "delta": str(after - before),
                "rank_before": _rank(before),
                "rank_after": _rank(after),
                "next_rank": _next(after),
            }
        )
    return out


def room_summary(store: Store, code: str) -> dict[str, Any] | None:
    """The room (code, status, rules, table, seats), every finished hand's end (how it ended,
    who won, the payments, the link of its record — the replay) and the match totals, exact."""
    with store.engine.connect() as c:
        row = c.execute(select(rooms).where(rooms.c.code == code)).first()
        if row is None:
            return None
        seat_rows = c.execute(
            select(seats.c.seat, seats.c.kind, seats.c.name)
            .where(seats.c.room_id == row.id)
            .order_by(seats.c.seat)
        ).all()
        moved = standings_moved(c, row.id) if row.kind == "ranked" else []
    import json

    totals = [Fraction(0)] * 4
    hands = []
    for hand in store.hands(row.id):
        if not hand.finished or not hand.events or hand.events[-1].get("type") != "end":
            continue
        end = decode(hand.events[-1])
        assert isinstance(end, End)
        paid = _exact(end)
        totals = [t + p for t, p in zip(totals, paid, strict=True)]
        hands.append(
            {
                "number": hand.number,
                "dealer": hand.dealer,
                "reason": end.reason,
                "winner": end.winner,
                "payments": [str(p) for p in paid],
                "record": f"/api/rooms/{code}/hands/{hand.number}",
            }
        )
    return {
        "code": code,
        "status": row.status,
        "kind": row.kind,
        "rules": json.loads(row.rules),
        "table": json.loads(row.table_settings),
        "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name} for s in seat_rows],
        "hands": hands,
        "totals": [number(t) for t in totals],
        "totals_exact": [str(t) for t in totals],
        "standings": moved,
    }


FINISHED_KEPT = 256
"""How many finished rooms' summaries a server keeps (they never change)."""


def _finished(request: Request) -> OrderedDict[str, dict[str, Any]]:
    """This application's kept summaries of finished rooms, the most recently asked last."""
    state = request.app.state
    kept: OrderedDict[str, dict[str, Any]] | None = getattr(state, "finished_summaries", None)
    if kept is None:
        kept = state.finished_summaries = OrderedDict()
    return kept


async def summary(request: Request) -> Response:
    """The room's summary, read in a worker thread (a long match's hands are many rows: the
    tables' event loop does not wait for them); a finished room's is kept."""
    code = request.path_params["code"].upper()
    if not 0 < len(code) <= 16:
        return JSONResponse({"error": "no such room", "code": "not_found"}, 404)
    kept = _finished(request)
    body = kept.get(code)
    if body is None:
        body = await run_in_threadpool(room_summary, hub_of(request.app).store, code)
        if body is None:
            return JSONResponse({"error": "no such room", "code": "not_found"}, 404)
        booking = body["kind"] == "ranked" and body["status"] == "over" and not body["standings"]
        if body["status"] not in ("waiting", "playing") and not booking:
            kept[code] = body
            while len(kept) > FINISHED_KEPT:
                kept.popitem(last=False)
    else:
        kept.move_to_end(code)
    return JSONResponse(body)


def summary_routes() -> list[Route]:
    return [Route("/api/rooms/{code}/summary", summary)]
