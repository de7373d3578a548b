"""What the queue's tests over a real ``laizi serve`` share: accounts on their own addresses,
the offers and the rooms they are sent, the queue's counts."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from tests.server_helpers import Client, Server, connect, login_cookie

PRESET = "wuhan-hongzhong-kaikou"
PROXY = ("--proxy-headers", "127.0.0.1")
"""Each test client claims its own address (the shared-address rule would keep apart four
clients of 127.0.0.1 at a ranked table)."""
HAN = re.compile(r"[\u3400-\u9fff]")


def queue_counts(srv: Server) -> dict[str, Any]:
    status, body = srv.get("/api/queue")
    assert status == 200
    return dict(json.loads(body))


def waiting(srv: Server) -> int:
    return int(queue_counts(srv)["waiting"])


def run(main: Callable[[], Awaitable[None]], timeout: float = 90) -> None:
    asyncio.run(asyncio.wait_for(main(), timeout))


async def account(srv: Server, name: str, n: int) -> Client:
    """A logged-in connection of a new account, from its own address 10.0.0.n."""
    address = f"10.0.0.{n}"
    return await connect(srv, login_cookie(srv, name, address), address)


async def coded(client: Client, message: dict[str, Any], code: str) -> dict[str, Any]:
    """Send ``message``; the error it gets has ``code`` and both texts."""
    await client.send(message)
    error = await client.expect("error", 30)
    assert error["code"] == code, error
    assert error["message"] and HAN.search(error["message_zh"]), error
    return error


async def offered(client: Client) -> dict[str, Any]:
    """The next offer of a match (``matched`` with no room yet)."""
    while True:
        message = await client.expect("matched", 30)
        if message["room"] is None:
            return message


async def sent_to_room(client: Client) -> dict[str, Any]:
    while True:
        message = await client.expect("matched", 30)
        if message["room"] is not None:
            return message
