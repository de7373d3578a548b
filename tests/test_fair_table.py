"""No side channels, clocks that only run down, 托管 after a reconnect, players' entropy in deals.

The attacks of the security review, replayed: the prompt id counted every seat's decisions (so a
seat could tell that another one could claim a discard), a bot's claim took longer than no claim
at all, ``auto off`` every 1.5 s held a turn for ever, a reconnected player was not told it was
on 托管, and only the server chose the deal's seed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from laizi.bots import make_bot
from laizi.engine import verify
from laizi.engine.wall import wall_from_parts
from laizi.server import hub as server_hub
from laizi.server.room import match as room_match
from laizi.tiles import parse_tiles
from tests.engine_helpers import deal_json
from tests.server_helpers import SRC, Client, ServerProcess, local_table, records


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_db_url: str):
    path = tmp_path_factory.mktemp("fair") / "db.sqlite3"
    with ServerProcess(path, db_url=module_db_url) as srv:
        yield srv


def run(coro: Any, timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=60,
    )


# -- 3. no side channel in what a seat receives ----------------------------------------------------
SEAT0 = "9m 1m 2m 4m 5m 1p 3p 5p 7p 1s 3s 5s 7s 9s"  # the dealer; discards 9m first
SEAT1_CAN_PUNG = "9m 9m 2p 4p 6p 8p 2s 4s 6s 8s 1m 3m 5m"
SEAT1_CANNOT = "6m 6m 2p 4p 6p 8p 2s 4s 6s 8s 1m 3m 5m"
SEAT2 = "2m 3m 4m 2p 3p 4p 2s 3s 4s 5p 6p 7p 8s"
SEAT3 = "7m 8m 1p 2p 7p 8p 1s 5s 6s 7s 9p 9p 9s"
DRAWS = "1m 3p 5s 7m 2m 4p 6s 8m 3m 5p 7s 9p 4m 6p 8s 1p 2s 3s 4s 5m"


def scripted_wall(seat1: str) -> tuple[int, ...]:
    hands = [SEAT0, seat1, SEAT2, SEAT3]
    return wall_from_parts(
        [parse_tiles(h.replace(" ", "")) for h in hands],
        parse_tiles("3z"),
        parse_tiles(DRAWS.replace(" ", "")),
        [],
    )


def normalised(text: str) -> str:
    """A message with what is timing (elapsed, bank) or a fresh secret (token) blanked out."""
    message = json.loads(text)
    for key in ("elapsed", "bank", "token"):
        if key in message:
            message[key] = "*"
    return json.dumps(message, sort_keys=True, ensure_ascii=False)


async def watched_table(tmp_path: Path, seat1_hand: str, prompts: int) -> list[str]:
    """Seat 0's messages (encoded as sent) up to its ``prompts``-th prompt, at a table where
    seat 1 holds ``seat1_hand`` and passes every claim, and bots sit at seats 2 and 3."""
    wall = scripted_wall(seat1_hand)
    at = local_table(
        tmp_path / (seat1_hand[:2] + ".sqlite3"),
        "wuhan-hongzhong-kaikou",
        {"players": 2, "hands": 1, "bot_delay_ms": 0, "between_hands_ms": 0},
        lambda ruleset, dealer: deal_json(ruleset, dealer, wall=wall),
    )

    async def drive(seat: int) -> None:
        drawn: str | None = None
        asked = 0
        while True:
            message = json.loads(await at.inboxes[seat].get())
            if message["type"] == "event":
                event = message["event"]
                if event["type"] == "draw" and event.get("seat") == seat:
                    drawn = event.get("tile")
            if message["type"] != "prompt":
                continue
            asked += 1
            legal = message["legal"]
            if seat == 0 and asked == prompts:
                return
            if seat == 0 and asked == 1:
                action = {"type": "discard", "tile": "9m"}
            else:
                passes = [a for a in legal if a["type"] == "pass"]
                discards = [a for a in legal if a["type"] == "discard"]
                same = [a for a in discards if a["tile"] == drawn]
                action = (passes or same or discards)[0]
            at.act(seat, message["id"], action)

    seat1 = asyncio.create_task(drive(1))
    await drive(0)
    seat1.cancel()
    await asyncio.sleep(0)
    at.hub.store.close()
    return at.sent[0]


def test_another_seats_hidden_claim_option_changes_no_byte_this_seat_receives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 1 can pung seat 0's first discard in one run and not in the other (it passes): seat
    0 receives the same messages, byte for byte, timing fields aside — prompt ids included."""
    monkeypatch.setattr(
        room_match, "bot_player", lambda level, rules: make_bot(level, rules, seed=7)
    )
    monkeypatch.setattr(server_hub, "new_code", lambda: "FAIR23")
    can = run(watched_table(tmp_path, SEAT1_CAN_PUNG, prompts=4))
    cannot = run(watched_table(tmp_path, SEAT1_CANNOT, prompts=4))
    assert [normalised(m) for m in can] == [normalised(m) for m in cannot]
    prompts = [json.loads(m) for m in can if json.loads(m)["type"] == "prompt"]
    assert len(prompts) == 4
    # The ids are seat 0's own count of events seen: increasing, told by nothing hidden.
    ids = [p["id"] for p in prompts]
    assert ids == sorted(set(ids))
    events = [json.loads(m) for m in can if json.loads(m)["type"] == "event"]
    assert events[2]["event"] == {"type": "discard", "seat": 0, "tile": "9m", "moqie": False}
    # The one field that differs between the runs is hidden: seat 1 had a claim prompt.
    assert all(
        e["event"]["type"] not in ("claim", "pass") or e["event"]["seat"] == 0 for e in events
    )


