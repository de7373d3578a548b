"""Abuse benchmark of the online table — ``python benchmarks/bench_abuse.py [--json] [--smoke]``.

Starts one ``laizi serve`` process on 127.0.0.1 with its default limits (a fresh SQLite file in
a temporary directory) and seats ``--tables`` tables of four scripted people from 127.0.0.1; they
answer each prompt after 50–150 ms.  "Another table's p99" is the 99th percentile of their action
→ own-event latency (as ``bench_server.py``: the server has checked the action, written it to
the database and broadcast it) while one attack runs, for ``--seconds`` each:

``flood``        50 clients (five addresses), each spectating a bots-only room, send ``resync``
                 as fast as they can (one every millisecond) and try to connect again a second
                 after the server cuts them off
``login_burst``  waves of 40 concurrent failed logins (Argon2id), each from its own address
``lobby_storm``  20 clients read ``/api/lobby`` (first pages and deeper ones) in a loop while the
                 server holds ``--rooms`` waiting rooms, made from many addresses within the
                 per-address cap
``spectators``   500 spectators (50 on each of ten bots-only rooms, from ten addresses) join
                 within the first 40 % of the phase, watch, and leave within its last 40 %
``replay_flood`` 8 clients from one address and 64 clients from 64 addresses fetch, as fast as
                 they are answered, finished hands' replays and records and whole matches'
                 records (of two finished bots-only matches and one still playing), and now and
                 then a hand that does not exist

Each attack runs in its own process (this script again, ``--attacker NAME``), so the attackers'
own work does not slow the measured clients down.  The attackers come from loopback addresses
127.0.x.y, which the server sees as different clients
(the whole 127.0.0.0/8 is this machine), so the per-address limits act as they would against
several machines.  Bots-only rooms need an account: the benchmark registers five.

Keys of the last line with ``--json`` (INTERFACES.md): ``flood_p99_ms``, ``login_burst_p99_ms``,
``lobby_storm_p99_ms``, ``spectators_p99_ms``, ``replay_flood_p99_ms``, ``errors`` (error
messages, disconnects and
timeouts at the measured tables, and attack requests the server failed with a 5xx other than a
deliberate 503); also ``baseline_p99_ms`` (no attack), the samples per phase and what the attacks
got (refused logins, closed flooders, …).

Goal (issue 13): each p99 ≤ 50 ms on a quiet 2-core machine, no errors.  ``--smoke`` is a short
run with small attacks for CI (``tests/test_abuse_bench_smoke.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import websockets

from bench_server import player
from server_process import report, throwaway_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the attacker's tools are the tests'
from tests.limits_helpers import address, fetch, http, messages_of, ws_connect


async def connect(port: int, source: str = "127.0.0.1") -> Any:
    return await ws_connect(f"ws://127.0.0.1:{port}/ws", source)


THINK = (0.05, 0.15)
"""The measured tables' people think 50–150 ms (bench_server.py's: 100–300 ms)."""


class Measure:
    """The measured tables' latencies, by phase, and their errors."""

    def __init__(self) -> None:
        self.phase: str | None = None
        self.latencies: dict[str, list[float]] = {}
        self.errors: Counter[str] = Counter()

    def record(self, ms: float) -> None:
        if self.phase is not None:
            self.latencies.setdefault(self.phase, []).append(ms)

    def latency(self, seconds: float) -> None:
        self.record(seconds * 1000)

    def error(self, kind: str) -> None:
        self.errors[kind] += 1

    def p99(self, phase: str) -> float | None:
        values = sorted(self.latencies.get(phase, []))
        if not values:
            return None
        return round(values[min(len(values) - 1, int(len(values) * 0.99))], 2)


