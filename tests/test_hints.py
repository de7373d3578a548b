"""听牌 hints (laizi.engine.hints): the waits' points are the settlement's, from one seat's view.

Situations come from hands the greedy bots play; each wait a hint lists is settled again through
``laizi score``'s own way in (its JSON input, ``laizi.scoring``) with every seat's real hand, and
the totals must be equal; re-dealing the hidden tiles must leave the hints unchanged.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest

from laizi.bots import make_bot
from laizi.engine import HandState, legal_actions, make_ruleset, view
from laizi.engine.hints import refusal_reasons, seat_hints
from laizi.rules import Settings
from laizi.scoring import score, situation_from_json
from laizi.tiles import format_tile, format_tiles
from tests.engine_helpers import apply_json, deal_json, haidi_script

PRESETS = ("wuhan-hongzhong-kaikou", "wuhan-facai-koukou", "wuhan-qipi-kaikou", "baishan")


def _situations(preset: str, want: int, seed: int = 0) -> list[tuple[HandState, int, dict]]:
    """(a copy of the state, the seat, its hints) for ``want`` moments a 13-tile seat is ready
    with an allowed win, from hands the greedy bots play."""
    rules = make_ruleset(preset)
    settings = Settings.from_json(preset)
    bots = [make_bot("greedy", settings, s) for s in range(4)]
    found: list[tuple[HandState, int, dict]] = []
    for hand in range(200):
        state, _ = deal_json(rules, dealer=hand % 4, seed=bytes([hand, seed]) * 16)
        while not state.over and len(found) < want:
            for s in range(4):
                if state.players[s].size() % 3 == 1 and state.phase == "turn":
                    hints = seat_hints(state, s)
                    waits = hints["waits"] or []
                    if any(w["allowed"] for w in waits):
                        found.append((state.copy(), s, hints))
                        break
            seat = state.to_act()[0]
            apply_json(
                state, bots[seat].act(view(state, seat), legal_actions(state, seat)), check=False
            )
        if len(found) >= want:
            return found
    raise AssertionError(f"{preset}: fewer than {want} ready moments")


def _score_input(
    state: HandState, winner: int, tile: int, how: str, source: int | None, hands: bool = True
) -> Any:
    """The ``laizi score`` input of ``winner`` winning on ``tile`` now, every hand as it is (or,
    ``hands`` False, only the winner's: the others' may hold every copy of the tile)."""
    players = []
    for s, p in enumerate(state.players):
        entry: dict[str, Any] = {
            "melds": [m.to_json() for m in p.melds],
            "laid_out": format_tiles(p.laid_out),
        }
        if p.declared_ready:
            entry["declared_ready"] = True
        if p.size() % 3 == 1 and (hands or s == winner):
            entry["hand"] = format_tiles(p.concealed())
        else:
            entry["ready"] = False  # the seat on its turn holds a tile more: no 13-tile hand
        players.append(entry)
    indicator = state.specials.indicator
    return {
        "rules": state.ruleset.settings.to_json(),
        "dealer": state.dealer,
        "indicator": None if indicator is None else format_tile(indicator),
        "winner": winner,
        "win": how,
        "from": source,
        "winning_tile": format_tile(tile),
        "after_kong": False,
        "haidi": False,
        "players": players,
    }


def _collected(obj: Any, winner: int) -> Fraction:
    from laizi.rules.situation import InputError

    try:
        situation = situation_from_json(obj)
    except InputError as error:  # the real hands hold the tile's every copy: the winner's only
        assert "copies" in str(error)
        for s, entry in enumerate(obj["players"]):
            if s != winner and "hand" in entry:
                del entry["hand"]
                entry["ready"] = False
        situation = situation_from_json(obj)
    settlement = score(situation)
    assert settlement.allowed
    paid = getattr(settlement, "win_payments", settlement.payments)  # Baishan: the win's own
    return Fraction(paid[winner])


@pytest.mark.parametrize("preset", PRESETS)
def test_the_waits_points_are_laizi_scores(preset: str) -> None:
    from laizi.tiles import parse_tile

    checked = 0
    for state, seat, hints in _situations(preset, 4):
        for wait in hints["waits"]:
            tile = parse_tile(wait["tile"])
            if wait["self_drawn"] is not None:
                obj = _score_input(state, seat, tile, "self_draw", None)
                assert Fraction(wait["self_drawn"]) == _collected(obj, seat)
                checked += 1
            for source, value in wait["on_discard_from"].items():
                if value is not None:
                    obj = _score_input(state, seat, tile, "discard", int(source))
                    assert Fraction(value) == _collected(obj, seat)
                    checked += 1
            paid = [Fraction(v) for v in wait["on_discard_from"].values() if v is not None]
            assert wait["on_discard"] == (str(min(paid)) if paid else None)
            assert wait["allowed"] == (wait["self_drawn"] is not None or bool(paid))
            assert wait["reason"] is None or wait["reason"] in refusal_reasons()
    assert checked >= 4


def test_a_hint_equals_the_laizi_score_command() -> None:
    """One wait per game through the real ``laizi score --json`` process."""
    from laizi.tiles import parse_tile

    for preset in ("wuhan-hongzhong-koukou", "baishan"):
        state, seat, hints = _situations(preset, 1, seed=3)[0]
        wait = next(w for w in hints["waits"] if w["self_drawn"] is not None)
        tile = parse_tile(wait["tile"])
        obj = _score_input(state, seat, tile, "self_draw", None, hands=False)
        done = subprocess.run(
            [sys.executable, "-c", "from laizi.cli import main; main()", "score", "--json", "-"],
            input=json.dumps(obj),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        payments = out.get("win_payments") or out["payments"]
        assert Fraction(str(payments[seat])) == Fraction(wait["self_drawn"])


def _redealt(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same table with every tile ``seat`` cannot see shuffled: the others' concealed hands
    and the wall's undrawn part (sizes kept)."""
    other = state.copy()
    hidden: list[int] = []
    for s, p in enumerate(other.players):
        if s != seat:
            hidden += p.concealed()
    hidden += list(other.wall[other.front : other.back])
    rng.shuffle(hidden)
    at = 0
    for s, p in enumerate(other.players):
        if s != seat:
            size = p.size()
            counts = [0] * 34
            for t in hidden[at : at + size]:
                counts[t] += 1
            p.counts = counts
            at += size
    wall = list(other.wall)
    wall[other.front : other.back] = hidden[at:]
    other.wall = tuple(wall)
    other.legal_cache = None
    other.offers.clear()
    return other


