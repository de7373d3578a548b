"""The bot ladder (issue 28 item 3): bots of their own (a token names a bot, ``owner/name``),
tables of four registered bots the server seats over ``/ws/bot`` (``laizi serve --bot-ladder``),
each bot's OpenSkill rating booked from the placings, and ``GET /api/bots/leaderboard`` — tried
the way an attacker would: one token at two seats, a revoked token, a flood, the owner's standing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import websockets
from sqlalchemy import insert, update

from laizi.server.botratings import book_ladder, bot_leaderboard, ladder_results
from laizi.server.bottokens import BotTokens
from laizi.server.ladder import LadderSettings
from laizi.server.matched import SeatClaim, check_claims
from laizi.server.ratings import MU, SIGMA, rate
from laizi.server.store import Store, reserved_seats, rooms
from tests.server_helpers import FAST_HASH, ServerProcess, http, login_cookie, store_hands

PRESET = "wuhan-hongzhong-kaikou"
LADDER = (
    "--bot-ladder",
    "--ladder-presets",
    f"{PRESET},baishan",
    "--ladder-interval-seconds",
    "0.2",
    "--ladder-hands",
    "1",
    "--abuse-cooldown-seconds",
    "0",  # the flood's close for abuse bars no later test's connection
)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("ladder") / "db.sqlite"
    with ServerProcess(path, args=LADDER) as server:
        yield server


@pytest.fixture(scope="module")
def owners(srv: ServerProcess) -> dict[str, str]:
    """Four accounts (registrations per address are limited): their cookies."""
    return {name: login_cookie(srv, name) for name in ("ada", "bob", "cy", "dee")}


def issue(srv: ServerProcess, cookie: str, name: str) -> dict[str, Any]:
    status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": name}, cookie)
    assert status == 201, body
    return dict(json.loads(body))


def board(srv: ServerProcess, game: str = "wuhan") -> dict[str, Any]:
    status, _, body = http(srv, "GET", f"/api/bots/leaderboard?game={game}")
    assert status == 200, body
    return dict(json.loads(body))


class LadderBot:
    """A scripted bot over ``/ws/bot``: hello without a room, a ladder request, then the first
    legal action of every prompt (seeded choice) until ``bye``; every message kept."""

    def __init__(self, srv: ServerProcess, token: str, preset: str = PRESET) -> None:
        self.url = f"ws://127.0.0.1:{srv.port}/ws/bot"
        self.token = token
        self.preset = preset
        self.seen: list[dict[str, Any]] = []
        self.ws: Any = None

    async def ask(self) -> dict[str, Any]:
        """Connect and ask for a table: the answer (``ladder_wait`` or an error)."""
        self.ws = await websockets.connect(self.url)
        assert json.loads(await self.ws.recv())["type"] == "hello"
        await self.ws.send(json.dumps({"type": "hello", "version": 1, "token": self.token}))
        await self.ws.send(json.dumps({"type": "ladder", "preset": self.preset}))
        return await self.next()

    async def next(self, timeout: float = 20) -> dict[str, Any]:
        message = dict(json.loads(await asyncio.wait_for(self.ws.recv(), timeout)))
        self.seen.append(message)
        return message

    async def play(self, seed: int) -> None:
        rng = random.Random(seed)
        while True:
            try:
                message = await self.next(60)
            except websockets.ConnectionClosed:
                return
            if message["type"] == "prompt":
                action = rng.choice(message["legal"])
                await self.ws.send(
                    json.dumps({"type": "act", "prompt": message["id"], "action": action})
                )
            elif message["type"] == "bye":
                return

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def test_the_ladder_seats_four_registered_bots_and_rates_them(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    names = [("ada", "alpha"), ("bob", "beta"), ("cy", "gamma"), ("dee", "delta")]
    tokens = [issue(srv, owners[owner], bot) for owner, bot in names]
    before = {o: json.loads(http(srv, "GET", "/api/me", cookie=c)[2]) for o, c in owners.items()}

    async def run() -> tuple[list[LadderBot], dict[str, Any]]:
        bots = [LadderBot(srv, t["token"]) for t in tokens]
        waits = [await bot.ask() for bot in bots]
        assert [w["type"] for w in waits] == ["ladder_wait"] * 4
        assert [w["waiting"] for w in waits] == [1, 2, 3, 4] and waits[0]["preset"] == PRESET
        joined = [await bot.next() for bot in bots]
        assert {j["type"] for j in joined} == {"joined"}
        assert len({j["room"] for j in joined}) == 1
        assert sorted(j["seat"] for j in joined) == [0, 1, 2, 3]
        # one ladder seat per token: the same token asking again while seated is refused
        again = LadderBot(srv, tokens[0]["token"])
        refused = await again.ask()
        await again.close()
        assert refused["code"] == "ladder_busy" and "天梯" in refused["message_zh"]
        await asyncio.gather(*(bot.play(i) for i, bot in enumerate(bots)))
        return bots, joined[0]

    bots, joined = asyncio.run(asyncio.wait_for(run(), 120))
    for bot in bots:
        kinds = [m["type"] for m in bot.seen]
        assert kinds[-2:] == ["match_end", "bye"] and "prompt" in kinds
    code = joined["room"]
    _, info_body = srv.get(f"/api/rooms/{code}")
    info = json.loads(info_body)
    assert info["kind"] == "ladder" and info["status"] == "over"
    seat_of = {t["id"]: bot.seen[1]["seat"] for t, bot in zip(tokens, bots, strict=True)}
    shown = {info["seats"][seat_of[t["id"]]]["name"] for t in tokens}
    assert shown == {"ada/alpha", "bob/beta", "cy/gamma", "dee/delta"}
    # the ratings: OpenSkill's Plackett–Luce from fresh, placed by the match totals
    totals = [Fraction(str(x)) for x in info["totals"]]
    expected = rate([(MU, SIGMA)] * 4, totals)
    rows = {row["id"]: row for row in board(srv)["bots"]}
    assert set(rows) >= {t["id"] for t in tokens}
    for t in tokens:
        mu, sigma = expected[seat_of[t["id"]]]
        row = rows[t["id"]]
        assert row["matches"] == 1 and row["owner"] in owners
        assert row["mu"] == round(mu, 4) and row["sigma"] == round(sigma, 4)
        assert row["ordinal"] == round(mu - 3 * sigma, 4)
        assert row["name"] == f"{row['owner']}/{row['bot']}"
    best = max(range(4), key=lambda s: totals[s])
    worst = min(range(4), key=lambda s: totals[s])
    if totals[best] != totals[worst]:
        assert expected[best][0] > MU > expected[worst][0]
    places = [r["id"] for r in board(srv)["bots"]]
    assert places == sorted(places, key=lambda i: -rows[i]["ordinal"])
    # the owners' person standings did not move, and no match of theirs was booked
    after = {o: json.loads(http(srv, "GET", "/api/me", cookie=c)[2]) for o, c in owners.items()}
    assert after == before
    db = sqlite3.connect(srv.db_url.removeprefix("sqlite:///"))
    room_id = db.execute("SELECT id FROM rooms WHERE code = ?", (code,)).fetchone()[0]
    assert db.execute(
        "SELECT COUNT(*) FROM match_results WHERE room_id = ?", (room_id,)
    ).fetchone() == (0,)
    assert db.execute(
        "SELECT COUNT(*) FROM seat_accounts WHERE room_id = ?", (room_id,)
    ).fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM standings").fetchone() == (0,)
    assert db.execute(
        "SELECT COUNT(*) FROM ladder_results WHERE room_id = ?", (room_id,)
    ).fetchone() == (4,)


def test_a_dropped_ladder_bot_comes_back_with_its_seat_token_and_nobody_else_does(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    """A bot that drops mid-match is any bot seat: 托管 plays it, it takes the seat back with its
    ``seat_token``; another bot token showing that seat token is refused (the seat is kept for
    the token), and the booking rates the four bots that were seated."""
    tokens = [issue(srv, owners[o], "drop") for o in ("ada", "bob", "cy", "dee")]
    intruder = issue(srv, owners["bob"], "intruder")

    async def run() -> tuple[list[LadderBot], dict[str, Any], dict[str, Any]]:
        bots = [LadderBot(srv, t["token"], "baishan") for t in tokens]
        for bot in bots:
            assert (await bot.ask())["type"] == "ladder_wait"
        joined = [await bot.next() for bot in bots]
        await bots[3].close()  # dropped before its first answer
        hello = {"type": "hello", "version": 1, "room": joined[3]["room"]}
        stranger = await websockets.connect(bots[3].url)
        await stranger.recv()
        await stranger.send(
            json.dumps({**hello, "token": intruder["token"], "seat_token": joined[3]["token"]})
        )
        refused = json.loads(await asyncio.wait_for(stranger.recv(), 10))
        await stranger.close()
        back = LadderBot(srv, tokens[3]["token"])
        back.ws = await websockets.connect(back.url)
        await back.ws.recv()
        await back.ws.send(
            json.dumps({**hello, "token": tokens[3]["token"], "seat_token": joined[3]["token"]})
        )
        rejoined = await back.next()
        bots[3] = back
        await asyncio.gather(*(bot.play(10 + i) for i, bot in enumerate(bots)))
        return bots, refused, {"first": joined[3], "again": rejoined}

    bots, refused, seat = asyncio.run(asyncio.wait_for(run(), 120))
    assert refused["code"] == "seat_reserved"
    assert seat["again"]["type"] == "joined" and seat["again"]["seat"] == seat["first"]["seat"]
    assert [m["type"] for m in bots[3].seen][-2:] == ["match_end", "bye"]
    rows = {row["id"]: row for row in board(srv, "baishan")["bots"]}
    assert all(rows[t["id"]]["matches"] == 1 for t in tokens)
    assert intruder["id"] not in rows


def test_four_cmd_bots_play_the_ladder_through_bot_connect_and_every_message_validates(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    """``laizi bot-connect --ladder PRESET`` (the bridge): four ``cmd:`` bots ask, are seated
    and play; what they were sent — ``ladder_wait`` included — and their ladder request validate
    against docs/bot-protocol.schema.json."""
    import sys

    from laizi.botproto.bridge import connect
    from tests.schema_helpers import MISBEHAVING, check

    tokens = [issue(srv, owners[o], "cmd")["token"] for o in ("ada", "bob", "cy", "dee")]
    seen: list[list[dict[str, Any]]] = [[], [], [], []]
    url = f"ws://127.0.0.1:{srv.port}/ws/bot"
    bot = f"{sys.executable} {MISBEHAVING} good"

    async def run() -> list[dict[str, Any]]:
        return list(
            await asyncio.gather(
                *(
                    connect(url, bot, token=t, ladder="baishan", on_message=seen[n].append)
                    for n, t in enumerate(tokens)
                )
            )
        )

    summaries = asyncio.run(asyncio.wait_for(run(), 120))
    assert sorted(s["seat"] for s in summaries) == [0, 1, 2, 3]
    assert {s["ladder"] for s in summaries} == {"baishan"} and all("totals" in s for s in summaries)
    for messages in seen:
        kinds = [m["type"] for m in messages]
        assert kinds[0] == "ladder_wait" and kinds[1] == "joined"
        assert kinds[-2:] == ["match_end", "bye"]
        for message in messages:
            check(message, "HostMessage")
    check({"type": "ladder", "preset": "baishan"}, "BotMessage")


def test_a_token_waits_once_and_a_revoked_token_leaves_the_ladder(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    issued = issue(srv, owners["bob"], "lonely")

    async def run() -> list[dict[str, Any]]:
        first, second = LadderBot(srv, issued["token"]), LadderBot(srv, issued["token"])
        assert (await first.ask())["type"] == "ladder_wait"
        refused = await second.ask()  # the same token at a second seat: never
        assert refused["code"] == "ladder_busy"
        assert board(srv)["ladder"]["waiting"][PRESET] == 1
        status = http(srv, "DELETE", f"/api/bot-tokens/{issued['id']}", cookie=owners["bob"])[0]
        assert status == 200
        told = await first.next()
        with pytest.raises(websockets.ConnectionClosed):
            await first.next(5)
        await second.close()
        return [told]

    [told] = asyncio.run(asyncio.wait_for(run(), 60))
    assert told["code"] == "token_revoked" and told["message_zh"]
    assert board(srv)["ladder"]["waiting"][PRESET] == 0
    again = asyncio.run(asyncio.wait_for(LadderBot(srv, issued["token"]).ask(), 30))
    assert again["code"] == "bad_token"


def test_a_flood_of_ladder_requests_is_rate_limited_then_closed(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    issued = issue(srv, owners["bob"], "flooder")

    async def run() -> list[dict[str, Any]]:
        bot = LadderBot(srv, issued["token"], "baishan")
        assert (await bot.ask())["type"] == "ladder_wait"
        request = json.dumps({"type": "ladder", "preset": "baishan"})

        async def flood() -> None:
            with contextlib.suppress(websockets.ConnectionClosed):
                for _ in range(200):
                    await bot.ws.send(request)

        sender = asyncio.create_task(flood())
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await bot.next(10)
        await sender
        return bot.seen

    seen = asyncio.run(asyncio.wait_for(run(), 60))
    codes = [m.get("code") for m in seen if m["type"] == "error"]
    assert "already_waiting" in codes and "rate_limited" in codes and codes[-1] == "abuse"
    assert codes.count("rate_limited") < codes.count("already_waiting")  # one per run of refusals
    assert board(srv)["ladder"]["waiting"]["baishan"] == 0  # out of the pool


def test_bad_ladder_requests_are_coded_errors(srv: ServerProcess, owners: dict[str, str]) -> None:
    issued = issue(srv, owners["ada"], "picky")
    bad = asyncio.run(
        asyncio.wait_for(LadderBot(srv, issued["token"], "wuhan-qipi-kaikou").ask(), 30)
    )
    assert bad["code"] == "bad_preset" and "baishan" in bad["message"]
    status, _, body = http(srv, "GET", "/api/bots/leaderboard?game=chess")
    assert status == 400 and json.loads(body)["code"] == "bad_game"
    ladder = board(srv, "baishan")["ladder"]
    assert ladder["presets"] == [PRESET, "baishan"] and ladder["hands"] == 1


def test_a_bot_name_is_unique_among_its_owners_live_tokens(
    srv: ServerProcess, owners: dict[str, str]
) -> None:
    issue(srv, owners["ada"], "Twin")
    status, _, body = http(srv, "POST", "/api/bot-tokens", {"name": "twin"}, owners["ada"])
    assert status == 409 and json.loads(body)["code"] == "bot_name_taken"
    assert "error_zh" in json.loads(body)
    issue(srv, owners["bob"], "twin")  # another owner's bot may share the name: bob/twin


def test_a_server_without_the_ladder_refuses_a_hello_without_a_room(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "db.sqlite") as plain:
        token = issue(plain, login_cookie(plain, "carol"), "solo")["token"]
        refused = asyncio.run(asyncio.wait_for(LadderBot(plain, token).ask(), 30))
        assert refused["code"] == "bad_message"
        assert board(plain)["ladder"] is None and board(plain)["bots"] == []


def test_the_ladder_flags_default_to_its_settings_are_documented_and_checked() -> None:
    import inspect

    from typer.testing import CliRunner

    from laizi.cli import app
    from laizi.cli.serve import serve

    settings = LadderSettings()
    flags = {
        "ladder_presets": ",".join(settings.presets),
        "ladder_interval_seconds": settings.interval_s,
        "ladder_hands": settings.hands,
        "ladder_action_seconds": settings.action_seconds,
        "ladder_bank_seconds": settings.bank_seconds,
        "ladder_grace_seconds": settings.escape_grace_seconds,
        "bot_ladder": False,
        "ladder_same_owner": not settings.owners_apart,
    }
    parameters = inspect.signature(serve).parameters
    docs = (Path(__file__).resolve().parent.parent / "docs" / "server.md").read_text()
    for name, value in flags.items():
        assert parameters[name].default.default == value, name
        assert parameters[name].default.help, name
        assert f"`--{name.replace('_', '-')}`" in docs, name
    for args, says in [
        (["--ladder-hands", "0"], "--ladder-hands must be at least 1 and at most 64"),
        (["--ladder-presets", "wuhan,chess"], "--ladder-presets: unknown preset 'wuhan'"),
        (["--ladder-interval-seconds", "0"], "--ladder-interval-seconds must be above 0"),
        (["--redis", "redis://127.0.0.1:1/0"], "not with --redis"),
    ]:
        result = CliRunner().invoke(app, ["serve", "--bot-ladder", *args])
        assert result.exit_code == 2, result.output
        assert says in " ".join(result.output.split()) and "Traceback" not in result.output


# -- the booking, without a server ----------------------------------------------------------------
def _ladder_room(
    store: Store, tokens: list[int], ends: list[list[dict[str, Any]]], code: str = "LADDR1"
) -> int:
    room_id = store.create_room(code, PRESET, LadderSettings().table().to_json(), "ladder")
    with store.engine.begin() as c:
        for seat, token in enumerate(tokens):
            c.execute(insert(reserved_seats).values(room_id=room_id, seat=seat, bot_token_id=token))
    store_hands(store, room_id, ends)
    return room_id


def _tokens(store: Store, count: int) -> list[int]:
    from laizi.server.accounts import Accounts

    owner = Accounts(store.engine, hasher=FAST_HASH).register("dora", "hongzhong")
    return [BotTokens(store.engine).issue(owner.id, f"b{i}")["id"] for i in range(count)]


def test_one_token_at_two_seats_of_a_table_is_never_rated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="token 7 twice"):
        check_claims("ladder", [SeatClaim.for_bot_token(t) for t in (7, 8, 7, 9)])
    with pytest.raises(ValueError, match="four registered bots"):
        check_claims(
            "ladder", [SeatClaim.for_bot_token(t) for t in (7, 8, 9)] + [SeatClaim.for_bot()]
        )
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        a, b, c = _tokens(store, 3)
        win = [{"type": "end", "payments": [30, -10, -10, -10]}]
        room_id = _ladder_room(store, [a, b, a, c], [win])  # forged straight into the database
        with pytest.raises(ValueError, match="not four distinct bots"):
            book_ladder(store.engine, room_id)
        assert bot_leaderboard(store.engine, "wuhan") == []
    finally:
        store.close()


def test_a_ladder_match_is_booked_once_from_its_records(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        tokens = _tokens(store, 4)
        hands = [
            [{"type": "end", "payments": [30, -10, -10, -10]}],
            [{"type": "end", "payments": [-4, 12, -4, -4]}],
        ]
        room_id = _ladder_room(store, tokens, hands)
        booked = book_ladder(store.engine, room_id, now=5.0)
        assert [row["total"] for row in booked] == ["26", "2", "-14", "-14"]
        assert [row["place"] for row in booked] == [1, 2, 3, 3]
        assert book_ladder(store.engine, room_id) == []  # once
        expected = rate(
            [(MU, SIGMA)] * 4, [Fraction(26), Fraction(2), Fraction(-14), Fraction(-14)]
        )
        rows = {r["id"]: r for r in bot_leaderboard(store.engine, "wuhan")}
        assert [r["place"] for r in bot_leaderboard(store.engine, "wuhan")] == [1, 2, 3, 4]
        for seat, token in enumerate(tokens):
            assert rows[token]["mu"] == round(expected[seat][0], 4)
            assert rows[token]["matches"] == 1 and rows[token]["name"] == f"dora/b{seat}"
        assert rows[tokens[2]]["mu"] == rows[tokens[3]]["mu"]  # a shared place rates alike
        with store.engine.begin() as c:  # a revoked token's bot leaves the leaderboard
            from laizi.server.bottokens import bot_tokens

            c.execute(update(bot_tokens).where(bot_tokens.c.id == tokens[0]).values(revoked=1.0))
            assert c.execute(ladder_results.select()).all()
            assert c.execute(rooms.select().where(rooms.c.id == room_id)).first().kind == "ladder"
        assert tokens[0] not in {r["id"] for r in bot_leaderboard(store.engine, "wuhan")}
    finally:
        store.close()


def test_the_ladder_migration_goes_down_and_up_keeping_the_kept_seats(db_url: str) -> None:
    """0009_bot_ladder adds ``reserved_seats.bot_token_id``, ``bot_ratings`` and
    ``ladder_results``; its downgrade drops exactly them (a matched room's kept seats stay)."""
    from alembic import command
    from sqlalchemy import inspect, select

    from tests.server_helpers import alembic_config

    store = Store(db_url)
    try:
        room_id = store.create_room(
            "KEPT01",
            PRESET,
            {},
            "casual",
            [SeatClaim(guest_key="k" * 16)] + [SeatClaim.for_bot()] * 3,
        )
        with store.engine.begin() as c:
            command.downgrade(alembic_config(c), "0008_cluster_secret")
        with store.engine.connect() as c:
            names = set(inspect(c).get_table_names())
            columns = {col["name"] for col in inspect(c).get_columns("reserved_seats")}
        assert not {"bot_ratings", "ladder_results"} & names and "bot_token_id" not in columns
        store.migrate()
        with store.engine.connect() as c:
            kept = c.execute(
                select(reserved_seats).where(reserved_seats.c.room_id == room_id)
            ).all()
        assert [(r.seat, r.guest_key, r.bot_token_id) for r in kept] == [(0, "k" * 16, None)]
    finally:
        store.close()


def test_the_schedule_drops_a_token_revoked_elsewhere_and_closes_a_table_it_cannot_fill(
    tmp_path: Path,
) -> None:
    """The pool is matched on the server's loop (``Ladder.tick``): a token revoked in the
    database behind this process's back is told ``token_revoked`` and the next four are seated;
    a table one of whose bots cannot sit down is closed at once (``room_expired``), not left
    waiting for it."""
    from laizi.server.accounts import Account
    from laizi.server.botseat import BotSeat
    from laizi.server.bottokens import BotIdentity, bot_tokens
    from laizi.server.hub import Hub
    from laizi.server.ladder import Ladder

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")

    def told(seat: BotSeat) -> list[Any]:
        out = []
        while not seat.out.empty():
            frame = seat.out.get_nowait()
            out.append(None if frame is None else json.loads(frame))
        return out

    async def scenario() -> None:
        hub = Hub(store)
        ladder = hub.ladder = Ladder(hub, LadderSettings(presets=(PRESET,), interval_s=1))
        ids = _tokens(store, 9)
        seats = [
            BotSeat(hub, BotIdentity(Account(n, f"o{n}", 0.0), i, "b"), asyncio.Queue())
            for n, i in enumerate(ids)
        ]
        for seat in seats[:5]:
            ladder.request(seat, {"type": "ladder", "preset": PRESET})
        with store.engine.begin() as c:
            c.execute(update(bot_tokens).where(bot_tokens.c.id == ids[0]).values(revoked=1.0))
        assert await ladder.tick() == 1
        await asyncio.sleep(0.05)
        first = told(seats[0])
        assert first[0]["type"] == "ladder_wait" and first[-1] is None  # let go
        assert first[1]["code"] == "token_revoked" and first[1]["message_zh"]
        rooms_now = [r for r in hub.rooms.values() if r.kind == "ladder"]
        assert len(rooms_now) == 1 and rooms_now[0].status == "playing"
        assert sorted(s.conn.seat for s in seats[1:5]) == [0, 1, 2, 3]
        assert ladder.pool == {}
        # a table whose fourth bot is already in a room: closed, the three others let go
        for seat in seats[5:9]:
            ladder.request(seat, {"type": "ladder", "preset": PRESET})
        seats[8].conn.room = rooms_now[0]  # its join is refused (already_joined)
        assert await ladder.tick() == 1
        await asyncio.sleep(0.05)
        for seat in seats[5:8]:
            codes = [m.get("code") for m in told(seat) if m is not None and m["type"] == "error"]
            assert "room_expired" in codes
        assert [r.status for r in hub.rooms.values() if r.kind == "ladder"] == ["playing"]
        hub.halt()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 30))
    finally:
        store.close()


