"""The table setting ``explain_bots``: a bot's one-line reason per decision, for the settlement.

A bot that can say why it acted (``expert``: :attr:`laizi.bots.ExpertBot.last_note`, a
``{"en": …, "zh": …}`` dict) leaves a note after each decision.  With ``explain_bots`` on, the
room collects them during the hand and, once the hand is over, sends every viewer one message
per note (docs/protocol.md):

``{"type": "bot_note", "hand": h, "seat": s, "seq": n, "en": "…", "zh": "…"}``

``hand`` is the hand's number in the match (as ``/api/rooms/{code}/hands/{h}`` names its record)
and ``seq`` the index in that record of the first event the decision produced, so a settlement or
a replay can put each reason beside the move.  Nothing is sent during the hand: a reason tells
what the bot holds (and what it passed), which the other players must not learn while it
matters.  The room keeps the notes of its last :data:`KEPT_HANDS` hands (``notes_of``) for a
viewer who comes back after the hand, and ``GET /api/rooms/{code}/hands/{h}/notes``
(:func:`note_routes`) gives them to the web replay, which shows each at its step.

>>> class _Bot:
...     last_note = {"en": "folded", "zh": "弃和"}
>>> clean_note(_Bot())
{'en': 'folded', 'zh': '弃和'}
>>> clean_note(object()) is None
True
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = [
    "KEPT_HANDS",
    "MAX_NOTE",
    "clean_note",
    "flush_notes",
    "note_routes",
    "notes_of",
    "take_note",
]

KEPT_HANDS = 16
"""Hands whose notes a room keeps in memory."""

MAX_NOTE = 200
"""Characters of one language's text kept of a note."""


def clean_note(bot: Any) -> dict[str, str] | None:
    """The bot's last note as two short strings, or None (no note, or not a well-formed one —
    an outside bot's attribute is not trusted)."""
    note = getattr(bot, "last_note", None)
    if not isinstance(note, dict):
        return None
    en, zh = note.get("en"), note.get("zh")
    if not isinstance(en, str) or not isinstance(zh, str) or not en or not zh:
        return None
    return {"en": en[:MAX_NOTE], "zh": zh[:MAX_NOTE]}


def take_note(room: Any, seat: int, bot: Any) -> None:
    """Called just before a bot's action is played: keep its reason (``explain_bots`` only)."""
    if not room.table.explain_bots or not room.live:
        return
    note = clean_note(bot)
    if note is None:
        return
    pending: list[dict[str, Any]] = room.__dict__.setdefault("bot_notes_pending", [])
    pending.append(
        {
            "type": "bot_note",
            "hand": room.match.hands_played,
            "seat": seat,
            "seq": len(room.hand_events),
            **note,
        }
    )


def flush_notes(room: Any) -> None:
    """Called once the hand is over: send every viewer the hand's notes, and keep them."""
    pending: list[dict[str, Any]] = room.__dict__.pop("bot_notes_pending", [])
    if not pending:
        return
    kept: dict[int, list[dict[str, Any]]] = room.__dict__.setdefault("bot_notes_kept", {})
    kept[pending[0]["hand"]] = pending
    for old in sorted(kept)[:-KEPT_HANDS]:
        del kept[old]
    for conn, _seat in room._conns():
        for message in pending:
            room.post(conn, message)


def notes_of(room: Any, hand: int) -> list[dict[str, Any]]:
    """The notes a room keeps of one finished hand ([] when none)."""
    kept: dict[int, list[dict[str, Any]]] = room.__dict__.get("bot_notes_kept", {})
    return list(kept.get(hand, []))


async def _notes(request: Request) -> Response:
    """``{"notes": [...]}``: the kept notes of a finished hand, as sent after it ([] when the
    room is gone, the hand is not finished, or it was played without ``explain_bots``)."""
    from laizi.server.hub import hub_of

    room = hub_of(request.app).rooms.get(request.path_params["code"].upper())
    notes = [] if room is None else notes_of(room, request.path_params["number"])
    return JSONResponse({"notes": notes})


def note_routes() -> list[Route]:
    """The replay's notes: ``GET /api/rooms/{code}/hands/{number}/notes``."""
    return [Route("/api/rooms/{code}/hands/{number:int}/notes", _notes)]