# -- 3. the claim window's pause ---------------------------------------------------------------
def test_every_discard_waits_the_same_window_whether_or_not_a_bot_could_claim(
    server: ServerProcess,
) -> None:
    """A person watches three bots: after each bot discard, the next event comes after the same
    pause whether some bot could claim it (the record shows its claim or pass) or nobody
    could."""
    window = 0.25
    room = server.create_room(
        players=1,
        hands=1,
        bot_delay_ms=20,
        claim_window_ms=int(window * 1000),
        between_hands_ms=0,
        action_seconds=30,
    )
    arrivals: list[tuple[float, dict[str, Any]]] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        while True:
            message = await c.recv(60)
            if message["type"] == "event":
                arrivals.append((loop.time(), message["event"]))
                if message["event"]["type"] in ("end", "match_end"):
                    return
            elif message["type"] == "prompt":
                legal = message["legal"]
                action = next((a for a in legal if a["type"] == "pass"), None)
                if action is None:
                    action = next((a for a in legal if a["type"] == "discard"), legal[0])
                await c.send({"type": "act", "prompt": message["id"], "action": action})

    run(main(), timeout=300)
    [record] = records(server, room["code"])
    # Which discards some bot could claim: the record has a claim or pass right after them.
    claimable: list[bool] = []
    for k, event in enumerate(record):
        if event["type"] == "discard" and event["seat"] != 0 and not event.get("lay_out"):
            follow = record[k + 1] if k + 1 < len(record) else {}
            claimable.append(follow.get("type") in ("claim", "pass"))
    # The pause: from a discard to the next event — not counting our own claim or pass, which
    # reaches us as soon as we decide.
    others = [(t, e) for t, e in arrivals if e["type"] not in ("claim", "pass")]
    gaps: list[float] = []
    for k, (at, event) in enumerate(others[:-1]):
        if event["type"] == "discard" and event["seat"] != 0 and not event.get("lay_out"):
            gaps.append(others[k + 1][0] - at)
    assert len(gaps) == len(claimable) and len(gaps) >= 10
    with_claim = [g for g, c in zip(gaps, claimable, strict=True) if c]
    without = [g for g, c in zip(gaps, claimable, strict=True) if not c]
    assert with_claim and without, (with_claim, without)
    # On a loaded machine a slow database commit can delay one message past the next one: judge
    # the typical pause, not every single one.
    near = [g for g in gaps if window - 0.05 <= g <= window + 0.5]
    assert len(near) >= 0.8 * len(gaps), gaps
    for group in (with_claim, without):
        assert window - 0.05 <= statistics.median(group) <= window + 0.2, group
    assert abs(statistics.median(with_claim) - statistics.median(without)) < 0.1


