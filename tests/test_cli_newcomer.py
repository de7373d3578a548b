"""Issue 15, point 10 and the CLI side of point 6: what a newcomer meets at the command line.

``laizi serve`` on a taken port says so and exits 2 (no "ready" line first); ``--help`` shows flags
without a made-up value and lists the presets; ``laizi deal --seed`` takes a whole number like the
other commands; ``analyze`` names the game with ``--rules``; ``verify`` speaks both languages with
exact fractions; the README tells a newcomer what to do first."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from laizi.rules import PRESETS
from tests.cli_helpers import ROOT, lines, run


def laizi(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``laizi ARGS`` as a process, with a wide terminal so help text is not wrapped."""
    full = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT / "src"),
        "LAIZI_LANG": "en",
        "COLUMNS": "400",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )


# -- laizi serve on a port that is taken ---------------------------------------------------------
@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            "port {port} on 127.0.0.1 is already in use: pick another one, "
            "e.g. laizi serve --port {next}",
        ),
        ("zh", "端口 {port} 已被占用（127.0.0.1）：另选一个端口，例如 laizi serve --port {next}"),
    ],
)
def test_serve_on_a_taken_port_says_so_and_exits_2(tmp_path: Path, lang: str, words: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = laizi(
            "serve",
            "--port",
            str(port),
            "--db",
            f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "--lang",
            lang,
        )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "laizi: " + words.format(port=port, next=port + 1) + "\n"
    assert "server ready" not in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "db.sqlite3").exists()  # nothing started


def test_serve_help_says_how_to_pick_the_port() -> None:
    text = " ".join(laizi("serve", "--help").stdout.split())
    assert "--port" in text and "pick another, e.g. --port 8080" in text


