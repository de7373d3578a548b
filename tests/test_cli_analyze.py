"""`laizi analyze` as INTERFACES.md specifies it, run as a real process."""

import json
import random
import subprocess
import sys

import pytest

from laizi.tiles import count_vector, format_tile, format_tiles, parse_tile, parse_tiles
from tests.reference import PAIR_258, ref_complete, ref_waits


def run(*args: str, stdin: str | None = None, lang: str = "en") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={"LAIZI_LANG": lang, "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


def test_readable_answer_in_english():
    result = run("analyze", "234m456p789s2255s7z", "--laizi", "7z")
    assert result.returncode == 0
    assert "complete: yes" in result.stdout
    assert "hard: no" in result.stdout
    assert "shanten: -1" in result.stdout


def test_readable_answer_in_chinese_lists_waits():
    result = run("analyze", "1112345678999m", lang="zh")
    assert result.returncode == 0
    assert "听牌: 1m 2m 3m 4m 5m 6m 7m 8m 9m" in result.stdout
    assert "二五八将听牌: 2m 5m 8m" in result.stdout


def test_lang_option_beats_the_environment():
    result = run("analyze", "5z", "--lang", "zh", lang="en")
    assert "向听数: 0 (听牌)" in result.stdout


def test_single_hand_json():
    result = run("analyze", "234m456p789s225s7z", "--laizi", "7z", "--json")
    assert json.loads(result.stdout.splitlines()[-1]) == {
        "tiles": "234m456p225789s7z",
        "complete": False,
        "complete_258": False,
        "hard": False,
        "hard_258": False,
        "shanten": 0,
        "waits": ["2s", "3s", "4s", "5s", "6s", "7s", "7z"],
        "waits_258": ["2s", "3s", "4s", "5s", "6s", "7s", "7z"],
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("analyze", "12x"), "character 'x' at position 2"),
        (("analyze", "11111m"), "5 copies of 1m"),
        (("analyze", "123m"), "3n+1 or 3n+2"),
        (("analyze", "12m", "--laizi", "0z"), "position 0"),
    ],
)
def test_bad_hands_exit_1_without_a_traceback(args, message):
    result = run(*args)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_json_lines_answer_every_line_in_order_and_flag_bad_ones():
    lines = [
        '{"hand": "1112345678999m"}',
        "",
        '{"hand": "11111m"}',
        '{"hand": "234m456p789s2255s", "laizi": null}',
        '{"hand": "12m", "extra": 1}',
        "not json",
        '{"hand": "12m", "laizi": "9z"}',
    ]
    result = run("analyze", stdin="\n".join(lines) + "\n")
    assert result.returncode == 1
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 6  # the blank line gets no answer
    assert answers[0]["waits"] == [f"{n}m" for n in range(1, 10)]
    assert answers[0]["waits_258"] == ["2m", "5m", "8m"]
    assert "5 copies of 1m" in answers[1]["error"]
    assert answers[2]["waits"] == ["2s", "5s"] and answers[2]["shanten"] == 0
    assert "'extra'" in answers[3]["error"]
    assert "not valid JSON" in answers[4]["error"]
    assert "'laizi'" in answers[5]["error"]


def test_json_lines_all_good_exit_0():
    result = run("analyze", stdin='{"hand": "55m"}\n')
    assert result.returncode == 0
    assert json.loads(result.stdout)["complete_258"] is True


def hand_like(rng: random.Random, size: int) -> list[int]:
    """Melds and a pair, cut to ``size`` tiles, one tile swapped: hands near complete."""
    while True:
        tiles: list[int] = []
        while len(tiles) < size + 3:
            if rng.random() < 0.5:
                start = rng.choice([k for k in range(27) if k % 9 <= 6])
                tiles += [start, start + 1, start + 2]
            else:
                tiles += [rng.randrange(34)] * rng.choice((2, 3))
        tiles = tiles[:size]
        tiles[rng.randrange(size)] = rng.randrange(34)
        if max(tiles.count(kind) for kind in tiles) <= 4:
            return tiles


def random_hand(rng: random.Random) -> tuple[str, str | None]:
    size = rng.choice((1, 2, 4, 5, 7, 8, 10, 11, 13, 14))
    laizi = rng.choice([None, *range(34)])
    if rng.random() < 0.5:
        tiles = hand_like(rng, size)
    else:
        wall = [kind for kind in range(34) for _ in range(4)]
        rng.shuffle(wall)
        tiles = wall[:size]
    if laizi is not None:  # 0–4 laizi, biased toward having some
        tiles = [t for t in tiles if t != laizi][: size - min(rng.randint(0, 4), size)]
        tiles += [laizi] * (size - len(tiles))
    return format_tiles(tiles), None if laizi is None else format_tile(laizi)


@pytest.mark.slow  # the reference checks 3000 hands in about 50 seconds
def test_batch_agrees_with_the_independent_checker_on_thousands_of_hands():
    rng = random.Random(20261130)
    cases = [random_hand(rng) for _ in range(3000)]
    stdin = "".join(json.dumps({"hand": h, "laizi": lz}) + "\n" for h, lz in cases)
    result = run("analyze", stdin=stdin)
    assert result.returncode == 0, result.stdout[-500:]
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(cases)
    assert sum(answer["complete"] for answer in answers) > 100  # the mix has many wins
    assert sum(bool(answer["waits"]) for answer in answers) > 300  # and many ready hands
    for (hand_text, laizi_text), answer in zip(cases, answers, strict=True):
        counts = count_vector(parse_tiles(hand_text))
        laizi = parse_tile(laizi_text) if laizi_text else None
        assert answer["complete"] == ref_complete(counts, laizi), hand_text
        assert answer["complete_258"] == ref_complete(counts, laizi, PAIR_258), hand_text
        assert answer["hard"] == ref_complete(counts, None), hand_text
        assert answer["waits"] == [format_tile(t) for t in ref_waits(counts, laizi)], hand_text
        assert answer["waits_258"] == [
            format_tile(t) for t in ref_waits(counts, laizi, PAIR_258)
        ], hand_text


def test_baishan_lines_add_the_special_shapes():
    lines = [
        '{"hand": "1199m1199p11s1133z", "game": "baishan"}',
        '{"hand": "19m19p19s1234566z", "game": "baishan"}',
        '{"hand": "19m19p19s1234566z"}',
        '{"hand": "12m", "game": "baishan", "laizi": "1m"}',
        '{"hand": "12m", "game": "riichi"}',
    ]
    result = run("analyze", stdin="\n".join(lines))
    assert result.returncode == 1
    first, second, wuhan, with_laizi, unknown = map(json.loads, result.stdout.splitlines())
    assert first["seven_pairs"] is True and first["thirteen_orphans"] is False
    assert first["special_waits"] == [] and first["complete"] is False
    assert second["special_waits"] == ["7z"] and second["seven_pairs"] is False
    assert "seven_pairs" not in wuhan
    assert with_laizi == {"error": "field 'laizi': Baishan mahjong has no laizi"}
    assert "field 'game'" in unknown["error"]


def test_baishan_readable():
    result = run("analyze", "19m19p19s12345677z", "--game", "baishan")
    assert "thirteen orphans: yes" in result.stdout