# -- 5. clocks only run down -----------------------------------------------------------------------
def test_auto_off_every_1_5_s_no_longer_holds_the_turn(server: ServerProcess) -> None:
    """The attack: never act, send ``auto off`` every 1.5 s.  The seat times out on schedule
    (action_seconds + bank), plays the safe default, and no prompt is re-issued meanwhile."""
    room = server.create_room(
        players=1,
        hands=1,
        action_seconds=2.5,
        bank_seconds=1.0,
        bot_delay_ms=0,
        between_hands_ms=0,
    )

    async def main() -> tuple[float, list[dict[str, Any]]]:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        prompt = await c.expect("prompt")
        # the clock started when the server asked, ``elapsed`` before a prompt sent again on join
        asked = loop.time() - float(prompt.get("elapsed", 0.0))
        timed_out = None
        while loop.time() - asked < 8 and timed_out is None:
            await c.send({"type": "auto", "on": False})
            deadline = loop.time() + 1.5
            while loop.time() < deadline:
                try:
                    message = await c.recv(max(0.01, deadline - loop.time()))
                except TimeoutError:
                    break
                if message["type"] == "auto" and message["on"] is True:
                    timed_out = loop.time() - asked
                    break
        after = [m for m in c.messages if m["type"] == "prompt"]
        await c.close()
        assert timed_out is not None, "the seat never timed out: the turn was held"
        assert after[0] == prompt
        return timed_out, after

    timed_out, prompts = run(main())
    # 2.5 s + 1 s bank.  Below: the bank was spent (2.5 s alone would time out by 2.5 s; the
    # first prompt may reach us late on a loaded machine, which shortens what we measure).
    # Above: ``auto off`` did not restart the clock (each would push it 1.5 s further).
    assert 2.9 <= timed_out <= 5.0
    # Only the first prompt of the seat's turn came while it held out (no fresh prompt, no
    # fresh clock); any later one is for another decision, after the timeout.
    assert prompts[0]["id"] not in [p["id"] for p in prompts[1:]]
    record = records(server, room["code"])
    first_own = next(e for e in record[0][2:] if e.get("seat") == 0) if record else None
    assert first_own is None or first_own["type"] in ("discard", "abandon")


@dataclass
class TakenBack:
    """What a player saw who put 托管 on at the first prompt and, ``hold`` s later, off again
    (times on the client's loop clock)."""

    first: dict[str, Any]  # the first prompt
    asked: float  # when the server asked it
    back: float  # when 托管 was turned off
    decided: float | None  # when the seat's first event arrived
    event: dict[str, Any] | None  # that event
    after: list[dict[str, Any]]  # every message from ``back`` on

    def autos_before_next_prompt(self) -> list[bool]:
        """The ``auto`` messages after ``back`` and before the seat was asked anything new: a
        later prompt has its own clock (the bank is spent by then), and on a loaded machine the
        listening can last until that one times out too."""
        autos: list[bool] = []
        for m in self.after:
            if m["type"] == "prompt" and m["id"] != self.first["id"]:
                break
            if m["type"] == "auto":
                autos.append(m["on"])
        return autos


async def take_the_seat_back(
    server: ServerProcess, code: str, hold: float, listen: float
) -> TakenBack:
    """Join the room's one seat for a person, put 托管 on at its first prompt, turn it off ``hold``
    seconds later, and listen ``listen`` seconds more."""
    loop = asyncio.get_running_loop()
    c = await Client.connect(server.ws)
    await c.join(code)
    first = await c.expect("prompt")
    asked = loop.time() - float(first.get("elapsed", 0.0))
    await c.send({"type": "auto", "on": True})
    while (await c.expect("auto"))["on"] is not True:
        pass
    await asyncio.sleep(hold)
    back = loop.time()
    await c.send({"type": "auto", "on": False})
    seen = TakenBack(first, asked, back, None, None, [])
    while loop.time() - back < listen:
        try:
            message = await c.recv(0.05)
        except TimeoutError:
            continue
        seen.after.append(message)
        event = message.get("event", {})
        if seen.event is None and message["type"] == "event" and event.get("seat") == c.seat:
            seen.decided, seen.event = loop.time(), event
    await c.close()
    return seen


def test_taking_the_seat_back_after_its_time_ran_out_keeps_auto_play_off(
    server: ServerProcess,
) -> None:
    """托管 on while a decision is asked (托管 would decide it after ``bot_delay_ms``, 3 s);
    once the decision's own time (0.3 s + 0.2 s bank) is spent the player turns 托管 off: the
    decision gets the safe default at once — no fresh time — and 托管 stays off (before, the
    spent clock timed out at once and put the seat straight back on 托管)."""
    room = server.create_room(
        players=1,
        hands=1,
        action_seconds=0.3,
        bank_seconds=0.2,
        bot_delay_ms=3000,
        between_hands_ms=0,
    )
    seen = run(take_the_seat_back(server, room["code"], hold=0.8, listen=1.5))
    assert seen.decided is not None, "the spent decision was not played"
    assert seen.decided - seen.back < 1.0  # at once, not after 托管's 3 s
    assert seen.autos_before_next_prompt() == [False]  # turned off, and not back on


