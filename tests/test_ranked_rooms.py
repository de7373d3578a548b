"""Only ranked matches move strength points, ranks and ratings (issue 26, item 3), and the
matchmaker's tables keep their seats for the people matched to them.

* The booking: a friendly room (友人场, made by link) or a casual table books every seat's total
  and place and moves no account's points, rank or rating — exactly; the same match in a ranked
  room moves them by exactly the amounts the booking arithmetic gives.  The booking retried
  after a crash keeps the rule; migration 0007 keeps what old rooms booked.
* A real server: a friendly room played to its end moves nothing; a ranked table opened by
  ``Hub.open_matched_room`` and played to its end moves every account by its seat's total.
* Kept seats, over real WebSocket joins: a stranger, a guest, another matched player or the
  same account in a second tab cannot take a seat kept for someone else (``seat_reserved``, in
  Chinese and English), after a restart too.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import insert, select, text, update

from laizi.rules import Settings
from laizi.server.accounts import Accounts
from laizi.server.accounts import accounts as account_rows
from laizi.server.booking import Bookings
from laizi.server.matched import SeatClaim
from laizi.server.ratings import (
    MU,
    SIGMA,
    Paid,
    add_payments,
    book_match,
    book_unbooked,
    link_seat,
    match_history,
    match_results,
    no_payments,
    rate,
    standings_of,
    unbooked_matches,
)
from laizi.server.store import Store, events, hands, rooms
from tests.cluster_helpers import Cluster, pg_url, redis_server
from tests.server_helpers import (
    FAST_HASH,
    Client,
    InProcessServer,
    Server,
    alembic_config,
    connect,
    http,
    login_cookie,
    open_ranked_table,
    play,
)
from tests.server_helpers import room_info as _info
from tests.server_helpers import standing as _me
from tests.server_helpers import wait_over as _wait_over

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0, "settlement_seconds": 0}
PRESET = "wuhan-hongzhong-kaikou"
__all__ = ["pg_url", "redis_server"]  # the cluster's fixtures, for pytest


@pytest.fixture
def store(db_url: str):
    store = Store(db_url)
    yield store
    store.close()


def _accounts(store: Store, *names: str) -> list[int]:
    service = Accounts(store.engine, hasher=FAST_HASH)
    return [service.register(name, "hongzhong").id for name in names]


def _room(store: Store, code: str, kind: str) -> int:
    return store.create_room(code, Settings.from_json(PRESET).to_json(), {}, kind)


def _paid(*payments: list[int]) -> Paid:
    paid = no_payments()
    for payment in payments:
        add_payments(paid, [Fraction(x) for x in payment])
    return paid


MATCH = _paid(
    [60, -20, -20, -20],  # Ann (seat 0) wins: 20 from each, Bo's 20 between accounts
    [-8, -8, 24, -8],  # Bo's (seat 2) kong: 8 from each, Ann's 8 between accounts
    [100, -300, 100, 100],  # the guest (seat 1) escapes: reaches no account's points
)
"""Ann at seat 0 and Bo at seat 2 are accounts; seat 1 a guest, seat 3 a bot."""


def _seat_ann_and_bo(store: Store, room: int, ann: int, bo: int) -> None:
    link_seat(store.engine, room, 0, ann)
    link_seat(store.engine, room, 2, bo)


def _standing(store: Store, account: int) -> tuple[Fraction, float, float, int]:
    s = standings_of(store.engine, account)["wuhan"]
    return s.points, s.mu, s.sigma, s.matches


# -- the booking -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["friendly", "casual"])
def test_a_friendly_or_casual_match_books_its_totals_and_moves_no_standing(
    store: Store, kind: str
) -> None:
    """Fails on the old booking (every room moved points): Ann kept 0 → 12."""
    ann, bo = _accounts(store, "Ann", "Bo")
    # Ann and Bo already have standings from a ranked match: they must stay exactly.
    ranked = _room(store, "RANK01", "ranked")
    _seat_ann_and_bo(store, ranked, ann, bo)
    book_match(store.engine, ranked, "wuhan", _paid([-7, 0, 7, 0]), 1, 1.0)
    before = _standing(store, ann), _standing(store, bo)
    assert before[0][0] == -7 and before[1][0] == 7 and before[0][1] < MU < before[1][1]

    room = _room(store, "FRND01", kind)
    _seat_ann_and_bo(store, room, ann, bo)
    rows = book_match(store.engine, room, "wuhan", MATCH, 4, 2.0)
    assert [r["account_id"] for r in rows] == [ann, None, bo, None]
    assert [r["total"] for r in rows] == ["152", "-328", "104", "72"]  # the table's totals stay
    assert [r["place"] for r in rows] == [1, 4, 2, 3]
    assert all("points_after" not in r and "mu_after" not in r for r in rows)
    assert (_standing(store, ann), _standing(store, bo)) == before  # points, μ, σ, matches
    with store.engine.connect() as c:
        booked = c.execute(
            select(match_results.c.points_after, match_results.c.mu_after).where(
                match_results.c.room_id == room
            )
        ).all()
    assert [tuple(r) for r in booked] == [(None, None)] * 4
    [latest, _] = match_history(store.engine, ann)
    assert latest["kind"] == kind and latest["total"] == 152
    assert latest["points_before"] is None and latest["rating_after"] is None
    assert book_match(store.engine, room, "wuhan", MATCH, 4) == []  # booked once


def test_the_same_match_in_a_ranked_room_moves_points_and_ratings_exactly(store: Store) -> None:
    ann, bo = _accounts(store, "Ann", "Bo")
    room = _room(store, "RANK02", "ranked")
    _seat_ann_and_bo(store, room, ann, bo)
    rows = book_match(store.engine, room, "wuhan", MATCH, 4, 1.0)
    # Ann won 20 of Bo; Bo's kong took 8 of Ann: +12 / −12 — the guest's escape reaches nobody.
    assert [(r.get("points_before"), r.get("points_after")) for r in rows] == [
        ("0", "12"),
        (None, None),
        ("0", "-12"),
        (None, None),
    ]
    totals = [Fraction(152), Fraction(-328), Fraction(104), Fraction(72)]
    rated = rate([(MU, SIGMA)] * 4, totals)
    assert _standing(store, ann) == (Fraction(12), rated[0][0], rated[0][1], 1)
    assert _standing(store, bo) == (Fraction(-12), rated[2][0], rated[2][1], 1)
    assert rated[0][0] > rated[2][0] > MU  # first and second place rose, the first more
    [match] = match_history(store.engine, ann)
    assert match["kind"] == "ranked" and match["points_after"] == 12


def _finished_hands(store: Store, room: int, ends: list[list[Any]]) -> None:
    """The room's match over, its hands' ends in the log and no booking (a crash between)."""
    with store.engine.begin() as c:
        for number, payments in enumerate(ends):
            hand_id = c.execute(
                insert(hands).values(
                    room_id=room, number=number, dealer=0, seed="00", finished=True
                )
            ).inserted_primary_key[0]  # type: ignore[index]
            end = {"type": "end", "reason": "win", "winner": None, "payments": payments}
            end |= {"hands": ["0"] * 4, "seed": None}
            for i, body in enumerate([{"type": "deal"}, end]):
                c.execute(insert(events).values(hand_id=hand_id, idx=i, body=json.dumps(body)))
        c.execute(update(rooms).where(rooms.c.id == room).values(status="over"))


def test_a_booking_retried_after_a_crash_keeps_the_rule(store: Store) -> None:
    """The startup (and timer) path: ``book_unbooked`` books a friendly match's totals with no
    standing moved, and a ranked one's points exactly."""
    ann, bo = _accounts(store, "Ann", "Bo")
    friendly = _room(store, "CRASH1", "friendly")
    ranked = _room(store, "CRASH2", "ranked")
    for room in (friendly, ranked):
        _seat_ann_and_bo(store, room, ann, bo)
        _finished_hands(store, room, [[9, -3, -3, -3], [-5, 0, 5, 0]])
    assert unbooked_matches(store.engine) == [(friendly, "CRASH1"), (ranked, "CRASH2")]
    assert book_unbooked(store.engine).booked == 2
    assert unbooked_matches(store.engine) == []
    # friendly: 0; ranked: Ann 3 from Bo in hand 0, 5 to Bo in hand 1 → −2 / +2
    assert _standing(store, ann)[0] == -2 and _standing(store, bo)[0] == 2
    assert _standing(store, ann)[3] == _standing(store, bo)[3] == 1
    history = {m["room"]: m for m in match_history(store.engine, ann)}
    assert history["CRASH1"]["total"] == history["CRASH2"]["total"] == 4
    assert history["CRASH1"]["points_after"] is None and history["CRASH2"]["points_after"] == -2


