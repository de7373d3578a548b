"""``laizi play`` (issue 6): a person at a terminal table, driven through a pty to the end."""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import Any

from laizi.engine import Action
from laizi.terminal import action_keys
from tests.cli_helpers import ANSI, read_until, spawn_in_pty

KEY = re.compile(r"\[([a-z0-9A-Z])\] ")


def test_a_hand_is_played_to_its_end_in_a_pty():
    args = ["play", "--seed", "4", "--hands", "1", "--lang", "en"]
    process, main = spawn_in_pty(*args, term="dumb", columns=120, set_size=False)
    transcript = ""
    try:
        for _ in range(400):
            text = read_until(main, ("> ", "End of the hand"))
            transcript += text
            if "End of the hand" in text:
                break
            keys = KEY.findall(text.rsplit("your hand", 1)[-1])
            assert keys, text
            os.write(main, f"{keys[0]}\n".encode())
        transcript += read_until(main, ("payments:",), timeout=10)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    assert "End of the hand" in transcript
    assert "payments:" in transcript
    assert "laizi" in transcript and "indicator" in transcript and "mult." in transcript
    assert process.returncode == 0


def test_actions_get_keys_discards_by_their_place_in_the_hand():
    hand = [0, 4, 33]
    legal = [
        Action(0, "discard", 0),
        Action(0, "discard", 33),
        Action(0, "lay_out", 33),
        Action(0, "win"),
    ]
    keys = action_keys(legal, hand)
    assert keys == {"a": legal[0], "c": legal[1], "1": legal[2], "2": legal[3]}


def test_a_baishan_hand_at_the_table_ends_with_the_settlement():
    import io

    from rich.console import Console

    from laizi.terminal import TerminalTable

    buffer = io.StringIO()
    console = Console(file=buffer, width=140)
    read_to = [0]

    def first_key() -> str:
        text = buffer.getvalue()[read_to[0] :]
        read_to[0] = len(buffer.getvalue())
        keys = KEY.findall(text.rsplit("your hand", 1)[-1])
        return keys[0] if keys else "n"

    table = TerminalTable("baishan", seed=2, lang="zh", console=console, read_line=first_key)
    totals = table.run(hands=1)
    out = buffer.getvalue()
    assert sum(totals) == 0
    assert "本局结束" in out and "本局得分" in out and "牌墙" in out


# -- issue 15, point 8: what a player reads at the terminal table -------------------------------
MULT = re.compile(r"×(\d+(?:\.\d+)?(?:/\d+)?) \(((?:[^()]|\([^()]*\))*)\)")


def shown_product(parts: str) -> Fraction:
    """The product of the factors a multiplier cell shows (``a (3)×2, b×1.5``)."""
    product = Fraction(1)
    for part in parts.split(", "):
        product *= Fraction(part.rsplit("×", 1)[1])
    return product


def test_the_factors_shown_multiply_to_the_multiplier_shown():
    from laizi.terminal import factor_text, multiplier_text

    # the case: kaikou, three openings (×2 once) and one laizi laid out
    m = {
        "total": 4,
        "factors": [
            {"name": "opened", "factor": 2, "count": 3},
            {"name": "laizi_gang", "factor": 2, "count": 1},
        ],
    }
    assert multiplier_text(m, "en") == "×4 (opened (3)×2, laizi laid out×2)"
    assert multiplier_text(m, "zh") == "×4 (开口(3次)×2, 癞子杠×2)"
    assert shown_product("opened (3)×2, laizi laid out×2") == 4
    koukou = {"name": "opened", "factor": 8, "count": 3}
    assert factor_text(koukou, "en") == "opened (3)×8"
    assert factor_text({"name": "self_draw", "factor": 1.5, "count": 1}, "zh") == "自摸×1.5"


def run_pty(args: list[str], answer: Any, limit: int = 400) -> str:
    """``laizi play ARGS`` in a pty; ``answer(text)`` gives the line to type after each prompt."""
    # not TERM=dumb: rich gives a dumb terminal 80 columns whatever its size (ANSI is stripped)
    process, main = spawn_in_pty("play", *args)
    transcript = ""
    try:
        for _ in range(limit):
            text = ANSI.sub("", read_until(main, ("> ", "match totals:")))
            transcript += text
            if "match totals:" in text or not text:
                break
            os.write(main, f"{answer(text)}\n".encode())
        transcript += ANSI.sub("", read_until(main, ("\n",), timeout=10))
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    return transcript


