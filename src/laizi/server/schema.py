"""``GET /api/settings/schema``: what a client needs to build the create-a-room form.

The rules part is :func:`laizi.rules.schema.settings_schema` (every :class:`laizi.rules.Settings`
field, every preset's values); the table part is generated here from :class:`TableSettings` (its
fields, their kinds and bounds, its defaults).  Both carry their names in Chinese and English, so
the client declares no setting itself.

>>> s = room_schema()
>>> hands = next(f for f in s["table"]["fields"] if f["key"] == "hands")
>>> hands["type"], hands["min"], hands["max"], hands["label"]["en"], s["table"]["defaults"]["hands"]
('int', 1, 64, 'Hands in the match', 4)
>>> [c["value"] for c in s["table"]["fields"][5]["choices"]]
['random', 'greedy', 'learned', 'strong', 'expert']
>>> s["words"]["wuhan"]["factors"]["opened"], s["words"]["baishan"]["settlement"]
({'zh': '开口', 'en': 'opened'}, 'fans')

``words`` carries, per game, the names of every win, fan, factor, cap, contract and refusal reason
(each game's ``explain`` module, through its ruleset: :func:`game_words`), so the client shows
the server's words and has no table of its own.
"""

from __future__ import annotations

import typing
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.engine.hints import refusal_reasons
from laizi.rules.registry import game_ids, ruleset_class
from laizi.rules.schema import label, settings_schema
from laizi.server.chat import chat_words
from laizi.server.table import TableSettings

__all__ = ["TABLE_LABELS", "game_words", "room_schema", "schema_routes", "table_schema"]

TABLE_LABELS: dict[str, tuple[str, str]] = {
    "players": ("真人座位数", "Seats for people"),
    "hands": ("局数", "Hands in the match"),
    "action_seconds": ("每步秒数", "Seconds per decision"),
    "bank_seconds": ("每局时间库（秒）", "Time bank per hand (s)"),
    "escape_grace_seconds": ("掉线多久算逃跑（秒）", "Offline this long counts as escape (s)"),
    "bot_level": ("机器人水平", "Bot level"),
    "bot_delay_ms": ("机器人出牌延时（毫秒）", "Bot delay (ms)"),
    "between_hands_ms": ("局间停顿（毫秒）", "Pause between hands (ms)"),
    "claim_window_ms": ("出牌后等待（毫秒）", "Wait after each discard (ms)"),
    "entropy_wait_ms": ("等待玩家随机数（毫秒）", "Wait for players' entropy (ms)"),
    "settlement_seconds": ("结算停留（秒）", "Settlement stays (s)"),
    "explain_bots": ("机器人说明理由", "Bots explain their decisions"),
}
"""Each table setting's name for players, (Chinese, English)."""

CHOICE_LABELS: dict[str, tuple[str, str]] = {
    "random": ("随机", "Novice (plays at random)"),
    "greedy": ("普通", "Normal"),
    "learned": ("神经网络", "Neural network"),
    "strong": ("强", "Strong"),
    "expert": ("专家", "Expert"),
}
"""The names of the table settings' choices (the bot levels)."""


def table_schema() -> dict[str, Any]:
    """Every :class:`TableSettings` field with its kind and bounds, and the defaults."""
    _, definitions = msgspec.json.schema_components([TableSettings])
    properties = definitions["TableSettings"]["properties"]
    out = []
    for field in msgspec.structs.fields(TableSettings):
        prop = properties[field.encode_name]
        entry: dict[str, Any] = {"key": field.name, "label": label(field.name, TABLE_LABELS)}
        if "anyOf" in prop:  # an optional setting: its kind is the one that is not null
            prop = next(p for p in prop["anyOf"] if p.get("type") != "null")
            entry["optional"] = True
        if "enum" in prop:
            # the Literal's own order (the JSON schema sorts it)
            values = typing.get_args(field.type)
            entry["type"] = "choice"
            entry["choices"] = [{"value": v, "label": label(v, CHOICE_LABELS)} for v in values]
        else:
            entry["type"] = {"integer": "int", "boolean": "bool"}.get(prop["type"], prop["type"])
        if "minimum" in prop:
            entry["min"] = prop["minimum"]
        if "exclusiveMinimum" in prop:
            entry["min"], entry["exclusive_min"] = prop["exclusiveMinimum"], True
        if "maximum" in prop:
            entry["max"] = prop["maximum"]
        out.append(entry)
    return {"fields": out, "defaults": TableSettings().to_json()}


def game_words() -> dict[str, dict[str, Any]]:
    """Per game, the words of :meth:`laizi.rules.ruleset.Ruleset.words` with each ``(zh, en)``
    as ``{"zh", "en"}``; its refusal reasons include the hints' (the ids a ``hints`` message
    gives, :func:`laizi.engine.hints.refusal_reasons`)."""
    out: dict[str, dict[str, Any]] = {}
    hint_reasons = refusal_reasons()
    for game in game_ids():
        words = dict(ruleset_class(game).words())
        words["reasons"] = {**words.get("reasons", {}), **hint_reasons}
        out[game] = {
            key: (
                {name: {"zh": pair[0], "en": pair[1]} for name, pair in value.items()}
                if key in _NAMED
                else value
            )
            for key, value in words.items()
        }
    return out


_NAMED = ("wins", "fans", "factors", "caps", "contracts", "reasons")
"""The parts of a game's words that name ids as ``(zh, en)``."""


def room_schema() -> dict[str, Any]:
    """The whole form and the games' words:
    ``{"rules": settings_schema(), "table": table_schema(), "words": game_words()}``, and the
    quick chat's phrases (``chat``: :func:`laizi.server.chat.chat_words`)."""
    return {
        "rules": settings_schema(),
        "table": table_schema(),
        "words": game_words(),
        "chat": chat_words(),
    }


def schema_routes() -> list[Route]:
    """The schema's route, for :func:`laizi.server.app.create_app`."""
    body = room_schema()  # fixed for the process: built once

    async def schema(request: Request) -> Response:
        return JSONResponse(body, headers={"Cache-Control": "no-cache"})

    return [Route("/api/settings/schema", schema)]
