"""The ASGI layer in front of every route: security headers, and no control characters in paths.

Every HTTP response gets:

* ``Content-Security-Policy`` — :data:`CSP`: scripts, styles, fonts, frames, fetches and the
  WebSocket from this origin only (``connect-src 'self'`` covers ``ws:``/``wss:`` to the same
  host); images also as ``data:`` (the page's icon); no plugins; no ``<base>``; and
  ``frame-ancestors 'none'``: no other page may frame this one;
* ``X-Frame-Options: DENY`` (the same for browsers without CSP level 2);
* ``X-Content-Type-Options: nosniff`` (a record download is never run as a script);
* ``Referrer-Policy: no-referrer`` (room links and codes don't leak to other sites);
* ``Cross-Origin-Opener-Policy: same-origin``.

``laizi serve`` also turns uvicorn's ``server: uvicorn`` banner off.

A request path (after percent-decoding) or query string holding a control character — ``%00``
first of all, which PostgreSQL refuses in any text — or bytes that are not UTF-8 is answered
``400 {"error", "error_zh", "code": "bad_request"}`` here, before any route looks it up.

Path numbers (``{number:int}``, a hand's number) longer than 18 digits become ``-1`` — no hand
has that number, so the route answers its 404 — instead of Python's ``ValueError`` past 4300
digits or the database's overflow past 2^63.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.convertors import IntegerConvertor, register_url_convertor

__all__ = ["CSP", "SECURITY_HEADERS", "BoundedInt", "HttpGuard", "send_json"]

CSP = (
    "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_OURS = {name for name, _ in SECURITY_HEADERS}

Scope = dict[str, Any]
Message = dict[str, Any]


def _bad(raw: bytes) -> bool:
    """Control characters (C0, DEL) or invalid UTF-8 in a percent-decoded path or query."""
    if any(b < 0x20 or b == 0x7F for b in raw):
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class BoundedInt(IntegerConvertor):
    """Starlette's ``int`` path convertor, but a number of more than 18 digits is ``-1``."""

    def convert(self, value: str) -> int:
        return int(value) if len(value) <= 18 else -1


register_url_convertor("int", BoundedInt())


class HttpGuard:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP response; bad paths refused."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
        query = scope.get("query_string") or b""
        if _bad(unquote_to_bytes(raw_path)) or _bad(unquote_to_bytes(query.replace(b"+", b" "))):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await self._refuse(send)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() not in _OURS]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps(
            {
                "error": "the address holds a control character or is not UTF-8",
                "error_zh": "网址含有控制字符或不是 UTF-8",
                "code": "bad_request",
            },
            ensure_ascii=False,
        ).encode("utf-8")
        await send_json(send, 400, body)


async def send_json(
    send: Any, status: int, body: bytes, extra: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """Answer at the ASGI level, before any route: ``status`` with the JSON ``body``, the
    security headers and ``extra`` headers (a refusal the middlewares make themselves)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
