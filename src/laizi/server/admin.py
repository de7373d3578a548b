"""The administrators' routes: ``GET /api/admin/fairplay``, the collusion watch's report
(:mod:`laizi.server.fairplay`, docs/fairplay.md) as ``laizi fairplay --json`` gives it.

Administrators are account names given to ``laizi serve --admin NAME[,NAME]`` (none by default:
then the route answers 403 to every account).  A request without a live session is 401, an
account that is not an administrator 403 — the same answer whether or not the report would have
anything in it.  The report replays every stored hand, so it runs in a worker thread, one at a
time (a second request waits for the first), never on the event loop; the GET rate limit per
address (``--get-rate``) applies to it like any other GET.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from laizi.server.api import current_account
from laizi.server.fairplay import DEFAULT_MIN_MATCHES, DEFAULT_THRESHOLD, analyze

if TYPE_CHECKING:
    from laizi.server.hub import Hub

__all__ = ["admin_names", "admin_routes"]


def admin_names(text: str | None) -> frozenset[str]:
    """The names of ``--admin NAME[,NAME]`` (blank items dropped).

    >>> sorted(admin_names(" Ann, 雀神 ,,"))
    ['Ann', '雀神']
    >>> admin_names(None)
    frozenset()
    """
    if not text:
        return frozenset()
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def _error(code: str, en: str, zh: str, status: int) -> JSONResponse:
    return JSONResponse({"error": en, "error_zh": zh, "code": code}, status)


def admin_routes(get_hub: Callable[[], Hub], admins: Iterable[str]) -> list[Route]:
    """The admin routes for :func:`laizi.server.app.create_app`."""
    names = frozenset(admins)
    lock = asyncio.Lock()

    def is_admin(account_id: int) -> bool:
        accounts = get_hub().accounts
        assert accounts is not None
        for name in names:  # by name as the server keys it (any case, NFKC)
            found = accounts.by_name(name)
            if found is not None and found.id == account_id:
                return True
        return False

    async def fairplay(request: Request) -> Response:
        hub = get_hub()
        accounts = hub.accounts
        account = None if accounts is None else current_account(accounts, request)
        if account is None:
            return _error("not_logged_in", "log in as an administrator", "请以管理员身份登录", 401)
        if not names or not await asyncio.to_thread(is_admin, account.id):
            return _error("not_admin", "administrators only", "只有管理员可以查看", 403)
        try:
            min_matches = int(request.query_params.get("min_matches", DEFAULT_MIN_MATCHES))
            threshold = float(request.query_params.get("threshold", DEFAULT_THRESHOLD))
            if not 1 <= min_matches <= 1_000_000 or not 0 <= threshold <= 1000:
                raise ValueError
        except ValueError:
            return _error(
                "bad_request",
                "min_matches must be 1–1000000 and threshold 0–1000",
                "min_matches 须为 1–1000000，threshold 须为 0–1000",
                400,
            )
        all_rooms = request.query_params.get("all_rooms", "") in ("1", "true")
        async with lock:
            report = await asyncio.to_thread(
                analyze, hub.store.engine, min_matches, threshold, all_rooms
            )
        return JSONResponse(report.to_json())

    return [Route("/api/admin/fairplay", fairplay)]