def test_a_decision_taken_back_from_auto_play_is_asked_after_the_reply_on_its_own_clock(
    server: ServerProcess,
) -> None:
    """托管 on while a decision is asked (it would decide after 3 s), then off again with time
    left: the ``auto`` ``off`` reply comes first, then the same prompt (before, the prompt came
    first, and a client waiting for the reply missed it).  Its clock runs from when it was
    asked: the player lets it run out, and it times out like any prompt — the safe default at
    1 s + 0.2 s bank, not 托管's 3 s, and 托管 on again."""
    room = server.create_room(
        players=1,
        hands=1,
        action_seconds=1.0,
        bank_seconds=0.2,
        bot_delay_ms=3000,
        between_hands_ms=0,
    )
    seen = run(take_the_seat_back(server, room["code"], hold=0, listen=2.5))
    assert seen.decided is not None, "the taken-back decision was never played"
    assert seen.event is not None and seen.event["type"] == "discard"  # a turn's safe default
    kinds = [m["type"] for m in seen.after if m["type"] in ("auto", "prompt")]
    assert kinds[:2] == ["auto", "prompt"], kinds  # the reply, then the decision again
    again = next(m for m in seen.after if m["type"] == "prompt")
    assert again["id"] == seen.first["id"] and again["legal"] == seen.first["legal"]
    # at the prompt's own deadline (1.2 s after it was asked), not 托管's 3 s
    assert 1.0 <= seen.decided - seen.asked <= 2.0
    assert [m["on"] for m in seen.after if m["type"] == "auto"] == [False, True]  # a time-out


def test_resync_and_auto_messages_never_give_a_fresh_prompt(server: ServerProcess) -> None:
    """Resync every 0.3 s while the clock runs: the prompt comes again with the same id and the
    time already used, and the seat times out 2 s after the server asked.  A resync that
    restarted the clock would put the time-out at least 2 s after the last resync (past 3.8 s)."""
    room = server.create_room(
        players=1,
        hands=1,
        action_seconds=2.0,
        bank_seconds=0,
        bot_delay_ms=0,
        between_hands_ms=0,
    )

    async def main() -> float:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        first = await c.expect("prompt")
        asked = loop.time() - float(first.get("elapsed", 0.0))
        resyncs = again = 0
        while True:
            try:
                message = await c.recv(0.3)
            except TimeoutError:
                if resyncs < 6:  # 0.3 s .. 1.8 s after the prompt
                    resyncs += 1
                    await c.send({"type": "resync", "last_seq": c.last_seq})
                continue
            if message["type"] == "prompt":
                assert message["id"] == first["id"] and message["elapsed"] > 0
                assert message["bank"] == 0
                again += 1
            elif message["type"] == "auto" and message["on"]:
                break
            assert loop.time() - asked < 10, "the seat never timed out"
        took = loop.time() - asked
        await c.close()
        assert resyncs >= 4 and again >= 3  # each resync answered with the same prompt
        return took

    took = run(main())
    assert 1.6 <= took <= 3.4


# -- 6. a reconnected player is told its own 托管 state ------------------------------------------
def test_a_reconnected_player_is_told_it_is_on_auto(server: ServerProcess) -> None:
    room = server.create_room(
        players=1,
        hands=2,
        action_seconds=0.3,
        bank_seconds=0,
        bot_delay_ms=20,
        between_hands_ms=0,
        grace_seconds=30,
    )

    async def main() -> list[dict[str, Any]]:
        c = await Client.connect(server.ws)
        await c.join(room["code"])
        await c.expect("prompt")
        assert (await c.expect("auto", timeout=5))["on"] is True
        await c.close()
        back = await Client.connect(server.ws)
        await back.join(room["code"], token=c.token, last_seq=c.last_seq)
        told = await back.expect("auto", timeout=5)
        assert told["on"] is True
        await back.send({"type": "auto", "on": False})
        assert (await back.expect("auto"))["on"] is False
        await back.send({"type": "resync", "last_seq": back.last_seq})
        told = await back.expect("auto", timeout=5)
        await back.send({"type": "leave"})
        await back.expect("left")
        return [told]

    [told] = run(main())
    assert told == {"type": "auto", "on": False}


