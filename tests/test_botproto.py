"""The bot protocol over stdin/stdout (``cmd:COMMAND``): the examples pass ``bot-check`` and
play an arena; bots that sleep, print garbage, exit, flood, write huge lines or answer illegally
are replaced by 托管 for each such decision, within bounded time, and logged; a bot is told
exactly its seat's events and nothing more."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from laizi.bots import make_bot
from laizi.bots.external import ExternalBot, close_all
from laizi.engine import make_ruleset
from laizi.sim import play_hand, wall_seed
from tests.cli_helpers import ROOT, lines, run

PYTHON_BOT = f"cmd:{sys.executable} {ROOT / 'examples/bots/tile_efficiency.py'}"
NODE = shutil.which("node") or "/usr/bin/node"
NODE_BOT = f"cmd:{NODE} {ROOT / 'examples/bots/tile_efficiency.js'}"
MISBEHAVING = ROOT / "tests/outside/misbehaving_bot.py"
CASES = 15


def misbehaving(mode: str, log: Path | None = None) -> str:
    return f"cmd:{sys.executable} {MISBEHAVING} {mode}" + (f" {log}" if log else "")


@pytest.fixture(autouse=True)
def _stop_bots():
    yield
    close_all()


# -- bot-check ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", [PYTHON_BOT, NODE_BOT], ids=["python", "node"])
def test_the_examples_pass_bot_check(bot: str) -> None:
    done = run("bot-check", bot, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = lines(done.stdout)[-1]
    assert (report["passed"], report["failed"]) == (CASES, 0)
    assert report["name"] == ("example-node" if "node" in bot else "example-python")
    names = [case["name"] for case in report["cases"]]
    assert names[:4] == [
        "handshake",
        "random:wuhan-hongzhong-kaikou",
        "random:wuhan-qipi-koukou",
        "random:baishan",
    ]
    assert "scripted:rob_kong" in names and "scripted:declare_ready" in names
    assert all(case["problems"] == [] for case in report["cases"])
    rob = next(c for c in report["cases"] if c["name"] == "scripted:rob_kong")
    assert rob["detail"] == "offered pass, win; answered 3 win"  # the examples always win


def test_a_garbage_bot_fails_bot_check_with_exit_4() -> None:
    done = run("bot-check", misbehaving("garbage"), "--json", "--timeout", "2")
    assert done.returncode == 4, done.stderr
    report = lines(done.stdout)[-1]
    cases = {case["name"]: case for case in report["cases"]}
    assert cases["handshake"]["passed"] is True
    assert cases["random:baishan"]["passed"] is False
    assert set(cases["random:baishan"]["problems"]) == {"bad_json"}
    assert report["failed"] == CASES - 2  # the handshake and bye pass
    assert cases["bye"]["passed"] is True


def test_a_silent_bot_fails_the_handshake_and_the_rest_quickly() -> None:
    started = time.monotonic()
    done = run("bot-check", misbehaving("no_hello"), "--json", "--timeout", "1")
    assert done.returncode == 4
    report = lines(done.stdout)[-1]
    assert report["passed"] == 0 and report["failed"] == CASES
    assert report["cases"][0]["detail"].startswith("FAIL")
    assert time.monotonic() - started < 40  # one hello wait (10 s), then every case fails at once


def test_bot_check_text_report_and_bad_names() -> None:
    done = run("bot-check", PYTHON_BOT, "--lang", "en")
    assert done.returncode == 0
    assert f"{CASES} passed, 0 failed" in done.stdout
    assert run("bot-check", "greedy").returncode == 1
    missing = run("bot-check", "cmd:/no/such/program")
    assert missing.returncode == 1
    assert "cmd:/no/such/program: can't start: No such file or directory" in missing.stderr
    assert run("arena", "cmd:/no/such/program", "random", "--hands", "1").returncode == 1


# -- arena and simulate -----------------------------------------------------------------------


@pytest.mark.parametrize("bot", [PYTHON_BOT, NODE_BOT], ids=["python", "node"])
def test_a_short_arena_with_an_example(bot: str) -> None:
    first = run("arena", bot, "random", "--hands", "2", "--seed", "5", "--json")
    assert first.returncode == 0, first.stderr
    report = lines(first.stdout)[-1]
    assert report["hands"] == 2 and report["hands_played"] == 8
    assert report["a"] == bot
    again = lines(run("arena", bot, "random", "--hands", "2", "--seed", "5", "--json").stdout)[-1]
    assert again["diff_mean"] == report["diff_mean"]  # the examples are seeded: same play
    assert again["a_stats"] == report["a_stats"]


def test_arena_with_a_cmd_bot_does_not_depend_on_workers_and_leaves_no_process() -> None:
    marker = f"marker-{uuid.uuid4().hex}"  # an argument the example ignores: finds its processes
    bot = f"{PYTHON_BOT} {marker}"
    args = ("arena", bot, "greedy", "--rules", "baishan", "--hands", "4", "--seed", "8")
    one = lines(run(*args, "--json").stdout)[-1]
    two = lines(run(*args, "--workers", "2", "--json").stdout)[-1]
    assert (one["diff_mean"], one["a_stats"]) == (two["diff_mean"], two["a_stats"])
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True)
    assert left.stdout == b""


def test_simulate_takes_cmd_bots_in_any_seat() -> None:
    bots = f"greedy,{PYTHON_BOT},random,{NODE_BOT}"
    done = run("simulate", "--bots", bots, "--rules", "baishan", "--hands", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = lines(done.stdout)[-1]
    assert [s["bot"] for s in report["seats"]] == bots.split(",")
    assert sum(s["hands"] for s in report["seats"]) == 8


def test_the_cmd_bot_name_and_settings_are_checked() -> None:
    assert run("arena", "cmd:", "random", "--hands", "1").returncode == 1
    assert run("arena", 'cmd:python "unclosed', "random", "--hands", "1").returncode == 1
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LAIZI_BOT_TIMEOUT": "abc"}
    laizi = [sys.executable, "-c", "from laizi.cli import main; main()"]
    command = [*laizi, "arena", PYTHON_BOT, "random", "--hands", "1"]
    bad = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "LAIZI_BOT_TIMEOUT: must be a number of seconds, got 'abc'" in bad.stderr


# -- misbehaving bots: 托管 for the decision, bounded, logged -------------------------------------


def play_with(command: str, preset: str = "baishan", seat: int = 0) -> tuple[ExternalBot, float]:
    ruleset = make_ruleset(preset)
    external = make_bot(command, ruleset.settings, seed=3)
    assert isinstance(external, ExternalBot)
    bots = [external if s == seat else make_bot("greedy", ruleset.settings, s) for s in range(4)]
    started = time.monotonic()
    play_hand(ruleset, bots, 0, wall_seed(11, 0))
    return external, time.monotonic() - started


def incidents_of(bot: ExternalBot) -> list[str]:
    session = bot.session
    if session is None:  # given back at the hand's end: find it in the pool
        from laizi.bots import external

        session = external._every[-1]
    return [i.code for i in session.incidents]


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAIZI_BOT_TIMEOUT", "0.3")
    monkeypatch.setenv("LAIZI_BOT_HELLO_TIMEOUT", "5")


def test_a_sleeping_bot_costs_three_timeouts_then_is_stopped(short_timeout: None) -> None:
    bot, seconds = play_with(misbehaving("sleep"))
    codes = incidents_of(bot)
    assert codes[:3] == ["timeout", "timeout", "timeout"]
    assert codes[3] == "unresponsive"
    assert set(codes[4:]) <= {"unresponsive"}
    assert seconds < 10  # three waits of 0.3 s, then 托管 at once


def test_a_garbage_bot_is_replaced_at_once(short_timeout: None, caplog) -> None:
    bot, seconds = play_with(misbehaving("garbage"))
    codes = incidents_of(bot)
    assert codes and set(codes) == {"bad_json"}
    assert seconds < 10
    assert any(
        "bad_json" in r.getMessage() and "托管 played" in r.getMessage() for r in caplog.records
    )


def test_a_bot_that_exits_is_replaced_for_the_rest_of_the_hand(short_timeout: None) -> None:
    bot, seconds = play_with(misbehaving("exit"))
    codes = incidents_of(bot)
    assert codes and set(codes) == {"exited"}
    assert seconds < 10


def test_a_flooding_bot_is_bounded_and_stopped(short_timeout: None) -> None:
    bot, seconds = play_with(misbehaving("flood"))
    codes = incidents_of(bot)
    assert codes[0] == "bad_json"  # the first line after the prompt is junk
    assert "flood" in codes  # more than FLOOD_LINES lines nobody asked for: stopped
    assert seconds < 20


def test_huge_lines_are_skipped_without_being_held(short_timeout: None) -> None:
    bot, seconds = play_with(misbehaving("huge"))
    codes = incidents_of(bot)
    assert codes and set(codes) <= {"too_long"}
    assert seconds < 30


def test_an_illegal_answer_is_replaced_and_the_bot_told(tmp_path: Path, short_timeout) -> None:
    log = tmp_path / "seen.jsonl"
    bot, _ = play_with(misbehaving("illegal", log))
    assert set(incidents_of(bot)) == {"illegal"}
    notices = [m for m in map(json.loads, log.read_text().splitlines()) if m["type"] == "notice"]
    assert notices and notices[0]["code"] == "illegal"
    assert notices[0]["message_zh"] == "回答的动作不合法，已托管这一步"
    assert notices[0]["played"]["type"] in ("discard", "pass", "lay_out")


def test_a_late_answer_to_an_older_prompt_is_skipped(short_timeout: None) -> None:
    bot, _ = play_with(misbehaving("stale"))
    assert incidents_of(bot) == []


def test_a_good_bot_has_no_incident_and_is_reused_across_hands() -> None:
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    from laizi.bots import external

    for index in range(2):
        bot = make_bot(misbehaving("good"), ruleset.settings, seed=index)
        bots = [bot] + [make_bot("random", ruleset.settings, s) for s in range(1, 4)]
        play_hand(ruleset, bots, index, wall_seed(3, index))
    assert len(external._every) == 1  # one process played both hands
    assert external._every[0].incidents == []


# -- what a bot is told ------------------------------------------------------------------------


def test_the_bot_is_told_its_seat_only(tmp_path: Path) -> None:
    log = tmp_path / "seen.jsonl"
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    seat = 2
    bot = make_bot(misbehaving("good", log), ruleset.settings, seed=1)
    bots = [bot if s == seat else make_bot("greedy", ruleset.settings, s) for s in range(4)]
    play_hand(ruleset, bots, 0, wall_seed(9, 0))
    close_all()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [m["type"] for m in seen]
    assert kinds[:4] == ["hello", "hand", "start", "deal"]
    assert seen[1] == {"type": "hand", "seat": seat, "seed": 1, "game": "wuhan"}
    assert kinds[-2:] == ["end", "bye"]
    deal = seen[3]
    assert [h is None for h in deal["hands"]] == [True, True, False, True]
    assert deal["indicator"] and deal["laizi"] and deal["must_gang"] == ["7z"]
    assert "wall" not in seen[2] and seen[2]["rules"]["preset"] == "wuhan-hongzhong-kaikou"
    for message in seen:
        if message["type"] == "draw":
            assert ("tile" in message) == (message["seat"] == seat)
        if message["type"] in ("claim", "pass"):
            assert message["seat"] == seat
        if message["type"] == "prompt":
            assert message["view"]["seat"] == seat
            assert "hands" not in message["view"]  # no other seat's concealed tiles
            assert all("concealed" not in p for p in message["view"]["players"])
            assert message["legal"] and all("seat" not in a for a in message["legal"])
    prompts = [m for m in seen if m["type"] == "prompt"]
    assert [p["id"] for p in prompts] == list(range(1, len(prompts) + 1))


LEARNED_BOT = f"cmd:{sys.executable} {ROOT / 'examples/bots/learned.py'}"


def test_the_learned_example_passes_bot_check() -> None:
    done = run("bot-check", LEARNED_BOT, "--lang", "en")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{CASES} passed, 0 failed" in done.stdout


@pytest.mark.parametrize("preset", ["wuhan-hongzhong-kaikou", "baishan"])
def test_the_learned_example_plays_exactly_as_the_learned_bot(preset: str) -> None:
    """Over the protocol the trained network makes the same decisions as in the process."""
    ruleset = make_ruleset(preset)
    outcomes = []
    for first in (LEARNED_BOT, "learned"):
        bots = [make_bot(first, ruleset.settings, 0)]
        bots += [make_bot("greedy", ruleset.settings, s) for s in range(1, 4)]
        outcomes.append(play_hand(ruleset, bots, 0, wall_seed(29, 1)))
        close_all()
    over_protocol, in_process = outcomes
    assert over_protocol.payments == in_process.payments
    assert over_protocol.decisions == in_process.decisions > 0
    assert (over_protocol.winner, over_protocol.how) == (in_process.winner, in_process.how)