def test_a_match_end_books_after_the_writes_handed_to_the_writer(db_url: str) -> None:
    """The match's last hand was handed to the store's writer (a group commit) and is still
    queued there when the match ends: the booking waits for it — it books both hands, and the
    points of the last one (seen once in CI as ``hands: 1`` when the booking ran beside the
    writer)."""
    store = Store(db_url)
    try:
        assert store.start_writer()
        ann, bo = _accounts(store, "Ann", "Bo")
        room = _room(store, "LAST01", "ranked")
        _seat_ann_and_bo(store, room, ann, bo)
        _finished_hands(store, room, [[9, -3, -3, -3]])
        with store.engine.begin() as c:
            c.execute(update(rooms).where(rooms.c.id == room).values(status="playing"))
        last = store.start_hand(room, 1, 0, bytes(32), [{"type": "deal"}])
        end = {"type": "end", "reason": "win", "winner": None, "payments": [-5, 0, 5, 0]}
        end |= {"hands": ["0"] * 4, "seed": None}
        store.append(last, 1, [end], True, (room, "over"))
        assert store.writer is not None
        store.writer.submit(lambda c: time.sleep(0.3))  # a commit that takes its time
        assert store.commit_async() is not None  # the last hand, queued behind it
        ended = type("Ended", (), {"id": room, "code": "LAST01", "store": store, "rules": None})
        bookings = Bookings(store.engine)
        bookings.match_ended(ended())  # type: ignore[arg-type]
        assert bookings.failed == {}
        [match] = match_history(store.engine, ann)
        assert match["hands"] == ["/api/rooms/LAST01/hands/0", "/api/rooms/LAST01/hands/1"]
        # between the accounts: Ann 3 from Bo in hand 0, 5 to Bo in the last one
        assert _standing(store, ann)[0] == -2 and _standing(store, bo)[0] == 2
    finally:
        store.close()


