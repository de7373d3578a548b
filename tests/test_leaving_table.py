"""Leaving a table, against a real ``laizi serve``: a seat nobody attends never holds the
settlement (issue 24, item 9).

The attack replayed: a person who left during the settlement (or whose seat the server plays) held
the next deal for all of ``settlement_seconds`` although everyone else pressed 继续.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server_helpers import Client, ServerProcess, play

RULES = "wuhan-hongzhong-kaikou"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("leaving") / "db.sqlite3"
    fast = ("--message-rate", "100000", "--message-burst", "100000")
    with ServerProcess(path, args=fast) as srv:
        yield srv


def run(coro: Any, timeout: float) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


# -- 9. a seat nobody attends never holds the settlement ------------------------------------
def is_end(client: Client, message: dict[str, Any]) -> bool:
    return message["type"] == "event" and message["event"]["type"] == "end"


@pytest.mark.parametrize("how", ["leave", "close", "auto"])
def test_the_settlement_waits_for_no_seat_that_left_or_is_away(
    server: ServerProcess, how: str
) -> None:
    table = {
        "players": 3,
        "hands": 2,
        "settlement_seconds": 600,
        "bot_delay_ms": 0,
        "between_hands_ms": 0,
        "claim_window_ms": 0,
        "escape_grace_seconds": 600,
    }
    code = server.create_room(RULES, **table)["code"]

    async def main() -> float:
        gone, *stay = [await Client.connect(server.ws) for _ in range(3)]
        for seat, client in enumerate([gone, *stay]):
            await client.join(code, seat=seat)
        if how == "auto":  # the server plays the seat from now on (托管, shown to everyone)
            await gone.send({"type": "auto", "on": True})
        players = [play(c, random.Random(i), stop=is_end) for i, c in enumerate(stay)]
        if how != "auto":
            players.append(play(gone, random.Random(9), stop=is_end))
        await asyncio.gather(*players)
        first = [await c.expect("pause") for c in stay]
        expected = [1, 2] if how == "auto" else [0, 1, 2]
        assert all(p["waiting"] == expected and p["total"] == 600 for p in first)
        if how == "leave":
            await gone.send({"type": "leave"})
            await gone.expect("left")
        elif how == "close":
            await gone.close()
        for client in stay:
            await client.send({"type": "continue"})
        pressed = time.monotonic()
        for client in stay:  # within 30 s, or recv times out (the old code waited 600 s)
            while True:
                message = await client.recv(max(0.01, pressed + 30 - time.monotonic()))
                if message["type"] == "event" and message["event"]["type"] == "start":
                    assert message["event"]["hand"] == 1
                    break
        waited = time.monotonic() - pressed
        for client in [gone, *stay]:
            await client.close()
        return waited

    # The next deal follows the last press at once (600 s if the table waited for seat 0).
    assert run(main(), 120) < 10.0