def test_unbooked_ladder_matches_are_booked_at_startup_and_a_forged_one_is_reported(
    tmp_path: Path,
) -> None:
    """After a crash between a ladder match's end and its booking, ``Bookings.book_pending``
    (startup, retries) books it; a ladder room that ended before any hand is not waiting for a
    booking; a forged one (a token at two seats) is reported, never raised, never rated."""
    from laizi.server.booking import Bookings
    from laizi.server.botratings import unbooked_ladder_matches

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        t = _tokens(store, 5)
        win = [[{"type": "end", "payments": [-10, -10, 30, -10]}]]
        good = _ladder_room(store, t[:4], win)
        forged = _ladder_room(store, [t[4], t[1], t[4], t[2]], win, "LADDR2")
        empty = _ladder_room(store, [t[0], t[2], t[3], t[4]], [], "LADDR3")
        with store.engine.begin() as c:
            c.execute(update(rooms).where(rooms.c.id == empty).values(status="over"))
        assert [r for r, _ in unbooked_ladder_matches(store.engine)] == [good, forged]
        bookings = Bookings(store.engine)
        assert bookings.book_pending() == 1
        assert set(bookings.failed) == {forged} and "distinct" in bookings.failed[forged].error
        assert [r for r, _ in unbooked_ladder_matches(store.engine)] == [forged]
        rows = {r["id"]: r for r in bot_leaderboard(store.engine, "wuhan")}
        assert set(rows) == set(t[:4]) and rows[t[2]]["place"] == 1
    finally:
        store.close()