def test_pty_keys_legend_factors_confirmed_escape_and_labelled_totals():
    said: list[str] = []

    def answer(text: str) -> str:
        prompt = text.rstrip().removesuffix(">").rstrip().rsplit("\n", 1)[-1]  # before "> "
        if "[n] next hand  [q] quit" in text.rsplit("End of the hand", 1)[-1]:
            said.append("next")
            return "n"
        if "Leaving now is an escape: you pay 400 and the match ends." in prompt:
            said.append("asked")
            return "n" if said.count("asked") == 1 else "y"
        if said.count("next") and said.count("q") < 2:
            said.append("q")
            return "q"
        keys = KEY.findall(text.rsplit("your hand", 1)[-1])
        assert keys, text
        return keys[0]

    out = run_pty(["--seed", "4", "--hands", "3", "--lang", "en"], answer)
    # the end-of-hand prompt shows its keys (rich markup would have eaten "[n]" and "[q]")
    assert "[n] next hand  [q] quit" in out
    # q asks first, naming the penalty; "n" keeps playing, the second q + "y" leaves
    assert said.count("asked") == 2 and said.count("q") == 2
    assert "type a key (q leaves = escape, you pay 400)" in out
    assert "seat 0 left" in out
    assert "legend: 1m–9m=Characters  1p–9p=Dots  1s–9s=Bamboo  1z=East Wind" in out
    assert "indicator " in out and "(Red Dragon)" in out
    # every multiplier cell: the factors shown multiply to the ×N shown
    cells = MULT.findall(out)
    assert cells
    for total, parts in cells:
        assert shown_product(parts) == Fraction(total), (total, parts)
    assert "^" not in out
    # totals labelled by seat, exact: the escaper pays 400, the others get 400/3 on top
    last = out[out.rindex("match totals:") :].splitlines()[0]
    assert re.fullmatch(
        r"match totals: seat 0 \(you\) -?[\d/]+  seat 1 \(bot strong\) [+-]?[\d/]+  "
        r"seat 2 \(bot strong\) [+-]?[\d/]+  seat 3 \(bot strong\) [+-]?[\d/]+\s*",
        last,
    ), last


def test_end_of_input_escapes_without_asking_and_chinese_texts():
    import io

    from rich.console import Console

    from laizi.terminal import TerminalTable

    buffer = io.StringIO()
    lines = iter(["q", "n", "q", "y"])
    table = TerminalTable(
        "wuhan-hongzhong-koukou",
        seed=4,
        lang="zh",
        console=Console(file=buffer, width=160),
        read_line=lambda: next(lines, None),
    )
    totals = table.run(hands=1)
    out = buffer.getvalue()
    assert out.count("现在离开算逃跑，要付 500 分，本场比赛结束。确定？[y] 离开  [n] 继续打") == 2
    assert totals == [Fraction(-500), Fraction(500, 3), Fraction(500, 3), Fraction(500, 3)]
    assert (
        "本局得分：座位 0（你） -500  座位 1（机器人 strong） +500/3  "
        "座位 2（机器人 strong） +500/3" in out
    )
    assert "图例：1m–9m=万  1p–9p=筒  1s–9s=条  1z=东风" in out
    # end of input: an escape at once (nobody is there to ask)
    buffer2 = io.StringIO()
    table2 = TerminalTable(
        "wuhan-hongzhong-kaikou",
        seed=4,
        lang="en",
        console=Console(file=buffer2, width=160),
        read_line=lambda: None,
    )
    assert table2.run(hands=1)[0] == -400
    assert "Leaving now" not in buffer2.getvalue()


def test_a_drawn_baishan_hand_with_kong_payments_does_not_say_nobody_pays():
    import io

    from rich.console import Console

    from laizi.terminal import TerminalTable

    for lang, words in (
        ("en", "drawn hand: the kong payments stand"),
        ("zh", "流局（荒庄）：杠钱照付"),
    ):
        buffer = io.StringIO()
        table = TerminalTable("baishan", seed=1, lang=lang, console=Console(file=buffer, width=160))
        kongs = (Fraction(-2), Fraction(6), Fraction(-2), Fraction(-2))
        result = {"reason": "drawn", "winner": None, "payments": kongs, "settlement": None}
        table.show_end({"result": {"hands": ["1m", "2m", "3m", "4m"]}}, result)
        out = buffer.getvalue()
        assert words in out and "nobody pays" not in out and "不计分" not in out
        assert ("seat 1 (bot strong) +6" if lang == "en" else "座位 1（机器人 strong） +6") in out