# -- the attacks -----------------------------------------------------------------------------------
class Attack:
    def __init__(self, port: int, stop: asyncio.Event) -> None:
        self.port = port
        self.stop = stop
        self.counts: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()

    def status(self, what: str, status: int, body: Any) -> None:
        code = body.get("code") if isinstance(body, dict) else None
        self.counts[f"{what}:{status}{'' if code is None else ':' + code}"] += 1
        if status >= 500 and not (status == 503 and code is not None):
            self.failures[f"{what}:{status}"] += 1


async def flooder(attack: Attack, n: int, room: str) -> None:
    """Spectate ``room`` and send ``resync`` every millisecond; come back when cut off."""
    while not attack.stop.is_set():
        try:
            ws = await connect(attack.port, address(n % 5))
        except Exception:
            attack.counts["flood:connect_failed"] += 1
            await asyncio.sleep(0.1)
            continue
        attack.counts["flood:connected"] += 1

        reading = asyncio.create_task(drain(ws))
        try:
            await ws.send(json.dumps({"type": "join", "room": room, "spectate": True}))
            while not attack.stop.is_set():
                await ws.send('{"type":"resync"}')
                attack.counts["flood:sent"] += 1
                await asyncio.sleep(0.001)
        except websockets.ConnectionClosed:
            attack.counts["flood:closed_by_server"] += 1
        finally:
            reading.cancel()
            await ws.close()
        await asyncio.sleep(1.0)  # and back (an address that was cut off waits 30 s first)


async def drain(ws: Any) -> None:
    """Read (and drop) what the server sends, so its frames don't pile up unread."""
    try:
        async for _ in ws:
            pass
    except websockets.ConnectionClosed:
        pass


async def login_waves(attack: Attack, size: int) -> None:
    """Waves of ``size`` concurrent failed logins, each from its own address."""
    wave = 0
    while not attack.stop.is_set():

        async def one(n: int, wave: int) -> None:
            body = {"name": f"nobody {wave}-{n}", "password": "not the password"}
            status, _, answer = await http(
                attack.port, "POST", "/api/login", body, source=address(200 + n)
            )
            attack.status("login", status, answer)

        await asyncio.gather(*(one(n, wave) for n in range(size)))
        wave += 1


async def lobby_reader(attack: Attack, n: int, rooms: int) -> None:
    rng = random.Random(n)
    while not attack.stop.is_set():
        offset = 0 if n % 2 == 0 else rng.randrange(0, max(1, rooms))
        status, _, body = await http(
            attack.port, "GET", f"/api/lobby?offset={offset}&limit=50", source=address(400 + n)
        )
        attack.status("lobby", status, body)


