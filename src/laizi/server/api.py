"""The account HTTP API (``docs/api.md``): register, login, logout, profile, history,
leaderboard and lobby (whole-match records: ``laizi.server.readonly``).

Sessions ride in the ``laizi_session`` cookie: HTTP-only, ``SameSite=Lax``, ``Secure`` when the
request came over https (directly or through a proxy uvicorn trusts), 30 days.  Requests that
change something take a JSON body (``Content-Type: application/json``), which a cross-site form
cannot send, on top of the SameSite cookie.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi import jsonsafe
from laizi.server.accounts import SESSION_SECONDS, Account, AccountError, Accounts
from laizi.server.booking import Bookings, retry_seconds_from_env
from laizi.server.limits import LimitError, LobbyCache
from laizi.server.playerstats import player_stats
from laizi.server.ratings import (
    GAMES,
    leaderboard,
    match_history,
    standings_of,
)

if TYPE_CHECKING:
    from laizi.server.hub import Hub
    from laizi.server.room import Room

__all__ = ["COOKIE", "api_routes", "attach", "current_account"]

COOKIE = "laizi_session"
MAX_BODY = 4096


def attach(hub: Hub) -> Accounts:
    """Give the hub its accounts and the match-end booking; book what a crash left unbooked
    (a match that cannot be booked is logged, retried later and shown by ``/healthz``)."""
    accounts = Accounts(hub.store.engine)
    hub.accounts = accounts
    bookings = Bookings(hub.store.engine, retry_seconds_from_env())
    hub.bookings = bookings
    hub.on_match_end = bookings.match_ended
    bookings.book_pending()
    bookings.start_timer()
    return accounts


def current_account(accounts: Accounts, connection: HTTPConnection) -> Account | None:
    """The account of the request's (or WebSocket handshake's) session cookie, if any.

    A WebSocket opened by a page of another site (its ``Origin`` is not this host) plays as a
    guest even if the browser sent the cookie: no other site can play under an account."""
    if connection.scope["type"] == "websocket":
        origin = connection.headers.get("origin")
        host = connection.headers.get("host")
        try:
            foreign = origin is not None and urlsplit(origin).netloc != host
        except ValueError:  # not even a URL ("http://["): not this site either
            foreign = True
        if foreign:
            return None
    return accounts.session(connection.cookies.get(COOKIE))


def _error(code: str, message: str, status: int, **extra: Any) -> JSONResponse:
    headers = {}
    if "retry_after" in extra and extra["retry_after"] is not None:
        headers["Retry-After"] = str(extra["retry_after"])
    body = {"error": message, "code": code}
    if extra.get("zh") is not None:
        body["error_zh"] = extra["zh"]
    return JSONResponse(body, status, headers=headers)


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else ""


async def _json_body(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise AccountError("bad_request", "send a JSON body (Content-Type: application/json)", 415)
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise AccountError("bad_request", "the body is too large", 413)
    try:
        body = jsonsafe.loads(raw or b"{}")
    except jsonsafe.JSONInputError as error:
        raise AccountError(
            "bad_request", f"the body is not JSON: {error}", zh=f"请求体不是合格的 JSON：{error}"
        ) from None
    if not isinstance(body, dict):
        raise AccountError(
            "bad_request", "the body must be a JSON object", zh="请求体须为 JSON 对象"
        )
    return body


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise AccountError("bad_request", f"{name} must be an integer") from None
    if not low <= value <= high:
        raise AccountError("bad_request", f"{name} must be {low}–{high}")
    return value


def _profile(accounts: Accounts, account: Account) -> dict[str, Any]:
    games = standings_of(accounts.engine, account.id)
    return {
        "name": account.name,
        "created": account.created,
        "games": {game: games[game].to_json() for game in GAMES},
    }


_LOBBY_STATIC: weakref.WeakKeyDictionary[Room, dict[str, Any]] = weakref.WeakKeyDictionary()
"""What of a room's lobby entry never changes (the rules' hash costs most), made once."""


def _lobby_entry(room: Room) -> dict[str, Any]:
    static = _LOBBY_STATIC.get(room)
    if static is None:
        static = _LOBBY_STATIC[room] = {
            "code": room.code,
            "link": f"/r/{room.code}",
            "kind": room.kind,
            "game": room.rules.game,
            "preset": room.rules.preset,
            "rules_hash": room.rules.short_hash(),
            "hands": room.table.hands,
            "players": room.table.players,
        }
    humans = sum(s.kind == "human" for s in room.seats)
    return {
        **static,
        "status": room.status,
        "hands_played": room.match.hands_played,
        "seated": humans,
        # a matched room's seats are kept for its players: none is open to the lobby
        "open_seats": max(0, room.table.players - humans)
        if room.status == "waiting" and room.kind == "friendly"
        else 0,
        "seats": [
            {"seat": i, "kind": s.kind, "name": s.name, "guest": s.guest}
            for i, s in enumerate(room.seats)
        ],
        "spectators": len(room.spectators),
    }


def api_routes(get_hub: Callable[[], Hub]) -> list[Route]:
    """The routes of docs/api.md, for :func:`laizi.server.app.create_app`."""

    def accounts() -> Accounts:
        found = get_hub().accounts
        assert found is not None
        return found

    async def password_work(fn: Callable[..., Any], *args: Any) -> Any:
        """Argon2id takes tens of milliseconds of CPU and 64 MiB on purpose: in the bounded
        pool, off the event loop, so a burst of logins slows logins and never the tables."""
        pool = get_hub().passwords
        if pool is None:  # pragma: no cover - the app always makes one at startup
            return fn(*args)
        try:
            return await pool.run(fn, *args)
        except LimitError as error:
            raise AccountError(error.code, error.message, error.status, retry_after=1) from None

    def set_session(response: Response, request: Request, token: str) -> None:
        response.set_cookie(
            COOKIE,
            token,
            max_age=SESSION_SECONDS,
            path="/",
            httponly=True,
            samesite="lax",
            secure=request.url.scheme in ("https", "wss"),
        )

    async def register(request: Request) -> Response:
        try:
            body = await _json_body(request)
            account = await password_work(
                accounts().register, body.get("name"), body.get("password"), _address(request)
            )
            token = accounts().open_session(account.id)
        except AccountError as error:
            return _error(
                error.code, error.message, error.status, retry_after=error.retry_after, zh=error.zh
            )
        response = JSONResponse(_profile(accounts(), account), 201)
        set_session(response, request, token)
        return response

    async def login(request: Request) -> Response:
        try:
            body = await _json_body(request)
            account, token = await password_work(
                accounts().login, body.get("name"), body.get("password"), _address(request)
            )
        except AccountError as error:
            return _error(
                error.code, error.message, error.status, retry_after=error.retry_after, zh=error.zh
            )
        response = JSONResponse(_profile(accounts(), account))
        set_session(response, request, token)
        return response

    async def logout(request: Request) -> Response:
        try:
            await _json_body(request)
        except AccountError as error:
            return _error(error.code, error.message, error.status)
        accounts().logout(request.cookies.get(COOKIE))
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    async def me(request: Request) -> Response:
        account = current_account(accounts(), request)
        if account is None:
            return _error("not_logged_in", "not logged in (playing as a guest)", 401)
        return JSONResponse(_profile(accounts(), account))

    async def my_matches(request: Request) -> Response:
        account = current_account(accounts(), request)
        if account is None:
            return _error("not_logged_in", "not logged in (playing as a guest)", 401)
        try:
            limit = _int_param(request, "limit", 20, 1, 100)
            raw_before = request.query_params.get("before")
            before = None if raw_before is None else float(raw_before)
            if before is not None and not math.isfinite(before):
                raise ValueError
        except AccountError as error:
            return _error(error.code, error.message, error.status)
        except ValueError:
            return _error("bad_request", "before must be a time (seconds since 1970)", 400)
        matches = match_history(accounts().engine, account.id, limit, before)
        return JSONResponse({"matches": matches})

    async def player(request: Request) -> Response:
        account = accounts().by_name(request.path_params["name"])
        if account is None:
            return _error("no_player", "no player has that name", 404)
        return JSONResponse(_profile(accounts(), account))

    async def my_stats(request: Request) -> Response:
        account = current_account(accounts(), request)
        if account is None:
            return _error("not_logged_in", "not logged in (playing as a guest)", 401)
        body = await run_in_threadpool(player_stats, accounts().engine, account.id)
        return JSONResponse({"name": account.name, **body})

    async def player_stats_route(request: Request) -> Response:
        account = accounts().by_name(request.path_params["name"])
        if account is None:
            return _error("no_player", "no player has that name", 404)
        body = await run_in_threadpool(player_stats, accounts().engine, account.id)
        return JSONResponse({"name": account.name, **body})

    async def board(request: Request) -> Response:
        game = request.path_params["game"]
        if game not in GAMES:
            return _error("bad_game", f"game must be one of {', '.join(GAMES)}", 404)
        try:
            limit = _int_param(request, "limit", 50, 1, 500)
            offset = _int_param(request, "offset", 0, 0, 10_000_000)
        except AccountError as error:
            return _error(error.code, error.message, error.status)
        rows = leaderboard(accounts().engine, game, limit, offset)
        return JSONResponse({"game": game, "players": rows})

    async def lobby(request: Request) -> Response:
        """A page of the lobby's snapshot (rebuilt at most every ``lobby_cache_ms``)."""
        hub = get_hub()
        if hub.lobby is None:
            hub.lobby = LobbyCache(
                lambda: hub.rooms.values(), _lobby_entry, hub.limits.lobby_cache_ms
            )
        try:
            limit = _int_param(request, "limit", hub.limits.lobby_page, 1, 200)
            offset = _int_param(request, "offset", 0, 0, 10_000_000)
        except AccountError as error:
            return _error(error.code, error.message, error.status)
        return Response(await hub.lobby.page_json(offset, limit), media_type="application/json")

    async def queue(request: Request) -> Response:
        """How many wait in each matchmaking queue (docs/api.md)."""
        queueing = get_hub().queueing
        nobody: dict[str, Any] = {"queues": [], "waiting": 0, "tiers": []}
        counts = nobody if queueing is None else queueing.counts()
        return JSONResponse(counts)

    return [
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/me/matches", my_matches),
        Route("/api/me/stats", my_stats),
        Route("/api/players/{name}", player),
        Route("/api/players/{name}/stats", player_stats_route),
        Route("/api/leaderboard/{game}", board),
        Route("/api/lobby", lobby),
        Route("/api/queue", queue),
    ]
