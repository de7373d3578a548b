"""`laizi score` as INTERFACES.md specifies it, run as a real process on the example files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "score"


def run(*args: str, stdin: str | None = None, lang: str = "en") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", "score", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={"LAIZI_LANG": lang, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src")},
        timeout=120,
    )


def last_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("name", "payments"),
    [
        ("a7-example1-seed000.json", [-16, -64, -32, 112]),
        ("a7-example2-seed001.json", [-128, -64, -128, 320]),
        ("a7-example3-seed003.json", [-128, -128, -256, 512]),
        ("golden-cap-sanjubao.json", [-1200, 0, 0, 1200]),
        ("rob-kong.json", [0, -200, 0, 200]),
        ("below-minimum.json", [0, 0, 0, 0]),
        ("three-suns.json", [-800, -800, -800, 2400]),
        ("quanqiuren-contract.json", [0, -200, 0, 200]),
    ],
)
def test_examples_json(name: str, payments: list[int]) -> None:
    out = last_json(run(str(EXAMPLES / name), "--json"))
    assert out["payments"] == payments
    assert all(isinstance(p, int) for p in out["payments"])


def test_json_has_the_interface_keys_and_only_json_on_stdout() -> None:
    result = run(str(EXAMPLES / "a7-example1-seed000.json"), "--json")
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    for key in ("allowed", "reason", "wins", "hard", "base", "multipliers", "raw", "caps"):
        assert key in out
    assert "contract" in out and "payments" in out
    assert out["allowed"] is True and out["reason"] is None
    assert out["wins"] == ["small"] and out["hard"] is True and out["base"] == 1
    assert out["raw"] == [16, 64, 32, None]
    assert out["caps"] == [None, None, None, None]
    assert out["contract"] is None
    assert out["multipliers"][1] == {
        "total": 16,
        "factors": [
            {"name": "opened", "factor": 4, "count": 2},
            {"name": "hongzhong_gang", "factor": 2, "count": 1},
            {"name": "laizi_gang", "factor": 2, "count": 1},
        ],
    }


def test_refused_json() -> None:
    out = last_json(run(str(EXAMPLES / "below-minimum.json"), "--json"))
    assert out["allowed"] is False and out["reason"] == "below_minimum"
    assert out["wins"] == [] and out["hard"] is None


def test_caps_and_contract_json() -> None:
    out = last_json(run(str(EXAMPLES / "golden-cap-sanjubao.json"), "--json"))
    assert out["caps"] == ["golden", "golden", "golden", None]
    assert out["contract"] == 0 and out["wins"] == ["pengpenghu", "qingyise"]
    assert out["multipliers"][3]["factors"][1] == {"name": "self_draw", "factor": 1.5, "count": 1}


def test_stdin_and_readable_english() -> None:
    text = (EXAMPLES / "a7-example1-seed000.json").read_text()
    result = run("-", stdin=text)
    assert result.returncode == 0
    assert "seat 1 loses: opened (2) ×4 · red dragon laid out ×2 · laizi laid out ×2 → M 16" in (
        result.stdout
    )
    assert "Payments: 0: -16  1: -64  2: -32  3: +112" in result.stdout


def test_readable_chinese() -> None:
    result = run(str(EXAMPLES / "a7-example1-seed000.json"), lang="zh")
    assert "1号位 输方：开口（2次） ×4 · 红中杠 ×2 · 癞子杠 ×2 → M 16" in result.stdout
    assert "结算: 0: -16  1: -64  2: -32  3: +112" in result.stdout
    english = run(str(EXAMPLES / "a7-example1-seed000.json"), "--lang", "en", lang="zh")
    assert "Payments" in english.stdout


def bad_input(data: object) -> subprocess.CompletedProcess:
    return run("-", "--json", stdin=json.dumps(data))


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(winning_tile="6m"), "winning_tile"),  # a discarded laizi
        (lambda d: d.update(winning_tile="7z"), "winning_tile"),  # a laid-out 红中
        (lambda d: d.update(haidi=True), "haidi"),
        (lambda d: d.pop("from"), "from"),
        (lambda d: d["players"][0].update(hand="5p5p5p"), "players"),  # five 5p
        (lambda d: d.update(rules="nowhere"), "rules.preset"),
        (lambda d: d.update(rules={"preset": "wuhan-hongzhong-koukou", "caps": 1}), "rules.caps"),
        (lambda d: d["players"][3].update(hand="12x"), "players[3].hand"),
    ],
)
def test_bad_input_exits_1_naming_the_field(change, field: str) -> None:
    data = example("a7-example1-seed000.json")
    change(data)
    result = bad_input(data)
    assert result.returncode == 1
    assert field in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_unreadable_inputs_exit_1() -> None:
    assert run("-", stdin="{not json").returncode == 1
    assert run("-", stdin="[1, 2]").returncode == 1
    assert run("-", stdin='{"rules": NaN}').returncode == 1
    missing = run(str(EXAMPLES / "no-such-file.json"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr


def test_bad_lang_is_a_usage_error() -> None:
    assert run(str(EXAMPLES / "a7-example1-seed000.json"), "--lang", "fr").returncode == 2


def test_the_worked_example_in_docs_is_real_output() -> None:
    doc = (ROOT / "docs" / "score.md").read_text(encoding="utf-8")
    block = doc.split("--lang zh`:\n\n```\n", 1)[1].split("```", 1)[0]
    result = run(str(EXAMPLES / "a7-example1-seed000.json"), lang="zh")
    assert result.stdout == block