async def spectator(attack: Attack, n: int, room: str, arrive: float, leave: float) -> None:
    """Join ``arrive`` seconds into the phase, watch, leave ``leave`` seconds into it."""
    started = time.monotonic()
    await asyncio.sleep(arrive)
    try:
        ws = await connect(attack.port, address(600 + n // 50))
    except Exception:
        attack.counts["spectate:connect_failed"] += 1
        return

    async def watch() -> None:
        try:
            async for raw in ws:
                for message in messages_of(raw):
                    if message["type"] == "joined":
                        attack.counts["spectate:joined"] += 1
                    elif message["type"] == "error":
                        attack.counts["spectate:error:" + message["code"]] += 1
        except websockets.ConnectionClosed:
            pass

    reading = asyncio.create_task(watch())
    try:
        await ws.send(json.dumps({"type": "join", "room": room, "spectate": True}))
        stopped = asyncio.create_task(attack.stop.wait())
        await asyncio.wait(
            [stopped, reading],
            timeout=max(0.0, leave - (time.monotonic() - started)),
            return_when=asyncio.FIRST_COMPLETED,
        )
        stopped.cancel()
        if reading.done():
            attack.counts["spectate:closed_by_server"] += 1
    finally:
        reading.cancel()
        await ws.close()  # leaving is part of the attack (each leave was news for everyone)


def attackers(
    name: str, attack: Attack, args: argparse.Namespace, spec: dict[str, Any]
) -> list[Any]:
    bot_rooms: list[str] = spec["bot_rooms"]
    if name == "flood":
        return [flooder(attack, n, bot_rooms[n % len(bot_rooms)]) for n in range(args.flooders)]
    if name == "login_burst":
        return [login_waves(attack, args.logins)]
    if name == "lobby_storm":
        return [lobby_reader(attack, n, spec["rooms"]) for n in range(args.lobby_clients)]
    if name == "spectators":
        # They come within the first 40 % of the phase and go within its last 40 %.
        return [
            spectator(
                attack,
                n,
                bot_rooms[n // 50 % len(bot_rooms)],
                0.4 * args.seconds * n / args.spectators,
                args.seconds * (0.6 + 0.3 * n / args.spectators),
            )
            for n in range(args.spectators)
        ]
    if name == "replay_flood":
        paths: list[str] = spec["paths"]
        one = [replay_reader(attack, paths, n, address(1500)) for n in range(args.replay_one)]
        many = [replay_reader(attack, paths, n, address(1600 + n)) for n in range(args.replay_many)]
        return one + many
    raise SystemExit(f"no attack {name!r}")


async def replay_reader(attack: Attack, paths: list[str], n: int, source: str) -> None:
    """Fetch replays and records in a loop, never waiting (Retry-After is ignored)."""
    rng = random.Random(n)
    while not attack.stop.is_set():
        path = rng.choice(paths)
        if "/hands/" in path and rng.random() < 0.05:  # a hand that does not exist (yet)
            path = path.split("/hands/")[0] + f"/hands/{rng.randrange(100, 10**6)}/replay"
        try:
            status, code = await fetch(attack.port, path, source)
        except OSError:
            attack.counts["replay:connect_failed"] += 1
            await asyncio.sleep(0.1)
            continue
        attack.status("replay", status, {"code": code} if code else None)


async def attack_main(args: argparse.Namespace) -> None:
    """The attacker process: one attack for ``--seconds``; its counts as the last line."""
    stop = asyncio.Event()
    attack = Attack(args.port, stop)
    running = [
        asyncio.create_task(a)
        for a in attackers(args.attacker, attack, args, json.loads(args.spec))
    ]
    print("go", flush=True)
    await asyncio.sleep(args.seconds)
    stop.set()
    for result in await asyncio.gather(*running, return_exceptions=True):
        if isinstance(result, BaseException):
            attack.failures[type(result).__name__] += 1
    report = {"counts": dict(sorted(attack.counts.items())), "failures": dict(attack.failures)}
    print(json.dumps(report), flush=True)


async def replay_targets(port: int, bot_rooms: list[str], hands: int) -> list[str]:
    """What the replay flood reads: two bots-only matches of ``hands`` hands played to their
    end at full speed (each hand's replay and record, the match's record) and the record of a
    long bots-only match still playing (its hands finish as the flood goes on)."""
    status, headers, answer = await http(
        port,
        "POST",
        "/api/register",
        {"name": f"replayer-{random.randrange(10**6)}", "password": "long password"},
        source=address(1400),
    )
    if status != 201:
        raise SystemExit(f"register: {status} {answer}")
    cookie = headers["set-cookie"].split(";")[0]
    finished: list[str] = []
    for _ in range(2):
        fast = {"players": 0, "hands": hands, "bot_delay_ms": 0}
        fast |= {"between_hands_ms": 0, "settlement_seconds": 0}
        status, _, answer = await http(
            port,
            "POST",
            "/api/rooms",
            {"table": fast},
            headers={"Cookie": cookie},
            source=address(1400),
        )
        if status != 201:
            raise SystemExit(f"replay room: {status} {answer}")
        finished.append(answer["code"])
    deadline = time.monotonic() + 300
    for code in finished:
        while True:
            status, _, info = await http(port, "GET", f"/api/rooms/{code}", source=address(1401))
            if status == 200 and info["status"] not in ("waiting", "playing"):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"replay room {code} still {info.get('status')} after 300 s")
            await asyncio.sleep(0.5)
    paths = [f"/api/matches/{code}/record" for code in finished + bot_rooms[:1]]
    for code in finished:
        for n in range(hands):
            paths += [f"/api/rooms/{code}/hands/{n}/replay", f"/api/rooms/{code}/hands/{n}"]
    # One replay before the flood: it is served (and the render pool's worker has started).
    status, _, answer = await http(port, "GET", paths[-2], source=address(1401))
    if status != 200:
        raise SystemExit(f"replay: {status} {answer}")
    return paths


# -- the run ---------------------------------------------------------------------------------------
async def run(args: argparse.Namespace, pid: int | None = None) -> dict[str, Any]:
    port = args.port
    measure = Measure()
    stop_tables = asyncio.Event()
    failures: Counter[str] = Counter()
    details: dict[str, Any] = {}
    paths: list[str] = []
    """What the replay flood fetches."""

    # Setup: five accounts and their bots-only rooms (watched by the flood and the spectators).
    bot_rooms: list[str] = []
    for a in range(args.bot_rooms // 2 + args.bot_rooms % 2):
        body = {"name": f"watcher{a}-{random.randrange(10**6)}", "password": "long password"}
        status, headers, answer = await http(
            port, "POST", "/api/register", body, source=address(800 + a)
        )
        if status != 201:
            raise SystemExit(f"register: {status} {answer}")
        cookie = headers["set-cookie"].split(";")[0]
        for _ in range(2):
            if len(bot_rooms) < args.bot_rooms:
                table = {"players": 0, "hands": 64, "between_hands_ms": 1000}
                status, _, answer = await http(
                    port,
                    "POST",
                    "/api/rooms",
                    {"table": table},
                    headers={"Cookie": cookie},
                    source=address(800 + a),
                )
                if status != 201:
                    raise SystemExit(f"bots-only room: {status} {answer}")
                bot_rooms.append(answer["code"])

    # The measured tables.
    tasks = []
    rng = random.Random(args.seed)
    url = f"ws://127.0.0.1:{port}/ws"
    for _ in range(args.tables):
        table = {"players": 4, "hands": 64, "action_seconds": 60, "between_hands_ms": 500}
        status, _, answer = await http(port, "POST", "/api/rooms", {"table": table})
        if status != 201:
            raise SystemExit(f"measured table: {status} {answer}")
        for seat in range(4):
            r = random.Random(rng.getrandbits(64))
            tasks.append(
                asyncio.create_task(
                    player(url, answer["code"], seat, measure, stop_tables, r, THINK)
                )
            )
    await asyncio.sleep(args.warmup)

    async def phase(name: str) -> None:
        """Run one attack in its own process (so the attackers' work does not slow the
        measured clients down) and measure while it runs."""
        if name not in args.phases.split(","):
            return
        if name == "baseline":
            measure.phase = name
            await asyncio.sleep(args.seconds)
            measure.phase = None
            await asyncio.sleep(1.0)
            return
        spec = {"bot_rooms": bot_rooms, "rooms": details.get("lobby_rooms", 0)}
        if name == "replay_flood":
            spec["paths"] = paths
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attacker",
            name,
            "--port",
            str(port),
            "--seconds",
            str(args.seconds),
            "--spec",
            json.dumps(spec),
            "--flooders",
            str(args.flooders),
            "--logins",
            str(args.logins),
            "--lobby-clients",
            str(args.lobby_clients),
            "--spectators",
            str(args.spectators),
            "--replay-one",
            str(args.replay_one),
            "--replay-many",
            str(args.replay_many),
            stdout=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None
        await proc.stdout.readline()  # "go": the attacker is ready
        measure.phase = name
        out = await proc.stdout.read()
        measure.phase = None
        await proc.wait()
        try:
            report = json.loads(out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            failures[f"{name}:attacker_failed"] += 1
            return
        failures.update(report["failures"])
        details[name] = report["counts"]
        await asyncio.sleep(1.0)  # let the server settle before the next phase

    await phase("baseline")
    await phase("flood")
    await phase("login_burst")

    # The lobby storm's rooms: made from many addresses, each within the per-address cap.
    per_address = 20
    if "lobby_storm" not in args.phases.split(","):
        args.rooms = 0
    made = 0
    for start in range(0, args.rooms, per_address * 10):
        batch = []
        for k in range(start, min(args.rooms, start + per_address * 10)):
            batch.append(
                http(
                    port,
                    "POST",
                    "/api/rooms",
                    {"table": {"players": 2}},
                    source=address(1000 + k // per_address),
                )
            )
        for status, _, _ in await asyncio.gather(*batch):
            made += status == 201
            if status != 201:
                failures[f"lobby_rooms:{status}"] += 1
    details["lobby_rooms"] = made
    await phase("lobby_storm")
    await phase("spectators")

    if "replay_flood" in args.phases.split(","):
        paths += await replay_targets(port, bot_rooms, args.replay_hands)
        details["replay_paths"] = len(paths)
    await asyncio.sleep(1.0)
    await phase("replay_flood")

    stop_tables.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    errors = sum(measure.errors.values()) + sum(failures.values())
    result: dict[str, Any] = {
        "flood_p99_ms": measure.p99("flood"),
        "login_burst_p99_ms": measure.p99("login_burst"),
        "lobby_storm_p99_ms": measure.p99("lobby_storm"),
        "spectators_p99_ms": measure.p99("spectators"),
        "replay_flood_p99_ms": measure.p99("replay_flood"),
        "baseline_p99_ms": measure.p99("baseline"),
        "samples": {k: len(v) for k, v in measure.latencies.items()},
        "tables": args.tables,
        "seconds_per_phase": args.seconds,
        "attacks": details,
        "load_average": round(os.getloadavg()[0], 2),
        "error_kinds": dict(measure.errors + failures),
        "errors": errors,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="measured tables of four people")
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds of each attack")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--flooders", type=int, default=50)
    parser.add_argument("--logins", type=int, default=40, help="concurrent logins per wave")
    parser.add_argument("--rooms", type=int, default=2000, help="waiting rooms for the storm")
    parser.add_argument("--lobby-clients", type=int, default=20)
    parser.add_argument("--spectators", type=int, default=500)
    parser.add_argument("--bot-rooms", type=int, default=10, help="bots-only rooms watched")
    parser.add_argument("--replay-one", type=int, default=8, help="replay readers from one address")
    parser.add_argument(
        "--replay-many", type=int, default=64, help="replay readers, each from its own address"
    )
    parser.add_argument(
        "--replay-hands", type=int, default=4, help="hands of each finished match replayed"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--phases",
        default="baseline,flood,login_burst,lobby_storm,spectators,replay_flood",
        help="the phases to run (comma-separated; the others' keys are null)",
    )
    parser.add_argument("--smoke", action="store_true", help="a short run with small attacks")
    parser.add_argument("--port", type=int, help="use a server already running on this port")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--attacker", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.seconds, args.warmup = 2, 2.0, 2.0
        args.flooders, args.logins, args.rooms = 10, 10, 100
        args.lobby_clients, args.spectators, args.bot_rooms = 4, 60, 2
        args.replay_one, args.replay_many, args.replay_hands = 4, 8, 2
    if not 1 <= args.tables <= 50 or not 0 < args.seconds <= 600 or not 1 <= args.bot_rooms <= 20:
        parser.error("--tables must be 1–50, --seconds 0–600, --bot-rooms 1–20")
    runner: Any = asyncio.run
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        pass
    if args.attacker:
        runner(attack_main(args))
        return
    if args.port:
        result = runner(run(args))
    else:
        with throwaway_server() as (args.port, server):
            result = runner(run(args, server.pid))
    report(result, args.json)


if __name__ == "__main__":
    main()