@pytest.mark.parametrize("preset", ("wuhan-qipi-koukou", "baishan"))
def test_no_peeking_redealing_hidden_tiles_changes_no_hint(preset: str) -> None:
    rng = random.Random(7)
    compared = 0
    for state, seat, hints in _situations(preset, 6, seed=5):
        for _ in range(3):
            other = _redealt(state, seat, rng)
            assert [p.concealed() for p in other.players] != [p.concealed() for p in state.players]
            assert seat_hints(other, seat) == hints
            compared += 1
    assert compared == 18


def test_a_turn_lists_every_discard_that_leaves_the_hand_ready() -> None:
    """On its turn a seat gets one entry per legal discard that leaves it ready, each with the
    waits that discard leaves (the same as the 13-tile hints after that discard)."""
    for state, seat, _ in _situations("baishan", 3, seed=9):
        # play on until this seat's own turn
        bots = [make_bot("greedy", state.ruleset.settings, s) for s in range(4)]
        while not state.over and not (state.phase == "turn" and state.turn == seat):
            s = state.to_act()[0]
            apply_json(state, bots[s].act(view(state, s), legal_actions(state, s)), check=False)
        if state.over:
            continue
        hints = seat_hints(state, seat)
        assert hints["waits"] is None and hints["discards"] is not None
        for entry in hints["discards"]:
            after = state.copy()
            from laizi.engine import Action
            from laizi.tiles import parse_tile

            apply_json(after, Action(seat, "discard", parse_tile(entry["tile"])))
            if after.phase == "turn" and after.players[seat].size() % 3 == 1:
                waits = seat_hints(after, seat)["waits"]
                assert [w["tile"] for w in waits] == [w["tile"] for w in entry["waits"]]


# -- at a real table -------------------------------------------------------------------------------


