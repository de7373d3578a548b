"""The web client's routes: the page, its static files and the replay frames.

The create-a-room form is built from the server's ``GET /api/settings/schema``
(:mod:`laizi.server.schema`); this package imports nothing of :mod:`laizi.server`, which mounts it.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from laizi.engine import RecordError
from laizi.web.replay import frames

__all__ = ["STATIC", "routes"]

STATIC = Path(__file__).resolve().parent / "static"
"""The hand-written client: ES modules, CSS and the page (no build step)."""


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _room_page(request: Request) -> Response:
    """The same page, titled with the room's code (what a shared link shows before it loads)."""
    code = html.escape(request.path_params["code"].upper())
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    title = "<title>laizi 癞子麻将"
    page = page.replace(f"{title}</title>", f"{title} — {code}</title>", 1)
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


def routes(record: Callable[[str, int], list[dict[str, Any]] | None]) -> list[BaseRoute]:
    """The web client's routes; ``record(code, number)`` gives a finished hand's events or None."""

    async def replay(request: Request) -> Response:
        code = request.path_params["code"].upper()
        events = record(code, request.path_params["number"])
        if events is None:
            return JSONResponse({"error": "no finished hand with that number in that room"}, 404)
        try:
            return JSONResponse({"frames": frames(events)})
        except RecordError as error:
            return JSONResponse({"error": f"the record does not replay: {error}"}, 422)

    return [
        Route("/", _page),
        Route("/r/{code}", _room_page),
        Route("/replay/{code}/{number:int}", _page),
        Route("/api/rooms/{code}/hands/{number:int}/replay", replay),
        Mount("/web", StaticFiles(directory=STATIC), name="web"),
    ]