def test_metrics_count_the_bots_waiting_for_a_ladder_table(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from laizi.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", ladder=LadderSettings(interval_s=60))
    with TestClient(app) as client:
        registry = client.app.state.metrics.registry
        queue = {"queue": "ladder_bots"}
        assert registry.get_sample_value("laizi_queue_size", queue) == 0
        client.app.state.hub.ladder.pool[1] = object()  # one bot waiting (only counted)
        assert registry.get_sample_value("laizi_queue_size", queue) == 1
        client.app.state.hub.ladder.pool.clear()
        with pytest.raises(ValueError, match="not in a cluster"):
            create_app("sqlite://", cluster=object(), ladder=LadderSettings())  # type: ignore[arg-type]


@pytest.mark.parametrize("apart", [True, False])
def test_one_owners_bots_never_share_a_table_unless_the_server_says_so(
    tmp_path: Path, apart: bool
) -> None:
    """An owner's three bots could discard into the fourth's hands and farm it a rating: by
    default a table is four owners (the second bot of an owner waits for the next table);
    ``--ladder-same-owner`` (``owners_apart=False``) seats the four longest-waiting bots."""
    from laizi.server.accounts import Account
    from laizi.server.botseat import BotSeat
    from laizi.server.bottokens import BotIdentity
    from laizi.server.hub import Hub
    from laizi.server.ladder import Ladder

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")

    async def scenario() -> list[int]:
        hub = Hub(store)
        settings = LadderSettings(presets=(PRESET,), owners_apart=apart)
        ladder = hub.ladder = Ladder(hub, settings)
        ids = _tokens(store, 6)
        owners = [1, 1, 1, 2, 3, 4]  # owner 1's three bots came first
        seats = [
            BotSeat(hub, BotIdentity(Account(o, f"o{o}", 0.0), i, f"b{n}"), asyncio.Queue())
            for n, (o, i) in enumerate(zip(owners, ids, strict=True))
        ]
        for seat in seats:
            ladder.request(seat, {"type": "ladder", "preset": PRESET})
        assert await ladder.tick() == 1
        seated = [n for n, seat in enumerate(seats) if seat.conn.room is not None]
        assert sorted(n for n, seat in enumerate(seats) if n not in seated) == sorted(
            ids.index(t) for t in ladder.pool
        )
        hub.halt()
        return seated

    try:
        seated = asyncio.run(asyncio.wait_for(scenario(), 30))
    finally:
        store.close()
    assert seated == ([0, 3, 4, 5] if apart else [0, 1, 2, 3])


def test_a_ladder_table_survives_a_crash_its_bots_come_back_and_it_is_rated(
    tmp_path: Path,
) -> None:
    """``kill -9`` mid-match: the restarted server recovers the ladder table with its seats
    kept for the four tokens; each bot comes back with its ``seat_token`` and the match ends and
    is booked. Meanwhile those tokens are still busy (one ladder seat per token)."""
    path = tmp_path / "db.sqlite"
    args = (*LADDER, "--ladder-grace-seconds", "60")
    first = ServerProcess(path, args=args).start()
    try:
        owners = [login_cookie(first, name) for name in ("eve", "fay", "gus", "hal")]
        tokens = [issue(first, cookie, "phoenix") for cookie in owners]

        async def seat() -> list[dict[str, Any]]:
            bots = [LadderBot(first, t["token"]) for t in tokens]
            for bot in bots:
                assert (await bot.ask())["type"] == "ladder_wait"
            return [await bot.next() for bot in bots]

        joined = asyncio.run(asyncio.wait_for(seat(), 60))
        first.kill9()
        second = ServerProcess(path, port=first.port, args=args).start()
        try:

            async def back() -> tuple[dict[str, Any], list[LadderBot]]:
                busy = await LadderBot(second, tokens[0]["token"]).ask()
                bots = []
                for t, seat_of in zip(tokens, joined, strict=True):
                    bot = LadderBot(second, t["token"])
                    bot.ws = await websockets.connect(bot.url)
                    await bot.ws.recv()
                    hello = {"type": "hello", "version": 1, "token": t["token"]}
                    hello |= {"room": seat_of["room"], "seat_token": seat_of["token"]}
                    await bot.ws.send(json.dumps(hello))
                    again = await bot.next()
                    assert again["type"] == "joined" and again["seat"] == seat_of["seat"]
                    bots.append(bot)
                await asyncio.gather(*(bot.play(20 + i) for i, bot in enumerate(bots)))
                return busy, bots

            busy, bots = asyncio.run(asyncio.wait_for(back(), 90))
            assert busy["code"] == "ladder_busy"
            assert all([m["type"] for m in b.seen][-2:] == ["match_end", "bye"] for b in bots)
            info = json.loads(second.get(f"/api/rooms/{joined[0]['room']}")[1])
            assert info["status"] == "over" and info["kind"] == "ladder"
            rows = {r["id"]: r for r in board(second)["bots"]}
            assert [rows[t["id"]]["matches"] for t in tokens] == [1, 1, 1, 1]
        finally:
            second.stop()
    finally:
        first.stop()
