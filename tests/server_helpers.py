"""A real server process and real WebSocket clients for the server tests and the benchmark."""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets
from argon2 import PasswordHasher

from laizi.engine import HandState, Ruleset, parse_record
from laizi.server.hub import Hub
from laizi.server.protocol import encode
from laizi.server.room import Conn, Room
from laizi.server.store import Store

FAST_HASH = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
"""A password hasher cheap enough for tests."""
SRC = str(Path(__file__).resolve().parent.parent / "src")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Addressed:
    """A server on 127.0.0.1 at ``port``: its URLs and the requests the tests make."""

    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def post(self, path: str, body: Any, cookie: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if cookie is not None:
            headers["Cookie"] = cookie
        request = urllib.request.Request(
            self.http + path, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.http + path, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def create_room(
        self, rules: Any = "wuhan-hongzhong-kaikou", cookie: str | None = None, **table: Any
    ) -> dict[str, Any]:
        status, body = self.post("/api/rooms", {"rules": rules, "table": table}, cookie)
        assert status == 201, body
        return body

    def account_cookie(self, name: str, password: str = "correct horse") -> str:
        """Register an account; its session cookie (``laizi_session=…``) for ``cookie=``."""
        request = urllib.request.Request(
            self.http + "/api/register",
            data=json.dumps({"name": name, "password": password}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as r:
            return str(r.headers["Set-Cookie"]).split(";")[0]


class ServerProcess(Addressed):
    """``laizi serve`` in a subprocess on 127.0.0.1 and a free port, with its own database."""

    def __init__(
        self,
        db_path: Path,
        port: int | None = None,
        db_url: str | None = None,
        args: tuple[str, ...] = (),
        files: tuple[int, int] | None = None,
        prelude: str = "",
    ) -> None:
        self.db_url = db_url or f"sqlite:///{db_path}"
        self.args = args
        """More ``laizi serve`` flags (the limits of docs/server.md)."""
        self.files = files
        """The server's open-file limit (soft, hard) as it starts; None: the test's own."""
        self.prelude = prelude
        """Python run in the server process before it starts (a test's setting of a bot)."""
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db_path.with_suffix(".log")

    def start(self) -> ServerProcess:
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        code = f"{self.prelude}\nfrom laizi.cli import main; main()"
        args = ["serve", "--port", str(self.port), "--db", self.db_url, "--log-level", "warning"]
        args += self.args
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, *args],
                env=env,
                stdout=log,
                stderr=log,
                preexec_fn=None if self.files is None else self._limit_files,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.http + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def _limit_files(self) -> None:
        assert self.files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, self.files)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Servers:
    """``servers(*flags)``: servers started by one test, each with its own database in
    ``tmp_path``; :meth:`stop` stops them all (a test's ``serve`` fixture)."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.started: list[ServerProcess] = []

    def __call__(
        self, *args: str, db_url: str | None = None, files: tuple[int, int] | None = None
    ) -> ServerProcess:
        path = self.tmp_path / f"db{len(self.started)}.sqlite3"
        srv = ServerProcess(path, db_url=db_url, args=args, files=files).start()
        self.started.append(srv)
        return srv

    def stop(self) -> None:
        for srv in self.started:
            srv.stop()


class Client:
    """A WebSocket client that keeps every message it received, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task = asyncio.create_task(self._read())
        self.seat: int | None = None
        self.token: str | None = None
        self.last_seq = 0

    @classmethod
    async def connect(cls, url: str) -> Client:
        return cls(await websockets.connect(url, max_size=2**22))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                for message in frame if isinstance(frame, list) else [frame]:
                    await self._keep(message)
        except websockets.ConnectionClosed:
            pass

    async def _keep(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if message["type"] in ("event", "snapshot"):
            self.last_seq = message["seq"]
        elif message["type"] == "joined":
            self.seat, self.token = message["seat"], message["token"]
        await self.queue.put(message)

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def expect(self, kind: str, timeout: float = 10) -> dict[str, Any]:
        """The next message of type ``kind`` (others are skipped, still kept in messages)."""
        deadline = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind:
                return message

    async def join(self, room: str, **fields: Any) -> dict[str, Any]:
        await self.send({"type": "join", "room": room, **fields})
        return await self.expect("joined")

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def play(client: Client, rng: random.Random, stop: Any = None, late: bool = False) -> None:
    """Answer every prompt with a random legal action until the match ends (or ``stop``).

    ``late``: the table's clock is so short that on a loaded machine an answer may arrive after
    its deadline; the server then played the default, and the error saying so is expected.
    """
    while True:
        message = await client.recv(30)
        if message["type"] == "prompt":
            action = rng.choice(message["legal"])
            await client.send({"type": "act", "prompt": message["id"], "action": action})
        elif message["type"] == "pause" and client.seat in message["waiting"]:
            await client.send({"type": "continue"})  # the settlement was seen
        elif message["type"] == "event" and message["event"]["type"] == "match_end":
            return
        elif message["type"] == "error" and not (
            late and message.get("code") in ("stale_prompt", "not_your_turn")
        ):
            raise AssertionError(message)
        if stop is not None and stop(client, message):
            return


# -- accounts over HTTP and WebSocket against a real server ---------------------------------------
def _forwarded(address: str | None) -> dict[str, str]:
    """The header a server run with ``--proxy-headers 127.0.0.1`` takes as the client's address."""
    return {} if address is None else {"X-Forwarded-For": address}


def http(
    srv: Server,
    method: str,
    path: str,
    body: Any = None,
    cookie: str = "",
    address: str | None = None,
) -> Any:
    request = urllib.request.Request(
        srv.http + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Cookie": cookie, **_forwarded(address)},
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def login_cookie(srv: Server, name: str, address: str | None = None) -> str:
    """Register ``name``; its session cookie.  ``address``: the client's address as a server
    trusting 127.0.0.1's proxy headers sees it."""
    body = {"name": name, "password": "hongzhong"}
    status, headers, _ = http(srv, "POST", "/api/register", body, address=address)
    assert status == 201
    return str(headers["Set-Cookie"]).split(";")[0]


async def connect(srv: Server, cookie: str = "", address: str | None = None) -> Client:
    headers = {"Cookie": cookie} if cookie else {}
    headers.update(_forwarded(address))
    return Client(await websockets.connect(srv.ws, max_size=2**22, additional_headers=headers))


def records(server: Addressed, code: str) -> list[list[dict[str, Any]]]:
    """Every finished hand's record of a room, from hand 0 on (``/api/rooms/CODE/hands/N``),
    up to the first the server does not have (404).  A ``429`` (a module's tests read many
    records from one address: the GET limit, docs/server.md) or ``503 busy`` waits its
    ``Retry-After`` and asks again; any other answer fails the test rather than cut the list
    short."""
    out = []
    refused = 0
    while True:
        status, body = server.get(f"/api/rooms/{code}/hands/{len(out)}")
        if status == 404:
            return out
        if status in (429, 503) and refused < 20:
            refused += 1
            time.sleep(1.0)
            continue
        assert status == 200, (status, body[:300])
        out.append(parse_record(body.decode()))


class InProcessServer(Addressed):
    """The server's application under uvicorn in a thread of this process, on 127.0.0.1 and a
    free port: real HTTP and WebSocket clients, and the test may call the hub directly on the
    server's own event loop (:meth:`call`) — what a part of the server without a route yet (the
    matchmaker's ``Hub.open_matched_room``) does."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self.port = free_port()
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.app: Any = None

    def start(self) -> InProcessServer:
        import uvicorn

        from laizi.server.app import create_app

        self.app = create_app(self.db_url)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)

        def run() -> None:
            self.loop = asyncio.new_event_loop()
            self.loop.run_until_complete(self.server.serve())
            self.loop.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the in-process server did not start")
            time.sleep(0.02)
        return self

    @property
    def hub(self) -> Any:
        return self.app.state.hub

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` run on the server's event loop; its result."""
        assert self.loop is not None

        async def run() -> Any:
            return fn(*args, **kwargs)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(30)

    def stop(self) -> None:
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(30)

    def __enter__(self) -> InProcessServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def store_hands(store: Any, room: int, ends: list[list[dict[str, Any]]]) -> None:
    """Finished hands (each a list of events after the deal) and the room over, written to a
    :class:`laizi.server.store.Store`'s database as a played match leaves them."""
    from sqlalchemy import insert, update

    from laizi.server.store import events, hands, rooms

    with store.engine.begin() as c:
        for number, hand in enumerate(ends):
            hand_id = c.execute(
                insert(hands).values(
                    room_id=room, number=number, dealer=0, seed="00", finished=True
                )
            ).inserted_primary_key[0]
            # the fields of an ``end`` event these tests don't set (booking reads it typed)
            full = {"reason": "win", "winner": None, "hands": ["0"] * 4, "seed": None}
            bodies = [{"type": "deal"}, *({**full, **e} if e["type"] == "end" else e for e in hand)]
            c.execute(
                insert(events),
                [
                    {"hand_id": hand_id, "idx": i, "body": json.dumps(body)}
                    for i, body in enumerate(bodies)
                ],
            )
        c.execute(update(rooms).where(rooms.c.id == room).values(status="over"))


def alembic_config(connection: Any) -> Any:
    """Alembic's configuration for the server's migrations on ``connection`` (to move the
    schema up or down in a test)."""
    from alembic.config import Config

    from laizi.server import store

    config = Config()
    config.set_main_option("script_location", str(Path(store.__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    return config


Server = ServerProcess | InProcessServer
"""A server the helpers talk to: a process of its own, or the application in this one."""


def open_ranked_table(
    srv: InProcessServer, rules: Any, names: list[str], **table: Any
) -> tuple[str, list[str]]:
    """Register four accounts and open a ranked table for them, in this order, as the
    matchmaker does (``Hub.open_matched_room``); the room's code and the accounts' cookies."""
    from laizi.server.matched import SeatClaim
    from laizi.server.table import TableSettings

    cookies = [login_cookie(srv, name) for name in names]
    claims = [SeatClaim.for_account(srv.hub.accounts.by_name(name).id) for name in names]
    settings = TableSettings.from_json(table)
    code = srv.call(srv.hub.open_matched_room, rules, claims, "ranked", settings)
    return str(code), cookies


def room_info(srv: Server, code: str) -> dict[str, Any]:
    """``GET /api/rooms/CODE``: the room's public info."""
    status, body = srv.get(f"/api/rooms/{code}")
    assert status == 200, body
    return dict(json.loads(body))


def wait_over(srv: Server, code: str, timeout: float = 120) -> dict[str, Any]:
    """The room's info once its match is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = room_info(srv, code)
        if info["status"] == "over":
            return info
        time.sleep(0.05)
    raise AssertionError(f"room {code} did not finish")


def standing(srv: Server, cookie: str, game: str = "wuhan") -> dict[str, Any]:
    """The logged-in account's standing in ``game`` (``GET /api/me``)."""
    status, _, body = http(srv, "GET", "/api/me", cookie=cookie)
    assert status == 200
    return dict(json.loads(body)["games"][game])


# -- a table in this process ---------------------------------------------------------------------
@dataclass
class LocalTable:
    """A room of a :class:`Hub` in this process (no server process, no sockets) with a person at
    each seat: ``conns[s]`` is seat s's connection, ``inboxes[s]`` the messages it was sent, each
    encoded as on the wire, to wait on, and ``sent[s]`` the same messages, kept."""

    hub: Hub
    room: Room
    conns: list[Conn]
    inboxes: list[asyncio.Queue[str]]
    sent: list[list[str]]

    def act(self, seat: int, prompt: int, action: dict[str, Any]) -> None:
        """Seat ``seat`` answers its prompt ``prompt`` with ``action``."""
        reply = {"type": "act", "prompt": prompt, "action": action}
        self.hub.handle(self.conns[seat], json.dumps(reply))


def local_table(
    db: Path,
    rules: str,
    table: dict[str, Any],
    deal: Callable[[Ruleset, int], tuple[HandState, list[dict[str, Any]]]],
) -> LocalTable:
    """A :class:`LocalTable` of ``table["players"]`` people (bots at the other seats) on an
    SQLite store at ``db``, every hand dealt by ``deal(ruleset, dealer)`` (e.g.
    ``tests.engine_helpers.deal_json`` with a scripted wall or a recorded seed), all seated."""
    hub = Hub(Store(f"sqlite:///{db}"))
    room = hub.create_room({"rules": rules, "table": table})

    def dealt(_seed: bytes, contributions: Any = None) -> Any:
        state, events = deal(room.ruleset, room.match.dealer)
        room.match.current = state
        return state, events

    room.match.deal = dealt  # type: ignore[method-assign]
    people = range(table["players"])
    inboxes: list[asyncio.Queue[str]] = [asyncio.Queue() for _ in people]
    sent: list[list[str]] = [[] for _ in people]

    def sender(seat: int) -> Callable[[dict[str, Any]], None]:
        def send(message: dict[str, Any]) -> None:
            text = encode(message)
            sent[seat].append(text)
            inboxes[seat].put_nowait(text)

        return send

    conns = [Conn(sender(seat)) for seat in people]
    for seat, conn in enumerate(conns):
        hub.handle(conn, json.dumps({"type": "join", "room": room.code, "seat": seat}))
    return LocalTable(hub, room, conns, inboxes, sent)
