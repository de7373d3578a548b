"""``laizi export … --format events --seat K`` (issue 28 item 4): the log of what seat K saw is
the mjai form of exactly the events a bot in seat K was sent while it played, and it shows no
tile another seat kept hidden: it is the full log with those tiles (and only those) as ``"?"``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from laizi.bots import make_bot
from laizi.bots.external import close_all
from laizi.dataset.events import HIDDEN, discard_flags, mjai_events, mjai_stream
from laizi.engine import make_ruleset, seat_event
from laizi.engine.events import TILE
from laizi.engine.record import deal_record, dumps_event
from laizi.sim import play_hand, simulate, wall_seed
from tests.cli_helpers import lines, run

ROOT = Path(__file__).resolve().parent.parent
LOGGING_BOT = ROOT / "tests/outside/misbehaving_bot.py"
NOT_EVENTS = {"hello", "hand", "prompt", "notice", "bye"}


@pytest.fixture(autouse=True)
def _stop_bots():
    yield
    close_all()


def played(preset: str, seat: int, seed: int, tmp_path: Path) -> tuple[list[dict], list[dict]]:
    """A hand with a logging bot in ``seat``: its record, and every line the bot received."""
    log = tmp_path / f"seen-{preset}-{seat}-{seed}.jsonl"
    ruleset = make_ruleset(preset)
    bot = make_bot(f"cmd:{sys.executable} {LOGGING_BOT} good {log}", ruleset.settings, seed=2)
    bots = [bot if s == seat else make_bot("greedy", ruleset.settings, s) for s in range(4)]
    outcome = play_hand(ruleset, bots, seed % 4, wall_seed(seed, 0), record=True)
    close_all()
    assert outcome.events is not None
    return outcome.events, [json.loads(line) for line in log.read_text().splitlines()]


def masked(full: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The full log with what ``seat`` could not see as ``"?"`` (written apart from the code)."""
    out = []
    for event in full:
        event = dict(event)
        kind, actor = event["type"], event.get("actor")
        if kind == "start_game":
            event = {"type": kind, "id": seat, **{k: v for k, v in event.items() if k != "type"}}
        elif kind == "start_kyoku":
            event["tehais"] = [
                h if s == seat else [HIDDEN] * 13 for s, h in enumerate(event["tehais"])
            ]
        elif kind == "tsumo" and actor != seat:
            event["pai"] = HIDDEN
        elif kind == "ankan" and actor != seat:
            event["consumed"] = [HIDDEN] * 4
        elif kind == "kong_paid" and event["kind"] == "concealed_kong" and actor != seat:
            event["pai"] = HIDDEN
        out.append(event)
    return out


@pytest.mark.parametrize(
    ("preset", "seat", "seed"),
    [
        ("wuhan-hongzhong-kaikou", 1, 3),
        ("wuhan-qipi-koukou", 0, 4),
        ("baishan", 2, 5),
        ("baishan", 1, 9),
    ],
)
def test_the_seat_log_is_the_stream_the_bot_was_sent(
    preset: str, seat: int, seed: int, tmp_path: Path
) -> None:
    record, seen = played(preset, seat, seed, tmp_path)
    received = [m for m in seen if m["type"] not in NOT_EVENTS]
    # what the bot was sent is the engine's view of the record for its seat
    assert received == [e for e in (seat_event(e, seat) for e in record) if e is not None]
    source = tmp_path / "hand.jsonl"
    source.write_text("".join(dumps_event(e) + "\n" for e in record), encoding="utf-8")
    out = tmp_path / "logs"
    done = run(
        "export",
        str(source),
        "--out",
        str(out),
        "--format",
        "events",
        "--seat",
        str(seat),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[-1]["seat"] == seat
    log = [json.loads(line) for line in (out / "hand-000000.mjson").read_text().splitlines()]
    # the bot's own stream in mjai form, with the public 摸切 flags of the discards; the
    # dealer's 14th tile is shown only in the dealer's own log, as its first prompt showed it
    state, _ = deal_record(record)
    dealer_tile = TILE[state.drawn] if state.drawn is not None else None
    if record[0]["dealer"] == seat:
        first = next(m for m in seen if m["type"] == "prompt")
        assert first["view"]["drawn"] == dealer_tile
    tsumogiri = discard_flags(record, dealer_tile)
    assert log == mjai_stream(received, dealer_tile=dealer_tile, tsumogiri=tsumogiri, seat=seat)
    assert log == masked(mjai_events(record), seat)
    assert log[0]["id"] == seat and log[1]["tehais"][seat] != [HIDDEN] * 13
    others = [e for e in log if e["type"] == "tsumo" and e["actor"] != seat]
    assert others and all(e["pai"] == HIDDEN for e in others)


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict]]:
    root = tmp_path_factory.mktemp("records")
    simulate(["greedy"] * 4, "baishan", hands=12, seed=21, records=root / "b")
    simulate(["greedy"] * 4, "wuhan-hongzhong-kaikou", hands=6, seed=22, records=root / "w")
    return [
        [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted(root.rglob("*.jsonl"))
    ]


def test_no_hidden_tile_of_another_seat_appears(many: list[list[dict]]) -> None:
    hidden_kongs = 0
    for record in many:
        full = mjai_events(record)
        for seat in range(4):
            log = mjai_events(record, seat)
            assert log == masked(full, seat)
            hidden_kongs += sum(1 for e in log if e["type"] == "ankan" and e["actor"] != seat)
            # before the hand's end, "?" stands exactly where another seat's tile was hidden
            for event in log[:-2]:
                if HIDDEN in json.dumps(event):
                    assert event["type"] in ("start_kyoku", "tsumo", "ankan", "kong_paid")
                    assert event.get("actor") != seat
    assert hidden_kongs > 0  # the case that matters most was met


def test_seat_is_refused_where_it_means_nothing(tmp_path: Path, many: list[list[dict]]) -> None:
    source = tmp_path / "hand.jsonl"
    source.write_text("".join(dumps_event(e) + "\n" for e in many[0]), encoding="utf-8")
    for args in (["--seat", "4"], ["--seat", "1", "--format", "parquet"]):
        done = run("export", str(source), "--out", str(tmp_path / "o"), *args)
        assert done.returncode == 1
        assert "--seat: a seat 0–3, with --format events only" in done.stderr
