"""Leaving a table, against a real ``laizi serve``: an escape never cancels a win pending at the
table — on the escapee's own discard, on another seat's discard, or self-drawn (issue 24, item 8)
— and a seat nobody attends never holds the settlement (item 9).

The attacks replayed: a seat sent ``leave`` (逃跑) while another seat's win was pending (on the
escapee's discard, on its partner's, or on the tile the winner drew), and the escape penalty
replaced the win; a person who left during the settlement (or whose seat the server plays) held
the next deal for all of ``settlement_seconds`` although everyone else pressed 继续.
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
from tests.server_helpers import Client, ServerProcess, play, records

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


# -- 8. an escape waits for the decision in progress (a win there is paid first) -------------
@dataclass
class Trap:
    """The first chance some seat has to win a ``how`` win (``"discard"`` or ``"self_draw"``):
    another seat leaves — for a win on a discard, the discarder itself (``escaper``
    ``"discarder"``) or a third seat (``"third"``) — then the winner wins."""

    how: str = "discard"
    escaper: str = "discarder"
    winner: int | None = None
    discarder: int | None = None
    escapee: int | None = None
    tile: str | None = None
    hand: int | None = None


async def snapshot_view(client: Client) -> dict[str, Any] | None:
    """The seat's own view, as a bot of the server gets it (a ``resync`` without ``last_seq``);
    None once the seat has left (the trap may make it leave while it is asking: no snapshot
    comes then)."""
    await client.send({"type": "resync"})
    while True:
        message = await client.recv(30)
        if message["type"] == "snapshot":
            return dict(message["view"])
        if message["type"] == "left":
            return None


async def spring(trap: Trap, clients: list[Client], winner: int, escapee: int) -> None:
    """The escapee leaves while the winner's win is pending (the leave is done with once the
    server answers ``left``); the winner's win comes after it."""
    trap.winner, trap.escapee = winner, escapee
    await clients[escapee].send({"type": "leave"})
    deadline = time.monotonic() + 60
    while not any(m["type"] == "left" for m in clients[escapee].messages):
        tail = [m.get("type") for m in clients[escapee].messages[-8:]]
        assert time.monotonic() < deadline, f"seat {escapee} was never told left: {tail}"
        await asyncio.sleep(0.01)


async def sit_and_play(
    client: Client, clients: list[Client], bot: Bot, trap: Trap, hands: list[int]
) -> None:
    """Play the seat with ``bot`` (from the seat's own view) until the match ends — but spring
    the trap at the first win of its kind; every other win on a discard is passed (one winner
    only: the trap's)."""
    answered: set[int] = set()
    discarder: int | None = None
    tile: str | None = None
    drawn: dict[str, Any] | None = None  # the seat's own last draw
    seat = client.seat
    assert seat is not None
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
            elif event["type"] == "draw" and event["seat"] == seat:
                drawn = event
            elif event["type"] == "match_end":
                return
        elif kind == "pause" and seat in message["waiting"]:
            await client.send({"type": "continue"})
        elif kind == "prompt" and message["id"] not in answered:
            answered.add(message["id"])
            legal = message["legal"]
            win = {"type": "win"}
            act = {"type": "act", "prompt": message["id"]}
            armed = trap.winner is None and win in legal
            if message["phase"] == "claim" and win in legal:
                if armed and trap.how == "discard" and discarder is not None:
                    third = min({0, 1, 2, 3} - {seat, discarder})
                    escapee = discarder if trap.escaper == "discarder" else third
                    trap.discarder, trap.tile, trap.hand = discarder, tile, hands[-1]
                    await spring(trap, clients, seat, escapee)
                    await client.send({**act, "action": win})
                else:
                    await client.send({**act, "action": {"type": "pass"}})
                continue
            plain = drawn is not None and drawn["from"] == "front" and not drawn.get("final")
            if message["phase"] == "turn" and armed and trap.how == "self_draw" and plain:
                assert drawn is not None
                trap.tile, trap.hand = drawn["tile"], hands[-1]
                await spring(trap, clients, seat, (seat + 2) % 4)
                await client.send({**act, "action": win})
                continue
            view = await snapshot_view(client)
            if view is None:
                return  # the trap made this seat leave
            options = [Action.from_json({**a, "seat": seat}) for a in legal]
            chosen = bot.act(view, options).to_json()
            del chosen["seat"]
            await client.send({**act, "action": chosen})