def test_hints_at_a_real_table_go_to_their_seat_only(tmp_path: Any) -> None:
    """A real ``laizi serve``: two people who play by the hints' help and a spectator.  Each seat
    gets hints, each only its own (the discards listed are its own legal discards, the waits'
    tiles count what it sees), never the same content twice in a row; the spectator and the
    other seat get none of another seat's."""
    import asyncio

    from tests.server_helpers import Client, ServerProcess

    fast = ("--message-rate", "100000", "--message-burst", "100000")
    with ServerProcess(tmp_path / "db.sqlite3", args=fast) as server:
        room = server.create_room(
            "baishan", players=2, hands=3, bot_delay_ms=0, between_hands_ms=0
        )["code"]

        async def player(client: Client, rng: random.Random) -> None:
            hints: dict[str, Any] = {}
            while True:
                message = await client.recv(30)
                if message["type"] == "pause" and client.seat in message["waiting"]:
                    await client.send({"type": "continue"})
                if message["type"] == "event" and message["event"]["type"] == "match_end":
                    return
                if message["type"] == "hints":
                    hints = message
                if message["type"] != "prompt":
                    continue
                await asyncio.sleep(0.01)  # the turn's hints come just after its prompt
                while not client.queue.empty():
                    extra = client.queue.get_nowait()
                    if extra["type"] == "hints":
                        hints = extra
                legal = message["legal"]
                choice = next((a for a in legal if a["type"] == "win"), None)
                ready = [d["tile"] for d in hints.get("discards") or []]
                if choice is None and ready:
                    choice = next(a for a in legal if a.get("tile") == ready[0])
                if choice is None:
                    choice = rng.choice(legal)
                await client.send({"type": "act", "prompt": message["id"], "action": choice})

        async def main() -> tuple[Client, Client, Client]:
            a, b, watcher = [await Client.connect(server.ws) for _ in range(3)]
            await a.join(room, seat=0)
            await b.join(room, seat=2)
            await watcher.join(room, spectate=True)
            await asyncio.gather(player(a, random.Random(1)), player(b, random.Random(2)))
            await asyncio.sleep(0.3)
            return a, b, watcher

        a, b, watcher = asyncio.run(asyncio.wait_for(main(), 180))

    assert not any(m["type"] == "hints" for m in watcher.messages)
    shown = 0
    for client in (a, b):
        hints = [m for m in client.messages if m["type"] == "hints"]
        assert hints, "no hints at all"
        last = None  # only when changed (a resync's snapshot is followed by them again)
        for message in client.messages:
            if message["type"] == "snapshot":
                last = None
            elif message["type"] == "hints":
                content = {k: v for k, v in message.items() if k != "seq"}
                assert content != last
                last = content
        prompt = None
        for message in client.messages:
            if message["type"] == "prompt":
                prompt = message
            elif message["type"] == "hints" and message["discards"] is not None:
                assert prompt is not None and prompt["phase"] == "turn"
                legal = {x["tile"] for x in prompt["legal"] if x["type"] == "discard"}
                assert {d["tile"] for d in message["discards"]} <= legal
                shown += 1
            elif message["type"] == "hints" and message["waits"]:
                for wait in message["waits"]:
                    assert 0 <= wait["left"] <= 4
                shown += 1
    assert shown > 0


def test_in_the_haidi_round_a_self_drawn_wait_pays_what_the_win_pays() -> None:
    """Issue 27 item 10: seat 1 waits on 5s while the 海底 round is drawn; the hint's self-drawn
    total is what the 海底捞 win then pays, exactly (it used to leave 海底捞 out)."""
    from laizi.engine.actions import Action
    from laizi.engine.script import ScriptUnfinished, run_script
    from laizi.tiles import parse_tile

    obj, _ = haidi_script(None)
    with pytest.raises(ScriptUnfinished) as caught:
        run_script(obj)
    drawn = caught.value.result.state  # seat 1 has drawn the 5s in the 海底 round
    assert drawn.phase == "final" and drawn.turn == 1 and drawn.drawn == parse_tile("5s")
    waiting = drawn.copy()  # a moment before: seat 0 draws, seat 1 waits on its own draw
    waiting.players[1].counts[parse_tile("5s")] -= 1
    waiting.turn, waiting.drawn = 0, None
    wait = next(w for w in seat_hints(waiting, 1)["waits"] if w["tile"] == "5s")
    assert wait["on_discard"] is None and wait["on_discard_from"] == {}  # nobody discards now
    end = apply_json(drawn, Action(1, "win"))[-1]
    assert end["type"] == "end" and "haidilao" in end["settlement"]["wins"]
    assert Fraction(wait["self_drawn"]) == Fraction(str(end["payments"][1])) > 0
