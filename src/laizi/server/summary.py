"""``GET /api/rooms/CODE/summary``: a room's match totals and its hands with their replays —
also for a finished room the server no longer holds in memory (read from the database)."""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from typing import Any

from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.engine.events import End, decode, number
from laizi.server.hub import hub_of
from laizi.server.store import Store, rooms, seats

__all__ = ["room_summary", "summary_routes"]


def _exact(end: End) -> list[Fraction]:
    if end.payments_exact is not None:
        return [Fraction(x) for x in end.payments_exact]
    return [Fraction(str(x)) for x in end.payments]


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
        "rules": json.loads(row.rules),
        "table": json.loads(row.table_settings),
        "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name} for s in seat_rows],
        "hands": hands,
        "totals": [number(t) for t in totals],
        "totals_exact": [str(t) for t in totals],
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
        if body["status"] not in ("waiting", "playing"):
            kept[code] = body
            while len(kept) > FINISHED_KEPT:
                kept.popitem(last=False)
    else:
        kept.move_to_end(code)
    return JSONResponse(body)


def summary_routes() -> list[Route]:
    return [Route("/api/rooms/{code}/summary", summary)]