def spring_trap(server: ServerProcess, trap: Trap) -> tuple[str, list[Client]]:
    """Four people at a 64-hand table, each played by a greedy bot from its own view, until the
    trap is sprung and the match ends in the escape."""
    table = {
        "players": 4,
        "hands": 64,
        "settlement_seconds": 0,
        "between_hands_ms": 0,
        "claim_window_ms": 50,
        "action_seconds": 60,
    }
    code = server.create_room(RULES, **table)["code"]

    async def main() -> list[Client]:
        clients = [await Client.connect(server.ws) for _ in range(4)]
        for seat, client in enumerate(clients):
            await client.join(code, seat=seat)
        hands: list[list[int]] = [[] for _ in clients]
        bots = [make_bot("greedy", RULES, seed=seat) for seat in range(4)]
        await asyncio.gather(
            *(sit_and_play(c, clients, bots[i], trap, hands[i]) for i, c in enumerate(clients))
        )
        for client in clients:
            await client.close()
        return clients

    clients: list[Client] = run(main(), 400)
    assert trap.winner is not None and trap.escapee is not None and trap.hand is not None
    return code, clients


def check_win_then_escape(
    server: ServerProcess, code: str, trap: Trap, clients: list[Client]
) -> None:
    """The trap's hand ended in the win, paid in full and exactly; the next hand ended at once
    in the escapee's abandon, with the escape penalty; the match ended there."""
    assert trap.winner is not None and trap.escapee is not None and trap.hand is not None
    winner, escapee = trap.winner, trap.escapee
    hands = records(server, code)

    # The trap's hand: the win, paid in full (on the old code the leave ended it at once:
    # reason "abandon", the win refused).
    won = hands[trap.hand]
    assert [e["type"] for e in won[-2:]] == ["win", "end"]
    win = won[-2]
    assert (win["seat"], win["how"], win["tile"], win.get("from")) == (
        winner,
        trap.how,
        trap.tile,
        trap.discarder,
    )
    end = won[-1]
    assert (end["reason"], end["winner"]) == ("win", winner)
    assert not any(e["type"] == "abandon" for e in won)
    payments = paid(end)
    assert sum(payments) == 0 and payments[winner] > 0
    # Exactly what the winner was shown it would collect on that tile, that way (hints) ...
    shown = [
        m
        for m in clients[winner].messages
        if m["type"] == "hints" and m["waits"] and any(w["tile"] == trap.tile for w in m["waits"])
    ][-1]
    wait = next(w for w in shown["waits"] if w["tile"] == trap.tile)
    if trap.discarder is None:
        assert payments[winner] == exact(wait["self_drawn"])
    else:
        assert payments[trap.discarder] < 0
        assert payments[winner] == exact(wait["on_discard_from"][str(trap.discarder)])
    # ... and what the engine settles for that win (the record replays event for event).
    replayed, produced = replay_record(won)
    assert produced == won and replayed.result is not None
    assert list(replayed.result["payments"]) == payments

    # Then the escape: the next hand ends at once in the escapee's abandon, with the penalty.
    assert len(hands) == trap.hand + 2
    escape = hands[trap.hand + 1]
    assert [e["type"] for e in escape[-2:]] == ["abandon", "end"]
    assert escape[-2]["seat"] == escapee
    assert not any(e["type"] in ("discard", "win") for e in escape)
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


def test_escaping_during_a_win_on_ones_own_discard_pays_the_win_then_escapes(
    server: ServerProcess,
) -> None:
    trap = Trap("discard", "discarder")
    code, clients = spring_trap(server, trap)
    assert trap.escapee == trap.discarder
    check_win_then_escape(server, code, trap, clients)


def test_a_third_seat_escaping_during_a_win_on_a_discard_pays_the_win_then_escapes(
    server: ServerProcess,
) -> None:
    """Two colluders: one discards into the winner's hand, the other escapes while the win is
    pending — the escape waits for the claim window, the discarder pays the win."""
    trap = Trap("discard", "third")
    code, clients = spring_trap(server, trap)
    assert trap.escapee not in (trap.winner, trap.discarder)
    check_win_then_escape(server, code, trap, clients)


def test_escaping_while_another_seat_holds_a_self_drawn_win_pays_the_win_then_escapes(
    server: ServerProcess,
) -> None:
    """A seat leaves while the seat to act may win on the tile it drew: the escape waits for
    that turn's decision, the self-drawn win is paid by everyone."""
    trap = Trap("self_draw")
    code, clients = spring_trap(server, trap)
    assert trap.escapee != trap.winner
    check_win_then_escape(server, code, trap, clients)


TURN_MOVES = ("discard", "lay_out", "concealed_kong", "added_kong", "win")
"""The events of a decision on one's turn."""