# -- 4. players' entropy in the deal -----------------------------------------------------------
async def contributing_player(
    server: ServerProcess, code: str, entropy: str, log: list[dict[str, Any]]
) -> Client:
    """A protocol-1.1 client: answers ``commit`` with its value, passes or discards the first
    legal tile, until the match ends."""
    c = await Client.connect(server.ws)
    await c.send({"type": "join", "room": code, "minor": 1})
    while True:
        message = await c.recv(30)
        log.append(message)
        if message["type"] == "commit":
            await c.send({"type": "ready", "hand": message["hand"], "entropy": entropy})
        elif message["type"] == "prompt":
            legal = message["legal"]
            action = next((a for a in legal if a["type"] == "pass"), None)
            action = action or next((a for a in legal if a["type"] == "discard"), legal[0])
            await c.send({"type": "act", "prompt": message["id"], "action": action})
        elif message["type"] == "event" and message["event"]["type"] == "match_end":
            return c
        elif message["type"] == "error":
            raise AssertionError(message)


def test_players_entropy_is_committed_to_first_dealt_in_and_verified(
    server: ServerProcess, tmp_path: Path
) -> None:
    room = server.create_room(players=2, hands=2, bot_delay_ms=0, between_hands_ms=0)
    values = [secrets.token_hex(32), secrets.token_hex(32)]
    logs: list[list[dict[str, Any]]] = [[], []]

    async def main() -> None:
        await asyncio.gather(
            *(contributing_player(server, room["code"], values[i], logs[i]) for i in range(2))
        )

    started = time.monotonic()
    run(main())
    assert time.monotonic() - started < 60
    welcome = logs[0][0]
    assert welcome["type"] == "welcome" and welcome["protocol"] == 1 and welcome["minor"] == 2
    hands = records(server, room["code"])
    assert len(hands) == 2 or hands[-1][-1]["reason"] == "abandon"
    seat_of = [next(m["seat"] for m in log if m["type"] == "joined") for log in logs]
    for number, record in enumerate(hands):
        start, end = record[0], record[-1]
        for player, log in enumerate(logs):
            kinds = [m["type"] for m in log]
            commit = next(m for m in log if m["type"] == "commit" and m["hand"] == number)
            shown = next(m for m in log if m["type"] == "contributed" and m["hand"] == number)
            start_at = next(
                i
                for i, m in enumerate(log)
                if m["type"] == "event"
                and m["event"]["type"] == "start"
                and m["event"]["hand"] == number
            )
            # The commitment came before our value went out, and before the deal.
            assert log.index(commit) < log.index(shown) < start_at, kinds
            assert commit["commitment"] == start["commitment"]
            assert shown["entropy"] == values[player]
            assert start["contributions"][seat_of[player]] == values[player]
        assert [c is None for c in start["contributions"]] == [s not in seat_of for s in range(4)]
        # The chain: the secret matches the commitment, the wall is the combined seed's.
        assert hashlib.sha256(bytes.fromhex(end["seed"])).hexdigest() == start["commitment"]
        assert verify(record).ok, verify(record).message
    path = tmp_path / "match.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for h in hands for e in h))
    done = cli("verify", str(path))
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stdout + done.stderr

    # Tampering with any link of the chain is caught, naming the link.
    record = hands[0]
    seat = seat_of[0]

    def tampered(change: Any) -> subprocess.CompletedProcess[str]:
        events = json.loads(json.dumps(record))
        change(events)
        return cli("verify", "-", stdin="".join(json.dumps(e) + "\n" for e in events))

    def other_value(events: list[dict[str, Any]]) -> None:
        events[0]["contributions"][seat] = secrets.token_hex(32)

    def other_secret(events: list[dict[str, Any]]) -> None:
        events[-1]["seed"] = secrets.token_hex(32)

    def dropped(events: list[dict[str, Any]]) -> None:
        events[0]["contributions"][seat] = None

    for change, words in [
        (other_value, "contribution"),
        (dropped, "contribution"),
        (other_secret, "does not match the commitment"),
    ]:
        done = tampered(change)
        assert done.returncode == 4, (change.__name__, done.stdout, done.stderr)
        assert words in done.stdout, (change.__name__, done.stdout)
        assert "Traceback" not in done.stderr


