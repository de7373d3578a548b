"""``GET /api/rooms/CODE/summary``: a room's match totals and its hands with their replays —
also for a finished room the server no longer holds in memory (read from the database)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.engine.events import number
from laizi.server.hub import hub_of
from laizi.server.store import Store, rooms, seats

__all__ = ["room_summary", "summary_routes"]


def _exact(end: dict[str, Any]) -> list[Fraction]:
    exact = end.get("payments_exact")
    if exact is not None:
        return [Fraction(x) for x in exact]
    return [Fraction(str(x)) for x in end["payments"]]


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
        end = hand.events[-1]
        paid = _exact(end)
        totals = [t + p for t, p in zip(totals, paid, strict=True)]
        hands.append(
            {
                "number": hand.number,
                "dealer": hand.dealer,
                "reason": end["reason"],
                "winner": end.get("winner"),
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


async def summary(request: Request) -> Response:
    code = request.path_params["code"].upper()
    body = room_summary(hub_of(request.app).store, code)
    if body is None:
        return JSONResponse({"error": "no such room", "code": "not_found"}, 404)
    return JSONResponse(body)


def summary_routes() -> list[Route]:
    return [Route("/api/rooms/{code}/summary", summary)]
