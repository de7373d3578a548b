"""Adding a game is one folder plus one registry line (docs/architecture.md, "Adding a game").

The toy game lives in ``tests/games/toy`` (its settings, preset, names, limits, ruleset and
settlement) and is added by one line, ``LAIZI_GAMES=toy=tests.games.toy``.  With that line alone
``laizi score``, ``deal``, ``verify``, ``replay``, ``simulate`` and ``arena`` (every bot), a room
of bots on the server and the environment play it; nothing under ``src/`` names it.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from laizi.engine import legal_actions
from laizi.env.aec import LaiziAECEnv
from laizi.rules import GAMES, PRESETS, Settings, SettingsError, find_game, make_ruleset
from laizi.rules.registry import ENV_VAR, LINES
from laizi.rules.schema import settings_schema
from tests.cli_helpers import ROOT, run
from tests.engine_helpers import apply_json, deal_json
from tests.games.toy.settings import ToySettings
from tests.server_helpers import ServerProcess, records

LINE = "toy=tests.games.toy"
"""The one line that adds the game."""
TOY = ROOT / "tests" / "games" / "toy"
WITH_TOY = {ENV_VAR: LINE, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
"""A ``laizi`` process with the line (and the test suite importable)."""
SITUATION = {
    "rules": "toy",
    "dealer": 0,
    "winner": 1,
    "win": "discard",
    "from": 2,
    "winning_tile": "5z",
    "players": [{}, {"hand": "111m234p567p789s5z"}, {}, {}],
}
SCRIPT = {  # seat 1 discards 5z; the dealer and seat 3 both win on it
    "rules": "toy",
    "dealer": 0,
    "hands": [
        "111p234s567s789m5z1z",
        "2345678s2345p67z",
        "3456m9m6789p1123s",
        "111m234p567p789s5z",
    ],
    "draws": ["5z"],
    "actions": [
        {"seat": 0, "type": "discard", "tile": "1z"},
        {"seat": 1, "type": "discard", "tile": "5z"},
        {"seat": 0, "type": "win"},
        {"seat": 3, "type": "win"},
    ],
}


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line, as a user writes it (in this process and the servers it starts)."""
    monkeypatch.setenv(ENV_VAR, LINE)
    monkeypatch.setenv("PYTHONPATH", WITH_TOY["PYTHONPATH"])


def laizi(*args: str) -> str:
    result = run(*args, env=WITH_TOY)
    assert result.returncode == 0, result.stderr
    return str(result.stdout)


def test_the_line_adds_the_game_its_settings_and_its_form(toy: None) -> None:
    assert list(GAMES) == ["wuhan", "baishan", "toy"] and "toy" in PRESETS
    settings = Settings.from_json({"preset": "toy"})
    assert isinstance(settings, ToySettings) and settings.game == "toy"
    assert (settings.cap, settings.win_points) == (12, 2)
    assert type(make_ruleset("toy")).__name__ == "ToyRuleset"
    room = Settings.from_json({"preset": "toy", "win_points": 3})
    assert room.to_json()["win_points"] == 3 and room.short_hash() != settings.short_hash()
    assert Settings.from_json(room.to_json()) == room
    with pytest.raises(SettingsError) as error:
        Settings.from_json({"preset": "toy", "win_points": 0})
    assert error.value.key == "win_points"
    with pytest.raises(SettingsError) as error:
        Settings.from_json({"preset": "toy", "golden_cap": 100})
    assert error.value.key == "golden_cap"
    schema = settings_schema()
    field = next(f for f in schema["fields"] if f["key"] == "win_points")
    assert field["games"] == ["toy"] and field["label"] == {
        "zh": "胡牌分",
        "en": "Points for a win",
    }
    assert field["min"] == 0 and field["exclusive_min"] is True
    assert {"value": "toy", "label": {"zh": "玩具麻将", "en": "Toy"}} in schema["games"]
    assert next(f for f in schema["fields"] if f["key"] == "cap")["games"] == [
        "wuhan",
        "baishan",
        "toy",
    ]


def test_without_its_line_the_game_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert "toy" not in GAMES and "toy" not in PRESETS
    with pytest.raises(ValueError, match="unknown game 'toy'"):
        find_game("toy")
    with pytest.raises(SettingsError, match="unknown preset 'toy'"):
        Settings.from_json({"preset": "toy"})


def test_nothing_outside_its_folder_names_the_game() -> None:
    mentions = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "src").rglob("*"))
        if path.is_file()
        and path.suffix in (".py", ".js", ".html", ".css", ".json", ".md")
        and re.search(r"\btoy\b|tests\.games", path.read_text("utf-8"), re.IGNORECASE)
    ]
    assert mentions == [] and "toy" not in LINES
    # the folder is self-contained: it imports the library and itself, no other test module
    for path in TOY.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                top = node.module.split(".")[0]
                assert top != "tests" or node.module.startswith("tests.games.toy"), path


