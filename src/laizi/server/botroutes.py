"""The HTTP routes of outside bots: an account's bot tokens (``laizi.server.bottokens``) and the
bots' leaderboard (``laizi.server.botratings``) — docs/api.md.

The two modules below hold the tables and what the ladder books; the routes live here, above the
API helpers and the hub, so that booking a ladder match (``laizi.server.booking``) never imports
the HTTP layer.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.server.accounts import Account, AccountError
from laizi.server.api import _error, _int_param, _json_body, current_account
from laizi.server.botratings import bot_leaderboard
from laizi.server.bottokens import BotTokens
from laizi.server.hub import Hub
from laizi.server.ratings import GAMES

__all__ = ["bot_rating_routes", "bot_token_routes"]


def bot_token_routes(get_hub: Callable[[], Hub]) -> list[Route]:
    """The routes of the table above (the account is the session cookie's)."""

    def tokens() -> BotTokens:
        return BotTokens(get_hub().store.engine)

    def who(request: Request) -> Account | None:
        found = get_hub().accounts
        return None if found is None else current_account(found, request)

    async def collection(request: Request) -> Response:
        account = who(request)
        if account is None:
            return _error("not_logged_in", "log in to manage bot tokens", 401, zh="请先登录")
        if request.method == "GET":
            return JSONResponse({"tokens": tokens().list(account.id)})
        try:
            body = await _json_body(request)
            issued = tokens().issue(account.id, body.get("name"))
        except AccountError as error:
            return _error(error.code, error.message, error.status, zh=error.zh)
        return JSONResponse(issued, 201)

    async def one(request: Request) -> Response:
        account = who(request)
        if account is None:
            return _error("not_logged_in", "log in to manage bot tokens", 401, zh="请先登录")
        token_id = request.path_params["token_id"]
        if not tokens().revoke(account.id, token_id):
            return _error(
                "no_token",
                "you have no live bot token with that id",
                404,
                zh="没有这个有效的机器人令牌",
            )
        ladder = get_hub().ladder
        if ladder is not None:  # a bot of this token waiting for a ladder table leaves it
            ladder.revoked(token_id)
        return JSONResponse({"ok": True})

    return [
        Route("/api/bot-tokens", collection, methods=["GET", "POST"]),
        Route("/api/bot-tokens/{token_id:int}", one, methods=["DELETE"]),
    ]


def bot_rating_routes(get_hub: Callable[[], Hub]) -> list[Route]:
    """``GET /api/bots/leaderboard?game=G&limit=N&offset=K`` (docs/api.md)."""

    async def board(request: Request) -> Response:
        game = request.query_params.get("game", GAMES[0])
        if game not in GAMES:
            return _error(
                "bad_game",
                f"game must be one of {', '.join(GAMES)}",
                400,
                zh=f"game 须为 {'、'.join(GAMES)} 之一",
            )
        try:
            limit = _int_param(request, "limit", 50, 1, 500)
            offset = _int_param(request, "offset", 0, 0, 10_000_000)
        except AccountError as error:
            return _error(error.code, error.message, error.status)
        engine = get_hub().store.engine
        rows = await run_in_threadpool(bot_leaderboard, engine, game, limit, offset)
        ladder = get_hub().ladder
        return JSONResponse(
            {
                "game": game,
                "ladder": None if ladder is None else ladder.info(),
                "bots": rows,
            }
        )

    return [Route("/api/bots/leaderboard", board)]
