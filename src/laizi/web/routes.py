"""The web client's routes: the page, its static files, the presets and the replay frames."""

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
from laizi.rules.settings import MODES, PRESETS, VARIANTS, WIN_PRIORITIES
from laizi.server.seats import BOT_LEVELS
from laizi.server.table import TableSettings
from laizi.web.replay import frames

__all__ = ["STATIC", "presets", "routes"]

STATIC = Path(__file__).resolve().parent / "static"
"""The hand-written client: ES modules, CSS and the page (no build step)."""

_CHOICES = {"variant": VARIANTS, "mode": MODES, "win_priority": WIN_PRIORITIES}
_INTS = {"haidi_reserve"}
_BOOLS = {"pass_win_locked"}
_FIXED = {"preset", "game"}
_TABLE_KEYS = (
    "players",
    "hands",
    "action_seconds",
    "bank_seconds",
    "grace_seconds",
    "bot_level",
    "bot_delay_ms",
    "between_hands_ms",
)


def _field(key: str) -> dict[str, Any]:
    if key in _CHOICES:
        return {"key": key, "type": "choice", "choices": list(_CHOICES[key])}
    if key in _BOOLS:
        return {"key": key, "type": "bool"}
    if key in _INTS:
        return {"key": key, "type": "int"}
    return {"key": key, "type": "number"}


def presets() -> dict[str, Any]:
    """What the lobby's create-a-room form is built from: every preset's every setting.

    ``fields`` lists every setting any preset has; a preset's own keys say which apply to it.

    >>> p = presets()
    >>> p["presets"]["wuhan-hongzhong-kaikou"]["min_points"], p["table"]["bot_level"]
    (16, 'greedy')
    >>> [f["key"] for f in p["fields"]][:3]
    ['variant', 'mode', 'laizi_gang_factor']
    """
    keys: dict[str, None] = {}
    for settings in PRESETS.values():
        keys.update(dict.fromkeys(settings.to_json()))
    table = TableSettings().to_json()
    table_fields: list[dict[str, Any]] = []
    for key in _TABLE_KEYS:
        if key == "bot_level":
            table_fields.append({"key": key, "type": "choice", "choices": list(BOT_LEVELS)})
        elif isinstance(table[key], int):
            table_fields.append({"key": key, "type": "int"})
        else:
            table_fields.append({"key": key, "type": "number"})
    return {
        "presets": {name: s.to_json() for name, s in PRESETS.items()},
        "fields": [_field(k) for k in keys if k not in _FIXED],
        "table": table,
        "table_fields": table_fields,
    }


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _room_page(request: Request) -> Response:
    """The same page, titled with the room's code (what a shared link shows before it loads)."""
    code = html.escape(request.path_params["code"].upper())
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    title = "<title>laizi 癞子麻将"
    page = page.replace(f"{title}</title>", f"{title} — {code}</title>", 1)
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


async def _presets(request: Request) -> Response:
    return JSONResponse(presets())


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
        Route("/api/presets", _presets),
        Route("/api/rooms/{code}/hands/{number:int}/replay", replay),
        Mount("/web", StaticFiles(directory=STATIC), name="web"),
    ]