def test_laizi_score_reads_a_toy_situation(tmp_path: Path) -> None:
    path = tmp_path / "win.json"
    path.write_text(json.dumps(SITUATION))
    settlement = json.loads(laizi("score", str(path), "--json"))
    assert settlement["payments"] == [0, 6, -6, 0] and settlement["wins"] == ["toy_win"]
    assert laizi("score", str(path), "--lang", "zh").strip() == (
        "玩具麻将: 0家 0 · 1家 6 · 2家 -6 · 3家 0"
    )
    assert "seat 2 -6" in laizi("score", str(path), "--lang", "en")
    path.write_text(json.dumps({**SITUATION, "indicator": "1m"}))
    refused = run("score", str(path), env=WITH_TOY)
    assert refused.returncode != 0 and "indicator" in refused.stderr


def test_deal_verify_replay_and_simulate_play_the_toy_game(tmp_path: Path) -> None:
    dealt = tmp_path / "dealt.jsonl"
    dealt.write_text(laizi("deal", "--rules", "toy", "--seed", "3", "--hands", "2"))
    start = json.loads(dealt.read_text().splitlines()[0])
    assert start["game"] == "toy" and start["rules"]["win_points"] == 2
    assert laizi("verify", str(dealt)).startswith("ok: 2 hand(s) verified")
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    end = json.loads(laizi("replay", str(script)).splitlines()[-1])
    # from the discarder (seat 1): seat 2 can't win, seat 3 is first; the discarder pays 3 × 2
    assert (end["winner"], end["payments"]) == (3, [0, -6, 0, 6])
    report = json.loads(
        laizi(
            *("simulate", "--bots", "expert,strong,greedy,random", "--rules", "toy"),
            *("--hands", "4", "--seed", "5", "--json", "--records", str(tmp_path / "rec")),
        )
    )
    assert report["rules"] == "toy" and [s["hands"] for s in report["seats"]] == [4] * 4
    assert sum(s["mean_points"] for s in report["seats"]) == 0
    for record in sorted((tmp_path / "rec").glob("*.jsonl")):
        assert laizi("verify", str(record)).startswith("ok: 1 hand(s) verified")


@pytest.mark.parametrize("bot", ["random", "greedy", "strong", "expert"])
def test_arena_plays_the_toy_game_with_every_bot(bot: str) -> None:
    args = ("arena", bot, "random", "--rules", "toy", "--hands", "1", "--seed", "1", "--json")
    report = json.loads(laizi(*args).splitlines()[-1])
    assert (report["rules"], report["hands_played"], report["a"]) == ("toy", 4, bot)


def test_a_room_of_bots_plays_the_toy_game(toy: None, tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "db.sqlite3") as srv:
        cookie = srv.account_cookie("toyplayer")
        fast = {"bot_delay_ms": 0, "between_hands_ms": 0, "claim_window_ms": 0, "hands": 1}
        room = srv.create_room("toy", cookie=cookie, players=0, bot_level="expert", **fast)
        assert room["rules"]["win_points"] == 2
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            info = json.loads(srv.get(f"/api/rooms/{room['code']}")[1])
            if info["status"] == "over":
                break
            time.sleep(0.1)
        assert info["status"] == "over" and sum(info["totals"]) == 0
        (hand,) = records(srv, room["code"])
    assert hand[0]["game"] == "toy" and hand[-1]["type"] == "end"
    path = tmp_path / "hand.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in hand))
    assert laizi("verify", str(path)).startswith("ok: 1 hand(s) verified")


def test_a_room_of_learned_bots_is_refused_for_a_game_without_a_model(
    toy: None, tmp_path: Path
) -> None:
    # learned plays where a trained model ships (Wuhan, Baishan); a new game has none yet
    with ServerProcess(tmp_path / "db.sqlite3") as srv:
        cookie = srv.account_cookie("toyplayer")
        body = {"rules": "toy", "table": {"players": 0, "bot_level": "learned"}}
        status, answer = srv.post("/api/rooms", body, cookie)
        assert status == 400 and answer["params"]["key"] == "table.bot_level"
        assert "no trained toy model" in answer["error"]
        status, _ = srv.post("/api/rooms", {**body, "table": {"players": 0}}, cookie)
        assert status == 201


def test_the_environment_plays_the_toy_game(toy: None) -> None:
    env = LaiziAECEnv("toy")
    rng = np.random.default_rng(7)
    for seed in range(3):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, done, cut, _ = env.last()
            total[agent] += reward
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if done or cut else int(rng.choice(legal)))
        assert env.unwrapped.ruleset.game == "toy"
        assert abs(sum(total.values())) < 1e-9


def test_random_hands_of_the_toy_game_conserve_tiles_and_are_zero_sum(toy: None) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        state, events = deal_json(make_ruleset("toy"), dealer=seed % 4, seed=rng.randbytes(32))
        while not state.over:
            legal = legal_actions(state, state.to_act()[0])
            wins = [a for a in legal if a.type == "win"]
            events += apply_json(state, wins[0] if wins else rng.choice(legal))
        assert state.tiles_in_play() == [4] * 34 and events[0]["game"] == "toy"
        payments = [Fraction(p) for p in state.result["payments"]]
        assert sum(payments) == 0
        if state.result["reason"] == "win":  # a self-draw 3 × 2, a discard 6: the cap is 12
            assert payments[state.result["winner"]] == 6