def test_migration_0007_keeps_what_old_rooms_booked(db_url: str) -> None:
    """Rooms from before: a match begun or over books as it always did (ranked), a room whose
    match had not begun is friendly; booked rows and standings are not touched."""
    store = Store(db_url)
    try:
        ann, bo = _accounts(store, "Ann", "Bo")
        with store.engine.begin() as c:
            command.downgrade(alembic_config(c), "0006_name_skeleton")
            for n, status in enumerate(["waiting", "playing", "over", "expired", "over"]):
                c.execute(
                    text(
                        "INSERT INTO rooms (code, rules, table_settings, status, created) "
                        "VALUES (:code, '\"wuhan-hongzhong-kaikou\"', '{}', :status, 0)"
                    ),
                    {"code": f"OLD{n}", "status": status},
                )
            old = {code: i for i, code in c.execute(text("SELECT id, code FROM rooms")).all()}
            for seat, account in ((0, ann), (2, bo)):  # OLD2 was booked; OLD4 waits for it
                for code in ("OLD2", "OLD4"):
                    c.execute(
                        text("INSERT INTO seat_accounts VALUES (:r, :s, :a)"),
                        {"r": old[code], "s": seat, "a": account},
                    )
        # OLD2's booking (as the old code wrote it): Ann +12, Bo −12.
        with store.engine.begin() as c:
            for seat, account, total, before, after in (
                (0, ann, "152", "0", "12"),
                (2, bo, "104", "0", "-12"),
            ):
                c.execute(
                    text(
                        "INSERT INTO match_results (room_id, seat, account_id, game, total, place,"
                        " points_before, points_after, mu_before, mu_after, sigma_before,"
                        " sigma_after, hands, finished) VALUES (:r, :s, :a, 'wuhan', :t, 1, :b,"
                        " :p, 25, 26, 8, 7, 4, 1)"
                    ),
                    {
                        "r": old["OLD2"],
                        "s": seat,
                        "a": account,
                        "t": total,
                        "b": before,
                        "p": after,
                    },
                )
                c.execute(
                    text("INSERT INTO standings VALUES (:a, 'wuhan', :p, :f, 26, 7, 5, 1, 1)"),
                    {"a": account, "p": after, "f": float(after)},
                )
            booked = c.execute(text("SELECT * FROM match_results ORDER BY seat")).all()
            held = c.execute(text("SELECT * FROM standings ORDER BY account_id")).all()
        store.migrate()
        with store.engine.connect() as c:
            kinds = dict(c.execute(select(rooms.c.code, rooms.c.kind)).all())
            assert kinds == {
                "OLD0": "friendly",
                "OLD1": "ranked",
                "OLD2": "ranked",
                "OLD3": "friendly",
                "OLD4": "ranked",
            }
            assert c.execute(text("SELECT * FROM match_results ORDER BY seat")).all() == booked
            assert c.execute(text("SELECT * FROM standings ORDER BY account_id")).all() == held
        # OLD4 ended before the upgrade and waits for its booking: it books as it would have.
        _finished_hands(store, old["OLD4"], [[9, -3, -3, -3]])
        assert book_unbooked(store.engine).booked == 1
        assert _standing(store, ann)[0] == 15 and _standing(store, bo)[0] == -15
        # A room made now is friendly unless the matchmaker says otherwise.
        assert store.rooms(("waiting",), store.rooms(("waiting",))[0].code)[0].kind == "friendly"
    finally:
        store.close()


