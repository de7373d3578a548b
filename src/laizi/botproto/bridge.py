"""A ``cmd:`` bot at a live table: relay between a bot process (stdin/stdout) and a server's
``/ws/bot`` WebSocket (``laizi bot-connect``).  The bot speaks the same protocol either way; the
server judges its answers (time, legality, 托管), the bridge only carries lines."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from laizi.botproto.process import EOF, TIMEOUT, TOO_LONG, BotProcess
from laizi.botproto.protocol import VERSION, read_hello

__all__ = ["BridgeError", "connect"]


class BridgeError(RuntimeError):
    """The server or the bot refused to start (the message says which and why)."""


async def connect(
    url: str,
    command: str,
    *,
    room: str | None = None,
    token: str,
    seat: int | None = None,
    hello_seconds: float = 10.0,
    on_message: Any = None,
    ladder: str | None = None,
) -> dict[str, Any]:
    """Seat the bot at ``room`` — or, with ``ladder`` (a preset), ask the server's bot ladder
    for a table of it and wait (docs/bot-protocol.md, "The bot ladder") — then relay until the
    match ends or either side goes; a summary."""
    if (room is None) == (ladder is None):
        raise BridgeError("give a room or a ladder preset (one of them)")
    import websockets

    headers = {"Authorization": f"Bearer {token}"}
    async with websockets.connect(url, additional_headers=headers, max_size=2**20) as ws:
        greeting = json.loads(await ws.recv())
        process = BotProcess(command)
        try:
            process.send(greeting)
            deadline = time.monotonic() + hello_seconds
            line = await asyncio.to_thread(process.next_line, deadline)
            if not isinstance(line, bytes):
                raise BridgeError(f"the bot did not say hello ({line!r})")
            name, problem = read_hello(line)
            if problem is not None:
                raise BridgeError(f"the bot's hello: {problem}")
            hello: dict[str, Any] = {"type": "hello", "version": VERSION, "name": name}
            if room is not None:
                hello |= {"room": room, "seat": seat}
            await ws.send(json.dumps(hello))
            if ladder is not None:
                await ws.send(json.dumps({"type": "ladder", "preset": ladder}))
            return await _relay(ws, process, on_message)
        finally:
            process.close()


async def _relay(ws: Any, process: BotProcess, on_message: Any) -> dict[str, Any]:
    summary: dict[str, Any] = {"messages": 0, "answers": 0, "notices": 0, "seat": None}

    async def down() -> None:
        async for text in ws:
            message = json.loads(text)
            summary["messages"] += 1
            kind = message.get("type")
            if kind == "joined":
                summary["seat"] = message.get("seat")
            elif kind == "notice":
                summary["notices"] += 1
            elif kind == "error" and summary["seat"] is None:
                raise BridgeError(f"{message.get('code')}: {message.get('message')}")
            elif kind == "match_end":
                summary["totals"] = message.get("totals")
            if on_message is not None:
                on_message(message)
            if kind == "ladder_wait":  # the bridge's business, not the bot's: it waits on
                summary["ladder"] = message.get("preset")
                continue
            process.send(message)
            if kind == "bye":
                return

    async def up() -> None:
        while True:
            line = await asyncio.to_thread(process.next_line, time.monotonic() + 0.5)
            if line is TIMEOUT or line is TOO_LONG:
                continue  # too long: the server's clock plays 托管 for that decision
            if line is EOF:
                return
            assert isinstance(line, bytes)
            summary["answers"] += 1
            await ws.send(line.decode("utf-8", "replace"))

    tasks = [asyncio.create_task(down()), asyncio.create_task(up())]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in done:
        task.result()  # a BridgeError from the server's refusal goes up
    return summary
