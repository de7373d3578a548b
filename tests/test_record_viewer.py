"""The record viewer (issue 28 item 5): the server's frames say who decided and among how many
legal actions; ``laizi replay FILE --html OUT`` writes one self-contained page of a record, a
script or an events log; the browser's fold (tests/js/recordfold.test.mjs) reads fixtures that are
what the engine makes today."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest

from laizi.engine import Game, legal_actions, make_ruleset
from laizi.engine.record import action_of, parse_record
from laizi.web.replay import frames
from laizi.web.standalone import BundleError, bundle, module_order, replay_page
from tests.cli_helpers import ROOT, run
from tests.engine_helpers import apply_json, deal_json

FIXTURES = ROOT / "tests" / "js" / "fixtures"
EXAMPLES = ROOT / "examples" / "replay"


def _fixtures() -> dict[str, str]:
    sys.path.insert(0, str(FIXTURES))
    try:
        from make_fixtures import fixtures  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(FIXTURES))
    return fixtures()


def test_the_js_fixtures_are_what_the_engine_makes_today():
    for name, text in _fixtures().items():
        assert (FIXTURES / name).read_text(encoding="utf-8") == text, name


def _record(name: str) -> list[dict[str, Any]]:
    return parse_record((FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["wuhan", "baishan"])
def test_each_frame_names_its_decider_and_how_many_legal_actions_it_had(name):
    record = _record(name)
    steps = frames(record)
    start = record[0]
    state, first = deal_json(
        make_ruleset(start["rules"]), start["dealer"], seed=bytes.fromhex(record[-1]["seed"])
    )
    assert steps[0]["actor"] is None and steps[0]["legal"] is None
    expected = []
    for event in record[len(first) :]:
        action = action_of(event)
        if action is not None:
            expected.append((action.seat, len(legal_actions(state, action.seat))))
            apply_json(state, action)
    assert [(f["actor"], f["legal"]) for f in steps[1:]] == expected
    assert all(n > 1 for _, n in expected)  # the engine asks only a seat that has a choice


def test_a_concealed_kong_shows_its_tiles_in_the_replay_where_every_hand_is_open():
    steps = frames(_record("baishan"))
    kong = next(i for i, f in enumerate(steps) if f["events"][0]["type"] == "concealed_kong")
    event = steps[kong]["events"][0]
    melds = steps[kong]["view"]["players"][event["seat"]]["melds"]
    assert {"kind": "concealed_kong", "tiles": event["tile"][0] * 4 + event["tile"][1]} in [
        {"kind": m["kind"], "tiles": m["tiles"]} for m in melds
    ]


def _carried(page: str, element: str) -> Any:
    found = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', page, re.S)
    assert found, element
    return json.loads(found.group(1))


def _self_contained(page: str) -> None:
    """The page names no file or address to load: outside its scripts no ``src=``, no ``href=``
    but the data: icon, no ``url(``; its one module script imports no file (the browser test
    checks that the page makes no request at all)."""
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert re.findall(r"\ssrc=", markup) == []
    assert [h for h in re.findall(r'href="([^"]*)"', markup) if not h.startswith("data:")] == []
    assert "url(" not in markup and "@import" not in markup
    assert re.findall(r'^\s*import\b|from "\./|import\(', page, re.M) == []
    assert markup.count("<script") == 3 and markup.count('<script type="module">') == 1


def test_html_of_a_record_carries_the_servers_frames_and_loads_nothing(tmp_path):
    out = tmp_path / "wuhan.html"
    result = run("replay", str(FIXTURES / "wuhan.jsonl"), "--html", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    steps = frames(_record("wuhan"))
    assert summary == {
        "html": str(out),
        "kind": "record",
        "hands": 1,
        "steps": len(steps),
        "bytes": out.stat().st_size,
    }
    page = out.read_text(encoding="utf-8")
    _self_contained(page)
    data = _carried(page, "laizi-replay")
    assert data["name"] == "wuhan.jsonl" and data["kind"] == "record"
    assert data["hands"][0]["number"] == 0 and data["hands"][0]["game"] == "wuhan"
    assert data["hands"][0]["frames"] == json.loads(json.dumps(steps))
    words = _carried(page, "laizi-schema")["words"]
    assert words["wuhan"]["wins"]["quanqiuren"] == {"zh": "全求人", "en": "all from others"}
    for module in module_order():  # every module the page needs, inlined in import order
        assert f'__laizi["{module}"] = await' in page


def test_html_of_a_match_has_each_hand(tmp_path):
    game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
    while not game.over:
        game.play(game.legal_actions(game.to_act[0])[0])
    second = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(31) + b"\x01")
    while not second.over:
        second.play(second.legal_actions(second.to_act[0])[-1])
    both = tmp_path / "two.jsonl"
    text = "".join(json.dumps(e) + "\n" for e in game.record + second.record)
    both.write_text(text, encoding="utf-8")
    out = tmp_path / "two.html"
    result = run("replay", str(both), "--html", str(out))
    assert result.returncode == 0, result.stderr
    hands = _carried(out.read_text(encoding="utf-8"), "laizi-replay")["hands"]
    assert [len(h["frames"]) for h in hands] == [
        len(frames(game.record)),
        len(frames(second.record)),
    ]


def test_html_of_a_script_is_the_hand_laizi_replay_plays(tmp_path):
    out = tmp_path / "rob.html"
    result = run("replay", str(EXAMPLES / "rob_kong.json"), "--html", str(out))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kind"] == "script"
    played = [json.loads(x) for x in run("replay", str(EXAMPLES / "rob_kong.json")).stdout.split()]
    hand = _carried(out.read_text(encoding="utf-8"), "laizi-replay")["hands"][0]
    assert hand["frames"] == json.loads(json.dumps(frames(played)))
    assert hand["frames"][-1]["events"][-1]["winner"] == 1


def test_html_of_an_events_log_carries_the_log_for_the_page_to_fold(tmp_path):
    log = FIXTURES / "baishan.seat1.mjson"
    out = tmp_path / "seat1.html"
    result = run("replay", str(log), "--html", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["kind"] == "log" and summary["hands"] is None
    data = _carried(out.read_text(encoding="utf-8"), "laizi-replay")
    assert data == {"name": log.name, "kind": "log", "log": log.read_text(encoding="utf-8")}


def test_replay_without_html_still_plays_a_script_as_before():
    result = run("replay", str(EXAMPLES / "rob_kong.json"))
    assert result.returncode == 0 and json.loads(result.stdout.splitlines()[0])["type"] == "start"


@pytest.mark.parametrize(
    ("text", "en", "zh"),
    [
        ("", "event 0: the file is empty", "文件是空的"),
        ('{"type": "hello"}\n', "starts with hello", "以 hello 开头"),
        ('{"type": "start"}\nnot json\n', "line 2 is not JSON", "第 2 行"),
        ('{"type": "start_game"}\n', "an events log has start_kyoku", "事件日志里应有 start_kyoku"),
    ],
)
def test_a_bad_file_is_exit_1_with_the_reason_in_either_language(tmp_path, text, en, zh):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text, encoding="utf-8")
    for lang, words in (("en", en), ("zh", zh)):
        result = run("replay", str(bad), "--html", str(tmp_path / "x.html"), "--lang", lang)
        assert result.returncode == 1, result.stderr
        assert words in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert result.stdout == "" and not (tmp_path / "x.html").exists()


def test_a_record_that_does_not_replay_names_its_event(tmp_path):
    text = (FIXTURES / "wuhan.jsonl").read_text(encoding="utf-8")
    broken = re.sub(r'("type":"discard","seat":0,"tile":)"\d[mpsz]"', r'\1"9z"', text, count=1)
    bad = tmp_path / "broken.jsonl"
    bad.write_text(broken, encoding="utf-8")
    index = next(i for i, line in enumerate(broken.splitlines()) if '"9z"' in line)
    for lang, words in (("en", f"event {index}: "), ("zh", f"第 {index} 个事件（从 0 数）")):
        result = run("replay", str(bad), "--html", str(tmp_path / "x.html"), "--lang", lang)
        assert result.returncode == 1 and words in result.stderr, result.stderr


def test_a_script_with_an_illegal_action_is_exit_3_and_stop_after_is_a_usage_error(tmp_path):
    script = json.loads((EXAMPLES / "rob_kong.json").read_text(encoding="utf-8"))
    script["actions"][0] = {"seat": 0, "type": "discard", "tile": "8s"}  # not in seat 0's hand
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(script), encoding="utf-8")
    for lang, words in (("en", "illegal action"), ("zh", "非法动作")):
        result = run("replay", str(bad), "--html", str(tmp_path / "x.html"), "--lang", lang)
        assert result.returncode == 3 and words in result.stderr, result.stderr
    assert not (tmp_path / "x.html").exists()
    result = run("replay", str(EXAMPLES / "rob_kong.json"), "--html", "x.html", "--stop-after", "2")
    assert result.returncode == 2 and "--stop-after" in result.stderr


def test_an_unwritable_out_is_exit_1(tmp_path):
    out = tmp_path / "missing" / "x.html"
    result = run("replay", str(FIXTURES / "wuhan.jsonl"), "--html", str(out), "--lang", "zh")
    assert result.returncode == 1 and "写不了" in result.stderr


def test_the_bundle_refuses_a_module_form_it_cannot_inline(tmp_path):
    (tmp_path / "a.js").write_text('import b from "./b.js";\nexport const x = b;\n')
    (tmp_path / "b.js").write_text("export default 1;\n")
    with pytest.raises(BundleError, match="cannot inline"):
        bundle("a.js", tmp_path)
    (tmp_path / "c.js").write_text('import { d } from "./d.js";\nexport const c = d;\n')
    (tmp_path / "d.js").write_text('import { c } from "./c.js";\nexport const d = c;\n')
    with pytest.raises(BundleError, match="cycle"):
        bundle("c.js", tmp_path)


def test_a_carried_string_cannot_end_the_pages_script():
    page = replay_page({"name": "</script><script>alert(1)</script>", "hands": []}, {})
    assert page.count("</script>") == 3  # the schema's, the data's, the module's
    assert _carried(page, "laizi-replay")["name"].startswith("</script>")


def test_help_names_html():
    result = run("replay", "--help")
    assert result.returncode == 0 and "--html" in result.stdout
