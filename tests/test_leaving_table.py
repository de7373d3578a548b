"""Leaving a table, against a real ``laizi serve``: an escape never cancels a win pending on the
escapee's own discard (issue 24, item 8), and a seat nobody attends never holds the settlement
(item 9).

The attacks replayed: the discarder sent ``leave`` (逃跑) while another seat's win on its discard
was pending, and the escape penalty replaced the win it would have paid; a person who left during
the settlement (or whose seat the server plays) held the next deal for all of
``settlement_seconds`` although everyone else pressed 继续.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

from laizi.bots import Bot, make_bot
from laizi.engine import Action, make_ruleset, replay_record
from tests.server_helpers import Client, ServerProcess, play
from tests.test_fair_table import records

RULES = "wuhan-hongzhong-kaikou"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("leaving") / "db.sqlite3"
    fast = ("--message-rate", "100000", "--message-burst", "100000")
    with ServerProcess(path, args=fast) as srv:
        yield srv


def run(coro: Any, timeout: float) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


def exact(value: Any) -> Fraction:
    return Fraction(str(value))


def paid(end: dict[str, Any]) -> list[Fraction]:
    """An ``end`` event's payments, exact (``payments_exact`` where a share is 400/3)."""
    return [exact(p) for p in end.get("payments_exact", end["payments"])]


# -- 8. an escape waits for the claim window on one's own discard ------------------------------
@dataclass
class Trap:
    """The first claim window in which a seat may win on another seat's discard: the discarder
    leaves, then the winner wins."""

    winner: int | None = None
    discarder: int | None = None
    tile: str | None = None
    hand: int | None = None


async def snapshot_view(client: Client) -> dict[str, Any]:
    """The seat's own view, as a bot of the server gets it (a ``resync`` without ``last_seq``)."""
    await client.send({"type": "resync"})
    while True:
        message = await client.recv(30)
        if message["type"] == "snapshot":
            return dict(message["view"])


async def sit_and_play(
    client: Client, clients: list[Client], bot: Bot, trap: Trap, hands: list[int]
) -> None:
    """Play the seat with ``bot`` (from the seat's own view) until the match ends — but spring
    the trap at the first discard another seat may win on."""
    answered: set[int] = set()
    discarder: int | None = None
    tile: str | None = None
    while True:
        message = await client.recv(60)
        kind = message["type"]
        if kind == "left":
            return
        if kind == "event":
            event = message["event"]
            if event["type"] == "start":
                hands.append(event["hand"])
            elif event["type"] == "discard" and not event.get("lay_out"):
                discarder, tile = event["seat"], event["tile"]
            elif event["type"] == "match_end":
                return
        elif kind == "pause" and client.seat in message["waiting"]:
            await client.send({"type": "continue"})
        elif kind == "prompt" and message["id"] not in answered:
            answered.add(message["id"])
            legal = message["legal"]
            win = {"type": "win"}
            if message["phase"] == "claim" and win in legal:
                if trap.winner is None and discarder is not None:
                    # The trap: the discarder escapes while this seat's win is pending ...
                    trap.winner, trap.discarder, trap.tile = client.seat, discarder, tile
                    trap.hand = hands[-1]
                    escapee = clients[discarder]
                    await escapee.send({"type": "leave"})
                    while not any(m["type"] == "left" for m in escapee.messages):
                        await asyncio.sleep(0.01)  # "left": the server has done with the leave
                    # ... and the win comes after it.
                    await client.send({"type": "act", "prompt": message["id"], "action": win})
                else:  # one winner only: the trap's
                    action = {"type": "pass"}
                    await client.send({"type": "act", "prompt": message["id"], "action": action})
                continue
            view = await snapshot_view(client)
            assert client.seat is not None
            options = [Action.from_json({**a, "seat": client.seat}) for a in legal]
            chosen = bot.act(view, options).to_json()
            del chosen["seat"]
            await client.send({"type": "act", "prompt": message["id"], "action": chosen})


def test_escaping_during_a_win_on_ones_own_discard_pays_the_win_then_escapes(
    server: ServerProcess,
) -> None:
    table = {
        "players": 4,
        "hands": 64,
        "settlement_seconds": 0,
        "between_hands_ms": 0,
        "claim_window_ms": 50,
        "action_seconds": 60,
    }
    code = server.create_room(RULES, **table)["code"]

    async def main() -> tuple[Trap, list[Client]]:
        clients = [await Client.connect(server.ws) for _ in range(4)]
        for seat, client in enumerate(clients):
            await client.join(code, seat=seat)
        trap = Trap()
        hands: list[list[int]] = [[] for _ in clients]
        bots = [make_bot("greedy", RULES, seed=seat) for seat in range(4)]
        await asyncio.gather(
            *(sit_and_play(c, clients, bots[i], trap, hands[i]) for i, c in enumerate(clients))
        )
        for client in clients:
            await client.close()
        return trap, clients

    trap, clients = run(main(), 400)
    assert trap.winner is not None and trap.discarder is not None and trap.hand is not None
    winner, escapee = trap.winner, trap.discarder
    hands = records(server, code)

    # The window's hand: the win on the escapee's discard, paid in full (on the old code the
    # leave ended it at once: reason "abandon", the win refused).
    won = hands[trap.hand]
    assert [e["type"] for e in won[-2:]] == ["win", "end"]
    win = next(e for e in won if e["type"] == "win")
    assert (win["seat"], win["how"], win["from"], win["tile"]) == (
        winner,
        "discard",
        escapee,
        trap.tile,
    )
    end = won[-1]
    assert (end["reason"], end["winner"]) == ("win", winner)
    assert not any(e["type"] == "abandon" for e in won)
    payments = paid(end)
    assert sum(payments) == 0 and payments[escapee] < 0
    # Exactly what the winner was shown it would collect on the escapee's discard (hints) ...
    shown = [
        m
        for m in clients[winner].messages
        if m["type"] == "hints" and m["waits"] and any(w["tile"] == trap.tile for w in m["waits"])
    ][-1]
    wait = next(w for w in shown["waits"] if w["tile"] == trap.tile)
    assert payments[winner] == exact(wait["on_discard_from"][str(escapee)])
    # ... and what the engine settles for that win (the record replays event for event).
    replayed, produced = replay_record(won)
    assert produced == won and replayed.result is not None
    assert list(replayed.result["payments"]) == payments

    # Then the escape: the next hand ends at once in the escapee's abandon, with the penalty.
    assert len(hands) == trap.hand + 2
    escape = hands[trap.hand + 1]
    assert [e["type"] for e in escape[-2:]] == ["abandon", "end"]
    assert escape[-2]["seat"] == escapee
    assert (escape[-1]["reason"], escape[-1]["seat"]) == ("abandon", escapee)
    penalty = list(make_ruleset(RULES).escape_payments(escapee))
    assert paid(escape[-1]) == penalty
    assert penalty[escapee] == -400 and all(
        penalty[s] == Fraction(400, 3) for s in range(4) if s != escapee
    )
    ends = [m["event"] for m in clients[winner].messages if m["type"] == "event"]
    match_end = next(e for e in ends if e["type"] == "match_end")
    assert match_end["escaped"] == escapee and match_end["hands"] == trap.hand + 2
    totals = [sum(paid(h[-1])[s] for h in hands) for s in range(4)]
    assert [exact(t) for t in match_end["totals"]] == pytest.approx(totals)


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
