"""The table's HTTP routes: ``/healthz``, creating a room, a room's public info (a finished
hand's record: ``laizi.server.readonly``).  Each handler finds the hub in ``request.app.state``
(:func:`laizi.server.hub.hub_of`)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi import jsonsafe
from laizi.rules import SettingsError
from laizi.server.api import current_account
from laizi.server.errors import setting_error, table_setting_error
from laizi.server.hub import hub_of
from laizi.server.limits import LimitError, Owner, too_large_response
from laizi.server.protocol import PROTOCOL_VERSION
from laizi.server.room.hints import hint_ms_p99
from laizi.server.table import TableSettingsError

__all__ = ["body_too_large", "table_routes"]

ROOM_BODY_BYTES = 16_384
"""The largest body ``POST /api/rooms`` reads (rules and table settings)."""


async def healthz(request: Request) -> Response:
    hub = hub_of(request.app)
    health: dict[str, Any] = {"ok": True, "protocol": PROTOCOL_VERSION, "rooms": len(hub.rooms)}
    health["hint_ms_p99"] = hint_ms_p99()  # the 听牌 hints' cost per computation
    if hub.bookings is not None:
        health.update(hub.bookings.health())  # unbooked matches and why
    readonly = getattr(request.app.state, "readonly", None)
    if readonly is not None:
        health.update(readonly.health())  # the kept replays and records, the render pool
    return JSONResponse(health)


async def create_room(request: Request) -> Response:
    hub = hub_of(request.app)
    # A JSON body only: a form of another site cannot send one (like the account routes).
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        message = "请发送 JSON / send a JSON body (Content-Type: application/json)"
        return JSONResponse({"error": message, "code": "bad_request"}, 415)
    raw = await request.body()
    if len(raw) > ROOM_BODY_BYTES:
        return JSONResponse({"error": "the body is too large", "code": "too_large"}, 413)
    accounts = hub.accounts
    account = None if accounts is None else current_account(accounts, request)
    owner = Owner(
        request.client.host if request.client is not None else "",
        None if account is None else account.id,
    )
    try:
        body = jsonsafe.loads(raw or b"{}")
        room = hub.create_room(body, owner)
    except LimitError as error:
        return JSONResponse({"error": error.message, "code": error.code}, error.status)
    except jsonsafe.JSONInputError as error:
        body = {"error": f"the body is not JSON: {error}", "code": "bad_request"}
        return JSONResponse(body, 400)
    except SettingsError as error:  # named by its label, in both languages
        detail = str(error).split(": ", 1)[-1]
        return JSONResponse(setting_error("rules", error.key, detail), 400)
    except TableSettingsError as error:
        return JSONResponse(table_setting_error(str(error)), 400)
    except ValueError as error:
        return JSONResponse({"error": str(error), "code": "bad_request"}, 400)
    return JSONResponse(room.info(), 201)


async def room_info(request: Request) -> Response:
    room = hub_of(request.app).rooms.get(request.path_params["code"].upper())
    if room is None:
        return JSONResponse({"error": "no such room"}, 404)
    return JSONResponse(room.info())


async def hand_notes(request: Request) -> Response:
    """``{"notes": [...]}``: the kept bot notes of a finished hand, as sent after it ([] when
    the room is gone, the hand is not finished, or it was played without ``explain_bots``;
    ``laizi.server.bot_notes``)."""
    room = hub_of(request.app).rooms.get(request.path_params["code"].upper())
    notes = [] if room is None else room.notes.of(request.path_params["number"])
    return JSONResponse({"notes": notes})


async def body_too_large(request: Request, _exc: Exception) -> Response:
    """A body over ``max_body_bytes`` (:class:`laizi.server.limits.BodyLimit`): 413."""
    return JSONResponse(too_large_response(hub_of(request.app).limits.max_body_bytes), 413)


def table_routes() -> list[Route]:
    return [
        Route("/healthz", healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        # the bots' reasons for the replay (explain_bots)
        Route("/api/rooms/{code}/hands/{number:int}/notes", hand_notes),
    ]
