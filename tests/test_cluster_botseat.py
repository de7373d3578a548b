"""``/ws/bot`` in a cluster (issue 16): an outside bot that reaches a process which does not hold
its room is forwarded to the room's owner (``laizi.server.cluster.botrelay``), plays its match
there, and after the owner hands the room over it comes back with its seat token."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import websockets
from typer.testing import CliRunner

from laizi.cli import app
from tests.cluster_helpers import FAST_TABLE, Cluster, create_room, get, pg_url, redis_server
from tests.server_helpers import http, login_cookie

__all__ = ["pg_url", "redis_server"]  # the fixtures, for pytest

GREETING = {"type": "hello", "protocol": "laizi-bot", "version": 1}


def bot_token(cluster: Cluster, name: str) -> str:
    """A bot token of a new account (registered on one process, valid on every one)."""
    node = cluster.nodes[0]
    cookie = login_cookie(node, name)
    status, _, body = http(node, "POST", "/api/bot-tokens", {"name": "cluster bot"}, cookie)
    assert status == 201, body
    return str(json.loads(body)["token"])


async def bot(
    port: int, hello: dict[str, Any], token: str, on_prompt: Callable[[int], None] | None = None
) -> list[dict[str, Any]]:
    """A bot on ``/ws/bot`` of the process at ``port`` that plays the first legal action; its
    messages until the connection closes (``on_prompt`` is told the count of each prompt)."""
    seen: list[dict[str, Any]] = []
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/bot", additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        assert json.loads(await ws.recv()) == GREETING  # the front's, only once
        await ws.send(json.dumps(hello))
        prompts = 0
        try:
            async for text in ws:
                message = json.loads(text)
                seen.append(message)
                if message["type"] == "prompt":
                    prompts += 1
                    if on_prompt is not None:
                        on_prompt(prompts)
                    action = {k: v for k, v in message["legal"][0].items() if k != "seat"}
                    answer = {"type": "act", "prompt": message["id"], "action": action}
                    await ws.send(json.dumps(answer))
        except websockets.ConnectionClosed:
            pass
        seen.append({"type": "closed", "code": ws.close_code})
    return seen


def verify(port: int, code: str) -> list[Fraction]:
    """The match's record verifies with ``laizi verify``; its totals."""
    status, body = get(port, f"/api/matches/{code}/record")
    assert status == 200, body
    result = CliRunner().invoke(app, ["verify", "-", "--json"], input=body.decode())
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1])["ok"]
    info = json.loads(get(port, f"/api/rooms/{code}")[1])
    return [Fraction(str(t)) for t in info["totals"]]


