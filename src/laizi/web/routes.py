"""The web client's routes: the page and its static files.  (The replay frames of
:mod:`laizi.web.replay` are served, kept, by ``laizi.server.readonly``.)

The create-a-room form is built from the server's ``GET /api/settings/schema``
(:mod:`laizi.server.schema`); this package imports nothing of :mod:`laizi.server`, which mounts it.
"""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

__all__ = ["FILES_AT", "STATIC", "routes"]

STATIC = Path(__file__).resolve().parent / "static"
"""The hand-written client: ES modules, CSS and the page (no build step)."""
FILES_AT = "/web"
"""Where :data:`STATIC`'s files are served (``/web/app.js``); nothing else is mounted there."""


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _room_page(request: Request) -> Response:
    """The same page, titled with the room's code (what a shared link shows before it loads)."""
    code = html.escape(request.path_params["code"].upper())
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    title = "<title>laizi 癞子麻将"
    page = page.replace(f"{title}</title>", f"{title} — {code}</title>", 1)
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


def routes() -> list[BaseRoute]:
    """The web client's routes."""
    return [
        Route("/", _page),
        Route("/r/{code}", _room_page),
        Route("/replay/file", _page),  # a record opened from a file, read in the browser
        Route("/replay/{code}/{number:int}", _page),
        Route("/me", _page),  # a player's profile (profile.js)
        Route("/players/{name}", _page),
        Mount(FILES_AT, StaticFiles(directory=STATIC), name="web"),
    ]