# -- a real server: kept seats over WebSocket joins ------------------------------------------------
def _account_id(srv: Server, name: str) -> int:
    account = srv.hub.accounts.by_name(name)
    assert account is not None
    return int(account.id)


async def _refused(client: Client, code: str, **fields: Any) -> dict[str, Any]:
    await client.send({"type": "join", "room": code, **fields})
    return await client.expect("error")


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with InProcessServer(f"sqlite:///{tmp_path / 'db.sqlite3'}") as srv:
        yield srv


def test_a_ranked_tables_seats_are_kept_for_the_accounts_matched(server: InProcessServer) -> None:
    """A stranger's account, a guest, another matched player, a second tab of a matched
    account and a stolen token: each refused with ``seat_reserved`` (or ``already_seated``), in
    both languages; each matched account sits at its own seat and nowhere else."""
    srv = server
    names = ["Ann", "Bo", "Cy", "Di"]
    cookies = {name: login_cookie(srv, name) for name in [*names, "Eve"]}
    ids = [_account_id(srv, name) for name in names]
    order = [2, 0, 3, 1]  # seat → which of them: Cy at seat 0, Ann at 1, Di at 2, Bo at 3
    claims = [SeatClaim.for_account(ids[i]) for i in order]
    code = srv.call(srv.hub.open_matched_room, PRESET, claims, "ranked", None)
    info = _info(srv, code)
    assert info["kind"] == "ranked" and info["status"] == "waiting"
    assert info["table"]["players"] == 4
    status, body = srv.get("/api/lobby")
    assert status == 200
    [entry] = [r for r in json.loads(body)["rooms"] if r["code"] == code]
    assert entry["kind"] == "ranked" and entry["open_seats"] == 0  # no seat open to strangers

    async def main() -> None:
        eve = await connect(srv, cookies["Eve"])
        guest = await connect(srv)
        for client, fields in ((eve, {}), (eve, {"seat": 2}), (guest, {"name": "Guest"})):
            error = await _refused(client, code, **fields)
            assert error["code"] == "seat_reserved", error
            assert "座位只留给匹配到的玩家" in error["message_zh"]
            assert "kept for the players matched" in error["message"]
            assert error["params"] == {}  # nothing here is kept for them
        assert (await _refused(guest, code, token="x" * 24))["code"] == "bad_token"
        ann = await connect(srv, cookies["Ann"])
        wrong = await _refused(ann, code, seat=0)  # Cy's seat
        assert wrong["code"] == "seat_reserved" and wrong["params"] == {"seat": 1}
        assert (await ann.join(code))["seat"] == 1
        second_tab = await connect(srv, cookies["Ann"])
        for fields in ({}, {"seat": 0}):
            assert (await _refused(second_tab, code, **fields))["code"] == "already_seated"
        # Ann's token is no key for anyone else (not even inside the room's own rules)
        for thief in (eve, guest):
            stolen = await _refused(thief, code, token=ann.token)
            assert stolen["code"] == "seat_reserved"
        seats = _info(srv, code)["seats"]
        assert [s["kind"] for s in seats] == ["empty", "human", "empty", "empty"]
        assert seats[1]["name"] == "Ann" and seats[1]["guest"] is False
        assert (await eve.join(code, spectate=True))["seat"] is None  # watching is open
        for client in (ann, second_tab, eve, guest):
            await client.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_casual_table_keeps_a_seat_for_a_guests_key_and_seats_its_bots(
    server: InProcessServer,
) -> None:
    srv = server
    ann_cookie = login_cookie(srv, "Ann")
    ann = _account_id(srv, "Ann")
    key = secrets.token_urlsafe(18)
    claims = [
        SeatClaim.for_bot(),
        SeatClaim.for_guest(key),
        SeatClaim.for_account(ann),
        SeatClaim.for_bot(),
    ]
    code = srv.call(srv.hub.open_matched_room, PRESET, claims, "casual", None)
    info = _info(srv, code)
    assert info["kind"] == "casual" and info["table"]["players"] == 2
    assert [s["kind"] for s in info["seats"]] == ["bot", "empty", "empty", "bot"]

    async def main() -> None:
        stranger = await connect(srv)
        for fields in ({}, {"seat": 1}, {"token": "y" * 24}):
            error = await _refused(stranger, code, name="Guest", **fields)
            assert error["code"] in ("seat_reserved", "bad_token"), error
        guest = await connect(srv)
        joined = await guest.join(code, token=key, name="Lucky")
        assert joined["seat"] == 1 and joined["token"] == key
        assert _info(srv, code)["seats"][1] == {
            "seat": 1,
            "kind": "human",
            "name": "Lucky",
            "connected": True,
            "auto": False,
            "guest": True,
        }
        me = await connect(srv, ann_cookie)
        assert (await me.join(code))["seat"] == 2
        for client in (stranger, guest, me):
            await client.close()

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize(
    ("kind", "claims", "message"),
    [
        ("ranked", [SeatClaim.for_account(1)] * 4, "account 1 twice"),
        ("ranked", [SeatClaim.for_account(a) for a in (1, 2, 3)], "four seats, not 3"),
        ("ranked", [*(SeatClaim.for_account(a) for a in (1, 2, 3)), SeatClaim.for_bot()], "four"),
        ("casual", [SeatClaim.for_bot()] * 4, "a person"),
        ("casual", [SeatClaim.for_guest("short"), *[SeatClaim.for_bot()] * 3], "16 to 128"),
        ("friendly", [SeatClaim.for_account(a) for a in (1, 2, 3, 4)], "casual or ranked"),
    ],
)
def test_the_matchmaker_cannot_open_a_table_that_is_no_table(
    server: InProcessServer, kind: str, claims: list[SeatClaim], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        server.call(server.hub.open_matched_room, PRESET, claims, kind, None)
    assert server.hub.rooms == {}


def test_kept_seats_and_the_kind_survive_a_restart(tmp_path: Path) -> None:
    """Recovery (and a cluster's takeover, the same path) rebuilds the kept seats from the
    database: after a restart a stranger is still refused and the account finds its seat."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with InProcessServer(url) as srv:
        cookies = [login_cookie(srv, n) for n in ("Ann", "Bo")]
        key = secrets.token_urlsafe(18)
        claims = [
            SeatClaim.for_account(_account_id(srv, "Ann")),
            SeatClaim.for_bot(),
            SeatClaim.for_guest(key),
            SeatClaim.for_bot(),
        ]
        code = srv.call(srv.hub.open_matched_room, PRESET, claims, "casual", None)
    with InProcessServer(url) as srv:
        info = _info(srv, code)
        assert info["kind"] == "casual" and info["status"] == "waiting"
        assert [s["kind"] for s in info["seats"]] == ["empty", "bot", "empty", "bot"]

        async def main() -> None:
            bo = await connect(srv, cookies[1])
            assert (await _refused(bo, code))["code"] == "seat_reserved"
            ann = await connect(srv, cookies[0])
            assert (await ann.join(code))["seat"] == 0
            guest = await connect(srv)
            assert (await guest.join(code, token=key))["seat"] == 2
            for client in (bo, ann, guest):
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 60))


def _booked_totals(url: str, code: str) -> list[Fraction]:
    """The exact seat totals the room's match booked."""
    store = Store(url)
    try:
        with store.engine.connect() as c:
            return [
                Fraction(t)
                for t in c.execute(
                    select(match_results.c.total)
                    .join(rooms, rooms.c.id == match_results.c.room_id)
                    .where(rooms.c.code == code)
                    .order_by(match_results.c.seat)
                ).scalars()
            ]
    finally:
        store.close()


# -- a real server: played to the end --------------------------------------------------------------
def test_a_friendly_match_played_to_its_end_moves_no_rank(server: InProcessServer) -> None:
    """Fails on the old server: Ann and Bo's points moved by what they paid each other."""
    srv = server
    ann, bo = (login_cookie(srv, n) for n in ("Ann", "Bo"))
    fresh = _me(srv, ann)
    code = srv.create_room(PRESET, players=2, hands=2, **FAST)["code"]
    assert _info(srv, code)["kind"] == "friendly"

    async def main() -> None:
        clients = [await connect(srv, c) for c in (ann, bo)]
        for client in clients:
            await client.join(code)
        await asyncio.gather(*(play(c, random.Random(i)) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()

    asyncio.run(asyncio.wait_for(main(), 180))
    info = _wait_over(srv, code)
    assert _me(srv, ann) == fresh and _me(srv, bo) == fresh  # points, rank, rating, matches
    assert fresh["points"] == 0 and fresh["matches"] == 0 and fresh["rank"]["zh"] == "白板"
    status, _, body = http(srv, "GET", "/api/me/matches", cookie=ann)
    assert status == 200
    [match] = json.loads(body)["matches"]
    assert match["kind"] == "friendly" and match["points_after"] is None
    assert [s["total"] for s in match["seats"]] == info["totals"]  # the room's totals stay


def test_a_ranked_match_played_to_its_end_moves_each_account_by_its_total(
    server: InProcessServer,
) -> None:
    """Four accounts at a ranked table: every payment is between accounts, so each account's
    strength points move by exactly its seat's total, and the ratings as OpenSkill places them."""
    srv = server
    code, cookies = open_ranked_table(srv, PRESET, ["Ann", "Bo", "Cy", "Di"], hands=2, **FAST)

    async def main() -> None:
        clients = [await connect(srv, c) for c in cookies]
        for seat, client in enumerate(clients):
            assert (await client.join(code))["seat"] == seat
        await asyncio.gather(*(play(c, random.Random(i)) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()

    asyncio.run(asyncio.wait_for(main(), 240))
    info = _wait_over(srv, code)
    totals = _booked_totals(srv.db_url, code)
    assert [float(t) for t in totals] == pytest.approx(info["totals"])
    rated = rate([(MU, SIGMA)] * 4, totals)
    for seat, cookie in enumerate(cookies):
        mine = _me(srv, cookie)
        assert Fraction(mine["points_exact"]) == totals[seat]
        assert mine["matches"] == 1
        assert mine["rating"]["mu"] == round(rated[seat][0], 4)
        assert mine["rating"]["sigma"] == round(rated[seat][1], 4)


# -- a cluster: the matchmaker's table, owned by whichever process takes it ----------------------
def test_a_cluster_process_takes_a_matched_table_and_keeps_its_seats(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """``open_unowned_room`` (``Cluster.open_matched_room``) writes the table with nobody owning
    it: a process of the cluster takes it within seconds, and through either process the
    matched account finds its seat while a stranger is refused."""
    import redis.asyncio as aioredis

    from laizi.server.cluster.fence import FencedStore
    from laizi.server.cluster.node import open_unowned_room

    with Cluster(tmp_path, pg_url, redis_server, 2) as cluster:
        first, second = cluster.nodes
        names = ["Ann", "Bo", "Cy", "Di"]
        cookies = [login_cookie(first, n) for n in [*names, "Eve"]]
        store = FencedStore(pg_url)
        try:
            with store.engine.connect() as c:
                ids = dict(c.execute(select(account_rows.c.name, account_rows.c.id)).all())

            async def open_table() -> str:
                client = aioredis.from_url(redis_server, decode_responses=True)
                try:
                    claims = [SeatClaim.for_account(ids[n]) for n in names]
                    return await open_unowned_room(store, client, cluster.prefix, PRESET, claims)
                finally:
                    await client.aclose()

            started = time.monotonic()
            code = asyncio.run(open_table())
        finally:
            store.close()
        deadline = started + 15
        while cluster.owner_port(code) is None:
            assert time.monotonic() < deadline, "no process took the matched table"
            time.sleep(0.05)
        owner = cluster.owner_port(code)
        other = second if owner == first.port else first
        info = _info(other, code)  # answered by the owner, through the other process
        assert info["kind"] == "ranked" and info["status"] == "waiting"

        async def main() -> None:
            eve = await connect(other, cookies[4])
            assert (await _refused(eve, code))["code"] == "seat_reserved"
            bo = await connect(other, cookies[1])
            assert (await bo.join(code))["seat"] == 1
            for client in (eve, bo):
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 60))