# -- --help ---------------------------------------------------------------------------------------
COMMANDS = [
    "analyze",
    "score",
    "replay",
    "verify",
    "deal",
    "play",
    "arena",
    "tournament",
    "simulate",
    "serve",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_flags_without_a_value(command: str) -> None:
    result = laizi(command, "--help")
    assert result.returncode == 0
    assert "<bool>" not in result.stdout
    helps = [line for line in result.stdout.splitlines() if "--help" in line]
    assert helps and re.search(r"--help\s+Show this message and exit\.", helps[0])


@pytest.mark.parametrize("command", ["deal", "play", "arena", "tournament", "simulate", "analyze"])
def test_rules_help_lists_every_preset(command: str) -> None:
    text = laizi(command, "--help").stdout
    flat = "".join(part.strip() for part in re.split(r"[│\n]", text))
    assert "--rules" in text
    for name in PRESETS:
        assert name in flat, (command, name)


# -- deal --seed: the forms the other commands take ----------------------------------------------
def test_deal_takes_a_whole_number_seed_as_play_and_arena_do() -> None:
    seven = run("deal", "--seed", "7")
    assert seven.returncode == 0, seven.stderr
    again = run("deal", "--seed", " 7 ")
    other = run("deal", "--seed", "8")
    assert seven.stdout == again.stdout != other.stdout
    seed = hashlib.sha256(b"laizi-deal:7").hexdigest()
    events = lines(seven.stdout)
    assert events[-1]["seed"] == seed  # the record reveals the wall's seed …
    assert run("deal", "--seed", seed).stdout == seven.stdout  # … and that seed deals it again
    assert run("deal", "--seed", "0x" + seed).stdout == seven.stdout
    assert run("verify", "-", stdin=seven.stdout).returncode == 0
    bad = run("deal", "--seed", "seven")
    assert bad.returncode == 1
    assert bad.stderr == "laizi: --seed: 'seven' is neither a whole number nor 64 hex digits\n"


# -- analyze names the game like the others ------------------------------------------------------
def test_analyze_takes_rules_like_the_other_commands() -> None:
    hand = "1133557799m1122p"
    by_preset = laizi("analyze", hand, "--rules", "baishan", "--json")
    by_game = laizi("analyze", hand, "--rules", "baishan", "--json")  # game id = preset here
    by_json = laizi("analyze", hand, "--rules", '{"preset": "baishan"}', "--json")
    old = laizi("analyze", hand, "--game", "baishan", "--json")  # the old spelling still works
    assert by_preset.returncode == 0, by_preset.stderr
    assert json.loads(by_preset.stdout)["seven_pairs"] is True
    assert by_preset.stdout == by_game.stdout == by_json.stdout == old.stdout
    wuhan = laizi("analyze", hand, "--rules", "wuhan-qipi-koukou", "--json")
    assert "seven_pairs" not in json.loads(wuhan.stdout)
    assert laizi("analyze", hand, "--rules", "wuhan", "--json").stdout == wuhan.stdout
    assert "--game" not in laizi("analyze", "--help").stdout  # hidden alias
    bad = laizi("analyze", hand, "--rules", "nope")
    assert bad.returncode == 1 and bad.stderr.startswith("laizi: --rules: rules.preset: unknown")


# -- verify in both languages, fractions as fractions --------------------------------------------
def record_of(example: str) -> str:
    result = run("replay", str(ROOT / "examples" / "replay" / example))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_verify_words_each_hand_with_exact_payments_in_both_languages() -> None:
    record = record_of("escape.json")  # a scripted wall: no commitment, so "unverifiable"
    zh = run("verify", "-", "--lang", "zh", "--allow-uncommitted", stdin=record)
    en = run("verify", "-", "--lang", "en", "--allow-uncommitted", stdin=record)
    assert zh.returncode == en.returncode == 0
    assert zh.stdout == (
        "无法核实：1 局可以重放，但第 0 局没有承诺（commitment）：牌墙是记录里列出的，"
        "不是由发牌前承诺的种子得出的，可能是挑选过的（局号从 0 数；第 0 局：座位 3 逃跑；"
        "得分 座位 0 +500/3、座位 1 +500/3、座位 2 +500/3、座位 3 -500）\n"
    )
    assert en.stdout == (
        "unverifiable: 1 hand(s) replay, but hand(s) 0 have no commitment: the wall is listed,"
        " not derived from a seed committed to before the deal, so it may have been chosen"
        " (hand 0: seat 3 escaped; seat 0 +500/3, seat 1 +500/3, seat 2 +500/3, seat 3 -500)\n"
    )


def test_a_failed_verify_is_worded_in_chinese() -> None:
    dealt = run("deal", "--seed", "7")
    assert dealt.returncode == 0, dealt.stderr
    record = lines(dealt.stdout)
    record[-1]["seed"] = "11" * 32  # another seed than the one committed to
    text = "\n".join(json.dumps(e) for e in record) + "\n"
    zh = run("verify", "-", "--lang", "zh", stdin=text)
    en = run("verify", "-", "--lang", "en", stdin=text)
    last = len(record) - 1
    assert zh.returncode == en.returncode == 4
    assert (
        zh.stdout
        == f"不通过：第 {last} 个事件（从 0 数）：公开的种子与开局的承诺（commitment）不符\n"
    )
    assert en.stdout == f"FAILED: event {last}: the revealed seed does not match the commitment\n"
    changed = lines(dealt.stdout)
    index = next(i for i, e in enumerate(changed) if e["type"] == "discard")
    changed[index]["tile"] = "9m" if changed[index]["tile"] != "9m" else "1m"
    text = "\n".join(json.dumps(e) for e in changed) + "\n"
    zh = run("verify", "-", "--lang", "zh", stdin=text)
    assert zh.returncode == 4
    assert zh.stdout.startswith(f"不通过：第 {index} 个事件（从 0 数）：")
    words = re.sub(r"\{[^}]*\}|\[[^]]*\]", "", zh.stdout)  # events quoted as JSON aside
    assert not re.search(r"\b(?:event|the|is|not|illegal|holds|legal|seat)\b", words), zh.stdout
    assert "不合法：座位 0 手里没有" in zh.stdout or "不合法" in zh.stdout


def test_an_unreadable_record_is_worded_in_chinese() -> None:
    zh = run("verify", "-", "--lang", "zh", stdin='{"type": "start"}\nnot json\n')
    assert zh.returncode == 1
    assert zh.stderr.startswith("laizi: -: 第 1 个事件（从 0 数）：第 2 行不是 JSON：")


# -- the README, for a newcomer -------------------------------------------------------------------
def test_readme_tells_a_newcomer_what_to_do() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[:2] == ["pip install -e . && laizi serve", "bash scripts/test.sh"]
    flat = " ".join(text.split())
    assert "git clone" in flat
    assert "Python ≥ 3.11" in flat
    assert "python3 -m venv .venv" in flat and "source .venv/bin/activate" in flat
    assert "laizi serve --port 8080" in flat
    assert "apt-get" in flat and "root" in flat
    assert re.search(r"A full run takes about \d+ minutes on a 2-core machine", flat)  # how long


# -- replay's words in both languages --------------------------------------------------------------
def test_a_bad_replay_script_is_worded_in_both_languages() -> None:
    script = json.dumps(
        {
            "rules": "wuhan-hongzhong-kaikou",
            "dealer": 0,
            "hands": ["123m", "", "", ""],
            "indicator": "5m",
            "actions": [],
        }
    )
    zh = run("replay", "-", "--lang", "zh", stdin=script)
    en = run("replay", "-", "--lang", "en", stdin=script)
    assert zh.returncode == en.returncode == 1
    assert zh.stderr == "laizi: 输入有误: hands[0]：有 3 张牌，应是 14 张\n"
    assert en.stderr == "laizi: bad input: hands[0]: has 3 tiles, needs 14\n"
    unknown = json.dumps({"rules": "wuhan-hongzhong-kaikou", "colour": 1})
    zh = run("replay", "-", "--lang", "zh", stdin=unknown)
    assert zh.returncode == 1 and zh.stderr == "laizi: 输入有误: colour：没有这个键\n"
