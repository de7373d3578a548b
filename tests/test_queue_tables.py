"""Which tables keep a person out of the matchmaking queue, and how long a matched room waits
(issue 26; docs/server.md "Matchmaking", docs/protocol.md "Matchmaking").

* A seat that is away (its connection closed mid-match) does not keep its person out of the
  queue: they queue from another connection, the seat's escape grace runs on.
* A table whose match is over — here ended by another seat's escape — does not keep out the very
  connection still sitting there: it queues (and is let go of that room, ``left``).
* An abandoned seat (逃跑, ``leaving``) holds no table; a live one does (``seated``).
* A matched room nobody joins closes after ``--matched-room-seconds`` while a room made by link
  waits its ``--waiting-room-seconds``.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from laizi.server.queueing import holds_seat
from laizi.server.room import Conn
from tests.queue_helpers import PRESET, PROXY, account, offered, run, sent_to_room, waiting
from tests.server_helpers import Client, ServerProcess, Servers, connect, login_cookie


async def room_status(client: Any, status: str) -> None:
    """Read the client's messages until its room's info says ``status``."""
    while True:
        message = await client.expect("room", 30)
        if message["room"]["status"] == status:
            return


async def playing(srv: ServerProcess, first: str, second: str) -> tuple[str, Client, Client]:
    """Two accounts (their cookies) at a new room of two, its match started: the room's code and
    their connections."""
    room = srv.create_room(players=2)["code"]
    a, b = await connect(srv, first), await connect(srv, second)
    await a.join(room)
    await b.join(room)
    await room_status(a, "playing")
    await room_status(b, "playing")
    return str(room), a, b


def test_an_away_seat_does_not_keep_its_person_out_of_the_queue(serve: Servers) -> None:
    srv = serve("--ws-join-seconds", "30")

    async def main() -> None:
        ann = login_cookie(srv, "AwayAnn")
        _, first, other = await playing(srv, ann, login_cookie(srv, "AwayBo"))
        await first.close()  # Ann's seat is away now: 托管 plays it, the escape grace runs
        away = await other.expect("away", 30)
        assert away["escape_in"] > 0
        again = await connect(srv, ann)
        await again.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        queued = await again.expect("queued", 30)
        assert (queued["kind"], queued["position"]) == ("ranked", 1)
        assert waiting(srv) == 1

    run(main)


def test_a_finished_table_does_not_keep_its_own_connection_out_of_the_queue(
    serve: Servers,
) -> None:
    srv = serve()

    async def main() -> None:
        cookies = login_cookie(srv, "DoneAnn"), login_cookie(srv, "DoneBo")
        room, stays, escapes = await playing(srv, *cookies)
        await stays.send({"type": "auto", "on": True})  # 托管: Ann's turns do not wait for her
        await escapes.send({"type": "leave"})  # Bo escapes: the match ends there
        await room_status(stays, "over")
        # Ann's connection still sits at the finished table: it may queue for the next one
        await stays.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
        assert (await stays.expect("left", 30))["room"] == room
        assert (await stays.expect("queued", 30))["position"] == 1
        assert waiting(srv) == 1
        errors = [m for m in stays.messages if m["type"] == "error"]
        assert errors == []

    run(main)


def test_an_abandoned_seat_holds_no_table_and_a_live_one_does() -> None:
    conn = Conn(lambda message: None)
    assert not holds_seat(conn)  # in no room
    leaving = [SimpleNamespace(leaving=False) for _ in range(4)]
    room: Any = SimpleNamespace(status="playing", seats=leaving)
    conn.room, conn.seat = room, 2
    assert holds_seat(conn)
    for status in ("waiting", "playing"):
        room.status = status
        assert holds_seat(conn), status
    leaving[2].leaving = True  # the seat escaped (逃跑): it abandons at the first chance
    assert not holds_seat(conn)
    leaving[2].leaving = False
    for status in ("over", "expired"):
        room.status = status
        assert not holds_seat(conn), status
    room.status = "playing"
    conn.seat, conn.spectator = None, True  # a spectator holds no seat
    assert not holds_seat(conn)


def test_a_matched_room_nobody_joins_closes_sooner_than_a_link_room(serve: Servers) -> None:
    srv = serve(*PROXY, "--matched-room-seconds", "2", "--waiting-room-seconds", "600")

    async def main() -> None:
        clients = [await account(srv, f"Expiry{i}", 40 + i) for i in range(4)]
        link_room = srv.create_room(players=2)["code"]
        for c in clients:
            await c.send({"type": "queue", "preset": PRESET, "kind": "ranked"})
            await c.expect("queued", 30)
        match = (await offered(clients[0]))["match"]
        for c in clients:
            await c.send({"type": "accept", "match": match})
        sent = [await sent_to_room(c) for c in clients]
        code = sent[0]["room"]
        made = time.monotonic()
        assert srv.get(f"/api/rooms/{code}")[0] == 200
        while srv.get(f"/api/rooms/{code}")[0] == 200:
            assert time.monotonic() - made < 30, "the matched room never closed"
            await asyncio.sleep(0.1)
        assert time.monotonic() - made >= 1.5  # not before its time (less the messages' trip)
        assert srv.get(f"/api/rooms/{link_room}")[0] == 200  # the link room waits on

    run(main)