def test_a_bot_joins_a_room_held_by_another_process(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    with Cluster(tmp_path, pg_url, redis_server, 2) as cluster:
        token = bot_token(cluster, "clusterbot")
        code = create_room(cluster.nodes[0].port, **FAST_TABLE, players=1, hands=2)["code"]
        owner = cluster.owner_port(code)
        [front] = [n for n in cluster.nodes if n.port != owner]
        hello = {"type": "hello", "version": 1, "room": code, "seat": 2}
        seen = asyncio.run(asyncio.wait_for(bot(front.port, hello, token), 120))
        kinds = [m["type"] for m in seen]
        assert kinds[0] == "joined" and seen[0]["seat"] == 2 and seen[0]["room"] == code
        assert kinds.count("hand") == 2 and kinds[-3:] == ["match_end", "bye", "closed"]
        assert GREETING not in seen  # the owner's own greeting was not passed on
        assert all(m["view"]["seat"] == 2 for m in seen if m["type"] == "prompt")
        assert not [m for m in seen if m["type"] in ("notice", "error")]
        for message in seen:  # its seat's events only, as the owner shows them
            if message["type"] == "draw":
                assert ("tile" in message) == (message["seat"] == 2)
        info = json.loads(get(front.port, f"/api/rooms/{code}")[1])
        assert info["status"] == "over" and info["seats"][2]["name"] == "clusterbot [bot]"
        assert sum(verify(front.port, code)) == 0
        assert cluster.health(front)["cluster"]["relays"] == 0  # the relay ended with the bot
        # an unknown room: the front answers itself
        missing = {"type": "hello", "version": 1, "room": "ZZZZZZ"}
        refused = asyncio.run(asyncio.wait_for(bot(front.port, missing, token), 30))
        assert refused[0]["type"] == "error" and refused[0]["code"] == "no_room", refused


def test_a_forwarded_bot_follows_its_room_to_the_next_owner(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """The owner stops (SIGTERM: it hands its rooms over); the front closes the bot's
    connection with 1012; the bot comes back with its seat token and plays the match out."""
    with Cluster(tmp_path, pg_url, redis_server, 2, ("--lease-ms", "60000")) as cluster:
        token = bot_token(cluster, "movingbot")
        # Three hands: the owner plays on for up to 0.1 s after SIGTERM (uvicorn notices it
        # then), and a fast table could finish one hand in that time, but not the match.
        code = create_room(cluster.nodes[0].port, **FAST_TABLE, players=1, hands=3)["code"]
        owner = cluster.owner_port(code)
        [gone] = [n for n in cluster.nodes if n.port == owner]
        [front] = [n for n in cluster.nodes if n.port != owner]
        hello = {"type": "hello", "version": 1, "room": code, "seat": 0}

        stopped: list[float] = []

        def stop_the_owner(prompts: int) -> None:
            if prompts == 3:  # mid-hand, the bot's connection relayed by the front
                assert gone.proc is not None
                stopped.append(time.monotonic())
                gone.proc.send_signal(signal.SIGTERM)
                cluster.dead.add(cluster.nodes.index(gone))

        async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
            first = await bot(front.port, hello, token, stop_the_owner)
            seat_token = first[0]["token"]
            again = {**hello, "seat_token": seat_token}
            second = await bot(front.port, again, token)
            return first, second, stopped[0]

        async def bounded() -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
            return await asyncio.wait_for(run(), 120)

        first, second, stopped = asyncio.run(bounded())
        assert first[0]["type"] == "joined" and first[0]["seat"] == 0
        assert first[-1] == {"type": "closed", "code": 1012}  # the front: "reconnect"
        assert "match_end" not in [m["type"] for m in first]
        assert second[0]["type"] == "joined" and second[0]["seat"] == 0, second[:3]
        assert second[0]["token"] == first[0]["token"]
        assert [m["type"] for m in second][-3:] == ["match_end", "bye", "closed"]
        assert time.monotonic() - stopped < 60  # not the lease: handed over
        assert cluster.owner_port(code) in (front.port, None)
        assert sum(verify(front.port, code)) == 0


def test_a_hands_bot_notes_are_answered_by_any_process(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """The bots' notes of a hand (explain_bots) live in the memory of the room's owner: asked of
    another process, the question is forwarded there and gets the same notes."""
    with Cluster(tmp_path, pg_url, redis_server, 2) as cluster:
        cookie = login_cookie(cluster.nodes[0], "notesreader")  # a bots-only room needs one
        table = {**FAST_TABLE, "players": 0, "hands": 1, "bot_level": "expert"}
        body = {"rules": "wuhan-hongzhong-kaikou", "table": {**table, "explain_bots": True}}
        status, _, made = http(cluster.nodes[0], "POST", "/api/rooms", body, cookie)
        assert status == 201, made
        code = json.loads(made)["code"]
        owner = cluster.owner_port(code)
        [other] = [n for n in cluster.nodes if n.port != owner]
        assert owner is not None
        deadline = time.monotonic() + 90
        while True:
            status, info = get(owner, f"/api/rooms/{code}")
            assert status == 200, (status, info)  # failed once in CI on a loaded machine, unseen
            if json.loads(info)["status"] == "over":
                break
            assert time.monotonic() < deadline, "the bots did not finish their hand"
            time.sleep(0.2)
        status, here = get(owner, f"/api/rooms/{code}/hands/0/notes")
        assert status == 200
        notes = json.loads(here)["notes"]
        assert notes and all(n["hand"] == 0 and n["en"] and n["zh"] for n in notes)
        status, there = get(other.port, f"/api/rooms/{code}/hands/0/notes")
        assert status == 200 and json.loads(there)["notes"] == notes
        status, body = get(other.port, "/api/rooms/NOSUCH/hands/0/notes")
        assert status == 200 and json.loads(body) == {"notes": []}


def test_a_room_whose_owner_does_not_answer_is_busy_not_missing(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """Asked of another process while the room's owner does not answer (stopped, its lease not
    yet run out), a question about the room is ``503 busy`` with ``Retry-After`` — not ``404 no
    such room``, which tells a client to give up on a room that exists (what broke the notes test
    once on a loaded machine: the owner too busy to answer the forward in time)."""
    with Cluster(tmp_path, pg_url, redis_server, 2, ("--lease-ms", "30000")) as cluster:
        a, b = cluster.nodes
        code = create_room(a.port, **FAST_TABLE, players=4)["code"]  # waits for its people
        assert cluster.owner_port(code) == a.port
        assert a.proc is not None
        a.proc.send_signal(signal.SIGSTOP)
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{b.port}/api/rooms/{code}")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=60)  # the forward gives up after 10 s
        finally:
            a.proc.send_signal(signal.SIGCONT)
        assert refused.value.code == 503
        assert refused.value.headers["Retry-After"] == "1"
        assert json.loads(refused.value.read())["code"] == "busy"
        status, body = get(b.port, f"/api/rooms/{code}")  # awake again: the owner answers
        assert status == 200 and json.loads(body)["code"] == code