def test_a_deal_waits_only_so_long_for_a_silent_contributor(server: ServerProcess) -> None:
    """A 1.1 client that never answers ``commit`` delays the deal by ``entropy_wait_ms`` at
    most; the hand is then dealt from what arrived (here: nothing, so the secret alone)."""
    room = server.create_room(players=1, hands=1, entropy_wait_ms=1000, bot_delay_ms=0)

    async def main() -> tuple[float, dict[str, Any]]:
        loop = asyncio.get_running_loop()
        c = await Client.connect(server.ws)
        await c.send({"type": "join", "room": room["code"], "minor": 1})
        commit = await c.expect("commit")
        at = loop.time()
        start = await c.expect("event")
        while start["event"]["type"] != "start":
            start = await c.expect("event")
        waited = loop.time() - at
        assert start["event"]["commitment"] == commit["commitment"]
        assert "contributions" not in start["event"]
        # Too late now: the deal is done.
        late = {"type": "ready", "hand": 0, "entropy": "00" * 32}
        await c.send(late)
        assert (await c.expect("error"))["code"] == "no_deal_pending"
        await c.send({"type": "leave"})
        await c.close()
        return waited, start

    waited, _ = run(main())
    # 1 s from when the server sent ``commit``, which may reach us late on a loaded machine
    assert 0.5 <= waited <= 3.5


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "ready", "hand": 0, "entropy": "zz" * 32}, "bad_message"),
        ({"type": "ready", "hand": 0, "entropy": "AB" * 32}, "bad_message"),
        ({"type": "ready", "hand": 0, "entropy": "ab" * 31}, "bad_message"),
        ({"type": "ready", "hand": 0}, "bad_message"),
        ({"type": "ready", "hand": 5, "entropy": "ab" * 32}, "no_deal_pending"),
    ],
)
def test_bad_or_misplaced_contributions_are_refused(
    server: ServerProcess, message: dict[str, Any], code: str
) -> None:
    room = server.create_room(players=2, hands=1)

    async def main() -> dict[str, Any]:
        c = await Client.connect(server.ws)
        await c.send({"type": "join", "room": room["code"], "minor": 1})
        await c.expect("joined")
        await c.send(message)
        error = await c.expect("error")
        await c.send({"type": "ping"})
        await c.expect("pong")
        await c.close()
        return error

    assert run(main())["code"] == code


def test_a_contribution_counts_once(server: ServerProcess) -> None:
    room = server.create_room(players=2, hands=1, entropy_wait_ms=5000)

    async def main() -> None:
        a, b = await Client.connect(server.ws), await Client.connect(server.ws)
        await a.send({"type": "join", "room": room["code"], "minor": 1})
        await b.send({"type": "join", "room": room["code"], "minor": 1})
        commit = await a.expect("commit")
        value = {"type": "ready", "hand": commit["hand"], "entropy": "12" * 32}
        await a.send(value)
        assert (await a.expect("contributed"))["entropy"] == "12" * 32
        await a.send({**value, "entropy": "34" * 32})
        assert (await a.expect("error"))["code"] == "already_contributed"
        await a.close()
        await b.close()

    run(main())


def test_old_clients_and_bots_only_tables_keep_the_plain_seed(server: ServerProcess) -> None:
    """A client without ``minor`` gets no ``commit`` and the hand is dealt from the secret alone,
    as at a bots-only table; both records verify as before."""
    people = server.create_room(players=1, hands=1, bot_delay_ms=0, between_hands_ms=0)
    bots = server.create_room(
        players=0,
        cookie=server.account_cookie("owner" + secrets.token_hex(4)),
        hands=1,
        bot_delay_ms=0,
        between_hands_ms=0,
    )

    async def main() -> Client:
        c = await Client.connect(server.ws)
        await c.join(people["code"])
        await c.send({"type": "leave"})
        await c.expect("left")
        return c

    c = run(main())
    assert not any(m["type"] == "commit" for m in c.messages)
    deadline = time.monotonic() + 60
    while not records(server, bots["code"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    for code in (people["code"], bots["code"]):
        [record] = records(server, code)
        assert "contributions" not in record[0]
        seed = bytes.fromhex(record[-1]["seed"])
        assert hashlib.sha256(seed).hexdigest() == record[0]["commitment"]
        assert verify(record).ok