async def until_turn(client: Client) -> dict[str, Any]:
    """Pass every claim until the seat's own turn is asked: that prompt (left unanswered)."""
    while True:
        message = await client.recv(60)
        if message["type"] != "prompt":
            continue
        if message["phase"] == "turn":
            return message
        await client.send({"type": "act", "prompt": message["id"], "action": {"type": "pass"}})


def test_an_escape_waits_for_the_turn_being_decided_and_no_longer_than_its_clock(
    server: ServerProcess,
) -> None:
    """Always — whether or not the seat to act could win (the wait tells nothing) — and bounded
    by that seat's clock: a seat leaves during another person's turn, which that person lets
    run out; its time-out discard (and the claim window on it) comes first, then the abandon."""
    table = {
        "players": 2,
        "hands": 2,
        "action_seconds": 2,
        "bank_seconds": 0,
        "bot_delay_ms": 0,
        "claim_window_ms": 50,
        "between_hands_ms": 0,
    }
    code = server.create_room(RULES, **table)["code"]

    async def main() -> tuple[int, float, list[dict[str, Any]]]:
        clients = [await Client.connect(server.ws) for _ in range(2)]
        for seat, client in enumerate(clients):
            await client.join(code, seat=seat)
        tasks = [asyncio.ensure_future(until_turn(c)) for c in clients]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        asking = tasks.index(next(iter(done)))
        stays, leaves = clients[asking], clients[1 - asking]
        left = time.monotonic()
        await leaves.send({"type": "leave"})
        await leaves.expect("left")
        while True:  # the seat to act never answers: its clock (2 s) runs out
            message = await stays.recv(30)
            if message["type"] == "event" and message["event"]["type"] == "abandon":
                break
        waited = time.monotonic() - left
        events = [m["event"] for m in stays.messages if m["type"] == "event"]
        for client in clients:
            await client.close()
        return asking, waited, events

    asking, waited, events = run(main(), 120)
    assert 1.5 < waited < 30.0  # the turn's 2 s first (on the old code: at once)
    start = max(i for i, e in enumerate(events) if e["type"] == "start")
    hand = events[start:]
    abandon = next(i for i, e in enumerate(hand) if e["type"] == "abandon")
    # The time-out's safe default (a discard, or a tile laid out, or a kong), then the abandon:
    # the turn was decided first.
    decided = [e for e in hand[:abandon] if e.get("seat") == asking and e["type"] in TURN_MOVES]
    assert len(decided) == 1, hand
    assert [e["type"] for e in events[-3:]] == ["abandon", "end", "match_end"]
    assert events[-3]["seat"] == 1 - asking and events[-2]["reason"] == "abandon"


def test_an_escapee_holding_a_claim_is_passed_at_once_and_stalls_nothing(
    server: ServerProcess,
) -> None:
    """A seat leaves while it may claim a discard (its own 60 s clock running): its claim is
    passed at once — the window, and the escape after it, do not wait for that clock."""
    table = {
        "players": 2,
        "hands": 16,
        "action_seconds": 60,
        "bank_seconds": 0,
        "bot_delay_ms": 0,
        "claim_window_ms": 50,
        "settlement_seconds": 0,
        "between_hands_ms": 0,
    }
    code = server.create_room(RULES, **table)["code"]

    async def leave_when_asked_to_claim(client: Client, stays: Client) -> float:
        rng = random.Random(5)
        while True:
            message = await client.recv(60)
            if message["type"] != "prompt":
                continue
            if message["phase"] != "claim":
                action = rng.choice(message["legal"])
                await client.send({"type": "act", "prompt": message["id"], "action": action})
                continue
            left = time.monotonic()  # a claim prompt, left unanswered
            await client.send({"type": "leave"})
            await client.expect("left")
            while not any(
                m["type"] == "event" and m["event"]["type"] == "abandon" for m in stays.messages
            ):
                await asyncio.sleep(0.01)
            return time.monotonic() - left

    async def main() -> float:
        leaves, stays = [await Client.connect(server.ws) for _ in range(2)]
        for seat, client in enumerate([leaves, stays]):
            await client.join(code, seat=seat)
        waited, _ = await asyncio.gather(
            leave_when_asked_to_claim(leaves, stays), play(stays, random.Random(6))
        )
        for client in (leaves, stays):
            await client.close()
        return float(waited)

    waited = run(main(), 300)
    assert waited < 20.0  # not the escapee's 60 s
    hand = records(server, code)[-1]
    assert [e["type"] for e in hand[-2:]] == ["abandon", "end"] and hand[-2]["seat"] == 0
    last = max(i for i, e in enumerate(hand) if e["type"] == "discard" and e["seat"] != 0)
    assert {"type": "pass", "seat": 0} in hand[last:]  # the escapee's claim, passed


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
